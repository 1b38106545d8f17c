/* SPDX-License-Identifier: Apache-2.0 */
/* Cast, all 441 pairs, bit for bit against the oracle (nx_dtype_store_bits of
   the exact source value, MPFR for integers past 2^53): every code of the
   sources up to 16 bits; rounding boundaries, range boundaries, specials and
   samples of the wider ones, through both the dispatching entry point (its
   vector paths where this CPU has them) and the exact element path. Then
   strided, negative and zero steps and sub-byte elements at odd positions,
   with every destination bit outside the written elements left as it was.
   Under AddressSanitizer the wider sources are sampled (every 16th input);
   plainly they run in full. */
#include <fenv.h>
#include <stdlib.h>
#include <string.h>

#include "cast.h"
#include "cast_inputs.h"
#include "cast_internal.h"
#include "cast_oracle.h"
#include "../check.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static int width(int code) { return nx_dtype_bits_of(code); }

/* Raw element access at position p, sub-byte packed as nx_dtype.h packs. */
static void put(uint8_t *b, int64_t p, int bits, uint64_t lo, uint64_t hi) {
  if (bits < 8) nx_subbyte_put(b, p, bits, (uint8_t)lo);
  else if (bits == 128) { memcpy(b + p * 16, &lo, 8); memcpy(b + p * 16 + 8, &hi, 8); }
  else memcpy(b + p * (bits / 8), &lo, (size_t)(bits / 8));
}
static void get(const uint8_t *b, int64_t p, int bits, uint64_t *lo, uint64_t *hi) {
  *lo = 0;
  *hi = 0;
  if (bits < 8) *lo = nx_subbyte_get(b, p, bits);
  else if (bits == 128) { memcpy(lo, b + p * 16, 8); memcpy(hi, b + p * 16 + 8, 8); }
  else memcpy(lo, b + p * (bits / 8), (size_t)(bits / 8));
}
static size_t bytes_for(int bits, size_t n) { return (n * (size_t)bits + 7) / 8 + 16; }

typedef void (*cast_fn)(nx_dtype, void *, int64_t, int64_t, nx_dtype, const void *, int64_t, int64_t, int64_t);

/* The pairs with vector paths, which every instruction-set level runs. */
static const int fast_pairs[][2] = {
    {NX_FLOAT32, NX_FLOAT16}, {NX_FLOAT16, NX_FLOAT32}, {NX_FLOAT32, NX_BFLOAT16}, {NX_BFLOAT16, NX_FLOAT32},
    {NX_FLOAT64, NX_FLOAT8_E4M3FN}, {NX_FLOAT64, NX_FLOAT8_E5M2}, {NX_FLOAT64, NX_FLOAT4_E2M1FN},
    {NX_FLOAT32, NX_FLOAT8_E4M3FN}, {NX_FLOAT32, NX_FLOAT8_E5M2}, {NX_FLOAT32, NX_FLOAT4_E2M1FN},
    /* AVX-512's and AVX512-FP16's: float16 with float64 and the integers, both ways */
    {NX_FLOAT64, NX_FLOAT16}, {NX_FLOAT16, NX_FLOAT64}, {NX_INT8, NX_FLOAT16}, {NX_FLOAT16, NX_INT8},
    {NX_INT16, NX_FLOAT16}, {NX_FLOAT16, NX_INT16}, {NX_INT32, NX_FLOAT16}, {NX_FLOAT16, NX_INT32},
    {NX_INT64, NX_FLOAT16}, {NX_FLOAT16, NX_INT64}, {NX_UINT8, NX_FLOAT16}, {NX_FLOAT16, NX_UINT8},
    {NX_UINT16, NX_FLOAT16}, {NX_FLOAT16, NX_UINT16}, {NX_UINT32, NX_FLOAT16}, {NX_FLOAT16, NX_UINT32},
    {NX_UINT64, NX_FLOAT16}, {NX_FLOAT16, NX_UINT64}};
