/* SPDX-License-Identifier: Apache-2.0 */
/* Held constraints: the marks kept for later stages and the constraints
   deferred until more is known. Each is registered on the variables it
   reads (those of its dims and rows under the current solution); a change to
   one of them (a binding, a new lower bound, a flag) wakes it. A round
   visits the woken entries in arrival order, so it does what a pass over
   every entry would do: an entry none of whose variables changed since its
   last visit at this stage would decide the same again, with no effect. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tensor_internal.h"
#include "../base/alloc.h"

void nx__shape_hold_init(nx__hold *h, int tag) {
  memset(h, 0, sizeof *h);
  h->tag = tag;
  h->cur = INT_MAX;
  h->armed = tag == 1;
  h->active = tag == 1 ? 1u : 0u;
}

void nx__shape_hold_free(nx__hold *h) {
  nx__free(h->p);
  nx__free(h->cs);
  nx__free(h->live[0].p);
  nx__free(h->live[1].p);
  nx__free(h->heap.p);
  nx__free(h->next.p);
  nx__free(h->seq.p);
}

int nx__shape_cvec_push(nx__cvec *v, const nx__cons *c) {
  if (v->n == v->cap && nx__shape_grow((void **)&v->p, &v->cap, v->n + 1, sizeof *v->p, 64)) return NX_ENOMEM;
  v->p[v->n++] = *c;
  return 0;
}

/* ---- Registration: the variables a constraint reads ---- */

/* Room for two more wake entries (index 0 unused): 0 or NX_ENOMEM; out of
   line, as it is rarely needed. */
static NX__NOINLINE int wk_grow(nx_shape_session *s) {
  if (s->nwk == INT_MAX - 1 || nx__shape_grow((void **)&s->wk, &s->capwk, s->nwk + 2, sizeof *s->wk, 1024))
    return NX_ENOMEM;
  return 0;
}

/* Records that held constraint `code` reads variable v (once in a row); NX_ENOMEM. */
static inline int reg(nx_shape_session *s, int v, int code) {
  int last = NX__VARR(s, v)->wake;
  if (last && s->wk[last].code == code) return 0; /* just registered: nothing changes, nothing logged */
  if (s->capwk - s->nwk < 2 && wk_grow(s)) return NX_ENOMEM;
  nx__var *e = NX__VAR(s, v);
  int i = ++s->nwk; /* index 0 is "none" */
  s->wk[i].code = code;
  s->wk[i].next = e->wake;
  e->wake = i;
  return 0;
}

/* Registers code on the unsolved variables of d, through solved variables' values. */
static int reg_dim(nx_shape_session *s, const nx_dim *d, int code) {
  switch (d->kind) {
  case NX__D_VAR: {
    const nx_dim *v = NX__VAL(s, d->var).d;
    return v ? reg_dim(s, v, code) : reg(s, d->var, code);
  }
  case NX__D_AFFINE: {
    int rc = reg_dim(s, d->over, code);
    return rc || !d->kernel ? rc : reg_dim(s, d->kernel, code);
  }
  case NX__D_CONCAT:
    for (int i = 0; i < d->nparts; i++) {
      int rc = reg_dim(s, d->parts[i], code);
      if (rc) return rc;
    }
  }
  return 0;
}

/* Registers code on r's dims and its row variable's chain. */
static int reg_row(nx_shape_session *s, const nx_row *r, int code) {
  for (;;) {
    for (int i = 0; i < r->nbeg + r->ndims; i++) {
      int rc = reg_dim(s, r->beg[i], code); /* beg and dims are contiguous */
      if (rc) return rc;
    }
    if (!r->var) return 0;
    const nx_row *v = NX__VAL(s, r->var).r;
    if (!v) return reg(s, r->var, code);
    r = v;
  }
}

/* Registers held entry id of h, whose constraint is c, on every variable c
   reads now. */
static int watch(nx_shape_session *s, nx__hold *h, int id, const nx__cons *c) {
  int code = id << 1 | h->tag, rc = 0;
  switch (c->kind) {
  case NX__C_DIM_EQ:
  case NX__C_DIM_INEQ:
    rc = reg_dim(s, c->d1, code);
    return rc ? rc : reg_dim(s, c->d2, code);
  case NX__C_AT_LEAST:
  case NX__C_TERM_DIM: return reg_dim(s, c->d1, code);
  case NX__C_ROW_EQ:
  case NX__C_ROW_INEQ:
    rc = reg_row(s, c->r1, code);
    return rc ? rc : reg_row(s, c->r2, code);
  case NX__C_TOTAL:
  case NX__C_TOTAL_DIM:
  case NX__C_EXACT:
    for (int i = 0; i < c->nrows && !rc; i++) rc = reg_row(s, c->rows[i], code);
    if (c->kind == NX__C_TOTAL_DIM && !rc) rc = reg_dim(s, c->d2, code);
    for (int i = 0; c->kind == NX__C_EXACT && c->ex && i < c->ex->ndims && !rc; i++) rc = reg_dim(s, c->ex->dims[i], code);
    return rc;
  default: return reg_row(s, c->r1, code);
  }
}

