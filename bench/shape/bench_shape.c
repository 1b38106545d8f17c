/* SPDX-License-Identifier: Apache-2.0 */
/* Shape inference throughput: a chain of layers (compose with an inferred
   parameter, a broadcasting bias, a pointwise activation) built, inferred
   and closed, at 10^3, 10^4 and 10^5 layers. Every number printed comes from
   this one run: each size is run REPS times (REPS_BIG at 10^5), in a fresh
   session each time; the first (cold: its memory is fresh from the kernel)
   and the median are printed, the median of the process's CPU time beside
   the wall time (on a loaded machine the wall time counts other programs'
   turns, the CPU time does not), with the constraints processed per second
   at each size and the ratios of those rates between sizes (work linear in
   the size keeps the rate flat, ratio 1.0), and the 10^4-layer time against
   the 100 ms target, met or MISSED. Then snapshots: in a session holding 10^4 tensors (the
   chain's first 2000 layers, inferred at stage 1), a snapshot is taken, a
   trace (one more layer) runs, and the snapshot is restored, REPS_SNAP
   times; the medians of the take and the restore are printed against the
   1 ms target (met or MISSED), and against their peer in this run, building
   the session again from nothing. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nx_shape.h"

enum { REPS = 7, REPS_BIG = 3, REPS_SNAP = 21 };
static const double TARGET_MS = 100.0;

static double clock_s(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu_now(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

typedef struct {
  double total, close, cpu;
  long long ncons;
} run_t;

static int chain(int layers, run_t *r) {
  nx_shape_session *s;
  if (nx_shape_session_new(&s)) return 1;
  double c0 = cpu_now(), t0 = now();
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
  r->cpu = cpu_now() - c0;
  char buf[64] = "";
  if (!rc && nx_tensor_to_string(s, h, NX_SHAPE_STYLE_SIZE, buf, sizeof buf) < 0) rc = 1;
  if (!rc && strcmp(buf, "32|10")) rc = 1; /* the inferred shape of the last layer */
  if (rc) fprintf(stderr, "bench_shape: %s (result %s)\n", nx_error_message(), buf);
  r->total = t2 - t0;
  r->close = t2 - t1;
  r->ncons = (long long)nx_shape_constraint_count(s);
  nx_shape_session_free(s);
  return rc;
}

