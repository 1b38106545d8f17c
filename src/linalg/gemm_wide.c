/* SPDX-License-Identifier: Apache-2.0 */
/* Products of two bfloat16 or two float32 operands on AVX-512F, blocked in
   the manner of GotoBLAS: per block of z (MC x NC) and tile of k (KC), b's
   columns are packed once into panels of NR (wide_pack.c), kept in the
   second-level cache, and a's rows a panel of MR at a time, kept in the
   first while the register tile sweeps the block's columns. The tile, 12 x
   32 (24 accumulators: fused multiply-adds of latency 4 on two ports want 8
   in flight), runs the float32 kernel's chain (gemm32.c): each element of z
   one chain, the pairs of k ascending, the odd element of each pair first,
   carried from one tile of k to the next; bit for bit the float32 kernel.
   A float32 z whose rows are contiguous holds the chains itself; any other
   goes through a float32 block stored once by the store rule.

   bfloat16 does not use VDPBF16PS, although it computes this very chain
   (measured: the odd product added and rounded, then the even one, in 32
   million lanes): it flushes subnormal inputs, accumulators and results,
   which needs a scalar path for blocks that could meet them, and on this
   machine it retires one 512-bit instruction per about four of VFMADD's,
   so its 64 flops an instruction run at half the fused multiply-add's rate
   (docs/linalg.md). float32 runs here only where BLAS's own kernel is not
   an AVX-512 one (blas.h). */
#include "wide.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

enum { MR = NX__WMR, NR = NX__WNR, KC = NX__WKC, MC = 16 * MR, NC = 16 * NR };

/* The scratch of one chunk, in floats: a's panel, b's panels, z's block. */
enum { AP = MR * KC + 16, BP = NC * KC, CB = MC * NC };

/* One step of k: the tile's accumulators plus a's MR elements (at a) times
   b's NR (at b, aligned). */
__attribute__((target("avx512f"), always_inline)) static inline void step(__m512 acc[MR][2], const float *a,
                                                                          const float *b) {
  __m512 b0 = _mm512_load_ps(b), b1 = _mm512_load_ps(b + 16);
#pragma GCC unroll 12
  for (int r = 0; r < MR; r++) {
    __m512 x = _mm512_set1_ps(a[r]);
    acc[r][0] = _mm512_fmadd_ps(x, b0, acc[r][0]);
    acc[r][1] = _mm512_fmadd_ps(x, b1, acc[r][1]);
  }
}

/* The rows x cols corner (rows <= MR, cols <= NR) of the tile at c (row
   stride ldc) continues its chains over kc steps of the panels ap and bp,
   from +0 where first: p+1 then p for each even p, the last p alone where
   kc is odd. */
__attribute__((target("avx512f"))) static void micro(const float *ap, const float *bp, int64_t kc, float *c,
                                                     int64_t ldc, int64_t rows, int64_t cols, bool first) {
  __mmask16 m0 = cols >= 16 ? 0xffff : (__mmask16)((1u << cols) - 1);
  __mmask16 m1 = cols >= 32 ? 0xffff : cols > 16 ? (__mmask16)((1u << (cols - 16)) - 1) : 0;
  __m512 acc[MR][2];
#pragma GCC unroll 12
  for (int r = 0; r < MR; r++) {
    acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    if (!first && r < rows) {
      acc[r][0] = _mm512_maskz_loadu_ps(m0, c + r * ldc);
      acc[r][1] = _mm512_maskz_loadu_ps(m1, c + r * ldc + 16);
    }
  }
  int64_t p = 0;
  for (; p + 1 < kc; p += 2) {
    step(acc, ap + (p + 1) * MR, bp + (p + 1) * NR);
    step(acc, ap + p * MR, bp + p * NR);
  }
  if (p < kc) step(acc, ap + p * MR, bp + p * NR);
#pragma GCC unroll 12
  for (int r = 0; r < MR; r++)
    if (r < rows) {
      _mm512_mask_storeu_ps(c + r * ldc, m0, acc[r][0]);
      _mm512_mask_storeu_ps(c + r * ldc + 16, m1, acc[r][1]);
    }
}

static void item(const nx__mm *P, int64_t t, int64_t i0, int64_t j0, void *vs) {
  float *ap = vs, *bp = ap + AP, *c = bp + BP;
  int64_t rows = P->m - i0 < MC ? P->m - i0 : MC, cols = P->n - j0 < NC ? P->n - j0 : NC, ldc = NC;
  int64_t pa = nx__mm_pos(P, &P->a, t), pb = nx__mm_pos(P, &P->b, t), pz = nx__mm_pos(P, &P->z, t);
  /* a float32 z with contiguous rows holds the chains itself */
  bool direct = P->z.dt == NX_FLOAT32 && P->z.cs == 1;
  if (direct) {
    c = (float *)P->z.base + pz + i0 * P->z.rs + j0;
    ldc = P->z.rs;
  }
  for (int64_t k0 = 0; k0 < P->k; k0 += KC) {
    int64_t kc = P->k - k0 < KC ? P->k - k0 : KC;
    nx__wide_pack_b(P, pb, j0, cols, k0, kc, bp);
    for (int64_t ir = 0; ir < rows; ir += MR) {
      int64_t nr = rows - ir < MR ? rows - ir : MR;
      nx__wide_pack_a(P, pa, i0 + ir, nr, k0, kc, ap);
      for (int64_t jr = 0; jr < cols; jr += NR)
        micro(ap, bp + jr * kc, kc, c + ir * ldc + jr, ldc, nr, cols - jr < NR ? cols - jr : NR, k0 == 0);
    }
  }
  if (!direct) nx__mm_store(P, pz, i0, j0, rows, cols, c, NC);
}

bool nx__mm_wide(nx__mm *P) {
  nx_dtype dt = P->a.dt;
  if (nx__mm_level() < NX__MM_AVX512 || P->b.dt != dt || (dt != NX_BFLOAT16 && dt != NX_FLOAT32)) return false;
  nx__mm_blocks(P, MC, NC, sizeof(float) * (AP + BP + CB), item);
  return true;
}
#else
bool nx__mm_wide(nx__mm *P) {
  (void)P;
  return false;
}
#endif
