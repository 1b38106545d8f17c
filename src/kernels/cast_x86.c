/* SPDX-License-Identifier: Apache-2.0 */
/* Vector paths of cast on x86-64, chosen at run time by CPU feature
   (__builtin_cpu_supports), each function compiled for its instruction set
   by a target attribute so that the library itself needs none. Each gives the
   bits the exact element path gives, which the cast suites check over every
   16-bit input, every rounding boundary and the special values (and all 2^32
   float32 inputs in the long suite):
   - float32 <-> float16: F16C's VCVTPS2PH / VCVTPH2PS (round to nearest even
     by the immediate, subnormals kept whatever MXCSR says; a NaN keeps its
     sign and its top payload bits and becomes quiet, as the store rule does);
   - bfloat16 -> float32: the shift, with the quiet bit set on NaNs;
   - float32 -> bfloat16: the integer rounding (add 0x7FFF and the last kept
     bit), or AVX512-BF16's VCVTNEPS2BF16, which flushes subnormal inputs to
     zero, with the integer result in the vectors where an input's exponent
     is zero;
   - float64 and float32 -> float8_e4m3fn, float8_e5m2, float4_e2m1fn: the
     integer rounding of the rebiased bits for normal results, and for
     subnormal ones the magnitude scaled by a power of two (exact) converted
     to an integer with round to nearest even embedded in the instruction, so
     neither depends on MXCSR; then overflow and NaN by the format's rule. */
#include <stdbool.h>
#include <cpuid.h>
#include <stdatomic.h>

#include "cast_internal.h"
#include "stream.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define T_AVX2 __attribute__((target("avx2,f16c")))
#define T_512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))
#define T_BF16 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512bf16")))
#define RNE (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

typedef nx__cast_loop run_fn;

/* Each loop of the 16-bit pairs in two versions: ordinary stores, and
   non-temporal ones (..._nt, d aligned to the vector), which write the
   destination's lines without reading them first and keep them out of the
   caches; nx__cast_fast takes those for large runs. */
#define ST128(p, v) _mm_storeu_si128((__m128i *)(p), v)
#define ST128_NT(p, v) _mm_stream_si128((__m128i *)(p), v)
#define ST256(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define ST256_NT(p, v) _mm256_stream_si256((__m256i *)(p), v)
#define ST512(p, v) _mm512_storeu_si512(p, v)
#define ST512_NT(p, v) _mm512_stream_si512((void *)(p), v)
#define BOTH(MAKE, name, T, STORE) MAKE(name, T, STORE) MAKE(name##_nt, T, STORE##_NT)

/* ---- float32 <-> float16 ---- */

#define F32_F16_AVX2(name, T, ST)                                                                   \
  T static void name(nx_u8 *d, const nx_u8 *s, int64_t n) {                                        \
    for (int64_t i = 0; i < n; i += 8) ST(d + 2 * i, _mm256_cvtps_ph(_mm256_loadu_ps((const float *)(s + 4 * i)), RNE)); \
  }
#define F32_F16_512(name, T, ST)                                                                    \
  T static void name(nx_u8 *d, const nx_u8 *s, int64_t n) {                                        \
    for (int64_t i = 0; i < n; i += 16) ST(d + 2 * i, _mm512_cvtps_ph(_mm512_loadu_ps((const float *)(s + 4 * i)), RNE)); \
  }
#define F16_F32_AVX2(name, T, ST)                                                                   \
  T static void name(nx_u8 *d, const nx_u8 *s, int64_t n) {                                        \
    for (int64_t i = 0; i < n; i += 8)                                                              \
      ST(d + 4 * i, _mm256_castps_si256(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + 2 * i))))); \
  }
#define F16_F32_512(name, T, ST)                                                                    \
  T static void name(nx_u8 *d, const nx_u8 *s, int64_t n) {                                        \
    for (int64_t i = 0; i < n; i += 16)                                                             \
      ST(d + 4 * i, _mm512_castps_si512(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(s + 2 * i))))); \
  }
BOTH(F32_F16_AVX2, f32_f16_avx2, T_AVX2, ST128)
BOTH(F32_F16_512, f32_f16_512, T_512, ST256)
BOTH(F16_F32_AVX2, f16_f32_avx2, T_AVX2, ST256)
BOTH(F16_F32_512, f16_f32_512, T_512, ST512)

/* ---- bfloat16 -> float32 ---- */

#define BF16_F32_AVX2(name, T, ST)                                                                  \
  T static void name(nx_u8 *d, const nx_u8 *s, int64_t n) {                                        \
    const __m256i abs = _mm256_set1_epi32(0x7FFFFFFF), inf = _mm256_set1_epi32(0x7F800000);        \
    const __m256i quiet = _mm256_set1_epi32(0x00400000);                                            \
    for (int64_t i = 0; i < n; i += 8) {                                                            \
      __m256i v = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(s + 2 * i))), 16); \
      __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(v, abs), inf);                             \
      ST(d + 4 * i, _mm256_or_si256(v, _mm256_and_si256(nan, quiet)));                              \
    }                                                                                               \
  }
#define BF16_F32_512(name, T, ST)                                                                   \
  T static void name(nx_u8 *d, const nx_u8 *s, int64_t n) {                                        \
    const __m512i abs = _mm512_set1_epi32(0x7FFFFFFF), inf = _mm512_set1_epi32(0x7F800000);        \
    const __m512i quiet = _mm512_set1_epi32(0x00400000);                                            \
    for (int64_t i = 0; i < n; i += 16) {                                                           \
      __m512i v = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(s + 2 * i))), 16); \
      __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(v, abs), inf);                      \
      ST(d + 4 * i, _mm512_mask_or_epi32(v, nan, v, quiet));                                        \
    }                                                                                               \
  }
BOTH(BF16_F32_AVX2, bf16_f32_avx2, T_AVX2, ST256)
BOTH(BF16_F32_512, bf16_f32_512, T_512, ST512)

/* ---- float32 -> bfloat16 ---- */

/* The integer rounding of 8 float32 bit patterns, and of 16. */
T_AVX2 static __m128i bf16_of_avx2(__m256i u) {
  const __m256i abs = _mm256_set1_epi32(0x7FFFFFFF), inf = _mm256_set1_epi32(0x7F800000);
  __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, abs), inf);
  __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  __m256i r = _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7FFF))), 16);
  __m256i q = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
  r = _mm256_blendv_epi8(r, q, nan);
  return _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
}
T_512 static __m256i bf16_of_512(__m512i u) {
  const __m512i abs = _mm512_set1_epi32(0x7FFFFFFF), inf = _mm512_set1_epi32(0x7F800000);
  __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, abs), inf);
  __m512i odd = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  __m512i r = _mm512_srli_epi32(_mm512_add_epi32(u, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7FFF))), 16);
  r = _mm512_mask_or_epi32(r, nan, _mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x40));
  return _mm512_cvtepi32_epi16(r);
}
#define F32_BF16_AVX2(name, T, ST)                                                                  \
  T static void name(nx_u8 *d, const nx_u8 *s, int64_t n) {                                        \
    for (int64_t i = 0; i < n; i += 8) ST(d + 2 * i, bf16_of_avx2(_mm256_loadu_si256((const __m256i *)(s + 4 * i)))); \
  }
