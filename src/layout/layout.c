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

bool nx__layout_width(int w) { return w == 1 || w == 4 || w == 8 || w == 16 || w == 32 || w == 64 || w == 128; }

bool nx__layout_empty(const nx_layout *l) {
  for (int j = 0; j < l->rank; j++)
    if (l->extent[j] == 0) return true;
  return false;
}

/* Whether l's hull, the positions it would reach if no extent were 0
   (offset + sum stride * i for 0 <= i <= max(extent - 1, 0)), lies inside
   (-NX_LAYOUT_LIMIT, NX_LAYOUT_LIMIT), and every stride too. The hull
   survives every movement that keeps or drops positions (a flip moves the
   offset inside it), and holds every partial sum of a position. */
static bool in_bound(const nx_layout *l) {
  if (l->offset <= -NX_LAYOUT_LIMIT || l->offset >= NX_LAYOUT_LIMIT) return false;
  int64_t lo = l->offset, hi = l->offset, d;
  for (int j = 0; j < l->rank; j++) {
    if (l->stride[j] <= -NX_LAYOUT_LIMIT || l->stride[j] >= NX_LAYOUT_LIMIT) return false;
    if (l->extent[j] <= 1) continue;
    if (NX__MUL(l->stride[j], l->extent[j] - 1, &d) || NX__ADD(d < 0 ? lo : hi, d, d < 0 ? &lo : &hi)) return false;
    if (lo <= -NX_LAYOUT_LIMIT || hi >= NX_LAYOUT_LIMIT) return false;
  }
  return true;
}

int nx__layout_check(const char *fn, const char *what, const nx_layout *l) {
  if (l == NULL) return nx__fail(NX_EINVAL, "%s: layout %s is NULL", fn, what);
  int s = check_shape(fn, l->extent, l->rank, NULL);
  if (s) return s;
  if (!in_bound(l)) {
    char t[256], u[256];
    return nx__fail(NX_EINVAL,
                    "%s: layout %s of shape %s, strides %s and offset %lld passes the bound: "
                    "its strides and the positions of its hull must lie strictly between -2^62 and 2^62",
                    fn, what, nx__shape_text(l->extent, l->rank, t, sizeof t),
                    nx__shape_text(l->stride, l->rank, u, sizeof u), (long long)l->offset);
  }
  return 0;
}

int nx__layout_settle(const char *fn, nx_layout *l) {
  if (!in_bound(l) && nx__layout_empty(l))
    for (int j = 0; j < l->rank; j++) l->stride[j] = 0;
  return nx__layout_check(fn, "the result", l);
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
  int64_t run = 1;
  for (int j = rank - 1; j >= 0; j--) {
    r.extent[j] = extents[j];
    r.stride[j] = strides ? strides[j] : run;
    /* Contiguous strides count an extent of 0 as 1; past the bound they are
       refused (or, with no element, settled to 0). */
    if (!strides && extents[j] > 0 && (NX__MUL(run, extents[j], &run) || run >= NX_LAYOUT_LIMIT)) run = NX_LAYOUT_LIMIT;
  }
  if ((s = strides ? nx__layout_check(fn, "l", &r) : nx__layout_settle(fn, &r))) return s;
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
  if (nx__layout_check("nx_layout_count", "l", l)) return 0;
  if (nx__layout_empty(l)) return 0;
  int64_t n = 1;
  for (int j = 0; j < l->rank; j++) n *= l->extent[j]; /* checked to fit */
  return n;
}

int nx_layout_position(const nx_layout *l, const int64_t *index, int64_t *p) {
  static const char fn[] = "nx_layout_position";
  int s = nx__layout_check(fn, "l", l);
  if (s) return s;
  if (l->rank > 0 && index == NULL) return nx__fail(NX_EINVAL, "%s: the index is NULL", fn);
  if (p == NULL) return nx__fail(NX_EINVAL, "%s: the result p is NULL", fn);
  int64_t pos = l->offset;
  for (int j = 0; j < l->rank; j++) {
    if (index[j] < 0 || index[j] >= l->extent[j]) {
      char t[256];
      return nx__fail(NX_EINVAL, "%s: index %lld of axis %d is outside a layout of shape %s", fn,
                      (long long)index[j], j, nx__shape_text(l->extent, l->rank, t, sizeof t));
    }
    pos += l->stride[j] * index[j]; /* every partial sum is a hull position */
  }
  *p = pos;
  return 0;
}

int nx__layout_span_of(const char *fn, const nx_layout *l, int64_t *least, int64_t *greatest) {
  int s = nx__layout_check(fn, "l", l);
  if (s) return s;
  if (least == NULL || greatest == NULL) return nx__fail(NX_EINVAL, "%s: a result (least or greatest) is NULL", fn);
  if (nx__layout_empty(l)) return NX_NONE;
  nx__layout_span(l, least, greatest);
  return 0;
}

int nx_layout_span(const nx_layout *l, int64_t *least, int64_t *greatest) {
  return nx__layout_span_of("nx_layout_span", l, least, greatest);
}

int nx_layout_bits(const nx_layout *l, int width, int64_t *lo, int64_t *hi) {
  static const char fn[] = "nx_layout_bits";
  int64_t least, greatest, a, b;
  if (!nx__layout_width(width))
    return nx__fail(NX_EINVAL, "%s: width %d is no dtype's (1, 4, 8, 16, 32, 64 or 128)", fn, width);
  if (lo == NULL || hi == NULL) return nx__fail(NX_EINVAL, "%s: a result (lo or hi) is NULL", fn);
  int s = nx__layout_span_of(fn, l, &least, &greatest);
  if (s) return s;
  if (NX__MUL(least, (int64_t)width, &a) || NX__MUL(greatest + 1, (int64_t)width, &b))
    return nx__fail(NX_EINVAL, "%s: the bits of %d-bit elements at positions up to %lld do not fit in an int64_t", fn,
                    width, (long long)greatest);
  *lo = a;
  *hi = b;
  return 0;
}

bool nx_layout_is_contiguous(const nx_layout *l) {
  if (nx__layout_check("nx_layout_is_contiguous", "l", l)) return false;
  int64_t run = 1;
  if (nx__layout_empty(l)) return true;
  for (int j = l->rank - 1; j >= 0; j--) {
    if (l->extent[j] == 1) continue;
    if (l->stride[j] != run) return false;
    run *= l->extent[j];
  }
  return true;
}
