/* MPFR oracles of the kernels suites: a function's exact value rounded once
   into a float format (at the format's precision and exponent range,
   subnormalized), and the distance in ulps between a result and the exact
   value. */
#ifndef NX_TESTS_KERNELS_MPFR_ORACLE_H
#define NX_TESTS_KERNELS_MPFR_ORACLE_H

#include <math.h>
#include <mpfr.h>

#include "nx.h"

typedef int (*mp1_fn)(mpfr_t, const mpfr_t, mpfr_rnd_t);
typedef int (*mp2_fn)(mpfr_t, const mpfr_t, const mpfr_t, mpfr_rnd_t);

/* The correctly rounded bits of f1(x), or of f2(x, y) where f1 is NULL, in
   float format dt. */
static inline uint64_t mp_rounded(nx_dtype dt, mp1_fn f1, mp2_fn f2, double x, double y) {
  nx_float_format f;
  nx_dtype_float_format(dt, &f);
  int bias = (1 << (f.exponent_bits - 1)) - 1;
  int emax = (int)ilogb(f.max_finite) + 1, emin = 2 - bias - f.fraction_bits;
  mpfr_exp_t oemin = mpfr_get_emin(), oemax = mpfr_get_emax();
  mpfr_t a, b, r;
  mpfr_inits2(53, a, b, (mpfr_ptr)0);
  mpfr_init2(r, f.fraction_bits + 1);
  mpfr_set_d(a, x, MPFR_RNDN);
  mpfr_set_d(b, y, MPFR_RNDN);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  int inex = f1 ? f1(r, a, MPFR_RNDN) : f2(r, a, b, MPFR_RNDN);
  inex = mpfr_check_range(r, inex, MPFR_RNDN);
  mpfr_subnormalize(r, inex, MPFR_RNDN);
  double d = mpfr_get_d(r, MPFR_RNDN);
  mpfr_set_emin(oemin);
  mpfr_set_emax(oemax);
  mpfr_clears(a, b, r, (mpfr_ptr)0);
  return nx_dtype_store_bits(dt, d);
}

/* ulps of float32 or float64 between got and f1(x) (or f2(x, y)) computed
   at 200 bits; 1e9 for a wrong NaN, infinity or overflow. */
static inline double mp_ulp_error(nx_dtype dt, mp1_fn f1, mp2_fn f2, double x, double y, double got) {
  mpfr_t a, b, r, g;
  mpfr_inits2(200, a, b, r, g, (mpfr_ptr)0);
  mpfr_set_d(a, x, MPFR_RNDN);
  mpfr_set_d(b, y, MPFR_RNDN);
  if (f1) f1(r, a, MPFR_RNDN);
  else f2(r, a, b, MPFR_RNDN);
  double e;
  if (mpfr_nan_p(r)) e = isnan(got) ? 0 : 1e9;
  else if (mpfr_inf_p(r)) e = isinf(got) && (got > 0) == (mpfr_sgn(r) > 0) ? 0 : 1e9;
  else if (isinf(got) || isnan(got)) {
    /* an overflow to infinity is right where the exact value passes the
       largest finite one by half an ulp */
    e = 1e9;
    double m = dt == NX_FLOAT32 ? 0x1.fffffep127 : 0x1.fffffffffffffp1023;
    if (isinf(got) && mpfr_cmp_d(r, got > 0 ? m : -m) * (got > 0 ? 1 : -1) > 0) e = 0;
  } else {
    mpfr_set_d(g, got, MPFR_RNDN);
    mpfr_sub(g, g, r, MPFR_RNDN);
    mpfr_abs(g, g, MPFR_RNDN);
    int p = dt == NX_FLOAT32 ? 24 : 53, emin = dt == NX_FLOAT32 ? -126 : -1022;
    long ex = mpfr_zero_p(r) ? emin : mpfr_get_exp(r) - 1;
    if (ex < emin) ex = emin;
    mpfr_mul_2si(g, g, -(ex - p + 1), MPFR_RNDN);
    e = mpfr_get_d(g, MPFR_RNDU);
  }
  mpfr_clears(a, b, r, g, (mpfr_ptr)0);
  return e;
}

#endif
