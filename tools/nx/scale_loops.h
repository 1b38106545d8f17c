/* SPDX-License-Identifier: Apache-2.0 */
/* The loops of scale_pass.c, included once per instruction set with NX__ISA
   (the name suffix), NX__TARGET (the function attribute that selects it, or
   nothing) and NX__FMA (1 where the set has a fused multiply-add). Each loop
   is branch-free, so the compiler vectorizes it for the target; every
   target computes the same bits. */
#define NX__CAT2(a, b) a##_##b
#define NX__CAT(a, b) NX__CAT2(a, b)
#define NX__FN(name) NX__CAT(name, NX__ISA)

/* The greatest magnitude's bits under `inf` (the infinity's bits: every
   pattern at or above it, its sign cleared, is an infinity or a NaN), for
   the IEEE formats of 16 and 32 bits: integer compares on the bits, which
   order as the magnitudes do. Signed 16-bit lanes, which every x86 level
   compares (a magnitude's bits are below 0x8000). */
NX__TARGET static uint32_t NX__FN(max16)(const uint8_t *restrict q, int64_t n, int16_t inf) {
  int16_t best = 0;
  for (int64_t k = 0; k < n; k++) {
    int16_t u;
    memcpy(&u, q + 2 * k, 2);
    u = (int16_t)(u & 0x7FFF);
    u = u < inf ? u : 0;
    best = u > best ? u : best;
  }
  return (uint32_t)best;
}

NX__TARGET static uint32_t NX__FN(max32)(const uint8_t *restrict q, int64_t n) {
  int32_t best = 0;
  for (int64_t k = 0; k < n; k++) {
    int32_t u;
    memcpy(&u, q + 4 * k, 4);
    u &= 0x7FFFFFFF;
    u = u < 0x7F800000 ? u : 0;
    best = u > best ? u : best;
  }
  return (uint32_t)best;
}

/* bfloat16 and float32 widened to float64, exactly (a bfloat16 is the top
   half of a float32); whether one of them is a NaN, whose double the
   caller takes from nx_dtype_load_bits instead. */
NX__TARGET static bool NX__FN(widen_bf16)(const uint8_t *restrict q, double *restrict x, int64_t m) {
  int nan = 0;
  for (int64_t k = 0; k < m; k++) {
    uint16_t h;
    memcpy(&h, q + 2 * k, 2);
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    x[k] = (double)f;
    nan |= (h & 0x7FFF) > 0x7F80;
  }
  return nan;
}

NX__TARGET static bool NX__FN(widen_f32)(const uint8_t *restrict q, double *restrict x, int64_t m) {
  int nan = 0;
  for (int64_t k = 0; k < m; k++) {
    uint32_t u;
    memcpy(&u, q + 4 * k, 4);
    float f;
    memcpy(&f, &u, 4);
    x[k] = (double)f;
    nan |= (u & 0x7FFFFFFFu) > 0x7F800000u;
  }
  return nan;
}

#if NX__FMA
/* x / s through the reciprocal r = 1 / s (scale_pass.c gives why this is
   the store of x / s for the narrow targets): y = x * r, then m, y rounded
   to `keep` significant bits (the target's precision and one: its
   midpoints), is the quotient exactly where m * s - x is 0 (a tie, which y
   may miss by an ulp). drop = 53 - keep. */
NX__TARGET static void NX__FN(div_recip)(double *restrict x, int64_t m, double s, double r, int drop) {
  uint64_t half = (uint64_t)1 << (drop - 1), mask = ~(((uint64_t)1 << drop) - 1);
  for (int64_t k = 0; k < m; k++) {
    double y = x[k] * r, t;
    uint64_t u;
    memcpy(&u, &y, 8);
    u = (u + half) & mask;
    memcpy(&t, &u, 8);
    x[k] = __builtin_fma(t, s, -x[k]) == 0 ? t : y;
  }
}
#endif

#undef NX__CAT2
#undef NX__CAT
#undef NX__FN
