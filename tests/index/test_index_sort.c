/* SPDX-License-Identifier: Apache-2.0 */
/* nx_sort and nx_argsort against a comparison sort written here (NaN after
   every number, -0 equal to +0, ties by position): float32 with NaNs, signed
   zeros and duplicates, float16, int8, int64 extremes, uint4, bool; both
   directions, both axes of a transposed view, z identical to x; refusals. */
#include <math.h>
#include <stdlib.h>

#include "../check.h"
#include "../common.h"
#include "nx.h"

static uint64_t seed = 7;

typedef struct item {
  nx_value v;
  int64_t i;
  int kind;
  int desc;
} item;

static int cmp(const void *pa, const void *pb) {
  const item *a = pa, *b = pb;
  int r = 0;
  if (a->kind == NX_KIND_FLOAT) {
    bool na = isnan(a->v.f), nb = isnan(b->v.f);
    if (na != nb) return na ? 1 : -1;
    if (!na) r = a->v.f < b->v.f ? -1 : a->v.f > b->v.f ? 1 : 0;
  } else if (a->kind == NX_KIND_SIGNED) r = a->v.i < b->v.i ? -1 : a->v.i > b->v.i;
  else r = a->v.u < b->v.u ? -1 : a->v.u > b->v.u;
  if (a->desc) r = -r;
  return r ? r : a->i < b->i ? -1 : 1;
}

static nx_array *random_of(nx_dtype dt, const int64_t *shape) {
  int64_t n = shape[0] * shape[1];
  nx_value *v = calloc((size_t)n, sizeof *v);
  int bits = nx_dtype_bits(dt);
  for (int64_t i = 0; i < n; i++) {
    uint64_t u = splitmix64_next(&seed);
    switch (nx_dtype_kind(dt)) {
    case NX_KIND_FLOAT: {
      static const double special[] = {NAN, -NAN, 0.0, -0.0, INFINITY, -INFINITY, 1.5, -1.5};
      v[i].f = u % 3 == 0 ? special[(u >> 8) % 8] : (double)((int64_t)(u >> 16) % 64) / 8;
      break;
    }
    case NX_KIND_SIGNED:
      v[i].i = bits == 64 ? ((u & 3) == 0 ? INT64_MIN : (u & 3) == 1 ? INT64_MAX : (int64_t)u)
                          : (int64_t)(u % (1ull << bits)) - (1ll << (bits - 1));
      break;
    case NX_KIND_BOOLEAN: v[i].b = u & 1; break;
    default: v[i].u = u % (1ull << bits); break;
    }
  }
  nx_array *a = NULL;
  nx_array_of_array(dt, shape, 2, v, n, &a);
  free(v);
  return a;
}

static void one(nx_dtype dt, int axis, bool desc, bool in_place) {
  int64_t base[2] = {37, 23};
  nx_array *b = random_of(dt, base), *x;
  nx_move m;
  int order[2] = {1, 0};
  nx_move_permute(&m, order, 2);
  nx_array_move(&m, b, &x); /* x is [23, 37], transposed */
  const nx_layout *l = nx_array_layout(x);
  int64_t r0 = l->extent[0], r1 = l->extent[1], n = r0 * r1;
  nx_value *xv = calloc((size_t)n, sizeof *xv), *zv = calloc((size_t)n, sizeof *zv), *iv = calloc((size_t)n, sizeof *iv);
  nx_array_to_array(x, xv, n);
  nx_array *z = NULL, *ai = NULL;
  int s1 = nx_argsort_new(&ai, x, axis, desc);
  int s2 = in_place ? nx_sort(x, x, axis, desc) : nx_sort_new(&z, x, axis, desc);
  CHECK(s1 == 0 && s2 == 0, "sort %s: %s", nx_dtype_name(dt), nx_error_message());
  if (s1 || s2) return;
  nx_array_to_array(in_place ? x : z, zv, n);
  nx_array_to_array(ai, iv, n);
  int64_t lines = axis == 0 ? r1 : r0, len = axis == 0 ? r0 : r1;
  item *it = calloc((size_t)len, sizeof *it);
  long bad = 0;
  int kind = nx_dtype_kind(dt) == NX_KIND_BOOLEAN ? NX_KIND_UNSIGNED : nx_dtype_kind(dt);
  for (int64_t q = 0; q < lines; q++) {
    for (int64_t i = 0; i < len; i++) {
      int64_t f = axis == 0 ? i * r1 + q : q * r1 + i;
      it[i] = (item){xv[f], i, kind, desc};
      if (dt == NX_BOOL) it[i].v.u = xv[f].b;
    }
    qsort(it, (size_t)len, sizeof *it, cmp);
    for (int64_t i = 0; i < len; i++) {
      int64_t f = axis == 0 ? i * r1 + q : q * r1 + i, g = axis == 0 ? it[i].i * r1 + q : q * r1 + it[i].i;
      bad += iv[f].i != it[i].i;
      uint64_t zb = kind == NX_KIND_FLOAT ? nx_dtype_store_bits(dt, zv[f].f) : zv[f].u,
               xb = kind == NX_KIND_FLOAT ? nx_dtype_store_bits(dt, xv[g].f) : xv[g].u;
      if (dt == NX_BOOL) zb = zv[f].b, xb = xv[g].b;
      bad += zb != xb;
    }
  }
  CHECK(bad == 0, "sort %s axis %d desc %d in place %d: %ld wrong", nx_dtype_name(dt), axis, desc, in_place, bad);
  free(it), free(xv), free(zv), free(iv);
  nx_array_free(b), nx_array_free(x), nx_array_free(z), nx_array_free(ai);
}

