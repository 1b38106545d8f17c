/* float32 transcendentals through SLEEF's u10 AVX-512F functions (maximum
   error 1.0 ulp); the tail of a run through a masked load and store. Not
   sinh and cosh, whose SLEEF versions overflow to infinity below float32's
   overflow threshold (|x| near 88.7 instead of 89.4), nor erf, measured at
   1.03 ulp against MPFR: those stay on libm. */
#if defined(NX_HAVE_SLEEF)
#include <immintrin.h>
#include <sleef.h>

#include "vmath.h"

typedef __m512 (*vfn)(__m512);

static vfn fn_of(nx__uop op) {
  switch (op) {
  case NX__EXP: return Sleef_expf16_u10avx512f;
  case NX__LOG: return Sleef_logf16_u10avx512f;
  case NX__SIN: return Sleef_sinf16_u10avx512f;
  case NX__COS: return Sleef_cosf16_u10avx512f;
  case NX__TAN: return Sleef_tanf16_u10avx512f;
  case NX__ASIN: return Sleef_asinf16_u10avx512f;
  case NX__ACOS: return Sleef_acosf16_u10avx512f;
  case NX__ATAN: return Sleef_atanf16_u10avx512f;
  case NX__TANH: return Sleef_tanhf16_u10avx512f;
  default: return 0;
  }
}

bool nx__vmath_known(nx__uop op) { return fn_of(op) != 0; }

/* SLEEF's tanh is x plus an ulp for tiny x, past 1 ulp; below 2^-13 the
   correctly rounded tanh(x) = x - x^3/3 + ... is x itself. */
static inline __m512 apply(nx__uop op, vfn f, __m512 v) {
  __m512 r = f(v);
  if (op == NX__TANH) r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(_mm512_abs_ps(v), _mm512_set1_ps(0x1p-13f), _CMP_LT_OQ), r, v);
  return r;
}

void nx__vmath_f32(nx__uop op, float *z, const float *x, int64_t n) {
  vfn f = fn_of(op);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(z + i, apply(op, f, _mm512_loadu_ps(x + i)));
  if (i < n) {
    __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(z + i, m, apply(op, f, _mm512_maskz_loadu_ps(m, x + i)));
  }
}
#else
/* Without SLEEF, nothing: unary.c does not call it. */
typedef int nx__vmath_unused;
#endif
