/* SPDX-License-Identifier: Apache-2.0 */
/* Which of the SLEEF loops runs (vmath.c on AVX-512F, vmath_avx2.c on AVX2
   with FMA), by the build and the CPU; compiled for the baseline, so that
   the choice itself runs anywhere. */
#include "stream.h"
#include "vmath.h"

#if defined(NX_HAVE_SLEEF) && defined(__x86_64__) && defined(__GNUC__)
#define NX__VMATH_BUILT 1
#endif

bool nx__vmath_known(nx__uop op) {
  switch (op) {
  case NX__EXP:
  case NX__LOG:
  case NX__SIN:
  case NX__COS:
  case NX__TAN:
  case NX__ASIN:
  case NX__ACOS:
  case NX__ATAN: return true;
  default: return false;
  }
}

int nx__vmath_level(int cap) {
#if defined(NX__VMATH_BUILT)
  if (cap >= NX__VMATH_AVX512 && __builtin_cpu_supports("avx512f")) return NX__VMATH_AVX512;
  if (cap >= NX__VMATH_AVX2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return NX__VMATH_AVX2;
#else
  (void)cap;
#endif
  return NX__VMATH_NONE;
}

void nx__vmath_f32(int level, nx__uop op, float *z, const float *x, int64_t n) {
#if defined(NX__VMATH_BUILT)
  if (level == NX__VMATH_AVX512) nx__vmath512_f32(op, z, x, n);
  else if (level == NX__VMATH_AVX2) nx__vmath256_f32(op, z, x, n);
#else
  /* never called: nx__vmath_level answers NX__VMATH_NONE */
  (void)level;
  (void)op;
  (void)z;
  (void)x;
  (void)n;
#endif
}

void nx__vmath_scalar_lanes(nx__uop op, float *r, const float *x, unsigned mask) {
  for (int l = 0; mask; l++, mask >>= 1)
    if (mask & 1) r[l] = (float)nx__fn1(op, (double)x[l]);
}

void nx__vmath_split(nx__vrun run, float *z, const float *x, int64_t n) {
  uintptr_t at = (uintptr_t)z;
  if (n * 4 < NX__STREAM_BYTES || at % 4) {
    run(z, x, n, false);
    return;
  }
  int64_t head = (int64_t)((64 - at % 64) % 64) / 4;
  run(z, x, head, false);
  run(z + head, x + head, n - head, true);
}
