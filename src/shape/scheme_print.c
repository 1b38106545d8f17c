/* SPDX-License-Identifier: Apache-2.0 */
/* A scheme's printed form, read off the session as the trace left it
   (before the rewind): the boundary's shapes under the trace's solution,
   then the broadcasting inequalities and lower bounds that involve a
   variable the trace made, with the function's intermediate variables
   eliminated along monotone chains. Variables are named by first
   appearance in the text, so it does not depend on the session's ids. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "scheme_internal.h"
#include "../base/alloc.h"

typedef struct {
  char *p;
  size_t n, cap;
  bool nomem;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) NX__PRINTF(2, 3);
static void put(sbuf *b, const char *fmt, ...) {
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  /* measured first: a piece (a label) may be of any length */
  int w = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (w >= 0 && b->n + (size_t)w + 1 > b->cap) {
    size_t nc = (b->cap ? b->cap * 2 : 256) + (size_t)w;
    char *q = nx__realloc(b->p, nc);
    if (!q) b->nomem = true, w = -1;
    else b->p = q, b->cap = nc;
  }
  if (w >= 0) {
    vsnprintf(b->p + b->n, b->cap - b->n, fmt, again);
    b->n += (size_t)w;
  }
  va_end(again);
}

/* One inequality lo ⊑ hi (hi a variable), or an at-least (hi >= n). */
typedef struct {
  int lo;            /* a variable, or 0 for an atom */
  const void *atom;  /* a dim or a row, under the solution */
  int hi;
  int64_t at_least;  /* > 0: an at-least, lo and atom unused */
  bool is_row, dead;
  int next_hi, next_lo; /* the next edge (index + 1) with the same hi / lo, 0: none */
} edge;

typedef struct {
  nx_shape_session *s;
  int W;
  int *name;       /* by variable: 0 unnamed, k > 0 generalized k-1, k < 0 fixed -k-1 */
  int ngen, nfix;
  unsigned char *role; /* by variable: 1 boundary, 2 intermediate seen, 3 a fixed one's value */
  edge *e;
  int ne, cap;
  int *hi_head, *hi_tail, *lo_head, *lo_tail; /* by variable: its edges by end, in insertion order */
  bool nomem;
} printer;

#define EACH_HI(p, v, i) for (int i = (p)->hi_head[v] - 1; i >= 0; i = (p)->e[i].next_hi - 1)
#define EACH_LO(p, v, i) for (int i = (p)->lo_head[v] - 1; i >= 0; i = (p)->e[i].next_lo - 1)

/* A variable the trace made that a fixed one was bound to stands for it. */
static bool fixed(const printer *p, int v) { return v < p->W || p->role[v] == 3; }

static void var_name(printer *p, int v, sbuf *b) {
  if (!p->name[v]) p->name[v] = !fixed(p, v) ? ++p->ngen : -(++p->nfix);
  int k = p->name[v] > 0 ? p->name[v] - 1 : -p->name[v] - 1;
  const char *pre = p->name[v] > 0 ? "'" : "'_";
  if (k < 26) put(b, "%s%c", pre, 'a' + k);
  else put(b, "%s%c%d", pre, 'a' + k % 26, k / 26);
}

static void dim_put(printer *p, const nx_dim *d, sbuf *b) {
  switch (d->kind) {
  case NX__D_SOLVED:
    if (!strcmp(d->basis, NX_BASIS_DEFAULT) || !strcmp(d->basis, NX_BASIS_BCAST))
      put(b, "%lld", (long long)d->d);
    else put(b, "%s=%lld", d->basis, (long long)d->d);
    return;
  case NX__D_VAR: var_name(p, d->var, b); return;
  case NX__D_AFFINE:
    /* as nx_tensor_to_string and OCANNL print them (dim.c) */
    if (d->kernel) put(b, "conv(");
    if (d->stride != 1) put(b, "%lld*", (long long)d->stride);
    dim_put(p, d->over, b);
    if (d->offset) put(b, "+%lld", (long long)d->offset);
    if (d->kernel) {
      put(b, "+");
      if (d->dilation != 1) put(b, "%lld*", (long long)d->dilation);
      dim_put(p, d->kernel, b);
      put(b, ")");
    }
    return;
  default:
    put(b, "(");
    for (int i = 0; i < d->nparts; i++) {
      if (i) put(b, "^");
      dim_put(p, d->parts[i], b);
    }
    put(b, ")");
  }
}

static void row_put(printer *p, const nx_row *r, sbuf *b) {
  bool first = true;
  for (int i = 0; i < r->nbeg; i++, first = false) {
    if (!first) put(b, ",");
    dim_put(p, nx__shape_dsub(p->s, r->beg[i]), b);
  }
  if (r->var) {
    if (!first) put(b, ",");
    put(b, "..");
    var_name(p, r->var, b);
    put(b, "..");
    first = false;
  }
  for (int i = 0; i < r->ndims; i++, first = false) {
    if (!first) put(b, ",");
    dim_put(p, nx__shape_dsub(p->s, r->dims[i]), b);
  }
  if (first) put(b, "()");
}

