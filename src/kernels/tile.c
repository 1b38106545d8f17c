/* SPDX-License-Identifier: Apache-2.0 */
/* The transposed copy of a tile of 4-byte elements, sixteen by sixteen in
   AVX-512F registers (unpack pairs, then quads, then 128-bit lanes twice:
   64 shuffles for 256 elements), the rest of a partial tile element by
   element. The engine then hands the body contiguous runs of the copy, so
   a transposed operand's add is the contiguous loop. */
#include "tile.h"

#include <string.h>

#include "fast.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define NX__X86 1
#endif

bool nx__tile_can(int bytes) {
#if defined(NX__X86)
  return bytes == 4 && nx__fast_level() >= NX__FAST_AVX512;
#else
  (void)bytes;
  return false;
#endif
}

#if defined(NX__X86)
/* The 16 x 16 block at src (rows j, s0 bytes apart) into dst's columns. */
__attribute__((target("avx512f"))) static void block16(float *dst, int64_t ld, const char *src, int64_t s0) {
  __m512 r[16], t[16], u[16];
  for (int j = 0; j < 16; j++) r[j] = _mm512_loadu_ps(src + j * s0);
  for (int j = 0; j < 16; j += 2) {
    t[j] = _mm512_unpacklo_ps(r[j], r[j + 1]);     /* per 128-bit lane: r0[0] r1[0] r0[1] r1[1] */
    t[j + 1] = _mm512_unpackhi_ps(r[j], r[j + 1]); /* r0[2] r1[2] r0[3] r1[3] */
  }
  for (int g = 0; g < 16; g += 4) { /* u[g + c], lane L: rows g..g+3 at column 4L + c */
    u[g] = _mm512_shuffle_ps(t[g], t[g + 2], 0x44);
    u[g + 1] = _mm512_shuffle_ps(t[g], t[g + 2], 0xEE);
    u[g + 2] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0x44);
    u[g + 3] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0xEE);
  }
  for (int c = 0; c < 4; c++) {
    __m512 v = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88), w = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xDD);
    __m512 v2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88), w2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xDD);
    _mm512_storeu_ps(dst + c * ld, _mm512_shuffle_f32x4(v, v2, 0x88));
    _mm512_storeu_ps(dst + (8 + c) * ld, _mm512_shuffle_f32x4(v, v2, 0xDD));
    _mm512_storeu_ps(dst + (4 + c) * ld, _mm512_shuffle_f32x4(w, w2, 0x88));
    _mm512_storeu_ps(dst + (12 + c) * ld, _mm512_shuffle_f32x4(w, w2, 0xDD));
  }
}
#endif

void nx__tile_transpose(float *dst, int64_t ld, const char *src, int64_t s0, int64_t len0, int64_t len1) {
  int64_t f0 = 0, f1 = 0;
#if defined(NX__X86)
  if (nx__tile_can(4)) {
    f0 = len0 / 16 * 16;
    f1 = len1 / 16 * 16;
    for (int64_t i = 0; i < f1; i += 16)
      for (int64_t j = 0; j < f0; j += 16) block16(dst + i * ld + j, ld, src + j * s0 + i * 4, s0);
  }
#endif
  /* what the blocks leave: columns from f1, then rows from f0 */
  for (int64_t i = 0; i < len1; i++)
    for (int64_t j = i < f1 ? f0 : 0; j < len0; j++) memcpy(&dst[i * ld + j], src + j * s0 + i * 4, 4);
}
