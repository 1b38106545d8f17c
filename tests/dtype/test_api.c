/* SPDX-License-Identifier: Apache-2.0 */
/* The Dtype API against the seed (Nx_array.Dtype, seed 001) and its C form
   (nx_dtype.h): every dtype's facts, names, kinds, values, stores of floats,
   float formats, and every refusal, each checked for its status, its
   untouched out-parameter and a message that names the function and the
   operand. The expectations are written here from the seed and from
   shared/reference/dtypes.md §1, not read from the library. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "nx_dtype.h"

/* ---- Helpers -------------------------------------------------------------- */

static int is_nan(double x) { return x != x; }
static int neg(double x) { return (int)(bits_of(x) >> 63); }
/* 2^k for -1022 <= k <= 1023, built from its bits. */
static double pow2(int k) { return dbl_of((uint64_t)(1023 + k) << 52); }
/* Same number, bit for bit (NaNs: both NaN). */
static int same(double a, double b) { return (is_nan(a) && is_nan(b)) || bits_of(a) == bits_of(b); }

/* Whether the last failure's message names fn and the operand text op. */
static int says(const char *fn, const char *op) {
  const char *m = nx_error_message();
  return m != NULL && strstr(m, fn) != NULL && (op == NULL || strstr(m, op) != NULL);
}

/* Sets the message to one that names neither fn nor any operand the checks
   look for, so a check of the message sees the call's own. */
static void prime(const char *fn) {
  if (strstr(fn, "nx_dtype_name") == NULL) (void)nx_dtype_name((nx_dtype)987);
  else (void)nx_dtype_bits((nx_dtype)987);
}

/* ---- The seed's table, written out --------------------------------------- */

typedef struct {
  nx_dtype dt;
  int code;
  const char *name;
  int bits;
  nx_kind kind;
} row;

static const row rows[21] = {
    {NX_FLOAT64, 0, "float64", 64, NX_KIND_FLOAT},
    {NX_FLOAT32, 1, "float32", 32, NX_KIND_FLOAT},
    {NX_FLOAT16, 2, "float16", 16, NX_KIND_FLOAT},
    {NX_BFLOAT16, 3, "bfloat16", 16, NX_KIND_FLOAT},
    {NX_FLOAT8_E4M3FN, 4, "float8_e4m3fn", 8, NX_KIND_FLOAT},
    {NX_FLOAT8_E5M2, 5, "float8_e5m2", 8, NX_KIND_FLOAT},
    {NX_FLOAT4_E2M1FN, 6, "float4_e2m1fn", 4, NX_KIND_FLOAT},
    {NX_INT64, 7, "int64", 64, NX_KIND_SIGNED},
    {NX_UINT64, 8, "uint64", 64, NX_KIND_UNSIGNED},
    {NX_INT32, 9, "int32", 32, NX_KIND_SIGNED},
    {NX_UINT32, 10, "uint32", 32, NX_KIND_UNSIGNED},
    {NX_INT16, 11, "int16", 16, NX_KIND_SIGNED},
    {NX_UINT16, 12, "uint16", 16, NX_KIND_UNSIGNED},
    {NX_INT8, 13, "int8", 8, NX_KIND_SIGNED},
    {NX_UINT8, 14, "uint8", 8, NX_KIND_UNSIGNED},
    {NX_INT4, 15, "int4", 4, NX_KIND_SIGNED},
    {NX_UINT4, 16, "uint4", 4, NX_KIND_UNSIGNED},
    {NX_COMPLEX128, 17, "complex128", 128, NX_KIND_COMPLEX},
    {NX_COMPLEX64, 18, "complex64", 64, NX_KIND_COMPLEX},
    {NX_BOOL, 19, "bool", 8, NX_KIND_BOOLEAN},
    {NX_BIT, 20, "bit", 1, NX_KIND_BOOLEAN},
};

/* ---- all, code, of_code -------------------------------------------------- */

static void test_codes(void) {
  CHECK(NX_DTYPE_COUNT == 21, "NX_DTYPE_COUNT is %d", (int)NX_DTYPE_COUNT);
  const nx_dtype *all = nx_dtype_all();
  CHECK(all != NULL, "nx_dtype_all() is NULL");
  for (int i = 0; i < 21; i++) {
    CHECK((int)rows[i].dt == rows[i].code, "NX_ constant of %s is %d, the seed's order gives %d", rows[i].name,
          (int)rows[i].dt, rows[i].code);
    if (all) CHECK(all[i] == rows[i].dt, "nx_dtype_all()[%d] is %d, want %s", i, (int)all[i], rows[i].name);
    CHECK(nx_dtype_code(rows[i].dt) == i, "nx_dtype_code(%s) = %d, want %d", rows[i].name,
          nx_dtype_code(rows[i].dt), i);
  }
  CHECK(nx_dtype_all() == all, "nx_dtype_all() is not one static array");

  for (int c = 0; c < 21; c++) {
    nx_dtype dt = (nx_dtype)77;
    int r = nx_dtype_of_code(c, &dt);
    CHECK(r == 0 && dt == rows[c].dt, "nx_dtype_of_code(%d) = %d, dt %d; want 1, %s", c, r, (int)dt, rows[c].name);
  }
  const int nones[] = {-1, 21, 22, 100, INT_MIN, INT_MAX, INT_MIN + 1, -21};
  for (size_t i = 0; i < sizeof nones / sizeof nones[0]; i++) {
    nx_dtype dt = (nx_dtype)77;
    prime("nx_dtype_of_code");
    char before[256];
    snprintf(before, sizeof before, "%s", nx_error_message());
    int r = nx_dtype_of_code(nones[i], &dt);
    CHECK(r == NX_NONE, "nx_dtype_of_code(%d) = %d, want NX_NONE", nones[i], r);
    CHECK(dt == (nx_dtype)77, "nx_dtype_of_code(%d) set dt to %d: None leaves it unset", nones[i], (int)dt);
    CHECK(strcmp(before, nx_error_message()) == 0, "nx_dtype_of_code(%d): None is no failure, yet the message is %s",
          nones[i], nx_error_message());
  }
  {
    nx_dtype dt = (nx_dtype)77;
    CHECK(nx_dtype_of_code(0, &dt) == 0 && dt == NX_FLOAT64, "of_code 0 is float64");
    dt = (nx_dtype)77;
    CHECK(nx_dtype_of_code(20, &dt) == 0 && dt == NX_BIT, "of_code 20 is bit");
  }
}

/* ---- bits and bytes -------------------------------------------------------- */

/* ceil(n * bits / 8) without overflow, and whether it fits in an int64_t. */
static int want_bytes(int bits, int64_t n, int64_t *b) {
  if (bits % 8 == 0) {
    int64_t k = bits / 8;
    if (n > INT64_MAX / k) return 0;
    *b = n * k;
    return 1;
  }
  int per = 8 / bits; /* elements per byte: 2 or 8 */
  *b = n / per + (n % per != 0);
  return 1;
}

