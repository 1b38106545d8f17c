/* SPDX-License-Identifier: Apache-2.0 */
/* Shape schemes (nx_scheme.h): the printed form of four blocks, every error
   prefix, the value restriction, capture references, that a trace
   leaves the session as it was, and that an application labels, numbers
   and names in its errors what it makes as the body does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "nx_scheme.h"

static nx_shape_session *S;

static const char *text(const nx_scheme *sc) {
  static char buf[4096];
  int n = nx_scheme_to_string(sc, buf, sizeof buf);
  return n < 0 ? "<error>" : buf;
}

static nx_tensor *term(const char *label, const char *b, const char *i, const char *o) {
  nx_tensor *t = NULL;
  int rc = nx_tensor_term(S, label, b, i, o, &t);
  CHECK(rc == 0, "term %s: %s", label, nx_error_message());
  return t;
}

static nx_tensor *param(const char *label, const char *i, const char *o) {
  nx_tensor *t = NULL;
  int rc = nx_tensor_param(S, label, i, o, &t);
  CHECK(rc == 0, "param %s: %s", label, nx_error_message());
  return t;
}

/* ---- the blocks ---- */

typedef struct { nx_tensor *w, *b; } shared2;

/* w * x + b, w and b made before the trace */
static int linear(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  const shared2 *p = ctx;
  nx_tensor *h;
  (void)n;
  *nr = 1;
  int rc = nx_tensor_compose(s, p->w, a[0], &h);
  return rc ? rc : nx_tensor_binary(s, "+", h, p->b, &r[0]);
}

/* relu(w * x + b) with w shared and b made inside (fresh per application) */
static int mlp(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  const shared2 *p = ctx;
  nx_tensor *h, *b, *z;
  (void)n;
  *nr = 1;
  int rc = nx_tensor_compose(s, p->w, a[0], &h);
  if (!rc) rc = nx_tensor_param(s, "b", "", NULL, &b);
  if (!rc) rc = nx_tensor_binary(s, "+", h, b, &z);
  return rc ? rc : nx_tensor_unary(s, "relu", z, &r[0]);
}

/* x + relu(x) */
static int residual(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  nx_tensor *h;
  (void)ctx, (void)n;
  *nr = 1;
  int rc = nx_tensor_unary(s, "relu", a[0], &h);
  return rc ? rc : nx_tensor_binary(s, "+", a[0], h, &r[0]);
}

/* softmax-free attention: (q k^T) v over a shared batch */
static int attention(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  nx_tensor *scores;
  (void)ctx, (void)n;
  *nr = 1;
  nx_tensor *qk[2] = {a[0], a[1]};
  int rc = nx_tensor_einsum(s, "...|q,d; ...|k,d => ...|q,k", qk, 2, &scores);
  nx_tensor *sv[2] = {scores, a[2]};
  return rc ? rc : nx_tensor_einsum(s, "...|q,k; ...|k,e => ...|q,e", sv, 2, &r[0]);
}

/* sum over the last output axis of a + b: the summed axis has no lower
   bound and two upper bounds, so it stays ('j) */
static int sum_ab(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  nx_tensor *h;
  (void)ctx, (void)n;
  *nr = 1;
  int rc = nx_tensor_binary(s, "+", a[0], a[1], &h);
  return rc ? rc : nx_tensor_einsum(s, "...|...->...a => ...|...->...", &h, 1, &r[0]);
}

/* five relus: the chain's four intermediates are eliminated */
static int chain(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  nx_tensor *h = a[0];
  (void)ctx, (void)n;
  *nr = 1;
  for (int i = 0; i < 5; i++) {
    int rc = nx_tensor_unary(s, "relu", h, &h);
    if (rc) return rc;
  }
  r[0] = h;
  return 0;
}

/* an intermediate dim below two of the result's axes: with no lower bound
   it stays, as the one per-application variable both are above; with one
   (ctx non-NULL: 3 below it) it is eliminated */
static int below_two(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)n;
  *nr = 1;
  int rc = nx_tensor_einsum(s, "...|...->p,q => ...|...->p,q", a, 1, &r[0]);
  const nx_dim *x = nx_dim_var(s, "x");
  if (!rc) rc = nx_shape_add_dim_ineq(s, x, nx_tensor_spec_dim(r[0], "p"), &O);
  if (!rc) rc = nx_shape_add_dim_ineq(s, x, nx_tensor_spec_dim(r[0], "q"), &O);
  if (!rc && ctx) rc = nx_shape_add_dim_ineq(s, dd(s, 3), x, &O);
  return rc ? rc : nx_shape_solve(s, 1);
}

static nx_scheme *trace(const char *label, int n, nx_scheme_fn f, void *ctx) {
  nx_scheme *sc = NULL;
  int rc = nx_scheme_trace(S, label, n, f, ctx, &sc);
  CHECK(rc == 0 && sc, "trace %s: %s", label, nx_error_message());
  return sc;
}

/* no argument: a parameter made inside, returned */
static int make_param(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)ctx, (void)a, (void)n;
  *nr = 1;
  return nx_tensor_param(s, "p", "", "3", &r[0]);
}

/* an einsum of ctx's spec over two arguments */
static int einsum2(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)n;
  *nr = 1;
  return nx_tensor_einsum(s, ctx, a, 2, &r[0]);
}

