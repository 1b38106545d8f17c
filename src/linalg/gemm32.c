/* SPDX-License-Identifier: Apache-2.0 */
/* The float32 kernel: products of floats of 32 bits or fewer. Tiles of a and
   b are converted exactly to float32 (a tile at a time, never a whole
   operand), and each element of z is one float32 chain over the pairs of p
   in ascending order, the odd one of each pair first:
     acc = +0;  for p = 0, 2, 4, ..:  acc = fma(a[i, p+1], b[p+1, j], acc)
                                      acc = fma(a[i, p], b[p, j], acc)
   (the first step skipped where p+1 = k), stored once into z's dtype by the
   store rule. The order is the one VDPBF16PS computes, so that a kernel on
   it could give the same bits; the packed kernel (gemm_wide.c) keeps it
   too. The vector kernel keeps it: its
   lanes are different j, each lane's pairs ascend, and a fused multiply-add
   is the same operation in a lane as in fmaf. */
#include <math.h>
#include <stdlib.h>

#include "../kernels/cast_internal.h"
#include "../kernels/elem.h"
#include "mm.h"
#include "../base/alloc.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define NX__X86 1
#endif

enum { MR = 4, NB = 64, KB = 256, SB = 256 };

typedef enum skind { S_F32, S_BF16, S_F16, S_BYTE, S_NIBBLE } skind;

typedef struct src {
  skind kind;
  nx_dtype dt;
  const char *base;
  float lut[256];
} src;

static void src_init(src *s, const nx__mop *o) {
  s->dt = o->dt;
  s->base = o->base;
  int bits = nx_dtype_bits_of(o->dt);
  s->kind = o->dt == NX_FLOAT32 ? S_F32 : o->dt == NX_BFLOAT16 ? S_BF16 : o->dt == NX_FLOAT16 ? S_F16
          : bits == 8 ? S_BYTE : S_NIBBLE;
  if (bits <= 8)
    for (int i = 0; i < (1 << bits); i++) s->lut[i] = (float)nx__f64_of_bits(nx_dtype_load_f64bits(o->dt, (uint64_t)i));
}