static void test_bits_bytes(void) {
  for (int i = 0; i < 21; i++)
    CHECK(nx_dtype_bits(rows[i].dt) == rows[i].bits, "nx_dtype_bits(%s) = %d, want %d", rows[i].name,
          nx_dtype_bits(rows[i].dt), rows[i].bits);
  CHECK(nx_dtype_bits(NX_BIT) == 1 && nx_dtype_bits(NX_INT4) == 4 && nx_dtype_bits(NX_UINT4) == 4 &&
            nx_dtype_bits(NX_FLOAT4_E2M1FN) == 4 && nx_dtype_bits(NX_BOOL) == 8 &&
            nx_dtype_bits(NX_COMPLEX128) == 128,
        "the seed's bits examples");

  /* Small counts, written out by hand for the sub-byte formats. */
  static const struct { nx_dtype dt; int64_t n, b; } hand[] = {
      {NX_BIT, 0, 0},  {NX_BIT, 1, 1},   {NX_BIT, 7, 1},   {NX_BIT, 8, 1},   {NX_BIT, 9, 2},
      {NX_BIT, 15, 2}, {NX_BIT, 17, 3},  {NX_BIT, 63, 8},  {NX_BIT, 65, 9},  {NX_INT4, 0, 0},
      {NX_INT4, 1, 1}, {NX_INT4, 2, 1},  {NX_INT4, 3, 2},  {NX_INT4, 5, 3},  {NX_UINT4, 7, 4},
      {NX_UINT4, 9, 5}, {NX_FLOAT4_E2M1FN, 1, 1}, {NX_FLOAT4_E2M1FN, 11, 6}, {NX_BOOL, 3, 3},
      {NX_FLOAT64, 3, 24}, {NX_COMPLEX128, 3, 48}, {NX_COMPLEX64, 5, 40}, {NX_FLOAT16, 7, 14},
      {NX_FLOAT8_E4M3FN, 0, 0},
  };
  for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++) {
    int64_t b = -5;
    int r = nx_dtype_bytes(hand[i].dt, hand[i].n, &b);
    CHECK(r == 0 && b == hand[i].b, "nx_dtype_bytes(%s, %lld) = %d, %lld; want 0, %lld", nx_dtype_name(hand[i].dt),
          (long long)hand[i].n, r, (long long)b, (long long)hand[i].b);
  }

  /* Many counts for every dtype. */
  static const int64_t ns[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 31, 33, 99, 100, 101,
                               1000, 1001, 4095, 4097, 12345, 1000003, (int64_t)1 << 40, ((int64_t)1 << 40) + 1};
  for (int i = 0; i < 21; i++)
    for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++) {
      int64_t b = -5, w = -6;
      int r = nx_dtype_bytes(rows[i].dt, ns[j], &b);
      want_bytes(rows[i].bits, ns[j], &w);
      CHECK(r == 0 && b == w, "nx_dtype_bytes(%s, %lld) = %d, %lld; want 0, %lld", rows[i].name, (long long)ns[j], r,
            (long long)b, (long long)w);
    }

  /* Negative counts. */
  static const int64_t negs[] = {-1, -2, -7, -8, -1000, INT64_MIN};
  for (int i = 0; i < 21; i++)
    for (size_t j = 0; j < sizeof negs / sizeof negs[0]; j++) {
      int64_t b = 0x5A5A;
      char op[32];
      snprintf(op, sizeof op, "%lld", (long long)negs[j]);
      prime("nx_dtype_bytes");
      int r = nx_dtype_bytes(rows[i].dt, negs[j], &b);
      CHECK(r == NX_EINVAL, "nx_dtype_bytes(%s, %lld) = %d, want NX_EINVAL", rows[i].name, (long long)negs[j], r);
      CHECK(b == 0x5A5A, "nx_dtype_bytes(%s, %lld) set b to %lld on failure", rows[i].name, (long long)negs[j],
            (long long)b);
      CHECK(says("nx_dtype_bytes", op) && says("nx_dtype_bytes", rows[i].name),
            "nx_dtype_bytes(%s, %lld): message \"%s\" should name nx_dtype_bytes, %s and %s", rows[i].name,
            (long long)negs[j], nx_error_message(), rows[i].name, op);
    }

  /* The edge of int64_t: the largest count whose bytes fit, and the next. The
     seed refuses only a number of bytes that does not fit; for the sub-byte
     formats and bool every count fits. */
  for (int i = 0; i < 21; i++) {
    int bits = rows[i].bits;
    int64_t largest = bits % 8 == 0 ? INT64_MAX / (bits / 8) : INT64_MAX;
    int64_t b = 0x5A5A, w = -1;
    want_bytes(bits, largest, &w);
    int r = nx_dtype_bytes(rows[i].dt, largest, &b);
    CHECK(r == 0 && b == w, "nx_dtype_bytes(%s, %lld) = %d, %lld; want 0, %lld (%s)", rows[i].name,
          (long long)largest, r, (long long)b, (long long)w, nx_error_message());
    b = 0x5A5A;
    r = nx_dtype_bytes(rows[i].dt, largest - 1, &b);
    want_bytes(bits, largest - 1, &w);
    CHECK(r == 0 && b == w, "nx_dtype_bytes(%s, %lld) = %d, %lld; want 0, %lld (%s)", rows[i].name,
          (long long)(largest - 1), r, (long long)b, (long long)w, nx_error_message());
    if (largest < INT64_MAX) {
      int64_t over[] = {largest + 1, INT64_MAX, INT64_MAX / 2 + 1};
      for (int k = 0; k < 3; k++) {
        if (over[k] <= largest) continue;
        char op[32];
        snprintf(op, sizeof op, "%lld", (long long)over[k]);
        b = 0x5A5A;
        prime("nx_dtype_bytes");
        r = nx_dtype_bytes(rows[i].dt, over[k], &b);
        CHECK(r == NX_EINVAL, "nx_dtype_bytes(%s, %lld) = %d, want NX_EINVAL (overflow)", rows[i].name,
              (long long)over[k], r);
        CHECK(b == 0x5A5A, "nx_dtype_bytes(%s, %lld) set b to %lld on failure", rows[i].name, (long long)over[k],
              (long long)b);
        CHECK(says("nx_dtype_bytes", op) && says("nx_dtype_bytes", rows[i].name),
              "nx_dtype_bytes(%s, %lld): message \"%s\" should name nx_dtype_bytes, %s and %s", rows[i].name,
              (long long)over[k], nx_error_message(), rows[i].name, op);
      }
    }
  }
  /* The brief's examples, spelled out. */
  {
    int64_t b = 0x5A5A;
    CHECK(nx_dtype_bytes(NX_FLOAT64, INT64_MAX, &b) == NX_EINVAL && b == 0x5A5A, "INT64_MAX float64 elements");
    b = 0x5A5A;
    CHECK(nx_dtype_bytes(NX_FLOAT64, INT64_MAX / 8, &b) == 0 && b == (INT64_MAX / 8) * 8,
          "nx_dtype_bytes(float64, INT64_MAX / 8) = %lld bytes, want %lld", (long long)b,
          (long long)((INT64_MAX / 8) * 8));
    b = 0x5A5A;
    int r = nx_dtype_bytes(NX_BIT, INT64_MAX, &b);
    CHECK(r == 0 && b == ((int64_t)1 << 60),
          "nx_dtype_bytes(bit, INT64_MAX) = %d, %lld; want 0, 2^60: ceil((2^63 - 1) / 8) fits in an int64_t (%s)", r,
          (long long)b, nx_error_message());
    b = 0x5A5A;
    r = nx_dtype_bytes(NX_BOOL, INT64_MAX, &b);
    CHECK(r == 0 && b == INT64_MAX, "nx_dtype_bytes(bool, INT64_MAX) = %d, %lld; want 0, INT64_MAX (%s)", r,
          (long long)b, nx_error_message());
  }
}

/* ---- names ------------------------------------------------------------------ */

