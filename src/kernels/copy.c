/* SPDX-License-Identifier: Apache-2.0 */
/* fill, copy and assign. */
#include "api.h"
#include "../devices/dispatch.h"
#include "elem.h"

typedef struct fctx {
  int bits;
  uint64_t lo, hi;
} fctx;

static void fill_body(void *vc, const nx__arg *a, int64_t n) {
  const fctx *c = vc;
  if (c->bits == 128) {
    for (int64_t i = 0; i < n; i++) {
      nx__st(64, &a[0], i, c->lo);
      nx__st_hi(&a[0], i, c->hi);
    }
    return;
  }
  for (int64_t i = 0; i < n; i++) nx__st(c->bits, &a[0], i, c->lo);
}

static nx_answer fill_kernel(void *vc, const nx_operand *ops, int nw, int nr) {
  (void)nw;
  (void)nr;
  nx__walk(ops, 1, fill_body, vc, 1, 0);
  return NX_DONE;
}

int nx_fill(nx_array *z, nx_value v) {
  if (!z) return nx__fail(NX_EINVAL, "nx_fill: operand 0 is NULL");
  nx_dtype dt = nx_array_dtype(z);
  if (!nx_dtype_holds(dt, v)) {
    char t[160];
    return nx__fail(NX_EINVAL, "nx_fill: the value is outside the range of %s (%s)", nx_dtype_name(dt),
                    nx_array_describe(z, t, sizeof t));
  }
  fctx c = {nx_dtype_bits_of(dt), 0, 0};
  switch (nx_dtype_kind_of(dt)) {
  case NX_KIND_FLOAT: c.lo = nx_dtype_store_double(dt, v.f); break;
  case NX_KIND_COMPLEX:
    if (dt == NX_COMPLEX128) {
      c.lo = nx__f64_bits(v.c.re);
      c.hi = nx__f64_bits(v.c.im);
    } else {
      c.lo = (uint64_t)nx_store_float32_f64(nx__f64_bits(v.c.re)) | (uint64_t)nx_store_float32_f64(nx__f64_bits(v.c.im)) << 32;
    }
    break;
  case NX_KIND_SIGNED: c.lo = (uint64_t)v.i; break;
  case NX_KIND_UNSIGNED: c.lo = v.u; break;
  default: c.lo = v.b; break;
  }
  /* Device kernels (src/devices): operands on one OpenCL device run there. */
  int s = nx__device_dispatch(&(nx__devop){"nx_fill", NX__DK_FILL, 0, c.lo, c.hi, false}, &z, 1, 0);
  if (s != NX_DECLINED) return s;
  int a = nx_door_host(&z, 1, NULL, 0, fill_kernel, &c);
  return nx__finish("nx_fill", "the host kernel", a, &z, 1, dt);
}

typedef struct cctx {
  int bits;
} cctx;

static void copy_body(void *vc, const nx__arg *a, int64_t n) {
  const cctx *c = vc;
  if (c->bits >= 8 && a[0].step == c->bits / 8 && a[1].step == c->bits / 8) {
    memmove(a[0].p, a[1].p, (size_t)(n * (c->bits / 8)));
    return;
  }
  for (int64_t i = 0; i < n; i++) nx__move(c->bits, &a[0], i, &a[1], i);
}

static nx_answer copy_kernel(void *vc, const nx_operand *ops, int nw, int nr) {
  cctx *c = vc;
  (void)nw;
  (void)nr;
  if (ops[1].dtype != ops[0].dtype) return NX_WRONG_DTYPE;
  if (!nx__same_shape(ops, 2)) return NX_SHAPE_MISMATCH;
  c->bits = nx_dtype_bits_of(ops[0].dtype);
  nx__walk(ops, 2, copy_body, c, 1, 0);
  return NX_DONE;
}

/* made: z is the result nx_copy_new made, which refusals do not name. */
static int copy(const char *name, nx_array *z, nx_array *x, bool made) {
  nx_array *ops[2] = {z, x};
  int s = nx__need(name, ops, 2);
  if (s) return s;
  cctx c;
  /* Device kernels (src/devices): operands on one OpenCL device run there. */
  if ((s = nx__device_dispatch(&(nx__devop){name, NX__DK_COPY, 0, 0, 0, made}, ops, 1, 1)) != NX_DECLINED) return s;
  int a = nx_door_host(ops, 1, ops + 1, 1, copy_kernel, &c);
  return nx__finish(name, "the host kernel", a, ops + made, 2 - made, nx_array_dtype(z));
}

int nx_copy(nx_array *z, nx_array *x) { return copy("nx_copy", z, x, false); }
int nx_assign(nx_array *z, nx_array *x) { return copy("nx_assign", z, x, false); }

int nx_copy_new(nx_array **z, nx_array *x) {
  if (!z) return nx__fail(NX_EINVAL, "nx_copy_new: the result z is NULL");
  if (!x) return nx__fail(NX_EINVAL, "nx_copy_new: operand 0 is NULL");
  nx_array *r;
  int s = nx__make_like("nx_copy_new", x, nx_array_dtype(x), &r);
  if (s) return s;
  if ((s = copy("nx_copy_new", r, x, true))) {
    nx_array_free(r);
    return s;
  }
  *z = r;
  return 0;
}
