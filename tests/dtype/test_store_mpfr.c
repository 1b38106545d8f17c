/* SPDX-License-Identifier: Apache-2.0 */
/* The store rule against an MPFR oracle.

   The oracle (oracle_store) is written from the rule, not from nx_dtype.h: a
   finite double rounds once, ties to even, with MPFR at the format's precision
   (fraction bits and one), its subnormals emulated by mpfr_subnormalize and
   its exponent range unbounded above; then this file applies the overflow and
   NaN policy and encodes sign, exponent and fraction itself. The decoder
   (decode) computes each code's exact value with mpfr_set_ui_2exp. Integers:
   MPFR truncation and this file's saturation. Nothing expected here comes from
   the code under test.

   Parts: (a) every code loads to its exact value (float32: a large sample
   and its boundary codes); (b) stores of every value, every midpoint between
   neighbours and past the largest finite value, each of them one double ulp
   either side and both signs, random doubles over the whole exponent range,
   random NaNs; (c) the double-rounding traps of a trip through float32;
   (d) the direct float32 conversions nx_store_<fmt>_f32; integers, booleans
   and the complex codes. A fixed-seed splitmix64 makes every run the same. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <mpfr.h>

#include "../check.h"
#include "../common.h"
#include "nx_dtype.h"

/* ---- Bits ---------------------------------------------------------------- */


/* The double one ulp away from the finite double u, toward larger or smaller
   magnitude, in bits (u's sign kept; toward smaller from a zero gives the
   least subnormal of the other sign). */
static uint64_t ulp_up(uint64_t u) { return u + 1; }
static uint64_t ulp_down(uint64_t u) { return (u & ~SIGN64) ? u - 1 : (u ^ SIGN64) + 1; }

/* splitmix64 */
static uint64_t rng_state = 0x6E78u; /* fixed seed: runs repeat */
static uint64_t rnd64(void) {
  return splitmix64_next(&rng_state);
}
static long rnd_range(long lo, long hi) { return lo + (long)(rnd64() % (uint64_t)(hi - lo + 1)); }

/* ---- Formats, from the spec (not from nx_dtype.h's table) ---------------- */

typedef struct {
  const char *name;
  int code;
  int eb, fb;       /* exponent and fraction widths */
  int inf, nan;     /* has infinities, has NaNs */
  uint64_t max_bits; /* the largest finite magnitude's bits */
  unsigned long max_sig; /* the largest finite value is max_sig * 2^max_exp */
  long max_exp;
} fmt_t;

enum { F32, F16, BF16, E4M3, E5M2, E2M1, NFMT };
static const fmt_t FMTS[NFMT] = {
    {"float32", NX_FLOAT32, 8, 23, 1, 1, 0x7F7FFFFF, 0xFFFFFF, 104},    /* (2-2^-23) 2^127 */
    {"float16", NX_FLOAT16, 5, 10, 1, 1, 0x7BFF, 0x7FF, 5},             /* 65504 */
    {"bfloat16", NX_BFLOAT16, 8, 7, 1, 1, 0x7F7F, 0xFF, 120},           /* (2-2^-7) 2^127 */
    {"float8_e4m3fn", NX_FLOAT8_E4M3FN, 4, 3, 0, 1, 0x7E, 7, 6},        /* 448 */
    {"float8_e5m2", NX_FLOAT8_E5M2, 5, 2, 1, 1, 0x7B, 7, 13},           /* 57344 */
    {"float4_e2m1fn", NX_FLOAT4_E2M1FN, 2, 1, 0, 0, 0x7, 3, 1},         /* 6 */
};

static int width(const fmt_t *F) { return 1 + F->eb + F->fb; }
static int bias_of(const fmt_t *F) { return (1 << (F->eb - 1)) - 1; }
static uint64_t inf_bits(const fmt_t *F) { return (((uint64_t)1 << F->eb) - 1) << F->fb; }
/* The unbiased exponent of the least subnormal and of the largest finite value's top bit. */
static long kmin_of(const fmt_t *F) { return 1 - bias_of(F) - F->fb; }
static long kmax_of(const fmt_t *F) { return F->max_exp + F->fb; }

static mpfr_t Y[NFMT];   /* the oracle's result, at each format's precision */
static mpfr_t MAXV[NFMT]; /* the largest finite value */
static mpfr_t Z, V, W, M; /* scratch, 128 bits */
static mpfr_t D53;        /* a double's precision */

static void oracle_init(void) {
  for (int i = 0; i < NFMT; i++) {
    mpfr_init2(Y[i], FMTS[i].fb + 1);
    mpfr_init2(MAXV[i], 64);
    mpfr_set_ui_2exp(MAXV[i], FMTS[i].max_sig, FMTS[i].max_exp, MPFR_RNDN);
  }
  mpfr_inits2(128, Z, V, W, M, (mpfr_ptr)0);
  mpfr_init2(D53, 53);
}

