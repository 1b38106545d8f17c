/* SPDX-License-Identifier: Apache-2.0 */
/* The typed loops in AVX-512 intrinsics (typed_x86.h), each compiled for
   AVX-512 F/BW/DQ/VL by a target attribute and called only at that level. */
#include "typed_x86.h"
#include "typed.h"
#include "typed_defs.h"
#include "ops.h"

#if defined(NX__TYPED_X86)
#include <immintrin.h>

/* Comparisons: the masks of 64 lanes (four vectors of float32, eight of
   float64) stored as 64 bytes of 0 or 1, then the rest by the C loop. The
   predicates are ordered but for ne, which a NaN satisfies. */
#define NX__CMP512(name, T, VT, LOAD, CMP, LANES)                                                   \
  NX__TGT_512 static void name(uint8_t *z, const T *x, const T *y, int64_t n, int pred) {          \
    const __m512i one = _mm512_set1_epi8(1);                                                       \
    int64_t i = 0;                                                                                 \
    for (; i + 64 <= n; i += 64) {                                                                 \
      __mmask64 k = 0;                                                                             \
      for (int j = 0; j < 64; j += LANES)                                                          \
        k |= (__mmask64)CMP(LOAD(x + i + j), LOAD(y + i + j), pred) << j;                          \
      _mm512_storeu_si512(z + i, _mm512_maskz_mov_epi8(k, one));                                   \
    }                                                                                              \
    for (; i < n; i++)                                                                             \
      z[i] = pred == _CMP_EQ_OQ ? x[i] == y[i] : pred == _CMP_NEQ_UQ ? x[i] != y[i]                \
           : pred == _CMP_LT_OQ ? x[i] < y[i] : x[i] <= y[i];                                      \
  }
/* the immediate must be a constant: one call per predicate */
#define NX__CMPPS(a, b, p)                                                                         \
  ((p) == _CMP_EQ_OQ ? _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ) : (p) == _CMP_NEQ_UQ ? _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ) \
   : (p) == _CMP_LT_OQ ? _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ) : _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ))
#define NX__CMPPD(a, b, p)                                                                         \
  (((p) == _CMP_EQ_OQ ? _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ) : (p) == _CMP_NEQ_UQ ? _mm512_cmp_pd_mask(a, b, _CMP_NEQ_UQ) \
   : (p) == _CMP_LT_OQ ? _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ) : _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ)))
NX__CMP512(cmp_f32, float, __m512, _mm512_loadu_ps, NX__CMPPS, 16)
NX__CMP512(cmp_f64, double, __m512d, _mm512_loadu_pd, NX__CMPPD, 8)

int nx__typed_cmp512(int op, nx_dtype dt, uint8_t *z, const void *x, const void *y, int64_t n) {
  static const int preds[4] = {_CMP_EQ_OQ, _CMP_NEQ_UQ, _CMP_LT_OQ, _CMP_LE_OQ};
  if (op < 0 || op > 3) return 0;
  if (dt == NX_FLOAT32) cmp_f32(z, x, y, n, preds[op]);
  else if (dt == NX_FLOAT64) cmp_f64(z, x, y, n, preds[op]);
  else return 0;
  return 1;
}

/* Narrowing: VPMOVS* saturate a signed lane into the narrower signed range;
   into uint8 the negative lanes go to 0 first and VPMOVUS* saturates at
   255. */
#define NX__NARROW(name, TS, TD, LANES, LOAD, CVT, STORE, TAIL)                                    \
  NX__TGT_512 static void name(void *dv, const void *sv, int64_t n) {                              \
    TD *d = dv;                                                                                    \
    const TS *s = sv;                                                                              \
    int64_t i = 0;                                                                                 \
    for (; i + LANES <= n; i += LANES) STORE(d + i, CVT(LOAD(s + i)));                             \
    for (; i < n; i++) {                                                                           \
      TS v = s[i];                                                                                 \
      d[i] = TAIL;                                                                                 \
    }                                                                                              \
  }
