/* SPDX-License-Identifier: Apache-2.0 */
/* The rank graph over row variables. An edge v -k-> w says rank v >= rank w
   + k; a cycle of positive weight means infinitely many axes. Bound row
   variables join their value's class (union-find with rank offsets: rank v
   = rank up(v) + off(v)), so edges recorded before a binding keep their
   meaning. A variable bound to a closed row leaves the graph. */
#include <stdlib.h>

#include "internal.h"
#include "../base/alloc.h"

#define RANK_CYCLE "Infinite number of axes by rank cycle among row variables"

int nx__rank_find(nx_shape_session *s, int v, int *off) {
  int o = 0, r = v;
  while (NX__VAR(s, r)->up != r) {
    o += NX__VAR(s, r)->off;
    r = NX__VAR(s, r)->up;
  }
  /* path compression: each node on the path points at the root */
  int rem = o, x = v;
  while (x != r && NX__VAR(s, x)->up != r) {
    int next = NX__VAR(s, x)->up, xo = NX__VAR(s, x)->off;
    NX__VAR(s, x)->up = r;
    NX__VAR(s, x)->off = rem;
    rem -= xo;
    x = next;
  }
  *off = o;
  return r;
}

int nx__rank_union(nx_shape_session *s, int v, const nx_row *val) {
  int ov, rv = nx__rank_find(s, v, &ov);
  if (!val->var) {
    NX__VAR(s, rv)->closed_class = true;
    return 0;
  }
  int ow, rw = nx__rank_find(s, val->var, &ow);
  if (rv == rw) return 0;
  nx__var *a = NX__VAR(s, rv), *b = NX__VAR(s, rw);
  a->up = rw;
  a->off = ow + val->nbeg + val->ndims - ov;
  b->closed_class |= a->closed_class;
  if (a->edges) {
    if (b->edges_tail) b->edges_tail->next = a->edges;
    else b->edges = a->edges;
    b->edges_tail = a->edges_tail;
    a->edges = a->edges_tail = NULL;
  }
  b->nin += a->nin;
  b->nout += a->nout;
  return 0;
}

/* The longest path from `from` to `target` over the classes, or INT_MIN if
   none; a bounded search (the graph has no positive cycle). */
static int longest(nx_shape_session *s, int from, int target, int *found) {
  int cap = 64, n = 0, head = 0;
  int *q = nx__malloc((size_t)cap * sizeof *q);
  if (!q) return NX_ENOMEM;
  int stamp = ++s->stamp;
  NX__VAR(s, from)->stamp = stamp;
  NX__VAR(s, from)->dist = 0;
  q[n++] = from;
  long budget = 200000;
  *found = 0;
  int best = 0;
  while (head < n && budget-- > 0) {
    int u = q[head++];
    for (nx__edge *e = NX__VAR(s, u)->edges; e; e = e->next) {
      int of, ot, rf = nx__rank_find(s, e->from, &of), rt = nx__rank_find(s, e->to, &ot);
      if (rf != u || NX__VAR(s, rt)->closed_class) continue;
      int d = NX__VAR(s, u)->dist + e->w + ot - of;
      if (NX__VAR(s, rt)->stamp != stamp || d > NX__VAR(s, rt)->dist) {
        NX__VAR(s, rt)->stamp = stamp;
        NX__VAR(s, rt)->dist = d;
        if (rt == target) {
          if (!*found || d > best) best = d;
          *found = 1;
          continue;
        }
        if (n == cap) {
          /* compact the consumed prefix before growing */
          if (head > 0) {
            for (int i = head; i < n; i++) q[i - head] = q[i];
            n -= head;
            head = 0;
          }
          if (n == cap) {
            int *nq = nx__realloc(q, (size_t)cap * 2 * sizeof *q);
            if (!nq) {
              nx__free(q);
              return NX_ENOMEM;
            }
            q = nq;
            cap *= 2;
          }
        }
        q[n++] = rt;
      }
    }
  }
  nx__free(q);
  return best;
}

int nx__rank_edge(nx_shape_session *s, int from, int to, int w, const nx__origin *o) {
  int of, ot, rf = nx__rank_find(s, from, &of), rt = nx__rank_find(s, to, &ot);
  if (NX__VAR(s, rf)->closed_class || NX__VAR(s, rt)->closed_class) return 0;
  int W = w + ot - of;
  if (rf == rt) return W > 0 ? nx__error(s, o, RANK_CYCLE) : 0;
  nx__edge *e = nx__shape_alloc(s, sizeof *e);
  if (!e) return NX_ENOMEM;
  e->from = from;
  e->to = to;
  e->w = w;
  nx__var *a = NX__VAR(s, rf);
  if (a->edges_tail) a->edges_tail->next = e;
  else a->edges = e;
  a->edges_tail = e;
  a->nout++;
  NX__VAR(s, rt)->nin++;
  if (NX__VAR(s, rf)->nin == 0 || NX__VAR(s, rt)->nout == 0) return 0;
  int found = 0, d = longest(s, rt, rf, &found);
  if (d == NX_ENOMEM && !found) return NX_ENOMEM;
  if (found && d + W > 0) return nx__error(s, o, RANK_CYCLE);
  return 0;
}
