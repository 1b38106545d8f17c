/* SPDX-License-Identifier: Apache-2.0 */
/* bfloat16 x bfloat16 products by VDPBF16PS, bit for bit the float32
   kernel's chain (gemm32.c): per lane the instruction adds the product of
   the pair's odd elements, rounds, then adds the even ones' and rounds,
   exactly that chain, but it treats subnormal inputs and accumulators as
   zero and flushes subnormal results. A product of two bfloat16 numbers has
   16 significant bits, so it is exact in float32 unless it leaves the
   exponent range, and then the fused and the hardware steps agree. So each
   block (a panel of a's rows by a panel of b's columns over one tile of k)
   runs on the instruction only where
   - neither panel holds a subnormal, an infinity or a NaN;
   - the lowest set bits' exponents of a's and b's nonzero elements sum to
     -126 or more: every product is then a multiple of 2^-126, and so is
     every sum and its rounding, none subnormal;
   - their largest exponents sum to 126 or less: no product overflows;
   - every earlier block of that tile of z ran on the instruction too (its
     accumulators are then multiples of 2^-126);
   and otherwise by the scalar chain with fmaf, in the same order. k is
   padded to pairs with a zero in both operands: adding +0 to an
   accumulator that started at +0 changes no bit (it is never -0). */
#include <math.h>
#include <stdlib.h>

#include "mm.h"
#include "../base/alloc.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* MR x NR micro-tiles of z; MC x NC blocks of z per work item; k in tiles
   of KC (even, so pairs never straddle tiles). */
enum { MR = 6, NR = 64, KC = 256, MC = 32 * MR, NC = 4 * NR, KP = KC / 2 };

/* What decides a panel's blocks: the smallest lowest-set-bit exponent and
   the largest exponent of its nonzero elements (biased, as in the
   encoding: lsb = E + tz with the unbiased lsb E - 134 + tz), and whether it
   holds a subnormal, an infinity or a NaN. */
typedef struct stat {
  int lsb, emax;
  bool bad;
} stat;

static void stat_add(stat *s, uint16_t h) {
  int e = h >> 7 & 0xff, m = h & 0x7f;
  if (e == 0xff || (e == 0 && m)) s->bad = true;
  if (!(h & 0x7fff)) return;
  int lsb = e + __builtin_ctz((unsigned)m | 0x80);
  if (lsb < s->lsb) s->lsb = lsb;
  if (e > s->emax) s->emax = e;
}

static bool exact(const stat *a, const stat *b) {
  return !a->bad && !b->bad && a->lsb + b->lsb >= 2 * 134 - 126 && a->emax + b->emax <= 2 * 127 + 126;
}

static inline uint16_t ld16(const char *base, int64_t e) {
  uint16_t h;
  memcpy(&h, base + e * 2, 2);
  return h;
}

typedef struct job {
  nx__mm *P;
  int64_t iblocks, jblocks, items, chunks;
  char **scratch;
} job;

/* The scratch of one chunk. */
typedef struct space {
  uint32_t ap[MC * KP];         /* MC / MR panels: pair q of row r at q * MR + r */
  uint32_t bp[NC * KP];         /* NC / NR panels: pair q of column j at q * NR + j */
  float c[MC * NC];             /* z's block, row stride NC */
  stat as[MC / MR], bs[NC / NR];
  bool slow[MC / MR][NC / NR];  /* a block of this tile ran the scalar chain */
} space;

/* The pair (x[2q], x[2q+1]) as one word, the even element low (the
   instruction's order then adds the odd product first), counted into s. */
static inline uint32_t pair(stat *s, uint16_t lo, uint16_t hi) {
  stat_add(s, lo);
  stat_add(s, hi);
  return (uint32_t)lo | (uint32_t)hi << 16;
}

