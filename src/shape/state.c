/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the solver's state: dims' structure, the constraints a session
   still holds (pending, deferred, marks), what is known of a variable, and
   the per-tensor setting of closing's marks. Reading changes nothing but
   the substitutions' path compression. */
#include <string.h>

#include "tensor_internal.h"

_Static_assert((int)NX_DIM_SOLVED == NX__D_SOLVED && (int)NX_DIM_VAR == NX__D_VAR && (int)NX_DIM_AFFINE == NX__D_AFFINE &&
                   (int)NX_DIM_CONCAT == NX__D_CONCAT,
               "the public dim kinds are the internal ones");
_Static_assert((int)NX_SHAPE_DIM_EQ == NX__C_DIM_EQ && (int)NX_SHAPE_DIM_INEQ == NX__C_DIM_INEQ &&
                   (int)NX_SHAPE_ROW_EQ == NX__C_ROW_EQ && (int)NX_SHAPE_ROW_INEQ == NX__C_ROW_INEQ &&
                   (int)NX_SHAPE_AT_LEAST == NX__C_AT_LEAST && (int)NX_SHAPE_TOTAL == NX__C_TOTAL &&
                   (int)NX_SHAPE_EXACT == NX__C_EXACT && (int)NX_SHAPE_TERMINAL_DIM == NX__C_TERM_DIM &&
                   (int)NX_SHAPE_TERMINAL_ROW == NX__C_TERM_ROW && (int)NX_SHAPE_SHAPE_ROW == NX__C_SHAPE_ROW &&
                   (int)NX_SHAPE_TOTAL_DIM == NX__C_TOTAL_DIM,
               "the public constraint kinds are the internal ones");

int nx_dim_read(const nx_dim *d, nx_dim_parts *out) {
  if (!d || !out) return nx__fail(NX_EINVAL, "nx_dim_read: %s is NULL", d ? "the result" : "the dim");
  memset(out, 0, sizeof *out);
  out->kind = (enum nx_dim_kind)d->kind;
  switch (d->kind) {
  case NX__D_SOLVED:
    out->size = d->d;
    out->basis = d->basis;
    break;
  case NX__D_VAR: out->var = d->var; break;
  case NX__D_AFFINE:
    out->stride = d->stride, out->offset = d->offset, out->dilation = d->kernel ? d->dilation : 1;
    out->over = d->over, out->kernel = d->kernel, out->use_padding = d->use_padding;
    break;
  default: out->parts = d->parts, out->nparts = d->nparts;
  }
  return 0;
}

int nx_dim_var_id(const nx_dim *d) {
  if (!d) return nx__fail(NX_EINVAL, "nx_dim_var_id: the dim is NULL"), 0;
  return d->kind == NX__D_VAR ? d->var : 0;
}

const nx_dim *nx_shape_dim_subst(nx_shape_session *s, const nx_dim *d) {
  if (!s || !d) return nx__fail(NX_EINVAL, "nx_shape_dim_subst: %s is NULL", s ? "the dim" : "the session"), NULL;
  return nx__shape_dsub(s, d);
}

/* ---- Constraints held ---- */

/* The operation of o's latest leaf. */
static const char *operation(const nx__origin *o) {
  for (int depth = 0; o && o->derived && depth < 64; depth++) o = o->b ? o->b : o->a;
  return o && !o->derived ? o->operation : NULL;
}

/* The public view of internal constraint c. */
static void view(const nx__cons *c, enum nx_shape_constraint_state state, nx_shape_constraint *out) {
  memset(out, 0, sizeof *out);
  out->kind = (enum nx_shape_constraint_kind)c->kind;
  out->state = state;
  out->is_param = c->is_param;
  out->operation = operation(c->o);
  switch (c->kind) {
  case NX__C_DIM_EQ:
  case NX__C_DIM_INEQ: out->a = c->d1, out->b = c->d2; break;
  case NX__C_AT_LEAST: out->a = c->d1, out->n = c->n; break;
  case NX__C_TERM_DIM: out->a = c->d1; break;
  case NX__C_ROW_EQ:
  case NX__C_ROW_INEQ: out->ra = c->r1, out->rb = c->r2; break;
  case NX__C_TOTAL: out->rows = c->rows, out->nrows = c->nrows, out->n = c->n; break;
  case NX__C_TOTAL_DIM: out->rows = c->rows, out->nrows = c->nrows, out->a = c->d2; break;
  case NX__C_EXACT:
    out->rows = c->rows, out->nrows = c->nrows;
    if (c->ex) out->dims = c->ex->dims, out->ndims = c->ex->ndims;
    break;
  default: /* the row marks */
    out->ra = c->r1;
    out->tensor = c->t;
    out->tensor_kind = c->t ? (enum nx_axis_kind)c->nrows : NX_AXIS_BATCH;
    if (!out->operation && c->t) out->operation = "closing";
  }
}

