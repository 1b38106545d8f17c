/* SPDX-License-Identifier: Apache-2.0 */
/* nx_unfold and nx_fold against loops over the operands' values: every
   element of unfold against the window it comes from (1, 2 and 3 windowed
   axes, strides, dilations, uneven padding, every dtype class, a flipped x
   and a transposed z); conv2d as unfold + matmul against a direct
   convolution loop; max pooling as unfold + a reduction against a loop;
   fold against a scatter-add loop and fold of unfold of ones against the
   count of windows over each element; refusals of every bad argument,
   int64 extremes included. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "nx.h"

static uint64_t seed = 4242;

static int64_t prod(const int64_t *e, int n) {
  int64_t p = 1;
  for (int j = 0; j < n; j++) p *= e[j];
  return p;
}

/* Values in [-8, 8) quarters (floats), or over the dtype's small range. */
static nx_array *filled(nx_dtype dt, const int64_t *shape, int r) {
  int64_t n = prod(shape, r);
  nx_value *v = calloc((size_t)n + 1, sizeof *v);
  int kd = nx_dtype_kind(dt), bits = nx_dtype_bits(dt);
  for (int64_t i = 0; i < n; i++) {
    int64_t x = (int64_t)(splitmix64_next(&seed) % 16) - 8;
    if (kd == NX_KIND_FLOAT) v[i].f = (double)x / 4;
    else if (kd == NX_KIND_COMPLEX) v[i].c.re = (double)x / 4, v[i].c.im = (double)(x * 3 % 8) / 2;
    else if (kd == NX_KIND_SIGNED) v[i].i = bits == 4 ? x / 2 : x * 9;
    else if (kd == NX_KIND_UNSIGNED) v[i].u = (uint64_t)(x + 8) % (bits >= 8 ? 256u : 1u << bits);
    else v[i].b = x > 0;
  }
  nx_array *a = NULL;
  nx_array_of_array(dt, shape, r, v, n, &a);
  free(v);
  return a;
}

static nx_value *values(const nx_array *a) {
  const nx_layout *l = nx_array_layout(a);
  int64_t n = prod(l->extent, l->rank);
  nx_value *v = calloc((size_t)n + 1, sizeof *v);
  nx_array_to_array(a, v, n);
  return v;
}

static bool same(nx_dtype dt, nx_value a, nx_value b) {
  switch (nx_dtype_kind(dt)) {
  case NX_KIND_FLOAT: return bits_of(a.f) == bits_of(b.f);
  case NX_KIND_COMPLEX: return bits_of(a.c.re) == bits_of(b.c.re) && bits_of(a.c.im) == bits_of(b.c.im);
  case NX_KIND_SIGNED: return a.i == b.i;
  case NX_KIND_UNSIGNED: return a.u == b.u;
  default: return a.b == b.b;
  }
}

typedef struct geo {
  int k;
  int64_t size[3], stride[3], dil[3], pad[6];
} geo;

static int64_t outs(const geo *g, const int64_t *ext, int64_t *out) {
  int64_t L = 1;
  for (int j = 0; j < g->k; j++) {
    out[j] = (ext[j] + g->pad[2 * j] + g->pad[2 * j + 1] - g->dil[j] * (g->size[j] - 1) - 1) / g->stride[j] + 1;
    L *= out[j];
  }
  return L;
}

/* The flat index in x (C order, shape xs of rank r) of z's element (lead,
   window offset off, window l), or -1 in the padding. */
static int64_t source(const geo *g, const int64_t *xs, int r, int64_t lead, int64_t off, int64_t l) {
  int64_t out[3], i[3], o[3], idx = lead;
  outs(g, xs + r - g->k, out);
  for (int j = g->k - 1; j >= 0; j--) {
    i[j] = off % g->size[j], off /= g->size[j];
    o[j] = l % out[j], l /= out[j];
  }
  for (int j = 0; j < g->k; j++) {
    int64_t p = o[j] * g->stride[j] - g->pad[2 * j] + i[j] * g->dil[j];
    if (p < 0 || p >= xs[r - g->k + j]) return -1;
    idx = idx * xs[r - g->k + j] + p;
  }
  return idx;
}

