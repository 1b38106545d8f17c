/* SPDX-License-Identifier: Apache-2.0 */
/* float32 transcendentals through SLEEF's u10 AVX-512F functions (maximum
   error 1.0 ulp), sixteen at a time; the tail of a run through a masked
   load and store (vmath_avx2.c: the same on AVX2, eight at a time). Not
   sinh and cosh, whose SLEEF versions overflow to infinity below float32's
   overflow threshold (|x| near 88.7 instead of 89.4), nor erf, measured at
   1.03 ulp against MPFR: those stay on libm. Nor tanh, whose SLEEF version
   costs five times its exp: vtanh.c computes it. */
#if defined(NX_HAVE_SLEEF)
#include <immintrin.h>
#include <sleef.h>

#include "vmath.h"

/* One loop per function (SLEEF's declarations differ between compilers in
   the qualifiers of their results, so no table of pointers). With nt (z on
   a 64-byte line), non-temporal stores: a large result's lines are then
   not read before being written, a third of the loop's memory traffic,
   which is what two threads are short of. */
#define NX__VLOOP(name, F)                                                                       \
  static void name##_run(float *z, const float *x, int64_t n, bool nt) {                          \
    int64_t i = 0;                                                                              \
    if (nt) {                                                                                   \
      for (; i + 16 <= n; i += 16) _mm512_stream_ps(z + i, F(_mm512_loadu_ps(x + i)));          \
      _mm_sfence(); /* the streamed stores ordered before what follows */                     \
    }                                                                                           \
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(z + i, F(_mm512_loadu_ps(x + i)));            \
    if (i < n) {                                                                                \
      __mmask16 m = (__mmask16)((1u << (n - i)) - 1);                                           \
      _mm512_mask_storeu_ps(z + i, m, F(_mm512_maskz_loadu_ps(m, x + i)));                      \
    }                                                                                           \
  }                                                                                             \
  static void name(float *z, const float *x, int64_t n) { nx__vmath_split(name##_run, z, x, n); }
NX__VLOOP(v_exp, Sleef_expf16_u10avx512f)
NX__VLOOP(v_log, Sleef_logf16_u10avx512f)
NX__VLOOP(v_sin, Sleef_sinf16_u10avx512f)
NX__VLOOP(v_cos, Sleef_cosf16_u10avx512f)
NX__VLOOP(v_tan, Sleef_tanf16_u10avx512f)
NX__VLOOP(v_asin, Sleef_asinf16_u10avx512f)
NX__VLOOP(v_acos, Sleef_acosf16_u10avx512f)
NX__VLOOP(v_atan, Sleef_atanf16_u10avx512f)

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
