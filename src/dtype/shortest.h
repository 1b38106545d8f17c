/* SPDX-License-Identifier: Apache-2.0 */
/* Shortest-nearest decimal digits of a binary float value.

   The value is v = c * 2^q; its round-trip interval runs from the midpoint
   with its lower neighbour to the midpoint with its upper one, both ends
   included iff c is even (ties go to even), and the upper neighbour of the
   largest finite value is the next step above it (the exponent is unbounded
   above). The answer is the decimal with the fewest significant digits in the
   interval and, of those, the nearest to v, ties to the even digit.

   The method is Giulietti's Schubfach. In quarter steps cb = 4c, the interval
   is [cbl, cbr] * 2^(q-2). With 10^k the largest power of ten no wider than
   the interval, every decimal that matters is n * 10^k or n * 10^(k+1); the
   interval holds at most one multiple of 10^(k+1), and v's floor and ceiling
   at 10^k are the only nearest candidates of their length. Deciding them
   needs floor(X) and whether X is an integer, for X = cb' * 2^q / 10^k (four
   times the value over 10^k), cb' each of cbl, cb, cbr; that is a 126-bit product with a precomputed
   ceiling of 10^-k. Where the product's fraction is too near zero to decide
   (a possible integer), an exact integer test settles it, and failing that an
   exact big-number division does. This works for any precision up to 53 bits
   and any exponent of binary64, so every float format of nx uses it.

   The whole method is here, static and inline, so that print.c inlines it
   into its float64 and float32 paths, where the precision and exponent range
   are constants; shortest.c makes the out-of-line nx__shortest of it. */
#ifndef NX_DTYPE_SHORTEST_H
#define NX_DTYPE_SHORTEST_H

#include <stdbool.h>
#include <stdint.h>

#include "dtype_internal.h"
#include "pow10_table.h"

typedef unsigned __int128 u128;

/* floor(log10(2^q)) and floor(log10(3/4 * 2^q)), for |q| up to 2^16 or so:
   the fixed-point logarithms of Schubfach, checked over every q the formats
   reach by the test of this file. */
static inline int flog10_pow2(int q) { return (int)(((int64_t)q * 661971961083LL) >> 41); }
static inline int flog10_three_quarters_pow2(int q) { return (int)(((int64_t)q * 661971961083LL - 274743187321LL) >> 41); }

/* ---- The exact path ---------------------------------------------------- */

/* Big naturals of 32-bit limbs, least significant first, enough for
   10^324 * 2^60 and 2^1080. */
#define LIMBS 80
typedef struct {
  int n;
  uint32_t d[LIMBS];
} big;

static inline void big_set(big *a, uint64_t x) {
  a->n = 0;
  while (x) { a->d[a->n++] = (uint32_t)x; x >>= 32; }
}

static inline void big_mul_small(big *a, uint32_t m) {
  uint64_t carry = 0;
  for (int i = 0; i < a->n; i++) {
    uint64_t t = (uint64_t)a->d[i] * m + carry;
    a->d[i] = (uint32_t)t;
    carry = t >> 32;
  }
  if (carry) a->d[a->n++] = (uint32_t)carry;
}

static inline void big_shl(big *a, int s) {
  int w = s / 32, b = s % 32;
  if (a->n == 0) return;
  a->d[a->n] = 0;
  for (int i = a->n; i >= 0; i--) {
    uint32_t hi = a->d[i] << b, lo = (b && i > 0) ? a->d[i - 1] >> (32 - b) : 0;
    a->d[i + w] = hi | lo;
  }
  for (int i = 0; i < w; i++) a->d[i] = 0;
  a->n += w + 1;
  while (a->n && !a->d[a->n - 1]) a->n--;
}

static inline int big_cmp(const big *a, const big *b) {
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  for (int i = a->n - 1; i >= 0; i--)
    if (a->d[i] != b->d[i]) return a->d[i] < b->d[i] ? -1 : 1;
  return 0;
}

static inline void big_sub(big *a, const big *b) { /* a -= b, a >= b */
  int64_t borrow = 0;
  for (int i = 0; i < a->n; i++) {
    int64_t t = (int64_t)a->d[i] - (i < b->n ? b->d[i] : 0) - borrow;
    borrow = t < 0;
    a->d[i] = (uint32_t)(t + (borrow << 32));
  }
  while (a->n && !a->d[a->n - 1]) a->n--;
}

/* floor(X) with its lowest bit set where X is not an integer (rounding to
   odd keeps every comparison with an even number exact), for
   X = cb * 2^q / 10^k, four times v / 10^k for cb = 4c, by long division. */
