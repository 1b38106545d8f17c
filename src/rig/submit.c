/* SPDX-License-Identifier: Apache-2.0 */
/* Submissions: work, copies and fills, checked and queued on a timeline. */
#include <stdlib.h>
#include <string.h>

#include "rig_internal.h"
#include "../base/alloc.h"

/* Whether d may touch b's memory: its own, the host's, one it maps through b
   (a borrow onto d), and for the host any memory it addresses. */
static bool reaches(const nx_device *d, const nx_buffer *b) {
  return b->dev == d || b->mem->dev == d || b->mem->dev->type == NX__HOST || (d->type == NX__HOST && b->mem->host);
}

static int check(const char *fn, nx_device *d, nx_buffer *b, bool write) {
  char t[160];
  if (!b) return nx__fail(NX_EINVAL, "%s: a buffer is NULL", fn);
  if (nx_buffer_dead(b))
    return nx__fail(NX_EINVAL, "%s: %s is dead (%s)", fn, nx__buffer_text(b, t, sizeof t), nx__memory_reason(b->mem));
  if (write && !(b->access & NX_ACCESS_WRITE))
    return nx__fail(NX_EINVAL, "%s: %s admits no write", fn, nx__buffer_text(b, t, sizeof t));
  if (!write && !(b->access & NX_ACCESS_READ))
    return nx__fail(NX_EINVAL, "%s: %s admits no read", fn, nx__buffer_text(b, t, sizeof t));
  if (!reaches(d, b)) return nx__fail(NX_EINVAL, "%s: %s cannot reach %s", fn, d->name, nx__buffer_text(b, t, sizeof t));
  return 0;
}

static nx__job *job_new(nx__job_kind kind, int nbuf) {
  nx__job *j = NX__INJECT() ? NULL : nx__calloc(1, sizeof *j);
  if (j && (NX__INJECT() || !(j->bufs = nx__calloc((size_t)(nbuf > 0 ? nbuf : 1), sizeof *j->bufs)))) {
    nx__free(j);
    j = NULL;
  }
  if (j) j->kind = kind;
  return j;
}

/* Queues j with its buffers (the first nwrites written), retaining them. */
static int queue(const char *fn, nx_device *d, nx__job *j) {
  for (int i = 0; i < j->nbuf; i++) nx_buffer_retain(j->bufs[i]);
  int s = nx__enqueue(d, j, fn);
  if (s) {
    for (int i = 0; i < j->nbuf; i++) nx_buffer_release(j->bufs[i]);
    nx__free(j->bufs);
    nx__free(j);
  }
  return s;
}

/* Checks and queues work on d: fn(ctx), or a hook where hook is set. */
static int submit(const char *name, nx_device *d, nx_buffer *const *reads, int nr, nx_buffer *const *writes, int nw,
                  nx_work_fn fn, int (*hook)(nx_device *, void *), void (*drop)(void *), void *ctx) {
  int s;
  if (!d || (!fn && !hook) || nr < 0 || nw < 0 || (nr && !reads) || (nw && !writes) || nr + nw > 2 * NX__MAX_DEVICES)
    return nx__fail(NX_EINVAL, "%s: bad arguments (%d reads, %d writes)", name, nr, nw);
  for (int i = 0; i < nw; i++)
    if ((s = check(name, d, writes[i], true))) return s;
  for (int i = 0; i < nr; i++) {
    bool also_written = false;
    for (int k = 0; k < nw; k++) also_written |= writes[k] == reads[i];
    if (!also_written && (s = check(name, d, reads[i], false))) return s;
  }
  nx__job *j = job_new(hook ? NX__JOB_HOOK : NX__JOB_WORK, nr + nw);
  if (!j) return nx__fail(NX_ENOMEM, "%s: no memory for the work", name);
  for (int i = 0; i < nw; i++) j->bufs[j->nbuf++] = writes[i];
  j->nwrites = nw;
  for (int i = 0; i < nr; i++) j->bufs[j->nbuf++] = reads[i];
  j->fn = fn;
  j->hook = hook;
  j->drop = drop;
  j->ctx = ctx;
  return queue(name, d, j);
}

