/* SPDX-License-Identifier: Apache-2.0 */
/* The solver's core: the work queue, errors with traces, and the dimension
   constraints (unification with occurs check, broadcasting inequalities
   through lower bounds). Rows are in row.c, closing in close.c. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "solver.h"

static const char *kind_name(int k) { return k == NX_AXIS_BATCH ? "batch" : k == NX_AXIS_INPUT ? "input" : "output"; }

/* A copy of o in the arena (its names copied, NULL ones as "?"); NULL for NULL or out of memory. */
const nx__origin *nx__shape_origin_make(nx_shape_session *s, const nx_shape_origin *o) {
  if (!o) return NULL;
  nx__origin *x = nx__shape_alloc(s, sizeof *x);
  if (!x) return NULL;
  x->operation = nx__shape_strdup(s, o->operation);
  x->lhs_name = nx__shape_strdup(s, o->lhs_name ? o->lhs_name : "?");
  x->rhs_name = nx__shape_strdup(s, o->rhs_name ? o->rhs_name : "?");
  x->lhs_kind = (signed char)o->lhs_kind;
  x->rhs_kind = (signed char)o->rhs_kind;
  return x;
}

/* The origin of a constraint derived from two: a derived node (a on out of memory). */
const nx__origin *nx__shape_origin_join(nx_shape_session *s, const nx__origin *a, const nx__origin *b) {
  if (!a || a == b) return b;
  if (!b) return a;
  nx__origin *x = nx__shape_alloc(s, sizeof *x);
  if (!x) return a;
  x->a = a;
  x->b = b;
  x->derived = true;
  return x;
}

/* Collects up to `max` distinct leaf origins, most recent first. */
static void leaves(const nx__origin *o, const nx__origin **out, int *n, int max, int depth) {
  if (!o || *n >= max || depth > 40) return;
  if (o->derived) {
    leaves(o->b, out, n, max, depth + 1);
    leaves(o->a, out, n, max, depth + 1);
    return;
  }
  for (int i = 0; i < *n; i++)
    if (out[i] == o) return;
  out[(*n)++] = o;
}

/* s->err := the message, then `; trace: ` and up to six of o's leaf origins; returns NX_EINVAL. */
int nx__shape_error(nx_shape_session *s, const nx__origin *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(s->err, sizeof s->err, fmt, ap);
  va_end(ap);
  const nx__origin *ls[6];
  int n = 0;
  leaves(o, ls, &n, 6, 0);
  for (int i = 0; i < n && len >= 0 && (size_t)len < sizeof s->err; i++) {
    const nx__origin *x = ls[i];
    len += snprintf(s->err + len, sizeof s->err - (size_t)len, "%s%s (%s %s <= %s %s)", i ? "; " : "; trace: ",
                    x->operation ? x->operation : "constraint", x->lhs_name, kind_name(x->lhs_kind), x->rhs_name,
                    kind_name(x->rhs_kind));
  }
  return NX_EINVAL;
}

/* The queue's consumed prefix dropped (its live part moved to the front). */
static void queue_compact(nx_shape_session *s) {
  memmove(s->queue.p, s->queue.p + s->qhead, (size_t)(s->queue.n - s->qhead) * sizeof *s->queue.p);
  s->queue.n -= s->qhead;
  s->qhead = 0;
}

/* A full queue whose consumed prefix is a quarter of it or more reuses that
   prefix instead of growing (at most three moves a push): closing queues its
   merges in bulk, and the queue would otherwise double past twice what is
   ever live, all of it fresh memory. */
int nx__shape_push_room(nx_shape_session *s, nx__cvec *where) {
  if (where == &s->queue && s->qhead && s->qhead >= where->n / 4) queue_compact(s);
  if (where->n < where->cap) return 0;
  return nx__shape_grow((void **)&where->p, &where->cap, where->n + 1, sizeof *where->p, 64);
}

static int push_dim(nx_shape_session *s, int kind, const nx_dim *a, const nx_dim *b, const nx__origin *o) {
  nx__cons c = {.kind = kind, .d1 = a, .d2 = b, .o = o};
  return nx__shape_push(s, &s->queue, &c);
}

