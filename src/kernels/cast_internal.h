/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to cast: the vector paths. */
#ifndef NX_KERNELS_CAST_INTERNAL_H
#define NX_KERNELS_CAST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "cast.h"

/* Casts the n contiguous elements of `from` at position sp of src into `to` at
   position dp of dst on a vector path, the few elements outside whole vectors
   on the exact path, and returns 1, if this CPU has a vector path for the
   pair; else returns 0 and writes nothing. */
int nx__cast_fast(nx_dtype to, void *dst, int64_t dp, nx_dtype from, const void *src, int64_t sp, int64_t n);

/* The instruction-set levels of the vector paths, each including those below. */
enum {
  NX__CAST_ISA_NONE,    /* the exact element path only */
  NX__CAST_ISA_AVX2,    /* AVX2 and F16C */
  NX__CAST_ISA_AVX512,  /* AVX-512 F, BW, DQ and VL */
  NX__CAST_ISA_AVX512X, /* and AVX512-BF16 */
  NX__CAST_ISA_AVX512FP, /* and AVX512-FP16 */
  NX__CAST_ISA_BEST
};

/* A vector loop of cast: n elements (a multiple of its block) from s to d,
   both contiguous. */
typedef void (*nx__cast_loop)(nx_u8 *d, const nx_u8 *s, int64_t n);

/* A table's entry of vector loops: the pair, its loop and its block. */
typedef struct nx__cast_path {
  int to, from;
  nx__cast_loop fn;
  int block;
} nx__cast_path;

/* The loop of the pair (to, from) among the n entries of paths, its block
   in *block; NULL if none. */
nx__cast_loop nx__cast_find(const nx__cast_path *paths, size_t n, int to, int from, int *block);

/* Whether this CPU has AVX512-FP16 and this build its paths (cast_fp16.c). */
bool nx__cast_has_fp16(void);

/* The AVX512-FP16 loop of the pair (float16 to or from float64 and the 8- to
   64-bit integers) and its block in *block, or NULL; only for a CPU where
   nx__cast_has_fp16. */
nx__cast_loop nx__cast_pick_fp16(int to, int from, int *block);

/* Caps the level the vector paths use at `level` (NX__CAST_ISA_BEST: the
   CPU's own), so that tests reach every path on one machine; returns the
   level now in use. Not for use while casts run. */
int nx__cast_set_isa(int level);

#endif
