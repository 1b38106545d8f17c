/* SPDX-License-Identifier: Apache-2.0 */
/* Typed loops for the common dtypes. float32 and float64 operate natively:
   + - x / of float32 are its correctly rounded results, the same as double's
   rounded once more. float16 and bfloat16 compute in float32, which holds
   2p+2 bits of either, so the second rounding gives the correctly rounded
   result; AVX-512F converts float16 where the CPU has it. */
#include <math.h>

#include <stdatomic.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define NX__X86 1
#endif

#include "fast.h"
#include "stream.h"

#define NX__LOOP(T, name, EXPR)                                                                 \
  static void name(const nx__arg *a, int64_t n) {                                               \
    if (a[0].step == sizeof(T) && a[1].step == sizeof(T) && a[2].step == sizeof(T)) {           \
      T *restrict z = (T *)a[0].p;                                                              \
      const T *restrict px = (const T *)a[1].p, *restrict py = (const T *)a[2].p;               \
      for (int64_t i = 0; i < n; i++) {                                                         \
        T x = px[i], y = py[i];                                                                 \
        z[i] = (EXPR);                                                                          \
      }                                                                                         \
      return;                                                                                   \
    }                                                                                           \
    if (a[0].step == sizeof(T) && a[1].step == sizeof(T) && a[2].step == 0) {                   \
      T *restrict z = (T *)a[0].p;                                                              \
      const T *restrict px = (const T *)a[1].p, y = *(const T *)a[2].p;                         \
      for (int64_t i = 0; i < n; i++) {                                                         \
        T x = px[i];                                                                            \
        z[i] = (EXPR);                                                                          \
      }                                                                                         \
      return;                                                                                   \
    }                                                                                           \
    for (int64_t i = 0; i < n; i++) {                                                           \
      T x = *(const T *)(a[1].p + i * a[1].step), y = *(const T *)(a[2].p + i * a[2].step);     \
      *(T *)(a[0].p + i * a[0].step) = (EXPR);                                                  \
    }                                                                                           \
  }

/* NaN-propagating min and max with -0 < +0, as the scalar path. */
#define NX__FMIN(x, y) ((x) != (x) ? (x) : (y) != (y) ? (y) : ((x) < (y) || ((x) == (y) && signbit(x))) ? (x) : (y))
#define NX__FMAX(x, y) ((x) != (x) ? (x) : (y) != (y) ? (y) : ((x) > (y) || ((x) == (y) && !signbit(x))) ? (x) : (y))

