/* SPDX-License-Identifier: Apache-2.0 */
/* The public face of the solver: making dims and rows, adding constraints,
   solving by stage, reading solutions, and closing a session. */
#include <stdio.h>
#include <string.h>

#include "tensor_internal.h"

#define NOMEM(fn) nx__fail(NX_ENOMEM, "%s: out of memory", fn)

/* The NULL a function that makes a value returns when memory runs out. */
static void *nomem_null(const char *fn) {
  NOMEM(fn);
  return NULL;
}

const nx_dim *nx_dim_solved(nx_shape_session *s, int64_t d, const char *basis) {
  if (!s || d < 0) {
    nx__fail(NX_EINVAL, "nx_dim_solved: size %lld is negative", (long long)d);
    return NULL;
  }
  const nx_dim *x = nx__shape_dim_solved(s, d, basis);
  return x ? x : nomem_null("nx_dim_solved");
}

/* NULL, with a message naming fn, for a NULL argument. */
#define NULL_ARG(fn, what) (nx__fail(NX_EINVAL, "%s: %s is NULL", fn, what), NULL)

const nx_dim *nx_dim_top(nx_shape_session *s) { return s ? s->top : NULL_ARG("nx_dim_top", "the session"); }

const nx_dim *nx_dim_var(nx_shape_session *s, const char *name) {
  if (!s) return NULL_ARG("nx_dim_var", "the session");
  int v = nx__shape_new_var(s, false, name);
  const nx_dim *x = v < 0 ? NULL : nx__shape_dim_var(s, v);
  return x ? x : nomem_null("nx_dim_var");
}

static const nx_dim *affine(nx_shape_session *s, const char *fn, int64_t stride, const nx_dim *over, int64_t offset,
                           int64_t dilation, const nx_dim *kernel, bool use_padding) {
  if (!s || !over || stride < 1 || offset < 0 || (kernel && dilation < 1)) {
    nx__fail(NX_EINVAL, "%s: stride %lld, offset %lld, dilation %lld: a stride or dilation below 1, a negative offset "
                        "or a NULL dim", fn, (long long)stride, (long long)offset, (long long)dilation);
    return NULL;
  }
  nx_dim *x = nx__shape_alloc(s, sizeof *x);
  if (!x) return nomem_null(fn);
  x->kind = NX__D_AFFINE;
  x->stride = stride;
  x->over = over;
  x->offset = offset;
  x->dilation = dilation;
  x->kernel = kernel;
  x->use_padding = use_padding;
  return x;
}

const nx_dim *nx_dim_conv(nx_shape_session *s, int64_t stride, const nx_dim *over, int64_t offset, int64_t dilation,
                          const nx_dim *kernel, bool use_padding) {
  return affine(s, "nx_dim_conv", stride, over, offset, dilation, kernel, use_padding);
}

const nx_dim *nx_dim_affine(nx_shape_session *s, int64_t stride, const nx_dim *over, int64_t offset) {
  if (!s || !over) return NULL_ARG("nx_dim_affine", s ? "over" : "the session");
  return affine(s, "nx_dim_affine", stride, over, offset, 1, NULL, true);
}

const nx_dim *nx_dim_concat(nx_shape_session *s, const nx_dim *const *parts, int n) {
  if (!s || !parts || n < 1) {
    nx__fail(NX_EINVAL, "nx_dim_concat: %d parts: needs at least one", n);
    return NULL;
  }
  nx_dim *x = nx__shape_alloc(s, sizeof *x);
  const nx_dim **p = nx__shape_alloc(s, (size_t)n * sizeof *p);
  if (!x || !p) return nomem_null("nx_dim_concat");
  for (int i = 0; i < n; i++)
    if (!(p[i] = parts[i])) {
      nx__fail(NX_EINVAL, "nx_dim_concat: part %d is NULL", i);
      return NULL;
    }
  x->kind = NX__D_CONCAT;
  x->parts = p;
  x->nparts = n;
  return x;
}

int nx_row_var_new(nx_shape_session *s, const char *name) {
  if (!s) return nx__fail(NX_EINVAL, "nx_row_var_new: NULL session");
  int v = nx__shape_new_var(s, true, name);
  return v < 0 ? NOMEM("nx_row_var_new") : v;
}

