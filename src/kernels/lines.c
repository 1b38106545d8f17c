/* SPDX-License-Identifier: Apache-2.0 */
/* Walking z's elements against x's sub-arrays. */
#include "lines.h"

int nx__axes(const char *name, const nx_array *x, const int *axes, int naxes, bool *mask) {
  int r = nx_array_layout(x)->rank;
  char t[160];
  for (int j = 0; j < r; j++) mask[j] = naxes == -1;
  if (naxes == -1) return 0;
  if (naxes > 0 && !axes)
    return nx__fail(NX_EINVAL, "%s: the axes pointer is NULL (naxes %d, %s)", name, naxes,
                    nx_array_describe(x, t, sizeof t));
  if (naxes > 0 && r == 0)
    return nx__fail(NX_EINVAL, "%s: axis %d is out of range for %s (rank 0: no axis)", name, axes[0],
                    nx_array_describe(x, t, sizeof t));
  if (naxes < 0 || naxes > r)
    return nx__fail(NX_EINVAL, "%s: %d axes given for %s of rank %d", name, naxes, nx_array_describe(x, t, sizeof t), r);
  for (int k = 0; k < naxes; k++) {
    int a = axes[k] < 0 ? axes[k] + r : axes[k];
    if (a < 0 || a >= r)
      return nx__fail(NX_EINVAL, "%s: axis %d is out of range for %s (rank %d: axes %d to %d)", name, axes[k],
                      nx_array_describe(x, t, sizeof t), r, -r, r - 1);
    if (mask[a]) return nx__fail(NX_EINVAL, "%s: axis %d is given twice for %s", name, axes[k], nx_array_describe(x, t, sizeof t));
    mask[a] = true;
  }
  return 0;
}

bool nx__reduced_fit(const nx_layout *z, const nx_layout *x, const bool *mask, nx_layout *zk, nx_layout *xk) {
  int kept = 0;
  for (int j = 0; j < x->rank; j++) kept += !mask[j];
  bool full = z->rank == x->rank;
  if (!full && z->rank != kept) return false;
  zk->rank = xk->rank = kept;
  zk->offset = z->offset;
  xk->offset = x->offset;
  for (int j = 0, k = 0; j < x->rank; j++) {
    if (mask[j]) {
      if (full && z->extent[j] != 1) return false;
      continue;
    }
    int zj = full ? j : k;
    if (z->extent[zj] != x->extent[j]) return false;
    zk->extent[k] = xk->extent[k] = x->extent[j];
    zk->stride[k] = z->stride[zj];
    xk->stride[k] = x->stride[j];
    k++;
  }
  return true;
}

void nx__sub_layout(const nx_layout *x, const bool *mask, nx_layout *r) {
  r->rank = 0;
  r->offset = 0;
  for (int j = 0; j < x->rank; j++)
    if (mask[j]) {
      r->extent[r->rank] = x->extent[j];
      r->stride[r->rank++] = x->stride[j];
    }
}

typedef struct each {
  nx__each_fn fn;
  void *ctx;
  char *xbase;
  int xbits;
} each;

static void each_body(void *vc, const nx__arg *a, int64_t n) {
  const each *e = vc;
  int64_t p0, st;
  if (e->xbits >= 8) {
    p0 = (a[1].p - e->xbase) / (e->xbits / 8);
    st = a[1].step / (e->xbits / 8);
  } else {
    p0 = a[1].pos;
    st = a[1].step;
  }
  for (int64_t i = 0; i < n; i++) e->fn(e->ctx, &a[0], i, p0 + i * st);
}

void nx__each(const nx_operand *ops, const nx_layout *zk, const nx_layout *xk, nx__each_fn fn, void *ctx, int weight) {
  nx_dtype dts[2] = {ops[0].dtype, ops[1].dtype};
  /* x's base stands in as a non-NULL base where x has no element. */
  char dummy;
  void *bases[2] = {ops[0].base, ops[1].base ? ops[1].base : &dummy};
  const nx_layout *ls[2] = {zk, xk};
  each e = {fn, ctx, bases[1], nx_dtype_bits_of(ops[1].dtype)};
  nx__plan P;
  nx__plan_make(&P, 2, dts, bases, ls, 0);
  nx__plan_run(&P, each_body, &e, weight);
}

int nx__reduced_shape(const nx_array *x, const bool *mask, bool keep, int64_t *shape) {
  const nx_layout *l = nx_array_layout(x);
  int r = 0;
  for (int j = 0; j < l->rank; j++) {
    if (!mask[j]) shape[r++] = l->extent[j];
    else if (keep) shape[r++] = 1;
  }
  return r;
}