#define NX__FLOAT_LOOPS(T, s)                   \
  NX__LOOP(T, add_##s, x + y)                   \
  NX__LOOP(T, sub_##s, x - y)                   \
  NX__LOOP(T, mul_##s, x * y)                   \
  NX__LOOP(T, div_##s, x / y)                   \
  NX__LOOP(T, min_##s, NX__FMIN(x, y))          \
  NX__LOOP(T, max_##s, NX__FMAX(x, y))
NX__FLOAT_LOOPS(float, f32)
NX__FLOAT_LOOPS(double, f64)

/* Integers: unsigned arithmetic wraps without undefined behaviour. */
#define NX__INT_LOOPS(T, U, s)                  \
  NX__LOOP(T, add_##s, (T)((U)x + (U)y))        \
  NX__LOOP(T, sub_##s, (T)((U)x - (U)y))        \
  NX__LOOP(T, mul_##s, (T)((U)x * (U)y))        \
  NX__LOOP(T, min_##s, x < y ? x : y)           \
  NX__LOOP(T, max_##s, x > y ? x : y)           \
  NX__LOOP(T, and_##s, (T)(x & y))              \
  NX__LOOP(T, or_##s, (T)(x | y))               \
  NX__LOOP(T, xor_##s, (T)(x ^ y))
NX__INT_LOOPS(int8_t, uint8_t, i8)
NX__INT_LOOPS(uint8_t, uint8_t, u8)
NX__INT_LOOPS(int16_t, uint16_t, i16)
NX__INT_LOOPS(uint16_t, uint16_t, u16)
NX__INT_LOOPS(int32_t, uint32_t, i32)
NX__INT_LOOPS(uint32_t, uint32_t, u32)
NX__INT_LOOPS(int64_t, uint64_t, i64)
NX__INT_LOOPS(uint64_t, uint64_t, u64)

typedef void (*loop_fn)(const nx__arg *, int64_t);

#define NX__ROW_F(s) {add_##s, sub_##s, mul_##s, div_##s, 0, 0, 0, 0, min_##s, max_##s, 0, 0, 0}
#define NX__ROW_I(s) {add_##s, sub_##s, mul_##s, 0, 0, 0, 0, 0, min_##s, max_##s, and_##s, or_##s, xor_##s}

static loop_fn table(nx_dtype dt, nx__bop op) {
  static const loop_fn f32[] = NX__ROW_F(f32), f64[] = NX__ROW_F(f64), i8[] = NX__ROW_I(i8), u8[] = NX__ROW_I(u8),
                       i16[] = NX__ROW_I(i16), u16[] = NX__ROW_I(u16), i32[] = NX__ROW_I(i32),
                       u32[] = NX__ROW_I(u32), i64[] = NX__ROW_I(i64), u64[] = NX__ROW_I(u64);
  switch (dt) {
  case NX_FLOAT32: return f32[op];
  case NX_FLOAT64: return f64[op];
  case NX_INT8: return i8[op];
  case NX_UINT8: return u8[op];
  case NX_INT16: return i16[op];
  case NX_UINT16: return u16[op];
  case NX_INT32: return i32[op];
  case NX_UINT32: return u32[op];
  case NX_INT64: return i64[op];
  case NX_UINT64: return u64[op];
  default: return 0;
  }
}

/* float16 and bfloat16 through float32. */
static float f32_op(nx__bop op, float x, float y) {
  if (x != x) return x + 0.0f; /* the first operand's NaN, quieted (nan_first512) */
  switch (op) {
  case NX__ADD: return x + y;
  case NX__SUB: return x - y;
  case NX__MUL: return x * y;
  default: return x / y;
  }
}

/* The store rule from float32 into bfloat16, branch free. */
static inline uint16_t bf16_of(float r) {
  uint32_t u;
  memcpy(&u, &r, 4);
  uint16_t q = (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1)) >> 16);
  return (u & 0x7FFFFFFFu) > 0x7F800000u ? (uint16_t)((u >> 16) | 0x40) : q;
}

static inline float f32_of_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

#define NX__HALF_LOOP(name, LOAD, STORE)                                                          \
  static void name(nx__bop op, const nx__arg *a, int64_t n) {                                     \
    for (int64_t i = 0; i < n; i++) {                                                             \
      uint16_t xb, yb, zb;                                                                        \
      memcpy(&xb, a[1].p + i * a[1].step, 2);                                                     \
      memcpy(&yb, a[2].p + i * a[2].step, 2);                                                     \
      float r = f32_op(op, LOAD(xb), LOAD(yb));                                                   \
      zb = STORE(r);                                                                              \
      memcpy(a[0].p + i * a[0].step, &zb, 2);                                                     \
    }                                                                                             \
  }
#define NX__BF16_LOAD(b) f32_of_bits((uint32_t)(b) << 16)
#define NX__F16_LOAD(b) f32_of_bits(nx_load_float16_f32(b))
#define NX__F16_STORE(r) nx_store_float16_f32(nx__f32_bits(r))
NX__HALF_LOOP(bf16_loop, NX__BF16_LOAD, bf16_of)
NX__HALF_LOOP(f16_loop, NX__F16_LOAD, NX__F16_STORE)

/* bfloat16 contiguous: one op per loop so the compiler vectorizes it. */
#define NX__BF16_CONTIG(name, EXPR)                                                               \
  static void name(uint16_t *restrict z, const uint16_t *restrict px, const uint16_t *restrict py, \
                   int64_t n) {                                                                   \
    for (int64_t i = 0; i < n; i++) {                                                             \
      float x = NX__BF16_LOAD(px[i]), y = NX__BF16_LOAD(py[i]);                                   \
      z[i] = bf16_of(EXPR);                                                                       \
    }                                                                                             \
  }
NX__BF16_CONTIG(bf16_add, x + y)
NX__BF16_CONTIG(bf16_sub, x - y)
NX__BF16_CONTIG(bf16_mul, x * y)
NX__BF16_CONTIG(bf16_div, x / y)

#if defined(NX__X86)
/* Where x is NaN the result is x's NaN, quieted: an operation on two NaNs
   gives the first operand's, as the scalar path and the device kernels do,
   whichever operand order the compiler picks for the vector instruction. */
__attribute__((target("avx512f"))) static inline __m512 nan_first512(__m512 r, __m512 x) {
  __mmask16 m = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  __m512 q = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x00400000)));
  return _mm512_mask_mov_ps(r, m, q);
}
/* Each 16-bit loop in two versions: ordinary stores, and non-temporal ones
   (..._nt, z aligned to 32 bytes) for large runs, which write the result's
   lines without reading them first. */
#define NX__ST(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define NX__ST_NT(p, v) _mm256_stream_si256((__m256i *)(p), v)
#define NX__F16_LOOP512(name, OP, BOP, ST)                                                              \
  __attribute__((target("avx512f"))) static void name(uint16_t *z, const uint16_t *px,               \
                                                           const uint16_t *py, int64_t n) {               \
    int64_t i = 0;                                                                                      \
    for (; i + 16 <= n; i += 16) {                                                                      \
      __m512 x = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(px + i)));                        \
      __m512 y = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(py + i)));                        \
      ST(z + i, _mm512_cvtps_ph(nan_first512(OP(x, y), x), _MM_FROUND_TO_NEAREST_INT));                 \
    }                                                                                                   \
    for (; i < n; i++) z[i] = NX__F16_STORE(f32_op(BOP, NX__F16_LOAD(px[i]), NX__F16_LOAD(py[i])));     \
  }
#define NX__F16_AVX512(name, OP, BOP) NX__F16_LOOP512(name, OP, BOP, NX__ST) NX__F16_LOOP512(name##_nt, OP, BOP, NX__ST_NT)
NX__F16_AVX512(f16_add512, _mm512_add_ps, NX__ADD)
NX__F16_AVX512(f16_sub512, _mm512_sub_ps, NX__SUB)
NX__F16_AVX512(f16_mul512, _mm512_mul_ps, NX__MUL)
NX__F16_AVX512(f16_div512, _mm512_div_ps, NX__FDIV)

/* bfloat16 sixteen at a time: widened by a shift, rounded back by bf16_of's
   integer rule (round to nearest even on the bits, a NaN kept quiet), in
   AVX-512F's integer operations. */
__attribute__((target("avx512f"))) static inline __m512 bf16_load512(const uint16_t *p) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p)), 16));
}
__attribute__((target("avx512f"))) static inline __m256i bf16_store512(__m512 r) {
  __m512i u = _mm512_castps_si512(r), hi = _mm512_srli_epi32(u, 16);
  __m512i q = _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7FFF)), _mm512_and_si512(hi, _mm512_set1_epi32(1)));
  q = _mm512_srli_epi32(q, 16);
  __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF)), _mm512_set1_epi32(0x7F800000));
  q = _mm512_mask_mov_epi32(q, nan, _mm512_or_si512(hi, _mm512_set1_epi32(0x40)));
  return _mm512_cvtepi32_epi16(q);
}
#define NX__BF16_LOOP512(name, OP, BOP, ST)                                                             \
  __attribute__((target("avx512f"))) static void name(uint16_t *z, const uint16_t *px, const uint16_t *py, \
                                                      int64_t n) {                                        \
    int64_t i = 0;                                                                                      \
    for (; i + 16 <= n; i += 16) {                                                                      \
      __m512 x = bf16_load512(px + i);                                                                  \
      ST(z + i, bf16_store512(nan_first512(OP(x, bf16_load512(py + i)), x)));                            \
    }                                                                                                   \
    for (; i < n; i++) z[i] = bf16_of(f32_op(BOP, NX__BF16_LOAD(px[i]), NX__BF16_LOAD(py[i])));          \
  }
