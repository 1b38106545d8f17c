/* SPDX-License-Identifier: Apache-2.0 */
/* Row constraints: unification of rows (flat equality, with the
   placement guard of OCANNL's unify_row) and the broadcasting inequality
   res <= opnd (outer-aligned flanks, the deficit template, caps stored as
   lower bounds, variable-variable adjacency with rank edges). */
#include <string.h>

#include "solver.h"

static int push_dim(nx_shape_session *s, int kind, const nx_dim *a, const nx_dim *b, const nx__origin *o) {
  nx__cons c = {.kind = kind, .d1 = a, .d2 = b, .o = o};
  return nx__shape_push(s, &s->queue, &c);
}

static int push_row(nx_shape_session *s, int kind, const nx_row *a, const nx_row *b, const nx__origin *o) {
  nx__cons c = {.kind = kind, .r1 = a, .r2 = b, .o = o};
  return nx__shape_push(s, &s->queue, &c);
}

static const nx_row *empty_row(nx_shape_session *s) { return s->empty; }

/* Whether the re-emitted bound <w> <= val (or val <= <w>) would be <x> <= <x>
   for one row variable x: before stage 6 its step does nothing, so it is not
   emitted (from stage 6 it would close x). */
static inline bool trivial(nx_shape_session *s, int w, const nx_row *val) {
  if (s->stage >= 6 || val->nbeg || val->ndims || !val->var) return false;
  const nx_row *x = NX__VAL(s, w).r;
  if (!x) return w == val->var; /* <w> itself */
  x = nx__shape_rsub(s, x);
  return !x->nbeg && !x->ndims && x->var == val->var;
}

/* <v> := val: v's lower bounds, neighbours and watched bounds are re-emitted
   against val, and its flags pass to val's row variable. */
int nx__shape_bind_row(nx_shape_session *s, int v, const nx_row *val, const nx__origin *o) {
  if (!val) return NX_ENOMEM;
  nx__var *e = NX__VAR(s, v);
  nx__shape_set_val(s, v, (nx__val){.r = val});
  s->nbinds++;
  nx__shape_touch(s, v);
  int rc = nx__shape_rank_union(s, v, val, o);
  e = NX__VAR(s, v);
  for (int i = e->lower; i && !rc; i = s->lbs[i].next_lower) {
    if (!s->lbs[i].alive) continue;
    nx__lbound *lb = nx__shape_lbound(s, i);
    lb->alive = false;
    rc = push_row(s, NX__C_ROW_INEQ, lb->row, val, nx__shape_origin_join(s, lb->o, o));
  }
  NX__EACH(s, e->res, i) {
    if (rc) break;
    if (!trivial(s, s->lk[i].x, val)) rc = push_row(s, NX__C_ROW_INEQ, nx__shape_row_of_var(s, s->lk[i].x), val, o);
  }
  NX__EACH(s, e->opnd, i) {
    if (rc) break;
    if (!trivial(s, s->lk[i].x, val)) rc = push_row(s, NX__C_ROW_INEQ, val, nx__shape_row_of_var(s, s->lk[i].x), o);
  }
  for (int i = e->watch; i && !rc; i = s->lbs[i].next_watch) {
    if (!s->lbs[i].alive) continue;
    nx__lbound *lb = nx__shape_lbound(s, i);
    lb->alive = false;
    nx__shape_touch(s, lb->owner); /* its join of lower bounds changed */
    rc = push_row(s, NX__C_ROW_INEQ, lb->row, nx__shape_row_of_var(s, lb->owner), lb->o);
  }
  if (val->var) {
    /* the five flags in one step: w changes (and is touched) only if e has one w lacks */
    unsigned char gain = e->flags & nx__var_passed_flags() & (unsigned char)~NX__VARR(s, val->var)->flags;
    if (gain) {
      NX__VAR(s, val->var)->flags |= gain;
      nx__shape_touch(s, val->var);
    }
  }
  return rc;
}

