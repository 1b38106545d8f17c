/* SPDX-License-Identifier: Apache-2.0 */
/* Buffers and their memories: making, counting, freeing, borrowing, and the
   host's wait for the work an access must follow. */
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>

#include "rig_internal.h"
#include "../base/alloc.h"

static const char *const kind_names[] = {"device", "host", "io"};

const char *nx__buffer_text(const nx_buffer *b, char *t, int cap) {
  if (!b) snprintf(t, (size_t)cap, "NULL buffer");
  else
    snprintf(t, (size_t)cap, "buffer of %lld bytes of %s memory on %s", (long long)b->mem->bytes,
             kind_names[b->mem->kind], b->dev->name);
  return t;
}

nx_buffer *nx__handle(nx__memory *m, nx_device *d, nx_access access, void *map) {
  nx_buffer *b = NX__INJECT() ? NULL : nx__calloc(1, sizeof *b);
  if (!b) return NULL;
  atomic_init(&b->refs, 1);
  b->mem = m;
  b->dev = d;
  b->access = access;
  b->map = map;
  atomic_fetch_add(&m->handles, 1);
  return b;
}

nx__memory *nx__memory_new(nx_device *d, nx_memory_kind kind, int64_t bytes) {
  nx__memory *m = NX__INJECT() ? NULL : nx__calloc(1, sizeof *m);
  if (!m) goto fail_alloc;
  if (NX__INJECT() || pthread_mutex_init(&m->order_mu, NULL)) goto fail_order_mu;
  if (NX__INJECT() || pthread_mutex_init(&m->map_mu, NULL)) goto fail_map_mu;
  m->dev = d;
  m->kind = kind;
  m->bytes = bytes;
  atomic_init(&m->state, 0);
  atomic_init(&m->handles, 0);
  atomic_init(&m->jobs, 0);
  atomic_init(&m->released, false);
  atomic_init(&m->lost, false);
  atomic_init(&m->reason, NULL);
  atomic_init(&m->reason_owned, false);
  atomic_init(&m->views, NULL);
  return m;
fail_map_mu:
  pthread_mutex_destroy(&m->order_mu);
fail_order_mu:
  nx__free(m);
fail_alloc:
  return NULL;
}

void nx__memory_free(nx__memory *m) {
  pthread_mutex_destroy(&m->map_mu);
  pthread_mutex_destroy(&m->order_mu);
  if (atomic_load(&m->reason_owned)) nx__free(atomic_load(&m->reason));
  nx__free(m);
}

int nx_buffer_create(nx_device *d, nx_memory_kind kind, nx_access access, int64_t bytes, nx_buffer **b) {
  static const char fn[] = "nx_buffer_create";
  if (!d || !b) return nx__fail(NX_EINVAL, "%s: the device or result is NULL", fn);
  if (!nx_device_has_memory(d, kind) || (unsigned)kind > NX_MEMORY_IO)
    return nx__fail(NX_EINVAL, "%s: %s has no memory of kind %d", fn, d->name, (int)kind);
  if (access < NX_ACCESS_READ || access > NX_ACCESS_READ_WRITE)
    return nx__fail(NX_EINVAL, "%s: access %d is not read, write or read-write", fn, (int)access);
  if (bytes < 0) return nx__fail(NX_EINVAL, "%s: %lld bytes is negative", fn, (long long)bytes);
  if (atomic_load(&d->lost)) return nx__fail(NX_ELOST, "%s: device %s is lost", fn, d->name);
  int s;
  nx__memory *m = nx__memory_new(d, kind, bytes);
  if (!m) {
    s = nx__fail(NX_ENOMEM, "%s: no memory for the state of %lld bytes of %s memory on %s", fn, (long long)bytes,
                 kind_names[kind], d->name);
    goto fail_memory;
  }
  if ((s = NX__INJECT() ? NX_ENOMEM : d->be->alloc(d, m))) {
    s = nx__fail(s, "%s: %s could not make %lld bytes of %s memory", fn, d->name, (long long)bytes, kind_names[kind]);
    goto fail_storage;
  }
  nx_buffer *h = nx__handle(m, d, access, NULL);
  if (!h) {
    s = nx__fail(NX_ENOMEM, "%s: no memory for the handle of %lld bytes of %s memory on %s", fn, (long long)bytes,
                 kind_names[kind], d->name);
    goto fail_handle;
  }
  *b = h;
  return 0;
fail_handle:
  d->be->release(m);
fail_storage:
  nx__memory_free(m);
fail_memory:
  return s;
}

/* The storage goes back once the memory is dead or has no handle, and no
   claim or unfinished job uses it; exactly once. */
void nx__memory_maybe_release(nx__memory *m) {
  uint64_t st = atomic_load(&m->state);
  if (!((st & NX__DEAD) || atomic_load(&m->handles) == 0)) return;
  if ((st & NX__CLAIMS) || atomic_load(&m->jobs) > 0) return;
  bool no = false;
  if (!atomic_compare_exchange_strong(&m->released, &no, true)) return;
  if (!m->foreign) m->dev->be->release(m);
  else if (m->foreign_release) m->foreign_release(m->foreign_ctx);
}

