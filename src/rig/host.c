/* The host: memory is the process's own, so every access is through its
   address. Host memory meant for devices to map is page-aligned. */
#include <stdlib.h>
#include <string.h>

#include "rig_internal.h"

static int host_alloc(nx_device *d, nx__memory *m) {
  (void)d;
  size_t align = m->kind == NX_MEMORY_HOST ? 4096 : 64;
  size_t size = ((size_t)(m->bytes > 0 ? m->bytes : 1) + align - 1) / align * align;
  m->host = aligned_alloc(align, size);
  return m->host ? 0 : NX_ENOMEM;
}

static void host_release(nx__memory *m) { if (m->impl) (*(void (**)(nx__memory *))m->impl)(m); else free(m->host); }

/* Host memory is always reached through its address (timeline.c); these
   serve callers that hold a buffer only. */
static int host_read(nx_buffer *b, int64_t off, void *dst, int64_t n) {
  memcpy(dst, (char *)b->mem->host + off, (size_t)n);
  return 0;
}
static int host_write(nx_buffer *b, int64_t off, const void *src, int64_t n) {
  memcpy((char *)b->mem->host + off, src, (size_t)n);
  return 0;
}
static int host_fill(nx_buffer *b, int64_t off, int64_t n, uint8_t v) {
  memset((char *)b->mem->host + off, v, (size_t)n);
  return 0;
}

const nx__backend nx__host_backend = {host_alloc, host_release, host_read, host_write, host_fill, NULL, NULL, NULL};
