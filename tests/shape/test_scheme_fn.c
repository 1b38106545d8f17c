/* SPDX-License-Identifier: Apache-2.0 */
/* Automatic schemes of tensor functions (nx_scheme.h): presence patterns and
   their labels, status strings, events, the op_shape_schemes setting, the
   unschemed log, re-tracing when stale, the registration statistics, and
   check_definition (labels innermost first, the session unchanged). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "nx_scheme.h"

static nx_shape_session *S;

/* ---- events and the log, recorded ---- */

static char events[4096];
static void on_event(void *ctx, enum nx_scheme_event_kind kind, const char *label, const char *reason) {
  (void)ctx;
  size_t n = strlen(events);
  snprintf(events + n, sizeof events - n, "%s(%s%s%s) ", kind == NX_SCHEME_TRACED ? "Traced" : kind == NX_SCHEME_UNSCHEMED ? "Unschemed" : "Checked",
           label, reason ? ", " : "", reason ? reason : "");
}

static char logged[2048];
static void on_log(void *ctx, const char *line) {
  (void)ctx;
  size_t n = strlen(logged);
  snprintf(logged + n, sizeof logged - n, "%s|", line);
}

static const char *status(const nx_scheme_handle *h) {
  static char buf[1024];
  return nx_scheme_status(h, buf, sizeof buf) < 0 ? "<error>" : buf;
}

/* ---- bodies ---- */

typedef struct {
  int runs;
  nx_tensor *w;
} body_ctx;

/* relu(w * x) (+ p) (+ q): the options add a bias each */
static int block(void *ctx, nx_shape_session *s, nx_tensor *const *a, nx_tensor *const *o, nx_tensor **r, int *nr) {
  body_ctx *c = ctx;
  c->runs++;
  nx_tensor *h;
  *nr = 1;
  int rc = nx_tensor_compose(s, c->w, a[0], &h);
  for (int i = 0; i < 2 && !rc; i++)
    if (o[i]) rc = nx_tensor_binary(s, "+", h, o[i], &h);
  return rc ? rc : nx_tensor_unary(s, "relu", h, &r[0]);
}

static int forcing(void *ctx, nx_shape_session *s, nx_tensor *const *a, nx_tensor *const *o, nx_tensor **r, int *nr) {
  body_ctx *c = ctx;
  (void)o;
  c->runs++;
  *nr = 1;
  int rc = nx_tensor_unary(s, "relu", a[0], &r[0]);
  return rc ? rc : nx_shape_finish(s); /* forces dims: cannot be carried */
}

static const char *const X[1] = {"x"}, *const PQ[2] = {"p", "q"};

static nx_scheme_function fn(const char *name, int nopt, bool unit, nx_scheme_body body, body_ctx *c) {
  return (nx_scheme_function){name, 1, X, nopt, PQ, unit, body, c};
}

static nx_tensor *term(const char *label, const char *b, const char *i, const char *o) {
  nx_tensor *t = NULL;
  CHECK(nx_tensor_term(S, label, b, i, o, &t) == 0, "term %s: %s", label, nx_error_message());
  return t;
}

static void test_patterns(void) {
  nx_shape_session_new(&S);
  events[0] = 0;
  body_ctx c = {0};
  CHECK(nx_tensor_param(S, "w", NULL, "4", &c.w) == 0, "w");
  nx_scheme_function f = fn("block", 2, true, block, &c);
  nx_scheme_handle *h = NULL;
  CHECK(nx_scheme_function_new(S, &f, &h) == 0 && h, "closure: %s", nx_error_message());
  CHECK(!strcmp(status(h), "block [no p, no q]: schemed; block [p, no q]: schemed; block [no p, q]: schemed; "
                           "block [p, q]: schemed"),
        "status: %s", status(h));
  CHECK(!strcmp(events, "Traced(block [no p, no q]) Traced(block [p, no q]) Traced(block [no p, q]) Traced(block [p, q]) "),
        "events: %s", events);
  CHECK(c.runs == 4, "the unit stage traced each pattern once: %d runs", c.runs);
  char buf[512];
  nx_scheme_to_string(nx_scheme_handle_scheme(h, 1), buf, sizeof buf);
  CHECK(!strncmp(buf, "block [p, no q] : ..'a..|..'b..->..'c.., ..'d..|..'e..->..'f.. => ", 66), "pattern 1: %s", buf);
  CHECK(nx_scheme_handle_scheme(h, 4) == NULL, "no pattern 4");
  nx_scheme_handle_free(h);

  /* without a unit stage: pending until the first application, which traces every pattern */
  c.runs = 0;
  events[0] = 0;
  f = fn("lazy", 1, false, block, &c);
  CHECK(nx_scheme_function_new(S, &f, &h) == 0, "lazy closure");
  CHECK(!strcmp(status(h), "lazy [no p]: pending; lazy [p]: pending"), "pending: %s", status(h));
  CHECK(c.runs == 0 && !events[0], "nothing traced yet");
  nx_tensor *x = term("x", "2", "", "3"), *b = term("b", "", "", "4"), *opts[2] = {b, NULL}, *r[NX_SCHEME_MAX_RESULTS];
  int nr = 0;
  CHECK(nx_scheme_set_op_shape_schemes(NX_OP_SHAPE_SCHEMES_CHECK) == 0, "mode");
  CHECK(nx_scheme_apply(h, NULL, &x, opts, r, &nr) == 0 && nr == 1, "apply: %s", nx_error_message());
  CHECK(!strcmp(status(h), "lazy [no p]: schemed; lazy [p]: schemed"), "schemed: %s", status(h));
  CHECK(!strcmp(events, "Traced(lazy [no p]) Traced(lazy [p]) Checked(lazy [p]) "), "events: %s", events);
  CHECK(c.runs == 3, "two traces and the body once: %d", c.runs);
  CHECK(nx_shape_finish(S) == 0 && !strcmp(shape_str(S, r[0], NX_SHAPE_STYLE_SIZE), "2|4"), "result: %s",
        shape_str(S, r[0], NX_SHAPE_STYLE_SIZE));
  nx_scheme_handle_free(h);

  /* no option parameters: one status */
  f = fn("plain", 0, false, block, &c);
  CHECK(nx_scheme_function_new(S, &f, &h) == 0 && !strcmp(status(h), "pending"), "plain pending: %s", status(h));
  nx_scheme_handle_free(h);
  f = fn("plain", 0, true, block, &c);
  CHECK(nx_scheme_function_new(S, &f, &h) == 0 && !strcmp(status(h), "schemed"), "plain schemed: %s", status(h));
  nx_scheme_handle_free(h);
  nx_shape_session_free(S);
}