static void test_names(void) {
  for (int i = 0; i < 21; i++) {
    const char *s = nx_dtype_name(rows[i].dt);
    CHECK(s != NULL && strcmp(s, rows[i].name) == 0, "nx_dtype_name(%d) = %s, want %s", i, s ? s : "(null)",
          rows[i].name);
    CHECK(nx_dtype_name(rows[i].dt) == s, "nx_dtype_name(%s) is not a static string", rows[i].name);
    nx_dtype dt = (nx_dtype)77;
    int r = nx_dtype_of_name(rows[i].name, &dt);
    CHECK(r == 0 && dt == rows[i].dt, "nx_dtype_of_name(\"%s\") = %d, dt %d", rows[i].name, r, (int)dt);
    /* A copy in another buffer: by contents, not by address. */
    char copy[32];
    snprintf(copy, sizeof copy, "%s", rows[i].name);
    dt = (nx_dtype)77;
    r = nx_dtype_of_name(copy, &dt);
    CHECK(r == 0 && dt == rows[i].dt, "nx_dtype_of_name(copy of \"%s\") = %d, dt %d", rows[i].name, r, (int)dt);
    /* The name with a trailing space, a leading space, one character short,
       upper case: none is a name. */
    char bad[40];
    const char *fmts[] = {"%s ", " %s", "%s\n", "%s_", "%sx"};
    for (int k = 0; k < 5; k++) {
      snprintf(bad, sizeof bad, fmts[k], rows[i].name);
      dt = (nx_dtype)77;
      r = nx_dtype_of_name(bad, &dt);
      CHECK(r == NX_NONE && dt == (nx_dtype)77, "nx_dtype_of_name(\"%s\") = %d, dt %d; want None", bad, r, (int)dt);
    }
    snprintf(bad, sizeof bad, "%s", rows[i].name);
    bad[strlen(bad) - 1] = 0;
    dt = (nx_dtype)77;
    r = nx_dtype_of_name(bad, &dt);
    CHECK(r == NX_NONE && dt == (nx_dtype)77, "nx_dtype_of_name(\"%s\") = %d; want None", bad, r);
    snprintf(bad, sizeof bad, "%s", rows[i].name);
    for (char *p = bad; *p; p++)
      if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
    dt = (nx_dtype)77;
    r = nx_dtype_of_name(bad, &dt);
    CHECK(r == NX_NONE && dt == (nx_dtype)77, "nx_dtype_of_name(\"%s\") = %d; want None", bad, r);
  }
  /* Distinct names. */
  for (int i = 0; i < 21; i++)
    for (int j = i + 1; j < 21; j++)
      CHECK(strcmp(nx_dtype_name(rows[i].dt), nx_dtype_name(rows[j].dt)) != 0, "%s and %s share a name",
            rows[i].name, rows[j].name);

  const char *nones[] = {"", "nosuch", "Float32", "FLOAT32", "float32 ", "float8", "float", "int", "uint",
                         "complex", "float4", "float8_e4m3", "float8_e4m3fnuz", "bfloat", "boolean", "bits",
                         "int128", "float128", "Bool", "NX_FLOAT32", "float 32", "\xff", "float32\t"};
  for (size_t i = 0; i < sizeof nones / sizeof nones[0]; i++) {
    nx_dtype dt = (nx_dtype)77;
    prime("nx_dtype_of_name");
    char before[256];
    snprintf(before, sizeof before, "%s", nx_error_message());
    int r = nx_dtype_of_name(nones[i], &dt);
    CHECK(r == NX_NONE && dt == (nx_dtype)77, "nx_dtype_of_name(\"%s\") = %d, dt %d; want None, dt unset", nones[i], r,
          (int)dt);
    CHECK(strcmp(before, nx_error_message()) == 0, "nx_dtype_of_name(\"%s\"): None is no failure, message now %s",
          nones[i], nx_error_message());
  }
  {
    nx_dtype dt = (nx_dtype)77;
    int r = nx_dtype_of_name(NULL, &dt);
    CHECK(r == NX_NONE && dt == (nx_dtype)77, "nx_dtype_of_name(NULL) = %d, dt %d; want None", r, (int)dt);
  }
  {
    /* 10^5 characters: all 'a', and a real name followed by many more. */
    size_t n = 100000;
    char *s = malloc(n + 1);
    CHECK(s != NULL, "malloc");
    if (s) {
      memset(s, 'a', n);
      s[n] = 0;
      nx_dtype dt = (nx_dtype)77;
      int r = nx_dtype_of_name(s, &dt);
      CHECK(r == NX_NONE && dt == (nx_dtype)77, "nx_dtype_of_name(10^5 x 'a') = %d; want None", r);
      memcpy(s, "float32", 7);
      dt = (nx_dtype)77;
      r = nx_dtype_of_name(s, &dt);
      CHECK(r == NX_NONE && dt == (nx_dtype)77, "nx_dtype_of_name(\"float32aaaa...\", 10^5 chars) = %d; want None", r);
      memset(s, ' ', n);
      memcpy(s, "bit", 3);
      dt = (nx_dtype)77;
      r = nx_dtype_of_name(s, &dt);
      CHECK(r == NX_NONE && dt == (nx_dtype)77, "nx_dtype_of_name(\"bit    ...\", 10^5 chars) = %d; want None", r);
      free(s);
    }
  }
}

/* ---- kinds and equality --------------------------------------------------- */

static void test_kinds(void) {
  const nx_kind kinds[] = {NX_KIND_FLOAT, NX_KIND_COMPLEX, NX_KIND_SIGNED, NX_KIND_UNSIGNED, NX_KIND_BOOLEAN};
  CHECK(NX_KIND_FLOAT == 0 && NX_KIND_COMPLEX == 1 && NX_KIND_SIGNED == 2 && NX_KIND_UNSIGNED == 3 &&
            NX_KIND_BOOLEAN == 4,
        "nx_kind in the seed's order");
  for (int i = 0; i < 21; i++) {
    CHECK(nx_dtype_kind(rows[i].dt) == rows[i].kind, "nx_dtype_kind(%s) = %d, want %d", rows[i].name,
          (int)nx_dtype_kind(rows[i].dt), (int)rows[i].kind);
    for (int k = 0; k < 5; k++)
      CHECK(nx_dtype_is(kinds[k], rows[i].dt) == (kinds[k] == rows[i].kind), "nx_dtype_is(%d, %s) = %d", k,
            rows[i].name, (int)nx_dtype_is(kinds[k], rows[i].dt));
    CHECK(!nx_dtype_is((nx_kind)5, rows[i].dt) && !nx_dtype_is((nx_kind)-1, rows[i].dt),
          "nx_dtype_is(no kind, %s) is true", rows[i].name);
  }
  for (int i = 0; i < 21; i++)
    for (int j = 0; j < 21; j++)
      CHECK(nx_dtype_equal(rows[i].dt, rows[j].dt) == (i == j), "nx_dtype_equal(%s, %s) = %d", rows[i].name,
            rows[j].name, (int)nx_dtype_equal(rows[i].dt, rows[j].dt));
}

/* ---- zero, one, min_value, max_value, holds ------------------------------- */

static nx_value vi(int64_t i) {
  nx_value v;
  memset(&v, 0, sizeof v);
  v.i = i;
  return v;
}
static nx_value vu(uint64_t u) {
  nx_value v;
  memset(&v, 0, sizeof v);
  v.u = u;
  return v;
}
static nx_value vf(double f) {
  nx_value v;
  memset(&v, 0, sizeof v);
  v.f = f;
  return v;
}

