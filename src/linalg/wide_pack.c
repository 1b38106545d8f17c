/* SPDX-License-Identifier: Apache-2.0 */
/* The panels of the packed AVX-512F kernel (wide.h): float32 copied,
   bfloat16 widened by a shift (exact). A panel whose source runs across
   it (a's rows, a transposed b's columns) is turned in 16 x 16 blocks in
   registers, so neither layout of an operand packs by scalar steps. */
#include <string.h>

#include "wide.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f")))

enum { MR = NX__WMR, NR = NX__WNR };

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
AVX512 static inline __m512 widen16(nx_dtype dt, const char *base, int64_t e) {
  if (dt == NX_FLOAT32) return _mm512_loadu_ps(base + e * 4);
  __m512i h = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const void *)(base + e * 2)));
  return _mm512_castsi512_ps(_mm512_slli_epi32(h, 16));
}

/* r[i] lane j becomes r[j] lane i. */
AVX512 static inline void transpose16(__m512 r[16]) {
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4)
    for (int h = 0; h < 2; h++) {
      __m512d x = _mm512_castps_pd(t[i + h]), y = _mm512_castps_pd(t[i + h + 2]);
      r[i + 2 * h] = _mm512_castpd_ps(_mm512_unpacklo_pd(x, y));
      r[i + 2 * h + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(x, y));
    }
  for (int g = 0; g < 16; g += 8)
    for (int i = 0; i < 4; i++) {
      t[g + i] = _mm512_shuffle_f32x4(r[g + i], r[g + i + 4], 0x88);
      t[g + i + 4] = _mm512_shuffle_f32x4(r[g + i], r[g + i + 4], 0xdd);
    }
  for (int i = 0; i < 8; i++) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
  }
}

AVX512 void nx__wide_pack_a(const nx__mm *P, int64_t pa, int64_t i0, int64_t rows, int64_t k0, int64_t kc,
                            float *ap) {
  nx_dtype dt = P->a.dt;
  const char *base = P->a.base;
  int64_t rs = P->a.rs, cs = P->a.cs, p = 0;
  if (cs == 1)
    for (; p + 16 <= kc; p += 16) {
      __m512 v[16];
      for (int r = 0; r < 16; r++)
        v[r] = r < rows ? widen16(dt, base, pa + (i0 + r) * rs + k0 + p) : _mm512_setzero_ps();
      transpose16(v);
      for (int s = 0; s < 16; s++) _mm512_mask_storeu_ps(ap + (p + s) * MR, (1 << MR) - 1, v[s]);
    }
  for (; p < kc; p++)
    for (int r = 0; r < MR; r++)
      ap[p * MR + r] = r < rows ? widen(dt, base, pa + (i0 + r) * rs + (k0 + p) * cs) : 0;
}

AVX512 void nx__wide_pack_b(const nx__mm *P, int64_t pb, int64_t j0, int64_t cols, int64_t k0, int64_t kc,
                            float *bp) {
  nx_dtype dt = P->b.dt;
  const char *base = P->b.base;
  int64_t rs = P->b.rs, cs = P->b.cs, full = cs == 1 ? cols / NR : 0;
  /* b's rows contiguous: each row once along, into every full panel */
  for (int64_t p = 0; p < kc && full; p++)
    for (int64_t q = 0; q < full; q++) {
      int64_t e = pb + (k0 + p) * rs + j0 + q * NR;
      _mm512_store_ps(bp + q * NR * kc + p * NR, widen16(dt, base, e));
      _mm512_store_ps(bp + q * NR * kc + p * NR + 16, widen16(dt, base, e + 16));
    }
  for (int64_t q = full; q * NR < cols; q++) {
    float *d = bp + q * NR * kc;
    int64_t jq = j0 + q * NR, nj = cols - q * NR < NR ? cols - q * NR : NR, p = 0;
    if (rs == 1 && cs != 1)
      /* b's columns contiguous (a transposed b): 16 columns by 16 of k */
      for (; p + 16 <= kc; p += 16)
        for (int g = 0; g < NR; g += 16) {
          __m512 v[16];
          for (int j = 0; j < 16; j++)
            v[j] = g + j < nj ? widen16(dt, base, pb + k0 + p + (jq + g + j) * cs) : _mm512_setzero_ps();
          transpose16(v);
          for (int s = 0; s < 16; s++) _mm512_store_ps(d + (p + s) * NR + g, v[s]);
        }
    for (; p < kc; p++)
      for (int j = 0; j < NR; j++) d[p * NR + j] = j < nj ? widen(dt, base, pb + (k0 + p) * rs + (jq + j) * cs) : 0;
  }
}
#endif