/* The flat dims of r (beg then dims, contiguous in memory). */
static const nx_dim *const *flat(const nx_row *r) { return r->beg; }

/* a = b as OCANNL's unify_row: closed rows pair dims, one open side takes
   the other's middle, two open sides share the longer flanks; surplus on
   both sides waits for stage 6. */
int nx__shape_solve_row_eq(nx_shape_session *s, const nx__cons *c, int stage) {
  const nx_row *a = nx__shape_rsub(s, c->r1), *b = nx__shape_rsub(s, c->r2);
  const nx__origin *o = c->o;
  int rc = 0, na = a->nbeg + a->ndims, nb = b->nbeg + b->ndims;
  if (!a->var && !b->var) {
    if (na != nb) return nx__shape_error(s, o, "Mismatching number of axes (%d vs %d)", na, nb);
    for (int i = 0; i < na && !rc; i++) rc = push_dim(s, NX__C_DIM_EQ, flat(a)[i], flat(b)[i], o);
    return rc;
  }
  if (a->var && a->var == b->var) {
    if (na != nb) return nx__shape_error(s, o, "Infinite number of axes by self-reference");
    if (a->nbeg == b->nbeg) {
      for (int i = 0; i < na && !rc; i++) rc = push_dim(s, NX__C_DIM_EQ, flat(a)[i], flat(b)[i], o);
      return rc;
    }
    if (stage < 6) return NX__DEFER;
    rc = nx__shape_bind_row(s, a->var, empty_row(s), o);
    return rc ? rc : push_row(s, NX__C_ROW_EQ, c->r1, c->r2, o);
  }
  if (!a->var) {
    const nx_row *t = a;
    a = b;
    b = t;
  }
  if (a->ndims > b->ndims || (a->ndims == b->ndims && a->nbeg > b->nbeg)) {
    if (!b->var) return nx__shape_error(s, o, "Number of axes mismatch");
    const nx_row *t = a;
    a = b;
    b = t;
  }
  int la = a->nbeg, ra = a->ndims, lb = b->nbeg, rb = b->ndims;
  nb = lb + rb;
  if (!b->var) {
    if (la + ra > nb) return nx__shape_error(s, o, "Number of axes mismatch");
    const nx_dim *const *F = flat(b);
    for (int i = 0; i < la && !rc; i++) rc = push_dim(s, NX__C_DIM_EQ, a->beg[i], F[i], o);
    for (int j = 0; j < ra && !rc; j++) rc = push_dim(s, NX__C_DIM_EQ, a->dims[j], F[nb - ra + j], o);
    if (rc) return rc;
    int lo = la, hi = nb - ra, split = lb < lo ? lo : lb > hi ? hi : lb;
    return nx__shape_bind_row(s, a->var, nx__shape_row_new(s, F + lo, split - lo, F + split, hi - split, 0), o);
  }
  for (int j = 0; j < ra && !rc; j++) rc = push_dim(s, NX__C_DIM_EQ, a->dims[ra - 1 - j], b->dims[rb - 1 - j], o);
  if (rc) return rc;
  if (la <= lb) {
    for (int i = 0; i < la && !rc; i++) rc = push_dim(s, NX__C_DIM_EQ, a->beg[i], b->beg[i], o);
    if (rc) return rc;
    if (lb == la && rb == ra) return nx__shape_bind_row(s, a->var, nx__shape_row_of_var(s, b->var), o); /* just <b> */
    return nx__shape_bind_row(s, a->var, nx__shape_row_new(s, b->beg + la, lb - la, b->dims, rb - ra, b->var), o);
  }
  /* Both flanks in surplus on opposite sides: the word equation has
     solutions outside the principal family, so wait; from stage 6 the
     shorter-flanked side closes empty (the least-material disjunct). */
  if (stage < 6) return NX__DEFER;
  rc = nx__shape_bind_row(s, b->var, empty_row(s), o);
  return rc ? rc : push_row(s, NX__C_ROW_EQ, c->r1, c->r2, o);
}

