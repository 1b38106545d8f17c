/* SPDX-License-Identifier: Apache-2.0 */
/* Dtype.exact, the whole 21 x 21 table, against a derivation written here and
   independent of nx:

   - for every source format of up to 16 bits, every one of its values is
     decoded from its bits by this file's own decoder, and each is tested for
     membership in the target by this file's own tests (a sorted set of every
     value of a float target of up to 16 bits, the precision / least quantum /
     largest finite test for float32 and float64, range and integrality for
     integers, {0, 1} for booleans, the component for complex targets);
   - for every other source (float32, float64, int32, int64, uint32, uint64,
     complex64, complex128) the seed's rules, written out here from the
     format parameters of this file's own table: precision, range, least
     magnitude, infinity and NaN for floats; the significand rule for
     integers; a complex number only into a complex dtype, a real into a
     complex one whose component it is exact into.

   The rules are also checked against the enumeration wherever both apply, so
   the rules this file writes are themselves tested. Where a value is a member
   of the target, the library's own store (nx_dtype_store_bits, then
   nx_dtype_load_bits) must give it back: the seed's "a store of one into b
   gives the same number, the same infinity or a NaN".

   The seed (001, exact): "exact a b is true iff every value of a is a value
   of b ... A boolean is 0 or 1, which every dtype holds, and only a boolean
   holds a boolean." So a boolean source is exact into everything (its values
   are 0 and 1), and a boolean target holds only booleans (every other dtype
   has a value besides 0 and 1). No libm: powers of two and integrality are
   built from bits. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "nx_dtype.h"

/* ---- Doubles from bits ------------------------------------------------------ */

static int is_nan(double x) { return x != x; }
static double inf(void) { return dbl_of(0x7FF0000000000000ull); }
static double qnan(void) { return dbl_of(0x7FF8000000000000ull); }
static int is_inf(double x) { return (bits_of(x) & 0x7FFFFFFFFFFFFFFFull) == 0x7FF0000000000000ull; }
static double fabs_(double x) { return dbl_of(bits_of(x) & 0x7FFFFFFFFFFFFFFFull); }

/* 2^k for -1074 <= k <= 1023, exact. */
static double pow2(int k) {
  if (k >= -1022) return dbl_of((uint64_t)(1023 + k) << 52);
  return dbl_of((uint64_t)1 << (k + 1074));
}

/* For a finite nonzero double: the exponent E of its leading bit
   (2^E <= |x| < 2^(E+1)) and the exponent of its lowest set bit. */
static void exps(double x, int *lead, int *low) {
  uint64_t u = bits_of(x) & 0x7FFFFFFFFFFFFFFFull;
  int be = (int)(u >> 52);
  uint64_t m = u & 0xFFFFFFFFFFFFFull;
  int base; /* the exponent of m's bit 0 */
  if (be) { m |= (uint64_t)1 << 52; base = be - 1075; }
  else base = -1074;
  int hi = 63, lo = 0;
  while (!((m >> hi) & 1)) hi--;
  while (!((m >> lo) & 1)) lo++;
  *lead = base + hi;
  *low = base + lo;
}

static int is_integer(double x) {
  if (is_nan(x) || is_inf(x)) return 0;
  if (x == 0) return 1;
  int lead, low;
  exps(x, &lead, &low);
  return low >= 0;
}

/* ---- This file's own table of the 21 formats ------------------------------- */

enum { K_FLOAT, K_COMPLEX, K_SIGNED, K_UNSIGNED, K_BOOL };
enum { NAN_NONE, NAN_IEEE, NAN_FN }; /* no NaN; IEEE (top exponent, fraction != 0); only S.1..1.1..1 */

typedef struct {
  nx_dtype dt;
  const char *name;
  int kind, bits;
  int eb, fb, inf, nan; /* float formats */
  nx_dtype comp;        /* complex: the component */
} fmt;

