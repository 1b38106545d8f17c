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
#include "transpose_x86.h"
#define NX__TILE_X86 1

/* Rows of 16 (8) elements become columns: out[j][i] = r[i][j]. */
__attribute__((target("avx512f"))) static void t16(char *dst, const char *src, int64_t dpitch, int64_t pitch) {
  __m512 r[16];
  for (int i = 0; i < 16; i++) r[i] = _mm512_loadu_ps((const float *)src + i * pitch);
  nx__transpose16_ps(r);
  for (int i = 0; i < 16; i++) _mm512_storeu_ps((float *)dst + i * dpitch, r[i]);
}

__attribute__((target("avx2"))) static void t8(char *dst, const char *src, int64_t dpitch, int64_t pitch) {
  __m256 r[8];
  for (int i = 0; i < 8; i++) r[i] = _mm256_loadu_ps((const float *)src + i * pitch);
  nx__transpose8_ps(r);
  for (int i = 0; i < 8; i++) _mm256_storeu_ps((float *)dst + i * dpitch, r[i]);
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
