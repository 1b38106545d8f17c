/* SPDX-License-Identifier: Apache-2.0 */
/* Tile transposition: 16 x 16 blocks of 4-byte elements in AVX-512
   registers where the typed loops' level is AVX-512 (16 loads of a full
   line, 16 stores of one), 8 x 8 blocks in AVX registers at the AVX2 level,
   element by element otherwise. A copy of bits: every element arrives as it
   was. The blocks matter beyond the instruction count: the scratch block's
   rows are a power of two of bytes apart, so an element-by-element copy
   stores each element to another row of one L1 set, and on a Zen 3 it ran
   at 5 ns an element. */
#include "tile.h"
#include "typed.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NX__TILE_X86 1

/* Rows r[0..15] of 16 elements become columns: out[j][i] = r[i][j]. After
   the 32- and 64-bit unpacks, u[4g + c] holds in its 128-bit lane L the
   elements 4L + c of rows 4g..4g+3; two lane shuffles gather column 4L + c
   from u[c], u[4 + c], u[8 + c], u[12 + c]. */
__attribute__((target("avx512f"))) static void t16(char *dst, const char *src, int64_t dpitch, int64_t pitch) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; i++) r[i] = _mm512_loadu_ps((const float *)src + i * pitch);
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int g = 0; g < 16; g += 4) {
    __m512d a = _mm512_castps_pd(t[g]), b = _mm512_castps_pd(t[g + 1]), c = _mm512_castps_pd(t[g + 2]),
            d = _mm512_castps_pd(t[g + 3]);
    r[g] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
    r[g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
    r[g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
    r[g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
  }
  float *out = (float *)dst;
  for (int c = 0; c < 4; c++) {
    __m512 wl = _mm512_shuffle_f32x4(r[c], r[4 + c], 0x88), wh = _mm512_shuffle_f32x4(r[c], r[4 + c], 0xdd);
    __m512 xl = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0x88), xh = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0xdd);
    _mm512_storeu_ps(out + (0 + c) * dpitch, _mm512_shuffle_f32x4(wl, xl, 0x88));
    _mm512_storeu_ps(out + (4 + c) * dpitch, _mm512_shuffle_f32x4(wh, xh, 0x88));
    _mm512_storeu_ps(out + (8 + c) * dpitch, _mm512_shuffle_f32x4(wl, xl, 0xdd));
    _mm512_storeu_ps(out + (12 + c) * dpitch, _mm512_shuffle_f32x4(wh, xh, 0xdd));
  }
}

/* The same for 8 x 8: out[j][i] = r[i][j] by two unpacks, a shuffle and a
   lane permutation. */
__attribute__((target("avx2"))) static void t8(char *dst, const char *src, int64_t dpitch, int64_t pitch) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; i++) r[i] = _mm256_loadu_ps((const float *)src + i * pitch);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]); /* r_i0 r_{i+1}0 r_i1 r_{i+1}1 | the same at 4, 5 */
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int g = 0; g < 8; g += 4) {
    r[g] = _mm256_shuffle_ps(t[g], t[g + 2], 0x44);     /* column 0 (4) of rows g..g+3 */
    r[g + 1] = _mm256_shuffle_ps(t[g], t[g + 2], 0xEE); /* column 1 (5) */
    r[g + 2] = _mm256_shuffle_ps(t[g + 1], t[g + 3], 0x44);
    r[g + 3] = _mm256_shuffle_ps(t[g + 1], t[g + 3], 0xEE);
  }
  float *out = (float *)dst;
  for (int c = 0; c < 4; c++) {
    _mm256_storeu_ps(out + c * dpitch, _mm256_permute2f128_ps(r[c], r[4 + c], 0x20));
    _mm256_storeu_ps(out + (4 + c) * dpitch, _mm256_permute2f128_ps(r[c], r[4 + c], 0x31));
  }
}
#endif

#define NX__PACK(T)                                                         \
  for (int64_t j = 0; j < rows; j++) {                                      \
    const T *s = (const T *)src + j * pitch;                                \
    T *d = (T *)dst + j;                                                    \
    for (int64_t i = 0; i < cols; i++) d[i * dpitch] = s[i];                \
  }

static void pack_scalar(char *dst, const char *src, int bytes, int64_t rows, int64_t cols, int64_t dpitch,
                        int64_t pitch) {
  switch (bytes) {
  case 1: NX__PACK(uint8_t) break;
  case 2: NX__PACK(uint16_t) break;
  case 4: NX__PACK(uint32_t) break;
  default: NX__PACK(uint64_t) break;
  }
}

#if defined(NX__TILE_X86)
typedef void (*block_fn)(char *dst, const char *src, int64_t dpitch, int64_t pitch);

/* The tile in b x b blocks of 4-byte elements (t16 or t8), the next tile's
   lines of each band of rows prefetched (the engine's next tile is the
   columns that follow, and rows a page or more apart are not prefetched by
   the hardware; a prefetch never faults), then the edges element by
   element: the columns past the last block of every row, the rows past
   the last band. */
static void pack_blocks(block_fn f, int64_t b, char *dst, const char *src, int64_t rows, int64_t cols, int64_t dpitch,
                        int64_t pitch) {
  int64_t rb = rows / b * b, cb = cols / b * b;
  for (int64_t j = 0; j < rb; j += b) {
    for (int64_t i = 0; i < cb; i += b) f(dst + (i * dpitch + j) * 4, src + (j * pitch + i) * 4, dpitch, pitch);
    for (int64_t r = j; r < j + b; r++) {
      uintptr_t next = (uintptr_t)src + (uintptr_t)((r * pitch + cols) * 4); /* maybe past the array: no pointer */
      _mm_prefetch((const char *)next, _MM_HINT_T0);
      _mm_prefetch((const char *)(next + 64), _MM_HINT_T0);
    }
  }
  if (cb < cols) pack_scalar(dst + cb * dpitch * 4, src + cb * 4, 4, rb, cols - cb, dpitch, pitch);
  if (rb < rows) pack_scalar(dst + rb * 4, src + rb * pitch * 4, 4, rows - rb, cols, dpitch, pitch);
}
#endif

void nx__tile_pack(char *dst, const char *src, int bytes, int64_t rows, int64_t cols, int64_t dpitch,
                   int64_t pitch) {
#if defined(NX__TILE_X86)
  if (bytes == 4 && nx__typed_level() >= NX__TYPED_AVX2) {
    if (nx__typed_level() >= NX__TYPED_AVX512) pack_blocks(t16, 16, dst, src, rows, cols, dpitch, pitch);
    else pack_blocks(t8, 8, dst, src, rows, cols, dpitch, pitch);
    return;
  }
#endif
  pack_scalar(dst, src, bytes, rows, cols, dpitch, pitch);
}
