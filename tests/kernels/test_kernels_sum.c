/* SPDX-License-Identifier: Apache-2.0 */
/* float32 and float64 sums at each vector level this CPU runs (and the
   baseline loop): within the documented bound of MPFR's exact sum
   (docs/kernels.md: float32 |r - S| <= 2^-24 (|S| + 1.001 sum|x|), float64
   |r - S| <= 2^-53 |S| + 256 * 2^-53 sum|x| for contiguous runs), on random
   runs of awkward lengths and offsets and on inputs where a serial sum in
   the format breaks that bound (checked here too); the same bits at every
   level and at one thread and two. */
#include <mpfr.h>

#include "fast.h"
#include "kernels_common.h"

/* A float array of dt holding vals (doubles, exact in dt) from element off
   of a fresh array of n + off, as a view of its last n. */
static nx_array *array_of(nx_dtype dt, const double *vals, int64_t n, int64_t off) {
  int64_t full = n + off, st[1] = {off}, sp[1] = {n + off}, step[1] = {1};
  nx_array *a, *v;
  if (nx_array_host(dt, &full, 1, &a)) return NULL;
  char *p = nx_buffer_host_address(nx_array_buffer(a));
  for (int64_t i = 0; i < n; i++) {
    if (dt == NX_FLOAT32) {
      float f = (float)vals[i];
      memcpy(p + 4 * (i + off), &f, 4);
    } else memcpy(p + 8 * (i + off), &vals[i], 8);
  }
  nx_move m;
  nx_move_slice(&m, st, sp, step, 1);
  if (nx_array_move(&m, a, &v)) v = NULL;
  nx_array_free(a);
  return v;
}

static double nx_sum_of(nx_array *x) {
  nx_array *z;
  nx_value v = {.f = NAN};
  if (nx_sum_new(&z, x, NULL, -1, false) == 0) {
    nx_array_get(z, NULL, &v);
    nx_array_free(z);
  } else CHECK(0, "sum: %s", nx_error_message());
  return v.f;
}

/* Whether r is within the bound of dt's sum of vals (exact in MPFR); sets
   *err and *bound (as doubles, for messages). */
static bool within(nx_dtype dt, const double *vals, int64_t n, double r, double *err, double *bound) {
  mpfr_t s, a, e, b;
  mpfr_inits2(2200, s, a, e, b, (mpfr_ptr)0);
  mpfr_set_zero(s, 1);
  mpfr_set_zero(a, 1);
  for (int64_t i = 0; i < n; i++) {
    mpfr_add_d(s, s, vals[i], MPFR_RNDN);
    mpfr_add_d(a, a, fabs(vals[i]), MPFR_RNDN);
  }
  mpfr_set_d(e, r, MPFR_RNDN);
  mpfr_sub(e, e, s, MPFR_RNDN);
  mpfr_abs(e, e, MPFR_RNDN);
  mpfr_abs(s, s, MPFR_RNDN);
  if (dt == NX_FLOAT32) { /* 2^-24 (|S| + 1.001 sum|x|) */
    mpfr_mul_d(a, a, 1.001, MPFR_RNDU);
    mpfr_add(b, s, a, MPFR_RNDU);
    mpfr_mul_2si(b, b, -24, MPFR_RNDU);
  } else { /* 2^-53 (|S| + 256 sum|x|) */
    mpfr_mul_ui(a, a, 256, MPFR_RNDU);
    mpfr_add(b, s, a, MPFR_RNDU);
    mpfr_mul_2si(b, b, -53, MPFR_RNDU);
  }
  bool ok = mpfr_lessequal_p(e, b);
  *err = mpfr_get_d(e, MPFR_RNDU);
  *bound = mpfr_get_d(b, MPFR_RNDU);
  mpfr_clears(s, a, e, b, (mpfr_ptr)0);
  return ok;
}

/* A serial sum in dt's own format, the naive loop. */
static double serial(nx_dtype dt, const double *vals, int64_t n) {
  float f = 0;
  double d = 0;
  for (int64_t i = 0; i < n; i++) {
    f += (float)vals[i];
    d += vals[i];
  }
  return dt == NX_FLOAT32 ? f : d;
}

enum { LEVELS = NX__FAST_BEST };

/* nx's sum of vals (from element off) at every level: within the bound and
   the same bits at each; returns the result. */
