/* SPDX-License-Identifier: Apache-2.0 */
/* Products of two bfloat16 or two float32 operands on AVX-512F: panels of
   a and b converted to float32 (bfloat16 widened by a shift, exact) once
   per block, and a 12 x 32 register tile runs the float32 kernel's chain
   (gemm32.c) with vector fused multiply-adds, the pairs of k ascending, the
   odd element of each pair first: bit for bit the float32 kernel.

   bfloat16 does not use VDPBF16PS, although it computes this very chain
   (measured: the odd product added and rounded, then the even one, in 32
   million lanes): it flushes subnormal inputs, accumulators and results,
   which needs a scalar path for blocks that could meet them, and on this
   machine it retires one 512-bit instruction per about four of VFMADD's,
   so its 64 flops an instruction run at half the fused multiply-add's rate
   (docs/linalg.md). float32 runs here only where BLAS's own kernel is not
   an AVX-512 one (blas.h). */
#include <string.h>

#include "mm.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* MR x NR register tiles of z; MC x NC blocks of z per work item; k in
   tiles of KC (even, so pairs never straddle tiles). */
enum { MR = 12, NR = 32, KC = 256, MC = 16 * MR, NC = 8 * NR };

/* The scratch of one chunk. */
typedef struct space {
  float ap[MC * KC]; /* a[i, p] at i * kc + p */
  float bp[NC * KC]; /* NC / NR panels: b[p, j] at p * NR + j */
  float c[MC * NC];  /* z's block, row stride NC */
} space;

/* The element at position e as a float32: bfloat16 widened, or float32. */
static inline float widen(nx_dtype dt, const char *base, int64_t e) {
  float f;
  if (dt == NX_FLOAT32) {
    memcpy(&f, base + e * 4, 4);
    return f;
  }
  uint16_t h;
  memcpy(&h, base + e * 2, 2);
  uint32_t u = (uint32_t)h << 16;
  memcpy(&f, &u, 4);
  return f;
}

/* 16 contiguous elements from position e as float32. */
__attribute__((target("avx512f"))) static inline __m512 widen16(nx_dtype dt, const char *base, int64_t e) {
  if (dt == NX_FLOAT32) return _mm512_loadu_ps(base + e * 4);
  __m512i h = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const void *)(base + e * 2)));
  return _mm512_castsi512_ps(_mm512_slli_epi32(h, 16));
}

/* a's rows i0.. (rows of them, the rest of the last panel zeros) over k0 .. k0+kc. */
__attribute__((target("avx512f"))) static void pack_a(const nx__mm *P, int64_t pa, int64_t i0, int64_t rows,
                                                      int64_t k0, int64_t kc, float *ap) {
  const char *base = P->a.base;
  int64_t rs = P->a.rs, cs = P->a.cs, up = (rows + MR - 1) / MR * MR;
  for (int64_t i = 0; i < up; i++) {
    float *d = ap + i * kc;
    int64_t e = pa + (i0 + i) * rs + k0 * cs, p = 0;
    if (i >= rows) {
      memset(d, 0, sizeof(float) * (size_t)kc);
      continue;
    }
    if (cs == 1)
      for (; p + 16 <= kc; p += 16) _mm512_storeu_ps(d + p, widen16(P->a.dt, base, e + p));
    for (; p < kc; p++) d[p] = widen(P->a.dt, base, e + p * cs);
  }
}

