/* SPDX-License-Identifier: Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
/* Host kernels II benchmark: prints "<case> <seconds>" (best of three) for
   float32 matmul 2048^3 plain and with a transposed operand, bfloat16
   matmul 2048^3, a float8_e4m3fn-weight linear layer (4096 x 4096 weights,
   batch 32, float32 activations) and sorting and argsorting 16M float32
   (the sort into an existing array, and into a new one);
   conv2d as unfold + matmul (batch 32, 64 -> 64 channels, 56 x 56, 3 x 3,
   padding 1) and the unfold alone; run.py times numpy on the same cases in
   the same run and prints the ratios. NX_BENCH_CASES=matmul, =sort or
   =conv runs only that group. The sorts also print their process CPU
   time (all threads) and nx's thread count, and with NX_BENCH_DIR set
   write their input and results there for run.py to check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nx.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static nx_array *rand_array(nx_dtype dt, int64_t r, int64_t c) {
  int64_t s[2] = {r, c};
  nx_array *a, *f;
  nx_array_host(NX_FLOAT32, s, 2, &f);
  float *p = nx_buffer_host_address(nx_array_buffer(f));
  uint64_t x = 88172645463325252ull;
  for (int64_t i = 0; i < r * c; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    p[i] = (float)((double)(x >> 11) / 9007199254740992.0 * 2 - 1);
  }
  if (dt == NX_FLOAT32) return f;
  nx_cast_new(&a, dt, f);
  nx_array_free(f);
  return a;
}

static nx_array *transposed(nx_array *a) {
  nx_move m;
  int order[2] = {1, 0};
  nx_move_permute(&m, order, 2);
  nx_array *t;
  nx_array_move(&m, a, &t);
  return t;
}

static void time_matmul(const char *name, nx_array *z, nx_array *a, nx_array *b) {
  double best = 1e30;
  for (int r = 0; r < 3; r++) {
    double t = now();
    if (nx_matmul(z, a, b)) {
      fprintf(stderr, "%s: %s\n", name, nx_error_message());
      exit(1);
    }
    t = now() - t;
    if (t < best) best = t;
  }
  printf("%s %.6f\n", name, best);
}

static void matmuls(void) {
  enum { N = 2048 };
  int64_t s[2] = {N, N};
  nx_array *a = rand_array(NX_FLOAT32, N, N), *b = rand_array(NX_FLOAT32, N, N), *z;
  nx_array_host(NX_FLOAT32, s, 2, &z);
  time_matmul("matmul_f32_2048", z, a, b);
  nx_array *bt0 = rand_array(NX_FLOAT32, N, N), *bt = transposed(bt0);
  time_matmul("matmul_f32_2048_bT", z, a, bt);
  nx_array *ah = rand_array(NX_BFLOAT16, N, N), *bh = rand_array(NX_BFLOAT16, N, N), *zh;
  nx_array_host(NX_BFLOAT16, s, 2, &zh);
  time_matmul("matmul_bf16_2048", zh, ah, bh);
  /* y = x W^T with W float8_e4m3fn [4096 out, 4096 in] */
  nx_array *x = rand_array(NX_FLOAT32, 32, 4096), *w = rand_array(NX_FLOAT8_E4M3FN, 4096, 4096), *wt = transposed(w), *y;
  int64_t ys[2] = {32, 4096};
  nx_array_host(NX_FLOAT32, ys, 2, &y);
  time_matmul("linear_f8e4m3_4096_b32", y, x, wt);
  nx_array *all[] = {a, b, z, bt0, bt, ah, bh, zh, x, w, wt, y};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) nx_array_free(all[i]);
}

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Writes n bytes at p to dir/name (run.py checks them against numpy). */
static void dump(const char *dir, const char *name, const void *p, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
}