static int describe(nx_shape_session *s, const nx_dim *a, const nx_dim *b, char *buf, size_t cap) {
  char x[128], y[128];
  nx__shape_dim_print(s, a, x, sizeof x);
  nx__shape_dim_print(s, b, y, sizeof y);
  return snprintf(buf, cap, "%s_%s vs %s_%s", x, a->kind == NX__D_SOLVED ? a->basis : "var", y,
                  b->kind == NX__D_SOLVED ? b->basis : "var");
}

/* v := val: the bounds stored on v are re-emitted against val. */
static int bind_dim(nx_shape_session *s, int v, const nx_dim *val, const nx__origin *o) {
  nx__var *e = NX__VAR(s, v);
  nx__shape_set_val(s, v, (nx__val){.d = val});
  s->nbinds++;
  nx__shape_touch(s, v);
  int rc = 0;
  /* A re-emitted bound between equal dims would do nothing: it is not emitted. */
  NX__EACH(s, e->res, i) {
    if (rc) break;
    const nx_dim *x = nx__shape_dim_var(s, s->lk[i].x);
    if (!nx__shape_dim_equal(nx__shape_dsub(s, x), val)) rc = push_dim(s, NX__C_DIM_INEQ, x, val, o);
  }
  NX__EACH(s, e->opnd, i) {
    if (rc) break;
    const nx_dim *x = nx__shape_dim_var(s, s->lk[i].x);
    if (!nx__shape_dim_equal(nx__shape_dsub(s, x), val)) rc = push_dim(s, NX__C_DIM_INEQ, val, x, o);
  }
  if (!rc && e->glb) rc = push_dim(s, NX__C_DIM_INEQ, e->glb, val, nx__shape_origin_join(s, e->glb_o, o));
  if (!rc && e->at_least) {
    nx__cons c = {.kind = NX__C_AT_LEAST, .d1 = val, .n = e->at_least, .o = o};
    rc = nx__shape_push(s, &s->queue, &c);
  }
  if (val->kind == NX__D_VAR) {
    nx__var *w = NX__VAR(s, val->var);
    if (e->is_param && !w->is_param) {
      w->is_param = true;
      nx__shape_touch(s, val->var);
    }
  }
  return rc;
}

int nx__shape_subst_error(nx_shape_session *s, const nx__origin *o) {
  if (!s->subst_failed) return 0;
  return nx__shape_error(s, o, "%s", s->subst_what);
}

/* The over of an affine or convolution axis of size d in *over; NX__DEFER
   while a kernel is unknown, NX_EINVAL when the stride or kernel does not
   fit. */
static int affine_from_size(nx_shape_session *s, const nx_dim *a, int64_t d, const nx__origin *o, int64_t *over) {
  const nx_dim *k = a->kernel ? nx__shape_dsub(s, a->kernel) : NULL;
  if (k && k->kind != NX__D_SOLVED && !a->use_padding) return NX__DEFER;
  int64_t base = d, span;
  if (a->kernel && !a->use_padding && (__builtin_mul_overflow(k->d - 1, a->dilation, &span) || __builtin_sub_overflow(d - 1, span, &base) || base < 0))
    return nx__shape_error(s, o, "solved dimensions for axis: incompatible stride (a kernel of %lld at dilation %lld does not fit in %lld)", (long long)k->d,
                     (long long)a->dilation, (long long)d);
  if (base < 0 || base % a->stride)
    return nx__shape_error(s, o, "solved dimensions for axis: incompatible stride (%lld does not divide %lld)", (long long)a->stride, (long long)base);
  *over = base / a->stride + ((!a->kernel || a->use_padding) ? 0 : 1);
  return 0;
}

/* The parts of a concatenation (d itself if it is none), less those equal
   to a part of the other side, split into solved ones (at the front) and
   the rest; n is the count, *nsolved the solved ones'. */
