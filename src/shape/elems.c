/* SPDX-License-Identifier: Apache-2.0 */
/* The rows constraints: a concatenation of rows holding a total number of
   elements (a reshape or a fill), or exactly a list of dims. */
#include "solver.h"

/* Exact rows: the concatenation of c->rows is the dims of c->ex. One row is
   a row equation; several wait until every one is closed, then their dims
   meet ex's one by one. */
int nx__shape_solve_exact(nx_shape_session *s, const nx__cons *c, int stage) {
  const nx_row *ex = c->ex;
  if (!ex) return NX_ENOMEM;
  if (c->nrows == 1) {
    nx__cons e = {.kind = NX__C_ROW_EQ, .r1 = c->rows[0], .r2 = ex, .o = c->o};
    return nx__shape_solve_row_eq(s, &e, stage);
  }
  int n = 0, open = 0;
  for (int i = 0; i < c->nrows; i++) {
    const nx_row *r = nx__shape_rsub(s, c->rows[i]);
    n += r->nbeg + r->ndims;
    open += r->var != 0;
  }
  if (open) return NX__DEFER;
  if (n != ex->ndims) return nx__shape_error(s, c->o, "Mismatching number of axes (%d vs %d)", n, ex->ndims);
  int k = 0, rc = 0;
  for (int i = 0; i < c->nrows && !rc; i++) {
    const nx_row *r = nx__shape_rsub(s, c->rows[i]);
    for (int j = 0; j < r->nbeg + r->ndims && !rc; j++) {
      nx__cons e = {.kind = NX__C_DIM_EQ, .d1 = r->beg[j], .d2 = ex->dims[k++], .o = c->o};
      rc = nx__shape_push(s, &s->queue, &e);
    }
  }
  return rc;
}

/* Total elements: the product of the known dims is divided out; one
   unknown dim takes the quotient, and from stage 3 a single row variable
   with no unknown dim takes it as one axis; from stage 5 the row variables
   but the last close empty, so that one is left to take it. */
int nx__shape_solve_total(nx_shape_session *s, const nx__cons *c, int stage) {
  int64_t prod = 1;
  int nvars = 0, nrowvars = 0, rowvar = 0;
  const nx_dim *var = NULL;
  for (int i = 0; i < c->nrows; i++) {
    const nx_row *r = nx__shape_rsub(s, c->rows[i]);
    if (r->var) nrowvars++, rowvar = r->var;
    for (int j = 0; j < r->nbeg + r->ndims; j++) {
      const nx_dim *d = nx__shape_dsub(s, r->beg[j]);
      if (d->kind == NX__D_SOLVED) {
        if (d->d != 0 && prod > INT64_MAX / d->d) prod = INT64_MAX;
        else prod *= d->d;
      } else nvars++, var = d;
    }
  }
  /* The refusals in OCANNL's words (row.ml's total_elems_divide and
     apply_row_constraint; several row variables: apply_rows_constraint's
     "known product"). */
  if (prod == 0)
    return c->n == 0 ? 0
                     : nx__shape_error(s, c->o, "Division by non-positive number: 0 (%lld elements into a shape with a 0 axis)",
                                       (long long)c->n);
  if (c->n % prod)
    return nx__shape_error(s, c->o, "Total_elems constraint: %lld not divisible by %s%lld", (long long)c->n,
                           nrowvars > 1 ? "known product " : "", (long long)prod);
  int64_t q = c->n / prod;
  if (!nvars && !nrowvars) {
    if (q != 1)
      return nx__shape_error(s, c->o, "apply_row_constraint: Total_elems constraint failed, shape is too %s (%lld elements, dims of product %lld)",
                             q ? "small" : "big", (long long)c->n, (long long)prod);
    return 0;
  }
  if (nvars == 1 && !nrowvars && var->kind == NX__D_VAR)
    return nx__shape_unify_dim(s, var, nx__shape_dim_solved(s, q, NX_BASIS_DEFAULT), c->o);
  if (!nvars && nrowvars == 1 && stage >= 3) {
    const nx_dim *d = nx__shape_dim_solved(s, q, NX_BASIS_DEFAULT);
    return nx__shape_bind_row(s, rowvar, q == 1 ? s->empty : nx__shape_row_new(s, NULL, 0, &d, 1, 0), c->o);
  }
  if (stage >= 5 && nrowvars) { /* close every row variable but the last (output) one */
    for (int i = 0; i < c->nrows; i++) {
      const nx_row *r = nx__shape_rsub(s, c->rows[i]);
      if (r->var && r->var != rowvar) {
        int rc = nx__shape_bind_row(s, r->var, s->empty, c->o);
        return rc ? rc : NX__DEFER;
      }
    }
    if (nvars) {
      int rc = nx__shape_bind_row(s, rowvar, s->empty, c->o);
      return rc ? rc : NX__DEFER;
    }
  }
  return NX__DEFER;
}

/* Total elements equal to a dim d (OCANNL's Total_elems whose numerator is
   a variable of coefficient 1, which set_equal of a dim and a row reference
   makes). Nothing at stage 1, as OCANNL; from stage 2 a solved d makes it a
   total of d elements, and rows all closed with every dim solved solve d as
   their product; at stage 6, rows whose dims are all solved close their row
   variables empty (a parameter's hidden row is an error) and d takes the
   product. d is marked so that closing never guesses it: these rows decide
   it. */
int nx__shape_solve_total_dim(nx_shape_session *s, const nx__cons *c, int stage) {
  const nx_dim *d = nx__shape_dsub(s, c->d2);
  if (d->kind == NX__D_VAR && !NX__VARR(s, d->var)->no_guess) NX__VAR(s, d->var)->no_guess = true;
  if (stage < 2) return NX__DEFER;
  if (d->kind == NX__D_SOLVED) {
    nx__cons e = *c;
    e.kind = NX__C_TOTAL;
    e.n = d->d;
    return nx__shape_push(s, &s->queue, &e);
  }
  int64_t prod = 1;
  int nrowvars = 0;
  for (int i = 0; i < c->nrows; i++) {
    const nx_row *r = nx__shape_rsub(s, c->rows[i]);
    nrowvars += r->var != 0;
    for (int j = 0; j < r->nbeg + r->ndims; j++) {
      const nx_dim *x = nx__shape_dsub(s, r->beg[j]);
      if (x->kind != NX__D_SOLVED) return NX__DEFER;
      if (__builtin_mul_overflow(prod, x->d, &prod))
        return nx__shape_error(s, c->o, "dimension size past int64: a total-elements constraint's product of rows");
    }
  }
  if (nrowvars && stage < 6) return NX__DEFER;
  if (nrowvars && d->kind == NX__D_VAR && NX__VARR(s, d->var)->is_param)
    return nx__shape_error(s, c->o, "You forgot to specify the hidden dimension(s) 3");
  for (int i = 0; nrowvars && i < c->nrows; i++) {
    const nx_row *r = nx__shape_rsub(s, c->rows[i]);
    if (!r->var) continue;
    const nx__var *e = NX__VARR(s, r->var);
    if (e->is_param && !e->safe_to_guess && !(e->in_pointwise && !e->in_spec))
      return nx__shape_error(s, c->o, "You forgot to specify the hidden dimension(s) 2");
    int rc = nx__shape_bind_row(s, r->var, s->empty, c->o);
    if (rc) return rc;
  }
  return nx__shape_unify_dim(s, d, nx__shape_dim_solved(s, prod, NX_BASIS_DEFAULT), c->o);
}