void nx_buffer_retain(nx_buffer *b) {
  if (b) atomic_fetch_add(&b->refs, 1);
}

void nx_buffer_release(nx_buffer *b) {
  if (!b || atomic_fetch_sub(&b->refs, 1) != 1) return;
  nx__memory *m = b->mem;
  if (b->map) b->dev->be->unmap(b->dev, b->map);
  nx__free(b);
  if (atomic_fetch_sub(&m->handles, 1) == 1) {
    nx__memory_maybe_release(m);
    /* No handle is left, so no job or claim can be: the memory goes. */
    nx__memory_free(m);
  }
}

/* A NULL buffer's facts: a message naming the function, and the value each
   gave before (0, NULL, device memory, read access). */
static bool no_buffer(const nx_buffer *b, const char *fn) {
  if (!b) nx__fail(NX_EINVAL, "%s: the buffer is NULL", fn);
  return !b;
}

bool nx_buffer_lost(const nx_buffer *b) { return no_buffer(b, "nx_buffer_lost") ? false : nx__memory_lost(b->mem); }
int nx_buffer_refcount(const nx_buffer *b) { return no_buffer(b, "nx_buffer_refcount") ? 0 : atomic_load(&b->refs); }
nx_device *nx_buffer_device(const nx_buffer *b) { return no_buffer(b, "nx_buffer_device") ? NULL : b->dev; }
nx_memory_kind nx_buffer_kind(const nx_buffer *b) { return no_buffer(b, "nx_buffer_kind") ? NX_MEMORY_DEVICE : b->mem->kind; }
nx_access nx_buffer_access(const nx_buffer *b) { return no_buffer(b, "nx_buffer_access") ? NX_ACCESS_READ : b->access; }
int64_t nx_buffer_bytes(const nx_buffer *b) { return no_buffer(b, "nx_buffer_bytes") ? 0 : b->mem->bytes; }

/* A dead memory's reason: free stores it just after winning the flag, so a
   reader may spin for those few instructions. */
const char *nx__memory_reason(nx__memory *m) {
  char *r;
  while (!(r = atomic_load_explicit(&m->reason, memory_order_acquire))) sched_yield();
  return r;
}

const char *nx_buffer_dead(const nx_buffer *b) {
  if (no_buffer(b, "nx_buffer_dead") || !(atomic_load_explicit(&b->mem->state, memory_order_acquire) & NX__DEAD))
    return NULL;
  return nx__memory_reason(b->mem);
}

void *nx_buffer_host_address(const nx_buffer *b) {
  return !no_buffer(b, "nx_buffer_host_address") && !atomic_load(&b->mem->released) ? b->mem->host : NULL;
}

bool nx_buffer_overlaps(const nx_buffer *a, const nx_buffer *b) {
  if (no_buffer(a, "nx_buffer_overlaps") || no_buffer(b, "nx_buffer_overlaps")) return false;
  if (a->mem == b->mem) return true;
  const char *x = a->mem->host, *y = b->mem->host;
  if (!x || !y || a->mem->bytes == 0 || b->mem->bytes == 0) return false;
  return x < y + b->mem->bytes && y < x + a->mem->bytes;
}

int nx_buffer_free(nx_buffer *b) {
  static const char fn[] = "nx_buffer_free";
  char t[160];
  if (!b) return nx__fail(NX_EINVAL, "%s: the buffer is NULL", fn);
  nx__memory *m = b->mem;
  uint64_t st = atomic_load(&m->state);
  do {
    if (st & NX__DEAD)
      return nx__fail(NX_EINVAL, "%s: %s is dead already (%s)", fn, nx__buffer_text(b, t, sizeof t),
                      nx__memory_reason(m));
    if (st & NX__EXCLUSIVE)
      return nx__fail(NX_EINVAL, "%s: %s is held exclusive", fn, nx__buffer_text(b, t, sizeof t));
  } while (!atomic_compare_exchange_weak_explicit(&m->state, &st, st | NX__DEAD, memory_order_acq_rel,
                                                  memory_order_acquire));
  atomic_store_explicit(&m->reason, (char *)"freed", memory_order_release);
  nx__memory_maybe_release(m);
  return 0;
}