/* a's rows i0.. (rows of them, the rest of the panel zeros) over k0 .. k0+kc. */
static void pack_a(const nx__mm *P, int64_t pa, int64_t i0, int64_t rows, int64_t k0, int64_t kc, uint32_t *ap,
                   stat *st) {
  const char *base = P->a.base;
  int64_t rs = P->a.rs, cs = P->a.cs, kp = (kc + 1) / 2;
  for (int64_t ip = 0; ip * MR < rows; ip++) {
    stat s = {1000, 0, false};
    uint32_t *d = ap + ip * MR * kp;
    for (int r = 0; r < MR; r++) {
      int64_t i = ip * MR + r;
      if (i >= rows) {
        for (int64_t q = 0; q < kp; q++) d[q * MR + r] = 0;
        continue;
      }
      int64_t e = pa + (i0 + i) * rs + k0 * cs;
      for (int64_t q = 0; q < kp; q++) {
        uint16_t lo = ld16(base, e + 2 * q * cs), hi = 2 * q + 1 < kc ? ld16(base, e + (2 * q + 1) * cs) : 0;
        d[q * MR + r] = pair(&s, lo, hi);
      }
    }
    st[ip] = s;
  }
}

/* b's columns j0.. (cols of them, the rest of the panel zeros) over k0 .. k0+kc. */
static void pack_b(const nx__mm *P, int64_t pb, int64_t j0, int64_t cols, int64_t k0, int64_t kc, uint32_t *bp,
                   stat *st) {
  const char *base = P->b.base;
  int64_t rs = P->b.rs, cs = P->b.cs, kp = (kc + 1) / 2;
  for (int64_t jp = 0; jp * NR < cols; jp++) {
    stat s = {1000, 0, false};
    uint32_t *d = bp + jp * NR * kp;
    int64_t nj = cols - jp * NR < NR ? cols - jp * NR : NR;
    for (int64_t q = 0; q < kp; q++) {
      int64_t e0 = pb + (k0 + 2 * q) * rs + (j0 + jp * NR) * cs;
      bool odd = 2 * q + 1 < kc;
      for (int64_t j = 0; j < nj; j++) {
        uint16_t lo = ld16(base, e0 + j * cs), hi = odd ? ld16(base, e0 + rs + j * cs) : 0;
        d[q * NR + j] = pair(&s, lo, hi);
      }
      for (int64_t j = nj; j < NR; j++) d[q * NR + j] = 0;
    }
    st[jp] = s;
  }
}

/* The MR x NR tile c (row stride NC) continues its chains over kp pairs. */
__attribute__((target("avx512f,avx512bf16"))) static void micro(const uint32_t *ap, const uint32_t *bp, int64_t kp,
                                                                   float *c) {
  __m512 acc[MR][4];
  for (int r = 0; r < MR; r++)
    for (int v = 0; v < 4; v++) acc[r][v] = _mm512_loadu_ps(c + r * NC + 16 * v);
  for (int64_t q = 0; q < kp; q++) {
    const uint32_t *b = bp + q * NR;
    __m512bh b0 = (__m512bh)_mm512_loadu_si512(b), b1 = (__m512bh)_mm512_loadu_si512(b + 16),
             b2 = (__m512bh)_mm512_loadu_si512(b + 32), b3 = (__m512bh)_mm512_loadu_si512(b + 48);
    for (int r = 0; r < MR; r++) {
      __m512bh a = (__m512bh)_mm512_set1_epi32((int)ap[q * MR + r]);
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], a, b0);
      acc[r][1] = _mm512_dpbf16_ps(acc[r][1], a, b1);
      acc[r][2] = _mm512_dpbf16_ps(acc[r][2], a, b2);
      acc[r][3] = _mm512_dpbf16_ps(acc[r][3], a, b3);
    }
  }
  for (int r = 0; r < MR; r++)
    for (int v = 0; v < 4; v++) _mm512_storeu_ps(c + r * NC + 16 * v, acc[r][v]);
}