static void oracle_clear(void) {
  for (int i = 0; i < NFMT; i++) mpfr_clears(Y[i], MAXV[i], (mpfr_ptr)0);
  mpfr_clears(Z, V, W, M, D53, (mpfr_ptr)0);
  mpfr_free_cache();
}

static long oracle_failures; /* the oracle's own consistency checks */

/* The bits a store of the double with bits u into format fi holds, by the rule. */
static uint64_t oracle_store(int fi, uint64_t u) {
  const fmt_t *F = &FMTS[fi];
  int w = width(F), bias = bias_of(F);
  uint64_t sbit = (u >> 63) << (w - 1), a = u & ~SIGN64;
  if (a > EXP64) { /* NaN */
    if (!F->nan) return 0;                                 /* float4_e2m1fn: +0 */
    if (!F->inf) return sbit | (((uint64_t)1 << (w - 1)) - 1); /* S.1111.111 */
    return sbit | inf_bits(F) | ((a & FRAC64) >> (52 - F->fb)) | ((uint64_t)1 << (F->fb - 1));
  }
  if (a == EXP64) return sbit | (F->inf ? inf_bits(F) : F->max_bits);
  if (a == 0) return sbit;

  mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  /* MPFR's exponent e means [2^(e-1), 2^e): the least subnormal 2^kmin has
     e = kmin + 1, the emin mpfr_subnormalize needs. Above: unbounded. */
  mpfr_set_emin(kmin_of(F) + 1);
  mpfr_set_emax(4096);
  int t = mpfr_set_d(Y[fi], dbl_of(a), MPFR_RNDN);
  mpfr_subnormalize(Y[fi], t, MPFR_RNDN);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);

  if (mpfr_zero_p(Y[fi])) return sbit;
  if (mpfr_cmp(Y[fi], MAXV[fi]) > 0) return sbit | (F->inf ? inf_bits(F) : F->max_bits);
  long k = (long)mpfr_get_exp(Y[fi]) - 1; /* the value is in [2^k, 2^(k+1)) */
  uint64_t r;
  if (k >= 1 - bias) { /* normal */
    mpfr_mul_2si(Z, Y[fi], F->fb - k, MPFR_RNDN);
    unsigned long sig = mpfr_get_ui(Z, MPFR_RNDN);
    if (!mpfr_integer_p(Z) || sig >> F->fb != 1) oracle_failures++;
    r = ((uint64_t)(k + bias) << F->fb) | (sig & (((uint64_t)1 << F->fb) - 1));
  } else { /* subnormal */
    mpfr_mul_2si(Z, Y[fi], -kmin_of(F), MPFR_RNDN);
    unsigned long sig = mpfr_get_ui(Z, MPFR_RNDN);
    if (!mpfr_integer_p(Z) || sig >> F->fb != 0) oracle_failures++;
    r = sig;
  }
  return sbit | r;
}

/* The double with the value of float32 bits v, the oracle's input for a
   float32 source. A NaN is widened by bits (its sign, its fraction at the
   top): a hardware conversion would set its quiet bit. */
static uint64_t f64bits_of_f32bits(uint32_t v) {
  if ((v & 0x7FFFFFFFu) > 0x7F800000u)
    return ((uint64_t)(v >> 31) << 63) | EXP64 | ((uint64_t)(v & 0x7FFFFFu) << 29);
  return bits_of((double)flt_of(v));
}

enum { FINITE, INFINITE, NOTANUMBER };

/* The exact value of code b of format fi into v (64 bits, exact); its class. */
static int decode(int fi, uint64_t b, mpfr_t v) {
  const fmt_t *F = &FMTS[fi];
  int w = width(F), bias = bias_of(F);
  uint64_t emask = ((uint64_t)1 << F->eb) - 1, fmask = ((uint64_t)1 << F->fb) - 1;
  uint64_t e = (b >> F->fb) & emask, f = b & fmask, s = (b >> (w - 1)) & 1;
  if (F->inf && e == emask) {
    mpfr_set_inf(v, s ? -1 : 1);
    return f ? NOTANUMBER : INFINITE;
  }
  if (F->nan && !F->inf && e == emask && f == fmask) return NOTANUMBER;
  if (e == 0)
    mpfr_set_ui_2exp(v, (unsigned long)f, kmin_of(F), MPFR_RNDN);
  else
    mpfr_set_ui_2exp(v, (unsigned long)(f | (fmask + 1)), (long)e - bias - F->fb, MPFR_RNDN);
  if (s) mpfr_neg(v, v, MPFR_RNDN);
  return FINITE;
}

/* The double of finite code b (exact: the oracle checks it). */
static double value_of(int fi, uint64_t b) {
  decode(fi, b, V);
  double d = mpfr_get_d(V, MPFR_RNDN);
  if (mpfr_cmp_d(V, d) != 0) oracle_failures++;
  return d;
}

/* ---- Checks --------------------------------------------------------------- */