static int add_lower(nx_shape_session *s, int w, const nx_row *L, const nx__origin *o);

/* res <= opnd for the outer-aligned overlap of the flanks. */
static int flank_ineqs(nx_shape_session *s, const nx_row *R, const nx_row *O, const nx__origin *o) {
  int rc = 0;
  for (int i = 0; i < O->nbeg && i < R->nbeg && !rc; i++) rc = push_dim(s, NX__C_DIM_INEQ, R->beg[i], O->beg[i], o);
  for (int j = 0; j < O->ndims && j < R->ndims && !rc; j++)
    rc = push_dim(s, NX__C_DIM_INEQ, R->dims[R->ndims - 1 - j], O->dims[O->ndims - 1 - j], o);
  return rc;
}

/* A closed result against an operand: flat alignment from both outer edges;
   positions broadcasting inserts are free. */
static int closed_res(nx_shape_session *s, const nx_row *R, const nx_row *O, const nx__origin *o) {
  int n = R->nbeg + R->ndims, rc = 0;
  const nx_dim *const *F = flat(R);
  if (O->nbeg + O->ndims > n) return nx__shape_error(s, o, "Too many axes in an operand; maybe using * instead of *.?");
  for (int i = 0; i < O->nbeg && !rc; i++) rc = push_dim(s, NX__C_DIM_INEQ, F[i], O->beg[i], o);
  for (int j = 0; j < O->ndims && !rc; j++) rc = push_dim(s, NX__C_DIM_INEQ, F[n - 1 - j], O->dims[O->ndims - 1 - j], o);
  if (rc || !O->var) return rc;
  int lo = O->nbeg, hi = n - O->ndims, split = R->nbeg < lo ? lo : R->nbeg > hi ? hi : R->nbeg;
  return add_lower(s, O->var, nx__shape_row_new(s, F + lo, split - lo, F + split, hi - split, 0), o);
}

/* res <= opnd: a deficit grows res by a template, flanks compare outer-
   aligned, residual material becomes a lower bound of opnd's variable, two
   bare variables become neighbours; from stage 6 an open side closes empty. */
int nx__shape_solve_row_ineq(nx_shape_session *s, const nx__cons *c, int stage) {
  const nx_row *R = nx__shape_rsub(s, c->r1), *O = nx__shape_rsub(s, c->r2);
  const nx__origin *o = c->o;
  int rc = 0;
  if (stage >= 6 && (R->var || O->var)) {
    rc = nx__shape_bind_row(s, R->var ? R->var : O->var, empty_row(s), o);
    return rc ? rc : push_row(s, NX__C_ROW_INEQ, c->r1, c->r2, o);
  }
  if (!R->var) return closed_res(s, R, O, o);
  int nR = R->nbeg + R->ndims, nO = O->nbeg + O->ndims;
  if (R->var == O->var) {
    if (nR == nO && R->nbeg == O->nbeg) return flank_ineqs(s, R, O, o);
    return NX__DEFER;
  }
  int kb = O->nbeg > R->nbeg ? O->nbeg - R->nbeg : 0, kd = O->ndims > R->ndims ? O->ndims - R->ndims : 0;
  if (kb || kd) { /* deficit: the result grows by a template */
    if (O->var && nO - nR >= 0 && (rc = nx__shape_rank_edge(s, R->var, O->var, nO - nR, o))) return rc;
    int tau = nx__shape_new_var(s, true, NULL);
    if (tau < 0) return tau;
    NX__VAR(s, tau)->safe_to_guess = true;
    const nx_dim *fresh[kb + kd + 1];
    for (int i = 0; i < kb + kd; i++) {
      int v = nx__shape_new_var(s, false, NULL);
      if (v < 0 || !(fresh[i] = nx__shape_dim_var(s, v))) return NX_ENOMEM;
    }
    rc = nx__shape_bind_row(s, R->var, nx__shape_row_new(s, fresh, kb, fresh + kb, kd, tau), o);
    return rc ? rc : push_row(s, NX__C_ROW_INEQ, c->r1, c->r2, o);
  }
  if ((rc = flank_ineqs(s, R, O, o))) return rc;
  if (!O->var) return 0;
  int lnb = R->nbeg - O->nbeg, lnd = R->ndims - O->ndims; /* the residual material */
  if (lnb || lnd) return add_lower(s, O->var, nx__shape_row_new(s, R->beg + O->nbeg, lnb, R->dims, lnd, R->var), o);
  int v = R->var, w = O->var;
  if ((rc = nx__shape_rank_edge(s, v, w, 0, o))) return rc;
  nx__var *a = NX__VAR(s, v);
  if (nx__shape_ilist_has(s, &a->res, w)) return push_row(s, NX__C_ROW_EQ, nx__shape_row_of_var(s, v), nx__shape_row_of_var(s, w), o);
  if (!nx__shape_ilist_has(s, &a->opnd, w) && (nx__shape_ilist_push(s, &NX__VAR(s, v)->opnd, w) || nx__shape_ilist_push(s, &NX__VAR(s, w)->res, v)))
    return NX_ENOMEM;
  nx__shape_mark_opnd(s, v);
  return 0;
}

