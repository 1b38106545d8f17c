/* SPDX-License-Identifier: Apache-2.0 */
/* Tensors' padding across operations, as OCANNL keeps it on a shape: each
   derivation of projections raises the padding of every tensor it reads or
   writes to what the operation needs (the most on each side, per axis in
   layout order), until the tensor's padding is resolved (OCANNL: its memory
   laid out); then an operation needing more on some axis is an error,
   "Operation padding (left=L, right=R) exceeds resolved padding (left=l,
   right=r)", and the padding no longer changes. Each derivation also gives
   every axis of the tensors it reads or writes a fresh projection id, as
   OCANNL's fresh_proj_ids does (the result's axes first, then each
   operand's, each shape's in the order batch, input, output), which
   NX_SHAPE_STYLE_PROJECTION_AND_SIZE prints after the axis's size. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "tensor_internal.h"

/* t's rank once its rows are closed; -1 while one is open. */
static int rank_of(nx_shape_session *s, const nx_tensor *t) {
  int n = 0;
  for (int k = 0; k < 3; k++) {
    const nx_row *r = nx__shape_rsub(s, t->rows[k]);
    if (r->var) return -1;
    n += r->nbeg + r->ndims;
  }
  return n;
}

/* A fresh array of t's padding (rank n), as it is (0 where none); NULL
   when memory runs out. */
static int64_t (*copy_of(nx_shape_session *s, const nx_tensor *t, int n))[2] {
  int64_t(*c)[2] = nx__shape_alloc(s, (size_t)(n ? n : 1) * sizeof *c);
  for (int a = 0; c && a < n; a++) {
    bool some = t->pad && a < t->pad->rank;
    c[a][0] = some ? t->pad->lr[a][0] : 0, c[a][1] = some ? t->pad->lr[a][1] : 0;
  }
  return c;
}

/* Replaces t's padding by lr (rank n, in the arena) and its projection
   ids by proj (may be NULL); false when memory runs out. */
static bool replace(nx_shape_session *s, nx_tensor *t, bool resolved, int n, int64_t (*lr)[2], const int *proj) {
  nx__tpad *x = nx__shape_alloc(s, sizeof *x);
  if (!x || !lr) return false;
  *x = (nx__tpad){.resolved = resolved, .rank = n, .lr = (const int64_t(*)[2])lr, .proj = proj};
  NX__LOG_FIELD(s, t->pad);
  t->pad = x;
  return true;
}

/* Fresh projection ids for t's n axes, by axis in layout order (batch,
   output, input), given in the order batch, input, output as OCANNL's
   fresh_row_proj meets them, into *out: NULL (no ids) where t's rows do
   not hold its n axes or the ids would pass INT_MAX. 0, or NX_ENOMEM. */
static int fresh_ids(nx_shape_session *s, const nx_tensor *t, int n, const int **out) {
  int len[3], at[3];
  *out = NULL;
  for (int k = 0; k < 3; k++) {
    const nx_row *r = nx__shape_rsub(s, t->rows[k]);
    len[k] = r->nbeg + r->ndims;
  }
  if (len[0] + len[1] + len[2] != n || s->nproj_ids > INT_MAX - n) return 0;
  at[NX_AXIS_BATCH] = 0, at[NX_AXIS_OUTPUT] = len[NX_AXIS_BATCH], at[NX_AXIS_INPUT] = n - len[NX_AXIS_INPUT];
  int *ids = nx__shape_alloc(s, (size_t)(n ? n : 1) * sizeof *ids);
  if (!ids) return NX_ENOMEM;
  for (int k = 0; k < 3; k++) /* batch, input, output */
    for (int i = 0; i < len[k]; i++) ids[at[k] + i] = ++s->nproj_ids;
  *out = ids;
  return 0;
}

/* The tensor of shape w of p's operation. */
static nx_tensor *tensor_of(const nx_tensor *t, int w) {
  return w == NX_PROJ_RESULT ? (nx_tensor *)t : t->env->args[w];
}