#define F32_BF16_512(name, T, ST)                                                                   \
  T static void name(nx_u8 *d, const nx_u8 *s, int64_t n) {                                        \
    for (int64_t i = 0; i < n; i += 16) ST(d + 2 * i, bf16_of_512(_mm512_loadu_si512(s + 4 * i)));  \
  }
#define F32_BF16_BF16(name, T, ST)                                                                  \
  T static void name(nx_u8 *d, const nx_u8 *s, int64_t n) {                                        \
    const __m512i exp = _mm512_set1_epi32(0x7F800000);                                              \
    for (int64_t i = 0; i < n; i += 16) {                                                           \
      __m512i u = _mm512_loadu_si512(s + 4 * i);                                                    \
      __m256i r = (__m256i)_mm512_cvtneps_pbh(_mm512_castsi512_ps(u));                              \
      /* Zeros and subnormals (exponent zero): the instruction flushes them. */                    \
      __mmask16 sub = _mm512_testn_epi32_mask(u, exp);                                              \
      if (sub) r = _mm256_mask_blend_epi16(sub, r, bf16_of_512(u));                                 \
      ST(d + 2 * i, r);                                                                             \
    }                                                                                               \
  }
BOTH(F32_BF16_AVX2, f32_bf16_avx2, T_AVX2, ST128)
BOTH(F32_BF16_512, f32_bf16_512, T_512, ST256)
BOTH(F32_BF16_BF16, f32_bf16_bf16, T_BF16, ST256)

/* ---- float64 and float32 -> the 8- and 4-bit formats ---- */

/* The store rule from 8 float64 bit patterns into the float format (eb, fb,
   inf, nan, sat), as nx__store_from_f64 has it: the 8 results' bits, each in
   its 64-bit lane (float16's too: eb 5, fb 10). */
__attribute__((always_inline)) T_512 static inline __m512i small_lanes_f64(__m512i u, int eb, int fb, int inf, int nan,
                                                                         int sat) {
  const int bias = (1 << (eb - 1)) - 1, sh = 52 - fb;
  const nx_u64 max = nx__max_finite(eb, fb, sat), infb = (((nx_u64)1 << eb) - 1) << fb;
  const nx_u64 lo = (nx_u64)(1023 - bias + 1) << 52, hi = (nx_u64)(1023 - bias + (int)(max >> fb) + 1) << 52;
  __m512i a = _mm512_and_si512(u, _mm512_set1_epi64(0x7FFFFFFFFFFFFFFFll));
  /* Normal results: round the rebiased bits, the carry flowing into the exponent. */
  __m512i m = _mm512_sub_epi64(a, _mm512_set1_epi64((long long)((nx_u64)(1023 - bias) << 52)));
  __m512i odd = _mm512_and_si512(_mm512_srli_epi64(m, sh), _mm512_set1_epi64(1));
  __m512i r = _mm512_srli_epi64(_mm512_add_epi64(m, _mm512_add_epi64(odd, _mm512_set1_epi64(((long long)1 << (sh - 1)) - 1))), sh);
  /* Subnormal results and zeros: |x| * 2^(bias - 1 + fb) is the result's
     bits in units of the least subnormal, exact, below 2^fb; rounding it to
     an integer rounds x. A carry to 2^fb gives the least normal's bits. */
  __m512d scaled = _mm512_mul_round_pd(_mm512_castsi512_pd(a), _mm512_set1_pd((double)((nx_u64)1 << (bias - 1 + fb))), RNE);
  r = _mm512_mask_mov_epi64(r, _mm512_cmplt_epu64_mask(a, _mm512_set1_epi64((long long)lo)),
                            _mm512_cvt_roundpd_epu64(scaled, RNE));
  __mmask8 over = _mm512_cmpge_epu64_mask(a, _mm512_set1_epi64((long long)hi)) |
                  _mm512_cmpgt_epu64_mask(r, _mm512_set1_epi64((long long)max));
  r = _mm512_mask_mov_epi64(r, over, _mm512_set1_epi64((long long)(inf ? infb : max)));
  __m512i sign = _mm512_slli_epi64(_mm512_srli_epi64(u, 63), eb + fb);
  r = _mm512_or_si512(r, sign);
  __mmask8 isnan = _mm512_cmpgt_epu64_mask(a, _mm512_set1_epi64(0x7FF0000000000000ll));
  if (!nan) r = _mm512_maskz_mov_epi64((__mmask8)~isnan, r); /* +0 */
  else if (!inf) r = _mm512_mask_or_epi64(r, isnan, sign, _mm512_set1_epi64((long long)(max | 1)));
  else {
    __m512i top = _mm512_srli_epi64(_mm512_and_si512(a, _mm512_set1_epi64(0xFFFFFFFFFFFFFll)), sh);
    __m512i q = _mm512_or_si512(top, _mm512_set1_epi64((long long)(infb | ((nx_u64)1 << (fb - 1)))));
    r = _mm512_mask_or_epi64(r, isnan, sign, q);
  }
  return r;
}
/* The same, one result to a byte, in the low 8 bytes. */
__attribute__((always_inline)) T_512 static inline __m128i small_of_f64(__m512i u, int eb, int fb, int inf, int nan,
                                                                      int sat) {
  return _mm512_cvtepi64_epi8(small_lanes_f64(u, eb, fb, inf, nan, sat));
}

