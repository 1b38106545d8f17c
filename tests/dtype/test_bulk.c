/* SPDX-License-Identifier: Apache-2.0 */
/* nx_dtype_store_n and nx_dtype_load_n against the scalar entry points,
   element by element and bit for bit, at every instruction-set level this CPU
   runs: over every code of the formats of 16 bits or fewer (each value, its
   double neighbours, the midpoints between codes and theirs), the special
   values, integer boundaries and random doubles; lengths around every vector
   width, unaligned buffers, packed tails; and the refusals. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "nx_dtype.h"
#include "../../src/dtype/dtype_internal.h"

static uint64_t rng = 42;

/* The inputs: built once, run through every dtype and level. */
static double *xs;
static size_t nxs, cap;
static void add(double x) {
  if (nxs == cap) xs = realloc(xs, (cap = cap ? 2 * cap : 1 << 16) * sizeof *xs);
  xs[nxs++] = x;
}
static void add_bits(uint64_t u) { add(dbl_of(u)); }
/* u and its neighbours among doubles of the same sign. */
static void add_near(uint64_t u) {
  add_bits(u);
  if ((u & ~SIGN64) != 0) add_bits(u - 1);
  if ((u & ~SIGN64) < EXP64) add_bits(u + 1);
}

static void make_inputs(void) {
  static const int small[] = {NX_FLOAT16, NX_BFLOAT16, NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2, NX_FLOAT4_E2M1FN};
  for (size_t f = 0; f < sizeof small / sizeof small[0]; f++) {
    int c = small[f], bits = nx_dtype_bits_of(c);
    for (uint64_t b = 0; b < ((uint64_t)1 << bits); b++) {
      double v = nx_dtype_load_bits(c, b), w = nx_dtype_load_bits(c, b + 1);
      add_near(bits_of(v));
      /* The midpoint with the next code, exact in a double (both have few
         significant bits), where that code is a finite value of the same sign. */
      if (b + 1 < ((uint64_t)1 << bits) && v == v && w == w && (bits_of(v) >> 63) == (bits_of(w) >> 63) &&
          w - w == 0 && v - v == 0)
        add_near(bits_of((v + w) / 2));
    }
  }
  static const uint64_t special[] = {0, SIGN64, EXP64, SIGN64 | EXP64, EXP64 | 1, EXP64 | (1ull << 51),
                                     SIGN64 | EXP64 | 0x123456789ull, EXP64 | FRAC64, 1, FRAC64, 0x0010000000000000ull,
                                     0x7FEFFFFFFFFFFFFFull, 0x47EFFFFFE0000000ull, 0x47EFFFFFF0000000ull};
  for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) add_near(special[i]);
  /* Integer boundaries: +-2^k and the halves around them, to 2^65. */
  for (int k = -2; k <= 65; k++)
    for (int s = 0; s < 2; s++) add_near(((uint64_t)s << 63) | ((uint64_t)(1023 + k) << 52));
  for (int i = 0; i < 200000; i++) {
    uint64_t r = splitmix64_next(&rng);
    if (i & 1) add_bits(r); /* any bits: every exponent, NaNs */
    else add_bits((r & (SIGN64 | FRAC64)) | ((uint64_t)(1023 - 40 + (r >> 52) % 100) << 52)); /* -40 .. 60 binades */
  }
}

/* The packed bits of element i of dtype c at p. */
static uint64_t element(int c, const uint8_t *p, size_t i) {
  int bits = nx_dtype_bits_of(c);
  if (bits < 8) return nx_subbyte_get(p, (nx_i64)i, bits);
  uint64_t v = 0;
  memcpy(&v, p + i * (size_t)(bits / 8), bits > 64 ? 8 : (size_t)bits / 8); /* a complex one's real part */
  return v;
}

static size_t bytes_of(int c, size_t n) { return (n * (size_t)nx_dtype_bits_of(c) + 7) / 8; }

/* store_n of xs[0..n) at offset off of a buffer of 0xA5 bytes: every element
   the scalar store's bits, a complex one's imaginary part 0, and every byte
   (and bit of a partial one) past the last element as it was. */
