/* SPDX-License-Identifier: Apache-2.0 */
/* Transcendental functions rounded once into a float format. A double
   result of libm is within a few units of 2^-53 of the exact value, so its
   store into a format of 16 bits or fewer is the correctly rounded result
   unless the exact value lies near a midpoint of that format: there the
   long double function, 11 bits more precise, decides the side. */
#include <math.h>

#include "ops.h"

double nx__fn1(nx__uop op, double x) {
  switch (op) {
  case NX__EXP: return exp(x);
  case NX__LOG: return log(x);
  case NX__SIN: return sin(x);
  case NX__COS: return cos(x);
  case NX__TAN: return tan(x);
  case NX__ASIN: return asin(x);
  case NX__ACOS: return acos(x);
  case NX__ATAN: return atan(x);
  case NX__SINH: return sinh(x);
  case NX__COSH: return cosh(x);
  case NX__TANH: return tanh(x);
  case NX__ERF: return erf(x);
  case NX__SQRT: return sqrt(x);
  default: return x;
  }
}

long double nx__fn1l(nx__uop op, long double x) {
  switch (op) {
  case NX__EXP: return expl(x);
  case NX__LOG: return logl(x);
  case NX__SIN: return sinl(x);
  case NX__COS: return cosl(x);
  case NX__TAN: return tanl(x);
  case NX__ASIN: return asinl(x);
  case NX__ACOS: return acosl(x);
  case NX__ATAN: return atanl(x);
  case NX__SINH: return sinhl(x);
  case NX__COSH: return coshl(x);
  case NX__TANH: return tanhl(x);
  case NX__ERF: return erfl(x);
  case NX__SQRT: return sqrtl(x);
  default: return x;
  }
}

static long double fn2l(nx__bop op, long double x, long double y) {
  return op == NX__POW ? powl(x, y) : atan2l(x, y);
}

/* The store of a double result y into the small format dt, the side of a
   nearby midpoint decided by the more precise yl(). */
static uint64_t settle(nx_dtype dt, double y, long double yl) {
  uint64_t r = nx_dtype_store_f64bits(dt, nx__f64_bits(y));
  if (!isfinite(y) || y == 0) return r;
  double d = fabs(y) * 0x1p-40, lo = y - d, hi = y + d;
  uint64_t a = nx_dtype_store_f64bits(dt, nx__f64_bits(lo)), b = nx_dtype_store_f64bits(dt, nx__f64_bits(hi));
  if (a == b) return r;
  double va = nx__f64_of_bits(nx_dtype_load_f64bits(dt, a)), vb = nx__f64_of_bits(nx_dtype_load_f64bits(dt, b));
  if (!isfinite(va) || !isfinite(vb)) return nx_dtype_store_f64bits(dt, nx__f64_bits((double)yl));
  double mid = va / 2 + vb / 2; /* exact: both are values of a format of 16 bits or fewer */
  if (yl < (long double)mid) return a;
  if (yl > (long double)mid) return b;
  return nx_dtype_store_f64bits(dt, nx__f64_bits(mid));
}

uint64_t nx__math1(nx__uop op, nx_dtype dt, double x) {
  /* A NaN gives itself, quieted by the store (long double acosl drops a
     NaN's sign). */
  if (isnan(x)) return nx_dtype_store_f64bits(dt, nx__f64_bits(x));
  if (dt == NX_FLOAT64) return nx__f64_bits((double)nx__fn1l(op, x));
  double y = nx__fn1(op, x);
  if (dt == NX_FLOAT32) return nx_dtype_store_f64bits(dt, nx__f64_bits(y));
  double d = fabs(y) * 0x1p-40;
  if (isfinite(y) && y != 0 &&
      nx_dtype_store_f64bits(dt, nx__f64_bits(y - d)) != nx_dtype_store_f64bits(dt, nx__f64_bits(y + d)))
    return settle(dt, y, nx__fn1l(op, x));
  return nx_dtype_store_f64bits(dt, nx__f64_bits(y));
}

uint64_t nx__math2(nx__bop op, nx_dtype dt, double x, double y) {
  /* pow(1, y) and pow(x, 0) are 1 for every NaN: libm answers NaN for a
     signalling one, which a small format's NaN loads as in double. */
  if (op == NX__POW && (x == 1 || y == 0)) return nx_dtype_store_f64bits(dt, nx__f64_bits(1.0));
  /* A NaN x gives its own NaN, quieted by the store: libm may return y's
     of two NaNs (glibc's atan2 and powl do, its pow does not). */
  if (isnan(x)) return nx_dtype_store_f64bits(dt, nx__f64_bits(x));
  if (dt == NX_FLOAT64) return nx__f64_bits((double)fn2l(op, x, y));
  double r = op == NX__POW ? pow(x, y) : atan2(x, y);
  if (dt == NX_FLOAT32) return nx_dtype_store_f64bits(dt, nx__f64_bits(r));
  double d = fabs(r) * 0x1p-40;
  if (isfinite(r) && r != 0 &&
      nx_dtype_store_f64bits(dt, nx__f64_bits(r - d)) != nx_dtype_store_f64bits(dt, nx__f64_bits(r + d)))
    return settle(dt, r, fn2l(op, x, y));
  return nx_dtype_store_f64bits(dt, nx__f64_bits(r));
}
