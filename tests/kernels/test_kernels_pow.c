/* SPDX-License-Identifier: Apache-2.0 */
/* pow and atan2 against MPFR: every pair of float8_e4m3fn, float8_e5m2 and
   float4_e2m1fn inputs correctly rounded; random pairs of float16 and
   bfloat16 correctly rounded; float32 and float64 within 1 ulp on random
   pairs. Under sanitizers (NX_SAMPLED) fewer pairs. */
#include "kernels_common.h"
#include "mpfr_oracle.h"

typedef int (*bin_fn)(nx_array *, nx_array *, nx_array *);

static const struct {
  const char *name;
  bin_fn fn;
  mp2_fn mp;
} ops[] = {{"pow", nx_pow, mpfr_pow}, {"atan2", nx_atan2, mpfr_atan2}};

static void put(uint8_t *p, int bits, int64_t i, uint64_t b) {
  if (bits >= 8) memcpy(p + i * (bits / 8), &b, (size_t)bits / 8); /* little-endian low bytes */
  else nx_subbyte_put(p, i, bits, (uint8_t)b);
}

static uint64_t get(const uint8_t *p, int bits, int64_t i) {
  uint64_t b = 0;
  if (bits >= 8) memcpy(&b, p + i * (bits / 8), (size_t)bits / 8);
  else b = nx_subbyte_get(p, i, bits);
  return b;
}

static nx_array *host_array(nx_dtype dt, int64_t n, uint8_t **p) {
  nx_array *a = NULL;
  CHECK(nx_array_host(dt, &n, 1, &a) == 0, "array: %s", nx_error_message());
  nx_buffer_wait(nx_array_buffer(a), NX_ACCESS_READ_WRITE); /* the zeroing of a sub-byte array's last byte */
  *p = nx_buffer_host_address(nx_array_buffer(a));
  return a;
}

/* A random input of format dt: all bits, or a value near the functions'
   interesting range (pow: bases near 1, moderate exponents). */
static uint64_t sample(nx_dtype dt, uint64_t *seed, int which) {
  uint64_t r = splitmix64_next(seed);
  int bits = nx_dtype_bits(dt);
  if (r & 1) return bits == 64 ? r : r & ((1ull << bits) - 1);
  double v = (double)(r >> 11) / 0x1p53;
  v = which == 0 ? v * 4 : (v - 0.5) * 80; /* x in [0, 4), y in [-40, 40) */
  return nx_dtype_store_bits(dt, v);
}

/* Checks op over the pairs (xs[i], ys[i]): correctly rounded (small formats)
   or within 1 ulp (float32, float64). */
static void check_pairs(nx_dtype dt, int64_t n, const uint64_t *xs, const uint64_t *ys) {
  int bits = nx_dtype_bits(dt);
  uint8_t *px, *py, *pz;
  nx_array *x = host_array(dt, n, &px), *y = host_array(dt, n, &py), *z = host_array(dt, n, &pz);
  for (int64_t i = 0; i < n; i++) {
    put(px, bits, i, xs[i]);
    put(py, bits, i, ys[i]);
  }
  bool exact = bits <= 16;
  for (int op = 0; op < 2; op++) {
    CHECK(ops[op].fn(z, x, y) == 0, "%s of %s: %s", ops[op].name, nx_dtype_name(dt), nx_error_message());
    long bad = 0;
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
      double xv = nx_dtype_load_bits(dt, xs[i]), yv = nx_dtype_load_bits(dt, ys[i]);
      uint64_t got = get(pz, bits, i);
      double gv = nx_dtype_load_bits(dt, got);
      bool wrong;
      if (exact) {
        uint64_t want = mp_rounded(dt, NULL, ops[op].mp, xv, yv);
        wrong = got != want && !(isnan(nx_dtype_load_bits(dt, want)) && isnan(gv));
        if (wrong && bad < 3)
          CHECK(0, "%s of %s (%g, %g): %llx, want %llx", ops[op].name, nx_dtype_name(dt), xv, yv,
                (unsigned long long)got, (unsigned long long)want);
      } else {
        double e = mp_ulp_error(dt, NULL, ops[op].mp, xv, yv, gv);
        if (e > worst) worst = e;
        wrong = e > 1;
        if (wrong && bad < 3) CHECK(0, "%s of %s (%a, %a): %a, %g ulp", ops[op].name, nx_dtype_name(dt), xv, yv, gv, e);
      }
      bad += wrong;
    }
    CHECK(bad == 0, "%s of %s: %ld of %lld pairs wrong", ops[op].name, nx_dtype_name(dt), bad, (long long)n);
    if (exact) printf("%s %s: %ld of %lld pairs not correctly rounded\n", ops[op].name, nx_dtype_name(dt), bad, (long long)n);
    else printf("%s %s: max %.3f ulp over %lld pairs\n", ops[op].name, nx_dtype_name(dt), worst, (long long)n);
  }
  nx_array_free(x);
  nx_array_free(y);
  nx_array_free(z);
}

