/* SPDX-License-Identifier: Apache-2.0 */
/* bench_dtype: nx's stores and printing through the entry points a user
   calls, for run.py, which measures the numpy and ml_dtypes peers in the same
   process run and interleaves them with these.

   Commands, one a line on stdin, each answered with one line on stdout:
     data NAME PATH          read the doubles of file PATH as data set NAME
     store MODE CODE NAME [REPS]
                             REPS (default 1) timed passes over NAME into an
                             output array, one after another: MODE scalar
                             (nx_dtype_store_bits per element, one element
                             per byte or two), bulk (nx_dtype_store_n),
                             floor2 / floor1 (the memory floor: read 8 bytes,
                             write 2 or 1 per element); answers the median
                             pass's ns of thread CPU time per element (a pass of a small set is
                             a few milliseconds: one alone would be at the
                             mercy of the timer, a wake-up or a preemption)
     dump PATH               write the last scalar pass's output to PATH
     pair CODE MODE_A NAME_A MODE_B NAME_B REPS
                             REPS pairs of adjacent passes, MODE_A over
                             NAME_A and MODE_B over NAME_B (modes as store's),
                             which goes first alternating; answers the
                             median of the pairs' ratios of ns per element,
                             A / B
     agree CODE NAME         answers the count of elements where the bulk
                             store's bits differ from the scalar store's
     print CODE SET ROUNDS   nx_dtype_format_value against std::to_chars
                             (float64 or float32) on 1M values of SET (bits:
                             random finite bit patterns; normal: standard
                             normal values), interleaved, ROUNDS rounds;
                             answers "nx_median peer_median differing
                             different_values"
     pp CODE ROUNDS          nx_dtype_pp_value of a format of 16 bits or
                             fewer on 1M values, each of a code drawn
                             uniformly from all the format's codes (NaNs and
                             infinities included), ROUNDS rounds; answers
                             "median_M_values_per_s failures"
     crosscheck CODE M       the digits of nx_dtype_format_value against
                             std::to_chars (float64 or float32) on M million
                             random finite bit patterns, untimed; answers
                             "checked differing"
     quit */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nx_dtype.h"
#include "../median.h"

int bench_to_chars_f64(double x, char *buf, int cap);
int bench_to_chars_f32(float x, char *buf, int cap);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The thread's CPU time: what the store passes and pp are timed by (run.py
   times the stores' peers so too): a preemption on a shared machine does
   not count. */
static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) { /* splitmix64 */
  uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

#define SETS 8
static struct {
  char name[32];
  double *x;
  size_t n;
} sets[SETS];
static int nsets;

static uint8_t *out, *out2; /* outputs, two bytes an element of the largest set */
static size_t out_cap;
static size_t last_n, last_width; /* the last scalar pass's elements and bytes each */

static int find(const char *name) {
  for (int i = 0; i < nsets; i++)
    if (strcmp(sets[i].name, name) == 0) return i;
  return -1;
}

static void read_set(const char *name, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f || nsets == SETS) { printf("error cannot read %s\n", path); return; }
  fseek(f, 0, SEEK_END);
  size_t n = (size_t)ftell(f) / 8;
  fseek(f, 0, SEEK_SET);
  double *x = malloc(n * 8);
  size_t got = fread(x, 8, n, f);
  fclose(f);
  memcpy(sets[nsets].name, name, strlen(name) + 1); /* below 32 bytes: main reads at most 31 */
  sets[nsets].x = x;
  sets[nsets++].n = got;
  if (2 * got > out_cap) {
    out_cap = 2 * got;
    out = realloc(out, out_cap);
    out2 = realloc(out2, out_cap);
    memset(out, 0, out_cap); /* touched once: every pass writes warm pages */
    memset(out2, 0, out_cap);
  }
  printf("ok %zu\n", got);
}