/* The join of w's live lower bounds: the shorter flank on each side, and
   position by position equal dims or the broadcast top; NULL if none. */
const nx_row *nx__shape_row_glb(nx_shape_session *s, int w) {
  nx__var *e = NX__VAR(s, w);
  const nx_row *g = NULL;
  for (int i = e->lower; i; i = s->lbs[i].next_lower) {
    if (!s->lbs[i].alive) continue;
    const nx_row *r = nx__shape_rsub_full(s, s->lbs[i].row);
    if (!g) {
      g = r;
      continue;
    }
    int nb = g->nbeg < r->nbeg ? g->nbeg : r->nbeg, nd = g->ndims < r->ndims ? g->ndims : r->ndims;
    const nx_dim *d[nb + nd + 1];
    for (int k = 0; k < nb; k++) d[k] = nx__shape_dim_equal(g->beg[k], r->beg[k]) ? g->beg[k] : s->top;
    for (int k = 0; k < nd; k++) {
      const nx_dim *x = g->dims[g->ndims - nd + k], *y = r->dims[r->ndims - nd + k];
      d[nb + k] = nx__shape_dim_equal(x, y) ? x : s->top;
    }
    g = nx__shape_row_new(s, d, nb, d + nb, nd, g->var ? g->var : r->var);
    if (!g) return NULL;
  }
  return g;
}

/* Stores L <= <w> on w (and as watched on L's variable); a ground join of at
   most one axis of size 1 binds w at once. */
static int add_lower(nx_shape_session *s, int w, const nx_row *L, const nx__origin *o) {
  if (!L) return NX_ENOMEM;
  int id = nx__shape_lbound_new(s);
  if (id < 0) return id;
  nx__lbound *lb = &s->lbs[id];
  lb->row = L;
  lb->owner = w;
  lb->o = o;
  lb->alive = true;
  nx__var *e = NX__VAR(s, w);
  if (e->lower_tail) nx__shape_lbound(s, e->lower_tail)->next_lower = id;
  else e->lower = id;
  e->lower_tail = id;
  nx__shape_touch(s, w);
  if (L->var) {
    nx__var *x = NX__VAR(s, L->var);
    if (x->watch_tail) nx__shape_lbound(s, x->watch_tail)->next_watch = id;
    else x->watch = id;
    x->watch_tail = id;
  }
  if (L->var) return 0;
  const nx_row *g = nx__shape_row_glb(s, w);
  if (g && !g->var && g->nbeg + g->ndims <= 1) {
    const nx_dim *d = g->nbeg + g->ndims ? nx__shape_dsub(s, g->beg[0]) : NULL;
    if (!d || (d->kind == NX__D_SOLVED && d->d == 1)) return nx__shape_bind_row(s, w, g, o);
  }
  return 0;
}
