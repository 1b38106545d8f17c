/* SPDX-License-Identifier: Apache-2.0 */
/* The median of a benchmark's rounds, for the benchmarks that report medians. */
#ifndef NX_BENCH_MEDIAN_H
#define NX_BENCH_MEDIAN_H

#include <stdlib.h>

static int bench_by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of the n times t (sorted in place). */
static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, bench_by_value);
  return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

#endif