static void test_unschemed(void) {
  nx_shape_session_new(&S);
  events[0] = logged[0] = 0;
  nx_scheme_set_log(on_log, NULL);
  body_ctx c = {0};
  nx_scheme_function f = fn("forcer", 1, true, forcing, &c);
  nx_scheme_handle *h1 = NULL, *h2 = NULL;
  CHECK(nx_scheme_function_new(S, &f, &h1) == 0 && nx_scheme_function_new(S, &f, &h2) == 0, "closures: %s",
        nx_error_message());
  CHECK(!strcmp(status(h1), "forcer [no p]: unschemed: forcing dims; forcer [p]: unschemed: forcing dims"), "status: %s",
        status(h1));
  CHECK(!strcmp(logged, "shape scheme forcer [no p]: left unschemed: forcing dims|"), "said once per function and reason: %s",
        logged);
  CHECK(!strcmp(events, "Unschemed(forcer [no p], forcing dims) Unschemed(forcer [p], forcing dims) "
                        "Unschemed(forcer [no p], forcing dims) Unschemed(forcer [p], forcing dims) "),
        "events: %s", events);
  /* an unschemed pattern runs the body, as the function did before */
  nx_tensor *x = term("x", "", "", "3"), *r[NX_SCHEME_MAX_RESULTS], *none[1] = {NULL};
  int nr = 0, runs = c.runs;
  CHECK(nx_scheme_apply(h1, NULL, &x, none, r, &nr) == 0 && c.runs == runs + 1, "body ran: %s", nx_error_message());
  nx_scheme_handle_free(h1);
  nx_scheme_handle_free(h2);
  nx_scheme_set_log(NULL, NULL);
  nx_shape_session_free(S);
}

