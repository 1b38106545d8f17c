/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the array suites (test_array_*.c, test_door.c): the
   devices (the host, two OpenCL devices through PoCL, a test device: a suite
   fails, not skips, without OpenCL), raw byte access to any buffer that does
   not go through the array module (host staging and nx_rig_submit_copy),
   element bits at a position, and checks of a failure's status and message. */
#ifndef NX_TESTS_ARRAY_COMMON_H
#define NX_TESTS_ARRAY_COMMON_H

#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../check.h"
#include "nx_array.h"
#include "rig_test.h" /* test devices and their faults: the test variant of the library */

static inline double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* xorshift64*. */
static inline uint64_t rnd(uint64_t *s) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1DULL;
}

typedef struct {
  nx_device *host, *ocl0, *ocl1, *test;
} arr_devices;

/* The host, opencl:0, opencl:1 (PoCL, POCL_DEVICES="pthread pthread") and a
   fresh test device; a failed check, not a skip, where OpenCL is missing. */
static inline int arr_need_devices(arr_devices *r) {
  if (!NX_TEST_OPENCL_BUILT) {
    /* Every case of the suites that call this uses two OpenCL devices. */
    printf("SKIP: %s: the suite's cases need two OpenCL devices\n", NX_TEST_NO_OPENCL_REASON);
    exit(77);
  }
  memset(r, 0, sizeof *r);
  r->host = nx_rig_host();
  int s0 = nx_rig_find("opencl:0", &r->ocl0), s1 = nx_rig_find("opencl:1", &r->ocl1);
  CHECK(s0 == 0 && s1 == 0,
        "two OpenCL devices are needed (PoCL with POCL_DEVICES=\"pthread pthread\"): opencl:0 %s, opencl:1 %s",
        s0 == 0 ? "found" : "missing", s1 == 0 ? "found" : "missing");
  int st = nx_rig_test_device(&r->test);
  CHECK(st == 0, "nx_rig_test_device: %s", nx_error_message());
  return r->host && s0 == 0 && s1 == 0 && st == 0 ? 0 : -1;
}

/* Every byte of b into out, through a host copy where the host does not
   address b; independent of the array module. */
static inline int raw_read(nx_buffer *b, void *out) {
  int64_t n = nx_buffer_bytes(b);
  void *p = nx_buffer_host_address(b);
  if (p) {
    int s = nx_buffer_wait(b, NX_ACCESS_READ);
    if (s == 0 && n) memcpy(out, p, (size_t)n);
    return s;
  }
  nx_buffer *h = NULL;
  int s = nx_buffer_create(nx_rig_host(), NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, n, &h);
  if (s) return s;
  if (n) s = nx_rig_submit_copy(h, 0, b, 0, n);
  if (s == 0) s = nx_buffer_wait(h, NX_ACCESS_READ);
  if (s == 0 && n) memcpy(out, nx_buffer_host_address(h), (size_t)n);
  nx_buffer_release(h);
  return s;
}

/* Every byte of b from src, waiting until they are there. */
static inline int raw_write(nx_buffer *b, const void *src) {
  int64_t n = nx_buffer_bytes(b);
  void *p = nx_buffer_host_address(b);
  if (p) {
    int s = nx_buffer_wait(b, NX_ACCESS_WRITE);
    if (s == 0 && n) memcpy(p, src, (size_t)n);
    return s;
  }
  nx_buffer *h = NULL;
  int s = nx_buffer_create(nx_rig_host(), NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, n, &h);
  if (s) return s;
  if (n) memcpy(nx_buffer_host_address(h), src, (size_t)n);
  if (n) s = nx_rig_submit_copy(b, 0, h, 0, n);
  if (s == 0) s = nx_buffer_wait(b, NX_ACCESS_READ);
  nx_buffer_release(h);
  return s;
}

/* The bits of the element of `w` bits (1, 4 or a multiple of 8) at position
   p of the bytes m, into out (w/8 bytes, or one byte's low bits). */
static inline void elem_get(const uint8_t *m, int64_t p, int w, uint8_t *out) {
  if (w >= 8) memcpy(out, m + p * (w / 8), (size_t)(w / 8));
  else out[0] = (uint8_t)((m[(p * w) >> 3] >> ((p * w) & 7)) & ((1u << w) - 1));
}
static inline void elem_put(uint8_t *m, int64_t p, int w, const uint8_t *in) {
  if (w >= 8) {
    memcpy(m + p * (w / 8), in, (size_t)(w / 8));
    return;
  }
  int64_t bit = p * w;
  unsigned mask = ((1u << w) - 1) << (bit & 7);
  m[bit >> 3] = (uint8_t)((m[bit >> 3] & ~mask) | (((unsigned)in[0] << (bit & 7)) & mask));
}

/* Steps index through l's shape in C order, tracking its position: false
   after the last. */
static inline int step_index(const nx_layout *l, int64_t *index, int64_t *pos) {
  for (int j = l->rank - 1; j >= 0; j--) {
    if (++index[j] < l->extent[j]) {
      *pos += l->stride[j];
      return 1;
    }
    *pos -= l->stride[j] * (index[j] - 1);
    index[j] = 0;
  }
  return 0;
}

/* A buffer of n bytes of `kind` on d (access rw), filled with bytes. */
static inline nx_buffer *raw_buffer(nx_device *d, nx_memory_kind kind, nx_access acc, int64_t n,
                                    const uint8_t *bytes) {
  nx_buffer *b = NULL;
  int s = nx_buffer_create(d, kind, acc, n, &b);
  CHECK(s == 0, "nx_buffer_create %lld bytes on %s: %s", (long long)n, nx_device_name(d), nx_error_message());
  if (s) return NULL;
  if (bytes && n) {
    s = raw_write(b, bytes);
    CHECK(s == 0, "raw_write on %s: %s", nx_device_name(d), nx_error_message());
  }
  return b;
}

/* Checks that status s is `want` and that the message names each of the
   NULL-terminated strings. */
#define EXPECT_FAIL(s, want, ...) expect_fail_at(__FILE__, __LINE__, (s), (want), __VA_ARGS__, (const char *)NULL)
static inline void expect_fail_at(const char *file, int line, int s, int want, ...) {
  va_list ap;
  const char *msg = nx_error_message();
  check_count++;
  if (s != want) {
    if (++check_failures <= 30)
      fprintf(stderr, "%s:%d: check failed: status %d (%s), wanted %d (%s); message: %s\n", file, line, s,
              nx_status_name(s), want, nx_status_name(want), msg);
    return;
  }
  va_start(ap, want);
  for (const char *w; (w = va_arg(ap, const char *));) {
    check_count++;
    if (!strstr(msg, w) && ++check_failures <= 30)
      fprintf(stderr, "%s:%d: check failed: the message does not name \"%s\": %s\n", file, line, w, msg);
  }
  va_end(ap);
}

#endif
