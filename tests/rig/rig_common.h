/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the rig suites: the devices every suite needs (the host
   and two OpenCL devices, which CI has through PoCL: a suite fails, not
   skips, without them), a gate that holds a timeline back, a watchdog for
   waits that must not hang, a clock and a small random generator. */
#ifndef NX_TESTS_RIG_COMMON_H
#define NX_TESTS_RIG_COMMON_H

#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"
#include "nx_rig.h"
#include "rig_test.h" /* test devices and their faults: the test variant of the library */

static inline double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline void sleep_ms(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* xorshift64*, one state per user. */
static inline uint64_t rnd(uint64_t *s) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1DULL;
}
static inline int rnd_below(uint64_t *s, int n) { return n <= 0 ? 0 : (int)(rnd(s) % (uint64_t)n); }

/* The host and the two OpenCL devices, or a failed check (not a skip). */
typedef struct {
  nx_device *host, *ocl0, *ocl1;
} rig_devices;

static inline int rig_need_devices(rig_devices *r) {
  if (!NX_TEST_OPENCL_BUILT) {
    /* Every case of the suites that call this uses two OpenCL devices. */
    printf("SKIP: %s: the suite's cases need two OpenCL devices\n", NX_TEST_NO_OPENCL_REASON);
    exit(77);
  }
  memset(r, 0, sizeof *r);
  r->host = nx_rig_host();
  CHECK(r->host != NULL, "no host device");
  int s0 = nx_rig_find("opencl:0", &r->ocl0), s1 = nx_rig_find("opencl:1", &r->ocl1);
  CHECK(s0 == 0 && s1 == 0,
        "two OpenCL devices are needed (PoCL with POCL_DEVICES=\"pthread pthread\"): opencl:0 %s, opencl:1 %s",
        s0 == 0 ? "found" : "missing", s1 == 0 ? "found" : "missing");
  return r->host && s0 == 0 && s1 == 0 ? 0 : -1;
}

/* A gate: work whose fn waits on it holds its timeline back until the gate
   opens. Opened by the test (at once, or from a thread after a delay). */
typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int open, entered;
  int delay_ms;
  pthread_t opener;
  int has_opener;
} gate;

static inline void gate_init(gate *g) {
  pthread_mutex_init(&g->mu, NULL);
  pthread_cond_init(&g->cv, NULL);
  g->open = g->entered = g->has_opener = 0;
  g->delay_ms = 0;
}

/* The work fn: blocks until the gate opens. */
static inline void gate_work(void *ctx) {
  gate *g = ctx;
  pthread_mutex_lock(&g->mu);
  g->entered++;
  pthread_cond_broadcast(&g->cv);
  while (!g->open) pthread_cond_wait(&g->cv, &g->mu);
  pthread_mutex_unlock(&g->mu);
}

static inline void gate_open(gate *g) {
  pthread_mutex_lock(&g->mu);
  g->open = 1;
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
}

/* Waits until n works have entered the gate (at most ms); true if they did. */
static inline int gate_wait_entered(gate *g, int n, int ms) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_sec += ms / 1000;
  t.tv_nsec += (long)(ms % 1000) * 1000000L;
  if (t.tv_nsec >= 1000000000L) { t.tv_sec++; t.tv_nsec -= 1000000000L; }
  pthread_mutex_lock(&g->mu);
  while (g->entered < n)
    if (pthread_cond_timedwait(&g->cv, &g->mu, &t)) break;
  int ok = g->entered >= n;
  pthread_mutex_unlock(&g->mu);
  return ok;
}

static inline void *gate_opener_main(void *arg) {
  gate *g = arg;
  sleep_ms(g->delay_ms);
  gate_open(g);
  return NULL;
}

/* Opens the gate from a thread after ms milliseconds. */
static inline void gate_open_later(gate *g, int ms) {
  g->delay_ms = ms;
  g->has_opener = pthread_create(&g->opener, NULL, gate_opener_main, g) == 0;
  if (!g->has_opener) gate_open(g);
}

