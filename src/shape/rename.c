/* SPDX-License-Identifier: Apache-2.0 */
/* Renaming a set of variables to fresh ones, consistently: dims and rows
   are renamed under the solution (inside affine, convolution and
   concatenated dims), a fresh variable takes its original's flags and, as
   pending constraints, its original's bounds renamed; and constraints read
   from a session can be added again, renamed or not. */
#include <stdlib.h>
#include <string.h>

#include "tensor_internal.h"
#include "../base/alloc.h"

typedef struct {
  int from, to;
} pair;

struct nx_shape_renaming {
  int n;
  pair *p; /* by from, ascending */
};

static int cmp_pair(const void *a, const void *b) {
  int x = ((const pair *)a)->from, y = ((const pair *)b)->from;
  return (x > y) - (x < y);
}

int nx_shape_rename_var(const nx_shape_renaming *r, int id) {
  if (!r) return nx__fail(NX_EINVAL, "nx_shape_rename_var: the renaming is NULL"), 0;
  pair key = {id, 0};
  const pair *x = bsearch(&key, r->p, (size_t)r->n, sizeof *r->p, cmp_pair);
  return x ? x->to : id;
}

/* d (substituted) with the set's variables replaced; NULL on out of memory. */
static const nx_dim *rename_sub(nx_shape_session *s, const nx_shape_renaming *r, const nx_dim *d) {
  switch (d->kind) {
  case NX__D_VAR: {
    int w = nx_shape_rename_var(r, d->var);
    return w == d->var ? d : nx__shape_dim_var(s, w);
  }
  case NX__D_AFFINE: {
    const nx_dim *o = rename_sub(s, r, d->over), *k = d->kernel ? rename_sub(s, r, d->kernel) : NULL;
    if (!o || (d->kernel && !k)) return NULL;
    if (o == d->over && k == d->kernel) return d;
    nx_dim *x = nx__shape_alloc(s, sizeof *x);
    if (!x) return NULL;
    *x = *d;
    x->over = o;
    x->kernel = k;
    return x;
  }
  case NX__D_CONCAT: {
    const nx_dim **parts = nx__shape_alloc(s, (size_t)d->nparts * sizeof *parts);
    if (!parts) return NULL;
    bool same = true;
    for (int i = 0; i < d->nparts; i++) {
      if (!(parts[i] = rename_sub(s, r, d->parts[i]))) return NULL;
      same = same && parts[i] == d->parts[i];
    }
    if (same) return d;
    nx_dim *x = nx__shape_alloc(s, sizeof *x);
    if (!x) return NULL;
    *x = *d;
    x->parts = parts;
    return x;
  }
  }
  return d;
}

static const nx_dim *rename_dim(nx_shape_session *s, const nx_shape_renaming *r, const nx_dim *d) {
  return d ? rename_sub(s, r, nx__shape_dsub(s, d)) : NULL;
}

/* row under the solution with r's variables renamed (row itself when none
   is); NULL when memory runs out. */
static const nx_row *rename_row(nx_shape_session *s, const nx_shape_renaming *r, const nx_row *row) {
  if (!row) return NULL;
  const nx_row *x = nx__shape_rsub_full(s, row);
  int n = x->nbeg + x->ndims;
  const nx_dim **all = nx__shape_alloc(s, (size_t)(n ? n : 1) * sizeof *all);
  if (!all) return NULL;
  bool same = true;
  for (int i = 0; i < n; i++) {
    if (!(all[i] = rename_sub(s, r, x->beg[i]))) return NULL;
    same = same && all[i] == x->beg[i];
  }
  int var = x->var ? nx_shape_rename_var(r, x->var) : 0;
  if (same && var == x->var) return x;
  return nx__shape_row_new(s, all, x->nbeg, all + x->nbeg, x->ndims, var);
}