static inline uint64_t exact_rop(uint64_t cb, int q, int k) {
  big num, den;
  big_set(&num, cb);
  big_set(&den, 1);
  for (int i = 0; i < (k < 0 ? -k : k); i++) big_mul_small(k < 0 ? &num : &den, 10);
  if (q >= 0) big_shl(&num, q); else big_shl(&den, -q);
  /* The quotient is below 2^62: shift the divisor up and subtract down. */
  uint64_t quot = 0;
  big_shl(&den, 62);
  for (int i = 62; i >= 0; i--) {
    if (big_cmp(&num, &den) >= 0) { big_sub(&num, &den); quot |= (uint64_t)1 << i; }
    /* den >>= 1, by shifting num up instead would grow it; recompute. */
    if (i) {
      uint32_t carry = 0;
      for (int j = den.n - 1; j >= 0; j--) {
        uint32_t nc = den.d[j] & 1;
        den.d[j] = (den.d[j] >> 1) | (carry << 31);
        carry = nc;
      }
      while (den.n && !den.d[den.n - 1]) den.n--;
    }
  }
  return quot | (num.n != 0);
}

/* ---- The fast path ----------------------------------------------------- */

#ifdef NX_TEST_FORCE_EXACT
static const int force_exact = 1;
#else
static const int force_exact = 0;
#endif

/* Where the 126-bit product cannot decide: X = cb * 2^q / 10^k is an integer
   iff 5^k divides cb (the power of two always divides here, and for k < 0 X
   is never an integer once g is inexact), and then it is fl; else the exact
   path decides. Out of line: rare. */
static __attribute__((noinline, unused)) uint64_t rop_undecided(uint64_t cb, int q, int k, uint64_t fl) {
  if (k > 0 && k <= 27) {
    uint64_t p5 = 1;
    for (int i = 0; i < k; i++) p5 *= 5;
    if (cb % p5 == 0) return fl;
  }
  return exact_rop(cb, q, k);
}

/* rop(cb) for the row of k: the same answer as exact_rop, from the 126-bit
   ceiling g of 10^-k / 2^r and the product P = cb * g, given as its top 128
   bits h and its low 64 plo. P / 2^s = cb * g / 2^s exceeds X by less than
   X / 2^125 < 2^-66, so a fraction of at least 2^-56 decides; below it, X is
   an integer or the exact path decides. With h = P / 2^64 and s = 64 + sh
   (sh within 56..66 for every q and k here), h / 2^(sh - 56) holds floor(X)
   above its low 56 bits and the fraction's top 56 bits in them: one shift
   of fewer than 11 places gives both. */
static inline uint64_t rop_of_product(u128 h, uint64_t plo, uint64_t cb, int q, int k) {
  int row = k - NX__K_MIN, c = -q - nx__pow10[row].r - 120; /* sh - 56 */
  uint64_t hlo = (uint64_t)h, hhi = (uint64_t)(h >> 64);
  uint64_t top = (hlo >> c) | ((hhi << 1) << (63 - c)), frac = top & (((uint64_t)1 << 56) - 1);
  uint64_t fl = (hhi >> c) << 8 | top >> 56;
  if (frac) return fl | 1;
  if (nx__pow10[row].exact) return fl | ((hlo & (((uint64_t)1 << c) - 1)) != 0 || plo != 0);
  return rop_undecided(cb, q, k, fl);
}

/* P = cb * g: its top 128 bits and its low 64. */
typedef struct {
  u128 h;
  uint64_t lo;
} product;

static inline product rop_product(uint64_t cb, int k) {
  int row = k - NX__K_MIN;
  u128 lo = (u128)cb * nx__pow10[row].lo;
  product p = {(u128)cb * nx__pow10[row].hi + (lo >> 64), (uint64_t)lo};
  return p;
}

static inline uint64_t rop(uint64_t cb, int q, int k) {
  if (force_exact) return exact_rop(cb, q, k);
  product p = rop_product(cb, k);
  return rop_of_product(p.h, p.lo, cb, q, k);
}

/* rop of cb - 2, cb and cb + 2 from one product: (cb -+ 2) * g is P -+ 2g,
   a subtraction and an addition of 192 bits where two more products would
   take four multiplications. */
static inline void rop3(uint64_t cb, int q, int k, uint64_t *vbl, uint64_t *vb, uint64_t *vbr) {
  if (force_exact) {
    *vbl = exact_rop(cb - 2, q, k), *vb = exact_rop(cb, q, k), *vbr = exact_rop(cb + 2, q, k);
    return;
  }
  int row = k - NX__K_MIN;
  product p = rop_product(cb, k);
  uint64_t g2lo = nx__pow10[row].lo << 1, plo_r = p.lo + g2lo, plo_l = p.lo - g2lo;
  u128 g2hi = (u128)nx__pow10[row].hi << 1 | nx__pow10[row].lo >> 63;
  u128 h_r = p.h + g2hi + (plo_r < p.lo), h_l = p.h - g2hi - (p.lo < g2lo);
  *vb = rop_of_product(p.h, p.lo, cb, q, k);
  *vbl = rop_of_product(h_l, plo_l, cb - 2, q, k);
  *vbr = rop_of_product(h_r, plo_r, cb + 2, q, k);
}