static void test_values(void) {
  for (int i = 0; i < 21; i++) {
    nx_value z = nx_dtype_zero(rows[i].dt), o = nx_dtype_one(rows[i].dt);
    const char *n = rows[i].name;
    switch (rows[i].kind) {
    case NX_KIND_FLOAT:
      CHECK(bits_of(z.f) == 0, "zero(%s).f = %a, want +0", n, z.f);
      CHECK(o.f == 1.0, "one(%s).f = %a", n, o.f);
      break;
    case NX_KIND_COMPLEX:
      CHECK(bits_of(z.c.re) == 0 && bits_of(z.c.im) == 0, "zero(%s) = %a%+ai", n, z.c.re, z.c.im);
      CHECK(o.c.re == 1.0 && bits_of(o.c.im) == 0, "one(%s) = %a%+ai", n, o.c.re, o.c.im);
      break;
    case NX_KIND_SIGNED:
      CHECK(z.i == 0 && o.i == 1, "zero/one(%s) = %lld, %lld", n, (long long)z.i, (long long)o.i);
      break;
    case NX_KIND_UNSIGNED:
      CHECK(z.u == 0 && o.u == 1, "zero/one(%s) = %llu, %llu", n, (unsigned long long)z.u,
            (unsigned long long)o.u);
      break;
    case NX_KIND_BOOLEAN:
      CHECK(z.b == false && o.b == true, "zero/one(%s) = %d, %d", n, (int)z.b, (int)o.b);
      break;
    }
  }

  /* min and max by kind. */
  static const struct {
    nx_dtype dt;
    double lo, hi;
  } fl[] = {
      {NX_FLOAT64, -INFINITY, INFINITY},       {NX_FLOAT32, -INFINITY, INFINITY},
      {NX_FLOAT16, -INFINITY, INFINITY},       {NX_BFLOAT16, -INFINITY, INFINITY},
      {NX_FLOAT8_E4M3FN, -448.0, 448.0},       {NX_FLOAT8_E5M2, -INFINITY, INFINITY},
      {NX_FLOAT4_E2M1FN, -6.0, 6.0},
  };
  for (size_t i = 0; i < sizeof fl / sizeof fl[0]; i++) {
    nx_value lo, hi;
    memset(&lo, 0xA5, sizeof lo);
    memset(&hi, 0xA5, sizeof hi);
    int r1 = nx_dtype_min_value(fl[i].dt, &lo), r2 = nx_dtype_max_value(fl[i].dt, &hi);
    CHECK(r1 == 0 && same(lo.f, fl[i].lo), "min_value(%s) = %d, %a; want %a", nx_dtype_name(fl[i].dt), r1, lo.f,
          fl[i].lo);
    CHECK(r2 == 0 && same(hi.f, fl[i].hi), "max_value(%s) = %d, %a; want %a", nx_dtype_name(fl[i].dt), r2, hi.f,
          fl[i].hi);
  }
  static const struct {
    nx_dtype dt;
    int64_t lo, hi;
  } si[] = {{NX_INT64, INT64_MIN, INT64_MAX}, {NX_INT32, INT32_MIN, INT32_MAX}, {NX_INT16, -32768, 32767},
            {NX_INT8, -128, 127},             {NX_INT4, -8, 7}};
  for (size_t i = 0; i < sizeof si / sizeof si[0]; i++) {
    nx_value lo, hi;
    int r1 = nx_dtype_min_value(si[i].dt, &lo), r2 = nx_dtype_max_value(si[i].dt, &hi);
    const char *n = nx_dtype_name(si[i].dt);
    CHECK(r1 == 0 && lo.i == si[i].lo, "min_value(%s) = %lld, want %lld", n, (long long)lo.i, (long long)si[i].lo);
    CHECK(r2 == 0 && hi.i == si[i].hi, "max_value(%s) = %lld, want %lld", n, (long long)hi.i, (long long)si[i].hi);
    /* holds at both edges, and one past each. */
    CHECK(nx_dtype_holds(si[i].dt, vi(si[i].lo)) && nx_dtype_holds(si[i].dt, vi(si[i].hi)) &&
              nx_dtype_holds(si[i].dt, vi(0)),
          "holds(%s) at its edges", n);
    if (si[i].lo > INT64_MIN)
      CHECK(!nx_dtype_holds(si[i].dt, vi(si[i].lo - 1)), "holds(%s, %lld) is true", n, (long long)(si[i].lo - 1));
    if (si[i].hi < INT64_MAX)
      CHECK(!nx_dtype_holds(si[i].dt, vi(si[i].hi + 1)), "holds(%s, %lld) is true", n, (long long)(si[i].hi + 1));
    CHECK(nx_dtype_holds(si[i].dt, vi(si[i].lo + 1)) && nx_dtype_holds(si[i].dt, vi(si[i].hi - 1)),
          "holds(%s) just inside", n);
    if (si[i].dt != NX_INT64)
      CHECK(!nx_dtype_holds(si[i].dt, vi(INT64_MIN)) && !nx_dtype_holds(si[i].dt, vi(INT64_MAX)),
            "holds(%s) of int64's extremes", n);
  }
  static const struct {
    nx_dtype dt;
    uint64_t hi;
  } ui[] = {{NX_UINT64, UINT64_MAX}, {NX_UINT32, 4294967295u}, {NX_UINT16, 65535}, {NX_UINT8, 255}, {NX_UINT4, 15}};
  for (size_t i = 0; i < sizeof ui / sizeof ui[0]; i++) {
    nx_value lo, hi;
    int r1 = nx_dtype_min_value(ui[i].dt, &lo), r2 = nx_dtype_max_value(ui[i].dt, &hi);
    const char *n = nx_dtype_name(ui[i].dt);
    CHECK(r1 == 0 && lo.u == 0, "min_value(%s) = %llu, want 0", n, (unsigned long long)lo.u);
    CHECK(r2 == 0 && hi.u == ui[i].hi, "max_value(%s) = %llu, want %llu", n, (unsigned long long)hi.u,
          (unsigned long long)ui[i].hi);
    CHECK(nx_dtype_holds(ui[i].dt, vu(0)) && nx_dtype_holds(ui[i].dt, vu(1)) && nx_dtype_holds(ui[i].dt, vu(ui[i].hi)) &&
              nx_dtype_holds(ui[i].dt, vu(ui[i].hi - 1)),
          "holds(%s) inside", n);
    if (ui[i].hi < UINT64_MAX) {
      CHECK(!nx_dtype_holds(ui[i].dt, vu(ui[i].hi + 1)), "holds(%s, %llu) is true", n,
            (unsigned long long)(ui[i].hi + 1));
      CHECK(!nx_dtype_holds(ui[i].dt, vu(UINT64_MAX)), "holds(%s, UINT64_MAX) is true", n);
    }
  }
  {
    nx_value lo, hi;
    CHECK(nx_dtype_min_value(NX_BOOL, &lo) == 0 && lo.b == false, "min_value(bool)");
    CHECK(nx_dtype_max_value(NX_BOOL, &hi) == 0 && hi.b == true, "max_value(bool)");
    CHECK(nx_dtype_min_value(NX_BIT, &lo) == 0 && lo.b == false, "min_value(bit)");
    CHECK(nx_dtype_max_value(NX_BIT, &hi) == 0 && hi.b == true, "max_value(bit)");
  }
  /* Complex numbers are not ordered. */
  const nx_dtype cx[] = {NX_COMPLEX128, NX_COMPLEX64};
  for (int i = 0; i < 2; i++) {
    const char *fns[] = {"nx_dtype_min_value", "nx_dtype_max_value"};
    for (int k = 0; k < 2; k++) {
      nx_value v, ref;
      memset(&v, 0xA5, sizeof v);
      memset(&ref, 0xA5, sizeof ref);
      prime(fns[k]);
      int r = k == 0 ? nx_dtype_min_value(cx[i], &v) : nx_dtype_max_value(cx[i], &v);
      CHECK(r == NX_EINVAL, "%s(%s) = %d, want NX_EINVAL", fns[k], nx_dtype_name(cx[i]), r);
      CHECK(memcmp(&v, &ref, sizeof v) == 0, "%s(%s) wrote its out-parameter on failure", fns[k],
            nx_dtype_name(cx[i]));
      CHECK(says(fns[k], nx_dtype_name(cx[i])), "%s(%s): message \"%s\"", fns[k], nx_dtype_name(cx[i]),
            nx_error_message());
    }
  }
  /* holds is true for every non-integer dtype, whatever the value. */
  const double odd[] = {0, -0.0, 1, -1, 0.1, 1e300, -1e300, INFINITY, -INFINITY, NAN, 1000, 7, 448.5};
  for (int i = 0; i < 21; i++) {
    if (rows[i].kind == NX_KIND_SIGNED || rows[i].kind == NX_KIND_UNSIGNED) continue;
    for (size_t j = 0; j < sizeof odd / sizeof odd[0]; j++) {
      nx_value v = vf(odd[j]);
      if (rows[i].kind == NX_KIND_COMPLEX) { memset(&v, 0, sizeof v); v.c.re = odd[j]; v.c.im = odd[j]; }
      if (rows[i].kind == NX_KIND_BOOLEAN) { memset(&v, 0, sizeof v); v.b = j % 2; }
      CHECK(nx_dtype_holds(rows[i].dt, v), "holds(%s, %a) is false", rows[i].name, odd[j]);
    }
  }
}

