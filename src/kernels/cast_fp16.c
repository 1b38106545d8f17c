/* SPDX-License-Identifier: Apache-2.0 */
/* The AVX512-FP16 paths of cast: float16 to and from float64 and the
   integers of 8 to 64 bits, whose conversions that instruction set does in
   one instruction each. Each gives the bits of the exact element path:
   - into float16, one rounding to nearest even embedded in the instruction
     ({rn-sae}: neither MXCSR's rounding mode nor its exception masks
     matter; these instructions handle float16 subnormals whatever its FTZ
     and DAZ bits say), overflow to infinity, a NaN keeping its sign and its
     top payload bits, made quiet;
   - float16 into float64, exact (a NaN made quiet, as the store rule does);
   - float16 into an integer, truncated toward zero by the instruction,
     then the store rule where the instruction gives its "integer
     indefinite" instead: NaN stores 0, a value past the range saturates
     (past int16's: the instruction gives INT16_MIN for both signs). The 8-bit
     results saturate from the corrected 16-bit ones.
   Compiled by GCC 12 and later (clang 14's headers lack the intrinsics), for
   x86-64 only; elsewhere nx__cast_pick_fp16 finds no path. */
#include "cast_internal.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#include <immintrin.h>

#define T_FP16 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512fp16")))
#define RNE (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define SAE _MM_FROUND_NO_EXC

/* ---- into float16 ---- */

T_FP16 static void f16_of_f64(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 8)
    _mm_storeu_si128((__m128i *)(d + 2 * i),
                     _mm_castph_si128(_mm512_cvt_roundpd_ph(_mm512_loadu_pd((const double *)(s + 8 * i)), RNE)));
}
T_FP16 static void f16_of_i64(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 8)
    _mm_storeu_si128((__m128i *)(d + 2 * i), _mm_castph_si128(_mm512_cvt_roundepi64_ph(_mm512_loadu_si512(s + 8 * i), RNE)));
}
T_FP16 static void f16_of_u64(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 8)
    _mm_storeu_si128((__m128i *)(d + 2 * i), _mm_castph_si128(_mm512_cvt_roundepu64_ph(_mm512_loadu_si512(s + 8 * i), RNE)));
}
T_FP16 static void f16_of_i32(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 16)
    _mm256_storeu_si256((__m256i *)(d + 2 * i),
                        _mm256_castph_si256(_mm512_cvt_roundepi32_ph(_mm512_loadu_si512(s + 4 * i), RNE)));
}
T_FP16 static void f16_of_u32(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 16)
    _mm256_storeu_si256((__m256i *)(d + 2 * i),
                        _mm256_castph_si256(_mm512_cvt_roundepu32_ph(_mm512_loadu_si512(s + 4 * i), RNE)));
}
T_FP16 static void f16_of_i16(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 32)
    _mm512_storeu_si512(d + 2 * i, _mm512_castph_si512(_mm512_cvt_roundepi16_ph(_mm512_loadu_si512(s + 2 * i), RNE)));
}
T_FP16 static void f16_of_u16(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 32)
    _mm512_storeu_si512(d + 2 * i, _mm512_castph_si512(_mm512_cvt_roundepu16_ph(_mm512_loadu_si512(s + 2 * i), RNE)));
}
/* 8-bit integers widen exactly to 16 bits first. */
T_FP16 static void f16_of_i8(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 32) {
    __m512i w = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(s + i)));
    _mm512_storeu_si512(d + 2 * i, _mm512_castph_si512(_mm512_cvt_roundepi16_ph(w, RNE)));
  }
}
T_FP16 static void f16_of_u8(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 32) {
    __m512i w = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(s + i)));
    _mm512_storeu_si512(d + 2 * i, _mm512_castph_si512(_mm512_cvt_roundepi16_ph(w, RNE)));
  }
}

/* ---- float16 into float64 ---- */

T_FP16 static void f64_of_f16(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 8)
    _mm512_storeu_pd((double *)(d + 8 * i), _mm512_cvt_roundph_pd(_mm_castsi128_ph(_mm_loadu_si128((const __m128i *)(s + 2 * i))), SAE));
}

/* ---- float16 into the integers ---- */

/* 32 float16 truncated into int16 by the store rule. */
T_FP16 static __m512i i16_of(__m512h x) {
  __m512i r = _mm512_cvtt_roundph_epi16(x, SAE);
  __mmask32 nan = _mm512_cmp_ph_mask(x, x, _CMP_UNORD_Q);
  __mmask32 over = _mm512_cmp_ph_mask(x, _mm512_set1_ph((_Float16)32768.0f), _CMP_GE_OQ);
  r = _mm512_mask_mov_epi16(r, over, _mm512_set1_epi16(INT16_MAX));
  return _mm512_maskz_mov_epi16(~nan, r);
}
/* 32 float16 truncated into uint16: the instruction's indefinite (all ones)
   is right for +inf; a value of -1 or below stores 0, as NaN does. */
T_FP16 static __m512i u16_of(__m512h x) {
  __m512i r = _mm512_cvtt_roundph_epu16(x, SAE);
  __mmask32 keep = _mm512_cmp_ph_mask(x, _mm512_set1_ph((_Float16)-1.0f), _CMP_GT_OQ);
  return _mm512_maskz_mov_epi16(keep, r);
}
T_FP16 static inline __m512h load32(const nx_u8 *p) { return _mm512_castsi512_ph(_mm512_loadu_si512(p)); }