#define NX__LD512(p) _mm512_loadu_si512(p)
#define NX__ST128(p, v) _mm_storeu_si128((__m128i *)(p), v)
#define NX__ST256(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define NX__ST64(p, v) _mm_storel_epi64((__m128i *)(p), v)
#define NX__U8_32(v) _mm512_cvtusepi32_epi8(_mm512_max_epi32(v, _mm512_setzero_si512()))
#define NX__U8_16(v) _mm512_cvtusepi16_epi8(_mm512_max_epi16(v, _mm512_setzero_si512()))
#define NX__U8_64(v) _mm512_cvtusepi64_epi8(_mm512_max_epi64(v, _mm512_setzero_si512()))
NX__NARROW(i8_i16, int16_t, int8_t, 32, NX__LD512, _mm512_cvtsepi16_epi8, NX__ST256, NX__CLAMP(int8_t, -128, 127, v))
NX__NARROW(i8_i32, int32_t, int8_t, 16, NX__LD512, _mm512_cvtsepi32_epi8, NX__ST128, NX__CLAMP(int8_t, -128, 127, v))
NX__NARROW(i8_i64, int64_t, int8_t, 8, NX__LD512, _mm512_cvtsepi64_epi8, NX__ST64, NX__CLAMP(int8_t, -128, 127, v))
NX__NARROW(i16_i32, int32_t, int16_t, 16, NX__LD512, _mm512_cvtsepi32_epi16, NX__ST256,
           NX__CLAMP(int16_t, -32768, 32767, v))
NX__NARROW(i16_i64, int64_t, int16_t, 8, NX__LD512, _mm512_cvtsepi64_epi16, NX__ST128,
           NX__CLAMP(int16_t, -32768, 32767, v))
NX__NARROW(i32_i64, int64_t, int32_t, 8, NX__LD512, _mm512_cvtsepi64_epi32, NX__ST256,
           NX__CLAMP(int32_t, INT32_MIN, INT32_MAX, v))
NX__NARROW(u8_i16, int16_t, uint8_t, 32, NX__LD512, NX__U8_16, NX__ST256, NX__CLAMP(uint8_t, 0, 255, v))
NX__NARROW(u8_i32, int32_t, uint8_t, 16, NX__LD512, NX__U8_32, NX__ST128, NX__CLAMP(uint8_t, 0, 255, v))
NX__NARROW(u8_i64, int64_t, uint8_t, 8, NX__LD512, NX__U8_64, NX__ST64, NX__CLAMP(uint8_t, 0, 255, v))

/* Floats into the narrow integers: clamped into the range in the float
   (exact: the bounds are integers of the float), NaN lanes converted to 0
   by the mask of ordered lanes, truncated toward zero, packed. */
#define NX__F2N(name, TS, TD, LANES, VT, LD, MIN, MAX, SET1, ORD, CVT, PACK, STORE, LO, HI, TAIL)    \
  NX__TGT_512 static void name(void *dv, const void *sv, int64_t n) {                              \
    TD *d = dv;                                                                                    \
    const TS *s = sv;                                                                              \
    int64_t i = 0;                                                                                 \
    for (; i + LANES <= n; i += LANES) {                                                           \
      VT v = LD(s + i);                                                                            \
      VT c = MAX(MIN(v, SET1(HI)), SET1(LO));                                                      \
      STORE(d + i, PACK(CVT(ORD(v), c)));                                                          \
    }                                                                                              \
    for (; i < n; i++) {                                                                           \
      TS v = s[i];                                                                                 \
      d[i] = TAIL;                                                                                 \
    }                                                                                              \
  }