/* ---- of_float ------------------------------------------------------------- */

static void test_of_float(void) {
  /* Float formats: the seed's examples and the store rule's edges. */
  static const struct {
    nx_dtype dt;
    double x, want;
  } f[] = {
      {NX_FLOAT16, 0.1, 0x1.998p-4},
      {NX_FLOAT16, 65519.0, 65504.0},
      {NX_FLOAT16, 65520.0, INFINITY},
      {NX_FLOAT16, -65519.0, -65504.0},
      {NX_FLOAT16, -65520.0, -INFINITY},
      {NX_FLOAT16, 1e300, INFINITY},
      {NX_FLOAT16, 0x1p-24, 0x1p-24},
      {NX_FLOAT16, 0x1p-25, 0.0},
      {NX_FLOAT16, 0x1.8p-24, 0x1p-23},
      {NX_FLOAT16, 1.0 + 0x1p-11, 1.0},
      {NX_FLOAT16, 1.0 + 0x1p-11 + 0x1p-40, 1.0 + 0x1p-10},
      {NX_FLOAT16, 65520.0 - 0x1p-35, 65504.0},
      {NX_FLOAT8_E5M2, 61440.0, INFINITY},
      {NX_FLOAT8_E5M2, -61440.0, -INFINITY},
      {NX_FLOAT8_E5M2, 61439.0, 57344.0},
      {NX_FLOAT8_E5M2, 57344.0, 57344.0},
      {NX_FLOAT8_E5M2, INFINITY, INFINITY},
      {NX_FLOAT8_E4M3FN, 448.0, 448.0},
      {NX_FLOAT8_E4M3FN, 464.0, 448.0},
      {NX_FLOAT8_E4M3FN, 1000.0, 448.0},
      {NX_FLOAT8_E4M3FN, INFINITY, 448.0},
      {NX_FLOAT8_E4M3FN, -INFINITY, -448.0},
      {NX_FLOAT8_E4M3FN, 0x1p-9, 0x1p-9},
      {NX_FLOAT8_E4M3FN, 3.25, 3.25},
      {NX_FLOAT4_E2M1FN, 7.0, 6.0},
      {NX_FLOAT4_E2M1FN, 1e300, 6.0},
      {NX_FLOAT4_E2M1FN, -INFINITY, -6.0},
      {NX_FLOAT4_E2M1FN, 5.0, 4.0},
      {NX_FLOAT4_E2M1FN, 0.25, 0.0},
      {NX_FLOAT4_E2M1FN, 0.75, 1.0},
      {NX_FLOAT4_E2M1FN, 2.5, 2.0},
      {NX_FLOAT4_E2M1FN, 3.5, 4.0},
      {NX_FLOAT4_E2M1FN, -0.1, -0.0},
      {NX_FLOAT4_E2M1FN, NAN, 0.0},
      {NX_BFLOAT16, 1.0 + 0x1p-8, 1.0},
      {NX_BFLOAT16, 1.0 + 0x1p-8 + 0x1p-40, 1.0 + 0x1p-7},
      {NX_BFLOAT16, 0x1.fefffffffffep+127, 0x1.fep+127},
      {NX_FLOAT32, 0.1, 0x1.99999ap-4},
      {NX_FLOAT32, 0x1p-149, 0x1p-149},
      {NX_FLOAT32, 0x1p-150, 0.0},
      {NX_FLOAT32, 1e39, INFINITY},
      {NX_FLOAT64, 0.1, 0.1},
      {NX_FLOAT64, -0.0, -0.0},
      {NX_FLOAT16, -0.0, -0.0},
  };
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    nx_value v = nx_dtype_of_float(f[i].dt, f[i].x);
    CHECK(same(v.f, f[i].want), "of_float(%s, %a) = %a, want %a", nx_dtype_name(f[i].dt), f[i].x, v.f, f[i].want);
  }
  /* NaN stays a NaN of its sign where the format has NaNs. */
  const nx_dtype nanf[] = {NX_FLOAT64, NX_FLOAT32, NX_FLOAT16, NX_BFLOAT16, NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2};
  for (size_t i = 0; i < sizeof nanf / sizeof nanf[0]; i++) {
    nx_value p = nx_dtype_of_float(nanf[i], NAN), m = nx_dtype_of_float(nanf[i], -NAN);
    CHECK(is_nan(p.f) && !neg(p.f), "of_float(%s, nan) = %a", nx_dtype_name(nanf[i]), p.f);
    CHECK(is_nan(m.f) && neg(m.f), "of_float(%s, -nan) = %a", nx_dtype_name(nanf[i]), m.f);
  }
  {
    nx_value m = nx_dtype_of_float(NX_FLOAT4_E2M1FN, -NAN);
    CHECK(bits_of(m.f) == 0, "of_float(float4_e2m1fn, -nan) = %a, want +0", m.f);
  }
  /* The bit-level form of a few: NaN payloads and the e4m3fn NaN. */
  static const struct {
    nx_dtype dt;
    uint64_t x, want;
  } sb[] = {
      {NX_FLOAT16, 0x7FF8000000000000ull, 0x7E00},  {NX_FLOAT16, 0xFFF8000000000000ull, 0xFE00},
      {NX_FLOAT16, 0x7FF0000000000001ull, 0x7E00},  {NX_FLOAT16, 0x7FF4000000000000ull, 0x7F00},
      {NX_BFLOAT16, 0x7FF4000000000000ull, 0x7FE0}, {NX_FLOAT8_E4M3FN, 0x7FF8000000000000ull, 0x7F},
      {NX_FLOAT8_E4M3FN, 0xFFF8000000000000ull, 0xFF}, {NX_FLOAT8_E5M2, 0x7FF4000000000000ull, 0x7F},
      {NX_FLOAT4_E2M1FN, 0xFFF8000000000000ull, 0x0}, {NX_FLOAT16, 0x3FB999999999999Aull, 0x2E66},
      {NX_FLOAT8_E4M3FN, 0x3FB999999999999Aull, 0x1D}, {NX_FLOAT8_E5M2, 0x3FB999999999999Aull, 0x2E},
      {NX_FLOAT4_E2M1FN, 0x400921FB54442D18ull, 0x5}, {NX_FLOAT8_E4M3FN, 0xBFF0000000000000ull, 0xB8},
      {NX_INT8, 0xBFF0000000000000ull, 0xFF},        {NX_INT4, 0xC020000000000000ull, 0x8},
      {NX_BOOL, 0x8000000000000000ull, 0},           {NX_BIT, 0x7FF8000000000000ull, 1},
  };
  for (size_t i = 0; i < sizeof sb / sizeof sb[0]; i++) {
    uint64_t b = nx_dtype_store_bits((int)sb[i].dt, dbl_of(sb[i].x));
    CHECK(b == sb[i].want, "nx_dtype_store_bits(%s, %016llx) = %llx, want %llx", nx_dtype_name(sb[i].dt),
          (unsigned long long)sb[i].x, (unsigned long long)b, (unsigned long long)sb[i].want);
  }

  /* Integers truncate toward zero, saturate, NaN to 0. */
  static const struct {
    nx_dtype dt;
    double x;
    int64_t want;
  } s[] = {
      {NX_INT8, 3.9, 3},          {NX_INT8, -3.9, -3},          {NX_INT8, 127.9, 127},   {NX_INT8, 128, 127},
      {NX_INT8, -128.9, -128},    {NX_INT8, -129, -128},        {NX_INT8, 1e10, 127},    {NX_INT8, -1e10, -128},
      {NX_INT8, NAN, 0},          {NX_INT8, INFINITY, 127},     {NX_INT8, -INFINITY, -128}, {NX_INT8, -0.5, 0},
      {NX_INT4, 7.9, 7},          {NX_INT4, -8.9, -8},          {NX_INT4, 1e300, 7},     {NX_INT4, -INFINITY, -8},
      {NX_INT4, NAN, 0},          {NX_INT4, -1, -1},            {NX_INT16, 32767.5, 32767}, {NX_INT16, -40000, -32768},
      {NX_INT32, 2147483647.9, INT32_MAX}, {NX_INT32, -2147483648.9, INT32_MIN}, {NX_INT32, 1e12, INT32_MAX},
      {NX_INT64, 0x1p63, INT64_MAX}, {NX_INT64, -0x1p63, INT64_MIN}, {NX_INT64, 1e19, INT64_MAX},
      {NX_INT64, -1e19, INT64_MIN}, {NX_INT64, 0x1.fffffffffffffp62, 0x7FFFFFFFFFFFFC00ll}, {NX_INT64, NAN, 0},
      {NX_INT64, -123456789.75, -123456789},
  };
  for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
    nx_value v = nx_dtype_of_float(s[i].dt, s[i].x);
    CHECK(v.i == s[i].want, "of_float(%s, %a) = %lld, want %lld", nx_dtype_name(s[i].dt), s[i].x, (long long)v.i,
          (long long)s[i].want);
  }
  static const struct {
    nx_dtype dt;
    double x;
    uint64_t want;
  } u[] = {
      {NX_UINT8, -5, 0},        {NX_UINT8, -0.9, 0},      {NX_UINT8, 255.9, 255},   {NX_UINT8, 300, 255},
      {NX_UINT8, NAN, 0},       {NX_UINT8, INFINITY, 255}, {NX_UINT8, -INFINITY, 0}, {NX_UINT4, 16, 15},
      {NX_UINT4, -3, 0},        {NX_UINT4, 9.99, 9},      {NX_UINT16, 70000, 65535}, {NX_UINT32, 4294967295.5, 4294967295u},
      {NX_UINT32, 1e10, 4294967295u}, {NX_UINT32, -1, 0}, {NX_UINT64, 1e20, UINT64_MAX}, {NX_UINT64, 0x1p64, UINT64_MAX},
      {NX_UINT64, 0x1p63, (uint64_t)1 << 63}, {NX_UINT64, 0x1.fffffffffffffp63, 0xFFFFFFFFFFFFF800ull},
      {NX_UINT64, -1, 0},       {NX_UINT64, NAN, 0},      {NX_UINT64, INFINITY, UINT64_MAX},
  };
  for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
    nx_value v = nx_dtype_of_float(u[i].dt, u[i].x);
    CHECK(v.u == u[i].want, "of_float(%s, %a) = %llu, want %llu", nx_dtype_name(u[i].dt), u[i].x,
          (unsigned long long)v.u, (unsigned long long)u[i].want);
  }
  /* Booleans: x != 0, true for NaN. */
  const double bx[] = {0.0, -0.0, 1.0, -1.0, 0.5, 0x1p-1074, NAN, -NAN, INFINITY, -INFINITY};
  const bool bw[] = {false, false, true, true, true, true, true, true, true, true};
  for (size_t i = 0; i < sizeof bx / sizeof bx[0]; i++) {
    nx_value a = nx_dtype_of_float(NX_BOOL, bx[i]), b = nx_dtype_of_float(NX_BIT, bx[i]);
    CHECK(a.b == bw[i] && b.b == bw[i], "of_float(bool/bit, %a) = %d/%d, want %d", bx[i], (int)a.b, (int)b.b,
          (int)bw[i]);
  }
  /* Complex: x + 0i, x rounded to the component. */
  const double cx[] = {0.1, -2.5, 1e300, 1e-320, INFINITY, -0.0, 3.0};
  for (size_t i = 0; i < sizeof cx / sizeof cx[0]; i++) {
    nx_value a = nx_dtype_of_float(NX_COMPLEX128, cx[i]), b = nx_dtype_of_float(NX_COMPLEX64, cx[i]);
    nx_value fb = nx_dtype_of_float(NX_FLOAT32, cx[i]);
    CHECK(same(a.c.re, cx[i]) && bits_of(a.c.im) == 0, "of_float(complex128, %a) = %a%+ai", cx[i], a.c.re, a.c.im);
    CHECK(same(b.c.re, fb.f) && bits_of(b.c.im) == 0, "of_float(complex64, %a) = %a%+ai, want %a+0i", cx[i],
          b.c.re, b.c.im, fb.f);
  }
  {
    nx_value b = nx_dtype_of_float(NX_COMPLEX64, 0.1);
    CHECK(b.c.re == 0x1.99999ap-4, "of_float(complex64, 0.1).re = %a", b.c.re);
    nx_value n = nx_dtype_of_float(NX_COMPLEX128, NAN);
    CHECK(is_nan(n.c.re) && bits_of(n.c.im) == 0, "of_float(complex128, nan) = %a%+ai", n.c.re, n.c.im);
  }
  /* of_float's integer results are held, and of_float of a value gives it back. */
  for (int i = 0; i < 21; i++) {
    const double xs[] = {0, 1, -1, 5.5, -200, 1e30, -1e30};
    for (size_t j = 0; j < sizeof xs / sizeof xs[0]; j++)
      CHECK(nx_dtype_holds(rows[i].dt, nx_dtype_of_float(rows[i].dt, xs[j])), "holds(%s, of_float(%a))",
            rows[i].name, xs[j]);
  }
}

