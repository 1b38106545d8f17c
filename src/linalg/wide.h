/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the packed kernel (gemm_wide.c): its register tile, and the
   vector steps of the packing of its panels, at each instruction level
   that has one (wide_avx512.c, wide_avx2.c). */
#ifndef NX_LINALG_WIDE_H
#define NX_LINALG_WIDE_H

#include "mm.h"

/* One level's kernel. The register tile is mr rows of z (a's elements
   broadcast) by nr columns; blocks of z are at most block_m x block_n
   (block_m a multiple of mr, block_n of nr); k runs in tiles of kc (even,
   so that the pairs of the chain never straddle two tiles). Elements are
   widened to float32 exactly (float32 copied, bfloat16 shifted).

   row: nr elements from position e of base (of dt), widened, at d
   (aligned to 64 bytes).

   square: the w x w block (w the vector width, mr <= w <= nr) whose line
   j is the w elements from position e + j * pitch, for j < valid, and
   zeros past valid, turned: line j's element s at d[s * dpitch + j]; each
   s stores w lanes, in ascending s, so that with dpitch < w a store's
   last lanes land on the next one's first (which it then writes), and the
   last one passes d + (w - 1) * dpitch + w by nothing or less than w.

   micro: the rows x cols corner (rows <= mr, cols <= nr) of the tile at c
   (row stride ldc) continues its chains over kc steps of the panels ap
   (a[i, p] at ap[p * mr + i]) and bp (b[p, j] at bp[p * nr + j], aligned),
   from +0 where first: p+1 then p for each even p, the last p alone where
   kc is odd. */
typedef struct nx__wide {
  int mr, nr;
  int64_t block_m, block_n, kc;
  int w;
  void (*row)(nx_dtype dt, const char *base, int64_t e, float *d);
  void (*square)(nx_dtype dt, const char *base, int64_t e, int64_t pitch, int64_t valid, float *d, int64_t dpitch);
  void (*micro)(const float *ap, const float *bp, int64_t kc, float *c, int64_t ldc, int64_t rows, int64_t cols,
                bool first);
} nx__wide;

/* The kernels in AVX-512F registers (12 x 32) and in AVX registers with
   FMA (6 x 16); each is called only where the CPU has its instructions. */
extern const nx__wide nx__wide_avx512, nx__wide_avx2;

#endif