int nx_buffer_borrow(nx_device *d, nx_buffer *b, nx_buffer **out) {
  static const char fn[] = "nx_buffer_borrow";
  char t[160];
  if (!d || !b || !out) return nx__fail(NX_EINVAL, "%s: an argument is NULL", fn);
  if (nx_buffer_dead(b)) return nx__fail(NX_EINVAL, "%s: %s is dead (%s)", fn, nx__buffer_text(b, t, sizeof t), nx__memory_reason(b->mem));
  if (atomic_load(&d->lost)) return nx__fail(NX_ELOST, "%s: device %s is lost", fn, d->name);
  if (atomic_load(&b->mem->dev->lost)) return nx__fail(NX_ELOST, "%s: device %s is lost", fn, b->mem->dev->name);
  if (d == b->dev) {
    nx_buffer_retain(b);
    *out = b;
    return 0;
  }
  if (!nx_device_can_map(d, b)) return NX_NONE;
  void *map = NULL;
  if (d != b->mem->dev && d->be->map && !(map = d->be->map(d, b->mem)))
    return nx__fail(NX_ENOMEM, "%s: %s could not map %s", fn, d->name, nx__buffer_text(b, t, sizeof t));
  nx_buffer *h = nx__handle(b->mem, d, b->access, map);
  if (!h) {
    if (map) d->be->unmap(d, map);
    return nx__fail(NX_ENOMEM, "%s: no memory for a buffer", fn);
  }
  *out = h;
  return 0;
}

bool nx__has_views(nx__memory *m) { return m->host && atomic_load(&m->views) != NULL; }

int nx__host_begin(nx__memory *m, nx_access access, bool *held) {
  *held = nx__has_views(m);
  if (!*held) return 0;
  pthread_mutex_lock(&m->map_mu);
  int s = nx__views_to_host(m, access);
  if (s) {
    pthread_mutex_unlock(&m->map_mu);
    *held = false;
  }
  return s;
}

void nx__host_end(nx__memory *m, bool held) {
  if (held) pthread_mutex_unlock(&m->map_mu);
}

/* The events a host access must follow, taken under the memory's order lock
   and waited for without it. */
static int wait_for(const char *fn, nx_buffer *b, nx_access access) {
  char t[160];
  nx__memory *m = b->mem;
  nx__event ev[NX__MAX_DEVICES + 1];
  nx_device *all[NX__MAX_DEVICES];
  int n = 0, ndev = nx__rig_known(all, NX__MAX_DEVICES);
  pthread_mutex_lock(&m->order_mu);
  if (m->last_write.tl) ev[n++] = m->last_write;
  if (access & NX_ACCESS_WRITE)
    for (int i = 0; i < ndev; i++)
      if (m->reads[i]) ev[n++] = (nx__event){&all[i]->tl, m->reads[i]};
  pthread_mutex_unlock(&m->order_mu);
  for (int i = 0; i < n; i++) nx__wait_event(ev[i]);
  if (nx__memory_lost(m))
    return nx__fail(NX_ELOST, "%s: %s is lost: work it must follow failed", fn, nx__buffer_text(b, t, sizeof t));
  /* The host's pages hold the bits only while OpenCL has them mapped. */
  bool held;
  if (nx__host_begin(m, access, &held))
    return nx__fail(NX_EIO, "%s: OpenCL could not map %s for the host", fn, nx__buffer_text(b, t, sizeof t));
  nx__host_end(m, held);
  return 0;
}

int nx_buffer_wait(nx_buffer *b, nx_access access) {
  static const char fn[] = "nx_buffer_wait";
  char t[160];
  if (!b) return nx__fail(NX_EINVAL, "%s: the buffer is NULL", fn);
  if (access < NX_ACCESS_READ || access > NX_ACCESS_READ_WRITE)
    return nx__fail(NX_EINVAL, "%s: access %d of %s is none of NX_ACCESS_READ, _WRITE and _READ_WRITE", fn, (int)access,
                    nx__buffer_text(b, t, sizeof t));
  if (nx_buffer_dead(b)) return nx__fail(NX_EINVAL, "%s: %s is dead (%s)", fn, nx__buffer_text(b, t, sizeof t), nx__memory_reason(b->mem));
  return wait_for(fn, b, access);
}

int nx_buffer_export(nx_buffer *b) {
  static const char fn[] = "nx_buffer_export";
  char t[160];
  if (!b) return nx__fail(NX_EINVAL, "%s: the buffer is NULL", fn);
  nx__memory *m = b->mem;
  uint64_t st = atomic_load(&m->state);
  if (st & NX__DEAD) return nx__fail(NX_EINVAL, "%s: %s is dead (%s)", fn, nx__buffer_text(b, t, sizeof t), nx__memory_reason(m));
  if (st & NX__EXCLUSIVE) return nx__fail(NX_EINVAL, "%s: %s is held exclusive", fn, nx__buffer_text(b, t, sizeof t));
  int s = wait_for(fn, b, NX_ACCESS_READ_WRITE);
  if (s) return s;
  /* A hold or a death may have come while it waited. */
  st = atomic_load(&m->state);
  do {
    if (st & (NX__DEAD | NX__EXCLUSIVE))
      return nx__fail(NX_EINVAL, "%s: %s became %s while the export waited", fn, nx__buffer_text(b, t, sizeof t),
                      st & NX__DEAD ? "dead" : "held exclusive");
  } while (!atomic_compare_exchange_weak(&m->state, &st, st | NX__EXPORTED));
  return 0;
}
