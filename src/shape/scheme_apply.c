/* SPDX-License-Identifier: Apache-2.0 */
/* nx_scheme_instantiate: the scheme's record replayed for one application,
   its generalized variables renamed to fresh ones, the fixed ones kept, the
   tracing shapes made equal to the arguments' and the tensors the function
   made made again (so that closing closes them as it would the body's),
   then solved at stage 1 as an operation is. */
#include <stdio.h>
#include <string.h>

#include "scheme_internal.h"
#include "../base/alloc.h"

typedef struct {
  nx_shape_session *s;
  const nx_scheme *sc;
  const nx_scheme *full; /* the full record: its tensors are every made tensor, by index */
  nx_tensor *const *args;
  int *fresh;
  const char **labels; /* by made index: the labels the body's tensors would have, made on first use */
  int id_lo, id_avail, id0; /* the made tensors' ids: id_avail from the entered range's id_lo, then id0 + 1, ... */
  const nx_dim **dims;
  const nx_row **rows;
  const nx__origin **origins;
  const char **ops, **names; /* by string index: the session's copies, made on first use */
  const char *prefix; /* "applying the shape scheme <label> to <application>: " */
  const char *op_arg, *op_res; /* the session's "<prefix>argument", "<prefix>result" */
} inst;

static int var_of(const inst *x, int code) { return code > 0 ? code : x->fresh[-code - 1]; }

static const nx_dim *make_dim(inst *x, const nx__sdim *d) {
  nx_shape_session *s = x->s;
  switch (d->kind) {
  case NX__D_SOLVED: return nx__shape_dim_solved(s, d->d, d->basis);
  case NX__D_VAR: return nx__shape_dim_var(s, var_of(x, d->var));
  case NX__D_AFFINE: {
    nx_dim *a = nx__shape_alloc(s, sizeof *a);
    if (!a) return NULL;
    a->kind = NX__D_AFFINE;
    a->use_padding = d->use_padding;
    a->stride = d->stride, a->offset = d->offset, a->dilation = d->dilation;
    a->over = x->dims[d->over];
    a->kernel = d->kernel >= 0 ? x->dims[d->kernel] : NULL;
    return a;
  }
  default: {
    nx_dim *a = nx__shape_alloc(s, sizeof *a);
    const nx_dim **parts = nx__shape_alloc(s, (size_t)d->nparts * sizeof *parts);
    if (!a || !parts) return NULL;
    for (int i = 0; i < d->nparts; i++) parts[i] = x->dims[x->sc->ints[d->parts + i]];
    a->kind = NX__D_CONCAT;
    a->nparts = d->nparts;
    a->parts = parts;
    return a;
  }
  }
}

static const nx_row *make_row(inst *x, const nx__srow *r) {
  const nx_dim *beg[256], *dims[256];
  for (int i = 0; i < r->nbeg; i++) beg[i] = x->dims[x->sc->ints[r->beg + i]];
  for (int i = 0; i < r->ndims; i++) dims[i] = x->dims[x->sc->ints[r->dims + i]];
  if (!r->nbeg && !r->ndims && r->var) return nx__shape_row_of_var(x->s, var_of(x, r->var));
  return nx__shape_row_new(x->s, beg, r->nbeg, dims, r->ndims, r->var ? var_of(x, r->var) : 0);
}

/* a and the first nb bytes of b, joined in the session's arena (NULL if
   memory runs out): the strings of an application are built per
   constraint, where a formatted print would cost more than the solve. */
static char *cat(nx_shape_session *s, const char *a, const char *b, size_t nb) {
  size_t na = strlen(a);
  char *m = nx__shape_alloc(s, na + nb + 1);
  if (!m) return NULL;
  memcpy(m, a, na);
  memcpy(m + na, b, nb);
  m[na + nb] = 0;
  return m;
}

/* The session's copy of scheme string i: an operation carries the
   application's prefix. */
static const char *op_str(inst *x, int i) {
  if (i < 0) return x->prefix; /* no operation: the application names it */
  return x->ops[i] ? x->ops[i] : (x->ops[i] = cat(x->s, x->prefix, x->sc->strs[i], strlen(x->sc->strs[i])));
}

/* The id the body's made-th tensor would take: the entered range's while
   it lasts, then the session's counter's (as tensor.c gives them). */
static int made_id(const inst *x, int made) {
  return made < x->id_avail ? x->id_lo + made : x->id0 + 1 + (made - x->id_avail);
}

