/* SPDX-License-Identifier: Apache-2.0 */
/* The fifteen cases of shape_inference.md section 6, each against OCANNL's
   expected solution or message. */
#include <stdio.h>

#include "common.h"

#define NEW(s) nx_shape_session *s; CHECK(nx_shape_session_new(&s) == 0, "session")

/* 1-3: test_closing_order.ml */
static void closing_order(void) {
  for (int order = 0; order < 4; order++) {
    NEW(s);
    const nx_dim *a = nx_dim_var(s, "alpha"), *b = nx_dim_var(s, "beta");
    const nx_dim *r[3] = {dd(s, 3), a, dd(s, 5)}, *o[3] = {a, b, b};
    for (int i = 0; i < 3; i++) {
      int k = order & 1 ? 2 - i : i;
      nx_shape_add_dim_ineq(s, r[k], o[k], &O);
    }
    nx_shape_add_terminal_dim(s, false, order & 2 ? b : a, &O);
    nx_shape_add_terminal_dim(s, false, order & 2 ? a : b, &O);
    int rc = solve_range(s, 1, 7);
    CHECK(rc == 0 && val(s, a) == 3 && val(s, b) == 1, "case 1 order %d: rc %d alpha %lld beta %lld: %s", order, rc,
          (long long)val(s, a), (long long)val(s, b), nx_error_message());
    nx_shape_session_free(s);
  }
  for (int order = 0; order < 4; order++) {
    NEW(s);
    const nx_dim *a = nx_dim_var(s, "alpha"), *b = nx_dim_var(s, "beta");
    if (order & 1) nx_shape_add_dim_ineq(s, b, a, &O), nx_shape_add_dim_ineq(s, dd(s, 3), a, &O);
    else nx_shape_add_dim_ineq(s, dd(s, 3), a, &O), nx_shape_add_dim_ineq(s, b, a, &O);
    nx_shape_add_terminal_dim(s, false, order & 2 ? b : a, &O);
    nx_shape_add_terminal_dim(s, false, order & 2 ? a : b, &O);
    int rc = solve_range(s, 1, 7);
    CHECK(rc == 0 && val(s, a) == 3 && val(s, b) == 3, "case 2 order %d: alpha %lld beta %lld: %s", order,
          (long long)val(s, a), (long long)val(s, b), nx_error_message());
    nx_shape_session_free(s);
  }
  for (int order = 0; order < 4; order++) {
    NEW(s);
    const nx_dim *a = nx_dim_var(s, "alpha"), *b = nx_dim_var(s, "beta"), *g = nx_dim_var(s, "gamma");
    const nx_dim *r[4] = {dd(s, 3), dd(s, 5), g, g}, *o[4] = {a, b, a, b};
    for (int i = 0; i < 4; i++) {
      int k = order & 1 ? 3 - i : i;
      nx_shape_add_dim_ineq(s, r[k], o[k], &O);
    }
    nx_shape_add_terminal_dim(s, false, order & 2 ? b : a, &O);
    nx_shape_add_terminal_dim(s, false, order & 2 ? a : b, &O);
    int rc = solve_range(s, 1, 7);
    CHECK(rc != 0 && has(nx_error_message(), "solved dimensions for axis: mismatch"), "case 3 order %d: %s", order,
          nx_error_message());
    nx_shape_session_free(s);
  }
}

/* 4: test_basis_total_order.ml */
static bool leq(const char *rb, int64_t rn, const char *ob, int64_t on) {
  nx_shape_session *s;
  nx_shape_session_new(&s);
  nx_shape_add_dim_ineq(s, nx_dim_solved(s, rn, rb), nx_dim_solved(s, on, ob), &O);
  bool ok = nx_shape_solve(s, 1) == 0;
  nx_shape_session_free(s);
  return ok;
}