static void test_modes(void) {
  nx_shape_session_new(&S);
  body_ctx c = {0};
  CHECK(nx_tensor_param(S, "w", NULL, "4", &c.w) == 0, "w");
  nx_scheme_function f = fn("blk", 0, true, block, &c);
  nx_scheme_handle *h = NULL;
  CHECK(nx_scheme_function_new(S, &f, &h) == 0, "closure: %s", nx_error_message());
  nx_tensor *x3 = term("x3", "5", "", "3"), *x6 = term("x6", "", "", "6"), *r[NX_SCHEME_MAX_RESULTS] = {0}, *r2[NX_SCHEME_MAX_RESULTS] = {0};
  int nr = 0;
  /* on: the scheme is instantiated and the body does not run */
  CHECK(nx_scheme_session_op_shape_schemes(S, NX_OP_SHAPE_SCHEMES_ON) == 0 &&
            nx_scheme_op_shape_schemes(S) == NX_OP_SHAPE_SCHEMES_ON,
        "session setting");
  int runs = c.runs;
  CHECK(nx_scheme_apply(h, NULL, &x3, NULL, r, &nr) == 0 && nr == 1 && c.runs == runs, "on: %s", nx_error_message());
  /* check: an argument-dependent error before the body runs */
  nx_scheme_session_op_shape_schemes(S, NX_OP_SHAPE_SCHEMES_CHECK);
  int rc = nx_scheme_apply(h, NULL, &x6, NULL, r2, &nr);
  CHECK(rc == NX_EINVAL && c.runs == runs && !strncmp(nx_error_message(), "applying the shape scheme blk to x6: ", 37),
        "check fails before the body: %s", nx_error_message());
  nx_scheme_session_op_shape_schemes(S, -1);
  CHECK(nx_scheme_op_shape_schemes(S) == nx_scheme_op_shape_schemes(NULL), "override dropped");
  CHECK(nx_scheme_set_op_shape_schemes(7) == NX_EINVAL && nx_scheme_session_op_shape_schemes(S, 9) == NX_EINVAL,
        "bad modes");
  /* an override goes with its session: a snapshot's restore keeps it, and
     any number of sessions may override, each freed with its own */
  nx_shape_snapshot *snap = NULL;
  CHECK(nx_shape_snapshot_take(S, &snap) == 0, "snapshot: %s", nx_error_message());
  nx_scheme_session_op_shape_schemes(S, NX_OP_SHAPE_SCHEMES_OFF);
  CHECK(snap && nx_shape_snapshot_restore(S, snap) == 0 && nx_scheme_op_shape_schemes(S) == NX_OP_SHAPE_SCHEMES_OFF,
        "a restore keeps the override");
  nx_shape_snapshot_free(snap);
  nx_scheme_session_op_shape_schemes(S, -1);
  int refused = 0, inherited = 0, process = nx_scheme_op_shape_schemes(NULL);
  int other = process == NX_OP_SHAPE_SCHEMES_ON ? NX_OP_SHAPE_SCHEMES_OFF : NX_OP_SHAPE_SCHEMES_ON;
  for (int i = 0; i < 200; i++) {
    nx_shape_session *t = NULL;
    if (nx_shape_session_new(&t)) break;
    inherited += nx_scheme_op_shape_schemes(t) != process; /* a fresh session, often at a freed one's address */
    refused += nx_scheme_session_op_shape_schemes(t, other) != 0;
    nx_shape_session_free(t);
  }
  CHECK(refused == 0 && inherited == 0, "200 overriding sessions: %d refused, %d fresh ones not at the process setting",
        refused, inherited);
  nx_scheme_handle_free(h);
  nx_shape_session_free(S);

  /* off: the body runs, nothing is traced */
  nx_shape_session_new(&S);
  CHECK(nx_tensor_param(S, "w", NULL, "4", &c.w) == 0, "w");
  nx_scheme_session_op_shape_schemes(S, NX_OP_SHAPE_SCHEMES_OFF);
  events[0] = 0;
  CHECK(nx_scheme_function_new(S, &f, &h) == 0 && !strcmp(status(h), "pending"), "off: %s", status(h));
  x3 = term("x3", "5", "", "3");
  runs = c.runs;
  CHECK(nx_scheme_apply(h, NULL, &x3, NULL, r, &nr) == 0 && c.runs == runs + 1 && !events[0], "off runs the body");
  CHECK(nx_shape_finish(S) == 0 && !strcmp(shape_str(S, r[0], NX_SHAPE_STYLE_SIZE), "5|4"), "off result %s",
        shape_str(S, r[0], NX_SHAPE_STYLE_SIZE));
  nx_scheme_session_op_shape_schemes(S, -1);
  nx_scheme_handle_free(h);
  nx_shape_session_free(S);
}

/* ---- a stale pattern re-traces ---- */

static const nx_dim *free_dim;
static int bind_free(void *ctx, nx_shape_session *s, nx_tensor *const *a, nx_tensor *const *o, nx_tensor **r, int *nr) {
  (void)ctx, (void)o;
  *nr = 1;
  int rc = nx_tensor_einsum(s, "...|...->...c => ...|...->...c", a, 1, &r[0]);
  return rc ? rc : nx_shape_add_dim_eq(s, nx_tensor_spec_dim(r[0], "c"), free_dim, &O);
}

/* A closure traced before a closing, applied after it: the argument made
   before the closing, then after it (its construction solves at stage 1
   again): stale all the same, so re-traced. */
static void test_stale(void) {
  for (int after = 0; after < 2; after++) {
    nx_shape_session_new(&S);
    events[0] = 0;
    free_dim = nx_dim_var(S, "free");
    nx_scheme_function f = {"binder", 1, X, 0, NULL, true, bind_free, NULL};
    nx_scheme_handle *h = NULL;
    CHECK(nx_scheme_function_new(S, &f, &h) == 0, "closure: %s", nx_error_message());
    nx_tensor *x = after ? NULL : term("x", "", "", "3"), *r[NX_SCHEME_MAX_RESULTS];
    int nr = 0;
    CHECK(nx_shape_finish(S) == 0, "finish");
    if (after) x = term("x", "", "", "3");
    nx_scheme_session_op_shape_schemes(S, NX_OP_SHAPE_SCHEMES_ON);
    CHECK(nx_scheme_apply(h, NULL, &x, NULL, r, &nr) == 0, "apply after closing: %s", nx_error_message());
    CHECK(!strcmp(events, "Traced(binder) Traced(binder) Checked(binder) "), "re-traced when stale (argument made %s the closing): %s",
          after ? "after" : "before", events);
    CHECK(val(S, free_dim) == 3, "bound: %lld", (long long)val(S, free_dim));
    nx_scheme_session_op_shape_schemes(S, -1);
    nx_scheme_handle_free(h);
    nx_shape_session_free(S);
  }
}

/* bind_free, failing with an argument-independent shape error once
   fail_now is set */