#define NX__ORDPS(v) _mm512_cmp_ps_mask(v, v, _CMP_ORD_Q)
#define NX__ORDPD(v) _mm512_cmp_pd_mask(v, v, _CMP_ORD_Q)
#define NX__PS(name, TD, PACK, STORE, LO, HI, TAIL)                                                               \
  NX__F2N(name, float, TD, 16, __m512, _mm512_loadu_ps, _mm512_min_ps, _mm512_max_ps, _mm512_set1_ps, NX__ORDPS, \
          _mm512_maskz_cvttps_epi32, PACK, STORE, LO, HI, TAIL)
#define NX__PD(name, TD, PACK, STORE, LO, HI, TAIL)                                                                \
  NX__F2N(name, double, TD, 8, __m512d, _mm512_loadu_pd, _mm512_min_pd, _mm512_max_pd, _mm512_set1_pd, NX__ORDPD, \
          _mm512_maskz_cvttpd_epi32, PACK, STORE, LO, HI, TAIL)
#define NX__SAME(v) (v)
NX__PS(i8_f32, int8_t, _mm512_cvtepi32_epi8, NX__ST128, -128.0f, 127.0f, NX__F2I(int8_t, float, INT8_MIN, INT8_MAX, int32_t, v))
NX__PS(i16_f32, int16_t, _mm512_cvtepi32_epi16, NX__ST256, -32768.0f, 32767.0f,
       NX__F2I(int16_t, float, INT16_MIN, INT16_MAX, int32_t, v))
NX__PS(u8_f32, uint8_t, _mm512_cvtepi32_epi8, NX__ST128, 0.0f, 255.0f, NX__F2U8(v))
NX__PD(i8_f64, int8_t, _mm256_cvtepi32_epi8, NX__ST64, -128.0, 127.0, NX__F2I(int8_t, double, INT8_MIN, INT8_MAX, int32_t, v))
NX__PD(i16_f64, int16_t, _mm256_cvtepi32_epi16, NX__ST128, -32768.0, 32767.0,
       NX__F2I(int16_t, double, INT16_MIN, INT16_MAX, int32_t, v))
NX__PD(i32_f64, int32_t, NX__SAME, NX__ST256, -2147483648.0, 2147483647.0,
       NX__F2I(int32_t, double, INT32_MIN, INT32_MAX, int32_t, v))
NX__PD(u8_f64, uint8_t, _mm256_cvtepi32_epi8, NX__ST64, 0.0, 255.0, NX__F2U8(v))

int nx__typed_narrow512(nx_dtype to, void *dst, nx_dtype from, const void *src, int64_t n) {
  static const nx__narrow_fn loops[] = {i8_i16, i8_i32, i8_i64, i16_i32, i16_i64, i32_i64, u8_i16, u8_i32,
                                         u8_i64, i8_f32, i16_f32, u8_f32, i8_f64, i16_f64, i32_f64, u8_f64};
  int k = nx__typed_narrow_pair(to, from);
  if (k < 0) return 0;
  loops[k](dst, src, n);
  return 1;
}

/* The lines of z from its first 64-byte boundary on, streamed; f, the C
   loop of the same operation, does the head before that boundary and the
   tail after the last whole vector. Where x is NaN the result is x's NaN
   quieted (x + x), as f has it: the compiler may swap a commutative
   instruction's operands, and the instruction keeps its first operand's
   NaN. */
#define NX__STREAM(TGT, name, T, VT, LANES, LD, STNT, NANF, ADD, SUB, MUL, DIV)                     \
  TGT static void name(int op, nx__bin_fn f, T *z, const T *x, const T *y, int64_t n) {            \
    int64_t i = (int64_t)((64 - (uintptr_t)z % 64) % 64) / (int64_t)sizeof(T);                    \
    f(z, x, y, i);                                                                                 \
    for (; i + LANES <= n; i += LANES) {                                                           \
      VT a = LD(x + i), b = LD(y + i);                                                             \
      VT r = op == 0 ? ADD(a, b) : op == 1 ? SUB(a, b) : op == 2 ? MUL(a, b) : DIV(a, b);          \
      STNT(z + i, NANF(r, a));                                                                     \
    }                                                                                              \
    _mm_sfence(); /* the streamed stores ordered before what follows (another thread's read) */    \
    f(z + i, x + i, y + i, n - i);                                                                 \
  }