int nx_rig_submit(nx_device *d, nx_buffer *const *reads, int nr, nx_buffer *const *writes, int nw, nx_work_fn fn,
                  void *ctx) {
  return submit("nx_rig_submit", d, reads, nr, writes, nw, fn, NULL, NULL, ctx);
}

int nx__rig_submit_hook(const char *fn, nx_device *d, nx_buffer *const *reads, int nr, nx_buffer *const *writes,
                        int nw, int (*hook)(nx_device *d, void *ctx), void (*drop)(void *ctx), void *ctx) {
  int s = hook ? submit(fn, d, reads, nr, writes, nw, NULL, hook, drop, ctx)
               : nx__fail(NX_EINVAL, "%s: the work is NULL", fn);
  if (s && drop) drop(ctx);
  return s;
}

static int range(const char *fn, const nx_buffer *b, int64_t off, int64_t bytes) {
  char t[160];
  if (off < 0 || bytes < 0 || off > b->mem->bytes || bytes > b->mem->bytes - off)
    return nx__fail(NX_EINVAL, "%s: bytes [%lld, %lld + %lld) pass the %s", fn, (long long)off, (long long)off,
                    (long long)bytes, nx__buffer_text(b, t, sizeof t));
  return 0;
}

int nx_rig_submit_copy(nx_buffer *dst, int64_t dst_off, nx_buffer *src, int64_t src_off, int64_t bytes) {
  static const char fn[] = "nx_rig_submit_copy";
  int s;
  if (!dst || !src) return nx__fail(NX_EINVAL, "%s: a buffer is NULL", fn);
  nx_device *d = dst->dev->type != NX__HOST ? dst->dev : src->dev;
  /* A copy reads and writes through each buffer's own device. */
  if ((s = check(fn, dst->dev, dst, true)) || (s = check(fn, src->dev, src, false))) return s;
  if ((s = range(fn, dst, dst_off, bytes)) || (s = range(fn, src, src_off, bytes))) return s;
  if (nx_buffer_overlaps(dst, src) && bytes > 0) {
    /* One memory's ranges, or two memories' host ranges: they must not meet. */
    uintptr_t x = dst_off, y = src_off;
    if (dst->mem != src->mem) {
      x += (uintptr_t)dst->mem->host;
      y += (uintptr_t)src->mem->host;
    }
    if (x < y + (uintptr_t)bytes && y < x + (uintptr_t)bytes)
      return nx__fail(NX_EINVAL, "%s: the ranges of the copy meet in memory that holds the same bits", fn);
  }
  nx__job *j = job_new(NX__JOB_COPY, 2);
  if (!j) return nx__fail(NX_ENOMEM, "%s: no memory for the copy", fn);
  j->bufs[0] = dst;
  j->bufs[1] = src;
  j->nbuf = 2;
  j->nwrites = 1;
  j->doff = dst_off;
  j->soff = src_off;
  j->bytes = bytes;
  return queue(fn, d, j);
}

int nx_rig_submit_fill(nx_buffer *b, int64_t off, int64_t bytes, uint8_t value) {
  static const char fn[] = "nx_rig_submit_fill";
  int s;
  if (!b) return nx__fail(NX_EINVAL, "%s: the buffer is NULL", fn);
  if ((s = check(fn, b->dev, b, true)) || (s = range(fn, b, off, bytes))) return s;
  nx__job *j = job_new(NX__JOB_FILL, 1);
  if (!j) return nx__fail(NX_ENOMEM, "%s: no memory for the fill", fn);
  j->bufs[0] = b;
  j->nbuf = 1;
  j->nwrites = 1;
  j->doff = off;
  j->bytes = bytes;
  j->value = value;
  return queue(fn, b->dev, j);
}
