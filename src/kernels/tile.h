/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the kernels module: the engine's transposed copy of a tile,
   for a read operand that walks memory at a large stride along the plan's
   axis 0 but contiguously along axis 1. */
#ifndef NX_KERNELS_TILE_H
#define NX_KERNELS_TILE_H

#include <stdbool.h>
#include <stdint.h>

/* Whether nx__tile_transpose has a vector path for elements of `bytes`
   bytes at this CPU's (capped) level. */
bool nx__tile_can(int bytes);

/* Copies the len0 x len1 tile of 4-byte elements at src, element (j, i) at
   src + j * s0 + i * 4 (bytes), into dst transposed: dst[i * ld + j]. */
void nx__tile_transpose(float *dst, int64_t ld, const char *src, int64_t s0, int64_t len0, int64_t len1);

#endif
