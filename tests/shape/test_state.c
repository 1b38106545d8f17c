/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the solver's state (nx_shape.h): the constraints left after a
   solve, by state, and adding them again; a variable's bounds, flags and
   neighbours; dims' structure; renaming a set of variables consistently;
   per-tensor control of closing's marks. */
#include <stdlib.h>

#include "common.h"

static void count_states(nx_shape_session *s, int n[3]) {
  nx_shape_cursor cur = {0, 0};
  nx_shape_constraint c;
  n[0] = n[1] = n[2] = 0;
  int rc;
  while ((rc = nx_shape_next_constraint(s, &cur, &c)) == 0) n[c.state]++;
  CHECK(rc == NX_NONE, "the iteration ends with NX_NONE, got %d", rc);
}

/* A concatenation of three unknown parts against a size waits (deferred);
   constraints added and not solved are pending; a parameter's rows are
   marks, with their tensor. */
static void constraints_left(void) {
  nx_shape_session *s;
  CHECK(nx_shape_session_new(&s) == 0, "session");
  const nx_dim *a = nx_dim_var(s, "a"), *b = nx_dim_var(s, "b"), *c = nx_dim_var(s, "c");
  const nx_dim *parts[3] = {a, b, c};
  const nx_dim *abc = nx_dim_concat(s, parts, 3);
  CHECK(nx_shape_add_dim_eq(s, abc, dd(s, 12), &O) == 0 && nx_shape_solve(s, 1) == 0, "a^b^c = 12");
  nx_tensor *w;
  CHECK(nx_tensor_param(s, "w", NULL, "4", &w) == 0, "param");
  CHECK(nx_shape_add_at_least(s, a, 2, &O) == 0, "pending at least");
  int n[3];
  count_states(s, n);
  CHECK(n[NX_SHAPE_PENDING] == 1 && n[NX_SHAPE_DEFERRED] == nx_shape_deferred_count(s) && n[NX_SHAPE_DEFERRED] == 1,
        "pending %d, deferred %d (count %d)", n[0], n[1], nx_shape_deferred_count(s));
  CHECK(n[NX_SHAPE_MARK] >= 1, "marks %d", n[2]);
  nx_shape_cursor cur = {0, 0};
  nx_shape_constraint k;
  bool saw_concat = false, saw_mark = false, saw_pending = false;
  while (nx_shape_next_constraint(s, &cur, &k) == 0) {
    if (k.state == NX_SHAPE_PENDING)
      saw_pending = k.kind == NX_SHAPE_AT_LEAST && k.a == a && k.n == 2 && k.operation && !strcmp(k.operation, "test");
    if (k.state == NX_SHAPE_DEFERRED) {
      nx_dim_parts p;
      saw_concat = k.kind == NX_SHAPE_DIM_EQ && nx_dim_read(k.a, &p) == 0 && p.kind == NX_DIM_CONCAT && p.nparts == 3;
    }
    if (k.state == NX_SHAPE_MARK && k.kind == NX_SHAPE_TERMINAL_ROW && k.tensor == w && k.is_param)
      saw_mark = k.tensor_kind == NX_AXIS_INPUT || k.tensor_kind == NX_AXIS_BATCH || saw_mark;
  }
  CHECK(saw_pending && saw_concat && saw_mark, "pending %d, deferred concat %d, w's mark %d", saw_pending, saw_concat,
        saw_mark);
  /* solving it leaves nothing pending; fixing a and b decides the concatenation */
  CHECK(nx_tensor_set_dim(s, a, 5) == 0 && nx_tensor_set_dim(s, b, 3) == 0, "set a, b: %s", nx_error_message());
  count_states(s, n);
  CHECK(n[NX_SHAPE_PENDING] == 0 && n[NX_SHAPE_DEFERRED] == 0 && val(s, c) == 4, "solved: c = %lld, left %d %d",
        (long long)val(s, c), n[0], n[1]);
  nx_shape_session_free(s);
}

/* Constraints read from one session and added to another (the same dims
   made again there) solve the same. */