T_FP16 static void i16_of_f16(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 32) _mm512_storeu_si512(d + 2 * i, i16_of(load32(s + 2 * i)));
}
T_FP16 static void u16_of_f16(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 32) _mm512_storeu_si512(d + 2 * i, u16_of(load32(s + 2 * i)));
}
T_FP16 static void i8_of_f16(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 32) _mm256_storeu_si256((__m256i *)(d + i), _mm512_cvtsepi16_epi8(i16_of(load32(s + 2 * i))));
}
/* uint8 saturates from uint16's result, which is 0 below 0. */
T_FP16 static void u8_of_f16(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 32) _mm256_storeu_si256((__m256i *)(d + i), _mm512_cvtusepi16_epi8(u16_of(load32(s + 2 * i))));
}
/* Every finite float16 fits 32 and 64 bits: only NaN and the infinities
   need the rule (the indefinite is right for -inf signed and +inf unsigned). */
T_FP16 static void i32_of_f16(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __m256h x = _mm256_castsi256_ph(_mm256_loadu_si256((const __m256i *)(s + 2 * i)));
    __m512i r = _mm512_cvtt_roundph_epi32(x, SAE);
    __mmask16 nan = _mm256_cmp_ph_mask(x, x, _CMP_UNORD_Q);
    __mmask16 inf = _mm256_cmp_ph_mask(x, _mm256_set1_ph((_Float16)65504.0f), _CMP_GT_OQ);
    r = _mm512_mask_mov_epi32(r, inf, _mm512_set1_epi32(INT32_MAX));
    _mm512_storeu_si512(d + 4 * i, _mm512_maskz_mov_epi32(~nan, r));
  }
}
T_FP16 static void u32_of_f16(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __m256h x = _mm256_castsi256_ph(_mm256_loadu_si256((const __m256i *)(s + 2 * i)));
    __mmask16 keep = _mm256_cmp_ph_mask(x, _mm256_set1_ph((_Float16)-1.0f), _CMP_GT_OQ);
    _mm512_storeu_si512(d + 4 * i, _mm512_maskz_mov_epi32(keep, _mm512_cvtt_roundph_epu32(x, SAE)));
  }
}
T_FP16 static void i64_of_f16(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 8) {
    __m128h x = _mm_castsi128_ph(_mm_loadu_si128((const __m128i *)(s + 2 * i)));
    __m512i r = _mm512_cvtt_roundph_epi64(x, SAE);
    __mmask8 nan = _mm_cmp_ph_mask(x, x, _CMP_UNORD_Q);
    __mmask8 inf = _mm_cmp_ph_mask(x, _mm_set1_ph((_Float16)65504.0f), _CMP_GT_OQ);
    r = _mm512_mask_mov_epi64(r, inf, _mm512_set1_epi64(INT64_MAX));
    _mm512_storeu_si512(d + 8 * i, _mm512_maskz_mov_epi64((__mmask8)~nan, r));
  }
}
T_FP16 static void u64_of_f16(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 8) {
    __m128h x = _mm_castsi128_ph(_mm_loadu_si128((const __m128i *)(s + 2 * i)));
    __mmask8 keep = _mm_cmp_ph_mask(x, _mm_set1_ph((_Float16)-1.0f), _CMP_GT_OQ);
    _mm512_storeu_si512(d + 8 * i, _mm512_maskz_mov_epi64(keep, _mm512_cvtt_roundph_epu64(x, SAE)));
  }
}

bool nx__cast_has_fp16(void) { return __builtin_cpu_supports("avx512fp16"); }

nx__cast_loop nx__cast_pick_fp16(int to, int from, int *block) {
  static const nx__cast_path paths[] = {
      {NX_FLOAT16, NX_FLOAT64, f16_of_f64, 8},  {NX_FLOAT16, NX_INT64, f16_of_i64, 8},
      {NX_FLOAT16, NX_UINT64, f16_of_u64, 8},   {NX_FLOAT16, NX_INT32, f16_of_i32, 16},
      {NX_FLOAT16, NX_UINT32, f16_of_u32, 16},  {NX_FLOAT16, NX_INT16, f16_of_i16, 32},
      {NX_FLOAT16, NX_UINT16, f16_of_u16, 32},  {NX_FLOAT16, NX_INT8, f16_of_i8, 32},
      {NX_FLOAT16, NX_UINT8, f16_of_u8, 32},    {NX_FLOAT64, NX_FLOAT16, f64_of_f16, 8},
      {NX_INT64, NX_FLOAT16, i64_of_f16, 8},    {NX_UINT64, NX_FLOAT16, u64_of_f16, 8},
      {NX_INT32, NX_FLOAT16, i32_of_f16, 16},   {NX_UINT32, NX_FLOAT16, u32_of_f16, 16},
      {NX_INT16, NX_FLOAT16, i16_of_f16, 32},   {NX_UINT16, NX_FLOAT16, u16_of_f16, 32},
      {NX_INT8, NX_FLOAT16, i8_of_f16, 32},     {NX_UINT8, NX_FLOAT16, u8_of_f16, 32}};
  return nx__cast_find(paths, sizeof paths / sizeof *paths, to, from, block);
}

#else /* no compiler support, or not x86-64 */

bool nx__cast_has_fp16(void) { return false; }

nx__cast_loop nx__cast_pick_fp16(int to, int from, int *block) {
  (void)to; (void)from; (void)block;
  return 0;
}
#endif
