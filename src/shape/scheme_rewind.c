/* SPDX-License-Identifier: Apache-2.0 */
/* The rewind a trace and a definition check run inside: a copy of the
   session's solver state taken before, put back after, so that nothing the
   window did (variables, tensors, constraints, bindings, marks, a taint)
   remains and the next ids are the ones the window started from. The
   arena keeps what was made before the window; what the window made is
   freed. */
#include <string.h>

#include "scheme_internal.h"
#include "../base/alloc.h"

struct nx__rewind {
  nx_shape_session saved; /* the struct by value: counts, scalars, messages */
  nx__var *vars;          /* variables 0..nvars-1 */
  nx__val *val, *self;
  nx__cons *pending, *queue;
  nx__link *lk;
  nx__lbound *lbs;
  void *wk;
  void **tensors;
  struct { nx__held *p; nx__cons *cs; int *live[2], *heap, *next; } hold[2];
  nx__edge **edges; /* every edge reachable from a variable, and its next */
  nx__edge **enext;
  int nedges;
  /* the arenas' heads at the start: a chunk, its fill and its successor */
  nx__chunk *head[2], *after[2];
  size_t used[2];
};

/* The arena's chunk layout (arena.c): the fields a rewind resets. */
struct nx__chunk {
  nx__chunk *next;
  size_t used, cap;
  _Alignas(max_align_t) unsigned char data[];
};

static void *dup(const void *p, size_t n) {
  if (!p || !n) return nx__malloc(1); /* never NULL unless out of memory */
  void *q = nx__malloc(n);
  if (q) memcpy(q, p, n);
  return q;
}

static bool dup_hold(struct nx__rewind *w, int k, const nx__hold *h) {
  w->hold[k].p = dup(h->p, (size_t)h->n * sizeof *h->p);
  w->hold[k].cs = dup(h->cs, (size_t)h->ncs * sizeof *h->cs);
  w->hold[k].live[0] = dup(h->live[0].p, (size_t)h->live[0].n * sizeof(int));
  w->hold[k].live[1] = dup(h->live[1].p, (size_t)h->live[1].n * sizeof(int));
  w->hold[k].heap = dup(h->heap.p, (size_t)h->heap.n * sizeof(int));
  w->hold[k].next = dup(h->next.p, (size_t)h->next.n * sizeof(int));
  return w->hold[k].p && w->hold[k].cs && w->hold[k].live[0] && w->hold[k].live[1] && w->hold[k].heap &&
         w->hold[k].next;
}

static void free_hold(struct nx__rewind *w, int k) {
  nx__free(w->hold[k].p);
  nx__free(w->hold[k].cs);
  nx__free(w->hold[k].live[0]);
  nx__free(w->hold[k].live[1]);
  nx__free(w->hold[k].heap);
  nx__free(w->hold[k].next);
}

void nx__rewind_free(nx__rewind *w) {
  if (!w) return;
  nx__free(w->vars);
  nx__free(w->val);
  nx__free(w->self);
  nx__free(w->pending);
  nx__free(w->queue);
  nx__free(w->lk);
  nx__free(w->lbs);
  nx__free(w->wk);
  nx__free(w->tensors);
  free_hold(w, 0);
  free_hold(w, 1);
  nx__free(w->edges);
  nx__free(w->enext);
  nx__free(w);
}

static int save_edges(nx__rewind *w, nx_shape_session *s) {
  int cap = 0;
  for (int v = 1; v < s->nvars; v++) {
    const nx__var *e = NX__VAR(s, v);
    if (!e->is_row) continue;
    for (nx__edge *x = e->edges; x; x = x->next) {
      if (w->nedges == cap) {
        cap = cap ? 2 * cap : 64;
        nx__edge **a = nx__realloc(w->edges, (size_t)cap * sizeof *a), **b;
        if (!a) return NX_ENOMEM;
        w->edges = a;
        if (!(b = nx__realloc(w->enext, (size_t)cap * sizeof *b))) return NX_ENOMEM;
        w->enext = b;
      }
      w->edges[w->nedges] = x;
      w->enext[w->nedges++] = x->next;
    }
  }
  return 0;
}

nx__rewind *nx__rewind_take(nx_shape_session *s) {
  nx__rewind *w = nx__calloc(1, sizeof *w);
  if (!w) return NULL;
  w->saved = *s;
  int nv = s->nvars;
  w->vars = nx__malloc((size_t)nv * sizeof *w->vars);
  if (w->vars)
    for (int v = 1; v < nv; v++) w->vars[v] = *NX__VAR(s, v);
  w->val = dup(s->val, (size_t)nv * sizeof *s->val);
  w->self = dup(s->self, (size_t)nv * sizeof *s->self);
  w->pending = dup(s->pending.p, (size_t)s->pending.n * sizeof(nx__cons));
  w->queue = dup(s->queue.p, (size_t)s->queue.n * sizeof(nx__cons));
  w->lk = dup(s->lk, (size_t)(s->nlk + 1) * sizeof *s->lk);
  w->lbs = dup(s->lbs, (size_t)(s->nlbs + 1) * sizeof *s->lbs);
  w->wk = dup(s->wk, (size_t)(s->nwk + 1) * sizeof *s->wk);
  w->tensors = dup(s->tensors.p, (size_t)s->tensors.n * sizeof(void *));
  bool ok = w->vars && w->val && w->self && w->pending && w->queue && w->lk && w->lbs && w->wk && w->tensors &&
            dup_hold(w, 0, &s->marks) && dup_hold(w, 1, &s->deferred) && !save_edges(w, s);
  nx__chunk *heads[2] = {s->chunks, s->self_chunks};
  for (int k = 0; k < 2; k++) {
    w->head[k] = heads[k];
    w->after[k] = heads[k] ? heads[k]->next : NULL;
    w->used[k] = heads[k] ? heads[k]->used : 0;
  }
  if (!ok) {
    nx__rewind_free(w);
    return NULL;
  }
  return w;
}