static void check_store(int fi, uint64_t u, const char *what) {
  const fmt_t *F = &FMTS[fi];
  uint64_t want = oracle_store(fi, u);
  uint64_t got = nx_dtype_store_bits(F->code, dbl_of(u));
  uint64_t got2 = nx_dtype_store_f64bits(F->code, u);
  CHECK(got == want && got2 == want, "%s store (%s): x=0x%016" PRIX64 " (%a) got 0x%" PRIX64 " (portable 0x%" PRIX64
        ") want 0x%" PRIX64, F->name, what, u, dbl_of(u), got, got2, want);
}

/* u, one double ulp either side, each with both signs. */
static void check_store_around(int fi, uint64_t u, const char *what) {
  uint64_t a = u & ~SIGN64;
  uint64_t xs[3] = {a, ulp_up(a), a ? ulp_down(a) : 0};
  for (int i = 0; i < 3; i++) {
    check_store(fi, xs[i], what);
    check_store(fi, xs[i] ^ SIGN64, what);
  }
}

static void check_load(int fi, uint64_t b) {
  const fmt_t *F = &FMTS[fi];
  int cls = decode(fi, b, V);
  int s = (int)((b >> (width(F) - 1)) & 1);
  double got = nx_dtype_load_bits(F->code, b);
  uint64_t gb = bits_of(got), gb2 = nx_dtype_load_f64bits(F->code, b);
  if (cls == NOTANUMBER) {
    CHECK(is_nan_bits(gb) && (int)(gb >> 63) == s && is_nan_bits(gb2) && (int)(gb2 >> 63) == s,
          "%s load 0x%" PRIX64 ": got 0x%016" PRIX64 " (portable 0x%016" PRIX64 "), want a NaN of sign %d", F->name, b,
          gb, gb2, s);
    return;
  }
  double want = mpfr_get_d(V, MPFR_RNDN);
  if (mpfr_cmp_d(V, want) != 0) oracle_failures++;
  CHECK(gb == bits_of(want) && gb2 == bits_of(want),
        "%s load 0x%" PRIX64 ": got 0x%016" PRIX64 " (%a, portable 0x%016" PRIX64 ") want 0x%016" PRIX64 " (%a)",
        F->name, b, gb, got, gb2, bits_of(want), want);
}

/* The f32-direct conversion of format fi on float32 bits v. */
static uint64_t store_f32(int fi, uint32_t v) {
  switch (fi) {
  case F16: return nx_store_float16_f32(v);
  case BF16: return nx_store_bfloat16_f32(v);
  case E4M3: return nx_store_float8_e4m3fn_f32(v);
  case E5M2: return nx_store_float8_e5m2_f32(v);
  case E2M1: return nx_store_float4_e2m1fn_f32(v);
  }
  return ~(uint64_t)0;
}

static void check_store_f32(int fi, uint32_t v, const char *what) {
  uint64_t want = oracle_store(fi, f64bits_of_f32bits(v));
  uint64_t got = store_f32(fi, v);
  CHECK(got == want, "%s store_f32 (%s): x=0x%08" PRIX32 " (%a) got 0x%" PRIX64 " want 0x%" PRIX64, FMTS[fi].name,
        what, v, (double)flt_of(v), got, want);
}

/* ---- Timing and counts ---------------------------------------------------- */

static clock_t t_part;
static long c_part;
static void part_begin(void) {
  t_part = clock();
  c_part = check_count;
}
static void part_end(const char *what) {
  printf("  %-44s %9ld checks %6.2f s\n", what, check_count - c_part, (double)(clock() - t_part) / CLOCKS_PER_SEC);
  fflush(stdout);
}

/* ---- The oracle's own sanity: dtypes.md §5 and hardware float32 ----------- */

/* Rows of dtypes.md §5 and §1 (f16 bf16 e4m3fn e5m2 e2m1fn), with the other
   formats' bits worked out by hand: the oracle must give them all. */
