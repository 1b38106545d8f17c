/* SPDX-License-Identifier: Apache-2.0 */
/* nx_scheme_trace: the function runs on tracing tensors inside a rewind
   while the session records what it registers; the record, the tensors the
   function made and the flags it set are copied into the scheme, the
   printed form is read off the solved session, and the rewind puts the
   session back. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "scheme_internal.h"
#include "../base/alloc.h"

/* A map from a session pointer to a scheme index, open addressing. */
typedef struct {
  const void **k;
  int *v;
  int n, cap;
} pmap;

static int pmap_find(const pmap *m, const void *p) {
  if (!m->cap) return -1;
  size_t h = ((uintptr_t)p >> 3) * 0x9E3779B97F4A7C15ull;
  for (size_t i = h & (size_t)(m->cap - 1);; i = (i + 1) & (size_t)(m->cap - 1)) {
    if (!m->k[i]) return -1;
    if (m->k[i] == p) return m->v[i];
  }
}

static int pmap_put(pmap *m, const void *p, int v) {
  if (2 * (m->n + 1) > m->cap) {
    pmap g = {0};
    g.cap = m->cap ? 2 * m->cap : 64;
    g.k = nx__calloc((size_t)g.cap, sizeof *g.k);
    g.v = nx__malloc((size_t)g.cap * sizeof *g.v);
    if (!g.k || !g.v) {
      nx__free(g.k);
      nx__free(g.v);
      return -1;
    }
    for (int i = 0; i < m->cap; i++)
      if (m->k[i] && pmap_put(&g, m->k[i], m->v[i])) return -1;
    nx__free(m->k);
    nx__free(m->v);
    *m = g;
  }
  size_t h = ((uintptr_t)p >> 3) * 0x9E3779B97F4A7C15ull;
  size_t i = h & (size_t)(m->cap - 1);
  while (m->k[i]) i = (i + 1) & (size_t)(m->cap - 1);
  m->k[i] = p;
  m->v[i] = v;
  m->n++;
  return 0;
}

static void pmap_free(pmap *m) {
  nx__free(m->k);
  nx__free(m->v);
}

/* The copying of one trace. */
typedef struct {
  nx_scheme *sc;
  nx_shape_session *s;
  int W;     /* the first variable the trace made */
  int *gmap; /* variable W + i: its generalized index + 1, 0: not yet */
  bool *seen; /* variable v < W: read by the record */
  pmap dims, rows, strs;
  bool nomem, too_big; /* too_big: a concatenation of more than 64 parts, a flank of more than 256 dims or
                          a total over more than 64 rows, beyond what a scheme holds */
} copier;

static int var_code(copier *c, int v) {
  nx_scheme *sc = c->sc;
  if (v < c->W) {
    c->seen[v] = true;
    for (int i = 0; i < sc->nfixed_open; i++)
      if (sc->fixed_open[i] == v) return v;
    const nx_row *r = NX__VARR(c->s, v)->is_row ? nx__shape_rsub(c->s, nx__shape_row_of_var(c->s, v)) : NULL;
    bool open = r ? r->var != 0 : nx__shape_dsub(c->s, nx__shape_dim_var(c->s, v))->kind != NX__D_SOLVED;
    if (open) {
      if (NX__SGROW(sc, fixed_open, nfixed_open, capfixed_open)) return c->nomem = true, v;
      sc->fixed_open[sc->nfixed_open++] = v;
    }
    return v;
  }
  int *g = &c->gmap[v - c->W];
  if (!*g) {
    if (NX__SGROW(sc, gen, ngen, capgen)) return c->nomem = true, -1;
    const nx__var *e = NX__VARR(c->s, v);
    sc->gen[sc->ngen] = (nx__sgen){.is_row = e->is_row, .flags = nx__scheme_var_flags(e), .name = nx__scheme_str(sc, e->name)};
    *g = ++sc->ngen;
  }
  return -*g;
}