const nx_row *nx_row_make(nx_shape_session *s, const nx_dim *const *beg, int nbeg, const nx_dim *const *dims,
                          int ndims, int var) {
  if (!s || nbeg < 0 || ndims < 0 || (nbeg && !beg) || (ndims && !dims) || var < 0 || var >= s->nvars ||
      (var && !NX__VAR(s, var)->is_row)) {
    nx__fail(NX_EINVAL, "nx_row_make: %d beg dims, %d dims, row variable %d: a negative count, a NULL list or not a "
                        "row variable", nbeg, ndims, var);
    return NULL;
  }
  for (int i = 0; i < nbeg + ndims; i++)
    if (!(i < nbeg ? beg[i] : dims[i - nbeg])) {
      nx__fail(NX_EINVAL, "nx_row_make: dim %d is NULL", i);
      return NULL;
    }
  const nx_row *r = nx__shape_row_new(s, beg, nbeg, dims, ndims, var);
  return r ? r : nomem_null("nx_row_make");
}

/* A NULL row reads as closed and empty, with a message naming the function. */
static bool no_row(const nx_row *r, const char *fn) {
  if (!r) nx__fail(NX_EINVAL, "%s: the row is NULL", fn);
  return !r;
}
int nx_row_beg_count(const nx_row *r) { return no_row(r, "nx_row_beg_count") ? 0 : r->nbeg; }
int nx_row_dims_count(const nx_row *r) { return no_row(r, "nx_row_dims_count") ? 0 : r->ndims; }
/* The i-th of n dims, or NULL with a message naming fn for an index out of range. */
static const nx_dim *nth(const char *fn, const nx_dim *const *d, int n, int i) {
  if (i >= 0 && i < n) return d[i];
  return nx__fail(NX_EINVAL, "%s: index %d is out of range for a row of %d such dims", fn, i, n), NULL;
}
const nx_dim *nx_row_beg_dim(const nx_row *r, int i) {
  return no_row(r, "nx_row_beg_dim") ? NULL : nth("nx_row_beg_dim", r->beg, r->nbeg, i);
}
const nx_dim *nx_row_dim(const nx_row *r, int i) { return no_row(r, "nx_row_dim") ? NULL : nth("nx_row_dim", r->dims, r->ndims, i); }
int nx_row_var(const nx_row *r) { return no_row(r, "nx_row_var") ? 0 : r->var; }

/* ok false: refused, `what` saying why (the session aside). */
static int add(nx_shape_session *s, const char *fn, const nx__cons *c, bool ok, const char *what) {
  if (!s) return nx__fail(NX_EINVAL, "%s: the session is NULL", fn);
  if (!ok) return nx__fail(NX_EINVAL, "%s: %s", fn, what);
  return nx__shape_push(s, &s->pending, c) ? NOMEM(fn) : 0;
}

int nx_shape_add_dim_eq(nx_shape_session *s, const nx_dim *a, const nx_dim *b, const nx_shape_origin *o) {
  nx__cons c = {.kind = NX__C_DIM_EQ, .d1 = a, .d2 = b, .o = s ? nx__shape_origin_make(s, o) : NULL};
  return add(s, "nx_shape_add_dim_eq", &c, a && b, "a or b is NULL");
}
int nx_shape_add_dim_ineq(nx_shape_session *s, const nx_dim *res, const nx_dim *opnd, const nx_shape_origin *o) {
  nx__cons c = {.kind = NX__C_DIM_INEQ, .d1 = res, .d2 = opnd, .o = s ? nx__shape_origin_make(s, o) : NULL};
  return add(s, "nx_shape_add_dim_ineq", &c, res && opnd, "res or opnd is NULL");
}
int nx_shape_add_row_eq(nx_shape_session *s, const nx_row *a, const nx_row *b, const nx_shape_origin *o) {
  nx__cons c = {.kind = NX__C_ROW_EQ, .r1 = a, .r2 = b, .o = s ? nx__shape_origin_make(s, o) : NULL};
  return add(s, "nx_shape_add_row_eq", &c, a && b, "a or b is NULL");
}
int nx_shape_add_row_ineq(nx_shape_session *s, const nx_row *res, const nx_row *opnd, const nx_shape_origin *o) {
  nx__cons c = {.kind = NX__C_ROW_INEQ, .r1 = res, .r2 = opnd, .o = s ? nx__shape_origin_make(s, o) : NULL};
  return add(s, "nx_shape_add_row_ineq", &c, res && opnd, "res or opnd is NULL");
}
int nx_shape_add_at_least(nx_shape_session *s, const nx_dim *d, int64_t n, const nx_shape_origin *o) {
  nx__cons c = {.kind = NX__C_AT_LEAST, .d1 = d, .n = n, .o = s ? nx__shape_origin_make(s, o) : NULL};
  return add(s, "nx_shape_add_at_least", &c, d != NULL, "the dim is NULL");
}

