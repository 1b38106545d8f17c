/* SPDX-License-Identifier: Apache-2.0 */
/* nx_io_load: a tensor of an open file as an array, a view of the mapping
   where the bytes are nx's layout of the elements, else a fresh copy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

int nx__npz_load(nx_io_file *f, int i, nx_array **a);

/* The bytes of one element's component: a complex element swaps each part. */
static int swap_width(nx_dtype dt) {
  int bits = nx_dtype_bits(dt);
  return nx_dtype_kind(dt) == NX_KIND_COMPLEX ? bits / 16 : bits / 8;
}

struct fill {
  const uint8_t *src;
  int swap; /* bytes of a unit to reverse; 0 or 1 to copy */
};

static int fill_bytes(void *ctx, uint8_t *base, int64_t bytes) {
  const struct fill *c = ctx;
  if (c->swap <= 1) {
    if (bytes) memcpy(base, c->src, (size_t)bytes);
    return 0;
  }
  for (int64_t k = 0; k < bytes; k += c->swap)
    for (int j = 0; j < c->swap; j++) base[k + j] = c->src[k + c->swap - 1 - j];
  return 0;
}

struct fresh_ctx {
  int (*fill)(void *ctx, uint8_t *base, int64_t bytes);
  void *ctx;
  int64_t bytes;
};

static int fresh_write(void *ctx, void *base, nx_dtype dt, const nx_layout *l) {
  (void)dt;
  (void)l; /* fresh: C-contiguous at offset 0 */
  struct fresh_ctx *c = ctx;
  return c->fill(c->ctx, base, c->bytes);
}

/* The storage shape: a Fortran-order tensor's bytes are the C order of its
   reversed shape. */
static void storage_shape(const nx_io_tensor *t, int64_t *shape) {
  for (int j = 0; j < t->rank; j++) shape[j] = t->fortran ? t->shape[t->rank - 1 - j] : t->shape[j];
}

/* A Fortran-order tensor is the transpose of its storage. */
static int orient(const nx_io_tensor *t, nx_array **a) {
  if (!t->fortran || t->rank < 2) return 0;
  int order[NX_MAX_RANK];
  for (int j = 0; j < t->rank; j++) order[j] = t->rank - 1 - j;
  nx_move m;
  nx_array *r;
  int s = nx_move_permute(&m, order, t->rank);
  if (s == 0) s = nx_array_move(&m, *a, &r);
  if (s != 0) return s;
  nx_array_free(*a);
  *a = r;
  return 0;
}

int nx__io_fresh(const nx_io_tensor *t, int (*fill)(void *ctx, uint8_t *base, int64_t bytes), void *ctx,
                 nx_array **a) {
  int64_t shape[NX_MAX_RANK];
  storage_shape(t, shape);
  nx_array *r;
  int s = nx_array_host(t->dtype, shape, t->rank, &r);
  if (s != 0) return s;
  struct fresh_ctx c = {fill, ctx, t->bytes};
  s = nx_array_write(r, fresh_write, &c);
  if (s == 0) s = orient(t, &r);
  if (s != 0) {
    nx_array_free(r);
    return s;
  }
  *a = r;
  return 0;
}

static int64_t alignment(nx_dtype dt) {
  int bits = nx_dtype_bits(dt);
  if (bits < 8) return 1;
  return nx_dtype_kind(dt) == NX_KIND_COMPLEX ? bits / 16 : bits / 8;
}

int nx_io_load(nx_io_file *f, int i, nx_array **a) {
  static const char fn[] = "nx_io_load";
  if (!f || !a) return nx__fail(NX_EINVAL, "%s: %s is NULL", fn, f ? "a" : "f");
  if (i < 0 || i >= f->count)
    return nx__fail(NX_EINVAL, "%s: %s: tensor index %d is out of range [0, %d)", fn, f->path, i, f->count);
  const nx_io_tensor *t = &f->tensors[i];
  if (!t->has_dtype)
    return nx__fail(NX_EINVAL, "%s: %s: tensor '%s' is of type %s, which no nx dtype holds%s", fn, f->path, t->name,
                    t->type, f->format == NX_IO_GGUF ? " (a quantized block type: listed, not converted)" : "");
  if (f->format == NX_IO_NPZ) return nx__npz_load(f, i, a);
  const uint8_t *src = f->map + t->offset;
  int s;
  nx_array *r = NULL;
  if (t->big_endian || (uintptr_t)src % (uintptr_t)alignment(t->dtype) != 0) {
    struct fill c = {src, t->big_endian ? swap_width(t->dtype) : 0};
    s = nx__io_fresh(t, fill_bytes, &c, &r);
  } else {
    int64_t shape[NX_MAX_RANK];
    storage_shape(t, shape);
    int bits = nx_dtype_bits(t->dtype);
    nx_layout l;
    /* Offsets in elements: a sub-byte tensor starts on a whole byte. */
    s = nx_layout_make(t->rank, shape, NULL, t->offset * 8 / bits, &l);
    if (s == 0) s = nx_array_v(t->dtype, &l, f->buffer, &r);
    if (s == 0) s = orient(t, &r);
  }
  if (s != 0) {
    nx_array_free(r);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", nx_error_message());
    return nx__fail(s, "%s: %s: tensor '%s': %s", fn, f->path, t->name, msg);
  }
  *a = r;
  return 0;
}