static void test_printed(void) {
  nx_shape_session_new(&S);
  /* a convolution axis as OCANNL prints it: the dilation before the kernel, a stride of 1 left out */
  nx_scheme *cv = trace("conv", 2, einsum2, "o<+3*k; k => o");
  CHECK(!strcmp(text(cv), "conv : ()|()->conv('a+3*'b), ()|()->'b => ()|()->'a"), "conv: %s", text(cv));
  nx_scheme_free(cv);
  cv = trace("conv2", 2, einsum2, "2*o<+k; k => o");
  CHECK(!strcmp(text(cv), "conv2 : ()|()->conv(2*'a+'b), ()|()->'b => ()|()->'a"), "conv2: %s", text(cv));
  nx_scheme_free(cv);
  nx_scheme *z = trace("zero", 0, make_param, NULL);
  CHECK(!strcmp(text(z), "zero :  => ()|()->3"), "no argument: the template's two spaces: '%s'", text(z));
  nx_scheme_free(z);
  shared2 lin = {param("w", NULL, "10"), param("b", "", "10")};
  nx_scheme *sc = trace("linear", 1, linear, &lin);
  CHECK(!strcmp(text(sc), "linear : ..'a..|..'b..->..'c.. => ..'d..|..'e..->..'f..,10\n"
                          "  ..'_a.. \xe2\x8a\x91 ..'c..\n"
                          "  ..'d.. \xe2\x8a\x91 ..'a..\n"
                          "  ..'e.. \xe2\x8a\x91 ..'b.."),
        "linear: %s", text(sc));
  CHECK(!strcmp(nx_scheme_label(sc), "linear") && nx_scheme_arity(sc) == 1 && nx_scheme_num_results(sc) == 1,
        "linear's label and counts");
  char small[8];
  int full = nx_scheme_to_string(sc, small, sizeof small);
  CHECK(full == (int)strlen(text(sc)) && !strcmp(small, "linear "), "to_string cut to fit: %d '%s'", full, small);
  /* the reduced form is off: every application replays the record, and says why */
  const char *why = NULL;
  CHECK(nx_scheme_reduced(sc, &why) == 0 && why && strstr(why, "closing"), "reduced: %s", why ? why : "(none)");
  CHECK(nx_scheme_reduced(NULL, &why) == -1 && strstr(nx_error_message(), "nx_scheme_reduced: the scheme is NULL"),
        "reduced(NULL): %s", nx_error_message());
  CHECK(nx_scheme_reduced(sc, NULL) == -1 && strstr(nx_error_message(), "nx_scheme_reduced: why is NULL"),
        "reduced(sc, NULL): %s", nx_error_message());
  nx_scheme_free(sc);

  shared2 m = {param("w1", NULL, "64"), NULL};
  sc = trace("mlp", 1, mlp, &m);
  CHECK(!strcmp(text(sc), "mlp : ..'a..|..'b..->..'c.. => ..'d..|..'e..->..'f..,64\n"
                          "  ..'_a.. \xe2\x8a\x91 ..'c..\n"
                          "  ..'d.. \xe2\x8a\x91 ..'a..\n"
                          "  ..'e.. \xe2\x8a\x91 ..'b.."),
        "mlp: %s", text(sc));
  nx_scheme_free(sc);

  sc = trace("residual", 1, residual, NULL);
  CHECK(!strcmp(text(sc), "residual : ..'a..|..'b..->..'c.. => ..'d..|..'e..->..'f..\n"
                          "  ..'d.. \xe2\x8a\x91 ..'a..\n"
                          "  ..'e.. \xe2\x8a\x91 ..'b..\n"
                          "  ..'f.. \xe2\x8a\x91 ..'c.."),
        "residual: %s", text(sc));
  nx_scheme_free(sc);

  sc = trace("sum", 2, sum_ab, NULL);
  CHECK(!strcmp(text(sc), "sum : ..'a..|..'b..->..'c.., ..'d..|..'e..->..'f.. => ..'g..|..'h..->..'i..\n"
                          "  ..'g.. \xe2\x8a\x91 ..'a..\n"
                          "  ..'g.. \xe2\x8a\x91 ..'d..\n"
                          "  ..'h.. \xe2\x8a\x91 ..'b..\n"
                          "  ..'h.. \xe2\x8a\x91 ..'e..\n"
                          "  ..'i..,'j \xe2\x8a\x91 ..'c..\n"
                          "  ..'i..,'j \xe2\x8a\x91 ..'f.."),
        "sum: %s", text(sc));
  nx_scheme_free(sc);

  sc = trace("chain", 1, chain, NULL);
  CHECK(!strcmp(text(sc), "chain : ..'a..|..'b..->..'c.. => ..'d..|..'e..->..'f..\n"
                          "  ..'d.. \xe2\x8a\x91 ..'a..\n"
                          "  ..'e.. \xe2\x8a\x91 ..'b..\n"
                          "  ..'f.. \xe2\x8a\x91 ..'c.."),
        "chain: %s", text(sc));
  nx_scheme_free(sc);

  sc = trace("hidden", 1, below_two, NULL);
  CHECK(!strcmp(text(sc), "hidden : ..'a..|..'b..->'c,'d => ..'a..|..'b..->'c,'d\n"
                          "  'e \xe2\x8a\x91 'c\n"
                          "  'e \xe2\x8a\x91 'd"),
        "hidden: %s", text(sc));
  nx_scheme_free(sc);
  sc = trace("bounded", 1, below_two, (void *)1);
  CHECK(!strcmp(text(sc), "bounded : ..'a..|..'b..->'c,'d => ..'a..|..'b..->'c,'d\n"
                          "  3 \xe2\x8a\x91 'c\n"
                          "  3 \xe2\x8a\x91 'd"),
        "bounded: %s", text(sc));
  nx_scheme_free(sc);

  sc = trace("attention", 3, attention, NULL);
  CHECK(!strcmp(text(sc), "attention : ..'a..|()->'b,'c, ..'a..|()->'d,'c, ..'a..|()->'d,'e => ..'a..|()->'b,'e"),
        "attention: %s", text(sc));
  nx_scheme_free(sc);
  nx_shape_session_free(S);
}

/* An applied scheme closes as the body does: the linear layer on a batch. */
static void test_applied(void) {
  nx_shape_session_new(&S);
  shared2 lin = {param("w", NULL, "10"), param("b", "", "10")};
  nx_scheme *sc = trace("linear", 1, linear, &lin);
  nx_tensor *x = term("x", "32", "", "784"), *y = NULL;
  int rc = nx_scheme_instantiate(S, sc, NULL, &x, 1, &y, 1);
  CHECK(rc == 0 && y, "instantiate: %s", nx_error_message());
  rc = nx_shape_finish(S);
  CHECK(rc == 0, "finish: %s", nx_error_message());
  CHECK(!strcmp(shape_str(S, y, NX_SHAPE_STYLE_SIZE), "32|10"), "y: %s", shape_str(S, y, NX_SHAPE_STYLE_SIZE));
  CHECK(!strcmp(shape_str(S, lin.w, NX_SHAPE_STYLE_SIZE), "784->10"), "w: %s", shape_str(S, lin.w, NX_SHAPE_STYLE_SIZE));
  /* a result given by the caller is related, not replaced */
  nx_tensor *x2 = term("x2", "8", "", "784"), *given = term("given", NULL, NULL, NULL), *y2 = given;
  CHECK(nx_scheme_instantiate(S, sc, "x2 again", &x2, 1, &y2, 1) == 0 && y2 == given, "given result: %s", nx_error_message());
  CHECK(nx_shape_finish(S) == 0, "finish 2: %s", nx_error_message());
  CHECK(!strcmp(shape_str(S, given, NX_SHAPE_STYLE_SIZE), "8|10"), "given: %s", shape_str(S, given, NX_SHAPE_STYLE_SIZE));
  nx_scheme_free(sc);
  nx_shape_session_free(S);
}

/* ---- errors ---- */

static int add_shared(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  nx_tensor **p = ctx;
  (void)a, (void)n;
  *nr = 1;
  return nx_tensor_binary(s, "+", p[0], p[1], &r[0]);
}

static int trailing(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)ctx, (void)n;
  *nr = 1;
  r[0] = a[0];
  return nx_shape_add_dim_eq(s, dd(s, 3), dd(s, 4), &O); /* left for the end-of-trace check */
}

static int forcing(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)ctx, (void)n;
  *nr = 1;
  int rc = nx_tensor_unary(s, "relu", a[0], &r[0]);
  return rc ? rc : nx_shape_finish(s);
}

