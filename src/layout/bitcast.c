/* SPDX-License-Identifier: Apache-2.0 */
/* Bitcast arithmetic and the copy layout of to_device. */
#include <stdlib.h>
#include <string.h>

#include "layout_internal.h"

int nx_layout_bitcast(const nx_layout *l, int from, int to, nx_layout *r) {
  static const char fn[] = "nx_layout_bitcast";
  int s = nx__layout_check(fn, "l", l);
  if (s) return s;
  if (r == NULL) return nx__fail(NX_EINVAL, "%s: the result r is NULL", fn);
  if (!nx__layout_width(from) || !nx__layout_width(to))
    return nx__fail(NX_EINVAL, "%s: widths %d and %d are not 1, 4, 8, 16, 32, 64 or 128", fn, from, to);
  nx_layout out = *l;
  if (from > to) { /* narrower: a trailing axis of the parts of an element */
    int64_t k = from / to;
    if (l->rank == NX_MAX_RANK)
      return nx__fail(NX_EINVAL, "%s: a layout of rank %d has no room for the trailing axis", fn, NX_MAX_RANK);
    /* A product past an int64_t is past the bound: refused as the check
       below refuses one inside int64_t but past 2^62. */
    bool past = NX__MUL(l->offset, k, &out.offset), none = nx__layout_empty(l), strides_past = false;
    for (int j = 0; j < l->rank; j++) {
      int64_t st;
      if (!NX__MUL(l->stride[j], k, &st) && st > -NX_LAYOUT_LIMIT && st < NX_LAYOUT_LIMIT) {
        out.stride[j] = st;
        continue;
      }
      /* Past the bound: an axis of extent 1 moves to no element, so its
         stride is 0; with no element at all every stride is 0 (as the
         strides the library chooses for one are); else refused. */
      if (l->extent[j] <= 1) out.stride[j] = 0;
      else strides_past = true;
    }
    if (strides_past && none)
      for (int j = 0; j < l->rank; j++) out.stride[j] = 0;
    else past |= strides_past;
    if (past)
      return nx__fail(NX_EINVAL, "%s: narrowing layout l by %lld passes the bound of 2^62 on strides and offset", fn,
                      (long long)k);
    out.extent[l->rank] = k;
    out.stride[l->rank] = 1;
    out.rank = l->rank + 1;
  } else if (from < to) { /* wider: the trailing axis folds into one element */
    int64_t k = to / from;
    int last = l->rank - 1;
    bool none = nx__layout_empty(l);
    if (last < 0 || l->extent[last] != k) return NX_NONE;
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
  if ((s = nx__layout_settle(fn, &out))) return s;
  *r = out;
  return 0;
}

/* The bytes a layout's elements span, from the byte of its first position to
   that of its last (0 for no element), and the shift in positions that puts
   the first byte at 0 keeping the first element's place in its byte. Under
   the invariant and a width of at most 128 every number here is below 2^69:
   __int128 holds them. */
static __int128 span_bytes(const nx_layout *l, int w, int64_t *shift) {
  int64_t lo, hi;
  *shift = 0;
  if (nx__layout_empty(l)) return 0;
  nx__layout_span(l, &lo, &hi);
  __int128 b0 = ((__int128)lo * w) >> 3, b1 = (((__int128)hi + 1) * w - 1) >> 3;
  *shift = w < 8 ? (int64_t)(b0 * (8 / w)) : lo; /* |shift| <= |lo| + 7 */
  return b1 - b0 + 1;
}

/* A dense copy's bytes: one element per index, an axis of stride 0 once.
   Each factor is at most the element count, below 2^63. */
static __int128 dense_bytes(const nx_layout *l, int w) {
  __int128 n = 1;
  for (int j = 0; j < l->rank; j++)
    if (l->stride[j] != 0 || l->extent[j] == 0) {
      n *= l->extent[j];
      if (n == 0) return 0;
      if (n >= NX_LAYOUT_LIMIT) return (__int128)NX_LAYOUT_LIMIT * w; /* past any span */
    }
  return (n * w + 7) >> 3;
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

/* The bytes the copy layout c of elements `w` bits wide needs from byte 0. */
static __int128 copy_size(const nx_layout *c, int w) {
  int64_t lo, hi;
  if (nx__layout_empty(c)) return 0;
  nx__layout_span(c, &lo, &hi);
  return (((__int128)hi + 1) * w + 7) >> 3;
}

int nx__layout_copy(const char *fn, const nx_layout *l, int width, nx_layout *r) {
  int s = nx__layout_check(fn, "l", l);
  if (s) return s;
  if (!nx__layout_width(width))
    return nx__fail(NX_EINVAL, "%s: width %d is no dtype's (1, 4, 8, 16, 32, 64 or 128)", fn, width);
  nx_layout out = *l;
  int64_t shift;
  __int128 spanned = span_bytes(l, width, &shift);
  if (spanned > 0 && spanned <= dense_bytes(l, width)) {
    /* Shift by whole bytes: the first position keeps its place in its byte. */
    out.offset = l->offset - shift;
  } else {
    order ord[NX_MAX_RANK];
    for (int j = 0; j < l->rank; j++) {
      ord[j].mag = l->stride[j] < 0 ? -l->stride[j] : l->stride[j]; /* no INT64_MIN under the invariant */
      ord[j].axis = j;
    }
    qsort(ord, (size_t)l->rank, sizeof ord[0], by_magnitude);
    int64_t run = 1, d;
    bool past = false; /* the copy's positions pass the bound */
    out.offset = 0;
    for (int k = l->rank - 1; k >= 0; k--) {
      int j = ord[k].axis;
      if (l->stride[j] == 0) { out.stride[j] = 0; continue; }
      out.stride[j] = l->stride[j] < 0 ? -run : run;
      if (l->extent[j] == 0) continue;
      if (l->stride[j] < 0 && (NX__MUL(run, l->extent[j] - 1, &d) || NX__ADD(out.offset, d, &out.offset))) past = true;
      if (NX__MUL(run, l->extent[j], &run) || run >= NX_LAYOUT_LIMIT || out.offset >= NX_LAYOUT_LIMIT) past = true;
      if (past) break;
    }
    if (past && !nx__layout_empty(l))
      return nx__fail(NX_EINVAL, "%s: a copy of layout l needs 2^62 positions or more, past the bound", fn);
    if (past) { /* no element: it reaches nothing, any strides serve */
      out.offset = 0;
      for (int j = 0; j < l->rank; j++) out.stride[j] = 0;
    }
  }
  if ((s = nx__layout_settle(fn, &out))) return s;
  if (copy_size(&out, width) > INT64_MAX)
    return nx__fail(NX_EINVAL, "%s: a copy of %d-bit elements of layout l needs more bytes than an int64_t counts", fn,
                    width);
  *r = out;
  return 0;
}

int nx_layout_copy(const nx_layout *l, int width, nx_layout *r) {
  if (r == NULL) return nx__fail(NX_EINVAL, "nx_layout_copy: the result r is NULL");
  return nx__layout_copy("nx_layout_copy", l, width, r);
}

int64_t nx_layout_copy_bytes(const nx_layout *l, int width) {
  nx_layout c;
  int s = nx__layout_copy("nx_layout_copy_bytes", l, width, &c);
  return s ? s : (int64_t)copy_size(&c, width);
}
