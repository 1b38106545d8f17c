/* SPDX-License-Identifier: Apache-2.0 */
/* The memo of an application: what a full replay of the scheme left in the
   session for ground arguments, kept as tables, and made again for a later
   application to arguments of the same shapes instead of replaying.

   A full replay is recorded only when its outcome is a function of the
   arguments' shapes alone: it ran on ground arguments (closed rows of solved
   dims), outside a trace and an id range, before closing, with nothing
   pending or deferred, and it changed no state older than itself (a
   snapshot's undo log, taken for the replay, holds no real change) and
   deferred nothing. Then every step it took read only what it made, the
   arguments' shapes and immutable objects, so the same replay to arguments
   of the same shapes, in a session in the same conditions, takes the same
   steps on renamed variables, links, lower bounds, marks and tensors: the
   memo makes exactly that state (nx_shape_dump prints what the replay's
   would print), without the solver. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "scheme_internal.h"
#include "../base/alloc.h"

bool nx__scheme_memo_on = true;
long nx__scheme_memo_hits;

/* A dim, row or origin of the outcome, children before parents: one that
   names nothing of the application (no variable it made, none of its
   tensors' or arguments' labels) is kept as it is (ext, immutable); the
   others are made again. A variable is by its code: v below the first
   variable the application made as is, else -(v - V0) - 1. */
typedef struct {
  const nx_dim *ext;
  nx_dim d;
  int a, b, parts; /* affine over, kernel (-1: none); concat parts at ints[parts..] */
  bool self;       /* the dim that is just its variable (s->self) */
} mdim;
typedef struct {
  const nx_row *ext;
  int n, nbeg, dims, var; /* dims at ints[dims..], n of them */
  bool self;
} mrow;
typedef struct {
  const nx__origin *ext;
  nx__origin o;
  int a, b;     /* derived: the parts' entries */
  int lhs, rhs; /* leaf: a label reference (an argument's, then a made tensor's), -1: o's name kept */
} morig;
typedef struct {
  int from, to, w, next; /* next: its entry + 1, 0: none */
} medge;
typedef struct {
  nx__var v; /* links and lower bounds relative to the application's first, variables by code */
  int glb, glb_o, edges, edges_tail, val; /* entry + 1, 0: NULL */
  bool self, opnd;
} mvar;
typedef struct {
  int row, o, owner, next_lower, next_watch;
  bool alive;
} mlb;
typedef struct {
  nx__held h;
  nx__cons c;      /* pointers replaced by the entries below */
  int a, b, rows, t; /* dims or rows by kind (entry, -1 none), rows at ints[rows..], t: made tensor or -1 */
} mmark;
typedef struct {
  int id; /* relative to the application's first tensor id */
  const char *label; /* given: kept; made "<operation>#<id>": its operation (auto_len - 1 bytes) */
  int rows[3];
  bool is_param;
  unsigned char auto_len, marks_off;
} mten;

struct nx__memo {
  char *prefix;
  const nx_row *key[NX__MEMO_MAXARGS][3]; /* the first arguments' rows: ground */
  int V0, S0;
  mdim *dims;
  mrow *rows;
  morig *origins;
  medge *edges;
  mvar *vars;
  nx__link *links; /* x by code, next relative */
  mlb *lbs;
  mmark *marks;
  mten *tensors;
  int *ints;
  int nargs, nres;
  int ndims, nrows, norigins, nedges, nvars, nlinks, nlbs, nmarks, ntensors, nints;
  int capdims, caprows, caporigins, capedges, capints;
  int64_t dproc, dbinds, dchanges;
  int dstamp, dtid;
  int res[NX_SCHEME_MAX_RESULTS]; /* a made tensor's entry, or -2 - argument, or -1: res_ext */
  nx_tensor *res_ext[NX_SCHEME_MAX_RESULTS];
};

void nx__scheme_memo_free(nx__memo *m) {
  if (!m) return;
  nx__free(m->prefix);
  nx__free(m->dims);
  nx__free(m->rows);
  nx__free(m->origins);
  nx__free(m->edges);
  nx__free(m->vars);
  nx__free(m->links);
  nx__free(m->lbs);
  nx__free(m->marks);
  nx__free(m->tensors);
  nx__free(m->ints);
  nx__free(m);
}

/* ---- When a memo applies ---- */

static bool row_ground(const nx_row *r) {
  if (r->var) return false;
  for (int i = 0; i < r->nbeg + r->ndims; i++)
    if (r->beg[i]->kind != NX__D_SOLVED) return false;
  return true;
}

static bool row_same(const nx_row *a, const nx_row *b) {
  if (a->nbeg != b->nbeg || a->ndims != b->ndims) return false;
  for (int i = 0; i < a->nbeg + a->ndims; i++)
    if (a->beg[i]->d != b->beg[i]->d || strcmp(a->beg[i]->basis, b->beg[i]->basis)) return false;
  return true;
}

/* Whether sc's record names a variable made before the trace (a shared
   parameter's, a capture reference's): its state may change between two
   applications, and a replay reads it, so no memo holds for sc. */
