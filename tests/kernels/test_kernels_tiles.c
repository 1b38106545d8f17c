/* SPDX-License-Identifier: Apache-2.0 */
/* The engine's tiled traversal, where read operands are transposed against
   the written one: add, where and cast over shapes whose tiles have ragged
   edges (an axis just past the long tile side, an axis shorter than one
   tile), one, two and three transposed operands (the third read in place),
   a transposed operand also flipped along either axis, a transposed 3-D operand, dtypes of
   1, 2, 4 and 8 bytes, bool and int4; each at every level of the typed
   loops this CPU has (the 16 x 16 register transposition on AVX-512, 8 x 8
   on AVX2, element by element at the base level), on one thread and on two with the serial threshold off. The
   reference reads every element through nx_array_get. */
#include "engine.h"
#include "kernels_common.h"
#include "typed.h"

/* A view of `shape` over a fresh random array, axes permuted by `order`
   (result axis i is the base's axis order[i]) and then flipped on axis
   `flip` (-1: none). */
static nx_array *view(nx_dtype dt, const int64_t *shape, int rank, const int *order, int flip, uint64_t *seed) {
  int64_t b[NX_MAX_RANK];
  for (int i = 0; i < rank; i++) b[order[i]] = shape[i];
  nx_array *base = random_array(dt, b, rank, seed), *v = NULL, *w = NULL;
  nx_move m;
  nx_move_permute(&m, order, rank);
  if (base && nx_array_move(&m, base, &v) != 0) v = NULL;
  nx_array_free(base);
  if (!v || flip < 0) return v;
  nx_move_flip(&m, &flip, 1);
  if (nx_array_move(&m, v, &w) != 0) w = NULL;
  nx_array_free(v);
  return w;
}

static uint64_t mask_of(nx_dtype dt) {
  int bits = nx_dtype_bits(dt);
  return bits == 64 ? ~0ull : (1ull << bits) - 1;
}

/* The bits the operation should give at one index: 0 add, 1 where (z, c, x,
   y), 2 cast (z, x). */
static uint64_t want(int op, nx_array *const *a, const int64_t *idx) {
  nx_dtype dt = nx_array_dtype(a[0]);
  nx_value x, y;
  if (op == 1) return elem_bits(a[1], idx) ? elem_bits(a[2], idx) : elem_bits(a[3], idx);
  nx_array_get(a[1], idx, &x);
  if (op == 2) {
    nx_dtype st = nx_array_dtype(a[1]);
    nx_kind k = nx_dtype_kind(st);
    double v = k == NX_KIND_FLOAT ? x.f : k == NX_KIND_SIGNED ? (double)x.i : (double)x.u;
    return nx_dtype_store_bits(dt, v);
  }
  nx_array_get(a[2], idx, &y);
  switch (nx_dtype_kind(dt)) {
  case NX_KIND_FLOAT: /* a NaN operand's own NaN, quieted, the first's where both are (v + v: one operand) */
    return nx_dtype_store_bits(dt, isnan(x.f) ? x.f + x.f : isnan(y.f) ? y.f + y.f : x.f + y.f);
  case NX_KIND_SIGNED: return ((uint64_t)x.i + (uint64_t)y.i) & mask_of(dt);
  case NX_KIND_UNSIGNED: return (x.u + y.u) & mask_of(dt);
  default: return x.b || y.b;
  }
}

typedef struct tcase {
  int op;                 /* as want() */
  nx_dtype zt, xt;        /* the written dtype, the read one (where: c is bool) */
  int rank;
  int64_t shape[3];
  unsigned transposed;    /* bit k: read operand k (1..3) transposed */
  int flip;               /* the flipped axis of operand 1, or -1 */
} tcase;

static const char *op_name[] = {"add", "where", "cast"};

