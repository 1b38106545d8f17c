/* SPDX-License-Identifier: Apache-2.0 */
/* Symbolic tensors: each operation makes a node with fresh open rows and
   adds the constraints of shape_inference.md section 2, then solves them at
   stage 1, so errors surface at the operation that causes them. */
#include <stdio.h>
#include <string.h>

#include "tensor_internal.h"


static const char *kind_names[3] = {"batch", "input", "output"};

/* The next tensor id (taken when take): an entered range's while it lasts,
   else the session's. */
static int tensor_id(nx_shape_session *s, bool take) {
  nx__id_cursor *c = &s->ids;
  if (c->on && c->tensor_next < c->tensor_end) return take ? c->tensor_next++ : c->tensor_next;
  return take ? ++s->next_tensor_id : s->next_tensor_id + 1;
}

/* Writes `prefix#id` (the prefix cut at 60 bytes, as "%.60s#%d" would) into
   buf of at least 80 bytes; every operation names its node so, and the C
   library's formatting cost a twentieth of building a large graph. Returns
   the prefix's length as written. */
static size_t node_name(char *buf, const char *prefix, int id) {
  size_t n = 0;
  while (n < 60 && prefix[n]) n++;
  size_t n0 = n;
  memcpy(buf, prefix, n);
  buf[n++] = '#';
  char digits[12];
  int k = 0;
  unsigned u = id < 0 ? 0u - (unsigned)id : (unsigned)id;
  do digits[k++] = (char)('0' + u % 10); while (u /= 10);
  if (id < 0) buf[n++] = '-';
  while (k) buf[n++] = digits[--k];
  buf[n] = 0;
  return n0;
}

/* A new tensor with a fresh row variable per row (their ids in vars), its
   rows in `open` (bit k for row k) those variables' open rows, the others
   NULL until its maker sets them: a leaf's given rows would leave the row
   made for the variable unread, and a large graph made one such row in
   eight. Listed in the session; NULL on out of memory. */
static nx_tensor *tensor_node(nx_shape_session *s, const char *label, unsigned open, int vars[3]) {
  nx_tensor *t = nx__shape_alloc(s, sizeof *t);
  if (!t) return NULL;
  t->id = tensor_id(s, true);
  char buf[80];
  if (!label) t->auto_len = (unsigned char)(node_name(buf, "", t->id) + 1);
  t->label = nx__shape_strdup(s, label ? label : buf);
  for (int k = 0; k < 3; k++) {
    int v = vars[k] = nx__shape_new_var(s, true, NULL);
    if (v < 0 || ((open >> k & 1u) && !(t->rows[k] = nx__shape_row_of_var(s, v)))) return NULL;
  }
  if (!t->label || nx__shape_pvec_push(&s->tensors, t)) return NULL;
  return t;
}

/* A new tensor of three fresh open rows, listed in the session; NULL on out of
   memory (tensor_internal.h). */
nx_tensor *nx__shape_tensor_node(nx_shape_session *s, const char *label) {
  int vars[3];
  return tensor_node(s, label, 7u, vars);
}

/* A leaf that failed before all its rows were set: the rest are its
   variables' open rows, as if made with it (every tensor of the session has
   three rows for closing; the empty row if memory runs out). Returns rc. */
static int leaf_failed(nx_shape_session *s, nx_tensor *t, const int vars[3], int rc) {
  for (int k = 0; k < 3; k++)
    if (!t->rows[k] && !(t->rows[k] = nx__shape_row_of_var(s, vars[k]))) t->rows[k] = s->empty;
  return rc;
}

static nx_tensor *op_node(nx_shape_session *s, const char *op) {
  char buf[80];
  size_t n = node_name(buf, op, tensor_id(s, false));
  nx_tensor *t = nx__shape_tensor_node(s, buf);
  if (t) t->auto_len = (unsigned char)(n + 1); /* an application renumbers it (scheme_apply.c) */
  return t;
}