static void sorts(void) {
  int64_t n16[1] = {16 << 20};
  nx_array *v = rand_array(NX_FLOAT32, 1, 16 << 20), *vs, *vi, *flat;
  nx_move m;
  nx_move_reshape(&m, n16, 1);
  nx_array_move(&m, v, &flat);
  nx_array_host(NX_FLOAT32, n16, 1, &vs);
  nx_array_host(NX_INT32, n16, 1, &vi);
  for (int arg = 0; arg < 2; arg++) {
    double best = 1e30, best_cpu = 1e30;
    for (int r = 0; r < 3; r++) {
      double t = now(), c = cpu_now();
      int s = arg ? nx_argsort(vi, flat, 0, false) : nx_sort(vs, flat, 0, false);
      t = now() - t, c = cpu_now() - c;
      if (s) {
        fprintf(stderr, "sort: %s\n", nx_error_message());
        exit(1);
      }
      if (t < best) best = t;
      if (c < best_cpu) best_cpu = c;
    }
    printf("%s %.6f\n%s_cpu %.6f\n", arg ? "argsort_f32_16M" : "sort_f32_16M", best, arg ? "argsort_f32_16M" : "sort_f32_16M",
           best_cpu);
  }
  /* nx_sort_new: a fresh result each time, as np.sort returns */
  double best_new = 1e30;
  for (int r = 0; r < 3; r++) {
    nx_array *fresh = NULL;
    double t = now();
    int s = nx_sort_new(&fresh, flat, 0, false);
    t = now() - t;
    if (s) {
      fprintf(stderr, "sort: %s\n", nx_error_message());
      exit(1);
    }
    if (t < best_new) best_new = t;
    nx_array_free(fresh);
  }
  printf("sort_new_f32_16M %.6f\n", best_new);
  printf("sort_threads %d\n", nx_num_threads());
  const char *dir = getenv("NX_BENCH_DIR");
  if (dir) {
    size_t bytes = (size_t)4 << 24;
    dump(dir, "sort_in.f32", nx_buffer_host_address(nx_array_buffer(v)), bytes);
    dump(dir, "sort_out.f32", nx_buffer_host_address(nx_array_buffer(vs)), bytes);
    dump(dir, "argsort_out.i32", nx_buffer_host_address(nx_array_buffer(vi)), bytes);
  }
  nx_array *all[] = {v, vs, vi, flat};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) nx_array_free(all[i]);
}

static nx_array *reshaped(nx_array *a, const int64_t *shape, int r) {
  nx_move m;
  nx_move_reshape(&m, shape, r);
  nx_array *v;
  nx_array_move(&m, a, &v);
  nx_array_free(a);
  return v;
}

static void convs(void) {
  int64_t xs[4] = {32, 64, 56, 56}, cs[3] = {32, 64 * 9, 56 * 56}, ys[3] = {32, 64, 56 * 56};
  int64_t size[2] = {3, 3}, stride[2] = {1, 1}, dil[2] = {1, 1}, pad[4] = {1, 1, 1, 1};
  nx_array *x = reshaped(rand_array(NX_FLOAT32, 32 * 64, 56 * 56), xs, 4), *w = rand_array(NX_FLOAT32, 64, 64 * 9);
  nx_array *cols, *y;
  nx_array_host(NX_FLOAT32, cs, 3, &cols);
  nx_array_host(NX_FLOAT32, ys, 3, &y);
  double best_u = 1e30, best_c = 1e30;
  for (int r = 0; r < 3; r++) {
    double t0 = now();
    int s = nx_unfold(cols, x, 2, size, stride, dil, pad);
    double t1 = now();
    if (!s) s = nx_matmul(y, w, cols);
    double t2 = now();
    if (s) {
      fprintf(stderr, "conv2d: %s\n", nx_error_message());
      exit(1);
    }
    if (t1 - t0 < best_u) best_u = t1 - t0;
    if (t2 - t0 < best_c) best_c = t2 - t0;
  }
  printf("conv2d_unfold %.6f\nconv2d_unfold_matmul %.6f\n", best_u, best_c);
  nx_array_free(x), nx_array_free(w), nx_array_free(cols), nx_array_free(y);
}

int main(void) {
  const char *only = getenv("NX_BENCH_CASES");
  if (!only || strstr(only, "matmul")) matmuls();
  if (!only || strstr(only, "sort")) sorts();
  if (!only || strstr(only, "conv")) convs();
  return 0;
}
