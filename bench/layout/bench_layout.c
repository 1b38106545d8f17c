/* SPDX-License-Identifier: Apache-2.0 */
/* bench_layout: the cost of movements and of nx_layout_is_distinct and
   nx_layout_shares_byte, on the views the layouts issue names and on
   adversarial layouts whose exact search runs to its bound. Prints
   "name ns_per_call" lines; run.py prints them against the targets. */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "nx_layout.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile long sink;

/* The best of five rounds of `reps` calls, per call. */
#define TIME(name, reps, body)                                   \
  do {                                                           \
    double best = 1e30;                                          \
    for (int round = 0; round < 5; round++) {                    \
      double t0 = now();                                         \
      for (long i = 0; i < (reps); i++) { body; }                \
      double t = now() - t0;                                     \
      if (t < best) best = t;                                    \
    }                                                            \
    printf("%s %.1f\n", name, best * 1e9 / (reps));              \
  } while (0)

int main(void) {
  nx_layout base, t, v4, r;
  nx_move m;
  int64_t sq[2] = {1000, 1000};
  nx_layout_contiguous(sq, 2, &base);
  int perm[2] = {1, 0};
  nx_move_permute(&m, perm, 2);
  nx_layout_move(&m, &base, &t);
  TIME("distinct_transposed_1000x1000", 1000000, sink += nx_layout_is_distinct(&t));

  /* numpy's a[::2, 1:, ::-1, ::3] of a (16, 32, 64, 128) array. */
  int64_t s4[4] = {16, 32, 64, 128}, st[4] = {0, 1, NX_SLICE_NONE, 0}, sp[4] = {NX_SLICE_NONE, NX_SLICE_NONE,
                                                                                NX_SLICE_NONE, NX_SLICE_NONE};
  int64_t stp[4] = {2, 1, -1, 3};
  nx_layout_contiguous(s4, 4, &v4);
  nx_move_slice(&m, st, sp, stp, 4);
  nx_layout_move(&m, &v4, &v4);
  TIME("distinct_sliced_4d", 1000000, sink += nx_layout_is_distinct(&v4));
  TIME("move_slice_4d", 1000000, sink += nx_layout_move(&m, &v4, &r));
  TIME("move_permute_2d", 1000000, { nx_move_permute(&m, perm, 2); sink += nx_layout_move(&m, &base, &r); });
  int64_t flat[1] = {1000000};
  TIME("move_reshape_2d_to_1d", 1000000, { nx_move_reshape(&m, flat, 1); sink += nx_layout_move(&m, &base, &r); });

  /* Adversarial: strides that fail the sufficient test and whose equation
     has no solution, so the search must exhaust its candidates. */
  int64_t ae[6] = {40, 40, 40, 40, 40, 40}, as[6] = {1009, 1013, 1019, 1021, 1031, 1033};
  nx_layout adv;
  nx_layout_make(6, ae, as, 0, &adv);
  TIME("distinct_adversarial_6d", 200, sink += nx_layout_is_distinct(&adv));
  int64_t a1[3] = {64, 64, 64}, s1[3] = {7, 11, 13}, s2[3] = {6, 10, 14};
  nx_layout x, y;
  nx_layout_make(3, a1, s1, 0, &x);
  nx_layout_make(3, a1, s2, 3, &y);
  TIME("shares_byte_adversarial_3d", 200, sink += nx_layout_shares_byte(&x, 8, &y, 8));
  int64_t h[2] = {1000, 1000}, h1[2] = {1000, 7}, h2[2] = {1000, 3};
  nx_layout_make(2, h, h1, 0, &x);
  nx_layout_make(2, h, h2, 1, &y);
  TIME("shares_byte_slices_x7_x3", 20000, sink += nx_layout_shares_byte(&x, 32, &y, 32));
  return 0;
}