/* unfold of x (shape xs, rank r) element by element against source(). */
static void check_unfold(nx_dtype dt, const int64_t *xs, int r, const geo *g, bool flip_x, bool transpose_z) {
  nx_array *x0 = filled(dt, xs, r), *x = x0, *z = NULL, *zbuf = NULL;
  int64_t out[3], L = outs(g, xs + r - g->k, out), W = prod(g->size, g->k);
  int nlead = r - g->k;
  int64_t zs[NX_MAX_RANK];
  for (int j = 0; j < nlead - 1; j++) zs[j] = xs[j];
  zs[nlead - 1] = xs[nlead - 1] * W;
  zs[nlead] = L;
  nx_move m;
  if (flip_x) {
    int axes[2] = {0, r - 1};
    nx_move_flip(&m, axes, 2);
    nx_array_move(&m, x0, &x);
  }
  nx_value *xv = values(x);
  int s;
  if (transpose_z) {
    /* z the transpose of a [.., L, rows] buffer */
    int64_t bs[NX_MAX_RANK];
    memcpy(bs, zs, sizeof bs);
    bs[nlead - 1] = L, bs[nlead] = zs[nlead - 1];
    nx_array_host(dt, bs, nlead + 1, &zbuf);
    int order[NX_MAX_RANK];
    for (int j = 0; j <= nlead; j++) order[j] = j;
    order[nlead - 1] = nlead, order[nlead] = nlead - 1;
    nx_move_permute(&m, order, nlead + 1);
    nx_array_move(&m, zbuf, &z);
    s = nx_unfold(z, x, g->k, g->size, g->stride, g->dil, g->pad);
  } else
    s = nx_unfold_new(&z, x, g->k, g->size, g->stride, g->dil, g->pad);
  CHECK(s == 0, "unfold %s: %s", nx_dtype_name(dt), nx_error_message());
  if (s == 0) {
    const nx_layout *zl = nx_array_layout(z);
    CHECK(zl->rank == nlead + 1 && zl->extent[nlead - 1] == zs[nlead - 1] && zl->extent[nlead] == L,
          "unfold %s: shape", nx_dtype_name(dt));
    nx_value *zv = values(z), zero;
    memset(&zero, 0, sizeof zero);
    int64_t leads = prod(xs, nlead), bad = 0, padded = 0;
    for (int64_t lead = 0; lead < leads; lead++)
      for (int64_t off = 0; off < W; off++)
        for (int64_t l = 0; l < L; l++) {
          int64_t src = source(g, xs, r, lead, off, l);
          nx_value want = src < 0 ? zero : xv[src];
          padded += src < 0;
          bad += !same(dt, zv[(lead * W + off) * L + l], want);
        }
    CHECK(bad == 0, "unfold %s k=%d flip=%d transposed=%d: %lld of %lld wrong", nx_dtype_name(dt), g->k, flip_x,
          transpose_z, (long long)bad, (long long)(leads * W * L));
    /* a geometry with padding must reach it, so the test sees the fill */
    if (g->pad[0] || g->pad[1]) CHECK(padded > 0, "unfold %s: no padded element reached", nx_dtype_name(dt));
    free(zv);
  }
  free(xv);
  if (x != x0) nx_array_free(x);
  nx_array_free(x0), nx_array_free(z), nx_array_free(zbuf);
}

