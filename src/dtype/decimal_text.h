/* SPDX-License-Identifier: Apache-2.0 */
/* The text of a decimal d * 10^e (d below 10^17, trailing zeros or not),
   positional or scientific, for print.c.

   The digits are made in registers, one a byte: the last 16 in two runs of
   8, each by multiplications (SWAR: the splits by 10000, 100 and 10 done in
   parallel lanes), no division and no table, then moved up past the leading
   zeros so that they are left-aligned to 17 digits, zeros after d's own.
   The text is then a few stores of fixed size from those registers, never a
   load of what was just stored (a load spanning several recent small stores
   waits for them all), and no branch on the data: the point's place, the
   digit count and which candidate won vary from value to value, and
   mispredicted branches cost more than the work they would skip. The zeros
   of the left alignment are the zeros positional text needs after an
   integer's digits; past the text's end the stores leave bytes that the NUL
   and the length make irrelevant. Every store lands within 40 bytes of the
   start. */
#ifndef NX_DTYPE_DECIMAL_TEXT_H
#define NX_DTYPE_DECIMAL_TEXT_H

#include <stdint.h>
#include <string.h>

/* 10^0 .. 10^19. */
static const uint64_t nx__pow10s[20] = {1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
                                        1000000000u, 10000000000u, 100000000000u, 1000000000000u,
                                        10000000000000u, 100000000000000u, 1000000000000000u,
                                        10000000000000000u, 100000000000000000u, 1000000000000000000u,
                                        10000000000000000000u};

/* The number of decimal digits of d (1 for 0): floor(bits * log10(2)) from
   d's bit length is the count or one more, and one compare tells which. */
static inline int nx__ndigits(uint64_t d) {
  d |= 1; /* the same count, and 0 has one digit */
  int t = ((64 - __builtin_clzll(d)) * 1233) >> 12;
  return t - (d < nx__pow10s[t]) + 1;
}

/* The 8 digits of r < 10^8 (leading zeros included), one a byte, the first
   in the lowest byte: stored little-endian, they read in order. r / 10^4 by
   a 40-bit reciprocal (exact below 10^8), then /100 in two 32-bit lanes and
   /10 in four 16-bit lanes at once, each by a reciprocal exact for the
   lane's range (below 10^4 and below 100). */
static inline uint64_t nx__digits8(uint32_t r) {
  uint64_t hi = ((uint64_t)r * 109951163u) >> 40, lo = r - 10000 * hi;
  uint64_t m = hi | lo << 32;
  uint64_t h2 = ((m * 10486u) >> 20) & 0x0000007F0000007Full;
  uint64_t m2 = h2 | (m - 100 * h2) << 16;
  uint64_t h1 = ((m2 * 103u) >> 10) & 0x000F000F000F000Full;
  return h1 | (m2 - 10 * h1) << 8;
}

#define NX__ZEROS8 0x3030303030303030ull /* "00000000" */

/* The same as ASCII. */
static inline uint64_t nx__ascii8(uint32_t r) { return nx__digits8(r) + NX__ZEROS8; }

static inline void nx__put8(char *p, uint64_t v) { memcpy(p, &v, 8); }

/* A decimal's first 17 digits, left-aligned (zeros after its own): the
   first digit, then digits 1..8 and 9..16, one a byte, as in nx__digits8. */
typedef struct {
  unsigned c0;
  uint64_t a, b;
} nx__digits17;

/* d < 10^17 with n digits. The digits are made right-aligned, which needs
   nothing of n (d / 10^8 and d / 10^16 by reciprocals, while n is being
   counted), and then moved up by the 17 - n leading zeros in a register:
   the zero bytes that come in are zero digits. */
static inline nx__digits17 nx__split17(uint64_t d, int n) {
  uint64_t q8 = d / 100000000u;
  unsigned c = (unsigned)(q8 / 100000000u);
  unsigned __int128 w = (unsigned __int128)nx__digits8((uint32_t)(d - q8 * 100000000u)) << 64 |
                        nx__digits8((uint32_t)(q8 - c * 100000000u));
  /* Digit z of w to the low byte, then one byte more if z > 0; shifts by
     counts, no branch (n varies from value to value). */
  int z = 17 - n, nz = z > 0;
  unsigned __int128 t = w >> (8 * (z - nz));
  w = t >> (8 * nz);
  nx__digits17 s = {((unsigned)(uint8_t)t & (0u - nz)) | (c & (nz - 1u)), (uint64_t)w, (uint64_t)(w >> 64)};
  return s;
}