/* A session of 1 + 5 * layers tensors, at stage 1. */
static int build(nx_shape_session **out, int layers, nx_tensor **last) {
  nx_shape_session *s;
  if (nx_shape_session_new(&s)) return 1;
  nx_tensor *h, *w, *b, *m, *y;
  int rc = nx_tensor_term(s, "x", "32", "", "64", &h);
  for (int i = 0; i < layers && !rc; i++) {
    rc = nx_tensor_param(s, "w", NULL, "64", &w);
    if (!rc) rc = nx_tensor_param(s, "b", "", NULL, &b);
    if (!rc) rc = nx_tensor_compose(s, w, h, &m);
    if (!rc) rc = nx_tensor_binary(s, "+", m, b, &y);
    if (!rc) rc = nx_tensor_unary(s, "relu", y, &h);
  }
  *out = s;
  *last = h;
  return rc;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int snapshots(void) {
  enum { LAYERS = 2000 };
  nx_shape_session *s;
  nx_tensor *h;
  double take[REPS_SNAP], restore[REPS_SNAP], rebuild[REPS_SNAP];
  for (int k = 0; k < REPS_SNAP; k++) { /* the peer: the session built again */
    double t0 = now();
    int rc = build(&s, LAYERS, &h);
    rebuild[k] = now() - t0;
    nx_shape_session_free(s);
    if (rc) return 1;
  }
  if (build(&s, LAYERS, &h)) return 1;
  int64_t n0 = nx_shape_dump(s, NULL, 0);
  for (int k = 0; k < REPS_SNAP; k++) {
    nx_shape_snapshot *snap;
    nx_tensor *w, *b, *m, *y, *z;
    double t0 = now();
    int rc = nx_shape_snapshot_take(s, &snap);
    double t1 = now();
    if (!rc) rc = nx_tensor_param(s, "w", NULL, "10", &w);
    if (!rc) rc = nx_tensor_param(s, "b", "", NULL, &b);
    if (!rc) rc = nx_tensor_compose(s, w, h, &m);
    if (!rc) rc = nx_tensor_binary(s, "+", m, b, &y);
    if (!rc) rc = nx_tensor_unary(s, "relu", y, &z);
    double t2 = now();
    if (!rc) rc = nx_shape_snapshot_restore(s, snap);
    double t3 = now();
    nx_shape_snapshot_free(snap);
    if (rc) {
      fprintf(stderr, "bench_shape: %s\n", nx_error_message());
      return 1;
    }
    take[k] = t1 - t0;
    restore[k] = t3 - t2;
  }
  /* the restored state is the state before, in size at least (the suites check it bit for bit) */
  int bad = nx_shape_dump(s, NULL, 0) != n0;
  nx_shape_session_free(s);
  if (bad) {
    fprintf(stderr, "bench_shape: the restored state differs\n");
    return 1;
  }
  qsort(take, REPS_SNAP, sizeof *take, cmp_double);
  qsort(restore, REPS_SNAP, sizeof *restore, cmp_double);
  qsort(rebuild, REPS_SNAP, sizeof *rebuild, cmp_double);
  double mt = take[REPS_SNAP / 2] * 1e3, mr = restore[REPS_SNAP / 2] * 1e3, mb = rebuild[REPS_SNAP / 2] * 1e3;
  printf("snapshots of a session of %d tensors (%d runs): take median %.4f ms (max %.4f), restore after a one-layer "
         "trace median %.4f ms (max %.4f); building the session again (the peer) median %.2f ms\n",
         1 + 5 * LAYERS, REPS_SNAP, mt, take[REPS_SNAP - 1] * 1e3, mr, restore[REPS_SNAP - 1] * 1e3, mb);
  printf("snapshots vs the 1 ms target: take ratio %.3f, restore ratio %.3f: %s; vs building again: take %.5f, "
         "restore %.5f\n",
         mt / 1.0, mr / 1.0, mt < 1.0 && mr < 1.0 ? "met" : "MISSED", mt / mb, mr / mb);
  return 0;
}

static int cmp_run(const void *a, const void *b) {
  double x = ((const run_t *)a)->total, y = ((const run_t *)b)->total;
  return (x > y) - (x < y);
}

static int cmp_cpu(const void *a, const void *b) {
  double x = ((const run_t *)a)->cpu, y = ((const run_t *)b)->cpu;
  return (x > y) - (x < y);
}

int main(void) {
  int sizes[3] = {1000, 10000, 100000};
  double rate[3], t4_cold = 0, t4_med = 0, t4_cpu = 0;
  printf("shape inference, a chain of layers built, inferred and closed (%d runs per size, %d at 10^5, in this "
         "process)\n", REPS, REPS_BIG);
  for (int i = 0; i < 3; i++) {
    run_t runs[REPS];
    int reps = sizes[i] > 10000 ? REPS_BIG : REPS;
    for (int k = 0; k < reps; k++)
      if (chain(sizes[i], &runs[k])) return 1;
    run_t cold = runs[0];
    qsort(runs, (size_t)reps, sizeof *runs, cmp_cpu);
    double cpu = runs[reps / 2].cpu;
    qsort(runs, (size_t)reps, sizeof *runs, cmp_run);
    run_t med = runs[reps / 2];
    rate[i] = (double)med.ncons / med.total;
    printf("layers %6d: cold %8.2f ms, median %8.2f ms (closing %7.2f ms), median CPU %8.2f ms, %9lld constraints "
           "(%.1f per layer), %.3g constraints/s\n",
           sizes[i], cold.total * 1e3, med.total * 1e3, med.close * 1e3, cpu * 1e3, med.ncons,
           (double)med.ncons / sizes[i], rate[i]);
    if (sizes[i] == 10000) t4_cold = cold.total * 1e3, t4_med = med.total * 1e3, t4_cpu = cpu * 1e3;
  }
  printf("10^4 layers vs the %.0f ms target: cold %.2f ms (ratio %.2f), median %.2f ms (ratio %.2f), median CPU %.2f "
         "ms (ratio %.2f): %s\n",
         TARGET_MS, t4_cold, t4_cold / TARGET_MS, t4_med, t4_med / TARGET_MS, t4_cpu, t4_cpu / TARGET_MS,
         t4_med < TARGET_MS ? "met" : "MISSED");
  printf("constraints/s: 10^3 %.3g, 10^4 %.3g, 10^5 %.3g; ratio 10^4/10^3 = %.2f, 10^5/10^4 = %.2f (1.0 is linear)\n",
         rate[0], rate[1], rate[2], rate[1] / rate[0], rate[2] / rate[1]);
  return snapshots();
}