static void add_again(void) {
  nx_shape_session *s;
  CHECK(nx_shape_session_new(&s) == 0, "session");
  const nx_dim *x = nx_dim_var(s, "x"), *y = nx_dim_var(s, "y");
  const nx_dim *two_x = nx_dim_affine(s, 2, x, 1);
  nx_shape_constraint c = {.kind = NX_SHAPE_DIM_EQ, .a = two_x, .b = dd(s, 8)};
  CHECK(nx_shape_add_constraint(s, &c, &O) == 0, "2x+1 = 8 (an offset is no size): %s", nx_error_message());
  nx_shape_constraint e = {.kind = NX_SHAPE_DIM_INEQ, .a = y, .b = dd(s, 6)};
  CHECK(nx_shape_add_constraint(s, &e, NULL) == 0, "y <= 6");
  const nx_row *r = nx_row_make(s, &x, 1, &y, 1, 0);
  nx_shape_constraint t = {.kind = NX_SHAPE_TOTAL, .rows = &r, .nrows = 1, .n = 24};
  CHECK(nx_shape_add_constraint(s, &t, NULL) == 0, "x*y = 24");
  CHECK(nx_shape_solve(s, 1) == 0 && val(s, x) == 4 && val(s, y) == 6, "x = %lld, y = %lld: %s", (long long)val(s, x),
        (long long)val(s, y), nx_error_message());
  nx_shape_constraint bad = {.kind = NX_SHAPE_DIM_EQ, .a = x};
  CHECK(nx_shape_add_constraint(s, &bad, NULL) == NX_EINVAL && has(nx_error_message(), "nx_shape_add_constraint"),
        "a missing operand: %s", nx_error_message());
  bad.kind = (enum nx_shape_constraint_kind)42;
  CHECK(nx_shape_add_constraint(s, &bad, NULL) == NX_EINVAL, "an unknown kind");
  CHECK(nx_shape_add_constraint(NULL, &c, NULL) == NX_EINVAL && nx_shape_add_constraint(s, NULL, NULL) == NX_EINVAL,
        "NULL");
  nx_shape_session_free(s);
}

/* A total-dim constraint (the rows hold as many elements as a dim is long,
   which set_equal of a dim and a row reference makes) waits at stage 1,
   reads back with its rows and dim, added to another session solves the
   same, and its errors. */
static void total_dim(void) {
  nx_shape_session *s, *s2;
  CHECK(nx_shape_session_new(&s) == 0 && nx_shape_session_new(&s2) == 0, "sessions");
  const nx_dim *k = nx_dim_var(s, "k"), *x = nx_dim_var(s, "x");
  const nx_row *r = nx_row_make(s, &x, 1, NULL, 0, 0);
  CHECK(nx_shape_add_total_dim(s, &r, 1, k, &O) == 0 && nx_shape_solve(s, 1) == 0 && nx_shape_deferred_count(s) == 1,
        "nothing at stage 1: %s", nx_error_message());
  nx_shape_cursor cur = {0, 0};
  nx_shape_constraint c;
  CHECK(nx_shape_next_constraint(s, &cur, &c) == 0 && c.kind == NX_SHAPE_TOTAL_DIM && c.state == NX_SHAPE_DEFERRED &&
            c.a == k && c.nrows == 1 && c.rows[0] == r && c.operation && !strcmp(c.operation, "test"),
        "read back: kind %d", (int)c.kind);
  CHECK(nx_tensor_set_dim(s, x, 7) == 0 && nx_shape_solve(s, 2) == 0 && val(s, k) == 7, "stage 2: k = %lld: %s",
        (long long)val(s, k), nx_error_message());
  /* the same constraint in another session, from the other side */
  const nx_dim *k2 = nx_dim_var(s2, "k"), *a = nx_dim_var(s2, "a"), *b = nx_dim_var(s2, "b");
  const nx_dim *ab[2] = {a, b};
  const nx_row *r2 = nx_row_make(s2, ab, 2, NULL, 0, 0);
  c.rows = &r2, c.a = k2;
  CHECK(nx_shape_add_constraint(s2, &c, NULL) == 0 && nx_tensor_set_dim(s2, k2, 12) == 0 && nx_tensor_set_dim(s2, a, 3) == 0 &&
            nx_shape_solve(s2, 2) == 0 && val(s2, b) == 4,
        "k = 12 = 3*b: b = %lld: %s", (long long)val(s2, b), nx_error_message());
  nx_shape_constraint bad = {.kind = NX_SHAPE_TOTAL_DIM, .rows = &r2, .nrows = 1};
  CHECK(nx_shape_add_constraint(s2, &bad, NULL) == NX_EINVAL && nx_shape_add_total_dim(s2, &r2, 1, NULL, NULL) == NX_EINVAL &&
            nx_shape_add_total_dim(s2, NULL, 1, k2, NULL) == NX_EINVAL,
        "no dim, no rows");
  /* a dim that disagrees with the product */
  CHECK(nx_shape_add_total_dim(s2, &r2, 1, dd(s2, 5), NULL) == 0 && nx_shape_solve(s2, 2) == NX_EINVAL &&
            has(nx_error_message(), "Total_elems"),
        "5 vs 12: %s", nx_error_message());
  nx_shape_session_free(s);
  nx_shape_session_free(s2);
}

