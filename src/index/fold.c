/* SPDX-License-Identifier: Apache-2.0 */
/* nx_fold: unfold's adjoint (col2im). Each element of z gathers the terms
   of the windows that cover it, in ascending window offset, and is stored
   once: no element is written twice, so the rows of z split over the pool
   with no order between threads to matter. */
#include "nx_index.h"
#include "walk.h"
#include "window.h"

typedef struct fctx {
  nx__win w;
  nx_dtype dt;
  const nx_operand *z, *x;
} fctx;

static void add(int kind, nx__v *acc, nx__v v) {
  switch (kind) {
  case NX_KIND_FLOAT: acc->f += v.f; return;
  case NX_KIND_COMPLEX: acc->c.re += v.c.re, acc->c.im += v.c.im; return;
  case NX_KIND_SIGNED:
  case NX_KIND_UNSIGNED: acc->u += v.u; return;
  default: acc->u |= v.u; return;
  }
}

/* The window index l (C order over out) of the window whose offset i covers
   spatial coordinates p, or -1 where none does. */
static int64_t window_at(const nx__win *w, const int64_t *p, const int64_t *i) {
  int64_t l = 0;
  for (int j = 0; j < w->k; j++) {
    int64_t o = p[j] + w->lo[j] - i[j] * w->dil[j];
    if (o < 0 || o % w->stride[j]) return -1;
    o /= w->stride[j];
    if (o >= w->out[j]) return -1;
    l = l * w->out[j] + o;
  }
  return l;
}

static void rows(void *vc, int64_t u0, int64_t u1) {
  const fctx *c = vc;
  const nx__win *w = &c->w;
  const nx_layout *zl = c->z->layout, *xl = c->x->layout;
  int k = w->k, nlead = w->r - k, last = k - 1, kind = nx_dtype_kind_of(c->dt), bits = nx_dtype_bits_of(c->dt);
  int64_t xrow = xl->stride[xl->rank - 2], xcol = xl->stride[xl->rank - 1];
  for (int64_t u = u0; u < u1; u++) {
    /* u over z's axes but the last: the lead axes, then the windowed ones */
    int64_t p[NX_MAX_RANK], rest = u, zp = zl->offset, xp = xl->offset;
    for (int j = last - 1; j >= 0; j--) {
      p[j] = rest % w->ext[j];
      rest /= w->ext[j];
      zp += p[j] * zl->stride[nlead + j];
    }
    for (int j = nlead - 1; j >= 0; j--) {
      int64_t e = rest % zl->extent[j];
      rest /= zl->extent[j];
      zp += e * zl->stride[j];
      xp += j < nlead - 1 ? e * xl->stride[j] : e * w->count * xrow;
    }
    for (p[last] = 0; p[last] < w->ext[last]; p[last]++) {
      nx__v acc;
      memset(&acc, 0, sizeof acc);
      int64_t i[NX_MAX_RANK] = {0};
      for (int64_t off = 0; off < w->count; off++) {
        int64_t l = window_at(w, p, i);
        if (l >= 0) {
          nx__arg s = nx__at(c->x->base, bits, xp + off * xrow + l * xcol);
          add(kind, &acc, nx__load(c->dt, &s, 0));
        }
        for (int j = last; j >= 0; j--) {
          if (++i[j] < w->size[j]) break;
          i[j] = 0;
        }
      }
      nx__arg d = nx__at(c->z->base, bits, zp + p[last] * zl->stride[zl->rank - 1]);
      nx__store(c->dt, &d, 0, acc);
    }
  }
}

static nx_answer kernel(void *vc, const nx_operand *ops, int nw, int nr) {
  fctx *c = vc;
  (void)nw;
  (void)nr;
  if (ops[0].dtype != ops[1].dtype) return NX_WRONG_DTYPE;
  if (!nx__win_fits(&c->w, ops[0].layout, ops[1].layout)) return NX_SHAPE_MISMATCH;
  c->z = &ops[0];
  c->x = &ops[1];
  c->dt = ops[0].dtype;
  const nx_layout *zl = ops[0].layout;
  int64_t n = 1;
  for (int j = 0; j < zl->rank; j++) n *= zl->extent[j];
  if (n == 0) return NX_DONE;
  int64_t units = n / zl->extent[zl->rank - 1];
  int64_t work = n * c->w.count * 8;
  nx__parallel(units, work < NX__SERIAL_WORK ? 1 : 4 * (int64_t)nx_num_threads(), rows, c);
  return NX_DONE;
}


int nx_fold(nx_array *z, nx_array *x, int k, const int64_t *size, const int64_t *stride, const int64_t *dilation,
            const int64_t *padding) {
  const char *name = "nx_fold";
  nx_array *ops[2] = {z, x};
  int s = nx__need(name, ops, 2);
  if (s) return s;
  const nx_layout *l = nx_array_layout(z);
  char t[160];
  nx_array_describe(z, t, sizeof t);
  int kk = k >= 1 && k <= l->rank - 1 ? k : 0;
  fctx c;
  if ((s = nx__win_make(name, t, l->rank, l->extent + l->rank - kk, k, size, stride, dilation, padding, &c.w))) return s;
  return nx__win_door(name, z, x, kernel, &c, NULL);
}

int nx_fold_new(nx_array **z, nx_array *x, int k, const int64_t *shape, const int64_t *size, const int64_t *stride,
                const int64_t *dilation, const int64_t *padding) {
  const char *name = "nx_fold_new";
  nx_array *ops[1] = {x};
  int s = nx__need(name, ops, 1);
  if (s) return s;
  if (!z) return nx__fail(NX_EINVAL, "%s: the result pointer is NULL", name);
  const nx_layout *l = nx_array_layout(x);
  char t[160];
  nx_array_describe(x, t, sizeof t);
  if (!shape) return nx__fail(NX_EINVAL, "%s: the shape argument is NULL (%s)", name, t);
  if (k < 1 || k > NX_MAX_RANK - l->rank + 1)
    return nx__fail(NX_EINVAL, "%s: %d windowed axes do not fit with %s (the result's rank is past %d)", name, k, t,
                    NX_MAX_RANK);
  if (l->rank < 2) return nx__fail(NX_EINVAL, "%s: %s has rank below 2 (the window axis and the windows)", name, t);
  for (int j = 0; j < k; j++)
    if (shape[j] < 0)
      return nx__fail(NX_EINVAL, "%s: extent %lld on windowed axis %d is below 0 (%s)", name, (long long)shape[j], j, t);
  int r = l->rank - 1 + k, nlead = l->rank - 1;
  fctx c;
  if ((s = nx__win_make(name, t, r, shape, k, size, stride, dilation, padding, &c.w))) return s;
  int64_t rows = l->extent[nlead - 1];
  if (rows % c.w.count)
    return nx__fail(NX_EINVAL, "%s: the window axis of %s is not a multiple of the window's %lld elements", name, t,
                    (long long)c.w.count);
  int64_t out[NX_MAX_RANK];
  for (int j = 0; j < nlead - 1; j++) out[j] = l->extent[j];
  out[nlead - 1] = rows / c.w.count;
  for (int j = 0; j < k; j++) out[nlead + j] = shape[j];
  nx_array *res;
  if ((s = nx__make(name, x, nx_array_dtype(x), out, r, &res))) return s;
  return nx__win_door(name, res, x, kernel, &c, z);
}
