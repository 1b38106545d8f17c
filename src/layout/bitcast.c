/* SPDX-License-Identifier: Apache-2.0 */
/* Bitcast arithmetic and the copy layout of to_device. */
#include <stdlib.h>
#include <string.h>

#include "layout_internal.h"

static bool valid_width(int w) {
  return w == 1 || w == 4 || w == 8 || w == 16 || w == 32 || w == 64 || w == 128;
}

int nx_layout_bitcast(const nx_layout *l, int from, int to, nx_layout *r) {
  static const char fn[] = "nx_layout_bitcast";
  int s = nx__layout_check(fn, l);
  if (s) return s;
  if (!valid_width(from) || !valid_width(to))
    return nx__fail(NX_EINVAL, "%s: widths %d and %d are not 1, 4, 8, 16, 32, 64 or 128", fn, from, to);
  nx_layout out = *l;
  if (from > to) { /* narrower: a trailing axis of the parts of an element */
    int64_t k = from / to;
    if (l->rank == NX_MAX_RANK)
      return nx__fail(NX_EINVAL, "%s: a layout of rank %d has no room for the trailing axis", fn, NX_MAX_RANK);
    if (NX__MUL(l->offset, k, &out.offset)) return nx__fail(NX_EINVAL, "%s: the offset overflows", fn);
    for (int j = 0; j < l->rank; j++)
      if (NX__MUL(l->stride[j], k, &out.stride[j])) return nx__fail(NX_EINVAL, "%s: a stride overflows", fn);
    out.extent[l->rank] = k;
    out.stride[l->rank] = 1;
    out.rank = l->rank + 1;
  } else if (from < to) { /* wider: the trailing axis folds into one element */
    int64_t k = to / from;
    int last = l->rank - 1;
    bool none = false;
    if (last < 0 || l->extent[last] != k) return NX_NONE;
    for (int j = 0; j < l->rank; j++) none |= l->extent[j] == 0;
    if (!none && l->stride[last] != 1) return NX_NONE;
    out.rank = last;
    for (int j = 0; j < last; j++) {
      if (l->stride[j] % k) {
        if (!none) return NX_NONE;
        out.stride[j] = 0; /* no element: the stride reaches nothing */
      } else {
        out.stride[j] = l->stride[j] / k;
      }
    }
    if (l->offset % k && !none) return NX_NONE;
    out.offset = l->offset / k - (l->offset % k < 0); /* rounded down */
    out.extent[last] = 0;
    out.stride[last] = 0;
  }
  if ((s = nx__layout_check(fn, &out))) return s;
  *r = out;
  return 0;
}

/* The bytes a layout's elements span, from the byte of its first position to
   that of its last; 0 for no element. */
static int64_t span_bytes(const nx_layout *l, int w, int64_t *first_byte) {
  int64_t lo, hi;
  if (nx_layout_span(l, &lo, &hi)) { *first_byte = 0; return 0; }
  __int128 b0 = ((__int128)lo * w) >> 3, b1 = (((__int128)hi + 1) * w - 1) >> 3;
  *first_byte = (int64_t)b0;
  return (int64_t)(b1 - b0 + 1);
}

/* A dense copy's bytes: one element per index, an axis of stride 0 once. */
static int64_t dense_bytes(const nx_layout *l, int w) {
  __int128 n = 1;
  for (int j = 0; j < l->rank; j++)
    if (l->stride[j] != 0 || l->extent[j] == 0) n *= l->extent[j];
  return (int64_t)((n * w + 7) >> 3);
}

typedef struct {
  int64_t mag;
  int axis;
} order;

static int by_magnitude(const void *p, const void *q) { /* decreasing, ties in axis order */
  const order *a = p, *b = q;
  if (a->mag != b->mag) return a->mag < b->mag ? 1 : -1;
  return a->axis - b->axis;
}

int nx_layout_copy(const nx_layout *l, int width, nx_layout *r) {
  static const char fn[] = "nx_layout_copy";
  int s = nx__layout_check(fn, l);
  if (s) return s;
  if (width < 1) return nx__fail(NX_EINVAL, "%s: width %d is not positive", fn, width);
  nx_layout out = *l;
  int64_t first, spanned = span_bytes(l, width, &first);
  if (spanned > 0 && spanned <= dense_bytes(l, width)) {
    /* Shift by whole bytes: the first position keeps its place in its byte. */
    int64_t per = width < 8 ? 8 / width : 1, shift = width < 8 ? first * per : first / (width / 8);
    out.offset = l->offset - shift;
  } else {
    order ord[NX_MAX_RANK];
    for (int j = 0; j < l->rank; j++) {
      ord[j].mag = l->stride[j] < 0 ? -l->stride[j] : l->stride[j];
      ord[j].axis = j;
    }
    qsort(ord, (size_t)l->rank, sizeof ord[0], by_magnitude);
    int64_t run = 1;
    out.offset = 0;
    for (int k = l->rank - 1; k >= 0; k--) {
      int j = ord[k].axis;
      if (l->stride[j] == 0) { out.stride[j] = 0; continue; }
      out.stride[j] = l->stride[j] < 0 ? -run : run;
      if (l->stride[j] < 0 && l->extent[j] > 0) out.offset += run * (l->extent[j] - 1);
      if (l->extent[j] > 0) run *= l->extent[j];
    }
  }
  if ((s = nx__layout_check(fn, &out))) return s;
  *r = out;
  return 0;
}

int64_t nx_layout_copy_bytes(const nx_layout *l, int width) {
  nx_layout c;
  int64_t lo, hi;
  if (nx_layout_copy(l, width, &c) || nx_layout_span(&c, &lo, &hi)) return 0;
  return (int64_t)(((((__int128)hi + 1) * width) + 7) >> 3);
}
