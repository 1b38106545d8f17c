/* SPDX-License-Identifier: Apache-2.0 */
/* nx_gather and nx_scatter against loops over the operands' values: random
   indices along each axis, a flipped source, int4 elements; scatter with
   duplicate indices (Set: the last in C order wins; Add: sums in C order);
   indices out of range refused before any write; refusals. */
#include <stdlib.h>

#include "../check.h"
#include "../common.h"
#include "nx.h"

static uint64_t seed = 99;

static nx_array *filled(nx_dtype dt, const int64_t *shape, int r, int64_t lo, int64_t hi) {
  int64_t n = 1;
  for (int j = 0; j < r; j++) n *= shape[j];
  nx_value *v = calloc((size_t)n + 1, sizeof *v);
  for (int64_t i = 0; i < n; i++) {
    int64_t x = lo + (int64_t)(splitmix64_next(&seed) % (uint64_t)(hi - lo));
    if (nx_dtype_kind(dt) == NX_KIND_FLOAT) v[i].f = (double)x / 4;
    else v[i].i = x;
  }
  nx_array *a = NULL;
  nx_array_of_array(dt, shape, r, v, n, &a);
  free(v);
  return a;
}

static nx_value *values(const nx_array *a, int64_t n) {
  nx_value *v = calloc((size_t)n + 1, sizeof *v);
  nx_array_to_array(a, v, n);
  return v;
}

/* flat C index of (i0, i1, i2) in extents e */
static int64_t at3(const int64_t *e, int64_t i0, int64_t i1, int64_t i2) { return (i0 * e[1] + i1) * e[2] + i2; }

static void gather_each_axis(nx_dtype dt) {
  int64_t xs[3] = {4, 5, 6};
  for (int axis = 0; axis < 3; axis++) {
    int64_t is[3] = {4, 5, 6};
    is[axis] = 7;
    nx_array *x0 = filled(dt, xs, 3, -8, 8), *x, *idx = filled(NX_INT32, is, 3, 0, xs[axis]), *z = NULL;
    nx_move m;
    int fl[1] = {2};
    nx_move_flip(&m, fl, 1);
    nx_array_move(&m, x0, &x);
    int s = nx_gather_new(&z, x, idx, axis - 3);
    CHECK(s == 0, "gather axis %d: %s", axis, nx_error_message());
    if (s == 0) {
      nx_value *xv = values(x, 120), *iv = values(idx, 4 * 5 * 6 / xs[axis] * 7), *zv = values(z, 4 * 5 * 6 / xs[axis] * 7);
      long bad = 0;
      for (int64_t a = 0; a < is[0]; a++)
        for (int64_t b = 0; b < is[1]; b++)
          for (int64_t c = 0; c < is[2]; c++) {
            int64_t f = at3(is, a, b, c), k = iv[f].i;
            int64_t src = axis == 0 ? at3(xs, k, b, c) : axis == 1 ? at3(xs, a, k, c) : at3(xs, a, b, k);
            bad += memcmp(&zv[f], &xv[src], sizeof(nx_value)) != 0;
          }
      CHECK(bad == 0, "gather %s axis %d: %ld wrong", nx_dtype_name(dt), axis, bad);
      free(xv), free(iv), free(zv);
    }
    nx_array_free(x0), nx_array_free(x), nx_array_free(idx), nx_array_free(z);
  }
}

