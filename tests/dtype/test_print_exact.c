/* SPDX-License-Identifier: Apache-2.0 */
/* pp_value's float text against an exact reference written with GMP.

   The reference knows nothing of the code under test: it decodes every code's
   value from its bits (sign, exponent field, fraction), builds the value's
   neighbours and the round-trip interval exactly as integers, searches the
   fewest significant digits n for which some n-digit decimal lies in the
   interval, takes the nearest of those (ties to the even last digit), and
   writes the text by the rule (positional iff 1e-4 <= |v| < 1e16, decided on
   the value; else d.ddde+XX with at least two exponent digits). The text of
   nx_dtype_format_value must be that text, byte for byte, and must parse back
   (MPFR at the format's precision, with subnormals) to the same value.

   Covered: every code of float16, bfloat16, float8_e4m3fn, float8_e5m2 and
   float4_e2m1fn; random float32 and float64 bit patterns (a fixed-seed
   splitmix64) over the whole exponent range; special float32 and float64
   values (powers of two, powers of ten and their neighbours, the edges of the
   positional range, subnormal and largest values, integers). A last section
   includes shortest.c itself and checks its internals: the fixed-point
   logarithms over q in [-1200, 1100] and rop / exact_rop against GMP.

   Built twice: as test_print_exact against the library, and, with
   NX_PRINT_EXACT_PATH defined, as test_print_exact_path against the library's
   sources with shortest.c built with NX_TEST_FORCE_EXACT (print_exact_path.cmake),
   so the exact big-number fallback answers every value; that build checks a
   smaller random sample. */
#include <stdint.h> /* before mpfr.h, for its intmax_t functions */
#include <stdio.h>
#include <gmp.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nx_dtype.h"
#include "../check.h"
#include "../common.h"

/* The code under test's internals, for the last section. Its one external
   function is renamed, so the library's own nx__shortest is the one print.c
   calls (and, in the exact-path build, the one with the fallback forced). */
#define nx__shortest nx_test_copy_of_shortest
#include "../../src/dtype/shortest.c"
#undef nx__shortest

/* Random sample sizes. The plain build checks 10^6 float32 and 10^6 float64
   patterns (the whole test takes about 5 s in a RelWithDebInfo build, 16 s
   under ASan). The exact-path build checks 10^5 of each: the forced fallback
   is a long division for each of the three interval points of each value
   (2.5 s in all, 24 s under ASan). */
#ifdef NX_PRINT_EXACT_PATH
#define N_RANDOM_F32 100000
#define N_RANDOM_F64 100000
#define N_ROP_EXACT 20000
#else
#define N_RANDOM_F32 1000000
#define N_RANDOM_F64 1000000
#define N_ROP_EXACT 50000
#endif

/* ---- Formats, decoded from the bits by this file ------------------------ */

enum { SPECIAL_IEEE, SPECIAL_FN, SPECIAL_NONE };

typedef struct {
  int code;
  const char *name;
  int eb, fb;  /* exponent and fraction widths */
  int special; /* IEEE: the top exponent holds inf and NaN; FN: S.1111.111 is
                  NaN and nothing is infinite; NONE: every code is finite */
} fmt;

static const fmt F64 = {NX_FLOAT64, "float64", 11, 52, SPECIAL_IEEE};
static const fmt F32 = {NX_FLOAT32, "float32", 8, 23, SPECIAL_IEEE};
static const fmt F16 = {NX_FLOAT16, "float16", 5, 10, SPECIAL_IEEE};
static const fmt BF16 = {NX_BFLOAT16, "bfloat16", 8, 7, SPECIAL_IEEE};
static const fmt E4M3 = {NX_FLOAT8_E4M3FN, "float8_e4m3fn", 4, 3, SPECIAL_FN};
static const fmt E5M2 = {NX_FLOAT8_E5M2, "float8_e5m2", 5, 2, SPECIAL_IEEE};
static const fmt E2M1 = {NX_FLOAT4_E2M1FN, "float4_e2m1fn", 2, 1, SPECIAL_NONE};