/* The origin "op (l lk, r rk)" in the arena; NULL when memory runs out. */
static const nx__origin *origin(nx_shape_session *s, const char *op, const nx_tensor *l, int lk, const nx_tensor *r,
                                int rk) {
  nx__origin *o = nx__shape_alloc(s, sizeof *o);
  if (!o) return NULL;
  o->operation = op;
  o->lhs_name = l->label;
  o->rhs_name = r->label;
  o->lhs_kind = (signed char)lk;
  o->rhs_kind = (signed char)rk;
  return o;
}

static int add_row(nx_shape_session *s, int kind, const nx_row *a, const nx_row *b, const nx__origin *o) {
  nx__cons c = {.kind = kind, .r1 = a, .r2 = b, .o = o};
  return nx__shape_push(s, &s->pending, &c);
}

/* res_k <= opnd_k */
static int ineq(nx_shape_session *s, const char *op, nx_tensor *res, int rk, nx_tensor *opnd, int ok) {
  return add_row(s, NX__C_ROW_INEQ, res->rows[rk], opnd->rows[ok], origin(s, op, res, rk, opnd, ok));
}

static int eq(nx_shape_session *s, const char *op, nx_tensor *a, int ak, const nx_row *r, const nx_tensor *b, int bk) {
  return add_row(s, NX__C_ROW_EQ, a->rows[ak], r, origin(s, op, a, ak, b, bk));
}

static void mark(nx_shape_session *s, const nx_row *r, bool pointwise) {
  const nx_row *x = nx__shape_rsub(s, r);
  if (!x->var) return;
  if (pointwise) NX__VAR(s, x->var)->in_pointwise = true;
  else NX__VAR(s, x->var)->in_spec = true;
}

static int finish_op(nx_shape_session *s, const char *fn, nx_tensor *t, nx_tensor **out) {
  int rc = nx__shape_solve_checked(s, fn, 1);
  if (rc) return rc;
  *out = t;
  return 0;
}

/* what: why cond fails. */
#define CHECK_ARGS(fn, cond, what)                                                         \
  do {                                                                                     \
    if (!s) return nx__fail(NX_EINVAL, "%s: the session is NULL", fn);                     \
    if (!out) return nx__fail(NX_EINVAL, "%s: the result pointer is NULL", fn);            \
    if (!(cond)) return nx__fail(NX_EINVAL, "%s: %s", fn, what);                           \
    if (s->tainted)                                                                        \
      return nx__fail(NX_EINVAL, "%s: the session is tainted by an earlier shape error: %s", fn, s->taint); \
  } while (0)

/* A leaf with the given axis lists (NULL: a row to infer, a parameter's
   hidden) and its terminal marks, in *made; a refused list leaves the
   tensor with open rows (leaf_failed), so that closing finds three. */
static int leaf(nx_shape_session *s, const char *fn, const char *label, bool is_param, const char *const axes[3],
                nx_tensor **out, nx_tensor **made) {
  int vars[3];
  nx_tensor *t = tensor_node(s, label, (axes[0] ? 0u : 1u) | (axes[1] ? 0u : 2u) | (axes[2] ? 0u : 4u), vars);
  if (!t) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
  t->is_param = is_param;
  for (int k = 0; k < 3; k++) {
    if (axes[k]) {
      const nx_row *r;
      int rc = nx__shape_axes_parse(s, axes[k], &r);
      if (rc == NX_ENOMEM) return leaf_failed(s, t, vars, nx__fail(rc, "%s: out of memory", fn));
      if (rc) return leaf_failed(s, t, vars, nx__fail(rc, "%s: %s %s: %s", fn, t->label, kind_names[k], s->err));
      t->rows[k] = r;
    } else if (is_param) {
      nx__var *e = NX__VAR(s, t->rows[k]->var);
      e->is_param = e->hidden_param = true;
    }
    nx__cons c = {.kind = NX__C_TERM_ROW, .r1 = t->rows[k], .is_param = is_param, .nrows = k, .t = t,
                  .o = origin(s, is_param ? "parameter" : "terminal", t, k, t, k)};
    if (nx__shape_push(s, &s->pending, &c))
      return leaf_failed(s, t, vars, nx__fail(NX_ENOMEM, "%s: out of memory", fn));
  }
  *made = t;
  (void)out;
  return 0;
}

