/* SPDX-License-Identifier: Apache-2.0 */
/* Assembly into fresh arrays: pad, cat, contiguous. Each makes its result
   and copies its parts into views of it (nx_move_shrink), so the parts go
   through the door and the engine as nx_copy does. */
#include "api.h"

/* z's view over [start, start + extent) of each axis of x's shape. */
static int view(const char *name, nx_array *z, const int64_t *start, const int64_t *ext, int rank, nx_array **v) {
  nx_move m;
  int64_t stop[NX_MAX_RANK];
  for (int j = 0; j < rank; j++) stop[j] = start[j] + ext[j];
  int s = nx_move_shrink(&m, start, stop, rank);
  if (s == 0) s = nx_array_move(&m, z, v);
  return s < 0 ? nx__fail(s, "%s: %s", name, nx_error_message()) : 0;
}

static int place(const char *name, nx_array *z, nx_array *x, const int64_t *start) {
  const nx_layout *l = nx_array_layout(x);
  nx_array *v;
  int s = view(name, z, start, l->extent, l->rank, &v);
  if (s) return s;
  s = nx_copy(v, x);
  nx_array_free(v);
  return s < 0 ? nx__fail(s, "%s: %s", name, nx_error_message()) : 0;
}

int nx_pad_new(nx_array **z, nx_array *x, const int64_t *before, const int64_t *after, nx_value v) {
  static const char name[] = "nx_pad_new";
  if (!x) return nx__fail(NX_EINVAL, "%s: operand 0 is NULL", name);
  if (!z) return nx__fail(NX_EINVAL, "%s: the result pointer is NULL", name);
  const nx_layout *l = nx_array_layout(x);
  char t[160];
  if (l->rank > 0 && (!before || !after)) return nx__fail(NX_EINVAL, "%s: the pads are NULL", name);
  int64_t shape[NX_MAX_RANK];
  for (int j = 0; j < l->rank; j++) {
    if (before[j] < 0 || after[j] < 0 || before[j] > INT64_MAX - l->extent[j] - after[j] ||
        after[j] > INT64_MAX - l->extent[j])
      return nx__fail(NX_EINVAL, "%s: pad %lld, %lld of axis %d of %s", name, (long long)before[j],
                      (long long)after[j], j, nx_array_describe(x, t, sizeof t));
    shape[j] = before[j] + l->extent[j] + after[j];
  }
  /* checked here, so that the refusal names this function and x, not
     nx_fill and the padded result */
  if (!nx_dtype_holds(nx_array_dtype(x), v))
    return nx__fail(NX_EINVAL, "%s: the fill value is outside the range of %s (%s)", name,
                    nx_dtype_name(nx_array_dtype(x)), nx_array_describe(x, t, sizeof t));
  nx_array *r;
  int s = nx__make(name, x, nx_array_dtype(x), shape, l->rank, &r);
  if (s) return s;
  if ((s = nx_fill(r, v)) || (s = place(name, r, x, before))) {
    nx_array_free(r);
    return nx__fail_as(name, s);
  }
  *z = r;
  return 0;
}

int nx_cat_new(nx_array **z, nx_array *const *xs, int n, int axis) {
  static const char name[] = "nx_cat_new";
  if (!z) return nx__fail(NX_EINVAL, "%s: the result pointer is NULL", name);
  if (!xs) return nx__fail(NX_EINVAL, "%s: the arrays pointer is NULL (n %d)", name, n);
  if (n < 1) return nx__fail(NX_EINVAL, "%s: %d arrays", name, n);
  int s = nx__need(name, xs, n);
  if (s) return s;
  const nx_layout *l0 = nx_array_layout(xs[0]);
  int r = l0->rank;
  char t[160];
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return nx__fail(NX_EINVAL, "%s: axis out of range for %s", name, nx_array_describe(xs[0], t, sizeof t));
  int64_t shape[NX_MAX_RANK];
  for (int j = 0; j < r; j++) shape[j] = l0->extent[j];
  shape[axis] = 0;
  for (int i = 0; i < n; i++) {
    const nx_layout *l = nx_array_layout(xs[i]);
    bool fits = l->rank == r && nx_array_dtype(xs[i]) == nx_array_dtype(xs[0]);
    for (int j = 0; j < r && fits; j++) fits = j == axis || l->extent[j] == l0->extent[j];
    if (!fits) return nx_array_refused(name, NX_SHAPE_MISMATCH, xs, n);
    if (l->extent[axis] > INT64_MAX - shape[axis]) return nx__fail(NX_EINVAL, "%s: the extents sum past an int64_t", name);
    shape[axis] += l->extent[axis];
  }
  nx_array *out;
  if ((s = nx__make(name, xs[0], nx_array_dtype(xs[0]), shape, r, &out))) return s;
  int64_t start[NX_MAX_RANK] = {0};
  for (int i = 0; i < n; i++) {
    if ((s = place(name, out, xs[i], start))) {
      nx_array_free(out);
      return s;
    }
    start[axis] += nx_array_layout(xs[i])->extent[axis];
  }
  *z = out;
  return 0;
}

int nx_contiguous(nx_array **z, nx_array *x) {
  if (!x) return nx__fail(NX_EINVAL, "nx_contiguous: operand 0 is NULL");
  if (!z) return nx__fail(NX_EINVAL, "nx_contiguous: the result pointer is NULL");
  const nx_layout *l = nx_array_layout(x);
  int bits = nx_dtype_bits_of(nx_array_dtype(x));
  if (nx_layout_is_contiguous(l) && (bits >= 8 || l->offset * bits % 8 == 0)) {
    /* a view moves even a dead array (nx_array_move): the copy it stands
       for would be refused, so it is */
    const char *dead = nx_buffer_dead(nx_array_buffer(x));
    if (dead) {
      char d[256];
      return nx__fail(NX_EINVAL, "nx_contiguous: the buffer of %s is dead (%s)", nx_array_describe(x, d, sizeof d), dead);
    }
    nx_move m;
    int s = nx_move_reshape(&m, l->extent, l->rank);
    if (s == 0) s = nx_array_move(&m, x, z);
    return s < 0 ? nx__fail(s, "nx_contiguous: %s", nx_error_message()) : 0;
  }
  return nx_copy_new(z, x);
}
