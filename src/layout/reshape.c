/* SPDX-License-Identifier: Apache-2.0 */
/* Reshape without a copy: numpy's rule (_attempt_nocopy_reshape), which
   answers None exactly where the elements in C order are not one strided
   layout of the new shape. */
#include <string.h>

#include "layout_internal.h"

/* The new shape with its inferred extent resolved, checked against l's
   element count. */
static int resolve(const char *fn, const nx_layout *l, const int64_t *shape, int n, int64_t *out) {
  char t[256], u[256];
  int64_t count = 1, known = 1;
  int infer = -1;
  bool zero = false;
  if (n < 0 || n > NX_MAX_RANK) return nx__fail(NX_EINVAL, "%s: cannot reshape to %d axes", fn, n);
  for (int j = 0; j < l->rank; j++) count = l->extent[j] == 0 ? 0 : count; /* no element: 0 */
  for (int j = 0; j < l->rank && count > 0; j++) count *= l->extent[j];    /* checked to fit */
  for (int j = 0; j < n; j++) {
    if (shape[j] == -1) {
      if (infer >= 0)
        return nx__fail(NX_EINVAL, "%s: cannot reshape shape %s to %s: two extents are inferred", fn,
                        nx__shape_text(l->extent, l->rank, t, sizeof t), nx__shape_text(shape, n, u, sizeof u));
      infer = j;
    } else if (shape[j] < 0) {
      return nx__fail(NX_EINVAL, "%s: cannot reshape shape %s to %s: a negative extent", fn,
                      nx__shape_text(l->extent, l->rank, t, sizeof t), nx__shape_text(shape, n, u, sizeof u));
    } else if (shape[j] == 0) {
      zero = true;
    } else if (!zero && NX__MUL(known, shape[j], &known)) {
      return nx__fail(NX_EINVAL, "%s: cannot reshape shape %s to %s: more elements than an int64_t counts", fn,
                      nx__shape_text(l->extent, l->rank, t, sizeof t), nx__shape_text(shape, n, u, sizeof u));
    }
  }
  if (zero) known = 0;
  if (n > 0) memcpy(out, shape, (size_t)n * sizeof *shape);
  if (infer >= 0) {
    if (known == 0 || count % known != 0)
      return nx__fail(NX_EINVAL, "%s: cannot reshape shape %s of %lld elements to %s: no extent can be inferred", fn,
                      nx__shape_text(l->extent, l->rank, t, sizeof t), (long long)count,
                      nx__shape_text(shape, n, u, sizeof u));
    out[infer] = count / known;
  } else if (known != count) {
    return nx__fail(NX_EINVAL, "%s: cannot reshape shape %s of %lld elements to %s of %lld", fn,
                    nx__shape_text(l->extent, l->rank, t, sizeof t), (long long)count,
                    nx__shape_text(shape, n, u, sizeof u), (long long)known);
  }
  return 0;
}

/* numpy's no-copy algorithm: pair the smallest groups of old and new axes
   with equal products; an old group merges iff each stride runs on from the
   next; the new group then takes strides from the right. Old axes of extent 1
   are dropped first and new ones take their neighbour's stride. */
static bool nocopy(const nx_layout *l, const int64_t *nd, int nn, int64_t *ns) {
  int64_t od[NX_MAX_RANK], os[NX_MAX_RANK];
  int on = 0;
  for (int j = 0; j < l->rank; j++)
    if (l->extent[j] != 1) { od[on] = l->extent[j]; os[on++] = l->stride[j]; }
  int ni = 0, oi = 0, nj = 1, oj = 1;
  while (ni < nn && oi < on) {
    int64_t np = nd[ni], op = od[oi];
    while (np != op) {
      if (np < op) np *= nd[nj++];
      else op *= od[oj++];
    }
    for (int ok = oi; ok < oj - 1; ok++)
      if (os[ok] != (__int128)od[ok + 1] * os[ok + 1]) return false; /* in 128 bits: it may pass an int64_t */
    ns[nj - 1] = os[oj - 1];
    /* The run in 128 bits: it passes the bound only over leading axes of
       extent 1 (others hold positions of the group, inside l's hull), whose
       stride any value serves: 0 there. */
    __int128 run = ns[nj - 1];
    for (int nk = nj - 1; nk > ni; nk--) {
      run *= nd[nk];
      bool past = run <= -NX_LAYOUT_LIMIT || run >= NX_LAYOUT_LIMIT;
      ns[nk - 1] = !past ? (int64_t)run : nd[nk - 1] == 1 ? 0 : NX_LAYOUT_LIMIT; /* the check refuses the last */
    }
    ni = nj++;
    oi = oj++;
  }
  int64_t last = ni > 0 ? ns[ni - 1] : 1;
  for (int nk = ni; nk < nn; nk++) ns[nk] = last;
  return true;
}

int nx__reshape(const char *fn, const nx_layout *l, const int64_t *shape, int n, nx_layout *r) {
  int64_t nd[NX_MAX_RANK], ns[NX_MAX_RANK];
  int s = resolve(fn, l, shape, n, nd);
  if (s) return s;
  nx_layout out;
  memset(&out, 0, sizeof out);
  out.rank = n;
  out.offset = l->offset;
  if (n > 0) memcpy(out.extent, nd, (size_t)n * sizeof *nd);
  bool empty = false;
  for (int j = 0; j < n; j++) empty |= nd[j] == 0;
  if (empty) { /* no element: any strides serve; C-contiguous ones */
    int64_t run = 1;
    for (int j = n - 1; j >= 0; j--) {
      out.stride[j] = run;
      if (nd[j] > 0 && (NX__MUL(run, nd[j], &run) || run >= NX_LAYOUT_LIMIT)) run = NX_LAYOUT_LIMIT; /* settled */
    }
  } else if (!nocopy(l, nd, n, ns)) {
    return NX_NONE;
  } else {
    if (n > 0) memcpy(out.stride, ns, (size_t)n * sizeof *ns);
  }
  if ((s = nx__layout_settle(fn, &out))) return s;
  *r = out;
  return 0;
}