static void oracle_sanity(void) {
  static const struct {
    double x;
    uint64_t u; /* a bit pattern, where x is 0 and u is not */
    uint16_t want[5];
  } H[] = {
      {-0.0, 0, {0x8000, 0x8000, 0x80, 0x80, 0x8}},
      {0x1.ffcp+15, 0, {0x7BFF, 0x4780, 0x7E, 0x7C, 0x7}},
      {0x1p-24, 0, {0x0001, 0x3380, 0x00, 0x00, 0x0}},
      {0x1p-25, 0, {0x0000, 0x3300, 0x00, 0x00, 0x0}},
      {0x1.0000000001p-25, 0, {0x0001, 0x3300, 0x00, 0x00, 0x0}},
      {0x1p-134, 0, {0x0000, 0x0000, 0x00, 0x00, 0x0}},
      {0x1.0000000001p-134, 0, {0x0000, 0x0001, 0x00, 0x00, 0x0}},
      {0x1.0000000001p-10, 0, {0x1400, 0x3A80, 0x01, 0x14, 0x0}},
      {0x1.0000000001p-17, 0, {0x0080, 0x3700, 0x00, 0x01, 0x0}},
      {0x1.0000000001p-2, 0, {0x3400, 0x3E80, 0x28, 0x34, 0x1}},
      {0x1.8p-24, 0, {0x0002, 0x33C0, 0x00, 0x00, 0x0}},
      {0x1.ffcp-15, 0, {0x0400, 0x3880, 0x00, 0x04, 0x0}},
      {0x1.0020000001p+0, 0, {0x3C01, 0x3F80, 0x38, 0x3C, 0x2}},
      {0x1.006p+0, 0, {0x3C02, 0x3F80, 0x38, 0x3C, 0x2}},
      {0x1.ffep+15, 0, {0x7C00, 0x4780, 0x7E, 0x7C, 0x7}},
      {0x1.ffdfffffffffcp+15, 0, {0x7BFF, 0x4780, 0x7E, 0x7C, 0x7}},
      {0x1.fefffffffffep+127, 0, {0x7C00, 0x7F7F, 0x7E, 0x7C, 0x7}},
      {0x1.ffp+127, 0, {0x7C00, 0x7F80, 0x7E, 0x7C, 0x7}},
      {0x1.dfffffffffcp+15, 0, {0x7B80, 0x4770, 0x7E, 0x7B, 0x7}},
      {0x1.999999999999ap-4, 0, {0x2E66, 0x3DCD, 0x1D, 0x2E, 0x0}},
      {0x1.921fb54442d18p+1, 0, {0x4248, 0x4049, 0x45, 0x42, 0x5}},
      {-0x1.56e1fc2f8f359p-997, 0, {0x8000, 0x8000, 0x80, 0x80, 0x8}},
      {0, 0xFFF0000000000000ull, {0xFC00, 0xFF80, 0xFE, 0xFC, 0xF}},
      {0, 0x7FF8000000000000ull, {0x7E00, 0x7FC0, 0x7F, 0x7E, 0x0}},
      {0, 0xFFF8000000000000ull, {0xFE00, 0xFFC0, 0xFF, 0xFE, 0x0}},
      {0, 0x7FF0000000000001ull, {0x7E00, 0x7FC0, 0x7F, 0x7E, 0x0}},
      {0, 0x7FF4000000000000ull, {0x7F00, 0x7FE0, 0x7F, 0x7F, 0x0}},
  };
  for (size_t i = 0; i < sizeof H / sizeof H[0]; i++) {
    uint64_t u = H[i].u ? H[i].u : bits_of(H[i].x);
    for (int j = 0; j < 5; j++) {
      uint64_t o = oracle_store(j + 1, u);
      CHECK(o == H[i].want[j], "oracle %s: x=0x%016" PRIX64 " (%a) oracle 0x%" PRIX64 " table 0x%X",
            FMTS[j + 1].name, u, dbl_of(u), o, H[i].want[j]);
    }
  }
  /* float32: the oracle against the CPU's own conversion (default environment:
     nearest-even, subnormals kept), on random doubles near float32's range. */
  for (int i = 0; i < 200000; i++) {
    uint64_t u = ((uint64_t)rnd_range(1023 - 152, 1023 + 130) << 52) | (rnd64() & FRAC64) | (rnd64() & SIGN64);
    if (i & 1) u = (u & ~(uint64_t)0x1FFFFFFF) | ((uint64_t)1 << 28) | (rnd64() & 1); /* near a float32 tie */
    uint64_t o = oracle_store(F32, u);
    uint32_t hw = bits_of_f((float)dbl_of(u));
    CHECK(o == hw, "oracle float32 vs CPU: x=0x%016" PRIX64 " oracle 0x%" PRIX64 " cpu 0x%08" PRIX32, u, o, hw);
  }
}

/* ---- (a) loads ------------------------------------------------------------ */

/* float32's boundary codes: for every exponent, the first and last fractions
   and those around the middle, both signs. */
static const uint32_t F32_FRACS[] = {0, 1, 2, 3, 0x3FFFFF, 0x400000, 0x400001, 0x7FFFFD, 0x7FFFFE, 0x7FFFFF};
#define NF32_FRACS (sizeof F32_FRACS / sizeof F32_FRACS[0])

static void part_loads(void) {
  for (int fi = F16; fi < NFMT; fi++) {
    part_begin();
    uint64_t n = (uint64_t)1 << width(&FMTS[fi]);
    for (uint64_t b = 0; b < n; b++) check_load(fi, b);
    char what[64];
    snprintf(what, sizeof what, "(a) %s loads, every code", FMTS[fi].name);
    part_end(what);
  }
  part_begin();
  for (uint32_t e = 0; e < 256; e++)
    for (size_t j = 0; j < NF32_FRACS; j++)
      for (uint32_t s = 0; s < 2; s++) check_load(F32, (s << 31) | (e << 23) | F32_FRACS[j]);
  for (int i = 0; i < 1000000; i++) check_load(F32, (uint32_t)rnd64());
  part_end("(a) float32 loads, boundary codes + 10^6 random");
}

