/* SPDX-License-Identifier: Apache-2.0 */
/* Dtype.pp_value: the text of a value, the same on every system. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "dtype_internal.h"
#include "../base/alloc.h"

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

/* The text of a finite or infinite value or NaN, computed. */
static int format_float_direct(int code, uint64_t u, char *buf) {
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

/* For the formats of 16 bits or fewer, the text of every code, made on first
   use: printing is then a lookup. Threads that race to make a table each make
   one and all but the first to publish it free theirs. Without memory, text
   is computed as for the wider formats. */
/* Every table text is shorter than COPY bytes, so copying COPY bytes, a size
   the compiler moves in a few registers, beats a memcpy of each length. */
#define COPY 24

typedef struct {
  uint32_t *start; /* code b's text is pool[start[b] .. start[b + 1]) */
  char *pool;
} text_table;

static _Atomic(text_table *) tables[NX_DTYPE_COUNT];

static void free_table(text_table *t) {
  if (t) { nx__free(t->start); nx__free(t->pool); }
  nx__free(t);
}

static text_table *make_table(int code) {
  size_t n = (size_t)1 << nx_dtype_bits_of(code), used = 0;
  text_table *t = nx__calloc(1, sizeof *t);
  if (t) t->start = nx__malloc((n + 1) * sizeof *t->start);
  if (t && t->start) t->pool = nx__malloc(n * NX_DTYPE_PP_MAX + COPY);
  if (!t || !t->start || !t->pool) { free_table(t); return NULL; }
  for (size_t b = 0; b < n; b++) {
    t->start[b] = (uint32_t)used;
    used += (size_t)format_float_direct(code, nx_dtype_load_f64bits(code, b), t->pool + used);
  }
  t->start[n] = (uint32_t)used;
  /* Room past the last text for the fixed-size copy of float_text. */
  memset(t->pool + used, 0, COPY);
  char *shrunk = nx__realloc(t->pool, used + COPY);
  if (shrunk) t->pool = shrunk;
  return t;
}

static text_table *table_of(int code) {
  if ((unsigned)code >= NX_DTYPE_COUNT) return NULL;
  text_table *t = atomic_load_explicit(&tables[code], memory_order_acquire), *none = NULL;
  if (t || !(t = make_table(code))) return t;
  if (!atomic_compare_exchange_strong_explicit(&tables[code], &none, t, memory_order_acq_rel, memory_order_acquire)) {
    free_table(t);
    t = none;
  }
  return t;
}

/* The text of the float64 bits u as a value of float format `code` (or a
   complex one's component) into out, which has room for COPY bytes past any
   text (a complex text's second part starts at most 26 bytes into its
   NX_DTYPE_PP_MAX): its
   length, or -1 if u is not a value of the format. */
static int float_text(int code, uint64_t u, char *out) {
  uint64_t b = nx_dtype_store_f64bits(code, u);
  if ((u & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull) {
    if (!nx_dtype_has_nans(code)) return -1;
  } else if (nx_dtype_load_f64bits(code, b) != u) return -1;
  text_table *t = nx_dtype_bits_of(code) <= 16 ? table_of(code) : NULL;
  if (!t) return format_float_direct(code, u, out);
  uint32_t len = t->start[b + 1] - t->start[b];
  memcpy(out, t->pool + t->start[b], COPY);
  out[len] = 0;
  return (int)len;
}

int nx__format_float(int code, uint64_t u, char *buf) {
  int len = float_text(code, u, buf);
  return len >= 0 ? len : format_float_direct(code, u, buf);
}

/* The component format of a complex dtype, else dt itself. */
static int component(nx_dtype dt) {
  return dt == NX_COMPLEX128 ? NX_FLOAT64 : dt == NX_COMPLEX64 ? NX_FLOAT32 : (int)dt;
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
  /* Write in place where any text fits; else through t, to check the size. */
  char *out = cap >= NX_DTYPE_PP_MAX ? buf : t;
  switch (nx_dtype_kind_of(dt)) {
  case NX_KIND_FLOAT:
    if ((len = float_text(dt, nx__f64_bits(v.f), out)) < 0) return not_a_value(fn, v.f, dt);
    break;
  case NX_KIND_COMPLEX: {
    int cc = component(dt);
    uint64_t im = nx__f64_bits(v.c.im);
    if ((len = float_text(cc, nx__f64_bits(v.c.re), out)) < 0) return not_a_value(fn, v.c.re, dt);
    /* The sign goes between the parts: -0 and negative NaNs too, so the text
       keeps the imaginary part's sign bit. */
    out[len++] = (im >> 63) ? '-' : '+';
    int n = float_text(cc, im & 0x7FFFFFFFFFFFFFFFull, out + len);
    if (n < 0) return not_a_value(fn, v.c.im, dt);
    len += n;
    out[len++] = 'i';
    out[len] = 0;
    break;
  }
  case NX_KIND_SIGNED:
    if (!nx_dtype_holds(dt, v))
      return nx__fail(NX_EINVAL, "%s: %lld is not a value of %s", fn, (long long)v.i, nx_dtype_name(dt));
    len = put_int(out, v.i);
    break;
  case NX_KIND_UNSIGNED:
    if (!nx_dtype_holds(dt, v))
      return nx__fail(NX_EINVAL, "%s: %llu is not a value of %s", fn, (unsigned long long)v.u, nx_dtype_name(dt));
    len = put_digits(out, v.u);
    out[len] = 0;
    break;
  case NX_KIND_BOOLEAN:
    len = v.b ? 4 : 5;
    memcpy(out, v.b ? "true" : "false", (size_t)len + 1);
    break;
  }
  if (out == t) {
    if ((size_t)len >= cap)
      return nx__fail(NX_EINVAL, "%s: the text of a %s value takes %d bytes with its NUL and the buffer holds %zu",
                      fn, nx_dtype_name(dt), len + 1, cap);
    memcpy(buf, t, (size_t)len + 1);
  }
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