/* "<operation>#<id>" in the session's arena, op the first nop bytes of
   the operation (NULL if memory runs out): joined by copying, as a
   formatted print would cost more than the solve. */
const char *nx__scheme_id_label(nx_shape_session *s, const char *op, size_t nop, int id) {
  char num[16], *p = num + sizeof num;
  *--p = 0;
  unsigned v = id < 0 ? 0u - (unsigned)id : (unsigned)id;
  do *--p = (char)('0' + v % 10); while (v /= 10);
  if (id < 0) *--p = '-';
  *--p = '#';
  size_t np = (size_t)(num + sizeof num - p);
  char *l = nx__shape_alloc(s, nop + np);
  if (l) {
    memcpy(l, op, nop);
    memcpy(l + nop, p, np);
  }
  return l;
}

/* The label the body's made-th tensor would have: one given kept as it
   is, one made "<operation>#<id>" with the application's id. */
static const char *made_label(inst *x, int made) {
  if (x->labels[made]) return x->labels[made];
  const nx__stensor *t = &x->full->tensors[made];
  if (t->op_len < 0) return x->labels[made] = nx__shape_strdup(x->s, t->label);
  return x->labels[made] = nx__scheme_id_label(x->s, t->label, (size_t)t->op_len, made_id(x, made));
}

static const char *name_str(inst *x, int i) {
  if (i <= NX__SNAME(0)) {
    int ref = NX__SNAME(0) - i;
    return ref < x->sc->arity ? x->args[ref]->label : made_label(x, ref - x->sc->arity);
  }
  if (i < 0) return "?";
  return x->names[i] ? x->names[i] : (x->names[i] = nx__shape_strdup(x->s, x->sc->strs[i]));
}

static const nx__origin *make_origin(inst *x, const nx__sorigin *o) {
  nx__origin *y = nx__shape_alloc(x->s, sizeof *y);
  if (!y) return NULL;
  y->operation = op_str(x, o->operation);
  y->lhs_name = name_str(x, o->lhs);
  y->rhs_name = name_str(x, o->rhs);
  y->lhs_kind = o->lk;
  y->rhs_kind = o->rk;
  return y->operation && y->lhs_name && y->rhs_name ? y : NULL;
}

/* An origin of the application's own (an argument's or a result's
   binding): its names are the session's labels, its operation made once. */
static const nx__origin *own_origin(inst *x, const char *operation, const char *lhs, const char *rhs, int k) {
  nx__origin *y = nx__shape_alloc(x->s, sizeof *y);
  if (!y) return NULL;
  const char **op = operation[0] == 'a' ? &x->op_arg : &x->op_res;
  if (!*op) *op = cat(x->s, x->prefix, operation, strlen(operation));
  y->operation = *op;
  y->lhs_name = lhs;
  y->rhs_name = rhs;
  y->lhs_kind = y->rhs_kind = (signed char)k;
  return *op ? y : NULL;
}

/* A made tensor again, labelled and numbered as the body's would be. */
static nx_tensor *make_tensor(inst *x, const nx__stensor *t) {
  nx_shape_session *s = x->s;
  nx_tensor *u = nx__shape_alloc(s, sizeof *u);
  if (!u) return NULL;
  u->id = made_id(x, t->made);
  u->label = made_label(x, t->made);
  u->auto_len = (unsigned char)(t->op_len + 1);
  for (int k = 0; k < 3; k++) u->rows[k] = x->rows[t->rows[k]];
  u->is_param = t->is_param;
  if (!u->label || nx__shape_pvec_push(&s->tensors, u)) return NULL;
  return u;
}

static int push(inst *x, nx__cons c) { return nx__shape_push(x->s, &x->s->pending, &c); }

static int replay(inst *x, const nx__scons *k) {
  const nx_scheme *sc = x->sc;
  nx__cons c = {.kind = k->kind, .is_param = k->is_param, .nrows = k->nrows};
  c.o = k->origin >= 0 ? x->origins[k->origin] : NULL;
  switch (k->kind) {
  case NX__C_DIM_EQ:
  case NX__C_DIM_INEQ: c.d1 = x->dims[k->a], c.d2 = x->dims[k->b]; break;
  case NX__C_AT_LEAST: c.d1 = x->dims[k->a], c.n = k->n; break;
  case NX__C_TERM_DIM: c.d1 = x->dims[k->a]; break;
  case NX__C_TOTAL:
  case NX__C_TOTAL_DIM:
  case NX__C_EXACT: {
    const nx_row **rows = nx__shape_alloc(x->s, (size_t)(k->nrows ? k->nrows : 1) * sizeof *rows);
    if (!rows) return NX_ENOMEM;
    for (int i = 0; i < k->nrows; i++) rows[i] = x->rows[sc->ints[k->rows + i]];
    c.rows = rows;
    if (k->kind == NX__C_TOTAL) c.n = k->n;
    else if (k->kind == NX__C_TOTAL_DIM) c.d2 = x->dims[k->a];
    else c.ex = x->rows[k->b];
    break;
  }
  case NX__C_ROW_EQ:
  case NX__C_ROW_INEQ: c.r1 = x->rows[k->a], c.r2 = x->rows[k->b]; break;
  default: c.r1 = x->rows[k->a]; break;
  }
  return push(x, c);
}