int nx_shape_next_constraint(nx_shape_session *s, nx_shape_cursor *cur, nx_shape_constraint *out) {
  if (!s || !cur || !out) return nx__fail(NX_EINVAL, "nx_shape_next_constraint: NULL argument");
  if (cur->part == 0) {
    if (cur->pos >= 0 && cur->pos < s->pending.n) {
      view(&s->pending.p[cur->pos++], NX_SHAPE_PENDING, out);
      return 0;
    }
    cur->part = 1, cur->pos = 0;
  }
  for (; cur->part == 1 || cur->part == 2; cur->part++, cur->pos = 0) {
    const nx__hold *h = cur->part == 1 ? &s->deferred : &s->marks;
    while (cur->pos >= 0 && cur->pos < h->n) {
      int id = cur->pos++;
      if (!h->p[id].alive) continue;
      nx__cons c = nx__shape_hold_cons(s, h, id);
      view(&c, cur->part == 1 ? NX_SHAPE_DEFERRED : NX_SHAPE_MARK, out);
      return 0;
    }
  }
  return NX_NONE;
}

/* ---- Variables ---- */

static bool bad_var(const nx_shape_session *s, int id, const char *fn) {
  if (s && id >= 1 && id < s->nvars) return false;
  nx__fail(NX_EINVAL, "%s: %d is not a variable of the session%s", fn, id, s ? "" : " (NULL)");
  return true;
}

static int count_list(const nx_shape_session *s, const nx__ilist *l) {
  int n = 0;
  NX__EACH(s, *l, i) n++;
  return n;
}

static int count_lower_rows(const nx_shape_session *s, const nx__var *e) {
  int n = 0;
  if (e->is_row)
    for (int i = e->lower; i; i = s->lbs[i].next_lower) n += s->lbs[i].alive;
  return n;
}

int nx_shape_var_read(nx_shape_session *s, int id, nx_shape_var_info *out) {
  if (bad_var(s, id, "nx_shape_var_read")) return NX_EINVAL;
  if (!out) return nx__fail(NX_EINVAL, "nx_shape_var_read: the result is NULL");
  const nx__var *e = NX__VARR(s, id);
  memset(out, 0, sizeof *out);
  out->id = id;
  out->is_row = e->is_row;
  out->name = e->name;
  if (e->is_row) {
    if (NX__VAL(s, id).r) out->row = nx__shape_rsub_full(s, NX__VAL(s, id).r);
  } else {
    if (NX__VAL(s, id).d) out->dim = nx__shape_dsub(s, NX__VAL(s, id).d);
    out->lower = e->glb;
    out->at_least = e->at_least;
  }
  out->solved = out->row || out->dim;
  out->nupper = count_list(s, &e->opnd);
  out->nlower = count_list(s, &e->res);
  out->nlower_rows = count_lower_rows(s, e);
  out->is_param = e->is_param, out->in_pointwise = e->in_pointwise, out->in_spec = e->in_spec;
  out->is_template = e->safe_to_guess, out->is_hidden = e->hidden_param;
  return 0;
}

int nx_shape_var_neighbours(nx_shape_session *s, int id, bool upper, int *ids, int cap) {
  if (bad_var(s, id, "nx_shape_var_neighbours")) return NX_EINVAL;
  if (cap < 0 || (!ids && cap)) return nx__fail(NX_EINVAL, "nx_shape_var_neighbours: a NULL list or cap %d", cap);
  const nx__var *e = NX__VARR(s, id);
  int n = 0;
  NX__EACH(s, upper ? e->opnd : e->res, i) {
    if (n < cap) ids[n] = s->lk[i].x;
    n++;
  }
  return n;
}

int nx_shape_var_lower_rows(nx_shape_session *s, int id, const nx_row **rows, int cap) {
  if (bad_var(s, id, "nx_shape_var_lower_rows")) return NX_EINVAL;
  if (cap < 0 || (!rows && cap)) return nx__fail(NX_EINVAL, "nx_shape_var_lower_rows: a NULL list or cap %d", cap);
  const nx__var *e = NX__VARR(s, id);
  int n = 0;
  if (e->is_row)
    for (int i = e->lower; i; i = s->lbs[i].next_lower)
      if (s->lbs[i].alive) {
        if (n < cap) rows[n] = s->lbs[i].row;
        n++;
      }
  return n;
}

/* ---- Per-tensor marks ---- */

int nx_tensor_set_marks(nx_shape_session *s, nx_tensor *t, unsigned marks) {
  if (!s || !t) return nx__fail(NX_EINVAL, "nx_tensor_set_marks: %s is NULL", s ? "the tensor" : "the session");
  const unsigned all = NX_TENSOR_TERMINAL | NX_TENSOR_CLOSING;
  if (marks & ~all) return nx__fail(NX_EINVAL, "nx_tensor_set_marks: %s: unknown marks 0x%x", t->label, marks);
  unsigned char off = (unsigned char)(all & ~marks);
  if (t->marks_off == off) return 0;
  NX__LOG_FIELD(s, t->marks_off);
  t->marks_off = off; /* each stage's first pass over the marks reads it */
  return 0;
}

unsigned nx_tensor_marks(const nx_tensor *t) {
  if (!t) return nx__fail(NX_EINVAL, "nx_tensor_marks: the tensor is NULL"), 0u;
  return (NX_TENSOR_TERMINAL | NX_TENSOR_CLOSING) & ~(unsigned)t->marks_off;
}