static int is_fast(int from, int to) {
  for (size_t i = 0; i < sizeof fast_pairs / sizeof fast_pairs[0]; i++)
    if (fast_pairs[i][0] == from && fast_pairs[i][1] == to) return 1;
  return 0;
}

/* MXCSR's flush-to-zero and denormals-are-zero bits. */
static unsigned mxcsr_ftz_daz(unsigned on) {
#if defined(__x86_64__)
  unsigned old;
  __asm__ volatile("stmxcsr %0" : "=m"(old));
  unsigned v = on ? old | 0x8040u : old & ~0x8040u;
  __asm__ volatile("ldmxcsr %0" : : "m"(v));
  return old;
#else
  return on;
#endif
}

/* Every pair from `from` (only those with vector paths if fast_only), on the
   inputs in, through fn; under flush-to-zero and denormals-are-zero if ftz,
   where the rule's results into float16 and the formats of a byte or less
   stay the same (and nx's paths into float32 and bfloat16 keep them too). */
static void check_pairs_as(int from, const inputs *in, cast_fn fn, const char *path, int fast_only, int ftz) {
  size_t n = in->n;
  uint8_t *src = (uint8_t *)calloc(bytes_for(width(from), n), 1);
  for (size_t i = 0; i < n; i++) put(src, (int64_t)i, width(from), in->lo[i], in->hi[i]);
  for (int to = 0; to < NX_DTYPE_COUNT; to++) {
    if (fast_only && !is_fast(from, to)) continue;
    uint8_t *dst = (uint8_t *)calloc(bytes_for(width(to), n), 1);
    if (ftz) {
      unsigned old = mxcsr_ftz_daz(1);
      fn((nx_dtype)to, dst, 0, 1, (nx_dtype)from, src, 0, 1, (int64_t)n);
      mxcsr_ftz_daz(old & 0x8040u);
    } else fn((nx_dtype)to, dst, 0, 1, (nx_dtype)from, src, 0, 1, (int64_t)n);
    long bad = 0;
    for (size_t i = 0; i < n; i++) {
      uint64_t lo, hi, elo, ehi;
      get(dst, (int64_t)i, width(to), &lo, &hi);
      oracle_cast(to, from, in->lo[i], in->hi[i], &elo, &ehi);
      if (lo != elo || hi != ehi) {
        if (bad++ < 3)
          CHECK(0, "%s %s -> %s: source %016llx:%016llx gives %016llx:%016llx, expected %016llx:%016llx", path,
                nx_dtype_name((nx_dtype)from), nx_dtype_name((nx_dtype)to), (unsigned long long)in->hi[i],
                (unsigned long long)in->lo[i], (unsigned long long)hi, (unsigned long long)lo,
                (unsigned long long)ehi, (unsigned long long)elo);
      }
    }
    CHECK(bad == 0, "%s %s -> %s: %ld of %zu elements differ", path, nx_dtype_name((nx_dtype)from),
          nx_dtype_name((nx_dtype)to), bad, n);
    free(dst);
  }
  free(src);
}
/* The casts into the 8- and 4-bit floats raise no floating-point flag on
   the element path (integer operations only) nor on the AVX2 one, whatever
   the input (signalling NaNs, values past the range, subnormals): a
   program that unmasks FE_INVALID or FE_OVERFLOW is not trapped by a cast.
   The AVX-512 paths suppress exceptions in each instruction (not checked
   here: this suite's CPU decides whether they run). */