static const nx_row **copy_rows(nx_shape_session *s, const nx_row *const *rows, int n) {
  const nx_row **p = nx__shape_alloc(s, (size_t)(n ? n : 1) * sizeof *p);
  if (p)
    for (int i = 0; i < n; i++) p[i] = rows[i];
  return p;
}

static bool rows_ok(const nx_row *const *rows, int n) {
  if (!rows || n < 1) return false;
  for (int i = 0; i < n; i++)
    if (!rows[i]) return false;
  return true;
}

int nx_shape_add_total_elems(nx_shape_session *s, const nx_row *const *rows, int n, int64_t total,
                             const nx_shape_origin *o) {
  bool ok = s && rows_ok(rows, n) && total >= 0;
  nx__cons c = {.kind = NX__C_TOTAL, .nrows = n, .n = total};
  if (ok) {
    c.rows = copy_rows(s, rows, n);
    c.o = nx__shape_origin_make(s, o);
  }
  return add(s, "nx_shape_add_total_elems", &c, ok, "the rows (fewer than 1, or one NULL) or the total (negative) are none");
}

int nx_shape_add_total_dim(nx_shape_session *s, const nx_row *const *rows, int n, const nx_dim *d,
                           const nx_shape_origin *o) {
  bool ok = s && rows_ok(rows, n) && d;
  nx__cons c = {.kind = NX__C_TOTAL_DIM, .nrows = n, .d2 = d};
  if (ok) {
    c.rows = copy_rows(s, rows, n);
    c.o = nx__shape_origin_make(s, o);
  }
  return add(s, "nx_shape_add_total_dim", &c, ok, "the rows (fewer than 1, or one NULL) or the dim (NULL) are none");
}

int nx_shape_add_exact(nx_shape_session *s, const nx_row *const *rows, int n, const nx_dim *const *dims, int ndims,
                       const nx_shape_origin *o) {
  bool ok = s && rows_ok(rows, n) && ndims >= 0 && (dims || !ndims);
  for (int i = 0; ok && i < ndims; i++) ok = dims[i] != NULL; /* a NULL dim is refused, as a NULL row is */
  nx__cons c = {.kind = NX__C_EXACT, .nrows = n};
  if (ok) {
    c.rows = copy_rows(s, rows, n);
    c.ex = nx__shape_row_new(s, NULL, 0, dims, ndims, 0);
    c.o = nx__shape_origin_make(s, o);
  }
  return add(s, "nx_shape_add_exact", &c, ok, "the rows (fewer than 1, or one NULL) or the dims (a negative count, or one NULL) are none");
}

int nx_shape_add_terminal_dim(nx_shape_session *s, bool is_param, const nx_dim *d, const nx_shape_origin *o) {
  nx__cons c = {.kind = NX__C_TERM_DIM, .d1 = d, .is_param = is_param, .o = s ? nx__shape_origin_make(s, o) : NULL};
  return add(s, "nx_shape_add_terminal_dim", &c, d != NULL, "the dim is NULL");
}
int nx_shape_add_terminal_row(nx_shape_session *s, bool is_param, const nx_row *r, const nx_shape_origin *o) {
  nx__cons c = {.kind = NX__C_TERM_ROW, .r1 = r, .is_param = is_param, .o = s ? nx__shape_origin_make(s, o) : NULL};
  if (s && r && is_param && r->var) NX__VAR(s, r->var)->is_param = true;
  return add(s, "nx_shape_add_terminal_row", &c, r != NULL, "the row is NULL");
}
int nx_shape_add_shape_row(nx_shape_session *s, const nx_row *r, const nx_shape_origin *o) {
  nx__cons c = {.kind = NX__C_SHAPE_ROW, .r1 = r, .o = s ? nx__shape_origin_make(s, o) : NULL};
  return add(s, "nx_shape_add_shape_row", &c, r != NULL, "the row is NULL");
}

/* Runs one stage to its fixed point: the queue and what was deferred, then
   the marks that act at this stage (terminal marks from stage 3, interior
   rows from stage 6; before that a mark decides nothing), again while
   bindings happen. The first pass at a stage visits every such mark; later
   passes only those a change woke, in the same order: the others would
   decide as they did. */
