/* SPDX-License-Identifier: Apache-2.0 */
/* int8 x int8 products by VPDPBUSD (AVX512-VNNI), the same bits as the
   integer kernel (gemm_int.c). The instruction multiplies unsigned bytes by
   signed ones, four to a 32-bit lane, and adds them to the lane, wrapping;
   a's bytes go in biased, a + 128 (an exclusive or with 0x80), and
   128 * (the sum of b's column) comes off at the end, modulo 2^32. Integer
   sums modulo 2^32 do not depend on their order, so the result is the sum
   of products modulo 2^32: z's low bits where z has 32 bits or fewer, and
   for a 64-bit z the whole sum where k < 2^17 (|sum| <= k * 2^14 < 2^31),
   sign-extended; other cases run the integer kernel. k is padded to fours
   with zeros in b (and so in its column sums). */

#include "../kernels/elem.h"
#include "mm.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* MR x NR register tiles; MC x NC blocks per work item; k in tiles of KC
   (a multiple of 4). */
enum { MR = 12, NR = 32, KC = 1024, MC = 16 * MR, NC = 8 * NR, KQ = KC / 4 };

typedef struct space {
  uint32_t ap[MC * KQ];  /* a[i, 4q .. 4q+3] + 128 at i * kq + q */
  uint32_t bp[NC * KQ];  /* b[4q .. 4q+3, j] at q * NR + j (per panel) */
  uint32_t c[MC * NC];   /* z's block, row stride NC, modulo 2^32 */
  uint32_t colsum[NC];   /* the sums of b's columns, modulo 2^32 */
} space;

static void pack_a(const nx__mm *P, int64_t pa, int64_t i0, int64_t rows, int64_t k0, int64_t kc, uint32_t *ap) {
  const uint8_t *base = (const uint8_t *)P->a.base;
  int64_t rs = P->a.rs, cs = P->a.cs, kq = (kc + 3) / 4, up = (rows + MR - 1) / MR * MR;
  for (int64_t i = 0; i < up; i++) {
    uint32_t *d = ap + i * kq;
    if (i >= rows) {
      memset(d, 0, sizeof(uint32_t) * (size_t)kq);
      continue;
    }
    int64_t e = pa + (i0 + i) * rs + k0 * cs;
    for (int64_t q = 0; q < kq; q++) {
      uint32_t w = 0;
      for (int s = 0; s < 4; s++)
        if (4 * q + s < kc) w |= (uint32_t)(base[e + (4 * q + s) * cs] ^ 0x80) << (8 * s);
      d[q] = w;
    }
  }
}

static void pack_b(const nx__mm *P, int64_t pb, int64_t j0, int64_t cols, int64_t k0, int64_t kc, uint32_t *bp,
                   uint32_t *colsum) {
  const uint8_t *base = (const uint8_t *)P->b.base;
  int64_t rs = P->b.rs, cs = P->b.cs, kq = (kc + 3) / 4;
  for (int64_t jp = 0; jp * NR < cols; jp++) {
    uint32_t *d = bp + jp * NR * kq;
    int64_t nj = cols - jp * NR < NR ? cols - jp * NR : NR;
    for (int64_t q = 0; q < kq; q++) {
      int64_t e = pb + (k0 + 4 * q) * rs + (j0 + jp * NR) * cs, j = 0;
      for (; j < nj; j++) {
        uint32_t w = 0;
        for (int s = 0; s < 4 && 4 * q + s < kc; s++) {
          uint8_t x = base[e + s * rs + j * cs];
          colsum[jp * NR + j] += (uint32_t)(int32_t)(int8_t)x;
          w |= (uint32_t)x << (8 * s);
        }
        d[q * NR + j] = w;
      }
      for (; j < NR; j++) d[q * NR + j] = 0;
    }
  }
}

/* The MR x NR tile c (row stride NC) continues its sums over kq groups of
   four of the panels ap (row stride kq) and bp. */
__attribute__((target("avx512f,avx512vnni"))) static void micro(const uint32_t *ap, const uint32_t *bp, int64_t kq,
                                                                  uint32_t *c) {
  __m512i acc[MR][2];
  for (int r = 0; r < MR; r++)
    for (int v = 0; v < 2; v++) acc[r][v] = _mm512_loadu_si512(c + r * NC + 16 * v);
  for (int64_t q = 0; q < kq; q++) {
    __m512i b0 = _mm512_loadu_si512(bp + q * NR), b1 = _mm512_loadu_si512(bp + q * NR + 16);
#pragma GCC unroll 12
    for (int r = 0; r < MR; r++) {
      __m512i a = _mm512_set1_epi32((int)ap[r * kq + q]);
      acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], a, b0);
      acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], a, b1);
    }
  }
  for (int r = 0; r < MR; r++)
    for (int v = 0; v < 2; v++) _mm512_storeu_si512(c + r * NC + 16 * v, acc[r][v]);
}

static void item(const nx__mm *P, int64_t t, int64_t i0, int64_t j0, void *vs) {
  space *S = vs;
  int64_t rows = P->m - i0 < MC ? P->m - i0 : MC, cols = P->n - j0 < NC ? P->n - j0 : NC;
  int64_t pa = nx__mm_pos(P, &P->a, t), pb = nx__mm_pos(P, &P->b, t), pz = nx__mm_pos(P, &P->z, t);
  int64_t ips = (rows + MR - 1) / MR, jps = (cols + NR - 1) / NR;
  memset(S->c, 0, sizeof S->c);
  memset(S->colsum, 0, sizeof S->colsum);
  for (int64_t k0 = 0; k0 < P->k; k0 += KC) {
    int64_t kc = P->k - k0 < KC ? P->k - k0 : KC, kq = (kc + 3) / 4;
    pack_b(P, pb, j0, cols, k0, kc, S->bp, S->colsum);
    pack_a(P, pa, i0, rows, k0, kc, S->ap);
    for (int64_t jp = 0; jp < jps; jp++)
      for (int64_t ip = 0; ip < ips; ip++)
        micro(S->ap + ip * MR * kq, S->bp + jp * NR * kq, kq, S->c + ip * MR * NC + jp * NR);
  }
  int zbits = nx_dtype_bits_of(P->z.dt);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) {
      uint32_t s = S->c[i * NC + j] - 128u * S->colsum[j];
      int64_t e = pz + (i0 + i) * P->z.rs + (j0 + j) * P->z.cs;
      nx__arg r = zbits >= 8 ? (nx__arg){P->z.base + e * (zbits / 8), 0, 0} : (nx__arg){P->z.base, e, 0};
      nx__st(zbits, &r, 0, (uint64_t)(int64_t)(int32_t)s);
    }
}

bool nx__mm_int8(nx__mm *P) {
  int zbits = nx_dtype_bits_of(P->z.dt);
  if (nx__mm_level() < NX__MM_AVX512_VNNI || P->a.dt != NX_INT8 || P->b.dt != NX_INT8 ||
      (zbits > 32 && P->k >= (1 << 17)))
    return false;
  nx__mm_blocks(P, MC, NC, sizeof(space), item);
  return true;
}
#else
bool nx__mm_int8(nx__mm *P) {
  (void)P;
  return false;
}
#endif
