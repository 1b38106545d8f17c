/* SPDX-License-Identifier: Apache-2.0 */
/* Property: instantiating a scheme solves exactly as inlining the traced
   body does. Each case is a random tensor program: leaves, shared
   parameters made before the function, and a function of random
   operations (pointwise, compose, transpose, einsum, parameters and
   captures made inside it) applied twice. The program runs twice in fresh
   sessions, once calling the body at each application and once tracing it
   and instantiating the scheme; closing then gives every tensor the
   program can see the same shape in both, or both fail at the same step
   with the same reason (or the trace fails: an error that holds for every
   argument). CASE=n in the environment runs case n alone, printing its
   steps.

   Then the same programs with the scheme's reduced form switched on (the
   library ships it off): it must reduce some schemes, and it disagrees
   with inlining on at most the few programs that are why it is off
   (closing settles the body's intermediates greedily; docs/schemes.md).
   This keeps the switched-off code run under the sanitizers and catches
   it growing worse.

   Then the memo of applications to ground arguments: each program applied
   three times (the third to the first's arguments) with the memo on and
   off, the whole solver state (nx_shape_dump) compared after the
   applications and after closing; the memo must be used on some programs
   and change nothing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "nx_scheme.h"

extern bool nx__scheme_reduce_on; /* internal: the reduced form's switch */
extern bool nx__scheme_memo_on;   /* internal: the memo's switch */
extern long nx__scheme_memo_hits; /* internal: applications made from a memo */
static int reduced_schemes;

enum { OP_UNARY, OP_ADD, OP_COMPOSE, OP_TRANSPOSE, OP_PERMUTE, OP_SUMLAST, OP_PARAM_MUL, OP_CAPTURE, OP_FILL, OP_NOPS };

typedef struct {
  int op, a, b; /* operands: indices into the body's tensors (mod their count), 1000: the newest */
  int64_t k;
} step;

typedef struct {
  int nsteps, nargs, nres;
  step st[12];
  int res[2];
  nx_tensor **shared;
  int nshared;
} body;

static uint64_t rng;
static unsigned rnd(unsigned n) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (unsigned)(rng % n);
}

static int run_body(void *ctx, nx_shape_session *s, nx_tensor *const *args, int n, nx_tensor **res, int *nres) {
  const body *b = ctx;
  nx_tensor *t[40];
  int nt = 0;
  for (int i = 0; i < n; i++) t[nt++] = args[i];
  for (int i = 0; i < b->nshared; i++) t[nt++] = b->shared[i];
  for (int i = 0; i < b->nsteps; i++) {
    const step *x = &b->st[i];
    nx_tensor *A = x->a >= 1000 ? t[nt - 1] : t[x->a % nt], *B = t[x->b % nt], *out = NULL;
    int rc = 0;
    switch (x->op) {
    case OP_UNARY: rc = nx_tensor_unary(s, "relu", A, &out); break;
    case OP_ADD: rc = nx_tensor_binary(s, "add", A, B, &out); break;
    case OP_COMPOSE: rc = nx_tensor_compose(s, A, B, &out); break;
    case OP_TRANSPOSE: rc = nx_tensor_transpose(s, A, &out); break;
    case OP_PERMUTE: rc = nx_tensor_einsum(s, "...|...->ab => ...|...->ba", &A, 1, &out); break;
    case OP_SUMLAST: rc = nx_tensor_einsum(s, "...|...->...a => ...|...->...", &A, 1, &out); break;
    case OP_PARAM_MUL: {
      nx_tensor *p;
      rc = nx_tensor_param(s, "p", NULL, x->k ? "3" : "2", &p);
      if (!rc) rc = nx_tensor_compose(s, p, A, &out);
      break;
    }
    case OP_CAPTURE: { /* a capture made inside the function, then set */
      rc = nx_tensor_einsum(s, "...|...->...c => ...|...->...c", &A, 1, &out);
      if (!rc) rc = nx_tensor_set_dim(s, nx_tensor_spec_dim(out, "c"), x->k);
      break;
    }
    default: {
      nx_tensor *f;
      rc = nx_tensor_fill(s, "fill", 6, "", NULL, NULL, &f);
      if (!rc) rc = nx_tensor_binary(s, "mul", A, f, &out);
    }
    }
    if (rc) return rc;
    t[nt++] = out;
  }
  *nres = b->nres;
  for (int j = 0; j < b->nres; j++) res[j] = b->res[j] >= 1000 ? t[nt - 1] : t[b->res[j] % nt];
  return 0;
}