static const fmt F[21] = {
    {NX_FLOAT64, "float64", K_FLOAT, 64, 11, 52, 1, NAN_IEEE, NX_FLOAT64},
    {NX_FLOAT32, "float32", K_FLOAT, 32, 8, 23, 1, NAN_IEEE, NX_FLOAT32},
    {NX_FLOAT16, "float16", K_FLOAT, 16, 5, 10, 1, NAN_IEEE, NX_FLOAT16},
    {NX_BFLOAT16, "bfloat16", K_FLOAT, 16, 8, 7, 1, NAN_IEEE, NX_BFLOAT16},
    {NX_FLOAT8_E4M3FN, "float8_e4m3fn", K_FLOAT, 8, 4, 3, 0, NAN_FN, NX_FLOAT8_E4M3FN},
    {NX_FLOAT8_E5M2, "float8_e5m2", K_FLOAT, 8, 5, 2, 1, NAN_IEEE, NX_FLOAT8_E5M2},
    {NX_FLOAT4_E2M1FN, "float4_e2m1fn", K_FLOAT, 4, 2, 1, 0, NAN_NONE, NX_FLOAT4_E2M1FN},
    {NX_INT64, "int64", K_SIGNED, 64, 0, 0, 0, 0, NX_INT64},
    {NX_UINT64, "uint64", K_UNSIGNED, 64, 0, 0, 0, 0, NX_UINT64},
    {NX_INT32, "int32", K_SIGNED, 32, 0, 0, 0, 0, NX_INT32},
    {NX_UINT32, "uint32", K_UNSIGNED, 32, 0, 0, 0, 0, NX_UINT32},
    {NX_INT16, "int16", K_SIGNED, 16, 0, 0, 0, 0, NX_INT16},
    {NX_UINT16, "uint16", K_UNSIGNED, 16, 0, 0, 0, 0, NX_UINT16},
    {NX_INT8, "int8", K_SIGNED, 8, 0, 0, 0, 0, NX_INT8},
    {NX_UINT8, "uint8", K_UNSIGNED, 8, 0, 0, 0, 0, NX_UINT8},
    {NX_INT4, "int4", K_SIGNED, 4, 0, 0, 0, 0, NX_INT4},
    {NX_UINT4, "uint4", K_UNSIGNED, 4, 0, 0, 0, 0, NX_UINT4},
    {NX_COMPLEX128, "complex128", K_COMPLEX, 128, 0, 0, 0, 0, NX_FLOAT64},
    {NX_COMPLEX64, "complex64", K_COMPLEX, 64, 0, 0, 0, 0, NX_FLOAT32},
    {NX_BOOL, "bool", K_BOOL, 8, 0, 0, 0, 0, NX_BOOL},
    {NX_BIT, "bit", K_BOOL, 1, 0, 0, 0, 0, NX_BIT},
};

static int bias(const fmt *f) { return (1 << (f->eb - 1)) - 1; }

/* The value of float format f's code c, as a double (exact: every value of
   every float format here is a double). */
static double decode_float(const fmt *f, uint64_t c) {
  int emax = (1 << f->eb) - 1;
  uint64_t sign = (c >> (f->eb + f->fb)) & 1, fr = c & (((uint64_t)1 << f->fb) - 1);
  int e = (int)((c >> f->fb) & (uint64_t)emax);
  double mag;
  if (f->nan == NAN_IEEE && e == emax) mag = fr ? qnan() : inf();
  else if (f->nan == NAN_FN && e == emax && fr == ((uint64_t)1 << f->fb) - 1) mag = qnan();
  else if (e == 0) mag = (double)fr * pow2(1 - bias(f) - f->fb);
  else mag = (double)(fr | ((uint64_t)1 << f->fb)) * pow2(e - bias(f) - f->fb);
  return sign ? -mag : mag;
}

/* The largest finite value of float format f, and its least positive one. */
static double max_finite(const fmt *f) {
  uint64_t emax = ((uint64_t)1 << f->eb) - 1, all = ((uint64_t)1 << f->fb) - 1, c;
  switch (f->nan) {
  case NAN_IEEE: c = (emax << f->fb) - 1; break;       /* below the infinity */
  case NAN_FN: c = (emax << f->fb) | (all - 1); break;  /* below S.1..1.1..1 */
  default: c = (emax << f->fb) | all; break;            /* every code finite */
  }
  return decode_float(f, c);
}
static double least(const fmt *f) { return decode_float(f, 1); }
static int prec(const fmt *f) { return f->fb + 1; }

/* The value of integer format f's code c. */
static double decode_int(const fmt *f, uint64_t c) {
  uint64_t mask = f->bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << f->bits) - 1;
  c &= mask;
  if (f->kind == K_SIGNED && (c >> (f->bits - 1)) & 1) return -(double)((mask - c) + 1);
  return (double)c;
}