const nx_dim *nx_shape_rename_dim(nx_shape_session *s, const nx_shape_renaming *r, const nx_dim *d) {
  if (!s || !r || !d) return nx__fail(NX_EINVAL, "nx_shape_rename_dim: NULL argument"), NULL;
  const nx_dim *x = rename_dim(s, r, d);
  return x ? x : (nx__fail(NX_ENOMEM, "nx_shape_rename_dim: out of memory"), NULL);
}

const nx_row *nx_shape_rename_row(nx_shape_session *s, const nx_shape_renaming *r, const nx_row *row) {
  if (!s || !r || !row) return nx__fail(NX_EINVAL, "nx_shape_rename_row: NULL argument"), NULL;
  const nx_row *x = rename_row(s, r, row);
  return x ? x : (nx__fail(NX_ENOMEM, "nx_shape_rename_row: out of memory"), NULL);
}

/* ---- Adding constraints ---- */

/* c as an internal constraint, its dims and rows renamed by r (NULL: as
   they are); NX_EINVAL for a malformed one, NX_ENOMEM. */
static int make(nx_shape_session *s, const nx_shape_renaming *r, const nx_shape_constraint *c, nx__cons *out) {
  const nx_dim *a = r ? rename_dim(s, r, c->a) : c->a, *b = r ? rename_dim(s, r, c->b) : c->b;
  const nx_row *ra = r ? rename_row(s, r, c->ra) : c->ra, *rb = r ? rename_row(s, r, c->rb) : c->rb;
  if ((c->a && !a) || (c->b && !b) || (c->ra && !ra) || (c->rb && !rb)) return NX_ENOMEM;
  *out = (nx__cons){.kind = (unsigned char)c->kind, .is_param = c->is_param};
  switch (c->kind) {
  case NX_SHAPE_DIM_EQ:
  case NX_SHAPE_DIM_INEQ:
    out->d1 = a, out->d2 = b;
    return a && b ? 0 : NX_EINVAL;
  case NX_SHAPE_AT_LEAST:
    out->d1 = a, out->n = c->n;
    return a ? 0 : NX_EINVAL;
  case NX_SHAPE_TERMINAL_DIM:
    out->d1 = a;
    return a ? 0 : NX_EINVAL;
  case NX_SHAPE_ROW_EQ:
  case NX_SHAPE_ROW_INEQ:
    out->r1 = ra, out->r2 = rb;
    return ra && rb ? 0 : NX_EINVAL;
  case NX_SHAPE_TERMINAL_ROW:
  case NX_SHAPE_SHAPE_ROW:
    if (!ra || (c->tensor && (c->tensor_kind < NX_AXIS_BATCH || c->tensor_kind > NX_AXIS_OUTPUT))) return NX_EINVAL;
    out->r1 = ra, out->t = c->tensor, out->nrows = c->tensor ? (int)c->tensor_kind : 0;
    return 0;
  case NX_SHAPE_TOTAL:
  case NX_SHAPE_TOTAL_DIM:
  case NX_SHAPE_EXACT: {
    if (!c->rows || c->nrows < 1 || (c->kind == NX_SHAPE_TOTAL && c->n < 0) || (c->kind == NX_SHAPE_TOTAL_DIM && !a) ||
        (c->kind == NX_SHAPE_EXACT && (c->ndims < 0 || (c->ndims && !c->dims))))
      return NX_EINVAL;
    const nx_row **rows = nx__shape_alloc(s, (size_t)c->nrows * sizeof *rows);
    if (!rows) return NX_ENOMEM;
    for (int i = 0; i < c->nrows; i++) {
      if (!c->rows[i]) return NX_EINVAL;
      if (!(rows[i] = r ? rename_row(s, r, c->rows[i]) : c->rows[i])) return NX_ENOMEM;
    }
    out->rows = rows, out->nrows = c->nrows;
    if (c->kind == NX_SHAPE_TOTAL) {
      out->n = c->n;
      return 0;
    }
    if (c->kind == NX_SHAPE_TOTAL_DIM) {
      out->d2 = a;
      return 0;
    }
    const nx_dim **dims = nx__shape_alloc(s, (size_t)(c->ndims ? c->ndims : 1) * sizeof *dims);
    if (!dims) return NX_ENOMEM;
    for (int i = 0; i < c->ndims; i++) {
      if (!c->dims[i]) return NX_EINVAL;
      if (!(dims[i] = r ? rename_dim(s, r, c->dims[i]) : c->dims[i])) return NX_ENOMEM;
    }
    out->ex = nx__shape_row_new(s, NULL, 0, dims, c->ndims, 0);
    return out->ex ? 0 : NX_ENOMEM;
  }
  }
  return NX_EINVAL;
}