/* The memory floor: read 8 bytes and write `w` per element, nothing else. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("O3")))
#endif
static void floor_pass(const double *x, uint8_t *o, size_t n, int w) {
  const uint64_t *u = (const uint64_t *)(const void *)x;
  if (w == 2)
    for (size_t i = 0; i < n; i++) ((uint16_t *)(void *)o)[i] = (uint16_t)(u[i] >> 48);
  else
    for (size_t i = 0; i < n; i++) o[i] = (uint8_t)(u[i] >> 56);
}

/* One scalar pass: the user's loop over nx_dtype_store_bits. */
static void scalar_pass(int code, const double *x, uint8_t *o, size_t n) {
  if (nx_dtype_bits_of(code) == 16) {
    uint16_t *o16 = (uint16_t *)(void *)o;
    for (size_t i = 0; i < n; i++) o16[i] = (uint16_t)nx_dtype_store_bits(code, x[i]);
  } else {
    for (size_t i = 0; i < n; i++) o[i] = (uint8_t)nx_dtype_store_bits(code, x[i]);
  }
}

/* One timed pass of MODE over set s: its seconds of thread CPU time, or -1
   for an unknown mode. */
static double one_pass(const char *mode, int code, int s) {
  const double *x = sets[s].x;
  size_t n = sets[s].n;
  double t0 = cpu_now();
  if (strcmp(mode, "scalar") == 0) {
    scalar_pass(code, x, out, n);
    last_n = n;
    last_width = nx_dtype_bits_of(code) == 16 ? 2 : 1;
  } else if (strcmp(mode, "bulk") == 0) nx_dtype_store_n((nx_dtype)code, x, out2, (int64_t)n);
  else if (strcmp(mode, "floor2") == 0) floor_pass(x, out2, n, 2);
  else if (strcmp(mode, "floor1") == 0) floor_pass(x, out2, n, 1);
  else return -1;
  return cpu_now() - t0;
}

static int clamp_reps(int reps) { return reps < 1 ? 1 : reps > 64 ? 64 : reps; }

static void store(const char *mode, int code, const char *name, int reps) {
  int s = find(name);
  if (s < 0) { printf("error no set %s\n", name); return; }
  double t[64];
  reps = clamp_reps(reps);
  for (int r = 0; r < reps; r++)
    if ((t[r] = one_pass(mode, code, s) * 1e9 / (double)sets[s].n) < 0) { printf("error mode %s\n", mode); return; }
  printf("%.4f\n", median(t, reps));
}

/* REPS pairs of adjacent passes, MODE_A over set A and MODE_B over set B
   (which goes first alternating): the median of the pairs' ratios of ns per
   element, A / B. Adjacent passes of a few milliseconds see the same load,
   where figures of separate commands on a shared machine scatter by 2x
   from one to the next. */
static void pair(int code, const char *mode_a, const char *name_a, const char *mode_b, const char *name_b, int reps) {
  int s[2] = {find(name_a), find(name_b)};
  const char *mode[2] = {mode_a, mode_b};
  if (s[0] < 0 || s[1] < 0) { printf("error no set %s\n", s[0] < 0 ? name_a : name_b); return; }
  double ratio[64];
  reps = clamp_reps(reps);
  for (int r = 0; r < reps; r++) {
    double t[2];
    for (int k = 0; k < 2; k++) {
      int which = (k + r) % 2;
      if ((t[which] = one_pass(mode[which], code, s[which]) / (double)sets[s[which]].n) < 0) {
        printf("error mode %s\n", mode[which]);
        return;
      }
    }
    ratio[r] = t[0] / t[1];
  }
  printf("%.4f\n", median(ratio, reps));
}

static void agree(int code, const char *name) {
  int s = find(name);
  if (s < 0) { printf("error no set %s\n", name); return; }
  size_t n = sets[s].n, bad = 0;
  int bits = nx_dtype_bits_of(code);
  scalar_pass(code, sets[s].x, out, n);
  nx_dtype_store_n((nx_dtype)code, sets[s].x, out2, (int64_t)n);
  for (size_t i = 0; i < n; i++) {
    uint64_t a = bits == 16 ? ((uint16_t *)(void *)out)[i] : out[i];
    uint64_t b = bits == 16 ? ((uint16_t *)(void *)out2)[i] : bits == 4 ? nx_subbyte_get(out2, (nx_i64)i, 4) : out2[i];
    bad += a != b;
  }
  printf("%zu\n", bad);
}

