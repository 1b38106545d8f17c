/* SPDX-License-Identifier: Apache-2.0 */
/* nx_unfold: every window of the last k axes copied into a row of z's
   window axis (im2col). A row of z is one (leading index, channel, window
   offset); along it the windows run in C order, and on the last windowed
   axis the source moves by a fixed step, so a row is runs of the padding's
   bits and runs of copies. The rows are split over the pool. */
#include "nx_index.h"
#include "walk.h"
#include "window.h"

typedef struct uctx {
  nx__win w;
  int bits;
  uint64_t pad; /* the store of 0 into the dtype */
  const nx_operand *z, *x;
} uctx;

/* n elements from x at xp by xs to z at zp by zs. */
static void copy_run(int bits, void *zb, int64_t zp, int64_t zs, void *xb, int64_t xp, int64_t xs, int64_t n) {
  if (bits >= 8 && zs == 1 && xs == 1) { /* stride 1 into a contiguous row: one block */
    memcpy((char *)zb + zp * (bits / 8), (char *)xb + xp * (bits / 8), (size_t)n * (size_t)(bits / 8));
    return;
  }
#define RUN(T)                                                                                              \
  do {                                                                                                      \
    T *zt = (T *)zb + zp;                                                                                   \
    const T *xt = (const T *)xb + xp;                                                                       \
    for (int64_t i = 0; i < n; i++) memcpy(zt + i * zs, xt + i * xs, sizeof(T));                            \
  } while (0)
  switch (bits) {
  case 8: RUN(uint8_t); return;
  case 16: RUN(uint16_t); return;
  case 32: RUN(uint32_t); return;
  case 64: RUN(uint64_t); return;
  case 128:
    for (int64_t i = 0; i < n; i++) memcpy((char *)zb + (zp + i * zs) * 16, (char *)xb + (xp + i * xs) * 16, 16);
    return;
  default:
    for (int64_t i = 0; i < n; i++) {
      nx__arg d = nx__at(zb, bits, zp + i * zs), s = nx__at(xb, bits, xp + i * xs);
      nx__move(bits, &d, 0, &s, 0);
    }
  }
#undef RUN
}

static void fill_run(int bits, void *zb, int64_t zp, int64_t zs, int64_t n, uint64_t pad) {
  if (bits >= 8 && zs == 1 && pad == 0) {
    memset((char *)zb + zp * (bits / 8), 0, (size_t)n * (size_t)(bits / 8));
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    nx__arg d = nx__at(zb, bits, zp + i * zs);
    nx__st(bits < 128 ? bits : 64, &d, 0, pad);
    if (bits == 128) nx__st_hi(&d, 0, 0);
  }
}

static void rows(void *vc, int64_t u0, int64_t u1) {
  const uctx *c = vc;
  const nx__win *w = &c->w;
  const nx_layout *zl = c->z->layout, *xl = c->x->layout;
  int k = w->k, nlead = w->r - k; /* x's axes before the windowed ones, the channels' included */
  int last = k - 1;
  int64_t zrow = zl->stride[zl->rank - 2], zcol = zl->stride[zl->rank - 1];
  const int64_t *xs = xl->stride + nlead;
  for (int64_t u = u0; u < u1; u++) {
    /* u = lead index * count + window offset; the lead index over x's first
       nlead axes, which are z's first nlead - 1 and the channel part of its
       row axis */
    int64_t off = u % w->count, lead = u / w->count;
    int64_t i[NX_MAX_RANK], t = off;
    for (int j = k - 1; j >= 0; j--) i[j] = t % w->size[j], t /= w->size[j];
    int64_t xp = xl->offset, zp = zl->offset, rest = lead;
    for (int j = nlead - 1; j >= 0; j--) {
      int64_t e = rest % xl->extent[j];
      rest /= xl->extent[j];
      xp += e * xl->stride[j];
      if (j < nlead - 1) zp += e * zl->stride[j];
      else zp += (e * w->count + off) * zrow;
    }
    int64_t start[NX_MAX_RANK];
    for (int j = 0; j < k; j++) start[j] = i[j] * w->dil[j] - w->lo[j];
    /* the windows whose last windowed coordinate is inside x: [oa, ob) */
    int64_t st = w->stride[last], s0 = start[last], n = w->out[last];
    int64_t oa = s0 >= 0 ? 0 : -s0 / st + (-s0 % st != 0);
    int64_t ob = s0 > w->ext[last] - 1 ? 0 : (w->ext[last] - 1 - s0) / st + 1;
    if (ob > n) ob = n;
    if (oa > ob) oa = ob;
    int64_t o[NX_MAX_RANK] = {0};
    for (int64_t l = 0; l < w->nwin; l += n) {
      /* positions only of coordinates inside x: a padding's coordinate
         times a stride may pass INT64_MAX */
      bool inside = oa < ob;
      int64_t xq = xp;
      for (int j = 0; j < last && inside; j++) {
        int64_t p = start[j] + o[j] * w->stride[j];
        if (p < 0 || p >= w->ext[j]) inside = false;
        else xq += p * xs[j];
      }
      int64_t zq = zp + l * zcol;
      if (!inside) fill_run(c->bits, c->z->base, zq, zcol, n, c->pad);
      else {
        xq += (s0 + oa * st) * xs[last];
        fill_run(c->bits, c->z->base, zq, zcol, oa, c->pad);
        copy_run(c->bits, c->z->base, zq + oa * zcol, zcol, c->x->base, xq, ob - oa > 1 ? st * xs[last] : 0, ob - oa);
        fill_run(c->bits, c->z->base, zq + ob * zcol, zcol, n - ob, c->pad);
      }
      for (int j = last - 1; j >= 0; j--) {
        if (++o[j] < w->out[j]) break;
        o[j] = 0;
      }
    }
  }
}

