/* SPDX-License-Identifier: Apache-2.0 */
/* Projections of an einsum, after OCANNL's derive_projections: every axis
   of the spec's rows, its row variables expanded under the solution, is
   given an index over a space of iterators. A label is one iterator
   wherever it appears (numpy's einsum semantics: two labels are two
   iterators even when their sizes agree); a row variable's k-th axis is one
   iterator in every shape the variable appears in; `_` is an iterator of
   its own; a fixed index i is the constant i; `stride*o+offset` is
   stride*o+offset, and a convolution `stride*o+dilation*k` adds dilation*k,
   less the left padding floor(K/2) of a kernel of size K when it pads
   (OCANNL's split: the left side gets the smaller half). A concatenated
   axis `a^b` indexes by whichever of its parts' iterators is active, past
   the parts before it; the parts' iterators form one group, iterated one
   after the other rather than nested (OCANNL's concat components), and a
   group of several concatenations sharing an iterator is one group. */
#include <string.h>

#include "tensor_internal.h"

#define FN "nx_shape_projections"

typedef struct {
  int64_t size;
  nx_shape_index index;
  int64_t pad_left, pad_right;
  int64_t padded_kernel; /* a convolution with '=': its kernel's size; else 0 */
} proj_axis;

struct nx_shape_proj {
  int niters;
  int64_t *iter_size;
  const char **iter_label;
  int *iter_group; /* by iterator: its group, numbered in order of first iterator */
  int ngroups;
  int noperands;
  const nx_tensor *const *tensor; /* by shape: operands, then the result */
  int *rank;           /* by shape: operands, then the result */
  proj_axis **axes;    /* by shape, by axis in layout order */
};

/* An iterator's identity: a dim variable of the spec (a label or `_`), or
   position pos of row variable rv's expansion. */
typedef struct {
  int var, rv, pos;
} key;

typedef struct {
  nx_shape_session *s;
  const nx_tensor *t;
  nx_shape_proj *p;
  key *keys;
  int *up; /* union-find over iterators: the concatenations' groups */
  int cap;
} builder;

static int64_t solved_size(nx_shape_session *s, const nx_dim *d) {
  const nx_dim *x = nx__shape_dsub(s, d);
  return x->kind == NX__D_SOLVED ? x->d : -1;
}

static const char *label_of(const nx__spec_env *e, int var) {
  for (int i = 0; i < e->ndims; i++)
    if (e->dims[i]->var == var) return e->dim_names[i];
  return NULL;
}

/* The iterator of key k, made on first sight with the size of dim d. */
static int iterator(builder *b, key k, const nx_dim *d) {
  nx_shape_proj *p = b->p;
  for (int i = 0; i < p->niters; i++)
    if (b->keys[i].var == k.var && b->keys[i].rv == k.rv && b->keys[i].pos == k.pos) return i;
  int64_t size = solved_size(b->s, d);
  if (size < 0) return nx__fail(NX_EINVAL, FN ": %s: an axis of its spec is not solved yet (call nx_shape_finish first)",
                                b->t->label);
  if (p->niters == b->cap) {
    int nc = b->cap ? 2 * b->cap : 16;
    key *nk = nx__shape_alloc(b->s, (size_t)nc * sizeof *nk);
    int64_t *ns = nx__shape_alloc(b->s, (size_t)nc * sizeof *ns);
    const char **nl = nx__shape_alloc(b->s, (size_t)nc * sizeof *nl);
    int *nu = nx__shape_alloc(b->s, (size_t)nc * sizeof *nu);
    if (!nk || !ns || !nl || !nu) return NX_ENOMEM;
    if (p->niters) {
      memcpy(nk, b->keys, (size_t)p->niters * sizeof *nk);
      memcpy(ns, p->iter_size, (size_t)p->niters * sizeof *ns);
      memcpy(nl, p->iter_label, (size_t)p->niters * sizeof *nl);
      memcpy(nu, b->up, (size_t)p->niters * sizeof *nu);
    }
    b->keys = nk;
    p->iter_size = ns;
    p->iter_label = nl;
    b->up = nu;
    b->cap = nc;
  }
  b->up[p->niters] = p->niters;
  b->keys[p->niters] = k;
  p->iter_size[p->niters] = size;
  p->iter_label[p->niters] = k.var ? label_of(b->t->env, k.var) : NULL;
  return p->niters++;
}

