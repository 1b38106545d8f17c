/* SPDX-License-Identifier: Apache-2.0 */
/* Reductions over any set of axes: sum, prod, min, max, any, all. Floats
   accumulate in double (complex in two), pairwise: the sub-array's elements
   in the engine's order are halved until a leaf of NX__LEAF elements; a
   leaf's contiguous float32 and float64 runs sum in double lanes (vsum.h),
   its other elements in order, so the error grows like log n. Integers wrap,
   min and max propagate NaN. One store per result. */
#include <math.h>

#include "lines.h"
#include "ops.h"
#include "vsum.h"

#define NX__LEAF 4096

typedef enum rop { SUM, PROD, MIN, MAX, ANY, ALL } rop;

typedef struct acc {
  nx__v v;
  bool nan;   /* min, max: a NaN was seen (v holds it) */
  bool empty; /* min, max: no element yet */
} acc;

typedef struct rctx {
  rop op;
  nx_dtype dt, zt;
  nx__plan sub; /* the reduced axes, at offset 0 */
} rctx;

static acc identity(const rctx *c) {
  acc a = {{0}, false, c->op == MIN || c->op == MAX};
  int k = nx_dtype_kind_of(c->dt);
  if (c->op == PROD) {
    if (k == NX_KIND_FLOAT) a.v.f = 1;
    else if (k == NX_KIND_COMPLEX) a.v.c.re = 1;
    else a.v.u = 1;
  }
  if (c->op == ALL) a.v.u = 1;
  return a;
}

static bool nonzero(int k, nx__v v) {
  if (k == NX_KIND_FLOAT) return v.f != 0; /* NaN is nonzero */
  if (k == NX_KIND_COMPLEX) return v.c.re != 0 || v.c.im != 0;
  return v.u != 0;
}

static void combine(const rctx *c, acc *a, acc b) {
  int k = nx_dtype_kind_of(c->dt);
  switch (c->op) {
  case SUM:
    if (k == NX_KIND_FLOAT) a->v.f += b.v.f;
    else if (k == NX_KIND_COMPLEX) {
      a->v.c.re += b.v.c.re;
      a->v.c.im += b.v.c.im;
    } else a->v.u += b.v.u;
    return;
  case PROD:
    if (k == NX_KIND_FLOAT) a->v.f *= b.v.f;
    else if (k == NX_KIND_COMPLEX) a->v = nx__bop_apply(NX__MUL, NX_COMPLEX128, a->v, b.v); /* nx_mul's Annex G product */
    else a->v.u *= b.v.u;
    return;
  case ANY: a->v.u |= b.v.u; return;
  case ALL: a->v.u &= b.v.u; return;
  default: break;
  }
  if (b.empty) return;
  if (a->empty) {
    *a = b;
    return;
  }
  if (a->nan) return;
  if (b.nan) {
    *a = b;
    return;
  }
  bool mx = c->op == MAX, less;
  if (k == NX_KIND_FLOAT) less = a->v.f < b.v.f || (a->v.f == b.v.f && signbit(a->v.f) && !signbit(b.v.f));
  else if (k == NX_KIND_SIGNED) less = a->v.i < b.v.i;
  else less = a->v.u < b.v.u;
  bool greater = k == NX_KIND_FLOAT ? (b.v.f < a->v.f || (a->v.f == b.v.f && signbit(b.v.f) && !signbit(a->v.f)))
                                    : k == NX_KIND_SIGNED ? b.v.i < a->v.i : b.v.u < a->v.u;
  if (mx ? less : greater) a->v = b.v;
}

static acc of_elem(const rctx *c, nx__v v) {
  acc a = {v, false, false};
  int k = nx_dtype_kind_of(c->dt);
  if (c->op == ANY || c->op == ALL) a.v.u = nonzero(k, v);
  if ((c->op == MIN || c->op == MAX) && k == NX_KIND_FLOAT && isnan(v.f)) a.nan = true;
  return a;
}

