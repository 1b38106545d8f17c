/* SPDX-License-Identifier: Apache-2.0 */
/* The canonical text of a session's whole solver state, for tests: every
   variable's record and solution, the lower bounds and rank edges, the wake
   lists, the tensors' rows, the pending and queued constraints, both held
   pools and the scalars, printed structurally (dims and rows as made, never
   substituted; no addresses), so two states print alike exactly when they
   are the same state. Printing changes nothing (no substitution, no log). */
#include <string.h>

#include "tensor_internal.h"

typedef struct {
  nx_shape_session *s;
  char *buf;
  size_t cap, len;
} out_t;

#define P(o, ...) nx__shape_put((o)->buf, (o)->cap, &(o)->len, __VA_ARGS__)

static void dim(out_t *o, const nx_dim *d) {
  if (d) nx__shape_dim_put(o->s, d, o->buf, o->cap, &o->len);
  else P(o, "-");
}

static void row(out_t *o, const nx_row *r) {
  if (!r) {
    P(o, "-");
    return;
  }
  P(o, "[");
  for (int i = 0; i < r->nbeg; i++) {
    if (i) P(o, ",");
    dim(o, r->beg[i]);
  }
  if (r->var) P(o, "%s..$%d..", r->nbeg ? "," : "", r->var);
  for (int i = 0; i < r->ndims; i++) {
    if (i || r->nbeg || r->var) P(o, ",");
    dim(o, r->dims[i]);
  }
  P(o, "]");
}

static const char *str(const char *x) { return x ? x : "-"; }

/* Depth-limited: derived origins share subtrees. */
static void origin(out_t *o, const nx__origin *x, int depth) {
  if (!x) {
    P(o, "-");
    return;
  }
  if (depth > 6) {
    P(o, "...");
    return;
  }
  if (x->derived) {
    P(o, "{");
    origin(o, x->a, depth + 1);
    P(o, " + ");
    origin(o, x->b, depth + 1);
    P(o, "}");
    return;
  }
  P(o, "(%s %s:%d %s:%d)", str(x->operation), str(x->lhs_name), x->lhs_kind, str(x->rhs_name), x->rhs_kind);
}

static void cons(out_t *o, const nx__cons *c) {
  P(o, "kind=%d param=%d ", c->kind, c->is_param);
  switch (c->kind) {
  case NX__C_DIM_EQ:
  case NX__C_DIM_INEQ:
    dim(o, c->d1);
    P(o, " ~ ");
    dim(o, c->d2);
    break;
  case NX__C_AT_LEAST:
    dim(o, c->d1);
    P(o, " >= %lld", (long long)c->n);
    break;
  case NX__C_TERM_DIM: dim(o, c->d1); break;
  case NX__C_TOTAL:
  case NX__C_TOTAL_DIM:
  case NX__C_EXACT:
    for (int i = 0; i < c->nrows; i++) row(o, c->rows[i]);
    if (c->kind == NX__C_TOTAL) P(o, " = %lld", (long long)c->n);
    else if (c->kind == NX__C_TOTAL_DIM) {
      P(o, " = ");
      dim(o, c->d2);
    }
    else {
      P(o, " = ");
      row(o, c->ex);
    }
    break;
  case NX__C_SHAPE_ROW:
  case NX__C_TERM_ROW:
    row(o, c->r1);
    if (c->t) P(o, " tensor=%d:%d", ((const nx_tensor *)c->t)->id, c->nrows);
    break;
  default:
    row(o, c->r1);
    P(o, " ~ ");
    row(o, c->r2);
  }
  P(o, " o=");
  origin(o, c->o, 0);
  P(o, "\n");
}

static void ilist(out_t *o, const nx__ilist *l) {
  P(o, "<");
  for (int i = l->head, k = 0; i; i = o->s->lk[i].next, k++) P(o, "%s%d", k ? "," : "", o->s->lk[i].x);
  P(o, ">");
}

static void ivec(out_t *o, const char *name, const nx__ivec *v) {
  P(o, " %s=<", name);
  for (int i = 0; i < v->n; i++) P(o, "%s%d", i ? "," : "", v->p[i]);
  P(o, ">");
}

