/* SPDX-License-Identifier: Apache-2.0 */
/* Reductions and scans: float32 sums against MPFR's exact sum (within one
   ulp of the correctly rounded one), integer sums wrapping, min/max with
   NaN, any/all, argmax/argmin first occurrence, cumsum against a loop, pad
   and cat against element reads, and nx_cast through the door. */
#include <math.h>
#include <mpfr.h>
#include <string.h>

#include "kernels_common.h"

static void check_sum_exact(uint64_t *seed) {
  int64_t n = 1 << 20, shape[1] = {n};
  nx_array *x = random_array(NX_FLOAT32, shape, 1, seed), *z;
  float *p = nx_buffer_host_address(nx_array_buffer(x));
  mpfr_t s;
  mpfr_init2(s, 2000);
  mpfr_set_zero(s, 1);
  for (int64_t i = 0; i < n; i++) {
    p[i] = (float)((double)(splitmix64_next(seed) >> 11) / 0x1p53 - 0.3);
    mpfr_add_d(s, s, p[i], MPFR_RNDN);
  }
  float want = mpfr_get_flt(s, MPFR_RNDN);
  CHECK(nx_sum_new(&z, x, NULL, -1, false) == 0, "sum: %s", nx_error_message());
  float got;
  memcpy(&got, nx_buffer_host_address(nx_array_buffer(z)), 4);
  CHECK(fabsf(got - want) <= nextafterf(fabsf(want), INFINITY) - fabsf(want), "sum %a, exact %a", got, want);
  nx_array_free(z);
  nx_array_free(x);
  mpfr_clear(s);
}

static void check_axes(uint64_t *seed) {
  int64_t shape[3] = {4, 5, 6};
  nx_array *x = random_array(NX_INT16, shape, 3, seed), *z;
  int axes[2] = {0, 2};
  CHECK(nx_sum_new(&z, x, axes, 2, false) == 0, "sum axes: %s", nx_error_message());
  for (int64_t j = 0; j < 5; j++) {
    int64_t want = 0;
    for (int64_t i = 0; i < 4; i++)
      for (int64_t k = 0; k < 6; k++) {
        int64_t ix[3] = {i, j, k};
        nx_value v;
        nx_array_get(x, ix, &v);
        want += v.i;
      }
    int64_t iz[1] = {j};
    nx_value v;
    nx_array_get(z, iz, &v);
    CHECK(v.i == (int16_t)want, "sum over 0, 2 at %lld: %lld, want %lld", (long long)j, (long long)v.i,
          (long long)(int16_t)want);
  }
  nx_array_free(z);
  /* max, argmax and cumsum along axis 1 of a transposed view */
  nx_array *t;
  nx_move m;
  int order[3] = {2, 1, 0};
  nx_move_permute(&m, order, 3);
  nx_array_move(&m, x, &t);
  nx_array *mx, *am, *cs;
  int ax = 1;
  CHECK(nx_reduce_max_new(&mx, t, &ax, 1, true) == 0, "max: %s", nx_error_message());
  CHECK(nx_argmax_new(&am, t, 1, false) == 0, "argmax: %s", nx_error_message());
  CHECK(nx_cumsum_new(&cs, t, 1) == 0, "cumsum: %s", nx_error_message());
  long bad = 0;
  for (int64_t i = 0; i < 6; i++)
    for (int64_t k = 0; k < 4; k++) {
      int64_t best = INT64_MIN, bi = -1, run = 0;
      for (int64_t j = 0; j < 5; j++) {
        int64_t ix[3] = {i, j, k};
        nx_value v, c;
        nx_array_get(t, ix, &v);
        run += v.i;
        nx_array_get(cs, ix, &c);
        bad += c.i != (int16_t)run;
        if (v.i > best) {
          best = v.i;
          bi = j;
        }
      }
      int64_t im[3] = {i, 0, k}, ia[2] = {i, k};
      nx_value v, a;
      nx_array_get(mx, im, &v);
      nx_array_get(am, ia, &a);
      bad += v.i != best;
      bad += a.i != bi;
    }
  CHECK(bad == 0, "max, argmax, cumsum of a transposed view: %ld wrong", bad);
  nx_array_free(mx);
  nx_array_free(am);
  nx_array_free(cs);
  nx_array_free(t);
  nx_array_free(x);
}