/* The same from 16 float32 bit patterns: 16 bytes. */
__attribute__((always_inline)) T_512 static inline __m128i small_of_f32(__m512i u, int eb, int fb, int inf, int nan,
                                                                      int sat) {
  const int bias = (1 << (eb - 1)) - 1, sh = 23 - fb;
  const nx_u32 max = (nx_u32)nx__max_finite(eb, fb, sat), infb = ((1u << eb) - 1) << fb;
  const nx_u32 lo = (nx_u32)(127 - bias + 1) << 23, hi = (nx_u32)(127 - bias + (int)(max >> fb) + 1) << 23;
  __m512i a = _mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF));
  __m512i m = _mm512_sub_epi32(a, _mm512_set1_epi32((int)((nx_u32)(127 - bias) << 23)));
  __m512i odd = _mm512_and_si512(_mm512_srli_epi32(m, sh), _mm512_set1_epi32(1));
  __m512i r = _mm512_srli_epi32(_mm512_add_epi32(m, _mm512_add_epi32(odd, _mm512_set1_epi32((1 << (sh - 1)) - 1))), sh);
  __m512 scaled = _mm512_mul_round_ps(_mm512_castsi512_ps(a), _mm512_set1_ps((float)(1u << (bias - 1 + fb))), RNE);
  r = _mm512_mask_mov_epi32(r, _mm512_cmplt_epu32_mask(a, _mm512_set1_epi32((int)lo)),
                            _mm512_cvt_roundps_epu32(scaled, RNE));
  __mmask16 over = _mm512_cmpge_epu32_mask(a, _mm512_set1_epi32((int)hi)) |
                   _mm512_cmpgt_epu32_mask(r, _mm512_set1_epi32((int)max));
  r = _mm512_mask_mov_epi32(r, over, _mm512_set1_epi32((int)(inf ? infb : max)));
  __m512i sign = _mm512_slli_epi32(_mm512_srli_epi32(u, 31), eb + fb);
  r = _mm512_or_si512(r, sign);
  __mmask16 isnan = _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7F800000));
  if (!nan) r = _mm512_maskz_mov_epi32((__mmask16)~isnan, r);
  else if (!inf) r = _mm512_mask_or_epi32(r, isnan, sign, _mm512_set1_epi32((int)(max | 1)));
  else {
    __m512i top = _mm512_srli_epi32(_mm512_and_si512(a, _mm512_set1_epi32(0x7FFFFF)), sh);
    __m512i q = _mm512_or_si512(top, _mm512_set1_epi32((int)(infb | (1u << (fb - 1)))));
    r = _mm512_mask_or_epi32(r, isnan, sign, q);
  }
  return _mm512_cvtepi32_epi8(r);
}

/* The same in AVX registers, for CPUs with AVX2 and no AVX-512: 4 float64
   patterns, each result in the low byte of its 64-bit lane. Without
   unsigned compares the magnitudes (below 2^63) are compared signed;
   without a rounding mode in the instruction the subnormal results are
   rounded by VROUNDPD's immediate (the scaling by a power of two before it
   is exact, and so is the conversion of the integral result through 2^52's
   mantissa), so MXCSR's rounding mode does not matter either. Under DAZ a
   subnormal float64 counts as zero: it rounds to zero anyway. */
__attribute__((always_inline)) T_AVX2 static inline __m256i small_of_f64_avx2(__m256i u, int eb, int fb, int inf,
                                                                            int nan, int sat) {
  const int bias = (1 << (eb - 1)) - 1, sh = 52 - fb;
  const nx_u64 max = nx__max_finite(eb, fb, sat), infb = (((nx_u64)1 << eb) - 1) << fb;
  const nx_u64 lo = (nx_u64)(1023 - bias + 1) << 52, hi = (nx_u64)(1023 - bias + (int)(max >> fb) + 1) << 52;
  __m256i a = _mm256_and_si256(u, _mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
  __m256i m = _mm256_sub_epi64(a, _mm256_set1_epi64x((long long)((nx_u64)(1023 - bias) << 52)));
  __m256i odd = _mm256_and_si256(_mm256_srli_epi64(m, sh), _mm256_set1_epi64x(1));
  __m256i r = _mm256_srli_epi64(
      _mm256_add_epi64(m, _mm256_add_epi64(odd, _mm256_set1_epi64x(((long long)1 << (sh - 1)) - 1))), sh);
  /* only the lanes of subnormal results are scaled (the others zeroed
     first), so that no lane raises a floating-point flag: the scalar path
     raises none */
  __m256i small = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)lo), a);
  __m256d scaled = _mm256_mul_pd(_mm256_castsi256_pd(_mm256_and_si256(a, small)),
                                 _mm256_set1_pd((double)((nx_u64)1 << (bias - 1 + fb))));
  __m256d whole = _mm256_add_pd(_mm256_round_pd(scaled, RNE), _mm256_set1_pd(4503599627370496.0)); /* + 2^52 */
  __m256i sub = _mm256_sub_epi64(_mm256_castpd_si256(whole), _mm256_set1_epi64x(0x4330000000000000ll));
  r = _mm256_blendv_epi8(r, sub, small);
  __m256i over = _mm256_or_si256(_mm256_cmpgt_epi64(a, _mm256_set1_epi64x((long long)(hi - 1))),
                                 _mm256_cmpgt_epi64(r, _mm256_set1_epi64x((long long)max)));
  r = _mm256_blendv_epi8(r, _mm256_set1_epi64x((long long)(inf ? infb : max)), over);
  __m256i sign = _mm256_slli_epi64(_mm256_srli_epi64(u, 63), eb + fb);
  r = _mm256_or_si256(r, sign);
  __m256i isnan = _mm256_cmpgt_epi64(a, _mm256_set1_epi64x(0x7FF0000000000000ll));
  if (!nan) return _mm256_andnot_si256(isnan, r); /* +0 */
  __m256i q = _mm256_set1_epi64x((long long)(max | 1));
  if (inf) {
    __m256i top = _mm256_srli_epi64(_mm256_and_si256(a, _mm256_set1_epi64x(0xFFFFFFFFFFFFFll)), sh);
    q = _mm256_or_si256(top, _mm256_set1_epi64x((long long)(infb | ((nx_u64)1 << (fb - 1)))));
  }
  return _mm256_blendv_epi8(r, _mm256_or_si256(sign, q), isnan);
}

/* The same from 8 float32 bit patterns, each result in the low byte of its
   32-bit lane. VCVTTPS2DQ converts the rounded (integral) value exactly. */
__attribute__((always_inline)) T_AVX2 static inline __m256i small_of_f32_avx2(__m256i u, int eb, int fb, int inf,
                                                                            int nan, int sat) {
  const int bias = (1 << (eb - 1)) - 1, sh = 23 - fb;
  const nx_u32 max = (nx_u32)nx__max_finite(eb, fb, sat), infb = ((1u << eb) - 1) << fb;
  const nx_u32 lo = (nx_u32)(127 - bias + 1) << 23, hi = (nx_u32)(127 - bias + (int)(max >> fb) + 1) << 23;
  __m256i a = _mm256_and_si256(u, _mm256_set1_epi32(0x7FFFFFFF));
  __m256i m = _mm256_sub_epi32(a, _mm256_set1_epi32((int)((nx_u32)(127 - bias) << 23)));
  __m256i odd = _mm256_and_si256(_mm256_srli_epi32(m, sh), _mm256_set1_epi32(1));
  __m256i r = _mm256_srli_epi32(_mm256_add_epi32(m, _mm256_add_epi32(odd, _mm256_set1_epi32((1 << (sh - 1)) - 1))), sh);
  __m256i small = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)lo), a); /* as above: no flags */
  __m256 scaled = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_and_si256(a, small)), _mm256_set1_ps((float)(1u << (bias - 1 + fb))));
  __m256i sub = _mm256_cvttps_epi32(_mm256_round_ps(scaled, RNE));
  r = _mm256_blendv_epi8(r, sub, small);
  __m256i over = _mm256_or_si256(_mm256_cmpgt_epi32(a, _mm256_set1_epi32((int)(hi - 1))),
                                 _mm256_cmpgt_epi32(r, _mm256_set1_epi32((int)max)));
  r = _mm256_blendv_epi8(r, _mm256_set1_epi32((int)(inf ? infb : max)), over);
  __m256i sign = _mm256_slli_epi32(_mm256_srli_epi32(u, 31), eb + fb);
  r = _mm256_or_si256(r, sign);
  __m256i isnan = _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7F800000));
  if (!nan) return _mm256_andnot_si256(isnan, r);
  __m256i q = _mm256_set1_epi32((int)(max | 1));
  if (inf) {
    __m256i top = _mm256_srli_epi32(_mm256_and_si256(a, _mm256_set1_epi32(0x7FFFFF)), sh);
    q = _mm256_or_si256(top, _mm256_set1_epi32((int)(infb | (1u << (fb - 1)))));
  }
  return _mm256_blendv_epi8(r, _mm256_or_si256(sign, q), isnan);
}