static const char *axes(unsigned pick) {
  static const char *const list[] = {"", "2", "3", "2,3", "", "1", "rgb=3", NULL, "3", "2", "", NULL};
  return list[pick % 12];
}

typedef struct {
  char shapes[24][96];
  int nshapes;
  int failed_at; /* 0: none; 1 first application, 2 second, 3 closing */
  bool at_trace; /* the scheme's trace failed: an error that does not depend on the arguments */
  char reason[160];
  char msg[400];
} outcome;

/* The reason of a shape error: what follows the last prefix, to the first
   '(' (details name variables by id). */
static void reason_of(const char *msg, char *out, size_t cap) {
  const char *r = msg;
  for (const char *p = msg; (p = strstr(p, ": ")) && p < msg + 400; p += 2) {
    const char *q = p + 2;
    if (strncmp(q, "nx_", 3) && strncmp(q, "applying", 8)) {
      r = q;
      break;
    }
  }
  size_t n = strcspn(r, "(;");
  snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), r);
}

/* The session's whole state appended to *dump (NULL: not asked). */
static void add_dump(nx_shape_session *s, char **dump) {
  if (!dump) return;
  int64_t n = nx_shape_dump(s, NULL, 0);
  size_t had = *dump ? strlen(*dump) : 0;
  char *d = realloc(*dump, had + (size_t)n + 1);
  if (!d) return;
  nx_shape_dump(s, d + had, (size_t)n + 1);
  *dump = d;
}

/* One run of the program (napps applications; the third, if any, to the
   first's arguments); dump, if not NULL, gets the solver state after the
   applications and after closing. */
