/* SPDX-License-Identifier: Apache-2.0 */
/* The rank graph over row variables. An edge v -k-> w says rank v >= rank w
   + k; a cycle of positive weight means infinitely many axes. Bound row
   variables join their value's class (union-find with rank offsets: rank v
   = rank up(v) + off(v)), so edges recorded before a binding keep their
   meaning. A variable bound to a closed row leaves the graph.

   Every class keeps a potential `pot`, a rank assignment that satisfies
   every edge; one exists exactly while the graph has no positive cycle. A
   new edge (or a join, which is a pair of edges of opposite weights) that
   the potentials already satisfy cannot close a positive cycle: that check
   is O(1). Otherwise the head of the edge, and what lies below it, is
   lowered by the least amounts that satisfy every edge again, each class
   once, in order of decreasing drop (Dijkstra's order over the slacks,
   which are never negative): if the tail itself has to drop, the new edge
   closes a positive cycle. A search visits only the classes it lowers, in
   O(E log E) for the edges it crosses. */
#include <stdlib.h>

#include "solver.h"
#include "../base/alloc.h"

/* The search's body is kept out of line (NX__NOINLINE) so that satisfy's
   common case (no lowering needed) saves no registers. */

#define RANK_CYCLE "Infinite number of axes by rank cycle among row variables"

/* rank_find's far case: a path of two links or more, compressed so that
   each node on it points at the root. */
static int rank_find_far(nx_shape_session *s, int v, int *off) {
  int o = 0, r = v;
  for (const nx__var *e; (e = NX__VARR(s, r))->up != r; r = e->up) o += e->off;
  int rem = o, x = v;
  while (x != r && NX__VARR(s, x)->up != r) {
    nx__var *e = NX__VAR(s, x);
    int next = e->up, xo = e->off;
    e->up = r;
    e->off = rem;
    rem -= xo;
    x = next;
  }
  *off = o;
  return r;
}

/* v's class root, and rank(v) - rank(root) in *off. Most variables are a
   root or one link from it: those cost two reads and no change. */
static inline int rank_find(nx_shape_session *s, int v, int *off) {
  const nx__var *e = NX__VARR(s, v);
  if (e->up == v) {
    *off = 0;
    return v;
  }
  if (NX__VARR(s, e->up)->up == e->up) {
    *off = e->off;
    return e->up;
  }
  return rank_find_far(s, v, off);
}

/* A max-heap of (drop, class) entries; stale ones are skipped on pop. */
typedef struct {
  struct entry { int64_t drop; int v; } *p;
  int n, cap;
} heap;

static int heap_push(heap *h, int64_t drop, int v) {
  if (h->n == h->cap && nx__shape_grow((void **)&h->p, &h->cap, h->n + 1, sizeof *h->p, 64)) return NX_ENOMEM;
  int i = h->n++;
  for (; i && h->p[(i - 1) / 2].drop < drop; i = (i - 1) / 2) h->p[i] = h->p[(i - 1) / 2];
  h->p[i] = (struct entry){drop, v};
  return 0;
}

/* The entry of greatest drop, removed. */
static struct entry heap_pop(heap *h) {
  struct entry top = h->p[0], last = h->p[--h->n];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && h->p[c + 1].drop > h->p[c].drop) c++;
    if (h->p[c].drop <= last.drop) break;
    h->p[i] = h->p[c];
    i = c;
  }
  if (h->n) h->p[i] = last;
  return top;
}

/* Makes the potentials satisfy rank(u) >= rank(v) + w between class roots
   u != v (neither closed): lowers v and what its edges force below it.
   NX_EINVAL (message set) if u would have to drop: a positive cycle. */
static NX__NOINLINE int lower(nx_shape_session *s, int u, int v, int64_t need, const nx__origin *o);

static inline int satisfy(nx_shape_session *s, int u, int v, int64_t w, const nx__origin *o) {
  int64_t need = NX__VARR(s, v)->pot + w - NX__VARR(s, u)->pot;
  return need <= 0 ? 0 : lower(s, u, v, need, o);
}