/* ---- (b) stores ----------------------------------------------------------- */

/* M = the midpoint between finite nonnegative code c and the next code up;
   for the largest finite value, max + half its ulp (the ulp below it: no
   format's largest value starts a binade). Exact at 128 bits. */
static void midpoint_above(int fi, uint64_t c) {
  decode(fi, c, W);
  if (c < FMTS[fi].max_bits) {
    decode(fi, c + 1, V);
    mpfr_add(M, W, V, MPFR_RNDN);
    mpfr_div_2ui(M, M, 1, MPFR_RNDN);
  } else {
    decode(fi, c - 1, V);
    mpfr_sub(M, W, V, MPFR_RNDN);
    mpfr_div_2ui(M, M, 1, MPFR_RNDN);
    mpfr_add(M, M, W, MPFR_RNDN);
  }
}

/* Store checks for the value of finite nonnegative code c, and for the
   midpoint between it and the next code up (past the largest finite value:
   max + half its ulp), each one double ulp either side, both signs. */
static void values_and_midpoint(int fi, uint64_t c) {
  check_store_around(fi, bits_of(value_of(fi, c)), "value");
  midpoint_above(fi, c);
  double m = mpfr_get_d(M, MPFR_RNDN);
  if (mpfr_cmp_d(M, m) != 0) oracle_failures++;
  check_store_around(fi, bits_of(m), c < FMTS[fi].max_bits ? "midpoint" : "midpoint past max");
}

/* A random double: a random bit pattern, or a random fraction with a random
   exponent around format fi's range, or one of those put on a tie of the
   format's normal range and moved by at most 2 double ulps. */
static uint64_t random_double(int fi) {
  const fmt_t *F = &FMTS[fi];
  uint64_t r = rnd64();
  switch (r % 10) {
  case 0: case 1: case 2: case 3: return rnd64();
  default: {
    long k = rnd_range(kmin_of(F) - 3, kmax_of(F) + 3);
    uint64_t u = ((uint64_t)(k + 1023) << 52) | (rnd64() & FRAC64) | (rnd64() & SIGN64);
    if (r % 10 >= 8) {
      int low = 52 - F->fb - 1; /* the bits below the tie bit */
      u = (u & ~(((uint64_t)1 << (low + 1)) - 1)) | ((uint64_t)1 << low);
      u += (uint64_t)rnd_range(-2, 2);
    }
    return u;
  }
  }
}

static void part_stores(void) {
  for (int fi = F16; fi < NFMT; fi++) {
    const fmt_t *F = &FMTS[fi];
    char what[80];
    part_begin();
    for (uint64_t c = 0; c <= F->max_bits; c++) values_and_midpoint(fi, c);
    snprintf(what, sizeof what, "(b) %s values + midpoints, +-ulp, +-", F->name);
    part_end(what);
  }
  part_begin();
  for (uint32_t e = 0; e < 255; e++)
    for (size_t j = 0; j < NF32_FRACS; j++) values_and_midpoint(F32, (e << 23) | F32_FRACS[j]);
  for (int i = 0; i < 100000; i++) {
    uint32_t c = (uint32_t)rnd64() & 0x7FFFFFFFu;
    if (c <= 0x7F7FFFFFu) values_and_midpoint(F32, c);
  }
  part_end("(b) float32 values + midpoints (sample)");

  /* The specials and the edges of the double range, in every format. */
  part_begin();
  static const uint64_t special[] = {0, 1, 2, FRAC64, FRAC64 + 1, 0x7FEFFFFFFFFFFFFFull, EXP64,
                                     0x3FF0000000000000ull, 0x0010000000000000ull, 0x7FE0000000000000ull};
  for (int fi = F32; fi < NFMT; fi++)
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) {
      check_store(fi, special[i], "special");
      check_store(fi, special[i] | SIGN64, "special");
    }
  part_end("(b) specials");

  for (int fi = F32; fi < NFMT; fi++) {
    char what[80];
    part_begin();
    for (int i = 0; i < 1000000; i++) check_store(fi, random_double(fi), "random");
    snprintf(what, sizeof what, "(b) %s 10^6 random doubles", FMTS[fi].name);
    part_end(what);
  }

  part_begin();
  for (int fi = F32; fi < NFMT; fi++)
    for (int i = 0; i < 20000; i++) {
      uint64_t f = rnd64() & FRAC64;
      if (i & 1) f >>= rnd_range(0, 52); /* top payload bits zero: signalling, low payload */
      if (f == 0) f = 1;
      check_store(fi, (rnd64() & SIGN64) | EXP64 | f, "NaN");
    }
  part_end("(b) NaNs, 2x10^4 per format");
}

/* ---- (c) double rounding through float32 ---------------------------------- */

/* The gap between float32 neighbours at the magnitude of M (positive). */
static long ulp32_exp(void) {
  long k = (long)mpfr_get_exp(M) - 1;
  return k - 23 < -149 ? -149 : k - 23;
}

