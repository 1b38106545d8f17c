/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the kernels module: the transposition of one tile of a read
   operand whose unit stride lies across the engine's inner axis, into a
   contiguous scratch block, so that the body reads it as a contiguous run
   and the operand is read from memory by whole cache lines. */
#ifndef NX_KERNELS_TILE_H
#define NX_KERNELS_TILE_H

#include <stdint.h>

/* The side in elements of a square tile, where no operand is transposed
   into a scratch block: a 64 x 64 float32 tile of each operand stays in L1. */
#define NX__TILE 64

/* nx__tile_pack(dst, src, bytes, rows, cols, dpitch, pitch) writes element
   (j, i) of the source, at src + (j * pitch + i) * bytes, to dst + (i *
   dpitch + j) * bytes, for j < rows and i < cols; bytes is 1, 2, 4 or 8. */
void nx__tile_pack(char *dst, const char *src, int bytes, int64_t rows, int64_t cols, int64_t dpitch,
                   int64_t pitch);

#endif