/* Bytes from lanes: the low bytes of two vectors of 4 64-bit lanes, in
   order (8 bytes, the low half of the result), and of two of 8 32-bit
   lanes (16 bytes). */
T_AVX2 static inline __m128i bytes_of_64(__m256i x, __m256i y) {
  const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  __m128i a = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(x, even));
  __m128i b = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(y, even));
  __m128i w = _mm_packus_epi32(a, b);
  return _mm_packus_epi16(w, w);
}
T_AVX2 static inline __m128i bytes_of_32(__m256i x, __m256i y) {
  __m128i a = _mm_packus_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
  __m128i b = _mm_packus_epi32(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
  return _mm_packus_epi16(a, b);
}

/* 16 elements of one byte each (values below 16) packed two to a byte,
   element 0 in the low nibble: 8 bytes. */
__attribute__((target("ssse3"))) static inline __m128i nibbles(__m128i b) {
  __m128i w = _mm_maddubs_epi16(b, _mm_set1_epi16(0x1001)); /* b0 + 16 b1 in each 16-bit lane */
  return _mm_packus_epi16(w, w);
}

#define F8_FORMATS(X) X(e4m3fn, 4, 3, 0, 1, 0x7E) X(e5m2, 5, 2, 1, 1, 0)
#define F64_F8(name, eb, fb, inf, nan, sat)                                                                  \
  T_512 static void f64_##name##_512(nx_u8 *d, const nx_u8 *s, int64_t n) {                             \
    for (int64_t i = 0; i < n; i += 8)                                                                   \
      _mm_storel_epi64((__m128i *)(d + i), small_of_f64(_mm512_loadu_si512(s + 8 * i), eb, fb, inf, nan, sat)); \
  }                                                                                                      \
  T_512 static void f32_##name##_512(nx_u8 *d, const nx_u8 *s, int64_t n) {                             \
    for (int64_t i = 0; i < n; i += 16)                                                                  \
      _mm_storeu_si128((__m128i *)(d + i), small_of_f32(_mm512_loadu_si512(s + 4 * i), eb, fb, inf, nan, sat)); \
  }
F8_FORMATS(F64_F8)

T_512 static void f64_e2m1fn_512(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __m128i a = small_of_f64(_mm512_loadu_si512(s + 8 * i), 2, 1, 0, 0, 7);
    __m128i b = small_of_f64(_mm512_loadu_si512(s + 8 * i + 64), 2, 1, 0, 0, 7);
    _mm_storel_epi64((__m128i *)(d + i / 2), nibbles(_mm_unpacklo_epi64(a, b)));
  }
}
T_512 static void f32_e2m1fn_512(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 16)
    _mm_storel_epi64((__m128i *)(d + i / 2), nibbles(small_of_f32(_mm512_loadu_si512(s + 4 * i), 2, 1, 0, 0, 7)));
}

#define F64_F8_AVX2(name, eb, fb, inf, nan, sat)                                                             \
  T_AVX2 static void f64_##name##_avx2(nx_u8 *d, const nx_u8 *s, int64_t n) {                           \
    for (int64_t i = 0; i < n; i += 8) {                                                                 \
      __m256i x = small_of_f64_avx2(_mm256_loadu_si256((const __m256i *)(s + 8 * i)), eb, fb, inf, nan, sat); \
      __m256i y = small_of_f64_avx2(_mm256_loadu_si256((const __m256i *)(s + 8 * i + 32)), eb, fb, inf, nan, sat); \
      _mm_storel_epi64((__m128i *)(d + i), bytes_of_64(x, y));                                           \
    }                                                                                                    \
  }                                                                                                      \
  T_AVX2 static void f32_##name##_avx2(nx_u8 *d, const nx_u8 *s, int64_t n) {                           \
    for (int64_t i = 0; i < n; i += 16) {                                                                \
      __m256i x = small_of_f32_avx2(_mm256_loadu_si256((const __m256i *)(s + 4 * i)), eb, fb, inf, nan, sat); \
      __m256i y = small_of_f32_avx2(_mm256_loadu_si256((const __m256i *)(s + 4 * i + 32)), eb, fb, inf, nan, sat); \
      _mm_storeu_si128((__m128i *)(d + i), bytes_of_32(x, y));                                           \
    }                                                                                                    \
  }
F8_FORMATS(F64_F8_AVX2)

T_AVX2 static void f64_e2m1fn_avx2(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __m256i v[4];
    for (int k = 0; k < 4; k++) v[k] = small_of_f64_avx2(_mm256_loadu_si256((const __m256i *)(s + 8 * i + 32 * k)), 2, 1, 0, 0, 7);
    __m128i b = _mm_unpacklo_epi64(bytes_of_64(v[0], v[1]), bytes_of_64(v[2], v[3]));
    _mm_storel_epi64((__m128i *)(d + i / 2), nibbles(b));
  }
}
T_AVX2 static void f32_e2m1fn_avx2(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __m256i x = small_of_f32_avx2(_mm256_loadu_si256((const __m256i *)(s + 4 * i)), 2, 1, 0, 0, 7);
    __m256i y = small_of_f32_avx2(_mm256_loadu_si256((const __m256i *)(s + 4 * i + 32)), 2, 1, 0, 0, 7);
    _mm_storel_epi64((__m128i *)(d + i / 2), nibbles(bytes_of_32(x, y)));
  }
}

/* ---- float16 with float64 and the integers, at AVX-512 ---- */

/* Without AVX512-FP16 (cast_fp16.c has those paths): into float16 by the
   small formats' integer rounding at 5 exponent and 10 fraction bits, from
   float64 or from an integer converted to float64 first, which is exact
   below 2^53 (and from int64 and uint64 past it any rounding stays past
   float16's range: infinity either way); out of float16 through float32
   (VCVTPH2PS, exact), then widened, or truncated with the store rule where
   the instruction gives its "integer indefinite". */