/* ---- float_format ---------------------------------------------------------- */

static void test_float_format(void) {
  static const struct {
    nx_dtype dt;
    int eb, fb;
    bool inf, nan;
    double eps, min_normal, max_finite;
  } ff[] = {
      {NX_FLOAT64, 11, 52, true, true, 0x1p-52, 0x1p-1022, 0x1.fffffffffffffp+1023},
      {NX_FLOAT32, 8, 23, true, true, 0x1p-23, 0x1p-126, 0x1.fffffep+127},
      {NX_FLOAT16, 5, 10, true, true, 0x1p-10, 0x1p-14, 65504.0},
      {NX_BFLOAT16, 8, 7, true, true, 0x1p-7, 0x1p-126, 0x1.fep+127},
      {NX_FLOAT8_E4M3FN, 4, 3, false, true, 0.125, 0x1p-6, 448.0},
      {NX_FLOAT8_E5M2, 5, 2, true, true, 0.25, 0x1p-14, 57344.0},
      {NX_FLOAT4_E2M1FN, 2, 1, false, false, 0.5, 1.0, 6.0},
  };
  for (size_t i = 0; i < sizeof ff / sizeof ff[0]; i++) {
    nx_float_format f;
    memset(&f, 0xA5, sizeof f);
    const char *n = nx_dtype_name(ff[i].dt);
    int r = nx_dtype_float_format(ff[i].dt, &f);
    CHECK(r == 0, "float_format(%s) = %d", n, r);
    CHECK(f.exponent_bits == ff[i].eb && f.fraction_bits == ff[i].fb, "float_format(%s): %d, %d bits", n,
          f.exponent_bits, f.fraction_bits);
    CHECK(f.infinities == ff[i].inf && f.nans == ff[i].nan, "float_format(%s): infinities %d, nans %d", n,
          (int)f.infinities, (int)f.nans);
    CHECK(f.epsilon == ff[i].eps, "float_format(%s).epsilon = %a, want %a", n, f.epsilon, ff[i].eps);
    CHECK(f.epsilon == pow2(-ff[i].fb), "float_format(%s).epsilon is not 2^-fraction_bits", n);
    CHECK(f.min_normal == ff[i].min_normal, "float_format(%s).min_normal = %a, want %a", n, f.min_normal,
          ff[i].min_normal);
    CHECK(f.max_finite == ff[i].max_finite, "float_format(%s).max_finite = %a, want %a", n, f.max_finite,
          ff[i].max_finite);
    /* Consistency with the other facts: 1 + epsilon is the next value after
       1, max_finite stores as itself, and a hair above 1 + eps/2 rounds up. */
    CHECK(nx_dtype_of_float(ff[i].dt, 1.0 + f.epsilon).f == 1.0 + f.epsilon, "%s: 1 + epsilon is a value", n);
    CHECK(nx_dtype_of_float(ff[i].dt, 1.0 + f.epsilon / 4).f == 1.0, "%s: 1 + epsilon/4 rounds to 1", n);
    CHECK(nx_dtype_of_float(ff[i].dt, f.max_finite).f == f.max_finite, "%s: max_finite is a value", n);
    CHECK(nx_dtype_of_float(ff[i].dt, f.min_normal).f == f.min_normal, "%s: min_normal is a value", n);
    CHECK(nx_dtype_bits(ff[i].dt) == 1 + f.exponent_bits + f.fraction_bits, "%s: sign + exponent + fraction", n);
  }
  for (int i = 0; i < 21; i++) {
    if (rows[i].kind == NX_KIND_FLOAT) continue;
    nx_float_format f, ref;
    memset(&f, 0xA5, sizeof f);
    memset(&ref, 0xA5, sizeof ref);
    prime("nx_dtype_float_format");
    int r = nx_dtype_float_format(rows[i].dt, &f);
    CHECK(r == NX_EINVAL, "float_format(%s) = %d, want NX_EINVAL", rows[i].name, r);
    CHECK(memcmp(&f, &ref, sizeof f) == 0, "float_format(%s) wrote its out-parameter on failure", rows[i].name);
    CHECK(says("nx_dtype_float_format", rows[i].name), "float_format(%s): message \"%s\"", rows[i].name,
          nx_error_message());
  }
}