static int fail_now;
static int bind_or_fail(void *ctx, nx_shape_session *s, nx_tensor *const *a, nx_tensor *const *o, nx_tensor **r,
                        int *nr) {
  if (fail_now) {
    nx_tensor *c2, *c3;
    int rc = nx_tensor_term(s, "c2", "", "", "2", &c2);
    if (!rc) rc = nx_tensor_term(s, "c3", "", "", "3", &c3);
    if (!rc) rc = nx_tensor_set_equal(s, c2, c3);
    if (rc) return rc;
  }
  return bind_free(ctx, s, a, o, r, nr);
}

/* A stale pattern whose re-trace fails: the application fails with the
   trace's error, and the pattern is pending again, failing the same way at
   the next application (before: left "schemed" with no scheme, and the
   next application crashed). */
static void test_stale_failing(void) {
  nx_shape_session_new(&S);
  free_dim = nx_dim_var(S, "free");
  fail_now = 0;
  nx_scheme_function f = {"binder", 1, X, 0, NULL, true, bind_or_fail, NULL};
  nx_scheme_handle *h = NULL;
  CHECK(nx_scheme_function_new(S, &f, &h) == 0, "closure: %s", nx_error_message());
  CHECK(nx_shape_finish(S) == 0, "finish");
  nx_tensor *x = term("x", "", "", "3"), *r[NX_SCHEME_MAX_RESULTS];
  int nr = 0;
  nx_scheme_session_op_shape_schemes(S, NX_OP_SHAPE_SCHEMES_ON);
  fail_now = 1;
  for (int k = 0; k < 2 && h; k++) {
    int rc = nx_scheme_apply(h, NULL, &x, NULL, r, &nr);
    CHECK(rc == NX_EINVAL && has(nx_error_message(), "tracing the shape scheme binder: "), "application %d: %d %s", k,
          rc, nx_error_message());
    CHECK(!strcmp(status(h), "pending") && !nx_scheme_handle_scheme(h, 0), "after application %d: %s", k, status(h));
  }
  nx_scheme_session_op_shape_schemes(S, -1);
  nx_scheme_handle_free(h);
  nx_shape_session_free(S);
  fail_now = 0;
}

/* With p present, an argument-independent error; without, none. */
static int fails_with(void *ctx, nx_shape_session *s, nx_tensor *const *a, nx_tensor *const *o, nx_tensor **r,
                      int *nr) {
  const int *with_p = ctx;
  *nr = 1;
  if ((o[0] != NULL) == *with_p) {
    nx_tensor *c2, *c3;
    int rc = nx_tensor_term(s, "c2", "", "", "2", &c2);
    if (!rc) rc = nx_tensor_term(s, "c3", "", "", "3", &c3);
    if (!rc) rc = nx_tensor_set_equal(s, c2, c3);
    if (rc) return rc;
  }
  return nx_tensor_unary(s, "relu", a[0], &r[0]);
}

/* Patterns traced at a first application are refused each on its own: an
   error of another pattern's trace does not fail this one (before: the
   first error of any pattern failed it, and a pattern after the failing
   one was never traced); it fails that pattern's own application. */
static void test_patterns_apart(void) {
  for (int bad_p = 0; bad_p < 2; bad_p++) {
    nx_shape_session_new(&S);
    int with_p = bad_p;
    nx_scheme_function f = {"f", 1, X, 1, PQ, false, fails_with, &with_p};
    nx_scheme_handle *h = NULL;
    CHECK(nx_scheme_function_new(S, &f, &h) == 0, "f: %s", nx_error_message());
    nx_tensor *x = term("x", "", "", "4"), *p = term("p", "", "", "4"), *r[NX_SCHEME_MAX_RESULTS];
    nx_tensor *good[1] = {bad_p ? NULL : p}, *bad[1] = {bad_p ? p : NULL};
    int nr = 0;
    nx_scheme_session_op_shape_schemes(S, NX_OP_SHAPE_SCHEMES_ON);
    for (int k = 0; k < 2; k++)
      CHECK(nx_scheme_apply(h, NULL, &x, good, r, &nr) == 0, "error in %s, applying %s (%d): %s",
            bad_p ? "[p]" : "[no p]", bad_p ? "[no p]" : "[p]", k, nx_error_message());
    const char *want = bad_p ? "tracing the shape scheme f [p]: " : "tracing the shape scheme f [no p]: ";
    CHECK(nx_scheme_apply(h, NULL, &x, bad, r, &nr) == NX_EINVAL && has(nx_error_message(), want),
          "the failing pattern's own application: %s", nx_error_message());
    nx_scheme_session_op_shape_schemes(S, -1);
    nx_scheme_handle_free(h);
    nx_shape_session_free(S);
  }
}

/* In CHECK mode, an application to a tainted session leaves the taint as
   it was: its first error (before: each application wrapped the taint in
   its own refusal, and the first error was cut off). */
static int relu_body(void *ctx, nx_shape_session *s, nx_tensor *const *a, nx_tensor *const *o, nx_tensor **r, int *nr) {
  (void)ctx, (void)o;
  *nr = 1;
  return nx_tensor_unary(s, "relu", a[0], &r[0]);
}

