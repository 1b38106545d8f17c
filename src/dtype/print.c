/* Dtype.pp_value: the text of a value, the same on every system. */
#include <string.h>

#include "../base/error.h"
#include "dtype_internal.h"

/* The float64 bits of 1e-4 and 1e16, where positional text starts and ends:
   a double is at least 10^-4 iff it is at least the double nearest 10^-4,
   which lies above 10^-4; 1e16 is exact. Magnitudes compare as bits do. */
#define POSITIONAL_MIN 0x3F1A36E2EB1C432Dull
#define POSITIONAL_END 0x4341C37937E08000ull

static int put_digits(char *p, uint64_t d) {
  char t[20];
  int n = 0;
  do { t[n++] = (char)('0' + d % 10); d /= 10; } while (d);
  for (int i = 0; i < n; i++) p[i] = t[n - 1 - i];
  return n;
}

/* d * 10^e, positional: d's digits with the point placed, zeros around. */
static int positional(char *p, uint64_t d, int e) {
  char dig[20];
  int n = put_digits(dig, d), x = e + n - 1, len = 0;
  if (e >= 0) {
    memcpy(p, dig, (size_t)n);
    len = n;
    for (int i = 0; i < e; i++) p[len++] = '0';
  } else if (x >= 0) {
    memcpy(p, dig, (size_t)(x + 1));
    len = x + 1;
    p[len++] = '.';
    memcpy(p + len, dig + x + 1, (size_t)(n - x - 1));
    len += n - x - 1;
  } else {
    p[len++] = '0';
    p[len++] = '.';
    for (int i = 0; i < -x - 1; i++) p[len++] = '0';
    memcpy(p + len, dig, (size_t)n);
    len += n;
  }
  return len;
}

/* d * 10^e as d.ddde+XX, at least two exponent digits. */
static int scientific(char *p, uint64_t d, int e) {
  char dig[20];
  int n = put_digits(dig, d), x = e + n - 1, len = 0;
  p[len++] = dig[0];
  if (n > 1) {
    p[len++] = '.';
    memcpy(p + len, dig + 1, (size_t)(n - 1));
    len += n - 1;
  }
  p[len++] = 'e';
  p[len++] = x < 0 ? '-' : '+';
  if (x < 0) x = -x;
  if (x < 10) p[len++] = '0';
  return len + put_digits(p + len, (uint64_t)x);
}

int nx__format_float(int code, uint64_t u, char *buf) {
  int len = 0, eb = nx_dtype_exponent_bits_of(code), fb = nx_dtype_fraction_bits_of(code);
  uint64_t a = u & 0x7FFFFFFFFFFFFFFFull;
  if (a > 0x7FF0000000000000ull) { memcpy(buf, "nan", 4); return 3; }
  if (u >> 63) buf[len++] = '-';
  if (a == 0x7FF0000000000000ull) { memcpy(buf + len, "inf", 4); return len + 3; }
  if (a == 0) { buf[len++] = '0'; buf[len] = 0; return len; }
  /* c * 2^q in the format's own terms: its significand and exponent. */
  uint64_t bits = nx_dtype_store_f64bits(code, a);
  int bias = (1 << (eb - 1)) - 1, e = (int)(bits >> fb);
  uint64_t f = bits & (((uint64_t)1 << fb) - 1);
  uint64_t c = e ? f | (uint64_t)1 << fb : f;
  int q = (e ? e : 1) - bias - fb;
  nx__decimal dec = nx__shortest(c, q, f == 0 && e > 1);
  if (a >= POSITIONAL_MIN && a < POSITIONAL_END) len += positional(buf + len, dec.d, dec.e);
  else len += scientific(buf + len, dec.d, dec.e);
  buf[len] = 0;
  return len;
}

/* The component format of a complex dtype, else dt itself. */
static int component(nx_dtype dt) {
  return dt == NX_COMPLEX128 ? NX_FLOAT64 : dt == NX_COMPLEX64 ? NX_FLOAT32 : (int)dt;
}

/* Whether the double x is a value of float format `code`: a store of it gives
   it back, bit for bit, or it is a NaN of a format with NaNs. */
