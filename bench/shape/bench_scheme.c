/* SPDX-License-Identifier: Apache-2.0 */
/* Shape schemes against their peer, the body they stand for, measured in the
   same run: a 50-operation function (ten blocks of compose with a shared
   parameter, a bias made inside, relu and a residual add)
   applied to arguments in two fresh sessions side by side, by running its
   body in one and instantiating its scheme in the other (traced there first,
   timed apart), the applications alternating. It prints the medians and the ratios
   body / instantiate (target >= 10) and trace / body (target <= 3), each
   met or MISSED, in thread CPU time, and checks in every round that each
   instantiated result closes to the shape of the body's result beside it.

   The arguments are ground (8|()->32), so an application after the first
   is made from the memo of the first (docs/schemes.md); the target is
   judged on all twenty applications of a round, the first (a full replay,
   recorded) included. It also prints the first and the later ones apart,
   and the same twenty applications to arguments whose output row is open
   (8|()->..v..), where no memo applies and every application replays the
   whole record. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../median.h"
#include "nx_scheme.h"

enum { BLOCKS = 10, ROUNDS = 41, APPS = 20 };

/* The thread's CPU time: on a loaded machine, time the thread waits for a
   core counts against neither peer. */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* five operations a block, fifty in all */
static int body(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  nx_tensor *const *w = ctx, *h = a[0];
  (void)n;
  *nr = 1;
  for (int i = 0; i < BLOCKS; i++) {
    nx_tensor *y, *b, *z, *t;
    int rc = nx_tensor_compose(s, w[i], h, &y);
    if (!rc) rc = nx_tensor_param(s, "b", "", NULL, &b);
    if (!rc) rc = nx_tensor_binary(s, "+", y, b, &z);
    if (!rc) rc = nx_tensor_unary(s, "relu", z, &t);
    if (!rc) rc = nx_tensor_binary(s, "+", t, y, &h);
    if (rc) return rc;
  }
  r[0] = h;
  return 0;
}

typedef struct {
  nx_shape_session *s;
  nx_tensor *w[BLOCKS], *x[APPS];
} setup;

/* ground: the arguments' shapes given whole; else their output rows open */
static void make(setup *u, bool ground) {
  nx_shape_session_new(&u->s);
  for (int i = 0; i < BLOCKS; i++) nx_tensor_param(u->s, "w", i ? "64" : "32", "64", &u->w[i]);
  for (int j = 0; j < APPS; j++) nx_tensor_term(u->s, "x", "8", "", ground ? "32" : NULL, &u->x[j]);
}

/* One round: the body in one session, the scheme (traced first) in the
   other, applications alternating. tb, ti: each application's time; tt:
   the trace's. Returns the results that differ, or -1 if a step failed. */
static int round_of(bool ground, double *tb, double *ti, double *tt, char *shape_b, char *shape_i) {
  setup ub, us;
  make(&ub, ground);
  make(&us, ground);
  nx_tensor *res[NX_SCHEME_MAX_RESULTS], *resi[NX_SCHEME_MAX_RESULTS], *rb[APPS] = {0}, *ri[APPS] = {0};
  int nr, bad = 0, differ = 0;
  nx_scheme *sc = NULL;
  double t0 = now();
  bad |= nx_scheme_trace(us.s, "block", 1, body, us.w, &sc);
  *tt = now() - t0;
  for (int j = 0; j < APPS && !bad; j++) {
    t0 = now();
    bad |= body(ub.w, ub.s, &ub.x[j], 1, res, &nr);
    double t1 = now();
    resi[0] = NULL;
    bad |= nx_scheme_instantiate(us.s, sc, "x", &us.x[j], 1, resi, 1);
    double t2 = now();
    tb[j] = t1 - t0, ti[j] = t2 - t1;
    rb[j] = res[0], ri[j] = resi[0];
  }
  bad |= nx_shape_finish(ub.s) | nx_shape_finish(us.s);
  for (int j = 0; j < APPS && !bad; j++) {
    nx_tensor_to_string(ub.s, rb[j], NX_SHAPE_STYLE_SIZE, shape_b, 64);
    nx_tensor_to_string(us.s, ri[j], NX_SHAPE_STYLE_SIZE, shape_i, 64);
    differ += strcmp(shape_b, shape_i) != 0 || strcmp(shape_b, "8|64") != 0;
  }
  nx_scheme_free(sc);
  nx_shape_session_free(ub.s);
  nx_shape_session_free(us.s);
  return bad ? -1 : differ;
}

static double mean(const double *x, int from, int to) {
  double s = 0;
  for (int i = from; i < to; i++) s += x[i];
  return s / (to - from);
}

int main(void) {
  /* per round: all applications, the first, the later ones; then the open arguments' */
  double tb[4][ROUNDS], ti[4][ROUNDS], tt[ROUNDS], t_open;
  char shape_b[64] = "", shape_i[64] = "";
  int bad = 0, differ = 0;
  const char *why = NULL;
  for (int r = 0; r < ROUNDS; r++) {
    double b[APPS], i[APPS];
    int d = round_of(true, b, i, &tt[r], shape_b, shape_i);
    tb[0][r] = mean(b, 0, APPS), ti[0][r] = mean(i, 0, APPS);
    tb[1][r] = b[0], ti[1][r] = i[0];
    tb[2][r] = mean(b, 1, APPS), ti[2][r] = mean(i, 1, APPS);
    int d2 = d < 0 ? d : round_of(false, b, i, &t_open, shape_b, shape_i);
    tb[3][r] = mean(b, 0, APPS), ti[3][r] = mean(i, 0, APPS);
    if (d < 0 || d2 < 0) bad = 1;
    else differ += d + d2;
  }
  if (bad || differ) {
    printf("bench_scheme: %d instantiated results differ from the body's (last: %s against %s), or a step failed\n",
           differ, shape_i, shape_b);
    return 1;
  }
  {
    nx_shape_session *s;
    nx_scheme *sc = NULL;
    setup u;
    make(&u, true);
    s = u.s;
    if (!nx_scheme_trace(s, "block", 1, body, u.w, &sc) && nx_scheme_reduced(sc, &why) != 1)
      printf("bench_scheme: the scheme replays its whole record (%s), or a memo of it\n", why);
    nx_scheme_free(sc);
    nx_shape_session_free(s);
  }
  double b = median(tb[0], ROUNDS), i = median(ti[0], ROUNDS), t = median(tt, ROUNDS);
  printf("shape schemes, a 50-operation function (median of %d rounds, %d applications each; all %d results\n"
         "  closed alike in both sessions, %s):\n", ROUNDS, APPS, 2 * ROUNDS * APPS, shape_b);
  printf("  body run        %8.1f us\n", b * 1e6);
  printf("  instantiate     %8.1f us   body / instantiate = %.2fx (target >= 10x: %s)\n", i * 1e6, b / i,
         b / i >= 10 ? "met" : "MISSED");
  const char *what[4] = {"", "the first (replayed and recorded)", "the later ones (from the memo)",
                         "open arguments (no memo: replayed)"};
  for (int k = 1; k < 4; k++) {
    double bk = median(tb[k], ROUNDS), ik = median(ti[k], ROUNDS);
    printf("    %-36s body %7.1f us, instantiate %7.1f us: %.2fx\n", what[k], bk * 1e6, ik * 1e6, bk / ik);
  }
  printf("  trace           %8.1f us   trace / body = %.2fx (target <= 3x: %s)\n", t * 1e6, t / b, t / b <= 3 ? "met" : "MISSED");
  return 0;
}
