/* SPDX-License-Identifier: Apache-2.0 */
/* The host: memory is the process's own, so every access is through its
   address. Host memory meant for devices to map is page-aligned. */
#include <stdlib.h>
#include <string.h>

#include "rig_internal.h"
#include "../base/alloc.h"

static int host_alloc(nx_device *d, nx__memory *m) {
  (void)d;
  size_t align = m->kind == NX_MEMORY_HOST ? 4096 : 64;
  size_t size = ((size_t)(m->bytes > 0 ? m->bytes : 1) + align - 1) / align * align;
  m->host = nx__aligned_alloc(align, size);
  return m->host ? 0 : NX_ENOMEM;
}

static void host_release(nx__memory *m) { nx__free(m->host); }

const nx__backend nx__host_backend = {host_alloc,      host_release,   nx__plain_read, nx__plain_write,
                                      nx__plain_fill,  nx__plain_copy, NULL,           NULL, NULL};
