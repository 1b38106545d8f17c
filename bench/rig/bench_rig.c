/* SPDX-License-Identifier: Apache-2.0 */
/* bench_rig: claim and release of three operands, alone and with two threads
   on disjoint buffers (started together at a barrier each round); host <->
   OpenCL copy bandwidth against memcpy, interleaved round by round; and the
   submit-to-completion latency of an empty command on every device. Prints
   "name value" lines; run.py prints the ratios. */
#define _POSIX_C_SOURCE 200112L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nx_rig.h"
#include "rig_test.h" /* test devices: the test variant of the library */
#include "../median.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

#define CLAIMS 2000000

typedef struct {
  nx_buffer *b[3];
  double ns;
  pthread_barrier_t *start; /* both threads start each round together; NULL alone */
} claimer;

static void *claim_loop(void *arg) {
  claimer *c = arg;
  bool w[3] = {true, false, false};
  nx_claim_answer a[3];
  double best = 1e30;
  for (int round = 0; round < 5; round++) {
    if (c->start) pthread_barrier_wait(c->start);
    double t0 = now();
    for (int i = 0; i < CLAIMS; i++) {
      nx_rig_claim(3, c->b, w, a);
      nx_rig_release(3, c->b, w);
    }
    double t = now() - t0;
    if (t < best) best = t;
  }
  c->ns = best * 1e9 / CLAIMS;
  return NULL;
}

static void make3(claimer *c) {
  for (int i = 0; i < 3; i++) nx_buffer_create(nx_rig_host(), NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 64, &c->b[i]);
}

static void nothing(void *ctx) { (void)ctx; }

#define ROUNDS 7


int main(void) {
  claimer one, two[2];
  memset(&one, 0, sizeof one);
  memset(two, 0, sizeof two);
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, 2);
  make3(&one);
  claim_loop(&one);
  printf("claim3_alone_ns %.1f\n", one.ns);
  pthread_t t[2];
  for (int k = 0; k < 2; k++) {
    make3(&two[k]);
    two[k].start = &start;
    pthread_create(&t[k], NULL, claim_loop, &two[k]);
  }
  for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
  printf("claim3_two_threads_ns %.1f\n", two[0].ns > two[1].ns ? two[0].ns : two[1].ns);

  /* Bandwidth: 64 MiB host <-> opencl:0, against memcpy of the same bytes. */
  const int64_t n = 64 << 20;
  nx_device *cl = NULL;
  nx_buffer *h, *h2, *d;
  nx_buffer_create(nx_rig_host(), NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, n, &h);
  nx_buffer_create(nx_rig_host(), NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, n, &h2);
  memset(nx_buffer_host_address(h), 1, (size_t)n);
  memset(nx_buffer_host_address(h2), 2, (size_t)n);
  /* Each round times memcpy and then the copies each way, so all three see
     the same state of the machine; the medians of the rounds are reported. */
  bool have_cl = nx_rig_find("opencl:0", &cl) == 0 && nx_buffer_create(cl, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, n, &d) == 0;
  double mc[ROUNDS], up[ROUNDS], down[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    double t0 = now();
    memcpy(nx_buffer_host_address(h2), nx_buffer_host_address(h), (size_t)n);
    mc[r] = now() - t0;
    if (!have_cl) continue;
    t0 = now();
    nx_rig_submit_copy(d, 0, h, 0, n);
    nx_buffer_wait(d, NX_ACCESS_READ);
    double t1 = now();
    nx_rig_submit_copy(h2, 0, d, 0, n);
    nx_buffer_wait(h2, NX_ACCESS_READ);
    up[r] = t1 - t0;
    down[r] = now() - t1;
  }
  printf("memcpy_gbps %.2f\n", n / median(mc, ROUNDS) / 1e9);
  if (have_cl) {
    printf("host_to_opencl_gbps %.2f\n", n / median(up, ROUNDS) / 1e9);
    printf("opencl_to_host_gbps %.2f\n", n / median(down, ROUNDS) / 1e9);
  }

  /* Latency: an empty work item on each device, submit to completion. */
  nx_device *all[64], *t0d;
  nx_rig_test_device(&t0d);
  int nd = nx_rig_devices(all, 64);
  for (int i = 0; i < nd; i++) {
    double lbest = 1e30;
    for (int r = 0; r < 2000; r++) {
      double a = now();
      nx_rig_submit(all[i], NULL, 0, NULL, 0, nothing, NULL);
      nx_device_sync(all[i]);
      double dt = now() - a;
      if (dt < lbest) lbest = dt;
    }
    printf("latency_us:%s %.2f\n", nx_device_name(all[i]), lbest * 1e6);
  }
  return 0;
}
