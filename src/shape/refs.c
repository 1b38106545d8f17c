/* SPDX-License-Identifier: Apache-2.0 */
/* Delayed variable references, as OCANNL's Shape.get_variable_ref,
   set_dim, set_equal and set_scale: a reference is a label that an einsum
   later binds to the dim or row variable of that name in its spec. A size
   set before the binding is kept and applied when it comes; relations
   between references are decided eagerly where the sizes are known (with
   OCANNL's errors), and otherwise become constraints on the bound
   variables. A reference's known size is the one set on it or its bound
   variable's solution, as OCANNL's solved_dim, which it refreshes after
   each propagation. A dim and a row reference made equal relate as OCANNL
   relates them: the row holds as many elements as the dim is long. */
#include <stdio.h>
#include <string.h>

#include "tensor_internal.h"
#include "../base/alloc.h"

enum { UNSET, DIM, ROW };

/* A reference's state is immutable, replaced whole on a change through the
   snapshots' log (nx__shape_slot), so restoring a snapshot restores it. */
typedef struct {
  int kind;
  const nx_dim *dim;
  const nx_row *row;
  bool has_size;
  int64_t size;
} ref_state;

struct nx_shape_ref {
  const char *label;
  const ref_state *st;
  int64_t serial; /* the session's count of references before it: made outside a trace when below its floor */
};

/* Made outside the trace now recording, if one is. */
static bool outside(const nx_shape_session *s, const nx_shape_ref *r) { return s->ref_rec && r->serial < s->ref_floor; }

/* Setting such a reference: the trace refuses it once its function returns. */
static void note_set(nx_shape_session *s, const nx_shape_ref *a, const nx_shape_ref *b) {
  if (outside(s, a) || (b && outside(s, b))) s->set_outside_ref = true;
}

static const ref_state unset;

/* Replaces r's state by x; false when memory runs out. */
static bool update(nx_shape_session *s, nx_shape_ref *r, ref_state x) {
  ref_state *n = nx__shape_alloc(s, sizeof *n);
  if (!n) return false;
  *n = x;
  NX__LOG_FIELD(s, r->st);
  r->st = n;
  return true;
}

nx_shape_ref *nx_shape_ref_new(nx_shape_session *s, const char *label) {
  if (!s || !label) return nx__fail(NX_EINVAL, "nx_shape_ref_new: %s is NULL", s ? "the label" : "the session"), NULL;
  nx_shape_ref *r = nx__shape_alloc(s, sizeof *r);
  if (!r || !(r->label = nx__shape_strdup(s, label))) return nx__fail(NX_ENOMEM, "nx_shape_ref_new: out of memory"), NULL;
  r->st = &unset;
  r->serial = s->nrefs_made++;
  return r;
}

const char *nx_shape_ref_label(const nx_shape_ref *r) {
  return r ? r->label : (nx__fail(NX_EINVAL, "nx_shape_ref_label: the reference is NULL"), NULL);
}

/* The element count of a closed row all of whose dims are solved; false
   otherwise (or past int64). */
static bool row_total(nx_shape_session *s, const nx_row *r, int64_t *out) {
  const nx_row *x = nx_shape_row_subst(s, r);
  if (!x || nx_row_var(x)) return false;
  int64_t n = 1;
  for (int i = 0; i < nx_row_beg_count(x) + nx_row_dims_count(x); i++) {
    int64_t d = 0;
    const nx_dim *dim = i < nx_row_beg_count(x) ? nx_row_beg_dim(x, i) : nx_row_dim(x, i - nx_row_beg_count(x));
    if (nx_shape_dim_value(s, dim, &d, NULL) || __builtin_mul_overflow(n, d, &n)) return false;
  }
  *out = n;
  return true;
}

/* r's known size: set on it, or its bound variable's solution. */
static bool known(nx_shape_session *s, const nx_shape_ref *r, int64_t *out) {
  if (r->st->has_size) return *out = r->st->size, true;
  if (r->st->kind == DIM) return nx_shape_dim_value(s, r->st->dim, out, NULL) == 0;
  if (r->st->kind == ROW) return row_total(s, r->st->row, out);
  return false;
}

int nx_shape_ref_value(nx_shape_session *s, const nx_shape_ref *r, int64_t *size) {
  if (!s || !r || !size) return nx__fail(NX_EINVAL, "nx_shape_ref_value: NULL argument");
  return known(s, r, size) ? 0 : NX_NONE;
}

/* Applies size n to r's bound variable (a dim's size, a row's total), with
   OCANNL's origins: "set_dim" from label to label when an einsum binds a
   reference with a size (binding), else "Shape.set_dim Dim" or "Shape.set_dim
   Row" from the label to the size. */