enum { V_NAN, V_INF, V_ZERO, V_FINITE };

typedef struct {
  int kind, neg;
  uint64_t c; /* the integer significand, implicit bit included */
  int q;      /* value = c * 2^q */
  int bottom; /* the lower gap is half the upper one */
} decoded;

static decoded decode(const fmt *F, uint64_t bits) {
  decoded d;
  int w = F->eb + F->fb;
  uint64_t emax = ((uint64_t)1 << F->eb) - 1, fmax = ((uint64_t)1 << F->fb) - 1;
  uint64_t E = (bits >> F->fb) & emax, f = bits & fmax;
  int bias = (1 << (F->eb - 1)) - 1;
  d.neg = (int)((bits >> w) & 1);
  d.c = 0;
  d.q = 0;
  d.bottom = 0;
  if (F->special == SPECIAL_IEEE && E == emax) {
    d.kind = f ? V_NAN : V_INF;
    return d;
  }
  if (F->special == SPECIAL_FN && E == emax && f == fmax) {
    d.kind = V_NAN;
    return d;
  }
  if (E == 0 && f == 0) {
    d.kind = V_ZERO;
    return d;
  }
  d.kind = V_FINITE;
  if (E == 0) {
    d.c = f;
    d.q = 1 - bias - F->fb;
  } else {
    d.c = f | ((uint64_t)1 << F->fb);
    d.q = (int)E - bias - F->fb;
  }
  /* At the bottom of a binade the predecessor is in the binade below, at
     half the spacing, except at the least normal (E == 1), whose predecessor
     is the largest subnormal, at the same spacing. */
  d.bottom = E > 1 && f == 0;
  return d;
}

/* ---- Exact arithmetic --------------------------------------------------- */

#define MAX_POW 1400
static mpz_t P5[MAX_POW], P10[MAX_POW];

static void pow_tables(void) {
  mpz_init_set_ui(P5[0], 1);
  mpz_init_set_ui(P10[0], 1);
  for (int i = 1; i < MAX_POW; i++) {
    mpz_init(P5[i]);
    mpz_init(P10[i]);
    mpz_mul_ui(P5[i], P5[i - 1], 5);
    mpz_mul_ui(P10[i], P10[i - 1], 10);
  }
}

static void z_set_u64(mpz_t z, uint64_t x) {
  mpz_set_ui(z, (unsigned long)(x >> 32));
  mpz_mul_2exp(z, z, 32);
  mpz_add_ui(z, z, (unsigned long)(x & 0xFFFFFFFFu));
}

/* The reference's working state for one value: every point X * 2^m of the
   problem (m = q - 2, quarter steps) as the integer X * 2^m / 10^T, with
   T = min(m, 0), so that decimals d * 10^e with e >= T are integers too. */
static mpz_t Vi, Li, Hi, Df, R, Xf, Xc, Tmp;
static int Vlen, Vt, Incl;

static int inside(const mpz_t X) {
  int a = mpz_cmp(Li, X), b = mpz_cmp(X, Hi);
  return Incl ? (a <= 0 && b <= 0) : (a < 0 && b < 0);
}

/* The n-digit floor and ceiling of v: Df (the floor's digits), R (v's rest
   below them), Xf and Xc (the two as scaled integers). Whether either lies
   in the interval. Needs 1 <= n <= Vlen. */
static int candidates(int n) {
  int sh = Vlen - n;
  mpz_tdiv_qr(Df, R, Vi, P10[sh]);
  mpz_sub(Xf, Vi, R);
  if (mpz_sgn(R)) mpz_add(Xc, Xf, P10[sh]);
  else mpz_set(Xc, Xf);
  return inside(Xf) || inside(Xc);
}

static long ref_failures, n_ties, n_both;

/* The reference text of a finite nonzero d into out. `binary` searches n by
   bisection (the predicate is monotone: the n+1-digit floor and ceiling lie
   between the n-digit ones and v, and the interval is convex), else
   linearly from 1; both then confirm that n - 1 digits do not suffice. */
