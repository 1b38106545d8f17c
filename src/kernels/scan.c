/* SPDX-License-Identifier: Apache-2.0 */
/* Along one axis, in index order: argmax and argmin (the first occurrence,
   a NaN greater than any number), and the inclusive scans cumsum, cumprod,
   cummax and cummin (floats accumulate in double and store each result
   once; integers wrap; NaN propagates from where it appears; -0 < +0 in
   cummax and cummin). */
#include <math.h>

#include "lines.h"
#include "ops.h"

typedef enum lop { ARGMAX, ARGMIN, CUMSUM, CUMPROD, CUMMAX, CUMMIN } lop;

typedef struct lctx {
  lop op;
  nx_dtype dt, zt;
  int64_t n, xs, zs; /* the axis: extent, x's and z's strides */
  const char *xbase;
  char *zbase;
} lctx;

/* Whether b comes before a in the order argmax (mx) or argmin looks for:
   NaN first, then greater (or lesser). */
static bool better(bool mx, int k, nx__v a, nx__v b) {
  if (k == NX_KIND_FLOAT) {
    if (isnan(a.f)) return false;
    if (isnan(b.f)) return true;
    return mx ? b.f > a.f : b.f < a.f;
  }
  if (k == NX_KIND_SIGNED) return mx ? b.i > a.i : b.i < a.i;
  return mx ? b.u > a.u : b.u < a.u;
}

/* Whether cummax (mx) or cummin moves from a to b: better's order, and of
   two zeros -0 < +0, as nx_max, nx_min and the reductions order them
   (argmax keeps the first of equal values). */
static bool scan_moves(bool mx, int k, nx__v a, nx__v b) {
  if (k == NX_KIND_FLOAT && a.f == 0 && b.f == 0) return (signbit(a.f) != 0) == mx && (signbit(b.f) != 0) != mx;
  return better(mx, k, a, b);
}

static nx__arg at(char *base, int bits, int64_t p, int64_t s) {
  return bits >= 8 ? (nx__arg){base + p * (bits / 8), 0, s * (bits / 8)} : (nx__arg){base, p, s};
}

static void arg_each(void *vc, const nx__arg *z, int64_t i, int64_t xp) {
  const lctx *c = vc;
  int k = nx_dtype_kind_of(c->dt);
  nx__arg x = at((char *)c->xbase, nx_dtype_bits_of(c->dt), xp, c->xs);
  nx__v best = nx__load(c->dt, &x, 0);
  int64_t bi = 0;
  for (int64_t j = 1; j < c->n && !(k == NX_KIND_FLOAT && isnan(best.f)); j++) {
    nx__v v = nx__load(c->dt, &x, j);
    if (better(c->op == ARGMAX, k, best, v)) {
      best = v;
      bi = j;
    }
  }
  nx__st(32, z, i, (uint64_t)bi);
}

static void scan_each(void *vc, const nx__arg *zrun, int64_t i, int64_t xp) {
  const lctx *c = vc;
  int k = nx_dtype_kind_of(c->dt), bits = nx_dtype_bits_of(c->dt);
  nx__arg x = at((char *)c->xbase, bits, xp, c->xs);
  /* z's line: element i of the run is its first element */
  nx__arg z = bits >= 8 ? (nx__arg){zrun->p + i * zrun->step, 0, c->zs * (bits / 8)}
                        : (nx__arg){zrun->p, zrun->pos + i * zrun->step, c->zs};
  nx__v a = {0};
  for (int64_t j = 0; j < c->n; j++) {
    nx__v v = nx__load(c->dt, &x, j);
    if (j == 0) a = v;
    else switch (c->op) {
      case CUMSUM:
        if (k == NX_KIND_FLOAT) a.f += v.f;
        else if (k == NX_KIND_COMPLEX) {
          a.c.re += v.c.re;
          a.c.im += v.c.im;
        } else a.u += v.u;
        break;
      case CUMPROD:
        if (k == NX_KIND_FLOAT) a.f *= v.f;
        else if (k == NX_KIND_COMPLEX) a = nx__bop_apply(NX__MUL, NX_COMPLEX128, a, v); /* nx_mul's Annex G product */
        else a.u *= v.u;
        break;
      default:
        if (scan_moves(c->op == CUMMAX, k, a, v)) a = v;
        break;
      }
    nx__store(c->dt, &z, j, a);
  }
}

typedef struct kctx {
  lctx c;
  int axis;
  const char *why; /* a case declined for its extent, said as such */
} kctx;