static void basis_order(void) {
  CHECK(!leq("default", 3, "rgb", 3), "case 4: 3_default <= 3_rgb rejects");
  CHECK(!leq("xyz", 3, "default", 3), "case 4: 3_xyz <= 3_default rejects");
  CHECK(!leq("xyz", 3, "rgb", 3), "case 4: 3_xyz <= 3_rgb rejects");
  CHECK(leq("rgb", 3, "rgb", 3), "case 4: 3_rgb <= 3_rgb accepts");
  CHECK(leq("rgb", 5, NX_BASIS_BCAST, 1), "case 4: 5_rgb <= 1_bcast accepts");
  CHECK(!leq("rgb", 5, "default", 1), "case 4: 5_rgb <= 1_default rejects");
  CHECK(leq("default", 5, NX_BASIS_BCAST, 1), "case 4: 5_default <= 1_bcast accepts");
  CHECK(leq("xyz", 7, NX_BASIS_BCAST, 1), "case 4: 7_xyz <= 1_bcast accepts");
  CHECK(!leq("rgb", 5, NX_BASIS_BCAST, 5), "case 4: 5_rgb <= 5_bcast rejects");
  CHECK(leq(NX_BASIS_BCAST, 5, NX_BASIS_BCAST, 5), "case 4: 5_bcast <= 5_bcast accepts");
  CHECK(!leq("default", 5, "default", 1), "case 4: 5_default <= 1_default rejects");
  NEW(s);
  const nx_dim *v = nx_dim_var(s, "v");
  nx_shape_add_dim_eq(s, v, nx_dim_top(s), &O);
  nx_shape_add_dim_ineq(s, nx_dim_solved(s, 5, "rgb"), v, &O);
  const char *basis = "";
  CHECK(nx_shape_solve(s, 1) == 0 && nx_shape_dim_value(s, v, NULL, &basis) == 0 && !strcmp(basis, NX_BASIS_BCAST),
        "case 4: v keeps bcast_if_1, got %s", basis);
  nx_shape_session_free(s);
}

/* 5: test_row_rank_cycle.ml */
static void rank_cycles(void) {
  const char *msg = "Infinite number of axes by rank cycle among row variables";
  for (int variant = 0; variant < 4; variant++) {
    NEW(s);
    int r1 = nx_row_var_new(s, NULL), r2 = nx_row_var_new(s, NULL), r3 = nx_row_var_new(s, NULL);
    const nx_row *R1 = nx_row_make(s, NULL, 0, NULL, 0, r1), *R2 = nx_row_make(s, NULL, 0, NULL, 0, r2),
                 *R3 = nx_row_make(s, NULL, 0, NULL, 0, r3);
    const nx_dim *d2 = dd(s, 2), *d3 = dd(s, 3), *d4 = dd(s, 4), *d23[2] = {d2, d3};
    if (variant == 0) {
      nx_shape_add_row_ineq(s, R1, nx_row_make(s, NULL, 0, &d2, 1, r2), &O);
      nx_shape_add_row_ineq(s, R2, nx_row_make(s, NULL, 0, &d3, 1, r1), &O);
    } else if (variant == 1) {
      nx_shape_add_row_ineq(s, R1, nx_row_make(s, NULL, 0, &d2, 1, r2), &O);
      nx_shape_add_row_ineq(s, R2, nx_row_make(s, NULL, 0, &d3, 1, r3), &O);
      nx_shape_add_row_ineq(s, R3, nx_row_make(s, NULL, 0, &d4, 1, r1), &O);
    } else if (variant == 2) {
      nx_shape_add_row_ineq(s, R1, nx_row_make(s, &d2, 1, NULL, 0, r2), &O);
      nx_shape_add_row_ineq(s, R2, nx_row_make(s, &d3, 1, NULL, 0, r1), &O);
    } else {
      nx_shape_add_row_ineq(s, R1, nx_row_make(s, NULL, 0, d23, 2, r2), &O);
      nx_shape_add_row_ineq(s, nx_row_make(s, NULL, 0, &d4, 1, r2), R1, &O);
    }
    int rc = nx_shape_solve(s, 1);
    CHECK(rc != 0 && has(nx_error_message(), msg), "case 5 variant %d: %s", variant, nx_error_message());
    nx_shape_session_free(s);
  }
}

