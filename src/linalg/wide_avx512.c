/* SPDX-License-Identifier: Apache-2.0 */
/* The packed kernel in AVX-512F registers (wide.h). The tile, 12 x 32,
   holds 24 accumulators (fused multiply-adds of latency 4 on two ports
   want 8 in flight), two vectors of b and a broadcast: 27 of the 32
   registers. Its panels' vector steps: a row of b's panel, and 16 x 16
   blocks turned in registers. */
#include "wide.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "../kernels/transpose_x86.h"

#define AVX512 __attribute__((target("avx512f")))

enum { MR = 12, NR = 32 };

/* How many steps of k ahead the tile asks for b's panel. */
enum { PD = 8 };

/* 16 contiguous elements from position e as float32. */
AVX512 static inline __m512 widen16(nx_dtype dt, const char *base, int64_t e) {
  if (dt == NX_FLOAT32) return _mm512_loadu_ps(base + e * 4);
  if (dt == NX_FLOAT16) return _mm512_cvtph_ps(_mm256_loadu_si256((const void *)(base + e * 2)));
  __m512i h = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const void *)(base + e * 2)));
  return _mm512_castsi512_ps(_mm512_slli_epi32(h, 16));
}

/* nr elements from position e, widened, at d (aligned). */
AVX512 static void row(nx_dtype dt, const char *base, int64_t e, float *d) {
  _mm512_store_ps(d, widen16(dt, base, e));
  _mm512_store_ps(d + 16, widen16(dt, base, e + 16));
}

/* The 16 x 16 block whose line j (j < valid; zeros past) is the 16
   elements from position e + j * pitch, turned: line j's element s at
   d[s * dpitch + j], the stores in ascending s, each of 16 lanes. */
AVX512 static void square(nx_dtype dt, const char *base, int64_t e, int64_t pitch, int64_t valid, float *d,
                          int64_t dpitch) {
  __m512 v[16];
  for (int j = 0; j < 16; j++) v[j] = j < valid ? widen16(dt, base, e + j * pitch) : _mm512_setzero_ps();
  nx__transpose16_ps(v);
  for (int s = 0; s < 16; s++) _mm512_storeu_ps(d + s * dpitch, v[s]);
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

AVX512 static void micro(const float *ap, const float *bp, int64_t kc, float *c, int64_t ldc, int64_t rows,
                         int64_t cols, bool first) {
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

/* b's panels of a block (256 x 1024 floats, 1 MiB) stay in the
   second-level cache. */
const nx__wide nx__wide_avx512 = {MR, NR, 86 * MR, 32 * NR, 256, 16, row, square, micro};
#endif