#define F16_OF_DOUBLES(v) _mm512_cvtepi64_epi16(small_lanes_f64(_mm512_castpd_si512(v), 5, 10, 1, 1, 0))
T_512 static void f16_of_f64_512(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 8)
    _mm_storeu_si128((__m128i *)(d + 2 * i), F16_OF_DOUBLES(_mm512_loadu_pd((const double *)(s + 8 * i))));
}
T_512 static void f16_of_i64_512(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 8)
    _mm_storeu_si128((__m128i *)(d + 2 * i), F16_OF_DOUBLES(_mm512_cvtepi64_pd(_mm512_loadu_si512(s + 8 * i))));
}
T_512 static void f16_of_u64_512(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 8)
    _mm_storeu_si128((__m128i *)(d + 2 * i), F16_OF_DOUBLES(_mm512_cvtepu64_pd(_mm512_loadu_si512(s + 8 * i))));
}
/* 8 int32 (signed or not) into float16 */
T_512 static inline __m128i f16_of_8i32(__m256i v, bool is_signed) {
  return F16_OF_DOUBLES(is_signed ? _mm512_cvtepi32_pd(v) : _mm512_cvtepu32_pd(v));
}
#define F16_OF_NARROW(name, WIDEN, LOAD, width, is_signed)                                              \
  T_512 static void name(nx_u8 *d, const nx_u8 *s, int64_t n) {                                        \
    for (int64_t i = 0; i < n; i += 8)                                                                  \
      _mm_storeu_si128((__m128i *)(d + 2 * i), f16_of_8i32(WIDEN(LOAD(s + (width) * i)), is_signed)); \
  }
#define LOAD256(p) _mm256_loadu_si256((const __m256i *)(p))
#define LOAD128(p) _mm_loadu_si128((const __m128i *)(p))
#define LOAD64(p) _mm_loadl_epi64((const __m128i *)(p))
#define SAME(v) (v)
F16_OF_NARROW(f16_of_i32_512, SAME, LOAD256, 4, true)
F16_OF_NARROW(f16_of_u32_512, SAME, LOAD256, 4, false)
F16_OF_NARROW(f16_of_i16_512, _mm256_cvtepi16_epi32, LOAD128, 2, true)
F16_OF_NARROW(f16_of_u16_512, _mm256_cvtepu16_epi32, LOAD128, 2, true)
F16_OF_NARROW(f16_of_i8_512, _mm256_cvtepi8_epi32, LOAD64, 1, true)
F16_OF_NARROW(f16_of_u8_512, _mm256_cvtepu8_epi32, LOAD64, 1, true)

/* 16 float16 as float32, exact (AVX-512F's VCVTPH2PS: no F16C needed), in two halves */
T_512 static inline void f32_of_16f16(const nx_u8 *p, __m256 *lo, __m256 *hi) {
  __m512 x = _mm512_cvtph_ps(LOAD256(p));
  *lo = _mm512_castps512_ps256(x);
  *hi = _mm512_extractf32x8_ps(x, 1);
}
T_512 static void f64_of_f16_512(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __m256 lo, hi;
    f32_of_16f16(s + 2 * i, &lo, &hi);
    _mm512_storeu_pd((double *)(d + 8 * i), _mm512_cvtps_pd(lo));
    _mm512_storeu_pd((double *)(d + 8 * i + 64), _mm512_cvtps_pd(hi));
  }
}

/* 16 float16 truncated into int32 by the store rule (every finite float16
   fits: NaN stores 0, +inf INT32_MAX; the indefinite is right for -inf). */
T_512 static inline __m512i i32_of_16f16(const nx_u8 *p) {
  __m512 x = _mm512_cvtph_ps(LOAD256(p));
  __m512i r = _mm512_cvtt_roundps_epi32(x, _MM_FROUND_NO_EXC);
  r = _mm512_mask_mov_epi32(r, _mm512_cmp_ps_mask(x, _mm512_set1_ps(65504.0f), _CMP_GT_OQ), _mm512_set1_epi32(INT32_MAX));
  return _mm512_maskz_mov_epi32((__mmask16)~_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), r);
}
T_512 static void i32_of_f16_512(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) _mm512_storeu_si512(d + 4 * i, i32_of_16f16(s + 2 * i));
}
/* the narrower integers saturate from int32's result (negative values to 0 for the unsigned) */
T_512 static void i16_of_f16_512(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) _mm256_storeu_si256((__m256i *)(d + 2 * i), _mm512_cvtsepi32_epi16(i32_of_16f16(s + 2 * i)));
}
T_512 static void i8_of_f16_512(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) _mm_storeu_si128((__m128i *)(d + i), _mm512_cvtsepi32_epi8(i32_of_16f16(s + 2 * i)));
}
T_512 static void u16_of_f16_512(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __m512i r = _mm512_max_epi32(i32_of_16f16(s + 2 * i), _mm512_setzero_si512());
    _mm256_storeu_si256((__m256i *)(d + 2 * i), _mm512_cvtusepi32_epi16(r));
  }
}
T_512 static void u8_of_f16_512(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __m512i r = _mm512_max_epi32(i32_of_16f16(s + 2 * i), _mm512_setzero_si512());
    _mm_storeu_si128((__m128i *)(d + i), _mm512_cvtusepi32_epi8(r));
  }
}
/* uint32: a value of -1 or below stores 0, as NaN does; +inf's indefinite (all ones) is right */
T_512 static void u32_of_f16_512(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __m512 x = _mm512_cvtph_ps(LOAD256(s + 2 * i));
    __mmask16 keep = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-1.0f), _CMP_GT_OQ);
    _mm512_storeu_si512(d + 4 * i, _mm512_maskz_mov_epi32(keep, _mm512_cvtt_roundps_epu32(x, _MM_FROUND_NO_EXC)));
  }
}
/* 8 float16 (as float32) into int64 or uint64 by the store rule */
T_512 static inline __m512i i64_of_8(__m256 x) {
  __m512i r = _mm512_cvtt_roundps_epi64(x, _MM_FROUND_NO_EXC);
  r = _mm512_mask_mov_epi64(r, _mm256_cmp_ps_mask(x, _mm256_set1_ps(65504.0f), _CMP_GT_OQ), _mm512_set1_epi64(INT64_MAX));
  return _mm512_maskz_mov_epi64((__mmask8)~_mm256_cmp_ps_mask(x, x, _CMP_UNORD_Q), r);
}
T_512 static inline __m512i u64_of_8(__m256 x) {
  __mmask8 keep = _mm256_cmp_ps_mask(x, _mm256_set1_ps(-1.0f), _CMP_GT_OQ);
  return _mm512_maskz_mov_epi64(keep, _mm512_cvtt_roundps_epu64(x, _MM_FROUND_NO_EXC));
}
__attribute__((always_inline)) T_512 static inline void w64_of_f16(nx_u8 *d, const nx_u8 *s, int64_t n, bool is_signed) {
  for (int64_t i = 0; i < n; i += 16) {
    __m256 lo, hi;
    f32_of_16f16(s + 2 * i, &lo, &hi);
    _mm512_storeu_si512(d + 8 * i, is_signed ? i64_of_8(lo) : u64_of_8(lo));
    _mm512_storeu_si512(d + 8 * i + 64, is_signed ? i64_of_8(hi) : u64_of_8(hi));
  }
}
T_512 static void i64_of_f16_512(nx_u8 *d, const nx_u8 *s, int64_t n) { w64_of_f16(d, s, n, true); }
T_512 static void u64_of_f16_512(nx_u8 *d, const nx_u8 *s, int64_t n) { w64_of_f16(d, s, n, false); }
#undef F16_OF_NARROW
#undef SAME

