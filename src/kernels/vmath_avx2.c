/* SPDX-License-Identifier: Apache-2.0 */
/* float32 transcendentals through SLEEF's u10 AVX2 functions (maximum error
   1.0 ulp), eight at a time, for CPUs with AVX2 and FMA but not AVX-512F
   (vmath.c); the same functions as there, the tail of a run through a
   masked load and store, the same finz_ sin, cos and tan and the scalar
   path's lanes where a NaN is in or out (vmath.c says why). Compiled for
   AVX2 and FMA, and called only where the CPU has both. */
#if defined(NX_HAVE_SLEEF)
#include <immintrin.h>
#include <sleef.h>

#include "vmath.h"


/* The mask of the first m lanes (0 < m < 8). */
static __m256i first_lanes(int64_t m) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)m), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* r with the lanes of m (a NaN input or result) the scalar path's, as in
   vmath.c: a NaN input itself, quieted; an invalid operation through the
   scalar path. */
__attribute__((noinline, cold)) static __m256 nan_lanes(nx__uop op, __m256 x, __m256 r, int m) {
  __m256 xn = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  r = _mm256_blendv_ps(r, _mm256_or_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x00400000))), xn);
  if (!(m &= ~_mm256_movemask_ps(xn))) return r;
  float xs[8], rs[8];
  _mm256_storeu_ps(xs, x);
  _mm256_storeu_ps(rs, r);
  nx__vmath_scalar_lanes(op, rs, xs, (unsigned)m);
  return _mm256_loadu_ps(rs);
}

/* As vmath.c's loops: with nt (z on a 64-byte line), non-temporal stores. */
#define NX__VLOOP8(name, F, OP)                                                                  \
  static inline __m256 name##_v(__m256 x) {                                                     \
    __m256 r = F(x);                                                                            \
    int m = _mm256_movemask_ps(_mm256_cmp_ps(x, r, _CMP_UNORD_Q));                              \
    return m ? nan_lanes(OP, x, r, m) : r;                                                      \
  }                                                                                             \
  static void name##_run(float *z, const float *x, int64_t n, bool nt) {                          \
    int64_t i = 0;                                                                              \
    if (nt) {                                                                                   \
      for (; i + 8 <= n; i += 8) _mm256_stream_ps(z + i, name##_v(_mm256_loadu_ps(x + i)));     \
      _mm_sfence(); /* the streamed stores ordered before what follows */                     \
    }                                                                                           \
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(z + i, name##_v(_mm256_loadu_ps(x + i)));       \
    if (i < n) {                                                                                \
      __m256i m = first_lanes(n - i);                                                           \
      _mm256_maskstore_ps(z + i, m, name##_v(_mm256_maskload_ps(x + i, m)));                    \
    }                                                                                           \
  }                                                                                             \
  static void name(float *z, const float *x, int64_t n) { nx__vmath_split(name##_run, z, x, n); }
NX__VLOOP8(v8_exp, Sleef_expf8_u10avx2, NX__EXP)
NX__VLOOP8(v8_log, Sleef_logf8_u10avx2, NX__LOG)
NX__VLOOP8(v8_sin, Sleef_finz_sinf8_u10avx2, NX__SIN)
NX__VLOOP8(v8_cos, Sleef_finz_cosf8_u10avx2, NX__COS)
NX__VLOOP8(v8_tan, Sleef_finz_tanf8_u10avx2, NX__TAN)
NX__VLOOP8(v8_asin, Sleef_asinf8_u10avx2, NX__ASIN)
NX__VLOOP8(v8_acos, Sleef_acosf8_u10avx2, NX__ACOS)
NX__VLOOP8(v8_atan, Sleef_atanf8_u10avx2, NX__ATAN)

void nx__vmath256_f32(nx__uop op, float *z, const float *x, int64_t n) {
  switch (op) {
  case NX__EXP: v8_exp(z, x, n); break;
  case NX__LOG: v8_log(z, x, n); break;
  case NX__SIN: v8_sin(z, x, n); break;
  case NX__COS: v8_cos(z, x, n); break;
  case NX__TAN: v8_tan(z, x, n); break;
  case NX__ASIN: v8_asin(z, x, n); break;
  case NX__ACOS: v8_acos(z, x, n); break;
  case NX__ATAN: v8_atan(z, x, n); break;
  default: break;
  }
}
#else
/* Without SLEEF: nothing here (vmath_level.c answers NX__VMATH_NONE). */
typedef int nx__no_sleef_loops;
#endif
