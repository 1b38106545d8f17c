/* The oracle of the cast suites: what an element of dtype `to` holds after a
   store of the exact value of a `from` element with raw bits (lo, hi), from
   nx_dtype_store_bits of that value, and from MPFR where the value is an
   integer no double holds. It shares nothing with the code under test. */
#ifndef NX_TESTS_CAST_ORACLE_H
#define NX_TESTS_CAST_ORACLE_H

#include <stdint.h>
#include <stdio.h>
#include <mpfr.h>

#include "nx_dtype.h"

static int oracle_component(int code) {
  return code == NX_COMPLEX128 ? NX_FLOAT64 : code == NX_COMPLEX64 ? NX_FLOAT32 : code;
}

/* The bits an element of `bits` width (128: two words) reads as, masked. */
static uint64_t oracle_mask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

/* A float format `to` (or complex component) from the integer whose
   magnitude is m and sign neg, rounded once: a double holds it up to 2^53; past
   that MPFR rounds it to the format's precision, which is then exact in a
   double, and the store gives its bits or the overflow result (every value
   past 2^53 is inside float32's range and past every smaller format's). */
static uint64_t oracle_float_of_int(int to, uint64_t m, int neg) {
  if (m <= (1ull << 53)) return nx_dtype_store_bits(to, neg ? -(double)m : (double)m);
  mpfr_t r;
  mpfr_init2(r, nx_dtype_fraction_bits_of(to) + 1);
  mpfr_set_ui(r, (unsigned long)m, MPFR_RNDN);
  if (neg) mpfr_neg(r, r, MPFR_RNDN);
  double d = mpfr_get_d(r, MPFR_RNDN); /* exact: precision <= 53 */
  mpfr_clear(r);
  return nx_dtype_store_bits(to, d);
}

/* An integer format from an integer value: saturate (128-bit arithmetic). */
static uint64_t oracle_int_of_int(int to, __int128 v) {
  int bits = nx_dtype_bits_of(to);
  __int128 lo, hi;
  if (nx_dtype_kind_of(to) == NX_KIND_SIGNED) {
    lo = -((__int128)1 << (bits - 1));
    hi = ((__int128)1 << (bits - 1)) - 1;
  } else {
    lo = 0;
    hi = ((__int128)1 << bits) - 1;
  }
  v = v < lo ? lo : v > hi ? hi : v;
  return (uint64_t)v & oracle_mask(bits);
}

/* The expected destination bits (*elo, *ehi) of the pair (from, to) for the
   source element (lo, hi). */
static void oracle_cast(int to, int from, uint64_t lo, uint64_t hi, uint64_t *elo, uint64_t *ehi) {
  int fk = nx_dtype_kind_of(from), tk = nx_dtype_kind_of(to), fbits = nx_dtype_bits_of(from);
  int tc = oracle_component(to);
  *ehi = 0;
  if (fk == NX_KIND_FLOAT || fk == NX_KIND_COMPLEX) {
    double re, im = 0.0;
    if (from == NX_COMPLEX64) {
      re = nx_dtype_load_bits(NX_FLOAT32, lo & 0xFFFFFFFFull);
      im = nx_dtype_load_bits(NX_FLOAT32, lo >> 32);
    } else {
      re = nx_dtype_load_bits(oracle_component(from), lo & oracle_mask(fbits));
      if (from == NX_COMPLEX128) im = nx_dtype_load_bits(NX_FLOAT64, hi);
    }
    if (tk == NX_KIND_BOOLEAN) {
      *elo = nx_dtype_store_bits(to, re) | nx_dtype_store_bits(to, im);
    } else if (tk == NX_KIND_COMPLEX) {
      uint64_t r = nx_dtype_store_bits(tc, re), i = nx_dtype_store_bits(tc, im);
      if (to == NX_COMPLEX128) { *elo = r; *ehi = i; }
      else *elo = r | i << 32;
    } else {
      *elo = nx_dtype_store_bits(to, re);
    }
    return;
  }
  /* An integer or boolean source: its exact value v. */
  __int128 v;
  if (fk == NX_KIND_BOOLEAN) v = (lo & oracle_mask(fbits)) != 0;
  else if (fk == NX_KIND_SIGNED) v = nx__int_value(lo, fbits, 1);
  else v = (__int128)(lo & oracle_mask(fbits));
  uint64_t m = v < 0 ? (uint64_t)(-v) : (uint64_t)v;
  if (tk == NX_KIND_BOOLEAN) *elo = v != 0;
  else if (tk == NX_KIND_SIGNED || tk == NX_KIND_UNSIGNED) *elo = oracle_int_of_int(to, v);
  else {
    *elo = oracle_float_of_int(tc, m, v < 0);
    if (to == NX_COMPLEX128) *ehi = 0; /* +0 imaginary part */
  }
}

#endif