/* Elements [start, start + len) of the sub-array at xp, in the plan's order. */
static acc leaf(const rctx *c, const char *base, int64_t xp, int64_t start, int64_t len) {
  const nx__plan *P = &c->sub;
  int64_t idx[NX_MAX_RANK], pos = xp + P->pos[0], rest = start;
  for (int j = 0; j < P->rank; j++) {
    idx[j] = rest % P->ext[j];
    rest /= P->ext[j];
    pos += idx[j] * P->str[0][j];
  }
  acc a = identity(c);
  int bits = P->bits[0];
  while (len > 0) {
    int64_t n = P->ext[0] - idx[0] < len ? P->ext[0] - idx[0] : len;
    nx__arg r = bits >= 8 ? (nx__arg){(char *)base + pos * (bits / 8), 0, P->str[0][0] * (bits / 8)}
                          : (nx__arg){(char *)base, pos, P->str[0][0]};
    if (c->op == SUM && c->dt == NX_FLOAT32 && r.step == 4) a.v.f += nx__sum_f32((const float *)r.p, n);
    else if (c->op == SUM && c->dt == NX_FLOAT64 && r.step == 8) a.v.f += nx__sum_f64((const double *)r.p, n);
    else
      for (int64_t i = 0; i < n; i++) combine(c, &a, of_elem(c, nx__load(c->dt, &r, i)));
    len -= n;
    /* to the next run */
    pos += (n - 1) * P->str[0][0];
    idx[0] += n - 1;
    for (int j = 0; j < P->rank; j++) {
      if (++idx[j] < P->ext[j]) {
        pos += P->str[0][j];
        break;
      }
      pos -= (idx[j] - 1) * P->str[0][j];
      idx[j] = 0;
    }
  }
  return a;
}

static acc pairwise(const rctx *c, const char *base, int64_t xp, int64_t start, int64_t len) {
  if (len <= NX__LEAF) return leaf(c, base, xp, start, len);
  int64_t half = (len / 2 + NX__LEAF - 1) / NX__LEAF * NX__LEAF;
  acc a = pairwise(c, base, xp, start, half);
  combine(c, &a, pairwise(c, base, xp, start + half, len - half));
  return a;
}

/* A large single reduction: pieces of the pairwise tree on the pool. */
typedef struct par {
  const rctx *c;
  const char *base;
  int64_t xp, piece, count;
  acc *out;
} par;

static void par_task(void *vp, int64_t u0, int64_t u1) {
  const par *p = vp;
  for (int64_t u = u0; u < u1; u++) {
    int64_t s = u * p->piece, l = s + p->piece < p->count ? p->piece : p->count - s;
    p->out[u] = pairwise(p->c, p->base, p->xp, s, l);
  }
}

/* From 2^20 elements the tree's top is always cut into the same pieces, run
   on the pool where it has threads, so the result does not depend on the
   thread count. */
static acc reduce_one(const rctx *c, const char *base, int64_t xp) {
  int64_t count = c->sub.count;
  if (count >= ((int64_t)1 << 20)) {
    enum { PIECES = 64 };
    acc out[PIECES];
    int64_t piece = (count + PIECES - 1) / PIECES;
    piece = (piece + NX__LEAF - 1) / NX__LEAF * NX__LEAF;
    int64_t n = (count + piece - 1) / piece;
    par p = {c, base, xp, piece, count, out};
    nx__parallel(n, n, par_task, &p);
    /* combine pairwise */
    for (int64_t w = 1; w < n; w *= 2)
      for (int64_t i = 0; i + w < n; i += 2 * w) combine(c, &out[i], out[i + w]);
    return out[0];
  }
  return pairwise(c, base, xp, 0, count);
}

typedef struct rrun {
  rctx *c;
  const char *xbase;
} rrun;

static void each(void *vr, const nx__arg *z, int64_t i, int64_t xp) {
  const rrun *r = vr;
  const rctx *c = r->c;
  acc a = c->sub.count ? reduce_one(c, r->xbase, xp) : identity(c);
  if (c->op == ANY || c->op == ALL) nx__st(nx_dtype_bits_of(c->zt), z, i, a.v.u);
  else nx__store(c->zt, z, i, a.v);
}

static bool computes(rop op, nx_dtype dt) {
  int k = nx_dtype_kind_of(dt);
  switch (op) {
  case SUM: case PROD: return k != NX_KIND_BOOLEAN;
  case MIN: case MAX: return k != NX_KIND_COMPLEX;
  default: return true;
  }
}