static void ref_finite(const decoded *d, char *out, int binary) {
  int m = d->q - 2;
  uint64_t V = 4 * d->c, H = V + 2, L = d->bottom ? V - 1 : V - 2;
  Vt = m < 0 ? m : 0;
  if (m < 0) {
    if (-m >= MAX_POW) abort();
    z_set_u64(Tmp, V); mpz_mul(Vi, Tmp, P5[-m]);
    z_set_u64(Tmp, H); mpz_mul(Hi, Tmp, P5[-m]);
    z_set_u64(Tmp, L); mpz_mul(Li, Tmp, P5[-m]);
  } else {
    z_set_u64(Vi, V); mpz_mul_2exp(Vi, Vi, (mp_bitcnt_t)m);
    z_set_u64(Hi, H); mpz_mul_2exp(Hi, Hi, (mp_bitcnt_t)m);
    z_set_u64(Li, L); mpz_mul_2exp(Li, Li, (mp_bitcnt_t)m);
  }
  Incl = (d->c & 1) == 0;
  /* Vi's exact number of decimal digits, and v's decimal exponent k:
     10^k <= v < 10^(k+1). */
  Vlen = (int)mpz_sizeinbase(Vi, 10);
  if (Vlen >= MAX_POW) abort();
  if (mpz_cmp(Vi, P10[Vlen - 1]) < 0) Vlen--;
  int k = Vlen - 1 + Vt;

  int n;
  if (binary) {
    int lo = 1, hi = Vlen < 20 ? Vlen : 20;
    if (!candidates(hi)) hi = Vlen; /* v itself has Vlen digits */
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      if (candidates(mid)) hi = mid;
      else lo = mid + 1;
    }
    n = lo;
  } else {
    for (n = 1; n < Vlen && !candidates(n); n++) {}
  }
  if (n > 1 && candidates(n - 1)) {
    ref_failures++;
    CHECK(0, "reference: %d digits are not the fewest (c=%llu q=%d)", n, (unsigned long long)d->c, d->q);
  }
  if (!candidates(n)) {
    ref_failures++;
    CHECK(0, "reference: no %d-digit candidate (c=%llu q=%d)", n, (unsigned long long)d->c, d->q);
  }
  int fin = inside(Xf), cin = inside(Xc), up;
  if (mpz_sgn(R) == 0) up = 0; /* v is itself an n-digit decimal */
  else if (fin && cin) {
    /* Nearest: compare v - floor = R with ceil - v = 10^sh - R. A tie goes to
       the even one of Df and Df + 1, the digits at v's n-digit exponent
       (Df + 1 = 10^n counts as even). */
    mpz_mul_2exp(Tmp, R, 1);
    int cmp = mpz_cmp(Tmp, P10[Vlen - n]);
    n_both++;
    n_ties += cmp == 0;
    up = cmp > 0 || (cmp == 0 && mpz_odd_p(Df));
  } else up = cin;
  if (up) mpz_add_ui(Df, Df, 1);
  int e = k - n + 1;
  /* The digits without trailing zeros. */
  char dig[64];
  mpz_get_str(dig, 10, Df);
  int nd = (int)strlen(dig);
  while (nd > 1 && dig[nd - 1] == '0') { nd--; e++; }
  dig[nd] = 0;

  char *p = out;
  if (d->neg) *p++ = '-';
  if (k >= -4 && k < 16) { /* 1e-4 <= |v| < 1e16, on the value */
    if (e >= 0) {
      memcpy(p, dig, (size_t)nd); p += nd;
      for (int i = 0; i < e; i++) *p++ = '0';
    } else if (nd + e > 0) {
      memcpy(p, dig, (size_t)(nd + e)); p += nd + e;
      *p++ = '.';
      memcpy(p, dig + nd + e, (size_t)(-e)); p += -e;
    } else {
      *p++ = '0'; *p++ = '.';
      for (int i = 0; i < -e - nd; i++) *p++ = '0';
      memcpy(p, dig, (size_t)nd); p += nd;
    }
    *p = 0;
  } else {
    int x = e + nd - 1;
    *p++ = dig[0];
    if (nd > 1) {
      *p++ = '.';
      memcpy(p, dig + 1, (size_t)(nd - 1)); p += nd - 1;
    }
    sprintf(p, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
  }
}