/* Bounds, flags and neighbours. */
static void var_state(void) {
  nx_shape_session *s;
  CHECK(nx_shape_session_new(&s) == 0, "session");
  const nx_dim *v = nx_dim_var(s, "v"), *w = nx_dim_var(s, "w"), *g = nx_dim_var(s, "g");
  CHECK(nx_shape_add_dim_ineq(s, v, w, &O) == 0 && nx_shape_add_at_least(s, v, 3, &O) == 0 &&
            nx_shape_add_dim_ineq(s, dd(s, 7), g, &O) == 0 && nx_shape_solve(s, 1) == 0,
        "v <= w, v >= 3, 7 <= g");
  nx_shape_var_info i;
  int id = nx_dim_var_id(v), wid = nx_dim_var_id(w), ids[4];
  CHECK(id > 0 && nx_shape_var_read(s, id, &i) == 0 && !i.is_row && !i.solved && i.at_least == 3 && i.nupper == 1 &&
            i.nlower == 0 && !strcmp(i.name, "v"),
        "v: at least %lld, %d up, %d down", (long long)i.at_least, i.nupper, i.nlower);
  CHECK(nx_shape_var_neighbours(s, id, true, ids, 4) == 1 && ids[0] == wid, "v's upper neighbour is w");
  CHECK(nx_shape_var_neighbours(s, wid, false, ids, 4) == 1 && ids[0] == id, "w's lower neighbour is v");
  CHECK(nx_shape_var_neighbours(s, wid, true, NULL, 0) == 0, "w has none above");
  CHECK(nx_shape_var_read(s, nx_dim_var_id(g), &i) == 0 && i.lower && val(s, i.lower) == 7 && !i.solved,
        "g's ground lower bound is 7");
  CHECK(nx_shape_var_read(s, 0, &i) == NX_EINVAL && nx_shape_var_read(s, 1 << 20, &i) == NX_EINVAL &&
            nx_shape_var_neighbours(s, id, true, NULL, 2) == NX_EINVAL,
        "bad ids and lists");
  /* a row variable's lower bound row; flags from operations */
  int rv = nx_row_var_new(s, "r");
  const nx_dim *d3[2] = {dd(s, 2), dd(s, 3)};
  const nx_row *open = nx_row_make(s, NULL, 0, NULL, 0, rv), *low = closed(s, d3, 2, NULL, 0);
  CHECK(nx_shape_add_row_ineq(s, low, open, &O) == 0 && nx_shape_solve(s, 1) == 0, "(2,3) <= ..r..");
  const nx_row *lr[2];
  CHECK(nx_shape_var_read(s, rv, &i) == 0 && i.is_row && i.nlower_rows == 1, "r has one lower row (%d)", i.nlower_rows);
  char buf[32];
  CHECK(nx_shape_var_lower_rows(s, rv, lr, 2) == 1 && nx_row_to_string(s, lr[0], buf, sizeof buf) > 0 &&
            !strcmp(buf, "2,3"),
        "r's lower row is (2,3)");
  nx_tensor *p = NULL, *x = NULL, *sum = NULL, *e = NULL;
  CHECK(nx_tensor_param(s, "p", NULL, NULL, &p) == 0 && nx_tensor_term(s, "x", NULL, NULL, NULL, &x) == 0 &&
            nx_tensor_binary(s, "+", x, x, &sum) == 0,
        "param, pointwise");
  nx_tensor *args[2] = {x, p};
  CHECK(nx_tensor_einsum(s, "ab;bc=>ac", args, 2, &e) == 0, "einsum: %s", nx_error_message());
  int pin = nx_row_var(nx_tensor_row(p, NX_AXIS_OUTPUT)); /* as made: the flags were set on it */
  CHECK(pin > 0 && nx_shape_var_read(s, pin, &i) == 0 && i.is_param && i.in_spec, "p's input: param %d, spec %d",
        i.is_param, i.in_spec);
  const nx_row *xb = nx_tensor_row(x, NX_AXIS_INPUT);
  CHECK(nx_row_var(xb) > 0 && nx_shape_var_read(s, nx_row_var(xb), &i) == 0 && i.in_pointwise,
        "x's input is used pointwise");
  nx_shape_session_free(s);
}