/* Adds c (renamed by r unless NULL) to s's pending list with origin o, the
   refusal named for fn. */
static int add(nx_shape_session *s, const char *fn, const nx_shape_renaming *r, const nx_shape_constraint *c,
               const nx_shape_origin *o) {
  nx__cons x;
  int rc = make(s, r, c, &x);
  if (!rc && o && !(x.o = nx__shape_origin_make(s, o))) rc = NX_ENOMEM;
  if (!rc && x.kind == NX__C_TERM_ROW && x.is_param && x.r1->var) NX__VAR(s, x.r1->var)->is_param = true;
  if (!rc) rc = nx__shape_push(s, &s->pending, &x);
  if (rc == NX_EINVAL) return nx__fail(rc, "%s: a constraint of kind %d with a NULL or malformed operand", fn, (int)c->kind);
  return rc ? nx__fail(rc, "%s: out of memory", fn) : 0;
}

int nx_shape_add_constraint(nx_shape_session *s, const nx_shape_constraint *c, const nx_shape_origin *o) {
  if (!s || !c) return nx__fail(NX_EINVAL, "nx_shape_add_constraint: NULL argument");
  return add(s, "nx_shape_add_constraint", NULL, c, o);
}

int nx_shape_add_renamed(nx_shape_session *s, const nx_shape_renaming *r, const nx_shape_constraint *c,
                         const nx_shape_origin *o) {
  if (!s || !r || !c) return nx__fail(NX_EINVAL, "nx_shape_add_renamed: NULL argument");
  return add(s, "nx_shape_add_renamed", r, c, o);
}

/* ---- Making a renaming ---- */

static int push(nx_shape_session *s, nx__cons c) { return nx__shape_push(s, &s->pending, &c); }

/* Variable v as its kind's dim or row, renamed by r (NULL: as it is); NULL
   on out of memory. */
static const void *self_of(nx_shape_session *s, const nx_shape_renaming *r, int v, bool is_row) {
  if (is_row) {
    const nx_row *x = nx__shape_row_of_var(s, v);
    return x && r ? rename_row(s, r, x) : x;
  }
  const nx_dim *x = nx__shape_dim_var(s, v);
  return x && r ? rename_dim(s, r, x) : x;
}

/* Pushes lo <= hi (or lo = hi) between dims or rows. */
static int push_rel(nx_shape_session *s, bool is_row, bool eq, const void *lo, const void *hi, const nx__origin *o) {
  if (!lo || !hi) return NX_ENOMEM;
  nx__cons c = {.kind = is_row ? (eq ? NX__C_ROW_EQ : NX__C_ROW_INEQ) : (eq ? NX__C_DIM_EQ : NX__C_DIM_INEQ), .o = o};
  if (is_row) c.r1 = lo, c.r2 = hi;
  else c.d1 = lo, c.d2 = hi;
  return push(s, c);
}

/* The bounds of v, renamed, on its fresh variable w, as pending
   constraints: a solution as an equation; else the ground lower bound and
   at-least size (dims), the lower bound rows (rows), and the neighbours
   (those below that are in the set add theirs as their upper ones). */
