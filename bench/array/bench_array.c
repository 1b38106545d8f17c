/* SPDX-License-Identifier: Apache-2.0 */
/* bench_array: the door's overhead on a 3-operand call of 1 element (its
   claims, waits and the rest separately), and to_device host -> OpenCL and
   transfer of contiguous arrays against submit_copy of the same bytes,
   interleaved round by round, to_device both warm and in steady state.
   Prints "name value" lines; run.py prints the ratios. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nx_array.h"
#include "../median.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static nx_answer empty_kernel(void *ctx, const nx_operand *ops, int nw, int nr) {
  (void)ctx, (void)ops, (void)nw, (void)nr;
  return NX_DONE;
}


#define BEST(var, reps, body)                               \
  do {                                                      \
    var = 1e30;                                             \
    for (int round = 0; round < 5; round++) {               \
      double t0 = now();                                    \
      for (long i = 0; i < (reps); i++) { body; }           \
      double t = (now() - t0) / (reps);                     \
      if (t < var) var = t;                                 \
    }                                                       \
  } while (0)

int main(void) {
  int64_t one[1] = {1};
  nx_array *z, *x, *y;
  nx_array_host(NX_FLOAT32, one, 1, &z);
  nx_array_host(NX_FLOAT32, one, 1, &x);
  nx_array_host(NX_FLOAT32, one, 1, &y);
  nx_array *w[1] = {z}, *r[2] = {x, y};
  nx_buffer *bs[3] = {nx_array_buffer(z), nx_array_buffer(x), nx_array_buffer(y)};
  bool wr[3] = {true, false, false};
  nx_claim_answer ans[3];
  double t_door, t_add, t_claims, t_waits;
  BEST(t_door, 1000000, nx_door_host(w, 1, r, 2, empty_kernel, NULL));
  BEST(t_add, 1000000, nx_cpu_add(z, x, y));
  BEST(t_claims, 1000000, { nx_rig_claim(3, bs, wr, ans); nx_rig_release(3, bs, wr); });
  BEST(t_waits, 1000000, { for (int k = 0; k < 3; k++) nx_buffer_wait(bs[k], k ? NX_ACCESS_READ : NX_ACCESS_READ_WRITE); });
  printf("door_empty_kernel_ns %.1f\n", t_door * 1e9);
  printf("door_claims_ns %.1f\n", t_claims * 1e9);
  printf("door_waits_ns %.1f\n", t_waits * 1e9);
  printf("door_checks_and_answer_ns %.1f\n", (t_door - t_claims - t_waits) * 1e9);
  printf("cpu_add_1_element_ns %.1f\n", t_add * 1e9);

  nx_device *cl;
  if (nx_rig_find("opencl:0", &cl) != 0) return 0;
  int64_t n[1] = {1 << 22}; /* 16 MiB of float32 */
  nx_array *h, *h2, *d;
  nx_array_host(NX_FLOAT32, n, 1, &h);
  nx_array_host(NX_FLOAT32, n, 1, &h2);
  nx_array_create(cl, NX_MEMORY_DEVICE, NX_DTYPE_COUNT > 0 ? NX_FLOAT32 : NX_FLOAT32, n, 1, &d);
  memset(nx_buffer_host_address(nx_array_buffer(h)), 1, (size_t)n[0] * 4);
  /* One round times each way once, interleaved, so all see the same state of
     the machine; medians of the rounds. to_device is timed twice: warm, its
     result freed at once so the next call may get the same pages back, and
     steady, every result kept until the round ends, so each call writes
     fresh pages as a program that keeps its arrays does. */
  enum { ROUNDS = 9, KEEP = 4 };
  double t_copy[ROUNDS], t_warm[ROUNDS], t_steady[ROUNDS], t_tr[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    double t0 = now();
    nx_rig_submit_copy(nx_array_buffer(d), 0, nx_array_buffer(h), 0, n[0] * 4);
    nx_buffer_wait(nx_array_buffer(d), NX_ACCESS_READ_WRITE);
    t_copy[r] = now() - t0;
    t0 = now();
    for (int k = 0; k < KEEP; k++) {
      nx_array *o;
      nx_array_to_device(cl, h, &o);
      nx_buffer_wait(nx_array_buffer(o), NX_ACCESS_READ_WRITE);
      nx_array_free(o);
    }
    t_warm[r] = (now() - t0) / KEEP;
    nx_array *kept[KEEP];
    t0 = now();
    for (int k = 0; k < KEEP; k++) {
      nx_array_to_device(cl, h, &kept[k]);
      nx_buffer_wait(nx_array_buffer(kept[k]), NX_ACCESS_READ_WRITE);
    }
    t_steady[r] = (now() - t0) / KEEP;
    for (int k = 0; k < KEEP; k++) nx_array_free(kept[k]);
    t0 = now();
    nx_array_transfer(h, d);
    nx_buffer_wait(nx_array_buffer(d), NX_ACCESS_READ_WRITE);
    t_tr[r] = now() - t0;
  }
  printf("submit_copy_16MiB_ms %.3f\n", median(t_copy, ROUNDS) * 1e3);
  printf("to_device_warm_16MiB_ms %.3f\n", median(t_warm, ROUNDS) * 1e3);
  printf("to_device_steady_16MiB_ms %.3f\n", median(t_steady, ROUNDS) * 1e3);
  printf("transfer_16MiB_ms %.3f\n", median(t_tr, ROUNDS) * 1e3);
  return 0;
}