static bool reads_fixed(const nx_scheme *sc) {
  for (int i = 0; i < sc->ndims; i++)
    if (sc->dims[i].kind == NX__D_VAR && sc->dims[i].var > 0) return true;
  for (int i = 0; i < sc->nrows; i++)
    if (sc->rows[i].var > 0) return true;
  for (int j = 0; j < sc->nres; j++)
    if (sc->results[j].outside) return true;
  return sc->nflags > 0;
}

bool nx__scheme_memo_eligible(const nx_shape_session *s, const nx_scheme *sc, nx_tensor *const *args,
                              nx_tensor *const *results) {
  if (!nx__scheme_memo_on || sc->red || sc->arity > NX__MEMO_MAXARGS || sc->nrefbinds) return false;
  if (!sc->memo_checked) {
    nx_scheme *own = (nx_scheme *)sc; /* a property of the record, found once */
    own->memo_fixed = reads_fixed(sc);
    own->memo_checked = true;
  }
  if (sc->memo_fixed) return false;
  const nx__hold *m = &s->marks, *d = &s->deferred;
  if (s->rec || s->tainted || s->ids.on || s->stage > 1 || s->pending.n || s->queue.n != s->qhead || d->nlive ||
      m->vn || m->armed || m->live[0].n + m->live[1].n != m->nlive || s->subst_failed || s->wake_lost)
    return false;
  for (int j = 0; j < sc->nres; j++)
    if (results[j]) return false;
  for (int i = 0; i < sc->arity; i++)
    for (int k = 0; k < 3; k++)
      if (!row_ground(args[i]->rows[k])) return false;
  return true;
}

bool nx__scheme_memo_matches(const nx__memo *m, const nx_scheme *sc, const char *prefix, nx_tensor *const *args) {
  if (strcmp(m->prefix, prefix)) return false;
  for (int i = 0; i < sc->arity; i++)
    for (int k = 0; k < 3; k++)
      if (!row_same(m->key[i][k], args[i]->rows[k])) return false;
  return true;
}

/* ---- Recording ---- */

typedef struct {
  nx__memo *m;
  nx_shape_session *s;
  const nx__memo_at *at;
  nx__pmap dims, rows, origins, edges, labels, tensors;
  bool bad; /* out of memory, or an outcome the memo does not hold */
} rec;

static int code(const rec *r, int v) { return v >= r->at->V0 ? -(v - r->at->V0) - 1 : v; }

#define GROW(r, f, nf, capf) \
  (nx__scheme_grow((void **)&(r)->m->f, &(r)->m->capf, (r)->m->nf, sizeof *(r)->m->f) ? ((r)->bad = true, -1) : 0)

static int put_ints(rec *r, const int *x, int n) {
  int at = r->m->nints;
  for (int i = 0; i < n; i++) {
    if (GROW(r, ints, nints, capints)) return -1;
    r->m->ints[r->m->nints++] = x[i];
  }
  return at;
}

static int rdim(rec *r, const nx_dim *d) {
  if (!d || r->bad) return -1;
  int i = nx__scheme_pmap_find(&r->dims, d);
  if (i >= 0) return i;
  mdim e = {.a = -1, .b = -1, .parts = -1};
  switch (d->kind) {
  case NX__D_SOLVED: e.ext = d; break;
  case NX__D_VAR:
    if (d->var < r->at->V0) e.ext = d;
    else {
      e.d.kind = NX__D_VAR;
      e.d.var = code(r, d->var);
      e.self = NX__SELF(r->s, d->var).d == d;
    }
    break;
  case NX__D_AFFINE:
    e.a = rdim(r, d->over);
    e.b = rdim(r, d->kernel);
    e.d = *d;
    if (r->bad) return -1;
    if (r->m->dims[e.a].ext && (e.b < 0 || r->m->dims[e.b].ext)) e.ext = d;
    break;
  default: {
    int parts[64];
    bool ext = d->nparts <= 64;
    for (int k = 0; k < d->nparts && k < 64; k++) {
      parts[k] = rdim(r, d->parts[k]);
      if (r->bad) return -1;
      ext = ext && r->m->dims[parts[k]].ext;
    }
    if (d->nparts > 64) r->bad = true;
    e.d = *d;
    e.parts = put_ints(r, parts, d->nparts);
    if (ext) e.ext = d;
  }
  }
  if (r->bad || GROW(r, dims, ndims, capdims)) return -1;
  r->m->dims[i = r->m->ndims++] = e;
  if (nx__scheme_pmap_put(&r->dims, d, i)) r->bad = true;
  return i;
}