/* The value of code c of a source format of up to 16 bits. */
static double decode(const fmt *f, uint64_t c) {
  switch (f->kind) {
  case K_FLOAT: return decode_float(f, c);
  case K_SIGNED:
  case K_UNSIGNED: return decode_int(f, c);
  case K_BOOL: return f->bits == 1 ? (double)(c & 1) : (double)((c & 0xFF) != 0);
  }
  return qnan();
}

/* ---- Membership ---------------------------------------------------------- */

/* Whether x is a value of float format f, by its parameters: a NaN where f
   has NaNs, an infinity where it has infinities, 0, or a finite magnitude no
   larger than the largest finite value whose lowest bit is at or above the
   quantum of its binade (precision) and of the least subnormal. */
static int member_float_params(const fmt *f, double x) {
  if (is_nan(x)) return f->nan != NAN_NONE;
  if (is_inf(x)) return f->inf;
  if (x == 0) return 1;
  double a = fabs_(x);
  if (a > max_finite(f)) return 0;
  int lead, low, qmin = 1 - bias(f) - f->fb;
  exps(a, &lead, &low);
  int q = lead - f->fb;
  if (q < qmin) q = qmin;
  return low >= q;
}

/* Every finite value of a float format of up to 16 bits, sorted; zero once. */
typedef struct {
  double *v;
  size_t n;
} vset;
static vset sets[21];

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void build_set(int t) {
  const fmt *f = &F[t];
  size_t codes = (size_t)1 << f->bits, n = 0;
  double *v = malloc(codes * sizeof *v);
  for (size_t c = 0; c < codes; c++) {
    double x = decode_float(f, c);
    if (is_nan(x) || is_inf(x)) continue;
    if (x == 0) x = 0; /* -0 and +0 are the same number */
    v[n++] = x;
  }
  qsort(v, n, sizeof *v, cmp_double);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (m == 0 || v[i] != v[m - 1]) v[m++] = v[i];
  sets[t].v = v;
  sets[t].n = m;
}