/* projections of an einsum whose dims are all known: forced all the same */
static int forcing_proj(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  nx_tensor *const *fixed = ctx;
  const nx_shape_proj *p;
  (void)n;
  *nr = 1;
  r[0] = a[0];
  nx_tensor *t;
  int rc = nx_tensor_einsum(s, "i => i", fixed, 1, &t);
  return rc ? rc : nx_shape_projections(s, t, &p);
}

static int forcing_pad(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)n;
  *nr = 1;
  r[0] = a[0];
  return nx_tensor_resolve_padding(s, (nx_tensor *)ctx);
}

static int set_outside(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)n;
  *nr = 1;
  int rc = nx_tensor_unary(s, "relu", a[0], &r[0]);
  return rc ? rc : nx_tensor_set_dim(s, ctx, 5);
}

/* closes, then goes on: a construction after the closing solves at stage 1
   again, which must not hide the closing */
static int forcing_then_op(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  nx_tensor *h;
  (void)ctx, (void)n;
  *nr = 1;
  int rc = nx_tensor_unary(s, "relu", a[0], &h);
  if (!rc) rc = ctx ? nx_shape_solve(s, 3) : nx_shape_finish(s);
  return rc ? rc : nx_tensor_unary(s, "neg", h, &r[0]);
}

/* traces an inner scheme whose body fails whatever its argument */
static int nested_bad(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  nx_scheme *inner = NULL;
  (void)n;
  *nr = 1;
  int rc = nx_scheme_trace(s, "in", 1, add_shared, ctx, &inner);
  nx_scheme_free(inner);
  return rc ? rc : nx_tensor_unary(s, "relu", a[0], &r[0]);
}

/* constrains its argument (output 3) and returns nothing; with ctx, says
   it returns 17 results */
static int no_result(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  nx_tensor *p, *q;
  (void)n, (void)r;
  *nr = ctx ? NX_SCHEME_MAX_RESULTS + 1 : 0;
  if (ctx) return 0;
  int rc = nx_tensor_param(s, "p", "", "3", &p);
  return rc ? rc : nx_tensor_binary(s, "+", a[0], p, &q); /* the sum dropped: only the constraint stays */
}

static int add2(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)ctx, (void)n;
  *nr = 1;
  return nx_tensor_binary(s, "+", a[0], a[1], &r[0]);
}

static int hidden_param(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  nx_tensor *p;
  (void)ctx, (void)n;
  *nr = 1;
  int rc = nx_tensor_param(s, "p", NULL, NULL, &p); /* nothing says its output: closing fails */
  return rc ? rc : nx_tensor_compose(s, p, a[0], &r[0]);
}

static int bind_free(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)n;
  *nr = 1;
  int rc = nx_tensor_einsum(s, "...|...->...c => ...|...->...c", a, 1, &r[0]);
  return rc ? rc : nx_shape_add_dim_eq(s, nx_tensor_spec_dim(r[0], "c"), ctx, &O);
}

/* a concatenation of 65 parts: more than a scheme holds */
static int big_concat(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  const nx_dim *parts[65];
  (void)ctx, (void)n;
  *nr = 1;
  r[0] = a[0];
  for (int i = 0; i < 65; i++) parts[i] = nx_dim_var(s, NULL);
  int rc = nx_shape_add_dim_eq(s, nx_dim_concat(s, parts, 65), nx_dim_var(s, NULL), &O);
  return rc ? rc : nx_shape_solve(s, 1);
}

static bool prefixed(const char *prefix, const char *part) {
  const char *m = nx_error_message();
  bool ok = !strncmp(m, prefix, strlen(prefix)) && strstr(m, part);
  if (!ok) fprintf(stderr, "message: %s\n", m);
  return ok;
}

static void test_trace_errors(void) {
  nx_shape_session_new(&S);
  nx_tensor *p[2] = {param("p3", "", "3"), param("p4", "", "4")};
  nx_scheme *sc = (nx_scheme *)1;
  int rc = nx_scheme_trace(S, "bad", 1, add_shared, p, &sc);
  CHECK(rc == NX_EINVAL && sc == (nx_scheme *)1, "a shape error in f fails the trace");
  CHECK(prefixed("tracing the shape scheme bad: nx_tensor_binary: ", "solved dimensions for axis: mismatch"), "prefix");
  /* the rewind also undid the taint */
  nx_tensor *ok;
  CHECK(nx_tensor_unary(S, "relu", p[0], &ok) == 0, "session not tainted after a failed trace: %s", nx_error_message());

  rc = nx_scheme_trace(S, "late", 1, trailing, NULL, &sc);
  CHECK(rc == NX_EINVAL && prefixed("tracing the shape scheme late: ", "solved dimensions for axis: mismatch"),
        "end-of-trace check");
  rc = nx_scheme_trace(S, "force", 1, forcing, NULL, &sc);
  CHECK(rc == NX_EINVAL && prefixed("tracing the shape scheme force: ", "forces dims"), "forcing");
  rc = nx_scheme_trace(S, "force2", 1, forcing_then_op, NULL, &sc);
  CHECK(rc == NX_EINVAL && prefixed("tracing the shape scheme force2: ", "forces dims"), "closing, then an operation");
  rc = nx_scheme_trace(S, "force3", 1, forcing_then_op, "stage 3", &sc);
  CHECK(rc == NX_EINVAL && prefixed("tracing the shape scheme force3: ", "forces dims"), "a solve at stage 3, then an operation");
  rc = nx_scheme_trace(S, "out", 1, nested_bad, p, &sc);
  CHECK(rc == NX_EINVAL && prefixed("tracing the shape scheme out: tracing the shape scheme in: ", "mismatch"),
        "an inner trace's shape error, both prefixes");
  nx_tensor *known = param("known", "", "5");
  CHECK(nx_shape_finish(S) == 0, "closing before: %s", nx_error_message());
  int64_t before = nx_shape_dump(S, NULL, 0);
  rc = nx_scheme_trace(S, "proj", 1, forcing_proj, &known, &sc);
  CHECK(rc == NX_EINVAL && prefixed("tracing the shape scheme proj: ", "forces projections"), "forcing projections");
  rc = nx_scheme_trace(S, "pad", 1, forcing_pad, known, &sc);
  CHECK(rc == NX_EINVAL && prefixed("tracing the shape scheme pad: ", "forces projections"), "forcing padding");
  CHECK(before > 0 && nx_shape_dump(S, NULL, 0) == before, "the refused traces left nothing: a dump of %lld bytes, %lld before",
        (long long)nx_shape_dump(S, NULL, 0), (long long)before);
  /* outside a trace, the same calls are not refused */
  nx_tensor *t;
  const nx_shape_proj *pj;
  CHECK(nx_tensor_einsum(S, "i => i", &known, 1, &t) == 0 && nx_shape_finish(S) == 0 &&
            nx_shape_projections(S, t, &pj) == 0,
        "projections outside a trace: %s", nx_error_message());
  nx_tensor *outside = term("outside", NULL, NULL, NULL), *cap;
  CHECK(nx_tensor_einsum(S, "...|...->...c => ...|...->...c", &outside, 1, &cap) == 0, "capture: %s", nx_error_message());
  rc = nx_scheme_trace(S, "set", 1, set_outside, (void *)nx_tensor_spec_dim(cap, "c"), &sc);
  CHECK(rc == NX_EINVAL && prefixed("tracing the shape scheme set: ", "set_dim on a capture reference made outside"),
        "set_dim on an outside capture");
  rc = nx_scheme_trace(S, "big", 1, big_concat, NULL, &sc);
  CHECK(rc == NX_EINVAL && prefixed("tracing the shape scheme big: ", "beyond what a scheme holds"), "too big");
  /* no result: the seed's functions map a tensor list to a tensor list */
  sc = trace("none", 1, no_result, NULL);
  const char *txt = text(sc);
  static const char head[] = "none : ..'a..|..'b..->..'c.. => ";
  CHECK(!strncmp(txt, head, sizeof head - 1) && (txt[sizeof head - 1] == 0 || txt[sizeof head - 1] == '\n'),
        "no result, printed: '%s'", txt);
  CHECK(nx_scheme_num_results(sc) == 0, "no result: num_results %d", nx_scheme_num_results(sc));
  nx_tensor *four = term("four", "", "", "4");
  rc = nx_scheme_instantiate(S, sc, NULL, &four, 1, NULL, 0);
  CHECK(rc == NX_EINVAL && prefixed("applying the shape scheme none to four: ", "mismatch"),
        "a scheme of no result still constrains its argument");
  nx_scheme_free(sc);
  nx_shape_session_free(S);
  nx_shape_session_new(&S);
  rc = nx_scheme_trace(S, "many", 1, no_result, "17", &sc);
  CHECK(rc == NX_EINVAL && prefixed("tracing the shape scheme many: ", "returned 17 results (0 to 16)"), "17 results");
  CHECK(nx_scheme_trace(S, "", 1, residual, NULL, &sc) == NX_EINVAL && nx_scheme_trace(NULL, "x", 1, residual, NULL, &sc) == NX_EINVAL &&
            nx_scheme_trace(S, "x", -1, residual, NULL, &sc) == NX_EINVAL,
        "bad arguments");
  CHECK(nx_scheme_label(NULL) == NULL && nx_scheme_arity(NULL) == -1 && nx_scheme_to_string(NULL, NULL, 0) == -1,
        "NULL scheme");
  nx_shape_session_free(S);
}

