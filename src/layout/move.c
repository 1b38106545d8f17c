/* SPDX-License-Identifier: Apache-2.0 */
/* Movements: their constructors, and applying them to a layout. */
#include <stdio.h>
#include <string.h>

#include "layout_internal.h"

/* ---- Constructors ------------------------------------------------------ */

static int start(const char *fn, nx_move *m, nx_move_kind kind, int n, int nptr, const void *p1, const void *p2,
                 const void *p3) {
  if (m == NULL) return nx__fail(NX_EINVAL, "%s: the movement is NULL", fn);
  if (n < 0 || n > NX_MAX_RANK) return nx__fail(NX_EINVAL, "%s: %d axes is outside 0 to %d", fn, n, NX_MAX_RANK);
  if (n > 0 && ((nptr > 0 && !p1) || (nptr > 1 && !p2) || (nptr > 2 && !p3)))
    return nx__fail(NX_EINVAL, "%s: an argument array is NULL", fn);
  memset(m, 0, sizeof *m);
  m->kind = kind;
  m->n = n;
  return 0;
}

int nx_move_reshape(nx_move *m, const int64_t *shape, int n) {
  int s = start("nx_move_reshape", m, NX_MOVE_RESHAPE, n, 1, shape, NULL, NULL);
  if (!s && n > 0) memcpy(m->a, shape, (size_t)n * sizeof *shape);
  return s;
}

int nx_move_expand(nx_move *m, const int64_t *shape, int n) {
  int s = start("nx_move_expand", m, NX_MOVE_EXPAND, n, 1, shape, NULL, NULL);
  if (!s && n > 0) memcpy(m->a, shape, (size_t)n * sizeof *shape);
  return s;
}

static int axes(const char *fn, nx_move *m, nx_move_kind kind, const int *list, int n) {
  int s = start(fn, m, kind, n, 1, list, NULL, NULL);
  for (int j = 0; !s && j < n; j++) m->a[j] = list[j];
  return s;
}

int nx_move_permute(nx_move *m, const int *order, int n) { return axes("nx_move_permute", m, NX_MOVE_PERMUTE, order, n); }
int nx_move_flip(nx_move *m, const int *list, int n) { return axes("nx_move_flip", m, NX_MOVE_FLIP, list, n); }
int nx_move_squeeze(nx_move *m, const int *list, int n) { return axes("nx_move_squeeze", m, NX_MOVE_SQUEEZE, list, n); }

int nx_move_squeeze_all(nx_move *m) {
  int s = start("nx_move_squeeze_all", m, NX_MOVE_SQUEEZE, 0, 0, NULL, NULL, NULL);
  if (!s) m->n = -1;
  return s;
}

int nx_move_unsqueeze(nx_move *m, int axis) {
  int s = start("nx_move_unsqueeze", m, NX_MOVE_UNSQUEEZE, 1, 0, NULL, NULL, NULL);
  if (!s) m->a[0] = axis;
  return s;
}

int nx_move_shrink(nx_move *m, const int64_t *starts, const int64_t *stops, int n) {
  int s = start("nx_move_shrink", m, NX_MOVE_SHRINK, n, 2, starts, stops, NULL);
  if (!s && n > 0) {
    memcpy(m->a, starts, (size_t)n * sizeof *starts);
    memcpy(m->b, stops, (size_t)n * sizeof *stops);
  }
  return s;
}

int nx_move_slice(nx_move *m, const int64_t *starts, const int64_t *stops, const int64_t *steps, int n) {
  int s = start("nx_move_slice", m, NX_MOVE_SLICE, n, 3, starts, stops, steps);
  if (!s && n > 0) {
    memcpy(m->a, starts, (size_t)n * sizeof *starts);
    memcpy(m->b, stops, (size_t)n * sizeof *stops);
    memcpy(m->c, steps, (size_t)n * sizeof *steps);
  }
  return s;
}

/* ---- Applying ---------------------------------------------------------- */

int nx__reshape(const char *fn, const nx_layout *l, const int64_t *shape, int n, nx_layout *r);

static const char *const move_names[] = {"reshape", "permute", "expand", "shrink", "slice", "flip", "squeeze", "unsqueeze"};

/* Refuses m on l: the message names the movement and the input's shape. */
static int refuse(const char *fn, const nx_move *m, const nx_layout *l, const char *why, long long x) {
  char t[256], w[256];
  snprintf(w, sizeof w, why, x);
  return nx__fail(NX_EINVAL, "%s: cannot %s shape %s: %s", fn, move_names[m->kind],
                  nx__shape_text(l->extent, l->rank, t, sizeof t), w);
}

/* A named axis, negative ones from the end: in [0, rank), or -1. */
static int axis_of(int64_t a, int rank) {
  if (a < 0) a += rank;
  return a >= 0 && a < rank ? (int)a : -1;
}