static int rrow(rec *r, const nx_row *w) {
  if (!w || r->bad) return -1;
  int i = nx__scheme_pmap_find(&r->rows, w);
  if (i >= 0) return i;
  int n = w->nbeg + w->ndims, d[256];
  if (n > 256) return r->bad = true, -1;
  bool ext = !w->var || w->var < r->at->V0;
  for (int k = 0; k < n; k++) {
    d[k] = rdim(r, w->beg[k]);
    if (r->bad) return -1;
    ext = ext && r->m->dims[d[k]].ext;
  }
  mrow e = {.n = n, .nbeg = w->nbeg, .var = code(r, w->var), .dims = put_ints(r, d, n)};
  e.self = !n && w->var >= r->at->V0 && NX__SELF(r->s, w->var).r == w;
  if (ext) e.ext = w;
  if (r->bad || GROW(r, rows, nrows, caprows)) return -1;
  r->m->rows[i = r->m->nrows++] = e;
  if (nx__scheme_pmap_put(&r->rows, w, i)) r->bad = true;
  return i;
}

static int rorig(rec *r, const nx__origin *o) {
  if (!o || r->bad) return -1;
  int i = nx__scheme_pmap_find(&r->origins, o);
  if (i >= 0) return i;
  morig e = {.o = *o, .a = -1, .b = -1, .lhs = -1, .rhs = -1};
  bool ext;
  if (o->derived) {
    e.a = rorig(r, o->a);
    e.b = rorig(r, o->b);
    if (r->bad) return -1;
    ext = (e.a < 0 || r->m->origins[e.a].ext) && (e.b < 0 || r->m->origins[e.b].ext);
  } else {
    e.lhs = o->lhs_name ? nx__scheme_pmap_find(&r->labels, o->lhs_name) : -1;
    e.rhs = o->rhs_name ? nx__scheme_pmap_find(&r->labels, o->rhs_name) : -1;
    ext = e.lhs < 0 && e.rhs < 0;
  }
  if (ext) e.ext = o;
  if (GROW(r, origins, norigins, caporigins)) return -1;
  r->m->origins[i = r->m->norigins++] = e;
  if (nx__scheme_pmap_put(&r->origins, o, i)) r->bad = true;
  return i;
}

/* A link or lower bound index the application made, relative to its first;
   0 stays 0; an older one is an outcome the memo does not hold. */
static int rel(rec *r, int i, int base) {
  if (!i) return 0;
  if (i <= base) r->bad = true;
  return i - base;
}

static int redges(rec *r, const nx__edge *e, const nx__edge *tail, int *tail_at) {
  int first = 0, prev = -1;
  *tail_at = 0;
  for (; e && !r->bad; e = e->next) {
    if (GROW(r, edges, nedges, capedges)) return 0;
    int i = r->m->nedges++;
    r->m->edges[i] = (medge){code(r, e->from), code(r, e->to), e->w, 0};
    if (nx__scheme_pmap_put(&r->edges, e, i)) r->bad = true;
    if (prev >= 0) r->m->edges[prev].next = i + 1;
    else first = i + 1;
    if (e == tail) *tail_at = i + 1;
    prev = i;
  }
  if (tail && !*tail_at) r->bad = true; /* a tail outside its own list */
  return first;
}

static void rvar(rec *r, int v, mvar *x) {
  nx_shape_session *s = r->s;
  const nx__memo_at *at = r->at;
  const nx__var *e = NX__VARR(s, v);
  memset(x, 0, sizeof *x);
  x->v = *e;
  x->v.res.head = rel(r, e->res.head, at->L0), x->v.res.tail = rel(r, e->res.tail, at->L0);
  x->v.opnd.head = rel(r, e->opnd.head, at->L0), x->v.opnd.tail = rel(r, e->opnd.tail, at->L0);
  x->v.up = code(r, e->up);
  if (e->wake) r->bad = true;
  if (e->is_row) {
    x->v.lower = rel(r, e->lower, at->B0), x->v.lower_tail = rel(r, e->lower_tail, at->B0);
    x->v.watch = rel(r, e->watch, at->B0), x->v.watch_tail = rel(r, e->watch_tail, at->B0);
    x->edges = redges(r, e->edges, e->edges_tail, &x->edges_tail);
    x->v.edges = x->v.edges_tail = NULL;
    x->val = rrow(r, NX__VAL(s, v).r) + 1;
  } else {
    x->glb = rdim(r, e->glb) + 1;
    x->glb_o = rorig(r, e->glb_o) + 1;
    x->v.glb = NULL, x->v.glb_o = NULL;
    x->val = rdim(r, NX__VAL(s, v).d) + 1;
  }
  x->self = NX__SELF(s, v).d != NULL;
  x->opnd = (s->opnd_bits[v >> 6] >> (v & 63)) & 1;
}

