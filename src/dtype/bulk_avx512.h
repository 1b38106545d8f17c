/* SPDX-License-Identifier: Apache-2.0 */
/* The float stores of nx_dtype_store_n in AVX-512 (F, BW, VL, DQ, and BMI2),
   eight elements a step: nx__store_float's steps for a float64 source
   (nx_dtype.h) lane by lane, the same bits. gcc does not vectorize the
   header's loop itself (it narrows the exponent arithmetic to 32-bit lanes
   and then cannot widen it for the 64-bit shifts), hence this. Included by
   bulk.c on x86-64. */
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,bmi2")))

/* The store rule from float64 bits into (eb, fb, inf, nan, sat), 8 lanes. */
AVX512 static inline __m512i store8(__m512i u, int eb, int fb, int inf, int nan, int sat) {
  const int64_t bias = (1 << (eb - 1)) - 1, w = 1 + eb + fb;
  const uint64_t max = nx__max_finite(eb, fb, sat), inf_bits = (((uint64_t)1 << eb) - 1) << fb;
  const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi64(1);
  __m512i a = _mm512_and_si512(u, _mm512_set1_epi64(0x7FFFFFFFFFFFFFFFll));
  __m512i sign = _mm512_slli_epi64(_mm512_srli_epi64(u, 63), (unsigned)(w - 1));
  __m512i sig = _mm512_or_si512(_mm512_and_si512(a, _mm512_set1_epi64(0xFFFFFFFFFFFFFll)), _mm512_set1_epi64(1ll << 52));
  __m512i x = _mm512_sub_epi64(_mm512_srli_epi64(a, 52), _mm512_set1_epi64(1023 - bias + 1));
  __m512i below = _mm512_max_epi64(_mm512_sub_epi64(zero, x), zero);
  __m512i s = _mm512_min_epi64(_mm512_add_epi64(below, _mm512_set1_epi64(52 - fb)), _mm512_set1_epi64(54));
  __m512i half = _mm512_sub_epi64(_mm512_sllv_epi64(one, _mm512_sub_epi64(s, one)), one);
  __m512i odd = _mm512_and_si512(_mm512_srlv_epi64(sig, s), one);
  __m512i q = _mm512_srlv_epi64(_mm512_add_epi64(_mm512_add_epi64(sig, half), odd), s);
  __m512i r = _mm512_add_epi64(_mm512_slli_epi64(_mm512_max_epi64(x, zero), (unsigned)fb), q);
  r = _mm512_mask_blend_epi64(_mm512_cmpgt_epu64_mask(r, _mm512_set1_epi64((long long)max)), r,
                              _mm512_set1_epi64((long long)(inf ? inf_bits : max)));
  r = _mm512_or_si512(r, sign);
  __m512i qnan;
  if (!nan) qnan = zero;
  else if (!inf) qnan = _mm512_or_si512(sign, _mm512_set1_epi64((long long)(max | 1)));
  else
    qnan = _mm512_or_si512(_mm512_or_si512(sign, _mm512_set1_epi64((long long)(inf_bits | (1ull << (fb - 1))))),
                           _mm512_srli_epi64(_mm512_and_si512(a, _mm512_set1_epi64(0xFFFFFFFFFFFFFll)), (unsigned)(52 - fb)));
  return _mm512_mask_blend_epi64(_mm512_cmpgt_epu64_mask(a, _mm512_set1_epi64(0x7FF0000000000000ll)), r, qnan);
}

#define FLOAT_LOOP(narrow)                                                 \
  for (; i + 8 <= n; i += 8) {                                             \
    __m512i v = store8(_mm512_loadu_si512((const void *)(x + i)), eb, fb, inf, nan, sat); \
    narrow;                                                                \
  }

/* Elements [0, n8) of a float store, n8 the largest multiple of 8 up to n:
   n8, where the plain loops go on. */
AVX512 static inline int64_t floats8(int64_t n, const double *x, uint8_t *o, int eb, int fb, int inf, int nan, int sat,
                                     int width) {
  int64_t i = 0;
  if (width == 32) FLOAT_LOOP(_mm256_storeu_si256((__m256i *)(void *)(o + 4 * i), _mm512_cvtepi64_epi32(v)))
  else if (width == 16) FLOAT_LOOP(_mm_storeu_si128((__m128i *)(void *)(o + 2 * i), _mm512_cvtepi64_epi16(v)))
  else if (width == 8) FLOAT_LOOP(_mm_storel_epi64((__m128i *)(void *)(o + i), _mm512_cvtepi64_epi8(v)))
  else /* 4 bits: byte k of the 8 results is element k; pairs of nibbles into 4 bytes */
    FLOAT_LOOP({
      uint64_t b = (uint64_t)_mm_cvtsi128_si64(_mm512_cvtepi64_epi8(_mm512_and_si512(v, _mm512_set1_epi64(15))));
      uint32_t p = (uint32_t)_pext_u64(b | b >> 4, 0x00FF00FF00FF00FFull);
      memcpy(o + i / 2, &p, 4);
    })
  return i;
}

/* The float formats' stores, their first multiple of 8 elements: how many. */
AVX512 static int64_t store_floats_avx512(int code, const double *x, void *out, int64_t n) {
  uint8_t *o = (uint8_t *)out;
  switch (code) {
  case NX_FLOAT32: return floats8(n, x, o, 8, 23, 1, 1, 0, 32);
  case NX_FLOAT16: return floats8(n, x, o, 5, 10, 1, 1, 0, 16);
  case NX_BFLOAT16: return floats8(n, x, o, 8, 7, 1, 1, 0, 16);
  case NX_FLOAT8_E4M3FN: return floats8(n, x, o, 4, 3, 0, 1, 0x7E, 8);
  case NX_FLOAT8_E5M2: return floats8(n, x, o, 5, 2, 1, 1, 0, 8);
  case NX_FLOAT4_E2M1FN: return floats8(n, x, o, 2, 1, 0, 0, 0x7, 4);
  }
  return 0;
}

#undef FLOAT_LOOP
#undef AVX512