int nx_tensor_term(nx_shape_session *s, const char *label, const char *batch, const char *input, const char *output,
                   nx_tensor **out) {
  CHECK_ARGS("nx_tensor_term", 1, "");
  const char *axes[3] = {batch, input, output};
  nx_tensor *t;
  int rc = leaf(s, "nx_tensor_term", label, false, axes, out, &t);
  return rc ? rc : finish_op(s, "nx_tensor_term", t, out);
}

int nx_tensor_param(nx_shape_session *s, const char *label, const char *input, const char *output, nx_tensor **out) {
  CHECK_ARGS("nx_tensor_param", 1, "");
  const char *axes[3] = {"", input, output};
  nx_tensor *t;
  int rc = leaf(s, "nx_tensor_param", label, true, axes, out, &t);
  return rc ? rc : finish_op(s, "nx_tensor_param", t, out);
}

/* The total-elements constraint of a fill: t's rows, in layout order, hold
   total elements. */
static int total_elems(nx_shape_session *s, const char *fn, nx_tensor *t, int64_t total) {
  const nx_row **rows = nx__shape_alloc(s, 3 * sizeof *rows);
  if (!rows) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
  rows[0] = t->rows[NX_AXIS_BATCH], rows[1] = t->rows[NX_AXIS_OUTPUT], rows[2] = t->rows[NX_AXIS_INPUT];
  nx__cons c = {.kind = NX__C_TOTAL, .rows = rows, .nrows = 3, .n = total,
                .o = origin(s, "total elements", t, NX_AXIS_OUTPUT, t, NX_AXIS_OUTPUT)};
  return nx__shape_push(s, &s->pending, &c) ? nx__fail(NX_ENOMEM, "%s: out of memory", fn) : 0;
}

int nx_tensor_fill(nx_shape_session *s, const char *label, int64_t total, const char *batch, const char *input,
                   const char *output, nx_tensor **out) {
  CHECK_ARGS("nx_tensor_fill", total >= 0, "the total is negative");
  const char *axes[3] = {batch, input, output};
  nx_tensor *t;
  int rc = leaf(s, "nx_tensor_fill", label, false, axes, out, &t);
  if (!rc) rc = total_elems(s, "nx_tensor_fill", t, total);
  if (rc) return rc;
  return finish_op(s, "nx_tensor_fill", t, out);
}

int nx_tensor_of_spec(nx_shape_session *s, const char *label, const char *spec, bool is_param, int64_t total,
                      nx_tensor **out) {
  static const char *fn = "nx_tensor_of_spec";
  CHECK_ARGS(fn, spec && total >= -1, spec ? "the total is below -1" : "the spec is NULL");
  int vars[3];
  nx_tensor *t = tensor_node(s, label, 0u, vars);
  if (!t) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
  if (!(t->env = nx__shape_alloc(s, sizeof *t->env)))
    return leaf_failed(s, t, vars, nx__fail(NX_ENOMEM, "%s: out of memory", fn));
  t->is_param = is_param;
  const nx_row *rows[3];
  int rc = nx__shape_leaf_parse(s, spec, t->env, rows);
  if (rc == NX_ENOMEM) return leaf_failed(s, t, vars, nx__fail(rc, "%s: out of memory", fn));
  if (rc) return leaf_failed(s, t, vars, nx__fail(rc, "%s: %s", fn, s->err));
  for (int k = 0; k < 3; k++) t->rows[k] = rows[k];
  for (int k = 0; k < 3; k++) {
    if (is_param && rows[k]->var) {
      nx__var *e = NX__VAR(s, rows[k]->var);
      e->is_param = e->hidden_param = true;
    }
    nx__cons c = {.kind = NX__C_TERM_ROW, .r1 = rows[k], .is_param = is_param,
                  .o = origin(s, is_param ? "parameter" : "terminal", t, k, t, k)};
    if (nx__shape_push(s, &s->pending, &c)) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
  }
  if (total >= 0 && (rc = total_elems(s, fn, t, total))) return rc;
  return finish_op(s, fn, t, out);
}