/* 6: test_row_self_reference.ml */
static int self_ref(int variant) {
  nx_shape_session *s;
  nx_shape_session_new(&s);
  int v = nx_row_var_new(s, "v"), w = nx_row_var_new(s, "w");
  const nx_dim *d3 = dd(s, 3), *d5 = dd(s, 5), *d53[2] = {d5, d3}, *d35[2] = {d3, d5};
  switch (variant) {
  case 0: nx_shape_add_row_eq(s, nx_row_make(s, &d3, 1, NULL, 0, v), nx_row_make(s, NULL, 0, &d5, 1, v), &O); break;
  case 1: nx_shape_add_row_eq(s, nx_row_make(s, &d3, 1, NULL, 0, v), nx_row_make(s, NULL, 0, &d3, 1, v), &O); break;
  case 2: nx_shape_add_row_ineq(s, closed(s, &d3, 1, NULL, 0), closed(s, NULL, 0, &d5, 1), &O); break;
  case 3: nx_shape_add_row_eq(s, nx_row_make(s, &d5, 1, NULL, 0, v), nx_row_make(s, NULL, 0, d53, 2, w), &O); break;
  case 4:
    nx_shape_add_row_eq(s, nx_row_make(s, &d5, 1, NULL, 0, v), nx_row_make(s, NULL, 0, d53, 2, w), &O);
    nx_shape_add_row_eq(s, nx_row_make(s, NULL, 0, NULL, 0, w), closed(s, NULL, 0, NULL, 0), &O);
    break;
  case 5:
    nx_shape_add_row_eq(s, nx_row_make(s, NULL, 0, NULL, 0, w), closed(s, NULL, 0, NULL, 0), &O);
    nx_shape_add_row_eq(s, nx_row_make(s, &d5, 1, NULL, 0, v), nx_row_make(s, NULL, 0, d53, 2, w), &O);
    break;
  case 6:
    nx_shape_add_row_eq(s, nx_row_make(s, NULL, 0, &d5, 1, v), nx_row_make(s, d35, 2, NULL, 0, w), &O);
    nx_shape_add_row_eq(s, nx_row_make(s, NULL, 0, NULL, 0, w), closed(s, NULL, 0, NULL, 0), &O);
    break;
  case 7: nx_shape_add_row_eq(s, nx_row_make(s, NULL, 0, &d3, 1, v), nx_row_make(s, NULL, 0, &d5, 1, v), &O); break;
  case 8: nx_shape_add_row_ineq(s, nx_row_make(s, &d3, 1, NULL, 0, v), nx_row_make(s, NULL, 0, &d5, 1, v), &O); break;
  case 9: nx_shape_add_row_ineq(s, nx_row_make(s, &d3, 1, NULL, 0, v), nx_row_make(s, NULL, 0, &d3, 1, v), &O); break;
  }
  int rc = nx_shape_solve(s, 1);
  if (!rc) rc = nx_shape_solve(s, 7);
  nx_shape_session_free(s);
  return rc;
}

static void self_reference(void) {
  CHECK(self_ref(0) && has(nx_error_message(), "solved dimensions for axis: mismatch"), "case 6 [3]<v>=<v>[5]: %s",
        nx_error_message());
  CHECK(self_ref(1) == 0, "case 6 [3]<v>=<v>[3]: %s", nx_error_message());
  CHECK(self_ref(2) && has(nx_error_message(), "dimension comparison for axis: mismatch"), "case 6 closed: %s",
        nx_error_message());
  CHECK(self_ref(3) == 0, "case 6 cross alone: %s", nx_error_message());
  CHECK(self_ref(4) == 0, "case 6 cross then empty: %s", nx_error_message());
  CHECK(self_ref(5) == 0, "case 6 empty then cross: %s", nx_error_message());
  CHECK(self_ref(6) && has(nx_error_message(), "Number of axes mismatch"), "case 6 mirror: %s", nx_error_message());
  CHECK(self_ref(7) && has(nx_error_message(), "solved dimensions for axis: mismatch"), "case 6 aligned: %s",
        nx_error_message());
  CHECK(self_ref(8) && has(nx_error_message(), "dimension comparison for axis: mismatch"), "case 6 same-var ineq: %s",
        nx_error_message());
  CHECK(self_ref(9) == 0, "case 6 same-var ineq matching: %s", nx_error_message());
}

