/* SPDX-License-Identifier: Apache-2.0 */
/* Timelines: each device's queue of jobs and the thread that runs them in
   order, waiting first for the events each job must follow. */
#include <stdlib.h>
#include <string.h>

#include "rig_internal.h"
#include "../base/alloc.h"

bool nx__memory_lost(const nx__memory *m) {
  /* Device and io memory are the device's storage (io memory the pages its
     runtime allocated for it); host memory is nx's pages, lost only where
     failed work would have written it. */
  return atomic_load(&m->lost) || (m->kind != NX_MEMORY_HOST && atomic_load(&m->dev->lost));
}

/* A test device's armed fault, consumed; test devices exist only in the
   test variant of the library. */
#ifdef NX_TESTING
static bool fire(nx_device *d, int fault) {
  return d->type == NX__TEST && (atomic_fetch_and(&d->faults, ~fault) & fault);
}
#else
static bool fire(nx_device *d, int fault) {
  (void)d;
  (void)fault;
  return false;
}
#endif

/* Marks d lost; its thread then fails what remains in its queue. Every
   timeline is woken: d's thread may be waiting on another's for a
   dependency, and a lost device waits for nothing more. */
void nx__lose(nx_device *d) {
  nx_device *all[NX__MAX_DEVICES];
  atomic_store(&d->lost, true);
  int n = nx__rig_known(all, NX__MAX_DEVICES);
  for (int i = 0; i < n && i < NX__MAX_DEVICES; i++) {
    pthread_mutex_lock(&all[i]->tl.mu);
    pthread_cond_broadcast(&all[i]->tl.cv);
    pthread_mutex_unlock(&all[i]->tl.mu);
  }
}

/* A worker's wait for a dependency: it ends when the dependency settles or
   the worker's own device is lost. */
static void wait_dep(nx_device *self, nx__event e) {
  nx__timeline *tl = e.tl;
  if (fire(tl->dev, NX__FAULT_AT_WAIT)) nx__lose(tl->dev);
  pthread_mutex_lock(&tl->mu);
  while (tl->completed < e.seq && !atomic_load(&self->lost)) pthread_cond_wait(&tl->cv, &tl->mu);
  pthread_mutex_unlock(&tl->mu);
}

/* Blocks until e has settled (its job done or failed). Returns 0. */
int nx__wait_event(nx__event e) {
  nx__timeline *tl = e.tl;
  if (!tl || e.seq == 0) return 0;
  if (fire(tl->dev, NX__FAULT_AT_WAIT)) nx__lose(tl->dev);
  pthread_mutex_lock(&tl->mu);
  while (tl->completed < e.seq) pthread_cond_wait(&tl->cv, &tl->mu);
  pthread_mutex_unlock(&tl->mu);
  return 0;
}

/* The memories of a running job whose mapping locks it holds (those OpenCL
   buffers lie over), in j->mems' address order. */
typedef struct {
  bool held[2 * NX__MAX_DEVICES];
} held_locks;

static bool held_for(const nx__job *j, const held_locks *h, const nx__memory *m) {
  for (int k = 0; k < j->nmem; k++)
    if (j->mems[k] == m) return h->held[k];
  return false;
}

/* Makes m's host pages hold its bits for this job's host access. */
static int to_host(const nx__job *j, const held_locks *h, nx__memory *m, nx_access access) {
  return held_for(j, h, m) ? nx__views_to_host(m, access) : 0;
}

/* Runs a copy: through host addresses where both have them, the device's
   own copy where one device maps both, else through a read or a write, or a
   bounce through host memory. */
static int run_copy(nx__job *j, const held_locks *h) {
  nx_buffer *dst = j->bufs[0], *src = j->bufs[1];
  nx__memory *dm = dst->mem, *sm = src->mem;
  int s;
  if (j->bytes == 0) return 0;
  if (dm->host && sm->host) {
    if ((s = to_host(j, h, sm, NX_ACCESS_READ)) || (s = to_host(j, h, dm, NX_ACCESS_READ_WRITE))) return s;
    memmove((char *)dm->host + j->doff, (char *)sm->host + j->soff, (size_t)j->bytes);
    return 0;
  }
  if (sm->host) {
    if ((s = to_host(j, h, sm, NX_ACCESS_READ))) return s;
    return dst->dev->be->write(dst, j->doff, (char *)sm->host + j->soff, j->bytes);
  }
  if (dm->host) {
    if ((s = to_host(j, h, dm, NX_ACCESS_READ_WRITE))) return s;
    return src->dev->be->read(src, j->soff, (char *)dm->host + j->doff, j->bytes);
  }
  nx__backend const *be = dst->dev->be;
  if (be->copy && (dst->dev == src->dev || (be->peer && be->peer(dst->dev, src->dev))))
    return be->copy(dst, j->doff, src, j->soff, j->bytes);
  void *tmp = nx__malloc((size_t)j->bytes);
  if (!tmp) return NX_ENOMEM;
  s = src->dev->be->read(src, j->soff, tmp, j->bytes);
  if (!s) s = dst->dev->be->write(dst, j->doff, tmp, j->bytes);
  nx__free(tmp);
  return s;
}

