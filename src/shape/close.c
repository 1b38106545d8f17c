/* SPDX-License-Identifier: Apache-2.0 */
/* Closing: the marks (terminal dims and rows of leaves, interior rows) and
   the rows constraints (total elements, exact rows), stage by stage, and the
   stage-2 merge of unique adjacency pairs. */
#include <string.h>

#include "internal.h"

const nx_row *nx__row_glb(nx_shape_session *s, int w);

#define FORGOT "You forgot to specify the hidden dimension(s) "

static const nx_row *empty_row(nx_shape_session *s) { return s->empty; }

static bool safe_to_guess(const nx__var *e) { return e->safe_to_guess || (e->in_pointwise && !e->in_spec); }

/* A leaf's dim: from stage 4 it takes its lower bound; at stage 5 one with
   none is guessed 1 (the broadcast top), except in a parameter. */
static int term_dim(nx_shape_session *s, const nx_dim *d0, bool is_param, const nx__origin *o, int stage) {
  const nx_dim *d = nx__dsub(s, d0);
  if (d->kind != NX__D_VAR) return 0;
  nx__var *e = NX__VAR(s, d->var);
  if (stage < 4) return NX__KEEP;
  if (e->glb) return nx__unify_dim(s, d, e->glb, nx__origin_join(s, e->glb_o, o));
  if (stage < 5) return NX__KEEP;
  if (!e->at_least) {
    if (is_param || e->is_param) {
      char name[64];
      nx__dim_print(s, d, name, sizeof name);
      return nx__error(s, o, FORGOT "1 (%s)", name);
    }
    return nx__unify_dim(s, d, s->top, o);
  }
  return stage >= 6 ? 0 : NX__KEEP; /* an interior mark closes it at stage 7 */
}

static int term_row(nx_shape_session *s, const nx__cons *c, int stage) {
  const nx_row *r = nx__rsub(s, c->r1);
  int rc, keep = 0;
  for (int i = 0; i < r->nbeg + r->ndims; i++) {
    rc = term_dim(s, r->beg[i], c->is_param, c->o, stage);
    if (rc < 0) return rc;
    keep |= rc == NX__KEEP;
  }
  if (!r->var) return keep ? NX__KEEP : 0;
  if (stage < 3) return NX__KEEP;
  nx__var *e = NX__VAR(s, r->var);
  const nx_row *g = nx__row_glb(s, r->var);
  if (g) {
    rc = nx__bind_row(s, r->var, g, c->o);
    return rc ? rc : NX__KEEP;
  }
  if (stage < 4) return NX__KEEP;
  if ((c->is_param || e->is_param) && !safe_to_guess(e)) {
    if (!e->hidden_param) return nx__error(s, c->o, FORGOT "4");
    /* A parameter's unknown row has one hidden axis, which must be inferred. */
    int v = nx__shape_new_var(s, false, NULL);
    if (v < 0) return v;
    NX__VAR(s, v)->is_param = true;
    const nx_dim *h = nx__dim_var(s, v);
    rc = nx__bind_row(s, r->var, nx__row_new(s, NULL, 0, &h, 1, 0), c->o);
    return rc ? rc : NX__KEEP;
  }
  rc = nx__bind_row(s, r->var, empty_row(s), c->o);
  return rc ? rc : NX__KEEP;
}

/* An interior mark's origin, made on first use (see nx__closing_origin). */
typedef struct {
  const nx__cons *c;
  const nx__origin *o;
} mark_o;

static const nx__origin *need_o(nx_shape_session *s, mark_o *m) {
  if (!m->o && m->c->t) m->o = nx__closing_origin(s, m->c);
  return m->o;
}
#define NEED_O(s, m) \
  do { \
    if (!need_o(s, m) && (m)->c->t) return NX_ENOMEM; \
  } while (0)

/* An interior dim: to its lower bound from stage 6; at stage 7 to n for At
   least n, else the broadcast top; a parameter's must have been inferred. */