static void rmark(rec *r, const nx__held *h, const nx__cons *c, mmark *x) {
  *x = (mmark){.h = *h, .c = *c, .a = -1, .b = -1, .rows = -1, .t = -1};
  x->c.o = NULL;
  switch (c->kind) {
  case NX__C_DIM_EQ:
  case NX__C_DIM_INEQ: x->a = rdim(r, c->d1), x->b = rdim(r, c->d2); break;
  case NX__C_AT_LEAST:
  case NX__C_TERM_DIM: x->a = rdim(r, c->d1); break;
  case NX__C_TOTAL:
  case NX__C_TOTAL_DIM:
  case NX__C_EXACT: {
    int rows[64];
    if (c->nrows > 64) {
      r->bad = true;
      break;
    }
    for (int i = 0; i < c->nrows; i++) rows[i] = rrow(r, c->rows[i]);
    x->rows = put_ints(r, rows, c->nrows);
    if (c->kind == NX__C_TOTAL_DIM) x->b = rdim(r, c->d2);
    if (c->kind == NX__C_EXACT) x->b = rrow(r, c->ex);
    break;
  }
  case NX__C_SHAPE_ROW:
  case NX__C_TERM_ROW:
    x->a = rrow(r, c->r1);
    x->t = c->t ? nx__scheme_pmap_find(&r->tensors, c->t) : -1;
    if (c->t && x->t < 0) r->bad = true; /* a mark on a tensor older than the replay */
    break;
  default: x->a = rrow(r, c->r1), x->b = rrow(r, c->r2);
  }
  x->c.o = (const void *)(intptr_t)(rorig(r, c->o) + 1); /* an entry + 1 in place of the origin */
}

/* Whether p lies in what the arena gave since m (a big object's chunk goes
   behind the newest: those up to m's next are new too). */
static bool in_new(const nx__chunk *c, const nx__arena_mark *m, const void *p) {
  const unsigned char *q = p;
  for (; c && c != m->head; c = c->next)
    if (q >= c->data && q < c->data + c->used) return true;
  if (!c) return false;
  if (q >= c->data + m->used && q < c->data + c->used) return true;
  for (c = c->next; c && c != m->next; c = c->next)
    if (q >= c->data && q < c->data + c->used) return true;
  return false;
}

/* Whether a logged change is one to state older than the replay: a field
   of an object the replay made is not. */
static bool real_change(nx_shape_session *s, const nx__memo_at *at, const nx__undo *u) {
  switch (u->kind) {
  case NX__U_VAR: return memcmp(&u->var, NX__VAR_AT(s, u->index), sizeof u->var) != 0;
  case NX__U_VAL: return NX__VAL(s, u->index).d != u->val.d;
  case NX__U_SELF: return NX__SELF(s, u->index).d != u->val.d;
  case NX__U_LINK: return memcmp(&s->lk[u->index], &u->link, sizeof u->link) != 0;
  case NX__U_LBOUND: return memcmp(&s->lbs[u->index], &u->lb, sizeof u->lb) != 0;
  default:
    return memcmp(u->b.at, u->b.old, u->b.n) != 0 && !in_new(s->chunks, &at->chunks, u->b.at) &&
           !in_new(s->self_chunks, &at->self_chunks, u->b.at);
  }
}

/* Whether the replay since at left an outcome the memo holds (see above). */
static bool holdable(nx_shape_session *s, const nx__memo_at *at) {
  const nx__hold *m = &s->marks, *d = &s->deferred;
  if (s->undo_lost || s->ids.on || s->tainted || s->subst_failed || s->wake_lost || s->pending.n ||
      s->queue.n != s->qhead || d->n != at->D0 || d->nlive || s->nwk != at->WK0 || m->vn || m->armed ||
      m->ncs - at->MC0 != m->n - at->M0 || m->nlive - at->ML0 != m->n - at->M0 || strcmp(s->err, at->err))
    return false;
  for (int i = at->U0; i < s->nundo; i++)
    if (real_change(s, at, &s->undo[i])) return false;
  /* the live lists only gained the new marks, each in its group, in order */
  int k[2] = {at->LV0[0], at->LV0[1]};
  for (int id = at->M0; id < m->n; id++) {
    int g = m->p[id].group;
    if (g > 1 || k[g] >= m->live[g].n || m->live[g].p[k[g]++] != id) return false;
  }
  return k[0] == m->live[0].n && k[1] == m->live[1].n;
}

void nx__scheme_memo_begin(nx_shape_session *s, nx__memo_at *at) {
  *at = (nx__memo_at){.V0 = s->nvars, .L0 = s->nlk, .B0 = s->nlbs, .T0 = s->tensors.n, .id0 = s->next_tensor_id,
                      .S0 = s->stamp, .P0 = s->nprocessed, .N0 = s->nbinds, .C0 = s->nchanges, .U0 = s->nundo,
                      .D0 = s->deferred.n, .WK0 = s->nwk, .M0 = s->marks.n, .MC0 = s->marks.ncs,
                      .ML0 = s->marks.nlive, .LV0 = {s->marks.live[0].n, s->marks.live[1].n}};
  snprintf(at->err, sizeof at->err, "%s", s->err);
  nx__shape_arena_mark(s->chunks, &at->chunks);
  nx__shape_arena_mark(s->self_chunks, &at->self_chunks);
}