static int concat_parts(nx_shape_session *s, const nx_dim *d, const nx_dim *other, const nx_dim **out, int *nsolved) {
  const nx_dim *const *ps = d->kind == NX__D_CONCAT ? d->parts : &d;
  int np = d->kind == NX__D_CONCAT ? d->nparts : 1, n = 0;
  const nx_dim *const *qs = other->kind == NX__D_CONCAT ? other->parts : &other;
  int nq = other->kind == NX__D_CONCAT ? other->nparts : 1;
  bool used[64] = {false};
  for (int i = 0; i < np; i++) {
    bool common = false;
    for (int j = 0; j < nq && j < 64 && !common; j++)
      if (!used[j] && ps[i]->kind != NX__D_SOLVED && nx__shape_dim_equal(ps[i], qs[j])) used[j] = common = true;
    if (!common) out[n++] = ps[i];
  }
  (void)s;
  int k = 0; /* stable: solved parts first */
  for (int i = 0; i < n; i++)
    if (out[i]->kind == NX__D_SOLVED) {
      const nx_dim *x = out[i];
      memmove(out + k + 1, out + k, (size_t)(i - k) * sizeof *out);
      out[k++] = x;
    }
  *nsolved = k;
  return n;
}

static int sum_parts(nx_shape_session *s, const nx_dim *const *d, int n, const nx__origin *o, int64_t *sum) {
  *sum = 0;
  for (int i = 0; i < n; i++)
    if (__builtin_add_overflow(*sum, d[i]->d, sum))
      return nx__shape_error(s, o, "dimension size past int64: a concatenation's sum");
  return 0;
}

static int oldest_var(const nx_dim *const *d, int n) {
  int v = 0;
  for (int i = 0; i < n; i++)
    if (!v || d[i]->var < v) v = d[i]->var;
  return v;
}

static bool all_vars(const nx_dim *const *d, int n) {
  for (int i = 0; i < n; i++)
    if (d[i]->kind != NX__D_VAR) return false;
  return true;
}

/* An equation with a concatenation on a side (a, b substituted), as
   OCANNL's unify_dim: common parts cancel; a side of solved parts only
   fixes the other's unknown rest; two sides of variables only pair their
   oldest variables (at equal arity with no solved part at any stage, else
   from stage 4) and retry; anything else waits. Named bases of the solved
   parts must agree. Called with a concatenation on a side and the other
   solved or a concatenation. */
static int unify_concat(nx_shape_session *s, const nx_dim *a0, const nx_dim *b0, const nx_dim *a, const nx_dim *b,
                        const nx__origin *o) {
  if ((a->kind == NX__D_CONCAT ? a->nparts : 1) > 64 || (b->kind == NX__D_CONCAT ? b->nparts : 1) > 64)
    return NX__DEFER; /* beyond the cancellation's reach: waits for its parts */
  const nx_dim *xs[65], *ys[65];
  int kx, ky, nx = concat_parts(s, a, b, xs, &kx), ny = concat_parts(s, b, a, ys, &ky);
  int64_t sx, sy;
  int rc = sum_parts(s, xs, kx, o, &sx);
  if (!rc) rc = sum_parts(s, ys, ky, o, &sy);
  if (rc) return rc;
  const char *bx = nx__shape_basis_of_parts(xs, kx), *by = nx__shape_basis_of_parts(ys, ky), *bm = bx && by ? nx__shape_basis_merge(bx, by) : NULL;
  char buf[300];
  if (!bm) {
    describe(s, a, b, buf, sizeof buf);
    return nx__shape_error(s, o, "concat: conflicting dimension bases (%s)", buf);
  }
  int rx = nx - kx, ry = ny - ky;
  if (!rx && !ry) return nx__shape_unify_dim(s, nx__shape_dim_solved(s, sx, bx), nx__shape_dim_solved(s, sy, by), o);
  if (!rx || !ry) {
    const nx_dim *const *rest = rx ? xs + kx : ys + ky;
    int64_t residual = rx ? sy - sx : sx - sy;
    if (residual < 0) {
      describe(s, a, b, buf, sizeof buf);
      return nx__shape_error(s, o, "concat: components exceed the concatenated size (%s)", buf);
    }
    if (rx + ry > 1) return NX__DEFER; /* several unknown parts: waits for more of them */
    return nx__shape_unify_dim(s, rest[0], nx__shape_dim_solved(s, residual, bm), o);
  }
  if (all_vars(xs + kx, rx) && all_vars(ys + ky, ry) && ((!kx && !ky && rx == ry) || s->stage >= 4)) {
    rc = nx__shape_unify_dim(s, nx__shape_dim_var(s, oldest_var(xs + kx, rx)), nx__shape_dim_var(s, oldest_var(ys + ky, ry)), o);
    return rc ? rc : nx__shape_unify_dim(s, a0, b0, o);
  }
  return NX__DEFER;
}