/* ---- the same at AVX2 (no int64 or uint64 into float16: AVX2 has no
   conversion of them to float64) ---- */

/* 8 float16 codes from the 64-bit lanes of x and y (4 each) */
T_AVX2 static inline __m128i halves_of_64(__m256i x, __m256i y) {
  const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  return _mm_packus_epi32(_mm256_castsi256_si128(_mm256_permutevar8x32_epi32(x, even)),
                          _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(y, even)));
}
#define F16_OF_4D(v) small_of_f64_avx2(_mm256_castpd_si256(v), 5, 10, 1, 1, 0)
T_AVX2 static void f16_of_f64_avx2(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 8) {
    __m256d a = _mm256_loadu_pd((const double *)(s + 8 * i)), b = _mm256_loadu_pd((const double *)(s + 8 * i + 32));
    _mm_storeu_si128((__m128i *)(d + 2 * i), halves_of_64(F16_OF_4D(a), F16_OF_4D(b)));
  }
}
/* 8 int32 (uint32: through a bias of 2^31, exact) into float16 */
__attribute__((always_inline)) T_AVX2 static inline __m128i f16_of_8i32_avx2(__m256i v, bool is_signed) {
  __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
  if (is_signed) return halves_of_64(F16_OF_4D(_mm256_cvtepi32_pd(lo)), F16_OF_4D(_mm256_cvtepi32_pd(hi)));
  const __m128i flip = _mm_set1_epi32(INT32_MIN);
  const __m256d bias = _mm256_set1_pd(2147483648.0);
  __m256d a = _mm256_add_pd(_mm256_cvtepi32_pd(_mm_xor_si128(lo, flip)), bias);
  __m256d b = _mm256_add_pd(_mm256_cvtepi32_pd(_mm_xor_si128(hi, flip)), bias);
  return halves_of_64(F16_OF_4D(a), F16_OF_4D(b));
}
#define F16_OF_NARROW2(name, WIDEN, LOAD, width, is_signed)                                                 \
  T_AVX2 static void name(nx_u8 *d, const nx_u8 *s, int64_t n) {                                            \
    for (int64_t i = 0; i < n; i += 8)                                                                      \
      _mm_storeu_si128((__m128i *)(d + 2 * i), f16_of_8i32_avx2(WIDEN(LOAD(s + (width) * i)), is_signed)); \
  }
#define SAME(v) (v)
F16_OF_NARROW2(f16_of_i32_avx2, SAME, LOAD256, 4, true)
F16_OF_NARROW2(f16_of_u32_avx2, SAME, LOAD256, 4, false)
F16_OF_NARROW2(f16_of_i16_avx2, _mm256_cvtepi16_epi32, LOAD128, 2, true)
F16_OF_NARROW2(f16_of_u16_avx2, _mm256_cvtepu16_epi32, LOAD128, 2, true)
F16_OF_NARROW2(f16_of_i8_avx2, _mm256_cvtepi8_epi32, LOAD64, 1, true)
F16_OF_NARROW2(f16_of_u8_avx2, _mm256_cvtepu8_epi32, LOAD64, 1, true)
#undef F16_OF_NARROW2
#undef SAME

T_AVX2 static void f64_of_f16_avx2(nx_u8 *d, const nx_u8 *s, int64_t n) {
  for (int64_t i = 0; i < n; i += 8) {
    __m256 x = _mm256_cvtph_ps(LOAD128(s + 2 * i));
    _mm256_storeu_pd((double *)(d + 8 * i), _mm256_cvtps_pd(_mm256_castps256_ps128(x)));
    _mm256_storeu_pd((double *)(d + 8 * i + 32), _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
  }
}
/* 8 float16 truncated into int32 by the store rule, and the lanes of +inf */
T_AVX2 static inline __m256i i32_of_8f16(const nx_u8 *p, __m256i *pinf) {
  __m256 x = _mm256_cvtph_ps(LOAD128(p));
  __m256i r = _mm256_cvttps_epi32(x);
  *pinf = _mm256_castps_si256(_mm256_cmp_ps(x, _mm256_set1_ps(65504.0f), _CMP_GT_OQ));
  r = _mm256_blendv_epi8(r, _mm256_set1_epi32(INT32_MAX), *pinf);
  return _mm256_andnot_si256(_mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)), r);
}
T_AVX2 static void i32_of_f16_avx2(nx_u8 *d, const nx_u8 *s, int64_t n) {
  __m256i inf;
  for (int64_t i = 0; i < n; i += 8) _mm256_storeu_si256((__m256i *)(d + 4 * i), i32_of_8f16(s + 2 * i, &inf));
}
/* the narrower ones saturate from int32's result: packs (signed), packus (to uint16) */
T_AVX2 static void i16_of_f16_avx2(nx_u8 *d, const nx_u8 *s, int64_t n) {
  __m256i inf;
  for (int64_t i = 0; i < n; i += 8) {
    __m256i r = i32_of_8f16(s + 2 * i, &inf);
    _mm_storeu_si128((__m128i *)(d + 2 * i), _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1)));
  }
}
T_AVX2 static void u16_of_f16_avx2(nx_u8 *d, const nx_u8 *s, int64_t n) {
  __m256i inf;
  for (int64_t i = 0; i < n; i += 8) {
    __m256i r = i32_of_8f16(s + 2 * i, &inf);
    _mm_storeu_si128((__m128i *)(d + 2 * i), _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1)));
  }
}
/* int8 and uint8 through int16's signed saturation, then signed or unsigned to a byte */
T_AVX2 static void i8_of_f16_avx2(nx_u8 *d, const nx_u8 *s, int64_t n) {
  __m256i inf;
  for (int64_t i = 0; i < n; i += 8) {
    __m256i r = i32_of_8f16(s + 2 * i, &inf);
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    _mm_storel_epi64((__m128i *)(d + i), _mm_packs_epi16(w, w));
  }
}
T_AVX2 static void u8_of_f16_avx2(nx_u8 *d, const nx_u8 *s, int64_t n) {
  __m256i inf;
  for (int64_t i = 0; i < n; i += 8) {
    __m256i r = i32_of_8f16(s + 2 * i, &inf);
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    _mm_storel_epi64((__m128i *)(d + i), _mm_packus_epi16(w, w));
  }
}
/* the unsigned: negative values (and -inf's indefinite) store 0, +inf all ones */
T_AVX2 static inline __m256i u32_of_8f16(const nx_u8 *p, __m256i *pinf) {
  __m256i r = _mm256_max_epi32(i32_of_8f16(p, pinf), _mm256_setzero_si256());
  return _mm256_or_si256(r, *pinf);
}
T_AVX2 static void u32_of_f16_avx2(nx_u8 *d, const nx_u8 *s, int64_t n) {
  __m256i inf;
  for (int64_t i = 0; i < n; i += 8) _mm256_storeu_si256((__m256i *)(d + 4 * i), u32_of_8f16(s + 2 * i, &inf));
}
/* 64 bits: the 32-bit result widened, +inf's lanes all ones then (int64:
   INT64_MAX, and -inf's INT64_MIN) */