static int run_job(nx_device *d, nx__job *j, const held_locks *h) {
  int s;
  switch (j->kind) {
  case NX__JOB_WORK:
    /* The host's work reads and writes host pages. */
    for (int i = 0; i < j->nbuf && d->type == NX__HOST; i++)
      if ((s = to_host(j, h, j->bufs[i]->mem, i < j->nwrites ? NX_ACCESS_READ_WRITE : NX_ACCESS_READ))) return s;
    j->fn(j->ctx);
    return 0;
  case NX__JOB_COPY: return run_copy(j, h);
  case NX__JOB_FILL: {
    nx_buffer *b = j->bufs[0];
    /* An OpenCL device fills through its own command, host-addressed
       memory included (its buffer then unmapped for the command). */
    if (!b->mem->host || b->dev->type == NX__OPENCL) return b->dev->be->fill(b, j->doff, j->bytes, j->value);
    if ((s = to_host(j, h, b->mem, NX_ACCESS_READ_WRITE))) return s;
    memset((char *)b->mem->host + j->doff, j->value, (size_t)j->bytes);
    return 0;
  }
  case NX__JOB_HOOK:
    /* A CUDA kernel reaches host-addressed memory through its pages. */
    for (int i = 0; i < j->nbuf && d->type == NX__CUDA; i++)
      if ((s = to_host(j, h, j->bufs[i]->mem, i < j->nwrites ? NX_ACCESS_READ_WRITE : NX_ACCESS_READ))) return s;
    return j->hook(d, j->ctx);
  }
  return NX_EINVAL;
}

/* Runs j holding the mapping locks of its memories that OpenCL buffers lie
   over, taken in address order (j->mems is sorted), so that neither the
   host nor another job maps or unmaps them under it. */
static int run(nx_device *d, nx__job *j) {
  held_locks h;
  for (int k = 0; k < j->nmem; k++)
    if ((h.held[k] = nx__has_views(j->mems[k]))) pthread_mutex_lock(&j->mems[k]->map_mu);
  int s = run_job(d, j, &h);
  for (int k = j->nmem - 1; k >= 0; k--)
    if (h.held[k]) pthread_mutex_unlock(&j->mems[k]->map_mu);
  return s;
}

static void finish(nx_device *d, nx__job *j) {
  if (j->drop) j->drop(j->ctx);
  for (int k = 0; k < j->nmem; k++) {
    atomic_fetch_sub(&j->mems[k]->jobs, 1);
    nx__memory_maybe_release(j->mems[k]);
  }
  for (int i = 0; i < j->nbuf; i++) nx_buffer_release(j->bufs[i]);
  pthread_mutex_lock(&d->tl.mu);
  d->tl.completed = j->seq;
  pthread_cond_broadcast(&d->tl.cv);
  pthread_mutex_unlock(&d->tl.mu);
  nx__free(j->bufs);
  nx__free(j);
}

static void *worker(void *arg) {
  nx_device *d = arg;
  nx__timeline *tl = &d->tl;
  for (;;) {
    pthread_mutex_lock(&tl->mu);
    while (!tl->head) pthread_cond_wait(&tl->cv, &tl->mu);
    nx__job *j = tl->head;
    tl->head = j->next;
    if (!tl->head) tl->tail = NULL;
    pthread_mutex_unlock(&tl->mu);
    /* A lost device waits for nothing more: it fails what it holds. */
    for (int i = 0; i < j->ndeps && !atomic_load(&d->lost); i++) wait_dep(d, j->deps[i]);
    bool fail = atomic_load(&d->lost);
    for (int i = 0; i < j->nbuf && !fail; i++) fail = nx__memory_lost(j->bufs[i]->mem);
    if (!fail && fire(d, NX__FAULT_WHILE_RUNNING)) {
      nx__lose(d);
      fail = true;
    }
    if (!fail && run(d, j) != 0) {
      nx__lose(d); /* a backend that fails has lost its device */
      fail = true;
    }
    if (fail)
      for (int i = 0; i < j->nwrites; i++) atomic_store(&j->bufs[i]->mem->lost, true);
    finish(d, j);
  }
  return NULL;
}

/* Each step that fails gives back what the steps before it made. */
int nx__timeline_start(nx_device *d) {
  nx__timeline *tl = &d->tl;
  pthread_t t;
  pthread_attr_t attr;
  if (NX__INJECT() || pthread_mutex_init(&tl->mu, NULL)) goto fail_mutex;
  if (NX__INJECT() || pthread_cond_init(&tl->cv, NULL)) goto fail_cond;
  if (NX__INJECT() || pthread_attr_init(&attr)) goto fail_attr;
  if (pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED)) goto fail_thread;
  if (NX__INJECT() || pthread_create(&t, &attr, worker, d)) goto fail_thread;
  pthread_attr_destroy(&attr);
  return 0;