static int apply(nx_shape_session *s, const char *fn, nx_shape_ref *r, int64_t n, bool binding, bool solve) {
  if (r->st->kind == UNSET) return 0;
  if (s->tainted) return nx__fail(NX_EINVAL, "%s: the session is tainted by an earlier shape error: %s", fn, s->taint);
  char num[24];
  snprintf(num, sizeof num, "%lld", (long long)n);
  nx_shape_origin o = {.operation = binding ? "set_dim" : r->st->kind == DIM ? "Shape.set_dim Dim" : "Shape.set_dim Row",
                       .lhs_name = r->label, .lhs_kind = NX_AXIS_OUTPUT, .rhs_name = binding ? r->label : num,
                       .rhs_kind = NX_AXIS_OUTPUT};
  int rc;
  if (r->st->kind == DIM) {
    const nx_dim *v = nx_dim_solved(s, n, NULL);
    rc = v ? nx_shape_add_dim_eq(s, r->st->dim, v, &o) : NX_ENOMEM;
  } else rc = nx_shape_add_total_elems(s, &r->st->row, 1, n, &o);
  if (!rc && solve) rc = nx_shape_solve(s, 1);
  return rc == NX_ENOMEM ? nx__fail(rc, "%s: out of memory", fn) : nx__shape_fail_as(fn, rc);
}

/* As OCANNL's set_dim, only a size set before is checked here: one the
   solver found is checked by the solver, in its words. */
static int set_dim(nx_shape_session *s, const char *fn, nx_shape_ref *r, int64_t n) {
  if (n < 0) return nx__fail(NX_EINVAL, "%s: size %lld of reference %s is negative", fn, (long long)n, r->label);
  if (r->st->has_size) {
    if (r->st->size == n) return 0;
    return nx__fail(NX_EINVAL, "%s: Cannot set dimension for variable reference with label %s (%lld vs %lld)", fn,
                    r->label, (long long)r->st->size, (long long)n);
  }
  ref_state x = *r->st;
  x.has_size = true;
  x.size = n;
  if (!update(s, r, x)) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
  return apply(s, fn, r, n, false, true);
}

int nx_shape_ref_set_dim(nx_shape_session *s, nx_shape_ref *r, int64_t size) {
  if (!s || !r) return nx__fail(NX_EINVAL, "nx_shape_ref_set_dim: NULL argument");
  note_set(s, r, NULL);
  return set_dim(s, "nx_shape_ref_set_dim", r, size);
}

static const nx_row *row_of(const nx_shape_ref *r) { return r->st->row; }

int nx_shape_ref_set_equal(nx_shape_session *s, nx_shape_ref *a, nx_shape_ref *b) {
  static const char *fn = "nx_shape_ref_set_equal";
  if (!s || !a || !b) return nx__fail(NX_EINVAL, "%s: NULL argument", fn);
  note_set(s, a, b);
  int64_t x = 0, y = 0;
  bool ka = known(s, a, &x), kb = known(s, b, &y);
  if (ka && kb) {
    if (x == y) return 0;
    return nx__fail(NX_EINVAL, "%s: Cannot set equal dimensions for variable references with different values (%s = "
                    "%lld, %s = %lld)", fn, a->label, (long long)x, b->label, (long long)y);
  }
  if (ka) return set_dim(s, fn, b, x);
  if (kb) return set_dim(s, fn, a, y);
  if (a->st->kind == UNSET || b->st->kind == UNSET)
    return nx__fail(NX_EINVAL, "%s: set_equal: insufficient information between labels %s and %s", fn, a->label,
                    b->label);
  int rc;
  bool dd = a->st->kind == DIM && b->st->kind == DIM, rr = a->st->kind == ROW && b->st->kind == ROW;
  nx_shape_origin o = {.operation = dd ? "Shape.set_equal Dim-Dim" : rr ? "Shape.set_equal Row-Row" : "Shape.set_equal Dim-Row or Row-Dim",
                       .lhs_name = a->label, .rhs_name = b->label, .lhs_kind = NX_AXIS_OUTPUT, .rhs_kind = NX_AXIS_OUTPUT};
  if (dd) rc = nx_shape_add_dim_eq(s, a->st->dim, b->st->dim, &o);
  else if (rr) rc = nx_shape_add_row_eq(s, row_of(a), row_of(b), &o);
  else { /* as OCANNL, the row holds as many elements as the dim is long */
    const nx_row *r = a->st->kind == ROW ? row_of(a) : row_of(b);
    rc = nx_shape_add_total_dim(s, &r, 1, a->st->kind == DIM ? a->st->dim : b->st->dim, &o);
  }
  if (!rc) rc = nx_shape_solve(s, 1);
  return nx__shape_fail_as(fn, rc);
}