int nx_tensor_param_fill(nx_shape_session *s, const char *label, int64_t total, const char *input, const char *output,
                         nx_tensor **out) {
  CHECK_ARGS("nx_tensor_param_fill", total >= 0, "the total is negative");
  const char *axes[3] = {"", input, output};
  nx_tensor *t;
  int rc = leaf(s, "nx_tensor_param_fill", label, true, axes, out, &t);
  if (!rc) rc = total_elems(s, "nx_tensor_param_fill", t, total);
  return rc ? rc : finish_op(s, "nx_tensor_param_fill", t, out);
}

/* A pointwise operation of n operands: the result below each, kind by
   kind, the input rows marked pointwise. */
static int pointwise(nx_shape_session *s, const char *fn, const char *op, nx_tensor *const *args, int n,
                     nx_tensor **out) {
  nx_tensor *t = op_node(s, op);
  if (!t) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
  mark(s, t->rows[NX_AXIS_INPUT], true);
  for (int i = 0; i < n; i++) {
    mark(s, args[i]->rows[NX_AXIS_INPUT], true);
    for (int k = 0; k < 3; k++)
      if (ineq(s, op, t, k, args[i], k)) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
  }
  return finish_op(s, fn, t, out);
}

int nx_tensor_unary(nx_shape_session *s, const char *op, nx_tensor *a, nx_tensor **out) {
  CHECK_ARGS("nx_tensor_unary", a, "a is NULL");
  return pointwise(s, "nx_tensor_unary", op ? op : "unary", &a, 1, out);
}

int nx_tensor_binary(nx_shape_session *s, const char *op, nx_tensor *a, nx_tensor *b, nx_tensor **out) {
  CHECK_ARGS("nx_tensor_binary", a && b, a ? "b is NULL" : "a is NULL");
  nx_tensor *args[2] = {a, b};
  return pointwise(s, "nx_tensor_binary", op ? op : "binary", args, 2, out);
}

int nx_tensor_ternary(nx_shape_session *s, const char *op, nx_tensor *a, nx_tensor *b, nx_tensor *c, nx_tensor **out) {
  CHECK_ARGS("nx_tensor_ternary", a && b && c, !a ? "a is NULL" : !b ? "b is NULL" : "c is NULL");
  nx_tensor *args[3] = {a, b, c};
  return pointwise(s, "nx_tensor_ternary", op ? op : "ternary", args, 3, out);
}

/* a * b (and the accumulator d unless NULL): the constraints of compose,
   see docs/shapes.md. */
static int compose(nx_shape_session *s, const char *fn, const char *op, nx_tensor *a, nx_tensor *b, nx_tensor *d,
                   nx_tensor **out) {
  nx_tensor *t = op_node(s, op);
  if (!t) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
  mark(s, a->rows[NX_AXIS_INPUT], false);
  mark(s, t->rows[NX_AXIS_INPUT], false);
  int rc = add_row(s, NX__C_ROW_INEQ, a->rows[NX_AXIS_INPUT], b->rows[NX_AXIS_OUTPUT], origin(s, op, a, NX_AXIS_INPUT, b, NX_AXIS_OUTPUT));
  rc = rc ? rc : ineq(s, op, t, NX_AXIS_BATCH, a, NX_AXIS_BATCH);
  rc = rc ? rc : ineq(s, op, t, NX_AXIS_BATCH, b, NX_AXIS_BATCH);
  rc = rc ? rc : ineq(s, op, t, NX_AXIS_INPUT, b, NX_AXIS_INPUT);
  rc = rc ? rc : ineq(s, op, t, NX_AXIS_OUTPUT, a, NX_AXIS_OUTPUT);
  for (int k = 0; d && k < 3 && !rc; k++) rc = ineq(s, op, t, k, d, k);
  if (rc) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
  return finish_op(s, fn, t, out);
}