fail_thread:
  pthread_attr_destroy(&attr);
fail_attr:
  pthread_cond_destroy(&tl->cv);
fail_cond:
  pthread_mutex_destroy(&tl->mu);
fail_mutex:
  return NX_ENOMEM;
}

/* Queues j on d's timeline, with its dependencies from the memories it
   touches, and updates their order state; the caller has validated j's
   buffers. The memories' order locks are taken in address order and held
   while the sequence number is given, so that a job depends only on jobs
   numbered before it anywhere: timelines cannot wait for each other in a
   cycle. */
static int by_address(const void *p, const void *q) {
  uintptr_t a = (uintptr_t) * (nx__memory *const *)p, b = (uintptr_t) * (nx__memory *const *)q;
  return a < b ? -1 : a > b;
}

int nx__enqueue(nx_device *d, nx__job *j, const char *fn) {
  nx__memory *ms[2 * NX__MAX_DEVICES];
  int nm = 0;
  if (fire(d, NX__FAULT_AT_SUBMIT)) nx__lose(d);
  if (atomic_load(&d->lost)) return nx__fail(NX_ELOST, "%s: device %s is lost", fn, d->name);
  for (int i = 0; i < j->nbuf; i++) {
    nx__memory *m = j->bufs[i]->mem;
    bool seen = false;
    for (int k = 0; k < nm; k++) seen |= ms[k] == m;
    if (!seen) ms[nm++] = m;
  }
  qsort(ms, (size_t)nm, sizeof ms[0], by_address);
  /* Count the job on its memories first, then look for death: a free that
     lands in between sees the count and leaves the storage to the job, and
     one that landed before is seen here. */
  for (int k = 0; k < nm; k++) atomic_fetch_add(&ms[k]->jobs, 1);
  for (int k = 0; k < nm; k++)
    if (atomic_load(&ms[k]->state) & NX__DEAD) {
      for (int i = 0; i < nm; i++) {
        atomic_fetch_sub(&ms[i]->jobs, 1);
        nx__memory_maybe_release(ms[i]);
      }
      return nx__fail(NX_EINVAL, "%s: a buffer's memory is dead (%s)", fn, nx__memory_reason(ms[k]));
    }
  j->nmem = nm;
  memcpy(j->mems, ms, (size_t)nm * sizeof ms[0]);
  bool written[2 * NX__MAX_DEVICES];
  for (int k = 0; k < nm; k++) {
    written[k] = false;
    for (int i = 0; i < j->nwrites; i++) written[k] |= j->bufs[i]->mem == ms[k];
    pthread_mutex_lock(&ms[k]->order_mu);
  }
  /* Dependencies: per timeline the greatest sequence number needed. */
  uint64_t need[NX__MAX_DEVICES] = {0};
  nx_device *all[NX__MAX_DEVICES];
  int ndev = nx__rig_known(all, NX__MAX_DEVICES);
  for (int k = 0; k < nm; k++) {
    nx__memory *m = ms[k];
    if (m->last_write.tl && m->last_write.seq > need[m->last_write.tl->index])
      need[m->last_write.tl->index] = m->last_write.seq;
    if (written[k])
      for (int t = 0; t < ndev; t++)
        if (m->reads[t] > need[t]) need[t] = m->reads[t];
  }
  j->ndeps = 0;
  for (int t = 0; t < ndev; t++)
    if (need[t] && all[t] != d) j->deps[j->ndeps++] = (nx__event){&all[t]->tl, need[t]};
  /* Once queued, j may run and be freed at any moment: keep what is needed. */
  pthread_mutex_lock(&d->tl.mu);
  uint64_t seq = j->seq = ++d->tl.next_seq;
  j->next = NULL;
  if (d->tl.tail) d->tl.tail->next = j; else d->tl.head = j;
  d->tl.tail = j;
  pthread_cond_broadcast(&d->tl.cv);
  pthread_mutex_unlock(&d->tl.mu);
  for (int k = 0; k < nm; k++) {
    nx__memory *m = ms[k];
    if (written[k]) {
      m->last_write = (nx__event){&d->tl, seq};
      memset(m->reads, 0, sizeof m->reads);
    } else {
      m->reads[d->tl.index] = seq;
    }
  }
  for (int k = nm - 1; k >= 0; k--) pthread_mutex_unlock(&ms[k]->order_mu);
  return 0;
}

int nx_device_sync(nx_device *d) {
  if (!d) return nx__fail(NX_EINVAL, "nx_device_sync: the device is NULL");
  pthread_mutex_lock(&d->tl.mu);
  nx__event e = {&d->tl, d->tl.next_seq};
  pthread_mutex_unlock(&d->tl.mu);
  nx__wait_event(e);
  if (atomic_load(&d->lost)) return nx__fail(NX_ELOST, "nx_device_sync: device %s is lost", d->name);
  return 0;
}