/* a = b under the solution: solved sides compare, a variable binds (occurs
   check), an affine side solves its over from a size, concatenations go to
   unify_concat; the rest defers. */
int nx__shape_unify_dim(nx_shape_session *s, const nx_dim *a0, const nx_dim *b0, const nx__origin *o) {
  const nx_dim *a = nx__shape_dsub(s, a0), *b = nx__shape_dsub(s, b0);
  char buf[300];
  if (a->kind == NX__D_SOLVED && b->kind == NX__D_SOLVED) {
    if (strcmp(a->basis, b->basis)) {
      describe(s, a, b, buf, sizeof buf);
      return nx__shape_error(s, o, "solved dimensions for axis: different bases (%s)", buf);
    }
    if (a->d != b->d) {
      describe(s, a, b, buf, sizeof buf);
      return nx__shape_error(s, o, "solved dimensions for axis: mismatch (%s)", buf);
    }
    return 0;
  }
  if (b->kind == NX__D_VAR && a->kind != NX__D_VAR) {
    const nx_dim *t = a;
    a = b;
    b = t;
  }
  if (a->kind == NX__D_VAR) {
    if (b->kind == NX__D_VAR && b->var == a->var) return 0;
    if (nx__shape_dim_has_var(b, a->var)) {
      nx__shape_dim_print(s, b, buf, sizeof buf);
      return nx__shape_error(s, o, "occurs check failed: dimension variable occurs in its own definition ($%d occurs in %s)", a->var, buf);
    }
    return bind_dim(s, a->var, b, o);
  }
  if (b->kind == NX__D_AFFINE && a->kind != NX__D_AFFINE) {
    const nx_dim *t = a;
    a = b;
    b = t;
  }
  if (a->kind == NX__D_AFFINE) {
    if (b->kind == NX__D_SOLVED) {
      int64_t over = 0;
      int rc = affine_from_size(s, a, b->d, o, &over);
      if (rc) return rc;
      /* over takes the size's basis, merged with the kernel's for a convolution without padding */
      const nx_dim *k = a->kernel && !a->use_padding ? nx__shape_dsub(s, a->kernel) : NULL;
      const char *basis = k ? nx__shape_basis_merge(b->basis, k->basis) : b->basis;
      if (!basis) {
        describe(s, b, k, buf, sizeof buf);
        return nx__shape_error(s, o, "convolution: conflicting dimension bases between stride and kernel (%s)", buf);
      }
      return nx__shape_unify_dim(s, a->over, nx__shape_dim_solved(s, over, basis), o);
    }
    if (b->kind == NX__D_AFFINE && a->stride == b->stride && !a->kernel && !b->kernel)
      return nx__shape_unify_dim(s, a->over, b->over, o);
    return NX__DEFER;
  }
  return unify_concat(s, a0, b0, a, b, o);
}

/* Whether v's only upper neighbour is w and w's only lower one is v (stage 2's merge). */
static bool unique_pair(nx_shape_session *s, int v, int w) {
  nx__var *a = NX__VAR(s, v), *b = NX__VAR(s, w);
  if (a->glb || b->glb) return false; /* its lower bound would be lost */
  NX__EACH(s, a->opnd, i) {
    const nx_dim *x = nx__shape_dsub(s, nx__shape_dim_var(s, s->lk[i].x));
    if (!(x->kind == NX__D_VAR && x->var == w)) return false;
  }
  NX__EACH(s, b->res, i) {
    const nx_dim *x = nx__shape_dsub(s, nx__shape_dim_var(s, s->lk[i].x));
    if (!(x->kind == NX__D_VAR && x->var == v)) return false;
  }
  return true;
}

/* res <= opnd for dims: equal, or opnd the top; a variable below a solved
   dim takes it, two variables become neighbours (unified when stage 2 finds
   them a unique pair), a ground bound above a variable joins its glb, and
   two different solved dims are the error. */
