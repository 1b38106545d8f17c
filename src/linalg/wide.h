/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the packed AVX-512F kernel (gemm_wide.c): its register tile
   and the packing of its panels (wide_pack.c). */
#ifndef NX_LINALG_WIDE_H
#define NX_LINALG_WIDE_H

#include "mm.h"

/* The register tile: MR rows of z (a's elements broadcast) by NR columns
   (two vectors of b). k runs in tiles of KC (even, so the pairs of the
   chain never straddle two tiles). */
enum { NX__WMR = 12, NX__WNR = 32, NX__WKC = 256 };

/* a's rows i0 .. i0+rows (rows <= MR; the rest of the panel zeros) over
   k0 .. k0+kc of matrix position pa, widened to float32 into ap:
   a[i0 + r, k0 + p] at ap[p * MR + r]. ap has MR * kc + 16 floats (a
   vector store may pass the end by 4). */
void nx__wide_pack_a(const nx__mm *P, int64_t pa, int64_t i0, int64_t rows, int64_t k0, int64_t kc, float *ap);

/* b's columns j0 .. j0+cols (the rest of the last panel zeros) over k0 ..
   k0+kc of matrix position pb, widened to float32 into panels of NR
   columns: panel q's b[k0 + p, j0 + q * NR + j] at bp[q * NR * kc + p * NR
   + j]. bp is aligned to 64 bytes. */
void nx__wide_pack_b(const nx__mm *P, int64_t pb, int64_t j0, int64_t cols, int64_t k0, int64_t kc, float *bp);

#endif
