/* SPDX-License-Identifier: Apache-2.0 */
/* Opening a tensor file: the mapping, the format from the first bytes, the
   parsed tensors and metadata, and the accessors. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#ifdef NX_TESTING
#include <stdatomic.h>
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_internal.h"
#include "../base/alloc.h"

const char *nx_io_format_name(nx_io_format fmt) {
  switch (fmt) {
    case NX_IO_NPY: return "npy";
    case NX_IO_NPZ: return "npz";
    case NX_IO_SAFETENSORS: return "safetensors";
    case NX_IO_GGUF: return "gguf";
  }
  return nx__fail(NX_EINVAL, "nx_io_format_name: %d is no nx_io_format", (int)fmt), NULL;
}

int nx_io_format_of_path(const char *path, nx_io_format *fmt) {
  if (!path || !fmt) return nx__fail(NX_EINVAL, "nx_io_format_of_path: %s is NULL", path ? "fmt" : "path");
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  if (!dot || (slash && dot < slash)) return NX_NONE;
  static const char *const ext[] = {".npy", ".npz", ".safetensors", ".gguf"};
  for (int k = 0; k < 4; k++)
    if (!strcasecmp(dot, ext[k])) {
      *fmt = (nx_io_format)k;
      return 0;
    }
  return NX_NONE;
}

struct nx__io_mapping {
  void *p;
  size_t n;
};

static void unmap(void *ctx) {
  struct nx__io_mapping *m = ctx;
  if (m->n) munmap(m->p, m->n);
  nx__free(m);
}

/* Maps path read-only: the buffer over the mapping owns it. */
static int map_file(nx_io_file *f, const char *fn) {
  /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
     writer; the check below refuses it (a regular file's reads are the
     mapping's, which the flag does not touch) */
  int fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return nx__fail(NX_EIO, "%s: %s: cannot open: %s", fn, f->path, strerror(errno));
  struct stat st;
  int e = fstat(fd, &st) != 0 ? errno : 0; /* a stale errno is not this refusal's reason */
  if (e || !S_ISREG(st.st_mode)) {
    close(fd);
    return nx__fail(NX_EIO, "%s: %s: not a regular file%s%s", fn, f->path, e ? ": " : "", e ? strerror(e) : "");
  }
  struct nx__io_mapping *m = nx__calloc(1, sizeof *m);
  if (!m) {
    close(fd);
    return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, f->path);
  }
  static const uint8_t empty[8];
  m->n = (size_t)st.st_size;
  if (m->n) {
    m->p = mmap(NULL, m->n, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m->p == MAP_FAILED) {
      int e = errno;
      close(fd);
      nx__free(m);
      return nx__fail(NX_EIO, "%s: %s: cannot map %lld bytes: %s", fn, f->path, (long long)st.st_size, strerror(e));
    }
  }
  close(fd);
  f->map = m->n ? m->p : empty;
  f->size = (int64_t)m->n;
  int s = nx_buffer_wrap_host(m->n ? m->p : NULL, f->size, NX_ACCESS_READ, unmap, m, &f->buffer);
  if (s != 0) {
    unmap(m);
    return nx__fail(s, "%s: %s: %s", fn, f->path, nx_error_message());
  }
  return 0;
}

#ifdef NX_TESTING
static atomic_long name_compares;
long nx__io_name_compares(void) { return atomic_load(&name_compares); }
void nx__io_count_compare(void) { atomic_fetch_add_explicit(&name_compares, 1, memory_order_relaxed); }
#endif

/* By name (the names of an opened file are distinct). */
static int by_name(const void *a, const void *b) {
  const nx__io_named *x = a, *y = b;
  NX__IO_COUNT_COMPARE();
  return strcmp(x->name, y->name);
}

/* The index nx_io_file_find searches, so that a caller finding each of n
   tensors (nx convert looks for every tensor's scale) costs n log n. */
static int index_names(nx_io_file *f, const char *fn) {
  if (f->count == 0) return 0;
  f->index = nx__malloc((size_t)f->count * sizeof *f->index);
  if (!f->index) return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, f->path);
  for (int i = 0; i < f->count; i++) f->index[i] = (nx__io_named){f->tensors[i].name, i};
  qsort(f->index, (size_t)f->count, sizeof *f->index, by_name);
  return 0;
}