static void ref_text(const decoded *d, char *out, int binary) {
  switch (d->kind) {
  case V_NAN: strcpy(out, "nan"); return;
  case V_INF: strcpy(out, d->neg ? "-inf" : "inf"); return;
  case V_ZERO: strcpy(out, d->neg ? "-0" : "0"); return;
  default: ref_finite(d, out, binary);
  }
}

/* ---- Round trip through MPFR --------------------------------------------- */

/* Whether text s, read at the format's precision with its subnormals (the
   exponent unbounded above), rounding to nearest, is the value d. */
static int reads_back(const fmt *F, const decoded *d, const char *s) {
  int bias = (1 << (F->eb - 1)) - 1, ok;
  mpfr_exp_t emin0 = mpfr_get_emin(), emax0 = mpfr_get_emax();
  mpfr_t x, y;
  char *end;
  mpfr_init2(x, F->fb + 1);
  mpfr_init2(y, 64);
  /* MPFR's significands are in [1/2, 1): the least subnormal 2^(1-bias-fb)
     is 1/2 * 2^(2-bias-fb). */
  mpfr_set_emin(2 - bias - F->fb);
  mpfr_set_emax(bias + 64);
  int t = mpfr_strtofr(x, s, &end, 10, MPFR_RNDN);
  t = mpfr_subnormalize(x, t, MPFR_RNDN);
  (void)t;
  mpfr_set_emin(emin0);
  mpfr_set_emax(emax0);
  mpfr_set_uj_2exp(y, d->c, d->q, MPFR_RNDN); /* exact */
  if (d->neg) mpfr_neg(y, y, MPFR_RNDN);
  ok = *end == 0 && mpfr_number_p(x) && mpfr_cmp(x, y) == 0;
  mpfr_clear(x);
  mpfr_clear(y);
  return ok;
}

/* The exact double of a finite d (every value of every format is one). */
static double exact_double(const decoded *d) {
  mpfr_t y;
  mpfr_init2(y, 64);
  mpfr_set_uj_2exp(y, d->c, d->q, MPFR_RNDN);
  double x = mpfr_get_d(y, MPFR_RNDN);
  mpfr_clear(y);
  return d->neg ? -x : x;
}

/* ---- Checking one code ---------------------------------------------------- */

static long n_checked, n_roundtrip;

/* Checks the text of the code `bits` of F. */
static void check_code(const fmt *F, uint64_t bits, int binary, int cplx) {
  decoded d = decode(F, bits);
  char want[96], got[NX_DTYPE_PP_MAX + 8];
  ref_text(&d, want, binary);
  double x = nx_dtype_load_bits(F->code, bits);
  uint64_t xb = nx__f64_bits(x);
  /* The library's load agrees with this file's decoding. */
  if (d.kind == V_NAN) CHECK(x != x, "%s %#llx: load gives %a, not a NaN", F->name, (unsigned long long)bits, x);
  else if (d.kind == V_INF) CHECK(xb == (d.neg ? 0xFFF0000000000000ull : 0x7FF0000000000000ull), "%s %#llx: load gives %a", F->name, (unsigned long long)bits, x);
  else if (d.kind == V_ZERO) CHECK(xb == (d.neg ? 0x8000000000000000ull : 0), "%s %#llx: load gives %a", F->name, (unsigned long long)bits, x);
  else {
    double e = exact_double(&d);
    CHECK(xb == nx__f64_bits(e), "%s %#llx: load gives %a, the bits say %a", F->name, (unsigned long long)bits, x, e);
  }
  int r = nx_dtype_format_value(F->code, x, got, sizeof got);
  n_checked++;
  CHECK(r >= 0 && strcmp(got, want) == 0 && r == (int)strlen(want),
        "%s bits %#llx (%a): expected \"%s\", got \"%s\" (%d)%s%s", F->name, (unsigned long long)bits, x, want,
        r >= 0 ? got : "", r, r < 0 ? ": " : "", r < 0 ? nx_error_message() : "");
  if (d.kind == V_FINITE && r >= 0) {
    n_roundtrip++;
    CHECK(reads_back(F, &d, got), "%s bits %#llx (%a): \"%s\" does not read back as the value", F->name,
          (unsigned long long)bits, x, got);
    if (strcmp(got, want) != 0)
      CHECK(reads_back(F, &d, want), "reference: %s bits %#llx: \"%s\" does not read back", F->name,
            (unsigned long long)bits, want);
  }
  if (cplx) { /* the component text of a complex dtype, x + 0i */
    int cc = F->code == NX_FLOAT64 ? NX_COMPLEX128 : NX_COMPLEX64;
    char wc[128];
    snprintf(wc, sizeof wc, "%s+0i", want);
    r = nx_dtype_format_value(cc, x, got, sizeof got);
    CHECK(r >= 0 && strcmp(got, wc) == 0, "%s bits %#llx as complex: expected \"%s\", got \"%s\"", F->name,
          (unsigned long long)bits, wc, r >= 0 ? got : "");
  }
}

