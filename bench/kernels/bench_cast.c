/* SPDX-License-Identifier: Apache-2.0 */
/* bench_cast: nx_cast on one thread over 16M elements, the hot pairs, beside
   memcpy of the same number of bytes. usage: bench_cast <dir>, where dir
   holds the inputs run_cast.py wrote (x32.bin, x64.bin: float32 and float64;
   h16.bin, b16.bin: float16 and bfloat16 codes; i32.bin: int32). Writes each result to
   <dir>/out_<to>_<from>.bin for run_cast.py's cross-check and prints
   "name value" lines: ns per element of each cast, and memcpy's GB/s for
   the bytes it moves (read plus written); each cast and its memcpy
   alternate round by round, the medians of 9 rounds. */
#include <stdbool.h>
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cast_internal.h"
#include "nx.h"

#define N (1 << 24)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *load(const char *dir, const char *name, size_t bytes) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  void *p = malloc(bytes);
  if (!f || !p || fread(p, 1, bytes, f) != bytes) {
    fprintf(stderr, "bench_cast: cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  return p;
}

/* The best of 7 rounds after one that faults the pages in. */
static double best_of(void (*f)(void *), void *arg) {
  double best = 1e30;
  for (int r = 0; r < 8; r++) {
    double t0 = now();
    f(arg);
    double t = now() - t0;
    if (r && t < best) best = t;
  }
  return best;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* f and g alternating over 9 rounds after one that faults the pages in,
   which of them goes first alternating too: the medians of their times, so
   that a change of the machine's load reaches both. */
static void medians_of(void (*f)(void *), void *a, void (*g)(void *), void *b, double *tf, double *tg) {
  enum { R = 9 };
  double x[R], y[R];
  f(a);
  g(b);
  for (int r = 0; r < R; r++)
    for (int k = 0; k < 2; k++) {
      bool first = (k == 0) == (r % 2 == 0);
      double t0 = now();
      if (first) f(a);
      else g(b);
      double t = now() - t0;
      if (first) x[r] = t;
      else y[r] = t;
    }
  qsort(x, R, sizeof x[0], by_value);
  qsort(y, R, sizeof y[0], by_value);
  *tf = x[R / 2];
  *tg = y[R / 2];
}

typedef struct job {
  nx_array *to, *from; /* nx_cast's */
  void *dst;
  const void *src;
  size_t bytes; /* memcpy's */
} job;

static void run_cast(void *p) {
  job *j = p;
  if (nx_cast(j->to, j->from) != 0) {
    fprintf(stderr, "bench_cast: %s\n", nx_error_message());
    exit(1);
  }
}

/* A host array of N elements of dt, and its bytes. */
static nx_array *host_array(nx_dtype dt, void **bytes) {
  int64_t shape[1] = {N};
  nx_array *a;
  if (nx_array_host(dt, shape, 1, &a) != 0) {
    fprintf(stderr, "bench_cast: %s\n", nx_error_message());
    exit(1);
  }
  *bytes = nx_buffer_host_address(nx_array_buffer(a));
  return a;
}
/* Called through a volatile pointer, so that no copy into a buffer freed
   unread is optimized away. */
static void *(*volatile copy)(void *, const void *, size_t) = memcpy;
static void run_memcpy(void *p) {
  job *j = p;
  copy(j->dst, j->src, j->bytes);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: bench_cast <dir>\n");
    return 2;
  }
  const char *dir = argv[1];
  nx_set_num_threads(1);
  struct { nx_dtype to, from; const char *input; } pairs[] = {
      {NX_FLOAT16, NX_FLOAT32, "x32.bin"},       {NX_BFLOAT16, NX_FLOAT32, "x32.bin"},
      {NX_FLOAT32, NX_FLOAT16, "h16.bin"},       {NX_FLOAT32, NX_BFLOAT16, "b16.bin"},
      {NX_FLOAT8_E4M3FN, NX_FLOAT64, "x64.bin"}, {NX_FLOAT8_E5M2, NX_FLOAT64, "x64.bin"},
      {NX_FLOAT4_E2M1FN, NX_FLOAT64, "x64.bin"}, {NX_FLOAT8_E4M3FN, NX_FLOAT32, "x32.bin"},
      /* no target: the AVX512-FP16 paths where the CPU has them */
      {NX_FLOAT16, NX_FLOAT64, "x64.bin"},       {NX_FLOAT64, NX_FLOAT16, "h16.bin"},
      {NX_FLOAT16, NX_INT32, "i32.bin"},         {NX_INT32, NX_FLOAT16, "h16.bin"},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    size_t sb = (size_t)N * (size_t)nx_dtype_bits_of(pairs[i].from) / 8;
    size_t db = (size_t)N * (size_t)nx_dtype_bits_of(pairs[i].to) / 8;
    void *in = load(dir, pairs[i].input, sb), *src, *dst;
    job j = {host_array(pairs[i].to, &dst), host_array(pairs[i].from, &src), dst, src, 0};
    memcpy(src, in, sb);
    free(in);
    /* memcpy moving as many bytes: half of them read, half written. */
    job mj = {0, 0, malloc((sb + db) / 2), malloc((sb + db) / 2), (sb + db) / 2};
    memset((void *)mj.src, 1, mj.bytes);
    double t, m;
    medians_of(run_cast, &j, run_memcpy, &mj, &t, &m);
    free(mj.dst);
    free((void *)mj.src);
    char name[256];
    snprintf(name, sizeof name, "%s_%s", nx_dtype_name(pairs[i].to), nx_dtype_name(pairs[i].from));
    printf("cast_%s_ns %.4f\n", name, t * 1e9 / N);
    printf("cast_%s_gbs %.3f\n", name, (double)(sb + db) / t / 1e9);
    /* The paths of the lower instruction-set levels, for the record. */
    static const char *levels[NX__CAST_ISA_BEST] = {"scalar", "avx2", "avx512", "avx512bf16", "avx512fp16"};
    for (int l = NX__CAST_ISA_NONE; l < NX__CAST_ISA_BEST; l++)
      if (nx__cast_set_isa(l) == l) printf("level_%s_%s_ns %.4f\n", levels[l], name, best_of(run_cast, &j) * 1e9 / N);
    nx__cast_set_isa(NX__CAST_ISA_BEST);
    printf("memcpy_%s_gbs %.3f\n", name, (double)(2 * mj.bytes) / m / 1e9);
    run_cast(&j);
    char path[4096];
    snprintf(path, sizeof path, "%s/out_%s.bin", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(dst, 1, db, f) != db) return 1;
    fclose(f);
    nx_array_free(j.to);
    nx_array_free(j.from);
  }
  return 0;
}