static void test_check_tainted(void) {
  nx_shape_session_new(&S);
  nx_scheme_function f = {"f", 1, X, 0, NULL, true, relu_body, NULL};
  nx_scheme_handle *h = NULL;
  CHECK(nx_scheme_function_new(S, &f, &h) == 0, "f: %s", nx_error_message());
  nx_tensor *a = term("a", "", "", "4"), *b = term("b", "", "", "5"), *c, *r[NX_SCHEME_MAX_RESULTS];
  CHECK(nx_tensor_binary(S, "+", a, b, &c) == NX_EINVAL, "a mismatch taints");
  char first[1100];
  snprintf(first, sizeof first, "%s", nx_error_message());
  nx_scheme_session_op_shape_schemes(S, NX_OP_SHAPE_SCHEMES_CHECK);
  int nr = 0;
  for (int k = 0; k < 8; k++) (void)nx_scheme_apply(h, NULL, &a, NULL, r, &nr);
  CHECK(nx_tensor_unary(S, "relu", a, &c) == NX_EINVAL && !has(nx_error_message(), "applying the shape scheme") &&
            has(nx_error_message(), "tainted"),
        "after eight applications: %s (the first: %s)", nx_error_message(), first);
  nx_scheme_session_op_shape_schemes(S, -1);
  nx_scheme_handle_free(h);
  nx_shape_session_free(S);
}

/* A callback's positive status is a failure told as NX_EINVAL (statuses
   are 0 or negative), not passed on as a positive return. */
static int positive_fn(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)ctx, (void)s, (void)a, (void)n, (void)r, (void)nr;
  return 5;
}
static int positive_block(void *ctx, nx_shape_session *s) {
  (void)ctx, (void)s;
  return 3;
}
static int positive_body(void *ctx, nx_shape_session *s, nx_tensor *const *a, nx_tensor *const *o, nx_tensor **r,
                         int *nr) {
  (void)ctx, (void)s, (void)a, (void)o, (void)r, (void)nr;
  return 7;
}

static void test_positive_status(void) {
  nx_shape_session_new(&S);
  nx_scheme *sc = NULL;
  int rc = nx_scheme_trace(S, "pos", 1, positive_fn, NULL, &sc);
  CHECK(rc == NX_EINVAL && !sc && has(nx_error_message(), "tracing the shape scheme pos: ") &&
            has(nx_error_message(), "status 5"),
        "trace of a function returning 5: %d %s", rc, nx_error_message());
  char *labels[4];
  int n = -1;
  rc = nx_scheme_check_definition(S, "def", positive_block, NULL, labels, 4, &n);
  CHECK(rc == NX_EINVAL && has(nx_error_message(), "checking the definition def: "), "a block returning 3: %d %s", rc,
        nx_error_message());
  nx_scheme_function f = {"g", 1, X, 0, NULL, false, positive_body, NULL};
  nx_scheme_handle *h = NULL;
  CHECK(nx_scheme_function_new(S, &f, &h) == 0, "g: %s", nx_error_message());
  nx_tensor *x = term("x", "", "", "4"), *r[NX_SCHEME_MAX_RESULTS];
  int nr = 0;
  nx_scheme_session_op_shape_schemes(S, NX_OP_SHAPE_SCHEMES_OFF);
  rc = nx_scheme_apply(h, NULL, &x, NULL, r, &nr);
  CHECK(rc == NX_EINVAL && has(nx_error_message(), "status 7"), "a body returning 7, run: %d %s", rc,
        nx_error_message());
  nx_scheme_session_op_shape_schemes(S, -1);
  nx_scheme_handle_free(h);
  nx_shape_session_free(S);
}

/* ---- a reference made before both, bound by an inner function's body ---- */

static int bind_ref_body(void *ctx, nx_shape_session *s, nx_tensor *const *a, nx_tensor *const *o, nx_tensor **r,
                         int *nr) {
  nx_shape_ref *ref = ctx;
  (void)o;
  *nr = 1;
  nx_einsum_options opt = {.nrefs = 1, .refs = &ref};
  return nx_tensor_einsum_ex(s, "...|...->c => ...|...->c", &opt, a, 1, &r[0]);
}

/* applies, inside its own body, a function without a unit stage that binds ctx */
static int outer_of_ref(void *ctx, nx_shape_session *s, nx_tensor *const *a, nx_tensor *const *o, nx_tensor **r,
                        int *nr) {
  (void)o;
  nx_scheme_function inner = {"binds", 1, X, 0, NULL, false, bind_ref_body, ctx};
  nx_scheme_handle *h = NULL;
  int rc = nx_scheme_function_new(s, &inner, &h);
  if (!rc) rc = nx_scheme_apply(h, NULL, a, NULL, r, nr);
  nx_scheme_handle_free(h);
  return rc;
}