/* satisfy's search, for a positive need. */
static NX__NOINLINE int lower(nx_shape_session *s, int u, int v, int64_t need, const nx__origin *o) {
  int stamp = ++s->stamp, rc = 0;
  nx__var *x0 = NX__VAR(s, v);
  if (!x0->edges) { /* the search would lower v alone, finishing it at once */
    x0->stamp = -stamp;
    x0->drop = need;
    x0->pot -= need;
    return 0;
  }
  heap h = {0};
  nx__ivec done = {0};
  NX__VAR(s, v)->stamp = stamp;
  NX__VAR(s, v)->drop = need;
  if (heap_push(&h, need, v)) rc = NX_ENOMEM;
  while (!rc && h.n) {
    struct entry top = heap_pop(&h);
    nx__var *x = NX__VAR(s, top.v);
    if (top.drop != x->drop || x->stamp != stamp) continue; /* stale, or finished */
    x->stamp = -stamp; /* finished: its drop is final */
    if (top.v == u) {
      rc = nx__shape_error(s, o, RANK_CYCLE);
      break;
    }
    if (nx__shape_ivec_push(&done, top.v)) {
      rc = NX_ENOMEM;
      break;
    }
    for (nx__edge *e = x->edges; e && !rc; e = e->next) {
      int of, ot, rf = rank_find(s, e->from, &of), rt = rank_find(s, e->to, &ot);
      const nx__var *y = NX__VARR(s, rt);
      if (rf != top.v || y->closed_class || y->stamp == -stamp) continue;
      /* slack of the edge under the old potentials, never negative */
      int64_t slack = x->pot - y->pot - ((int64_t)e->w + ot - of), d = top.drop - slack;
      if (d > 0 && (y->stamp != stamp || d > y->drop)) {
        nx__var *yw = NX__VAR(s, rt);
        yw->stamp = stamp;
        yw->drop = d;
        if (heap_push(&h, d, rt)) rc = NX_ENOMEM;
      }
    }
  }
  if (!rc)
    for (int i = 0; i < done.n; i++) {
      nx__var *e = NX__VAR(s, done.p[i]);
      e->pot -= e->drop;
    }
  nx__free(h.p);
  nx__free(done.p);
  return rc;
}

/* v := val in the rank classes: v's class joins val's row variable's with
   the offset val's flanks give, or is closed; NX_EINVAL on a positive cycle. */
int nx__shape_rank_union(nx_shape_session *s, int v, const nx_row *val, const nx__origin *o) {
  int ov, rv = rank_find(s, v, &ov);
  if (!val->var) {
    NX__VAR(s, rv)->closed_class = true;
    return 0;
  }
  int ow, rw = rank_find(s, val->var, &ow);
  int off = ow + val->nbeg + val->ndims - ov; /* rank(rv) = rank(rw) + off */
  if (rv == rw) return off ? nx__shape_error(s, o, RANK_CYCLE) : 0;
  if (!NX__VARR(s, rv)->closed_class && !NX__VARR(s, rw)->closed_class) {
    int rc = satisfy(s, rv, rw, off, o);
    if (!rc) rc = satisfy(s, rw, rv, -(int64_t)off, o);
    if (rc) return rc;
  }
  nx__var *a = NX__VAR(s, rv), *b = NX__VAR(s, rw);
  a->up = rw;
  a->off = off;
  b->closed_class |= a->closed_class;
  if (a->edges) {
    if (b->edges_tail) {
      NX__LOG_FIELD(s, b->edges_tail->next);
      b->edges_tail->next = a->edges;
    } else
      b->edges = a->edges;
    b->edges_tail = a->edges_tail;
    a->edges = a->edges_tail = NULL;
  }
  return 0;
}

/* rank(from) >= rank(to) + w, kept on the tail class; nothing for a closed
   class; NX_EINVAL on a positive cycle. */
int nx__shape_rank_edge(nx_shape_session *s, int from, int to, int w, const nx__origin *o) {
  int of, ot, rf = rank_find(s, from, &of), rt = rank_find(s, to, &ot);
  if (NX__VARR(s, rf)->closed_class || NX__VARR(s, rt)->closed_class) return 0;
  int64_t W = (int64_t)w + ot - of;
  if (rf == rt) return W > 0 ? nx__shape_error(s, o, RANK_CYCLE) : 0;
  int rc = satisfy(s, rf, rt, W, o);
  if (rc) return rc;
  nx__edge *e = nx__shape_alloc(s, sizeof *e);
  if (!e) return NX_ENOMEM;
  e->from = from;
  e->to = to;
  e->w = w;
  nx__var *a = NX__VAR(s, rf);
  if (a->edges_tail) {
    NX__LOG_FIELD(s, a->edges_tail->next);
    a->edges_tail->next = e;
  } else
    a->edges = e;
  a->edges_tail = e;
  return 0;
}