static void test_apply_errors(void) {
  nx_shape_session_new(&S);
  nx_scheme *sc = trace("add", 2, add2, NULL);
  nx_tensor *args[2] = {term("x", "", "", "3"), term("y", "", "", "4")}, *r = NULL;
  int rc = nx_scheme_instantiate(S, sc, NULL, args, 2, &r, 1);
  CHECK(rc == NX_EINVAL && prefixed("applying the shape scheme add to x, y: ", "solved dimensions for axis: mismatch"),
        "argument-dependent error");
  nx_tensor *t;
  CHECK(nx_tensor_unary(S, "relu", args[0], &t) == NX_EINVAL && strstr(nx_error_message(), "applying the shape scheme add to x, y: "),
        "the failed application taints the session: %s", nx_error_message());
  CHECK(nx_scheme_instantiate(S, sc, NULL, args, 1, &r, 1) == NX_EINVAL && nx_scheme_instantiate(S, NULL, NULL, args, 2, &r, 1) == NX_EINVAL,
        "bad arguments");
  nx_scheme_free(sc);
  nx_shape_session_free(S);

  /* a session made later at the freed session's address (the allocator
     gives the block back, as it usually does for one of the same size) is
     another session: refused (before: taken by its address) */
  nx_shape_session_new(&S);
  sc = trace("add", 2, add2, NULL);
  const void *was = S;
  nx_shape_session_free(S);
  nx_shape_session_new(&S);
  nx_tensor *again[2] = {term("x", "", "", "3"), term("y", "", "", "3")};
  if ((const void *)S == was)
    CHECK(nx_scheme_instantiate(S, sc, NULL, again, 2, &r, 1) == NX_EINVAL &&
              strstr(nx_error_message(), "traced in another session"),
          "a session at the freed one's address: %s", nx_error_message());
  else
    CHECK(nx_scheme_instantiate(S, sc, NULL, again, 2, &r, 1) == NX_EINVAL, "another session: %s", nx_error_message());
  nx_scheme_free(sc);
  nx_shape_session_free(S);

  /* a failure at closing names the application too */
  nx_shape_session_new(&S);
  sc = trace("hid", 1, hidden_param, NULL);
  nx_tensor *x = term("x", "", "", "3");
  CHECK(nx_scheme_instantiate(S, sc, "the x", &x, 1, &r, 1) == 0, "instantiate: %s", nx_error_message());
  rc = nx_shape_finish(S);
  CHECK(rc == NX_EINVAL && strstr(nx_error_message(), "You forgot to specify the hidden dimension") &&
            strstr(nx_error_message(), "applying the shape scheme hid to the x: "),
        "closing names the application: %s", nx_error_message());
  nx_scheme_free(sc);
  nx_shape_session_free(S);

  /* open state a closing discarded: refused, trace again */
  nx_shape_session_new(&S);
  const nx_dim *free_dim = nx_dim_var(S, "free");
  sc = trace("g", 1, bind_free, (void *)free_dim);
  x = term("x", "", "", "3");
  CHECK(nx_shape_finish(S) == 0, "finish: %s", nx_error_message());
  r = NULL;
  rc = nx_scheme_instantiate(S, sc, NULL, &x, 1, &r, 1);
  CHECK(rc == NX_EINVAL && prefixed("applying the shape scheme g to x: ", "trace again"), "open state after closing");
  nx_scheme_free(sc);
  sc = trace("g", 1, bind_free, (void *)free_dim);
  r = NULL;
  CHECK(nx_scheme_instantiate(S, sc, NULL, &x, 1, &r, 1) == 0, "traced again: %s", nx_error_message());
  CHECK(val(S, free_dim) == 3, "the application binds the outside variable: %lld", (long long)val(S, free_dim));
  nx_scheme_free(sc);
  nx_shape_session_free(S);

  /* the same with the argument made after the closing (its construction
     solves at stage 1 again): still a closing since the trace */
  nx_shape_session_new(&S);
  free_dim = nx_dim_var(S, "free");
  sc = trace("g", 1, bind_free, (void *)free_dim);
  CHECK(nx_shape_finish(S) == 0, "finish: %s", nx_error_message());
  x = term("x", "", "", "3");
  r = NULL;
  rc = nx_scheme_instantiate(S, sc, NULL, &x, 1, &r, 1);
  CHECK(rc == NX_EINVAL && prefixed("applying the shape scheme g to x: ", "trace again"),
        "open state after closing, argument made after it");
  nx_scheme_free(sc);
  nx_shape_session_free(S);
}

