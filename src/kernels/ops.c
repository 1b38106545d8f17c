/* SPDX-License-Identifier: Apache-2.0 */
/* The operations' scalar semantics and the dtypes each computes. */
#include <complex.h>
#include <math.h>

#include "ops.h"

static int kind(nx_dtype dt) { return nx_dtype_kind_of(dt); }

bool nx__bop_computes(nx__bop op, nx_dtype dt) {
  int k = kind(dt);
  bool fl = k == NX_KIND_FLOAT, in = k == NX_KIND_SIGNED || k == NX_KIND_UNSIGNED, cx = k == NX_KIND_COMPLEX;
  switch (op) {
  case NX__ADD: case NX__SUB: case NX__MUL: return fl || in || cx || (dt == NX_BOOL && op != NX__SUB);
  case NX__FDIV: return fl || cx;
  case NX__IDIV: return in;
  case NX__MOD: return fl || in;
  case NX__POW: return fl || in;
  case NX__ATAN2: return fl;
  case NX__MIN: case NX__MAX: return fl || in || k == NX_KIND_BOOLEAN;
  case NX__AND: case NX__OR: case NX__XOR: return in || k == NX_KIND_BOOLEAN;
  }
  return false;
}

bool nx__uop_computes(nx__uop op, nx_dtype dt) {
  int k = kind(dt);
  bool fl = k == NX_KIND_FLOAT, in = k == NX_KIND_SIGNED || k == NX_KIND_UNSIGNED;
  switch (op) {
  case NX__NEG: return fl || in || k == NX_KIND_COMPLEX;
  case NX__RECIP: return fl || k == NX_KIND_COMPLEX;
  case NX__ABS: case NX__SIGN: case NX__TRUNC: case NX__CEIL: case NX__FLOOR: case NX__ROUND: return fl || in;
  default: return fl;
  }
}

static nx__v of_c(double complex z) { return (nx__v){.c = {creal(z), cimag(z)}}; }
/* A complex of its parts without CMPLX, which some compilers' headers lack:
   a complex has the representation of an array of its two parts. */
static double complex cmplx(double re, double im) {
  double p[2] = {re, im};
  double complex z;
  memcpy(&z, p, sizeof z);
  return z;
}
static double complex c_of(nx__v v) { return cmplx(v.c.re, v.c.im); }

/* x^y wrapping, y >= 0 */
static uint64_t ipow(uint64_t x, uint64_t y) {
  uint64_t r = 1;
  for (; y; y >>= 1, x *= x)
    if (y & 1) r *= x;
  return r;
}

static double fminmax(bool mx, double x, double y) {
  if (isnan(x)) return x;
  if (isnan(y)) return y;
  if (x == y) return (signbit(x) != 0) != mx ? x : y; /* -0 < +0 */
  return (x < y) != mx ? x : y;
}

nx__v nx__bop_apply(nx__bop op, nx_dtype dt, nx__v x, nx__v y) {
  nx__v r;
  int k = kind(dt);
  if (k == NX_KIND_FLOAT) {
    switch (op) {
    case NX__ADD: r.f = x.f + y.f; break;
    case NX__SUB: r.f = x.f - y.f; break;
    case NX__MUL: r.f = x.f * y.f; break;
    case NX__FDIV: r.f = x.f / y.f; break;
    case NX__MOD: r.f = fmod(x.f, y.f); break;
    case NX__MIN: r.f = fminmax(false, x.f, y.f); break;
    case NX__MAX: r.f = fminmax(true, x.f, y.f); break;
    default: r.f = 0; break;
    }
    return r;
  }
  if (k == NX_KIND_COMPLEX) {
    switch (op) {
    case NX__ADD: r.c.re = x.c.re + y.c.re; r.c.im = x.c.im + y.c.im; return r;
    case NX__SUB: r.c.re = x.c.re - y.c.re; r.c.im = x.c.im - y.c.im; return r;
    case NX__MUL: return of_c(c_of(x) * c_of(y));
    default: return of_c(c_of(x) / c_of(y));
    }
  }
  if (k == NX_KIND_SIGNED) {
    switch (op) {
    case NX__IDIV:
      r.u = y.i == 0 ? 0 : y.i == -1 ? 0 - x.u : (uint64_t)(x.i / y.i);
      return r;
    case NX__MOD: r.i = y.i == 0 ? x.i : y.i == -1 ? 0 : x.i % y.i; return r;
    case NX__POW:
      if (y.i >= 0) r.u = ipow(x.u, y.u);
      else r.i = x.i == 1 ? 1 : x.i == -1 ? ((y.u & 1) ? -1 : 1) : 0;
      return r;
    case NX__MIN: r.i = x.i < y.i ? x.i : y.i; return r;
    case NX__MAX: r.i = x.i > y.i ? x.i : y.i; return r;
    default: break;
    }
  }
  switch (op) { /* unsigned, the rest of signed, booleans (0 or 1) */
  case NX__ADD: r.u = k == NX_KIND_BOOLEAN ? (x.u | y.u) : x.u + y.u; break;
  case NX__SUB: r.u = x.u - y.u; break;
  case NX__MUL: r.u = x.u * y.u; break;
  case NX__IDIV: r.u = y.u ? x.u / y.u : 0; break;
  case NX__MOD: r.u = y.u ? x.u % y.u : x.u; break;
  case NX__POW: r.u = ipow(x.u, y.u); break;
  case NX__MIN: r.u = x.u < y.u ? x.u : y.u; break;
  case NX__MAX: r.u = x.u > y.u ? x.u : y.u; break;
  case NX__AND: r.u = x.u & y.u; break;
  case NX__OR: r.u = x.u | y.u; break;
  case NX__XOR: r.u = x.u ^ y.u; break;
  default: r.u = 0; break;
  }
  return r;
}