static nx_answer kernel(void *vk, const nx_operand *ops, int nw, int nr) {
  kctx *kc = vk;
  lctx *c = &kc->c;
  (void)nw;
  (void)nr;
  c->zt = ops[0].dtype;
  c->dt = ops[1].dtype;
  bool arg = c->op <= ARGMIN;
  if (arg ? c->zt != NX_INT32 : c->zt != c->dt) return NX_WRONG_DTYPE;
  const nx_layout *xl = ops[1].layout, *zl = ops[0].layout;
  bool mask[NX_MAX_RANK] = {false};
  mask[kc->axis] = true;
  nx_layout zk, xk;
  if (arg) {
    if (!nx__reduced_fit(zl, xl, mask, &zk, &xk)) return NX_SHAPE_MISMATCH;
  } else {
    if (!nx__same_shape(ops, 2)) return NX_SHAPE_MISMATCH;
    /* the other axes of x and z */
    zk.rank = xk.rank = 0;
    zk.offset = zl->offset;
    xk.offset = xl->offset;
    for (int j = 0; j < xl->rank; j++)
      if (j != kc->axis) {
        zk.extent[zk.rank] = xk.extent[xk.rank] = xl->extent[j];
        zk.stride[zk.rank++] = zl->stride[j];
        xk.stride[xk.rank++] = xl->stride[j];
      }
  }
  int kind = nx_dtype_kind_of(c->dt);
  if (kind == NX_KIND_COMPLEX && c->op != CUMSUM && c->op != CUMPROD) return NX_DECLINED;
  if (kind == NX_KIND_BOOLEAN && (c->op == CUMSUM || c->op == CUMPROD)) return NX_DECLINED;
  c->n = xl->extent[kc->axis];
  c->xs = xl->stride[kc->axis];
  c->zs = zl->stride[kc->axis];
  c->xbase = ops[1].base;
  if (arg && (c->n == 0 || c->n > INT32_MAX) && nx_layout_count(&zk) > 0) {
    kc->why = c->n == 0 ? "an empty axis has no first extreme" : "the axis is longer than an int32 index counts";
    return NX_DECLINED;
  }
  if (c->n == 0) return NX_DONE;
  nx__each(ops, &zk, &xk, arg ? arg_each : scan_each, c, c->n > 1024 ? 1024 : (int)c->n + 1);
  return NX_DONE;
}

/* made: z is the result along_new made, which refusals do not name. */
static int along(const char *name, lop op, nx_array *z, nx_array *x, int axis, bool made) {
  nx_array *ops[2] = {z, x};
  int s = nx__need(name, ops, 2);
  if (s) return s;
  bool mask[NX_MAX_RANK];
  if ((s = nx__axes(name, x, &axis, 1, mask))) return s;
  kctx k = {{op, nx_array_dtype(x), nx_array_dtype(z), 0, 0, 0, NULL, NULL}, 0, NULL};
  while (!mask[k.axis]) k.axis++;
  int a = nx_door_host(ops, 1, ops + 1, 1, kernel, &k);
  if (a == NX_DECLINED && k.why) {
    char t[160];
    return nx__fail(NX_EINVAL, "%s: %s: axis %d of %s", name, k.why, axis, nx_array_describe(x, t, sizeof t));
  }
  return nx__finish(name, "the host kernel", a, ops + made, 2 - made, k.c.dt);
}

static int along_new(const char *name, lop op, nx_array **z, nx_array *x, int axis, bool keep) {
  if (!x) return nx__fail(NX_EINVAL, "%s: operand 0 is NULL", name);
  if (!z) return nx__fail(NX_EINVAL, "%s: the result pointer is NULL", name);
  bool mask[NX_MAX_RANK];
  int64_t shape[NX_MAX_RANK];
  int s = nx__axes(name, x, &axis, 1, mask);
  if (s) return s;
  nx_array *out;
  if (op <= ARGMIN) {
    int r = nx__reduced_shape(x, mask, keep, shape);
    s = nx__make(name, x, NX_INT32, shape, r, &out);
  } else s = nx__make_like(name, x, nx_array_dtype(x), &out);
  if (s) return s;
  if ((s = along(name, op, out, x, axis, true))) {
    nx_array_free(out);
    return s;
  }
  *z = out;
  return 0;
}

int nx_argmax(nx_array *z, nx_array *x, int axis) { return along("nx_argmax", ARGMAX, z, x, axis, false); }
int nx_argmin(nx_array *z, nx_array *x, int axis) { return along("nx_argmin", ARGMIN, z, x, axis, false); }
int nx_argmax_new(nx_array **z, nx_array *x, int axis, bool keepdims) {
  return along_new("nx_argmax_new", ARGMAX, z, x, axis, keepdims);
}
int nx_argmin_new(nx_array **z, nx_array *x, int axis, bool keepdims) {
  return along_new("nx_argmin_new", ARGMIN, z, x, axis, keepdims);
}

#define NX__SCAN(name, OP)                                                                                    \
  int nx_##name(nx_array *z, nx_array *x, int axis) { return along("nx_" #name, OP, z, x, axis, false); }            \
  int nx_##name##_new(nx_array **z, nx_array *x, int axis) { return along_new("nx_" #name "_new", OP, z, x, axis, false); }
NX__SCAN(cumsum, CUMSUM)
NX__SCAN(cumprod, CUMPROD)
NX__SCAN(cummax, CUMMAX)
NX__SCAN(cummin, CUMMIN)
