/* SPDX-License-Identifier: Apache-2.0 */
/* Dtype.exact: whether every value of one dtype is a value of another. */
#include "nx_dtype.h"
#include "dtype_internal.h"

/* The unbiased exponent of a float format's largest finite value, and of its
   least positive (subnormal) value. */
static int max_exponent(int code) {
  return (int)(nx_dtype_max_finite_bits_of(code) >> nx_dtype_fraction_bits_of(code)) -
         ((1 << (nx_dtype_exponent_bits_of(code) - 1)) - 1);
}
static int min_exponent(int code) {
  return 1 - ((1 << (nx_dtype_exponent_bits_of(code) - 1)) - 1) - nx_dtype_fraction_bits_of(code);
}

/* A float format (or complex component) a into float format b. */
static bool float_into_float(int a, int b) {
  nx_u64 ma = nx_dtype_max_finite_bits_of(a), mb = nx_dtype_max_finite_bits_of(b);
  /* Magnitudes compare as their float64 bits do. */
  return nx_dtype_fraction_bits_of(b) >= nx_dtype_fraction_bits_of(a) &&
         nx_dtype_load_f64bits(b, mb) >= nx_dtype_load_f64bits(a, ma) && min_exponent(b) <= min_exponent(a) &&
         (!nx_dtype_has_infinities(a) || nx_dtype_has_infinities(b)) && (!nx_dtype_has_nans(a) || nx_dtype_has_nans(b));
}

/* An integer format a into float format b: b's significand holds a's
   magnitudes, the greatest of which is below 2^need or is 2^need itself. */
static bool int_into_float(int a, int b) {
  int need = nx_dtype_bits_of(a) - (nx_dtype_kind_of(a) == NX_KIND_SIGNED);
  return nx_dtype_fraction_bits_of(b) + 1 >= need && max_exponent(b) >= need;
}

static bool int_into_int(int a, int b) {
  int ba = nx_dtype_bits_of(a), bb = nx_dtype_bits_of(b);
  if (nx_dtype_kind_of(a) == NX_KIND_SIGNED) return nx_dtype_kind_of(b) == NX_KIND_SIGNED && bb >= ba;
  return nx_dtype_kind_of(b) == NX_KIND_SIGNED ? bb > ba : bb >= ba;
}

bool nx_dtype_exact(nx_dtype a, nx_dtype b) {
  if (!nx__dtype_valid("nx_dtype_exact", a) || !nx__dtype_valid("nx_dtype_exact", b)) return false;
  int ka = nx_dtype_kind_of(a), kb = nx_dtype_kind_of(b);
  if (a == b || ka == NX_KIND_BOOLEAN) return true;
  if (kb == NX_KIND_BOOLEAN) return false;
  if (ka == NX_KIND_COMPLEX) return kb == NX_KIND_COMPLEX && float_into_float(a, b);
  if (ka == NX_KIND_FLOAT) return (kb == NX_KIND_FLOAT || kb == NX_KIND_COMPLEX) && float_into_float(a, b);
  /* a is an integer format. */
  if (kb == NX_KIND_FLOAT || kb == NX_KIND_COMPLEX) return int_into_float(a, b);
  return int_into_int(a, b);
}