static void test_nested_ref(void) {
  static const int modes[] = {NX_OP_SHAPE_SCHEMES_CHECK, NX_OP_SHAPE_SCHEMES_ON, NX_OP_SHAPE_SCHEMES_OFF};
  for (int m = 0; m < 3; m++) {
    nx_shape_session_new(&S);
    nx_scheme_session_op_shape_schemes(S, modes[m]);
    nx_shape_ref *ref = nx_shape_ref_new(S, "c");
    nx_scheme_function f = {"outer", 1, X, 0, NULL, true, outer_of_ref, ref};
    nx_scheme_handle *h = NULL;
    CHECK(nx_scheme_function_new(S, &f, &h) == 0, "mode %d: closure: %s", modes[m], nx_error_message());
    nx_tensor *x = term("x", "", "", "7"), *r[NX_SCHEME_MAX_RESULTS];
    int nr = 0;
    int64_t v = 0;
    CHECK(nx_scheme_apply(h, NULL, &x, NULL, r, &nr) == 0 && nx_shape_finish(S) == 0, "mode %d: apply: %s", modes[m],
          nx_error_message());
    CHECK(nx_shape_ref_value(S, ref, &v) == 0 && v == 7, "mode %d: the reference bound to 7: %lld", modes[m], (long long)v);
    nx_scheme_handle_free(h);
    nx_shape_session_free(S);
  }
}

/* ---- errors at the trace ---- */

static int bad_shared(void *ctx, nx_shape_session *s, nx_tensor *const *a, nx_tensor *const *o, nx_tensor **r, int *nr) {
  nx_tensor **p = ctx;
  (void)a;
  *nr = 1;
  return o[0] ? nx_tensor_binary(s, "+", p[0], p[1], &r[0]) : nx_tensor_unary(s, "relu", a[0], &r[0]);
}

/* builds, at its unit stage, the function above, whose unit stage fails */
static int outer_of_bad(void *ctx, nx_shape_session *s, nx_tensor *const *a, nx_tensor *const *o, nx_tensor **r, int *nr) {
  (void)o;
  nx_scheme_function inner = {"bad", 1, X, 1, PQ, true, bad_shared, ctx};
  nx_scheme_handle *h = NULL;
  int rc = nx_scheme_function_new(s, &inner, &h);
  nx_scheme_handle_free(h);
  *nr = 1;
  return rc ? rc : nx_tensor_unary(s, "relu", a[0], &r[0]);
}

static int define_outer_of_bad(void *ctx, nx_shape_session *s) {
  nx_scheme_function outer = {"outer", 1, X, 0, NULL, true, outer_of_bad, ctx};
  nx_scheme_handle *h = NULL;
  int rc = nx_scheme_function_new(s, &outer, &h);
  nx_scheme_handle_free(h);
  return rc;
}

static void test_trace_error(void) {
  nx_shape_session_new(&S);
  nx_tensor *p[2];
  CHECK(nx_tensor_param(S, "p3", "", "3", &p[0]) == 0 && nx_tensor_param(S, "p4", "", "4", &p[1]) == 0, "params");
  nx_scheme_function f = {"bad", 1, X, 1, PQ, true, bad_shared, p};
  nx_scheme_handle *h = (nx_scheme_handle *)1;
  int rc = nx_scheme_function_new(S, &f, &h);
  CHECK(rc == NX_EINVAL && h == (nx_scheme_handle *)1 && !strncmp(nx_error_message(), "tracing the shape scheme bad [p]: ", 34),
        "an argument-independent error at the unit stage: %s", nx_error_message());
  /* the same error a level down: a shape error still, not a body that
     cannot run on tracers (the inner trace's rewind undid its taint) */
  nx_scheme_function outer = {"outer", 1, X, 0, NULL, true, outer_of_bad, p};
  h = (nx_scheme_handle *)1;
  rc = nx_scheme_function_new(S, &outer, &h);
  CHECK(rc == NX_EINVAL && h == (nx_scheme_handle *)1 &&
            !strncmp(nx_error_message(), "tracing the shape scheme outer: tracing the shape scheme bad [p]: ", 66),
        "an inner unit stage's error: %s", nx_error_message());
  char *labels[8];
  int nlabels = -1;
  rc = nx_scheme_check_definition(S, "def", define_outer_of_bad, p, labels, 8, &nlabels);
  CHECK(rc == NX_EINVAL && !strncmp(nx_error_message(),
                                    "checking the definition def: tracing the shape scheme outer: tracing the shape scheme bad [p]: ", 95),
        "check_definition finds it: %s", nx_error_message());
  nx_scheme_function g = {"", 1, X, 0, NULL, true, block, NULL};
  CHECK(nx_scheme_function_new(S, &g, &h) == NX_EINVAL, "empty name");
  g.name = "g", g.noptions = 9;
  CHECK(nx_scheme_function_new(S, &g, &h) == NX_EINVAL, "too many options");
  static const char *const many[64] = {"x"};
  g.noptions = 0, g.tensor_names = many, g.ntensors = 64;
  CHECK(nx_scheme_function_new(S, &g, &h) == NX_EINVAL && strstr(nx_error_message(), "more than 63 in all"),
        "too many parameters: %s", nx_error_message());
  nx_shape_session_free(S);
}

/* ---- check_definition ---- */

typedef struct {
  nx_tensor *w;
  int fail;
} def_ctx;

static int inner_body(void *ctx, nx_shape_session *s, nx_tensor *const *a, nx_tensor *const *o, nx_tensor **r, int *nr) {
  (void)ctx, (void)o;
  *nr = 1;
  return nx_tensor_unary(s, "relu", a[0], &r[0]);
}

