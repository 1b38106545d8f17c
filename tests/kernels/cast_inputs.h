/* SPDX-License-Identifier: Apache-2.0 */
/* Source elements for the cast suites: every code of the formats up to 16
   bits; for the wider ones, the rounding boundaries of every narrower float
   format, the boundaries of the integer ranges, the special values and
   random samples. An element is its raw bits, a complex128's high half in hi. */
#ifndef NX_TESTS_CAST_INPUTS_H
#define NX_TESTS_CAST_INPUTS_H

#include <math.h>
#include <stdlib.h>

#include "../common.h"
#include "nx_dtype.h"

typedef struct inputs {
  uint64_t *lo, *hi;
  size_t n, cap;
} inputs;

static void in_add(inputs *in, uint64_t lo, uint64_t hi) {
  if (in->n == in->cap) {
    in->cap = in->cap ? in->cap * 2 : 1024;
    in->lo = (uint64_t *)realloc(in->lo, in->cap * 8);
    in->hi = (uint64_t *)realloc(in->hi, in->cap * 8);
  }
  in->lo[in->n] = lo;
  in->hi[in->n++] = hi;
}

static void in_free(inputs *in) {
  free(in->lo);
  free(in->hi);
}

/* The small float formats whose rounding boundaries wider sources test. */
static const int small_floats[] = {NX_FLOAT16, NX_BFLOAT16, NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2, NX_FLOAT4_E2M1FN};

/* Doubles at and around every rounding boundary of float format t: each
   finite value, each midpoint between neighbours (and past the largest
   finite value), the doubles next to it, and points 2^-30 of the value away,
   where a rounding through float32 first would land on the midpoint. */
static void add_boundaries_f64(double *out, size_t *k, int t) {
  int bits = nx_dtype_bits_of(t);
  uint64_t maxc = nx_dtype_max_finite_bits_of(t);
  for (uint64_t c = 0; c <= maxc && c < (1ull << bits); c++) {
    double x = nx_dtype_load_bits(t, c);
    double y = c < maxc ? nx_dtype_load_bits(t, c + 1) : x + (x - nx_dtype_load_bits(t, c - 1));
    double mid = x + (y - x) / 2;
    double pts[] = {x, mid, nextafter(mid, 0), nextafter(mid, INFINITY), mid * (1 + 0x1p-30), mid * (1 - 0x1p-30)};
    for (size_t j = 0; j < sizeof pts / sizeof pts[0]; j++) {
      out[(*k)++] = pts[j];
      out[(*k)++] = -pts[j];
    }
  }
}

static const uint64_t special_f64[] = {
    0, SIGN64, EXP64, EXP64 | SIGN64, 0x7FF8000000000000ull, 0xFFF8000000000000ull,
    0x7FF0000000000001ull, 0xFFF0000000000001ull, 0x7FF4000000000000ull, 0x7FFFFFFFFFFFFFFFull,
    0x7FEFFFFFFFFFFFFFull, 1, 0x000FFFFFFFFFFFFFull, 0x0010000000000000ull, 0x3FF0000000000000ull,
    0x47EFFFFFE0000000ull, 0x47EFFFFFF0000000ull, 0x47EFFFFFEFFFFFFFull, 0x3690000000000000ull, 0x36A0000000000000ull};
static const uint32_t special_f32[] = {0, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u,
                                       0x7F800001u, 0xFF800001u, 0x7FA00000u, 0x7FFFFFFFu, 0x7F7FFFFFu, 1,
                                       0x007FFFFFu, 0x00800000u, 0x3F800000u, 0x00400000u, 0x80400000u};

