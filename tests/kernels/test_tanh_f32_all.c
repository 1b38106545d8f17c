/* SPDX-License-Identifier: Apache-2.0 */
/* float32 tanh, every one of the 2^32 inputs, at each vector level this CPU
   runs: within 0.84 ulp of double tanh (libm's double errs by about 2^-52
   relatively, 2^-29 of a float32 ulp: an oracle to this bound), the sign
   of the exact value (of x), and a NaN's own NaN quieted. A long suite: it
   runs only with NX_LONG_TESTS=1. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "vtanh.h"

enum { CHUNK = 1 << 20 };

/* float32's ulp at the magnitude of t (t finite, nonzero). */
static double ulp_f32(double t) {
  int e;
  frexp(t, &e);
  double u = ldexp(1.0, e - 1 - 23);
  return u < 0x1p-149 ? 0x1p-149 : u;
}

int main(void) {
  const char *env = getenv("NX_LONG_TESTS");
  if (!env || strcmp(env, "1") != 0) return skip("all 2^32 float32 inputs take minutes; set NX_LONG_TESTS=1");
  float *x = malloc(CHUNK * 4), *z = malloc(CHUNK * 4);
  CHECK(x && z, "test buffers");
  for (int level = NX__TANH_AVX2; x && z && level <= NX__TANH_AVX512; level++) {
    if (nx__tanh_level(level) != level) {
      printf("tanh float32: no level %d on this CPU\n", level);
      continue;
    }
    double worst = 0;
    long bad = 0;
    for (uint64_t base = 0; base < (1ull << 32); base += CHUNK) {
      for (uint32_t i = 0; i < CHUNK; i++) {
        uint32_t b = (uint32_t)(base + i);
        memcpy(x + i, &b, 4);
      }
      nx__tanh_f32(level, z, x, CHUNK);
      for (uint32_t i = 0; i < CHUNK; i++) {
        uint32_t xb, zb;
        memcpy(&xb, x + i, 4);
        memcpy(&zb, z + i, 4);
        if (isnan(x[i])) {
          if (zb != (xb | 0x00400000u) && bad++ < 3) CHECK(0, "tanh level %d of NaN %08x: %08x", level, xb, zb);
          continue;
        }
        double t = tanh((double)x[i]);
        bool sign_ok = (zb >> 31) == (xb >> 31);
        double e = t == 0 ? (z[i] == 0 ? 0 : INFINITY) : fabs((double)z[i] - t) / ulp_f32(t);
        if (e > worst) worst = e;
        if ((e > 0.84 || !sign_ok) && bad++ < 3) CHECK(0, "tanh level %d of %a: %a, %g ulp", level, x[i], z[i], e);
      }
    }
    CHECK(bad == 0, "tanh float32 level %d: %ld wrong", level, bad);
    printf("tanh float32 level %d: max %.6f ulp over every input\n", level, worst);
  }
  free(x);
  free(z);
  return check_done();
}
