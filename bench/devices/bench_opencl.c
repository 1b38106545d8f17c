/* SPDX-License-Identifier: Apache-2.0 */
/* bench_opencl: each OpenCL device kernel against the host kernel of the
   same operation (the target: the device within 2x of the host's time).
   Both sides run the same call (nx_cast, nx_add, ...) on arrays of 4M
   elements holding the same random bits (NaNs, subnormals and extremes
   occur): once on opencl:0's device memory, once on the host's, the host
   kernels at the default thread count and PoCL's pthread device on all the
   cores, so each side has the machine. Each item is timed from the call to
   nx_device_sync of its device, the two sides alternating round by round
   (which goes first alternating too); medians of the rounds. The results
   are compared byte for byte after the last round. Without an OpenCL
   device it says why and exits 0.

   With --cpu-time each item is timed by the process's CPU time (every
   thread's, the host kernels' and PoCL's workers alike) instead of the
   wall clock: on a machine shared with other jobs the wall time counts
   the waits for a core, the CPU time only the work (neither side spins
   while it waits). */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nx.h"
#include "nx_kernels.h"
#include "../median.h"

#define ROUNDS 7
#define SIDE 2048
#define N ((int64_t)SIDE * SIDE)

static clockid_t clock_id = CLOCK_MONOTONIC;