/* Adds coeff * (the index of a spec label dim) to x. */
static int add_term(builder *b, nx_shape_index *x, int64_t coeff, const nx_dim *label) {
  if (label->kind != NX__D_VAR) return nx__fail(NX_EINVAL, FN ": %s: an affine axis over a non-label", b->t->label);
  int it = iterator(b, (key){label->var, 0, 0}, label);
  if (it < 0) return it;
  x->iter[x->nterms] = it;
  x->coeff[x->nterms++] = coeff;
  return 0;
}

/* The root of i's group (path halving); a root is its group's first iterator. */
static int find(int *up, int i) {
  while (up[i] != i) i = up[i] = up[up[i]];
  return i;
}

/* The index of a concatenated axis: each part a label, its iterator joined
   to the parts' group, its offset the sizes of the parts before it. */
static int concat_axis(builder *b, const nx_dim *d, nx_shape_index *x) {
  int *parts = nx__shape_alloc(b->s, (size_t)d->nparts * sizeof *parts);
  int64_t *offs = nx__shape_alloc(b->s, (size_t)d->nparts * sizeof *offs);
  if (!parts || !offs) return NX_ENOMEM;
  int64_t at = 0;
  for (int i = 0; i < d->nparts; i++) {
    const nx_dim *part = d->parts[i];
    bool fixed = false;
    for (int j = 0; part->kind == NX__D_VAR && j < b->t->env->nfixed; j++) fixed |= b->t->env->fixed_var[j] == part->var;
    if (part->kind != NX__D_VAR || fixed)
      return nx__fail(NX_EINVAL, FN ": %s: a part of a concatenated axis that is not a label", b->t->label);
    int it = iterator(b, (key){part->var, 0, 0}, part);
    if (it < 0) return it;
    for (int j = 0; j < i; j++)
      if (parts[j] == it)
        return nx__fail(NX_EINVAL, FN ": %s: a label twice in one concatenated axis", b->t->label);
    parts[i] = it, offs[i] = at;
    at += b->p->iter_size[it];
    int ra = find(b->up, it), rb = find(b->up, parts[0]); /* the root is the group's first iterator */
    if (ra != rb) b->up[ra > rb ? ra : rb] = ra > rb ? rb : ra;
  }
  x->nparts = d->nparts, x->parts = parts, x->part_offset = offs;
  return 0;
}

/* The index of one axis of the spec (not a row variable's): d as the parser
   made it. */
static int spec_axis(builder *b, const nx_dim *d, proj_axis *a) {
  const nx__spec_env *e = b->t->env;
  nx_shape_index *x = &a->index;
  memset(a, 0, sizeof *a);
  if ((a->size = solved_size(b->s, d)) < 0)
    return nx__fail(NX_EINVAL, FN ": %s: an axis of its spec is not solved yet (call nx_shape_finish first)",
                    b->t->label);
  switch (d->kind) {
  case NX__D_VAR:
    for (int i = 0; i < e->nfixed; i++)
      if (e->fixed_var[i] == d->var) {
        x->offset = e->fixed_idx[i];
        return 0;
      }
    return add_term(b, x, 1, d);
  case NX__D_AFFINE: {
    int rc = add_term(b, x, d->stride, d->over);
    if (rc || !d->kernel) {
      x->offset = d->offset;
      return rc;
    }
    if ((rc = add_term(b, x, d->dilation, d->kernel))) return rc;
    int64_t k = solved_size(b->s, d->kernel);
    x->offset = d->offset - (d->use_padding ? k - (k + 1) / 2 : 0);
    a->padded_kernel = d->use_padding ? k : 0;
    return 0;
  }
  case NX__D_CONCAT: return concat_axis(b, d, x);
  }
  return nx__fail(NX_EINVAL, FN ": %s: a solved axis in a spec", b->t->label);
}