/* A text's significant digits (no leading or trailing zeros) and the decimal
   exponent of its first one: two texts of the same decimal give the same. */
static void decimal_of(const char *t, char *digits, int *exp10) {
  int n = 0, point = -1, seen = 0, lead = 0, e = 0;
  const char *p = t;
  if (*p == '-') p++;
  for (; *p && *p != 'e'; p++) {
    if (*p == '.') { point = n + lead; continue; }
    if (*p == '0' && !seen) { lead++; continue; }
    seen = 1;
    digits[n++] = *p;
  }
  if (*p == 'e') e = atoi(p + 1);
  int intlen = point < 0 ? n + lead : point; /* digits before the point */
  while (n > 0 && digits[n - 1] == '0') n--;
  digits[n] = 0;
  *exp10 = e + intlen - lead - 1;
}


static volatile long sink; /* keeps the timed loops' results alive */

#define PN (1 << 20)
static void print_bench(int code, const char *set, int rounds) {
  static double xs[PN];
  static float fs[PN];
  int f32 = code == NX_FLOAT32;
  for (int i = 0; i < PN; i++) {
    if (strcmp(set, "normal") == 0) { /* Irwin-Hall: 12 uniforms less 6 */
      double s = -6;
      for (int k = 0; k < 12; k++) s += (double)(next() >> 11) / 9007199254740992.0;
      xs[i] = s;
    } else {
      uint64_t b;
      if (f32) {
        do b = next() & 0xFFFFFFFFu; while ((b & 0x7F800000u) == 0x7F800000u);
        xs[i] = (double)nx_dtype_load_bits(NX_FLOAT32, b);
      } else {
        do b = next(); while ((b & 0x7FF0000000000000ull) == 0x7FF0000000000000ull);
        xs[i] = nx_dtype_load_bits(NX_FLOAT64, b);
      }
    }
    if (f32) { fs[i] = (float)xs[i]; xs[i] = fs[i]; }
  }
  char buf[NX_DTYPE_PP_MAX], pbuf[64];
  double tn[64], tp[64];
  if (rounds > 64) rounds = 64;
  for (int r = 0; r < rounds; r++) {
    long acc = 0;
    for (int turn = 0; turn < 2; turn++) { /* the order alternates round by round */
      double t0 = now();
      if ((turn ^ r) & 1) {
        if (f32) for (int i = 0; i < PN; i++) acc += bench_to_chars_f32(fs[i], pbuf, 64);
        else for (int i = 0; i < PN; i++) acc += bench_to_chars_f64(xs[i], pbuf, 64);
        tp[r] = (now() - t0) * 1e9 / PN;
      } else {
        for (int i = 0; i < PN; i++) acc += nx_dtype_format_value(code, xs[i], buf, sizeof buf);
        tn[r] = (now() - t0) * 1e9 / PN;
      }
    }
    sink += acc;
  }
  /* The same decimal from both? Count the texts whose digits differ, and of
     those the ones whose decimals are different values of the format. */
  long differ = 0, values = 0;
  for (int i = 0; i < PN; i++) {
    int ln = nx_dtype_format_value(code, xs[i], buf, sizeof buf);
    int lp = f32 ? bench_to_chars_f32(fs[i], pbuf, 63) : bench_to_chars_f64(xs[i], pbuf, 63);
    pbuf[lp] = 0;
    char dn[40], dp[40];
    int en, ep;
    decimal_of(buf, dn, &en);
    decimal_of(pbuf, dp, &ep);
    if (ln < 0 || strcmp(dn, dp) != 0 || en != ep) {
      differ++;
      values += strtod(buf, NULL) != strtod(pbuf, NULL) && (!f32 || (float)strtod(buf, NULL) != (float)strtod(pbuf, NULL));
    }
  }
  printf("%.2f %.2f %ld %ld\n", median(tn, rounds), median(tp, rounds), differ, values);
}