#define NX__BF16_AVX512(name, OP, BOP) NX__BF16_LOOP512(name, OP, BOP, NX__ST) NX__BF16_LOOP512(name##_nt, OP, BOP, NX__ST_NT)
NX__BF16_AVX512(bf16_add512, _mm512_add_ps, NX__ADD)
NX__BF16_AVX512(bf16_sub512, _mm512_sub_ps, NX__SUB)
NX__BF16_AVX512(bf16_mul512, _mm512_mul_ps, NX__MUL)
NX__BF16_AVX512(bf16_div512, _mm512_div_ps, NX__FDIV)

/* The same eight at a time for CPUs with AVX2 and F16C but no AVX-512. */
#define NX__T2 __attribute__((target("avx2,f16c")))
NX__T2 static inline __m256 nan_first256(__m256 r, __m256 x) {
  __m256 q = _mm256_castsi256_ps(_mm256_or_si256(_mm256_castps_si256(x), _mm256_set1_epi32(0x00400000)));
  return _mm256_blendv_ps(r, q, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}
#define NX__ST2(p, v) _mm_storeu_si128((__m128i *)(p), v)
#define NX__ST2_NT(p, v) _mm_stream_si128((__m128i *)(p), v)
/* The streamed loops (runs of 2 MiB and more) prefetch both operands 2 KiB
   ahead: the hardware's prefetcher stops at each 4 KiB page, and on a Zen 3
   bfloat16 add went from 1.42 to 1.09 times the memory floor of its bytes
   (a prefetch never faults; the address is an integer, no pointer past the
   array). The short loops leave it to the caches. */
#define NX__PF2_NONE(px, py, i)
#define NX__PF2_AHEAD(px, py, i)                                                                      \
  (_mm_prefetch((const char *)((uintptr_t)((px) + (i)) + 2048), _MM_HINT_T0),                         \
   _mm_prefetch((const char *)((uintptr_t)((py) + (i)) + 2048), _MM_HINT_T0))
#define NX__F16_LOOP2(name, OP, BOP, ST, PF)                                                            \
  NX__T2 static void name(uint16_t *z, const uint16_t *px, const uint16_t *py, int64_t n) {              \
    int64_t i = 0;                                                                                      \
    for (; i + 8 <= n; i += 8) {                                                                        \
      PF(px, py, i);                                                                                    \
      __m256 x = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(px + i)));                           \
      __m256 y = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(py + i)));                           \
      ST(z + i, _mm256_cvtps_ph(nan_first256(OP(x, y), x), _MM_FROUND_TO_NEAREST_INT));                 \
    }                                                                                                   \
    for (; i < n; i++) z[i] = NX__F16_STORE(f32_op(BOP, NX__F16_LOAD(px[i]), NX__F16_LOAD(py[i])));     \
  }
