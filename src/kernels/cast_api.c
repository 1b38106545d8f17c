/* SPDX-License-Identifier: Apache-2.0 */
/* nx_cast: every dtype into every dtype, through the door and the engine,
   one nx__cast_run per inner run. */
#include "api.h"
#include "../devices/dispatch.h"
#include "elem.h"

#if __has_include("cast.h")
#include "cast.h"
#else
/* Until the cast kernels are in the tree: each element through its value as
   a double (exact but for integers past 2^53) and the store rule. */
static void nx__cast_run(nx_dtype to, void *dst, int64_t dp, int64_t ds, nx_dtype from, const void *src, int64_t sp,
                         int64_t ss, int64_t n) {
  int tb = nx_dtype_bits_of(to), fb = nx_dtype_bits_of(from);
  nx__arg d = {dst, dp, ds}, s = {(char *)src, sp, ss};
  if (tb >= 8) d = (nx__arg){(char *)dst + dp * (tb / 8), 0, ds * (tb / 8)};
  if (fb >= 8) s = (nx__arg){(char *)src + sp * (fb / 8), 0, ss * (fb / 8)};
  for (int64_t i = 0; i < n; i++) {
    nx__v v = nx__load(from, &s, i), w;
    int fk = nx_dtype_kind_of(from), tk = nx_dtype_kind_of(to);
    double re = fk == NX_KIND_FLOAT ? v.f : fk == NX_KIND_COMPLEX ? v.c.re : fk == NX_KIND_SIGNED ? (double)v.i : (double)v.u;
    double im = fk == NX_KIND_COMPLEX ? v.c.im : 0;
    if (tk == NX_KIND_COMPLEX) w.c = (nx__cplx){re, im};
    else if (tk == NX_KIND_FLOAT) w.f = re;
    else if (tk == NX_KIND_BOOLEAN) w.u = re != 0 || im != 0 || re != re;
    else w.u = nx_dtype_store_f64bits(to, nx__f64_bits(re));
    nx__store(to, &d, i, w);
  }
}
#endif

typedef struct kctx {
  nx_dtype to, from;
} kctx;

static void body(void *vc, const nx__arg *a, int64_t n) {
  const kctx *c = vc;
  int tb = nx_dtype_bits_of(c->to), fb = nx_dtype_bits_of(c->from);
  /* Back to (buffer, element position, element step) for the cast run. */
  if (tb >= 8 && fb >= 8) {
    nx__cast_run(c->to, a[0].p, 0, a[0].step / (tb / 8), c->from, a[1].p, 0, a[1].step / (fb / 8), n);
    return;
  }
  nx__cast_run(c->to, tb >= 8 ? a[0].p : a[0].p, tb >= 8 ? 0 : a[0].pos, tb >= 8 ? a[0].step / (tb / 8) : a[0].step,
               c->from, a[1].p, fb >= 8 ? 0 : a[1].pos, fb >= 8 ? a[1].step / (fb / 8) : a[1].step, n);
}

static nx_answer kernel(void *vc, const nx_operand *ops, int nw, int nr) {
  kctx *c = vc;
  (void)nw;
  (void)nr;
  c->to = ops[0].dtype;
  c->from = ops[1].dtype;
  if (!nx__same_shape(ops, 2)) return NX_SHAPE_MISMATCH;
  nx__walk(ops, 2, body, c, 2, 0);
  return NX_DONE;
}

/* made: dst is the result nx_cast_new made, which refusals do not name. */
static int cast(const char *name, nx_array *dst, nx_array *src, bool made) {
  nx_array *ops[2] = {dst, src};
  int s = nx__need(name, ops, 2);
  if (s) return s;
  kctx c;
  /* Device kernels (src/devices): operands on one OpenCL device run there. */
  if ((s = nx__device_dispatch(&(nx__devop){name, NX__DK_CAST, 0, 0, 0, made}, ops, 1, 1)) != NX_DECLINED) return s;
  int a = nx_door_host(ops, 1, ops + 1, 1, kernel, &c);
  return nx__finish(name, "the host kernel", a, ops + made, 2 - made, nx_array_dtype(dst));
}

int nx_cast(nx_array *dst, nx_array *src) { return cast("nx_cast", dst, src, false); }

int nx_cast_new(nx_array **z, nx_dtype to, nx_array *src) {
  if (!z) return nx__fail(NX_EINVAL, "nx_cast_new: the result z is NULL");
  if (!src) return nx__fail(NX_EINVAL, "nx_cast_new: operand 0 is NULL");
  if ((unsigned)to >= NX_DTYPE_COUNT) return nx__fail(NX_EINVAL, "nx_cast_new: %d is not a dtype", (int)to);
  nx_array *r;
  int s = nx__make_like("nx_cast_new", src, to, &r);
  if (s) return s;
  if ((s = cast("nx_cast_new", r, src, true))) {
    nx_array_free(r);
    return s;
  }
  *z = r;
  return 0;
}