/* 7: row_beg_dims_regression.ml */
static void beg_dims_regression(void) {
  char buf[128];
  {
    NEW(s);
    int rho = nx_row_var_new(s, "rho");
    const nx_dim *b[2] = {dd(s, 5), dd(s, 2)}, *d4 = dd(s, 4), *d2 = dd(s, 2);
    nx_shape_add_row_ineq(s, closed(s, b, 2, &d4, 1), nx_row_make(s, &d2, 1, &d4, 1, rho), &O);
    CHECK(nx_shape_solve(s, 1) && has(nx_error_message(), "dimension comparison for axis: mismatch"), "case 7.1: %s",
          nx_error_message());
    nx_shape_session_free(s);
  }
  {
    NEW(s);
    int rho = nx_row_var_new(s, "rho");
    const nx_dim *d3 = dd(s, 3), *d4 = dd(s, 4);
    const nx_row *in = nx_row_make(s, &d3, 1, NULL, 0, rho);
    nx_shape_add_row_eq(s, nx_row_make(s, NULL, 0, NULL, 0, rho), closed(s, NULL, 0, &d4, 1), &O);
    CHECK(nx_shape_solve(s, 1) == 0, "case 7.2 solve");
    const nx_row *r = nx_shape_row_subst(s, in);
    nx_row_to_string(s, r, buf, sizeof buf);
    CHECK(nx_row_beg_count(r) == 1 && nx_row_dims_count(r) == 1 && !nx_row_var(r) && !strcmp(buf, "3,4"),
          "case 7.2: %s", buf);
    nx_shape_session_free(s);
  }
  {
    NEW(s);
    int rho = nx_row_var_new(s, "rho");
    const nx_dim *d7 = dd(s, 7);
    const nx_row *r = nx_row_make(s, &d7, 1, NULL, 0, rho);
    nx_shape_add_shape_row(s, r, &O);
    CHECK(nx_shape_solve(s, 7) == 0, "case 7.3 solve: %s", nx_error_message());
    const nx_row *x = nx_shape_row_subst(s, r);
    CHECK(nx_row_beg_count(x) == 1 && nx_row_dims_count(x) == 0 && !nx_row_var(x), "case 7.3");
    nx_shape_session_free(s);
  }
  for (int conflict = 0; conflict < 3; conflict++) {
    NEW(s);
    int rho = nx_row_var_new(s, "rho");
    const nx_row *rr = nx_row_make(s, NULL, 0, NULL, 0, rho);
    const nx_dim *b1[2] = {dd(s, 3), dd(s, 5)}, *d1[1] = {dd(s, 7)}, *b2[1] = {dd(s, conflict == 1 ? 5 : 3)},
                 *d2[2] = {dd(s, 8), dd(s, 7)}, *d2c[1] = {dd(s, 11)};
    if (conflict == 0) {
      nx_shape_add_row_ineq(s, closed(s, b1, 2, d1, 1), rr, &O);
      nx_shape_add_row_ineq(s, closed(s, b2, 1, d2, 2), rr, &O);
    } else if (conflict == 1) {
      nx_shape_add_row_ineq(s, closed(s, b1, 1, d1, 1), rr, &O);
      nx_shape_add_row_ineq(s, closed(s, b2, 1, d1, 1), rr, &O);
    } else {
      nx_shape_add_row_ineq(s, closed(s, b1, 1, d1, 1), rr, &O);
      nx_shape_add_row_ineq(s, closed(s, b1, 1, d2c, 1), rr, &O);
    }
    CHECK(nx_shape_solve(s, 1) == 0, "case 7.4 solve: %s", nx_error_message());
    nx_shape_add_shape_row(s, rr, &O);
    CHECK(nx_shape_solve(s, 6) == 0, "case 7.4 stage 6: %s", nx_error_message());
    const nx_row *x = nx_shape_row_subst(s, rr);
    nx_row_to_string(s, x, buf, sizeof buf);
    const char *want = conflict == 0 ? "3,7" : conflict == 1 ? "1,7" : "3,1";
    const char *basis = "";
    const nx_dim *probe = conflict == 1 ? nx_row_beg_dim(x, 0) : conflict == 2 ? nx_row_dim(x, 0) : NULL;
    if (probe) nx_shape_dim_value(s, probe, NULL, &basis);
    CHECK(!strcmp(buf, want) && nx_row_beg_count(x) == 1 && nx_row_dims_count(x) == 1 && !nx_row_var(x) &&
              (!probe || !strcmp(basis, NX_BASIS_BCAST)),
          "case 7.4.%d: %s", conflict, buf);
    nx_shape_session_free(s);
  }
  for (int bad = 0; bad < 2; bad++) {
    NEW(s);
    int rho = nx_row_var_new(s, "rho"), rho2 = nx_row_var_new(s, "rho2");
    const nx_dim *d4 = dd(s, 4), *d7 = dd(s, 7), *d5 = dd(s, 5);
    const nx_row *rr = nx_row_make(s, NULL, 0, NULL, 0, rho);
    nx_shape_add_row_ineq(s, closed(s, &d4, 1, &d7, 1), rr, &O);
    CHECK(nx_shape_solve(s, 1) == 0, "case 7.5 solve");
    nx_shape_add_row_eq(s, rr, nx_row_make(s, bad ? &d5 : &d4, 1, NULL, 0, rho2), &O);
    int rc = nx_shape_solve(s, 1);
    if (!rc && bad) {
      nx_shape_add_shape_row(s, rr, &O);
      rc = nx_shape_solve(s, 6);
    }
    CHECK(bad ? rc != 0 : rc == 0, "case 7.5 bad=%d: rc %d %s", bad, rc, nx_error_message());
    nx_shape_session_free(s);
  }
}