static int run_stage(nx_shape_session *s, int stage) {
  int rc = nx__shape_run(s, stage);
  if (rc || stage == 1) return rc;
  if (stage == 2 && ((rc = nx__shape_stage2_pairs(s)) || (rc = nx__shape_run(s, stage)))) return rc;
  unsigned active = (stage >= 3 ? 1u : 0u) | (stage >= 6 ? 2u : 0u);
  if (!active) return 0;
  nx__hold *m = &s->marks;
  m->active = active;
  m->armed = true;
  for (bool full = true;; full = false) {
    int64_t before = s->nbinds;
    rc = nx__shape_hold_round(s, m, full, stage);
    if (!rc) rc = nx__shape_run(s, stage);
    if (rc || s->nbinds == before || !m->next.n) break;
  }
  m->armed = false;
  m->active = 0;
  m->next.n = 0;
  m->round += 2;
  return rc;
}

static int taint(nx_shape_session *s, const char *fn, int rc) {
  if (rc == NX_ENOMEM) return NOMEM(fn);
  s->tainted = true;
  s->shape_errors++;
  snprintf(s->taint, sizeof s->taint, "%.500s", s->err);
  return nx__fail(rc, "%s: %s", fn, s->err);
}

int nx__shape_solve_checked(nx_shape_session *s, const char *fn, int stage) {
  if (s->tainted) return nx__fail(NX_EINVAL, "%s: the session is tainted by an earlier shape error: %s", fn, s->taint);
  if (stage > 1) s->closings++;
  int rc = run_stage(s, stage);
  if (!rc) rc = nx__shape_subst_error(s, NULL); /* met outside a step, e.g. while printing */
  return rc ? taint(s, fn, rc) : 0;
}

int nx_shape_solve(nx_shape_session *s, int stage) {
  if (!s || stage < 1 || stage > 7) return nx__fail(NX_EINVAL, "nx_shape_solve: stage %d is not 1..7", stage);
  return nx__shape_solve_checked(s, "nx_shape_solve", stage);
}

int nx_shape_finish(nx_shape_session *s) {
  if (!s) return nx__fail(NX_EINVAL, "nx_shape_finish: NULL session");
  int rc = nx__shape_solve_checked(s, "nx_shape_finish", 1);
  if (!rc && nx__shape_add_shape_rows(s)) return NOMEM("nx_shape_finish");
  for (int stage = 2; stage <= 7 && !rc; stage++) {
    if (stage == 6 && nx__shape_guess_discardable(s)) return NOMEM("nx_shape_finish");
    rc = nx__shape_solve_checked(s, "nx_shape_finish", stage);
  }
  if (rc) return rc;
  if (s->deferred.nlive) {
    nx__cons first = nx__shape_hold_cons(s, &s->deferred, nx__shape_hold_first(&s->deferred));
    const nx__cons *c = &first;
    nx__shape_error(s, c->o, "closing left %d constraint(s) unsolved (the first of kind %d)", s->deferred.nlive, c->kind);
    return taint(s, "nx_shape_finish", NX_EINVAL);
  }
  return 0;
}

int nx_shape_deferred_count(const nx_shape_session *s) {
  return s ? s->deferred.nlive : nx__fail(NX_EINVAL, "nx_shape_deferred_count: the session is NULL");
}

int nx_shape_dim_value(nx_shape_session *s, const nx_dim *d, int64_t *size, const char **basis) {
  if (!s || !d) return nx__fail(NX_EINVAL, "nx_shape_dim_value: NULL argument");
  const nx_dim *x = nx__shape_dsub(s, d);
  if (s->subst_failed && !s->tainted) {
    nx__shape_subst_error(s, NULL);
    return taint(s, "nx_shape_dim_value", NX_EINVAL);
  }
  if (x->kind != NX__D_SOLVED) return NX_NONE;
  if (size) *size = x->d;
  if (basis) *basis = x->basis;
  return 0;
}

const nx_row *nx_shape_row_subst(nx_shape_session *s, const nx_row *r) {
  if (!s || !r) return NULL_ARG("nx_shape_row_subst", s ? "the row" : "the session");
  return nx__shape_rsub_full(s, r);
}

int nx_row_to_string(nx_shape_session *s, const nx_row *r, char *buf, size_t cap) {
  if (!s || !r || (!buf && cap)) return nx__fail(NX_EINVAL, "nx_row_to_string: NULL argument");
  int n = nx__shape_row_print(s, nx__shape_rsub_full(s, r), buf, cap);
  if ((size_t)n >= cap) return nx__fail(NX_EINVAL, "nx_row_to_string: %d characters do not fit in %zu", n, cap);
  return n;
}