static void unfold_elements(void) {
  geo g2 = {2, {3, 2}, {2, 1}, {1, 2}, {1, 0, 2, 1}};
  geo g1 = {1, {4}, {3}, {2}, {3, 1}};
  geo g3 = {3, {2, 2, 3}, {1, 2, 1}, {2, 1, 1}, {0, 1, 1, 0, 2, 2}};
  int64_t x2[4] = {2, 3, 7, 6}, x1[3] = {3, 2, 11}, x3[5] = {2, 1, 5, 4, 3}, xc[2] = {3, 9};
  nx_dtype dts[] = {NX_FLOAT32, NX_FLOAT64, NX_BFLOAT16, NX_FLOAT8_E4M3FN, NX_COMPLEX64, NX_COMPLEX128,
                    NX_INT8, NX_INT4, NX_UINT16, NX_INT64, NX_BOOL};
  for (size_t d = 0; d < sizeof dts / sizeof *dts; d++) {
    check_unfold(dts[d], x2, 4, &g2, false, false);
    check_unfold(dts[d], x2, 4, &g2, true, true);
  }
  check_unfold(NX_FLOAT32, x1, 3, &g1, false, false);
  check_unfold(NX_INT4, x1, 3, &g1, true, false);
  check_unfold(NX_FLOAT32, xc, 2, &g1, false, true); /* no leading axis but the channels */
  check_unfold(NX_INT32, x3, 5, &g3, false, false);
  check_unfold(NX_FLOAT16, x3, 5, &g3, true, true);
  /* int64 extremes that fit: a dilation and a padding of 2^61 (the window's
     first element always in the padding), a stride of 2^62 (one window) */
  geo gx = {2, {2, 1}, {1, INT64_C(1) << 62}, {INT64_C(1) << 61, 1}, {INT64_C(1) << 61, 0, 0, 0}};
  int64_t xx[4] = {1, 2, 5, 4};
  check_unfold(NX_FLOAT32, xx, 4, &gx, false, false);
  check_unfold(NX_INT8, xx, 4, &gx, true, true);
  /* large enough for the pool to split the rows */
  geo gb = {2, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}};
  int64_t xb[4] = {4, 8, 20, 20};
  check_unfold(NX_FLOAT32, xb, 4, &gb, false, false);
  check_unfold(NX_FLOAT32, xb, 4, &gb, true, true);
}

/* conv2d: w [O, C, kh, kw] as [O, C*kh*kw] times unfold(x) [N, C*kh*kw, L]. */
static void conv2d(void) {
  int64_t N = 2, C = 3, H = 9, Wd = 8, O = 4, kh = 3, kw = 3;
  geo g = {2, {kh, kw}, {2, 1}, {1, 2}, {1, 1, 2, 0}};
  int64_t xs[4] = {N, C, H, Wd}, ws[2] = {O, C * kh * kw}, out[2];
  int64_t L = outs(&g, xs + 2, out);
  nx_array *x = filled(NX_FLOAT32, xs, 4), *w = filled(NX_FLOAT32, ws, 2), *cols = NULL, *y = NULL;
  int s = nx_unfold_new(&cols, x, 2, g.size, g.stride, g.dil, g.pad);
  CHECK(s == 0, "conv2d unfold: %s", nx_error_message());
  if (s == 0) s = nx_matmul_new(&y, w, cols);
  CHECK(s == 0, "conv2d matmul: %s", nx_error_message());
  if (s == 0) {
    nx_value *xv = values(x), *wv = values(w), *yv = values(y);
    int64_t bad = 0;
    for (int64_t n = 0; n < N; n++)
      for (int64_t o = 0; o < O; o++)
        for (int64_t oy = 0; oy < out[0]; oy++)
          for (int64_t ox = 0; ox < out[1]; ox++) {
            double acc = 0; /* quarters times quarters, 27 terms: exact in float32 */
            for (int64_t c = 0; c < C; c++)
              for (int64_t i = 0; i < kh; i++)
                for (int64_t j = 0; j < kw; j++) {
                  int64_t py = oy * g.stride[0] - g.pad[0] + i * g.dil[0];
                  int64_t px = ox * g.stride[1] - g.pad[2] + j * g.dil[1];
                  if (py < 0 || py >= H || px < 0 || px >= Wd) continue;
                  acc += wv[o * C * kh * kw + (c * kh + i) * kw + j].f * xv[((n * C + c) * H + py) * Wd + px].f;
                }
            bad += yv[(n * O + o) * L + oy * out[1] + ox].f != acc;
          }
    CHECK(bad == 0, "conv2d: %lld of %lld outputs differ from the direct loop", (long long)bad,
          (long long)(N * O * L));
    free(xv), free(wv), free(yv);
  }
  nx_array_free(x), nx_array_free(w), nx_array_free(cols), nx_array_free(y);
}

/* max pooling 3x3, stride 2, padding 1 (zeros, so the inputs are positive
   to make the padding lose): unfold, view [N, C, 9, L], max over axis 2. */