static int copy_bounds(nx_shape_session *s, const nx_shape_renaming *r, int v, int w, const nx__origin *o) {
  const nx__var *e = NX__VARR(s, v);
  bool row = e->is_row;
  const void *me = self_of(s, NULL, w, row);
  if (!me) return NX_ENOMEM;
  if (row ? (const void *)NX__VAL(s, v).r : (const void *)NX__VAL(s, v).d) /* solved: an equation */
    return push_rel(s, row, true, me, row ? (const void *)rename_row(s, r, NX__VAL(s, v).r) : rename_dim(s, r, NX__VAL(s, v).d),
                    o);
  int rc = 0;
  if (!row && e->glb) rc = push_rel(s, false, false, rename_dim(s, r, e->glb), me, o);
  if (!rc && !row && e->at_least) rc = push(s, (nx__cons){.kind = NX__C_AT_LEAST, .d1 = me, .n = e->at_least, .o = o});
  for (int i = row ? e->lower : 0; i && !rc; i = s->lbs[i].next_lower)
    if (s->lbs[i].alive) rc = push_rel(s, true, false, rename_row(s, r, s->lbs[i].row), me, o);
  NX__EACH(s, e->opnd, i) {
    if (!rc) rc = push_rel(s, row, false, me, self_of(s, r, s->lk[i].x, row), o);
  }
  NX__EACH(s, e->res, i) {
    int u = s->lk[i].x;
    if (!rc && nx_shape_rename_var(r, u) == u) rc = push_rel(s, row, false, self_of(s, NULL, u, row), me, o);
  }
  return rc;
}

void nx_shape_rename_free(nx_shape_renaming *r) {
  if (!r) return;
  nx__free(r->p);
  nx__free(r);
}

/* Fresh variables for the distinct ids, in the order given; r->p sorted. */
static int make_fresh(nx_shape_session *s, nx_shape_renaming *r, const int *ids, int n) {
  for (int i = 0; i < n; i++) {
    bool seen = false;
    for (int k = 0; k < r->n && !seen; k++) seen = r->p[k].from == ids[i];
    if (seen) continue;
    const nx__var *e = NX__VARR(s, ids[i]);
    int w = nx__shape_new_var(s, e->is_row, e->name);
    if (w < 0) return NX_ENOMEM;
    e = NX__VARR(s, ids[i]);
    nx__var *f = NX__VAR(s, w);
    f->is_param = e->is_param, f->safe_to_guess = e->safe_to_guess, f->in_pointwise = e->in_pointwise;
    f->in_spec = e->in_spec, f->hidden_param = e->hidden_param, f->no_guess = e->no_guess;
    r->p[r->n++] = (pair){ids[i], w};
  }
  if (r->n) qsort(r->p, (size_t)r->n, sizeof *r->p, cmp_pair); /* r->p is NULL for none */
  return 0;
}

int nx_shape_rename_new(nx_shape_session *s, const int *ids, int n, nx_shape_renaming **out) {
  if (!s || !out || n < 0 || (n && !ids)) return nx__fail(NX_EINVAL, "nx_shape_rename_new: NULL argument or %d ids", n);
  for (int i = 0; i < n; i++)
    if (ids[i] < 1 || ids[i] >= s->nvars)
      return nx__fail(NX_EINVAL, "nx_shape_rename_new: %d is not a variable of the session", ids[i]);
  nx_shape_renaming *r = nx__calloc(1, sizeof *r);
  if (r && n) r->p = nx__malloc((size_t)n * sizeof *r->p);
  int rc = !r || (n && !r->p) ? NX_ENOMEM : make_fresh(s, r, ids, n);
  const nx__origin *o = rc ? NULL
                           : nx__shape_origin_make(s, &(nx_shape_origin){"rename", "renamed", NX_AXIS_OUTPUT,
                                                                         "original", NX_AXIS_OUTPUT});
  if (!rc && !o) rc = NX_ENOMEM;
  for (int i = 0; i < (r ? r->n : 0) && !rc; i++) rc = copy_bounds(s, r, r->p[i].from, r->p[i].to, o);
  if (rc) {
    nx_shape_rename_free(r);
    return nx__fail(NX_ENOMEM, "nx_shape_rename_new: out of memory");
  }
  *out = r;
  return 0;
}