static inline void gate_destroy(gate *g) {
  if (g->has_opener) pthread_join(g->opener, NULL);
  gate_open(g);
  pthread_mutex_destroy(&g->mu);
  pthread_cond_destroy(&g->cv);
}

/* A watchdog: a thread that ends the process (exit status 1) if the test has
   not disarmed it within its bound, so a hang is a failure, not a timeout. */
typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
  double seconds;
  const char *what;
  pthread_t t;
} watchdog;

static inline void *watchdog_main(void *arg) {
  watchdog *w = arg;
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  double end = (double)t.tv_sec + (double)t.tv_nsec * 1e-9 + w->seconds;
  t.tv_sec = (time_t)end;
  t.tv_nsec = (long)((end - (double)t.tv_sec) * 1e9);
  pthread_mutex_lock(&w->mu);
  while (!w->done)
    if (pthread_cond_timedwait(&w->cv, &w->mu, &t)) break;
  int done = w->done;
  pthread_mutex_unlock(&w->mu);
  if (!done) {
    fprintf(stderr, "watchdog: %s did not finish within %.1f s (a hang)\n", w->what, w->seconds);
    fflush(stderr);
    _exit(1);
  }
  return NULL;
}

static inline void watchdog_arm(watchdog *w, double seconds, const char *what) {
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  w->done = 0;
  w->seconds = seconds;
  w->what = what;
  if (pthread_create(&w->t, NULL, watchdog_main, w)) {
    fprintf(stderr, "watchdog: no thread\n");
    _exit(1);
  }
}

static inline void watchdog_disarm(watchdog *w) {
  pthread_mutex_lock(&w->mu);
  w->done = 1;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
  pthread_join(w->t, NULL);
  pthread_mutex_destroy(&w->mu);
  pthread_cond_destroy(&w->cv);
}

/* Reads all of b's bytes into out through a host buffer (a copy where the
   host does not address b). Returns the status of the wait. */
static inline int read_back(nx_buffer *b, void *out) {
  int64_t n = nx_buffer_bytes(b);
  void *p = nx_buffer_host_address(b);
  if (p) {
    int s = nx_buffer_wait(b, NX_ACCESS_READ);
    if (s == 0) memcpy(out, p, (size_t)n);
    return s;
  }
  nx_buffer *h = NULL;
  int s = nx_buffer_create(nx_rig_host(), NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, n, &h);
  if (s) return s;
  s = nx_rig_submit_copy(h, 0, b, 0, n);
  if (s == 0) s = nx_buffer_wait(h, NX_ACCESS_READ);
  if (s == 0) memcpy(out, nx_buffer_host_address(h), (size_t)n);
  nx_buffer_release(h);
  return s;
}

/* Writes n bytes into b from src through a host buffer where needed, and
   waits until they are there. */
static inline int write_in(nx_buffer *b, const void *src) {
  int64_t n = nx_buffer_bytes(b);
  void *p = nx_buffer_host_address(b);
  if (p) {
    int s = nx_buffer_wait(b, NX_ACCESS_WRITE);
    if (s == 0) memcpy(p, src, (size_t)n);
    return s;
  }
  nx_buffer *h = NULL;
  int s = nx_buffer_create(nx_rig_host(), NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, n, &h);
  if (s) return s;
  memcpy(nx_buffer_host_address(h), src, (size_t)n);
  s = nx_rig_submit_copy(b, 0, h, 0, n);
  if (s == 0) s = nx_buffer_wait(b, NX_ACCESS_READ);
  nx_buffer_release(h);
  return s;
}

static inline const char *kind_name(nx_memory_kind k) {
  return k == NX_MEMORY_DEVICE ? "device" : k == NX_MEMORY_HOST ? "host" : k == NX_MEMORY_IO ? "io" : "?";
}

#endif
