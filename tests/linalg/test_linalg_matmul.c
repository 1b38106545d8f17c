/* SPDX-License-Identifier: Apache-2.0 */
/* nx_matmul against references computed here from the operands' values:
   float32, float64 and complex products (BLAS) within the error bound of a
   k-term dot product against a long double sum; the float32 kernel's
   products (low-precision floats and mixes) bit for bit against the scalar
   chain of fmaf over the pairs of p, odd element first, the header
   documents; integers exactly modulo
   2^64. Random shapes (1x1, tall, wide, empty, k past the tile sizes),
   layouts (transposed, sliced with steps, flipped) of a, b and z, batches
   with missing and stride-0 axes, z identical to a; refusals. */
#include <math.h>
#include <stdlib.h>

#include "../check.h"
#include "../common.h"
#include "nx.h"

static uint64_t seed = 12345;

static double rnd(void) { return (double)(int64_t)(splitmix64_next(&seed) >> 11) / 9007199254740992.0 * 2 - 1; }

/* A host array of dt and shape (rank r) with random values: floats in
   (-1, 1) rounded by the store rule, complex both parts, integers over the
   dtype's range. Layout kind on the last two axes: 0 contiguous, 1
   transposed, 2 sliced with step 2 at an odd offset, 3 flipped; axes set in
   bmask broadcast from extent 1 by stride 0. */
static nx_array *operand(nx_dtype dt, const int64_t *shape, int r, int kind, unsigned bmask) {
  int64_t bs[NX_MAX_RANK];
  for (int j = 0; j < r; j++) bs[j] = (bmask >> j & 1) ? 1 : shape[j];
  if (kind == 1) {
    int64_t t = bs[r - 1];
    bs[r - 1] = bs[r - 2];
    bs[r - 2] = t;
  }
  if (kind == 2) bs[r - 1] = 2 * bs[r - 1] + 1, bs[r - 2] = 2 * bs[r - 2] + 1;
  int64_t n = 1;
  for (int j = 0; j < r; j++) n *= bs[j];
  nx_value *xs = calloc((size_t)n + 1, sizeof *xs);
  int kd = nx_dtype_kind(dt), bits = nx_dtype_bits(dt);
  for (int64_t i = 0; i < n; i++) {
    uint64_t u = splitmix64_next(&seed);
    if (kd == NX_KIND_FLOAT) xs[i].f = rnd();
    else if (kd == NX_KIND_COMPLEX) xs[i].c.re = rnd(), xs[i].c.im = rnd();
    else if (kd == NX_KIND_SIGNED) xs[i].i = bits == 64 ? (int64_t)u : (int64_t)(u % (1ull << bits)) - (1ll << (bits - 1));
    else xs[i].u = bits == 64 ? u : u % (1ull << bits);
  }
  nx_array *a = NULL, *v;
  if (nx_array_of_array(dt, bs, r, xs, n, &a)) return free(xs), NULL;
  free(xs);
  nx_move m;
  if (kind == 1) {
    int order[NX_MAX_RANK];
    for (int j = 0; j < r; j++) order[j] = j;
    order[r - 1] = r - 2, order[r - 2] = r - 1;
    nx_move_permute(&m, order, r);
  } else if (kind == 2) {
    int64_t st[NX_MAX_RANK] = {0}, sp[NX_MAX_RANK], step[NX_MAX_RANK];
    for (int j = 0; j < r; j++) sp[j] = bs[j], step[j] = 1;
    st[r - 1] = st[r - 2] = 1, step[r - 1] = step[r - 2] = 2;
    nx_move_slice(&m, st, sp, step, r);
  } else if (kind == 3) {
    int axes[2] = {r - 2, r - 1};
    nx_move_flip(&m, axes, 2);
  } else
    nx_move_reshape(&m, bs, r);
  if (nx_array_move(&m, a, &v)) v = NULL;
  nx_array_free(a);
  if (bmask && v) {
    nx_move_expand(&m, shape, r);
    nx_array *w;
    if (nx_array_move(&m, v, &w)) w = NULL;
    nx_array_free(v);
    v = w;
  }
  return v;
}

static int64_t count_of(const nx_array *a) {
  const nx_layout *l = nx_array_layout(a);
  int64_t n = 1;
  for (int j = 0; j < l->rank; j++) n *= l->extent[j];
  return n;
}