static void scatter_duplicates(nx_dtype dt, nx_scatter_mode mode) {
  int64_t zs[2] = {6, 4}, us[2] = {9, 4};
  nx_array *t = filled(dt, zs, 2, -8, 8), *idx = filled(NX_INT32, us, 2, 0, 6), *u = filled(dt, us, 2, -8, 8), *z = NULL;
  nx_value *ref = values(t, 24), *iv = values(idx, 36), *uv = values(u, 36);
  for (int64_t i = 0; i < 9; i++)
    for (int64_t j = 0; j < 4; j++) {
      nx_value *r = &ref[iv[i * 4 + j].i * 4 + j];
      if (mode == NX_SCATTER_SET) *r = uv[i * 4 + j];
      else if (dt == NX_FLOAT32) r->f = (float)((float)r->f + (float)uv[i * 4 + j].f);
      else r->i = (int64_t)(int32_t)(uint32_t)((uint64_t)r->i + (uint64_t)uv[i * 4 + j].i);
    }
  int s = nx_scatter_new(&z, t, idx, u, 0, mode);
  CHECK(s == 0, "scatter: %s", nx_error_message());
  if (s == 0) {
    nx_value *zv = values(z, 24);
    long bad = 0;
    for (int i = 0; i < 24; i++) bad += dt == NX_FLOAT32 ? zv[i].f != ref[i].f : zv[i].i != ref[i].i;
    CHECK(bad == 0, "scatter %s mode %d with duplicates: %ld wrong", nx_dtype_name(dt), mode, bad);
    free(zv);
  }
  free(ref), free(iv), free(uv);
  nx_array_free(t), nx_array_free(idx), nx_array_free(u), nx_array_free(z);
}

static bool says(const char *part) { return strstr(nx_error_message(), part) != NULL; }

static void refusals(void) {
  int64_t s5[1] = {5}, s3[1] = {3}, s23[2] = {2, 3};
  nx_array *x = filled(NX_FLOAT32, s5, 1, 0, 8), *z = filled(NX_FLOAT32, s3, 1, 0, 8), *bad = NULL, *i64, *i2;
  nx_value iv[3] = {{.i = 1}, {.i = 5}, {.i = 0}};
  nx_array_of_array(NX_INT32, s3, 1, iv, 3, &bad);
  nx_value z0[3];
  nx_array_to_array(z, z0, 3);
  CHECK(nx_gather(z, x, bad, 0) == NX_EINVAL && says("index 5 at position 1") && says("[0, 5)"), "index 5: %s",
        nx_error_message());
  nx_value z1[3];
  nx_array_to_array(z, z1, 3);
  CHECK(memcmp(z0, z1, sizeof z0) == 0, "z untouched by a refused gather");
  iv[1].i = -1;
  nx_array_free(bad);
  nx_array_of_array(NX_INT32, s3, 1, iv, 3, &bad);
  CHECK(nx_scatter(x, bad, z, 0, NX_SCATTER_SET) == NX_EINVAL && says("index -1"), "index -1: %s", nx_error_message());
  nx_array_host(NX_INT64, s3, 1, &i64);
  CHECK(nx_gather(z, x, i64, 0) == NX_EINVAL && says("int64"), "int64 indices: %s", nx_error_message());
  nx_array_host(NX_INT32, s23, 2, &i2);
  CHECK(nx_gather(z, x, i2, 0) == NX_EINVAL && says("nx_gather"), "rank 2 indices for rank 1: %s", nx_error_message());
  CHECK(nx_gather(z, x, bad, 1) == NX_EINVAL && says("axis 1"), "axis 1 of rank 1: %s", nx_error_message());
  CHECK(nx_scatter(x, bad, z, 0, (nx_scatter_mode)7) == NX_EINVAL && says("nx_scatter: mode 7 is neither") &&
            says("int32 [3]"),
        "mode 7, its operands named: %s", nx_error_message());
  CHECK(nx_gather(NULL, x, bad, 0) == NX_EINVAL, "NULL z");
  nx_array *i32;
  nx_array_host(NX_INT32, s3, 1, &i32);
  nx_fill(i32, (nx_value){.i = 0});
  CHECK(nx_gather_new(NULL, x, i32, 0) == NX_EINVAL && says("nx_gather_new: the result pointer is NULL"),
        "NULL result pointer with valid operands: %s", nx_error_message());
  nx_array_free(i32);
  nx_array_free(x), nx_array_free(z), nx_array_free(bad), nx_array_free(i64), nx_array_free(i2);
}

