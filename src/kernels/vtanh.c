/* SPDX-License-Identifier: Apache-2.0 */
/* float32 tanh in double: for d = min(|x|, 10) (tanh rounds to 1 in float32
   from 9.02 on), em = expm1(2d) by 2d = k ln2 + r, |r| <= ln2/2, a degree-6
   polynomial p(r) of expm1 (relative error below 2^-26) and
   em = 2^k p + (2^k - 1); then tanh(d) = em / (em + 2), with the sign of x.
   expm1 rather than exp keeps the relative error small for tiny x, where
   em is 2d and tanh is d. A relative error e of em changes tanh(d) by at
   most e relatively (em / (em + 2) has a logarithmic derivative below 1 in
   em); p's 2^-26.1, one Newton step after a 14-bit reciprocal (2^-27.9 on
   AVX-512; AVX2 divides) and a few 2^-53 put the double result within
   2^-25.6 of tanh(d), a third of a float32 ulp at most, so its one rounding
   errs by under 0.84 ulp. Only float32 accuracy is asked of double here:
   the polynomial is the shortest that gives it. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "stream.h"
#include "vtanh.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define NX__X86 1
#endif

/* ln 2 rounded to double: with |k| <= 29, r = y - k ln2 errs by under 2^-48
   absolutely, which moves em by under 2^-47 relatively */
#define NX__LN2 6.93147180559945286227e-01
#define NX__INV_LN2 1.44269504088896338700e+00

/* expm1(r) = r + r^2 G(r) on |r| <= ln2/2, G of degree 4 fitted on Chebyshev
   nodes (relative error of expm1 below 2^-26.1), highest coefficient first. */
static const double nx__c[5] = {0.0013858160101327317, 0.008366673466102481, 0.0416675964293474,
                                0.16666541990495445, 0.4999999674825288};
#define NX__NC 5

#if defined(NX__X86)
/* tanh(y / 2) for y = 2 min(|x|, 10), eight doubles. */
__attribute__((target("avx512f"))) static inline __m512d tanh_half8(__m512d y) {
  __m512d k = _mm512_roundscale_pd(_mm512_mul_pd(y, _mm512_set1_pd(NX__INV_LN2)), _MM_FROUND_TO_NEAREST_INT);
  __m512d r = _mm512_fnmadd_pd(k, _mm512_set1_pd(NX__LN2), y);
  __m512d q = _mm512_set1_pd(nx__c[0]);
  for (int j = 1; j < NX__NC; j++) q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(nx__c[j]));
  __m512d p = _mm512_fmadd_pd(q, _mm512_mul_pd(r, r), r); /* expm1(r) */
  __m512d t = _mm512_scalef_pd(_mm512_set1_pd(1.0), k);    /* 2^k, k <= 29 */
  __m512d em = _mm512_fmadd_pd(p, t, _mm512_sub_pd(t, _mm512_set1_pd(1.0)));
  __m512d den = _mm512_add_pd(em, _mm512_set1_pd(2.0));
  /* 1 / den: 14 bits (relative error below 2^-14), then one Newton step
     (below 2^-27.9) */
  __m512d v = _mm512_rcp14_pd(den);
  v = _mm512_fmadd_pd(v, _mm512_fnmadd_pd(den, v, _mm512_set1_pd(1.0)), v);
  return _mm512_mul_pd(em, v);
}

/* Sixteen floats: |x|, the clamp, 2|x| (exact), the sign and the NaNs in
   float32; the rest in two halves of double. */
__attribute__((target("avx512f"))) static inline __m512 tanh16(__m512 x) {
  __m512 y = _mm512_min_ps(_mm512_abs_ps(x), _mm512_set1_ps(10.0f)); /* NaN: 10, replaced below */
  y = _mm512_add_ps(y, y);
  __m256 lo = _mm512_castps512_ps256(y), hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(y), 1));
  __m256 tlo = _mm512_cvtpd_ps(tanh_half8(_mm512_cvtps_pd(lo))), thi = _mm512_cvtpd_ps(tanh_half8(_mm512_cvtps_pd(hi)));
  __m512i t = _mm512_castpd_si512(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(tlo)), _mm256_castps_pd(thi), 1));
  __m512i xi = _mm512_castps_si512(x);
  t = _mm512_or_si512(t, _mm512_and_si512(xi, _mm512_set1_epi32((int)0x80000000u)));
  __m512i qnan = _mm512_or_si512(xi, _mm512_set1_epi32(0x00400000)); /* a NaN's own, quieted */
  return _mm512_castsi512_ps(_mm512_mask_mov_epi32(t, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), qnan));
}