static int solve_dim_ineq(nx_shape_session *s, const nx_dim *res0, const nx_dim *opnd0, const nx__origin *o,
                          int stage) {
  const nx_dim *r = nx__shape_dsub(s, res0), *p = nx__shape_dsub(s, opnd0);
  char buf[300];
  if (nx__shape_dim_equal(r, p) || nx__shape_is_top(p)) return 0;
  if (res0->kind == NX__D_VAR && p->kind == NX__D_SOLVED) return nx__shape_unify_dim(s, res0, p, o);
  if (nx__shape_is_top(r)) return nx__shape_unify_dim(s, p, r, o);
  if (r->kind == NX__D_SOLVED && p->kind == NX__D_SOLVED) {
    describe(s, r, p, buf, sizeof buf);
    if (strcmp(r->basis, p->basis)) return nx__shape_error(s, o, "dimension comparison for axis: different bases (%s)", buf);
    return nx__shape_error(s, o, "dimension comparison for axis: mismatch (%s)", buf);
  }
  if (r->kind == NX__D_AFFINE || p->kind == NX__D_AFFINE) return nx__shape_unify_dim(s, r, p, o);
  if (r->kind == NX__D_VAR && p->kind == NX__D_VAR) {
    int v = r->var, w = p->var;
    nx__var *a = NX__VAR(s, v), *b = NX__VAR(s, w);
    if (nx__shape_ilist_has(s, &a->res, w) || (stage >= 2 && unique_pair(s, v, w))) return nx__shape_unify_dim(s, r, p, o);
    if (!nx__shape_ilist_has(s, &a->opnd, w) && (nx__shape_ilist_push(s, &a->opnd, w) || nx__shape_ilist_push(s, &NX__VAR(s, w)->res, v)))
      return NX_ENOMEM;
    nx__shape_mark_opnd(s, v);
    (void)b;
    a = NX__VAR(s, v);
    if (a->glb) return push_dim(s, NX__C_DIM_INEQ, a->glb, p, nx__shape_origin_join(s, a->glb_o, o));
    return 0;
  }
  if (p->kind == NX__D_VAR) { /* a ground (or concatenated) lower bound: a cap */
    nx__var *e = NX__VAR(s, p->var);
    if (!e->glb) {
      e->glb = r;
      e->glb_o = o;
      nx__shape_touch(s, p->var);
      int rc = 0;
      NX__EACH(s, e->opnd, i) {
        if (rc) break;
        rc = push_dim(s, NX__C_DIM_INEQ, r, nx__shape_dim_var(s, s->lk[i].x), o);
      }
      return rc;
    }
    if (nx__shape_dim_equal(e->glb, r)) return 0;
    if (r->kind == NX__D_CONCAT || e->glb->kind == NX__D_CONCAT) return nx__shape_unify_dim(s, r, p, o);
    const nx__origin *jo = nx__shape_origin_join(s, e->glb_o, o);
    e->glb = s->top;
    e->glb_o = jo;
    nx__shape_touch(s, p->var);
    return nx__shape_unify_dim(s, p, s->top, jo); /* distinct atoms join to the top */
  }
  if (r->kind == NX__D_VAR) return nx__shape_unify_dim(s, r, p, o);
  if (r->kind == NX__D_CONCAT || p->kind == NX__D_CONCAT) return nx__shape_unify_dim(s, r, p, o);
  describe(s, r, p, buf, sizeof buf);
  return nx__shape_error(s, o, "dimension comparison for axis: mismatch (%s)", buf);
}

/* d's size is at least c->n: a variable records the bound, a solved size
   below it (not the top) is an error. */
/* Out of line: inlined, it made every step save five registers. */
static NX__NOINLINE int at_least(nx_shape_session *s, const nx__cons *c) {
  const nx_dim *d = nx__shape_dsub(s, c->d1);
  if (d->kind == NX__D_VAR) {
    nx__var *e = NX__VAR(s, d->var);
    if (c->n > e->at_least) {
      e->at_least = c->n;
      nx__shape_touch(s, d->var);
    }
    return 0;
  }
  if (d->kind == NX__D_SOLVED && d->d < c->n && !nx__shape_is_top(d))
    return nx__shape_error(s, c->o, "dereferenced at dimension %lld, higher than use site (size %lld)", (long long)c->n,
                     (long long)d->d);
  return 0;
}