static double check_levels(const char *what, nx_dtype dt, const double *vals, int64_t n, int64_t off) {
  nx_array *x = array_of(dt, vals, n, off);
  double first = NAN;
  int ran = 0;
  for (int level = NX__FAST_SCALAR; level < LEVELS; level++) {
    if (nx__fast_set_isa(level) != level) continue;
    double r = nx_sum_of(x), err, bound;
    CHECK(within(dt, vals, n, r, &err, &bound), "%s (%s, n %lld, offset %lld) at level %d: error %g over the bound %g",
          what, dt == NX_FLOAT32 ? "float32" : "float64", (long long)n, (long long)off, level, err, bound);
    if (ran++ == 0) first = r;
    else
      CHECK(bits_of(r) == bits_of(first), "%s (n %lld) at level %d: %a, the baseline loop %a", what, (long long)n,
            level, r, first);
  }
  nx__fast_set_isa(NX__FAST_BEST);
  nx_array_free(x);
  return first;
}

static void check_random(uint64_t *seed) {
  static const int64_t lengths[] = {1, 2, 31, 32, 33, 63, 64, 65, 127, 4095, 4096, 4097, 12289, 100003};
  int64_t most = 100003;
  double *v = malloc(sizeof(double) * (size_t)most);
  for (int dtk = 0; dtk < 2; dtk++) {
    nx_dtype dt = dtk ? NX_FLOAT64 : NX_FLOAT32;
    for (size_t k = 0; k < sizeof lengths / sizeof *lengths; k++) {
      int64_t n = lengths[k];
      for (int64_t i = 0; i < n; i++) {
        /* mixed signs and magnitudes over 2^-20 to 2^20 */
        double u = (double)(splitmix64_next(seed) >> 11) / 0x1p53 - 0.5;
        double m = ldexp(u, (int)(splitmix64_next(seed) % 41) - 20);
        v[i] = dt == NX_FLOAT32 ? (double)(float)m : m;
      }
      check_levels("random", dt, v, n, (int64_t)(k % 3));
    }
  }
  free(v);
}

/* Inputs a serial sum in the format gets badly wrong: a large first element
   that absorbs the small ones a serial loop adds to it, cancelled at the end. */
static void check_adversarial(void) {
  int64_t n = (int64_t)1 << 20;
  double *v = malloc(sizeof(double) * (size_t)n);
  /* float32: 2^24, then ones (each 1 + 2^24 rounds back to 2^24), -2^24 */
  v[0] = 0x1p24;
  for (int64_t i = 1; i < n - 1; i++) v[i] = 1;
  v[n - 1] = -0x1p24;
  double err, bound;
  CHECK(!within(NX_FLOAT32, v, n, serial(NX_FLOAT32, v, n), &err, &bound),
        "float32: a serial sum is within the bound (error %g, bound %g): the input is not adversarial", err, bound);
  check_levels("2^24, ones, -2^24", NX_FLOAT32, v, n, 0);
  /* float32: 1, then 2^-25 (under half an ulp of 1) */
  v[0] = 1;
  for (int64_t i = 1; i < n; i++) v[i] = 0x1p-25;
  CHECK(!within(NX_FLOAT32, v, n, serial(NX_FLOAT32, v, n), &err, &bound),
        "float32: a serial sum of 1, 2^-25, ... is within the bound");
  check_levels("1, 2^-25, ...", NX_FLOAT32, v, n, 1);
  /* float64: 1, then 2^-53 (half an ulp of 1, a tie to even), -1 */
  v[0] = 1;
  for (int64_t i = 1; i < n - 1; i++) v[i] = 0x1p-53;
  v[n - 1] = -1;
  CHECK(!within(NX_FLOAT64, v, n, serial(NX_FLOAT64, v, n), &err, &bound),
        "float64: a serial sum is within the bound (error %g, bound %g)", err, bound);
  check_levels("1, 2^-53, ..., -1", NX_FLOAT64, v, n, 0);
  free(v);
}

/* From 2^20 elements the pairwise tree's top is cut into the same pieces at
   any thread count. */
static void check_threads(uint64_t *seed) {
  int64_t n = (3 << 20) + 5;
  double *v = malloc(sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n; i++) v[i] = (double)(float)((double)(splitmix64_next(seed) >> 11) / 0x1p53 - 0.5);
  nx_array *x = array_of(NX_FLOAT32, v, n, 0);
  int threads = nx_num_threads();
  nx_set_num_threads(1);
  double one = nx_sum_of(x);
  nx_set_num_threads(2);
  double two = nx_sum_of(x);
  nx_set_num_threads(threads);
  CHECK(bits_of(one) == bits_of(two), "sum of %lld float32: %a on one thread, %a on two", (long long)n, one, two);
  double err, bound;
  CHECK(within(NX_FLOAT32, v, n, one, &err, &bound), "sum of %lld float32: error %g over the bound %g", (long long)n,
        err, bound);
  nx_array_free(x);
  free(v);
}

int main(void) {
  uint64_t seed = 17;
  check_random(&seed);
  check_adversarial();
  check_threads(&seed);
  return check_done();
}