/* ---- The pool ---- */

static void compact(nx__hold *h) {
  if (h->live[0].n + h->live[1].n == h->nlive) return; /* none dead */
  for (int g = 0; g < 2; g++) {
    int k = 0;
    for (int i = 0; i < h->live[g].n; i++)
      if (h->p[h->live[g].p[i]].alive) h->live[g].p[k++] = h->live[g].p[i];
    h->live[g].n = k;
  }
}

/* Entry id's constraint into *c (inline for the rounds, which make one per visit). */
static inline void held_cons(nx_shape_session *s, const nx__hold *h, int id, nx__cons *c) {
  if (id >= h->vbase && id - h->vbase < h->vn) nx__shape_closing_cons(s, 3 * h->vt0 + (id - h->vbase), c);
  else *c = h->cs[id < h->vbase ? id : id - h->vn];
}

nx__cons nx__shape_hold_cons(nx_shape_session *s, const nx__hold *h, int id) {
  nx__cons c;
  held_cons(s, h, id, &c);
  return c;
}

/* Room for n more ids. */
static int grow(nx__hold *h, int n) {
  if (n > INT_MAX - h->n) return NX_ENOMEM;
  return nx__shape_grow((void **)&h->p, &h->cap, h->n + n, sizeof *h->p, 256);
}

/* Appends c to h with the next id, live, watched when h is armed (requeued
   if its step changed something). */
int nx__shape_hold_add(nx_shape_session *s, nx__hold *h, const nx__cons *c, bool changed) {
  if (h->live[0].n + h->live[1].n > 2 * h->nlive + 64) compact(h);
  if (grow(h, 1)) return NX_ENOMEM;
  if (h->ncs == h->capcs && nx__shape_grow((void **)&h->cs, &h->capcs, h->ncs + 1, sizeof *h->cs, 256)) return NX_ENOMEM;
  int id = h->n++, g = h->tag == 0 && c->kind == NX__C_SHAPE_ROW;
  h->cs[h->ncs++] = *c;
  nx__held *x = &h->p[id];
  x->qp = 0;
  x->group = g;
  x->alive = true;
  h->nlive++;
  if (nx__shape_ivec_push(&h->live[g], id)) return NX_ENOMEM;
  if (!h->armed) return 0;
  int rc = watch(s, h, id, c);
  return rc || !changed ? rc : nx__shape_hold_requeue(s, h, id);
}

/* What n calls of nx__shape_hold_add with the interior marks of the rows of
   tensors t0.. would do, their constraints not stored; one range only, and
   only while wakes are not recorded (else they are added one by one). */
int nx__shape_hold_add_rows(nx_shape_session *s, nx__hold *h, int t0, int n) {
  if (h->vn || h->armed || h->tag != 0) {
    for (int i = 0; i < n; i++) {
      nx__cons c;
      nx__shape_closing_cons(s, 3 * t0 + i, &c);
      int rc = nx__shape_hold_add(s, h, &c, false);
      if (rc) return rc;
    }
    return 0;
  }
  if (h->live[0].n + h->live[1].n > 2 * h->nlive + 64) compact(h);
  nx__ivec *l = &h->live[1];
  /* both tables sized once for the whole range: no doubling copies */
  if (grow(h, n) || n > INT_MAX - l->n || nx__shape_grow((void **)&l->p, &l->cap, l->n + n, sizeof *l->p, 8))
    return NX_ENOMEM;
  h->vbase = h->n;
  h->vn = n;
  h->vt0 = t0;
  for (int i = 0; i < n; i++) {
    int id = h->n++;
    h->p[id] = (nx__held){.qp = 0, .group = 1, .alive = true};
    l->p[l->n++] = id;
  }
  h->nlive += n;
  return 0;
}

/* The least live id over both groups (their lists are ascending). */
int nx__shape_hold_first(const nx__hold *h) {
  int best = -1;
  for (int g = 0; g < 2; g++)
    for (int i = 0; i < h->live[g].n; i++)
      if (h->p[h->live[g].p[i]].alive) {
        if (best < 0 || h->live[g].p[i] < best) best = h->live[g].p[i];
        break;
      }
  return best;
}

/* ---- Waking ---- */

/* A min-heap of ids: push x. */
static int heap_push(nx__ivec *q, int x) {
  if (nx__shape_ivec_push(q, x)) return NX_ENOMEM;
  int i = q->n - 1;
  while (i > 0 && q->p[(i - 1) / 2] > q->p[i]) {
    int p = (i - 1) / 2, t = q->p[p];
    q->p[p] = q->p[i];
    q->p[i] = t;
    i = p;
  }
  return 0;
}

/* A min-heap of ids: the least, removed. */
static int heap_pop(nx__ivec *q) {
  int top = q->p[0], i = 0;
  q->p[0] = q->p[--q->n];
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < q->n && q->p[l] < q->p[m]) m = l;
    if (r < q->n && q->p[r] < q->p[m]) m = r;
    if (m == i) return top;
    int t = q->p[m];
    q->p[m] = q->p[i];
    q->p[i] = t;
    i = m;
  }
}

