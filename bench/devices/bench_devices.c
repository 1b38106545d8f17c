/* SPDX-License-Identifier: Apache-2.0 */
/* bench_devices: the CUDA device kernels against the device's own copy.
   On cuda:0, 1 GiB of float32: cast to bfloat16 and to float8_e4m3fn, and
   z = x + y, each as bytes moved (read + written) per second against a
   device-to-device copy of 1 GiB (cuMemcpyDtoDAsync, as cudaMemcpy D2D
   does it: 2 GiB moved); host <-> device copies of 1 GiB through the rig
   (from the device's pinned host memory, and from the host's own pageable
   memory) against the driver's copy from the same pinned pages. Every item
   is timed round by round, interleaved with its peer, from submission to
   nx_device_sync; the medians of the rounds and their ratios are printed.
   Without a CUDA device it says why and exits 0. */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nx.h"
#include "nx_kernels.h"
#include "../median.h"
#include "../../src/rig/cuda_driver.h"

#define ROUNDS 5
#define GIB ((int64_t)1 << 30)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static nx_device *dev;

static nx_array *arr(nx_memory_kind kind, nx_dtype dt, int64_t n, nx_buffer **out) {
  int64_t bytes, shape[1] = {n};
  nx_dtype_bytes(dt, n, &bytes);
  nx_layout l;
  nx_layout_contiguous(shape, 1, &l);
  nx_buffer *b;
  nx_array *a = NULL;
  if (nx_buffer_create(dev, kind, NX_ACCESS_READ_WRITE, bytes, &b) || nx_array_v(dt, &l, b, &a)) {
    fprintf(stderr, "bench_devices: %s\n", nx_error_message());
    exit(1);
  }
  if (out) *out = b;
  else nx_buffer_release(b);
  return a;
}

static void must(int s, const char *what) {
  if (s == 0) s = nx_device_sync(dev);
  if (s) {
    fprintf(stderr, "bench_devices: %s: %s\n", what, nx_error_message());
    exit(1);
  }
}

/* The driver's own copy on the device's stream, waited for. */
static void raw_copy(int kind, CUdeviceptr d, void *h, CUdeviceptr s, size_t n) {
  const nx__cuda_api *cu = nx__cuda_api_get();
  nx__cuda_device *c = nx__cuda_device_of(dev);
  nx__cuda_enter(c);
  CUresult e = kind == 0 ? cu->memcpy_dtod_async(d, s, n, c->stream)
               : kind == 1 ? cu->memcpy_htod_async(d, h, n, c->stream)
                           : cu->memcpy_dtoh_async(h, s, n, c->stream);
  if (!e) e = cu->stream_synchronize(c->stream);
  nx__cuda_leave();
  if (e) {
    fprintf(stderr, "bench_devices: the driver's copy failed (%d)\n", e);
    exit(1);
  }
}