/* ---- The samples ---------------------------------------------------------- */

static uint64_t rng_state = 0x6E787072696E7421ull; /* fixed seed */
static uint64_t splitmix64(void) {
  return splitmix64_next(&rng_state);
}

static double seconds(void) {
  struct timespec t;
  timespec_get(&t, TIME_UTC);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void all_codes(const fmt *F) {
  double t0 = seconds();
  long f0 = check_failures;
  int w = 1 + F->eb + F->fb;
  for (uint64_t b = 0; b < ((uint64_t)1 << w); b++) check_code(F, b, 0, 0);
  printf("%-14s all %6llu codes: %ld failures, %.2f s\n", F->name, (unsigned long long)1 << w,
         check_failures - f0, seconds() - t0);
}

/* A value's bits and its neighbours' (the same sign), 1..r steps away,
   staying within the finite codes. */
static void around(const fmt *F, uint64_t bits, int r) {
  uint64_t sign = (uint64_t)1 << (F->eb + F->fb), a = bits & (sign - 1);
  uint64_t top = (((uint64_t)1 << F->eb) - 1) << F->fb; /* inf */
  for (int i = -r; i <= r; i++) {
    if ((i < 0 && a < (uint64_t)-i) || a + (uint64_t)(i > 0 ? i : 0) >= top) continue;
    uint64_t m = a + (uint64_t)(int64_t)i;
    check_code(F, m, 1, 0);
    check_code(F, m | sign, 1, 0);
  }
}

static void specials_f64(void) {
  double t0 = seconds();
  long f0 = check_failures, c0 = n_checked;
  static const uint64_t fixed[] = {
      0x0000000000000000ull, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
      0x7FF8000000000000ull, 0xFFF8000000000001ull, 0x7FF0000000000001ull,
      0x0000000000000001ull, /* 5e-324, the least subnormal */
      0x000FFFFFFFFFFFFFull, /* the largest subnormal */
      0x0010000000000000ull, /* the least normal */
      0x7FEFFFFFFFFFFFFFull, /* the largest finite */
      0x3F1A36E2EB1C432Dull, /* the double nearest 1e-4, above it */
      0x3F1A36E2EB1C432Cull, /* the one below: 9.999999999999999e-05 */
      0x4341C37937E08000ull, /* 1e16 */
      0x4341C37937E07FFFull, /* 9999999999999998 */
      0x44B52D02C7E14AF6ull, /* 1e23 (the double nearest it, below) */
      0x44B52D02C7E14AF7ull, /* 1.0000000000000001e23 */
  };
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) around(&F64, fixed[i], 3);
  char s[64];
  /* Every power of two, normal and subnormal, with neighbours. */
  for (int e = -1074; e <= 1023; e++) {
    uint64_t b = e >= -1022 ? (uint64_t)(e + 1023) << 52 : (uint64_t)1 << (e + 1074);
    around(&F64, b, 1);
  }
  /* The doubles nearest every power of ten and nearest 2, 3, 5 and 9 times
     one (strtod rounds to nearest), with neighbours: where the interval can
     straddle a power of ten. */
  for (int e = -323; e <= 308; e++) {
    for (int m = 1; m <= 9; m++) {
      if (m != 1 && m != 2 && m != 3 && m != 5 && m != 9) continue;
      snprintf(s, sizeof s, "%de%d", m, e);
      double x = strtod(s, NULL);
      if (x == 0 || x > 1.7976931348623157e308) continue;
      around(&F64, nx__f64_bits(x), 2);
    }
  }
  /* Integers: small ones, and around 2^53 and 2^64. */
  for (int i = 1; i <= 100000; i++) check_code(&F64, nx__f64_bits((double)i), 1, 0);
  around(&F64, nx__f64_bits(9007199254740992.0), 4);
  around(&F64, nx__f64_bits(18446744073709551616.0), 4);
  /* Exact multiples of powers of ten, up to 10^22, and a few decimals. */
  for (int e = 0; e <= 22; e++) {
    static const int ms[] = {1, 3, 7, 123, 999, 4503};
    for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++) {
      snprintf(s, sizeof s, "%de%d", ms[j], e);
      around(&F64, nx__f64_bits(strtod(s, NULL)), 1);
    }
  }
  static const double dec[] = {0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 0.5, 1.5, 3.14159265358979, 2.718281828459045,
                               1.59e29, 6e-8, 0.015625, 65504, 448, 1e-5, 1e-300, 1e300, 2.2250738585072014e-308};
  for (size_t i = 0; i < sizeof dec / sizeof dec[0]; i++) around(&F64, nx__f64_bits(dec[i]), 2);
  printf("float64 specials: %ld values, %ld failures, %.2f s\n", n_checked - c0, check_failures - f0, seconds() - t0);
}

