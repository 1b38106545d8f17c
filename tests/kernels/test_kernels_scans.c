/* SPDX-License-Identifier: Apache-2.0 */
/* cumprod, cummax and cummin along each axis of random views of several
   dtypes, NaN included, against a loop over nx_array_get (floats: the
   double accumulator stored once per element, as documented); any and all
   of bool and bit (and of float with NaN) over every axis set; nx_contiguous:
   the array itself where C-contiguous, a C-contiguous copy elsewhere. */
#include "kernels_common.h"

typedef int (*scan_fn)(nx_array *, nx_array *, int);

/* The reference of scan op (0 cumprod, 1 cummax, 2 cummin) at one element:
   acc is the running value (double for floats, int64/uint64 for integers). */
static nx_value step(int op, nx_dtype dt, nx_value acc, nx_value v, bool first) {
  if (first) return v;
  int k = nx_dtype_kind(dt);
  nx_value r = acc;
  if (k == NX_KIND_FLOAT) {
    double a = acc.f, b = v.f;
    if (op == 0) r.f = a * b;
    else if (isnan(a) || isnan(b)) r.f = isnan(a) ? a : b;
    else if (a == b) r.f = (signbit(a) != 0) == (op == 2) ? a : b; /* -0 < +0 */
    else r.f = (op == 1) == (b > a) ? b : a;
  } else if (k == NX_KIND_SIGNED) {
    if (op == 0) r.i = (int64_t)((uint64_t)acc.i * (uint64_t)v.i);
    else r.i = (op == 1) == (v.i > acc.i) ? v.i : acc.i;
  } else if (k == NX_KIND_UNSIGNED) {
    if (op == 0) r.u = acc.u * v.u;
    else r.u = (op == 1) == (v.u > acc.u) ? v.u : acc.u;
  } else {
    r.b = op == 1 ? (acc.b || v.b) : (acc.b && v.b);
  }
  return r;
}

/* The bits a value of dt stores as (integers wrapped to the width). */
static uint64_t store_of(nx_dtype dt, nx_value v) {
  int bits = nx_dtype_bits(dt);
  uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  switch (nx_dtype_kind(dt)) {
  case NX_KIND_FLOAT: return nx_dtype_store_bits(dt, v.f);
  case NX_KIND_SIGNED: return (uint64_t)v.i & mask;
  case NX_KIND_UNSIGNED: return v.u & mask;
  default: return v.b;
  }
}

static void check_scans(uint64_t *seed) {
  static const nx_dtype dts[] = {NX_FLOAT32, NX_FLOAT16, NX_BFLOAT16, NX_FLOAT64, NX_INT32, NX_UINT8, NX_INT4, NX_INT64};
  scan_fn fns[3] = {nx_cumprod, nx_cummax, nx_cummin};
  const char *names[3] = {"cumprod", "cummax", "cummin"};
  int64_t shape[2] = {6, 9};
  for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
    for (int op = 0; op < 3; op++)
      for (int axis = 0; axis < 2; axis++) {
        nx_dtype dt = dts[d];
        int lz = (op + axis) % 4, lx = (op + axis + 1 + (int)d) % 4;
        nx_array *z = random_view(dt, shape, lz, seed), *x = random_view(dt, shape, lx, seed);
        if (nx_dtype_kind(dt) == NX_KIND_FLOAT) { /* modest values, so products stay finite; one NaN */
          for (int64_t i = 0; i < shape[0]; i++)
            for (int64_t j = 0; j < shape[1]; j++) {
              int64_t ix[2] = {i, j};
              double v = (double)(splitmix64_next(seed) % 41) / 8 - 2.5;
              if (i == 2 && j == 3 + axis) v = NAN;
              nx_array_set(x, ix, (nx_value){.f = v});
            }
        }
        CHECK(fns[op](z, x, axis) == 0, "%s of %s: %s", names[op], nx_dtype_name(dt), nx_error_message());
        long bad = 0;
        int64_t other = shape[1 - axis], len = shape[axis];
        for (int64_t o = 0; o < other; o++) {
          nx_value acc = {0};
          for (int64_t t = 0; t < len; t++) {
            int64_t ix[2];
            ix[axis] = t;
            ix[1 - axis] = o;
            nx_value v;
            nx_array_get(x, ix, &v);
            acc = step(op, dt, acc, v, t == 0);
            uint64_t want = store_of(dt, acc), got = elem_bits(z, ix);
            bool nan = nx_dtype_kind(dt) == NX_KIND_FLOAT && isnan(acc.f) && isnan(nx_dtype_load_bits(dt, got));
            if (got != want && !nan && bad++ < 3)
              CHECK(0, "%s of %s axis %d at [%lld, %lld]: %llx, want %llx", names[op], nx_dtype_name(dt), axis,
                    (long long)ix[0], (long long)ix[1], (unsigned long long)got, (unsigned long long)want);
          }
        }
        CHECK(bad == 0, "%s of %s axis %d: %ld wrong", names[op], nx_dtype_name(dt), axis, bad);
        nx_array_free(z);
        nx_array_free(x);
      }
  /* complex cumprod, bool cumprod: declined, as the table says */
  nx_array *c = random_view(NX_COMPLEX64, shape, 0, seed), *cz = NULL;
  CHECK(nx_cummax_new(&cz, c, 0) == NX_EINVAL && cz == NULL && strstr(nx_error_message(), "complex64"),
        "cummax of complex declines: %s", nx_error_message());
  nx_array_free(c);
}