/* 8: test_beg_dims_alignment.ml */
static void beg_dims_alignment(void) {
  NEW(s);
  int rho = nx_row_var_new(s, "rho");
  const nx_dim *d3 = dd(s, 3), *d7 = dd(s, 7), *d4 = dd(s, 4);
  const nx_row *r = nx_row_make(s, &d3, 1, &d7, 1, rho);
  char buf[64];
  nx_row_to_string(s, r, buf, sizeof buf);
  CHECK(!strcmp(buf, "3,..rho..,7") && nx_row_beg_count(r) == 1 && nx_row_dims_count(r) == 1, "case 8: %s", buf);
  nx_shape_add_row_eq(s, nx_row_make(s, NULL, 0, NULL, 0, rho), closed(s, NULL, 0, &d4, 1), &O);
  CHECK(nx_shape_solve(s, 1) == 0, "case 8 solve");
  const nx_row *x = nx_shape_row_subst(s, r);
  nx_row_to_string(s, x, buf, sizeof buf);
  CHECK(!strcmp(buf, "3,4,7") && nx_row_beg_count(x) == 1 && nx_row_dims_count(x) == 2, "case 8 subst: %s", buf);
  nx_shape_session_free(s);
}

/* 9: einsum_trivia_exec.expected */
static const char *einsum1(const char *spec, const char *b, const char *i, const char *o, const char *b2,
                           const char *i2, const char *o2, int n) {
  static char out[600]; /* holds any shape_str (512) */
  nx_shape_session *s;
  nx_shape_session_new(&s);
  nx_tensor *x, *y = NULL, *r;
  snprintf(out, sizeof out, "<error>");
  int rc = nx_tensor_term(s, "x", b, i, o, &x);
  if (!rc && n == 2) rc = nx_tensor_term(s, "y", b2, i2, o2, &y);
  nx_tensor *args[2] = {x, y};
  if (!rc) rc = nx_tensor_einsum(s, spec, args, n, &r);
  if (!rc) rc = nx_shape_finish(s);
  if (!rc) snprintf(out, sizeof out, "%s", shape_str(s, r, NX_SHAPE_STYLE_AXIS_NUMBER_AND_SIZE));
  else snprintf(out, sizeof out, "<error: %s>", nx_error_message());
  nx_shape_session_free(s);
  return out;
}