#define NX__F16_AVX2(name, OP, BOP)                                                                    \
  NX__F16_LOOP2(name, OP, BOP, NX__ST2, NX__PF2_NONE) NX__F16_LOOP2(name##_nt, OP, BOP, NX__ST2_NT, NX__PF2_AHEAD)
NX__F16_AVX2(f16_add2, _mm256_add_ps, NX__ADD)
NX__F16_AVX2(f16_sub2, _mm256_sub_ps, NX__SUB)
NX__F16_AVX2(f16_mul2, _mm256_mul_ps, NX__MUL)
NX__F16_AVX2(f16_div2, _mm256_div_ps, NX__FDIV)

/* bf16_of's rule on eight float32 lanes, each result in the low 16 bits
   of its 32-bit lane: round to nearest even on the bits, a NaN kept quiet. */
NX__T2 static inline __m256i bf16_round2(__m256 r) {
  __m256i u = _mm256_castps_si256(r), hi = _mm256_srli_epi32(u, 16);
  __m256i q = _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7FFF)), _mm256_and_si256(hi, _mm256_set1_epi32(1)));
  q = _mm256_srli_epi32(q, 16);
  __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7FFFFFFF)), _mm256_set1_epi32(0x7F800000));
  return _mm256_blendv_epi8(q, _mm256_or_si256(hi, _mm256_set1_epi32(0x40)), nan);
}
/* Sixteen at a time: unpacking a 256-bit load with zeros widens the low
   and high halves of each 128-bit lane (each element shifted into the high
   half of a 32-bit lane: exactly its float32), and packus puts the two
   halves' results back in place, lane by lane; no lane crossing. Where x
   is NaN the result is x (quieted by the rounding's NaN rule). 1.2 times
   faster on a Zen 3 than eight at a time through vpmovzxwd and a final
   lane extraction. */
