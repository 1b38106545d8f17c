/* SPDX-License-Identifier: Apache-2.0 */
/* The copying of a solved session's dims, rows and constraints into a
   scheme's tables, each session object once, variables by their codes (see
   scheme_internal.h). The trace copies its record with it, and the reduced
   form (scheme_reduce.c) its constraints over the boundary. */
#include <stdint.h>
#include <string.h>

#include "scheme_internal.h"
#include "../base/alloc.h"

/* A map from a session pointer to a scheme index, open addressing. */
int nx__scheme_pmap_find(const nx__pmap *m, const void *p) {
  if (!m->cap) return -1;
  size_t h = ((uintptr_t)p >> 3) * 0x9E3779B97F4A7C15ull;
  for (size_t i = h & (size_t)(m->cap - 1);; i = (i + 1) & (size_t)(m->cap - 1)) {
    if (!m->k[i]) return -1;
    if (m->k[i] == p) return m->v[i];
  }
}

int nx__scheme_pmap_put(nx__pmap *m, const void *p, int v) {
  if (2 * (m->n + 1) > m->cap) {
    nx__pmap g = {0};
    g.cap = m->cap ? 2 * m->cap : 64;
    g.k = nx__calloc((size_t)g.cap, sizeof *g.k);
    g.v = nx__malloc((size_t)g.cap * sizeof *g.v);
    if (!g.k || !g.v) {
      nx__free(g.k);
      nx__free(g.v);
      return -1;
    }
    for (int i = 0; i < m->cap; i++)
      if (m->k[i] && nx__scheme_pmap_put(&g, m->k[i], m->v[i])) return -1;
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

void nx__scheme_pmap_free(nx__pmap *m) {
  nx__free(m->k);
  nx__free(m->v);
}

static int var_code(nx__copier *c, int v) {
  nx_scheme *sc = c->sc;
  if (v < c->W) {
    if (!c->seen) return v; /* the reduced form: the trace's copy noted the fixed ones */
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

static int copy_dim(nx__copier *c, const nx_dim *d) {
  int i = nx__scheme_pmap_find(&c->dims, d);
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
  if (nx__scheme_pmap_put(&c->dims, d, sc->ndims)) c->nomem = true;
  return sc->ndims++;
}

static int copy_dims(nx__copier *c, const nx_dim *const *d, int n) {
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

int nx__scheme_copy_dim(nx__copier *c, const nx_dim *d) { return copy_dim(c, d); }

int nx__scheme_copy_row(nx__copier *c, const nx_row *r) {
  int i = nx__scheme_pmap_find(&c->rows, r);
  if (i >= 0) return i;
  if (r->nbeg > 256 || r->ndims > 256) c->too_big = true;
  nx__srow x = {.nbeg = r->nbeg < 256 ? r->nbeg : 256, .ndims = r->ndims < 256 ? r->ndims : 256};
  x.beg = copy_dims(c, r->beg, x.nbeg);
  x.dims = copy_dims(c, r->dims, x.ndims);
  x.var = r->var ? var_code(c, r->var) : 0;
  nx_scheme *sc = c->sc;
  if (NX__SGROW(sc, rows, nrows, caprows)) return c->nomem = true, 0;
  sc->rows[sc->nrows] = x;
  if (nx__scheme_pmap_put(&c->rows, r, sc->nrows)) c->nomem = true;
  return sc->nrows++;
}

const nx__origin *nx__scheme_leaf_origin(const nx__origin *o) {
  for (int depth = 0; o && o->derived && depth < 64; depth++) o = o->a ? o->a : o->b;
  return o && !o->derived ? o : NULL;
}

/* A session string's index in the scheme's strs, copied there once. */
static int copy_str(nx__copier *c, const char *str) {
  if (!str) return -1;
  int i = nx__scheme_pmap_find(&c->strs, str);
  if (i >= 0) return i;
  nx_scheme *sc = c->sc;
  const char *x = nx__scheme_str(sc, str);
  if (!x || NX__SGROW(sc, strs, nstrs, capstrs) || nx__scheme_pmap_put(&c->strs, str, sc->nstrs)) return c->nomem = true, -1;
  sc->strs[sc->nstrs] = x;
  return sc->nstrs++;
}

void nx__scheme_note_names(nx__copier *c, nx_tensor *const *args, int n, int T1, int nmade) {
  for (int i = 0; i < n + nmade; i++)
    if (nx__scheme_pmap_put(&c->names, i < n ? args[i]->label : ((const nx_tensor *)c->s->tensors.p[T1 + i - n])->label, i))
      c->nomem = true;
}

nx__stensor nx__scheme_stensor(nx_scheme *sc, const nx_tensor *t, int made) {
  return (nx__stensor){.label = nx__scheme_str(sc, t->label), .op_len = t->auto_len - 1, .is_param = t->is_param,
                       .made = made};
}

/* An origin's name: a noted tensor's by reference, else the string. */
static int copy_name(nx__copier *c, const char *name) {
  int ref = name ? nx__scheme_pmap_find(&c->names, name) : -1;
  return ref >= 0 ? NX__SNAME(ref) : copy_str(c, name);
}

static int copy_origin(nx__copier *c, const nx__origin *o) {
  o = nx__scheme_leaf_origin(o);
  if (!o) return -1;
  nx_scheme *sc = c->sc;
  nx__sorigin x = {copy_str(c, o->operation), copy_name(c, o->lhs_name), copy_name(c, o->rhs_name), o->lhs_kind, o->rhs_kind};
  if (NX__SGROW(sc, origins, norigins, caporigins)) return c->nomem = true, -1;
  sc->origins[sc->norigins] = x;
  return sc->norigins++;
}

static bool is_dim_kind(int k) { return k == NX__C_DIM_EQ || k == NX__C_DIM_INEQ || k == NX__C_AT_LEAST || k == NX__C_TERM_DIM; }

void nx__scheme_copy_cons(nx__copier *c, const nx__cons *k) {
  nx__scons x = {.kind = k->kind, .is_param = k->is_param, .nrows = k->nrows, .a = -1, .b = -1, .rows = -1};
  x.origin = copy_origin(c, k->o);
  if (k->kind == NX__C_BATCH_END) {
  } else if (k->kind == NX__C_TOTAL || k->kind == NX__C_TOTAL_DIM || k->kind == NX__C_EXACT) {
    int tmp[64], nr = k->nrows < 64 ? k->nrows : 64;
    if (k->nrows > 64) c->too_big = true;
    for (int i = 0; i < nr; i++) tmp[i] = nx__scheme_copy_row(c, k->rows[i]);
    x.nrows = nr;
    x.rows = c->sc->nints;
    for (int i = 0; i < nr; i++) {
      if (NX__SGROW(c->sc, ints, nints, capints)) return (void)(c->nomem = true);
      c->sc->ints[c->sc->nints++] = tmp[i];
    }
    if (k->kind == NX__C_TOTAL) x.n = k->n;
    else if (k->kind == NX__C_TOTAL_DIM) x.a = copy_dim(c, k->d2);
    else x.b = nx__scheme_copy_row(c, k->ex);
  } else if (is_dim_kind(k->kind)) {
    x.a = copy_dim(c, k->d1);
    if (k->kind == NX__C_AT_LEAST) x.n = k->n;
    else if (k->kind != NX__C_TERM_DIM) x.b = copy_dim(c, k->d2);
  } else {
    x.a = nx__scheme_copy_row(c, k->r1);
    if (k->kind == NX__C_ROW_EQ || k->kind == NX__C_ROW_INEQ) x.b = nx__scheme_copy_row(c, k->r2);
  }
  nx_scheme *sc = c->sc;
  if (NX__SGROW(sc, cons, ncons, capcons)) return (void)(c->nomem = true);
  sc->cons[sc->ncons++] = x;
}