/* pp_value of the small formats: every code equally likely, so the time is
   the mean over the format's values. The first round makes the format's text
   table (a one-time cost); the median leaves it out. With no peer to
   interleave with, the rate is of the thread's CPU time, which a machine
   shared with other jobs does not stretch as it does wall time. */
static void pp_bench(int code, int rounds) {
  static double xs[PN];
  int bits = nx_dtype_bits_of(code);
  if (bits > 16) { printf("error pp of a format wider than 16 bits\n"); return; }
  for (int i = 0; i < PN; i++) xs[i] = nx_dtype_load_double(code, next() & (((uint64_t)1 << bits) - 1));
  char buf[NX_DTYPE_PP_MAX];
  double t[64];
  long fails = 0;
  if (rounds > 64) rounds = 64;
  for (int r = 0; r < rounds; r++) {
    long acc = 0;
    double t0 = cpu_now();
    for (int i = 0; i < PN; i++) {
      nx_value v = {.f = xs[i]};
      acc += nx_dtype_pp_value((nx_dtype)code, v, buf, sizeof buf);
    }
    t[r] = PN / ((cpu_now() - t0) * 1e6);
    fails += acc < 0;
    sink += acc;
  }
  printf("%.2f %ld\n", median(t, rounds), fails);
}

static void crosscheck(int code, long millions) {
  char buf[NX_DTYPE_PP_MAX], pbuf[64], dn[40], dp[40];
  long differ = 0, n = millions * 1000000;
  int f32 = code == NX_FLOAT32;
  for (long i = 0; i < n; i++) {
    uint64_t b;
    double x;
    float f = 0;
    if (f32) {
      do b = next() & 0xFFFFFFFFu; while ((b & 0x7F800000u) == 0x7F800000u);
      x = nx_dtype_load_double(NX_FLOAT32, b);
      f = (float)x;
    } else {
      do b = next(); while ((b & 0x7FF0000000000000ull) == 0x7FF0000000000000ull);
      x = nx_dtype_load_double(NX_FLOAT64, b);
    }
    int ln = nx_dtype_format_value(code, x, buf, sizeof buf);
    int lp = f32 ? bench_to_chars_f32(f, pbuf, 63) : bench_to_chars_f64(x, pbuf, 63);
    pbuf[lp] = 0;
    int en, ep;
    decimal_of(buf, dn, &en);
    decimal_of(pbuf, dp, &ep);
    differ += ln < 0 || strcmp(dn, dp) != 0 || en != ep;
  }
  printf("%ld %ld\n", n, differ);
}

int main(void) {
  char line[4096], a[1024], b[1024], c[32], pm[2][16], pn[2][32];
  setvbuf(stdout, NULL, _IOLBF, 0);
  while (fgets(line, sizeof line, stdin)) {
    int code, rounds, got;
    if (sscanf(line, "data %31s %1023s", c, b) == 2) read_set(c, b);
    else if ((got = sscanf(line, "store %1023s %d %1023s %d", a, &code, b, &rounds)) >= 3) store(a, code, b, got == 4 ? rounds : 1);
    else if (sscanf(line, "dump %1023s", a) == 1) {
      FILE *f = fopen(a, "wb");
      size_t w = f ? fwrite(out, last_width, last_n, f) : 0;
      if (f) fclose(f);
      printf("%zu\n", w);
    } else if (sscanf(line, "agree %d %1023s", &code, b) == 2) agree(code, b);
    else if (sscanf(line, "pair %d %15s %31s %15s %31s %d", &code, pm[0], pn[0], pm[1], pn[1], &rounds) == 6)
      pair(code, pm[0], pn[0], pm[1], pn[1], rounds);
    else if (sscanf(line, "print %d %31s %d", &code, c, &rounds) == 3) print_bench(code, c, rounds);
    else if (sscanf(line, "pp %d %d", &code, &rounds) == 2) pp_bench(code, rounds);
    else if (sscanf(line, "crosscheck %d %d", &code, &rounds) == 2) crosscheck(code, rounds);
    else if (strncmp(line, "quit", 4) == 0) break;
    else printf("error %s", line);
  }
  return 0;
}
