/* SPDX-License-Identifier: Apache-2.0 */
/* Buffers over host memory that nx did not make (a DLPack producer's): a
   memory of kind NX_MEMORY_HOST on the host whose storage goes back through
   the owner's release callback instead of the host's free. */
#include <stdalign.h>
#include <stdlib.h>

#include "rig_internal.h"

/* The address a wrap of 0 bytes over NULL gives: non-NULL, no byte of it
   read or written (an OpenCL mapping sees one byte). */
static alignas(64) unsigned char no_bytes[64];

int nx_buffer_wrap_host(void *data, int64_t bytes, nx_access access, void (*release)(void *ctx), void *ctx,
                        nx_buffer **b) {
  static const char fn[] = "nx_buffer_wrap_host";
  if (!b) return nx__fail(NX_EINVAL, "%s: the result is NULL", fn);
  if (bytes < 0) return nx__fail(NX_EINVAL, "%s: %lld bytes is negative", fn, (long long)bytes);
  if (!data && bytes > 0) return nx__fail(NX_EINVAL, "%s: NULL data for %lld bytes", fn, (long long)bytes);
  if (access < NX_ACCESS_READ || access > NX_ACCESS_READ_WRITE)
    return nx__fail(NX_EINVAL, "%s: access %d is not read, write or read-write", fn, (int)access);
  nx_device *d = nx_rig_host();
  nx__memory *m = nx__memory_new(d, NX_MEMORY_HOST, bytes);
  if (!m) return nx__fail(NX_ENOMEM, "%s: no memory for the state of a buffer", fn);
  nx_buffer *h = nx__handle(m, d, access, NULL);
  if (!h) {
    nx__memory_free(m);
    return nx__fail(NX_ENOMEM, "%s: no memory for the handle of a buffer", fn);
  }
  m->host = data ? data : (void *)no_bytes;
  m->foreign = true;
  m->foreign_release = release;
  m->foreign_ctx = ctx;
  *b = h;
  return 0;
}