static int copy_dim(copier *c, const nx_dim *d) {
  int i = pmap_find(&c->dims, d);
  if (i >= 0) return i;
  nx__sdim x = {.kind = d->kind, .use_padding = d->use_padding, .over = -1, .kernel = -1};
  switch (d->kind) {
  case NX__D_SOLVED:
    x.d = d->d;
    x.basis = nx__scheme_str(c->sc, d->basis);
    break;
  case NX__D_VAR: x.var = var_code(c, d->var); break;
  case NX__D_AFFINE:
    x.stride = d->stride, x.offset = d->offset, x.dilation = d->dilation;
    x.over = copy_dim(c, d->over);
    x.kernel = d->kernel ? copy_dim(c, d->kernel) : -1;
    break;
  default: {
    int parts[64], np = d->nparts < 64 ? d->nparts : 64;
    if (d->nparts > 64) c->too_big = true;
    for (int k = 0; k < np; k++) parts[k] = copy_dim(c, d->parts[k]);
    nx_scheme *sc = c->sc;
    x.nparts = np;
    x.parts = sc->nints;
    for (int k = 0; k < np; k++) {
      if (NX__SGROW(sc, ints, nints, capints)) return c->nomem = true, 0;
      sc->ints[sc->nints++] = parts[k];
    }
  }
  }
  nx_scheme *sc = c->sc;
  if (NX__SGROW(sc, dims, ndims, capdims)) return c->nomem = true, 0;
  sc->dims[sc->ndims] = x;
  if (pmap_put(&c->dims, d, sc->ndims)) c->nomem = true;
  return sc->ndims++;
}

static int copy_dims(copier *c, const nx_dim *const *d, int n) {
  int at = c->sc->nints;
  int tmp[256];
  for (int i = 0; i < n; i++) {
    int k = copy_dim(c, d[i]);
    if (i < 256) tmp[i] = k;
  }
  at = c->sc->nints;
  for (int i = 0; i < n && i < 256; i++) {
    if (NX__SGROW(c->sc, ints, nints, capints)) return c->nomem = true, 0;
    c->sc->ints[c->sc->nints++] = tmp[i];
  }
  return at;
}

static int copy_row(copier *c, const nx_row *r) {
  int i = pmap_find(&c->rows, r);
  if (i >= 0) return i;
  if (r->nbeg > 256 || r->ndims > 256) c->too_big = true;
  nx__srow x = {.nbeg = r->nbeg < 256 ? r->nbeg : 256, .ndims = r->ndims < 256 ? r->ndims : 256};
  x.beg = copy_dims(c, r->beg, x.nbeg);
  x.dims = copy_dims(c, r->dims, x.ndims);
  x.var = r->var ? var_code(c, r->var) : 0;
  nx_scheme *sc = c->sc;
  if (NX__SGROW(sc, rows, nrows, caprows)) return c->nomem = true, 0;
  sc->rows[sc->nrows] = x;
  if (pmap_put(&c->rows, r, sc->nrows)) c->nomem = true;
  return sc->nrows++;
}

static const nx__origin *leaf_origin(const nx__origin *o) {
  for (int depth = 0; o && o->derived && depth < 64; depth++) o = o->a ? o->a : o->b;
  return o && !o->derived ? o : NULL;
}

/* A session string's index in the scheme's strs, copied there once. */
static int copy_str(copier *c, const char *str) {
  if (!str) return -1;
  int i = pmap_find(&c->strs, str);
  if (i >= 0) return i;
  nx_scheme *sc = c->sc;
  const char *x = nx__scheme_str(sc, str);
  if (!x || NX__SGROW(sc, strs, nstrs, capstrs) || pmap_put(&c->strs, str, sc->nstrs)) return c->nomem = true, -1;
  sc->strs[sc->nstrs] = x;
  return sc->nstrs++;
}

static int copy_origin(copier *c, const nx__origin *o) {
  o = leaf_origin(o);
  if (!o) return -1;
  nx_scheme *sc = c->sc;
  nx__sorigin x = {copy_str(c, o->operation), copy_str(c, o->lhs_name), copy_str(c, o->rhs_name), o->lhs_kind, o->rhs_kind};
  if (NX__SGROW(sc, origins, norigins, caporigins)) return c->nomem = true, -1;
  sc->origins[sc->norigins] = x;
  return sc->norigins++;
}

static bool is_dim_kind(int k) { return k == NX__C_DIM_EQ || k == NX__C_DIM_INEQ || k == NX__C_AT_LEAST || k == NX__C_TERM_DIM; }

