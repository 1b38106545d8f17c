/* Internal to cast: the vector paths. */
#ifndef NX_KERNELS_CAST_INTERNAL_H
#define NX_KERNELS_CAST_INTERNAL_H

#include "cast.h"

/* Casts the n contiguous elements of `from` at position sp of src into `to` at
   position dp of dst on a vector path, and returns 1, if this CPU has one for
   the pair; else returns 0 and writes nothing. */
int nx__cast_fast(nx_dtype to, void *dst, int64_t dp, nx_dtype from, const void *src, int64_t sp, int64_t n);

#endif