static int shape_dim(nx_shape_session *s, const nx_dim *d0, mark_o *m, int stage) {
  const nx_dim *d = nx__dsub(s, d0);
  if (d->kind == NX__D_AFFINE) {
    int rc = shape_dim(s, d->over, m, stage);
    if (rc < 0 || !d->kernel) return rc;
    int rk = shape_dim(s, d->kernel, m, stage);
    return rk < 0 ? rk : (rc | rk);
  }
  if (d->kind == NX__D_CONCAT) {
    int keep = 0;
    for (int i = 0; i < d->nparts; i++) {
      int rc = shape_dim(s, d->parts[i], m, stage);
      if (rc < 0) return rc;
      keep |= rc;
    }
    return keep;
  }
  if (d->kind != NX__D_VAR) return 0;
  nx__var *e = NX__VAR(s, d->var);
  if (stage == 7 && e->is_param) {
    char name[64];
    nx__dim_print(s, d, name, sizeof name);
    NEED_O(s, m);
    return nx__error(s, m->o, FORGOT "5 (%s)", name);
  }
  if (e->glb && !(e->at_least == 1 && stage < 7)) {
    NEED_O(s, m);
    if (e->at_least == 1) return nx__unify_dim(s, d, s->top, m->o);
    return nx__unify_dim(s, d, e->glb, nx__origin_join(s, e->glb_o, m->o));
  }
  if (stage < 7) return NX__KEEP;
  NEED_O(s, m);
  if (e->at_least) return nx__unify_dim(s, d, nx__dim_solved(s, e->at_least, NX_BASIS_DEFAULT), m->o);
  return nx__unify_dim(s, d, s->top, m->o);
}

static int shape_row(nx_shape_session *s, const nx__cons *c, int stage) {
  if (stage < 6) return NX__KEEP;
  const nx_row *r = nx__rsub(s, c->r1);
  mark_o m = {c, c->t ? NULL : c->o};
  int keep = 0, rc;
  if (r->var) {
    const nx_row *g = nx__row_glb(s, r->var);
    if (g || stage == 7) NEED_O(s, &m);
    if (g) rc = nx__bind_row(s, r->var, g, m.o);
    else if (stage == 7) rc = nx__bind_row(s, r->var, empty_row(s), m.o);
    else rc = 0;
    if (rc) return rc;
    return NX__KEEP;
  }
  for (int i = 0; i < r->nbeg + r->ndims; i++) {
    rc = shape_dim(s, r->beg[i], &m, stage);
    if (rc < 0) return rc;
    keep |= rc;
  }
  return keep ? NX__KEEP : 0;
}

int nx__close_mark(nx_shape_session *s, const nx__cons *c, int stage) {
  switch (c->kind) {
  case NX__C_TERM_DIM: return term_dim(s, c->d1, c->is_param, c->o, stage);
  case NX__C_TERM_ROW: return term_row(s, c, stage);
  default: return shape_row(s, c, stage);
  }
}

/* Total elements and exact rows: the product of the known dims is divided
   out; one unknown dim takes the quotient, and from stage 3 a single row
   variable with no unknown dim takes it as one axis. */
int nx__solve_rows_constr(nx_shape_session *s, const nx__cons *c, int stage) {
  if (c->kind == NX__C_EXACT) {
    const nx_row *ex = c->ex;
    if (!ex) return NX_ENOMEM;
    if (c->nrows == 1) {
      nx__cons e = {.kind = NX__C_ROW_EQ, .r1 = c->rows[0], .r2 = ex, .o = c->o};
      return nx__solve_row_eq(s, &e, stage);
    }
    int n = 0, open = 0;
    for (int i = 0; i < c->nrows; i++) {
      const nx_row *r = nx__rsub(s, c->rows[i]);
      n += r->nbeg + r->ndims;
      open += r->var != 0;
    }
    if (open) return NX__DEFER;
    if (n != ex->ndims) return nx__error(s, c->o, "Mismatching number of axes (%d vs %d)", n, ex->ndims);
    int k = 0, rc = 0;
    for (int i = 0; i < c->nrows && !rc; i++) {
      const nx_row *r = nx__rsub(s, c->rows[i]);
      for (int j = 0; j < r->nbeg + r->ndims && !rc; j++) {
        nx__cons e = {.kind = NX__C_DIM_EQ, .d1 = r->beg[j], .d2 = ex->dims[k++], .o = c->o};
        rc = nx__push(s, &s->queue, &e);
      }
    }
    return rc;
  }
  int64_t prod = 1;
  int nvars = 0, nrowvars = 0, rowvar = 0;
  const nx_dim *var = NULL;
  for (int i = 0; i < c->nrows; i++) {
    const nx_row *r = nx__rsub(s, c->rows[i]);
    if (r->var) nrowvars++, rowvar = r->var;
    for (int j = 0; j < r->nbeg + r->ndims; j++) {
      const nx_dim *d = nx__dsub(s, r->beg[j]);
      if (d->kind == NX__D_SOLVED) {
        if (d->d != 0 && prod > INT64_MAX / d->d) prod = INT64_MAX;
        else prod *= d->d;
      } else nvars++, var = d;
    }
  }
  if (prod == 0) return c->n == 0 ? 0 : nx__error(s, c->o, "Total_elems: %lld elements into a shape with a 0 axis", (long long)c->n);
  if (c->n % prod)
    return nx__error(s, c->o, "Total_elems: %lld elements do not divide into dims of product %lld", (long long)c->n,
                     (long long)prod);
  int64_t q = c->n / prod;
  if (!nvars && !nrowvars) {
    if (q != 1)
      return nx__error(s, c->o, "Total_elems: %lld elements vs dims of product %lld", (long long)c->n, (long long)prod);
    return 0;
  }
  if (nvars == 1 && !nrowvars && var->kind == NX__D_VAR)
    return nx__unify_dim(s, var, nx__dim_solved(s, q, NX_BASIS_DEFAULT), c->o);
  if (!nvars && nrowvars == 1 && stage >= 3) {
    const nx_dim *d = nx__dim_solved(s, q, NX_BASIS_DEFAULT);
    return nx__bind_row(s, rowvar, q == 1 ? empty_row(s) : nx__row_new(s, NULL, 0, &d, 1, 0), c->o);
  }
  if (stage >= 5 && nrowvars) { /* close every row variable but the last (output) one */
    for (int i = 0; i < c->nrows; i++) {
      const nx_row *r = nx__rsub(s, c->rows[i]);
      if (r->var && r->var != rowvar) {
        int rc = nx__bind_row(s, r->var, empty_row(s), c->o);
        return rc ? rc : NX__DEFER;
      }
    }
    if (nvars) {
      int rc = nx__bind_row(s, rowvar, empty_row(s), c->o);
      return rc ? rc : NX__DEFER;
    }
  }
  return NX__DEFER;
}