/* ---- value restriction and captures ---- */

static int lin_w(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)n;
  *nr = 1;
  return nx_tensor_compose(s, ctx, a[0], &r[0]);
}

static int lin_inner(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  nx_tensor *w;
  (void)ctx, (void)n;
  *nr = 1;
  int rc = nx_tensor_param(s, "w", NULL, "4", &w);
  return rc ? rc : nx_tensor_compose(s, w, a[0], &r[0]);
}

/* binds the reference's axis c to the argument's (an einsum does not broadcast) */
static int add_ref(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)n;
  *nr = 1;
  nx_tensor *xs[2] = {a[0], ctx};
  return nx_tensor_einsum(s, "...|...->c; ...|...->c => ...|...->c", xs, 2, &r[0]);
}

static void test_value_restriction(void) {
  nx_shape_session_new(&S);
  nx_tensor *w = param("w", NULL, "4");
  nx_scheme *shared = trace("shared", 1, lin_w, w), *inner = trace("inner", 1, lin_inner, NULL);
  nx_tensor *x3 = term("x3", "", "", "3"), *x5 = term("x5", "", "", "5"), *r[4] = {0};
  CHECK(nx_scheme_instantiate(S, inner, NULL, &x3, 1, &r[0], 1) == 0 && nx_scheme_instantiate(S, inner, NULL, &x5, 1, &r[1], 1) == 0,
        "a parameter made inside is fresh per application: %s", nx_error_message());
  CHECK(nx_scheme_instantiate(S, shared, NULL, &x3, 1, &r[2], 1) == 0, "shared on x3: %s", nx_error_message());
  int rc = nx_scheme_instantiate(S, shared, NULL, &x5, 1, &r[3], 1);
  CHECK(rc == NX_EINVAL && prefixed("applying the shape scheme shared to x5: ", "mismatch"),
        "a parameter made before stays fixed across applications");
  nx_scheme_free(shared);
  nx_scheme_free(inner);
  nx_shape_session_free(S);

  nx_shape_session_new(&S);
  inner = trace("inner", 1, lin_inner, NULL);
  x3 = term("x3", "", "", "3"), x5 = term("x5", "", "", "5");
  r[0] = r[1] = NULL;
  CHECK(nx_scheme_instantiate(S, inner, NULL, &x3, 1, &r[0], 1) == 0 && nx_scheme_instantiate(S, inner, NULL, &x5, 1, &r[1], 1) == 0,
        "inner twice: %s", nx_error_message());
  CHECK(nx_shape_finish(S) == 0, "finish: %s", nx_error_message());
  CHECK(!strcmp(shape_str(S, r[0], NX_SHAPE_STYLE_SIZE), "4") && !strcmp(shape_str(S, r[1], NX_SHAPE_STYLE_SIZE), "4"),
        "results %s", shape_str(S, r[1], NX_SHAPE_STYLE_SIZE));
  nx_scheme_free(inner);
  nx_shape_session_free(S);

  /* a capture reference made outside that the function's operations bind */
  nx_shape_session_new(&S);
  nx_tensor *ref = term("ref", "", "", NULL), *cap;
  CHECK(nx_tensor_einsum(S, "...|...->c => ...|...->c", &ref, 1, &cap) == 0, "capture: %s", nx_error_message());
  const nx_dim *c = nx_tensor_spec_dim(cap, "c");
  nx_scheme *sc = trace("addref", 1, add_ref, cap);
  CHECK(!strcmp(text(sc), "addref : ()|()->'_a => ()|()->'_a"), "the reference's variable is fixed: %s", text(sc));
  CHECK(val(S, c) == -1, "the trace left the reference open");
  nx_tensor *x7 = term("x7", "", "", "7"), *y;
  y = NULL;
  CHECK(nx_scheme_instantiate(S, sc, NULL, &x7, 1, &y, 1) == 0, "instantiate: %s", nx_error_message());
  CHECK(val(S, c) == 7, "the application binds the reference: %lld", (long long)val(S, c));
  nx_tensor *x8 = term("x8", "", "", "8");
  CHECK(nx_scheme_instantiate(S, sc, NULL, &x8, 1, &y, 1) == NX_EINVAL &&
            prefixed("applying the shape scheme addref to x8: ", "mismatch"),
        "the next application is related to the reference's state then");
  nx_scheme_free(sc);
  nx_shape_session_free(S);
}

/* ---- the rewind ---- */

/* The session's whole state as nx_shape_dump writes it. */
static char *state(void) {
  int64_t n = nx_shape_dump(S, NULL, 0);
  char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (b) nx_shape_dump(S, b, (size_t)n + 1);
  return b;
}

static void dump(nx_tensor *const *ts, int n, char *out, size_t cap) {
  size_t len = 0;
  len += (size_t)snprintf(out + len, cap - len, "constraints %lld deferred %d;", (long long)nx_shape_constraint_count(S),
                          nx_shape_deferred_count(S));
  for (int i = 0; i < n && len < cap; i++) {
    char b[256];
    nx_tensor_to_string(S, ts[i], NX_SHAPE_STYLE_SIZE, b, sizeof b);
    len += (size_t)snprintf(out + len, cap - len, " %s:%s", nx_tensor_label(ts[i]), b);
  }
}

static void test_rewind(void) {
  nx_shape_session_new(&S);
  shared2 lin = {param("w", NULL, "10"), param("b", "", "10")};
  nx_tensor *x = term("x", "2", NULL, "3"), *h;
  CHECK(nx_tensor_compose(S, lin.w, x, &h) == 0, "compose");
  nx_tensor *p[2] = {param("p3", "", "3"), param("p4", "", "4")};
  nx_tensor *ts[6] = {lin.w, lin.b, x, h, p[0], p[1]};
  char before[2048], after[2048];
  dump(ts, 6, before, sizeof before);
  char *whole = state();
  nx_scheme *sc = trace("linear", 1, linear, &lin), *bad = NULL;
  CHECK(nx_scheme_trace(S, "bad", 1, add_shared, p, &bad) == NX_EINVAL, "bad trace");
  dump(ts, 6, after, sizeof after);
  CHECK(!strcmp(before, after), "the session is unchanged:\n%s\n%s", before, after);
  char *whole2 = state();
  CHECK(whole && whole2 && !strcmp(whole, whole2), "the whole state is unchanged (nx_shape_dump)");
  free(whole);
  free(whole2);
  /* the traces use no variable or tensor id */
  int v0 = nx_row_var_new(S, NULL);
  nx_tensor *t0 = term(NULL, "", "", "");
  nx_scheme_free(sc);
  sc = trace("linear", 1, linear, &lin);
  CHECK(nx_scheme_trace(S, "bad", 1, add_shared, p, &bad) == NX_EINVAL, "bad trace");
  int v1 = nx_row_var_new(S, NULL);
  nx_tensor *t1 = term(NULL, "", "", "");
  CHECK(v1 == v0 + 1 + 3, "variable ids: %d then %d (the term between made 3)", v0, v1);
  CHECK(!strcmp(nx_tensor_label(t0), "#7") && !strcmp(nx_tensor_label(t1), "#8"), "tensor ids: %s %s",
        nx_tensor_label(t0), nx_tensor_label(t1));
  /* and the session solves on as if they had not run */
  nx_tensor *y = NULL;
  CHECK(nx_scheme_instantiate(S, sc, NULL, &x, 1, &y, 1) == 0 && nx_shape_finish(S) == 0, "apply after: %s",
        nx_error_message());
  CHECK(!strcmp(shape_str(S, y, NX_SHAPE_STYLE_SIZE), "2|10"), "y: %s", shape_str(S, y, NX_SHAPE_STYLE_SIZE));
  nx_scheme_free(sc);
  nx_shape_session_free(S);
}