/* The scheme reads a fixed variable that was open at the trace and that a
   closing since left open: no shape holds it, so its state is gone. A
   closing is any solve past stage 1 since the trace, however many
   constructions followed it (each solves at stage 1 again). */
bool nx__scheme_rewound(const nx_scheme *sc, const nx_shape_session *s) {
  return nx__shape_rewound_below(s, sc->restores, sc->W, sc->T0);
}

bool nx__scheme_stale(const nx_scheme *sc, nx_shape_session *s) {
  if (nx__scheme_rewound(sc, s)) return true;
  if (!sc->open_fixed || s->closings == sc->closings) return false;
  for (int i = 0; i < sc->nfixed_open; i++) {
    int v = sc->fixed_open[i];
    if (NX__VARR(s, v)->is_row ? nx__shape_rsub(s, nx__shape_row_of_var(s, v))->var != 0
                              : nx__shape_dsub(s, nx__shape_dim_var(s, v))->kind != NX__D_SOLVED)
      return true;
  }
  return false;
}

/* The application from sc's tables (x->sc: the full record or the reduced
   form); flags are the scheme's own. */
static int build_and_push(inst *x, const nx_scheme *own, nx_tensor *const *args, nx_tensor **results, nx_tensor **made) {
  const nx_scheme *sc = x->sc;
  nx_shape_session *s = x->s;
  x->args = args;
  const nx__id_cursor *ids = &s->ids;
  x->id_lo = ids->tensor_next;
  x->id_avail = ids->on && ids->tensor_next < ids->tensor_end ? ids->tensor_end - ids->tensor_next : 0;
  x->id0 = s->next_tensor_id;
  for (int k = 0; k < sc->ngen; k++) {
    int v = nx__shape_new_var(s, sc->gen[k].is_row, sc->gen[k].name);
    if (v < 0) return NX_ENOMEM;
    x->fresh[k] = v;
    nx__scheme_set_flags(NX__VAR(s, v), sc->gen[k].flags);
  }
  for (int i = 0; i < own->nflags; i++) nx__scheme_set_flags(NX__VAR(s, own->flags[i].var), own->flags[i].flags);
  for (int i = 0; i < sc->ndims; i++)
    if (!(x->dims[i] = make_dim(x, &sc->dims[i]))) return NX_ENOMEM;
  for (int i = 0; i < sc->nrows; i++)
    if (!(x->rows[i] = make_row(x, &sc->rows[i]))) return NX_ENOMEM;
  for (int i = 0; i < sc->norigins; i++)
    if (!(x->origins[i] = make_origin(x, &sc->origins[i]))) return NX_ENOMEM;
  for (int i = 0; i < sc->ntensors; i++)
    if (!(made[i] = make_tensor(x, &sc->tensors[i]))) return NX_ENOMEM;
  /* the ids the body takes, made tensors kept or not */
  int from_range = sc->nmade < x->id_avail ? sc->nmade : x->id_avail;
  s->ids.tensor_next += from_range;
  s->next_tensor_id = x->id0 + sc->nmade - from_range;
  for (int i = 0; i < sc->arity; i++)
    for (int k = 0; k < 3; k++) {
      /* the tracing row first: its variable is the one bound, as if the body had the argument itself */
      nx__cons c = {.kind = NX__C_ROW_EQ, .r1 = x->rows[sc->args[i][k]], .r2 = args[i]->rows[k],
                    .o = own_origin(x, "argument", args[i]->label, "tracing shape", k)};
      if (!c.o || push(x, c)) return NX_ENOMEM;
    }
  /* solved batch by batch, as the body's operations solved them */
  int rc0 = nx__shape_run(s, 1);
  if (rc0) return rc0;
  for (int i = 0; i < sc->ncons; i++) {
    int rc = sc->cons[i].kind == NX__C_BATCH_END ? nx__shape_run(s, 1) : replay(x, &sc->cons[i]);
    if (!rc && sc->cons[i].kind == NX__C_BATCH_END) rc = nx__shape_subst_error(s, NULL);
    if (rc) return rc;
  }
  /* the references made before the trace that the body binds, bound
     again: each with the size it knows now */
  for (int i = 0; i < sc->nrefbinds; i++) {
    int rc = nx__shape_ref_bind(s, "nx_scheme_instantiate", sc->refbinds[i].r,
                                sc->refbinds[i].dim >= 0 ? x->dims[sc->refbinds[i].dim] : NULL,
                                sc->refbinds[i].dim >= 0 ? NULL : x->rows[sc->refbinds[i].row], false);
    if (rc) return rc;
  }
  for (int j = 0; j < sc->nres; j++) {
    const nx__sresult *r = &sc->results[j];
    nx_tensor *own = r->made >= 0 ? made[r->made] : r->arg >= 0 ? args[r->arg] : r->outside;
    if (!results[j]) {
      results[j] = own;
      continue;
    }
    for (int k = 0; k < 3; k++) {
      nx__cons c = {.kind = NX__C_ROW_EQ, .r1 = results[j]->rows[k], .r2 = x->rows[sc->res_rows[j][k]],
                    .o = own_origin(x, "result", results[j]->label, own->label, k)};
      if (!c.o || push(x, c)) return NX_ENOMEM;
    }
  }
  return 0;
}

