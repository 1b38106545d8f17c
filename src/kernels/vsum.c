/* SPDX-License-Identifier: Apache-2.0 */
/* Contiguous float32 and float64 sums in double lanes (the order in
   vsum.h). A float32 pair's sum is rounded once in float32 and then added
   exactly as double; the conversions to double are the loop's cost, and
   pairing halves them while adding one float32 rounding of each pair.
   32 lanes are four AVX-512 registers of doubles (eight AVX2 ones): four
   independent chains of additions. Each vector loop also prefetches ahead,
   carrying the stream across the 4 KiB pages the hardware prefetcher stops
   at. */
#include "vsum.h"

#include "fast.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define NX__X86 1
#endif

enum { W = NX__SUM_LANES, B = 2 * NX__SUM_LANES };

/* The lanes combined pairwise, as vsum.h states, after the run's tail (the
   n elements past its last whole block) went to lanes k % 32. */
static double tree(double *s, const float *f32, const double *f64, int64_t n) {
  for (int k = 0; k < n; k++) s[k % W] += f32 ? (double)f32[k] : f64[k];
  for (int w = W / 2; w; w /= 2)
    for (int k = 0; k < w; k++) s[k] += s[k + w];
  return s[0];
}

static double sum_f32_base(const float *f, int64_t n) {
  double s[W] = {0};
  int64_t i = 0;
  for (; i + B <= n; i += B)
    for (int k = 0; k < W; k++) {
      float t = f[i + k % 16 + 32 * (k / 16)] + f[i + 16 + k % 16 + 32 * (k / 16)];
      s[k] += t;
    }
  return tree(s, f + i, NULL, n - i);
}

static double sum_f64_base(const double *f, int64_t n) {
  double s[W] = {0};
  int64_t i = 0;
  for (; i + W <= n; i += W)
    for (int k = 0; k < W; k++) s[k] += f[i + k];
  return tree(s, NULL, f + i, n - i);
}

#if defined(NX__X86)
/* Bytes ahead of the loads that the vector loops prefetch. */
#ifndef NX__AHEAD
#define NX__AHEAD 2048
#endif
#define NX__PF(p) _mm_prefetch((const char *)(p) + NX__AHEAD, _MM_HINT_T0)

#define NX__T512 __attribute__((target("avx512f")))
#define NX__CV0(t) _mm512_cvtps_pd(_mm512_castps512_ps256(t))
#define NX__CV1(t) _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(t), 1)))
NX__T512 static double sum_f32_512(const float *f, int64_t n) {
  __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + B <= n; i += B) {
    for (int k = 0; k < B; k += 16) NX__PF(f + i + k);
    __m512 t0 = _mm512_add_ps(_mm512_loadu_ps(f + i), _mm512_loadu_ps(f + i + 16));
    __m512 t1 = _mm512_add_ps(_mm512_loadu_ps(f + i + 32), _mm512_loadu_ps(f + i + 48));
    a0 = _mm512_add_pd(a0, NX__CV0(t0));
    a1 = _mm512_add_pd(a1, NX__CV1(t0));
    a2 = _mm512_add_pd(a2, NX__CV0(t1));
    a3 = _mm512_add_pd(a3, NX__CV1(t1));
  }
  double s[W];
  _mm512_storeu_pd(s, a0);
  _mm512_storeu_pd(s + 8, a1);
  _mm512_storeu_pd(s + 16, a2);
  _mm512_storeu_pd(s + 24, a3);
  return tree(s, f + i, NULL, n - i);
}

NX__T512 static double sum_f64_512(const double *f, int64_t n) {
  __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    for (int k = 0; k < W; k += 8) NX__PF(f + i + k);
    a0 = _mm512_add_pd(a0, _mm512_loadu_pd(f + i));
    a1 = _mm512_add_pd(a1, _mm512_loadu_pd(f + i + 8));
    a2 = _mm512_add_pd(a2, _mm512_loadu_pd(f + i + 16));
    a3 = _mm512_add_pd(a3, _mm512_loadu_pd(f + i + 24));
  }
  double s[W];
  _mm512_storeu_pd(s, a0);
  _mm512_storeu_pd(s + 8, a1);
  _mm512_storeu_pd(s + 16, a2);
  _mm512_storeu_pd(s + 24, a3);
  return tree(s, NULL, f + i, n - i);
}

/* AVX2: the 32 lanes in eight registers of four. */
#define NX__T2 __attribute__((target("avx2")))
NX__T2 static double sum_f32_2(const float *f, int64_t n) {
  __m256d a[8];
  for (int k = 0; k < 8; k++) a[k] = _mm256_setzero_pd();
  int64_t i = 0;
  for (; i + B <= n; i += B) {
    for (int k = 0; k < B; k += 16) NX__PF(f + i + k);
    for (int h = 0; h < 2; h++)
      for (int k = 0; k < 4; k++) {
        __m128 t = _mm_add_ps(_mm_loadu_ps(f + i + 32 * h + 4 * k), _mm_loadu_ps(f + i + 32 * h + 16 + 4 * k));
        a[4 * h + k] = _mm256_add_pd(a[4 * h + k], _mm256_cvtps_pd(t));
      }
  }
  double s[W];
  for (int k = 0; k < 8; k++) _mm256_storeu_pd(s + 4 * k, a[k]);
  return tree(s, f + i, NULL, n - i);
}

NX__T2 static double sum_f64_2(const double *f, int64_t n) {
  __m256d a[8];
  for (int k = 0; k < 8; k++) a[k] = _mm256_setzero_pd();
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    for (int k = 0; k < W; k += 8) NX__PF(f + i + k);
    for (int k = 0; k < 8; k++) a[k] = _mm256_add_pd(a[k], _mm256_loadu_pd(f + i + 4 * k));
  }
  double s[W];
  for (int k = 0; k < 8; k++) _mm256_storeu_pd(s + 4 * k, a[k]);
  return tree(s, NULL, f + i, n - i);
}
#endif

double nx__sum_f32(const float *f, int64_t n) {
#if defined(NX__X86)
  int lv = nx__fast_level();
  if (lv >= NX__FAST_AVX512) return sum_f32_512(f, n);
  if (lv >= NX__FAST_AVX2) return sum_f32_2(f, n);
#endif
  return sum_f32_base(f, n);
}

double nx__sum_f64(const double *f, int64_t n) {
#if defined(NX__X86)
  int lv = nx__fast_level();
  if (lv >= NX__FAST_AVX512) return sum_f64_512(f, n);
  if (lv >= NX__FAST_AVX2) return sum_f64_2(f, n);
#endif
  return sum_f64_base(f, n);
}