/* ---- the labels of the tensors an application makes ---- */

/* relu x, a leaf without a label and a parameter made inside, all returned */
static int three(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)ctx, (void)n;
  *nr = 3;
  int rc = nx_tensor_unary(s, "relu", a[0], &r[0]);
  if (!rc) rc = nx_tensor_term(s, NULL, "", "", "2", &r[1]);
  return rc ? rc : nx_tensor_param(s, "b", "", "4", &r[2]);
}

/* Two applications label what they make as two runs of the body do (the
   operation or leaf, then the id the body's tensor would take), in twin
   sessions. */
static void test_made_labels(void) {
  char body[2][3][64], inst[2][3][64];
  for (int side = 0; side < 2; side++) {
    nx_shape_session_new(&S);
    nx_tensor *x = term("x", "2", "", "3");
    nx_scheme *sc = side ? trace("three", 1, three, NULL) : NULL;
    for (int k = 0; k < 2; k++) {
      nx_tensor *r[3] = {0};
      int nr = 0, rc = side ? nx_scheme_instantiate(S, sc, NULL, &x, 1, r, 3) : three(NULL, S, &x, 1, r, &nr);
      CHECK(rc == 0, "application %d (%s): %s", k, side ? "scheme" : "body", nx_error_message());
      for (int j = 0; j < 3; j++) snprintf((side ? inst : body)[k][j], 64, "%s", rc ? "?" : nx_tensor_label(r[j]));
    }
    nx_scheme_free(sc);
    nx_shape_session_free(S);
  }
  CHECK(!strcmp(body[1][0], "relu#5") && !strcmp(body[1][1], "#6") && !strcmp(body[1][2], "b"),
        "the body's second labels: %s %s %s", body[1][0], body[1][1], body[1][2]);
  for (int k = 0; k < 2; k++)
    for (int j = 0; j < 3; j++)
      CHECK(!strcmp(body[k][j], inst[k][j]), "application %d, result %d: %s by the scheme, %s by the body", k, j,
            inst[k][j], body[k][j]);
}


/* labels the body keeps as given though they hold '#' (or run long), and
   an operation named past what a made label holds */
static int hashed(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)ctx, (void)n;
  static char op[80], longer[140];
  memset(op, 'o', 70);
  memset(longer, 'l', 130);
  *nr = 4;
  int rc = nx_tensor_term(s, "w#x", "", "", "2", &r[0]);
  if (!rc) rc = nx_tensor_param(s, "layer#1", "", "3", &r[1]);
  if (!rc) rc = nx_tensor_unary(s, op, a[0], &r[2]);
  return rc ? rc : nx_tensor_term(s, longer, "", "", "4", &r[3]);
}

/* Two applications of f (arity 1, nres results) and two runs of its body,
   from x in twin sessions, inside an entered range of ntensors tensor ids
   when ntensors > 0, then one leaf after: every label written to
   labels[side][k][j] (side 0 the body, 1 the scheme; the leaf at k 2). */
static void twin_labels(nx_scheme_fn f, int nres, int ntensors, char labels[2][3][4][160]) {
  for (int side = 0; side < 2; side++) {
    nx_shape_session_new(&S);
    nx_tensor *x = term("x", "2", "", "3");
    nx_scheme *sc = side ? trace("f", 1, f, NULL) : NULL;
    nx_shape_id_range range;
    if (ntensors)
      CHECK(nx_shape_ids_reserve(S, 0, ntensors, &range) == 0 && nx_shape_ids_enter(S, &range) == 0, "range: %s",
            nx_error_message());
    for (int k = 0; k < 2; k++) {
      nx_tensor *r[4] = {0};
      int nr = 0, rc = side ? nx_scheme_instantiate(S, sc, NULL, &x, 1, r, nres) : f(NULL, S, &x, 1, r, &nr);
      CHECK(rc == 0, "application %d (%s): %s", k, side ? "scheme" : "body", nx_error_message());
      for (int j = 0; j < nres; j++) snprintf(labels[side][k][j], 160, "%s", rc ? "?" : nx_tensor_label(r[j]));
    }
    if (ntensors) CHECK(nx_shape_ids_leave(S, NULL) == 0, "leave: %s", nx_error_message());
    snprintf(labels[side][2][0], 160, "%s", nx_tensor_label(term(NULL, "", "", "")));
    nx_scheme_free(sc);
    nx_shape_session_free(S);
  }
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < (k < 2 ? nres : 1); j++)
      CHECK(!strcmp(labels[0][k][j], labels[1][k][j]), "application %d, result %d: %s by the scheme, %s by the body", k,
            j, labels[1][k][j], labels[0][k][j]);
}

/* A label given is kept as the body keeps it, '#' and all. */
static void test_given_labels(void) {
  char labels[2][3][4][160];
  twin_labels(hashed, 4, 0, labels);
  CHECK(!strcmp(labels[0][1][0], "w#x") && !strcmp(labels[0][1][1], "layer#1") && strlen(labels[0][1][3]) == 130,
        "the body's labels: %s %s", labels[0][1][0], labels[0][1][1]);
  CHECK(!strncmp(labels[0][1][2], "oooooooooo", 10) && strlen(labels[0][1][2]) < 70,
        "the body cuts a long operation: %s", labels[0][1][2]);
}

/* Inside an entered id range the made tensors take the range's ids, then
   the session's once it runs out, as the body's do. */
static void test_range_ids(void) {
  char labels[2][3][4][160];
  twin_labels(three, 3, 4, labels);
  CHECK(!strcmp(labels[0][0][0], "relu#2") && !strcmp(labels[0][1][1], "#6"),
        "the body's ids come from the range, then the counter: %s %s", labels[0][0][0], labels[0][1][1]);
}


/* relu x + y: the sum fails when x's and y's outputs differ */
static int relu_add(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  nx_tensor *h;
  (void)ctx, (void)n;
  *nr = 1;
  int rc = nx_tensor_unary(s, "relu", a[0], &h);
  return rc ? rc : nx_tensor_binary(s, "+", h, a[1], &r[0]);
}

