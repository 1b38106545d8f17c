/* SPDX-License-Identifier: Apache-2.0 */
/* bench_kernels: nx's public kernels (nx_add, nx_exp, nx_sum, ...) on 16M
   elements, driven by run.py over stdin so that each nx call alternates with
   its peer's in one run: run.py flushes the caches, sends a case's name,
   bench_kernels runs it once and prints its seconds. The inputs are files
   run.py writes into <dir>; "dump <case>" runs the case and writes its result to
   <dir>/out_<case>.bin for run.py to check; "threads <n>" sets the thread
   count ("threads default": the count nx had at start, what a user gets;
   "nthreads" prints it); "floor_16" times the memory floor of a 16-bit
   binary operation; "threshold" prints, for nx_add and nx_exp on float32 in
   cache at sizes from 256 elements up, the best time on one thread and on
   two with the serial threshold off; "exp_control" times the control of the
   thread-scaling case: nx_exp on one thread over blocks of exp_f32's rows
   claimed by the calling thread and a plain pthread made for the call, what
   two threads give on this machine without the pool (run it with the
   thread count at 1); "probe <n>" times an FMA loop in registers on n
   threads at once, whose speed-up tells two cores from two hyperthreads;
   "quit" ends. */
#define _POSIX_C_SOURCE 199309L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "nx.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#define SIDE 4096
#define N ((int64_t)SIDE * SIDE)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static _Noreturn void die(const char *what) {
  fprintf(stderr, "bench_kernels: %s: %s\n", what, nx_error_message());
  exit(1);
}

static nx_array *square(nx_dtype dt) {
  int64_t shape[2] = {SIDE, SIDE};
  nx_array *a;
  if (nx_array_host(dt, shape, 2, &a)) die("array");
  return a;
}

static void *bytes_of(nx_array *a) { return nx_buffer_host_address(nx_array_buffer(a)); }

/* A square array of dt holding <dir>/<name>.bin. */
static nx_array *load(const char *dir, const char *name, nx_dtype dt) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s.bin", dir, name);
  nx_array *a = square(dt);
  size_t n = (size_t)N * (size_t)nx_dtype_bits(dt) / 8;
  FILE *f = fopen(path, "rb");
  if (!f || fread(bytes_of(a), 1, n, f) != n) {
    fprintf(stderr, "bench_kernels: cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  return a;
}

static nx_array *transposed(nx_array *a) {
  nx_move m;
  int order[2] = {1, 0};
  nx_array *t;
  nx_move_permute(&m, order, 2);
  if (nx_array_move(&m, a, &t)) die("transpose");
  return t;
}

/* The memory floor of a 16-bit binary operation on one thread: read 2 + 2
   bytes and write 2 an element, the result streamed past the caches as
   nx's large bfloat16 results are; no arithmetic. "floor_16_threads" runs
   it over as many equal parts as nx's default thread count, one in the
   calling thread and the others in plain pthreads made for the call: the
   floor at the thread count a user gets. */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx512f"))) static void floor16_512(uint16_t *z, const uint16_t *x, const uint16_t *y, int64_t n) {
  int64_t i = 0;
  for (; i < n && (uintptr_t)(z + i) % 64; i++) z[i] = x[i] ^ y[i];
  for (; i + 32 <= n; i += 32)
    _mm512_stream_si512((void *)(z + i), _mm512_xor_si512(_mm512_loadu_si512(x + i), _mm512_loadu_si512(y + i)));
  for (; i < n; i++) z[i] = x[i] ^ y[i];
  _mm_sfence();
}

/* The same in AVX registers, for CPUs without AVX-512 (a plain loop, its
   stores not streamed, is no floor: nx's add ran at 0.59 times its time
   on a Zen 3), prefetching 2 KiB ahead as nx's streamed loops do there
   (without it nx's add ran at 0.90 times it). */
__attribute__((target("avx2"))) static void floor16_avx2(uint16_t *z, const uint16_t *x, const uint16_t *y, int64_t n) {
  int64_t i = 0;
  for (; i < n && (uintptr_t)(z + i) % 32; i++) z[i] = x[i] ^ y[i];
  for (; i + 16 <= n; i += 16) {
    _mm_prefetch((const char *)((uintptr_t)(x + i) + 2048), _MM_HINT_T0);
    _mm_prefetch((const char *)((uintptr_t)(y + i) + 2048), _MM_HINT_T0);
    _mm256_stream_si256((void *)(z + i), _mm256_xor_si256(_mm256_loadu_si256((const void *)(x + i)),
                                                          _mm256_loadu_si256((const void *)(y + i))));
  }
  for (; i < n; i++) z[i] = x[i] ^ y[i];
  _mm_sfence();
}
#endif
static void floor16(uint16_t *z, const uint16_t *x, const uint16_t *y, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx512f")) {
    floor16_512(z, x, y, n);
    return;
  }
  if (__builtin_cpu_supports("avx2")) {
    floor16_avx2(z, x, y, n);
    return;
  }
