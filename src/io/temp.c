/* SPDX-License-Identifier: Apache-2.0 */
/* The writer's temporary file: made in the output's folder (so the rename
   is atomic), written whole, flushed to disk, then renamed over the output;
   removed on any failure. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_internal.h"
#include "../base/alloc.h"

int nx__io_temp_open(nx__io_temp *t, const char *path, const char *fn) {
  t->fd = -1;
  const char *slash = strrchr(path, '/');
  size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
  size_t n = strlen(path) + 16;
  t->tmp = nx__malloc(n);
  if (!t->tmp) return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, path);
  snprintf(t->tmp, n, "%.*s.%s.XXXXXX", (int)dir, path, path + dir);
  t->fd = mkstemp(t->tmp);
  if (t->fd < 0) {
    int e = errno;
    nx__free(t->tmp);
    t->tmp = NULL;
    return nx__fail(NX_EIO, "%s: %s: cannot create a temporary file in its folder: %s", fn, path, strerror(e));
  }
  /* As a file open() would make: the umask's permissions, not mkstemp's 0600. */
  mode_t mask = umask(0);
  umask(mask);
  fchmod(t->fd, 0666 & ~mask);
  return 0;
}

int nx__io_temp_write(nx__io_temp *t, const void *p, size_t n, const char *fn, const char *path) {
  const uint8_t *q = p;
  while (n > 0) {
    ssize_t k = write(t->fd, q, n > (1u << 30) ? (1u << 30) : n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return nx__fail(NX_EIO, "%s: %s: cannot write: %s", fn, path, k < 0 ? strerror(errno) : "no progress");
    q += k;
    n -= (size_t)k;
  }
  return 0;
}

void nx__io_temp_abort(nx__io_temp *t) {
  if (t->fd >= 0) close(t->fd);
  if (t->tmp) unlink(t->tmp);
  nx__free(t->tmp);
  t->tmp = NULL;
  t->fd = -1;
}

int nx__io_temp_commit(nx__io_temp *t, const char *path, const char *fn) {
  int s = 0;
  if (t->fd >= 0 && fsync(t->fd) != 0) s = nx__fail(NX_EIO, "%s: %s: cannot flush to disk: %s", fn, path, strerror(errno));
  if (s == 0 && t->fd >= 0 && close(t->fd) != 0) s = nx__fail(NX_EIO, "%s: %s: cannot close: %s", fn, path, strerror(errno));
  t->fd = -1;
  if (s == 0 && rename(t->tmp, path) != 0) s = nx__fail(NX_EIO, "%s: %s: cannot rename into place: %s", fn, path, strerror(errno));
  if (s != 0) {
    nx__io_temp_abort(t);
    return s;
  }
  /* The rename lasts once the folder is on disk too. */
  /* The folder's name on the stack: the file is in place already, so an
     allocation that failed here could only skip this flush or misreport. */
  const char *slash = strrchr(path, '/');
  char dir[4096];
  size_t n = slash ? (size_t)(slash - path) + 1 : 0;
  if (n < sizeof dir) {
    memcpy(dir, slash ? path : ".", slash ? n : 2);
    if (slash) dir[n] = 0;
    int dfd = open(dir, O_RDONLY);
    if (dfd >= 0) {
      fsync(dfd);
      close(dfd);
    }
  }
  nx__free(t->tmp);
  t->tmp = NULL;
  return 0;
}