static nx_value *values(const nx_array *a) {
  int64_t n = count_of(a);
  nx_value *v = calloc((size_t)n + 1, sizeof *v);
  if (nx_array_to_array(a, v, n)) return free(v), NULL;
  return v;
}

/* The flat C-order index in operand o (rank ro) of z's batch index zi. */
static int64_t batch_index(const nx_layout *z, const nx_layout *o, const int64_t *zi) {
  int64_t idx = 0;
  int nb = z->rank - 2, ob = o->rank - 2;
  for (int j = 0; j < ob; j++) {
    int zj = j + nb - ob;
    idx = idx * o->extent[j] + (o->extent[j] == 1 ? 0 : zi[zj]);
  }
  return idx;
}

static int cls(nx_dtype z, nx_dtype a, nx_dtype b) {
  if (z == a && a == b && (z == NX_FLOAT32 || z == NX_FLOAT64 || z == NX_COMPLEX64 || z == NX_COMPLEX128)) return 0;
  return nx_dtype_kind(z) == NX_KIND_FLOAT ? 1 : 2;
}

/* Checks z = a b from the operands' values (read before the product). */
static void check_product(const nx_array *z, const nx_array *a, const nx_array *b, const nx_value *av,
                          const nx_value *bv, const char *what) {
  const nx_layout *zl = nx_array_layout(z), *al = nx_array_layout(a), *bl = nx_array_layout(b);
  nx_dtype zt = nx_array_dtype(z), at = nx_array_dtype(a), bt = nx_array_dtype(b);
  int64_t m = zl->extent[zl->rank - 2], n = zl->extent[zl->rank - 1], k = al->extent[al->rank - 1];
  int64_t batches = count_of(z) / (m * n > 0 ? m * n : 1);
  if (m * n == 0) return;
  nx_value *zv = values(z);
  int c = cls(zt, at, bt), zbits = nx_dtype_bits(zt);
  double eps = zt == NX_FLOAT32 || zt == NX_COMPLEX64 ? 0x1p-24 : 0x1p-53;
  long bad = 0;
  for (int64_t t = 0; t < batches; t++) {
    int64_t zi[NX_MAX_RANK], rest = t;
    for (int j = zl->rank - 3; j >= 0; j--) zi[j] = rest % zl->extent[j], rest /= zl->extent[j];
    const nx_value *A = av + batch_index(zl, al, zi) * m * k, *B = bv + batch_index(zl, bl, zi) * k * n;
    const nx_value *Z = zv + t * m * n;
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        bool ok;
        if (c == 0 && nx_dtype_kind(zt) == NX_KIND_FLOAT) {
          long double s = 0, mag = 0;
          for (int64_t p = 0; p < k; p++) {
            long double x = (long double)A[i * k + p].f * B[p * n + j].f;
            s += x, mag += fabsl(x);
          }
          ok = fabsl(Z[i * n + j].f - s) <= (long double)(k + 2) * eps * mag;
        } else if (c == 0) {
          long double re = 0, im = 0, mag = 0;
          for (int64_t p = 0; p < k; p++) {
            nx_value x = A[i * k + p], y = B[p * n + j];
            re += (long double)x.c.re * y.c.re - (long double)x.c.im * y.c.im;
            im += (long double)x.c.re * y.c.im + (long double)x.c.im * y.c.re;
            mag += (fabsl((long double)x.c.re) + fabsl((long double)x.c.im)) *
                   (fabsl((long double)y.c.re) + fabsl((long double)y.c.im));
          }
          long double tol = 2 * (long double)(k + 2) * eps * mag;
          ok = fabsl(Z[i * n + j].c.re - re) <= tol && fabsl(Z[i * n + j].c.im - im) <= tol;
        } else if (c == 1) {
          float acc = 0;
          for (int64_t p = 0; p < k; p += 2) {
            if (p + 1 < k) acc = fmaf((float)A[i * k + p + 1].f, (float)B[(p + 1) * n + j].f, acc);
            acc = fmaf((float)A[i * k + p].f, (float)B[p * n + j].f, acc);
          }
          ok = nx_dtype_store_bits(zt, Z[i * n + j].f) == nx_dtype_store_bits(zt, (double)acc);
        } else {
          uint64_t acc = 0;
          bool as = nx_dtype_kind(at) == NX_KIND_SIGNED, bs = nx_dtype_kind(bt) == NX_KIND_SIGNED;
          for (int64_t p = 0; p < k; p++)
            acc += (as ? (uint64_t)A[i * k + p].i : A[i * k + p].u) * (bs ? (uint64_t)B[p * n + j].i : B[p * n + j].u);
          uint64_t mask = zbits == 64 ? ~0ull : (1ull << zbits) - 1;
          uint64_t got = nx_dtype_kind(zt) == NX_KIND_SIGNED ? (uint64_t)Z[i * n + j].i : Z[i * n + j].u;
          ok = (got & mask) == (acc & mask);
        }
        if (!ok) bad++;
      }
  }
  CHECK(bad == 0, "%s: %ld of %lld elements wrong (%s = %s x %s)", what, bad, (long long)(batches * m * n),
        nx_dtype_name(zt), nx_dtype_name(at), nx_dtype_name(bt));
  free(zv);
}