int nx_shape_ref_set_scale(nx_shape_session *s, int64_t factor, nx_shape_ref *large, nx_shape_ref *small) {
  static const char *fn = "nx_shape_ref_set_scale";
  if (!s || !large || !small) return nx__fail(NX_EINVAL, "%s: NULL argument", fn);
  note_set(s, large, small);
  if (factor < 1) return nx__fail(NX_EINVAL, "%s: Shape.set_scale: factor must be >= 1, got %lld", fn, (long long)factor);
  if (large->st->kind == ROW || small->st->kind == ROW)
    return nx__fail(NX_EINVAL, "%s: Shape.set_scale: requires two dimension variables; got at least one row variable "
                    "(labels %s, %s)", fn, large->label, small->label);
  if (factor == 1) return nx__shape_fail_as(fn, nx_shape_ref_set_equal(s, large, small)); /* named for the call */
  int64_t l = 0, m = 0;
  bool kl = known(s, large, &l), km = known(s, small, &m);
  if (kl && km) {
    if (!__builtin_mul_overflow(factor, m, &m) && l == m) return 0;
    return nx__fail(NX_EINVAL, "%s: Shape.set_scale: dimensions do not satisfy d_large = factor * d_small", fn);
  }
  if (kl) {
    if (l % factor)
      return nx__fail(NX_EINVAL, "%s: Shape.set_scale: solved dimension %lld for %s is not divisible by factor %lld", fn,
                      (long long)l, large->label, (long long)factor);
    return set_dim(s, fn, small, l / factor);
  }
  if (km) {
    if (__builtin_mul_overflow(factor, m, &m)) return nx__fail(NX_EINVAL, "%s: %lld times a size past int64", fn, (long long)factor);
    return set_dim(s, fn, large, m);
  }
  if (large->st->kind == UNSET || small->st->kind == UNSET)
    return nx__fail(NX_EINVAL, "%s: Shape.set_scale: insufficient information between labels %s and %s", fn,
                    large->label, small->label);
  const nx_dim *scaled = nx_dim_affine(s, factor, small->st->dim, 0);
  size_t cap = strlen(small->label) + 24;
  char *rhs = nx__shape_alloc(s, cap);
  if (!rhs) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
  snprintf(rhs, cap, "%lld*%s", (long long)factor, small->label);
  nx_shape_origin o = {.operation = "Shape.set_scale Dim-Dim", .lhs_name = large->label, .rhs_name = rhs,
                       .lhs_kind = NX_AXIS_OUTPUT, .rhs_kind = NX_AXIS_OUTPUT};
  int rc = scaled ? nx_shape_add_dim_eq(s, large->st->dim, scaled, &o) : NX_ENOMEM;
  if (!rc) rc = nx_shape_solve(s, 1);
  return nx__shape_fail_as(fn, rc);
}

/* nx_tensor_einsum_ex and nx_tensor_concat_ex: the spec, then each reference bound. */
static int einsum_refs(nx_shape_session *s, const char *fn, bool block, const char *spec, const nx_einsum_options *opt,
                       nx_tensor *const *args, int n, nx_tensor **out) {
  int nrefs = opt ? opt->nrefs : 0;
  if (!s || !out || (nrefs && !opt->refs) || nrefs < 0 || (opt && opt->nvalues && (!opt->names || !opt->values)))
    return nx__fail(NX_EINVAL, "%s: NULL argument", fn);
  for (int i = 0; i < nrefs; i++)
    if (!opt->refs[i]) return nx__fail(NX_EINVAL, "%s: reference %d is NULL", fn, i);
  nx_tensor *t;
  int rc = nx__shape_einsum(s, fn, block, spec, opt, args, n, &t);
  if (rc) return rc;
  for (int i = 0; i < nrefs; i++) {
    nx_shape_ref *r = opt->refs[i];
    const nx_dim *d = nx_tensor_spec_dim(t, r->label);
    const nx_row *row = d ? NULL : nx_tensor_spec_row(t, r->label);
    if (!d && !row)
      return nx__fail(NX_EINVAL, "%s: Variable %s not found in environments for spec: %s", fn, r->label, spec);
    if ((rc = nx__shape_ref_bind(s, fn, r, d, row, true))) return rc;
  }
  *out = t;
  return 0;
}

int nx__shape_ref_bind(nx_shape_session *s, const char *fn, nx_shape_ref *r, const nx_dim *dim, const nx_row *row,
                       bool solve) {
  int64_t size = 0;
  bool k = known(s, r, &size);
  bool carried = outside(s, r);
  if (carried) { /* the scheme's input: each application binds it, with the size it knows then */
    nx__refvec *v = s->ref_rec;
    if (v->n == v->cap) {
      int cap = v->cap ? 2 * v->cap : 8;
      nx__refbind *p = nx__realloc(v->p, (size_t)cap * sizeof *p);
      if (!p) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
      v->p = p, v->cap = cap;
    }
    v->p[v->n++] = (nx__refbind){r, dim, row};
  }
  ref_state x = *r->st;
  x.kind = dim ? DIM : ROW;
  x.dim = dim;
  x.row = row;
  if (!update(s, r, x)) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
  return k && !carried ? apply(s, fn, r, size, true, solve) : 0;
}

int nx_tensor_einsum_ex(nx_shape_session *s, const char *spec, const nx_einsum_options *opt,
                        nx_tensor *const *args, int n, nx_tensor **out) {
  return einsum_refs(s, "nx_tensor_einsum_ex", false, spec, opt, args, n, out);
}

int nx_tensor_concat_ex(nx_shape_session *s, const char *spec, const nx_einsum_options *opt,
                        nx_tensor *const *args, int n, nx_tensor **out) {
  return einsum_refs(s, "nx_tensor_concat_ex", true, spec, opt, args, n, out);
}