/* a parameter without a label whose output nothing gives: closing fails */
static int hidden_anon(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  nx_tensor *p;
  (void)ctx, (void)n;
  *nr = 1;
  int rc = nx_tensor_param(s, NULL, NULL, NULL, &p);
  return rc ? rc : nx_tensor_compose(s, p, a[0], &r[0]);
}

/* m without its first "<function>: " (when whole) and with every prefix
   removed (the application's constraints carry it) into out; variable ids
   "$<n>" as "$" (an application makes its own variables, not the body's). */
static void strip(const char *m, bool whole, const char *prefix, char *out, size_t cap) {
  size_t n = 0, np = strlen(prefix);
  if (whole && strstr(m, ": ")) m = strstr(m, ": ") + 2;
  while (*m && n + 1 < cap)
    if (!strncmp(m, prefix, np)) m += np;
    else if (*m == '$') {
      out[n++] = *m++;
      while (*m >= '0' && *m <= '9') m++;
    } else
      out[n++] = *m++;
  out[n] = 0;
}

/* The errors an application raises, at once or at closing, name its
   tensors as the body's run names them, in twin sessions: the same text
   but for the application's prefix where the body has its function's. */
static void test_error_names(void) {
  static const struct {
    nx_scheme_fn f;
    int arity;
    bool at_closing;
    const char *prefix, *names; /* names: what the body's message names */
  } cases[3] = {
      {relu_add, 2, false, "applying the shape scheme f to x, y: ", "(+#4 output <= relu#3 output)"},
      {add2, 2, false, "applying the shape scheme f to x, y: ", "x output"},
      {hidden_anon, 1, true, "applying the shape scheme f to x: ", "(#3 output <= #3 output)"},
  };
  char msg[2][3][2048];
  for (int side = 0; side < 2; side++)
    for (int c = 0; c < 3; c++) {
      nx_shape_session_new(&S);
      nx_tensor *args[2] = {term("x", "", "", "3"), term("y", "", "", "4")}, *r[1] = {0};
      nx_scheme *sc = side ? trace("f", cases[c].arity, cases[c].f, NULL) : NULL;
      int nr = 0, rc = side ? nx_scheme_instantiate(S, sc, NULL, args, cases[c].arity, r, 1)
                            : cases[c].f(NULL, S, args, cases[c].arity, r, &nr);
      if (cases[c].at_closing) {
        CHECK(rc == 0, "%s: %s", side ? "scheme" : "body", nx_error_message());
        rc = nx_shape_finish(S);
      }
      CHECK(rc == NX_EINVAL, "%s, case %d: fails", side ? "scheme" : "body", c);
      /* the application's own error is prefixed; one at closing is the closing's, its trace naming the application */
      const char *m = nx_error_message(), *p = cases[c].prefix;
      if (side) CHECK(cases[c].at_closing ? strstr(m, p) != NULL : !strncmp(m, p, strlen(p)), "prefixed: %s", m);
      strip(m, !side || cases[c].at_closing, p, msg[side][c], sizeof msg[side][c]);
      nx_scheme_free(sc);
      nx_shape_session_free(S);
    }
  for (int c = 0; c < 3; c++) {
    CHECK(strstr(msg[0][c], cases[c].names), "the body's message %d names %s: %s", c, cases[c].names, msg[0][c]);
    CHECK(!strcmp(msg[0][c], msg[1][c]), "error %d:\n  by the scheme: %s\n  by the body:   %s", c, msg[1][c], msg[0][c]);
  }
}

/* to_string prints the label whole, however long: `<label> : ...` */
static void test_long_label(void) {
  nx_shape_session_new(&S);
  char label[700], want[800];
  memset(label, 'L', sizeof label - 1);
  label[sizeof label - 1] = 0;
  nx_scheme *sc = trace(label, 1, residual, NULL);
  snprintf(want, sizeof want, "%s : ..'a..|..'b..->..'c.. => ..'d..|..'e..->..'f..\n", label);
  CHECK(sc && !strncmp(text(sc), want, strlen(want)), "a long label: %.80s", sc ? text(sc) + 690 : "");
  CHECK(sc && nx_scheme_to_string(sc, NULL, 0) == (int)strlen(text(sc)), "its full length");
  nx_scheme_free(sc);
  nx_shape_session_free(S);
}

/* The prefix "applying the shape scheme <label> to <application>: " holds
   a long label and a long application's name whole (the message has room). */
static void test_long_application(void) {
  nx_shape_session_new(&S);
  char label[200], app[600], want[900];
  memset(label, 'L', sizeof label - 1);
  label[sizeof label - 1] = 0;
  memset(app, 'A', sizeof app - 1);
  app[sizeof app - 1] = 0;
  nx_scheme *sc = trace(label, 2, add2, NULL);
  nx_tensor *args[2] = {term("x", "", "", "3"), term("y", "", "", "4")}, *r = NULL;
  snprintf(want, sizeof want, "applying the shape scheme %s to %s: ", label, app);
  CHECK(sc && nx_scheme_instantiate(S, sc, app, args, 2, &r, 1) == NX_EINVAL &&
            prefixed(want, "solved dimensions for axis: mismatch"),
        "a long application's prefix: %s", nx_error_message() + 700);
  nx_scheme_free(sc);
  nx_shape_session_free(S);
}

/* ---- references made before the trace (nx_shape_ref) ---- */

/* binds the reference ctx to its einsum's output axis c */
static int bind_ref(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  nx_shape_ref *ref = ctx;
  (void)n;
  *nr = 1;
  nx_einsum_options o = {.nrefs = 1, .refs = &ref};
  return nx_tensor_einsum_ex(s, "...|...->c => ...|...->c", &o, a, 1, &r[0]);
}

typedef struct { nx_shape_ref *a, *b; int how; } ref_set;

/* sets a reference: ctx's a (made before the trace) by set_dim, set_equal
   or set_scale with b; how 3: a reference made inside, which is carried */
static int set_ref(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  ref_set *c = ctx;
  (void)n;
  *nr = 1;
  r[0] = a[0];
  switch (c->how) {
  case 0: return nx_shape_ref_set_dim(s, c->a, 5);
  case 1: return nx_shape_ref_set_equal(s, c->a, c->b);
  case 2: return nx_shape_ref_set_scale(s, 2, c->a, c->b);
  default: {
    nx_shape_ref *in = nx_shape_ref_new(s, "c");
    nx_einsum_options o = {.nrefs = 1, .refs = &in};
    int rc = nx_tensor_einsum_ex(s, "...|...->c => ...|...->c", &o, a, 1, &r[0]);
    return rc ? rc : nx_shape_ref_set_dim(s, in, 5);
  }
  }
}