static void copy_cons(copier *c, const nx__cons *k) {
  nx__scons x = {.kind = k->kind, .is_param = k->is_param, .nrows = k->nrows, .a = -1, .b = -1, .rows = -1};
  x.origin = copy_origin(c, k->o);
  if (k->kind == NX__C_BATCH_END) {
  } else if (k->kind == NX__C_TOTAL || k->kind == NX__C_TOTAL_DIM || k->kind == NX__C_EXACT) {
    int tmp[64], nr = k->nrows < 64 ? k->nrows : 64;
    if (k->nrows > 64) c->too_big = true;
    for (int i = 0; i < nr; i++) tmp[i] = copy_row(c, k->rows[i]);
    x.nrows = nr;
    x.rows = c->sc->nints;
    for (int i = 0; i < nr; i++) {
      if (NX__SGROW(c->sc, ints, nints, capints)) return (void)(c->nomem = true);
      c->sc->ints[c->sc->nints++] = tmp[i];
    }
    if (k->kind == NX__C_TOTAL) x.n = k->n;
    else if (k->kind == NX__C_TOTAL_DIM) x.a = copy_dim(c, k->d2);
    else x.b = copy_row(c, k->ex);
  } else if (is_dim_kind(k->kind)) {
    x.a = copy_dim(c, k->d1);
    if (k->kind == NX__C_AT_LEAST) x.n = k->n;
    else if (k->kind != NX__C_TERM_DIM) x.b = copy_dim(c, k->d2);
  } else {
    x.a = copy_row(c, k->r1);
    if (k->kind == NX__C_ROW_EQ || k->kind == NX__C_ROW_INEQ) x.b = copy_row(c, k->r2);
  }
  nx_scheme *sc = c->sc;
  if (NX__SGROW(sc, cons, ncons, capcons)) return (void)(c->nomem = true);
  sc->cons[sc->ncons++] = x;
}

static bool dim_has_outside(const nx_dim *d, int W) {
  if (d->kind == NX__D_VAR) return d->var < W;
  if (d->kind == NX__D_AFFINE) return dim_has_outside(d->over, W);
  if (d->kind == NX__D_CONCAT)
    for (int i = 0; i < d->nparts; i++)
      if (dim_has_outside(d->parts[i], W)) return true;
  return false;
}

static bool row_has_outside(const nx_row *r, int W) {
  if (r->var && r->var < W) return true;
  for (int i = 0; i < r->nbeg; i++)
    if (dim_has_outside(r->beg[i], W)) return true;
  for (int i = 0; i < r->ndims; i++)
    if (dim_has_outside(r->dims[i], W)) return true;
  return false;
}

/* A set_dim or set_row_total on a dim or row made before the trace: a scheme
   cannot carry it (each application would set the shared reference). */
static bool sets_outside(const nx__cvec *rec, int W) {
  for (int i = 0; i < rec->n; i++) {
    const nx__cons *k = &rec->p[i];
    const nx__origin *o = leaf_origin(k->o);
    if (!o || !o->operation || strcmp(o->operation, "set_dim")) continue;
    if (k->kind == NX__C_DIM_EQ && dim_has_outside(k->d1, W)) return true;
    if (k->kind == NX__C_TOTAL && k->nrows == 1 && row_has_outside(k->rows[0], W)) return true;
  }
  return false;
}

static int where_made(nx_shape_session *s, int T0, int n, const nx_tensor *t, nx__sresult *r) {
  r->made = r->arg = -1;
  r->outside = NULL;
  for (int i = T0; i < s->tensors.n; i++)
    if (s->tensors.p[i] == t) {
      if (i < T0 + n) r->arg = i - T0;
      else r->made = i - T0 - n;
      return 0;
    }
  r->outside = (nx_tensor *)t;
  return 0;
}

/* Copies the record, the tensors and the flags into sc (the session still
   solved as the trace left it). */