nx__memo *nx__scheme_memo_record(nx_shape_session *s, const nx_scheme *sc, const nx__memo_at *at, const char *prefix,
                                 nx_tensor *const *args, nx_tensor *const *out) {
  if (!holdable(s, at)) return NULL;
  nx__memo *m = nx__calloc(1, sizeof *m);
  rec r = {.m = m, .s = s, .at = at, .bad = !m};
  if (r.bad || !(m->prefix = nx__malloc(strlen(prefix) + 1))) {
    nx__scheme_memo_free(m);
    return NULL;
  }
  memcpy(m->prefix, prefix, strlen(prefix) + 1);
  m->V0 = at->V0, m->S0 = at->S0, m->nargs = sc->arity, m->nres = sc->nres;
  for (int i = 0; i < sc->arity; i++) {
    for (int k = 0; k < 3; k++) m->key[i][k] = args[i]->rows[k];
    /* an origin names an argument by its label: one label for two
       arguments would not say which */
    if (!args[i]->label || nx__scheme_pmap_find(&r.labels, args[i]->label) >= 0 ||
        nx__scheme_pmap_put(&r.labels, args[i]->label, i))
      r.bad = true;
  }
  m->ntensors = s->tensors.n - at->T0;
  m->nvars = s->nvars - at->V0;
  m->nlinks = s->nlk - at->L0;
  m->nlbs = s->nlbs - at->B0;
  m->nmarks = s->marks.n - at->M0;
  m->tensors = nx__calloc((size_t)m->ntensors + 1, sizeof *m->tensors);
  m->vars = nx__calloc((size_t)m->nvars + 1, sizeof *m->vars);
  m->links = nx__calloc((size_t)m->nlinks + 1, sizeof *m->links);
  m->lbs = nx__calloc((size_t)m->nlbs + 1, sizeof *m->lbs);
  m->marks = nx__calloc((size_t)m->nmarks + 1, sizeof *m->marks);
  if (!m->tensors || !m->vars || !m->links || !m->lbs || !m->marks) r.bad = true;
  for (int i = 0; i < m->ntensors && !r.bad; i++) {
    const nx_tensor *t = s->tensors.p[at->T0 + i];
    if (t->env || t->pad || nx__scheme_pmap_put(&r.tensors, t, i) ||
        nx__scheme_pmap_put(&r.labels, t->label, sc->arity + i))
      r.bad = true;
  }
  for (int i = 0; i < m->ntensors && !r.bad; i++) {
    const nx_tensor *t = s->tensors.p[at->T0 + i];
    mten *x = &m->tensors[i];
    *x = (mten){.id = t->id - at->id0, .label = t->label, .is_param = t->is_param, .auto_len = t->auto_len,
                .marks_off = t->marks_off};
    for (int k = 0; k < 3; k++) x->rows[k] = rrow(&r, t->rows[k]);
  }
  for (int v = at->V0; v < s->nvars && !r.bad; v++) rvar(&r, v, &m->vars[v - at->V0]);
  for (int i = 1; i <= m->nlinks && !r.bad; i++) {
    const nx__link *l = &s->lk[at->L0 + i];
    m->links[i] = (nx__link){code(&r, l->x), rel(&r, l->next, at->L0)};
  }
  for (int i = 1; i <= m->nlbs && !r.bad; i++) {
    const nx__lbound *b = &s->lbs[at->B0 + i];
    m->lbs[i] = (mlb){.row = rrow(&r, b->row), .o = rorig(&r, b->o) + 1, .owner = code(&r, b->owner),
                      .next_lower = rel(&r, b->next_lower, at->B0), .next_watch = rel(&r, b->next_watch, at->B0),
                      .alive = b->alive};
  }
  for (int i = 0; i < m->nmarks && !r.bad; i++) {
    int id = at->M0 + i;
    rmark(&r, &s->marks.p[id], &s->marks.cs[id], &m->marks[i]);
  }
  for (int j = 0; j < sc->nres && !r.bad; j++) {
    int t = nx__scheme_pmap_find(&r.tensors, out[j]);
    m->res[j] = t;
    for (int i = 0; t < 0 && i < sc->arity; i++)
      if (out[j] == args[i]) m->res[j] = -2 - i;
    if (m->res[j] == -1) m->res_ext[j] = out[j];
  }
  m->dproc = s->nprocessed - at->P0, m->dbinds = s->nbinds - at->N0, m->dchanges = s->nchanges - at->C0;
  m->dstamp = s->stamp - at->S0, m->dtid = s->next_tensor_id - at->id0;
  nx__scheme_pmap_free(&r.dims);
  nx__scheme_pmap_free(&r.rows);
  nx__scheme_pmap_free(&r.origins);
  nx__scheme_pmap_free(&r.edges);
  nx__scheme_pmap_free(&r.labels);
  nx__scheme_pmap_free(&r.tensors);
  if (r.bad) {
    nx__scheme_memo_free(m);
    return NULL;
  }
  return m;
}

/* ---- Making the outcome again ---- */

typedef struct {
  nx_shape_session *s;
  const nx__memo *m;
  nx_tensor *const *args;
  int V, L, B, S; /* the new application's first variable, link, lower bound; its stamp base */
  const nx_dim **D;
  const nx_row **R;
  const nx__origin **O;
  nx__edge **E;
  nx_tensor **T;
} mk;