static void run_n(uint64_t seed, const body *tmpl, bool scheme, outcome *o, int napps, char **dump) {
  memset(o, 0, sizeof *o);
  nx_shape_session *s;
  if (nx_shape_session_new(&s)) return;
  rng = seed;
  body b = *tmpl;
  nx_tensor *leaves[6], *shared[3];
  for (int i = 0; i < 6; i++) {
    unsigned r1 = rnd(12), r2 = rnd(12), r3 = rnd(12);
    if (nx_tensor_term(s, NULL, axes(r1) ? axes(r1) : "2", axes(r2), axes(r3), &leaves[i])) goto done;
  }
  for (int i = 0; i < 3; i++) {
    unsigned r1 = rnd(12), r2 = rnd(12);
    if (nx_tensor_param(s, NULL, axes(r1) ? axes(r1) : "", axes(r2) ? axes(r2) : "3", &shared[i])) goto done;
  }
  b.shared = shared;
  b.nshared = rnd(4);
  nx_scheme *sc = NULL;
  nx_tensor *res[2][2] = {{NULL, NULL}, {NULL, NULL}};
  char msg[1200];
  nx_tensor *first[2] = {NULL, NULL}, *extra[2] = {NULL, NULL};
  for (int app = 0; app < napps && !o->failed_at; app++) {
    nx_tensor *args[2] = {leaves[rnd(6)], leaves[rnd(6)]};
    if (app == 0) first[0] = args[0], first[1] = args[1];
    if (app == 2) args[0] = first[0], args[1] = first[1];
    int rc, nres = 0;
    if (scheme) {
      rc = sc ? 0 : nx_scheme_trace(s, "f", b.nargs, run_body, &b, &sc);
      if (!rc && app == 0) {
        const char *why = NULL;
        reduced_schemes += nx_scheme_reduced(sc, &why) == 1;
      }
      if (!rc) rc = nx_scheme_instantiate(s, sc, NULL, args, b.nargs, app < 2 ? res[app] : extra, b.nres);
    } else
      rc = run_body(&b, s, args, b.nargs, app < 2 ? res[app] : extra, &nres);
    if (rc) {
      o->failed_at = app + 1;
      snprintf(msg, sizeof msg, "%s", nx_error_message());
      snprintf(o->msg, sizeof o->msg, "%.399s", msg);
      o->at_trace = !strncmp(msg, "tracing", 7);
      reason_of(msg, o->reason, sizeof o->reason);
    }
  }
  add_dump(s, dump);
  if (!o->failed_at && nx_shape_finish(s)) {
    o->failed_at = 3;
    snprintf(msg, sizeof msg, "%s", nx_error_message());
    reason_of(msg, o->reason, sizeof o->reason);
  }
  if (!o->failed_at) {
    for (int i = 0; i < 6; i++) snprintf(o->shapes[o->nshapes++], 96, "%.95s", shape_str(s, leaves[i], NX_SHAPE_STYLE_SIZE));
    for (int i = 0; i < 3; i++) snprintf(o->shapes[o->nshapes++], 96, "%.95s", shape_str(s, shared[i], NX_SHAPE_STYLE_SIZE));
    for (int a = 0; a < 2; a++)
      for (int j = 0; j < b.nres; j++) snprintf(o->shapes[o->nshapes++], 96, "%.95s", shape_str(s, res[a][j], NX_SHAPE_STYLE_SIZE));
  }
  add_dump(s, dump);
  nx_scheme_free(sc);
done:
  nx_shape_session_free(s);
}

static void run(uint64_t seed, const body *tmpl, bool scheme, outcome *o) { run_n(seed, tmpl, scheme, o, 2, NULL); }

static void random_body(body *b) {
  memset(b, 0, sizeof *b);
  b->nargs = 1 + (int)rnd(2);
  b->nsteps = 1 + (int)rnd(8);
  for (int i = 0; i < b->nsteps; i++) {
    step *x = &b->st[i];
    x->op = (int)rnd(OP_NOPS + 4);
    if (x->op >= OP_NOPS) x->op = x->op - OP_NOPS; /* pointwise and compose twice as often */
    x->a = (int)rnd(40), x->b = (int)rnd(40);
    x->k = 1 + (int)rnd(3);
    if (x->op == OP_PARAM_MUL) x->k = rnd(2);
    /* mostly on the newest tensor, so the body is a chain */
    if (rnd(3)) x->a = 1000;
  }
  b->nres = 1 + (int)rnd(2);
  b->res[0] = 1000; /* the newest tensor */
  b->res[1] = (int)rnd(40);
}

/* Runs the cases; with `strict` every disagreement fails the suite, else
   they are counted. Returns the disagreements. */