static void check_store(int level, int c, const double *x, size_t n, size_t off) {
  size_t nb = bytes_of(c, n);
  uint8_t *buf = malloc(nb + off + 32);
  memset(buf, 0xA5, nb + off + 32);
  int rc = nx_dtype_store_n((nx_dtype)c, x, buf + off, (int64_t)n);
  CHECK(rc == 0, "level %d %s n %zu: status %d", level, nx_dtype_name(c), n, rc);
  long bad = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t want = nx_dtype_store_bits(c, x[i]), got = element(c, buf + off, i);
    if (got != want && bad++ < 3)
      CHECK(got == want, "level %d %s: x = %a (%016llx) stores %llx, the scalar store %llx", level,
            nx_dtype_name(c), x[i], (unsigned long long)bits_of(x[i]), (unsigned long long)got,
            (unsigned long long)want);
    if (nx_dtype_bits_of(c) > 64) {
      uint64_t im;
      memcpy(&im, buf + off + 16 * i + 8, 8);
      if (im != 0 && bad++ < 3) CHECK(im == 0, "level %d complex128: imaginary bits %llx", level, (unsigned long long)im);
    } else if (c == NX_COMPLEX64) {
      uint32_t im;
      memcpy(&im, buf + off + 8 * i + 4, 4);
      if (im != 0 && bad++ < 3) CHECK(im == 0, "level %d complex64: imaginary bits %x", level, im);
    }
  }
  CHECK(bad == 0, "level %d %s n %zu off %zu: %ld elements differ from the scalar store", level, nx_dtype_name(c), n,
        off, bad);
  int bits = nx_dtype_bits_of(c);
  if (bits < 8 && (n * (size_t)bits) % 8) { /* the rest of the last byte kept */
    unsigned keep = 0xFFu << ((n * (size_t)bits) % 8) & 0xFF;
    CHECK((buf[off + nb - 1] & keep) == (0xA5 & keep), "level %d %s n %zu: last byte %02x, bits past the end changed",
          level, nx_dtype_name(c), n, buf[off + nb - 1]);
  }
  int past = 1;
  for (size_t i = 0; i < off; i++) past &= buf[i] == 0xA5;
  for (size_t i = off + nb; i < off + nb + 32; i++) past &= buf[i] == 0xA5;
  CHECK(past, "level %d %s n %zu off %zu: a byte outside the elements changed", level, nx_dtype_name(c), n, off);
  free(buf);
}

/* load_n of n elements of random bytes (or every code, for a small format)
   at offset off: each the scalar load's double, bit for bit. */
static void check_load(int level, int c, size_t n, size_t off, int every_code) {
  size_t nb = bytes_of(c, n);
  uint8_t *buf = malloc(nb + off + 8);
  double *x = malloc((n + 1) * sizeof *x);
  for (size_t i = 0; i < nb + off + 8; i++) buf[i] = (uint8_t)splitmix64_next(&rng);
  if (every_code) /* element i holds code i */
    for (size_t i = 0; i < n; i++) {
      uint64_t b = i;
      if (nx_dtype_bits_of(c) < 8) nx_subbyte_put(buf + off, (nx_i64)i, nx_dtype_bits_of(c), (nx_u8)b);
      else memcpy(buf + off + i * (size_t)(nx_dtype_bits_of(c) / 8), &b, (size_t)nx_dtype_bits_of(c) / 8);
    }
  x[n] = 12345.0;
  int rc = nx_dtype_load_n((nx_dtype)c, buf + off, x, (int64_t)n);
  CHECK(rc == 0, "level %d %s: load status %d", level, nx_dtype_name(c), rc);
  long bad = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t b = element(c, buf + off, i);
    double want = nx_dtype_load_bits(c, b);
    if (bits_of(x[i]) != bits_of(want) && bad++ < 3)
      CHECK(bits_of(x[i]) == bits_of(want), "level %d %s: bits %llx load %a, the scalar load %a", level,
            nx_dtype_name(c), (unsigned long long)b, x[i], want);
  }
  CHECK(bad == 0, "level %d %s n %zu: %ld loads differ from the scalar load", level, nx_dtype_name(c), n, bad);
  CHECK(x[n] == 12345.0, "level %d %s n %zu: a double past the last element changed", level, nx_dtype_name(c), n);
  free(buf);
  free(x);
}