static nx_array *int32s(const int32_t *v, int n) {
  nx_value w[8];
  for (int i = 0; i < n; i++) w[i].i = v[i];
  int64_t e[1] = {n};
  nx_array *a = NULL;
  nx_array_of_array(NX_INT32, e, 1, w, n, &a);
  return a;
}

static bool holds(const nx_array *a, const int32_t *want, int n) {
  nx_value v[8];
  if (nx_array_to_array(a, v, n)) return false;
  for (int i = 0; i < n; i++)
    if (v[i].i != want[i]) return false;
  return true;
}

/* A read operand identical to z, which the door admits, is read as it was
   before the call (as numpy reads the updates before writing): the index
   array as z (before: indices read after z's writes, past the range checked
   and written out of bounds), the updates as z, the source as z. */
static void aliases(void) {
  const int32_t rev[4] = {3, 2, 1, 0}, iota[4] = {0, 1, 2, 3};
  nx_array *z = int32s(rev, 4), *idx = int32s(rev, 4);
  int32_t want_idx[4] = {7, 7, 7, 7};
  nx_array *u = int32s(want_idx, 4);
  CHECK(nx_scatter(z, z, u, 0, NX_SCATTER_SET) == 0 && holds(z, want_idx, 4), "scatter with idx as z: %s",
        nx_error_message());
  nx_array_free(z), z = int32s(iota, 4);
  CHECK(nx_scatter(z, idx, z, 0, NX_SCATTER_SET) == 0 && holds(z, rev, 4), "scatter with u as z (set): %s",
        nx_error_message());
  const int32_t threes[4] = {3, 3, 3, 3};
  nx_array_free(z), z = int32s(iota, 4);
  CHECK(nx_scatter(z, idx, z, 0, NX_SCATTER_ADD) == 0 && holds(z, threes, 4), "scatter with u as z (add): %s",
        nx_error_message());
  nx_array_free(z), z = int32s(iota, 4);
  CHECK(nx_gather(z, z, idx, 0) == 0 && holds(z, rev, 4), "gather with x as z: %s", nx_error_message());
  const int32_t self[4] = {0, 2, 1, 3}, once[4] = {0, 1, 2, 3}; /* z[i] = z[z[i]] read from the old z */
  nx_array_free(z), z = int32s(self, 4);
  CHECK(nx_gather(z, z, z, 0) == 0 && holds(z, once, 4), "gather with x and idx as z: %s", nx_error_message());
  /* a partial overlap is still the door's refusal, not copied away */
  int64_t e[1] = {8};
  nx_array *big = NULL, *lo = NULL, *hi = NULL;
  nx_array_host(NX_INT32, e, 1, &big);
  nx_move m;
  int64_t st[1] = {0}, sp[1] = {4};
  nx_move_shrink(&m, st, sp, 1), nx_array_move(&m, big, &lo);
  st[0] = 2, sp[0] = 6;
  nx_move_shrink(&m, st, sp, 1), nx_array_move(&m, big, &hi);
  CHECK(nx_scatter(lo, idx, hi, 0, NX_SCATTER_SET) == NX_EINVAL && says("shares a byte"),
        "scatter with u overlapping z in part: %s", nx_error_message());
  nx_array_free(z), nx_array_free(idx), nx_array_free(u), nx_array_free(big), nx_array_free(lo), nx_array_free(hi);
}

int main(void) {
  aliases();
  gather_each_axis(NX_FLOAT32);
  gather_each_axis(NX_INT4);
  scatter_duplicates(NX_FLOAT32, NX_SCATTER_SET);
  scatter_duplicates(NX_FLOAT32, NX_SCATTER_ADD);
  scatter_duplicates(NX_INT32, NX_SCATTER_ADD);
  scatter_duplicates(NX_INT4, NX_SCATTER_SET);
  refusals();
  return check_done();
}