/* One application from tab (sc's record or its reduced form), solved at
   stage 1: 0, NX_EINVAL with s->err set, or NX_ENOMEM. */
static int apply(nx_shape_session *s, const nx_scheme *sc, const nx_scheme *tab, const char *prefix,
                 nx_tensor *const *args, nx_tensor **out) {
  inst x = {.s = s, .sc = tab, .full = sc, .prefix = prefix};
  /* the application's scratch tables in one block, on the stack when small */
  size_t nfresh = (size_t)tab->ngen + 1, ndims = (size_t)tab->ndims + 1, nrows = (size_t)tab->nrows + 1,
         norig = (size_t)tab->norigins + 1, nstrs = (size_t)tab->nstrs + 1, nmade = (size_t)tab->ntensors + 1,
         nlabels = (size_t)sc->nmade + 1;
  size_t units = (nfresh + 1) / 2 + ndims + nrows + norig + 2 * nstrs + nlabels + nmade;
  void *small[512], **block = units <= 512 ? small : nx__malloc(units * sizeof *block);
  nx_tensor **made = NULL;
  if (block) {
    x.dims = (const nx_dim **)block;
    x.rows = (const nx_row **)(block + ndims);
    x.origins = (const nx__origin **)(block + ndims + nrows);
    x.ops = (const char **)(block + ndims + nrows + norig);
    x.names = x.ops + nstrs;
    x.labels = x.names + nstrs;
    made = (nx_tensor **)(x.labels + nlabels);
    x.fresh = (int *)(void *)(made + nmade);
    memset(x.ops, 0, (2 * nstrs + nlabels) * sizeof *x.ops);
  }
  int rc = block ? build_and_push(&x, sc, args, out, made) : NX_ENOMEM;
  if (block != small) nx__free(block);
  if (!rc) rc = nx__shape_run(s, 1);
  if (!rc) rc = nx__shape_subst_error(s, NULL);
  return rc;
}

/* An application's name, whole, to free: application itself, or the
   arguments' labels joined by ", " when it is NULL. NULL when memory runs
   out. */
char *nx__scheme_application(const char *application, nx_tensor *const *args, int n) {
  size_t cap = 1;
  if (application) cap += strlen(application);
  else
    for (int i = 0; i < n; i++) cap += strlen(args[i]->label) + 2;
  char *buf = nx__malloc(cap);
  if (!buf) return NULL;
  if (application) memcpy(buf, application, cap);
  else {
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++) len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", args[i]->label);
  }
  return buf;
}

static int instantiate_as(nx_shape_session *s, const nx_scheme *sc, const char *prefix, nx_tensor *const *args,
                          nx_tensor **results, int nres);

