/* SPDX-License-Identifier: Apache-2.0 */
/* Binary elementwise operations: z = op(x, y), one dtype, one shape. */
#include <string.h>

#include "api.h"
#include "../devices/dispatch.h"
#include "fast.h"
#include "ops.h"
#include "typed.h"

typedef struct bctx {
  nx__bop op;
  nx_dtype dt;
} bctx;

static void body(void *vc, const nx__arg *a, int64_t n) {
  const bctx *c = vc;
  nx_dtype dt = c->dt;
  if (nx__typed_binary(c->op, dt, a, n) || nx__fast_binary(c->op, dt, a, n)) return;
  if (nx_dtype_kind_of(dt) == NX_KIND_FLOAT && (c->op == NX__POW || c->op == NX__ATAN2)) {
    int bits = nx_dtype_bits_of(dt);
    for (int64_t i = 0; i < n; i++) {
      double x = nx__load(dt, &a[1], i).f, y = nx__load(dt, &a[2], i).f;
      nx__st(bits, &a[0], i, nx__math2(c->op, dt, x, y));
    }
    return;
  }
  for (int64_t i = 0; i < n; i++)
    nx__store(dt, &a[0], i, nx__bop_apply(c->op, dt, nx__load(dt, &a[1], i), nx__load(dt, &a[2], i)));
}

static nx_answer kernel(void *vc, const nx_operand *ops, int nw, int nr) {
  bctx *c = vc;
  (void)nw;
  (void)nr;
  c->dt = ops[0].dtype;
  if (ops[1].dtype != c->dt || ops[2].dtype != c->dt) return NX_WRONG_DTYPE;
  if (!nx__same_shape(ops, 3)) return NX_SHAPE_MISMATCH;
  if (!nx__bop_computes(c->op, c->dt)) return NX_DECLINED;
  int weight = c->op == NX__POW || c->op == NX__ATAN2 ? 64 : c->op >= NX__FDIV && c->op <= NX__MOD ? 4 : 1;
  nx__walk(ops, 3, body, c, weight, 0);
  return NX_DONE;
}

/* made: z is the result a _new form made, which refusals do not name. */
static int nx__binary(const char *name, const char *kernel_name, nx__bop op, nx_array *z, nx_array *x, nx_array *y,
                      bool made) {
  nx_array *ops[3] = {z, x, y};
  int s = nx__need(name, ops, 3);
  if (s) return s;
  bctx c = {op, nx_array_dtype(z)};
  /* Device kernels (src/devices): operands on one OpenCL device run there. */
  if ((s = nx__device_dispatch(&(nx__devop){name, NX__DK_BINARY, op, 0, 0, made}, ops, 1, 2)) != NX_DECLINED) return s;
  int a = nx_door_host(ops, 1, ops + 1, 2, kernel, &c);
  /* nx_add keeps the seed's sentence word for word, without the dtype */
  if (a == NX_DECLINED && !strcmp(name, "nx_add"))
    return nx__fail(NX_EINVAL, "nx_add: nx_cpu_add does not compute this case");
  return nx__finish(name, kernel_name, a, ops + made, 3 - made, c.dt);
}

static int nx__binary_new(const char *name, nx__bop op, nx_array **z, nx_array *x, nx_array *y) {
  nx_array *ops[2] = {x, y};
  int s = nx__need(name, ops, 2);
  if (s) return s;
  if (!z) return nx__fail(NX_EINVAL, "%s: the result pointer is NULL", name);
  nx_array *r;
  if ((s = nx__make_like(name, x, nx_array_dtype(x), &r))) return s;
  if ((s = nx__binary(name, "the host kernel", op, r, x, y, true))) {
    nx_array_free(r);
    return s;
  }
  *z = r;
  return 0;
}

#define NX__BINARY(name, OP)                                                                           \
  int nx_##name(nx_array *z, nx_array *x, nx_array *y) {                                               \
    return nx__binary("nx_" #name, "the host kernel", OP, z, x, y, false);                             \
  }                                                                                                    \
  int nx_##name##_new(nx_array **z, nx_array *x, nx_array *y) { return nx__binary_new("nx_" #name "_new", OP, z, x, y); }
NX__BINARY(sub, NX__SUB)
NX__BINARY(mul, NX__MUL)
NX__BINARY(fdiv, NX__FDIV)
NX__BINARY(idiv, NX__IDIV)
NX__BINARY(mod, NX__MOD)
NX__BINARY(pow, NX__POW)
NX__BINARY(atan2, NX__ATAN2)
NX__BINARY(min, NX__MIN)
NX__BINARY(max, NX__MAX)
NX__BINARY(and, NX__AND)
NX__BINARY(or, NX__OR)
NX__BINARY(xor, NX__XOR)

int nx_add_new(nx_array **z, nx_array *x, nx_array *y) { return nx__binary_new("nx_add_new", NX__ADD, z, x, y); }

/* The seed's kernel, on the engine: answers as the door does, NX_DECLINED for
   bit. */
int nx_cpu_add(nx_array *z, nx_array *x, nx_array *y) {
  nx_array *ops[3] = {z, x, y};
  int s = nx__need("nx_cpu_add", ops, 3);
  if (s) return s;
  bctx c = {NX__ADD, nx_array_dtype(z)};
  return nx_door_host(ops, 1, ops + 1, 2, kernel, &c);
}

int nx_add(nx_array *z, nx_array *x, nx_array *y) { return nx__binary("nx_add", "nx_cpu_add", NX__ADD, z, x, y, false); }
