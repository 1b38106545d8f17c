/* Transcendentals and sqrt against MPFR: every input of float16, bfloat16,
   float8_e4m3fn, float8_e5m2 and float4_e2m1fn correctly rounded (MPFR at
   the format's precision and exponent range, subnormalized); float32 and
   float64 within 1 ulp on random samples. Under sanitizers (NX_SAMPLED) a
   sixteenth of the 16-bit inputs and fewer samples. */
#include <mpfr.h>

#include "kernels_common.h"

typedef int (*un_fn)(nx_array *, nx_array *);
typedef int (*mp_fn)(mpfr_t, const mpfr_t, mpfr_rnd_t);

static const struct {
  const char *name;
  un_fn fn;
  mp_fn mp;
} ops[] = {{"sqrt", nx_sqrt, mpfr_sqrt}, {"exp", nx_exp, mpfr_exp},   {"log", nx_log, mpfr_log},
           {"sin", nx_sin, mpfr_sin},    {"cos", nx_cos, mpfr_cos},   {"tan", nx_tan, mpfr_tan},
           {"asin", nx_asin, mpfr_asin}, {"acos", nx_acos, mpfr_acos}, {"atan", nx_atan, mpfr_atan},
           {"sinh", nx_sinh, mpfr_sinh}, {"cosh", nx_cosh, mpfr_cosh}, {"tanh", nx_tanh, mpfr_tanh},
           {"erf", nx_erf, mpfr_erf}};
#define NOPS (int)(sizeof ops / sizeof *ops)

/* The correctly rounded result of op(x) in float format dt, as bits. */
static uint64_t oracle(int op, nx_dtype dt, double x) {
  nx_float_format f;
  nx_dtype_float_format(dt, &f);
  int bias = (1 << (f.exponent_bits - 1)) - 1;
  int emax = (int)ilogb(f.max_finite) + 1, emin = 2 - bias - f.fraction_bits;
  mpfr_exp_t oemin = mpfr_get_emin(), oemax = mpfr_get_emax();
  mpfr_t a, r;
  mpfr_init2(a, 53);
  mpfr_init2(r, f.fraction_bits + 1);
  mpfr_set_d(a, x, MPFR_RNDN);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  int inex = ops[op].mp(r, a, MPFR_RNDN);
  inex = mpfr_check_range(r, inex, MPFR_RNDN);
  mpfr_subnormalize(r, inex, MPFR_RNDN);
  double d = mpfr_get_d(r, MPFR_RNDN);
  mpfr_set_emin(oemin);
  mpfr_set_emax(oemax);
  mpfr_clears(a, r, (mpfr_ptr)0);
  return nx_dtype_store_bits(dt, d);
}

static void exhaustive(nx_dtype dt, int step) {
  int bits = nx_dtype_bits(dt);
  int64_t n = ((int64_t)1 << bits) / step;
  nx_array *x, *z;
  int64_t shape[1] = {n};
  nx_array_host(dt, shape, 1, &x);
  nx_array_host(dt, shape, 1, &z);
  nx_buffer_wait(nx_array_buffer(x), NX_ACCESS_READ_WRITE); /* the zeroing of a sub-byte array's last byte */
  uint8_t *px = nx_buffer_host_address(nx_array_buffer(x));
  for (int64_t i = 0; i < n; i++) {
    uint64_t b = (uint64_t)(i * step);
    if (bits == 16) memcpy(px + 2 * i, &b, 2);
    else if (bits == 8) px[i] = (uint8_t)b;
    else nx_subbyte_put(px, i, 4, (uint8_t)b);
  }
  uint8_t *pz = nx_buffer_host_address(nx_array_buffer(z));
  for (int op = 0; op < NOPS; op++) {
    CHECK(ops[op].fn(z, x) == 0, "%s of %s: %s", ops[op].name, nx_dtype_name(dt), nx_error_message());
    long bad = 0;
    for (int64_t i = 0; i < n; i++) {
      uint64_t b = (uint64_t)(i * step), got = 0;
      if (bits == 16) memcpy(&got, pz + 2 * i, 2);
      else if (bits == 8) got = pz[i];
      else got = nx_subbyte_get(pz, i, 4);
      double xv = nx_dtype_load_bits(dt, b);
      uint64_t want = oracle(op, dt, xv);
      bool nan = isnan(nx_dtype_load_bits(dt, want));
      if (got != want && !(nan && isnan(nx_dtype_load_bits(dt, got))) && bad++ < 3)
        CHECK(0, "%s of %s %llx (%g): %llx, want %llx", ops[op].name, nx_dtype_name(dt), (unsigned long long)b, xv,
              (unsigned long long)got, (unsigned long long)want);
    }
    CHECK(bad == 0, "%s of %s: %ld not correctly rounded", ops[op].name, nx_dtype_name(dt), bad);
  }
  nx_array_free(x);
  nx_array_free(z);
}

