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
    const nx__origin *o = nx__scheme_leaf_origin(k->o);
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
static int build(nx__copier *c, const nx__cvec *rec, const nx__refvec *refs, int T0, nx_tensor *const *args, int n,
                 nx_tensor *const *res, int nres) {
  nx_shape_session *s = c->s;
  nx_scheme *sc = c->sc;
  sc->args = nx__calloc((size_t)(n ? n : 1), sizeof *sc->args);
  sc->results = nx__calloc((size_t)(nres ? nres : 1), sizeof *sc->results);
  sc->res_rows = nx__calloc((size_t)(nres ? nres : 1), sizeof *sc->res_rows);
  if (!sc->args || !sc->results || !sc->res_rows) return NX_ENOMEM;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) sc->args[i][k] = nx__scheme_copy_row(c, args[i]->rows[k]);
  nx__scheme_note_names(c, args, n, T0 + n, s->tensors.n - T0 - n);
  for (int i = 0; i < rec->n; i++) nx__scheme_copy_cons(c, &rec->p[i]);
  for (int i = T0 + n; i < s->tensors.n; i++) {
    const nx_tensor *t = s->tensors.p[i];
    if (NX__SGROW(sc, tensors, ntensors, captensors)) return NX_ENOMEM;
    nx__stensor x = nx__scheme_stensor(sc, t, sc->ntensors);
    for (int k = 0; k < 3; k++) x.rows[k] = nx__scheme_copy_row(c, t->rows[k]);
    sc->tensors[sc->ntensors++] = x;
  }
  for (int i = 0; i < refs->n; i++) {
    if (NX__SGROW(sc, refbinds, nrefbinds, caprefbinds)) return NX_ENOMEM;
    const nx__refbind *b = &refs->p[i];
    sc->refbinds[sc->nrefbinds].r = b->r;
    sc->refbinds[sc->nrefbinds].dim = b->dim ? nx__scheme_copy_dim(c, b->dim) : -1;
    sc->refbinds[sc->nrefbinds++].row = b->dim ? -1 : nx__scheme_copy_row(c, b->row);
  }
  for (int j = 0; j < nres; j++) {
    where_made(s, T0, n, res[j], &sc->results[j]);
    for (int k = 0; k < 3; k++) sc->res_rows[j][k] = nx__scheme_copy_row(c, res[j]->rows[k]);
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
  if (!*label || n < 0 || n > NX_SCHEME_MAX_ARITY)
    return nx__fail(NX_EINVAL, "nx_scheme_trace: empty label or arity %d outside 0 to %d", n, NX_SCHEME_MAX_ARITY);
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
  sc->session_serial = s->serial;
  sc->closings = s->closings;
  int W = s->nvars, T0 = s->tensors.n;
  nx__trace_at at = {.W = W, .T0 = T0, .U0 = s->nundo, .M0 = s->marks.n, .D0 = s->deferred.n,
                     .D0live = s->deferred.nlive};
  nx__cvec rec = {0};
  nx__cvec *prev = s->rec;
  bool prev_forced = s->forced_proj, prev_dims = s->forced_dims, prev_set = s->set_outside_ref;
  int64_t errors0 = s->shape_errors, prev_floor = s->ref_floor;
  nx__refvec refs = {0}, *prev_refs = s->ref_rec;
  s->ref_rec = &refs;
  s->ref_floor = s->nrefs_made;
  s->set_outside_ref = false;
  s->rec = &rec;
  s->forced_proj = false;
  s->forced_dims = false;
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
    nx__fail(0, "%s", ""); /* so that a failure of f's own, without a message, is not told by an older one */
    rc = f(ctx, s, argv, n, res, &nres);
    if (rc) nx__scheme_failure_text(rc, "the function", what, sizeof what);
    if (rc > 0) rc = NX_EINVAL; /* statuses are 0 or negative: a positive one is a failure, told as one */
    /* not a shape error: none tainted the session, nor was one rewound
       (an inner trace's or check's) */
    if (rc && !s->tainted && s->shape_errors == errors0 && rc != NX_ENOMEM) *carry = nx__scheme_reason_tracers;
  }
  if (s->forced_dims) { /* raised by any solve past stage 1 while the trace recorded */
    rc = NX_EINVAL;
    *carry = nx__scheme_reason_force;
    snprintf(what, sizeof what, "the function forces dims (closing or a solve past stage 1): inference cannot close during a trace");
  } else if (s->forced_proj) {
    rc = NX_EINVAL;
    *carry = nx__scheme_reason_force;
    snprintf(what, sizeof what, "the function forces projections (nx_shape_projections or nx_tensor_resolve_padding): "
                                "inference cannot close during a trace");
  }
  s->forced_proj = prev_forced;
  s->forced_dims = prev_dims;
  if (!rc && (nres < 0 || nres > NX_SCHEME_MAX_RESULTS)) {
    rc = NX_EINVAL;
    *carry = nx__scheme_reason_tracers;
    snprintf(what, sizeof what, "the function returned %d results (0 to %d)", nres, NX_SCHEME_MAX_RESULTS);
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
  if (!rc && (sets_outside(&rec, W) || s->set_outside_ref)) {
    rc = NX_EINVAL;
    *carry = nx__scheme_reason_set;
    snprintf(what, sizeof what, "set_dim on a capture reference made outside the function cannot be carried by a scheme"
                                " (nx_tensor_set_dim, nx_shape_ref_set_dim, set_equal or set_scale)");
  }
  s->rec = prev;
  s->ref_rec = prev_refs;
  s->ref_floor = prev_floor;
  s->set_outside_ref = prev_set;
  nx__copier c = {.sc = sc, .s = s, .W = W};
  if (!rc) {
    sc->nres = nres;
    c.gmap = nx__calloc((size_t)(s->nvars - W + 1), sizeof *c.gmap);
    c.seen = nx__calloc((size_t)W, sizeof *c.seen);
    rc = c.gmap && c.seen ? build(&c, &rec, &refs, T0, argv, n, res, nres) : NX_ENOMEM;
    if (rc == NX_EINVAL)
      snprintf(what, sizeof what, "the function made a dim or row beyond what a scheme holds (a concatenation of more "
                                  "than 64 parts, a row flank of more than 256 dims or a total over more than 64 rows)");
    if (!rc && !(sc->text = nx__scheme_print(s, sc, W, argv, n, res, nres))) rc = NX_ENOMEM;
    sc->nmade = sc->ntensors;
    if (!rc && sc->nrefbinds) sc->red_why = "the scheme binds references made before the trace";
    else if (!rc) rc = nx__scheme_reduce(s, sc, &at, argv, n, res, nres);
    sc->open_fixed = sc->nfixed_open > 0;
  }
  int64_t ncons = rec.n;
  nx__free(rec.p);
  nx__free(refs.p);
  nx__free(c.gmap);
  nx__free(c.seen);
  nx__scheme_pmap_free(&c.dims);
  nx__scheme_pmap_free(&c.rows);
  nx__scheme_pmap_free(&c.strs);
  nx__scheme_pmap_free(&c.names);
  if (argv != args) nx__free(argv);
  if (rc && !*carry && rc != NX_ENOMEM) s->shape_errors++; /* survives the rewind: an enclosing trace reads it */
  if (rc) return trace_fail(sc, s, w, rc, label, what);
  nx__rewind_restore(s, w);
  nx__rewind_free(w);
  sc->restores = s->nrestores, sc->W = W, sc->T0 = T0;
  keep_raised(sc, s);
  nx__scheme_count(0, ncons, nx__scheme_now_ns() - t0);
  *out = sc;
  return 0;
}