static int says(const char *fn, const char *op) {
  const char *m = nx_error_message();
  return m && strstr(m, fn) && strstr(m, op);
}

static void check_refusals(void) {
  double x[4] = {1, 2, 3, 4}, y[4] = {0};
  uint8_t out[32];
  memset(out, 0x5A, sizeof out);
  CHECK(nx_dtype_store_n(NX_FLOAT16, NULL, out, 4) == NX_EINVAL && says("nx_dtype_store_n", "x is NULL"), "%s",
        nx_error_message());
  CHECK(nx_dtype_store_n(NX_FLOAT16, x, NULL, 4) == NX_EINVAL && says("nx_dtype_store_n", "out is NULL"), "%s",
        nx_error_message());
  CHECK(nx_dtype_store_n(NX_FLOAT16, x, out, -1) == NX_EINVAL && says("nx_dtype_store_n", "-1"), "%s",
        nx_error_message());
  CHECK(nx_dtype_store_n(NX_FLOAT16, x, out, INT64_MIN) == NX_EINVAL && says("nx_dtype_store_n", "negative"), "%s",
        nx_error_message());
  CHECK(nx_dtype_store_n((nx_dtype)21, x, out, 4) == NX_EINVAL && says("nx_dtype_store_n", "21"), "%s",
        nx_error_message());
  CHECK(nx_dtype_store_n((nx_dtype)-1, x, out, 4) == NX_EINVAL && says("nx_dtype_store_n", "-1"), "%s",
        nx_error_message());
  int untouched = 1;
  for (size_t i = 0; i < sizeof out; i++) untouched &= out[i] == 0x5A;
  CHECK(untouched, "a refused store wrote");
  CHECK(nx_dtype_load_n(NX_INT8, NULL, y, 4) == NX_EINVAL && says("nx_dtype_load_n", "in is NULL"), "%s",
        nx_error_message());
  CHECK(nx_dtype_load_n(NX_INT8, out, NULL, 4) == NX_EINVAL && says("nx_dtype_load_n", "x is NULL"), "%s",
        nx_error_message());
  CHECK(nx_dtype_load_n(NX_INT8, out, y, -7) == NX_EINVAL && says("nx_dtype_load_n", "-7"), "%s",
        nx_error_message());
  CHECK(nx_dtype_load_n((nx_dtype)99, out, y, 4) == NX_EINVAL && says("nx_dtype_load_n", "99"), "%s",
        nx_error_message());
  CHECK(y[0] == 0 && y[3] == 0, "a refused load wrote");
  /* n = 0 writes nothing and succeeds. */
  CHECK(nx_dtype_store_n(NX_BIT, x, out, 0) == 0 && out[0] == 0x5A, "store of 0 elements");
  CHECK(nx_dtype_load_n(NX_BIT, out, y, 0) == 0 && y[0] == 0, "load of 0 elements");
}

int main(void) {
  make_inputs();
  int best = nx__dtype_bulk_levels();
  printf("levels 0 to %d, %zu inputs\n", best, nxs);
  for (int level = 0; level <= best; level++) {
    nx__dtype_bulk_force(level);
    for (int c = 0; c < NX_DTYPE_COUNT; c++) {
      check_store(level, c, xs, nxs, 0);
      /* Short and odd lengths, unaligned: every vector epilogue and tail. */
      for (size_t n = 0; n <= 70; n++) check_store(level, c, xs + 1000 + 37 * n, n, n % 3);
      int bits = nx_dtype_bits_of(c);
      if (bits <= 16) check_load(level, c, (size_t)1 << bits, 0, 1);
      check_load(level, c, 100003, 1, 0);
      for (size_t n = 0; n <= 70; n++) check_load(level, c, n, n % 5, 0);
    }
  }
  nx__dtype_bulk_force(-1);
  check_refusals();
  free(xs);
  return check_done();
}
