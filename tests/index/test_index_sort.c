/* SPDX-License-Identifier: Apache-2.0 */
/* nx_sort and nx_argsort against a comparison sort written here (NaN after
   every number, -0 equal to +0, ties by position): float32 with NaNs, signed
   zeros and duplicates, float16, int8, int64 extremes, uint4, bool; both
   directions, both axes of a transposed view, z identical to x; long lines
   through each way of the bucket sort on 1 to 4 threads; float32 lines of
   raw bits (both zeros, NaNs of every payload, any bits, up to 16M) against
   qsort of (order, index) pairs; lines of 0 to 2 elements; refusals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* Lines long enough for the bucket sort, their values drawn to reach each
   of its ways: MIXED spreads keys over many buckets (NaNs of two payloads,
   both zeros, ties), DENSE puts every key in one top value (a bucket
   longer than the buffers, sorted through z or scratch of its own), SPARSE
   adds to a dense cluster keys spread over the whole range (buckets of
   many top values and three passes), FEW puts a handful of keys below one
   dense top value (a bucket of 32 or fewer, sorted by insertion). Each
   line of x is [n, cols] sorted along axis 0: one column makes z's line
   contiguous, two make it strided; in place or into a new array; on
   `threads` threads (the slices of the scatter). */
enum gen { MIXED, DENSE, SPARSE, FEW };

static double draw(nx_dtype dt, enum gen g, uint64_t u) {
  static const double special[] = {NAN, -NAN, 0.0, -0.0, INFINITY, -INFINITY};
  bool fl = nx_dtype_kind(dt) == NX_KIND_FLOAT, sg = nx_dtype_kind(dt) == NX_KIND_SIGNED;
  int bits = nx_dtype_bits(dt);
  if (!fl) {
    if (bits < 32) return (double)(u % (1ull << bits)) - (sg ? (double)(1ull << (bits - 1)) : 0);
    if (g == DENSE) return (double)(u % 65536) - (sg ? 32768 : 0);
    double wide = sg ? (double)(int32_t)(uint32_t)(u >> 32) : (double)(uint32_t)(u >> 32);
    return g == SPARSE && u % 20 ? (double)(u % 1000) : wide;
  }
  if (g == FEW) return u % 10000 == 0 ? -2.0 - (double)(u >> 60) : 1 + ldexp((double)((u >> 16) % 65536), -23);
  if (u % 50 == 0) return special[(u >> 8) % 6];
  if (g == DENSE) return 1 + ldexp((double)((u >> 16) % 65536), -23);           /* one top value */
  if (g == SPARSE) return u % 20 ? 1 + ldexp((double)((u >> 16) % 4096), -12)    /* a cluster */
                                 : ldexp((double)((u >> 32) % 1024 + 1), (int)((u >> 24) % 200) - 100);
  return u % 7 == 0 ? (double)((u >> 20) % 100) : ldexp((double)((int32_t)(u >> 32) >> 8), -12);
}

static void long_case(nx_dtype dt, enum gen g, int64_t n, int cols, bool in_place, int threads) {
  nx_set_num_threads(threads);
  int64_t total = n * cols, shape[2] = {n, cols};
  nx_value *v = calloc((size_t)total, sizeof *v), *out = calloc((size_t)total, sizeof *out),
           *perm = calloc((size_t)total, sizeof *perm);
  item *it = calloc((size_t)n, sizeof *it);
  int kind = nx_dtype_kind(dt);
  for (int64_t i = 0; i < total; i++) {
    double d = draw(dt, g, splitmix64_next(&seed));
    if (kind == NX_KIND_FLOAT) v[i].f = d;
    else if (kind == NX_KIND_SIGNED) v[i].i = (int64_t)d;
    else v[i].u = (uint64_t)d;
  }
  nx_array *x0 = NULL; /* the values as the dtype holds them */
  CHECK(nx_array_of_array(dt, shape, 2, v, total, &x0) == 0, "long %s: %s", nx_dtype_name(dt), nx_error_message());
  nx_array_to_array(x0, v, total);
  nx_array_free(x0);
  for (int desc = 0; desc < 2; desc++) {
    nx_array *x = NULL, *z = NULL, *p = NULL;
    nx_array_of_array(dt, shape, 2, v, total, &x);
    int s1 = nx_argsort_new(&p, x, 0, desc);
    int s2 = in_place ? nx_sort(x, x, 0, desc) : nx_sort_new(&z, x, 0, desc);
    CHECK(s1 == 0 && s2 == 0, "long %s: %s", nx_dtype_name(dt), nx_error_message());
    if (s1 || s2) continue;
    nx_array_to_array(in_place ? x : z, out, total);
    nx_array_to_array(p, perm, total);
    long bad = 0;
    for (int q = 0; q < cols; q++) {
      for (int64_t i = 0; i < n; i++) it[i] = (item){v[i * cols + q], i, kind, desc};
      qsort(it, (size_t)n, sizeof *it, cmp);
      for (int64_t i = 0; i < n; i++) {
        int64_t f = i * cols + q;
        bad += perm[f].i != it[i].i;
        bad += kind == NX_KIND_FLOAT ? nx_dtype_store_bits(dt, out[f].f) != nx_dtype_store_bits(dt, it[i].v.f)
                                     : out[f].u != it[i].v.u;
      }
    }
    CHECK(bad == 0, "long %s gen %d n %lld cols %d desc %d in place %d threads %d: %ld wrong", nx_dtype_name(dt), (int)g,
          (long long)n, cols, desc, in_place, threads, bad);
    nx_array_free(x), nx_array_free(z), nx_array_free(p);
  }
  free(v), free(out), free(perm), free(it);
}

