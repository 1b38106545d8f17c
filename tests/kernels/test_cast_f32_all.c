/* Cast from float32, every one of the 2^32 inputs, into float16, bfloat16,
   float8_e4m3fn, float8_e5m2 and float4_e2m1fn, on the vector path of every
   instruction-set level this CPU has, bit for bit against nx_dtype.h's
   float32 stores. A long suite: it runs only with NX_LONG_TESTS=1. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "cast.h"
#include "cast_internal.h"

enum { CHUNK = 1 << 20 };

static uint64_t expect(int to, uint32_t u) {
  switch (to) {
  case NX_FLOAT16: return nx_store_float16_f32(u);
  case NX_BFLOAT16: return nx_store_bfloat16_f32(u);
  case NX_FLOAT8_E4M3FN: return nx_store_float8_e4m3fn_f32(u);
  case NX_FLOAT8_E5M2: return nx_store_float8_e5m2_f32(u);
  default: return nx_store_float4_e2m1fn_f32(u);
  }
}

int main(void) {
  const char *env = getenv("NX_LONG_TESTS");
  if (!env || strcmp(env, "1") != 0) return skip("all 2^32 float32 inputs take minutes; set NX_LONG_TESTS=1");
  static const int tos[] = {NX_FLOAT16, NX_BFLOAT16, NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2, NX_FLOAT4_E2M1FN};
  uint32_t *src = malloc(CHUNK * 4);
  uint8_t *dst = malloc(CHUNK * 2), *want = malloc(CHUNK * 2);
  for (uint64_t base = 0; base < (1ull << 32); base += CHUNK) {
    for (uint32_t i = 0; i < CHUNK; i++) src[i] = (uint32_t)(base + i);
    for (size_t t = 0; t < sizeof tos / sizeof tos[0]; t++) {
      int to = tos[t], bits = nx_dtype_bits_of(to);
      for (uint32_t i = 0; i < CHUNK; i++) {
        uint64_t e = expect(to, src[i]);
        if (bits == 16) memcpy(want + 2 * i, &e, 2);
        else if (bits == 8) want[i] = (uint8_t)e;
        else nx_subbyte_put(want, i, 4, (uint8_t)e);
      }
      size_t bytes = (size_t)CHUNK * (size_t)bits / 8;
      for (int level = NX__CAST_ISA_AVX2; level <= NX__CAST_ISA_AVX512X; level++) {
        if (nx__cast_set_isa(level) != level) continue;
        memset(dst, 0, bytes);
        nx__cast_run((nx_dtype)to, dst, 0, 1, NX_FLOAT32, src, 0, 1, CHUNK);
        CHECK(memcmp(dst, want, bytes) == 0, "float32 %08llx.. -> %s at level %d differs",
              (unsigned long long)base, nx_dtype_name((nx_dtype)to), level);
      }
    }
  }
  free(src);
  free(dst);
  free(want);
  return check_done();
}