static void specials_f32(void) {
  double t0 = seconds();
  long f0 = check_failures, c0 = n_checked;
  static const uint32_t fixed[] = {
      0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFF800001u,
      0x00000001u, /* 1e-45, the least subnormal */
      0x007FFFFFu, /* the largest subnormal */
      0x00800000u, /* the least normal */
      0x7F7FFFFFu, /* the largest finite */
      0x38D1B717u, /* the float nearest 1e-4 */
      0x5A0E1BCAu, /* the float nearest 1e16 */
  };
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) around(&F32, fixed[i], 4);
  for (int e = -149; e <= 127; e++) {
    uint32_t b = e >= -126 ? (uint32_t)(e + 127) << 23 : (uint32_t)1 << (e + 149);
    around(&F32, b, 1);
  }
  char s[64];
  for (int e = -45; e <= 38; e++) {
    for (int m = 1; m <= 9; m++) {
      if (m != 1 && m != 2 && m != 3 && m != 5 && m != 9) continue;
      snprintf(s, sizeof s, "%de%d", m, e);
      float x = strtof(s, NULL);
      if (x == 0 || x > 3.4028234663852886e38f) continue;
      around(&F32, nx__f32_bits(x), 2);
    }
  }
  for (int i = 1; i <= 20000; i++) check_code(&F32, nx__f32_bits((float)i), 1, 0);
  around(&F32, nx__f32_bits(16777216.0f), 4);
  static const float dec[] = {0.1f, 0.2f, 0.3f, 1.0f / 3, 1.59e29f, 6e-8f, 0.015625f, 65504.0f, 1e16f, 1e-4f};
  for (size_t i = 0; i < sizeof dec / sizeof dec[0]; i++) around(&F32, nx__f32_bits(dec[i]), 2);
  printf("float32 specials: %ld values, %ld failures, %.2f s\n", n_checked - c0, check_failures - f0, seconds() - t0);
}