static void shape_put(printer *p, nx_tensor *t, sbuf *b) {
  for (int k = 0; k < 3; k++) {
    if (k == 1) put(b, "|");
    if (k == 2) put(b, "->");
    row_put(p, nx__shape_rsub(p->s, t->rows[k]), b);
  }
}

static void mark_dim(printer *p, const nx_dim *d) {
  d = nx__shape_dsub(p->s, d);
  if (d->kind == NX__D_VAR) p->role[d->var] = 1;
  else if (d->kind == NX__D_AFFINE) {
    mark_dim(p, d->over);
    if (d->kernel) mark_dim(p, d->kernel);
  } else if (d->kind == NX__D_CONCAT)
    for (int i = 0; i < d->nparts; i++) mark_dim(p, d->parts[i]);
}

static void mark_row(printer *p, const nx_row *r) {
  r = nx__shape_rsub(p->s, r);
  if (r->var) p->role[r->var] = 1;
  for (int i = 0; i < r->nbeg; i++) mark_dim(p, r->beg[i]);
  for (int i = 0; i < r->ndims; i++) mark_dim(p, r->dims[i]);
}

static void add_edge(printer *p, edge x) {
  EACH_HI(p, x.hi, i) {
    const edge *y = &p->e[i];
    if (!y->dead && y->lo == x.lo && y->atom == x.atom && y->at_least == x.at_least && y->is_row == x.is_row) return;
  }
  if (x.lo && x.lo == x.hi) return;
  if (nx__scheme_grow((void **)&p->e, &p->cap, p->ne, sizeof *p->e)) {
    p->nomem = true;
    return;
  }
  x.next_hi = x.next_lo = 0;
  int i = p->ne++;
  p->e[i] = x;
  if (p->hi_tail[x.hi]) p->e[p->hi_tail[x.hi] - 1].next_hi = i + 1;
  else p->hi_head[x.hi] = i + 1;
  p->hi_tail[x.hi] = i + 1;
  if (x.lo) {
    if (p->lo_tail[x.lo]) p->e[p->lo_tail[x.lo] - 1].next_lo = i + 1;
    else p->lo_head[x.lo] = i + 1;
    p->lo_tail[x.lo] = i + 1;
  }
}

/* The unbound representative of variable v, or 0 when v is bound to
   something else than a variable. */
static int rep(printer *p, int v, bool is_row) {
  if (is_row) {
    const nx_row *r = nx__shape_rsub(p->s, nx__shape_row_of_var(p->s, v));
    return !r->nbeg && !r->ndims ? r->var : 0;
  }
  const nx_dim *d = nx__shape_dsub(p->s, nx__shape_dim_var(p->s, v));
  return d->kind == NX__D_VAR ? d->var : 0;
}

/* Every inequality and lower bound stored on an unbound variable. */
static void collect(printer *p) {
  nx_shape_session *s = p->s;
  for (int v = 1; v < s->nvars; v++) {
    const nx__var *e = NX__VARR(s, v);
    if (rep(p, v, e->is_row) != v) continue;
    NX__EACH(s, e->opnd, i) {
      int w = rep(p, s->lk[i].x, e->is_row);
      if (w && (v >= p->W || w >= p->W)) add_edge(p, (edge){.lo = v, .hi = w, .is_row = e->is_row});
    }
    if (v < p->W) continue;
    if (e->is_row) {
      for (int i = e->lower; i; i = s->lbs[i].next_lower)
        if (s->lbs[i].alive) add_edge(p, (edge){.atom = nx__shape_rsub(s, s->lbs[i].row), .hi = v, .is_row = true});
    } else {
      if (e->glb) add_edge(p, (edge){.atom = nx__shape_dsub(s, e->glb), .hi = v});
      if (e->at_least) add_edge(p, (edge){.hi = v, .at_least = e->at_least});
    }
  }
}

/* An intermediate x with lower set L and upper set U: when L is not empty
   or U has at most one element, every l ⊑ u replaces x's edges, exactly;
   otherwise x stays (the uppers must share a lower bound: they are not
   independent). Repeated to a fixed point. */
static void eliminate(printer *p) {
  int *lo = NULL, *up = NULL, caplo = 0, capup = 0;
  for (bool again = true; again && !p->nomem;) {
    again = false;
    for (int x = p->W; x < p->s->nvars && !p->nomem; x++) {
      if (p->role[x] == 1 || p->role[x] == 3) continue;
      int nl = 0, nu = 0;
      EACH_HI(p, x, i)
      if (!p->e[i].dead && !p->e[i].at_least) {
        if (nx__scheme_grow((void **)&lo, &caplo, nl, sizeof *lo)) return (void)(p->nomem = true);
        lo[nl++] = i;
      }
      EACH_LO(p, x, i)
      if (!p->e[i].dead) {
        if (nx__scheme_grow((void **)&up, &capup, nu, sizeof *up)) return (void)(p->nomem = true);
        up[nu++] = i;
      }
      bool any = nl || nu;
      EACH_HI(p, x, i) any |= !p->e[i].dead;
      if (!any || (!nl && nu >= 2)) continue;
      for (int i = 0; i < nl; i++)
        for (int j = 0; j < nu; j++) {
          edge z = p->e[lo[i]];
          z.hi = p->e[up[j]].hi;
          add_edge(p, z);
        }
      EACH_HI(p, x, i) p->e[i].dead = true;
      EACH_LO(p, x, i) p->e[i].dead = true;
      again = true;
    }
  }
  nx__free(lo);
  nx__free(up);
}