/* ---- pp_value and format_value, a few of the seed's examples -------------- */

static void test_print(void) {
  char buf[NX_DTYPE_PP_MAX];
  static const struct {
    nx_dtype dt;
    double x;
    const char *want;
  } p[] = {
      {NX_FLOAT32, 0x1.99999ap-4, "0.1"}, {NX_FLOAT16, 65504.0, "65500"}, {NX_FLOAT8_E4M3FN, 448.0, "450"},
      {NX_FLOAT16, 0.015625, "0.01563"},   {NX_FLOAT64, 1.59e29, "1.59e+29"}, {NX_FLOAT16, 0x1p-24, "6e-08"},
      {NX_FLOAT64, INFINITY, "inf"},       {NX_FLOAT64, -INFINITY, "-inf"}, {NX_FLOAT64, NAN, "nan"},
      {NX_FLOAT8_E5M2, 57344.0, "60000"},  {NX_FLOAT4_E2M1FN, 1.5, "1.5"},
  };
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) {
    memset(buf, 0, sizeof buf);
    int r = nx_dtype_pp_value(p[i].dt, vf(p[i].x), buf, sizeof buf);
    CHECK(r == (int)strlen(p[i].want) && strcmp(buf, p[i].want) == 0, "pp_value(%s, %a) = %d \"%s\", want \"%s\" (%s)",
          nx_dtype_name(p[i].dt), p[i].x, r, buf, p[i].want, nx_error_message());
    r = nx_dtype_format_value((int)p[i].dt, p[i].x, buf, sizeof buf);
    CHECK(r == (int)strlen(p[i].want) && strcmp(buf, p[i].want) == 0, "format_value(%s, %a) = \"%s\"",
          nx_dtype_name(p[i].dt), p[i].x, buf);
  }
  {
    nx_value c;
    memset(&c, 0, sizeof c);
    c.c.re = 0.5;
    c.c.im = -2;
    int r = nx_dtype_pp_value(NX_COMPLEX64, c, buf, sizeof buf);
    CHECK(r == 6 && strcmp(buf, "0.5-2i") == 0, "pp_value(complex64, 0.5-2i) = \"%s\"", buf);
    r = nx_dtype_pp_value(NX_UINT32, vu(4294967295u), buf, sizeof buf);
    CHECK(r == 10 && strcmp(buf, "4294967295") == 0, "pp_value(uint32, max) = \"%s\"", buf);
    r = nx_dtype_pp_value(NX_UINT64, vu(UINT64_MAX), buf, sizeof buf);
    CHECK(strcmp(buf, "18446744073709551615") == 0, "pp_value(uint64, max) = \"%s\"", buf);
    r = nx_dtype_pp_value(NX_INT64, vi(INT64_MIN), buf, sizeof buf);
    CHECK(strcmp(buf, "-9223372036854775808") == 0, "pp_value(int64, min) = \"%s\"", buf);
    nx_value t;
    memset(&t, 0, sizeof t);
    t.b = true;
    r = nx_dtype_pp_value(NX_BIT, t, buf, sizeof buf);
    CHECK(r == 4 && strcmp(buf, "true") == 0, "pp_value(bit, true) = \"%s\"", buf);
  }
  /* Refusals: not a value of the format, out of range, too small a buffer. */
  {
    prime("nx_dtype_pp_value");
    int r = nx_dtype_pp_value(NX_FLOAT32, vf(0.1), buf, sizeof buf);
    CHECK(r == NX_EINVAL && says("nx_dtype_pp_value", "float32") && says("nx_dtype_pp_value", "0.1"),
          "pp_value(float32, 0.1) = %d, message \"%s\"", r, nx_error_message());
    prime("nx_dtype_pp_value");
    r = nx_dtype_pp_value(NX_INT8, vi(128), buf, sizeof buf);
    CHECK(r == NX_EINVAL && says("nx_dtype_pp_value", "128") && says("nx_dtype_pp_value", "int8"),
          "pp_value(int8, 128) = %d, message \"%s\"", r, nx_error_message());
    prime("nx_dtype_pp_value");
    r = nx_dtype_pp_value(NX_FLOAT16, vf(65504.0), buf, 5);
    CHECK(r == NX_EINVAL && says("nx_dtype_pp_value", "float16"), "pp_value(float16, 65504, cap 5) = %d, \"%s\"", r,
          nx_error_message());
    r = nx_dtype_pp_value(NX_FLOAT16, vf(65504.0), buf, 6);
    CHECK(r == 5 && strcmp(buf, "65500") == 0, "pp_value(float16, 65504, cap 6) = %d", r);
    prime("nx_dtype_format_value");
    r = nx_dtype_format_value(NX_INT8, 2.5, buf, sizeof buf);
    CHECK(r == -1 && says("nx_dtype_format_value", "int8") && says("nx_dtype_format_value", "2.5"),
          "format_value(int8, 2.5) = %d, \"%s\"", r, nx_error_message());
    prime("nx_dtype_format_value");
    r = nx_dtype_format_value(NX_BOOL, 2, buf, sizeof buf);
    CHECK(r == -1 && says("nx_dtype_format_value", "bool"), "format_value(bool, 2) = %d, \"%s\"", r,
          nx_error_message());
  }
}

/* ---- Codes that are no dtype ------------------------------------------------- */

