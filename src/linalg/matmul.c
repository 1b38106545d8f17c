/* SPDX-License-Identifier: Apache-2.0 */
/* nx_matmul: checks, the batch plan, and the dispatch to a dtype class's
   kernel. */
#include <stdlib.h>

#include "../kernels/elem.h"
#include "blas.h"
#include "mm.h"
#include "nx_linalg.h"
#include "../base/alloc.h"

typedef enum mclass { M_WRONG, M_BLAS, M_F32, M_INT, M_DECLINED } mclass;

static bool small_float(nx_dtype dt) { return nx_dtype_kind_of(dt) == NX_KIND_FLOAT && nx_dtype_bits_of(dt) <= 32; }
static bool integer(nx_dtype dt) {
  int k = nx_dtype_kind_of(dt);
  return k == NX_KIND_SIGNED || k == NX_KIND_UNSIGNED;
}

static mclass classify(nx_dtype z, nx_dtype a, nx_dtype b) {
  if (z == a && a == b && (z == NX_FLOAT32 || z == NX_FLOAT64 || z == NX_COMPLEX64 || z == NX_COMPLEX128))
    return M_BLAS;
  if (small_float(z) && small_float(a) && small_float(b)) return M_F32;
  if (integer(z) && integer(a) && integer(b)) return M_INT;
  int kz = nx_dtype_kind_of(z);
  if (z == a && a == b && kz == NX_KIND_BOOLEAN) return M_DECLINED;
  return M_WRONG;
}

int64_t nx__mm_pos(const nx__mm *P, const nx__mop *o, int64_t t) {
  int64_t pos = o->off;
  for (int j = P->nb - 1; j >= 0; j--) {
    int64_t e = P->bext[j];
    pos += (t % e) * o->bst[j];
    t /= e;
  }
  return pos;
}

void *nx__mm_scratch(nx__mm *P, size_t n) {
  void *p = nx__malloc(n ? n : 1);
  if (!p) P->status = NX_ENOMEM;
  return p;
}

/* o's own matrices as a layout: batch axes of extent 1 where o broadcasts. */
static void own_layout(const nx__mm *P, const nx__mop *o, int64_t rows, int64_t cols, nx_layout *l) {
  l->rank = P->nb + 2;
  l->offset = o->off;
  for (int j = 0; j < P->nb; j++) {
    l->extent[j] = o->bst[j] ? P->bext[j] : 1;
    l->stride[j] = o->bst[j];
  }
  l->extent[P->nb] = rows;
  l->extent[P->nb + 1] = cols;
  l->stride[P->nb] = o->rs;
  l->stride[P->nb + 1] = o->cs;
}

static void contiguous(const nx_layout *own, nx_layout *c) {
  *c = *own;
  c->offset = 0;
  int64_t s = 1;
  for (int j = own->rank - 1; j >= 0; j--) {
    c->stride[j] = own->extent[j] == 1 ? 0 : s;
    s *= own->extent[j];
  }
}

static void copy_run(void *ctx, const nx__arg *a, int64_t n) {
  int bits = *(const int *)ctx;
  for (int64_t i = 0; i < n; i++) nx__move(bits, &a[0], i, &a[1], i);
}

static void copy_layouts(nx_dtype dt, void *db, const nx_layout *dl, void *sb, const nx_layout *sl) {
  nx_dtype dts[2] = {dt, dt};
  void *bases[2] = {db, sb};
  const nx_layout *ls[2] = {dl, sl};
  int bits = nx_dtype_bits_of(dt);
  nx__plan Q;
  nx__plan_make(&Q, 2, dts, bases, ls, 0);
  nx__plan_run(&Q, copy_run, &bits, 1);
}

static int64_t own_count(const nx_layout *l) {
  int64_t c = 1;
  for (int j = 0; j < l->rank; j++) c *= l->extent[j];
  return c;
}

void *nx__mm_pack(nx__mm *P, nx__mop *o, int64_t rows, int64_t cols) {
  nx_layout own, c;
  own_layout(P, o, rows, cols, &own);
  contiguous(&own, &c);
  void *buf = nx__mm_scratch(P, ((size_t)own_count(&own) * (size_t)nx_dtype_bits_of(o->dt) + 7) / 8);
  if (!buf) return NULL;
  copy_layouts(o->dt, buf, &c, o->base, &own);
  o->base = buf;
  o->off = 0;
  for (int j = 0; j < P->nb; j++) o->bst[j] = c.stride[j];
  o->rs = cols;
  o->cs = 1;
  return buf;
}

void nx__mm_unpack(nx__mm *P, const nx__mop *o, const void *buf, int64_t rows, int64_t cols) {
  nx_layout own, c;
  own_layout(P, o, rows, cols, &own);
  contiguous(&own, &c);
  copy_layouts(o->dt, o->base, &own, (void *)buf, &c);
}