static int build(copier *c, const nx__cvec *rec, int T0, nx_tensor *const *args, int n, nx_tensor *const *res,
                 int nres) {
  nx_shape_session *s = c->s;
  nx_scheme *sc = c->sc;
  sc->args = nx__calloc((size_t)(n ? n : 1), sizeof *sc->args);
  sc->results = nx__calloc((size_t)nres, sizeof *sc->results);
  sc->res_rows = nx__calloc((size_t)nres, sizeof *sc->res_rows);
  if (!sc->args || !sc->results || !sc->res_rows) return NX_ENOMEM;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) sc->args[i][k] = copy_row(c, args[i]->rows[k]);
  for (int i = 0; i < rec->n; i++) copy_cons(c, &rec->p[i]);
  for (int i = T0 + n; i < s->tensors.n; i++) {
    const nx_tensor *t = s->tensors.p[i];
    if (NX__SGROW(sc, tensors, ntensors, captensors)) return NX_ENOMEM;
    nx__stensor x = {.label = nx__scheme_str(sc, t->label), .is_param = t->is_param};
    for (int k = 0; k < 3; k++) x.rows[k] = copy_row(c, t->rows[k]);
    sc->tensors[sc->ntensors++] = x;
  }
  for (int j = 0; j < nres; j++) {
    where_made(s, T0, n, res[j], &sc->results[j]);
    for (int k = 0; k < 3; k++) sc->res_rows[j][k] = copy_row(c, res[j]->rows[k]);
  }
  /* the flags of the fixed variables the record reads, as the trace left
     them (those raised are kept after the rewind: keep_raised) */
  for (int v = 1; v < c->W; v++)
    if (c->seen[v]) {
      if (NX__SGROW(sc, flags, nflags, capflags)) return NX_ENOMEM;
      sc->flags[sc->nflags++] = (nx__sflag){v, nx__scheme_var_flags(NX__VARR(s, v))};
    }
  /* generalized variables' flags as the trace ended */
  for (int v = c->W; v < s->nvars; v++)
    if (c->gmap[v - c->W]) sc->gen[c->gmap[v - c->W] - 1].flags = nx__scheme_var_flags(NX__VARR(s, v));
  return c->nomem ? NX_ENOMEM : c->too_big ? NX_EINVAL : 0;
}

/* After the rewind: of the fixed variables' flags as the trace left them,
   the ones it raised, which each application raises again. */
static void keep_raised(nx_scheme *sc, nx_shape_session *s) {
  int k = 0;
  for (int i = 0; i < sc->nflags; i++) {
    unsigned char raised = (unsigned char)(sc->flags[i].flags & ~nx__scheme_var_flags(NX__VARR(s, sc->flags[i].var)));
    if (raised) sc->flags[k++] = (nx__sflag){sc->flags[i].var, raised};
  }
  sc->nflags = k;
}

static int trace_fail(nx_scheme *sc, nx_shape_session *s, nx_shape_snapshot *w, int rc, const char *label,
                      const char *what) {
  char msg[1200];
  snprintf(msg, sizeof msg, "%s", what);
  if (s) nx__rewind_restore(s, w);
  nx__rewind_free(w);
  nx_scheme_free(sc);
  if (rc == NX_ENOMEM) return nx__fail(NX_ENOMEM, "tracing the shape scheme %s: out of memory", label);
  return nx__fail(rc ? rc : NX_EINVAL, "tracing the shape scheme %s: %s", label, msg);
}

const char *const nx__scheme_reason_force = "forcing dims";
const char *const nx__scheme_reason_set = "setting a capture reference made outside the function";
const char *const nx__scheme_reason_tracers = "a body that cannot run on tracers";

int nx_scheme_trace(nx_shape_session *s, const char *label, int n, nx_scheme_fn f, void *ctx, nx_scheme **out) {
  const char *carry;
  return nx__scheme_trace_as(s, label, n, f, ctx, out, &carry);
}