/* The axes of row variable rv's solution, flattened: n of them in out (up
   to cap), each a dim under the solution. */
static int expand(nx_shape_session *s, const nx_row *r, const nx_dim **out, int n, int cap) {
  if (!r) return -1;
  for (int i = 0; i < r->nbeg && n >= 0; i++) n = n < cap ? (out[n] = r->beg[i], n + 1) : -1;
  if (r->var && n >= 0) n = expand(s, NX__VAL(s, r->var).r, out, n, cap);
  for (int i = 0; i < r->ndims && n >= 0; i++) n = n < cap ? (out[n] = r->dims[i], n + 1) : -1;
  return n;
}

#define MAXAXES 256

/* The axes of the spec row r of one shape, into a (count in *n). */
static int row_axes(builder *b, const nx_row *r, proj_axis *a, int *n) {
  int rc;
  for (int i = 0; i < r->nbeg; i++)
    if ((rc = spec_axis(b, r->beg[i], &a[(*n)++]))) return rc;
  if (r->var) {
    const nx_dim *ex[MAXAXES];
    int m = expand(b->s, NX__VAL(b->s, r->var).r, ex, 0, MAXAXES);
    if (m < 0 || *n + m + r->ndims > MAXAXES)
      return nx__fail(NX_EINVAL, FN ": %s: a row variable of its spec is not solved yet, or more than %d axes",
                      b->t->label, MAXAXES);
    for (int j = 0; j < m; j++) {
      proj_axis *x = &a[(*n)++];
      memset(x, 0, sizeof *x);
      int it = iterator(b, (key){0, r->var, j}, ex[j]);
      if (it < 0) return it;
      x->size = b->p->iter_size[it];
      x->index = (nx_shape_index){.nterms = 1, .iter = {it}, .coeff = {1}};
    }
  }
  for (int i = 0; i < r->ndims; i++)
    if ((rc = spec_axis(b, r->dims[i], &a[(*n)++]))) return rc;
  return 0;
}

/* The padding an axis's index needs: how far its least and greatest values
   over the space fall outside 0..size-1, and at least OCANNL's margins of a
   convolution with '=' (kernel size K: floor(K/2) left, ceil(K/2) right). */
static void padding(const nx_shape_proj *p, proj_axis *a) {
  if (a->index.nparts) return; /* a concatenation's index stays in range */
  int64_t lo = a->index.offset, hi = a->index.offset;
  for (int i = 0; i < a->index.nterms; i++) {
    int64_t span = a->index.coeff[i] * (p->iter_size[a->index.iter[i]] - 1);
    if (span < 0) lo += span;
    else hi += span;
  }
  a->pad_left = lo < 0 ? -lo : 0;
  a->pad_right = hi > a->size - 1 ? hi - (a->size - 1) : 0;
  int64_t k = a->padded_kernel;
  if (k && a->pad_left < k - (k + 1) / 2) a->pad_left = k - (k + 1) / 2;
  if (k && a->pad_right < (k + 1) / 2) a->pad_right = (k + 1) / 2;
}

static const int layout[3] = {NX_AXIS_BATCH, NX_AXIS_OUTPUT, NX_AXIS_INPUT};

/* Fills b->p: each shape's axes in layout order (the result's first, so
   its iterators come first), their padding, and the groups numbered in the
   order of their first iterators. */