static int var_of(const mk *x, int c) { return c < 0 ? x->V + (-c - 1) : c; }

/* The self dim or row of new variable v (as dims.h makes them), made on
   first use. */
static const void *self_of(mk *x, int v, bool is_row) {
  nx_shape_session *s = x->s;
  if (NX__SELF(s, v).d) return NX__SELF(s, v).d;
  if (is_row) {
    nx_row *r = nx__shape_alloc_in(&s->self_chunks, sizeof *r);
    if (!r) return NULL;
    r->beg = r->dims = (const nx_dim **)(r + 1);
    r->var = v;
    return NX__SELF(s, v).r = r;
  }
  nx_dim *d = nx__shape_alloc_in(&s->self_chunks, NX__DIM_VAR_SIZE);
  if (!d) return NULL;
  d->kind = NX__D_VAR;
  d->var = v;
  return NX__SELF(s, v).d = d;
}

static int make_dims(mk *x) {
  const nx__memo *m = x->m;
  nx_shape_session *s = x->s;
  for (int i = 0; i < m->ndims; i++) {
    const mdim *e = &m->dims[i];
    if (e->ext) {
      x->D[i] = e->ext;
      continue;
    }
    if (e->self) {
      if (!(x->D[i] = self_of(x, var_of(x, e->d.var), false))) return NX_ENOMEM;
      continue;
    }
    size_t size = e->d.kind == NX__D_VAR ? NX__DIM_VAR_SIZE : sizeof(nx_dim);
    nx_dim *d = nx__shape_alloc(s, size);
    if (!d) return NX_ENOMEM;
    memcpy(d, &e->d, size);
    if (e->d.kind == NX__D_VAR) d->var = var_of(x, e->d.var);
    else if (e->d.kind == NX__D_AFFINE) {
      d->over = x->D[e->a];
      d->kernel = e->b >= 0 ? x->D[e->b] : NULL;
    } else {
      const nx_dim **parts = nx__shape_alloc(s, (size_t)(e->d.nparts ? e->d.nparts : 1) * sizeof *parts);
      if (!parts) return NX_ENOMEM;
      for (int k = 0; k < e->d.nparts; k++) parts[k] = x->D[m->ints[e->parts + k]];
      d->parts = parts;
    }
    x->D[i] = d;
  }
  return 0;
}

static int make_rows(mk *x) {
  const nx__memo *m = x->m;
  nx_shape_session *s = x->s;
  for (int i = 0; i < m->nrows; i++) {
    const mrow *e = &m->rows[i];
    if (e->ext) x->R[i] = e->ext;
    else if (e->self) x->R[i] = self_of(x, var_of(x, e->var), true);
    else {
      nx_row *r = nx__shape_alloc(s, sizeof *r + (size_t)e->n * sizeof(nx_dim *));
      if (!r) return NX_ENOMEM;
      const nx_dim **all = (const nx_dim **)(r + 1);
      for (int k = 0; k < e->n; k++) all[k] = x->D[m->ints[e->dims + k]];
      r->beg = all, r->dims = all + e->nbeg, r->nbeg = e->nbeg, r->ndims = e->n - e->nbeg;
      r->var = var_of(x, e->var);
      x->R[i] = r;
    }
    if (!x->R[i]) return NX_ENOMEM;
  }
  return 0;
}

static const char *name_of(const mk *x, int ref, const char *kept) {
  if (ref < 0) return kept;
  return ref < x->m->nargs ? x->args[ref]->label : x->T[ref - x->m->nargs]->label;
}

static int make_origins(mk *x) {
  const nx__memo *m = x->m;
  for (int i = 0; i < m->norigins; i++) {
    const morig *e = &m->origins[i];
    if (e->ext) {
      x->O[i] = e->ext;
      continue;
    }
    nx__origin *o = nx__shape_alloc(x->s, sizeof *o);
    if (!o) return NX_ENOMEM;
    *o = e->o;
    if (o->derived) {
      o->a = e->a >= 0 ? x->O[e->a] : NULL;
      o->b = e->b >= 0 ? x->O[e->b] : NULL;
    } else {
      o->lhs_name = name_of(x, e->lhs, e->o.lhs_name);
      o->rhs_name = name_of(x, e->rhs, e->o.rhs_name);
    }
    x->O[i] = o;
  }
  return 0;
}

static int make_tensors(mk *x, int id0) {
  const nx__memo *m = x->m;
  nx_shape_session *s = x->s;
  for (int i = 0; i < m->ntensors; i++) {
    const mten *e = &m->tensors[i];
    nx_tensor *t = nx__shape_alloc(s, sizeof *t);
    if (!t) return NX_ENOMEM;
    t->id = id0 + e->id;
    t->label = e->auto_len ? nx__scheme_id_label(s, e->label, (size_t)(e->auto_len - 1), t->id) : e->label;
    t->is_param = e->is_param, t->auto_len = e->auto_len, t->marks_off = e->marks_off;
    if (!t->label) return NX_ENOMEM;
    x->T[i] = t;
  }
  return 0;
}