int nx_io_open(const char *path, nx_io_file **out) {
  static const char fn[] = "nx_io_open";
  if (!path || !out) return nx__fail(NX_EINVAL, "%s: %s is NULL", fn, path ? "f" : "path");
  nx_io_file *f = nx__calloc(1, sizeof *f);
  if (!f || !(f->path = nx__strdup(path))) {
    nx__free(f);
    return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, path);
  }
  int s = map_file(f, fn);
  if (s == 0) {
    const uint8_t *p = f->map;
    if (f->size >= 6 && !memcmp(p, "\x93NUMPY", 6)) {
      f->format = NX_IO_NPY;
      s = nx__npy_parse(f, fn);
    } else if (f->size >= 4 && (!memcmp(p, "PK\x03\x04", 4) || !memcmp(p, "PK\x05\x06", 4))) {
      f->format = NX_IO_NPZ;
      s = nx__npz_parse(f, fn);
    } else if (f->size >= 4 && !memcmp(p, "GGUF", 4)) {
      f->format = NX_IO_GGUF;
      s = nx__gguf_parse(f, fn);
    } else {
      f->format = NX_IO_SAFETENSORS;
      s = nx__safetensors_parse(f, fn);
      nx_io_format named;
      /* a name that says another format: say its magic is missing first,
         not only why the bytes are no safetensors header either */
      if (s == NX_EINVAL && nx_io_format_of_path(path, &named) == 0 && named != NX_IO_SAFETENSORS) {
        char why[900], pre[600];
        const char *m = nx_error_message();
        snprintf(pre, sizeof pre, "%s: %s: ", fn, path);
        snprintf(why, sizeof why, "%s", strncmp(m, pre, strlen(pre)) ? m : m + strlen(pre));
        s = nx__fail(NX_EINVAL, "%s: %s: not a .%s file (its first bytes are not the %s magic), nor safetensors: %s",
                     fn, path, nx_io_format_name(named), nx_io_format_name(named), why);
      }
    }
  }
  if (s == 0) s = index_names(f, fn);
  if (s != 0) {
    nx_io_close(f);
    return s;
  }
  *out = f;
  return 0;
}

void nx__npz_close(nx_io_file *f);

void nx_io_close(nx_io_file *f) {
  if (!f) return;
  if (f->zip) nx__npz_close(f);
  for (int i = 0; i < f->count; i++) {
    nx__free((char *)f->tensors[i].name);
    nx__free((char *)f->tensors[i].type);
  }
  nx__free(f->tensors);
  nx__free(f->index);
  for (int i = 0; i < f->nmeta; i++) {
    nx__free(f->meta[i].key);
    nx__free(f->meta[i].value);
  }
  nx__free(f->meta);
  nx_buffer_release(f->buffer);
  nx__free(f->path);
  nx__free(f);
}

static char *copy(const char *s, size_t n) {
  char *r = nx__malloc(n + 1);
  if (r) {
    memcpy(r, s, n);
    r[n] = 0;
  }
  return r;
}

int nx__io_add_tensor(nx_io_file *f, const char *fn, const nx_io_tensor *t, const char *name, size_t name_len,
                      const char *type) {
  if (f->count == f->cap) {
    int cap = f->cap ? 2 * f->cap : 16;
    nx_io_tensor *n = nx__realloc(f->tensors, (size_t)cap * sizeof *n);
    if (!n) return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, f->path);
    f->tensors = n;
    f->cap = cap;
  }
  nx_io_tensor *d = &f->tensors[f->count];
  *d = *t;
  d->name = copy(name, name_len);
  d->type = copy(type, strlen(type));
  if (!d->name || !d->type) {
    nx__free((char *)d->name);
    nx__free((char *)d->type);
    return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, f->path);
  }
  f->count++;
  return 0;
}