static int build(builder *b) {
  const nx__spec_env *e = b->t->env;
  nx_shape_proj *p = b->p;
  p->noperands = e->nshapes - 1;
  p->rank = nx__shape_alloc(b->s, (size_t)e->nshapes * sizeof *p->rank);
  p->axes = nx__shape_alloc(b->s, (size_t)e->nshapes * sizeof *p->axes);
  if (!p->rank || !p->axes) return NX_ENOMEM;
  /* The result first, so its iterators come first. */
  for (int j = 0; j < e->nshapes; j++) {
    int sh = (j + e->nshapes - 1) % e->nshapes;
    proj_axis a[3 * MAXAXES];
    int n = 0, rc;
    for (int k = 0; k < 3; k++)
      if ((rc = row_axes(b, e->shape_rows[sh][layout[k]], a, &n))) return rc;
    if (!(p->axes[sh] = nx__shape_alloc(b->s, (size_t)(n ? n : 1) * sizeof **p->axes))) return NX_ENOMEM;
    memcpy(p->axes[sh], a, (size_t)n * sizeof *a);
    p->rank[sh] = n;
  }
  for (int sh = 0; sh < e->nshapes; sh++)
    for (int i = 0; i < p->rank[sh]; i++) padding(p, &p->axes[sh][i]);
  /* Number the groups in order of their first iterator. */
  if (!(p->iter_group = nx__shape_alloc(b->s, (size_t)(p->niters ? p->niters : 1) * sizeof *p->iter_group)))
    return NX_ENOMEM;
  for (int i = 0; i < p->niters; i++) {
    int r = find(b->up, i);
    p->iter_group[i] = r == i ? p->ngroups++ : p->iter_group[r];
  }
  return 0;
}

/* Whether every variable d and r name is one of s's: a tensor of another
   session names variables s may not have, whose records would be read. */
static bool dim_of(const nx_shape_session *s, const nx_dim *d, int depth) {
  if (!d || depth > 64) return d == NULL;
  switch (d->kind) {
  case NX__D_VAR: return d->var > 0 && d->var < s->nvars;
  case NX__D_AFFINE: return dim_of(s, d->over, depth + 1) && dim_of(s, d->kernel, depth + 1);
  case NX__D_CONCAT:
    for (int i = 0; i < d->nparts; i++)
      if (!dim_of(s, d->parts[i], depth + 1)) return false;
    return true;
  default: return true;
  }
}
static bool row_of(const nx_shape_session *s, const nx_row *r) {
  if (!r || r->var < 0 || r->var >= s->nvars) return false;
  for (int i = 0; i < r->nbeg + r->ndims; i++)
    if (!dim_of(s, r->beg[i], 0)) return false;
  return true;
}
static bool tensor_of(const nx_shape_session *s, const nx_tensor *t) {
  for (int k = 0; k < 3; k++)
    if (!row_of(s, t->rows[k])) return false;
  return true;
}

int nx_shape_projections(nx_shape_session *s, const nx_tensor *t, const nx_shape_proj **out) {
  if (!s || !t || !out) return nx__fail(NX_EINVAL, FN ": NULL argument");
  bool mine = tensor_of(s, t);
  for (int i = 0; mine && t->env && i < t->env->nshapes; i++) {
    if (i < t->env->nshapes - 1) mine = tensor_of(s, t->env->args[i]);
    for (int k = 0; mine && t->env->shape_rows && k < 3; k++) mine = row_of(s, t->env->shape_rows[i][k]);
  }
  if (!mine) return nx__fail(NX_EINVAL, FN ": %s is not a tensor of this session", t->label ? t->label : "a tensor");
  if (s->tainted) return nx__fail(NX_EINVAL, FN ": the session is tainted by an earlier shape error: %s", s->taint);
  if (!t->env || !t->env->shape_rows) return nx__fail(NX_EINVAL, FN ": %s was not made by nx_tensor_einsum", t->label);
  if (s->rec) s->forced_proj = true; /* a trace refuses it once its function returns */
  nx_shape_proj *p = nx__shape_alloc(s, sizeof *p);
  if (!p) return nx__fail(NX_ENOMEM, FN ": out of memory");
  builder b = {.s = s, .t = t, .p = p};
  int rc = build(&b);
  const nx_tensor **ts = rc ? NULL : nx__shape_alloc(s, (size_t)(p->noperands + 1) * sizeof *ts);
  if (!rc && !ts) rc = NX_ENOMEM;
  for (int i = 0; ts && i < p->noperands; i++) ts[i] = t->env->args[i];
  if (ts) ts[p->noperands] = t, p->tensor = ts;
  if (!rc) rc = nx__shape_pad_merge(s, t, p);
  if (rc == NX_ENOMEM) return nx__fail(rc, FN ": out of memory");
  if (rc) return rc;
  *out = p;
  return 0;
}