int nx__scheme_trace_as(nx_shape_session *s, const char *label, int n, nx_scheme_fn f, void *ctx, nx_scheme **out,
                        const char **carry) {
  *carry = NULL;
  if (!s || !label || !f || !out) return nx__fail(NX_EINVAL, "nx_scheme_trace: NULL argument");
  if (!*label || n < 0) return nx__fail(NX_EINVAL, "nx_scheme_trace: empty label or negative arity %d", n);
  if (s->tainted)
    return nx__fail(NX_EINVAL, "tracing the shape scheme %s: the session is tainted by an earlier shape error: %s",
                    label, s->taint);
  int64_t t0 = nx__scheme_now_ns();
  nx_scheme *sc = nx__calloc(1, sizeof *sc);
  nx_shape_snapshot *w = sc ? nx__rewind_take(s) : NULL;
  if (!sc || !w || !(sc->label = nx__malloc(strlen(label) + 1)))
    return trace_fail(sc, w ? s : NULL, w, NX_ENOMEM, label, "");
  memcpy(sc->label, label, strlen(label) + 1);
  sc->arity = n;
  sc->session = s;
  sc->traced_open = s->stage <= 1;
  int W = s->nvars, T0 = s->tensors.n;
  nx__cvec rec = {0};
  nx__cvec *prev = s->rec;
  s->rec = &rec;
  s->stage = 1;
  nx_tensor *args[64], **argv = n <= 64 ? args : nx__malloc((size_t)n * sizeof *argv);
  int rc = argv ? 0 : NX_ENOMEM;
  for (int i = 0; i < n && !rc; i++) {
    char name[32];
    snprintf(name, sizeof name, "arg%d", i + 1);
    if (!(argv[i] = nx__shape_tensor_node(s, name))) rc = NX_ENOMEM;
  }
  nx_tensor *res[NX_SCHEME_MAX_RESULTS + 1] = {0};
  int nres = -1;
  char what[1100] = "";
  if (!rc) {
    rc = f(ctx, s, argv, n, res, &nres);
    if (rc) snprintf(what, sizeof what, "%s", nx_error_message());
    if (rc && !s->tainted && rc != NX_ENOMEM) *carry = nx__scheme_reason_tracers; /* not a shape error */
  }
  if (s->stage > 1) {
    rc = NX_EINVAL;
    *carry = nx__scheme_reason_force;
    snprintf(what, sizeof what, "the function forces dims (closing or a solve past stage 1): inference cannot close during a trace");
  }
  if (!rc && (nres < 1 || nres > NX_SCHEME_MAX_RESULTS)) {
    rc = NX_EINVAL;
    *carry = nx__scheme_reason_tracers;
    snprintf(what, sizeof what, "the function returned %d results (1 to %d)", nres, NX_SCHEME_MAX_RESULTS);
  }
  for (int j = 0; !rc && j < nres; j++)
    if (!res[j]) {
      rc = NX_EINVAL;
      *carry = nx__scheme_reason_tracers;
      snprintf(what, sizeof what, "the function's result %d is NULL", j + 1);
    }
  if (!rc && nx__shape_run(s, 1)) { /* the end-of-trace check */
    rc = NX_EINVAL;
    snprintf(what, sizeof what, "%s", s->err);
  }
  if (!rc && sets_outside(&rec, W)) {
    rc = NX_EINVAL;
    *carry = nx__scheme_reason_set;
    snprintf(what, sizeof what, "set_dim on a capture reference made outside the function cannot be carried by a scheme");
  }
  s->rec = prev;
  copier c = {.sc = sc, .s = s, .W = W};
  if (!rc) {
    sc->nres = nres;
    c.gmap = nx__calloc((size_t)(s->nvars - W + 1), sizeof *c.gmap);
    c.seen = nx__calloc((size_t)W, sizeof *c.seen);
    rc = c.gmap && c.seen ? build(&c, &rec, T0, argv, n, res, nres) : NX_ENOMEM;
    if (rc == NX_EINVAL)
      snprintf(what, sizeof what, "the function made a dim or row beyond what a scheme holds (a concatenation of more "
                                  "than 64 parts, a row flank of more than 256 dims or a total over more than 64 rows)");
    if (!rc && !(sc->text = nx__scheme_print(s, sc, W, argv, n, res, nres))) rc = NX_ENOMEM;
    sc->open_fixed = sc->nfixed_open > 0;
  }
  int64_t ncons = rec.n;
  nx__free(rec.p);
  nx__free(c.gmap);
  nx__free(c.seen);
  pmap_free(&c.dims);
  pmap_free(&c.rows);
  pmap_free(&c.strs);
  if (argv != args) nx__free(argv);
  if (rc) return trace_fail(sc, s, w, rc, label, what);
  nx__rewind_restore(s, w);
  nx__rewind_free(w);
  keep_raised(sc, s);
  nx__scheme_count(0, ncons, nx__scheme_now_ns() - t0);
  *out = sc;
  return 0;
}