/* d < 10^9 with n digits: digits 9..16 are zeros. 64-bit arithmetic. */
static inline nx__digits17 nx__split9(uint32_t d, int n) {
  uint32_t c = d / 100000000u;
  uint64_t w = nx__digits8(d - c * 100000000u);
  int z = 9 - n, nz = z > 0;
  uint64_t t = w >> (8 * (z - nz));
  nx__digits17 s = {((unsigned)(uint8_t)t & (0u - nz)) | (c & (nz - 1u)), t >> (8 * nz), 0};
  return s;
}

/* The count of s's significant digits: 17 less its trailing zeros, the top
   zero bytes of b, then of a. */
static inline int nx__significant(nx__digits17 s) {
  int za = s.a ? __builtin_clzll(s.a) >> 3 : 8, zb = s.b ? __builtin_clzll(s.b) >> 3 : 8 + za;
  return 17 - zb;
}

/* The digits from position 1 + k on, as 16 bytes at p, for k < 16; for k =
   16 (a positional integer of 17 digits, 10^16 from just below it) the
   bytes fall past the text and any do. */
static inline void nx__put_tail(char *p, nx__digits17 s, int k) {
  unsigned __int128 w = (unsigned __int128)s.b << 64 | s.a;
  w >>= 8 * (k & 15);
  nx__put8(p, (uint64_t)w + NX__ZEROS8);
  nx__put8(p + 8, (uint64_t)(w >> 64) + NX__ZEROS8);
}

/* "00" to "99", for the exponent. */
static const char nx__pairs[201] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
    "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

/* The digits s (n of them) times 10^x (x the first digit's exponent) as
   d.ddde+XX: at least two exponent digits (at most three). */
static inline int nx__put_scientific(char *p, nx__digits17 s, int n, int x) {
  p[0] = (char)('0' + s.c0);
  p[1] = '.';
  nx__put8(p + 2, s.a + NX__ZEROS8);
  nx__put8(p + 10, s.b + NX__ZEROS8);
  int len = n > 1 ? n + 1 : 1;
  unsigned ax = (unsigned)(x < 0 ? -x : x);
  p[len] = 'e';
  p[len + 1] = x < 0 ? '-' : '+';
  len += 2;
  if (ax >= 100) {
    unsigned h = (ax * 41u) >> 12; /* ax / 100 below 1000 */
    p[len++] = (char)('0' + h);
    ax -= 100 * h;
  }
  memcpy(p + len, nx__pairs + 2 * ax, 2);
  return len + 2;
}

/* The same positional, for -4 <= x <= 16: the digits with the point placed,
   zeros around; without a branch on x, whose sign and size vary from value
   to value in ordinary data. In order: "0.000000", then the digits (at 0,
   or past "0." and the zeros below 1), then the point after the integer
   digits, then the digits after it shifted up by one over the rest. Below
   1 the point lands before the digits and the "tail" is the digits again
   where they already are; for an integer the point and the tail fall past
   the text's end. */
static inline int nx__put_positional(char *p, nx__digits17 s, int n, int x) {
  /* Masks from x's sign rather than conditionals, which the compiler makes
     branches. */
  int m = -(x < 0), ax = (x ^ m) - m, o = (1 + ax) & m;
  nx__put8(p, 0x3030303030302E30ull); /* "0.000000" */
  p[o] = (char)('0' + s.c0);
  nx__put8(p + o + 1, s.a + NX__ZEROS8);
  nx__put8(p + o + 9, s.b + NX__ZEROS8);
  p[((x + 1) & ~m) | (1 & m)] = '.';
  nx__put_tail(p + 2 + ax, s, x & ~m);
  int whole = x + 1 >= n ? x + 1 : n + 1;
  return ((n + 1 + ax) & m) | (whole & ~m);
}

#endif