static void part_traps(void) {
  /* The examples with their bits, and that the trip would give other bits. */
  static const struct {
    int fi;
    double x;
    uint64_t want;
  } ex[] = {
      {F16, 1 + 0x1p-11 + 0x1p-40, 0x3C01},
      {F16, 65520 - 0x1p-35, 0x7BFF},
      {F16, 0x1.0000000001p-25, 0x0001},
      {BF16, 0x1.fefffffffffep+127, 0x7F7F},
      {BF16, 0x1.0100000001p+0, 0x3F81},
      {BF16, 0x1.0000000001p-134, 0x0001},
      {E5M2, 61440 - 0x1p-27, 0x7B},
      {E5M2, 0x1.2000000001p+0, 0x3D},
      {E4M3, 1 + 0x1p-4 + 0x1p-30, 0x39},
      {E4M3, 0x1.0000000001p-10, 0x01},
      {E2M1, 0x1.4000000001p+0, 0x3},
      {E2M1, 0x1.0000000001p-2, 0x1},
  };
  part_begin();
  for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
    int fi = ex[i].fi;
    uint64_t u = bits_of(ex[i].x);
    uint64_t got = nx_dtype_store_bits(FMTS[fi].code, ex[i].x);
    uint64_t o = oracle_store(fi, u);
    uint64_t via = oracle_store(fi, bits_of((double)(float)ex[i].x));
    CHECK(o == ex[i].want, "oracle %s trap x=%a: oracle 0x%" PRIX64 " want 0x%" PRIX64, FMTS[fi].name, ex[i].x, o,
          ex[i].want);
    CHECK(via != ex[i].want, "%s trap x=%a is no trap: via float32 0x%" PRIX64, FMTS[fi].name, ex[i].x, via);
    CHECK(got == ex[i].want, "%s trap x=0x%016" PRIX64 " (%a): got 0x%" PRIX64 " want 0x%" PRIX64 " (via float32 0x%" PRIX64
          ")", FMTS[fi].name, u, ex[i].x, got, ex[i].want, via);
  }
  part_end("(c) double-rounding examples");

  /* Every midpoint of every format narrower than float32 (and the one past
     the largest finite value), moved a quarter of float32's gap either way:
     such an x goes to the midpoint in float32, and half of them cross back. */
  for (int fi = F16; fi < NFMT; fi++) {
    const fmt_t *F = &FMTS[fi];
    long traps = 0;
    part_begin();
    for (uint64_t c = 0; c <= F->max_bits; c++) {
      midpoint_above(fi, c);
      long q = ulp32_exp() - 2;
      for (int s = -1; s <= 1; s += 2) {
        mpfr_set_ui_2exp(V, 1, q, MPFR_RNDN);
        if (s < 0) mpfr_sub(Z, M, V, MPFR_RNDN); else mpfr_add(Z, M, V, MPFR_RNDN);
        double x = mpfr_get_d(Z, MPFR_RNDN);
        if (mpfr_cmp_d(Z, x) != 0 || (mpfr_cmp_d(M, (double)(float)x) != 0)) oracle_failures++;
        for (int neg = 0; neg < 2; neg++) {
          uint64_t u = bits_of(x) ^ (neg ? SIGN64 : 0);
          uint64_t want = oracle_store(fi, u);
          uint64_t via = oracle_store(fi, bits_of((double)(float)dbl_of(u)));
          traps += via != want;
          uint64_t got = nx_dtype_store_bits(F->code, dbl_of(u));
          CHECK(got == want, "%s trap x=0x%016" PRIX64 " (%a): got 0x%" PRIX64 " want 0x%" PRIX64 " (via float32 0x%" PRIX64
                ")", F->name, u, dbl_of(u), got, want, via);
        }
      }
    }
    /* Of the two x around each midpoint (each sign), the one on the side
       ties-to-even does not pick crosses back: one trap per midpoint and
       sign, but past the largest finite value of e4m3fn and e2m1fn, where
       both sides saturate. */
    CHECK(traps >= (long)F->max_bits * 2, "%s: only %ld of the inputs are traps", F->name, traps);
    char what[96];
    snprintf(what, sizeof what, "(c) %s midpoints +-f32 gap/4 (%ld traps)", F->name, traps);
    part_end(what);
  }
}

/* ---- (d) float32 direct conversions --------------------------------------- */

