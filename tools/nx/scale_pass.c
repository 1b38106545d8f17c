/* SPDX-License-Identifier: Apache-2.0 */
/* The amax and scaled-store passes of nx convert (scale_pass.h). */
#define _POSIX_C_SOURCE 200809L
#include "scale_pass.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nx_kernels.h"

/* Elements a block of the float64 loops: 8 KiB of doubles, in the first
   level of the cache; a multiple of 8, so blocks start on a byte. */
#define BLOCK 1024

/* x * s_in, a NaN x's NaN kept (quieted) whatever s_in is, as nx_mul keeps
   its first operand's: a product of two NaNs could otherwise give either
   one, depending on the operand order the compiler picks. */
static void times(double *x, int64_t m, double s_in) {
  for (int64_t i = 0; i < m; i++) x[i] = isnan(x[i]) ? x[i] + x[i] : x[i] * s_in;
}

int nx_tool_scaled_store(void *ctx, const void *in, void *out, int64_t n) {
  const nx_tool_scaled *c = ctx;
  int bi = nx_dtype_bits(c->from), bo = nx_dtype_bits(c->to);
  double x[BLOCK];
  for (int64_t k = 0; k < n; k += BLOCK) {
    int64_t m = n - k < BLOCK ? n - k : BLOCK;
    nx_dtype_load_n(c->from, (const uint8_t *)in + k * bi / 8, x, m);
    if (c->s_in != 1) times(x, m, c->s_in);
    if (c->scale != 1)
      for (int64_t i = 0; i < m; i++) x[i] /= c->scale; /* scale is finite: a NaN x's NaN, quieted */
    nx_dtype_store_n(c->to, x, (uint8_t *)out + k * bo / 8, m);
  }
  if (c->progress) nx_tool_progress_add(c->progress, n * bi / 8, c->name);
  return 0;
}

/* ---- amax ----------------------------------------------------------------
   The elements cut into units of 2^20, claimed by the threads with one
   atomic add; each thread keeps its maximum, and the greatest wins. */
#define MAX_THREADS 256
#define UNIT ((int64_t)1 << 20)

typedef struct amax_job {
  const uint8_t *p;
  nx_dtype dt;
  int bits;
  int64_t count, units;
  double s_in;
  double part[MAX_THREADS]; /* each thread's maximum */
  atomic_llong next;
  atomic_int id;
} amax_job;

/* The greatest magnitude's bits under `inf` (the infinity's bits: every
   pattern at or above it, its sign cleared, is an infinity or a NaN), for
   the IEEE formats of 16 and 32 bits: integer compares on the bits, which
   order as the magnitudes do; branch-free, so the compiler vectorizes it. */
static uint32_t max16(const uint8_t *q, int64_t n, uint32_t inf) {
  uint16_t best = 0;
  for (int64_t k = 0; k < n; k++) {
    uint16_t u;
    memcpy(&u, q + 2 * k, 2);
    u &= 0x7FFF;
    u = u < inf ? u : 0;
    best = u > best ? u : best;
  }
  return best;
}

static uint32_t max32(const uint8_t *q, int64_t n) {
  uint32_t best = 0;
  for (int64_t k = 0; k < n; k++) {
    uint32_t u;
    memcpy(&u, q + 4 * k, 4);
    u &= 0x7FFFFFFFu;
    u = u < 0x7F800000u ? u : 0;
    best = u > best ? u : best;
  }
  return best;
}

/* The finite maximum of n elements through float64 blocks, for every other
   float dtype and for s_in != 1. */
static double max_f64(const amax_job *j, const uint8_t *q, int64_t n) {
  double x[BLOCK], best = 0;
  for (int64_t k = 0; k < n; k += BLOCK) {
    int64_t m = n - k < BLOCK ? n - k : BLOCK;
    nx_dtype_load_n(j->dt, q + k * j->bits / 8, x, m);
    if (j->s_in != 1) times(x, m, j->s_in);
    for (int64_t i = 0; i < m; i++) {
      double a = fabs(x[i]);
      best = a <= DBL_MAX && a > best ? a : best; /* false for NaN and infinity */
    }
  }
  return best;
}

static double unit_max(const amax_job *j, int64_t u) {
  int64_t first = u * UNIT, n = j->count - first < UNIT ? j->count - first : UNIT;
  const uint8_t *q = j->p + first * j->bits / 8;
  if (j->s_in == 1 && j->dt == NX_BFLOAT16) return nx_dtype_load_bits(NX_BFLOAT16, max16(q, n, 0x7F80));
  if (j->s_in == 1 && j->dt == NX_FLOAT16) return nx_dtype_load_bits(NX_FLOAT16, max16(q, n, 0x7C00));
  if (j->s_in == 1 && j->dt == NX_FLOAT32) return nx_dtype_load_bits(NX_FLOAT32, max32(q, n));
  return max_f64(j, q, n);
}

static void *amax_worker(void *arg) {
  amax_job *j = arg;
  int id = atomic_fetch_add(&j->id, 1);
  double best = 0;
  for (;;) {
    long long u = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
    if (u >= j->units) break;
    double m = unit_max(j, u);
    best = m > best ? m : best;
  }
  j->part[id] = best; /* read after the join */
  return NULL;
}

static int amax_read(void *ctx, const void *base, nx_dtype dt, const nx_layout *l) {
  amax_job *j = ctx;
  (void)dt;
  if (j->count == 0) return 0; /* base may be NULL */
  j->p = (const uint8_t *)base + l->offset * j->bits / 8;
  int threads = nx_num_threads();
  if (threads > j->units) threads = (int)j->units;
  if (threads > MAX_THREADS) threads = MAX_THREADS;
  pthread_t t[MAX_THREADS];
  int started = 0;
  while (started < threads - 1 && pthread_create(&t[started], NULL, amax_worker, j) == 0) started++;
  amax_worker(j); /* the caller is one of the threads; alone where none started */
  for (int k = 0; k < started; k++) pthread_join(t[k], NULL);
  return 0;
}

int nx_tool_amax(const nx_array *x, double s_in, double *amax) {
  static amax_job zero;
  amax_job j = zero;
  j.dt = nx_array_dtype(x);
  j.bits = nx_dtype_bits(j.dt);
  j.count = nx_layout_count(nx_array_layout(x));
  j.s_in = s_in;
  j.units = (j.count + UNIT - 1) / UNIT;
  atomic_init(&j.next, 0);
  atomic_init(&j.id, 0);
  *amax = 0;
  int s = nx_array_read(x, amax_read, &j);
  for (int k = 0; s == 0 && k < MAX_THREADS; k++) *amax = j.part[k] > *amax ? j.part[k] : *amax;
  return s;
}