/* The outer block builds the inner one at its own unit stage. */
static int outer_body(void *ctx, nx_shape_session *s, nx_tensor *const *a, nx_tensor *const *o, nx_tensor **r, int *nr) {
  def_ctx *d = ctx;
  (void)o;
  nx_scheme_function inner = {"inner", 1, X, 0, NULL, true, inner_body, NULL};
  nx_scheme_handle *h;
  int rc = nx_scheme_function_new(s, &inner, &h);
  if (rc) return rc;
  nx_tensor *y;
  rc = nx_tensor_compose(s, d->w, a[0], &y);
  if (!rc) rc = nx_scheme_apply(h, NULL, &y, NULL, r, nr);
  nx_scheme_handle_free(h);
  return rc;
}

static int definition(void *ctx, nx_shape_session *s) {
  def_ctx *d = ctx;
  nx_tensor *w;
  int rc = nx_tensor_param(s, "w", NULL, d->fail ? "2" : "8", &w); /* the trial's parameter */
  if (rc) return rc;
  d->w = w;
  if (d->fail) {
    nx_tensor *p;
    rc = nx_tensor_param(s, "p", "", "5", &p);
    if (!rc) rc = nx_tensor_binary(s, "+", w, p, &p); /* w's output 2 does not meet 5 */
    if (rc) return rc;
  }
  nx_scheme_function outer = {"outer", 1, X, 1, PQ, true, outer_body, d};
  nx_scheme_handle *h = NULL;
  rc = nx_scheme_function_new(s, &outer, &h);
  nx_scheme_handle_free(h);
  return rc;
}

/* The session's whole state as nx_shape_dump writes it. */
static char *state(void) {
  int64_t n = nx_shape_dump(S, NULL, 0);
  char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (b) nx_shape_dump(S, b, (size_t)n + 1);
  return b;
}

static void dump(nx_tensor *const *ts, int n, char *out, size_t cap) {
  size_t len = (size_t)snprintf(out, cap, "constraints %lld deferred %d;", (long long)nx_shape_constraint_count(S),
                                nx_shape_deferred_count(S));
  for (int i = 0; i < n && len < cap; i++) {
    char b[256];
    nx_tensor_to_string(S, ts[i], NX_SHAPE_STYLE_SIZE, b, sizeof b);
    len += (size_t)snprintf(out + len, cap - len, " %s:%s", nx_tensor_label(ts[i]), b);
  }
}

static void test_check_definition(void) {
  nx_shape_session_new(&S);
  nx_tensor *x = term("x", "2", NULL, "3"), *y;
  CHECK(nx_tensor_unary(S, "relu", x, &y) == 0, "relu");
  nx_tensor *ts[2] = {x, y};
  char before[1024], after[1024];
  dump(ts, 2, before, sizeof before);
  char *whole = state();
  int v0 = nx_row_var_new(S, NULL);
  def_ctx d = {0};
  char *labels[8];
  int n = 0;
  int rc = nx_scheme_check_definition(S, "mlp", definition, &d, labels, 8, &n);
  CHECK(rc == 0 && n == 4, "check: %d labels, %s", n, nx_error_message());
  /* the inner block is traced inside each of the outer's two pattern traces, innermost first */
  CHECK(n == 4 && !strcmp(labels[0], "inner") && !strcmp(labels[1], "outer [no p]") && !strcmp(labels[2], "inner") &&
            !strcmp(labels[3], "outer [p]"),
        "labels: %s, %s, %s, %s", n > 0 ? labels[0] : "", n > 1 ? labels[1] : "", n > 2 ? labels[2] : "",
        n > 3 ? labels[3] : "");
  for (int i = 0; i < n && i < 8; i++) free(labels[i]);
  int v1 = nx_row_var_new(S, NULL);
  dump(ts, 2, after, sizeof after);
  /* the whole state, less the variable each nx_row_var_new made */
  nx_scheme_check_definition(S, "again", definition, &d, labels, 0, &n);
  char *whole2 = state();
  CHECK(n == 4, "labels counted with cap 0: %d", n);
  CHECK(whole && whole2 && strlen(whole2) > strlen(whole), "dumps");
  free(whole);
  free(whole2);
  whole = state();
  CHECK(nx_scheme_check_definition(S, "again", definition, &d, labels, 0, &n) == 0, "again");
  whole2 = state();
  CHECK(whole && whole2 && !strcmp(whole, whole2), "the whole state is unchanged (nx_shape_dump)");
  free(whole);
  free(whole2);
  CHECK(v1 == v0 + 1, "no session ids: %d then %d", v0, v1);
  CHECK(!strcmp(before, after), "the session is unchanged:\n%s\n%s", before, after);
  /* an error that holds for every configuration */
  d.fail = 1;
  rc = nx_scheme_check_definition(S, "broken", definition, &d, labels, 8, &n);
  CHECK(rc == NX_EINVAL && !strncmp(nx_error_message(), "checking the definition broken: nx_tensor_binary: ", 50) &&
            n == 0,
        "prefix: %s", nx_error_message());
  nx_tensor *z;
  CHECK(nx_tensor_unary(S, "relu", y, &z) == 0, "the failed trial left no taint: %s", nx_error_message());
  nx_shape_session_free(S);
}

/* ---- statistics ---- */