static inline float f32(uint32_t h) {
  uint32_t u = h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* The same tile by the scalar chain, the pad (the odd element of the last
   pair where kc is odd) skipped. */
static void chain(const uint32_t *ap, const uint32_t *bp, int64_t kc, float *c) {
  int64_t kp = (kc + 1) / 2;
  for (int r = 0; r < MR; r++)
    for (int j = 0; j < NR; j++) {
      float x = c[r * NC + j];
      for (int64_t q = 0; q < kp; q++) {
        uint32_t a = ap[q * MR + r], b = bp[q * NR + j];
        if (2 * q + 1 < kc) x = fmaf(f32(a >> 16), f32(b >> 16), x);
        x = fmaf(f32(a & 0xffff), f32(b & 0xffff), x);
      }
      c[r * NC + j] = x;
    }
}

static void item(const job *J, int64_t u, space *S) {
  const nx__mm *P = J->P;
  int64_t t = u / (J->iblocks * J->jblocks), rest = u % (J->iblocks * J->jblocks);
  int64_t i0 = (rest / J->jblocks) * MC, j0 = (rest % J->jblocks) * NC;
  int64_t rows = P->m - i0 < MC ? P->m - i0 : MC, cols = P->n - j0 < NC ? P->n - j0 : NC;
  int64_t pa = nx__mm_pos(P, &P->a, t), pb = nx__mm_pos(P, &P->b, t), pz = nx__mm_pos(P, &P->z, t);
  int64_t ips = (rows + MR - 1) / MR, jps = (cols + NR - 1) / NR;
  memset(S->c, 0, sizeof S->c);
  memset(S->slow, 0, sizeof S->slow);
  for (int64_t k0 = 0; k0 < P->k; k0 += KC) {
    int64_t kc = P->k - k0 < KC ? P->k - k0 : KC, kp = (kc + 1) / 2;
    pack_b(P, pb, j0, cols, k0, kc, S->bp, S->bs);
    pack_a(P, pa, i0, rows, k0, kc, S->ap, S->as);
    for (int64_t jp = 0; jp < jps; jp++)
      for (int64_t ip = 0; ip < ips; ip++) {
        const uint32_t *ap = S->ap + ip * MR * kp, *bp = S->bp + jp * NR * kp;
        float *c = S->c + ip * MR * NC + jp * NR;
        if (!S->slow[ip][jp] && exact(&S->as[ip], &S->bs[jp])) micro(ap, bp, kp, c);
        else {
          S->slow[ip][jp] = true;
          chain(ap, bp, kc, c);
        }
      }
  }
  nx__mm_store(P, pz, i0, j0, rows, cols, S->c, NC);
}

static void task(void *vj, int64_t u0, int64_t u1) {
  const job *J = vj;
  for (int64_t c = u0; c < u1; c++) {
    space *S = (space *)J->scratch[c];
    int64_t i0 = c * J->items / J->chunks, i1 = (c + 1) * J->items / J->chunks;
    for (int64_t u = i0; u < i1; u++) item(J, u, S);
  }
}

bool nx__mm_bf16(nx__mm *P) {
  if (nx__mm_level() < NX__MM_AVX512_BF16 || P->a.dt != NX_BFLOAT16 || P->b.dt != NX_BFLOAT16) return false;
  job J = {P, (P->m + MC - 1) / MC, (P->n + NC - 1) / NC, 0, 0, NULL};
  J.items = P->count * J.iblocks * J.jblocks;
  double flops = 2.0 * (double)P->m * (double)P->n * (double)P->k * (double)P->count;
  int64_t chunks = flops < 2e6 ? 1 : 4 * (int64_t)nx_num_threads();
  J.chunks = chunks < J.items ? chunks : J.items;
  J.scratch = nx__mm_scratch(P, sizeof(char *) * (size_t)J.chunks);
  int64_t made = 0;
  if (J.scratch)
    for (; made < J.chunks; made++)
      if (!(J.scratch[made] = nx__mm_scratch(P, sizeof(space)))) break;
  if (made == J.chunks) {
    if (J.chunks == 1) task(&J, 0, 1);
    else nx__parallel(J.chunks, J.chunks, task, &J);
  }
  for (int64_t c = 0; c < made; c++) nx__free(J.scratch[c]);
  nx__free(J.scratch);
  return true;
}
#else
bool nx__mm_bf16(nx__mm *P) {
  (void)P;
  return false;
}
#endif
