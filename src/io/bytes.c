/* SPDX-License-Identifier: Apache-2.0 */
/* An array's elements as the bytes a file stores: C order, from a host
   copy where the array is off the host or not contiguous from a whole byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

struct bytes_ctx {
  bool npy;
  nx__io_put_fn put;
  void *ctx;
  int64_t count;
};

static int emit(void *ctx, const void *base, nx_dtype dt, const nx_layout *l) {
  struct bytes_ctx *c = ctx;
  int bits = nx_dtype_bits(dt);
  if (c->count == 0) return 0;
  const uint8_t *p = (const uint8_t *)base + l->offset * bits / 8;
  if (bits >= 8) return c->put(c->ctx, p, (size_t)(c->count * (bits / 8)));
  if (!c->npy) {
    int64_t whole = c->count * bits / 8, rest = c->count * bits % 8;
    int s = whole ? c->put(c->ctx, p, (size_t)whole) : 0;
    if (s == 0 && rest) {
      /* The last byte's bits past the last element are not the array's. */
      uint8_t last = (uint8_t)(p[whole] & ((1u << rest) - 1));
      s = c->put(c->ctx, &last, 1);
    }
    return s;
  }
  /* .npy: one byte per element, as ml_dtypes stores sub-byte types. */
  uint8_t chunk[4096];
  int per = 8 / bits;
  uint8_t mask = (uint8_t)((1u << bits) - 1);
  int64_t k = 0;
  while (k < c->count) {
    size_t n = 0;
    for (; n < sizeof chunk && k < c->count; n++, k++) chunk[n] = (uint8_t)((p[k / per] >> (k % per * bits)) & mask);
    int s = c->put(c->ctx, chunk, n);
    if (s != 0) return s;
  }
  return 0;
}

int nx__io_host_dense(const nx_array *a, nx_array **copy, const nx_array **src) {
  nx_array *h = NULL, *dense = NULL;
  int s = 0;
  *src = a;
  nx_buffer *b = nx_array_buffer(a);
  if (!nx_device_host_addresses(nx_buffer_device(b), nx_buffer_kind(b))) {
    s = nx_array_to_device(nx_rig_host(), a, &h);
    *src = h;
  }
  if (s == 0) {
    const nx_layout *l = nx_array_layout(*src);
    int bits = nx_dtype_bits(nx_array_dtype(*src));
    if (!nx_layout_is_contiguous(l) || (bits < 8 && l->offset * bits % 8)) {
      s = nx_array_copy(*src, &dense);
      *src = dense;
    }
  }
  nx_array_free(s == 0 && dense ? h : NULL);
  *copy = dense ? dense : h;
  if (s != 0) {
    nx_array_free(h);
    nx_array_free(dense);
    *copy = NULL;
  }
  return s;
}

int nx__io_array_bytes(const nx_array *a, bool npy, nx__io_put_fn put, void *ctx, const char *fn) {
  nx_array *copy;
  const nx_array *src;
  int s = nx__io_host_dense(a, &copy, &src);
  if (s == 0) {
    struct bytes_ctx c = {npy, put, ctx, nx_layout_count(nx_array_layout(src))};
    s = nx_array_read(src, emit, &c);
  }
  nx_array_free(copy);
  return nx__fail_as(fn, s);
}