static void einsum_trivia(void) {
  const char *r = einsum1("ab|cd->ef => cf|ae->db", "2,3", "4,5", "6,7", 0, 0, 0, 1);
  CHECK(!strcmp(r, "0:4,1:7|4:2,5:6->2:5,3:3"), "case 9.1: %s", r);
  r = einsum1("a|i->h; b|h->o => ab|i->o", "2", "3", "4", "2", "4", "5", 2);
  CHECK(!strcmp(r, "0:2,1:2|3:3->2:5"), "case 9.2: %s", r);
  r = einsum1("...|...->... => 0", "2", "3", "4", 0, 0, 0, 1);
  CHECK(!strcmp(r, "0:1"), "case 9.3: %s", r);
  r = einsum1("i; j => i->j", "", "", "2", "", "", "3", 2);
  CHECK(!strcmp(r, "1:2->0:3"), "case 9.4: %s", r);
  r = einsum1("i->...o => ...io", "", "2", "3,4", 0, 0, 0, 1);
  CHECK(!strcmp(r, "0:3,1:2,2:4"), "case 9.5: %s", r);
}

/* 10: test_einsum_capture.ml */
static void einsum_capture(void) {
  NEW(s);
  nx_tensor *x, *y, *r;
  nx_tensor_term(s, "x", "", "", "2,3", &x);
  nx_tensor_term(s, "y", "", "", "3,4", &y);
  nx_tensor *args[2] = {x, y};
  CHECK(nx_tensor_einsum(s, "ab;bc=>ac", args, 2, &r) == 0, "case 10: %s", nx_error_message());
  CHECK(nx_shape_finish(s) == 0, "case 10 finish: %s", nx_error_message());
  CHECK(val(s, nx_tensor_spec_dim(r, "a")) == 2 && val(s, nx_tensor_spec_dim(r, "b")) == 3 &&
            val(s, nx_tensor_spec_dim(r, "c")) == 4,
        "case 10 capture a b c");
  nx_shape_session_free(s);
  NEW(s2);
  nx_tensor_term(s2, "x", "", "", "2,3,4", &x);
  nx_tensor_term(s2, "y", "", "", "3,4,5", &y);
  nx_tensor *args2[2] = {x, y};
  r = NULL;
  CHECK(nx_tensor_einsum(s2, "a..r..;..r..b=>ab", args2, 2, &r) == 0, "case 10b: %s", nx_error_message());
  CHECK(nx_shape_finish(s2) == 0, "case 10b finish: %s", nx_error_message());
  const nx_row *rr = r ? nx_shape_row_subst(s2, nx_tensor_spec_row(r, "r")) : NULL;
  int64_t prod = 1;
  for (int i = 0; rr && i < nx_row_beg_count(rr); i++) prod *= val(s2, nx_row_beg_dim(rr, i));
  for (int i = 0; rr && i < nx_row_dims_count(rr); i++) prod *= val(s2, nx_row_dim(rr, i));
  CHECK(rr && prod == 12, "case 10b: product of r = %lld", (long long)prod);
  nx_shape_session_free(s2);
}

/* 11: test_param_shape_error.ml */
static void param_errors(void) {
  const char *forgot = "You forgot to specify the hidden dimension(s) 1";
  {
    NEW(s);
    nx_tensor *w, *c, *m;
    nx_tensor_param(s, "w", NULL, NULL, &w);
    nx_tensor_term(s, "c", "", "", "3", &c);
    nx_tensor_compose(s, w, c, &m);
    CHECK(nx_shape_finish(s) != 0 && has(nx_error_message(), forgot), "case 11 {w}*[3;4;5]: %s", nx_error_message());
    nx_shape_session_free(s);
  }
  {
    NEW(s);
    nx_tensor *x, *y, *r;
    nx_tensor_param(s, "x", NULL, NULL, &x);
    nx_tensor_param(s, "y", NULL, NULL, &y);
    nx_tensor_binary(s, "+", x, y, &r);
    CHECK(nx_shape_finish(s) != 0 && has(nx_error_message(), forgot), "case 11 {x}+{y}: %s", nx_error_message());
    nx_shape_session_free(s);
  }
  {
    NEW(s);
    nx_tensor *w, *c, *m, *b, *y;
    nx_tensor_term(s, "b", "", "", "2", &b);
    nx_tensor_param(s, "w", NULL, NULL, &w);
    nx_tensor_term(s, "c", "", "", "3", &c);
    nx_tensor_compose(s, w, c, &m);
    nx_tensor_binary(s, "+", b, m, &y);
    CHECK(nx_shape_finish(s) == 0, "case 11 [1;2]+({w}*[3;4;5]): %s", nx_error_message());
    const char *str = shape_str(s, w, NX_SHAPE_STYLE_AXIS_NUMBER_AND_SIZE);
    CHECK(!strcmp(str, "1:3->0:2"), "case 11 w: %s", str);
    nx_shape_session_free(s);
  }
}