int nx__io_add_meta(nx_io_file *f, const char *fn, const char *key, size_t key_len, const char *value,
                    size_t value_len) {
  if (f->nmeta == f->meta_cap) {
    int cap = f->meta_cap ? 2 * f->meta_cap : 16;
    nx__io_meta *n = nx__realloc(f->meta, (size_t)cap * sizeof *n);
    if (!n) return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, f->path);
    f->meta = n;
    f->meta_cap = cap;
  }
  nx__io_meta *m = &f->meta[f->nmeta];
  m->key = copy(key, key_len);
  m->value = copy(value, value_len);
  if (!m->key || !m->value) {
    nx__free(m->key);
    nx__free(m->value);
    return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, f->path);
  }
  f->nmeta++;
  return 0;
}

/* A NULL file's facts: a message naming the function, and the value each
   gives for none. */
static bool no_file(const nx_io_file *f, const char *fn) {
  if (!f) nx__fail(NX_EINVAL, "%s: the file f is NULL", fn);
  return !f;
}

nx_io_format nx_io_file_format(const nx_io_file *f) {
  return no_file(f, "nx_io_file_format") ? NX_IO_NPY : f->format;
}
const char *nx_io_file_path(const nx_io_file *f) { return no_file(f, "nx_io_file_path") ? NULL : f->path; }
int64_t nx_io_file_bytes(const nx_io_file *f) { return no_file(f, "nx_io_file_bytes") ? 0 : f->size; }
int nx_io_file_count(const nx_io_file *f) { return no_file(f, "nx_io_file_count") ? 0 : f->count; }

const nx_io_tensor *nx_io_file_tensor(const nx_io_file *f, int i) {
  if (no_file(f, "nx_io_file_tensor")) return NULL;
  if (i < 0 || i >= f->count) {
    nx__fail(NX_EINVAL, "nx_io_file_tensor: index %d is outside [0, %d) of %s", i, f->count, f->path);
    return NULL;
  }
  return &f->tensors[i];
}

int nx_io_file_find(const nx_io_file *f, const char *name, int *i) {
  if (!f || !name || !i)
    return nx__fail(NX_EINVAL, "nx_io_file_find: %s is NULL", !f ? "f" : !name ? "name" : "i");
  /* the first of the names not before name: of equal ones (none in a file
     nx opened) the least index, as a search in order would find */
  int lo = 0, hi = f->count;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    NX__IO_COUNT_COMPARE();
    if (strcmp(f->index[mid].name, name) < 0) lo = mid + 1;
    else hi = mid;
  }
  if (lo == f->count) return NX_NONE;
  NX__IO_COUNT_COMPARE();
  if (strcmp(f->index[lo].name, name)) return NX_NONE;
  *i = f->index[lo].i;
  return 0;
}

int nx_io_file_metadata_count(const nx_io_file *f) { return no_file(f, "nx_io_file_metadata_count") ? 0 : f->nmeta; }

int nx_io_file_metadata(const nx_io_file *f, int i, const char **key, const char **value) {
  if (!f || !key || !value)
    return nx__fail(NX_EINVAL, "nx_io_file_metadata: %s is NULL", !f ? "f" : !key ? "key" : "value");
  if (i < 0 || i >= f->nmeta)
    return nx__fail(NX_EINVAL, "nx_io_file_metadata: %s: index %d is out of range [0, %d)", f->path, i, f->nmeta);
  *key = f->meta[i].key;
  *value = f->meta[i].value;
  return 0;
}

int nx__io_sizes(nx_dtype dt, const int64_t *shape, int rank, int64_t *count, int64_t *bytes, const char *fn,
                 const char *where) {
  int64_t n = 1, nz = 1; /* nz: the product of the extents that are not 0, which the strides are made of */
  for (int j = 0; j < rank; j++) {
    if (shape[j] < 0) return nx__fail(NX_EINVAL, "%s: %s: negative extent %lld", fn, where, (long long)shape[j]);
    if (shape[j] && nz > INT64_MAX / shape[j])
      return nx__fail(NX_EINVAL, "%s: %s: the element count overflows an int64%s", fn, where,
                      n ? "" : " (counting the extents that are not 0, as the strides do)");
    if (shape[j]) nz *= shape[j];
    n *= shape[j];
  }
  int64_t b;
  if (nx_dtype_bytes(dt, n, &b) != 0)
    return nx__fail(NX_EINVAL, "%s: %s: the byte size of %lld %s elements overflows an int64", fn, where,
                    (long long)n, nx_dtype_name(dt));
  *count = n;
  *bytes = b;
  return 0;
}
