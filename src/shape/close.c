/* SPDX-License-Identifier: Apache-2.0 */
/* Closing: the marks (terminal dims and rows of leaves, interior rows),
   stage by stage, and the stage-2 merge of unique adjacency pairs. */
#include <string.h>

#include "tensor_internal.h"

#define FORGOT "You forgot to specify the hidden dimension(s) "

static const nx_row *empty_row(nx_shape_session *s) { return s->empty; }

static bool safe_to_guess(const nx__var *e) { return e->safe_to_guess || (e->in_pointwise && !e->in_spec); }

/* Whether v has what OCANNL calls an environment entry: a bound of any
   kind (a ground lower bound, at-least, a neighbour) or a parameter's mark.
   A variable without one was only ever compared with the broadcast top
   (a broadcasting template's fresh axis, say). */
static bool has_entry(const nx__var *e, bool is_param) {
  return is_param || e->is_param || e->glb || e->at_least || e->res.head || e->opnd.head;
}

/* A leaf's dim: from stage 4 it takes its lower bound; at stage 5 one with
   none is guessed 1 (the broadcast top), except in a parameter ("You forgot
   to specify the hidden dimension(s)"); one a total-dim constraint decides
   is never guessed. A variable without an entry is not
   guessed here: it stays terminal until stage 6 and an interior mark sets
   it to 1 at stage 7. */
static int term_dim(nx_shape_session *s, const nx_dim *d0, bool is_param, const nx__origin *o, int stage) {
  const nx_dim *d = nx__shape_dsub(s, d0);
  if (d->kind != NX__D_VAR) return 0;
  nx__var *e = NX__VAR(s, d->var);
  if (stage < 4) return NX__KEEP;
  if (e->glb) return nx__shape_unify_dim(s, d, e->glb, nx__shape_origin_join(s, e->glb_o, o));
  if (stage < 5) return NX__KEEP;
  if (!e->at_least) {
    if (e->no_guess || !has_entry(e, is_param)) return stage >= 6 ? 0 : NX__KEEP;
    if (is_param || e->is_param) {
      char name[64];
      nx__shape_dim_print(s, d, name, sizeof name);
      return nx__shape_error(s, o, FORGOT "1 (%s)", name);
    }
    return nx__shape_unify_dim(s, d, s->top, o);
  }
  return stage >= 6 ? 0 : NX__KEEP; /* an interior mark closes it at stage 7 */
}

/* A leaf's row: its dims as term_dim; from stage 3 its row variable takes
   its lower bound, from stage 4 the empty row (a parameter's unknown row one
   hidden axis, or the error). */
static NX__NOINLINE int term_row(nx_shape_session *s, const nx__cons *c, int stage) {
  if (c->t && ((const nx_tensor *)c->t)->marks_off & NX_TENSOR_TERMINAL) return NX__KEEP; /* inert */
  const nx_row *r = nx__shape_rsub(s, c->r1);
  int rc, keep = 0;
  for (int i = 0; i < r->nbeg + r->ndims; i++) {
    rc = term_dim(s, r->beg[i], c->is_param, c->o, stage);
    if (rc < 0) return rc;
    keep |= rc == NX__KEEP;
  }
  if (!r->var) return keep ? NX__KEEP : 0;
  if (stage < 3) return NX__KEEP;
  nx__var *e = NX__VAR(s, r->var);
  const nx_row *g = nx__shape_row_glb(s, r->var);
  if (g) {
    /* As OCANNL's close_row_terminal, the mark ends with the binding: the
       dims the row had before it stay terminal, those of the lower bound do
       not become a leaf's. */
    if ((rc = nx__shape_bind_row(s, r->var, g, c->o)) || !keep) return rc;
    const nx_row *dims = nx__shape_row_new(s, r->beg, r->nbeg, r->dims, r->ndims, 0);
    if (!dims) return NX_ENOMEM;
    nx__cons m = *c;
    m.r1 = dims;
    return nx__shape_push(s, &s->queue, &m);
  }
  if (stage < 4) return NX__KEEP;
  if ((c->is_param || e->is_param) && !safe_to_guess(e)) {
    if (!e->hidden_param) return nx__shape_error(s, c->o, FORGOT "4");
    /* A parameter's unknown row has one hidden axis, which must be inferred. */
    int v = nx__shape_new_var(s, false, NULL);
    if (v < 0) return v;
    NX__VAR(s, v)->is_param = true;
    const nx_dim *h = nx__shape_dim_var(s, v);
    rc = nx__shape_bind_row(s, r->var, nx__shape_row_new(s, NULL, 0, &h, 1, 0), c->o);
    return rc ? rc : NX__KEEP;
  }
  rc = nx__shape_bind_row(s, r->var, empty_row(s), c->o);
  return rc ? rc : NX__KEEP;
}

/* An interior mark's origin, made on first use (see nx__shape_closing_origin). */
typedef struct {
  const nx__cons *c;
  const nx__origin *o;
} mark_o;

static const nx__origin *need_o(nx_shape_session *s, mark_o *m) {
  if (!m->o && m->c->t) m->o = nx__shape_closing_origin(s, m->c);
  return m->o;
}
#define NEED_O(s, m) \
  do { \
    if (!need_o(s, m) && (m)->c->t) return NX_ENOMEM; \
  } while (0)

/* An interior dim: to its lower bound from stage 6; at stage 7 to n for At
   least n, else the broadcast top; a parameter's must have been inferred;
   one a total-dim constraint decides is left to it. */