/* cummax and cummin order -0 < +0 in every float format, as nx_max, nx_min
   and the reductions do: cummax [-0, +0, -0] is [-0, +0, +0], cummin
   [+0, -0, +0] is [+0, -0, -0]; and along a transposed view. */
static void check_scan_zeros(void) {
  static const nx_dtype dts[] = {NX_FLOAT64, NX_FLOAT32, NX_FLOAT16, NX_BFLOAT16, NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2,
                                 NX_FLOAT4_E2M1FN};
  static const double in[2][3] = {{-0.0, 0.0, -0.0}, {0.0, -0.0, 0.0}};
  static const double want[2][3] = {{-0.0, 0.0, 0.0}, {0.0, -0.0, -0.0}};
  scan_fn fns[2] = {nx_cummax, nx_cummin};
  const char *names[2] = {"cummax", "cummin"};
  for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
    for (int op = 0; op < 2; op++) {
      nx_dtype dt = dts[d];
      int64_t shape[2] = {3, 2}, tshape[2] = {2, 3};
      nx_array *x = NULL, *xt = NULL, *z = NULL, *zt = NULL;
      nx_array_host(dt, shape, 2, &x);
      nx_array_host(dt, tshape, 2, &zt);
      nx_move m;
      int order[2] = {1, 0};
      nx_move_permute(&m, order, 2);
      nx_array_move(&m, x, &xt); /* [2, 3], the scan's axis 1 of stride one row */
      for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 2; j++) nx_array_set(x, (int64_t[]){i, j}, (nx_value){.f = in[op][i]});
      nx_array_host(dt, shape, 2, &z);
      CHECK(fns[op](z, x, 0) == 0 && fns[op](zt, xt, 1) == 0, "%s of %s: %s", names[op], nx_dtype_name(dt),
            nx_error_message());
      for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 2; j++) {
          uint64_t w = nx_dtype_store_bits(dt, want[op][i]), got = elem_bits(z, (int64_t[]){i, j}),
                   gott = elem_bits(zt, (int64_t[]){j, i});
          CHECK(got == w && gott == w, "%s of %s at %lld: %llx and %llx (transposed), want %llx", names[op],
                nx_dtype_name(dt), (long long)i, (unsigned long long)got, (unsigned long long)gott,
                (unsigned long long)w);
        }
      nx_array_free(x);
      nx_array_free(xt);
      nx_array_free(z);
      nx_array_free(zt);
    }
}