typedef struct kctx {
  rctx c;
  const bool *mask;
  bool empty; /* min or max over no element: declined, said as such */
} kctx;

static nx_answer kernel(void *vk, const nx_operand *ops, int nw, int nr) {
  kctx *k = vk;
  rctx *c = &k->c;
  (void)nw;
  (void)nr;
  c->zt = ops[0].dtype;
  c->dt = ops[1].dtype;
  if (c->op == ANY || c->op == ALL ? c->zt != NX_BOOL && c->zt != NX_BIT : c->zt != c->dt) return NX_WRONG_DTYPE;
  nx_layout zk, xk, sub;
  if (!nx__reduced_fit(ops[0].layout, ops[1].layout, k->mask, &zk, &xk)) return NX_SHAPE_MISMATCH;
  if (!computes(c->op, c->dt)) return NX_DECLINED;
  nx__sub_layout(ops[1].layout, k->mask, &sub);
  nx_dtype dt = c->dt;
  void *b = ops[1].base;
  const nx_layout *ls = &sub;
  nx__plan_make(&c->sub, 1, &dt, &b, &ls, 0);
  if (c->sub.count == 0 && (c->op == MIN || c->op == MAX) && nx_layout_count(&zk) > 0) {
    k->empty = true;
    return NX_DECLINED;
  }
  rrun r = {c, ops[1].base};
  int64_t w = c->sub.count > 1024 ? 1024 : c->sub.count + 1;
  nx__each(ops, &zk, &xk, each, &r, (int)w);
  return NX_DONE;
}

/* made: z is the result reduce_new made, which refusals do not name. */
static int reduce(const char *name, rop op, nx_array *z, nx_array *x, const int *axes, int naxes, bool made) {
  nx_array *ops[2] = {z, x};
  int s = nx__need(name, ops, 2);
  if (s) return s;
  bool mask[NX_MAX_RANK];
  if ((s = nx__axes(name, x, axes, naxes, mask))) return s;
  kctx k = {{op, nx_array_dtype(x), nx_array_dtype(z), {0}}, mask, false};
  int a = nx_door_host(ops, 1, ops + 1, 1, kernel, &k);
  if (a == NX_DECLINED && k.empty) {
    char t[160];
    return nx__fail(NX_EINVAL, "%s: the reduced axes of %s hold no element, and %s has no identity", name,
                    nx_array_describe(x, t, sizeof t), op == MIN ? "min" : "max");
  }
  return nx__finish(name, "the host kernel", a, ops + made, 2 - made, k.c.dt);
}

static int reduce_new(const char *name, rop op, nx_array **z, nx_array *x, const int *axes, int naxes, bool keep) {
  if (!x) return nx__fail(NX_EINVAL, "%s: operand 0 is NULL", name);
  if (!z) return nx__fail(NX_EINVAL, "%s: the result pointer is NULL", name);
  bool mask[NX_MAX_RANK];
  int64_t shape[NX_MAX_RANK];
  int s = nx__axes(name, x, axes, naxes, mask);
  if (s) return s;
  int r = nx__reduced_shape(x, mask, keep, shape);
  nx_array *out;
  if ((s = nx__make(name, x, op == ANY || op == ALL ? NX_BOOL : nx_array_dtype(x), shape, r, &out))) return s;
  if ((s = reduce(name, op, out, x, axes, naxes, true))) {
    nx_array_free(out);
    return s;
  }
  *z = out;
  return 0;
}

#define NX__REDUCE(name, OP)                                                                     \
  int nx_##name(nx_array *z, nx_array *x, const int *axes, int naxes) {                          \
    return reduce("nx_" #name, OP, z, x, axes, naxes, false);                                    \
  }                                                                                              \
  int nx_##name##_new(nx_array **z, nx_array *x, const int *axes, int naxes, bool keepdims) {    \
    return reduce_new("nx_" #name "_new", OP, z, x, axes, naxes, keepdims);                      \
  }
NX__REDUCE(sum, SUM)
NX__REDUCE(prod, PROD)
NX__REDUCE(reduce_min, MIN)
NX__REDUCE(reduce_max, MAX)
NX__REDUCE(any, ANY)
NX__REDUCE(all, ALL)
