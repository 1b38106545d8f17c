/* SPDX-License-Identifier: Apache-2.0 */
/* where: z = c ? x : y, bit for bit. */
#include "api.h"
#include "../devices/dispatch.h"
#include "elem.h"
#include "typed.h"

typedef struct wctx {
  int bits, cbits;
} wctx;

static void body(void *vc, const nx__arg *a, int64_t n) {
  const wctx *c = vc;
  if (c->cbits == 8 && c->bits >= 8 && nx__typed_where(c->bits / 8, a, n)) return;
  for (int64_t i = 0; i < n; i++) nx__move(c->bits, &a[0], i, nx__ld(c->cbits, &a[1], i) ? &a[2] : &a[3], i);
}

static nx_answer kernel(void *vc, const nx_operand *ops, int nw, int nr) {
  wctx *c = vc;
  (void)nw;
  (void)nr;
  nx_dtype dt = ops[0].dtype;
  if ((ops[1].dtype != NX_BOOL && ops[1].dtype != NX_BIT) || ops[2].dtype != dt || ops[3].dtype != dt)
    return NX_WRONG_DTYPE;
  if (!nx__same_shape(ops, 4)) return NX_SHAPE_MISMATCH;
  c->bits = nx_dtype_bits_of(dt);
  c->cbits = nx_dtype_bits_of(ops[1].dtype);
  nx__walk(ops, 4, body, c, 1, 0);
  return NX_DONE;
}

/* made: ops[0] is the result nx_where_new made, which refusals do not name. */
static int where(const char *name, nx_array *const *ops, bool made) {
  wctx c;
  int s;
  /* Device kernels (src/devices): operands on one OpenCL device run there. */
  if ((s = nx__device_dispatch(&(nx__devop){name, NX__DK_WHERE, 0, 0, 0, made}, ops, 1, 3)) != NX_DECLINED) return s;
  int a = nx_door_host(ops, 1, ops + 1, 3, kernel, &c);
  return nx__finish(name, "the host kernel", a, ops + made, 4 - made, nx_array_dtype(ops[0]));
}

int nx_where(nx_array *z, nx_array *cond, nx_array *x, nx_array *y) {
  nx_array *ops[4] = {z, cond, x, y};
  int s = nx__need("nx_where", ops, 4);
  return s ? s : where("nx_where", ops, false);
}

int nx_where_new(nx_array **z, nx_array *cond, nx_array *x, nx_array *y) {
  if (!z) return nx__fail(NX_EINVAL, "nx_where_new: the result z is NULL");
  nx_array *ops[4] = {NULL, cond, x, y};
  int s = nx__need("nx_where_new", ops + 1, 3);
  if (s) return s;
  if ((s = nx__make_like("nx_where_new", x, nx_array_dtype(x), &ops[0]))) return s;
  if ((s = where("nx_where_new", ops, true))) {
    nx_array_free(ops[0]);
    return s;
  }
  *z = ops[0];
  return 0;
}
