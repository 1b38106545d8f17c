/* SPDX-License-Identifier: Apache-2.0 */
/* Square transpositions of 4-byte elements in vector registers, for the
   tile copies (tile.c) and the packed matrix kernel's panels (src/linalg):
   r[i] lane j becomes r[j] lane i. Inline, each in the instruction set its
   caller is compiled for. */
#ifndef NX_KERNELS_TRANSPOSE_X86_H
#define NX_KERNELS_TRANSPOSE_X86_H

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* 16 x 16: after the 32- and 64-bit unpacks, r[4g + c] holds in its
   128-bit lane L the elements 4L + c of rows 4g .. 4g+3; two rounds of
   lane shuffles gather column 4L + c from r[c], r[4 + c], r[8 + c] and
   r[12 + c]. */
__attribute__((target("avx512f"), always_inline)) static inline void nx__transpose16_ps(__m512 r[16]) {
  __m512 t[16];
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
  for (int c = 0; c < 4; c++) {
    __m512 wl = _mm512_shuffle_f32x4(r[c], r[4 + c], 0x88), wh = _mm512_shuffle_f32x4(r[c], r[4 + c], 0xdd);
    __m512 xl = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0x88), xh = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0xdd);
    t[c] = _mm512_shuffle_f32x4(wl, xl, 0x88);
    t[4 + c] = _mm512_shuffle_f32x4(wh, xh, 0x88);
    t[8 + c] = _mm512_shuffle_f32x4(wl, xl, 0xdd);
    t[12 + c] = _mm512_shuffle_f32x4(wh, xh, 0xdd);
  }
  for (int i = 0; i < 16; i++) r[i] = t[i];
}

/* 8 x 8: two unpacks, a shuffle and a lane permutation. */
__attribute__((target("avx2"), always_inline)) static inline void nx__transpose8_ps(__m256 r[8]) {
  __m256 t[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]); /* r_i0 r_{i+1}0 r_i1 r_{i+1}1 | the same at 4, 5 */
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int g = 0; g < 8; g += 4) {
    r[g] = _mm256_shuffle_ps(t[g], t[g + 2], 0x44); /* column 0 (4) of rows g..g+3 */
    r[g + 1] = _mm256_shuffle_ps(t[g], t[g + 2], 0xEE); /* column 1 (5) */
    r[g + 2] = _mm256_shuffle_ps(t[g + 1], t[g + 3], 0x44);
    r[g + 3] = _mm256_shuffle_ps(t[g + 1], t[g + 3], 0xEE);
  }
  for (int c = 0; c < 4; c++) {
    t[c] = _mm256_permute2f128_ps(r[c], r[4 + c], 0x20);
    t[4 + c] = _mm256_permute2f128_ps(r[c], r[4 + c], 0x31);
  }
  for (int i = 0; i < 8; i++) r[i] = t[i];
}
#endif

#endif