static void max_pool(void) {
  int64_t N = 2, C = 2, H = 7, Wd = 6;
  geo g = {2, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}};
  int64_t xs[4] = {N, C, H, Wd}, out[2], L = outs(&g, xs + 2, out);
  nx_array *x0 = filled(NX_INT16, xs, 4), *x = NULL, *cols = NULL, *v = NULL, *y = NULL;
  nx_value *xv = values(x0);
  for (int64_t i = 0; i < prod(xs, 4); i++) xv[i].i += 100;
  nx_array_free(x0);
  nx_array_of_array(NX_INT16, xs, 4, xv, prod(xs, 4), &x);
  int s = nx_unfold_new(&cols, x, 2, g.size, g.stride, g.dil, g.pad);
  CHECK(s == 0, "pool unfold: %s", nx_error_message());
  if (s == 0) {
    nx_move m;
    int64_t vs[4] = {N, C, 9, L};
    nx_move_reshape(&m, vs, 4);
    s = nx_array_move(&m, cols, &v);
    int axis[1] = {2};
    if (s == 0) s = nx_reduce_max_new(&y, v, axis, 1, false);
    CHECK(s == 0, "pool max: %s", nx_error_message());
  }
  if (s == 0) {
    nx_value *yv = values(y);
    int64_t bad = 0;
    for (int64_t n = 0; n < N * C; n++)
      for (int64_t oy = 0; oy < out[0]; oy++)
        for (int64_t ox = 0; ox < out[1]; ox++) {
          int64_t best = 0;
          for (int64_t i = 0; i < 3; i++)
            for (int64_t j = 0; j < 3; j++) {
              int64_t py = oy * 2 - 1 + i, px = ox * 2 - 1 + j;
              if (py >= 0 && py < H && px >= 0 && px < Wd && xv[(n * H + py) * Wd + px].i > best)
                best = xv[(n * H + py) * Wd + px].i;
            }
          bad += yv[n * L + oy * out[1] + ox].i != best;
        }
    CHECK(bad == 0, "max pool: %lld wrong", (long long)bad);
    free(yv);
  }
  free(xv);
  nx_array_free(x), nx_array_free(cols), nx_array_free(v), nx_array_free(y);
}

/* fold of random x against a loop adding each element where unfold takes it
   from; and fold(unfold(ones)) against the number of windows over each. */
static void fold_sums(nx_dtype dt, const int64_t *zs, int r, const geo *g) {
  int64_t out[3], L = outs(g, zs + r - g->k, out), W = prod(g->size, g->k);
  int nlead = r - g->k;
  int64_t xs[NX_MAX_RANK];
  for (int j = 0; j < nlead - 1; j++) xs[j] = zs[j];
  xs[nlead - 1] = zs[nlead - 1] * W, xs[nlead] = L;
  nx_array *x = filled(dt, xs, nlead + 1), *z = NULL;
  int s = nx_fold_new(&z, x, g->k, zs + nlead, g->size, g->stride, g->dil, g->pad);
  CHECK(s == 0, "fold %s: %s", nx_dtype_name(dt), nx_error_message());
  if (s == 0) {
    nx_value *xv = values(x), *zv = values(z);
    int64_t nz = prod(zs, r), leads = prod(zs, nlead), bad = 0;
    nx_value *ref = calloc((size_t)nz, sizeof *ref);
    /* the terms in ascending window offset, then window, as fold sums them */
    for (int64_t lead = 0; lead < leads; lead++)
      for (int64_t off = 0; off < W; off++)
        for (int64_t l = 0; l < L; l++) {
          int64_t src = source(g, zs, r, lead, off, l);
          if (src < 0) continue;
          nx_value t = xv[(lead * W + off) * L + l];
          if (dt == NX_FLOAT32) ref[src].f += t.f; /* quarters: exact in any order */
          else if (dt == NX_INT8) ref[src].i = (int8_t)(uint8_t)((uint64_t)ref[src].i + (uint64_t)t.i);
          else ref[src].b = ref[src].b || t.b;
        }
    for (int64_t i = 0; i < nz; i++) bad += !same(dt, zv[i], ref[i]);
    CHECK(bad == 0, "fold %s k=%d: %lld of %lld wrong", nx_dtype_name(dt), g->k, (long long)bad, (long long)nz);
    free(ref), free(xv), free(zv);
  }
  nx_array_free(x), nx_array_free(z);
}