static void random_codes(const fmt *F, long count) {
  double t0 = seconds();
  long f0 = check_failures;
  int w = 1 + F->eb + F->fb;
  for (long i = 0; i < count; i++) {
    uint64_t b = splitmix64();
    if (w < 64) b &= ((uint64_t)1 << w) - 1;
    check_code(F, b, 1, (i & 63) == 0);
  }
  printf("%-14s %ld random patterns: %ld failures, %.2f s\n", F->name, count, check_failures - f0, seconds() - t0);
}

/* ---- The internals of shortest.c ------------------------------------------ */

/* 10^k compared with num * 2^q, exactly. */
static int cmp_pow10_pow2(int k, unsigned num, int q) {
  mpq_t a, b;
  mpq_init(a);
  mpq_init(b);
  mpq_set_ui(a, 1, 1);
  mpz_ui_pow_ui(k >= 0 ? mpq_numref(a) : mpq_denref(a), 10, (unsigned long)(k >= 0 ? k : -k));
  mpz_set_ui(mpq_numref(b), num);
  if (q >= 0) mpz_mul_2exp(mpq_numref(b), mpq_numref(b), (mp_bitcnt_t)q);
  else mpz_mul_2exp(mpq_denref(b), mpq_denref(b), (mp_bitcnt_t)-q);
  mpq_canonicalize(a);
  mpq_canonicalize(b);
  int r = mpq_cmp(a, b);
  mpq_clear(a);
  mpq_clear(b);
  return r;
}

static void test_flog10(void) {
  long f0 = check_failures;
  for (int q = -1200; q <= 1100; q++) {
    int k = flog10_pow2(q);
    /* k = floor(log10(2^q)): 10^k <= 2^q < 10^(k+1). */
    CHECK(cmp_pow10_pow2(k, 1, q) <= 0 && cmp_pow10_pow2(k + 1, 1, q) > 0, "flog10_pow2(%d) = %d", q, k);
    k = flog10_three_quarters_pow2(q);
    /* k = floor(log10(3/4 * 2^q)): 10^k <= 3 * 2^(q-2) < 10^(k+1). */
    CHECK(cmp_pow10_pow2(k, 3, q - 2) <= 0 && cmp_pow10_pow2(k + 1, 3, q - 2) > 0,
          "flog10_three_quarters_pow2(%d) = %d", q, k);
  }
  printf("flog10_pow2, flog10_three_quarters_pow2 on [-1200, 1100]: %ld failures\n", check_failures - f0);
}

/* rop's answer by GMP: floor(X) with its lowest bit set iff X is not an
   integer, X = cb * 2^q / 10^k. */
static uint64_t gmp_rop(uint64_t cb, int q, int k) {
  mpz_t num, den, quo, rem;
  mpz_inits(num, den, quo, rem, NULL);
  z_set_u64(num, cb);
  mpz_set_ui(den, 1);
  if (q >= 0) mpz_mul_2exp(num, num, (mp_bitcnt_t)q);
  else mpz_mul_2exp(den, den, (mp_bitcnt_t)-q);
  if (k >= 0) mpz_mul(den, den, P10[k]);
  else mpz_mul(num, num, P10[-k]);
  mpz_fdiv_qr(quo, rem, num, den);
  uint64_t r = ~(uint64_t)0;
  if (mpz_sizeinbase(quo, 2) <= 62) {
    mpz_export(&r, NULL, -1, sizeof r, 0, 0, quo);
    if (mpz_sgn(quo) == 0) r = 0;
    r |= mpz_sgn(rem) != 0;
  }
  mpz_clears(num, den, quo, rem, NULL);
  return r;
}

static long n_rop;

/* rop and exact_rop for the three points of value d's interval, as
   nx__shortest asks them. */