/* The sign bit of float format dt (of a complex one's component). */
static uint64_t sign_bit(nx_dtype dt) { return (uint64_t)1 << (nx_dtype_bits_of(dt) - 1); }

void nx__uop_apply(nx__uop op, nx_dtype dt, uint64_t *lo, uint64_t *hi) {
  int k = kind(dt), bits = nx_dtype_bits_of(dt);
  if (k == NX_KIND_COMPLEX) {
    nx__v v;
    if (dt == NX_COMPLEX128) {
      if (op == NX__NEG) {
        *lo ^= (uint64_t)1 << 63;
        *hi ^= (uint64_t)1 << 63;
        return;
      }
      v = of_c(1.0 / cmplx(nx__f64_of_bits(*lo), nx__f64_of_bits(*hi)));
      *lo = nx__f64_bits(v.c.re);
      *hi = nx__f64_bits(v.c.im);
      return;
    }
    if (op == NX__NEG) {
      *lo ^= 0x8000000080000000ull;
      return;
    }
    double re = nx__f64_of_bits(nx_load_float32_f64((uint32_t)*lo)), im = nx__f64_of_bits(nx_load_float32_f64((uint32_t)(*lo >> 32)));
    v = of_c(1.0 / cmplx(re, im));
    *lo = (uint64_t)nx_store_float32_f64(nx__f64_bits(v.c.re)) | (uint64_t)nx_store_float32_f64(nx__f64_bits(v.c.im)) << 32;
    return;
  }
  if (k == NX_KIND_SIGNED || k == NX_KIND_UNSIGNED) {
    int64_t x = nx__int_value(*lo, bits, k == NX_KIND_SIGNED);
    uint64_t u = (uint64_t)x;
    switch (op) {
    case NX__NEG: u = 0 - u; break;
    case NX__ABS: u = k == NX_KIND_SIGNED && x < 0 ? 0 - u : u; break; /* unsigned: itself */
    case NX__SIGN: u = k == NX_KIND_UNSIGNED ? (*lo != 0) : (uint64_t)(x > 0) - (uint64_t)(x < 0); break;
    default: break; /* trunc, ceil, floor, round: integers are integral */
    }
    *lo = u;
    return;
  }
  uint64_t sb = sign_bit(dt), b = *lo;
  if (op == NX__NEG) {
    *lo = b ^ sb;
    return;
  }
  if (op == NX__ABS) {
    *lo = b & ~sb;
    return;
  }
  double x = nx__f64_of_bits(nx_dtype_load_f64bits(dt, b)), r;
  switch (op) {
  case NX__RECIP: r = 1.0 / x; break;
  case NX__SIGN:
    if (isnan(x) || x == 0) return; /* NaN and signed zeros stay as they are */
    r = x > 0 ? 1.0 : -1.0;
    break;
  case NX__TRUNC: r = trunc(x); break;
  case NX__CEIL: r = ceil(x); break;
  case NX__FLOOR: r = floor(x); break;
  case NX__ROUND: r = round(x); break;
  case NX__SQRT:
    if (dt == NX_FLOAT64) {
      *lo = nx__f64_bits(sqrt(x));
      return;
    }
    r = sqrt(x); /* double holds 2p+2 bits of every narrower format: one rounding */
    break;
  default: *lo = nx__math1(op, dt, x); return;
  }
  *lo = nx_dtype_store_f64bits(dt, nx__f64_bits(r));
}