/* With nt (z on a 64-byte line), non-temporal stores: a large result's
   lines are then not read before being written. */
__attribute__((target("avx512f"))) static void tanh_avx512(float *z, const float *x, int64_t n, bool nt) {
  int64_t i = 0;
  if (nt) {
    for (; i + 16 <= n; i += 16) _mm512_stream_ps(z + i, tanh16(_mm512_loadu_ps(x + i)));
    _mm_sfence(); /* the streamed stores ordered before what follows (another thread's read) */
  }
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(z + i, tanh16(_mm512_loadu_ps(x + i)));
  if (i < n) {
    __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(z + i, m, tanh16(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

__attribute__((target("avx2,fma"))) static inline __m128 tanh4(__m128 xf) {
  __m256d x = _mm256_cvtps_pd(xf);
  __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
  __m256d d = _mm256_min_pd(ax, _mm256_set1_pd(10.0)); /* NaN: 10, replaced below */
  __m256d y = _mm256_add_pd(d, d);
  __m256d k = _mm256_round_pd(_mm256_mul_pd(y, _mm256_set1_pd(NX__INV_LN2)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(NX__LN2), y);
  __m256d q = _mm256_set1_pd(nx__c[0]);
  for (int j = 1; j < NX__NC; j++) q = _mm256_fmadd_pd(q, r, _mm256_set1_pd(nx__c[j]));
  __m256d p = _mm256_fmadd_pd(q, _mm256_mul_pd(r, r), r);
  /* 2^k: k + 2^52 + 2^51 + 1023 holds k + 1023 in its low bits; shifted
     into the exponent field */
  __m256i kb = _mm256_castpd_si256(_mm256_add_pd(k, _mm256_set1_pd(6755399441055744.0 + 1023)));
  __m256d t = _mm256_castsi256_pd(_mm256_slli_epi64(kb, 52));
  __m256d em = _mm256_fmadd_pd(p, t, _mm256_sub_pd(t, _mm256_set1_pd(1.0)));
  __m256d th = _mm256_div_pd(em, _mm256_add_pd(em, _mm256_set1_pd(2.0)));
  th = _mm256_or_pd(th, _mm256_and_pd(x, _mm256_set1_pd(-0.0)));
  th = _mm256_blendv_pd(th, x, _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
  return _mm256_cvtpd_ps(th);
}

__attribute__((target("avx2,fma"))) static void tanh_avx2(float *z, const float *x, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128 a = tanh4(_mm_loadu_ps(x + i)), b = tanh4(_mm_loadu_ps(x + i + 4));
    _mm_storeu_ps(z + i, a);
    _mm_storeu_ps(z + i + 4, b);
  }
  for (; i < n; i += 4) {
    float buf[4] = {0};
    int64_t m = n - i < 4 ? n - i : 4;
    memcpy(buf, x + i, (size_t)m * 4);
    _mm_storeu_ps(buf, tanh4(_mm_loadu_ps(buf)));
    memcpy(z + i, buf, (size_t)m * 4);
  }
}
#endif

int nx__tanh_level(int cap) {
#if defined(NX__X86)
  if (cap >= NX__TANH_AVX512 && __builtin_cpu_supports("avx512f")) return NX__TANH_AVX512;
  if (cap >= NX__TANH_AVX2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return NX__TANH_AVX2;
#else
  (void)cap;
#endif
  return NX__TANH_SCALAR;
}

void nx__tanh_f32(int level, float *z, const float *x, int64_t n) {
#if defined(NX__X86)
  if (level == NX__TANH_AVX512) {
    /* From 2 MiB of result, as the casts do (src/kernels/cast_x86.c): a head
       up to z's 64-byte line, then streamed stores. */
    uintptr_t at = (uintptr_t)z;
    if (n * 4 >= NX__STREAM_BYTES && at % 4 == 0) {
      int64_t head = (int64_t)((64 - at % 64) % 64) / 4;
      tanh_avx512(z, x, head, false);
      tanh_avx512(z + head, x + head, n - head, true);
    } else tanh_avx512(z, x, n, false);
    return;
  }
  if (level == NX__TANH_AVX2) {
    tanh_avx2(z, x, n);
    return;
  }
#else
  (void)level;
#endif
  for (int64_t i = 0; i < n; i++) z[i] = (float)tanh((double)x[i]);
}