int nx_scheme_instantiate(nx_shape_session *s, const nx_scheme *sc, const char *application,
                          nx_tensor *const *args, int nargs, nx_tensor **results, int nres) {
  if (!s || !sc || (!args && nargs) || (!results && nres)) return nx__fail(NX_EINVAL, "nx_scheme_instantiate: NULL argument");
  if (nargs != sc->arity || nres != sc->nres)
    return nx__fail(NX_EINVAL, "nx_scheme_instantiate: the scheme %s takes %d arguments and gives %d results, not %d and %d",
                    sc->label, sc->arity, sc->nres, nargs, nres);
  for (int i = 0; i < nargs; i++)
    if (!args[i]) return nx__fail(NX_EINVAL, "nx_scheme_instantiate: argument %d is NULL", i + 1);
  if (sc->session != s || sc->session_serial != s->serial)
    return nx__fail(NX_EINVAL, "nx_scheme_instantiate: the scheme %s was traced in another session", sc->label);
  /* the prefix whole, however long the label and the application's name */
  char *app = nx__scheme_application(application, args, nargs);
  size_t nprefix = app ? strlen(sc->label) + strlen(app) + sizeof "applying the shape scheme  to : " : 0;
  char *prefix = app ? nx__malloc(nprefix) : NULL;
  if (prefix) snprintf(prefix, nprefix, "applying the shape scheme %s to %s: ", sc->label, app);
  nx__free(app);
  if (!prefix) return nx__fail(NX_ENOMEM, "applying the shape scheme %s: out of memory", sc->label);
  int rc = instantiate_as(s, sc, prefix, args, results, nres);
  nx__free(prefix);
  return rc;
}

static int instantiate_as(nx_shape_session *s, const nx_scheme *sc, const char *prefix, nx_tensor *const *args,
                          nx_tensor **results, int nres) {
  if (s->tainted)
    return nx__fail(NX_EINVAL, "%sthe session is tainted by an earlier shape error: %s", prefix, s->taint);
  if (nx__scheme_rewound(sc, s))
    return nx__fail(NX_EINVAL, "%sthe scheme was traced in a state a rewind since discarded (a snapshot restored, or "
                    "an enclosing trace or check ended): trace again", prefix);
  if (nx__scheme_stale(sc, s))
    return nx__fail(NX_EINVAL, "%sthe scheme depends on open state that a closing since discarded: trace again", prefix);
  int64_t t0 = nx__scheme_now_ns();
  nx_tensor *out[NX_SCHEME_MAX_RESULTS];
  for (int j = 0; j < nres; j++) out[j] = results[j];
  int rc;
  if (sc->red) {
    /* the reduced form fails exactly where the body does, but with the
       message of another constraint: a failure is replayed in full, from
       the state before, for the body's message */
    nx_shape_snapshot *w = nx__rewind_take(s);
    rc = w ? apply(s, sc, sc->red, prefix, args, out) : NX_ENOMEM;
    if (rc == NX_EINVAL) {
      nx__rewind_restore(s, w);
      for (int j = 0; j < nres; j++) out[j] = results[j];
      rc = apply(s, sc, sc, prefix, args, out);
    }
    nx__rewind_free(w);
  } else if (nx__scheme_memo_eligible(s, sc, args, results)) {
    nx_scheme *own = (nx_scheme *)sc; /* the memo is a cache: the scheme's meaning does not change */
    if (sc->memo && nx__scheme_memo_matches(sc->memo, sc, prefix, args)) rc = nx__scheme_memo_apply(s, sc->memo, args, out);
    else if (!sc->memo_tried && !s->nsnaps) {
      /* a full replay, recorded: a snapshot's log shows what it changed of the older state.
         Never while a snapshot is live: restoring one taken before would free what the memo
         points to, while one taken after frees only what is newer */
      nx__memo_at at;
      nx_shape_snapshot *w = nx__rewind_take(s);
      nx__scheme_memo_begin(s, &at);
      rc = apply(s, sc, sc, prefix, args, out);
      if (!rc && w) {
        own->memo = nx__scheme_memo_record(s, sc, &at, prefix, args, out);
        own->memo_tried = true;
      }
      nx__rewind_free(w);
    } else
      rc = apply(s, sc, sc, prefix, args, out);
  } else
    rc = apply(s, sc, sc, prefix, args, out);
  if (rc) {
    if (rc == NX_ENOMEM) return nx__fail(NX_ENOMEM, "%sout of memory", prefix);
    s->tainted = true; /* as a failed construction taints it */
    s->shape_errors++;
    snprintf(s->taint, sizeof s->taint, "%.200s%.300s", prefix, s->err);
    return nx__fail(NX_EINVAL, "%s%s", prefix, s->err);
  }
  for (int j = 0; j < nres; j++) results[j] = out[j];
  nx__scheme_count(1, sc->ncons, nx__scheme_now_ns() - t0);
  return 0;
}