typedef struct triple {
  nx_dtype z, a, b;
} triple;

static const triple triples[] = {
    {NX_FLOAT32, NX_FLOAT32, NX_FLOAT32},       {NX_FLOAT64, NX_FLOAT64, NX_FLOAT64},
    {NX_COMPLEX64, NX_COMPLEX64, NX_COMPLEX64}, {NX_COMPLEX128, NX_COMPLEX128, NX_COMPLEX128},
    {NX_BFLOAT16, NX_BFLOAT16, NX_BFLOAT16},    {NX_FLOAT16, NX_FLOAT16, NX_FLOAT16},
    {NX_FLOAT32, NX_FLOAT32, NX_FLOAT8_E4M3FN}, {NX_FLOAT8_E5M2, NX_FLOAT8_E5M2, NX_FLOAT8_E5M2},
    {NX_FLOAT8_E4M3FN, NX_FLOAT8_E4M3FN, NX_FLOAT8_E4M3FN}, {NX_FLOAT4_E2M1FN, NX_FLOAT4_E2M1FN, NX_FLOAT4_E2M1FN},
    {NX_FLOAT32, NX_BFLOAT16, NX_FLOAT16},      {NX_INT32, NX_INT32, NX_INT32},
    {NX_INT8, NX_INT8, NX_INT8},                {NX_INT32, NX_INT8, NX_UINT8},
    {NX_INT4, NX_INT4, NX_INT4},                {NX_UINT64, NX_UINT64, NX_UINT64},
};

static bool runs(triple t) {
  return nx_have_blas() || !(cls(t.z, t.a, t.b) == 0 && t.z != NX_FLOAT32);
}

/* One product of shapes [batch.., m, k] x [batch.., k, n] with layouts. */
static void one(triple t, const int64_t *batch, int nb, int64_t m, int64_t k, int64_t n, int ka, int kb, int kz,
                unsigned ba, unsigned bb, int drop_b) {
  int64_t as[NX_MAX_RANK], bs[NX_MAX_RANK], zs[NX_MAX_RANK];
  for (int j = 0; j < nb; j++) as[j] = bs[j] = zs[j] = batch[j];
  as[nb] = m, as[nb + 1] = k, bs[nb] = k, bs[nb + 1] = n, zs[nb] = m, zs[nb + 1] = n;
  nx_array *a = operand(t.a, as, nb + 2, ka, ba), *b = operand(t.b, bs + drop_b, nb + 2 - drop_b, kb, bb),
           *z = operand(t.z, zs, nb + 2, kz, 0);
  CHECK(a && b && z, "operands made");
  if (!a || !b || !z) return;
  nx_value *av = values(a), *bv = values(b);
  int s = nx_matmul(z, a, b);
  char what[160];
  snprintf(what, sizeof what, "batch %d m %lld k %lld n %lld layouts %d %d %d bcast %u %u drop %d", nb, (long long)m,
           (long long)k, (long long)n, ka, kb, kz, ba, bb, drop_b);
  CHECK(s == 0, "%s: %s", what, nx_error_message());
  if (s == 0) check_product(z, a, b, av, bv, what);
  free(av), free(bv);
  nx_array_free(a), nx_array_free(b), nx_array_free(z);
}