/* ulps between got and the MPFR value at 200 bits. */
static double ulp_error(int op, nx_dtype dt, double x, double got) {
  mpfr_t a, r, g;
  mpfr_inits2(200, a, r, g, (mpfr_ptr)0);
  mpfr_set_d(a, x, MPFR_RNDN);
  ops[op].mp(r, a, MPFR_RNDN);
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
  mpfr_clears(a, r, g, (mpfr_ptr)0);
  return e;
}

static void sampled(nx_dtype dt, int64_t n, uint64_t *seed) {
  nx_array *x, *z;
  int64_t shape[1] = {n};
  nx_array_host(dt, shape, 1, &x);
  nx_array_host(dt, shape, 1, &z);
  char *px = nx_buffer_host_address(nx_array_buffer(x)), *pz = nx_buffer_host_address(nx_array_buffer(z));
  for (int op = 0; op < NOPS; op++) {
    for (int64_t i = 0; i < n; i++) {
      uint64_t r = splitmix64_next(seed);
      /* half over all bits, half over a range around the function's domain */
      double v = (i & 1) ? dbl_of(r) : ldexp((double)(int64_t)(r >> 11) / 0x1p52, (int)(r % 12) - 6) * 2;
      if (dt == NX_FLOAT32) {
        float f = (i & 1) ? flt_of((uint32_t)r) : (float)v;
        memcpy(px + 4 * i, &f, 4);
      } else memcpy(px + 8 * i, &v, 8);
    }
    CHECK(ops[op].fn(z, x) == 0, "%s: %s", ops[op].name, nx_error_message());
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
      double xv, got;
      if (dt == NX_FLOAT32) {
        float a, b;
        memcpy(&a, px + 4 * i, 4);
        memcpy(&b, pz + 4 * i, 4);
        xv = a;
        got = b;
      } else {
        memcpy(&xv, px + 8 * i, 8);
        memcpy(&got, pz + 8 * i, 8);
      }
      double e = ulp_error(op, dt, xv, got);
      if (e > worst) worst = e;
      if (e > 1 && worst == e) CHECK(0, "%s of %s %a: %a, %g ulp", ops[op].name, nx_dtype_name(dt), xv, got, e);
    }
    printf("%s %s: max %.3f ulp over %lld samples\n", ops[op].name, nx_dtype_name(dt), worst, (long long)n);
  }
  nx_array_free(x);
  nx_array_free(z);
}

int main(void) {
#if defined(NX_SAMPLED)
  int step = 16;
  int64_t n = 20000;
#else
  int step = 1;
  int64_t n = 80000; /* 13 functions: over 10^6 samples per format */
#endif
  nx_dtype small[5] = {NX_FLOAT16, NX_BFLOAT16, NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2, NX_FLOAT4_E2M1FN};
  for (int i = 0; i < 5; i++) exhaustive(small[i], nx_dtype_bits(small[i]) == 16 ? step : 1);
  uint64_t seed = 7;
  sampled(NX_FLOAT32, n, &seed);
  sampled(NX_FLOAT64, n, &seed);
  return check_done();
}