/* One constraint by kind; returns what its solver returns. */
int nx__shape_step(nx_shape_session *s, const nx__cons *c, int stage) {
  switch (c->kind) {
  case NX__C_DIM_EQ: return nx__shape_unify_dim(s, c->d1, c->d2, c->o);
  case NX__C_DIM_INEQ: return solve_dim_ineq(s, c->d1, c->d2, c->o, stage);
  case NX__C_ROW_EQ: return nx__shape_solve_row_eq(s, c, stage);
  case NX__C_ROW_INEQ: return nx__shape_solve_row_ineq(s, c, stage);
  case NX__C_AT_LEAST: return at_least(s, c);
  case NX__C_TOTAL: return nx__shape_solve_total(s, c, stage);
  case NX__C_TOTAL_DIM: return nx__shape_solve_total_dim(s, c, stage);
  case NX__C_EXACT: return nx__shape_solve_exact(s, c, stage);
  default: return nx__shape_close_mark(s, c, stage);
  }
}

/* Processes the queue in order; what is deferred or kept joins its hold. */
static int drain(nx_shape_session *s, int stage) {
  int rc = 0;
  while (!rc && s->qhead < s->queue.n) {
    nx__cons c = s->queue.p[s->qhead++];
    s->nprocessed++;
    int64_t before = s->nchanges;
    rc = nx__shape_step(s, &c, stage);
    if (rc == NX__DEFER) rc = nx__shape_hold_add(s, &s->deferred, &c, s->nchanges != before);
    else if (rc == NX__KEEP) rc = nx__shape_hold_add(s, &s->marks, &c, s->nchanges != before);
    if (!rc && s->wake_lost) rc = NX_ENOMEM;
    if (!rc && s->subst_failed) rc = nx__shape_subst_error(s, c.o);
    if (s->qhead > 4096 && s->qhead > s->queue.n / 2) queue_compact(s); /* reuse the consumed prefix */
  }
  s->queue.n = s->qhead = 0;
  return rc;
}

/* The queue, then the deferred constraints while bindings happen. The
   first round at a stage retries every deferred constraint (a step may
   decide differently at a later stage); later rounds only those whose
   variables changed, which are all that could decide differently. */
int nx__shape_run(nx_shape_session *s, int stage) {
  s->stage = stage;
  if (stage > 1 && s->rec) s->forced_dims = true; /* a trace refuses it once its function returns */
  if (s->rec) { /* a trace records what it solves, batch by batch */
    for (int i = 0; i < s->pending.n; i++)
      if (nx__shape_cvec_push(s->rec, &s->pending.p[i])) return NX_ENOMEM;
    if (s->pending.n && nx__shape_cvec_push(s->rec, &(nx__cons){.kind = NX__C_BATCH_END})) return NX_ENOMEM;
  }
  if (s->queue.n == s->qhead && s->pending.cap >= s->queue.cap) {
    /* the queue is empty: take the pending list whole; never a smaller
       buffer for the queue than it had, which would grow (and fault) again */
    nx__cvec t = s->queue;
    s->queue = s->pending;
    s->pending = t;
    s->qhead = 0;
  } else {
    if (s->queue.n == s->qhead) s->queue.n = s->qhead = 0;
    for (int i = 0; i < s->pending.n; i++)
      if (nx__shape_cvec_push(&s->queue, &s->pending.p[i])) return NX_ENOMEM;
  }
  s->pending.n = 0;
  nx__hold *d = &s->deferred;
  bool full = d->stage != stage;
  int64_t last = -1;
  for (;;) {
    int rc = drain(s, stage);
    if (rc) return rc;
    if (!d->nlive) {
      d->stage = stage;
      d->next.n = 0;
      break;
    }
    if (s->nbinds == last || (!full && !d->next.n)) break;
    last = s->nbinds;
    if ((rc = nx__shape_hold_round(s, d, full, stage))) {
      s->queue.n = s->qhead = 0;
      return rc;
    }
    full = false;
    d->stage = stage;
  }
  return 0;
}