/* nx_dim_read of every kind. */
static void dim_structure(void) {
  nx_shape_session *s;
  CHECK(nx_shape_session_new(&s) == 0, "session");
  const nx_dim *k = nx_dim_var(s, "k"), *o = nx_dim_var(s, "o");
  const nx_dim *cv = nx_dim_conv(s, 2, o, 0, 3, k, false), *sz = nx_dim_solved(s, 5, "rgb");
  nx_dim_parts p;
  CHECK(nx_dim_read(cv, &p) == 0 && p.kind == NX_DIM_AFFINE && p.stride == 2 && p.dilation == 3 && p.over == o &&
            p.kernel == k && !p.use_padding,
        "a convolution's parts");
  CHECK(nx_dim_read(sz, &p) == 0 && p.kind == NX_DIM_SOLVED && p.size == 5 && !strcmp(p.basis, "rgb"), "solved");
  CHECK(nx_dim_read(k, &p) == 0 && p.kind == NX_DIM_VAR && p.var == nx_dim_var_id(k) && p.var > 0, "var");
  CHECK(nx_dim_var_id(sz) == 0 && nx_dim_var_id(NULL) == 0 && nx_dim_read(NULL, &p) == NX_EINVAL, "not vars");
  CHECK(nx_tensor_set_dim(s, o, 4) == 0 && nx_shape_dim_subst(s, o) != o && val(s, nx_shape_dim_subst(s, o)) == 4,
        "substituted");
  nx_shape_session_free(s);
}

static const char *dim_str(nx_shape_session *s, const nx_dim *d) {
  static char buf[128];
  const nx_row *r = nx_row_make(s, &d, 1, NULL, 0, 0);
  if (!r || nx_row_to_string(s, r, buf, sizeof buf) < 0) return "<error>";
  return buf;
}

/* Renaming {a, b, r}: the fresh ones carry the bounds, renamed, inside an
   affine dim, a concatenation and a bound row; the originals are untouched
   by what later binds the fresh ones. */
static void renaming(void) {
  nx_shape_session *s;
  CHECK(nx_shape_session_new(&s) == 0, "session");
  const nx_dim *a = nx_dim_var(s, "a"), *b = nx_dim_var(s, "b"), *c = nx_dim_var(s, "c");
  int rv = nx_row_var_new(s, "r");
  const nx_dim *ab[2] = {a, b};
  const nx_row *low = closed(s, ab, 2, NULL, 0), *open = nx_row_make(s, NULL, 0, NULL, 0, rv);
  CHECK(nx_shape_add_dim_ineq(s, a, b, &O) == 0 && nx_shape_add_at_least(s, a, 3, &O) == 0 &&
            nx_shape_add_dim_ineq(s, b, c, &O) == 0 && nx_shape_add_row_ineq(s, low, open, &O) == 0 &&
            nx_shape_solve(s, 1) == 0,
        "a <= b <= c, a >= 3, (a,b) <= ..r..");
  int ids[4] = {nx_dim_var_id(a), nx_dim_var_id(b), rv, nx_dim_var_id(a)}; /* a twice: one fresh a */
  nx_shape_renaming *r;
  CHECK(nx_shape_rename_new(s, ids, 4, &r) == 0, "rename: %s", nx_error_message());
  int fa = nx_shape_rename_var(r, ids[0]), fb = nx_shape_rename_var(r, ids[1]), fr = nx_shape_rename_var(r, rv);
  CHECK(fa != ids[0] && fb != ids[1] && fr != rv && fa != fb && nx_shape_rename_var(r, nx_dim_var_id(c)) ==
                                                                    nx_dim_var_id(c),
        "fresh ids %d %d %d", fa, fb, fr);
  CHECK(nx_shape_solve(s, 1) == 0, "the fresh bounds: %s", nx_error_message());
  nx_shape_var_info i;
  int up[4];
  CHECK(nx_shape_var_read(s, fa, &i) == 0 && i.at_least == 3 && !strcmp(i.name, "a") && i.nupper == 1 &&
            nx_shape_var_neighbours(s, fa, true, up, 4) == 1 && up[0] == fb,
        "a' >= 3 and a' <= b' (%lld, %d up)", (long long)i.at_least, i.nupper);
  CHECK(nx_shape_var_neighbours(s, fb, true, up, 4) == 1 && up[0] == nx_dim_var_id(c), "b' <= c (c not renamed)");
  const nx_row *lr[2];
  CHECK(nx_shape_var_lower_rows(s, fr, lr, 2) == 1 && nx_row_dims_count(lr[0]) + nx_row_beg_count(lr[0]) == 2,
        "r' has a lower row");
  char want[64], got[64];
  snprintf(want, sizeof want, "$%d:a,$%d:b", fa, fb);
  CHECK(nx_row_to_string(s, lr[0], got, sizeof got) > 0 && !strcmp(got, want), "r's lower row renamed: %s vs %s", got,
        want);
  /* inside affine and concatenated dims */
  const nx_dim *aff = nx_dim_affine(s, 2, a, 1), *cat = nx_dim_concat(s, ab, 2);
  snprintf(want, sizeof want, "2*$%d:a+1", fa);
  CHECK(!strcmp(dim_str(s, nx_shape_rename_dim(s, r, aff)), want), "affine: %s", dim_str(s, nx_shape_rename_dim(s, r, aff)));
  snprintf(want, sizeof want, "($%d:a^$%d:b)", fa, fb);
  CHECK(!strcmp(dim_str(s, nx_shape_rename_dim(s, r, cat)), want), "concat: %s", dim_str(s, nx_shape_rename_dim(s, r, cat)));
  const nx_dim *rowdims[1] = {b};
  const nx_row *rr = nx_shape_rename_row(s, r, nx_row_make(s, rowdims, 1, NULL, 0, rv));
  CHECK(rr && nx_row_var(rr) == fr, "a row's variable is renamed");
  /* binding the fresh ones leaves the originals */
  CHECK(nx_tensor_set_dim(s, nx_shape_rename_dim(s, r, a), 3) == 0, "a' = 3: %s", nx_error_message());
  CHECK(val(s, a) == -1, "a is still unsolved");
  nx_shape_constraint k = {.kind = NX_SHAPE_DIM_EQ, .a = b, .b = dd(s, 3)};
  CHECK(nx_shape_add_renamed(s, r, &k, &O) == 0 && nx_shape_solve(s, 1) == 0 && val(s, b) == -1,
        "b' = 3 added renamed: b is still unsolved: %s", nx_error_message());
  CHECK(val(s, nx_shape_rename_dim(s, r, b)) == 3, "b' = 3");
  int bad = 0;
  CHECK(nx_shape_rename_new(s, &bad, 1, &r) == NX_EINVAL, "id 0 is no variable");
  CHECK(nx_shape_add_renamed(s, NULL, &k, &O) == NX_EINVAL, "a NULL renaming");
  nx_shape_rename_free(r);
  nx_shape_session_free(s);
}