/* b's columns j0.. (cols of them, the rest of the last panel zeros) over k0 .. k0+kc. */
__attribute__((target("avx512f"))) static void pack_b(const nx__mm *P, int64_t pb, int64_t j0, int64_t cols,
                                                      int64_t k0, int64_t kc, float *bp) {
  const char *base = P->b.base;
  int64_t rs = P->b.rs, cs = P->b.cs;
  for (int64_t jp = 0; jp * NR < cols; jp++) {
    float *d = bp + jp * NR * kc;
    int64_t nj = cols - jp * NR < NR ? cols - jp * NR : NR;
    if (cs != 1 && rs == 1) {
      /* b's columns contiguous (a transposed b): 16 of k at a time, scattered */
      const __m512i at = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                            _mm512_set1_epi32(NR));
      for (int64_t j = 0; j < NR; j++) {
        int64_t e = pb + k0 + (j0 + jp * NR + j) * cs, p = 0;
        if (j < nj)
          for (; p + 16 <= kc; p += 16) _mm512_i32scatter_ps(d + p * NR + j, at, widen16(P->b.dt, base, e + p), 4);
        for (; p < kc; p++) d[p * NR + j] = j < nj ? widen(P->b.dt, base, e + p) : 0;
      }
      continue;
    }
    for (int64_t p = 0; p < kc; p++) {
      int64_t e = pb + (k0 + p) * rs + (j0 + jp * NR) * cs, j = 0;
      if (cs == 1)
        for (; j + 16 <= nj; j += 16) _mm512_storeu_ps(d + p * NR + j, widen16(P->b.dt, base, e + j));
      for (; j < nj; j++) d[p * NR + j] = widen(P->b.dt, base, e + j * cs);
      for (; j < NR; j++) d[p * NR + j] = 0;
    }
  }
}

/* The MR x NR tile c (row stride NC) continues its chains over kc steps of
   the panels ap (row stride kc) and bp: p+1 then p for each even p, the last p alone where
   kc is odd. */
__attribute__((target("avx512f"))) static void micro(const float *ap, const float *bp, int64_t kc, float *c) {
  __m512 acc[MR][2];
  for (int r = 0; r < MR; r++)
    for (int v = 0; v < 2; v++) acc[r][v] = _mm512_loadu_ps(c + r * NC + 16 * v);
  for (int64_t p0 = 0; p0 < kc; p0 += 2)
    for (int64_t p = p0 + 1 < kc ? p0 + 1 : p0;; p--) {
      const float *b = bp + p * NR;
      __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 12
      for (int r = 0; r < MR; r++) {
        __m512 a = _mm512_set1_ps(ap[r * kc + p]);
        acc[r][0] = _mm512_fmadd_ps(a, b0, acc[r][0]);
        acc[r][1] = _mm512_fmadd_ps(a, b1, acc[r][1]);
      }
      if (p == p0) break;
    }
  for (int r = 0; r < MR; r++)
    for (int v = 0; v < 2; v++) _mm512_storeu_ps(c + r * NC + 16 * v, acc[r][v]);
}

static void item(const nx__mm *P, int64_t t, int64_t i0, int64_t j0, void *vs) {
  space *S = vs;
  int64_t rows = P->m - i0 < MC ? P->m - i0 : MC, cols = P->n - j0 < NC ? P->n - j0 : NC;
  int64_t pa = nx__mm_pos(P, &P->a, t), pb = nx__mm_pos(P, &P->b, t), pz = nx__mm_pos(P, &P->z, t);
  int64_t ips = (rows + MR - 1) / MR, jps = (cols + NR - 1) / NR;
  memset(S->c, 0, sizeof S->c);
  for (int64_t k0 = 0; k0 < P->k; k0 += KC) {
    int64_t kc = P->k - k0 < KC ? P->k - k0 : KC;
    pack_b(P, pb, j0, cols, k0, kc, S->bp);
    pack_a(P, pa, i0, rows, k0, kc, S->ap);
    for (int64_t jp = 0; jp < jps; jp++)
      for (int64_t ip = 0; ip < ips; ip++)
        micro(S->ap + ip * MR * kc, S->bp + jp * NR * kc, kc, S->c + ip * MR * NC + jp * NR);
  }
  nx__mm_store(P, pz, i0, j0, rows, cols, S->c, NC);
}

bool nx__mm_wide(nx__mm *P) {
  nx_dtype dt = P->a.dt;
  if (nx__mm_level() < NX__MM_AVX512 || P->b.dt != dt || (dt != NX_BFLOAT16 && dt != NX_FLOAT32)) return false;
  nx__mm_blocks(P, MC, NC, sizeof(space), item);
  return true;
}
#else
bool nx__mm_wide(nx__mm *P) {
  (void)P;
  return false;
}
#endif
