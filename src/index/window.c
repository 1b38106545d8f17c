/* SPDX-License-Identifier: Apache-2.0 */
/* The sliding windows' geometry: every argument checked, every sum and
   product checked against INT64_MAX, before any kernel runs. */
#include "window.h"

#include "../kernels/api.h"

static int bad(const char *name, const char *arg, int j, int64_t v, const char *why, const char *what) {
  return nx__fail(NX_EINVAL, "%s: %s %lld on windowed axis %d %s (%s)", name, arg, (long long)v, j, why, what);
}

int nx__win_make(const char *name, const char *what, int r, const int64_t *ext, int k, const int64_t *size,
                 const int64_t *stride, const int64_t *dilation, const int64_t *padding, nx__win *w) {
  if (!size || !stride || !dilation || !padding)
    return nx__fail(NX_EINVAL, "%s: the %s argument is NULL (%s)",
                    name, !size ? "size" : !stride ? "stride" : !dilation ? "dilation" : "padding", what);
  if (k < 1 || k > r - 1)
    return nx__fail(NX_EINVAL, "%s: %d windowed axes; %s has room for 1 to %d (an axis before them is the channels)",
                    name, k, what, r - 1);
  w->k = k;
  w->r = r;
  w->count = 1;
  w->nwin = 1;
  for (int j = 0; j < k; j++) {
    int64_t s = ext[j], lo = padding[2 * j], hi = padding[2 * j + 1], padded, span;
    if (size[j] < 1) return bad(name, "size", j, size[j], "is below 1", what);
    if (stride[j] < 1) return bad(name, "stride", j, stride[j], "is below 1", what);
    if (dilation[j] < 1) return bad(name, "dilation", j, dilation[j], "is below 1", what);
    if (lo < 0) return bad(name, "padding before", j, lo, "is below 0", what);
    if (hi < 0) return bad(name, "padding after", j, hi, "is below 0", what);
    if (__builtin_add_overflow(s, lo, &padded))
      return bad(name, "padding before", j, lo, "with the extent passes INT64_MAX", what);
    if (__builtin_add_overflow(padded, hi, &padded))
      return bad(name, "padding after", j, hi, "with the extent and the padding before passes INT64_MAX", what);
    if (__builtin_mul_overflow(dilation[j], size[j] - 1, &span) || __builtin_add_overflow(span, 1, &span))
      return bad(name, "size", j, size[j], "with its dilation spans past INT64_MAX", what);
    if (span > padded)
      return nx__fail(NX_EINVAL, "%s: the window on windowed axis %d spans %lld elements, more than the padded extent %lld (%s)",
                      name, j, (long long)span, (long long)padded, what);
    w->ext[j] = s;
    w->size[j] = size[j];
    w->stride[j] = stride[j];
    w->dil[j] = dilation[j];
    w->lo[j] = lo;
    w->out[j] = (padded - span) / stride[j] + 1;
    if (__builtin_mul_overflow(w->count, size[j], &w->count))
      return bad(name, "size", j, size[j], "makes the window's element count pass INT64_MAX", what);
    if (__builtin_mul_overflow(w->nwin, w->out[j], &w->nwin))
      return bad(name, "stride", j, stride[j], "makes the number of windows pass INT64_MAX", what);
  }
  return 0;
}

int nx__win_door(const char *name, nx_array *z, nx_array *x, nx_kernel_fn fn, void *ctx, nx_array **made) {
  nx_array *ops[2] = {z, x};
  int k = made != NULL; /* a _new form's result, which refusals do not name */
  int s = nx__finish(name, "the host kernel", nx_door_host(ops, 1, ops + 1, 1, fn, ctx), ops + k, 2 - k,
                     nx_array_dtype(z));
  if (made && s) nx_array_free(z);
  else if (made) *made = z;
  return s;
}

bool nx__win_fits(const nx__win *w, const nx_layout *sp, const nx_layout *cols) {
  int nlead = w->r - w->k;
  if (cols->rank != nlead + 1) return false;
  for (int j = 0; j < nlead - 1; j++)
    if (sp->extent[j] != cols->extent[j]) return false;
  int64_t rows;
  if (__builtin_mul_overflow(sp->extent[nlead - 1], w->count, &rows)) return false;
  return cols->extent[nlead - 1] == rows && cols->extent[nlead] == w->nwin;
}