static int64_t count_of(const nx_layout *l) {
  int64_t c = 1;
  for (int j = 0; j < l->rank; j++) c *= l->extent[j];
  return c;
}

static nx_answer kernel(void *vc, const nx_operand *ops, int nw, int nr) {
  uctx *c = vc;
  (void)nw;
  (void)nr;
  if (ops[0].dtype != ops[1].dtype) return NX_WRONG_DTYPE;
  if (!nx__win_fits(&c->w, ops[1].layout, ops[0].layout)) return NX_SHAPE_MISMATCH;
  c->z = &ops[0];
  c->x = &ops[1];
  c->bits = nx_dtype_bits_of(ops[0].dtype);
  c->pad = nx_dtype_kind_of(ops[0].dtype) == NX_KIND_FLOAT ? nx_dtype_store_f64bits(ops[0].dtype, 0) : 0;
  int64_t units = count_of(ops[0].layout) / (c->w.nwin ? c->w.nwin : 1);
  if (count_of(ops[0].layout) == 0) return NX_DONE;
  int64_t work = count_of(ops[0].layout) * ((c->bits + 7) / 8);
  nx__parallel(units, work < NX__SERIAL_WORK ? 1 : 4 * (int64_t)nx_num_threads(), rows, c);
  return NX_DONE;
}

static int geometry(const char *name, nx_array *x, int k, const int64_t *size, const int64_t *stride,
                    const int64_t *dilation, const int64_t *padding, nx__win *w) {
  const nx_layout *l = nx_array_layout(x);
  char t[160];
  nx_array_describe(x, t, sizeof t);
  int kk = k >= 1 && k <= l->rank - 1 ? k : 0;
  return nx__win_make(name, t, l->rank, l->extent + l->rank - kk, k, size, stride, dilation, padding, w);
}


int nx_unfold(nx_array *z, nx_array *x, int k, const int64_t *size, const int64_t *stride, const int64_t *dilation,
              const int64_t *padding) {
  const char *name = "nx_unfold";
  nx_array *ops[2] = {z, x};
  uctx c;
  int s = nx__need(name, ops, 2);
  if (s || (s = geometry(name, x, k, size, stride, dilation, padding, &c.w))) return s;
  return nx__win_door(name, z, x, kernel, &c, NULL);
}

int nx_unfold_new(nx_array **z, nx_array *x, int k, const int64_t *size, const int64_t *stride,
                  const int64_t *dilation, const int64_t *padding) {
  const char *name = "nx_unfold_new";
  nx_array *ops[1] = {x};
  uctx c;
  int s = nx__need(name, ops, 1);
  if (s || (s = geometry(name, x, k, size, stride, dilation, padding, &c.w))) return s;
  if (!z) return nx__fail(NX_EINVAL, "%s: the result pointer is NULL", name);
  const nx_layout *l = nx_array_layout(x);
  int nlead = l->rank - k;
  int64_t shape[NX_MAX_RANK];
  for (int j = 0; j < nlead - 1; j++) shape[j] = l->extent[j];
  if (__builtin_mul_overflow(l->extent[nlead - 1], c.w.count, &shape[nlead - 1])) {
    char t[160];
    return nx__fail(NX_EINVAL, "%s: the window axis (channels %lld times window elements %lld) passes INT64_MAX (%s)",
                    name, (long long)l->extent[nlead - 1], (long long)c.w.count, nx_array_describe(x, t, sizeof t));
  }
  shape[nlead] = c.w.nwin;
  nx_array *out;
  if ((s = nx__make(name, x, nx_array_dtype(x), shape, nlead + 1, &out))) return s;
  return nx__win_door(name, out, x, kernel, &c, z);
}