int nx_tensor_compose(nx_shape_session *s, nx_tensor *a, nx_tensor *b, nx_tensor **out) {
  CHECK_ARGS("nx_tensor_compose", a && b, a ? "b is NULL" : "a is NULL");
  return compose(s, "nx_tensor_compose", "*", a, b, NULL, out);
}

int nx_tensor_compose_accumulate(nx_shape_session *s, nx_tensor *a, nx_tensor *b, nx_tensor *d, nx_tensor **out) {
  CHECK_ARGS("nx_tensor_compose_accumulate", a && b && d, !a ? "a is NULL" : !b ? "b is NULL" : "d is NULL");
  return compose(s, "nx_tensor_compose_accumulate", "*+", a, b, d, out);
}

int nx_tensor_transpose(nx_shape_session *s, nx_tensor *a, nx_tensor **out) {
  CHECK_ARGS("nx_tensor_transpose", a, "a is NULL");
  nx_tensor *t = op_node(s, "transpose");
  if (!t) return nx__fail(NX_ENOMEM, "nx_tensor_transpose: out of memory");
  if (ineq(s, "transpose", t, NX_AXIS_BATCH, a, NX_AXIS_BATCH) || ineq(s, "transpose", t, NX_AXIS_INPUT, a, NX_AXIS_OUTPUT) ||
      ineq(s, "transpose", t, NX_AXIS_OUTPUT, a, NX_AXIS_INPUT))
    return nx__fail(NX_ENOMEM, "nx_tensor_transpose: out of memory");
  return finish_op(s, "nx_tensor_transpose", t, out);
}

int nx_tensor_batch_slice(nx_shape_session *s, nx_tensor *a, nx_tensor **out) {
  CHECK_ARGS("nx_tensor_batch_slice", a, "a is NULL");
  nx_tensor *t = op_node(s, "batch_slice");
  int v = nx__shape_new_var(s, false, NULL);
  if (!t || v < 0) return nx__fail(NX_ENOMEM, "nx_tensor_batch_slice: out of memory");
  const nx_dim *sd = nx__shape_dim_var(s, v);
  const nx_row *b = nx__shape_row_new(s, &sd, 1, NULL, 0, t->rows[NX_AXIS_BATCH]->var);
  if (!b || add_row(s, NX__C_ROW_EQ, b, a->rows[NX_AXIS_BATCH], origin(s, "batch_slice", t, NX_AXIS_BATCH, a, NX_AXIS_BATCH)) ||
      eq(s, "batch_slice", t, NX_AXIS_INPUT, a->rows[NX_AXIS_INPUT], a, NX_AXIS_INPUT) ||
      eq(s, "batch_slice", t, NX_AXIS_OUTPUT, a->rows[NX_AXIS_OUTPUT], a, NX_AXIS_OUTPUT))
    return nx__fail(NX_ENOMEM, "nx_tensor_batch_slice: out of memory");
  return finish_op(s, "nx_tensor_batch_slice", t, out);
}

/* OCANNL's message for a spec whose operand count is not n: its `++^`
   (a block, a concatenation of any arity) says "block spec" whatever n;
   otherwise one operand is a permutation, two and three an einsum, and more
   only a block can take. shape.ml words each so. */
static int arity_error(nx_shape_session *s, bool block, int n, const char *spec) {
  static const char *const words[] = {"permutation spec (expected one argument)", "einsum spec (expected two arguments)",
                                      "einsum spec (expected three arguments)"};
  if (!block && n <= 3) return nx__shape_error(s, NULL, "Invalid %s: %s", words[n - 1], spec);
  return nx__shape_error(s, NULL, "Invalid block spec (expected %d arguments): %s", n, spec);
}