static void shapes_and_layouts(void) {
  static const int64_t mkn[][3] = {{1, 1, 1}, {7, 3, 5}, {1, 17, 9}, {33, 5, 2}, {0, 3, 4}, {3, 0, 4},
                                   {4, 3, 0}, {9, 300, 70}, {70, 20, 130}};
  for (size_t q = 0; q < sizeof triples / sizeof *triples; q++) {
    if (!runs(triples[q])) continue;
    for (size_t s = 0; s < sizeof mkn / sizeof *mkn; s++) {
      bool big = mkn[s][0] * mkn[s][1] * mkn[s][2] > 20000;
      /* every layout triple for small products, four for large ones */
      static const int few[4][3] = {{0, 0, 0}, {1, 2, 3}, {2, 1, 1}, {3, 3, 2}};
      for (int l = 0; l < (big ? 4 : 64); l++) {
        int ka = big ? few[l][0] : l / 16, kb = big ? few[l][1] : l / 4 % 4, kz = big ? few[l][2] : l % 4;
        one(triples[q], NULL, 0, mkn[s][0], mkn[s][1], mkn[s][2], ka, kb, kz, 0, 0, 0);
      }
    }
    /* batches: a broadcast along axis 0 by stride 0, b without axis 0 */
    int64_t batch[2] = {3, 2};
    one(triples[q], batch, 2, 5, 6, 4, 0, 1, 0, 1, 0, 1);
    one(triples[q], batch, 2, 5, 6, 4, 1, 3, 1, 0, 2, 0);
    one(triples[q], batch, 2, 20, 260, 66, 2, 0, 0, 2, 1, 0);
  }
}

static void identical_operand(void) {
  for (size_t q = 0; q < sizeof triples / sizeof *triples; q++) {
    triple t = triples[q];
    if (t.z != t.a || !runs(t)) continue;
    int64_t s[2] = {6, 6};
    nx_array *a = operand(t.a, s, 2, 0, 0), *b = operand(t.b, s, 2, 1, 0);
    nx_value *av = values(a), *bv = values(b);
    nx_array *a0 = NULL;
    nx_array_of_array(t.a, s, 2, av, 36, &a0);
    int st = nx_matmul(a, a, b);
    CHECK(st == 0, "z identical to a: %s", nx_error_message());
    if (st == 0) check_product(a, a0, b, av, bv, "z identical to a");
    free(av), free(bv);
    nx_array_free(a), nx_array_free(a0), nx_array_free(b);
  }
}

static void new_variant(void) {
  int64_t as[3] = {2, 3, 4}, bs[2] = {4, 5};
  nx_array *a = operand(NX_BFLOAT16, as, 3, 0, 0), *b = operand(NX_FLOAT8_E4M3FN, bs, 2, 0, 0), *z = NULL;
  nx_value *av = values(a), *bv = values(b);
  CHECK(nx_matmul_new(&z, a, b) == 0, "%s", nx_error_message());
  if (z) {
    const nx_layout *l = nx_array_layout(z);
    CHECK(nx_array_dtype(z) == NX_FLOAT32 && l->rank == 3 && l->extent[0] == 2 && l->extent[1] == 3 && l->extent[2] == 5,
          "matmul_new's result is float32 [2, 3, 5]");
    check_product(z, a, b, av, bv, "matmul_new");
  }
  free(av), free(bv);
  nx_array_free(a), nx_array_free(b), nx_array_free(z);
  /* mixes whose result dtype is a's own (float32 or int64 first): before,
     taken for a mix no kernel takes and refused */
  const nx_dtype mix[][3] = {{NX_FLOAT32, NX_BFLOAT16, NX_FLOAT32}, {NX_FLOAT32, NX_FLOAT16, NX_FLOAT32},
                             {NX_FLOAT32, NX_FLOAT8_E5M2, NX_FLOAT32}, {NX_INT64, NX_INT8, NX_INT64},
                             {NX_INT64, NX_UINT32, NX_INT64}, {NX_INT32, NX_INT64, NX_INT64}};
  for (size_t k = 0; k < sizeof mix / sizeof mix[0]; k++) {
    nx_array *p = operand(mix[k][0], as, 3, 0, 0), *q = operand(mix[k][1], bs, 2, 0, 0), *r = NULL;
    nx_value *pv = values(p), *qv = values(q);
    int st = nx_matmul_new(&r, p, q);
    CHECK(st == 0 && nx_array_dtype(r) == mix[k][2], "matmul_new %s x %s: %s", nx_dtype_name(mix[k][0]),
          nx_dtype_name(mix[k][1]), st ? nx_error_message() : "another dtype");
    if (st == 0) check_product(r, p, q, pv, qv, "matmul_new of a mix");
    free(pv), free(qv);
    nx_array_free(p), nx_array_free(q), nx_array_free(r);
  }
}