/* Frees the chunks made since the rewind was taken and refills the head
   from where it was (arena.c prepends new chunks and puts a big object's
   chunk right after the head). */
static nx__chunk *rewind_arena(nx__chunk *cur, nx__chunk *head, nx__chunk *after, size_t used) {
  nx__chunk *c = cur;
  while (c && c != head) {
    nx__chunk *n = c->next;
    nx__free(c);
    c = n;
  }
  if (!head) return NULL;
  for (nx__chunk *x = head->next; x && x != after;) {
    nx__chunk *n = x->next;
    nx__free(x);
    x = n;
  }
  head->next = after;
  memset(head->data + used, 0, head->used - used); /* chunks are handed out zeroed */
  head->used = used;
  return head;
}

/* h was cur (the buffers now) and becomes was (the contents then). */
static void put_hold(nx__hold *h, const nx__hold *cur0, const nx__hold *was, struct nx__rewind *w, int k) {
  nx__hold cur = *cur0;
  *h = *was;
  h->p = cur.p, h->cap = cur.cap, h->cs = cur.cs, h->capcs = cur.capcs;
  for (int i = 0; i < 2; i++) h->live[i].p = cur.live[i].p, h->live[i].cap = cur.live[i].cap;
  h->heap.p = cur.heap.p, h->heap.cap = cur.heap.cap, h->next.p = cur.next.p, h->next.cap = cur.next.cap;
  h->seq = cur.seq;
  h->seq.n = 0;
  if (was->n) memcpy(h->p, w->hold[k].p, (size_t)was->n * sizeof *h->p);
  if (was->ncs) memcpy(h->cs, w->hold[k].cs, (size_t)was->ncs * sizeof *h->cs);
  for (int i = 0; i < 2; i++)
    if (was->live[i].n) memcpy(h->live[i].p, w->hold[k].live[i], (size_t)was->live[i].n * sizeof(int));
  if (was->heap.n) memcpy(h->heap.p, w->hold[k].heap, (size_t)was->heap.n * sizeof(int));
  if (was->next.n) memcpy(h->next.p, w->hold[k].next, (size_t)was->next.n * sizeof(int));
}

void nx__rewind_restore(nx_shape_session *s, nx__rewind *w) {
  const nx_shape_session *was = &w->saved;
  nx_shape_session cur = *s;
  *s = *was;
  /* the buffers stay the current ones (they only grow), with the saved contents */
  s->vpages = cur.vpages, s->nvpages = cur.nvpages, s->capvpages = cur.capvpages;
  s->val = cur.val, s->self = cur.self, s->capvars = cur.capvars;
  s->pending.p = cur.pending.p, s->pending.cap = cur.pending.cap;
  s->queue.p = cur.queue.p, s->queue.cap = cur.queue.cap;
  s->tensors.p = cur.tensors.p, s->tensors.cap = cur.tensors.cap;
  s->wk = cur.wk, s->capwk = cur.capwk;
  s->lk = cur.lk, s->caplk = cur.caplk;
  s->lbs = cur.lbs, s->caplbs = cur.caplbs;
  s->rec = cur.rec;
  for (int v = 1; v < was->nvars; v++) *NX__VAR(s, v) = w->vars[v];
  if (was->val) memcpy(s->val, w->val, (size_t)was->nvars * sizeof *s->val);
  if (was->self) memcpy(s->self, w->self, (size_t)was->nvars * sizeof *s->self);
  if (was->pending.n) memcpy(s->pending.p, w->pending, (size_t)was->pending.n * sizeof(nx__cons));
  if (was->queue.n) memcpy(s->queue.p, w->queue, (size_t)was->queue.n * sizeof(nx__cons));
  if (was->lk) memcpy(s->lk, w->lk, (size_t)(was->nlk + 1) * sizeof *s->lk);
  if (was->lbs) memcpy(s->lbs, w->lbs, (size_t)(was->nlbs + 1) * sizeof *s->lbs);
  if (was->wk) memcpy(s->wk, w->wk, (size_t)(was->nwk + 1) * sizeof *s->wk);
  if (was->tensors.n) memcpy(s->tensors.p, w->tensors, (size_t)was->tensors.n * sizeof(void *));
  put_hold(&s->marks, &cur.marks, &was->marks, w, 0);
  put_hold(&s->deferred, &cur.deferred, &was->deferred, w, 1);
  for (int i = 0; i < w->nedges; i++) w->edges[i]->next = w->enext[i];
  s->chunks = rewind_arena(cur.chunks, w->head[0], w->after[0], w->used[0]);
  s->self_chunks = rewind_arena(cur.self_chunks, w->head[1], w->after[1], w->used[1]);
}

const nx__var *nx__rewind_var(const nx__rewind *w, int v) { return &w->vars[v]; }