int nx_proj_iter_count(const nx_shape_proj *p) { return p ? p->niters : nx__fail(NX_EINVAL, "nx_proj_iter_count: NULL"); }

int64_t nx_proj_iter_size(const nx_shape_proj *p, int i) {
  if (!p || i < 0 || i >= p->niters) return nx__fail(NX_EINVAL, "nx_proj_iter_size: no iterator %d", i), -1;
  return p->iter_size[i];
}

const char *nx_proj_iter_label(const nx_shape_proj *p, int i) {
  if (!p || i < 0 || i >= p->niters) return nx__fail(NX_EINVAL, "nx_proj_iter_label: no iterator %d", i), NULL;
  return p->iter_label[i];
}

int nx_proj_group_count(const nx_shape_proj *p) {
  return p ? p->ngroups : nx__fail(NX_EINVAL, "nx_proj_group_count: NULL");
}

int nx_proj_iter_group(const nx_shape_proj *p, int i) {
  if (!p || i < 0 || i >= p->niters) return nx__fail(NX_EINVAL, "nx_proj_iter_group: no iterator %d", i), -1;
  return p->iter_group[i];
}

int nx_proj_operand_count(const nx_shape_proj *p) {
  return p ? p->noperands : nx__fail(NX_EINVAL, "nx_proj_operand_count: NULL");
}

/* The shape `which` names: an operand, or the result (stored last). */
static int shape_of(const nx_shape_proj *p, int which) {
  if (!p || which < NX_PROJ_RESULT || which >= p->noperands) return -1;
  return which == NX_PROJ_RESULT ? p->noperands : which;
}

const nx_tensor *nx_proj_tensor(const nx_shape_proj *p, int which) {
  int sh = shape_of(p, which);
  return sh < 0 ? nx__fail(NX_EINVAL, "nx_proj_tensor: no shape %d", which), NULL : p->tensor[sh];
}

int nx_proj_rank(const nx_shape_proj *p, int which) {
  int sh = shape_of(p, which);
  return sh < 0 ? nx__fail(NX_EINVAL, "nx_proj_rank: no shape %d", which), -1 : p->rank[sh];
}

static const proj_axis *axis_of(const char *fn, const nx_shape_proj *p, int which, int axis) {
  int sh = shape_of(p, which);
  if (sh < 0 || axis < 0 || axis >= p->rank[sh])
    return nx__fail(NX_EINVAL, "%s: no axis %d of shape %d", fn, axis, which), NULL;
  return &p->axes[sh][axis];
}

int nx_proj_axis(const nx_shape_proj *p, int which, int axis, int64_t *size, nx_shape_index *index) {
  const proj_axis *a = axis_of("nx_proj_axis", p, which, axis);
  if (!a) return NX_EINVAL;
  if (size) *size = a->size;
  if (index) *index = a->index;
  return 0;
}

int nx_proj_padding(const nx_shape_proj *p, int which, int axis, int64_t *left, int64_t *right) {
  const proj_axis *a = axis_of("nx_proj_padding", p, which, axis);
  if (!a) return NX_EINVAL;
  if (left) *left = a->pad_left;
  if (right) *right = a->pad_right;
  return 0;
}
