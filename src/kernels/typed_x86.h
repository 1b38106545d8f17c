/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the typed loops: the few loops written in AVX-512 intrinsics,
   where the compiler's vectorization of the C loop leaves time behind (the
   float comparisons, whose 16-bit masks it widens and packs, and the
   integer narrowings, which have saturating instructions of their own).
   Same bits as the C loops; test_kernels_typed checks them at the AVX-512
   level. Each returns 0, writing nothing, for a case it has no loop for. */
#ifndef NX_KERNELS_TYPED_X86_H
#define NX_KERNELS_TYPED_X86_H

#include <stdint.h>

#include "nx_dtype.h"
#include "stream.h"
#include "typed_defs.h"

/* z[i] = (x[i] op y[i]) into bool, op 0 eq, 1 ne, 2 lt, 3 le, for float32
   and float64. */
int nx__typed_cmp512(int op, nx_dtype dt, uint8_t *z, const void *x, const void *y, int64_t n);

/* The saturating casts of integers into narrower signed integers and
   uint8, and of floats into int8, int16, uint8 (and float64 into int32):
   their index in the loops' tables (-1 for another pair), in this order. */
static inline int nx__typed_narrow_pair(nx_dtype to, nx_dtype from) {
  static const nx_dtype pairs[][2] = {
      {NX_INT8, NX_INT16},    {NX_INT8, NX_INT32},     {NX_INT8, NX_INT64},    {NX_INT16, NX_INT32},
      {NX_INT16, NX_INT64},   {NX_INT32, NX_INT64},    {NX_UINT8, NX_INT16},   {NX_UINT8, NX_INT32},
      {NX_UINT8, NX_INT64},   {NX_INT8, NX_FLOAT32},   {NX_INT16, NX_FLOAT32}, {NX_UINT8, NX_FLOAT32},
      {NX_INT8, NX_FLOAT64},  {NX_INT16, NX_FLOAT64},  {NX_INT32, NX_FLOAT64}, {NX_UINT8, NX_FLOAT64}};
  for (int k = 0; k < (int)(sizeof pairs / sizeof *pairs); k++)
    if (pairs[k][0] == to && pairs[k][1] == from) return k;
  return -1;
}
typedef void (*nx__narrow_fn)(void *dst, const void *src, int64_t n);
int nx__typed_narrow512(nx_dtype to, void *dst, nx_dtype from, const void *src, int64_t n);

/* The same pairs in AVX registers (typed_narrow_avx2.c), for the AVX2
   level. */
int nx__typed_narrow256(nx_dtype to, void *dst, nx_dtype from, const void *src, int64_t n);

/* z = x op y for op + - x / (NX__ADD .. NX__FDIV) of float32 and float64,
   eight or sixteen float32 lanes at a time, over a contiguous run of at least NX__STREAM_BYTES of result, the
   lines of z past its first 64-byte boundary written by non-temporal
   stores: a large result's lines are then not read before being written
   (about a quarter less time for a float32 add on an AMD Zen 5, as the
   casts and the math loops do already); f, the C loop of op and dt, does
   the elements before that boundary and after the last whole vector. The
   same bits as f: one IEEE operation an element. Returns 0 for another
   case, a smaller run, a z not on a whole element's boundary, or a level
   (typed.h's) other than NX__TYPED_AVX512 and NX__TYPED_AVX2 (which the CPU
   must have). */
int nx__typed_stream(int level, int op, nx_dtype dt, nx__bin_fn f, void *z, const void *x, const void *y, int64_t n);

#endif
