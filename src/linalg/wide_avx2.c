/* SPDX-License-Identifier: Apache-2.0 */
/* The packed kernel in AVX registers with FMA (wide.h), for CPUs with AVX2
   and no AVX-512. The tile, 6 x 16, holds 12 accumulators (fused
   multiply-adds of latency 4 or 5 on two ports want 8 to 10 in flight),
   two vectors of b and a broadcast: 15 of the 16 registers. Its panels'
   vector steps: a row of b's panel, and 8 x 8 blocks turned in
   registers. */
#include "wide.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "../kernels/transpose_x86.h"

#define AVX2 __attribute__((target("avx2,fma,f16c")))

enum { MR = 6, NR = 16 };

/* How many steps of k ahead the tile asks for b's panel (a step is one
   cache line of it). */
enum { PD = 8 };

/* 8 contiguous elements from position e as float32 (float16 by F16C,
   exact; the kernel takes float16 only where the CPU has it). */
AVX2 static inline __m256 widen8(nx_dtype dt, const char *base, int64_t e) {
  if (dt == NX_FLOAT32) return _mm256_loadu_ps((const float *)(base + e * 4));
  if (dt == NX_FLOAT16) return _mm256_cvtph_ps(_mm_loadu_si128((const void *)(base + e * 2)));
  __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128((const void *)(base + e * 2)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(h, 16));
}

/* The lanes below n (0 to 8) of a mask for maskload and maskstore (of z's
   edge tiles; the panels are stored whole, a maskstore being slow on AMD's
   cores). */
AVX2 static inline __m256i lanes(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* nr elements from position e, widened, at d (aligned). */
AVX2 static void row(nx_dtype dt, const char *base, int64_t e, float *d) {
  _mm256_store_ps(d, widen8(dt, base, e));
  _mm256_store_ps(d + 8, widen8(dt, base, e + 8));
}

/* The 8 x 8 block whose line j (j < valid; zeros past) is the 8 elements
   from position e + j * pitch, turned: line j's element s at d[s * dpitch
   + j], the stores in ascending s, each of 8 lanes. */
AVX2 static void square(nx_dtype dt, const char *base, int64_t e, int64_t pitch, int64_t valid, float *d,
                        int64_t dpitch) {
  __m256 v[8];
  for (int j = 0; j < 8; j++) v[j] = j < valid ? widen8(dt, base, e + j * pitch) : _mm256_setzero_ps();
  nx__transpose8_ps(v);
  for (int s = 0; s < 8; s++) _mm256_storeu_ps(d + s * dpitch, v[s]);
}

/* One step of k: the tile's accumulators (u for b's first vector, v for
   its second) plus a's MR elements (at a) times b's NR (at b, aligned). */
#define STEP(a, b)                                                                                            \
  do {                                                                                                        \
    __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps((b) + 8), x;                                           \
    x = _mm256_broadcast_ss((a) + 0), u0 = _mm256_fmadd_ps(x, b0, u0), v0 = _mm256_fmadd_ps(x, b1, v0);      \
    x = _mm256_broadcast_ss((a) + 1), u1 = _mm256_fmadd_ps(x, b0, u1), v1 = _mm256_fmadd_ps(x, b1, v1);      \
    x = _mm256_broadcast_ss((a) + 2), u2 = _mm256_fmadd_ps(x, b0, u2), v2 = _mm256_fmadd_ps(x, b1, v2);      \
    x = _mm256_broadcast_ss((a) + 3), u3 = _mm256_fmadd_ps(x, b0, u3), v3 = _mm256_fmadd_ps(x, b1, v3);      \
    x = _mm256_broadcast_ss((a) + 4), u4 = _mm256_fmadd_ps(x, b0, u4), v4 = _mm256_fmadd_ps(x, b1, v4);      \
    x = _mm256_broadcast_ss((a) + 5), u5 = _mm256_fmadd_ps(x, b0, u5), v5 = _mm256_fmadd_ps(x, b1, v5);      \
  } while (0)

AVX2 static void micro(const float *ap, const float *bp, int64_t kc, float *c, int64_t ldc, int64_t rows,
                       int64_t cols, bool first) {
  __m256i m0 = lanes(cols < 8 ? cols : 8), m1 = lanes(cols < 8 ? 0 : cols - 8);
  bool whole = cols == NR;
  __m256 acc[MR][2];
  for (int r = 0; r < MR; r++) {
    acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    if (!first && r < rows) {
      acc[r][0] = whole ? _mm256_loadu_ps(c + r * ldc) : _mm256_maskload_ps(c + r * ldc, m0);
      acc[r][1] = whole ? _mm256_loadu_ps(c + r * ldc + 8) : _mm256_maskload_ps(c + r * ldc + 8, m1);
    }
  }
  /* named, so that the compiler keeps each in a register of its own */
  __m256 u0 = acc[0][0], u1 = acc[1][0], u2 = acc[2][0], u3 = acc[3][0], u4 = acc[4][0], u5 = acc[5][0];
  __m256 v0 = acc[0][1], v1 = acc[1][1], v2 = acc[2][1], v3 = acc[3][1], v4 = acc[4][1], v5 = acc[5][1];
  int64_t p = 0;
  for (; p + 1 < kc; p += 2) {
    /* b's panel streams from the second-level cache: PD steps ahead */
    _mm_prefetch((const char *)(bp + (p + PD) * NR), _MM_HINT_T0);
    _mm_prefetch((const char *)(bp + (p + PD + 1) * NR), _MM_HINT_T0);
    STEP(ap + (p + 1) * MR, bp + (p + 1) * NR);
    STEP(ap + p * MR, bp + p * NR);
  }
  if (p < kc) STEP(ap + p * MR, bp + p * NR);
  acc[0][0] = u0, acc[1][0] = u1, acc[2][0] = u2, acc[3][0] = u3, acc[4][0] = u4, acc[5][0] = u5;
  acc[0][1] = v0, acc[1][1] = v1, acc[2][1] = v2, acc[3][1] = v3, acc[4][1] = v4, acc[5][1] = v5;
  for (int r = 0; r < MR; r++)
    if (r < rows) {
      if (whole) {
        _mm256_storeu_ps(c + r * ldc, acc[r][0]);
        _mm256_storeu_ps(c + r * ldc + 8, acc[r][1]);
      } else {
        _mm256_maskstore_ps(c + r * ldc, m0, acc[r][0]);
        _mm256_maskstore_ps(c + r * ldc + 8, m1, acc[r][1]);
      }
    }
}
#undef STEP

/* Measured on a Zen 3 (512 KiB of second-level cache) on 2048 x 2048
   bfloat16, one thread: blocks of 1024 columns and tiles of 512 of k ran
   at 92 GFLOP/s, 256 columns by 256 at 81, 128 by 256 at 56; b's panels
   of a block (2 MiB) then stream from the third level, and a, packed once
   per block column, is packed fewer times. */
const nx__wide nx__wide_avx2 = {MR, NR, 172 * MR, 64 * NR, 512, 8, row, square, micro};
#endif