static bool is_float_value(int code, double x) {
  uint64_t u = nx__f64_bits(x);
  if ((u & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull) return nx_dtype_has_nans(code);
  return nx_dtype_load_f64bits(code, nx_dtype_store_f64bits(code, u)) == u;
}

static int put_int(char *p, int64_t i) {
  int len = 0;
  uint64_t m = (uint64_t)i;
  if (i < 0) { p[len++] = '-'; m = (uint64_t)0 - m; }
  len += put_digits(p + len, m);
  p[len] = 0;
  return len;
}

/* A float64 as nx prints it, for messages. */
static const char *show(double x, char *t) {
  nx__format_float(NX_FLOAT64, nx__f64_bits(x), t);
  return t;
}

static int not_a_value(const char *fn, double x, nx_dtype dt) {
  char t[NX_DTYPE_PP_MAX];
  return nx__fail(NX_EINVAL, "%s: %s is not a value of %s", fn, show(x, t), nx_dtype_name(dt));
}

int nx_dtype_pp_value(nx_dtype dt, nx_value v, char *buf, size_t cap) {
  static const char fn[] = "nx_dtype_pp_value";
  char t[NX_DTYPE_PP_MAX];
  int len = 0;
  if (!nx__dtype_valid(fn, dt)) return NX_EINVAL;
  if (buf == NULL) return nx__fail(NX_EINVAL, "%s: the buffer is NULL", fn);
  int bits = nx_dtype_bits_of(dt);
  switch (nx_dtype_kind_of(dt)) {
  case NX_KIND_FLOAT:
    if (!is_float_value(dt, v.f)) return not_a_value(fn, v.f, dt);
    len = nx__format_float(dt, nx__f64_bits(v.f), t);
    break;
  case NX_KIND_COMPLEX: {
    int cc = component(dt);
    if (!is_float_value(cc, v.c.re)) return not_a_value(fn, v.c.re, dt);
    if (!is_float_value(cc, v.c.im)) return not_a_value(fn, v.c.im, dt);
    uint64_t im = nx__f64_bits(v.c.im);
    len = nx__format_float(cc, nx__f64_bits(v.c.re), t);
    /* The sign goes between the parts: -0 and negative NaNs too, so the text
       keeps the imaginary part's sign bit. */
    t[len++] = (im >> 63) ? '-' : '+';
    len += nx__format_float(cc, im & 0x7FFFFFFFFFFFFFFFull, t + len);
    t[len++] = 'i';
    t[len] = 0;
    break;
  }
  case NX_KIND_SIGNED:
    if (!nx_dtype_holds(dt, v))
      return nx__fail(NX_EINVAL, "%s: %lld is not a value of %s", fn, (long long)v.i, nx_dtype_name(dt));
    len = put_int(t, v.i);
    break;
  case NX_KIND_UNSIGNED:
    if (!nx_dtype_holds(dt, v))
      return nx__fail(NX_EINVAL, "%s: %llu is not a value of %s", fn, (unsigned long long)v.u, nx_dtype_name(dt));
    len = put_digits(t, v.u);
    t[len] = 0;
    break;
  case NX_KIND_BOOLEAN:
    len = v.b ? 4 : 5;
    memcpy(t, v.b ? "true" : "false", (size_t)len + 1);
    break;
  }
  (void)bits;
  if ((size_t)len >= cap)
    return nx__fail(NX_EINVAL, "%s: the text of a %s value takes %d bytes with its NUL and the buffer holds %zu", fn,
                    nx_dtype_name(dt), len + 1, cap);
  memcpy(buf, t, (size_t)len + 1);
  return len;
}

int nx_dtype_format_value(int code, double x, char *buf, size_t cap) {
  static const char fn[] = "nx_dtype_format_value";
  nx_value v;
  memset(&v, 0, sizeof v);
  if (!nx__dtype_valid(fn, (nx_dtype)code)) return -1;
  nx_dtype dt = (nx_dtype)code;
  switch (nx_dtype_kind_of(code)) {
  case NX_KIND_FLOAT: v.f = x; break;
  case NX_KIND_COMPLEX: v.c.re = x; break;
  case NX_KIND_SIGNED:
  case NX_KIND_UNSIGNED: {
    /* An integer value: a store gives it back, and it is below 2^63 or 2^64,
       where the saturated greatest value would round back to x. */
    uint64_t b = nx_dtype_store_double(code, x);
    double lim = nx_dtype_kind_of(code) == NX_KIND_SIGNED ? 9223372036854775808.0 : 18446744073709551616.0;
    if (nx_dtype_load_double(code, b) != x || x >= lim) { not_a_value(fn, x, dt); return -1; }
    if (nx_dtype_kind_of(code) == NX_KIND_SIGNED) v.i = nx__int_value(b, nx_dtype_bits_of(code), 1);
    else v.u = b;
    break;
  }
  case NX_KIND_BOOLEAN:
    if (x != 0 && x != 1) { not_a_value(fn, x, dt); return -1; }
    v.b = x == 1;
    break;
  }
  int r = nx_dtype_pp_value(dt, v, buf, cap);
  if (r < 0) {
    /* Name this function, not the one it called. */
    char m[1024];
    strncpy(m, nx_error_message(), sizeof m - 1);
    m[sizeof m - 1] = 0;
    nx__fail(NX_EINVAL, "%s%s", fn, m + strlen("nx_dtype_pp_value"));
    return -1;
  }
  return r;
}
