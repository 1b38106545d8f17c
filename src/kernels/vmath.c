/* SPDX-License-Identifier: Apache-2.0 */
/* float32 transcendentals through SLEEF's u10 AVX-512F functions (maximum
   error 1.0 ulp), sixteen at a time; the tail of a run through a masked
   load and store (vmath_avx2.c: the same on AVX2, eight at a time). Not
   sinh and cosh, whose SLEEF versions overflow to infinity below float32's
   overflow threshold (|x| near 88.7 instead of 89.4), nor erf, measured at
   1.03 ulp against MPFR: those stay on libm. Nor tanh, whose SLEEF version
   costs five times its exp: vtanh.c computes it.

   Two departures from the plain SLEEF calls, so that a lane's bits are its
   input's alone and those of the scalar path where the result is NaN:
   sin, cos and tan are SLEEF's finz_ variants ("bit-wise consistent"),
   whose lanes of |x| < 125 keep the fast reduction when another lane is
   large, infinite or NaN (the plain ones then reduce all sixteen the slow
   way, which moved other lanes' results by an ulp); elsewhere they give
   the plain ones' bits. And a lane whose input or result is NaN takes the
   scalar path's bits (SLEEF answers such lanes with NaNs of its own:
   all-ones for sin of a NaN, the input's fraction for log of a negative,
   a lost sign in acos). */
#if defined(NX_HAVE_SLEEF)
#include <immintrin.h>
#include <sleef.h>

#include "vmath.h"

/* r with the lanes of m (a NaN input or result) the scalar path's: a NaN
   input gives itself, quieted; a number whose result is NaN (an invalid
   operation) goes through the scalar path itself. Rare, so out of the
   loops. */
__attribute__((noinline, cold)) static __m512 nan_lanes(nx__uop op, __m512 x, __m512 r, __mmask16 m) {
  __mmask16 xn = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  __m512 q = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x00400000)));
  r = _mm512_mask_mov_ps(r, xn, q);
  if (!(m &= (__mmask16)~xn)) return r;
  float xs[16], rs[16];
  _mm512_storeu_ps(xs, x);
  _mm512_storeu_ps(rs, r);
  nx__vmath_scalar_lanes(op, rs, xs, m);
  return _mm512_loadu_ps(rs);
}

/* One loop per function (SLEEF's declarations differ between compilers in
   the qualifiers of their results, so no table of pointers). With nt (z on
   a 64-byte line), non-temporal stores: a large result's lines are then
   not read before being written, a third of the loop's memory traffic,
   which is what two threads are short of. */
#define NX__VLOOP(name, F, OP)                                                                   \
  static inline __m512 name##_v(__m512 x) {                                                     \
    __m512 r = F(x);                                                                            \
    __mmask16 m = _mm512_cmp_ps_mask(x, r, _CMP_UNORD_Q);                                       \
    return m ? nan_lanes(OP, x, r, m) : r;                                                      \
  }                                                                                             \
  static void name##_run(float *z, const float *x, int64_t n, bool nt) {                          \
    int64_t i = 0;                                                                              \
    if (nt) {                                                                                   \
      for (; i + 16 <= n; i += 16) _mm512_stream_ps(z + i, name##_v(_mm512_loadu_ps(x + i)));   \
      _mm_sfence(); /* the streamed stores ordered before what follows */                     \
    }                                                                                           \
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(z + i, name##_v(_mm512_loadu_ps(x + i)));     \
    if (i < n) {                                                                                \
      __mmask16 m = (__mmask16)((1u << (n - i)) - 1);                                           \
      _mm512_mask_storeu_ps(z + i, m, name##_v(_mm512_maskz_loadu_ps(m, x + i)));               \
    }                                                                                           \
  }                                                                                             \
  static void name(float *z, const float *x, int64_t n) { nx__vmath_split(name##_run, z, x, n); }
NX__VLOOP(v_exp, Sleef_expf16_u10avx512f, NX__EXP)
NX__VLOOP(v_log, Sleef_logf16_u10avx512f, NX__LOG)
NX__VLOOP(v_sin, Sleef_finz_sinf16_u10avx512f, NX__SIN)
NX__VLOOP(v_cos, Sleef_finz_cosf16_u10avx512f, NX__COS)
NX__VLOOP(v_tan, Sleef_finz_tanf16_u10avx512f, NX__TAN)
NX__VLOOP(v_asin, Sleef_asinf16_u10avx512f, NX__ASIN)
NX__VLOOP(v_acos, Sleef_acosf16_u10avx512f, NX__ACOS)
NX__VLOOP(v_atan, Sleef_atanf16_u10avx512f, NX__ATAN)

typedef void (*loop_fn)(float *, const float *, int64_t);

static loop_fn loop_of(nx__uop op) {
  switch (op) {
  case NX__EXP: return v_exp;
  case NX__LOG: return v_log;
  case NX__SIN: return v_sin;
  case NX__COS: return v_cos;
  case NX__TAN: return v_tan;
  case NX__ASIN: return v_asin;
  case NX__ACOS: return v_acos;
  case NX__ATAN: return v_atan;
  default: return 0;
  }
}

void nx__vmath512_f32(nx__uop op, float *z, const float *x, int64_t n) { loop_of(op)(z, x, n); }
#else
/* Without SLEEF: nothing here (vmath_level.c answers NX__VMATH_NONE). */
typedef int nx__no_sleef_loops;
#endif