/* Closing's marks per tensor: a tensor without them stays open. */
static void tensor_marks(void) {
  nx_shape_session *s;
  CHECK(nx_shape_session_new(&s) == 0, "session");
  nx_tensor *a, *b;
  CHECK(nx_tensor_term(s, "a", NULL, NULL, NULL, &a) == 0 && nx_tensor_term(s, "b", NULL, NULL, NULL, &b) == 0,
        "two open leaves");
  CHECK(nx_tensor_marks(a) == (NX_TENSOR_TERMINAL | NX_TENSOR_CLOSING), "both by default");
  CHECK(nx_tensor_set_marks(s, a, 0) == 0 && nx_tensor_marks(a) == 0, "a: none");
  CHECK(nx_tensor_set_marks(s, a, 4) == NX_EINVAL && nx_tensor_set_marks(NULL, a, 0) == NX_EINVAL, "bad bits");
  CHECK(nx_shape_finish(s) == 0, "finish: %s", nx_error_message());
  char sa[600], sb[600];
  snprintf(sa, sizeof sa, "%s", shape_str(s, a, NX_SHAPE_STYLE_SIZE));
  snprintf(sb, sizeof sb, "%s", shape_str(s, b, NX_SHAPE_STYLE_SIZE));
  CHECK(!strcmp(sb, ""), "b closed empty: '%s'", sb);
  CHECK(nx_row_var(nx_shape_row_subst(s, nx_tensor_row(a, NX_AXIS_OUTPUT))) != 0, "a's output row is open: '%s'", sa);
  nx_shape_session_free(s);
  /* a parameter whose row cannot be inferred fails closing, unless its marks are off */
  for (int off = 0; off < 2; off++) {
    CHECK(nx_shape_session_new(&s) == 0, "session");
    nx_tensor *p;
    CHECK(nx_tensor_param(s, "p", NULL, "3", &p) == 0, "param");
    if (off) CHECK(nx_tensor_set_marks(s, p, 0) == 0, "p: none");
    int rc = nx_shape_finish(s);
    CHECK(off ? rc == 0 : rc == NX_EINVAL && has(nx_error_message(), "You forgot"), "marks %s: finish %d: %s",
          off ? "off" : "on", rc, nx_error_message());
    nx_shape_session_free(s);
  }
}

int main(void) {
  constraints_left();
  add_again();
  total_dim();
  var_state();
  dim_structure();
  renaming();
  tensor_marks();
  return check_done();
}