/* Fills P's operand o from the layout l of rank r aligned to z's batch. */
static bool fit(nx__mm *P, nx__mop *o, const nx_operand *op) {
  const nx_layout *l = op->layout;
  int lead = l->rank - 2;
  if (lead > P->nb) return false;
  o->dt = op->dtype;
  o->base = op->base;
  o->off = l->offset;
  for (int j = 0; j < P->nb; j++) {
    int q = j - (P->nb - lead);
    o->bst[j] = 0;
    if (q < 0) continue;
    if (l->extent[q] == P->bext[j]) o->bst[j] = P->bext[j] == 1 ? 0 : l->stride[q];
    else if (l->extent[q] != 1) return false;
  }
  o->rs = l->stride[l->rank - 2];
  o->cs = l->stride[l->rank - 1];
  return true;
}

static bool identical(const nx_operand *x, const nx_operand *y) {
  const nx_layout *a = x->layout, *b = y->layout;
  if (x->base != y->base || a->rank != b->rank || a->offset != b->offset) return false;
  for (int j = 0; j < a->rank; j++)
    if (a->extent[j] != b->extent[j] || a->stride[j] != b->stride[j]) return false;
  return true;
}

static void zero_fill(nx__mm *P) {
  nx__v v;
  memset(&v, 0, sizeof v);
  for (int64_t t = 0; t < P->count; t++) {
    int64_t pos = nx__mm_pos(P, &P->z, t);
    int bits = nx_dtype_bits_of(P->z.dt);
    for (int64_t i = 0; i < P->m; i++)
      for (int64_t j = 0; j < P->n; j++) {
        int64_t e = pos + i * P->z.rs + j * P->z.cs;
        nx__arg r = bits >= 8 ? (nx__arg){P->z.base + e * (bits / 8), 0, 0} : (nx__arg){P->z.base, e, 0};
        nx__store(P->z.dt, &r, 0, v);
      }
  }
}

typedef struct mctx {
  int status;
} mctx;

static nx_answer kernel(void *vc, const nx_operand *ops, int nw, int nr) {
  mctx *c = vc;
  (void)nw;
  (void)nr;
  mclass cl = classify(ops[0].dtype, ops[1].dtype, ops[2].dtype);
  if (cl == M_WRONG) return NX_WRONG_DTYPE;
  const nx_layout *zl = ops[0].layout, *al = ops[1].layout, *bl = ops[2].layout;
  nx__mm P;
  P.nb = zl->rank - 2;
  P.count = 1;
  for (int j = 0; j < P.nb; j++) P.count *= (P.bext[j] = zl->extent[j]);
  P.m = al->extent[al->rank - 2];
  P.k = al->extent[al->rank - 1];
  P.n = bl->extent[bl->rank - 1];
  P.status = 0;
  if (bl->extent[bl->rank - 2] != P.k || zl->extent[zl->rank - 2] != P.m || zl->extent[zl->rank - 1] != P.n ||
      !fit(&P, &P.z, &ops[0]) || !fit(&P, &P.a, &ops[1]) || !fit(&P, &P.b, &ops[2]))
    return NX_SHAPE_MISMATCH;
  if (cl == M_DECLINED) return NX_DECLINED;
  if (cl == M_BLAS && !nx__blas_dtype(ops[0].dtype)) {
    if (ops[0].dtype != NX_FLOAT32) return NX_DECLINED;
    cl = M_F32;
  }
  if (P.count == 0 || P.m == 0 || P.n == 0) return NX_DONE;
  if (P.k == 0) {
    zero_fill(&P);
    return NX_DONE;
  }
  /* z identical to an operand: the product goes to scratch first. */
  void *zbuf = NULL;
  nx__mop z0 = P.z;
  if (identical(&ops[0], &ops[1]) || identical(&ops[0], &ops[2])) {
    nx_layout own, cl2;
    own_layout(&P, &P.z, P.m, P.n, &own);
    contiguous(&own, &cl2);
    zbuf = nx__mm_scratch(&P, (size_t)own_count(&own) * (size_t)((nx_dtype_bits_of(P.z.dt) + 7) / 8) + 1);
    if (!zbuf) {
      c->status = P.status;
      return NX_DONE;
    }
    /* sub-byte z: positions in a byte buffer of its own dtype */
    P.z.base = zbuf;
    P.z.off = 0;
    for (int j = 0; j < P.nb; j++) P.z.bst[j] = cl2.stride[j];
    P.z.rs = P.n;
    P.z.cs = 1;
  }
  if (cl == M_BLAS) {
    /* float32 where BLAS's kernel is of a lower level than the CPU's: the packed kernel */
    bool wide = P.z.dt == NX_FLOAT32 && (nx__mm_wide_forced() || nx__blas_level() < nx__mm_level());
    if (!(wide && nx__mm_wide(&P))) nx__mm_blas(&P);
  } else if (cl == M_F32) {
    if (!nx__mm_wide(&P)) nx__mm_f32(&P);
  } else if (!nx__mm_int8(&P))
    nx__mm_int(&P);
  if (zbuf) {
    if (!P.status) nx__mm_unpack(&P, &z0, zbuf, P.m, P.n);
    nx__free(zbuf);
  }
  c->status = P.status;
  return NX_DONE;
}