T_AVX2 static void w64_of_f16_avx2(nx_u8 *d, const nx_u8 *s, int64_t n, bool is_signed) {
  __m256i inf;
  for (int64_t i = 0; i < n; i += 8) {
    __m256i r = is_signed ? i32_of_8f16(s + 2 * i, &inf) : u32_of_8f16(s + 2 * i, &inf);
    for (int h = 0; h < 2; h++) {
      __m128i r4 = h ? _mm256_extracti128_si256(r, 1) : _mm256_castsi256_si128(r);
      __m128i m4 = h ? _mm256_extracti128_si256(inf, 1) : _mm256_castsi256_si128(inf);
      __m256i w = is_signed ? _mm256_cvtepi32_epi64(r4) : _mm256_cvtepu32_epi64(r4);
      __m256i m = _mm256_cvtepi32_epi64(m4);
      w = _mm256_blendv_epi8(w, is_signed ? _mm256_set1_epi64x(INT64_MAX) : _mm256_set1_epi64x(-1), m);
      if (is_signed) /* -inf: INT32_MIN, which no finite float16 gives, widened to INT64_MIN */
        w = _mm256_blendv_epi8(w, _mm256_set1_epi64x(INT64_MIN), _mm256_cmpeq_epi64(w, _mm256_set1_epi64x(INT32_MIN)));
      _mm256_storeu_si256((__m256i *)(d + 8 * i + 32 * h), w);
    }
  }
}
T_AVX2 static void i64_of_f16_avx2(nx_u8 *d, const nx_u8 *s, int64_t n) { w64_of_f16_avx2(d, s, n, true); }
T_AVX2 static void u64_of_f16_avx2(nx_u8 *d, const nx_u8 *s, int64_t n) { w64_of_f16_avx2(d, s, n, false); }

/* The AVX-512 or AVX2 path of a float16 pair, and its block. */
static run_fn pick_f16(bool v512, int to, int from, int *block) {
  static const nx__cast_path p512[] = {
      {NX_FLOAT16, NX_FLOAT64, f16_of_f64_512, 8},  {NX_FLOAT16, NX_INT64, f16_of_i64_512, 8},
      {NX_FLOAT16, NX_UINT64, f16_of_u64_512, 8},   {NX_FLOAT16, NX_INT32, f16_of_i32_512, 8},
      {NX_FLOAT16, NX_UINT32, f16_of_u32_512, 8},   {NX_FLOAT16, NX_INT16, f16_of_i16_512, 8},
      {NX_FLOAT16, NX_UINT16, f16_of_u16_512, 8},   {NX_FLOAT16, NX_INT8, f16_of_i8_512, 8},
      {NX_FLOAT16, NX_UINT8, f16_of_u8_512, 8},     {NX_FLOAT64, NX_FLOAT16, f64_of_f16_512, 16},
      {NX_INT32, NX_FLOAT16, i32_of_f16_512, 16},   {NX_INT16, NX_FLOAT16, i16_of_f16_512, 16},
      {NX_INT8, NX_FLOAT16, i8_of_f16_512, 16},     {NX_UINT16, NX_FLOAT16, u16_of_f16_512, 16},
      {NX_UINT8, NX_FLOAT16, u8_of_f16_512, 16},    {NX_UINT32, NX_FLOAT16, u32_of_f16_512, 16},
      {NX_INT64, NX_FLOAT16, i64_of_f16_512, 16},   {NX_UINT64, NX_FLOAT16, u64_of_f16_512, 16}};
  static const nx__cast_path p2[] = {
      {NX_FLOAT16, NX_FLOAT64, f16_of_f64_avx2, 8}, {NX_FLOAT16, NX_INT32, f16_of_i32_avx2, 8},
      {NX_FLOAT16, NX_UINT32, f16_of_u32_avx2, 8},  {NX_FLOAT16, NX_INT16, f16_of_i16_avx2, 8},
      {NX_FLOAT16, NX_UINT16, f16_of_u16_avx2, 8},  {NX_FLOAT16, NX_INT8, f16_of_i8_avx2, 8},
      {NX_FLOAT16, NX_UINT8, f16_of_u8_avx2, 8},    {NX_FLOAT64, NX_FLOAT16, f64_of_f16_avx2, 8},
      {NX_INT32, NX_FLOAT16, i32_of_f16_avx2, 8},   {NX_INT16, NX_FLOAT16, i16_of_f16_avx2, 8},
      {NX_INT8, NX_FLOAT16, i8_of_f16_avx2, 8},     {NX_UINT16, NX_FLOAT16, u16_of_f16_avx2, 8},
      {NX_UINT8, NX_FLOAT16, u8_of_f16_avx2, 8},    {NX_UINT32, NX_FLOAT16, u32_of_f16_avx2, 8},
      {NX_INT64, NX_FLOAT16, i64_of_f16_avx2, 8},   {NX_UINT64, NX_FLOAT16, u64_of_f16_avx2, 8}};
  return v512 ? nx__cast_find(p512, sizeof p512 / sizeof *p512, to, from, block)
              : nx__cast_find(p2, sizeof p2 / sizeof *p2, to, from, block);
}

/* ---- Dispatch ---- */

/* F16C from CPUID leaf 1 (ECX bit 29): clang 14's __builtin_cpu_supports
   does not know the name. */
static bool has_f16c(void) {
  unsigned a, b, c, d;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29));
}

static int cpu_level_now(void) {
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return !__builtin_cpu_supports("avx512bf16") ? NX__CAST_ISA_AVX512
           : nx__cast_has_fp16()                 ? NX__CAST_ISA_AVX512FP
                                                 : NX__CAST_ISA_AVX512X;
  if (__builtin_cpu_supports("avx2") && has_f16c()) return NX__CAST_ISA_AVX2;
  return NX__CAST_ISA_NONE;
}