/* rop(cb) for a cb below 2^27 (formats of up to 24 bits of precision, whose
   X stays below 2^32), from the top 64 bits of g rounded up: P' = cb *
   (g_hi + 1) / 2^sh is at least X and above it by less than X / 2^61 <
   2^-29, so a fraction of P' of at least 2^-28 gives floor(X) and says X is
   no integer. Otherwise the 126-bit rop decides. Given the product P': those
   of cb -+ 2 are P' -+ 2 (g_hi + 1), without multiplying again. */
static inline uint64_t rop_short_of(u128 p, uint64_t cb, int q, int k) {
  int row = k - NX__K_MIN, c = -q - nx__pow10[row].r - 92; /* sh - 28, within 28..38 */
  uint64_t t = (uint64_t)(p >> 28) >> (c - 28); /* P' < 2^89: t < 2^61, and so is P' / 2^28 */
  if (force_exact || !(t & ((1u << 28) - 1))) return rop(cb, q, k);
  return t >> 28 | 1;
}

/* r without the trailing zeros of r.d (nonzero), without division: d is a
   multiple of 10^k iff rotr(d * 5^-k, k) <= (2^64 - 1) / 10^k, with 5^-k the
   inverse of 5^k modulo 2^64, and then that rotation is d / 10^k. One zero,
   then steps of 16, 8, 4, 2 and 1 strip any count up to 32, more than a d
   below 2^64 has. */
static inline bool strip_step(nx__decimal *r, uint64_t inv, uint64_t lim, int k) {
  uint64_t m = r->d * inv, t = m >> k | m << (64 - k);
  if (t > lim) return false;
  r->d = t;
  r->e += k;
  return true;
}

static inline nx__decimal strip_zeros(nx__decimal r) {
  /* Most digits end in a nonzero one: one test, then the steps. */
  if (!strip_step(&r, 0xCCCCCCCCCCCCCCCDu, 0x1999999999999999u, 1)) return r;
  strip_step(&r, 0xE4A4D1417CD9A041u, 0x734u, 16);
  strip_step(&r, 0xC767074B22E90E21u, 0x2AF31DC461u, 8);
  strip_step(&r, 0xD288CE703AFB7E91u, 0x68DB8BAC710CBu, 4);
  strip_step(&r, 0x8F5C28F5C28F5C29u, 0x28F5C28F5C28F5Cu, 2);
  strip_step(&r, 0xCCCCCCCCCCCCCCCDu, 0x1999999999999999u, 1);
  return r;
}

/* The shortest decimal of c * 2^q, its digits perhaps with trailing zeros
   (print.c's float64 and float32 text finds them in the digits it makes,
   cheaper than stripping them here). */
static inline __attribute__((always_inline)) nx__decimal shortest_unstripped(uint64_t c, int q, bool bottom) {
  int out = (int)(c & 1);
  uint64_t cb = c << 2, cbr = cb + 2, cbl = bottom ? cb - 1 : cb - 2;
  int k = bottom ? flog10_three_quarters_pow2(q) : flog10_pow2(q);
  uint64_t vb, vbl, vbr;
  if (cbr < ((uint64_t)1 << 27)) {
    uint64_t g = nx__pow10[k - NX__K_MIN].hi + 1; /* below 2^62: g_hi < 2^62 */
    u128 p = (u128)cb * g;
    vb = rop_short_of(p, cb, q, k);
    vbl = rop_short_of(p - (bottom ? g : 2 * g), cbl, q, k);
    vbr = rop_short_of(p + 2 * g, cbr, q, k);
  } else if (!bottom) rop3(cb, q, k, &vbl, &vb, &vbr);
  else vb = rop(cb, q, k), vbl = rop(cbl, q, k), vbr = rop(cbr, q, k);
  /* Both candidates' tests, then selects rather than branches: which one
     wins varies from value to value, and a mispredicted branch costs more
     than the few compares and moves of the loser. */
  uint64_t s = vb >> 2, t = s + 1;
  /* A multiple of 10^(k+1) in the interval is shorter (s >= 10: else its
     tests are of nothing). */
  uint64_t sp = s / 10, tp = sp + 1;
  bool upin = vbl + out <= 40 * sp, wpin = 40 * tp + out <= vbr;
  bool shorter = (s >= 10) & (upin != wpin);
  /* Else s or t at 10^k: the one in the interval, or if both are, the
     nearer, ties to even (vb is odd unless exact). */
  bool uin = vbl + out <= 4 * s, win = 4 * t + out <= vbr;
  uint64_t mid = 4 * s + 2;
  bool one = uin ^ win, tie_up = (vb > mid) | ((vb == mid) & (bool)(s & 1));
  bool up = (one & (!uin)) | ((!one) & tie_up);
  /* Masks, not conditionals, which the compiler would make branches. */
  uint64_t dl = s + up, ds = tp - upin;
  nx__decimal r;
  r.d = dl ^ ((dl ^ ds) & (0 - (uint64_t)shorter));
  r.e = k + shorter;
  return r;
}

static inline __attribute__((always_inline)) nx__decimal shortest(uint64_t c, int q, bool bottom) {
  return strip_zeros(shortest_unstripped(c, q, bottom));
}

#endif
