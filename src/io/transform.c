/* SPDX-License-Identifier: Apache-2.0 */
/* Tensors the writer computes at commit (nx_io_writer_add_transform): the
   source's elements cut into runs, the caller's function applied to each
   run on the kernels' thread pool, and each run's result written at its
   place in the file (pwrite) by the thread that made it, so computing and
   writing overlap and no array of the result exists. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "io_internal.h"
#include "../base/alloc.h"
#include "../kernels/engine.h"
#include "nx_kernels.h"

/* Elements a run: a multiple of 8, so that every run starts on a byte of
   the input and of the output whatever their widths; 2^20 keeps a run's
   output buffer (at most 8 MiB for float64, 1 MiB for float8) in the
   cache's reach and gives the pool many runs to share. */
#define RUN ((int64_t)1 << 20)

typedef struct job {
  const uint8_t *in;
  int bits_in, bits_out;
  int64_t count;
  nx_io_transform_fn f;
  void *ctx;
  int fd;
  int64_t at;
  uint8_t *mem;
  atomic_int status; /* the first failure: the function's status, or NX_EIO / NX_ENOMEM */
  atomic_int err;    /* errno of a failed write */
} job;

static void fail(job *j, int s, int e) {
  int none = 0;
  if (atomic_compare_exchange_strong(&j->status, &none, s)) atomic_store(&j->err, e);
}

static int put(int fd, const uint8_t *p, int64_t n, int64_t at) {
  while (n > 0) {
    ssize_t k = pwrite(fd, p, (size_t)(n > (1 << 30) ? (1 << 30) : n), (off_t)at);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return k < 0 ? errno : ENOSPC;
    p += k;
    n -= k;
    at += k;
  }
  return 0;
}

static void runs(void *ctx, int64_t u0, int64_t u1) {
  job *j = ctx;
  uint8_t *buf = NULL;
  for (int64_t u = u0; u < u1 && atomic_load_explicit(&j->status, memory_order_relaxed) == 0; u++) {
    int64_t first = u * RUN, n = j->count - first < RUN ? j->count - first : RUN;
    int64_t off = first * j->bits_out / 8, bytes = (n * j->bits_out + 7) / 8;
    uint8_t *out = j->mem ? j->mem + off : buf;
    if (!out && !(out = buf = nx__malloc((size_t)(RUN * j->bits_out / 8)))) {
      fail(j, NX_ENOMEM, 0);
      break;
    }
    int s = j->f(j->ctx, j->in + first * j->bits_in / 8, out, n);
    if (s != 0) {
      fail(j, s, 0);
      break;
    }
    int e = j->mem ? 0 : put(j->fd, out, bytes, j->at + off);
    if (e) {
      fail(j, NX_EIO, e);
      break;
    }
  }
  nx__free(buf);
}

static int run_read(void *ctx, const void *base, nx_dtype dt, const nx_layout *l) {
  job *j = ctx;
  j->bits_in = nx_dtype_bits(dt);
  if (j->count) j->in = (const uint8_t *)base + l->offset * j->bits_in / 8;
  int64_t units = (j->count + RUN - 1) / RUN;
  /* A few ranges a thread: each range reuses one buffer, and the ranges
     left at the end still balance the threads. */
  nx__parallel(units, 4 * (int64_t)nx_num_threads(), runs, j);
  return 0;
}

int nx__io_transform_run(const nx_array *a, nx_dtype to, nx_io_transform_fn f, void *ctx, int fd, int64_t at,
                         uint8_t *mem, const char *fn, const char *path, const char *name) {
  nx_array *copy;
  const nx_array *src;
  int s = nx__io_host_dense(a, &copy, &src);
  if (s != 0) return nx__fail_as(fn, s);
  job j = {.bits_out = nx_dtype_bits(to), .count = nx_layout_count(nx_array_layout(src)), .f = f, .ctx = ctx,
           .fd = fd, .at = at, .mem = mem};
  atomic_init(&j.status, 0);
  atomic_init(&j.err, 0);
  s = nx_array_read(src, run_read, &j);
  nx_array_free(copy);
  if (s != 0) return nx__fail_as(fn, s);
  s = atomic_load(&j.status);
  int e = atomic_load(&j.err);
  if (s == NX_EIO && e)
    return nx__fail(NX_EIO, "%s: %s: tensor '%s': cannot write: %s", fn, path, name, strerror(e));
  if (s == NX_ENOMEM) return nx__fail(NX_ENOMEM, "%s: %s: tensor '%s': out of memory", fn, path, name);
  if (s != 0) return nx__fail(s < 0 ? s : NX_EINVAL, "%s: %s: tensor '%s': its transform failed (%s)", fn, path, name,
                              nx_status_name(s));
  return 0;
}