static void check_nan_any_all(void) {
  int64_t shape[1] = {5};
  nx_value xs[5] = {{.f = 1}, {.f = NAN}, {.f = 3}, {.f = NAN}, {.f = 0}};
  nx_array *x, *z;
  nx_array_of_array(NX_FLOAT32, shape, 1, xs, 5, &x);
  nx_value v;
  int64_t i0[1] = {0};
  CHECK(nx_reduce_min_new(&z, x, NULL, -1, false) == 0, "min: %s", nx_error_message());
  nx_array_get(z, NULL, &v);
  CHECK(isnan(v.f), "min propagates NaN: %g", v.f);
  nx_array_free(z);
  CHECK(nx_argmax_new(&z, x, 0, false) == 0, "argmax: %s", nx_error_message());
  nx_array_get(z, NULL, &v);
  CHECK(v.i == 1, "argmax: the first NaN: %lld", (long long)v.i);
  nx_array_free(z);
  CHECK(nx_all_new(&z, x, NULL, -1, false) == 0, "all: %s", nx_error_message());
  nx_array_get(z, NULL, &v);
  CHECK(!v.b, "all: false with a zero");
  nx_array_free(z);
  CHECK(nx_any_new(&z, x, NULL, -1, true) == 0, "any: %s", nx_error_message());
  nx_array_get(z, i0, &v);
  CHECK(v.b, "any: true");
  nx_array_free(z);
  nx_array_free(x);
}

static void check_assembly_cast(uint64_t *seed) {
  int64_t shape[2] = {3, 4};
  nx_array *x = random_view(NX_INT4, shape, 2, seed), *p, *c;
  int64_t before[2] = {1, 2}, after[2] = {0, 3};
  CHECK(nx_pad_new(&p, x, before, after, (nx_value){.i = -3}) == 0, "pad: %s", nx_error_message());
  long bad = 0;
  for (int64_t i = 0; i < 4; i++)
    for (int64_t j = 0; j < 9; j++) {
      int64_t ix[2] = {i, j}, iy[2] = {i - 1, j - 2};
      nx_value v, w;
      nx_array_get(p, ix, &v);
      bool in = i >= 1 && j >= 2 && j < 6;
      if (in) nx_array_get(x, iy, &w);
      bad += v.i != (in ? w.i : -3);
    }
  CHECK(bad == 0, "pad of a stepped int4 view: %ld wrong", bad);
  /* a fill value the dtype cannot hold: the refusal names nx_pad_new and x */
  nx_array *q = NULL;
  CHECK(nx_pad_new(&q, x, before, after, (nx_value){.i = 1000}) == NX_EINVAL && !q &&
            strstr(nx_error_message(), "nx_pad_new: the fill value is outside the range of int4 (int4 [3; 4]") != NULL,
        "pad with 1000 into int4: %s", nx_error_message());
  nx_array *xs[2] = {x, p};
  CHECK(nx_cat_new(&c, xs, 2, 0) == NX_EINVAL, "cat of unequal extents refuses");
  nx_array *xs2[2] = {x, x};
  CHECK(nx_cat_new(&c, xs2, 2, 1) == 0, "cat: %s", nx_error_message());
  for (int64_t i = 0; i < 3; i++)
    for (int64_t j = 0; j < 8; j++) {
      int64_t ix[2] = {i, j}, iy[2] = {i, j % 4};
      nx_value v, w;
      nx_array_get(c, ix, &v);
      nx_array_get(x, iy, &w);
      bad += v.i != w.i;
    }
  CHECK(bad == 0, "cat: %ld wrong", bad);
  nx_array *f;
  CHECK(nx_cast_new(&f, NX_FLOAT32, c) == 0, "cast: %s", nx_error_message());
  for (int64_t i = 0; i < 3; i++)
    for (int64_t j = 0; j < 8; j++) {
      int64_t ix[2] = {i, j};
      nx_value v, w;
      nx_array_get(c, ix, &v);
      nx_array_get(f, ix, &w);
      bad += w.f != (double)v.i;
    }
  CHECK(bad == 0, "cast int4 to float32: %ld wrong", bad);
  nx_array_free(f);
  nx_array_free(c);
  nx_array_free(p);
  nx_array_free(x);
}

/* Axis refusals say which fault: out of range (with the rank's bounds),
   given twice, or too many; a rank-0 array has no axis. */