/* Python's slice.indices for one axis: the first index, the step and the
   number of indices. */
static void slice_indices(int64_t len, int64_t start, int64_t stop, int64_t step, int64_t *first, int64_t *count) {
  int64_t lower = step > 0 ? 0 : -1, upper = step > 0 ? len : len - 1;
  int64_t b[2] = {start, stop};
  for (int i = 0; i < 2; i++) {
    if (b[i] == NX_SLICE_NONE) b[i] = (i == 0) == (step > 0) ? lower : upper;
    else if (b[i] < 0) { b[i] += len; if (b[i] < lower) b[i] = lower; }
    else if (b[i] > upper) b[i] = upper;
  }
  __int128 span = step > 0 ? (__int128)b[1] - b[0] : (__int128)b[0] - b[1];
  __int128 mag = step > 0 ? (__int128)step : -(__int128)step;
  *first = b[0];
  *count = span > 0 ? (int64_t)((span - 1) / mag + 1) : 0;
}

/* A hand-built movement is checked before any of its counts is used: a kind
   that is one, and n in [0, NX_MAX_RANK] (-1 only for squeeze_all). */
static int check_move(const char *fn, const nx_move *m) {
  if ((int)m->kind < NX_MOVE_RESHAPE || (int)m->kind > NX_MOVE_UNSQUEEZE)
    return nx__fail(NX_EINVAL, "%s: movement m has unknown kind %d", fn, (int)m->kind);
  if (m->n < (m->kind == NX_MOVE_SQUEEZE ? -1 : 0) || m->n > NX_MAX_RANK)
    return nx__fail(NX_EINVAL, "%s: movement m (%s) names %d axes, outside 0 to %d", fn, move_names[m->kind], m->n,
                    NX_MAX_RANK);
  return 0;
}

