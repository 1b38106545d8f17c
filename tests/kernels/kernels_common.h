/* Helpers of the kernels suites: arrays of random bits, random views of
   them (transposed, sliced with steps, flipped, sub-byte at odd offsets),
   and element bits read back through nx_array_get's values. */
#ifndef NX_TESTS_KERNELS_COMMON_H
#define NX_TESTS_KERNELS_COMMON_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "nx.h"

/* The bits of element index of a, through its nx_value (the array module's
   element access, not the kernels). */
static inline uint64_t elem_bits(const nx_array *a, const int64_t *index) {
  nx_value v;
  nx_dtype dt = nx_array_dtype(a);
  if (nx_array_get(a, index, &v) != 0) return ~(uint64_t)0;
  switch (nx_dtype_kind(dt)) {
  case NX_KIND_FLOAT: return nx_dtype_store_bits(dt, v.f);
  case NX_KIND_SIGNED: return (uint64_t)v.i & (nx_dtype_bits(dt) == 64 ? ~0ull : (1ull << nx_dtype_bits(dt)) - 1);
  case NX_KIND_UNSIGNED: return v.u;
  case NX_KIND_BOOLEAN: return v.b;
  default: return bits_of(v.c.re) ^ (bits_of(v.c.im) * 3);
  }
}

/* A host array of dt and shape whose elements are random bits. */
static inline nx_array *random_array(nx_dtype dt, const int64_t *shape, int rank, uint64_t *seed) {
  nx_array *a;
  if (nx_array_host(dt, shape, rank, &a) != 0) return NULL;
  nx_buffer *b = nx_array_buffer(a);
  nx_buffer_wait(b, NX_ACCESS_READ_WRITE); /* the zeroing of a sub-byte array's last byte */
  uint8_t *p = nx_buffer_host_address(b);
  for (int64_t i = 0; i < nx_buffer_bytes(b); i++) p[i] = (uint8_t)splitmix64_next(seed);
  return a;
}

/* A view of shape `shape` (rank 2) over a fresh random array, of one of
   several layouts by `kind`: 0 contiguous, 1 transposed, 2 sliced with step
   2 and an odd offset, 3 flipped on both axes. */
static inline nx_array *random_view(nx_dtype dt, const int64_t *shape, int kind, uint64_t *seed) {
  int64_t big[2] = {shape[0] * 2 + 1, shape[1] * 2 + 3};
  nx_move m;
  nx_array *base, *v = NULL;
  if (kind == 1) {
    int64_t t[2] = {shape[1], shape[0]};
    int order[2] = {1, 0};
    base = random_array(dt, t, 2, seed);
    nx_move_permute(&m, order, 2);
  } else if (kind == 2) {
    int64_t st[2] = {1, 3}, sp[2] = {1 + 2 * shape[0], 3 + 2 * shape[1]}, step[2] = {2, 2};
    base = random_array(dt, big, 2, seed);
    nx_move_slice(&m, st, sp, step, 2);
  } else if (kind == 3) {
    int axes[2] = {0, 1};
    base = random_array(dt, shape, 2, seed);
    nx_move_flip(&m, axes, 2);
  } else {
    base = random_array(dt, shape, 2, seed);
    nx_move_reshape(&m, shape, 2);
  }
  if (base && nx_array_move(&m, base, &v) != 0) v = NULL;
  nx_array_free(base);
  return v;
}

#endif