static int shift(int i, int base) { return i ? i + base : 0; }

/* The variables' records and solutions (their dims, rows and edges made). */
static void make_vars(mk *x) {
  const nx__memo *m = x->m;
  nx_shape_session *s = x->s;
  for (int i = 0; i < m->nedges; i++) {
    const medge *e = &m->edges[i];
    *x->E[i] = (nx__edge){var_of(x, e->from), var_of(x, e->to), e->w, e->next ? x->E[e->next - 1] : NULL};
  }
  for (int i = 0; i < m->nvars; i++) {
    const mvar *e = &m->vars[i];
    int v = x->V + i;
    nx__var *r = NX__VAR_AT(s, v);
    *r = e->v;
    r->res.head = shift(e->v.res.head, x->L), r->res.tail = shift(e->v.res.tail, x->L);
    r->opnd.head = shift(e->v.opnd.head, x->L), r->opnd.tail = shift(e->v.opnd.tail, x->L);
    r->up = var_of(x, e->v.up);
    if (e->v.is_row) {
      r->lower = shift(e->v.lower, x->B), r->lower_tail = shift(e->v.lower_tail, x->B);
      r->watch = shift(e->v.watch, x->B), r->watch_tail = shift(e->v.watch_tail, x->B);
      r->edges = e->edges ? x->E[e->edges - 1] : NULL;
      r->edges_tail = e->edges_tail ? x->E[e->edges_tail - 1] : NULL;
      /* a search's stamp, +n while it runs and -n once finished */
      if (e->v.stamp > m->S0) r->stamp = e->v.stamp - m->S0 + x->S;
      else if (e->v.stamp < -m->S0) r->stamp = e->v.stamp + m->S0 - x->S;
      NX__VAL(s, v).r = e->val ? x->R[e->val - 1] : NULL;
    } else {
      r->glb = e->glb ? x->D[e->glb - 1] : NULL;
      r->glb_o = e->glb_o ? x->O[e->glb_o - 1] : NULL;
      NX__VAL(s, v).d = e->val ? x->D[e->val - 1] : NULL;
    }
    if (e->opnd) nx__shape_mark_opnd(s, v);
  }
}

/* The marks' constraints (in place of the recorded ones), made before any
   table changes. */
static int make_mark_cons(mk *x, nx__cons *out) {
  const nx__memo *m = x->m;
  for (int i = 0; i < m->nmarks; i++) {
    const mmark *e = &m->marks[i];
    nx__cons c = e->c;
    switch (c.kind) {
    case NX__C_DIM_EQ:
    case NX__C_DIM_INEQ: c.d1 = x->D[e->a], c.d2 = x->D[e->b]; break;
    case NX__C_AT_LEAST:
    case NX__C_TERM_DIM: c.d1 = x->D[e->a]; break;
    case NX__C_TOTAL:
    case NX__C_TOTAL_DIM:
    case NX__C_EXACT: {
      const nx_row **rows = nx__shape_alloc(x->s, (size_t)(c.nrows ? c.nrows : 1) * sizeof *rows);
      if (!rows) return NX_ENOMEM;
      for (int k = 0; k < c.nrows; k++) rows[k] = x->R[m->ints[e->rows + k]];
      c.rows = rows;
      if (c.kind == NX__C_TOTAL_DIM) c.d2 = x->D[e->b];
      if (c.kind == NX__C_EXACT) c.ex = x->R[e->b];
      break;
    }
    case NX__C_SHAPE_ROW:
    case NX__C_TERM_ROW:
      c.r1 = x->R[e->a];
      if (e->t >= 0) c.t = x->T[e->t];
      break;
    default: c.r1 = x->R[e->a], c.r2 = x->R[e->b];
    }
    intptr_t o = (intptr_t)e->c.o;
    c.o = o ? x->O[o - 1] : NULL;
    out[i] = c;
  }
  return 0;
}

/* Room in every table the outcome extends: 0 or NX_ENOMEM, nothing changed
   but capacities. */
static int reserve(nx_shape_session *s, const nx__memo *m) {
  nx__hold *h = &s->marks;
  int add[2] = {0, 0};
  for (int i = 0; i < m->nmarks; i++) add[m->marks[i].h.group]++;
  return s->nvars > INT_MAX - m->nvars || s->nlk > INT_MAX - 2 - m->nlinks || s->nlbs > INT_MAX - 2 - m->nlbs ||
         h->n > INT_MAX - m->nmarks || nx__shape_vars_reserve(s, s->nvars + m->nvars) ||
         nx__shape_grow((void **)&s->lk, &s->caplk, s->nlk + m->nlinks + 2, sizeof *s->lk, 1024) ||
         nx__shape_grow((void **)&s->lbs, &s->caplbs, s->nlbs + m->nlbs + 2, sizeof *s->lbs, 256) ||
         nx__shape_grow((void **)&s->tensors.p, &s->tensors.cap, s->tensors.n + m->ntensors, sizeof *s->tensors.p, 16) ||
         nx__shape_grow((void **)&h->p, &h->cap, h->n + m->nmarks, sizeof *h->p, 256) ||
         nx__shape_grow((void **)&h->cs, &h->capcs, h->ncs + m->nmarks, sizeof *h->cs, 256) ||
         nx__shape_grow((void **)&h->live[0].p, &h->live[0].cap, h->live[0].n + add[0], sizeof(int), 8) ||
         nx__shape_grow((void **)&h->live[1].p, &h->live[1].cap, h->live[1].n + add[1], sizeof(int), 8);
}