static int in_set(int t, double x) {
  size_t lo = 0, hi = sets[t].n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sets[t].v[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < sets[t].n && sets[t].v[lo] == x;
}

static int member_float(int t, double x) {
  const fmt *f = &F[t];
  if (f->bits <= 16) {
    if (is_nan(x)) return f->nan != NAN_NONE;
    if (is_inf(x)) return f->inf;
    return in_set(t, x);
  }
  return member_float_params(f, x);
}

/* Whether the real number x (a value of some source) is a value of target t. */
static int member(int t, double x) {
  const fmt *f = &F[t];
  switch (f->kind) {
  case K_FLOAT: return member_float(t, x);
  case K_COMPLEX: return member_float((int)f->comp, x); /* x + 0i */
  case K_BOOL: return x == 0 || x == 1;
  case K_SIGNED:
    if (!is_integer(x)) return 0;
    if (f->bits == 64) return x >= -pow2(63) && x < pow2(63);
    return x >= -pow2(f->bits - 1) && x <= pow2(f->bits - 1) - 1;
  case K_UNSIGNED:
    if (!is_integer(x)) return 0;
    if (f->bits == 64) return x >= 0 && x < pow2(64 - 1) * 2;
    return x >= 0 && x <= pow2(f->bits) - 1;
  }
  return 0;
}

/* ---- The seed's rules, written from this file's table ------------------ */

/* A float format a into float format b: at least its precision, range and
   least magnitude, with an infinity and a NaN where a has them. */
static int float_rule(const fmt *a, const fmt *b) {
  return prec(b) >= prec(a) && max_finite(b) >= max_finite(a) && least(b) <= least(a) && (!a->inf || b->inf) &&
         (a->nan == NAN_NONE || b->nan != NAN_NONE);
}

/* An integer format a into float format b: b's significand (fraction_bits
   and one) holds a's magnitudes, and b's range the largest. Every integer up
   to 2^p is a value of a float of precision p (within its range), and 2^p + 1
   is not; a's largest magnitude is 2^(n-1) signed, 2^n - 1 unsigned. */
static int int_float_rule(const fmt *a, const fmt *b) {
  int n = a->bits;
  if (a->kind == K_SIGNED) return n - 1 <= prec(b) && pow2(n - 1) <= max_finite(b);
  return n <= prec(b) && pow2(n) - 1 <= max_finite(b);
}

/* Integer ranges as [lo, hi], lo an int64_t and hi a uint64_t. */
static int64_t int_lo(const fmt *f) {
  return f->kind == K_UNSIGNED ? 0 : f->bits == 64 ? INT64_MIN : -((int64_t)1 << (f->bits - 1));
}
static uint64_t int_hi(const fmt *f) {
  if (f->kind == K_UNSIGNED) return f->bits == 64 ? UINT64_MAX : ((uint64_t)1 << f->bits) - 1;
  return ((uint64_t)1 << (f->bits - 1)) - 1;
}
static int int_int_rule(const fmt *a, const fmt *b) { return int_lo(a) >= int_lo(b) && int_hi(a) <= int_hi(b); }

static int rule(int s, int t) {
  const fmt *a = &F[s], *b = &F[t];
  if (a->kind == K_BOOL) return 1;
  if (b->kind == K_BOOL) return 0;
  const fmt *bc = b->kind == K_COMPLEX ? &F[b->comp] : b;
  if (a->kind == K_COMPLEX) return b->kind == K_COMPLEX && float_rule(&F[a->comp], bc);
  if (a->kind == K_FLOAT) return (b->kind == K_FLOAT || b->kind == K_COMPLEX) && float_rule(a, bc);
  if (b->kind == K_FLOAT || b->kind == K_COMPLEX) return int_float_rule(a, bc);
  return int_int_rule(a, b);
}

/* ---- The table -------------------------------------------------------------- */

static int want[21][21], got[21][21], brute_known[21];
static double witness[21][21]; /* a source value the target lacks */

static void print_table(void) {
  fprintf(stderr, "\nnx_dtype_exact(row, column): 1 true, . false; ! marks a cell that differs from the derivation\n");
  fprintf(stderr, "%15s", "");
  for (int t = 0; t < 21; t++) fprintf(stderr, " %2d", t);
  fprintf(stderr, "\n");
  for (int s = 0; s < 21; s++) {
    fprintf(stderr, "%2d %12s", s, F[s].name);
    for (int t = 0; t < 21; t++)
      fprintf(stderr, " %c%c", got[s][t] != want[s][t] ? '!' : ' ', got[s][t] ? '1' : '.');
    fprintf(stderr, "\n");
  }
  for (int t = 0; t < 21; t++) fprintf(stderr, "  %2d %s\n", t, F[t].name);
  for (int s = 0; s < 21; s++)
    for (int t = 0; t < 21; t++)
      if (got[s][t] != want[s][t]) {
        fprintf(stderr, "  exact(%s, %s): nx %d, derived %d", F[s].name, F[t].name, got[s][t], want[s][t]);
        if (brute_known[s] && !want[s][t]) fprintf(stderr, " (%a is not a value of %s)", witness[s][t], F[t].name);
        fprintf(stderr, "\n");
      }
}

/* The library's store of a member x into t gives x back (or a NaN for a NaN). */
static int store_gives_back(int t, double x) {
  uint64_t b = nx_dtype_store_bits((int)F[t].dt, x);
  double y = nx_dtype_load_bits((int)F[t].dt, b);
  if (is_nan(x)) return is_nan(y);
  return y == x;
}

int main(void) {
  /* This file's table matches the library's codes and names (the only facts
     taken from nx, to index its answers). */
  for (int i = 0; i < 21; i++) {
    CHECK((int)F[i].dt == i, "%s has code %d here, at row %d", F[i].name, (int)F[i].dt, i);
    const char *n = nx_dtype_name(F[i].dt);
    CHECK(n && strcmp(n, F[i].name) == 0, "nx_dtype_name(%d) = %s, want %s", i, n ? n : "(null)", F[i].name);
  }
  /* This file's decoders against the reference facts (dtypes.md §1). */
  CHECK(max_finite(&F[NX_FLOAT16]) == 65504.0 && max_finite(&F[NX_BFLOAT16]) == 0x1.fep127 &&
            max_finite(&F[NX_FLOAT8_E4M3FN]) == 448.0 && max_finite(&F[NX_FLOAT8_E5M2]) == 57344.0 &&
            max_finite(&F[NX_FLOAT4_E2M1FN]) == 6.0 && max_finite(&F[NX_FLOAT32]) == 0x1.fffffep127 &&
            max_finite(&F[NX_FLOAT64]) == 0x1.fffffffffffffp1023,
        "largest finite values");
  CHECK(least(&F[NX_FLOAT16]) == 0x1p-24 && least(&F[NX_BFLOAT16]) == 0x1p-133 &&
            least(&F[NX_FLOAT8_E4M3FN]) == 0x1p-9 && least(&F[NX_FLOAT8_E5M2]) == 0x1p-16 &&
            least(&F[NX_FLOAT4_E2M1FN]) == 0.5 && least(&F[NX_FLOAT32]) == 0x1p-149 &&
            least(&F[NX_FLOAT64]) == 0x1p-1074,
        "least positive values");

  for (int t = 0; t < 21; t++)
    if (F[t].kind == K_FLOAT && F[t].bits <= 16) build_set(t);
  /* Finite value counts: 2^16 - 2^11 + 1 for float16 (63,488 finite codes,
     one zero), e4m3fn 252 nonzero + zero, e2m1fn 15. */
  CHECK(sets[NX_FLOAT16].n == 63487, "float16 has %zu distinct finite values", sets[NX_FLOAT16].n);
  CHECK(sets[NX_FLOAT8_E4M3FN].n == 253, "float8_e4m3fn has %zu distinct finite values", sets[NX_FLOAT8_E4M3FN].n);
  CHECK(sets[NX_FLOAT4_E2M1FN].n == 15, "float4_e2m1fn has %zu distinct finite values", sets[NX_FLOAT4_E2M1FN].n);
  {
    static const double e2m1[] = {-6, -4, -3, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 3, 4, 6};
    int ok = sets[NX_FLOAT4_E2M1FN].n == 15;
    for (int i = 0; ok && i < 15; i++) ok = sets[NX_FLOAT4_E2M1FN].v[i] == e2m1[i];
    CHECK(ok, "float4_e2m1fn's values are +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}");
  }

  /* The enumeration: every source of up to 16 bits (complex has none). */
  long store_checks = 0;
  for (int s = 0; s < 21; s++) {
    if (F[s].bits > 16 || F[s].kind == K_COMPLEX) continue;
    brute_known[s] = 1;
    uint64_t codes = (uint64_t)1 << F[s].bits;
    for (int t = 0; t < 21; t++) {
      int all = 1, back_bad = 0, set_vs_params = 0;
      double back_first = 0, svp_first = 0;
      for (uint64_t c = 0; c < codes; c++) {
        double x = decode(&F[s], c);
        int m = member(t, x);
        if (!m && all) { all = 0; witness[s][t] = x; }
        if (m) {
          store_checks++;
          if (!store_gives_back(t, x) && !back_bad++) back_first = x;
        }
        /* The two membership tests of this file agree. */
        if (F[t].kind == K_FLOAT && F[t].bits <= 16 && member_float_params(&F[t], x) != m && !set_vs_params++)
          svp_first = x;
      }
      want[s][t] = all;
      CHECK(back_bad == 0, "%d values of %s that %s holds do not store into it unchanged, first %a (stored: %a)",
            back_bad, F[s].name, F[t].name, back_first,
            nx_dtype_load_bits((int)F[t].dt, nx_dtype_store_bits((int)F[t].dt, back_first)));
      CHECK(set_vs_params == 0, "%s into %s: value set and parameters disagree on %d values, first %a", F[s].name,
            F[t].name, set_vs_params, svp_first);
      CHECK(rule(s, t) == all, "this file's rule for %s into %s says %d, the enumeration %d (witness %a)",
            F[s].name, F[t].name, rule(s, t), all, witness[s][t]);
    }
  }
  /* The rules for the wide sources. */
  for (int s = 0; s < 21; s++)
    if (!brute_known[s])
      for (int t = 0; t < 21; t++) want[s][t] = rule(s, t);

  /* The library's table against the derivation. */
  int bad = 0;
  for (int s = 0; s < 21; s++)
    for (int t = 0; t < 21; t++) {
      got[s][t] = nx_dtype_exact(F[s].dt, F[t].dt);
      CHECK(got[s][t] == want[s][t], "nx_dtype_exact(%s, %s) = %d, want %d", F[s].name, F[t].name, got[s][t],
            want[s][t]);
      bad += got[s][t] != want[s][t];
    }

  /* The seed's own examples, stated directly. */
#define EX(a, b, v)                                                                                  \
  CHECK(nx_dtype_exact(a, b) == (v), "the seed: exact(%s, %s) is %s", nx_dtype_name(a), nx_dtype_name(b), \
        (v) ? "true" : "false")
  EX(NX_INT8, NX_BFLOAT16, true);
  EX(NX_INT16, NX_FLOAT32, true);
  EX(NX_INT32, NX_FLOAT64, true);
  EX(NX_FLOAT16, NX_FLOAT32, true);
  EX(NX_BFLOAT16, NX_FLOAT32, true);
  EX(NX_FLOAT8_E4M3FN, NX_FLOAT16, true);
  EX(NX_FLOAT8_E5M2, NX_FLOAT16, true);
  EX(NX_FLOAT16, NX_BFLOAT16, false);
  EX(NX_BFLOAT16, NX_FLOAT16, false);
  EX(NX_INT16, NX_BFLOAT16, false);
  EX(NX_INT32, NX_FLOAT32, false);
  EX(NX_UINT8, NX_BFLOAT16, true);
  EX(NX_UINT16, NX_FLOAT32, true);
  EX(NX_UINT32, NX_FLOAT64, true);
  EX(NX_UINT64, NX_FLOAT64, false);
  EX(NX_FLOAT32, NX_FLOAT64, true);
  EX(NX_FLOAT64, NX_FLOAT32, false);
  EX(NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2, false);
  EX(NX_FLOAT8_E5M2, NX_FLOAT8_E4M3FN, false);
  EX(NX_COMPLEX64, NX_COMPLEX128, true);
  EX(NX_COMPLEX128, NX_COMPLEX64, false);
  EX(NX_FLOAT32, NX_COMPLEX64, true);
  EX(NX_FLOAT64, NX_COMPLEX64, false);
  EX(NX_BOOL, NX_BIT, true);
  EX(NX_BIT, NX_BOOL, true);
  EX(NX_UINT4, NX_BOOL, false);
  EX(NX_FLOAT4_E2M1FN, NX_BIT, false);
#undef EX
  for (int t = 0; t < 21; t++) {
    if (F[t].kind == K_FLOAT || F[t].kind == K_COMPLEX)
      CHECK(!nx_dtype_exact(NX_INT64, F[t].dt), "the seed: int64 is exact into none of the floats, yet into %s",
            F[t].name);
    /* Every dtype holds 0 and 1: booleans are exact into everything; only a
       boolean holds a boolean. */
    CHECK(nx_dtype_exact(NX_BOOL, F[t].dt) && nx_dtype_exact(NX_BIT, F[t].dt), "booleans into %s", F[t].name);
    for (int s = 0; s < 21; s++) {
      if (F[t].kind == K_BOOL)
        CHECK(nx_dtype_exact(F[s].dt, F[t].dt) == (F[s].kind == K_BOOL), "exact(%s, %s): only a boolean holds a boolean",
              F[s].name, F[t].name);
      /* A complex number is exact only into a complex dtype. */
      if (F[s].kind == K_COMPLEX && F[t].kind != K_COMPLEX)
        CHECK(!nx_dtype_exact(F[s].dt, F[t].dt), "exact(%s, %s): complex only into complex", F[s].name, F[t].name);
      /* A real into a complex one whose component it is exact into. */
      if (F[s].kind != K_COMPLEX && F[t].kind == K_COMPLEX)
        CHECK(nx_dtype_exact(F[s].dt, F[t].dt) == nx_dtype_exact(F[s].dt, F[t].comp),
              "exact(%s, %s) differs from exact(%s, %s)", F[s].name, F[t].name, F[s].name, F[F[t].comp].name);
      /* exact is a preorder: reflexive, and transitive. */
      if (s == t) CHECK(nx_dtype_exact(F[s].dt, F[t].dt), "exact(%s, %s) is false", F[s].name, F[s].name);
      for (int u = 0; u < 21; u++)
        if (nx_dtype_exact(F[s].dt, F[t].dt) && nx_dtype_exact(F[t].dt, F[u].dt))
          CHECK(nx_dtype_exact(F[s].dt, F[u].dt), "exact(%s, %s) and exact(%s, %s), yet not exact(%s, %s)",
                F[s].name, F[t].name, F[t].name, F[u].name, F[s].name, F[u].name);
    }
  }
  /* The 8-bit floats into float16, the 4-bit one into everything float. */
  for (int t = 0; t < 21; t++)
    if (F[t].kind == K_FLOAT || F[t].kind == K_COMPLEX)
      CHECK(nx_dtype_exact(NX_FLOAT4_E2M1FN, F[t].dt), "float4_e2m1fn into %s", F[t].name);

  if (bad || check_failures) print_table();
  printf("%ld member values stored back through nx\n", store_checks);
  for (int t = 0; t < 21; t++) free(sets[t].v);
  return check_done();
}