/* 12: hello_world_dim1x1.ml */
static void hello_world(void) {
  NEW(s);
  nx_tensor *hey, *q, *p, *m, *y;
  nx_tensor_param(s, "hey", NULL, NULL, &hey);
  nx_tensor_term(s, "q", "", "", "q=1", &q);
  nx_tensor_term(s, "p", "", "", "p=1", &p);
  nx_tensor_compose(s, hey, q, &m);
  nx_tensor_binary(s, "+", m, p, &y);
  CHECK(nx_shape_finish(s) == 0, "case 12: %s", nx_error_message());
  const char *str = shape_str(s, hey, NX_SHAPE_STYLE_AXIS_NUMBER_AND_SIZE);
  CHECK(!strcmp(str, "1:q=1->0:p=1"), "case 12: %s", str);
  nx_shape_session_free(s);
}

/* 13: test_dimension_labels.ml */
static const char *labels(const char *a, const char *b, char *bases, size_t cap) {
  static char msg[512];
  nx_shape_session *s;
  nx_shape_session_new(&s);
  nx_tensor *x, *y, *r;
  nx_tensor_term(s, "t1", "", "", a, &x);
  nx_tensor_term(s, "t2", "", "", b, &y);
  int rc = nx_tensor_binary(s, "+", x, y, &r);
  if (!rc) rc = nx_shape_finish(s);
  snprintf(msg, sizeof msg, "%s", rc ? nx_error_message() : "");
  if (!rc) nx_tensor_to_string(s, r, NX_SHAPE_STYLE_ONLY_BASES, bases, cap);
  nx_shape_session_free(s);
  return msg;
}

static void dimension_labels(void) {
  char bases[64] = "";
  const char *m = labels("batch=4", "batch=4", bases, sizeof bases);
  CHECK(!*m && !strcmp(bases, "batch"), "case 13 same: %s %s", m, bases);
  const char *diff = "solved dimensions for axis: different bases";
  m = labels("batch=4", "features=4", bases, sizeof bases);
  CHECK(has(m, diff), "case 13 batch+features: %s", m);
  m = labels("batch=4", "4", bases, sizeof bases);
  CHECK(has(m, diff), "case 13 batch+default: %s", m);
  m = labels("1", "rgb=5", bases, sizeof bases);
  CHECK(has(m, diff), "case 13 1_default+5_rgb: %s", m);
}

/* 14: test_einsum3.ml, Test 7 */
static void einsum3(void) {
  NEW(s);
  nx_tensor *a, *b, *c, *r;
  nx_tensor_term(s, "a", "", "", "2,3", &a);
  nx_tensor_term(s, "b", "", "", "3,4", &b);
  nx_tensor_term(s, "c", "", "", "4,5", &c);
  nx_tensor *args[3] = {a, b, c};
  int rc = nx_tensor_einsum(s, "ij;jk=>im", args, 3, &r);
  CHECK(rc != 0 && has(nx_error_message(), "Invalid einsum spec (expected three arguments): ij;jk=>im"), "case 14: %s",
        nx_error_message());
  /* The session is not tainted by a spec error. */
  CHECK(nx_tensor_einsum(s, "ij;jk;kl=>il", args, 3, &r) == 0 && nx_shape_finish(s) == 0, "case 14 ok: %s",
        nx_error_message());
  CHECK(!strcmp(shape_str(s, r, NX_SHAPE_STYLE_SIZE), "2,5"), "case 14 result %s", shape_str(s, r, NX_SHAPE_STYLE_SIZE));
  nx_shape_session_free(s);
}