static void check_rop(const fmt *F, const decoded *d, int with_exact) {
  uint64_t cb = d->c << 2, pts[3] = {d->bottom ? cb - 1 : cb - 2, cb, cb + 2};
  int k = d->bottom ? flog10_three_quarters_pow2(d->q) : flog10_pow2(d->q);
  CHECK(k >= NX__K_MIN && k <= NX__K_MAX, "%s c=%llu q=%d: k=%d outside the table", F->name,
        (unsigned long long)d->c, d->q, k);
  if (k < NX__K_MIN || k > NX__K_MAX) return;
  for (int i = 0; i < 3; i++) {
    uint64_t want = gmp_rop(pts[i], d->q, k), got = rop(pts[i], d->q, k);
    n_rop++;
    CHECK(got == want, "%s rop(%llu, %d, %d) = %llu, exactly %llu", F->name, (unsigned long long)pts[i], d->q, k,
          (unsigned long long)got, (unsigned long long)want);
    if (with_exact) {
      got = exact_rop(pts[i], d->q, k);
      CHECK(got == want, "%s exact_rop(%llu, %d, %d) = %llu, exactly %llu", F->name, (unsigned long long)pts[i],
            d->q, k, (unsigned long long)got, (unsigned long long)want);
    }
  }
}

static void test_rop(void) {
  double t0 = seconds();
  long f0 = check_failures;
  const fmt *small[] = {&F16, &BF16, &E4M3, &E5M2, &E2M1};
  for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
    int w = 1 + small[i]->eb + small[i]->fb;
    for (uint64_t b = 0; b < ((uint64_t)1 << (w - 1)); b++) {
      decoded d = decode(small[i], b);
      if (d.kind == V_FINITE) check_rop(small[i], &d, 1);
    }
  }
  uint64_t saved = rng_state;
  rng_state = 0x726F7020726F7021ull;
  for (long i = 0; i < 4 * N_ROP_EXACT; i++) {
    const fmt *F = i & 1 ? &F32 : &F64;
    uint64_t b = splitmix64() & (i & 1 ? 0x7FFFFFFFull : 0x7FFFFFFFFFFFFFFFull);
    decoded d = decode(F, b);
    if (d.kind == V_FINITE) check_rop(F, &d, i < N_ROP_EXACT);
  }
  /* The values whose points can be integers at k > 0, where rop tests
     divisibility by 5^k: integers with factors of ten, and the powers of two. */
  for (int e = 1; e <= 22; e++)
    for (uint64_t m = 1; m <= 999; m += 2) {
      double x = (double)m;
      for (int j = 0; j < e; j++) x *= 10; /* exact while m * 5^e < 2^53, a nearby double past */
      decoded d = decode(&F64, nx__f64_bits(x));
      check_rop(&F64, &d, 1);
    }
  for (int e = -1074; e <= 1023; e++) {
    uint64_t b = e >= -1022 ? (uint64_t)(e + 1023) << 52 : (uint64_t)1 << (e + 1074);
    decoded d = decode(&F64, b);
    check_rop(&F64, &d, 1);
  }
  rng_state = saved;
  printf("rop / exact_rop against GMP: %ld points, %ld failures, %.2f s\n", n_rop, check_failures - f0,
         seconds() - t0);
}

int main(void) {
  double t0 = seconds();
  pow_tables();
  mpz_inits(Vi, Li, Hi, Df, R, Xf, Xc, Tmp, NULL);
#ifdef NX_PRINT_EXACT_PATH
  printf("exact path: shortest.c built with NX_TEST_FORCE_EXACT\n");
#endif
  all_codes(&E2M1);
  all_codes(&E4M3);
  all_codes(&E5M2);
  all_codes(&F16);
  all_codes(&BF16);
  specials_f64();
  specials_f32();
  random_codes(&F32, N_RANDOM_F32);
  random_codes(&F64, N_RANDOM_F64);
  test_flog10();
  test_rop();
  printf("%ld texts checked (%ld with both n-digit neighbours inside, %ld of them ties), %ld read back through "
         "MPFR, reference self-check failures %ld, %.2f s in all\n",
         n_checked, n_both, n_ties, n_roundtrip, ref_failures, seconds() - t0);
  return check_done();
}