/* Asked once: CPUID (has_f16c) is a serializing instruction, and in a
   virtual machine it leaves to the hypervisor, microseconds a call; every
   cast of a run asks for the level. -1 until known; every thread that
   finds it finds the same. */
static atomic_int cpu_known = -1;

static int cpu_level(void) {
  int l = atomic_load_explicit(&cpu_known, memory_order_relaxed);
  if (l < 0) atomic_store_explicit(&cpu_known, l = cpu_level_now(), memory_order_relaxed);
  return l;
}

static atomic_int isa_cap = NX__CAST_ISA_BEST;

int nx__cast_set_isa(int level) {
  atomic_store_explicit(&isa_cap, level, memory_order_relaxed);
  int cpu = cpu_level();
  return level < cpu ? level : cpu;
}

/* The vector path of a pair at the level in use, and its block of elements;
   with nt, its version with non-temporal stores (none: 0). */
static run_fn pick(int to, int from, int *block, bool nt) {
  int cap = atomic_load_explicit(&isa_cap, memory_order_relaxed), cpu = cpu_level();
  int level = cap < cpu ? cap : cpu;
  int v512 = level >= NX__CAST_ISA_AVX512, v2 = level >= NX__CAST_ISA_AVX2;
  *block = v512 ? 16 : 8;
#define PAIR(t, f) ((t) * NX_DTYPE_COUNT + (f))
#define ST(name) (nt ? name##_nt : name)
  switch (PAIR(to, from)) {
  case PAIR(NX_FLOAT16, NX_FLOAT32): return v512 ? ST(f32_f16_512) : v2 ? ST(f32_f16_avx2) : 0;
  case PAIR(NX_FLOAT32, NX_FLOAT16): return v512 ? ST(f16_f32_512) : v2 ? ST(f16_f32_avx2) : 0;
  case PAIR(NX_FLOAT32, NX_BFLOAT16): return v512 ? ST(bf16_f32_512) : v2 ? ST(bf16_f32_avx2) : 0;
  case PAIR(NX_BFLOAT16, NX_FLOAT32):
    return level >= NX__CAST_ISA_AVX512X ? ST(f32_bf16_bf16) : v512 ? ST(f32_bf16_512) : v2 ? ST(f32_bf16_avx2) : 0;
  }
#undef ST
  if (nt) return 0;
  if (level >= NX__CAST_ISA_AVX512FP) {
    run_fn f = nx__cast_pick_fp16(to, from, block);
    if (f) return f;
  }
  if (!v512 && v2) {
    run_fn f16 = pick_f16(false, to, from, block);
    if (f16) return f16;
    *block = 16;
    switch (PAIR(to, from)) {
    case PAIR(NX_FLOAT8_E4M3FN, NX_FLOAT64): *block = 8; return f64_e4m3fn_avx2;
    case PAIR(NX_FLOAT8_E5M2, NX_FLOAT64): *block = 8; return f64_e5m2_avx2;
    case PAIR(NX_FLOAT4_E2M1FN, NX_FLOAT64): return f64_e2m1fn_avx2;
    case PAIR(NX_FLOAT8_E4M3FN, NX_FLOAT32): return f32_e4m3fn_avx2;
    case PAIR(NX_FLOAT8_E5M2, NX_FLOAT32): return f32_e5m2_avx2;
    case PAIR(NX_FLOAT4_E2M1FN, NX_FLOAT32): return f32_e2m1fn_avx2;
    }
  }
  if (!v512) return 0;
  run_fn f16 = pick_f16(true, to, from, block);
  if (f16) return f16;
  *block = 16;
  switch (PAIR(to, from)) {
  case PAIR(NX_FLOAT8_E4M3FN, NX_FLOAT64): *block = 8; return f64_e4m3fn_512;
  case PAIR(NX_FLOAT8_E5M2, NX_FLOAT64): *block = 8; return f64_e5m2_512;
  case PAIR(NX_FLOAT4_E2M1FN, NX_FLOAT64): return f64_e2m1fn_512;
  case PAIR(NX_FLOAT8_E4M3FN, NX_FLOAT32): return f32_e4m3fn_512;
  case PAIR(NX_FLOAT8_E5M2, NX_FLOAT32): return f32_e5m2_512;
  case PAIR(NX_FLOAT4_E2M1FN, NX_FLOAT32): return f32_e2m1fn_512;
  }
#undef PAIR
  return 0;
}

/* From this many destination bytes a run stores non-temporally: measured
   on a 2-core AVX-512 machine, float32 <-> float16 on 1M elements and more
   ran 1.3 to 2.6 times faster so, even with the data inside the 260 MiB
   last-level cache (which other cores and machines share); the ordinary
   stores stay for runs of a core's L2 size and below, whose results a next
   operation may read from the cache (NX__STREAM_BYTES, stream.h). */

int nx__cast_fast(nx_dtype to, void *dst, int64_t dp, nx_dtype from, const void *src, int64_t sp, int64_t n) {
  int block;
  int tb = nx_dtype_bits_of(to), fb = nx_dtype_bits_of(from);
  run_fn fn = pick(to, from, &block, false);
  if (!fn) return 0;
  /* Large runs: a head up to the destination's 64-byte line, then whole
     vectors stored non-temporally (aligned, as the instructions need). */
  uintptr_t at = (uintptr_t)((nx_u8 *)dst + dp * tb / 8);
  run_fn nt = n * tb / 8 >= NX__STREAM_BYTES && tb >= 8 && at % (unsigned)(tb / 8) == 0 ? pick(to, from, &block, true) : 0;
  int64_t head = nt ? (int64_t)((64 - at % 64) % 64) / (tb / 8) : nx_dtype_bits_of(to) == 4 && (dp & 1);
  int64_t k = (n - head) / block * block;
  if (k <= 0) return 0;
  if (head) nx__cast_run_scalar(to, dst, dp, 1, from, src, sp, 1, head);
  (nt ? nt : fn)((nx_u8 *)dst + (dp + head) * tb / 8, (const nx_u8 *)src + (sp + head) * fb / 8, k);
  if (nt) _mm_sfence(); /* the streamed stores ordered before what follows (another thread's read) */
  nx__cast_run_scalar(to, dst, dp + head + k, 1, from, src, sp + head + k, 1, n - head - k);
  return 1;
}

#else /* no vector paths on this target */

int nx__cast_set_isa(int level) {
  (void)level;
  return NX__CAST_ISA_NONE;
}

int nx__cast_fast(nx_dtype to, void *dst, int64_t dp, nx_dtype from, const void *src, int64_t sp, int64_t n) {
  (void)to; (void)dst; (void)dp; (void)from; (void)src; (void)sp; (void)n;
  return 0;
}
#endif