static void test_invalid(void) {
  const int bad[] = {21, -1, 22, 1000, INT_MIN, INT_MAX};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    nx_dtype d = (nx_dtype)bad[i];
    char op[16];
    snprintf(op, sizeof op, "%d", bad[i]);
#define SAYS(fn) CHECK(says(fn, op), "%s(%s): message \"%s\" should name %s and %s", fn, op, nx_error_message(), fn, op)
    int r;
    prime("nx_dtype_code");
    r = nx_dtype_code(d);
    CHECK(r == -1, "nx_dtype_code(%s) = %d: the header gives -1", op, r);
    SAYS("nx_dtype_code");

    prime("nx_dtype_bits");
    r = nx_dtype_bits(d);
    CHECK(r == 0, "nx_dtype_bits(%s) = %d", op, r);
    SAYS("nx_dtype_bits");

    {
      int64_t b = 0x5A5A;
      prime("nx_dtype_bytes");
      r = nx_dtype_bytes(d, 10, &b);
      CHECK(r == NX_EINVAL && b == 0x5A5A, "nx_dtype_bytes(%s, 10) = %d, b %lld", op, r, (long long)b);
      SAYS("nx_dtype_bytes");
    }

    prime("nx_dtype_name");
    CHECK(nx_dtype_name(d) == NULL, "nx_dtype_name(%s) is not NULL", op);
    SAYS("nx_dtype_name");

    prime("nx_dtype_kind");
    CHECK(nx_dtype_kind(d) == NX_KIND_FLOAT, "nx_dtype_kind(%s) is not NX_KIND_FLOAT, as the header gives", op);
    SAYS("nx_dtype_kind");

    for (int k = 0; k < 5; k++) {
      prime("nx_dtype_is");
      CHECK(!nx_dtype_is((nx_kind)k, d), "nx_dtype_is(%d, %s) is true", k, op);
      SAYS("nx_dtype_is");
    }

    prime("nx_dtype_equal");
    CHECK(!nx_dtype_equal(d, NX_FLOAT64), "nx_dtype_equal(%s, float64) is true", op);
    SAYS("nx_dtype_equal");
    prime("nx_dtype_equal");
    CHECK(!nx_dtype_equal(NX_BIT, d), "nx_dtype_equal(bit, %s) is true", op);
    SAYS("nx_dtype_equal");
    prime("nx_dtype_equal");
    CHECK(!nx_dtype_equal(d, d), "nx_dtype_equal(%s, %s) is true: the header gives false for a non-dtype", op, op);
    SAYS("nx_dtype_equal");

    prime("nx_dtype_zero");
    (void)nx_dtype_zero(d);
    SAYS("nx_dtype_zero");
    prime("nx_dtype_one");
    (void)nx_dtype_one(d);
    SAYS("nx_dtype_one");

    {
      nx_value v, ref;
      memset(&v, 0xA5, sizeof v);
      memset(&ref, 0xA5, sizeof ref);
      prime("nx_dtype_min_value");
      r = nx_dtype_min_value(d, &v);
      CHECK(r == NX_EINVAL && memcmp(&v, &ref, sizeof v) == 0, "nx_dtype_min_value(%s) = %d", op, r);
      SAYS("nx_dtype_min_value");
      prime("nx_dtype_max_value");
      r = nx_dtype_max_value(d, &v);
      CHECK(r == NX_EINVAL && memcmp(&v, &ref, sizeof v) == 0, "nx_dtype_max_value(%s) = %d", op, r);
      SAYS("nx_dtype_max_value");
    }

    prime("nx_dtype_holds");
    CHECK(!nx_dtype_holds(d, vi(0)), "nx_dtype_holds(%s, 0) is true", op);
    SAYS("nx_dtype_holds");

    prime("nx_dtype_exact");
    CHECK(!nx_dtype_exact(d, NX_FLOAT64), "nx_dtype_exact(%s, float64) is true", op);
    SAYS("nx_dtype_exact");
    prime("nx_dtype_exact");
    CHECK(!nx_dtype_exact(NX_BOOL, d), "nx_dtype_exact(bool, %s) is true", op);
    SAYS("nx_dtype_exact");
    prime("nx_dtype_exact");
    CHECK(!nx_dtype_exact(d, d), "nx_dtype_exact(%s, %s) is true", op, op);
    SAYS("nx_dtype_exact");

    prime("nx_dtype_of_float");
    (void)nx_dtype_of_float(d, 1.5);
    SAYS("nx_dtype_of_float");

    {
      nx_float_format f, ref;
      memset(&f, 0xA5, sizeof f);
      memset(&ref, 0xA5, sizeof ref);
      prime("nx_dtype_float_format");
      r = nx_dtype_float_format(d, &f);
      CHECK(r == NX_EINVAL && memcmp(&f, &ref, sizeof f) == 0, "nx_dtype_float_format(%s) = %d", op, r);
      SAYS("nx_dtype_float_format");
    }

    {
      char buf[NX_DTYPE_PP_MAX];
      prime("nx_dtype_pp_value");
      r = nx_dtype_pp_value(d, vf(1.0), buf, sizeof buf);
      CHECK(r == NX_EINVAL, "nx_dtype_pp_value(%s) = %d", op, r);
      SAYS("nx_dtype_pp_value");
      prime("nx_dtype_format_value");
      r = nx_dtype_format_value(bad[i], 1.0, buf, sizeof buf);
      CHECK(r == -1, "nx_dtype_format_value(%s) = %d", op, r);
      SAYS("nx_dtype_format_value");
    }

    prime("nx_dtype_store_bits");
    CHECK(nx_dtype_store_bits(bad[i], 1.5) == 0, "nx_dtype_store_bits(%s, 1.5) is not 0", op);
    SAYS("nx_dtype_store_bits");
    prime("nx_dtype_load_bits");
    CHECK(nx_dtype_load_bits(bad[i], 0x3C00) == 0, "nx_dtype_load_bits(%s) is not 0", op);
    SAYS("nx_dtype_load_bits");
#undef SAYS
  }
}

/* ---- store_bits and load_bits on valid codes ------------------------------ */

static void test_bits_roundtrip(void) {
  /* Every code of the formats of a byte or less loads and stores back. */
  const nx_dtype small[] = {NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2, NX_FLOAT4_E2M1FN, NX_INT8, NX_UINT8, NX_INT4, NX_UINT4};
  for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
    int bits = nx_dtype_bits(small[i]), bad = 0;
    uint64_t first = 0;
    for (uint64_t c = 0; c < ((uint64_t)1 << bits); c++) {
      double x = nx_dtype_load_bits((int)small[i], c);
      uint64_t b = nx_dtype_store_bits((int)small[i], x);
      if (b != c && !(is_nan(x) && small[i] == NX_FLOAT8_E5M2 && b == (c | 0x02))) {
        if (!bad++) first = c;
      }
    }
    CHECK(bad == 0, "%s: %d codes do not store back, first %llx", nx_dtype_name(small[i]), bad,
          (unsigned long long)first);
  }
  CHECK(nx_dtype_load_bits(NX_FLOAT16, 0x3C00) == 1.0 && nx_dtype_load_bits(NX_BFLOAT16, 0x3F80) == 1.0 &&
            nx_dtype_load_bits(NX_FLOAT32, 0x3F800000) == 1.0 && nx_dtype_load_bits(NX_INT8, 0xFF) == -1.0 &&
            nx_dtype_load_bits(NX_UINT8, 0xFF) == 255.0 && nx_dtype_load_bits(NX_INT4, 0x8) == -8.0 &&
            nx_dtype_load_bits(NX_BOOL, 0x02) == 1.0 && nx_dtype_load_bits(NX_BIT, 0) == 0.0,
        "load_bits examples");
  CHECK(is_nan(nx_dtype_load_bits(NX_FLOAT8_E4M3FN, 0x7F)) && nx_dtype_load_bits(NX_FLOAT8_E4M3FN, 0x7E) == 448.0,
        "e4m3fn 0x7F is NaN, 0x7E is 448");
}

int main(void) {
  test_codes();
  test_bits_bytes();
  test_names();
  test_kinds();
  test_values();
  test_of_float();
  test_float_format();
  test_print();
  test_invalid();
  test_bits_roundtrip();
  return check_done();
}