static double now(void) {
  struct timespec t;
  clock_gettime(clock_id, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

_Noreturn static void die(const char *what) {
  fprintf(stderr, "bench_opencl: %s: %s\n", what, nx_error_message());
  exit(1);
}

/* A SIDE x SIDE array of dt on d, its buffer kept by the array. */
static nx_array *arr(nx_device *d, nx_dtype dt) {
  int64_t bytes, shape[2] = {SIDE, SIDE};
  nx_layout l;
  nx_buffer *b;
  nx_array *a = NULL;
  if (nx_dtype_bytes(dt, N, &bytes) || nx_layout_contiguous(shape, 2, &l) ||
      nx_buffer_create(d, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, bytes, &b))
    die("buffer");
  if (nx_array_v(dt, &l, b, &a)) die("array");
  nx_buffer_release(b);
  return a;
}

static nx_array *transposed(nx_array *a) {
  nx_move m;
  nx_array *t;
  int order[2] = {1, 0};
  if (nx_move_permute(&m, order, 2) || nx_array_move(&m, a, &t)) die("transpose");
  return t;
}

/* The operands of one side: inputs x, y of every dtype used, and outputs. */
enum { F32X, F32Y, F16, BF16, I32X, I32Y, I4X, I4Y, BOOL, OUT_F32, OUT_F16, OUT_BF16, OUT_F8, OUT_I8, OUT_I32,
       OUT_I4, OUT_BOOL, OUT_F32T, NARR };
static const nx_dtype dts[NARR] = {NX_FLOAT32, NX_FLOAT32, NX_FLOAT16, NX_BFLOAT16, NX_INT32, NX_INT32,
                                   NX_INT4,    NX_INT4,    NX_BOOL,    NX_FLOAT32,  NX_FLOAT16, NX_BFLOAT16,
                                   NX_FLOAT8_E4M3FN, NX_INT8, NX_INT32, NX_INT4, NX_BOOL, NX_FLOAT32};

typedef struct side {
  nx_device *dev;
  nx_array *a[NARR];
  nx_array *xt; /* F32X transposed */
} side;

enum { CAST_F32_BF16, CAST_F32_F16, CAST_F32_F8, CAST_F16_F32, CAST_BF16_F32, CAST_I32_F32, CAST_F32_I8, FILL, COPY,
       COPY_T, ADD, ADD_T, MUL, ADD_BF16, SUB_I32, ADD_I4, SQRT, NEG, LT, WHERE, ITEMS };
static const char *names[ITEMS] = {
    "cast float32->bfloat16", "cast float32->float16", "cast float32->float8_e4m3fn", "cast float16->float32",
    "cast bfloat16->float32", "cast int32->float32",   "cast float32->int8",          "fill float32",
    "copy float32",           "copy float32, transposed source", "add float32",       "add float32, one transposed",
    "mul float32",            "add bfloat16",          "sub int32",                   "add int4",
    "sqrt float32",           "neg float32",           "lt float32 -> bool",          "where float32"};
static const int out_of[ITEMS] = {OUT_BF16, OUT_F16, OUT_F8,  OUT_F32, OUT_F32, OUT_F32, OUT_I8,
                                  OUT_F32,  OUT_F32, OUT_F32T, OUT_F32, OUT_F32, OUT_F32, OUT_BF16,
                                  OUT_I32,  OUT_I4,  OUT_F32, OUT_F32, OUT_BOOL, OUT_F32};

static int run(side *s, int k) {
  nx_array **a = s->a;
  nx_value v = {.f = 1.5};
  switch (k) {
  case CAST_F32_BF16: return nx_cast(a[OUT_BF16], a[F32X]);
  case CAST_F32_F16: return nx_cast(a[OUT_F16], a[F32X]);
  case CAST_F32_F8: return nx_cast(a[OUT_F8], a[F32X]);
  case CAST_F16_F32: return nx_cast(a[OUT_F32], a[F16]);
  case CAST_BF16_F32: return nx_cast(a[OUT_F32], a[BF16]);
  case CAST_I32_F32: return nx_cast(a[OUT_F32], a[I32X]);
  case CAST_F32_I8: return nx_cast(a[OUT_I8], a[F32X]);
  case FILL: return nx_fill(a[OUT_F32], v);
  case COPY: return nx_copy(a[OUT_F32], a[F32X]);
  case COPY_T: return nx_copy(a[OUT_F32T], s->xt);
  case ADD: return nx_add(a[OUT_F32], a[F32X], a[F32Y]);
  case ADD_T: return nx_add(a[OUT_F32], s->xt, a[F32Y]);
  case MUL: return nx_mul(a[OUT_F32], a[F32X], a[F32Y]);
  case ADD_BF16: return nx_add(a[OUT_BF16], a[BF16], a[BF16]);
  case SUB_I32: return nx_sub(a[OUT_I32], a[I32X], a[I32Y]);
  case ADD_I4: return nx_add(a[OUT_I4], a[I4X], a[I4Y]);
  case SQRT: return nx_sqrt(a[OUT_F32], a[F32X]);
  case NEG: return nx_neg(a[OUT_F32], a[F32X]);
  case LT: return nx_lt(a[OUT_BOOL], a[F32X], a[F32Y]);
  default: return nx_where(a[OUT_F32], a[BOOL], a[F32X], a[F32Y]);
  }
}

static double timed(side *s, int k) {
  double t0 = now();
  if (run(s, k) || nx_device_sync(s->dev)) die(names[k]);
  return now() - t0;
}

/* The bytes of array a, read back into host memory (freed by the caller). */
static unsigned char *bytes_of(nx_array *a, int64_t *n) {
  nx_buffer *b = nx_array_buffer(a);
  *n = nx_buffer_bytes(b);
  nx_buffer *h;
  if (nx_buffer_create(nx_rig_host(), NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, *n, &h) ||
      nx_rig_submit_copy(h, 0, b, 0, *n) || nx_device_sync(nx_buffer_device(b)) || nx_device_sync(nx_rig_host()))
    die("read back");
  unsigned char *out = malloc((size_t)*n);
  if (!out) die("memory");
  memcpy(out, nx_buffer_host_address(h), (size_t)*n);
  nx_buffer_release(h);
  return out;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--cpu-time") == 0) clock_id = CLOCK_PROCESS_CPUTIME_ID;
  else if (argc > 1) {
    fprintf(stderr, "usage: bench_opencl [--cpu-time]\n");
    return 2;
  }
  side host = {nx_rig_host(), {0}, NULL}, cl = {NULL, {0}, NULL};
  if (nx_rig_find("opencl:0", &cl.dev)) {
    printf("bench_opencl: no OpenCL device (%s)\n", nx_error_message());
    return 0;
  }
  printf("OpenCL kernels on %s (%s) against the host kernels on %d threads, %lld elements, medians of %d rounds, "
         "%s\n",
         nx_device_name(cl.dev), nx_device_description(cl.dev), nx_num_threads(), (long long)N, ROUNDS,
         clock_id == CLOCK_MONOTONIC ? "wall time" : "process CPU time");
  for (int i = 0; i < NARR; i++) {
    host.a[i] = arr(host.dev, dts[i]);
    cl.a[i] = arr(cl.dev, dts[i]);
  }
  /* Inputs: the same random bits on both sides. */
  uint64_t r = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < OUT_F32; i++) {
    nx_buffer *hb = nx_array_buffer(host.a[i]);
    int64_t n = nx_buffer_bytes(hb);
    unsigned char *p = nx_buffer_host_address(hb);
    for (int64_t j = 0; j < n; j++) {
      r ^= r << 13, r ^= r >> 7, r ^= r << 17;
      p[j] = (unsigned char)(r >> 24);
    }
    if (dts[i] == NX_BOOL)
      for (int64_t j = 0; j < n; j++) p[j] &= 1;
    if (nx_rig_submit_copy(nx_array_buffer(cl.a[i]), 0, hb, 0, n) || nx_device_sync(cl.dev)) die("copy in");
  }
  host.xt = transposed(host.a[F32X]);
  cl.xt = transposed(cl.a[F32X]);
  double t[2][ITEMS][ROUNDS];
  for (int k = 0; k < ITEMS; k++) { /* a warm-up call of each (the device's program, the pool) */
    timed(&cl, k);
    timed(&host, k);
  }
  for (int round = 0; round < ROUNDS; round++)
    for (int k = 0; k < ITEMS; k++)
      for (int j = 0; j < 2; j++) {
        int who = (round + j) % 2;
        t[who][k][round] = timed(who ? &cl : &host, k);
      }
  int missed = 0, differ = 0;
  printf("%-34s %10s %10s %8s\n", "kernel", "host ms", "OpenCL ms", "ratio");
  for (int k = 0; k < ITEMS; k++) {
    /* Run once more on both sides so the outputs hold item k's result. */
    timed(&host, k);
    timed(&cl, k);
    int64_t nh, nc;
    unsigned char *bh = bytes_of(host.a[out_of[k]], &nh), *bc = bytes_of(cl.a[out_of[k]], &nc);
    bool same = nh == nc && memcmp(bh, bc, (size_t)nh) == 0;
    free(bh);
    free(bc);
    double th = median(t[0][k], ROUNDS), tc = median(t[1][k], ROUNDS), ratio = tc / th;
    bool met = ratio <= 2.0;
    missed += !met;
    differ += !same;
    printf("%-34s %10.2f %10.2f %8.2f  %s%s\n", names[k], th * 1e3, tc * 1e3, ratio, met ? "met" : "MISSED",
           same ? "" : "; results DIFFER");
  }
  printf("target: each OpenCL kernel within 2x of the host kernel's time (ratio = OpenCL / host <= 2): %s; "
         "results %s\n",
         missed ? "some MISSED" : "met", differ ? "DIFFER" : "bit-identical on every kernel");
  for (int i = 0; i < NARR; i++) {
    nx_array_free(host.a[i]);
    nx_array_free(cl.a[i]);
  }
  nx_array_free(host.xt);
  nx_array_free(cl.xt);
  return differ ? 1 : 0;
}
