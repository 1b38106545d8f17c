/* SPDX-License-Identifier: Apache-2.0 */
/* The amax and scaled-store passes of nx convert (scale_pass.h).

   The division. The float64 definition stores fl64(x / s). For a source of
   at most 24 significant bits (every float format but float64), a float32
   scale s and a target of p <= 11 significant bits (float16, bfloat16, the
   float8s, float4), the division is replaced by the product y = x * r with
   r = fl64(1 / s), which is several times cheaper, and a check of ties:
   - y is within 2^-51 of x / s, relatively;
   - the target rounds at its midpoints, numbers of p + 1 significant bits
     (its overflow threshold among them). Where x / s is not one, it lies at
     least 2^-(p + 25) from every one, relatively (x - m s is a non-zero
     multiple of the least bit of x or of m s, which have at most 24 and
     p + 25 bits), so y and fl64(x / s) round to the same target value;
   - where x / s is a midpoint m, fl64(x / s) = m exactly and y may be an
     ulp off; m is y rounded to p + 1 bits, and x / s = m exactly when
     fma(m, s, -x) is 0, so that case takes m.
   Zeros, infinities and NaNs come through y unchanged (r is finite and
   positive; a NaN's product is the NaN, quieted, as its quotient is). The
   test (tests/cli/test_scale_pass.c) checks every bfloat16, float16 and
   8-bit source, random float32 ones and every tie of every target against
   the float64 definition at each level. */
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

/* The loops for each instruction set, chosen at run time. */
#define NX__ISA plain
#define NX__TARGET
#define NX__FMA 0
#include "scale_loops.h"
#undef NX__ISA
#undef NX__TARGET
#undef NX__FMA
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NX__X86 1
#define NX__ISA avx2
#define NX__TARGET __attribute__((target("avx2,fma")))
#define NX__FMA 1
#include "scale_loops.h"
#undef NX__ISA
#undef NX__TARGET
#define NX__ISA avx512
#define NX__TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma")))
#include "scale_loops.h"
#undef NX__ISA
#undef NX__TARGET
#undef NX__FMA
#endif

typedef struct loops {
  uint32_t (*max16)(const uint8_t *, int64_t, int16_t);
  uint32_t (*max32)(const uint8_t *, int64_t);
  bool (*widen_bf16)(const uint8_t *, double *, int64_t);
  bool (*widen_f32)(const uint8_t *, double *, int64_t);
  void (*div_recip)(double *, int64_t, double, double, int); /* NULL without a fused multiply-add */
} loops;

static const loops plain = {max16_plain, max32_plain, widen_bf16_plain, widen_f32_plain, NULL};
#if defined(NX__X86)
static const loops avx2 = {max16_avx2, max32_avx2, widen_bf16_avx2, widen_f32_avx2, div_recip_avx2};
static const loops avx512 = {max16_avx512, max32_avx512, widen_bf16_avx512, widen_f32_avx512, div_recip_avx512};
#endif

int nx_tool_scale_levels(void) {
#if defined(NX__X86)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("fma"))
    return 2;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 1;
#endif
  return 0;
}

static _Atomic int cap = 2; /* the highest level to use (tests lower it) */

void nx_tool_scale_cap(int level) { atomic_store(&cap, level); }

static const loops *best(void) {
  int l = nx_tool_scale_levels(), c = atomic_load(&cap);
  l = l < c ? l : c;
#if defined(NX__X86)
  if (l == 2) return &avx512;
  if (l == 1) return &avx2;
#endif
  return &plain;
}

/* x * s_in, a NaN x's NaN kept (quieted) whatever s_in is, as nx_mul keeps
   its first operand's: a product of two NaNs could otherwise give either
   one, depending on the operand order the compiler picks. */
static void times(double *x, int64_t m, double s_in) {
  for (int64_t i = 0; i < m; i++) x[i] = isnan(x[i]) ? x[i] + x[i] : x[i] * s_in;
}

void nx_tool_scaled_init(nx_tool_scaled *c, nx_dtype from, nx_dtype to, double s_in, double scale,
                         nx_tool_progress *progress, const char *name) {
  nx_float_format ff = {0};
  bool floats = nx_dtype_kind(from) == NX_KIND_FLOAT && nx_dtype_kind(to) == NX_KIND_FLOAT;
  if (floats) nx_dtype_float_format(to, &ff);
  *c = (nx_tool_scaled){from, to, s_in, scale, progress, name, best(), 1 / scale, 51 - ff.fraction_bits, false};
  /* The reciprocal's conditions (the top of this file): float sources of at
     most 24 significant bits, float targets of at most 11, no input scale. */
  c->recip = c->loops->div_recip && floats && s_in == 1 && scale != 1 && from != NX_FLOAT64 && ff.fraction_bits <= 10;
}

/* n elements of c->from at q as doubles, exactly (an integer past 2^53 to
   the nearest). */
static void widen(const nx_tool_scaled *c, const uint8_t *q, double *x, int64_t m) {
  bool nan;
  if (c->from == NX_BFLOAT16) nan = c->loops->widen_bf16(q, x, m);
  else if (c->from == NX_FLOAT32) nan = c->loops->widen_f32(q, x, m);
  else nan = true;
  if (nan) nx_dtype_load_n(c->from, q, x, m); /* NaNs as nx_dtype.h loads them */
}

int nx_tool_scaled_store(void *ctx, const void *in, void *out, int64_t n) {
  const nx_tool_scaled *c = ctx;
  int bi = nx_dtype_bits(c->from), bo = nx_dtype_bits(c->to);
  double x[BLOCK];
  for (int64_t k = 0; k < n; k += BLOCK) {
    int64_t m = n - k < BLOCK ? n - k : BLOCK;
    widen(c, (const uint8_t *)in + k * bi / 8, x, m);
    if (c->s_in != 1) times(x, m, c->s_in);
    if (c->recip) c->loops->div_recip(x, m, c->scale, c->r, c->drop);
    else if (c->scale != 1)
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
  const struct loops *loops;
  double part[MAX_THREADS]; /* each thread's maximum */
  atomic_llong next;
  atomic_int id;
} amax_job;

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
  const loops *L = j->loops;
  if (j->s_in == 1 && j->dt == NX_BFLOAT16) return nx_dtype_load_bits(NX_BFLOAT16, L->max16(q, n, 0x7F80));
  if (j->s_in == 1 && j->dt == NX_FLOAT16) return nx_dtype_load_bits(NX_FLOAT16, L->max16(q, n, 0x7C00));
  if (j->s_in == 1 && j->dt == NX_FLOAT32) return nx_dtype_load_bits(NX_FLOAT32, L->max32(q, n));
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
  j.loops = best();
  j.units = (j.count + UNIT - 1) / UNIT;
  atomic_init(&j.next, 0);
  atomic_init(&j.id, 0);
  *amax = 0;
  int s = nx_array_read(x, amax_read, &j);
  for (int k = 0; s == 0 && k < MAX_THREADS; k++) *amax = j.part[k] > *amax ? j.part[k] : *amax;
  return s;
}
