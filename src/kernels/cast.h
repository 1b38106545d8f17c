/* Cast between any two of the 21 dtypes: the element loop the kernels call. */
#ifndef NX_KERNELS_CAST_H
#define NX_KERNELS_CAST_H

#include <stdint.h>

#include "nx_dtype.h"

/* Stores n elements of dtype `from` (element i at element position sp + i*ss of
   src's bytes; a sub-byte element at position p occupies bits [p*w, p*w + w) of
   src, packed as nx_dtype.h packs them) into dtype `to` at positions dp + i*ds
   of dst, each stored exactly as nx_dtype.h stores the exact source value: one
   rounding, never through an intermediate format. n >= 0; steps may be negative
   or 0 for the source. Sub-byte destination writes touch only the destination
   elements' bits (read-modify-write of partial bytes), and the caller
   guarantees no other thread writes the same bytes concurrently. Source and
   destination bytes must not overlap. Picks a vector path by CPU feature for
   contiguous runs of the hot pairs; every path gives the same bits. */
void nx__cast_run(nx_dtype to, void *dst, int64_t dp, int64_t ds,
                  nx_dtype from, const void *src, int64_t sp, int64_t ss, int64_t n);

/* The same on the exact element-by-element path only, never a vector one: the
   reference the vector paths are checked against. */
void nx__cast_run_scalar(nx_dtype to, void *dst, int64_t dp, int64_t ds,
                         nx_dtype from, const void *src, int64_t sp, int64_t ss, int64_t n);

#endif