#define NX__BF16_LOOP2(name, OP, BOP, ST, PF)                                                           \
  NX__T2 static void name(uint16_t *z, const uint16_t *px, const uint16_t *py, int64_t n) {              \
    int64_t i = 0;                                                                                      \
    __m256i zero = _mm256_setzero_si256();                                                              \
    for (; i + 16 <= n; i += 16) {                                                                      \
      PF(px, py, i);                                                                                    \
      __m256i vx = _mm256_loadu_si256((const __m256i *)(px + i));                                       \
      __m256i vy = _mm256_loadu_si256((const __m256i *)(py + i));                                       \
      __m256 xl = _mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, vx));                                 \
      __m256 xh = _mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, vx));                                 \
      __m256 rl = OP(xl, _mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, vy)));                         \
      __m256 rh = OP(xh, _mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, vy)));                         \
      rl = _mm256_blendv_ps(rl, xl, _mm256_cmp_ps(xl, xl, _CMP_UNORD_Q));                               \
      rh = _mm256_blendv_ps(rh, xh, _mm256_cmp_ps(xh, xh, _CMP_UNORD_Q));                               \
      ST(z + i, _mm256_packus_epi32(bf16_round2(rl), bf16_round2(rh)));                                 \
    }                                                                                                   \
    for (; i < n; i++) z[i] = bf16_of(f32_op(BOP, NX__BF16_LOAD(px[i]), NX__BF16_LOAD(py[i])));          \
  }