/* Everything the outcome needs, made in the arena before the session's
   tables change (so that running out of memory leaves them as they were). */
static int make_objects(mk *x, int id0, nx__cons *marks) {
  const nx__memo *m = x->m;
  nx_shape_session *s = x->s;
  for (int i = 0; i < m->nvars; i++) NX__VAL(s, x->V + i).d = NULL, NX__SELF(s, x->V + i).d = NULL; /* past nvars: free slots */
  int rc = make_tensors(x, id0);
  for (int i = 0; !rc && i < m->nedges; i++)
    if (!(x->E[i] = nx__shape_alloc(s, sizeof *x->E[i]))) rc = NX_ENOMEM;
  if (!rc) rc = make_dims(x);
  if (!rc) rc = make_rows(x);
  if (!rc) rc = make_origins(x);
  for (int i = 0; !rc && i < m->ntensors; i++)
    for (int k = 0; k < 3; k++) x->T[i]->rows[k] = x->R[m->tensors[i].rows[k]];
  for (int i = 0; !rc && i < m->nvars; i++) /* the selves the replay made, referenced or not */
    if (m->vars[i].self && !self_of(x, x->V + i, m->vars[i].v.is_row)) rc = NX_ENOMEM;
  return rc ? rc : make_mark_cons(x, marks);
}

int nx__scheme_memo_apply(nx_shape_session *s, const nx__memo *m, nx_tensor *const *args, nx_tensor **out) {
  mk x = {.s = s, .m = m, .args = args, .V = s->nvars, .L = s->nlk, .B = s->nlbs, .S = s->stamp};
  int id0 = s->next_tensor_id;
  if (reserve(s, m)) return NX_ENOMEM;
  size_t n = (size_t)m->ndims + (size_t)m->nrows + (size_t)m->norigins + (size_t)m->nedges + (size_t)m->ntensors,
         nc = (size_t)m->nmarks * sizeof(nx__cons) / sizeof(void *) + 1;
  void *small[1024], **block = n + nc <= 1024 ? small : nx__malloc((n + nc) * sizeof *block);
  if (!block) return NX_ENOMEM;
  x.D = (const nx_dim **)block;
  x.R = (const nx_row **)(block + m->ndims);
  x.O = (const nx__origin **)(block + m->ndims + m->nrows);
  x.E = (nx__edge **)(block + m->ndims + m->nrows + m->norigins);
  x.T = (nx_tensor **)(block + m->ndims + m->nrows + m->norigins + m->nedges);
  nx__cons *marks = (nx__cons *)(void *)(block + n);
  int rc = make_objects(&x, id0, marks);
  if (!rc) { /* nothing fails from here */
    s->nvars += m->nvars;
    make_vars(&x);
    for (int i = 1; i <= m->nlinks; i++)
      s->lk[x.L + i] = (nx__link){var_of(&x, m->links[i].x), shift(m->links[i].next, x.L)};
    for (int i = 1; i <= m->nlbs; i++) {
      const mlb *e = &m->lbs[i];
      s->lbs[x.B + i] = (nx__lbound){.row = x.R[e->row], .o = e->o ? x.O[e->o - 1] : NULL,
                                     .owner = var_of(&x, e->owner), .next_lower = shift(e->next_lower, x.B),
                                     .next_watch = shift(e->next_watch, x.B), .alive = e->alive};
    }
    s->nlk += m->nlinks, s->nlbs += m->nlbs;
    for (int i = 0; i < m->ntensors; i++) s->tensors.p[s->tensors.n++] = x.T[i];
    nx__hold *h = &s->marks;
    for (int i = 0; i < m->nmarks; i++) {
      int id = h->n++;
      h->p[id] = m->marks[i].h;
      h->cs[h->ncs++] = marks[i];
      h->nlive += m->marks[i].h.alive;
      h->live[m->marks[i].h.group].p[h->live[m->marks[i].h.group].n++] = id;
    }
    s->next_tensor_id = id0 + m->dtid;
    s->nprocessed += m->dproc, s->nbinds += m->dbinds, s->nchanges += m->dchanges;
    s->stamp += m->dstamp;
    s->stage = 1;
    s->deferred.stage = 1;
    for (int j = 0; j < m->nres; j++)
      out[j] = m->res[j] >= 0 ? x.T[m->res[j]] : m->res[j] <= -2 ? args[-2 - m->res[j]] : m->res_ext[j];
    nx__scheme_memo_hits++;
  }
  if (block != small) nx__free(block);
  return rc;
}