#endif
  for (int64_t i = 0; i < n; i++) z[i] = x[i] ^ y[i];
}

/* The plain-pthread control of the thread-scaling case: nx_exp on one
   thread over blocks of CTL_ROWS rows of exp_f32's arrays, claimed through
   an atomic counter by the calling thread and a pthread made for the call;
   the pool's scheme without the pool. */
#define CTL_ROWS 64
typedef struct ctl {
  nx_array *z[SIDE / CTL_ROWS], *x[SIDE / CTL_ROWS];
  atomic_int next;
  int status;
} ctl;

static void *ctl_run(void *arg) {
  ctl *c = arg;
  int b;
  while ((b = atomic_fetch_add(&c->next, 1)) < SIDE / CTL_ROWS)
    if (nx_exp(c->z[b], c->x[b])) c->status = 1;
  return NULL;
}

static nx_array *rows(nx_array *a, int64_t r0, int64_t r1) {
  nx_move m;
  int64_t st[2] = {r0, 0}, sp[2] = {r1, SIDE}, step[2] = {1, 1};
  nx_array *v;
  nx_move_slice(&m, st, sp, step, 2);
  if (nx_array_move(&m, a, &v)) die("slice");
  return v;
}

static double control(ctl *c) {
  pthread_t t;
  double t0 = now();
  atomic_store(&c->next, 0);
  if (pthread_create(&t, NULL, ctl_run, c)) die("pthread_create");
  ctl_run(c);
  pthread_join(t, NULL);
  double dt = now() - t0;
  if (c->status) die("exp_control");
  return dt;
}

/* The compute-only probe: an FMA loop in registers (AVX-512 or AVX2, by
   the CPU), the same count on each of `threads` threads. Two threads as fast
   as one mean two cores; twice as slow, two hyperthreads of one core (or one
   core to share). */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx512f"))) static void *fma_loop512(void *out) {
  __m512 a[8], m = _mm512_set1_ps(0.999f), d = _mm512_set1_ps(1e-3f);
  for (int i = 0; i < 8; i++) a[i] = _mm512_set1_ps((float)i);
  for (long k = 0; k < 20000000; k++)
    for (int i = 0; i < 8; i++) a[i] = _mm512_fmadd_ps(a[i], m, d);
  for (int i = 1; i < 8; i++) a[0] = _mm512_add_ps(a[0], a[i]);
  *(float *)out = _mm512_reduce_add_ps(a[0]);
  return NULL;
}

__attribute__((target("avx2,fma"))) static void *fma_loop256(void *out) {
  __m256 a[8], m = _mm256_set1_ps(0.999f), d = _mm256_set1_ps(1e-3f);
  for (int i = 0; i < 8; i++) a[i] = _mm256_set1_ps((float)i);
  for (long k = 0; k < 20000000; k++)
    for (int i = 0; i < 8; i++) a[i] = _mm256_fmadd_ps(a[i], m, d);
  for (int i = 1; i < 8; i++) a[0] = _mm256_add_ps(a[0], a[i]);
  float lanes[8];
  _mm256_storeu_ps(lanes, a[0]);
  *(float *)out = lanes[0] + lanes[7];
  return NULL;
}
#endif

static void *fma_scalar(void *out) {
  float a = 1;
  for (long k = 0; k < 160000000; k++) a = a * 0.999f + 1e-3f;
  *(float *)out = a;
  return NULL;
}

static void *fma_loop(void *out) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx512f")) return fma_loop512(out);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return fma_loop256(out);
#endif
  return fma_scalar(out);
}

static double probe(int threads) {
  pthread_t t;
  float r[2];
  double t0 = now();
  if (threads > 1 && pthread_create(&t, NULL, fma_loop, &r[1])) die("pthread_create");
  fma_loop(&r[0]);
  if (threads > 1) pthread_join(t, NULL);
  return now() - t0;
}

typedef struct fpart {
  uint16_t *z;
  const uint16_t *x, *y;
  int64_t n;
} fpart;