/* ops: z, a, b; z NULL for a _new form (it has no z yet). */
static int ranks(const char *name, nx_array *const *ops) {
  static const char *const role[3] = {"z", "a", "b"};
  for (int i = 0; i < 3; i++)
    if (ops[i] && nx_array_layout(ops[i])->rank < 2) {
      char t[160];
      return nx__fail(NX_EINVAL, "%s: %s (%s) has rank below 2", name, role[i], nx_array_describe(ops[i], t, sizeof t));
    }
  return 0;
}

/* made: z is the result nx_matmul_new made, which refusals do not name. */
static int matmul(const char *name, nx_array *z, nx_array *a, nx_array *b, bool made) {
  nx_array *ops[3] = {z, a, b};
  int s = nx__need(name, ops, 3);
  if (s || (s = ranks(name, ops))) return s;
  mctx c = {0};
  int ans = nx_door_host(ops, 1, ops + 1, 2, kernel, &c);
  if (ans == NX_DONE && c.status) {
    char t[3][160];
    return nx__fail(c.status, "%s: no scratch space for %s = %s x %s", name, nx_array_describe(z, t[0], sizeof t[0]),
                    nx_array_describe(a, t[1], sizeof t[1]), nx_array_describe(b, t[2], sizeof t[2]));
  }
  const char *why = classify(nx_array_dtype(z), nx_array_dtype(a), nx_array_dtype(b)) == M_BLAS
                        ? "BLAS (not built in)"
                        : "the host kernel";
  return nx__finish(name, why, ans, ops + made, 3 - made, nx_array_dtype(z));
}

int nx_matmul(nx_array *z, nx_array *a, nx_array *b) { return matmul("nx_matmul", z, a, b, false); }

static nx_answer wrong_mix(void *c, const nx_operand *ops, int nw, int nr) {
  (void)c, (void)ops, (void)nw, (void)nr;
  return NX_WRONG_DTYPE;
}

int nx_matmul_new(nx_array **z, nx_array *a, nx_array *b) {
  const char *name = "nx_matmul_new";
  nx_array *ops[3] = {a, a, b};
  int s = nx__need(name, ops + 1, 2);
  nx_array *zab[3] = {NULL, a, b};
  if (s || (s = ranks(name, zab))) return s;
  if (!z) return nx__fail(NX_EINVAL, "%s: the result pointer is NULL", name);
  const nx_layout *al = nx_array_layout(a), *bl = nx_array_layout(b);
  int r = al->rank > bl->rank ? al->rank : bl->rank;
  int64_t shape[NX_MAX_RANK];
  char t[2][160];
  for (int j = 0; j < r - 2; j++) {
    int qa = j - (r - al->rank), qb = j - (r - bl->rank);
    int64_t ea = qa >= 0 ? al->extent[qa] : 1, eb = qb >= 0 ? bl->extent[qb] : 1;
    if (ea != eb && ea != 1 && eb != 1)
      return nx__fail(NX_EINVAL, "%s: the batch axes of %s and %s do not broadcast", name,
                      nx_array_describe(a, t[0], sizeof t[0]), nx_array_describe(b, t[1], sizeof t[1]));
    shape[j] = ea == 1 ? eb : ea;
  }
  shape[r - 2] = al->extent[al->rank - 2];
  shape[r - 1] = bl->extent[bl->rank - 1];
  nx_dtype da = nx_array_dtype(a), db = nx_array_dtype(b), dz = da;
  bool mix_taken = da == db || (small_float(da) && small_float(db)) || (integer(da) && integer(db));
  if (da != db && mix_taken) dz = small_float(da) ? NX_FLOAT32 : NX_INT64;
  /* a mix no kernel takes is refused on a and b alone, through the door so
     that its refusals keep their precedence, before a result the caller
     never passed is made (and named) */
  if (!mix_taken)
    return nx__finish(name, "", nx_door_host(NULL, 0, ops + 1, 2, wrong_mix, NULL), ops + 1, 2, da);
  nx_array *out;
  if ((s = nx__make(name, a, dz, shape, r, &out))) return s;
  if ((s = matmul(name, out, a, b, true))) {
    nx_array_free(out);
    return s;
  }
  *z = out;
  return 0;
}
