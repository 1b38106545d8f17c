/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the io module: an open file's parts, and what each format's
   parser and writer share. */
#ifndef NX_IO_INTERNAL_H
#define NX_IO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "nx_io.h"
#include "../base/error.h"

/* A tensor's name and index, sorted by name into an index that
   nx_io_file_find searches in log n. */
typedef struct nx__io_named {
  const char *name;
  int i;
} nx__io_named;

/* One metadata pair, both strings owned by the file. */
typedef struct nx__io_meta {
  char *key, *value;
} nx__io_meta;

struct nx_io_file {
  nx_io_format format;
  char *path;
  const uint8_t *map; /* the mapping: bytes [0, size) */
  int64_t size;
  nx_buffer *buffer;  /* read-only host buffer over the mapping; it unmaps */
  nx_io_tensor *tensors;
  int count, cap;
  nx__io_meta *meta;
  int nmeta, meta_cap;
  void *zip;          /* .npz: the zip library's archive over the mapping */
  nx__io_named *index; /* the tensors by name, made once they are all read */
};

/* Adds a tensor (its name and type copied; the rest of t as given) or a
   metadata pair (both copied, value of len bytes or NUL-terminated for
   len < 0): 0 or NX_ENOMEM with a message naming fn and the file. */
int nx__io_add_tensor(nx_io_file *f, const char *fn, const nx_io_tensor *t, const char *name, size_t name_len,
                      const char *type);
int nx__io_add_meta(nx_io_file *f, const char *fn, const char *key, size_t key_len, const char *value,
                    size_t value_len);

/* The first of n names that repeats an earlier one, in their order: its
   index into *first, or -1 where all differ (nameset.c). The names are the
   char * fields at byte `field` of n items of `stride` bytes at items
   (NULL for none). A set of the names seen makes n names cost O(n), where
   a search per name costs n^2 (a GGUF file of 100000 tensors took 31 s).
   0 or NX_ENOMEM, without a message. */
int nx__io_first_repeat(const void *items, size_t stride, size_t field, int n, int *first);
#ifdef NX_TESTING
/* How many name comparisons nx__io_first_repeat, the index of names,
   nx_io_file_find and the writer's sets of names have made, all threads
   (each counted by nx__io_count_compare): a test bounds the cost of
   opening a file of many tensors, finding each, and writing one, by it. */
long nx__io_name_compares(void);
void nx__io_count_compare(void);
#define NX__IO_COUNT_COMPARE() nx__io_count_compare()
#else
#define NX__IO_COUNT_COMPARE() ((void)0)
#endif

/* The parsers: each fills f's tensors and metadata from f's mapping, or
   fails naming fn and the file. */
int nx__npy_parse(nx_io_file *f, const char *fn);
int nx__npz_parse(nx_io_file *f, const char *fn);
int nx__safetensors_parse(nx_io_file *f, const char *fn);
int nx__gguf_parse(nx_io_file *f, const char *fn);

/* A .npy header, parsed from bytes p of n (the whole .npy, or its first
   bytes): the data's offset from p, the dtype and the facts, or a message
   naming fn and where (a file, or "file:entry"). */
typedef struct nx__npy_header {
  int64_t data_offset;
  nx_io_tensor t; /* without its name; type points into descr */
  char descr[16];
} nx__npy_header;
int nx__npy_header_parse(const uint8_t *p, int64_t n, nx__npy_header *h, const char *fn, const char *where);

/* The .npy preamble (magic, version, header) of a dtype and shape, as the
   writer makes it: the bytes' count, or -1 with a message naming fn. buf has
   room for NX__NPY_PREAMBLE_MAX bytes. `descr` is the descr nx writes for
   dt, per_byte whether elements go one per byte (sub-byte dtypes). */
#define NX__NPY_PREAMBLE_MAX 4096
int nx__npy_preamble(nx_dtype dt, const int64_t *shape, int rank, uint8_t *buf);
const char *nx__npy_descr(nx_dtype dt);