static void check_no_flags(int from, const inputs *in) {
  static const int tos[] = {NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2, NX_FLOAT4_E2M1FN};
  size_t n = in->n;
  uint8_t *src = (uint8_t *)calloc(bytes_for(width(from), n), 1), *dst = (uint8_t *)calloc(n + 16, 1);
  for (size_t i = 0; i < n; i++) put(src, (int64_t)i, width(from), in->lo[i], in->hi[i]);
  for (int level = NX__CAST_ISA_NONE; level <= NX__CAST_ISA_AVX2; level++) {
    if (nx__cast_set_isa(level) != level) continue;
    for (size_t t = 0; t < sizeof tos / sizeof *tos; t++) {
      feclearexcept(FE_ALL_EXCEPT);
      nx__cast_run((nx_dtype)tos[t], dst, 0, 1, (nx_dtype)from, src, 0, 1, (int64_t)n);
      int raised = fetestexcept(FE_ALL_EXCEPT);
      CHECK(raised == 0, "level %d: %s -> %s on %zu inputs raised the flags %#x", level,
            nx_dtype_name((nx_dtype)from), nx_dtype_name((nx_dtype)tos[t]), n, raised);
    }
  }
  nx__cast_set_isa(NX__CAST_ISA_BEST);
  feclearexcept(FE_ALL_EXCEPT);
  free(src);
  free(dst);
}

static void check_pairs(int from, const inputs *in, cast_fn fn, const char *path) {
  check_pairs_as(from, in, fn, path, 0, 0);
}

/* Strided, negative and zero source steps, strided and negative destination
   steps, odd sub-byte positions, short runs: each written element is the
   oracle's, every other destination bit is unchanged. */
static void check_layouts(void) {
  static const int64_t ssteps[] = {1, 2, 3, -1, -2, 0, 5};
  static const int64_t dsteps[] = {1, 2, 3, -1, -3};
  uint64_t seed = 42;
  enum { N = 70, SPAN = 1024 };
  for (int from = 0; from < NX_DTYPE_COUNT; from++)
    for (int to = 0; to < NX_DTYPE_COUNT; to++)
      for (size_t a = 0; a < sizeof ssteps / sizeof ssteps[0]; a++)
        for (size_t b = 0; b < sizeof dsteps / sizeof dsteps[0]; b++) {
          int fw = width(from), tw = width(to);
          int64_t ss = ssteps[a], ds = dsteps[b];
          int64_t n = (int64_t)(splitmix64_next(&seed) % N);
          int64_t sp = ss < 0 ? -ss * n + 1 : (int64_t)(splitmix64_next(&seed) % 7);
          int64_t dp = ds < 0 ? -ds * n + 3 : (int64_t)(splitmix64_next(&seed) % 7);
          uint8_t *src = (uint8_t *)malloc(bytes_for(fw, SPAN)), *dst = (uint8_t *)malloc(bytes_for(tw, SPAN));
          uint8_t *before = (uint8_t *)malloc(bytes_for(tw, SPAN));
          for (size_t i = 0; i < bytes_for(fw, SPAN); i++) src[i] = (uint8_t)splitmix64_next(&seed);
          for (size_t i = 0; i < bytes_for(tw, SPAN); i++) dst[i] = (uint8_t)splitmix64_next(&seed);
          memcpy(before, dst, bytes_for(tw, SPAN));
          nx__cast_run((nx_dtype)to, dst, dp, ds, (nx_dtype)from, src, sp, ss, n);
          /* The expected destination: the old bits with each element stored. */
          for (int64_t i = 0; i < n; i++) {
            uint64_t lo, hi, elo, ehi;
            get(src, sp + i * ss, fw, &lo, &hi);
            oracle_cast(to, from, lo, hi, &elo, &ehi);
            put(before, dp + i * ds, tw, elo, ehi);
          }
          CHECK(memcmp(before, dst, bytes_for(tw, SPAN)) == 0, "%s -> %s, n %lld, sp %lld ss %lld, dp %lld ds %lld",
                nx_dtype_name((nx_dtype)from), nx_dtype_name((nx_dtype)to), (long long)n, (long long)sp,
                (long long)ss, (long long)dp, (long long)ds);
          free(src);
          free(dst);
          free(before);
        }
}

/* Runs long enough for the non-temporal stores (2 MiB of destination and
   more) of the 16-bit pairs, their destinations starting at every offset
   within a 64-byte line: the bits of the scalar path, and the destination's
   bytes outside the run unchanged. The sources are the inputs' codes over
   and over. */