static void part_f32(void) {
  enum { N32 = 1000000 };
  static uint32_t rnd32[N32]; /* the same patterns for every format */
  for (int i = 0; i < N32; i++) rnd32[i] = (uint32_t)rnd64();
  for (int fi = F16; fi < NFMT; fi++) {
    const fmt_t *F = &FMTS[fi];
    part_begin();
    for (int i = 0; i < N32; i++) check_store_f32(fi, rnd32[i], "random");
    for (int i = 0; i < 100000; i++) { /* random around the format's range */
      long k = rnd_range(kmin_of(F) - 3, kmax_of(F) + 3);
      if (k < -149) k = -149;
      float f = (float)dbl_of(((uint64_t)(k + 1023) << 52) | (rnd64() & FRAC64));
      check_store_f32(fi, bits_of_f(f) | ((uint32_t)rnd64() & 0x80000000u), "random in range");
    }
    /* Every float32 midpoint of the format, +- one float32 ulp, both signs;
       and the values themselves. */
    for (uint64_t c = 0; c <= F->max_bits; c++) {
      midpoint_above(fi, c);
      float m = mpfr_get_flt(M, MPFR_RNDN), v = mpfr_get_flt(W, MPFR_RNDN);
      if (mpfr_cmp_d(M, (double)m) != 0 || mpfr_cmp_d(W, (double)v) != 0) oracle_failures++;
      uint32_t ms[2] = {bits_of_f(m), bits_of_f(v)};
      for (int j = 0; j < 2; j++) {
        uint32_t xs[3] = {ms[j], ms[j] + 1, ms[j] ? ms[j] - 1 : 0x80000001u};
        for (int i = 0; i < 3; i++) {
          check_store_f32(fi, xs[i], j ? "value" : "midpoint");
          check_store_f32(fi, xs[i] ^ 0x80000000u, j ? "value" : "midpoint");
        }
      }
    }
    static const uint32_t sp[] = {0x7F800000u, 0x7F800001u, 0x7FC00000u, 0x7FA00000u, 0x7FFFFFFFu, 0x7F7FFFFFu, 1u};
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) {
      check_store_f32(fi, sp[i], "special");
      check_store_f32(fi, sp[i] | 0x80000000u, "special");
    }
    char what[80];
    snprintf(what, sizeof what, "(d) %s from float32", F->name);
    part_end(what);
  }
}

/* ---- Integers, booleans, complex ------------------------------------------- */

typedef struct {
  const char *name;
  int code, bits, is_signed;
} int_t;
static const int_t INTS[] = {
    {"int64", NX_INT64, 64, 1},  {"uint64", NX_UINT64, 64, 0}, {"int32", NX_INT32, 32, 1}, {"uint32", NX_UINT32, 32, 0},
    {"int16", NX_INT16, 16, 1},  {"uint16", NX_UINT16, 16, 0}, {"int8", NX_INT8, 8, 1},    {"uint8", NX_UINT8, 8, 0},
    {"int4", NX_INT4, 4, 1},     {"uint4", NX_UINT4, 4, 0},
};
#define NINTS (sizeof INTS / sizeof INTS[0])

/* Truncate toward zero with MPFR, saturate, NaN to 0: the element's bits. */
static uint64_t oracle_int(const int_t *I, uint64_t u) {
  uint64_t mask = I->bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << I->bits) - 1;
  mpfr_set_d(Z, dbl_of(u), MPFR_RNDN);
  if (mpfr_nan_p(Z)) return 0;
  mpfr_trunc(Z, Z);
  if (I->is_signed) {
    intmax_t v;
    if (mpfr_cmp_si_2exp(Z, -1, I->bits - 1) < 0) /* below -2^(bits-1) */
      v = I->bits == 64 ? INT64_MIN : -((intmax_t)1 << (I->bits - 1));
    else if (mpfr_cmp_ui_2exp(Z, 1, I->bits - 1) >= 0) /* from 2^(bits-1) */
      v = I->bits == 64 ? INT64_MAX : ((intmax_t)1 << (I->bits - 1)) - 1;
    else
      v = mpfr_get_sj(Z, MPFR_RNDZ);
    return (uint64_t)v & mask;
  }
  if (mpfr_sgn(Z) < 0) return 0;
  if (mpfr_cmp_ui_2exp(Z, 1, I->bits) >= 0) return mask;
  return (uint64_t)mpfr_get_uj(Z, MPFR_RNDZ);
}

static void check_int(const int_t *I, uint64_t u, const char *what) {
  uint64_t want = oracle_int(I, u);
  uint64_t got = nx_dtype_store_bits(I->code, dbl_of(u)), got2 = nx_dtype_store_f64bits(I->code, u);
  CHECK(got == want && got2 == want, "%s store (%s): x=0x%016" PRIX64 " (%a) got 0x%" PRIX64 " (portable 0x%" PRIX64
        ") want 0x%" PRIX64, I->name, what, u, dbl_of(u), got, got2, want);
}