/* Whether an edge is about the boundary: it touches a variable the trace
   made that is reachable from the boundary through the edges. */
static void reach(printer *p) {
  int n = p->s->nvars, *queue = nx__malloc((size_t)n * sizeof *queue), nq = 0;
  if (!queue) return (void)(p->nomem = true);
  for (int v = 1; v < n; v++)
    if (p->role[v]) queue[nq++] = v;
  for (int k = 0; k < nq; k++) {
    int v = queue[k];
    EACH_HI(p, v, i) {
      int w = p->e[i].lo;
      if (w && !p->role[w] && w >= p->W) p->role[w] = 2, queue[nq++] = w;
    }
    EACH_LO(p, v, i) {
      int w = p->e[i].hi;
      if (!p->role[w] && w >= p->W) p->role[w] = 2, queue[nq++] = w;
    }
  }
  nx__free(queue);
  for (int i = 0; i < p->ne; i++) {
    edge *y = &p->e[i];
    if (!p->role[y->hi] && !(y->lo && p->role[y->lo])) y->dead = true;
  }
  for (int v = p->W; v < n; v++)
    if (p->role[v] == 2) p->role[v] = 0; /* intermediates: eliminated when they can be */
}

char *nx__scheme_print(nx_shape_session *s, const nx_scheme *sc, int W, nx_tensor *const *args, int n,
                       nx_tensor *const *results, int nres) {
  printer p = {.s = s, .W = W};
  p.name = nx__calloc((size_t)s->nvars, sizeof *p.name);
  p.role = nx__calloc((size_t)s->nvars, 1);
  p.hi_head = nx__calloc((size_t)s->nvars, sizeof(int));
  p.hi_tail = nx__calloc((size_t)s->nvars, sizeof(int));
  p.lo_head = nx__calloc((size_t)s->nvars, sizeof(int));
  p.lo_tail = nx__calloc((size_t)s->nvars, sizeof(int));
  sbuf b = {0};
  bool ok = p.name && p.role && p.hi_head && p.hi_tail && p.lo_head && p.lo_tail;
  if (ok) {
    for (int i = 0; i < n; i++)
      for (int k = 0; k < 3; k++) mark_row(&p, args[i]->rows[k]);
    for (int j = 0; j < nres; j++)
      for (int k = 0; k < 3; k++) mark_row(&p, results[j]->rows[k]);
    for (int v = 1; v < W; v++) {
      p.role[v] = 1; /* fixed ones are never eliminated */
      int w = rep(&p, v, NX__VARR(s, v)->is_row);
      if (w >= W) p.role[w] = 3;
    }
    collect(&p);
    reach(&p);
    eliminate(&p);
    /* the seed's "<label> : <arguments> => <results>" to the letter, each
       list joined by ", ": no argument leaves two spaces */
    put(&b, "%s : ", sc->label);
    for (int i = 0; i < n; i++) {
      if (i) put(&b, ", ");
      shape_put(&p, args[i], &b);
    }
    put(&b, " => ");
    for (int j = 0; j < nres; j++) {
      if (j) put(&b, ", ");
      shape_put(&p, results[j], &b);
    }
    for (int pass = 0; pass < 3; pass++)
      for (int i = 0; i < p.ne; i++) {
        const edge *y = &p.e[i];
        if (y->dead || (pass == 0) != (y->lo != 0) || (pass == 2) != (y->at_least > 0)) continue;
        put(&b, "\n  ");
        if (y->at_least) {
          var_name(&p, y->hi, &b);
          put(&b, " \xe2\x89\xa5 %lld", (long long)y->at_least);
          continue;
        }
        if (y->lo && y->is_row) {
          put(&b, "..");
          var_name(&p, y->lo, &b);
          put(&b, "..");
        } else if (y->lo) var_name(&p, y->lo, &b);
        else if (y->is_row) row_put(&p, y->atom, &b);
        else dim_put(&p, y->atom, &b);
        put(&b, " \xe2\x8a\x91 ");
        if (y->is_row) put(&b, "..");
        var_name(&p, y->hi, &b);
        if (y->is_row) put(&b, "..");
      }
  }
  bool bad = !ok || p.nomem || b.nomem || !b.p;
  nx__free(p.name);
  nx__free(p.role);
  nx__free(p.hi_head);
  nx__free(p.hi_tail);
  nx__free(p.lo_head);
  nx__free(p.lo_tail);
  nx__free(p.e);
  if (bad) {
    nx__free(b.p);
    return NULL;
  }
  return b.p;
}
