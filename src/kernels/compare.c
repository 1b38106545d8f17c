/* SPDX-License-Identifier: Apache-2.0 */
/* Comparisons into bool or bit: z = (x op y). */
#include <math.h>

#include "api.h"
#include "../devices/dispatch.h"
#include "ops.h"
#include "typed.h"

typedef enum cop { EQ, NE, LT, LE } cop;

typedef struct cctx {
  cop op;
  nx_dtype dt, zt;
} cctx;

static bool cmp(cop op, nx_dtype dt, nx__v x, nx__v y) {
  switch (nx_dtype_kind_of(dt)) {
  case NX_KIND_FLOAT: /* NaN: unordered, so only ne holds */
    return op == EQ ? x.f == y.f : op == NE ? x.f != y.f : op == LT ? x.f < y.f : x.f <= y.f;
  case NX_KIND_COMPLEX: {
    bool eq = x.c.re == y.c.re && x.c.im == y.c.im;
    return op == EQ ? eq : !eq;
  }
  case NX_KIND_SIGNED: return op == EQ ? x.i == y.i : op == NE ? x.i != y.i : op == LT ? x.i < y.i : x.i <= y.i;
  default: return op == EQ ? x.u == y.u : op == NE ? x.u != y.u : op == LT ? x.u < y.u : x.u <= y.u;
  }
}

static void body(void *vc, const nx__arg *a, int64_t n) {
  const cctx *c = vc;
  if (c->zt == NX_BOOL && nx__typed_compare((int)c->op, c->dt, a, n)) return;
  int zb = nx_dtype_bits_of(c->zt);
  for (int64_t i = 0; i < n; i++) nx__st(zb, &a[0], i, cmp(c->op, c->dt, nx__load(c->dt, &a[1], i), nx__load(c->dt, &a[2], i)));
}

static nx_answer kernel(void *vc, const nx_operand *ops, int nw, int nr) {
  cctx *c = vc;
  (void)nw;
  (void)nr;
  c->zt = ops[0].dtype;
  c->dt = ops[1].dtype;
  if ((c->zt != NX_BOOL && c->zt != NX_BIT) || ops[2].dtype != c->dt) return NX_WRONG_DTYPE;
  if (!nx__same_shape(ops, 3)) return NX_SHAPE_MISMATCH;
  if (nx_dtype_kind_of(c->dt) == NX_KIND_COMPLEX && c->op >= LT) return NX_DECLINED;
  nx__walk(ops, 3, body, c, 1, 0);
  return NX_DONE;
}

/* made: z is the result compare_new made, which refusals do not name. */
static int compare(const char *name, cop op, nx_array *z, nx_array *x, nx_array *y, bool made) {
  nx_array *ops[3] = {z, x, y};
  int s = nx__need(name, ops, 3);
  if (s) return s;
  cctx c = {op, nx_array_dtype(x), nx_array_dtype(z)};
  /* Device kernels (src/devices): operands on one OpenCL device run there. */
  if ((s = nx__device_dispatch(&(nx__devop){name, NX__DK_COMPARE, (int)op, 0, 0, made}, ops, 1, 2)) != NX_DECLINED) return s;
  int a = nx_door_host(ops, 1, ops + 1, 2, kernel, &c);
  return nx__finish(name, "the host kernel", a, ops + made, 3 - made, c.dt);
}

static int compare_new(const char *name, cop op, nx_array **z, nx_array *x, nx_array *y) {
  nx_array *ops[2] = {x, y};
  int s = nx__need(name, ops, 2);
  if (s) return s;
  if (!z) return nx__fail(NX_EINVAL, "%s: the result pointer is NULL", name);
  nx_array *r;
  if ((s = nx__make_like(name, x, NX_BOOL, &r))) return s;
  if ((s = compare(name, op, r, x, y, true))) {
    nx_array_free(r);
    return s;
  }
  *z = r;
  return 0;
}

#define NX__COMPARE(name, OP)                                                                               \
  int nx_##name(nx_array *z, nx_array *x, nx_array *y) { return compare("nx_" #name, OP, z, x, y, false); }          \
  int nx_##name##_new(nx_array **z, nx_array *x, nx_array *y) { return compare_new("nx_" #name "_new", OP, z, x, y); }
NX__COMPARE(eq, EQ)
NX__COMPARE(ne, NE)
NX__COMPARE(lt, LT)
NX__COMPARE(le, LE)