static void long_cases(void) {
  int t0 = nx_num_threads();
  const nx_dtype dts[] = {NX_FLOAT32, NX_INT32, NX_UINT32, NX_FLOAT16, NX_INT8, NX_UINT4};
  for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
    for (int g = MIXED; g <= SPARSE; g++) long_case(dts[d], (enum gen)g, 70000, 1, g == DENSE, 3);
  long_case(NX_FLOAT32, FEW, 100000, 1, false, 2);
  long_case(NX_FLOAT32, MIXED, 65536, 1, false, 1);   /* the shortest line of buckets */
  long_case(NX_FLOAT32, MIXED, 65535, 1, false, 2);   /* the longest without */
  long_case(NX_FLOAT32, DENSE, 70000, 1, false, 2);   /* scattered into z, a bucket past the buffer */
  long_case(NX_FLOAT32, DENSE, 70000, 2, false, 2);   /* strided z, a bucket past the buffer */
  long_case(NX_FLOAT32, SPARSE, 70000, 2, true, 1);
  long_case(NX_INT32, DENSE, 70000, 2, false, 4);
  long_case(NX_FLOAT32, SPARSE, 200003, 1, false, 4); /* slices of unequal length */
  nx_set_num_threads(t0);
}

/* float32 lines as raw bits, against qsort of (order, index) pairs made
   here: the order of a number its value (-0 equal to +0), every NaN after
   every number whatever its sign and payload, ties by index, in both
   directions. ZEROS: both zeros and a few numbers; NANS: NaNs alone, every
   payload and both signs; BITS: any 32 bits (NaNs of every payload,
   subnormals, infinities, both zeros). Sorted into a new array (the
   scatter into z), in place and by argsort; the values compared bit for
   bit. */
enum raw { ZEROS, NANS, BITS };

typedef struct pair {
  double order; /* the number's value; NaN: isnan below */
  int isnan, desc;
  int64_t i;
} pair;

static int cmp_pair(const void *pa, const void *pb) {
  const pair *a = pa, *b = pb;
  if (a->isnan != b->isnan) return a->isnan ? 1 : -1;
  if (!a->isnan && a->order != b->order) return (a->order < b->order) != a->desc ? -1 : 1;
  return a->i < b->i ? -1 : 1;
}

static uint32_t raw_draw(enum raw g, uint64_t u) {
  uint32_t w = (uint32_t)(u >> 32);
  if (g == ZEROS) return u % 5 == 0 ? w : (w & 0x80000000u); /* mostly +0 and -0 */
  if (g == NANS) return (w & 0x80000000u) | 0x7F800000u | ((uint32_t)u & 0x7FFFFFu ? (uint32_t)u & 0x7FFFFFu : 1);
  return w;
}