static const nx_dim *dvar_of(nx_shape_session *s, int v) { return nx__dsub(s, nx__dim_var(s, v)); }

/* Stage 2: a variable whose only upper neighbour w has it as its only lower
   neighbour is merged with w. */
int nx__stage2_pairs(nx_shape_session *s) {
  for (int v = 1; v < s->nvars; v++) {
    nx__var *e = NX__VAR(s, v);
    if (!e->opnd.head) continue;
    if (e->is_row) {
      const nx_row *rv = nx__rsub(s, nx__row_of_var(s, v));
      if (rv->nbeg || rv->ndims || !rv->var) continue;
      int w = 0;
      bool ok = true;
      NX__EACH(s, NX__VAR(s, v)->opnd, i) {
        if (!ok) break;
        const nx_row *x = nx__rsub(s, nx__row_of_var(s, s->lk[i].x));
        if (x->nbeg || x->ndims || !x->var || x->var == rv->var || (w && x->var != w)) ok = false;
        else w = x->var;
      }
      if (!ok || !w) continue;
      NX__EACH(s, NX__VAR(s, w)->res, i) {
        if (!ok) break;
        const nx_row *x = nx__rsub(s, nx__row_of_var(s, s->lk[i].x));
        if (x->nbeg || x->ndims || x->var != rv->var) ok = false;
      }
      if (!ok) continue;
      nx__cons c = {.kind = NX__C_ROW_EQ, .r1 = nx__row_of_var(s, rv->var), .r2 = nx__row_of_var(s, w)};
      if (nx__push(s, &s->queue, &c)) return NX_ENOMEM;
    } else {
      const nx_dim *dv = dvar_of(s, v);
      if (dv->kind != NX__D_VAR) continue;
      int w = 0;
      bool ok = true;
      NX__EACH(s, NX__VAR(s, v)->opnd, i) {
        if (!ok) break;
        const nx_dim *x = dvar_of(s, s->lk[i].x);
        if (x->kind != NX__D_VAR || x->var == dv->var || (w && x->var != w)) ok = false;
        else w = x->var;
      }
      if (!ok || !w) continue;
      NX__EACH(s, NX__VAR(s, w)->res, i) {
        if (!ok) break;
        const nx_dim *x = dvar_of(s, s->lk[i].x);
        if (x->kind != NX__D_VAR || x->var != dv->var) ok = false;
      }
      if (!ok) continue;
      nx__cons c = {.kind = NX__C_DIM_EQ, .d1 = dv, .d2 = nx__dim_var(s, w)};
      if (nx__push(s, &s->queue, &c)) return NX_ENOMEM;
    }
  }
  return 0;
}