int nx__shape_hold_requeue(nx_shape_session *s, nx__hold *h, int id) {
  (void)s;
  nx__held *x = &h->p[id];
  if (!h->armed || !x->alive || x->qp == h->round + 1) return 0;
  x->qp = h->round + 1;
  return nx__shape_ivec_push(&h->next, id) ? NX_ENOMEM : 0;
}

/* Queues entry id for this round if it comes after the one running, else for
   the next; a lost wake sets s->wake_lost. */
static void wake_one(nx_shape_session *s, nx__hold *h, int id) {
  if (!h->armed || id >= h->n) return;
  nx__held *x = &h->p[id];
  if (!x->alive || !(h->active >> x->group & 1u)) return;
  if (id > h->cur) { /* later in this round's order: run it in this round */
    if (x->qp == h->round) return;
    x->qp = h->round;
    if (heap_push(&h->heap, id)) s->wake_lost = true;
    return;
  }
  if (x->qp == h->round + 1) return;
  x->qp = h->round + 1;
  if (nx__shape_ivec_push(&h->next, id)) s->wake_lost = true;
}

void nx__shape_wake(nx_shape_session *s, int v) {
  for (int i = NX__VARR(s, v)->wake; i; i = s->wk[i].next) {
    int code = s->wk[i].code;
    wake_one(s, code & 1 ? &s->deferred : &s->marks, code >> 1);
  }
}

/* ---- Rounds ---- */

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The outcome of running entry id of h: kept (registered again on what it
   reads now), dropped, or moved to the other hold. */
static int settle(nx_shape_session *s, nx__hold *h, int id, const nx__cons *c, int rc, bool changed) {
  int stay = h->tag == 0 ? NX__KEEP : NX__DEFER;
  if (rc == stay) {
    if (!h->armed) return 0;
    rc = watch(s, h, id, c);
    return rc || !changed ? rc : nx__shape_hold_requeue(s, h, id);
  }
  h->p[id].alive = false;
  h->nlive--;
  if (rc == NX__KEEP) return nx__shape_hold_add(s, &s->marks, c, changed);
  if (rc == NX__DEFER) return nx__shape_hold_add(s, &s->deferred, c, changed);
  return 0;
}

/* One round over h in id order: every live active entry (full) or the woken
   ones, including those woken during the round; stops at the first error. */
int nx__shape_hold_round(nx_shape_session *s, nx__hold *h, bool full, int stage) {
  s->stage = stage;
  if (stage > 1 && s->rec) s->forced_dims = true;
  h->round += 1;
  h->heap.n = 0;
  nx__ivec *seq = &h->seq;
  seq->n = 0;
  if (full) {
    compact(h);
    nx__ivec *a = &h->live[0], *b = &h->live[1];
    bool ua = h->active & 1u, ub = h->active & 2u;
    int i = 0, j = 0;
    /* room for both lists at once: the merge then stores without checks */
    if (nx__shape_grow((void **)&seq->p, &seq->cap, (ua ? a->n : 0) + (ub ? b->n : 0), sizeof *seq->p, 64))
      return NX_ENOMEM;
    while ((ua && i < a->n) || (ub && j < b->n)) {
      int x;
      if (ua && i < a->n && (!ub || j >= b->n || a->p[i] < b->p[j])) x = a->p[i++];
      else x = b->p[j++];
      seq->p[seq->n++] = x;
      h->p[x].qp = h->round;
    }
    h->next.n = 0;
  } else {
    nx__ivec t = *seq;
    *seq = h->next;
    h->next = t;
    h->next.n = 0;
    int k = 1;
    while (k < seq->n && seq->p[k - 1] < seq->p[k]) k++;
    if (k < seq->n) qsort(seq->p, (size_t)seq->n, sizeof *seq->p, cmp_int); /* mostly woken in order already */
  }
  int i = 0, rc = 0;
  while (!rc) {
    int id;
    if (i < seq->n && (!h->heap.n || seq->p[i] < h->heap.p[0])) id = seq->p[i++];
    else if (h->heap.n) id = heap_pop(&h->heap);
    else break;
    nx__held *x = &h->p[id];
    if (!x->alive || !(h->active >> x->group & 1u)) continue;
    h->cur = id;
    nx__cons c;
    held_cons(s, h, id, &c);
    s->nprocessed++;
    int64_t before = s->nchanges;
    rc = nx__shape_step(s, &c, stage);
    if (rc >= 0) rc = settle(s, h, id, &c, rc, s->nchanges != before);
    if (!rc && s->wake_lost) rc = NX_ENOMEM;
    if (!rc && s->subst_failed)
      rc = nx__shape_subst_error(s, c.o || c.kind != NX__C_SHAPE_ROW || !c.t ? c.o : nx__shape_closing_origin(s, &c));
  }
  h->cur = INT_MAX;
  h->heap.n = 0;
  return rc;
}