static void test_refs(void) {
  /* an application binds the reference as the body would */
  nx_shape_session_new(&S);
  nx_shape_ref *ref = nx_shape_ref_new(S, "c");
  nx_scheme *sc = trace("bind", 1, bind_ref, ref);
  int64_t v = 0;
  CHECK(nx_shape_ref_value(S, ref, &v) == NX_NONE, "the trace left the reference unbound");
  nx_tensor *x = term("x", "", "", "7"), *y = NULL;
  CHECK(nx_scheme_instantiate(S, sc, NULL, &x, 1, &y, 1) == 0, "instantiate: %s", nx_error_message());
  CHECK(nx_shape_finish(S) == 0 && nx_shape_ref_value(S, ref, &v) == 0 && v == 7, "bound to the application's axis: %lld",
        (long long)v);
  nx_scheme_free(sc);
  nx_shape_session_free(S);

  /* its state at the application: a size set after the trace, met by an
     argument of another size, then given to an open one */
  int rc;
  char b[64];
  for (int open = 0; open < 2; open++) {
    nx_shape_session_new(&S);
    ref = nx_shape_ref_new(S, "c");
    sc = trace("bind", 1, bind_ref, ref);
    CHECK(nx_shape_ref_set_dim(S, ref, 7) == 0, "set_dim after the trace: %s", nx_error_message());
    x = term("x", "", "", open ? NULL : "9");
    y = NULL;
    rc = nx_scheme_instantiate(S, sc, NULL, &x, 1, &y, 1);
    if (!open) {
      CHECK(rc == NX_EINVAL && prefixed("applying the shape scheme bind to x: ", "mismatch (9_default vs 7_default)"),
            "the size set since is applied, as the body applies it");
    } else {
      CHECK(rc == 0 && nx_shape_finish(S) == 0, "instantiate: %s", nx_error_message());
      nx_tensor_to_string(S, x, NX_SHAPE_STYLE_SIZE, b, sizeof b);
      CHECK(!strcmp(b, "7"), "the argument gets the reference's size: %s", b);
    }
    nx_scheme_free(sc);
    nx_shape_session_free(S);
  }

  /* setting a reference made outside f: refused, each way */
  static const char *ways[] = {"set_dim", "set_equal", "set_scale"};
  for (int how = 0; how < 3; how++) {
    nx_shape_session_new(&S);
    ref_set c = {nx_shape_ref_new(S, "c"), nx_shape_ref_new(S, "d"), how};
    nx_tensor *t = term("t", "", "", NULL), *u;
    nx_einsum_options o = {.nrefs = 2, .refs = (nx_shape_ref *[]){c.a, c.b}};
    CHECK(nx_tensor_einsum_ex(S, "...|...->c,d => ...|...->c,d", &o, &t, 1, &u) == 0, "bound: %s", nx_error_message());
    sc = NULL;
    rc = nx_scheme_trace(S, "set", 1, set_ref, &c, &sc);
    CHECK(rc == NX_EINVAL && prefixed("tracing the shape scheme set: ", "capture reference made outside"), "%s refused",
          ways[how]);
    int64_t before = nx_shape_dump(S, NULL, 0);
    CHECK(nx_shape_ref_value(S, c.a, &v) == NX_NONE && before > 0, "%s: the trace left the reference as it was", ways[how]);
    nx_shape_session_free(S);
  }
  /* one made inside f is f's own */
  nx_shape_session_new(&S);
  ref_set c = {NULL, NULL, 3};
  sc = trace("own", 1, set_ref, &c);
  x = term("x", "", "", NULL);
  y = NULL;
  CHECK(nx_scheme_instantiate(S, sc, NULL, &x, 1, &y, 1) == 0 && nx_shape_finish(S) == 0, "instantiate: %s",
        nx_error_message());
  nx_tensor_to_string(S, y, NX_SHAPE_STYLE_SIZE, b, sizeof b);
  CHECK(!strcmp(b, "5"), "a reference made inside is set per application: %s", b);
  nx_scheme_free(sc);
  nx_shape_session_free(S);
}

/* A scheme traced in a state a rewind since discarded reads variables
   whose ids later ones reuse: refused, trace again (before: applied to
   whatever took those ids, an unrelated tensor's shape). Traced after a
   snapshot that is restored, and traced inside another trace. A scheme
   traced before the snapshot is still applied. */
static nx_tensor *shared_t;
static int plus_shared(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)ctx, (void)n;
  *nr = 1;
  return nx_tensor_binary(s, "+", a[0], shared_t, &r[0]);
}
static nx_scheme *inner_sc;
static int traces_inner(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)ctx, (void)n;
  shared_t = a[0];
  int rc = nx_scheme_trace(s, "inner", 1, plus_shared, NULL, &inner_sc);
  *nr = 1;
  return rc ? rc : nx_tensor_unary(s, "relu", a[0], &r[0]);
}

static void test_rewound(void) {
  for (int how = 0; how < 2; how++) {
    nx_shape_session_new(&S);
    nx_scheme *before = NULL, *sc = NULL, *outer = NULL;
    nx_tensor *q = param("q", NULL, NULL);
    shared_t = q;
    before = trace("before", 1, plus_shared, NULL);
    if (how == 0) {
      nx_shape_snapshot *snap = NULL;
      CHECK(nx_shape_snapshot_take(S, &snap) == 0, "snapshot");
      shared_t = param("p", NULL, NULL);
      sc = trace("f", 1, plus_shared, NULL);
      CHECK(nx_shape_snapshot_restore(S, snap) == 0, "restore: %s", nx_error_message());
      nx_shape_snapshot_free(snap);
    } else {
      outer = trace("outer", 1, traces_inner, NULL);
      sc = inner_sc;
    }
    nx_tensor *y = term("y", NULL, NULL, NULL), *x = term("x", "", "", "4"), *r = NULL;
    int rc = nx_scheme_instantiate(S, sc, NULL, &x, 1, &r, 1);
    CHECK(rc == NX_EINVAL && strstr(nx_error_message(), "a rewind since discarded") &&
              strstr(nx_error_message(), "trace again"),
          "%s: %d %s", how ? "traced inside a trace" : "traced after a restored snapshot", rc, nx_error_message());
    CHECK(nx_scheme_instantiate(S, before, NULL, &x, 1, &r, 1) == 0, "traced before the snapshot: %s",
          nx_error_message());
    CHECK(nx_shape_finish(S) == 0 && !strchr(shape_str(S, y, NX_SHAPE_STYLE_SIZE), '4'),
          "y, made after, is untouched: %s", shape_str(S, y, NX_SHAPE_STYLE_SIZE));
    nx_scheme_free(sc), nx_scheme_free(before), nx_scheme_free(outer);
    inner_sc = NULL;
    nx_shape_session_free(S);
  }
}

int main(void) {
  test_rewound();
  test_refs();
  test_long_label();
  test_long_application();
  test_made_labels();
  test_error_names();
  test_given_labels();
  test_range_ids();
  test_printed();
  test_applied();
  test_trace_errors();
  test_apply_errors();
  test_value_restriction();
  test_rewind();
  return check_done();
}