static void check_axis_messages(uint64_t *seed) {
  int64_t shape[2] = {3, 4};
  nx_array *x = random_view(NX_FLOAT32, shape, 0, seed), *z = NULL, *s0 = NULL;
  nx_value v = {.f = 5};
  int far[1] = {2}, twice[2] = {1, -1}, three[3] = {0, 1, 0}, zero[1] = {0};
  CHECK(nx_sum_new(&z, x, far, 1, false) == NX_EINVAL && !z &&
            strstr(nx_error_message(), "nx_sum_new: axis 2 is out of range for float32 [3; 4] (rank 2: axes -2 to 1)"),
        "axis 2 of a rank-2 array: %s", nx_error_message());
  CHECK(nx_sum_new(&z, x, twice, 2, false) == NX_EINVAL && !z &&
            strstr(nx_error_message(), "nx_sum_new: axis -1 is given twice for float32 [3; 4]"),
        "axis 1 and -1: %s", nx_error_message());
  CHECK(nx_sum_new(&z, x, three, 3, false) == NX_EINVAL && !z && strstr(nx_error_message(), "3 axes given for float32 [3; 4] of rank 2"),
        "three axes of two: %s", nx_error_message());
  CHECK(nx_array_of_array(NX_FLOAT32, NULL, 0, &v, 1, &s0) == 0, "a rank-0 array: %s", nx_error_message());
  CHECK(nx_argmax_new(&z, s0, 0, false) == NX_EINVAL && !z &&
            strstr(nx_error_message(), "nx_argmax_new: axis 0 is out of range for float32 [] (rank 0: no axis)"),
        "argmax of a rank-0 array: %s", nx_error_message());
  CHECK(nx_sum_new(&z, s0, zero, 1, false) == NX_EINVAL && !z && strstr(nx_error_message(), "rank 0: no axis"),
        "sum over axis 0 of a rank-0 array: %s", nx_error_message());
  nx_array_free(s0);
  nx_array_free(x);
}

/* Complex prod and cumprod multiply as nx_mul does (C's Annex G, which
   recovers infinities): 1j x (inf+inf j) is -inf+inf j, and the product of
   inf+inf j alone (from 1+0i) is itself, not nan+nan j. */
static bool same_c(nx_value a, double re, double im) {
  return !memcmp(&a.c.re, &re, sizeof re) && !memcmp(&a.c.im, &im, sizeof im);
}
static void check_complex_prod(void) {
  for (int w = 0; w < 2; w++) {
    nx_dtype dt = w ? NX_COMPLEX128 : NX_COMPLEX64;
    nx_value v[2];
    memset(v, 0, sizeof v);
    v[0].c.im = 1, v[1].c.re = v[1].c.im = INFINITY;
    int64_t n2[1] = {2}, n1[1] = {1}, i1[1] = {1};
    nx_array *x = NULL, *one = NULL, *p = NULL, *q = NULL, *c = NULL;
    CHECK(nx_array_of_array(dt, n2, 1, v, 2, &x) == 0 && nx_array_of_array(dt, n1, 1, v + 1, 1, &one) == 0, "arrays");
    int ax[1] = {0};
    nx_value r = {0}, t = {0}, u = {0};
    CHECK(nx_prod_new(&p, x, ax, 1, false) == 0 && nx_array_get(p, NULL, &r) == 0 && same_c(r, -INFINITY, INFINITY),
          "%s prod [1j, inf+inf j]: %g%+gj, not -inf+inf j", nx_dtype_name(dt), r.c.re, r.c.im);
    CHECK(nx_cumprod_new(&c, x, 0) == 0 && nx_array_get(c, i1, &t) == 0 && same_c(t, -INFINITY, INFINITY),
          "%s cumprod [1j, inf+inf j]: %g%+gj", nx_dtype_name(dt), t.c.re, t.c.im);
    CHECK(nx_prod_new(&q, one, ax, 1, false) == 0 && nx_array_get(q, NULL, &u) == 0 && same_c(u, INFINITY, INFINITY),
          "%s prod [inf+inf j]: %g%+gj", nx_dtype_name(dt), u.c.re, u.c.im);
    nx_array_free(x), nx_array_free(one), nx_array_free(p), nx_array_free(q), nx_array_free(c);
  }
}

int main(void) {
  uint64_t seed = 9;
  check_sum_exact(&seed);
  check_axes(&seed);
  check_nan_any_all();
  check_assembly_cast(&seed);
  check_axis_messages(&seed);
  check_complex_prod();
  return check_done();
}