/* r where x is a number, else x + x (x's NaN quieted) */
NX__TGT_512 static inline __m512 nan_first_ps512(__m512 r, __m512 x) {
  return _mm512_mask_add_ps(r, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x, x);
}
NX__TGT_512 static inline __m512d nan_first_pd512(__m512d r, __m512d x) {
  return _mm512_mask_add_pd(r, _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q), x, x);
}
NX__TGT_AVX2 static inline __m256 nan_first_ps256(__m256 r, __m256 x) {
  return _mm256_blendv_ps(r, _mm256_add_ps(x, x), _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}
NX__TGT_AVX2 static inline __m256d nan_first_pd256(__m256d r, __m256d x) {
  return _mm256_blendv_pd(r, _mm256_add_pd(x, x), _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
}
NX__STREAM(NX__TGT_512, stream_f32, float, __m512, 16, _mm512_loadu_ps, _mm512_stream_ps, nan_first_ps512,
           _mm512_add_ps, _mm512_sub_ps, _mm512_mul_ps, _mm512_div_ps)
NX__STREAM(NX__TGT_512, stream_f64, double, __m512d, 8, _mm512_loadu_pd, _mm512_stream_pd, nan_first_pd512,
           _mm512_add_pd, _mm512_sub_pd, _mm512_mul_pd, _mm512_div_pd)
NX__STREAM(NX__TGT_AVX2, stream_f32_256, float, __m256, 8, _mm256_loadu_ps, _mm256_stream_ps, nan_first_ps256,
           _mm256_add_ps, _mm256_sub_ps, _mm256_mul_ps, _mm256_div_ps)
NX__STREAM(NX__TGT_AVX2, stream_f64_256, double, __m256d, 4, _mm256_loadu_pd, _mm256_stream_pd, nan_first_pd256,
           _mm256_add_pd, _mm256_sub_pd, _mm256_mul_pd, _mm256_div_pd)

int nx__typed_stream(int level, int op, nx_dtype dt, nx__bin_fn f, void *z, const void *x, const void *y, int64_t n) {
  int64_t bytes = dt == NX_FLOAT32 ? 4 : dt == NX_FLOAT64 ? 8 : 0;
  if (!bytes || op < NX__ADD || op > NX__FDIV || n * bytes < NX__STREAM_BYTES || (uintptr_t)z % (uintptr_t)bytes)
    return 0;
  if (level == NX__TYPED_AVX512) {
    if (dt == NX_FLOAT32) stream_f32(op - NX__ADD, f, z, x, y, n);
    else stream_f64(op - NX__ADD, f, z, x, y, n);
    return 1;
  }
  if (level == NX__TYPED_AVX2) {
    if (dt == NX_FLOAT32) stream_f32_256(op - NX__ADD, f, z, x, y, n);
    else stream_f64_256(op - NX__ADD, f, z, x, y, n);
    return 1;
  }
  return 0;
}


#else /* no intrinsic loops on this target */

int nx__typed_stream(int level, int op, nx_dtype dt, nx__bin_fn f, void *z, const void *x, const void *y, int64_t n) {
  (void)level; (void)op; (void)dt; (void)f; (void)z; (void)x; (void)y; (void)n;
  return 0;
}

int nx__typed_cmp512(int op, nx_dtype dt, uint8_t *z, const void *x, const void *y, int64_t n) {
  (void)op; (void)dt; (void)z; (void)x; (void)y; (void)n;
  return 0;
}

int nx__typed_narrow512(nx_dtype to, void *dst, nx_dtype from, const void *src, int64_t n) {
  (void)to; (void)dst; (void)from; (void)src; (void)n;
  return 0;
}
#endif
