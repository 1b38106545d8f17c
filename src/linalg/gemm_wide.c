/* SPDX-License-Identifier: Apache-2.0 */
/* Products of operands each bfloat16, float16 or float32 by a packed
   kernel,
   blocked in the manner of GotoBLAS: per block of z and tile of k,
   b's columns are packed once into panels of the register tile's width,
   kept in the second-level cache, and a's rows a panel of the tile's
   height at a time, kept in the first while the register tile sweeps the
   block's columns. The tile (wide_avx512.c: 12 x 32; wide_avx2.c: 6 x 16)
   runs the float32 kernel's chain (gemm32.c): each element of z one chain,
   the pairs of k ascending, the odd element of each pair first, carried
   from one tile of k to the next; bit for bit the float32 kernel. A
   float32 z whose rows are contiguous holds the chains itself; any other
   goes through a float32 block stored once by the store rule.

   bfloat16 does not use VDPBF16PS, although it computes this very chain
   (measured: the odd product added and rounded, then the even one, in 32
   million lanes): it flushes subnormal inputs, accumulators and results,
   which needs a scalar path for blocks that could meet them, and on an
   Intel Xeon it retired one 512-bit instruction per about four of
   VFMADD's, so its 64 flops an instruction ran at half the fused
   multiply-add's rate (docs/linalg.md). float32 runs here only where
   BLAS's own kernel is of a lower level (matmul.c). */
#include <string.h>

#include "wide.h"

#if defined(__x86_64__) && defined(__GNUC__)
/* The element at position e as a float32, exactly: float32 as it is,
   bfloat16 shifted, float16 converted. */
static inline float widen(nx_dtype dt, const char *base, int64_t e) {
  float f;
  if (dt == NX_FLOAT32) {
    memcpy(&f, base + e * 4, 4);
    return f;
  }
  uint16_t h;
  memcpy(&h, base + e * 2, 2);
  uint32_t u = dt == NX_FLOAT16 ? nx_load_float16_f32(h) : (uint32_t)h << 16;
  memcpy(&f, &u, 4);
  return f;
}

/* a's rows i0 .. i0+rows (rows <= mr; the rest of the panel zeros) over
   k0 .. k0+kc of matrix position pa, widened into ap: a[i0 + r, k0 + p]
   at ap[p * mr + r]. ap has mr * kc + 16 floats (a block's stores may
   pass the end). Rows that lie contiguous go through turned blocks. */
static void pack_a(const nx__wide *K, const nx__mm *P, int64_t pa, int64_t i0, int64_t rows, int64_t k0, int64_t kc,
                   float *ap) {
  int64_t rs = P->a.rs, cs = P->a.cs, p = 0, w = K->w;
  if (cs == 1)
    for (; p + w <= kc; p += w) K->square(P->a.dt, P->a.base, pa + i0 * rs + k0 + p, rs, rows, ap + p * K->mr, K->mr);
  for (; p < kc; p++)
    for (int r = 0; r < K->mr; r++)
      ap[p * K->mr + r] = r < rows ? widen(P->a.dt, P->a.base, pa + (i0 + r) * rs + (k0 + p) * cs) : 0;
}

/* b's columns j0 .. j0+cols (the rest of the last panel zeros) over k0 ..
   k0+kc of matrix position pb, widened into panels of nr columns: panel
   q's b[k0 + p, j0 + q * nr + j] at bp[q * nr * kc + p * nr + j]. bp is
   aligned to 64 bytes. b's rows contiguous: each row once along, into
   every full panel; its columns contiguous (a transposed b): turned
   blocks. */
static void pack_b(const nx__wide *K, const nx__mm *P, int64_t pb, int64_t j0, int64_t cols, int64_t k0, int64_t kc,
                   float *bp) {
  nx_dtype dt = P->b.dt;
  const char *base = P->b.base;
  int64_t rs = P->b.rs, cs = P->b.cs, nr = K->nr, w = K->w, full = cs == 1 ? cols / nr : 0;
  for (int64_t p = 0; p < kc && full; p++)
    for (int64_t q = 0; q < full; q++) K->row(dt, base, pb + (k0 + p) * rs + j0 + q * nr, bp + q * nr * kc + p * nr);
  for (int64_t q = full; q * nr < cols; q++) {
    float *d = bp + q * nr * kc;
    int64_t jq = j0 + q * nr, nj = cols - q * nr < nr ? cols - q * nr : nr, p = 0;
    if (rs == 1 && cs != 1)
      for (; p + w <= kc; p += w)
        for (int64_t g = 0; g < nr; g += w)
          K->square(dt, base, pb + k0 + p + (jq + g) * cs, cs, nj - g, d + p * nr + g, nr);
    for (; p < kc; p++)
      for (int64_t j = 0; j < nr; j++) d[p * nr + j] = j < nj ? widen(dt, base, pb + (k0 + p) * rs + (jq + j) * cs) : 0;
  }
}

/* Whether z holds the chains itself: float32 with contiguous rows. */
static bool direct(const nx__mm *P) { return P->z.dt == NX_FLOAT32 && P->z.cs == 1; }

/* The row stride of the float32 block: a block's width and a cache line
   more, so that its rows do not all fall in the same sets of the cache. */