static void raw_case(enum raw g, int64_t n, int threads, int dirs) {
  nx_set_num_threads(threads);
  uint32_t *bits = malloc(sizeof *bits * (size_t)n);
  pair *ref = malloc(sizeof *ref * (size_t)n);
  int64_t shape[1] = {n};
  for (int64_t i = 0; i < n; i++) bits[i] = raw_draw(g, splitmix64_next(&seed));
  for (int desc = 2 - dirs; desc < 2; desc++) {
    for (int64_t i = 0; i < n; i++) {
      float f;
      memcpy(&f, &bits[i], 4);
      ref[i] = (pair){isnan(f) ? 0.0 : (double)f, isnan(f) != 0, desc, i};
    }
    qsort(ref, (size_t)n, sizeof *ref, cmp_pair);
    nx_array *x = NULL, *z = NULL, *p = NULL;
    nx_array_host(NX_FLOAT32, shape, 1, &x);
    uint32_t *xb = nx_buffer_host_address(nx_array_buffer(x));
    memcpy(xb, bits, sizeof *bits * (size_t)n);
    int s = nx_sort_new(&z, x, 0, desc) | nx_argsort_new(&p, x, 0, desc) | nx_sort(x, x, 0, desc);
    CHECK(s == 0, "raw %d n %lld: %s", (int)g, (long long)n, nx_error_message());
    if (!s) {
      const uint32_t *zb = nx_buffer_host_address(nx_array_buffer(z));
      const int32_t *pb = nx_buffer_host_address(nx_array_buffer(p));
      long bad_new = 0, bad_in_place = 0, bad_perm = 0;
      for (int64_t i = 0; i < n; i++) {
        uint32_t want = bits[ref[i].i];
        bad_new += zb[i] != want;
        bad_in_place += xb[i] != want;
        bad_perm += pb[i] != ref[i].i;
      }
      CHECK(bad_new == 0 && bad_in_place == 0 && bad_perm == 0,
            "raw %d n %lld desc %d threads %d: %ld wrong into a new array, %ld in place, %ld of the permutation",
            (int)g, (long long)n, desc, threads, bad_new, bad_in_place, bad_perm);
    }
    nx_array_free(x), nx_array_free(z), nx_array_free(p);
  }
  free(bits), free(ref);
}

/* The benchmark's 16M elements take ThreadSanitizer past the suite's time
   limit: under it, 1M (the same way through the sort). */
#if defined(__SANITIZE_THREAD__)
#define BIG (1 << 20)
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BIG (1 << 20)
#endif
#endif
#ifndef BIG
#define BIG (16 << 20)
#endif

static void raw_cases(void) {
  int t0 = nx_num_threads();
  for (int g = ZEROS; g <= BITS; g++) raw_case((enum raw)g, 100000, 2, 2);
  raw_case(ZEROS, 1000, 1, 2); /* a short line: the radix without buckets */
  raw_case(NANS, 1000, 1, 2);
  raw_case(BITS, BIG, t0, 1); /* the benchmark's size, descending */
  nx_set_num_threads(t0);
}

/* Lines of 0, 1 and 2 elements, and a [2, 0] array along both axes. */
static void tiny(void) {
  for (int64_t n = 0; n <= 2; n++) {
    int64_t shape[1] = {n};
    nx_value v[2] = {{.f = -0.0}, {.f = 0.0}}, out[2], perm[2];
    nx_array *x = NULL, *z = NULL, *p = NULL;
    nx_array_of_array(NX_FLOAT32, shape, 1, v, n, &x);
    int s = nx_sort_new(&z, x, 0, true) | nx_argsort_new(&p, x, 0, true);
    CHECK(s == 0, "tiny %lld: %s", (long long)n, nx_error_message());
    nx_array_to_array(z, out, n), nx_array_to_array(p, perm, n);
    for (int64_t i = 0; i < n; i++)
      CHECK(signbit(out[i].f) == signbit(v[i].f) && perm[i].i == i, "tiny %lld: element %lld moved", (long long)n,
            (long long)i);
    nx_array_free(x), nx_array_free(z), nx_array_free(p);
  }
  int64_t shape[2] = {2, 0};
  nx_array *e = NULL, *z = NULL;
  nx_array_host(NX_INT8, shape, 2, &e);
  CHECK(nx_sort_new(&z, e, 0, false) == 0 && nx_sort(e, e, 1, true) == 0, "empty: %s", nx_error_message());
  nx_array_free(e), nx_array_free(z);
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
  /* a NULL result pointer is refused, not written through */
  CHECK(nx_sort_new(NULL, f, 0, false) == NX_EINVAL && says("nx_sort_new: the result pointer is NULL"),
        "sort_new NULL result pointer: %s", nx_error_message());
  CHECK(nx_argsort_new(NULL, f, 0, true) == NX_EINVAL && says("nx_argsort_new: the result pointer is NULL"),
        "argsort_new NULL result pointer: %s", nx_error_message());
  nx_array_free(c), nx_array_free(f), nx_array_free(i64);
}

int main(void) {
  const nx_dtype dts[] = {NX_FLOAT32, NX_FLOAT16, NX_FLOAT64, NX_INT8, NX_INT64, NX_UINT4, NX_BOOL, NX_UINT16};
  for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
    for (int axis = 0; axis < 2; axis++)
      for (int desc = 0; desc < 2; desc++) one(dts[d], axis ? -1 : 0, desc, (axis + desc) % 2);
  for (int k = 0; k < 8; k++) long_line(k & 4 ? NX_FLOAT64 : NX_FLOAT32, k & 1, k & 2);
  long_cases();
  raw_cases();
  tiny();
  refusals();
  return check_done();
}