/* The element at position e, exactly as a float32. */
static inline float ld(const src *s, int64_t e) {
  switch (s->kind) {
  case S_F32: {
    float f;
    memcpy(&f, s->base + e * 4, 4);
    return f;
  }
  case S_BF16: {
    uint16_t h;
    memcpy(&h, s->base + e * 2, 2);
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  case S_F16: {
    uint16_t h;
    memcpy(&h, s->base + e * 2, 2);
    uint32_t u = nx_load_float16_f32(h); /* exact: the value's float32 bits */
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  case S_BYTE: return s->lut[(uint8_t)s->base[e]];
  default: {
    nx__arg r = {(char *)s->base, e, 0};
    return s->lut[nx__ld(4, &r, 0)];
  }
  }
}

/* c[r][j] (MR rows of NB) continues its chains over the kb steps of at
   (kb x MR) and bt (kb x NB). */
static void micro(const float *at, const float *bt, int64_t kb, float *c) {
  for (int r = 0; r < MR; r++)
    for (int64_t p = 0; p < kb; p += 2) {
      float a0 = at[p * MR + r], a1 = p + 1 < kb ? at[(p + 1) * MR + r] : 0;
      for (int j = 0; j < NB; j++) {
        float x = c[r * NB + j];
        if (p + 1 < kb) x = fmaf(a1, bt[(p + 1) * NB + j], x);
        c[r * NB + j] = fmaf(a0, bt[p * NB + j], x);
      }
    }
}

#ifdef NX__X86
__attribute__((target("avx512f"))) static void micro512(const float *at, const float *bt, int64_t kb, float *c) {
  __m512 acc[MR][4];
  for (int r = 0; r < MR; r++)
    for (int q = 0; q < 4; q++) acc[r][q] = _mm512_loadu_ps(c + r * NB + 16 * q);
  /* p+1 then p: kb is even but in the last tile */
  for (int64_t p0 = 0; p0 < kb; p0 += 2)
    for (int64_t p = p0 + 1 < kb ? p0 + 1 : p0;; p--) {
      const float *b = bt + p * NB;
      __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16), b2 = _mm512_loadu_ps(b + 32),
             b3 = _mm512_loadu_ps(b + 48);
      for (int r = 0; r < MR; r++) {
        __m512 a = _mm512_set1_ps(at[p * MR + r]);
        acc[r][0] = _mm512_fmadd_ps(a, b0, acc[r][0]);
        acc[r][1] = _mm512_fmadd_ps(a, b1, acc[r][1]);
        acc[r][2] = _mm512_fmadd_ps(a, b2, acc[r][2]);
        acc[r][3] = _mm512_fmadd_ps(a, b3, acc[r][3]);
      }
      if (p == p0) break;
    }
  for (int r = 0; r < MR; r++)
    for (int q = 0; q < 4; q++) _mm512_storeu_ps(c + r * NB + 16 * q, acc[r][q]);
}

/* The same in AVX registers: the 64 columns in four groups of 16 (8
   accumulators, two vectors of b and a broadcast fit the 16 registers);
   each lane's chain is the same as in micro512. */
__attribute__((target("avx2,fma"))) static void micro256(const float *at, const float *bt, int64_t kb, float *c) {
  for (int q = 0; q < NB; q += 16) {
    __m256 acc[MR][2];
    for (int r = 0; r < MR; r++) {
      acc[r][0] = _mm256_loadu_ps(c + r * NB + q);
      acc[r][1] = _mm256_loadu_ps(c + r * NB + q + 8);
    }
    for (int64_t p0 = 0; p0 < kb; p0 += 2)
      for (int64_t p = p0 + 1 < kb ? p0 + 1 : p0;; p--) {
        const float *b = bt + p * NB + q;
        __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
        for (int r = 0; r < MR; r++) {
          __m256 a = _mm256_broadcast_ss(at + p * MR + r);
          acc[r][0] = _mm256_fmadd_ps(a, b0, acc[r][0]);
          acc[r][1] = _mm256_fmadd_ps(a, b1, acc[r][1]);
        }
        if (p == p0) break;
      }
    for (int r = 0; r < MR; r++) {
      _mm256_storeu_ps(c + r * NB + q, acc[r][0]);
      _mm256_storeu_ps(c + r * NB + q + 8, acc[r][1]);
    }
  }
}
#endif

typedef void (*micro_fn)(const float *, const float *, int64_t, float *);

typedef struct job {
  nx__mm *P;
  src a, b;
  micro_fn fn;
  int64_t sblocks, jblocks, items, chunks;
  float **scratch;
} job;

static void item(const job *J, int64_t u, float *bt, float *at, float *cacc) {
  const nx__mm *P = J->P;
  int64_t t = u / (J->sblocks * J->jblocks), rest = u % (J->sblocks * J->jblocks);
  int64_t s0 = (rest / J->jblocks) * SB, j0 = (rest % J->jblocks) * NB;
  int64_t rows = P->m - s0 < SB ? P->m - s0 : SB, nb = P->n - j0 < NB ? P->n - j0 : NB;
  int64_t pa = nx__mm_pos(P, &P->a, t), pb = nx__mm_pos(P, &P->b, t), pz = nx__mm_pos(P, &P->z, t);
  int64_t ars = P->a.rs, acs = P->a.cs, brs = P->b.rs, bcs = P->b.cs;
  int64_t rows_up = (rows + MR - 1) / MR * MR;
  memset(cacc, 0, sizeof(float) * (size_t)(rows_up * NB));
  for (int64_t k0 = 0; k0 < P->k; k0 += KB) {
    int64_t kb = P->k - k0 < KB ? P->k - k0 : KB;
    /* b's tile, columns past n as zeros; walked along b's smaller stride */
    if (nb < NB)
      for (int64_t p = 0; p < kb; p++) memset(bt + p * NB + nb, 0, sizeof(float) * (size_t)(NB - nb));
    if (llabs(brs) < llabs(bcs))
      for (int64_t j = 0; j < nb; j++) {
        int64_t e = pb + k0 * brs + (j0 + j) * bcs;
        for (int64_t p = 0; p < kb; p++) bt[p * NB + j] = ld(&J->b, e + p * brs);
      }
    else
      for (int64_t p = 0; p < kb; p++) {
        int64_t e = pb + (k0 + p) * brs + j0 * bcs;
        for (int64_t j = 0; j < nb; j++) bt[p * NB + j] = ld(&J->b, e + j * bcs);
      }
    for (int64_t i0 = 0; i0 < rows; i0 += MR) {
      for (int r = 0; r < MR; r++) {
        if (i0 + r >= rows) {
          for (int64_t p = 0; p < kb; p++) at[p * MR + r] = 0;
          continue;
        }
        int64_t e = pa + (s0 + i0 + r) * ars + k0 * acs;
        for (int64_t p = 0; p < kb; p++) at[p * MR + r] = ld(&J->a, e + p * acs);
      }
      J->fn(at, bt, kb, cacc + i0 * NB);
    }
  }
  nx__mm_store(P, pz, s0, j0, rows, nb, cacc, NB);
}

void nx__mm_store(const nx__mm *P, int64_t pz, int64_t i0, int64_t j0, int64_t rows, int64_t cols, const float *c,
                  int64_t ldc) {
  nx_dtype zt = P->z.dt;
  int zbits = nx_dtype_bits_of(zt);
  for (int64_t i = 0; i < rows; i++) {
    /* a row of z that lies contiguous: the cast's vector path, the store rule too */
    int64_t e0 = pz + (i0 + i) * P->z.rs + j0;
    if (P->z.cs == 1 && zt == NX_FLOAT32) {
      memcpy(P->z.base + e0 * 4, c + i * ldc, sizeof(float) * (size_t)cols);
      continue;
    }
    if (P->z.cs == 1 && zbits >= 8 && nx__cast_fast(zt, P->z.base, e0, NX_FLOAT32, c + i * ldc, 0, cols)) continue;
    for (int64_t j = 0; j < cols; j++) {
      int64_t e = pz + (i0 + i) * P->z.rs + (j0 + j) * P->z.cs;
      float f = c[i * ldc + j];
      if (zt == NX_FLOAT32) memcpy(P->z.base + e * 4, &f, 4);
      else {
        nx__arg r = zbits >= 8 ? (nx__arg){P->z.base + e * (zbits / 8), 0, 0} : (nx__arg){P->z.base, e, 0};
        nx__v v = {.f = (double)f};
        nx__store(zt, &r, 0, v);
      }
    }
  }
}

static void task(void *vj, int64_t u0, int64_t u1) {
  const job *J = vj;
  for (int64_t c = u0; c < u1; c++) {
    float *s = J->scratch[c];
    int64_t i0 = c * J->items / J->chunks, i1 = (c + 1) * J->items / J->chunks;
    for (int64_t u = i0; u < i1; u++) item(J, u, s, s + KB * NB, s + KB * NB + KB * MR);
  }
}

void nx__mm_f32(nx__mm *P) {
  job *J = nx__mm_scratch(P, sizeof(job));
  if (!J) return;
  J->P = P;
  src_init(&J->a, &P->a);
  src_init(&J->b, &P->b);
  J->fn = micro;
#ifdef NX__X86
  if (nx__mm_level() >= NX__MM_AVX512) J->fn = micro512;
  else if (nx__mm_level() >= NX__MM_AVX2) J->fn = micro256;
#endif
  J->sblocks = (P->m + SB - 1) / SB;
  J->jblocks = (P->n + NB - 1) / NB;
  J->items = P->count * J->sblocks * J->jblocks;
  double flops = 2.0 * (double)P->m * (double)P->n * (double)P->k * (double)P->count;
  int64_t chunks = flops < 2e6 ? 1 : 4 * (int64_t)nx_num_threads();
  J->chunks = chunks < J->items ? chunks : J->items;
  J->scratch = nx__mm_scratch(P, sizeof(float *) * (size_t)J->chunks);
  int64_t made = 0;
  if (J->scratch)
    for (; made < J->chunks; made++)
      if (!(J->scratch[made] = nx__mm_scratch(P, sizeof(float) * (KB * NB + KB * MR + SB * NB)))) break;
  if (made == J->chunks) {
    if (J->chunks == 1) task(J, 0, 1);
    else nx__parallel(J->chunks, J->chunks, task, J);
  }
  for (int64_t c = 0; c < made; c++) nx__free(J->scratch[c]);
  nx__free(J->scratch);
  nx__free(J);
}