static int apply(const char *fn, const nx_move *m, const nx_layout *l, nx_layout *out) {
  nx_layout r = *l;
  int n = m->n;
  bool seen[NX_MAX_RANK] = {0};
  int s = check_move(fn, m);
  if (s) return s;
  switch (m->kind) {
  case NX_MOVE_RESHAPE:
    return nx__reshape(fn, l, m->a, n, out);
  case NX_MOVE_PERMUTE:
    if (n != l->rank) return refuse(fn, m, l, "the order names %lld axes", n);
    for (int k = 0; k < n; k++) {
      int j = axis_of(m->a[k], l->rank);
      if (j < 0) return refuse(fn, m, l, "axis %lld is out of range", (long long)m->a[k]);
      if (seen[j]) return refuse(fn, m, l, "axis %lld is named twice", (long long)m->a[k]);
      seen[j] = true;
      r.extent[k] = l->extent[j];
      r.stride[k] = l->stride[j];
    }
    break;
  case NX_MOVE_EXPAND:
    if (n < l->rank) return refuse(fn, m, l, "the target has %lld axes, fewer than the input", n);
    r.rank = n;
    for (int k = 0; k < n; k++) {
      int j = k - (n - l->rank);
      int64_t t = m->a[k];
      if (j < 0) {
        if (t < 0) return refuse(fn, m, l, "new axis %lld has a negative extent", k);
        r.extent[k] = t;
        r.stride[k] = 0;
      } else if (t == -1 || t == l->extent[j]) {
        r.extent[k] = l->extent[j];
        r.stride[k] = l->stride[j];
      } else if (l->extent[j] == 1 && t >= 0) {
        r.extent[k] = t;
        r.stride[k] = 0;
      } else if (t < 0) {
        return refuse(fn, m, l, "axis %lld has a negative target extent", k);
      } else {
        return refuse(fn, m, l, "axis %lld has an extent other than 1 and the target's", j);
      }
    }
    break;
  case NX_MOVE_SHRINK:
    if (n != l->rank) return refuse(fn, m, l, "the bounds name %lld axes", n);
    for (int j = 0; j < n; j++) {
      if (m->a[j] < 0 || m->a[j] > m->b[j] || m->b[j] > l->extent[j])
        return refuse(fn, m, l, "the bounds of axis %lld are outside 0 <= start <= stop <= extent", j);
      r.offset += m->a[j] < l->extent[j] ? m->a[j] * l->stride[j] : 0;
      r.extent[j] = m->b[j] - m->a[j];
    }
    break;
  case NX_MOVE_SLICE:
    if (n > l->rank) return refuse(fn, m, l, "the slice names %lld axes", n);
    for (int j = 0; j < n; j++) {
      int64_t first, count, st;
      if (m->c[j] == 0) return refuse(fn, m, l, "axis %lld has step 0", j);
      slice_indices(l->extent[j], m->a[j], m->b[j], m->c[j], &first, &count);
      r.extent[j] = count;
      if (count > 0) r.offset += first * l->stride[j];
      /* stride *= step, as numpy's views have it; with one index or none the
         stride reaches nothing, so one that would overflow or pass the bound
         is kept as it was rather than refused, as nx_move_shape (over
         strides 0) accepts the slice */
      bool over = NX__MUL(l->stride[j], m->c[j], &st);
      if (count <= 1 && (over || st <= -NX_LAYOUT_LIMIT || st >= NX_LAYOUT_LIMIT)) continue;
      if (over) return refuse(fn, m, l, "the stride of axis %lld overflows", j);
      r.stride[j] = st;
    }
    break;
  case NX_MOVE_FLIP:
    for (int k = 0; k < n; k++) {
      int j = axis_of(m->a[k], l->rank);
      if (j < 0) return refuse(fn, m, l, "axis %lld is out of range", (long long)m->a[k]);
      if (seen[j]) return refuse(fn, m, l, "axis %lld is named twice", (long long)m->a[k]);
      seen[j] = true;
      if (l->extent[j] > 0) r.offset += (l->extent[j] - 1) * l->stride[j];
      r.stride[j] = -l->stride[j];
    }
    break;
  case NX_MOVE_SQUEEZE:
    for (int k = 0; k < n; k++) {
      int j = axis_of(m->a[k], l->rank);
      if (j < 0) return refuse(fn, m, l, "axis %lld is out of range", (long long)m->a[k]);
      if (seen[j]) return refuse(fn, m, l, "axis %lld is named twice", (long long)m->a[k]);
      if (l->extent[j] != 1) return refuse(fn, m, l, "axis %lld does not have extent 1", j);
      seen[j] = true;
    }
    r.rank = 0;
    for (int j = 0; j < l->rank; j++)
      if (!(n < 0 ? l->extent[j] == 1 : seen[j])) {
        r.extent[r.rank] = l->extent[j];
        r.stride[r.rank++] = l->stride[j];
      }
    break;
  case NX_MOVE_UNSQUEEZE: {
    int64_t a = m->a[0] < 0 ? m->a[0] + l->rank + 1 : m->a[0];
    if (a < 0 || a > l->rank) return refuse(fn, m, l, "position %lld is out of range", (long long)m->a[0]);
    if (l->rank == NX_MAX_RANK) return refuse(fn, m, l, "the result would pass %lld axes", NX_MAX_RANK);
    r.rank = l->rank + 1;
    for (int j = l->rank; j > a; j--) {
      r.extent[j] = l->extent[j - 1];
      r.stride[j] = l->stride[j - 1];
    }
    /* Any stride serves an axis of extent 1; this one keeps C strides C,
       and 0 where it would pass the bound. */
    int64_t st = 1;
    if (a < l->rank && (NX__MUL(l->stride[a], l->extent[a], &st) || st <= -NX_LAYOUT_LIMIT || st >= NX_LAYOUT_LIMIT))
      st = 0;
    r.extent[a] = 1;
    r.stride[a] = st;
    break;
  }
  }
  /* Every movement but expand keeps the hull or shrinks it; the check
     still runs on each result. */
  if ((s = nx__layout_check(fn, "the result", &r))) return s;
  *out = r;
  return 0;
}

int nx_layout_move(const nx_move *m, const nx_layout *l, nx_layout *r) {
  static const char fn[] = "nx_layout_move";
  if (m == NULL) return nx__fail(NX_EINVAL, "%s: movement m is NULL", fn);
  if (r == NULL) return nx__fail(NX_EINVAL, "%s: the result r is NULL", fn);
  int s = nx__layout_check(fn, "l", l);
  return s ? s : apply(fn, m, l, r);
}

int nx_move_shape(const nx_move *m, const int64_t *shape, int rank, int64_t *out, int *out_rank) {
  static const char fn[] = "nx_move_shape";
  nx_layout l, r;
  if (m == NULL) return nx__fail(NX_EINVAL, "%s: movement m is NULL", fn);
  if (out == NULL || out_rank == NULL) return nx__fail(NX_EINVAL, "%s: a result (out or out_rank) is NULL", fn);
  /* Strides 0: the shape alone matters, every shape whose count fits has a
     layout of hull {0}, and such a layout always reshapes (no None). */
  static const int64_t zeros[NX_MAX_RANK] = {0};
  int s = nx__layout_make(fn, rank, shape, zeros, 0, &l);
  if (s) return s;
  if ((s = apply(fn, m, &l, &r))) return s;
  if (r.rank > 0) memcpy(out, r.extent, (size_t)r.rank * sizeof *out);
  *out_rank = r.rank;
  return 0;
}