static int check_cases(int cases, bool strict, int *agree_ok, int *agree_fail) {
  int disagree = 0;
  for (int c = 0; c < cases; c++) {
    rng = 0x9E3779B97F4A7C15ull ^ (uint64_t)(c + 1) * 0x2545F4914F6CDD1Dull;
    body b;
    random_body(&b);
    if (getenv("CASE") && atoi(getenv("CASE")) != c) continue;
    if (getenv("CASE"))
      for (int i = 0; i < b.nsteps; i++) printf("step %d: op %d a %d b %d k %lld\n", i, b.st[i].op, b.st[i].a, b.st[i].b, (long long)b.st[i].k);
    uint64_t seed = rng ^ 0x5DEECE66Dull;
    outcome inl, sch;
    run(seed, &b, false, &inl);
    run(seed, &b, true, &sch);
    /* an error the trace finds holds for every argument: the body meets one too, maybe another first */
    bool same = inl.failed_at == sch.failed_at && inl.nshapes == sch.nshapes &&
                (sch.at_trace || !strcmp(inl.reason, sch.reason));
    for (int i = 0; same && i < inl.nshapes; i++) same = !strcmp(inl.shapes[i], sch.shapes[i]);
    if (strict)
      CHECK(same, "case %d: inline failed at %d (%s), scheme at %d (%s)%s%s%s%s", c, inl.failed_at, inl.msg,
            sch.failed_at, sch.msg, inl.nshapes > 9 ? "; inline result " : "", inl.nshapes > 9 ? inl.shapes[9] : "",
            sch.nshapes > 9 ? " scheme result " : "", sch.nshapes > 9 ? sch.shapes[9] : "");
    else if (!same)
      printf("reduced form: case %d disagrees (inline failed at %d, scheme at %d)\n", c, inl.failed_at, sch.failed_at);
    disagree += !same;
    if (same && inl.failed_at) ++*agree_fail;
    else if (same) ++*agree_ok;
  }
  return disagree;
}

/* The memo against full replays: the same runs with it on and off leave
   the same state, after the applications and after closing. */
static void check_memo(int cases) {
  long hits0 = nx__scheme_memo_hits;
  for (int c = 0; c < cases; c++) {
    rng = 0x9E3779B97F4A7C15ull ^ (uint64_t)(c + 1) * 0x2545F4914F6CDD1Dull;
    body b;
    random_body(&b);
    uint64_t seed = rng ^ 0x5DEECE66Dull;
    outcome on, off;
    char *d_on = NULL, *d_off = NULL;
    long h = nx__scheme_memo_hits;
    run_n(seed, &b, true, &on, 3, &d_on);
    bool hit = nx__scheme_memo_hits != h;
    nx__scheme_memo_on = false;
    run_n(seed, &b, true, &off, 3, &d_off);
    nx__scheme_memo_on = true;
    CHECK(!d_on == !d_off && (!d_on || !strcmp(d_on, d_off)), "case %d: the memo (used: %d) changed the state", c, hit);
    CHECK(on.failed_at == off.failed_at && !strcmp(on.msg, off.msg), "case %d: the memo changed the outcome: %s / %s", c,
          on.msg, off.msg);
    free(d_on);
    free(d_off);
  }
  printf("memo: %ld applications of %d programs made from a memo\n", nx__scheme_memo_hits - hits0, cases);
  CHECK(nx__scheme_memo_hits - hits0 >= cases / 20, "the memo was used only %ld times", nx__scheme_memo_hits - hits0);
}

int main(int argc, char **argv) {
  int cases = argc > 1 ? atoi(argv[1]) : 1000;
  int agree_ok = 0, agree_fail = 0;
  check_cases(cases, true, &agree_ok, &agree_fail);
  printf("%d cases: %d closed alike, %d failed alike\n", cases, agree_ok, agree_fail);
  /* the property means something only if both outcomes are common */
  CHECK(agree_ok >= cases / 10, "only %d of %d programs closed", agree_ok, cases);
  CHECK(agree_fail >= cases / 20, "only %d of %d programs failed", agree_fail, cases);
  CHECK(reduced_schemes == 0, "%d schemes reduced with the reduction off", reduced_schemes);
  nx__scheme_reduce_on = true;
  int ok2 = 0, fail2 = 0, disagree = check_cases(cases, false, &ok2, &fail2);
  nx__scheme_reduce_on = false;
  printf("reduced form on: %d schemes reduced, %d of %d cases disagree with inlining\n", reduced_schemes, disagree,
         cases);
  CHECK(reduced_schemes > 0, "the reduced form reduced no scheme");
  CHECK(disagree <= 3, "the reduced form disagrees with inlining on %d cases (3 when it was switched off)", disagree);
  check_memo(cases);
  return check_done();
}
