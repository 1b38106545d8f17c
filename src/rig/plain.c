/* SPDX-License-Identifier: Apache-2.0 */
/* Memory that the process holds as plain bytes, the host's and the test
   device's: its reads, writes, fills and copies are memcpy and memset on the
   bytes' address (host memory's own, or the test device's hidden storage). */
#include <string.h>

#include "rig_internal.h"

static char *bytes(const nx_buffer *b) { return b->mem->host ? b->mem->host : b->mem->impl; }

int nx__plain_read(nx_buffer *b, int64_t off, void *dst, int64_t n) {
  memcpy(dst, bytes(b) + off, (size_t)n);
  return 0;
}

int nx__plain_write(nx_buffer *b, int64_t off, const void *src, int64_t n) {
  memcpy(bytes(b) + off, src, (size_t)n);
  return 0;
}

int nx__plain_fill(nx_buffer *b, int64_t off, int64_t n, uint8_t v) {
  memset(bytes(b) + off, v, (size_t)n);
  return 0;
}

int nx__plain_copy(nx_buffer *dst, int64_t doff, nx_buffer *src, int64_t soff, int64_t n) {
  memmove(bytes(dst) + doff, bytes(src) + soff, (size_t)n);
  return 0;
}