static void *floor_part(void *arg) {
  fpart *f = arg;
  floor16(f->z, f->x, f->y, f->n);
  return NULL;
}

static double floor_threads(nx_array *z, nx_array *x, nx_array *y, int threads) {
  enum { MAXT = 64 };
  pthread_t t[MAXT];
  fpart f[MAXT];
  if (threads > MAXT) threads = MAXT;
  int64_t per = (N / threads + 31) / 32 * 32;
  for (int i = 0; i < threads; i++) {
    int64_t a = i * per < N ? i * per : N, b = (i + 1) * per < N ? (i + 1) * per : N;
    f[i] = (fpart){(uint16_t *)bytes_of(z) + a, (const uint16_t *)bytes_of(x) + a, (const uint16_t *)bytes_of(y) + a,
                   b - a};
  }
  double t0 = now();
  for (int i = 1; i < threads; i++)
    if (pthread_create(&t[i], NULL, floor_part, &f[i])) die("pthread_create");
  floor_part(&f[0]);
  for (int i = 1; i < threads; i++) pthread_join(t[i], NULL);
  return now() - t0;
}

typedef struct kcase {
  const char *name;
  int kind; /* 0 binary add, 1 unary, 2 sum, 3 the 16-bit memory floor */
  int (*un)(nx_array *, nx_array *);
  nx_array *z, *x, *y, *dump; /* dump: the array whose bytes "dump" writes, in C order */
} kcase;

static int run(const kcase *c) {
  switch (c->kind) {
  case 0: return nx_add(c->z, c->x, c->y);
  case 1: return c->un(c->z, c->x);
  case 2: return nx_sum(c->z, c->x, NULL, -1);
  default: floor16(bytes_of(c->z), bytes_of(c->x), bytes_of(c->y), N); return 0;
  }
}

/* Best seconds of a call of c over five rounds of reps calls. */
static double best_time(const kcase *c, int reps) {
  double best = 1e30;
  for (int r = 0; r < 5; r++) {
    double t0 = now();
    for (int i = 0; i < reps; i++)
      if (run(c)) die(c->name);
    double t = (now() - t0) / reps;
    if (t < best) best = t;
  }
  return best;
}

