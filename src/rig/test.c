/* The test device: memory the host does not address (hidden storage that
   only its timeline touches), work on a thread of its own, and faults that
   nx_test_device_fail arms (timeline.c fires them). */
#include <stdlib.h>
#include <string.h>

#include "rig_internal.h"

static int test_alloc(nx_device *d, nx__memory *m) {
  (void)d;
  m->impl = malloc((size_t)(m->bytes > 0 ? m->bytes : 1));
  return m->impl ? 0 : NX_ENOMEM;
}

static void test_release(nx__memory *m) { free(m->impl); }

static int test_read(nx_buffer *b, int64_t off, void *dst, int64_t n) {
  memcpy(dst, (char *)b->mem->impl + off, (size_t)n);
  return 0;
}
static int test_write(nx_buffer *b, int64_t off, const void *src, int64_t n) {
  memcpy((char *)b->mem->impl + off, src, (size_t)n);
  return 0;
}
static int test_fill(nx_buffer *b, int64_t off, int64_t n, uint8_t v) {
  memset((char *)b->mem->impl + off, v, (size_t)n);
  return 0;
}
static int test_copy(nx_buffer *dst, int64_t doff, nx_buffer *src, int64_t soff, int64_t n) {
  memmove((char *)dst->mem->impl + doff, (char *)src->mem->impl + soff, (size_t)n);
  return 0;
}

const nx__backend nx__test_backend = {test_alloc, test_release, test_read, test_write, test_fill, test_copy, NULL, NULL};