static void run_case(const tcase *c, uint64_t *seed, const char *where) {
  int nr = c->op == 1 ? 3 : c->op == 2 ? 1 : 2;
  int id[3] = {0, 1, 2}, tr[3] = {1, 0, 2}, tr3[3] = {0, 2, 1};
  const int *perm = c->rank == 3 ? tr3 : tr;
  nx_array *a[4] = {NULL};
  int64_t zs[3] = {c->shape[0], c->shape[1], c->shape[2]};
  if (nx_array_host(c->zt, zs, c->rank, &a[0]) != 0) {
    CHECK(0, "the result array");
    return;
  }
  for (int k = 1; k <= nr; k++) {
    nx_dtype dt = c->op == 1 && k == 1 ? NX_BOOL : c->op == 0 ? c->zt : c->xt;
    a[k] = view(dt, zs, c->rank, c->transposed >> k & 1 ? perm : id, k == 1 ? c->flip : -1, seed);
  }
  int s = c->op == 0 ? nx_add(a[0], a[1], a[2]) : c->op == 1 ? nx_where(a[0], a[1], a[2], a[3]) : nx_cast(a[0], a[1]);
  CHECK(s == 0, "%s %s: %s of %s: status %d: %s", where, op_name[c->op], nx_dtype_name(c->xt), nx_dtype_name(c->zt), s,
        nx_error_message());
  if (s == 0) {
    int64_t idx[3] = {0, 0, 0}, n = 1;
    long bad = 0;
    for (int j = 0; j < c->rank; j++) n *= zs[j];
    for (int64_t e = 0; e < n; e++) {
      int64_t r = e;
      for (int j = c->rank - 1; j >= 0; j--) {
        idx[j] = r % zs[j];
        r /= zs[j];
      }
      uint64_t w = want(c->op, a, idx), g = elem_bits(a[0], idx);
      if (w != g && bad++ < 3)
        CHECK(0, "%s %s of %s into %s, shape %lldx%lldx%lld, transposed %x, flip %d: element %lld: %llx, want %llx",
              where, op_name[c->op], nx_dtype_name(c->xt), nx_dtype_name(c->zt), (long long)zs[0], (long long)zs[1],
              (long long)(c->rank == 3 ? zs[2] : 1), c->transposed, c->flip, (long long)e, (unsigned long long)g,
              (unsigned long long)w);
    }
    CHECK(bad == 0, "%s %s of %s into %s, transposed %x: %ld elements wrong", where, op_name[c->op],
          nx_dtype_name(c->xt), nx_dtype_name(c->zt), c->transposed, bad);
  }
  for (int k = 0; k <= nr; k++) nx_array_free(a[k]);
}

int main(void) {
  uint64_t seed = 29;
  static const nx_dtype adds[] = {NX_UINT8, NX_BOOL, NX_INT16, NX_BFLOAT16, NX_FLOAT32, NX_INT32, NX_FLOAT64, NX_INT4};
  static const int64_t shapes[][3] = {{37, 53, 0}, {21, 1030, 0}, {1030, 21, 0}, {3, 40, 33}};
  tcase cases[256];
  int nc = 0;
  for (size_t d = 0; d < sizeof adds / sizeof *adds; d++)
    for (int s = 0; s < 4; s++) {
      int rank = shapes[s][2] ? 3 : 2;
      tcase t = {0, adds[d], adds[d], rank, {shapes[s][0], shapes[s][1], shapes[s][2]}, 2, -1};
      cases[nc++] = t; /* x transposed */
      t.transposed = 6;
      cases[nc++] = t; /* x and y */
      t.transposed = 2;
      t.flip = rank - 1;
      cases[nc++] = t; /* x transposed and flipped along z's inner axis */
      t.flip = rank - 2;
      cases[nc++] = t; /* x transposed and flipped along its own inner axis */
    }
  for (int s = 0; s < 3; s++) {
    tcase w = {1, NX_FLOAT32, NX_FLOAT32, 2, {shapes[s][0], shapes[s][1], 0}, 14, -1};
    cases[nc++] = w; /* c, x and y transposed: two packed, one read in place */
    tcase u = {2, NX_FLOAT32, NX_UINT8, 2, {shapes[s][0], shapes[s][1], 0}, 2, -1};
    cases[nc++] = u;
    u.xt = NX_FLOAT64;
    cases[nc++] = u;
    u.xt = NX_FLOAT32;
    u.zt = NX_BFLOAT16;
    cases[nc++] = u;
  }
  int threads = nx_num_threads();
  int64_t serial = nx__serial_work;
  nx__serial_work = 0;
  for (int level = NX__TYPED_BASE; level < NX__TYPED_BEST; level++)
    for (int th = 1; th <= 2; th++) {
      char where[64];
      if (nx__typed_set_isa(level) != level) {
        if (th == 1) printf("level %d: not on this CPU\n", level);
        continue;
      }
      snprintf(where, sizeof where, "level %d, %d thread%s:", level, th, th > 1 ? "s" : "");
      nx_set_num_threads(th);
      for (int i = 0; i < nc; i++) run_case(&cases[i], &seed, where);
    }
  nx__typed_set_isa(NX__TYPED_BEST);
  nx__serial_work = serial;
  nx_set_num_threads(threads);
  return check_done();
}