static void test_statistics(void) {
  nx_scheme_reset_registration_counts();
  nx_scheme_reset_registration_times();
  nx_scheme_registration_counts k = nx_scheme_registration_counts_get();
  CHECK(k.traces == 0 && k.instantiations == 0 && k.checks == 0 && k.body_runs == 0, "reset counts");
  nx_shape_session_new(&S);
  body_ctx c = {0};
  CHECK(nx_tensor_param(S, "w", NULL, "4", &c.w) == 0, "w");
  nx_scheme_function f = fn("stat", 0, true, block, &c);
  nx_scheme_handle *h;
  CHECK(nx_scheme_function_new(S, &f, &h) == 0, "closure");
  nx_tensor *x = term("x", "", "", "3"), *r[NX_SCHEME_MAX_RESULTS];
  int nr;
  nx_scheme_session_op_shape_schemes(S, NX_OP_SHAPE_SCHEMES_CHECK);
  CHECK(nx_scheme_apply(h, NULL, &x, NULL, r, &nr) == 0, "check mode");
  nx_scheme_session_op_shape_schemes(S, NX_OP_SHAPE_SCHEMES_ON);
  CHECK(nx_scheme_apply(h, NULL, &x, NULL, r, &nr) == 0, "on mode");
  k = nx_scheme_registration_counts_get();
  /* one trace; the check instantiates in its window, then the on mode once */
  CHECK(k.traces == 1 && k.checks == 1 && k.instantiations == 2 && k.body_runs == 1, "counts %lld %lld %lld %lld",
        (long long)k.traces, (long long)k.checks, (long long)k.instantiations, (long long)k.body_runs);
  CHECK(k.traced_constraints > 0 && k.instantiated_constraints == 2 * k.traced_constraints, "constraints %lld %lld",
        (long long)k.traced_constraints, (long long)k.instantiated_constraints);
  nx_scheme_registration_times t = nx_scheme_registration_times_get();
  CHECK(t.trace_ns > 0 && t.instantiate_ns > 0 && t.check_ns > 0 && t.body_ns > 0, "times");
  nx_scheme_reset_registration_times();
  t = nx_scheme_registration_times_get();
  CHECK(t.trace_ns == 0 && t.instantiate_ns == 0 && t.check_ns == 0 && t.body_ns == 0, "reset times");
  nx_scheme_session_op_shape_schemes(S, -1);
  nx_scheme_handle_free(h);
  nx_shape_session_free(S);
}

/* Names of any length: a pattern's label `<name> [p, no q]` holds them
   whole, and functions whose names share a long prefix are told apart by
   the once-per-function-and-reason note. */
static int count_log;
static void on_count(void *ctx, const char *line) {
  (void)ctx, (void)line;
  count_log++;
}

static void test_long_names(void) {
  nx_shape_session_new(&S);
  char name[400], opt[300], want[2048], buf[2048];
  memset(name, 'n', sizeof name - 1);
  name[sizeof name - 1] = 0;
  memset(opt, 'o', sizeof opt - 1);
  opt[sizeof opt - 1] = 0;
  const char *opts[1] = {opt};
  body_ctx c = {0};
  CHECK(nx_tensor_param(S, "w", NULL, "4", &c.w) == 0, "w");
  nx_scheme_function f = {name, 1, X, 1, opts, true, block, &c};
  nx_scheme_handle *h = NULL;
  CHECK(nx_scheme_function_new(S, &f, &h) == 0 && h, "closure: %s", nx_error_message());
  snprintf(want, sizeof want, "%s [no %s]: schemed; %s [%s]: schemed", name, opt, name, opt);
  CHECK(h && nx_scheme_status(h, buf, sizeof buf) == (int)strlen(want) && !strcmp(buf, want), "status: %.60s",
        buf + 390);
  snprintf(want, sizeof want, "%s [%s]", name, opt);
  CHECK(h && !strcmp(nx_scheme_label(nx_scheme_handle_scheme(h, 1)), want), "the pattern's label whole");
  nx_scheme_handle_free(h);

  /* two functions alike in their first 300 characters, and more pairs of
     function and reason than any fixed table: each said once */
  nx_scheme_set_log(on_count, NULL);
  count_log = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < 80; i++) {
      snprintf(name + 300, sizeof name - 300, "%d", i);
      nx_scheme_function g = fn(name, 0, true, forcing, &c);
      CHECK(nx_scheme_function_new(S, &g, &h) == 0, "forcer %d: %s", i, nx_error_message());
      nx_scheme_handle_free(h);
    }
  CHECK(count_log == 80, "said once per function and reason: %d notes for 80 functions", count_log);
  nx_scheme_set_log(NULL, NULL);
  nx_shape_session_free(S);
}

int main(void) {
  nx_scheme_set_event_callback(on_event, NULL);
  test_long_names();
  test_patterns();
  test_unschemed();
  test_modes();
  test_stale();
  test_stale_failing();
  test_patterns_apart();
  test_check_tainted();
  test_positive_status();
  test_nested_ref();
  test_trace_error();
  test_check_definition();
  test_statistics();
  nx_scheme_set_event_callback(NULL, NULL);
  return check_done();
}