static void fold_counts(const int64_t *zs, int r, const geo *g) {
  nx_array *ones = NULL, *cols = NULL, *z = NULL;
  nx_array_host(NX_INT32, zs, r, &ones);
  nx_value one = {.i = 1};
  nx_fill(ones, one);
  int s = nx_unfold_new(&cols, ones, g->k, g->size, g->stride, g->dil, g->pad);
  if (s == 0) {
    nx_array_host(NX_INT32, zs, r, &z);
    s = nx_fold(z, cols, g->k, g->size, g->stride, g->dil, g->pad);
  }
  CHECK(s == 0, "fold of unfold: %s", nx_error_message());
  if (s == 0) {
    int64_t nz = prod(zs, r), out[3], L = outs(g, zs + r - g->k, out), W = prod(g->size, g->k), bad = 0, most = 0;
    int64_t *cnt = calloc((size_t)nz, sizeof *cnt);
    for (int64_t lead = 0; lead < prod(zs, r - g->k); lead++)
      for (int64_t off = 0; off < W; off++)
        for (int64_t l = 0; l < L; l++) {
          int64_t src = source(g, zs, r, lead, off, l);
          if (src >= 0) cnt[src]++;
        }
    nx_value *zv = values(z);
    for (int64_t i = 0; i < nz; i++) {
      bad += zv[i].i != cnt[i];
      if (cnt[i] > most) most = cnt[i];
    }
    CHECK(bad == 0, "fold of unfold counts: %lld wrong", (long long)bad);
    CHECK(most > 1, "the geometry overlaps windows (most %lld)", (long long)most);
    free(cnt), free(zv);
  }
  nx_array_free(ones), nx_array_free(cols), nx_array_free(z);
}

static void folds(void) {
  geo g2 = {2, {3, 2}, {1, 1}, {1, 2}, {1, 0, 2, 1}};
  geo g1 = {1, {3}, {2}, {1}, {1, 2}};
  geo g3 = {3, {2, 2, 2}, {1, 1, 2}, {1, 2, 1}, {1, 0, 0, 1, 1, 1}};
  int64_t z2[4] = {2, 3, 6, 5}, z1[2] = {2, 9}, z3[5] = {1, 2, 4, 5, 4};
  fold_sums(NX_FLOAT32, z2, 4, &g2);
  fold_sums(NX_INT8, z2, 4, &g2);
  fold_sums(NX_BOOL, z1, 2, &g1);
  fold_sums(NX_FLOAT32, z3, 5, &g3);
  geo gb = {2, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}};
  int64_t zb[4] = {4, 8, 20, 20};
  fold_sums(NX_FLOAT32, zb, 4, &gb); /* large enough for the pool */
  fold_counts(zb, 4, &gb);
  fold_counts(z2, 4, &g2);
  fold_counts(z1, 2, &g1);
  fold_counts(z3, 5, &g3);
}

static void refused(int s, const char *want, const char *what) {
  CHECK(s == NX_EINVAL, "%s: status %d", what, s);
  CHECK(strstr(nx_error_message(), want) != NULL, "%s: message \"%s\" lacks \"%s\"", what, nx_error_message(), want);
}