int nx__shape_einsum(nx_shape_session *s, const char *fn, bool block, const char *spec, const nx_einsum_options *opt,
                     nx_tensor *const *args, int n, nx_tensor **out) {
  if (n < 1 || n > NX_SHAPE_MAX_OPERANDS)
    return nx__fail(NX_EINVAL, "%s: %d operands, not 1 to %d", fn, n, NX_SHAPE_MAX_OPERANDS);
  CHECK_ARGS(fn, spec && args, spec ? "args is NULL" : "the spec is NULL");
  for (int i = 0; i < n; i++)
    if (!args[i]) return nx__fail(NX_EINVAL, "%s: operand %d is NULL", fn, i);
  nx_tensor *t = op_node(s, block ? "concat" : n == 1 ? "permute" : "einsum");
  if (!t) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
  nx__spec sp;
  int pending = s->pending.n;
  if (!(t->env = nx__shape_alloc(s, sizeof *t->env))) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
  int rc = nx__shape_spec_parse(s, spec, opt, t->env, &sp);
  if (!rc && sp.noperands != n) rc = arity_error(s, block, n, spec);
  if (rc) {
    s->pending.n = pending; /* drop the parse's fixed-index constraints */
    return rc == NX_ENOMEM ? nx__fail(rc, "%s: out of memory", fn) : nx__fail(rc, "%s: %s", fn, s->err);
  }
  t->env->nshapes = n + 1;
  if (!(t->env->shape_rows = nx__shape_alloc(s, (size_t)(n + 1) * sizeof *t->env->shape_rows)))
    return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
  for (int i = 0; i < n; i++) memcpy(t->env->shape_rows[i], sp.rows[i], sizeof sp.rows[i]);
  memcpy(t->env->shape_rows[n], sp.rows[NX_SHAPE_MAX_OPERANDS], sizeof sp.rows[0]);
  nx_tensor **ops = nx__shape_alloc(s, (size_t)n * sizeof *ops);
  if (!ops) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
  memcpy(ops, args, (size_t)n * sizeof *ops);
  t->env->args = ops;
  const char *op = t->label;
  for (int k = 0; k < 3; k++) {
    if (eq(s, op, t, k, sp.rows[NX_SHAPE_MAX_OPERANDS][k], t, k)) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
    mark(s, t->rows[k], false);
    for (int i = 0; i < n; i++) {
      mark(s, args[i]->rows[k], false);
      if (eq(s, op, args[i], k, sp.rows[i][k], args[i], k)) return nx__fail(NX_ENOMEM, "%s: out of memory", fn);
    }
  }
  return finish_op(s, fn, t, out);
}

int nx__shape_fail_as(const char *fn, int rc) {
  if (!rc) return 0;
  char msg[1024];
  const char *m = nx_error_message(), *p = strstr(m, ": ");
  snprintf(msg, sizeof msg, "%s", p ? p + 2 : m);
  return nx__fail(rc, "%s: %s", fn, msg);
}

int nx_tensor_einsum(nx_shape_session *s, const char *spec, nx_tensor *const *args, int n, nx_tensor **out) {
  return nx__shape_einsum(s, "nx_tensor_einsum", false, spec, NULL, args, n, out);
}

int nx_tensor_concat(nx_shape_session *s, const char *spec, nx_tensor *const *args, int n, nx_tensor **out) {
  return nx__shape_einsum(s, "nx_tensor_concat", true, spec, NULL, args, n, out);
}

const nx_dim *nx_tensor_spec_dim(const nx_tensor *t, const char *label) {
  if (!t || !label) return nx__fail(NX_EINVAL, "nx_tensor_spec_dim: %s is NULL", t ? "the label" : "the tensor"), NULL;
  if (!t->env) return NULL;
  for (int i = 0; i < t->env->ndims; i++)
    if (!strcmp(t->env->dim_names[i], label)) return t->env->dims[i];
  return NULL;
}