int main(void) {
  const char *why = nx__cuda_absent();
  if (why || nx_rig_find("cuda:0", &dev)) {
    printf("bench_devices: no CUDA device (%s)\n", why ? why : "cuda:0 missing");
    return 0;
  }
  printf("device %s: %s\n", nx_device_name(dev), nx_device_description(dev));
  int64_t n = GIB / 4; /* float32 elements of 1 GiB */
  nx_buffer *xb, *yb, *pb, *db;
  nx_array *x = arr(NX_MEMORY_DEVICE, NX_FLOAT32, n, &xb), *y = arr(NX_MEMORY_DEVICE, NX_FLOAT32, n, &yb);
  nx_array *z = arr(NX_MEMORY_DEVICE, NX_FLOAT32, n, &db);
  nx_array *bf = arr(NX_MEMORY_DEVICE, NX_BFLOAT16, n, NULL), *f8 = arr(NX_MEMORY_DEVICE, NX_FLOAT8_E4M3FN, n, NULL);
  nx_array *pin = arr(NX_MEMORY_HOST, NX_FLOAT32, n, &pb);
  nx_buffer *hb;
  if (nx_buffer_create(nx_rig_host(), NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, GIB, &hb)) return 1;
  memset(nx_buffer_host_address(hb), 0x3c, (size_t)GIB);
  memset(nx_buffer_host_address(pb), 0x3c, (size_t)GIB);
  /* Inputs of every kind of value (NaNs, subnormals, the overflow to float8's
     saturation) from random bits, copied in. */
  uint32_t *px = nx_buffer_host_address(pb);
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (int64_t i = 0; i < n; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    px[i] = (uint32_t)s;
  }
  must(nx_rig_submit_copy(xb, 0, pb, 0, GIB), "copy x in");
  must(nx_rig_submit_copy(yb, 0, pb, 0, GIB), "copy y in");
  CUdeviceptr xp = nx__cuda_ptr(xb), dp = nx__cuda_ptr(db);
  void *ph = nx_buffer_host_address(pb);
  enum { D2D, CAST_BF16, CAST_F8, ADD, H2D_RAW, H2D_PINNED, H2D_PAGEABLE, D2H_RAW, D2H_PINNED, D2H_PAGEABLE, ITEMS };
  static const char *names[ITEMS] = {"d2d copy (driver)", "cast float32->bfloat16", "cast float32->float8_e4m3fn",
                                     "add float32", "h2d copy (driver, pinned)", "h2d nx copy from pinned",
                                     "h2d nx copy from pageable", "d2h copy (driver, pinned)", "d2h nx copy to pinned",
                                     "d2h nx copy to pageable"};
  /* Bytes moved: read + written on the device, one way across the bus. */
  double moved[ITEMS] = {2.0 * GIB, 1.5 * GIB, 1.25 * GIB, 3.0 * GIB, GIB, GIB, GIB, GIB, GIB, GIB};
  double t[ITEMS][ROUNDS];
  /* One warm-up round (module load, pool growth), then the timed ones. */
  for (int r = -1; r < ROUNDS; r++)
    for (int k = 0; k < ITEMS; k++) {
      double t0 = now();
      switch (k) {
      case D2D: raw_copy(0, dp, NULL, xp, (size_t)GIB); break;
      case CAST_BF16: must(nx_cast(bf, x), names[k]); break;
      case CAST_F8: must(nx_cast(f8, x), names[k]); break;
      case ADD: must(nx_add(z, x, y), names[k]); break;
      case H2D_RAW: raw_copy(1, dp, ph, 0, (size_t)GIB); break;
      case H2D_PINNED: must(nx_rig_submit_copy(db, 0, pb, 0, GIB), names[k]); break;
      case H2D_PAGEABLE: must(nx_rig_submit_copy(db, 0, hb, 0, GIB), names[k]); break;
      case D2H_RAW: raw_copy(2, 0, ph, xp, (size_t)GIB); break;
      case D2H_PINNED: must(nx_rig_submit_copy(pb, 0, xb, 0, GIB), names[k]); break;
      case D2H_PAGEABLE: must(nx_rig_submit_copy(hb, 0, xb, 0, GIB), names[k]); break;
      }
      if (r >= 0) t[k][r] = now() - t0;
    }
  double gbs[ITEMS];
  for (int k = 0; k < ITEMS; k++) gbs[k] = moved[k] / median(t[k], ROUNDS) / 1e9;
  printf("%-30s %10s %10s  %s\n", "item (1 GiB)", "ms", "GB/s", "ratio to its peer");
  for (int k = 0; k < ITEMS; k++) {
    int peer = k <= ADD ? D2D : k <= H2D_PAGEABLE ? H2D_RAW : D2H_RAW;
    double ms = moved[k] / gbs[k] / 1e6;
    if (k == peer) printf("%-30s %10.2f %10.1f  (peer)\n", names[k], ms, gbs[k]);
    else printf("%-30s %10.2f %10.1f  %.2f of %s\n", names[k], ms, gbs[k], gbs[k] / gbs[peer], names[peer]);
  }
  printf("targets: kernels >= 0.85 of the d2d copy; nx copies from and to pinned memory >= 0.80 of the driver's\n");
  nx_array_free(x);
  nx_array_free(y);
  nx_array_free(z);
  nx_array_free(bf);
  nx_array_free(f8);
  nx_array_free(pin);
  nx_buffer_release(xb);
  nx_buffer_release(yb);
  nx_buffer_release(db);
  nx_buffer_release(pb);
  nx_buffer_release(hb);
  return 0;
}