static void threshold(void) {
  int64_t saved = nx__serial_work;
  nx__serial_work = 0;
  for (int op = 0; op < 2; op++)
    for (int64_t n = 256; n <= ((int64_t)1 << 22); n *= 2) {
      nx_array *z = NULL, *x = NULL, *y = NULL;
      if (nx_array_host(NX_FLOAT32, &n, 1, &z) || nx_array_host(NX_FLOAT32, &n, 1, &x) ||
          nx_array_host(NX_FLOAT32, &n, 1, &y))
        die("threshold arrays");
      float *px = bytes_of(x), *py = bytes_of(y);
      for (int64_t i = 0; i < n; i++) px[i] = py[i] = (float)(i % 1000) / 100;
      kcase c = {op ? "exp" : "add", op ? 1 : 0, nx_exp, z, x, y, z};
      int reps = (int)(((int64_t)1 << 24) / n / (op ? 4 : 1)) + 1;
      if (reps > 2000) reps = 2000;
      double t[2];
      for (int k = 0; k < 2; k++) {
        if (nx_set_num_threads(k + 1)) die("threads");
        t[k] = best_time(&c, reps);
      }
      printf("threshold %s %lld %.9f %.9f\n", c.name, (long long)n, t[0], t[1]);
      nx_array_free(z);
      nx_array_free(x);
      nx_array_free(y);
    }
  nx__serial_work = saved;
  nx_set_num_threads(1);
  printf("ok\n");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: bench_kernels <dir>\n");
    return 2;
  }
  const char *dir = argv[1];
  int default_threads = nx_num_threads();
  nx_array *x = load(dir, "x32", NX_FLOAT32), *y = load(dir, "y32", NX_FLOAT32), *z = square(NX_FLOAT32);
  nx_array *xt = transposed(x), *yt = transposed(y), *zt = transposed(z);
  nx_array *row, *rowx;
  {
    int64_t shape[2] = {1, SIDE}, full[2] = {SIDE, SIDE};
    if (nx_array_host(NX_FLOAT32, shape, 2, &row)) die("row");
    memcpy(bytes_of(row), bytes_of(y), SIDE * 4); /* y's first row */
    nx_move m;
    nx_move_expand(&m, full, 2);
    if (nx_array_move(&m, row, &rowx)) die("expand");
  }
  nx_array *h = load(dir, "x16", NX_FLOAT16), *hy = load(dir, "y16", NX_FLOAT16), *hz = square(NX_FLOAT16);
  nx_array *b = load(dir, "xb16", NX_BFLOAT16), *by = load(dir, "yb16", NX_BFLOAT16), *bz = square(NX_BFLOAT16);
  nx_array *fin[4] = {load(dir, "in_exp", NX_FLOAT32), load(dir, "in_log", NX_FLOAT32), load(dir, "in_sin", NX_FLOAT32),
                      load(dir, "in_tanh", NX_FLOAT32)};
  nx_array *s;
  if (nx_array_host(NX_FLOAT32, NULL, 0, &s)) die("scalar");
  kcase cases[] = {
      {"add_f32", 0, NULL, z, x, y, z},
      {"add_f32_one_transposed", 0, NULL, z, xt, y, z},
      {"add_f32_all_transposed", 0, NULL, zt, xt, yt, z},
      {"add_f32_row", 0, NULL, z, x, rowx, z},
      {"add_f16", 0, NULL, hz, h, hy, hz},
      {"add_bf16", 0, NULL, bz, b, by, bz},
      {"exp_f32", 1, nx_exp, z, fin[0], NULL, z},
      {"log_f32", 1, nx_log, z, fin[1], NULL, z},
      {"sin_f32", 1, nx_sin, z, fin[2], NULL, z},
      {"tanh_f32", 1, nx_tanh, z, fin[3], NULL, z},
      {"sum_f32", 2, NULL, s, x, NULL, s},
      {"floor_16", 3, NULL, bz, b, by, bz},
  };
  int ncases = (int)(sizeof cases / sizeof *cases);
  static ctl ctl_exp;
  for (int b = 0; b < SIDE / CTL_ROWS; b++) {
    ctl_exp.z[b] = rows(z, b * CTL_ROWS, (b + 1) * CTL_ROWS);
    ctl_exp.x[b] = rows(fin[0], b * CTL_ROWS, (b + 1) * CTL_ROWS);
  }
  char line[256];
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\n")] = 0;
    if (strcmp(line, "quit") == 0) break;
    if (strcmp(line, "threshold") == 0) {
      threshold();
      fflush(stdout);
      continue;
    }
    if (strcmp(line, "exp_control") == 0) {
      printf("%.9f\n", control(&ctl_exp));
      fflush(stdout);
      continue;
    }
    if (strcmp(line, "floor_16_threads") == 0) {
      printf("%.9f\n", floor_threads(bz, b, by, default_threads));
      fflush(stdout);
      continue;
    }
    if (strncmp(line, "probe ", 6) == 0) {
      printf("%.9f\n", probe(atoi(line + 6)));
      fflush(stdout);
      continue;
    }
    if (strcmp(line, "nthreads") == 0) {
      printf("%d\n", default_threads);
      fflush(stdout);
      continue;
    }
    if (strncmp(line, "threads ", 8) == 0) {
      int t = strcmp(line + 8, "default") == 0 ? default_threads : atoi(line + 8);
      if (nx_set_num_threads(t)) die("threads");
      printf("ok\n");
      fflush(stdout);
      continue;
    }
    bool dump = strncmp(line, "dump ", 5) == 0;
    const char *name = dump ? line + 5 : line;
    const kcase *c = NULL;
    for (int i = 0; i < ncases; i++)
      if (strcmp(cases[i].name, name) == 0) c = &cases[i];
    if (!c) {
      fprintf(stderr, "bench_kernels: no case %s\n", name);
      return 1;
    }
    if (dump) { /* the case's own result: other cases share its output */
      if (run(c)) die(c->name);
      char path[512];
      snprintf(path, sizeof path, "%s/out_%s.bin", dir, name);
      FILE *f = fopen(path, "wb");
      nx_buffer *buf = nx_array_buffer(c->dump);
      if (!f || fwrite(bytes_of(c->dump), 1, (size_t)nx_buffer_bytes(buf), f) != (size_t)nx_buffer_bytes(buf)) {
        fprintf(stderr, "bench_kernels: cannot write %s\n", path);
        return 1;
      }
      fclose(f);
      printf("ok\n");
    } else {
      double t0 = now();
      if (run(c)) die(c->name);
      printf("%.9f\n", now() - t0);
    }
    fflush(stdout);
  }
  return 0;
}