/* One line long enough for the split by the top bits and its parts on the
   pool (float32 and float64, with NaNs of two payloads, both zeros, ties),
   in place, against the comparison sort. */
static void long_line(nx_dtype dt, bool desc, bool arg) {
  enum { N = 300000 };
  nx_value *v = calloc(N, sizeof *v), *out = calloc(N, sizeof *out);
  item *it = calloc(N, sizeof *it);
  for (int64_t i = 0; i < N; i++) {
    uint64_t u = splitmix64_next(&seed);
    static const double special[] = {NAN, -NAN, 0.0, -0.0, INFINITY, -INFINITY};
    v[i].f = u % 50 == 0 ? special[(u >> 8) % 6] : u % 7 == 0 ? (double)((u >> 20) % 100) : ldexp((double)((int32_t)(u >> 32) >> 8), -12) /* exact in float32 */;
    it[i] = (item){v[i], i, NX_KIND_FLOAT, desc};
  }
  int64_t shape[1] = {N};
  nx_array *x = NULL, *z = NULL;
  nx_array_of_array(dt, shape, 1, v, N, &x);
  int s = arg ? nx_argsort_new(&z, x, 0, desc) : nx_sort(x, x, 0, desc);
  CHECK(s == 0, "long %s: %s", nx_dtype_name(dt), nx_error_message());
  nx_array_to_array(arg ? z : x, out, N);
  qsort(it, N, sizeof *it, cmp);
  long bad = 0;
  for (int64_t i = 0; i < N; i++)
    bad += arg ? out[i].i != it[i].i : nx_dtype_store_bits(dt, out[i].f) != nx_dtype_store_bits(dt, it[i].v.f);
  CHECK(bad == 0, "long %s desc %d arg %d: %ld wrong", nx_dtype_name(dt), desc, arg, bad);
  free(v), free(out), free(it);
  nx_array_free(x), nx_array_free(z);
}

static bool says(const char *part) { return strstr(nx_error_message(), part) != NULL; }

static void refusals(void) {
  int64_t s[2] = {3, 4};
  nx_array *c, *f, *i64, *out = NULL;
  nx_array_host(NX_COMPLEX64, s, 2, &c);
  nx_array_host(NX_FLOAT32, s, 2, &f);
  nx_array_host(NX_INT64, s, 2, &i64);
  CHECK(nx_sort_new(&out, c, 0, false) == NX_EINVAL && says("complex64") && !out, "complex declined: %s",
        nx_error_message());
  CHECK(nx_argsort(i64, f, 0, false) == NX_EINVAL && says("nx_argsort"), "int64 argsort result: %s", nx_error_message());
  CHECK(nx_sort(f, f, 2, false) == NX_EINVAL && says("axis 2"), "axis 2: %s", nx_error_message());
  CHECK(nx_sort(i64, f, 0, false) == NX_EINVAL, "sort into another dtype");
  CHECK(nx_sort(NULL, f, 0, false) == NX_EINVAL, "NULL z");
  nx_array_free(c), nx_array_free(f), nx_array_free(i64);
}

int main(void) {
  const nx_dtype dts[] = {NX_FLOAT32, NX_FLOAT16, NX_FLOAT64, NX_INT8, NX_INT64, NX_UINT4, NX_BOOL, NX_UINT16};
  for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
    for (int axis = 0; axis < 2; axis++)
      for (int desc = 0; desc < 2; desc++) one(dts[d], axis ? -1 : 0, desc, (axis + desc) % 2);
  for (int k = 0; k < 8; k++) long_line(k & 4 ? NX_FLOAT64 : NX_FLOAT32, k & 1, k & 2);
  refusals();
  return check_done();
}