/* 15: test_inference_counterexamples.ml */
static void counterexamples(void) {
  NEW(s);
  nx_tensor *x, *p, *r;
  nx_tensor_term(s, "x", "", "", "3,5,3", &x);
  CHECK(nx_tensor_einsum(s, "a,b,..r.. => ..r..,b,a", &x, 1, &p) == 0, "case 15 permute: %s", nx_error_message());
  CHECK(nx_tensor_binary(s, "+", x, p, &r) == 0 && nx_shape_finish(s) == 0, "case 15 x + permuted: %s",
        nx_error_message());
  CHECK(!strcmp(shape_str(s, r, NX_SHAPE_STYLE_SIZE), "3,5,3"), "case 15: %s", shape_str(s, r, NX_SHAPE_STYLE_SIZE));
  nx_shape_session_free(s);
  /* With an abstract parameter and set_dim a 3; set_dim b 5, OCANNL's
     solver fails (its known incompleteness). nx's closing finds a solution
     here; the check pins that it is a consistent one (x's output reads the
     same permuted), or a shape error, and never a crash. */
  NEW(s2);
  nx_tensor_param(s2, "x", "", NULL, &x);
  int rc = nx_tensor_einsum(s2, "a,b,..r.. => ..r..,b,a", &x, 1, &p);
  if (!rc) rc = nx_tensor_binary(s2, "+", x, p, &r);
  if (!rc) rc = nx_tensor_set_dim(s2, nx_tensor_spec_dim(p, "a"), 3);
  if (!rc) rc = nx_tensor_set_dim(s2, nx_tensor_spec_dim(p, "b"), 5);
  if (!rc) rc = nx_shape_finish(s2);
  char xs[600];
  snprintf(xs, sizeof xs, "%s", rc ? nx_error_message() : shape_str(s2, x, NX_SHAPE_STYLE_SIZE));
  /* x's axes a,b sit in its leading flank and the permute's b,a in the
     trailing one, so the sum broadcasts them apart: x = 3,5, x+p = 3,5,5,3. */
  CHECK(rc ? *nx_error_message() != 0
           : !strcmp(xs, "3,5") && !strcmp(shape_str(s2, r, NX_SHAPE_STYLE_SIZE), "3,5,5,3"),
        "case 15 abstract: %s", xs);
  printf("case 15 abstract: %s: %s\n", rc ? "shape error" : "solved, x =", xs);
  nx_shape_session_free(s2);
}

/* 16: test_print_style.ml test_print_styles (dims in a row, as
   nx_row_to_string prints them: Axis_size) */
static void print_style(void) {
  NEW(s);
  const nx_dim *full = nx_dim_solved(s, 28, "height"), *minimal = dd(s, 64), *top = nx_dim_top(s);
  const nx_dim *named = nx_dim_var(s, "channels"), *unnamed = nx_dim_var(s, NULL);
  const nx_dim *all[5] = {full, minimal, top, named, unnamed};
  char got[128], want[128];
  CHECK(nx_row_to_string(s, closed(s, NULL, 0, all, 5), got, sizeof got) > 0, "case 16: %s", nx_error_message());
  snprintf(want, sizeof want, "height=28,64,1,$%d:channels,$%d", nx_dim_var_id(named), nx_dim_var_id(unnamed));
  CHECK(!strcmp(got, want), "case 16: %s, expected %s", got, want);
  nx_shape_session_free(s);
}

int main(void) {
  closing_order();
  basis_order();
  rank_cycles();
  self_reference();
  beg_dims_regression();
  beg_dims_alignment();
  einsum_trivia();
  einsum_capture();
  param_errors();
  hello_world();
  dimension_labels();
  einsum3();
  counterexamples();
  print_style();
  return check_done();
}