static void check_streamed(int from, int to, const inputs *in) {
  int fw = width(from), tw = width(to);
  int64_t n = ((int64_t)2 << 20) / (tw / 8) + 77;
  size_t db = bytes_for(tw, (size_t)n + 64);
  uint8_t *src = (uint8_t *)malloc(bytes_for(fw, (size_t)n)), *dst = (uint8_t *)malloc(db), *want = (uint8_t *)malloc(db);
  for (int64_t i = 0; i < n; i++) put(src, i, fw, in->lo[(size_t)i % in->n], in->hi[(size_t)i % in->n]);
  for (int64_t dp = 0; dp < 64 / (tw / 8); dp += 7) {
    memset(dst, 0xA5, db);
    memset(want, 0xA5, db);
    nx__cast_run((nx_dtype)to, dst, dp, 1, (nx_dtype)from, src, 0, 1, n);
    nx__cast_run_scalar((nx_dtype)to, want, dp, 1, (nx_dtype)from, src, 0, 1, n);
    CHECK(memcmp(dst, want, db) == 0, "%s -> %s, %lld elements from %lld: the streamed run differs from the scalar one",
          nx_dtype_name((nx_dtype)from), nx_dtype_name((nx_dtype)to), (long long)n, (long long)dp);
  }
  free(src);
  free(dst);
  free(want);
}

int main(void) {
  for (int from = 0; from < NX_DTYPE_COUNT; from++) {
    inputs in = {0}, use = {0};
    make_inputs(&in, from, 4096);
    /* Sanitized builds sample the wide sources; the exhaustive codes of the
       narrow ones are cheap enough to keep. */
    size_t step = SANITIZED && width(from) > 16 ? 16 : 1;
    for (size_t i = 0; i < in.n; i += step) in_add(&use, in.lo[i], in.hi[i]);
    check_pairs(from, &use, nx__cast_run, "nx__cast_run");
    check_pairs(from, &use, nx__cast_run_scalar, "nx__cast_run_scalar");
    /* Each lower instruction-set level's vector paths (AVX2's and
       AVX-512's under flush-to-zero too, where they are not the best), and
       the best one's under flush-to-zero. */
    static const char *names[] = {"no vector path", "AVX2", "AVX-512", "AVX-512 with BF16", "AVX-512 with BF16 and FP16"};
    for (int level = NX__CAST_ISA_NONE; level < NX__CAST_ISA_BEST; level++)
      if (nx__cast_set_isa(level) == level) {
        check_pairs_as(from, &use, nx__cast_run, names[level], 1, 0);
        if (level == NX__CAST_ISA_AVX2) check_pairs_as(from, &use, nx__cast_run, "AVX2 under FTZ and DAZ", 1, 1);
        if (level == NX__CAST_ISA_AVX512) check_pairs_as(from, &use, nx__cast_run, "AVX-512 under FTZ and DAZ", 1, 1);
      }
    nx__cast_set_isa(NX__CAST_ISA_BEST);
    check_pairs_as(from, &use, nx__cast_run, "nx__cast_run under FTZ and DAZ", 1, 1);
    if (from == NX_FLOAT64 || from == NX_FLOAT32) check_no_flags(from, &use);
    for (int to = 0; to < NX_DTYPE_COUNT; to++)
      if (is_fast(from, to) && width(from) + width(to) == 48)
        for (int level = NX__CAST_ISA_AVX2; level < NX__CAST_ISA_BEST; level++)
          if (nx__cast_set_isa(level) == level) check_streamed(from, to, &use);
    nx__cast_set_isa(NX__CAST_ISA_BEST);
    in_free(&in);
    in_free(&use);
  }
  for (int level = NX__CAST_ISA_NONE; level <= NX__CAST_ISA_BEST; level++) {
    nx__cast_set_isa(level);
    check_layouts();
  }
  mpfr_free_cache();
  return check_done();
}