static int shape_dim(nx_shape_session *s, const nx_dim *d0, mark_o *m, int stage) {
  const nx_dim *d = nx__shape_dsub(s, d0);
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
    nx__shape_dim_print(s, d, name, sizeof name);
    NEED_O(s, m);
    return nx__shape_error(s, m->o, FORGOT "5 (%s)", name);
  }
  if (e->no_guess) return NX__KEEP; /* a total-dim constraint decides it */
  if (e->glb && !(e->at_least == 1 && stage < 7)) {
    NEED_O(s, m);
    if (e->at_least == 1) return nx__shape_unify_dim(s, d, s->top, m->o);
    return nx__shape_unify_dim(s, d, e->glb, nx__shape_origin_join(s, e->glb_o, m->o));
  }
  if (stage < 7) return NX__KEEP;
  NEED_O(s, m);
  if (e->at_least) return nx__shape_unify_dim(s, d, nx__shape_dim_solved(s, e->at_least, NX_BASIS_DEFAULT), m->o);
  return nx__shape_unify_dim(s, d, s->top, m->o);
}

/* An interior row from stage 6 (nx__shape_close_mark keeps it before): its
   row variable to its lower bound (empty at stage 7), else its dims as
   shape_dim. */
static NX__NOINLINE int shape_row(nx_shape_session *s, const nx__cons *c, int stage) {
  const nx_row *r = nx__shape_rsub(s, c->r1);
  mark_o m = {c, c->t ? NULL : c->o};
  int keep = 0, rc;
  if (r->var) {
    const nx_row *g = nx__shape_row_glb(s, r->var);
    if (g || stage == 7) NEED_O(s, &m);
    if (g) rc = nx__shape_bind_row(s, r->var, g, m.o);
    else if (stage == 7) rc = nx__shape_bind_row(s, r->var, empty_row(s), m.o);
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

int nx__shape_close_mark(nx_shape_session *s, const nx__cons *c, int stage) {
  switch (c->kind) {
  case NX__C_TERM_DIM: return term_dim(s, c->d1, c->is_param, c->o, stage);
  case NX__C_TERM_ROW: return term_row(s, c, stage);
  default:
    /* the most common visit, kept without a call: before stage 6, or
       while the tensor's closing marks are off, an interior row waits */
    if (stage < 6 || (c->t && ((const nx_tensor *)c->t)->marks_off & NX_TENSOR_CLOSING)) return NX__KEEP;
    return shape_row(s, c, stage);
  }
}

static const nx_dim *dvar_of(nx_shape_session *s, int v) { return nx__shape_dsub(s, nx__shape_dim_var(s, v)); }

/* Stage 2: a variable whose only upper neighbour w has it as its only lower
   neighbour is merged with w, for dims when neither has a lower bound. The variables are visited in id order, only
   those whose opnd bit is set (the others have no upper neighbour). */
int nx__shape_stage2_pairs(nx_shape_session *s) {
  for (int v = 1; v < s->nvars; v++) {
    uint64_t bits = s->opnd_bits[v >> 6] >> (v & 63);
    if (!bits) { /* none at or past v in its word: the next word */
      v |= 63;
      continue;
    }
    v += __builtin_ctzll(bits);
    if (v >= s->nvars) break;
    nx__var *e = NX__VAR(s, v);
    if (!e->opnd.head) continue;
    if (e->is_row) {
      const nx_row *rv = nx__shape_rsub(s, nx__shape_row_of_var(s, v));
      if (rv->nbeg || rv->ndims || !rv->var) continue;
      int w = 0;
      bool ok = true;
      NX__EACH(s, NX__VAR(s, v)->opnd, i) {
        if (!ok) break;
        const nx_row *x = nx__shape_rsub(s, nx__shape_row_of_var(s, s->lk[i].x));
        if (x->nbeg || x->ndims || !x->var || x->var == rv->var || (w && x->var != w)) ok = false;
        else w = x->var;
      }
      if (!ok || !w) continue;
      NX__EACH(s, NX__VAR(s, w)->res, i) {
        if (!ok) break;
        const nx_row *x = nx__shape_rsub(s, nx__shape_row_of_var(s, s->lk[i].x));
        if (x->nbeg || x->ndims || x->var != rv->var) ok = false;
      }
      if (!ok) continue;
      nx__cons c = {.kind = NX__C_ROW_EQ, .r1 = nx__shape_row_of_var(s, rv->var), .r2 = nx__shape_row_of_var(s, w)};
      if (nx__shape_push(s, &s->queue, &c)) return NX_ENOMEM;
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
      /* as OCANNL: only a pair neither of which has a ground lower bound
         (the bound would be lost: 27 <= e <= d closes e to 27, not to d's 1) */
      if (!ok || !w || NX__VAR(s, dv->var)->glb || NX__VAR(s, w)->glb) continue;
      NX__EACH(s, NX__VAR(s, w)->res, i) {
        if (!ok) break;
        const nx_dim *x = dvar_of(s, s->lk[i].x);
        if (x->kind != NX__D_VAR || x->var != dv->var) ok = false;
      }
      if (!ok) continue;
      nx__cons c = {.kind = NX__C_DIM_EQ, .d1 = dv, .d2 = nx__shape_dim_var(s, w)};
      if (nx__shape_push(s, &s->queue, &c)) return NX_ENOMEM;
    }
  }
  return 0;
}