/* Every code of a format up to 16 bits, or the samples of a wider one. */
static void make_inputs(inputs *in, int from, size_t nrandom) {
  int bits = nx_dtype_bits_of(from), kind = nx_dtype_kind_of(from);
  uint64_t seed = 0x5EED0000u + (uint64_t)from;
  if (bits <= 16) {
    for (uint64_t c = 0; c < (1ull << bits); c++) in_add(in, c, 0);
    return;
  }
  if (kind == NX_KIND_FLOAT || kind == NX_KIND_COMPLEX) {
    int f32 = from == NX_FLOAT32 || from == NX_COMPLEX64;
    size_t cap = 6 * 2 * (65536 * 2 + 256 * 2 + 16), k = 0;
    double *b = (double *)malloc(cap * sizeof(double));
    for (size_t t = 0; t < sizeof small_floats / sizeof small_floats[0]; t++) add_boundaries_f64(b, &k, small_floats[t]);
    uint64_t *v = (uint64_t *)malloc((2 * k + 4 * nrandom + 64) * 8);
    size_t nv = 0;
    for (size_t i = 0; i < k; i++) {
      if (f32) { /* the float32 nearest, and its neighbours */
        uint32_t u = bits_of_f((float)b[i]);
        v[nv++] = u;
        if ((u & 0x7FFFFFFFu) < 0x7F800000u) v[nv++] = u + 1;
      } else v[nv++] = bits_of(b[i]);
    }
    if (f32) for (size_t i = 0; i < sizeof special_f32 / 4; i++) v[nv++] = special_f32[i];
    else for (size_t i = 0; i < sizeof special_f64 / 8; i++) v[nv++] = special_f64[i];
    for (size_t i = 0; i < nrandom; i++) {
      uint64_t r = splitmix64_next(&seed);
      v[nv++] = f32 ? r & 0xFFFFFFFFu : r;
      /* Near 1 too, where the formats are dense. */
      v[nv++] = f32 ? (0x3F800000u ^ (r >> 41)) : (0x3FF0000000000000ull ^ (r >> 12));
      /* float32 values and their midpoints, for float64 into float32. */
      if (!f32) {
        double x = flt_of((uint32_t)(r >> 32)), y = flt_of((uint32_t)(r >> 32) + 1);
        v[nv++] = bits_of(x + (y - x) / 2);
        v[nv++] = bits_of(x + (y - x) / 2) + 1;
      }
    }
    for (size_t i = 0; i < nv; i++) {
      uint64_t lo = v[i], hi = 0;
      if (from == NX_COMPLEX64) lo |= v[(i * 7 + 3) % nv] << 32;
      if (from == NX_COMPLEX128) hi = v[(i * 7 + 3) % nv];
      in_add(in, lo, hi);
    }
    free(v);
    free(b);
    return;
  }
  /* 32- and 64-bit integers: powers of two and their neighbours, the
     rounding boundaries of float32 (and float64) at every magnitude, the
     extremes, random samples. */
  uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  for (int e = 0; e < bits; e++)
    for (int d = -2; d <= 2; d++) {
      uint64_t p = (1ull << e) + (uint64_t)(int64_t)d;
      in_add(in, p & mask, 0);
      in_add(in, (0 - p) & mask, 0);
    }
  for (int e = 24; e < bits; e++)
    for (int j = 0; j < 64; j++) {
      uint64_t r = splitmix64_next(&seed);
      int p = e >= 53 && (j & 1) ? 53 : 24; /* float32's precision, or float64's */
      if (e < p) p = 24;
      uint64_t base = ((r >> (64 - p)) | (1ull << (p - 1))) << (e + 1 - p);
      uint64_t half = 1ull << (e - p);
      for (int d = -1; d <= 1; d++) {
        uint64_t x = base + half + (uint64_t)(int64_t)d;
        in_add(in, x & mask, 0);
        in_add(in, (0 - x) & mask, 0);
        in_add(in, (base + (uint64_t)(int64_t)d) & mask, 0);
      }
    }
  /* float16's: the midpoint after every integer it holds from 2048 (past
     65504 too, where rounding up overflows) and the integers beside it. */
  for (uint64_t c = 0x6800; c <= 0x7BFF; c++) {
    double x = nx_dtype_load_bits(NX_FLOAT16, c), y = c < 0x7BFF ? nx_dtype_load_bits(NX_FLOAT16, c + 1) : 65536.0;
    uint64_t mid = (uint64_t)(x + (y - x) / 2);
    for (int d = -1; d <= 1; d++) {
      in_add(in, (mid + (uint64_t)(int64_t)d) & mask, 0);
      in_add(in, (0 - (mid + (uint64_t)(int64_t)d)) & mask, 0);
    }
  }
  for (size_t i = 0; i < nrandom; i++) {
    uint64_t r = splitmix64_next(&seed);
    in_add(in, r & mask, 0);
    in_add(in, (r >> (r & 63)) & mask, 0);
  }
}

#endif
