/* SPDX-License-Identifier: Apache-2.0 */
/* Layouts: making them, and their facts. */
#include <stdio.h>
#include <string.h>

#include "layout_internal.h"

const char *nx__shape_text(const int64_t *extents, int rank, char *buf, int cap) {
  int len = snprintf(buf, (size_t)cap, "[");
  for (int j = 0; j < rank && len < cap; j++)
    len += snprintf(buf + len, (size_t)(cap - len), j ? "; %lld" : "%lld", (long long)extents[j]);
  if (len < cap) snprintf(buf + len, (size_t)(cap - len), "]");
  return buf;
}

/* The rank and extents are valid and their product fits: 0, or a message. */
static int check_shape(const char *fn, const int64_t *extents, int rank, int64_t *count) {
  char t[256];
  if (rank < 0 || rank > NX_MAX_RANK)
    return nx__fail(NX_EINVAL, "%s: rank %d is outside 0 to %d", fn, rank, NX_MAX_RANK);
  if (rank > 0 && extents == NULL) return nx__fail(NX_EINVAL, "%s: the extents are NULL", fn);
  int64_t n = 1;
  bool zero = false;
  for (int j = 0; j < rank; j++) {
    if (extents[j] < 0)
      return nx__fail(NX_EINVAL, "%s: shape %s has a negative extent", fn, nx__shape_text(extents, rank, t, sizeof t));
    zero |= extents[j] == 0;
  }
  /* A zero anywhere makes the count 0, whatever the others multiply to. */
  for (int j = 0; j < rank && !zero; j++)
    if (NX__MUL(n, extents[j], &n))
      return nx__fail(NX_EINVAL, "%s: shape %s has more elements than an int64_t counts", fn,
                      nx__shape_text(extents, rank, t, sizeof t));
  if (count) *count = zero ? 0 : n;
  return 0;
}

int nx__layout_check(const char *fn, const nx_layout *l) {
  int64_t count, lo, hi, d;
  if (l == NULL) return nx__fail(NX_EINVAL, "%s: the layout is NULL", fn);
  int s = check_shape(fn, l->extent, l->rank, &count);
  if (s || count == 0) return s;
  lo = hi = l->offset;
  for (int j = 0; j < l->rank; j++) {
    if (NX__MUL(l->stride[j], l->extent[j] - 1, &d) || NX__ADD(d < 0 ? lo : hi, d, d < 0 ? &lo : &hi)) {
      char t[256];
      return nx__fail(NX_EINVAL, "%s: a layout of shape %s reaches positions past an int64_t", fn,
                      nx__shape_text(l->extent, l->rank, t, sizeof t));
    }
  }
  return 0;
}

void nx__layout_span(const nx_layout *l, int64_t *least, int64_t *greatest) {
  int64_t lo = l->offset, hi = l->offset;
  for (int j = 0; j < l->rank; j++) {
    int64_t d = l->stride[j] * (l->extent[j] - 1);
    if (d < 0) lo += d; else hi += d;
  }
  *least = lo;
  *greatest = hi;
}

int nx__layout_make(const char *fn, int rank, const int64_t *extents, const int64_t *strides, int64_t offset,
                    nx_layout *l) {
  nx_layout r;
  int s = check_shape(fn, extents, rank, NULL);
  if (s) return s;
  if (l == NULL) return nx__fail(NX_EINVAL, "%s: the result is NULL", fn);
  memset(&r, 0, sizeof r);
  r.rank = rank;
  r.offset = offset;
  int64_t run = 1, reach;
  for (int j = rank - 1; j >= 0; j--) {
    r.extent[j] = extents[j];
    r.stride[j] = strides ? strides[j] : run;
    if (NX__MUL(r.stride[j], r.extent[j], &reach))
      return nx__fail(NX_EINVAL, "%s: stride %lld times extent %lld of axis %d passes an int64_t", fn,
                      (long long)r.stride[j], (long long)r.extent[j], j);
    /* Contiguous strides count an extent of 0 as 1: they still fit. */
    if (!strides && extents[j] > 0 && NX__MUL(run, extents[j], &run)) run = 0;
  }
  if ((s = nx__layout_check(fn, &r))) return s;
  *l = r;
  return 0;
}

int nx_layout_contiguous(const int64_t *shape, int rank, nx_layout *l) {
  return nx__layout_make("nx_layout_contiguous", rank, shape, NULL, 0, l);
}

int nx_layout_make(int rank, const int64_t *extents, const int64_t *strides, int64_t offset, nx_layout *l) {
  return nx__layout_make("nx_layout_make", rank, extents, strides, offset, l);
}

int64_t nx_layout_count(const nx_layout *l) {
  if (nx__layout_check("nx_layout_count", l)) return 0;
  int64_t n = 1;
  for (int j = 0; j < l->rank; j++) n *= l->extent[j];
  return n;
}

int nx_layout_position(const nx_layout *l, const int64_t *index, int64_t *p) {
  static const char fn[] = "nx_layout_position";
  int s = nx__layout_check(fn, l);
  if (s) return s;
  if (l->rank > 0 && index == NULL) return nx__fail(NX_EINVAL, "%s: the index is NULL", fn);
  int64_t pos = l->offset;
  for (int j = 0; j < l->rank; j++) {
    if (index[j] < 0 || index[j] >= l->extent[j]) {
      char t[256];
      return nx__fail(NX_EINVAL, "%s: index %lld of axis %d is outside a layout of shape %s", fn,
                      (long long)index[j], j, nx__shape_text(l->extent, l->rank, t, sizeof t));
    }
    pos += l->stride[j] * index[j];
  }
  *p = pos;
  return 0;
}

int nx_layout_span(const nx_layout *l, int64_t *least, int64_t *greatest) {
  int s = nx__layout_check("nx_layout_span", l);
  if (s) return s;
  for (int j = 0; j < l->rank; j++)
    if (l->extent[j] == 0) return NX_NONE;
  nx__layout_span(l, least, greatest);
  return 0;
}

int nx_layout_bits(const nx_layout *l, int width, int64_t *lo, int64_t *hi) {
  static const char fn[] = "nx_layout_bits";
  int64_t least, greatest, a, b;
  if (width < 1) return nx__fail(NX_EINVAL, "%s: width %d is not positive", fn, width);
  int s = nx_layout_span(l, &least, &greatest);
  if (s) return s;
  if (NX__MUL(least, (int64_t)width, &a) || NX__ADD(greatest, 1, &b) || NX__MUL(b, (int64_t)width, &b))
    return nx__fail(NX_EINVAL, "%s: the bits of %d-bit elements at positions up to %lld do not fit in an int64_t", fn,
                    width, (long long)greatest);
  *lo = a;
  *hi = b;
  return 0;
}

bool nx_layout_is_contiguous(const nx_layout *l) {
  if (nx__layout_check("nx_layout_is_contiguous", l)) return false;
  int64_t run = 1;
  for (int j = 0; j < l->rank; j++)
    if (l->extent[j] == 0) return true;
  for (int j = l->rank - 1; j >= 0; j--) {
    if (l->extent[j] == 1) continue;
    if (l->stride[j] != run) return false;
    run *= l->extent[j];
  }
  return true;
}