static void var(out_t *o, int v) {
  nx_shape_session *s = o->s;
  const nx__var *e = NX__VARR(s, v);
  P(o, "var %d %s name=%s up=%d off=%d wake=%d flags=%d%d%d%d%d%d%d%d res=", v, e->is_row ? "row" : "dim", str(e->name),
    e->up, e->off, e->wake, e->is_param, e->safe_to_guess, e->in_pointwise, e->in_spec, e->hidden_param,
    e->closed_class, e->no_guess, NX__SELF(s, v).d != NULL);
  ilist(o, &e->res);
  P(o, " opnd=");
  ilist(o, &e->opnd);
  if (e->is_row) {
    P(o, " val=");
    row(o, NX__VAL(s, v).r);
    P(o, " lower=%d..%d watch=%d..%d stamp=%d pot=%lld drop=%lld edges=", e->lower, e->lower_tail, e->watch,
      e->watch_tail, e->stamp, (long long)e->pot, (long long)e->drop);
    for (const nx__edge *x = e->edges; x; x = x->next) P(o, "(%d>%d+%d)", x->from, x->to, x->w);
    P(o, " tail=%s", e->edges_tail ? "y" : "n");
  } else {
    P(o, " val=");
    dim(o, NX__VAL(s, v).d);
    P(o, " glb=");
    dim(o, e->glb);
    P(o, " glb_o=");
    origin(o, e->glb_o, 0);
    P(o, " at_least=%lld", (long long)e->at_least);
  }
  P(o, "\n");
}

static void hold(out_t *o, const char *name, const nx__hold *h) {
  P(o, "hold %s n=%d nlive=%d ncs=%d range=%d+%d@%d round=%d cur=%d active=%u armed=%d tag=%d stage=%d", name, h->n,
    h->nlive, h->ncs, h->vbase, h->vn, h->vt0, h->round, h->cur, h->active, h->armed, h->tag, h->stage);
  ivec(o, "live0", &h->live[0]);
  ivec(o, "live1", &h->live[1]);
  ivec(o, "next", &h->next);
  P(o, "\n");
  for (int id = 0; id < h->n; id++) {
    const nx__held *x = &h->p[id];
    P(o, " %d qp=%d group=%d alive=%d ", id, x->qp, x->group, x->alive);
    nx__cons c = nx__shape_hold_cons(o->s, h, id);
    cons(o, &c);
  }
}

int64_t nx_shape_dump(nx_shape_session *s, char *buf, size_t cap) {
  if (!s || (!buf && cap)) return nx__fail(NX_EINVAL, "nx_shape_dump: %s is NULL", s ? "the buffer" : "the session");
  out_t o = {s, buf, cap, 0};
  if (cap) buf[0] = 0;
  P(&o, "session nvars=%d tensors=%d next_tensor_id=%d stage=%d tainted=%d processed=%lld binds=%lld changes=%lld "
        "stamp=%d nlk=%d nlbs=%d nwk=%d wake_lost=%d subst_failed=%d\n",
    s->nvars, s->tensors.n, s->next_tensor_id, s->stage, s->tainted, (long long)s->nprocessed, (long long)s->nbinds,
    (long long)s->nchanges, s->stamp, s->nlk, s->nlbs, s->nwk, s->wake_lost, s->subst_failed);
  P(&o, "ids on=%d vars=%d..%d tensors=%d..%d\n", s->ids.on, s->ids.var_next, s->ids.var_end, s->ids.tensor_next,
    s->ids.tensor_end);
  P(&o, "err=%s\ntaint=%s\nsubst=%s\n", s->err, s->taint, s->subst_what);
  for (int v = 1; v < s->nvars; v++) var(&o, v);
  for (int i = 1; i <= s->nlbs; i++) {
    const nx__lbound *lb = &s->lbs[i];
    P(&o, "lbound %d owner=%d alive=%d next=%d,%d row=", i, lb->owner, lb->alive, lb->next_lower, lb->next_watch);
    row(&o, lb->row);
    P(&o, " o=");
    origin(&o, lb->o, 0);
    P(&o, "\n");
  }
  for (int i = 1; i <= s->nwk; i++) P(&o, "wk %d code=%d next=%d\n", i, s->wk[i].code, s->wk[i].next);
  for (int i = 0; i < s->tensors.n; i++) {
    const nx_tensor *t = s->tensors.p[i];
    P(&o, "tensor %d %s param=%d marks_off=%d", t->id, t->label, t->is_param, t->marks_off);
    for (int k = 0; k < 3; k++) {
      P(&o, " ");
      row(&o, t->rows[k]);
    }
    P(&o, "\n");
  }
  for (int i = 0; i < s->pending.n; i++) {
    P(&o, "pending %d ", i);
    cons(&o, &s->pending.p[i]);
  }
  for (int i = s->qhead; i < s->queue.n; i++) {
    P(&o, "queued %d ", i - s->qhead);
    cons(&o, &s->queue.p[i]);
  }
  hold(&o, "marks", &s->marks);
  hold(&o, "deferred", &s->deferred);
  return (int64_t)o.len;
}