/* any and all over every set of axes of a [3, 4, 5] array. */
static void check_any_all(uint64_t *seed) {
  static const nx_dtype dts[] = {NX_BOOL, NX_BIT, NX_FLOAT32, NX_INT8};
  int64_t shape[3] = {3, 4, 5};
  for (size_t d = 0; d < sizeof dts / sizeof *dts; d++) {
    nx_dtype dt = dts[d];
    nx_array *x = random_array(dt, shape, 3, seed);
    /* mostly zeros, so that all and any both see both answers */
    for (int64_t i = 0; i < 60; i++) {
      int64_t ix[3] = {i / 20, i / 5 % 4, i % 5};
      uint64_t r = splitmix64_next(seed) % 8;
      nx_value v;
      if (dt == NX_BOOL || dt == NX_BIT) v.b = r != 0 && !(i / 5 % 4 == 1);
      else if (dt == NX_FLOAT32) v.f = r == 0 ? 0.0 : r == 1 ? NAN : r == 2 ? -0.0 : 1.5;
      else v.i = r < 2 ? 0 : (int64_t)r - 4;
      if (dt == NX_INT8 && i / 5 % 4 == 1) v.i = 0;
      if (dt == NX_FLOAT32 && i / 5 % 4 == 1) v.f = -0.0;
      nx_array_set(x, ix, v);
    }
    for (int mask = 0; mask < 8; mask++) {
      int axes[3], n = 0;
      for (int j = 0; j < 3; j++)
        if (mask >> j & 1) axes[n++] = j;
      for (int all = 0; all < 2; all++) {
        nx_array *z = NULL;
        int s = all ? nx_all_new(&z, x, axes, n, true) : nx_any_new(&z, x, axes, n, true);
        CHECK(s == 0, "%s of %s mask %d: %s", all ? "all" : "any", nx_dtype_name(dt), mask, nx_error_message());
        if (s) continue;
        long bad = 0;
        for (int64_t i = 0; i < 60; i++) {
          int64_t ix[3] = {i / 20, i / 5 % 4, i % 5}, zx[3];
          for (int j = 0; j < 3; j++) zx[j] = mask >> j & 1 ? 0 : ix[j];
          bool first = true;
          for (int j = 0; j < 3; j++) first &= !(mask >> j & 1) || ix[j] == 0;
          if (!first) continue;
          /* the reference: every element that reduces into zx */
          bool want = all;
          for (int64_t e = 0; e < 60; e++) {
            int64_t ex[3] = {e / 20, e / 5 % 4, e % 5};
            bool same = true;
            for (int j = 0; j < 3; j++) same &= (mask >> j & 1) || ex[j] == ix[j];
            if (!same) continue;
            nx_value v;
            nx_array_get(x, ex, &v);
            bool nz = dt == NX_BOOL || dt == NX_BIT ? v.b : dt == NX_FLOAT32 ? v.f != 0 || isnan(v.f) : v.i != 0;
            want = all ? want && nz : want || nz;
          }
          nx_value got;
          nx_array_get(z, zx, &got);
          bad += got.b != want;
        }
        CHECK(bad == 0, "%s of %s mask %d: %ld wrong", all ? "all" : "any", nx_dtype_name(dt), mask, bad);
        nx_array_free(z);
      }
    }
    nx_array_free(x);
  }
}

static void check_contiguous(uint64_t *seed) {
  int64_t shape[2] = {5, 7};
  static const nx_dtype dts[] = {NX_FLOAT32, NX_INT4, NX_BIT, NX_COMPLEX128};
  for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
    for (int kind = 0; kind < 4; kind++) {
      nx_array *x = random_view(dts[d], shape, kind, seed), *z = NULL;
      CHECK(nx_contiguous(&z, x) == 0, "contiguous of %s kind %d: %s", nx_dtype_name(dts[d]), kind,
            nx_error_message());
      if (!z) continue;
      const nx_layout *lx = nx_array_layout(x), *lz = nx_array_layout(z);
      /* C-contiguous from the buffer's first byte: strides 7 and 1, offset 0 */
      bool c_order = lz->rank == 2 && lz->extent[0] == 5 && lz->extent[1] == 7 && lz->stride[1] == 1 &&
                     lz->stride[0] == 7;
      bool x_c = lx->stride[1] == 1 && lx->stride[0] == 7 && (nx_dtype_bits(dts[d]) >= 8 || lx->offset % 8 == 0);
      bool shares = nx_array_buffer(z) == nx_array_buffer(x);
      CHECK(c_order, "contiguous of %s kind %d is C-contiguous", nx_dtype_name(dts[d]), kind);
      CHECK(shares == x_c, "contiguous of %s kind %d: %s", nx_dtype_name(dts[d]), kind,
            x_c ? "the array itself" : "a copy");
      long bad = 0;
      for (int64_t i = 0; i < 5; i++)
        for (int64_t j = 0; j < 7; j++) {
          int64_t ix[2] = {i, j};
          bad += elem_bits(z, ix) != elem_bits(x, ix);
        }
      CHECK(bad == 0, "contiguous of %s kind %d: %ld elements differ", nx_dtype_name(dts[d]), kind, bad);
      nx_array_free(z);
      nx_array_free(x);
    }
  CHECK(nx_contiguous(NULL, NULL) == NX_EINVAL, "NULL: %s", nx_error_message());
}

int main(void) {
  uint64_t seed = 3;
  check_scans(&seed);
  check_scan_zeros();
  check_any_all(&seed);
  check_contiguous(&seed);
  return check_done();
}