static bool says(const char *part) { return strstr(nx_error_message(), part) != NULL; }

static void refusals(void) {
  int64_t s23[2] = {2, 3}, s34[2] = {3, 4}, s24[2] = {2, 4}, s44[2] = {4, 4}, s3[1] = {3}, b2[3] = {2, 2, 3},
          b3[3] = {3, 3, 4}, z3[3] = {3, 2, 4};
  nx_array *a, *b, *z, *v, *w, *q, *bb, *zz, *ab;
  nx_array_host(NX_FLOAT32, s23, 2, &a);
  nx_array_host(NX_FLOAT32, s34, 2, &b);
  nx_array_host(NX_FLOAT32, s24, 2, &z);
  nx_array_host(NX_FLOAT32, s44, 2, &q);
  nx_array_host(NX_FLOAT32, s3, 1, &v);
  nx_array_host(NX_FLOAT64, s34, 2, &w);
  nx_array_host(NX_FLOAT32, b2, 3, &ab);
  nx_array_host(NX_FLOAT32, b3, 3, &bb);
  nx_array_host(NX_FLOAT32, z3, 3, &zz);
  CHECK(nx_matmul(NULL, a, b) == NX_EINVAL && says("nx_matmul"), "NULL z: %s", nx_error_message());
  CHECK(nx_matmul(z, a, v) == NX_EINVAL && says("rank below 2") && says("float32 [3]"), "rank 1: %s",
        nx_error_message());
  CHECK(nx_matmul(z, a, q) == NX_EINVAL && says("nx_matmul") && says("float32 [4; 4]"), "inner extents: %s",
        nx_error_message());
  CHECK(nx_matmul(z, b, b) == NX_EINVAL, "inner extents 4 and 3: %s", nx_error_message());
  CHECK(nx_matmul(z, a, w) == NX_EINVAL && says("float64 [3; 4]"), "float32 x float64: %s", nx_error_message());
  CHECK(nx_matmul(zz, ab, bb) == NX_EINVAL, "batch 2 against 3: %s", nx_error_message());
  nx_array *nz = NULL;
  CHECK(nx_matmul_new(&nz, ab, bb) == NX_EINVAL && says("broadcast") && nz == NULL, "new, batch 2 against 3: %s",
        nx_error_message());
  CHECK(nx_matmul_new(NULL, a, b) == NX_EINVAL, "NULL result pointer");
  CHECK(nx_matmul_new(&nz, a, v) == NX_EINVAL && says("nx_matmul_new: b (float32 [3]) has rank below 2") && nz == NULL,
        "new, b of rank 1 named b: %s", nx_error_message());
  CHECK(nx_matmul_new(&nz, v, a) == NX_EINVAL && says("nx_matmul_new: a (float32 [3]) has rank below 2"),
        "new, a of rank 1 named a: %s", nx_error_message());
  /* float64 with float32: refused on the caller's two operands alone */
  CHECK(nx_matmul_new(&nz, w, q) == NX_EINVAL && says("nx_matmul_new") && says("(float64 [3; 4], float32 [4; 4])") &&
            nz == NULL,
        "new, float64 x float32: %s", nx_error_message());
  nx_array *bo, *bo2, *bo3;
  nx_array_host(NX_BOOL, s23, 2, &bo);
  nx_array_host(NX_BOOL, s34, 2, &bo2);
  nx_array_host(NX_BOOL, s24, 2, &bo3);
  CHECK(nx_matmul(bo3, bo, bo2) == NX_EINVAL && says("does not compute"), "bool declined: %s", nx_error_message());
  /* a refusal leaves z as it was */
  nx_value zero = {.f = 7};
  nx_fill(z, zero);
  nx_matmul(z, a, q);
  int64_t i0[2] = {0, 0};
  nx_value g;
  nx_array_get(z, i0, &g);
  CHECK(g.f == 7, "z untouched by a refused product");
  nx_array *list[] = {a, b, z, q, v, w, ab, bb, zz, bo, bo2, bo3};
  for (size_t i = 0; i < sizeof list / sizeof *list; i++) nx_array_free(list[i]);
}

int main(void) {
  shapes_and_layouts();
  identical_operand();
  new_variant();
  refusals();
  if (!nx_have_blas()) printf("note: no BLAS in this build: float64 and complex products declined, not checked\n");
  return check_done();
}
