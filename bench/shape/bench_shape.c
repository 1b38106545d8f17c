/* Shape inference throughput: a chain of layers (compose with an inferred
   parameter, a broadcasting bias, a pointwise activation) built, inferred
   and closed, at 10^3, 10^4 and 10^5 layers. Prints the time and the
   constraints processed per second at each size, and the ratios between
   sizes (linear growth keeps the per-constraint rate flat). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <time.h>

#include "nx_shape.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int chain(int layers, double *secs, double *close_secs, long long *ncons) {
  nx_shape_session *s;
  if (nx_shape_session_new(&s)) return 1;
  double t0 = now();
  nx_tensor *h, *w, *b, *m, *y;
  int rc = nx_tensor_term(s, "x", "32", "", "64", &h);
  for (int i = 0; i < layers && !rc; i++) {
    rc = nx_tensor_param(s, "w", NULL, i + 1 == layers ? "10" : "64", &w);
    if (!rc) rc = nx_tensor_param(s, "b", "", NULL, &b);
    if (!rc) rc = nx_tensor_compose(s, w, h, &m);
    if (!rc) rc = nx_tensor_binary(s, "+", m, b, &y);
    if (!rc) rc = nx_tensor_unary(s, "relu", y, &h);
  }
  double t1 = now();
  if (!rc) rc = nx_shape_finish(s);
  double t2 = now();
  char buf[64] = "";
  if (!rc) nx_tensor_to_string(s, h, NX_STYLE_SIZE, buf, sizeof buf);
  if (rc) fprintf(stderr, "bench_shape: %s\n", nx_error_message());
  *secs = t2 - t0;
  *close_secs = t2 - t1;
  *ncons = (long long)nx_shape_constraint_count(s);
  nx_shape_session_free(s);
  return rc;
}

int main(void) {
  int sizes[3] = {1000, 10000, 100000};
  double rate[3];
  for (int i = 0; i < 3; i++) {
    double t, tc;
    long long n;
    if (chain(sizes[i], &t, &tc, &n)) return 1;
    rate[i] = (double)n / t;
    printf("layers %6d: %8.2f ms (closing %7.2f ms), %9lld constraints, %.3g constraints/s\n", sizes[i], t * 1e3,
           tc * 1e3, n, rate[i]);
    if (sizes[i] == 10000) printf("10^4-layer chain infers and closes in %.2f ms (target < 100 ms): %s\n", t * 1e3,
                                 t < 0.1 ? "ok" : "SLOW");
  }
  printf("rate ratio 10^4/10^3 = %.2f, 10^5/10^4 = %.2f (1.0 is linear)\n", rate[1] / rate[0], rate[2] / rate[1]);
  return 0;
}