const nx_row *nx_tensor_spec_row(const nx_tensor *t, const char *name) {
  if (!t || !name) return nx__fail(NX_EINVAL, "nx_tensor_spec_row: %s is NULL", t ? "the name" : "the tensor"), NULL;
  if (!t->env) return NULL;
  for (int i = 0; i < t->env->nrows; i++)
    if (!strcmp(t->env->row_names[i], name)) return t->env->rows[i];
  return NULL;
}

int nx_tensor_set_dim(nx_shape_session *s, const nx_dim *d, int64_t size) {
  if (!s || !d || size < 0) return nx__fail(NX_EINVAL, "nx_tensor_set_dim: NULL argument or negative size %lld", (long long)size);
  if (s->tainted) return nx__fail(NX_EINVAL, "nx_tensor_set_dim: the session is tainted by an earlier shape error: %s", s->taint);
  nx__origin *o = nx__shape_alloc(s, sizeof *o);
  const nx_dim *v = nx__shape_dim_solved(s, size, NX_BASIS_DEFAULT);
  if (!o || !v) return nx__fail(NX_ENOMEM, "nx_tensor_set_dim: out of memory");
  o->operation = "set_dim";
  o->lhs_name = o->rhs_name = "(set_dim)";
  o->lhs_kind = o->rhs_kind = NX_AXIS_OUTPUT;
  nx__cons c = {.kind = NX__C_DIM_EQ, .d1 = d, .d2 = v, .o = o};
  if (nx__shape_push(s, &s->pending, &c)) return nx__fail(NX_ENOMEM, "nx_tensor_set_dim: out of memory");
  return nx__shape_solve_checked(s, "nx_tensor_set_dim", 1);
}

int nx_tensor_set_row_total(nx_shape_session *s, const nx_row *r, int64_t total) {
  if (!s || !r || total < 0) return nx__fail(NX_EINVAL, "nx_tensor_set_row_total: NULL argument or negative total");
  int rc = nx_shape_add_total_elems(s, &r, 1, total, &(nx_shape_origin){"set_dim", "(set_dim)", NX_AXIS_OUTPUT, "(set_dim)", NX_AXIS_OUTPUT});
  return rc ? rc : nx__shape_solve_checked(s, "nx_tensor_set_row_total", 1);
}

int nx_tensor_set_equal(nx_shape_session *s, nx_tensor *a, nx_tensor *b) {
  if (!s || !a || !b) return nx__fail(NX_EINVAL, "nx_tensor_set_equal: NULL argument");
  for (int k = 0; k < 3; k++)
    if (eq(s, "set_equal", a, k, b->rows[k], b, k)) return nx__fail(NX_ENOMEM, "nx_tensor_set_equal: out of memory");
  return nx__shape_solve_checked(s, "nx_tensor_set_equal", 1);
}

const nx_row *nx_tensor_row(const nx_tensor *t, enum nx_axis_kind kind) {
  if (!t) return nx__fail(NX_EINVAL, "nx_tensor_row: the tensor is NULL"), NULL;
  if (kind >= NX_AXIS_BATCH && kind <= NX_AXIS_OUTPUT) return t->rows[kind];
  return nx__fail(NX_EINVAL, "nx_tensor_row: %d is no axis kind (batch, input or output) of %s", (int)kind, t->label), NULL;
}

const char *nx_tensor_label(const nx_tensor *t) {
  return t ? t->label : (nx__fail(NX_EINVAL, "nx_tensor_label: the tensor is NULL"), NULL);
}

/* The origin of an interior mark made by closing, made when it is first
   needed (most marks are decided without one). */
const nx__origin *nx__shape_closing_origin(nx_shape_session *s, const nx__cons *c) {
  const nx_tensor *t = c->t;
  return origin(s, "closing", t, c->nrows, t, c->nrows);
}


/* Closing adds an interior mark for every row of every tensor. Such a mark
   does nothing before stage 6, so it goes straight to the held marks, after
   those already there (the order a pass over the queue would keep), as one
   range whose constraints are made from the tensors when visited. */
int nx__shape_add_shape_rows(nx_shape_session *s) { return nx__shape_hold_add_rows(s, &s->marks, 0, 3 * s->tensors.n); }
