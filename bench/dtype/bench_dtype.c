/* SPDX-License-Identifier: Apache-2.0 */
/* bench_dtype: the per-element cost of nx's scalar stores from double and of
   pp_value, beside gcc's (_Float16)x (libgcc's software conversion on x86
   without AVX512-FP16). Prints "name ns_per_element" lines; run.py adds the
   numpy and ml_dtypes peers and prints the ratios. */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nx_dtype.h"

#define N (1 << 20)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) { /* splitmix64 */
  uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double xs[N];
static uint64_t us[N];
static volatile uint64_t sink;

/* The best of several rounds, per element: the least disturbed by noise. */
#define TIME(name, body)                                      \
  do {                                                        \
    double best = 1e30;                                       \
    for (int round = 0; round < 7; round++) {                 \
      double t0 = now();                                      \
      uint64_t acc = 0;                                       \
      for (int i = 0; i < N; i++) { body; }                   \
      double t = now() - t0;                                  \
      sink += acc;                                            \
      if (t < best) best = t;                                 \
    }                                                         \
    printf("%s %.4f\n", name, best * 1e9 / N);                \
  } while (0)

/* The doubles to store: those of the file run.py wrote (numpy measures the
   same ones), else standard normal ones, the values of weights and
   activations. */
static void load_inputs(const char *path) {
  FILE *f = path ? fopen(path, "rb") : NULL;
  size_t got = f ? fread(xs, sizeof xs[0], N, f) : 0;
  if (f) fclose(f);
  for (size_t i = got; i < N; i++) { /* Irwin-Hall: the sum of 12 uniforms, less 6 */
    double s = -6;
    for (int k = 0; k < 12; k++) s += (double)(next() >> 11) / 9007199254740992.0;
    xs[i] = s;
  }
  for (int i = 0; i < N; i++) us[i] = nx__f64_bits(xs[i]);
}

int main(int argc, char **argv) {
  load_inputs(argc > 1 ? argv[1] : NULL);
  TIME("store_float16", acc += nx_store_float16_f64(us[i]));
  TIME("store_bfloat16", acc += nx_store_bfloat16_f64(us[i]));
  TIME("store_float8_e4m3fn", acc += nx_store_float8_e4m3fn_f64(us[i]));
  TIME("store_float8_e5m2", acc += nx_store_float8_e5m2_f64(us[i]));
  TIME("store_float4_e2m1fn", acc += nx_store_float4_e2m1fn_f64(us[i]));
#if defined(__FLT16_MAX__)
  TIME("gcc_float16", { _Float16 h = (_Float16)xs[i]; uint16_t b; memcpy(&b, &h, 2); acc += b; });
#endif

  /* pp_value: random values of each format, as its codes give them. */
  static const int codes[] = {NX_FLOAT16, NX_BFLOAT16, NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2, NX_FLOAT4_E2M1FN};
  static const char *const names[] = {"float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"};
  char buf[NX_DTYPE_PP_MAX], label[64];
  for (int c = 0; c < 5; c++) {
    int bits = nx_dtype_bits_of(codes[c]);
    for (int i = 0; i < N; i++) {
      uint64_t b = next() & ((1u << bits) - 1);
      xs[i] = nx_dtype_load_double(codes[c], b);
    }
    snprintf(label, sizeof label, "pp_%s", names[c]);
    TIME(label, acc += (uint64_t)nx_dtype_format_value(codes[c], xs[i], buf, sizeof buf));
  }
  for (int i = 0; i < N; i++) {
    uint64_t b;
    do b = next(); while ((b & 0x7FF0000000000000ull) == 0x7FF0000000000000ull);
    xs[i] = nx__f64_of_bits(b);
  }
  TIME("pp_float64", acc += (uint64_t)nx_dtype_format_value(NX_FLOAT64, xs[i], buf, sizeof buf));
  for (int i = 0; i < N; i++) {
    uint32_t b;
    do b = (uint32_t)next(); while ((b & 0x7F800000u) == 0x7F800000u);
    xs[i] = (double)nx__f32_of_bits(b);
  }
  TIME("pp_float32", acc += (uint64_t)nx_dtype_format_value(NX_FLOAT32, xs[i], buf, sizeof buf));
  return 0;
}
