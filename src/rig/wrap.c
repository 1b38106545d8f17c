/* Buffers over host memory that nx did not make (a DLPack producer's): a
   memory of kind NX_MEMORY_HOST on the host whose storage goes back through
   the owner's release callback instead of free (host.c calls the wrap's
   first member when a host memory has an impl). */
#include <stdalign.h>
#include <stdlib.h>

#include "rig_internal.h"

typedef struct nx__wrap {
  void (*back)(nx__memory *m); /* first: what host_release calls */
  void (*release)(void *ctx);
  void *ctx;
} nx__wrap;

/* The address a wrap of 0 bytes over NULL gives: non-NULL, no byte of it
   read or written (an OpenCL mapping sees one byte). */
static alignas(64) unsigned char no_bytes[64];

static void wrap_back(nx__memory *m) {
  nx__wrap *w = m->impl;
  if (w->release) w->release(w->ctx);
  free(w);
}

int nx_buffer_wrap_host(void *data, int64_t bytes, nx_access access, void (*release)(void *ctx), void *ctx,
                        nx_buffer **b) {
  static const char fn[] = "nx_buffer_wrap_host";
  if (!b) return nx__fail(NX_EINVAL, "%s: the result is NULL", fn);
  if (bytes < 0) return nx__fail(NX_EINVAL, "%s: %lld bytes is negative", fn, (long long)bytes);
  if (!data && bytes > 0) return nx__fail(NX_EINVAL, "%s: NULL data for %lld bytes", fn, (long long)bytes);
  if (access < NX_ACCESS_READ || access > NX_ACCESS_READ_WRITE)
    return nx__fail(NX_EINVAL, "%s: access %d is not read, write or read-write", fn, (int)access);
  nx_device *d = nx_rig_host();
  nx__memory *m = calloc(1, sizeof *m);
  nx__wrap *w = malloc(sizeof *w);
  nx_buffer *h = calloc(1, sizeof *h);
  if (!m || !w || !h || pthread_mutex_init(&m->order_mu, NULL)) {
    free(m);
    free(w);
    free(h);
    return nx__fail(NX_ENOMEM, "%s: no memory for a buffer", fn);
  }
  w->back = wrap_back;
  w->release = release;
  w->ctx = ctx;
  m->dev = d;
  m->kind = NX_MEMORY_HOST;
  m->bytes = bytes;
  m->host = data ? data : (void *)no_bytes;
  m->impl = w;
  atomic_init(&m->state, 0);
  atomic_init(&m->handles, 1);
  atomic_init(&m->jobs, 0);
  atomic_init(&m->released, false);
  atomic_init(&m->lost, false);
  atomic_init(&m->reason, NULL);
  atomic_init(&m->reason_owned, false);
  atomic_init(&h->refs, 1);
  h->mem = m;
  h->dev = d;
  h->access = access;
  h->map = NULL;
  *b = h;
  return 0;
}
