/* SPDX-License-Identifier: Apache-2.0 */
/* The float stores of nx_dtype_store_n in AVX-512 (F, BW, VL, DQ, and BMI2):
   nx__store_float's steps for a float64 source (nx_dtype.h) lane by lane,
   the same bits, eight elements a step in 64-bit lanes for float32 and
   float4_e2m1fn, sixteen a step in 32-bit lanes for the 16- and 8-bit
   formats. gcc does not vectorize the header's loop itself (it narrows the
   exponent arithmetic to 32-bit lanes and then cannot widen it for the
   64-bit shifts), hence this. Included by bulk.c on x86-64. */
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
  r = _mm512_min_epu64(r, _mm512_set1_epi64((long long)(inf ? inf_bits : max))); /* overflow: max + 1 or max */
  r = _mm512_or_si512(r, sign);
  __m512i qnan;
  if (!nan) qnan = zero;
  else if (!inf) qnan = _mm512_or_si512(sign, _mm512_set1_epi64((long long)(max | 1)));
  else
    qnan = _mm512_or_si512(_mm512_or_si512(sign, _mm512_set1_epi64((long long)(inf_bits | (1ull << (fb - 1))))),
                           _mm512_srli_epi64(_mm512_and_si512(a, _mm512_set1_epi64(0xFFFFFFFFFFFFFll)), (unsigned)(52 - fb)));
  return _mm512_mask_blend_epi64(_mm512_cmpgt_epu64_mask(a, _mm512_set1_epi64(0x7FF0000000000000ll)), r, qnan);
}

/* The same rule for a format of at most 10 fraction bits, 16 lanes of 32
   bits: a double's upper half (sign, exponent, the fraction's top 20 bits)
   with the lower half's "any bit set" ORed into its lowest bit. Rounding at
   10 or more bits below the top of those 20 only asks whether what lies
   below the rounding bit is zero, which that bit keeps; a NaN whose fraction
   lies in the lower half stays a NaN and its payload's top bits are in the
   upper half. Then nx__store_float's steps with a 20-bit fraction. */
AVX512 static inline __m512i store16(__m512i u0, __m512i u1, int eb, int fb, int inf, int nan, int sat) {
  const int32_t bias = (1 << (eb - 1)) - 1, w = 1 + eb + fb;
  const uint32_t max = (uint32_t)nx__max_finite(eb, fb, sat), inf_bits = (((uint32_t)1 << eb) - 1) << fb;
  const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
  const __m512i odds = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  __m512i hi = _mm512_permutex2var_epi32(u0, odds, u1);
  __m512i lo = _mm512_permutex2var_epi32(u0, _mm512_sub_epi32(odds, one), u1);
  hi = _mm512_mask_or_epi32(hi, _mm512_test_epi32_mask(lo, lo), hi, one);
  __m512i a = _mm512_and_si512(hi, _mm512_set1_epi32(0x7FFFFFFF));
  /* (hi & fraction) | implicit bit, one ternary-logic op */
  __m512i sig = _mm512_ternarylogic_epi32(hi, _mm512_set1_epi32(0xFFFFF), _mm512_set1_epi32(1 << 20), 0xEA);
  __m512i x = _mm512_sub_epi32(_mm512_srli_epi32(a, 20), _mm512_set1_epi32(1023 - bias + 1));
  __m512i below = _mm512_max_epi32(_mm512_sub_epi32(zero, x), zero);
  /* s, the rounding point, at most 22 (past it the result is 0 all the same) */
  __m512i s = _mm512_min_epi32(_mm512_add_epi32(below, _mm512_set1_epi32(20 - fb)), _mm512_set1_epi32(22));
  __m512i half = _mm512_srlv_epi32(_mm512_set1_epi32((1 << 21) - 1), _mm512_sub_epi32(_mm512_set1_epi32(22), s));
  __m512i odd = _mm512_and_si512(_mm512_srlv_epi32(sig, s), one);
  __m512i q = _mm512_srlv_epi32(_mm512_add_epi32(_mm512_add_epi32(sig, half), odd), s);
  __m512i r = _mm512_add_epi32(_mm512_slli_epi32(_mm512_max_epi32(x, zero), (unsigned)fb), q);
  /* overflow: past max, max + 1 (the infinity) or max itself */
  r = _mm512_min_epu32(r, _mm512_set1_epi32((int)(inf ? inf_bits : max)));
  /* A NaN's r is the overflow's bits (its exponent is all ones): the NaN's
     bits are those and a few more. Its payload's top bits come with the
     implicit bit above them, at the lowest exponent bit, which the infinity
     has set already. */
  __mmask16 is_nan = _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7FF00000));
  if (!nan) r = _mm512_maskz_mov_epi32((__mmask16)~is_nan, r);
  else if (!inf) r = _mm512_mask_or_epi32(r, is_nan, r, one);
  else
    r = _mm512_mask_or_epi32(r, is_nan, r,
                             _mm512_or_si512(_mm512_srli_epi32(sig, (unsigned)(20 - fb)), _mm512_set1_epi32(1 << (fb - 1))));
  /* the sign, but for float4_e2m1fn's NaN (+0) */
  __m512i sign = _mm512_srli_epi32(hi, (unsigned)(32 - w));
  if (!nan) sign = _mm512_maskz_mov_epi32((__mmask16)~is_nan, sign);
  return _mm512_ternarylogic_epi32(r, sign, _mm512_set1_epi32(1 << (w - 1)), 0xF8); /* r | (sign & bit) */
}

#define FLOAT_LOOP(narrow)                                                 \
  for (; i + 8 <= n; i += 8) {                                             \
    __m512i v = store8(_mm512_loadu_si512((const void *)(x + i)), eb, fb, inf, nan, sat); \
    narrow;                                                                \
  }

/* Elements [0, m) of a float store, m the largest multiple of the step (8
   or 16) up to n: m, where the plain loops go on. */
AVX512 static inline int64_t floats8(int64_t n, const double *x, uint8_t *o, int eb, int fb, int inf, int nan, int sat,
                                     int width) {
  int64_t i = 0;
  if (width == 32) FLOAT_LOOP(_mm256_storeu_si256((__m256i *)(void *)(o + 4 * i), _mm512_cvtepi64_epi32(v)))
  else if (width == 16 || width == 8) {
    for (; i + 16 <= n; i += 16) {
      __m512i v = store16(_mm512_loadu_si512((const void *)(x + i)), _mm512_loadu_si512((const void *)(x + i + 8)), eb,
                          fb, inf, nan, sat);
      if (width == 16) _mm256_storeu_si256((__m256i *)(void *)(o + 2 * i), _mm512_cvtepi32_epi16(v));
      else _mm_storeu_si128((__m128i *)(void *)(o + i), _mm512_cvtepi32_epi8(v));
    }
  } else /* 4 bits: byte k of the 8 results is element k; pairs of nibbles into 4 bytes */
    FLOAT_LOOP({
      uint64_t b = (uint64_t)_mm_cvtsi128_si64(_mm512_cvtepi64_epi8(_mm512_and_si512(v, _mm512_set1_epi64(15))));
      uint32_t p = (uint32_t)_pext_u64(b | b >> 4, 0x00FF00FF00FF00FFull);
      memcpy(o + i / 2, &p, 4);
    })
  return i;
}

/* The float formats' stores, their first multiple of 8 or 16 elements: how many. */
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
