/* SPDX-License-Identifier: Apache-2.0 */
/* Shape schemes against their peer, the body they stand for, measured in the
   same run: a 50-operation function (ten blocks of compose with a shared
   parameter, a bias made inside, relu and a residual add)
   applied to arguments in two fresh sessions side by side, by running its
   body in one and instantiating its scheme in the other (traced there first,
   timed apart), the applications alternating. It prints the medians and the ratios
   body / instantiate (target >= 10) and trace / body (target <= 3), each
   met or MISSED, in thread CPU time, and checks in every round that each
   instantiated result closes to the shape of the body's result beside it. */
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

static void make(setup *u) {
  nx_shape_session_new(&u->s);
  for (int i = 0; i < BLOCKS; i++) nx_tensor_param(u->s, "w", i ? "64" : "32", "64", &u->w[i]);
  for (int j = 0; j < APPS; j++) nx_tensor_term(u->s, "x", "8", "", "32", &u->x[j]);
}

int main(void) {
  double tb[ROUNDS], ti[ROUNDS], tt[ROUNDS];
  char shape_b[64] = "", shape_i[64] = "";
  int bad = 0, differ = 0;
  const char *why = NULL;
  for (int r = 0; r < ROUNDS; r++) {
    /* two sessions side by side: the body's and the scheme's, their
       applications alternating so that the machine's load hits both alike */
    setup ub, us;
    make(&ub);
    make(&us);
    nx_tensor *res[NX_SCHEME_MAX_RESULTS], *resi[NX_SCHEME_MAX_RESULTS], *rb[APPS] = {0}, *ri[APPS] = {0};
    int nr;
    nx_scheme *sc = NULL;
    double t0 = now();
    bad |= nx_scheme_trace(us.s, "block", 1, body, us.w, &sc);
    tt[r] = now() - t0;
    if (!r && sc && nx_scheme_reduced(sc, &why) != 1) printf("bench_scheme: the scheme replays its whole record: %s\n", why);
    double sb = 0, si = 0;
    for (int j = 0; j < APPS; j++) {
      t0 = now();
      bad |= body(ub.w, ub.s, &ub.x[j], 1, res, &nr);
      double t1 = now();
      resi[0] = NULL;
      bad |= nx_scheme_instantiate(us.s, sc, "x", &us.x[j], 1, resi, 1);
      double t2 = now();
      sb += t1 - t0, si += t2 - t1;
      rb[j] = res[0], ri[j] = resi[0];
    }
    tb[r] = sb / APPS, ti[r] = si / APPS;
    bad |= nx_shape_finish(ub.s) | nx_shape_finish(us.s);
    for (int j = 0; j < APPS && !bad; j++) {
      nx_tensor_to_string(ub.s, rb[j], NX_SHAPE_STYLE_SIZE, shape_b, sizeof shape_b);
      nx_tensor_to_string(us.s, ri[j], NX_SHAPE_STYLE_SIZE, shape_i, sizeof shape_i);
      differ += strcmp(shape_b, shape_i) != 0 || strcmp(shape_b, "8|64") != 0;
    }
    nx_scheme_free(sc);
    nx_shape_session_free(ub.s);
    nx_shape_session_free(us.s);
  }
  if (bad || differ) {
    printf("bench_scheme: %d instantiated results differ from the body's (last: %s against %s), or a step failed\n",
           differ, shape_i, shape_b);
    return 1;
  }
  double b = median(tb, ROUNDS), i = median(ti, ROUNDS), t = median(tt, ROUNDS);
  printf("shape schemes, a 50-operation function (median of %d rounds, %d applications each; all %d results\n"
         "  closed alike in both sessions, %s):\n", ROUNDS, APPS, ROUNDS * APPS, shape_b);
  printf("  body run        %8.1f us\n", b * 1e6);
  printf("  instantiate     %8.1f us   body / instantiate = %.2fx (target >= 10x: %s)\n", i * 1e6, b / i,
         b / i >= 10 ? "met" : "MISSED");
  printf("  trace           %8.1f us   trace / body = %.2fx (target <= 3x: %s)\n", t * 1e6, t / b, t / b <= 3 ? "met" : "MISSED");
  return 0;
}