static void every_pair(nx_dtype dt) {
  int bits = nx_dtype_bits(dt);
  int64_t m = (int64_t)1 << bits, n = m * m;
  uint64_t *xs = malloc((size_t)n * 8), *ys = malloc((size_t)n * 8);
  for (int64_t i = 0; i < n; i++) {
    xs[i] = (uint64_t)(i / m);
    ys[i] = (uint64_t)(i % m);
  }
  check_pairs(dt, n, xs, ys);
  free(xs);
  free(ys);
}

static void random_pairs(nx_dtype dt, int64_t n, uint64_t *seed) {
  uint64_t *xs = malloc((size_t)n * 8), *ys = malloc((size_t)n * 8);
  for (int64_t i = 0; i < n; i++) {
    xs[i] = sample(dt, seed, 0);
    ys[i] = sample(dt, seed, 1);
  }
  check_pairs(dt, n, xs, ys);
  free(xs);
  free(ys);
}

/* A NaN first operand gives its own NaN, quieted, whatever the second is
   (docs/kernels.md), in every float format with NaNs: two NaNs of other
   signs and payloads (quiet and signalling), and a NaN against a number;
   pow(NaN, 0) stays 1. glibc's atan2 and powl return the second of two
   NaNs, which float64 pow and every atan2 gave. */
static void nan_first(void) {
  static const struct {
    nx_dtype dt;
    uint64_t a, b; /* two NaNs */
  } fmt[] = {{NX_FLOAT64, 0x7FF8000000000001ull, 0xFFF4000000000002ull},
             {NX_FLOAT32, 0x7FC00001u, 0xFFA00002u},
             {NX_FLOAT16, 0x7E01u, 0xFD02u},
             {NX_BFLOAT16, 0x7FC1u, 0xFFA2u},
             {NX_FLOAT8_E4M3FN, 0x7Fu, 0xFFu},
             {NX_FLOAT8_E5M2, 0x7Eu, 0xFDu}};
  for (size_t d = 0; d < sizeof fmt / sizeof *fmt; d++) {
    nx_dtype dt = fmt[d].dt;
    int bits = nx_dtype_bits(dt);
    uint64_t two = nx_dtype_store_bits(dt, 2.0), one = nx_dtype_store_bits(dt, 1.0);
    uint64_t zero = nx_dtype_store_bits(dt, 0.0);
    /* (x, y) pairs; x a NaN, and the bits of x quieted expected but where y is 0 in pow */
    const uint64_t xs[] = {fmt[d].a, fmt[d].b, fmt[d].a, fmt[d].b, fmt[d].b, fmt[d].a};
    const uint64_t ys[] = {fmt[d].b, fmt[d].a, two, one, zero, fmt[d].a};
    enum { N = 6 };
    uint8_t *px, *py, *pz;
    nx_array *x = host_array(dt, N, &px), *y = host_array(dt, N, &py), *z = host_array(dt, N, &pz);
    for (int i = 0; i < N; i++) {
      put(px, bits, i, xs[i]);
      put(py, bits, i, ys[i]);
    }
    for (int op = 0; op < 2; op++) {
      CHECK(ops[op].fn(z, x, y) == 0, "%s of %s: %s", ops[op].name, nx_dtype_name(dt), nx_error_message());
      for (int i = 0; i < N; i++) {
        uint64_t want = op == 0 && ys[i] == zero ? one : nx_dtype_store_bits(dt, nx_dtype_load_bits(dt, xs[i]));
        uint64_t got = get(pz, bits, i);
        CHECK(got == want, "%s of %s (%llx, %llx): %llx, want %llx", ops[op].name, nx_dtype_name(dt),
              (unsigned long long)xs[i], (unsigned long long)ys[i], (unsigned long long)got, (unsigned long long)want);
      }
    }
    nx_array_free(x);
    nx_array_free(y);
    nx_array_free(z);
  }
}

int main(void) {
#if defined(NX_SAMPLED)
  int64_t n16 = 1 << 13, n32 = 1 << 12;
#else
  int64_t n16 = 1 << 18, n32 = 1 << 17;
#endif
  nan_first();
  every_pair(NX_FLOAT8_E4M3FN);
  every_pair(NX_FLOAT8_E5M2);
  every_pair(NX_FLOAT4_E2M1FN);
  uint64_t seed = 11;
  random_pairs(NX_FLOAT16, n16, &seed);
  random_pairs(NX_BFLOAT16, n16, &seed);
  random_pairs(NX_FLOAT32, n32, &seed);
  random_pairs(NX_FLOAT64, n32, &seed);
  return check_done();
}