#define NX__BF16_AVX2(name, OP, BOP)                                                                   \
  NX__BF16_LOOP2(name, OP, BOP, NX__ST, NX__PF2_NONE) NX__BF16_LOOP2(name##_nt, OP, BOP, NX__ST_NT, NX__PF2_AHEAD)
NX__BF16_AVX2(bf16_add2, _mm256_add_ps, NX__ADD)
NX__BF16_AVX2(bf16_sub2, _mm256_sub_ps, NX__SUB)
NX__BF16_AVX2(bf16_mul2, _mm256_mul_ps, NX__MUL)
NX__BF16_AVX2(bf16_div2, _mm256_div_ps, NX__FDIV)
#endif

typedef void (*half_fn)(uint16_t *, const uint16_t *, const uint16_t *, int64_t);

#if defined(NX__X86)
/* f over the contiguous run, or, for a large one, f over a head up to z's
   64-byte line and fnt (non-temporal stores) over the rest. */
static void half_run(half_fn f, half_fn fnt, const nx__arg *a, int64_t n) {
  uint16_t *z = (uint16_t *)a[0].p;
  const uint16_t *x = (const uint16_t *)a[1].p, *y = (const uint16_t *)a[2].p;
  uintptr_t at = (uintptr_t)z;
  if (n * 2 < NX__STREAM_BYTES || at % 2) {
    f(z, x, y, n);
    return;
  }
  int64_t head = (int64_t)((64 - at % 64) % 64) / 2;
  f(z, x, y, head);
  fnt(z + head, x + head, y + head, n - head);
  _mm_sfence(); /* the streamed stores ordered before what follows (another thread's read) */
}
#endif

static atomic_int half_cap = NX__FAST_BEST;

/* This CPU's level, found once. */
static int cpu_level(void) {
  static atomic_int found = -1;
  int v = atomic_load_explicit(&found, memory_order_relaxed);
  if (v >= 0) return v;
  v = NX__FAST_SCALAR;
#if defined(NX__X86)
  /* vcvtph2ps and vcvtps2ph on zmm are AVX-512F; on ymm, F16C (CPUID leaf 1,
     ECX bit 29: clang 14's __builtin_cpu_supports does not know the name) */
  unsigned ea, eb, ec, ed;
  if (__builtin_cpu_supports("avx512f")) v = NX__FAST_AVX512;
  else if (__builtin_cpu_supports("avx2") && __get_cpuid(1, &ea, &eb, &ec, &ed) && (ec & (1u << 29)))
    v = NX__FAST_AVX2;
#endif
  atomic_store_explicit(&found, v, memory_order_relaxed);
  return v;
}

int nx__fast_set_isa(int level) {
  atomic_store_explicit(&half_cap, level, memory_order_relaxed);
  int cpu = cpu_level();
  return level < cpu ? level : cpu;
}

int nx__fast_level(void) {
  int cap = atomic_load_explicit(&half_cap, memory_order_relaxed), cpu = cpu_level();
  return cap < cpu ? cap : cpu;
}

static bool half(nx__bop op, nx_dtype dt, const nx__arg *a, int64_t n) {
  if (op > NX__FDIV) return false;
  bool contig = a[0].step == 2 && a[1].step == 2 && a[2].step == 2;
#if defined(NX__X86)
  int lv = nx__fast_level();
  if (contig && lv >= NX__FAST_AVX2) {
    static const half_fn b[2][4] = {{bf16_add2, bf16_sub2, bf16_mul2, bf16_div2},
                                    {bf16_add512, bf16_sub512, bf16_mul512, bf16_div512}},
                         bnt[2][4] = {{bf16_add2_nt, bf16_sub2_nt, bf16_mul2_nt, bf16_div2_nt},
                                      {bf16_add512_nt, bf16_sub512_nt, bf16_mul512_nt, bf16_div512_nt}},
                         h[2][4] = {{f16_add2, f16_sub2, f16_mul2, f16_div2},
                                    {f16_add512, f16_sub512, f16_mul512, f16_div512}},
                         hnt[2][4] = {{f16_add2_nt, f16_sub2_nt, f16_mul2_nt, f16_div2_nt},
                                      {f16_add512_nt, f16_sub512_nt, f16_mul512_nt, f16_div512_nt}};
    int w = lv >= NX__FAST_AVX512;
    if (dt == NX_BFLOAT16) half_run(b[w][op], bnt[w][op], a, n);
    else half_run(h[w][op], hnt[w][op], a, n);
    return true;
  }
#endif
  if (dt == NX_BFLOAT16) {
    static const half_fn f[] = {bf16_add, bf16_sub, bf16_mul, bf16_div};
    if (contig) f[op]((uint16_t *)a[0].p, (const uint16_t *)a[1].p, (const uint16_t *)a[2].p, n);
    else bf16_loop(op, a, n);
    return true;
  }
  f16_loop(op, a, n);
  return true;
}

bool nx__fast_binary(nx__bop op, nx_dtype dt, const nx__arg *a, int64_t n) {
  if (dt == NX_FLOAT16 || dt == NX_BFLOAT16) return half(op, dt, a, n);
  loop_fn f = table(dt, op);
  if (!f) return false;
  f(a, n);
  return true;
}