/* The .npy data bytes of a host array's elements in C order (sub-byte ones
   one per byte, bit as bytes 0/1): n bytes into out, which has room. */
int64_t nx__npy_data_bytes(nx_dtype dt, int64_t count);

/* Bytes of an array for writing: calls put(ctx, bytes, n) with the array's
   elements in C order, packed as nx packs them (sub-byte elements two or
   eight to a byte, the last byte's unused bits zero), in one or more pieces;
   arrays off the host or not contiguous are copied first. `npy` unpacks
   sub-byte elements to one per byte instead. Returns 0 or put's status, or
   fails naming fn. */
typedef int (*nx__io_put_fn)(void *ctx, const void *bytes, size_t n);
int nx__io_array_bytes(const nx_array *a, bool npy, nx__io_put_fn put, void *ctx, const char *fn);

/* A's elements where the host reads them contiguously from a byte: src is
   a, or a host copy of it that copy holds (to free after; NULL when none is
   made). 0 or a status. */
int nx__io_host_dense(const nx_array *a, nx_array **copy, const nx_array **src);

/* Whether the n bytes at p are strict UTF-8 (no overlong forms, surrogates
   or code points past U+10FFFF), and the length of the longest prefix of
   p's n bytes of at most max bytes that splits no character (utf8.c). */
bool nx__io_utf8_valid(const uint8_t *p, int64_t n);
size_t nx__io_utf8_cut(const char *p, size_t n, size_t max);
/* nx__io_utf8_mend(p, n, out, cap): p's n bytes as UTF-8 into out (at most
   cap bytes, whole characters): each byte that begins no character, and
   each NUL, becomes U+FFFD, as a decoder's "replace" gives. Its length. */
size_t nx__io_utf8_mend(const char *p, size_t n, char *out, size_t cap);

/* Runs a transform (nx_io_writer_add_transform) over a's elements, the
   results of dtype `to`: at byte `at` of the file fd and on (fd >= 0), or
   into mem (fd < 0). 0, or a status with a message naming fn, the file
   (path) and the tensor (name). */
int nx__io_transform_run(const nx_array *a, nx_dtype to, nx_io_transform_fn f, void *ctx, int fd, int64_t at,
                         uint8_t *mem, const char *fn, const char *path, const char *name);

/* A fresh host array of t's dtype and shape filled by fill(ctx, base,
   bytes) with its C-order bytes: 0 or a status. */
int nx__io_fresh(const nx_io_tensor *t, int (*fill)(void *ctx, uint8_t *base, int64_t bytes), void *ctx,
                 nx_array **a);

/* The element count and byte size of a shape of dtype dt, or a message
   naming fn and where when either overflows an int64. */
int nx__io_sizes(nx_dtype dt, const int64_t *shape, int rank, int64_t *count, int64_t *bytes, const char *fn,
                 const char *where);

/* Safetensors dtype strings. */
const char *nx__safetensors_dtype_name(nx_dtype dt); /* NULL where none */
/* A set of names the caller keeps alive (nameset.c), zero-initialized
   empty: has, add (NX_ENOMEM when it cannot grow, the set unchanged), free. */
typedef struct nx__nameset {
  const char **slot;
  size_t cap, n;
} nx__nameset;
bool nx__nameset_has(const nx__nameset *set, const char *name);
int nx__nameset_add(nx__nameset *set, const char *name);
void nx__nameset_free(nx__nameset *set);

/* dt's place in the reference's order of safetensors dtypes (-1: none). */
int nx__safetensors_dtype_rank(nx_dtype dt);

/* The writer's temporary file: created next to path, renamed over it. */
typedef struct nx__io_temp {
  char *tmp;
  int fd;
} nx__io_temp;
int nx__io_temp_open(nx__io_temp *t, const char *path, const char *fn);
int nx__io_temp_write(nx__io_temp *t, const void *p, size_t n, const char *fn, const char *path);
int nx__io_temp_commit(nx__io_temp *t, const char *path, const char *fn);
void nx__io_temp_abort(nx__io_temp *t);

#endif