int nx__shape_pad_merge(nx_shape_session *s, const nx_tensor *t, const nx_shape_proj *p) {
  int nops = nx_proj_operand_count(p);
  for (int w = NX_PROJ_RESULT; w < nops; w++) { /* check everything before changing anything */
    const nx_tensor *x = tensor_of(t, w);
    if (!x->pad || !x->pad->resolved) continue;
    for (int a = 0; a < nx_proj_rank(p, w) && a < x->pad->rank; a++) {
      int64_t l, r;
      nx_proj_padding(p, w, a, &l, &r);
      if (l > x->pad->lr[a][0] || r > x->pad->lr[a][1])
        return nx__fail(NX_EINVAL,
                        "nx_shape_projections: %s: Operation padding (left=%lld, right=%lld) exceeds resolved padding "
                        "(left=%lld, right=%lld) (axis %d of %s %s)",
                        t->label, (long long)l, (long long)r, (long long)x->pad->lr[a][0], (long long)x->pad->lr[a][1],
                        a, w == NX_PROJ_RESULT ? "the result" : "an operand", x->label);
    }
  }
  for (int w = NX_PROJ_RESULT; w < nops; w++) { /* the result first, as OCANNL numbers the ids */
    nx_tensor *x = tensor_of(t, w);
    int n = nx_proj_rank(p, w);
    if (x->pad && x->pad->rank != n) continue;
    bool resolved = x->pad && x->pad->resolved;
    int64_t(*lr)[2] = copy_of(s, x, n);
    if (!lr) return NX_ENOMEM;
    for (int a = 0; a < n && !resolved; a++) {
      int64_t l, r;
      nx_proj_padding(p, w, a, &l, &r);
      if (l > lr[a][0]) lr[a][0] = l;
      if (r > lr[a][1]) lr[a][1] = r;
    }
    const int *ids;
    if (fresh_ids(s, x, n, &ids) || !replace(s, x, resolved, n, lr, ids)) return NX_ENOMEM;
  }
  return 0;
}

int nx_tensor_padding(nx_shape_session *s, const nx_tensor *t, int axis, int64_t *left, int64_t *right) {
  if (!s || !t) return nx__fail(NX_EINVAL, "nx_tensor_padding: NULL argument");
  int n = rank_of(s, t);
  if (n < 0) return nx__fail(NX_EINVAL, "nx_tensor_padding: %s: its rows are not solved yet (call nx_shape_finish first)", t->label);
  if (axis < 0 || axis >= n) return nx__fail(NX_EINVAL, "nx_tensor_padding: %s has no axis %d (rank %d)", t->label, axis, n);
  bool some = t->pad && axis < t->pad->rank;
  if (left) *left = some ? t->pad->lr[axis][0] : 0;
  if (right) *right = some ? t->pad->lr[axis][1] : 0;
  return 0;
}

int nx_tensor_resolve_padding(nx_shape_session *s, nx_tensor *t) {
  if (!s || !t) return nx__fail(NX_EINVAL, "nx_tensor_resolve_padding: NULL argument");
  if (s->rec) s->forced_proj = true; /* a trace refuses it once its function returns */
  int n = rank_of(s, t);
  if (n < 0)
    return nx__fail(NX_EINVAL, "nx_tensor_resolve_padding: %s: its rows are not solved yet (call nx_shape_finish first)",
                    t->label);
  if (t->pad && t->pad->resolved) return 0;
  const int *ids = t->pad && t->pad->rank == n ? t->pad->proj : NULL;
  return replace(s, t, true, n, copy_of(s, t, n), ids) ? 0
                                                      : nx__fail(NX_ENOMEM, "nx_tensor_resolve_padding: out of memory");
}

bool nx_tensor_padding_resolved(const nx_tensor *t) {
  if (!t) return nx__fail(NX_EINVAL, "nx_tensor_padding_resolved: the tensor is NULL"), false;
  return t->pad && t->pad->resolved;
}
