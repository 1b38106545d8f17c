/* SPDX-License-Identifier: Apache-2.0 */
/* Products of two bfloat16 or two float32 operands on AVX-512F, blocked in
   the manner of GotoBLAS: per block of z (up to 1032 x 1024) and tile of k (KC), b's
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

enum { MR = NX__WMR, NR = NX__WNR, KC = NX__WKC };

/* How many steps of k ahead the tile asks for b's panel. */
enum { PD = 8 };

/* Whether z holds the chains itself: float32 with contiguous rows. */
static bool direct(const nx__mm *P) { return P->z.dt == NX_FLOAT32 && P->z.cs == 1; }

/* The largest blocks of z, rows by columns: b's panels of a block (KC x
   columns, 1 MiB) stay in the second-level cache, a's panel (MR x KC) in
   the first; z's tiles (or the float32 block of the chains, where z does
   not hold them) are asked for a tile ahead and need not stay in either.
   Large blocks pack each operand few times: a once per block column, b
   once per block row. */
enum { BLOCK_M = 86 * MR, BLOCK_N = 32 * NR };

/* The row stride of the float32 block: a block's width and a cache line
   more, so that its rows do not all fall in the same sets of the cache. */
static int64_t block_ld(const nx__mm *P) { return P->bn + 16; }

/* The blocks of P's z: the fewest up to the largest, rows evened out in
   whole tiles, halved (columns first) until there are two a thread where
   the product is large enough to share. */
static void blocks(const nx__mm *P, int64_t *mc, int64_t *nc) {
  int64_t mx = BLOCK_M, nx = BLOCK_N;
  double ops = 2.0 * (double)P->m * (double)P->n * (double)P->k * (double)P->count;
  int64_t want = ops < 2e6 ? 1 : 2 * (int64_t)nx_num_threads();
  for (;;) {
    int64_t bm = (P->m + mx - 1) / mx, rows = (P->m + bm - 1) / bm;
    *mc = (rows + MR - 1) / MR * MR;
    *nc = nx;
    if (P->count * bm * ((P->n + nx - 1) / nx) >= want) return;
    if (nx > NR && (nx >= mx || mx <= MR)) nx = (nx / 2 + NR - 1) / NR * NR;
    else if (mx > MR) mx = (mx / 2 + MR - 1) / MR * MR;
    else return;
  }
}

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
    /* b's panel streams from the second-level cache: PD steps ahead */
    _mm_prefetch((const char *)(bp + (p + PD) * NR), _MM_HINT_T0);
    _mm_prefetch((const char *)(bp + (p + PD) * NR + 16), _MM_HINT_T0);
    _mm_prefetch((const char *)(bp + (p + PD + 1) * NR), _MM_HINT_T0);
    _mm_prefetch((const char *)(bp + (p + PD + 1) * NR + 16), _MM_HINT_T0);
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
  int64_t rows = P->m - i0 < P->bm ? P->m - i0 : P->bm, cols = P->n - j0 < P->bn ? P->n - j0 : P->bn;
  int64_t pa = nx__mm_pos(P, &P->a, t), pb = nx__mm_pos(P, &P->b, t), pz = nx__mm_pos(P, &P->z, t);
  int64_t ldc = block_ld(P);
  float *ap = vs, *bp = ap + MR * KC + 16, *c = bp + P->bn * KC;
  bool own = direct(P);
  if (own) {
    c = (float *)P->z.base + pz + i0 * P->z.rs + j0;
    ldc = P->z.rs;
  }
  for (int64_t k0 = 0; k0 < P->k; k0 += KC) {
    int64_t kc = P->k - k0 < KC ? P->k - k0 : KC;
    nx__wide_pack_b(P, pb, j0, cols, k0, kc, bp);
    for (int64_t ir = 0; ir < rows; ir += MR) {
      int64_t nr = rows - ir < MR ? rows - ir : MR;
      nx__wide_pack_a(P, pa, i0 + ir, nr, k0, kc, ap);
      for (int64_t jr = 0; jr < cols; jr += NR) {
        /* the next tile of z on its way to the cache while this one runs */
        for (int64_t r = 0; r < nr && jr + NR < cols; r++) {
          __builtin_prefetch(c + (ir + r) * ldc + jr + NR, 1, 3);
          __builtin_prefetch(c + (ir + r) * ldc + jr + NR + 16, 1, 3);
        }
        micro(ap, bp + jr * kc, kc, c + ir * ldc + jr, ldc, nr, cols - jr < NR ? cols - jr : NR, k0 == 0);
      }
    }
  }
  if (!own) nx__mm_store(P, pz, i0, j0, rows, cols, c, block_ld(P));
}

bool nx__mm_wide(nx__mm *P) {
  nx_dtype dt = P->a.dt;
  if (nx__mm_level() < NX__MM_AVX512 || P->b.dt != dt || (dt != NX_BFLOAT16 && dt != NX_FLOAT32)) return false;
  int64_t mc, nc;
  blocks(P, &mc, &nc);
  /* a's panel (and 16 floats a vector store may pass), b's panels, z's block */
  nx__mm_blocks(P, mc, nc, sizeof(float) * (size_t)(MR * KC + 16 + nc * KC + (direct(P) ? 0 : mc * (nc + 16))),
                item);
  return true;
}
#else
bool nx__mm_wide(nx__mm *P) {
  (void)P;
  return false;
}
#endif