static void refusals(void) {
  int64_t xs[4] = {1, 2, 5, 5};
  nx_array *x = filled(NX_FLOAT32, xs, 4), *z = NULL, *f = NULL;
  int64_t size[2] = {3, 3}, stride[2] = {1, 1}, dil[2] = {1, 1}, pad[4] = {0, 0, 0, 0};
  int64_t big = INT64_MAX, neg = -1, zero = 0;
  refused(nx_unfold_new(&z, NULL, 2, size, stride, dil, pad), "nx_unfold_new: operand 0 is NULL", "NULL x");
  refused(nx_unfold_new(NULL, x, 2, size, stride, dil, pad), "result pointer is NULL", "NULL result");
  refused(nx_unfold_new(&z, x, 2, NULL, stride, dil, pad), "the size argument is NULL", "NULL size");
  refused(nx_unfold_new(&z, x, 2, size, stride, dil, NULL), "the padding argument is NULL", "NULL padding");
  refused(nx_unfold_new(&z, x, 0, size, stride, dil, pad), "0 windowed axes", "k 0");
  refused(nx_unfold_new(&z, x, 4, size, stride, dil, pad), "4 windowed axes", "k past rank - 1");
  refused(nx_unfold_new(&z, x, -2147483647 - 1, size, stride, dil, pad), "windowed axes", "k INT_MIN");
  int64_t s1[2] = {1, -1};
  refused(nx_unfold_new(&z, x, 2, size, s1, dil, pad), "stride -1 on windowed axis 1 is below 1", "negative stride");
  refused(nx_unfold_new(&z, x, 2, size, (int64_t[]){INT64_MIN, 1}, dil, pad), "stride", "INT64_MIN stride");
  refused(nx_unfold_new(&z, x, 2, (int64_t[]){3, zero}, stride, dil, pad), "size 0 on windowed axis 1", "size 0");
  refused(nx_unfold_new(&z, x, 2, size, stride, (int64_t[]){zero, 1}, pad), "dilation 0 on windowed axis 0", "dil 0");
  refused(nx_unfold_new(&z, x, 2, size, stride, dil, (int64_t[]){0, 0, neg, 0}), "padding before -1 on windowed axis 1",
          "negative padding");
  refused(nx_unfold_new(&z, x, 2, (int64_t[]){6, 3}, stride, dil, pad), "spans 6 elements, more than the padded extent 5",
          "window larger than input");
  /* a dilated window that just fits the padded axis is taken */
  CHECK(nx_unfold_new(&f, x, 2, size, stride, (int64_t[]){3, 1}, (int64_t[]){1, 1, 0, 0}) == 0, "dilated window: %s",
        nx_error_message());
  nx_array_free(f);
  f = NULL;
  refused(nx_unfold_new(&z, x, 2, size, stride, (int64_t[]){4, 1}, (int64_t[]){1, 1, 0, 0}),
          "spans 9 elements, more than the padded extent 7", "dilated window too large");
  refused(nx_unfold_new(&z, x, 2, size, stride, dil, (int64_t[]){0, big, 0, 0}), "passes INT64_MAX", "padding overflow");
  refused(nx_unfold_new(&z, x, 2, size, stride, (int64_t[]){big, 1}, pad), "past INT64_MAX", "span overflow");
  refused(nx_unfold_new(&z, x, 2, (int64_t[]){big, 1}, stride, dil, (int64_t[]){big - 5, 0, 0, 0}), "passes INT64_MAX",
          "huge window with huge padding");
  /* z of the wrong shape or dtype, before any write */
  int64_t zs[3] = {1, 18, 8}, zs_ok[3] = {1, 18, 9};
  nx_array *zw = NULL, *zd = NULL;
  nx_array_host(NX_FLOAT32, zs, 3, &zw);
  nx_array_host(NX_FLOAT64, zs_ok, 3, &zd);
  refused(nx_unfold(zw, x, 2, size, stride, dil, pad), "nx_unfold", "wrong z shape");
  refused(nx_unfold(zd, x, 2, size, stride, dil, pad), "float64", "wrong z dtype");
  refused(nx_fold(x, zd, 2, size, stride, dil, pad), "nx_fold", "fold wrong dtype");
  refused(nx_fold(x, zw, 2, size, stride, dil, pad), "nx_fold", "fold wrong x shape");
  refused(nx_fold(x, NULL, 2, size, stride, dil, pad), "nx_fold: operand 1 is NULL", "fold NULL x");
  refused(nx_fold(x, zw, 2, size, (int64_t[]){1, 0}, dil, pad), "stride 0 on windowed axis 1", "fold stride 0");
  int64_t shape[2] = {5, 5};
  nx_array *y = filled(NX_FLOAT32, (int64_t[]){1, 17, 9}, 3);
  refused(nx_fold_new(&f, y, 2, shape, size, stride, dil, pad), "not a multiple of the window's 9 elements",
          "fold_new channels");
  refused(nx_fold_new(&f, zw, 2, NULL, size, stride, dil, pad), "the shape argument is NULL", "fold_new NULL shape");
  refused(nx_fold_new(&f, zw, 2, (int64_t[]){5, -5}, size, stride, dil, pad), "extent -5 on windowed axis 1",
          "fold_new negative extent");
  refused(nx_fold_new(&f, zw, 2, (int64_t[]){INT64_MAX, 5}, size, stride, dil, (int64_t[]){1, 0, 0, 0}),
          "passes INT64_MAX", "fold_new INT64_MAX extent");
  refused(nx_fold_new(&f, zw, 2, shape, size, stride, dil, pad), "nx_fold_new", "fold_new x shape");
  CHECK(f == NULL && z == NULL, "no result made by a refusal");
  nx_array_free(x), nx_array_free(zw), nx_array_free(zd), nx_array_free(y);
}

int main(void) {
  unfold_elements();
  conv2d();
  max_pool();
  folds();
  refusals();
  return check_done();
}