static void part_ints(void) {
  part_begin();
  for (size_t ii = 0; ii < NINTS; ii++) {
    const int_t *I = &INTS[ii];
    static const double sp[] = {0.0, 0.5, 0.9999999999999999, 1.0, 1.5, 2.5, 7.9, 8.9, 15.5, 16.0, 1e300, 0x1p-1074,
                                0x1p-1022, 0x1.fffffffffffffp1023};
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) {
      check_int(I, bits_of(sp[i]), "special");
      check_int(I, bits_of(sp[i]) ^ SIGN64, "special");
    }
    static const uint64_t sb[] = {EXP64, EXP64 | SIGN64, 0x7FF8000000000000ull, 0xFFF8000000000000ull,
                                  0x7FF0000000000001ull, 0xFFF0000000000001ull, 0x7FFFFFFFFFFFFFFFull};
    for (size_t i = 0; i < sizeof sb / sizeof sb[0]; i++) check_int(I, sb[i], "special");
    for (int k = 0; k <= 66; k++) { /* 2^k and around it */
      uint64_t p = (uint64_t)(1023 + k) << 52;
      double d = dbl_of(p);
      uint64_t xs[5] = {p, p + 1, p - 1, bits_of(d + 1), bits_of(d - 0.5)};
      for (int i = 0; i < 5; i++) {
        check_int(I, xs[i], "2^k");
        check_int(I, xs[i] ^ SIGN64, "2^k");
      }
    }
  }
  part_end("integers: specials and powers of two");
  part_begin();
  for (size_t ii = 0; ii < NINTS; ii++) {
    const int_t *I = &INTS[ii];
    for (int i = 0; i < 100000; i++) {
      uint64_t u = rnd64();
      if (i % 4 != 0) {
        long k = rnd_range(-2, I->bits + 2);
        u = ((uint64_t)(k + 1023) << 52) | (rnd64() & FRAC64) | (rnd64() & SIGN64);
        if (i % 4 == 3) u &= ~(uint64_t)0 << rnd_range(0, 52); /* integers and halves */
      }
      check_int(I, u, "random");
    }
  }
  part_end("integers: 10^5 random doubles each");

  part_begin();
  static const int bools[2] = {NX_BOOL, NX_BIT};
  for (int bi = 0; bi < 2; bi++)
    for (int i = 0; i < 100000; i++) {
      uint64_t u = rnd64();
      if (i < 16) u = (uint64_t[]){0, SIGN64, 1, SIGN64 | 1, EXP64, EXP64 | SIGN64, 0x7FF8000000000000ull,
                                   0xFFF8000000000000ull, 0x7FF0000000000001ull, 0x3FF0000000000000ull,
                                   0xBFF0000000000000ull, 0x3FE0000000000000ull, 0xFFFFFFFFFFFFFFFFull, FRAC64,
                                   0x7FEFFFFFFFFFFFFFull, 0x0010000000000000ull}[i];
      else if (i % 3 == 0) u &= SIGN64 | (rnd64() & 1); /* zeros and the least subnormal */
      mpfr_set_d(Z, dbl_of(u), MPFR_RNDN);
      uint64_t want = mpfr_nan_p(Z) || !mpfr_zero_p(Z);
      uint64_t got = nx_dtype_store_bits(bools[bi], dbl_of(u)), got2 = nx_dtype_store_f64bits(bools[bi], u);
      CHECK(got == want && got2 == want, "%s store: x=0x%016" PRIX64 " got %" PRIu64 " (portable %" PRIu64 ") want %" PRIu64,
            bi ? "bit" : "bool", u, got, got2, want);
    }
  part_end("bool, bit: specials + 10^5 random each");

  /* complex64 stores its real part as float32; complex128 and float64 keep
     the double, a NaN made quiet with its sign and payload kept. */
  part_begin();
  for (int i = 0; i < 200000; i++) {
    uint64_t u = i < 20000 ? (rnd64() | EXP64) : i % 2 ? rnd64() : random_double(F32);
    uint64_t want32 = oracle_store(F32, u);
    uint64_t got = nx_dtype_store_bits(NX_COMPLEX64, dbl_of(u));
    CHECK(got == want32, "complex64 store: x=0x%016" PRIX64 " got 0x%" PRIX64 " want 0x%" PRIX64, u, got, want32);
    uint64_t want64 = u;
    if (is_nan_bits(u)) want64 = u | ((uint64_t)1 << 51);
    else {
      mpfr_set_d(D53, dbl_of(u), MPFR_RNDN);
      want64 = bits_of(mpfr_get_d(D53, MPFR_RNDN));
    }
    uint64_t g1 = nx_dtype_store_bits(NX_COMPLEX128, dbl_of(u)), g2 = nx_dtype_store_bits(NX_FLOAT64, dbl_of(u));
    CHECK(g1 == want64 && g2 == want64, "complex128/float64 store: x=0x%016" PRIX64 " got 0x%" PRIX64 "/0x%" PRIX64
          " want 0x%" PRIX64, u, g1, g2, want64);
  }
  part_end("complex64, complex128, float64: 2x10^5");
}

int main(void) {
  clock_t t0 = clock();
  oracle_init();
  part_begin();
  oracle_sanity();
  part_end("oracle vs dtypes.md and the CPU's float32");
  part_loads();
  part_stores();
  part_traps();
  part_f32();
  part_ints();
  CHECK(oracle_failures == 0, "the oracle's own consistency checks failed %ld times", oracle_failures);
  printf("total %.2f s\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
  oracle_clear();
  return check_done();
}
