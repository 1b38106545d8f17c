/* SPDX-License-Identifier: Apache-2.0 */
/* The host: memory is the process's own, so every access is through its
   address. Host memory meant for devices to map is page-aligned. */
#define _DEFAULT_SOURCE /* madvise */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "rig_internal.h"
#include "../base/alloc.h"

static int host_alloc(nx_device *d, nx__memory *m) {
  (void)d;
  size_t align = m->kind == NX_MEMORY_HOST ? 4096 : 64;
  size_t size = ((size_t)(m->bytes > 0 ? m->bytes : 1) + align - 1) / align * align;
  m->host = nx__aligned_alloc(align, size);
  if (!m->host) return NX_ENOMEM;
#if defined(MADV_HUGEPAGE)
  /* Large buffers in transparent huge pages where the system gives them on
     request: a kernel streaming 4M elements ran 10% slower in CPU time on
     4 KiB pages (bench/kernels/run_ops.py against numpy, which asks the
     same). Advice only: its failure changes nothing. */
  if (size >= ((size_t)4 << 20)) {
    uintptr_t p = (uintptr_t)m->host, a = (p + 4095) / 4096 * 4096, e = (p + size) / 4096 * 4096;
    (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
  }
#endif
  return 0;
}

static void host_release(nx__memory *m) { nx__free(m->host); }

const nx__backend nx__host_backend = {host_alloc,      host_release,   nx__plain_read, nx__plain_write,
                                      nx__plain_fill,  nx__plain_copy, NULL,           NULL, NULL};