static int64_t block_ld(const nx__mm *P) { return P->bn + 16; }

/* a's panel in floats, and the 16 a vector store may pass, rounded up to a
   cache line so that b's panels after it stay aligned. */
static int64_t apanel(const nx__wide *K) { return (K->mr * K->kc + 16 + 15) / 16 * 16; }

/* The blocks of P's z: the fewest up to the largest, rows evened out in
   whole tiles, halved (columns first) until there are two a thread where
   the product is large enough to share. Large blocks pack each operand
   few times: a once per block column, b once per block row. */
static void blocks(const nx__wide *K, const nx__mm *P, int64_t *mc, int64_t *nc) {
  int64_t mr = K->mr, nr = K->nr, mx = K->block_m, nx = K->block_n;
  double ops = 2.0 * (double)P->m * (double)P->n * (double)P->k * (double)P->count;
  int64_t want = ops < 2e6 ? 1 : 2 * (int64_t)nx_num_threads();
  for (;;) {
    int64_t bm = (P->m + mx - 1) / mx, rows = (P->m + bm - 1) / bm;
    *mc = (rows + mr - 1) / mr * mr;
    *nc = nx;
    if (P->count * bm * ((P->n + nx - 1) / nx) >= want) return;
    if (nx > nr && (nx >= mx || mx <= mr)) nx = (nx / 2 + nr - 1) / nr * nr;
    else if (mx > mr) mx = (mx / 2 + mr - 1) / mr * mr;
    else return;
  }
}

static void run(const nx__wide *K, const nx__mm *P, int64_t t, int64_t i0, int64_t j0, void *vs) {
  int64_t mr = K->mr, nr = K->nr, tile = K->kc;
  int64_t rows = P->m - i0 < P->bm ? P->m - i0 : P->bm, cols = P->n - j0 < P->bn ? P->n - j0 : P->bn;
  int64_t pa = nx__mm_pos(P, &P->a, t), pb = nx__mm_pos(P, &P->b, t), pz = nx__mm_pos(P, &P->z, t);
  int64_t ldc = block_ld(P);
  float *ap = vs, *bp = ap + apanel(K), *c = bp + P->bn * tile;
  bool own = direct(P);
  if (own) {
    c = (float *)P->z.base + pz + i0 * P->z.rs + j0;
    ldc = P->z.rs;
  }
  for (int64_t k0 = 0; k0 < P->k; k0 += tile) {
    int64_t kc = P->k - k0 < tile ? P->k - k0 : tile;
    pack_b(K, P, pb, j0, cols, k0, kc, bp);
    for (int64_t ir = 0; ir < rows; ir += mr) {
      int64_t r = rows - ir < mr ? rows - ir : mr;
      pack_a(K, P, pa, i0 + ir, r, k0, kc, ap);
      for (int64_t jr = 0; jr < cols; jr += nr) {
        /* the next tile of z on its way to the cache while this one runs */
        for (int64_t q = 0; q < r && jr + nr < cols; q++)
          for (int64_t l = 0; l < nr; l += 16) /* maybe past the row: an integer, no pointer */
            __builtin_prefetch((const void *)((uintptr_t)(c + (ir + q) * ldc) + (uintptr_t)(jr + nr + l) * sizeof *c), 1, 3);
        K->micro(ap, bp + jr * kc, kc, c + ir * ldc + jr, ldc, r, cols - jr < nr ? cols - jr : nr, k0 == 0);
      }
    }
  }
  if (!own) nx__mm_store(P, pz, i0, j0, rows, cols, c, block_ld(P));
}

/* The dtypes the packing widens in vector registers. */
static bool widens(nx_dtype dt) { return dt == NX_FLOAT32 || dt == NX_BFLOAT16 || dt == NX_FLOAT16; }

static void item512(const nx__mm *P, int64_t t, int64_t i0, int64_t j0, void *vs) {
  run(&nx__wide_avx512, P, t, i0, j0, vs);
}
static void item256(const nx__mm *P, int64_t t, int64_t i0, int64_t j0, void *vs) {
  run(&nx__wide_avx2, P, t, i0, j0, vs);
}

bool nx__mm_wide(nx__mm *P) {
  nx_dtype da = P->a.dt, db = P->b.dt;
  int level = nx__mm_level();
  if (level < NX__MM_AVX2 || !widens(da) || !widens(db)) return false;
  /* float16 widens through AVX-512F's conversions, or F16C's at AVX2 */
  if ((da == NX_FLOAT16 || db == NX_FLOAT16) && level < NX__MM_AVX512 && !nx__mm_f16c()) return false;
  const nx__wide *K = level >= NX__MM_AVX512 ? &nx__wide_avx512 : &nx__wide_avx2;
  int64_t mc, nc;
  blocks(K, P, &mc, &nc);
  /* a's panel, b's panels, z's block */
  size_t floats = (size_t)(apanel(K) + nc * K->kc + (direct(P) ? 0 : mc * (nc + 16)));
  nx__mm_blocks(P, mc, nc, sizeof(float) * floats, K == &nx__wide_avx512 ? item512 : item256);
  return true;
}
#else
bool nx__mm_wide(nx__mm *P) {
  (void)P;
  return false;
}
#endif
