/* SPDX-License-Identifier: Apache-2.0 */
/* Dtype.pp_value: the text of a value, the same on every system. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "dtype_internal.h"
#include "../base/alloc.h"
#include "decimal_text.h"
#include "shortest.h"

/* The float64 bits of 1e-4 and 1e16, where positional text starts and ends:
   a double is at least 10^-4 iff it is at least the double nearest 10^-4,
   which lies above 10^-4; 1e16 is exact. Magnitudes compare as bits do. */
#define POSITIONAL_MIN 0x3F1A36E2EB1C432Dull
#define POSITIONAL_END 0x4341C37937E08000ull

/* The integers' digits, from the last: eight at a time, then two at a
   time from the table of pairs. The divisions are by constants, which the
   compiler makes multiplications. */
static inline void write_digits(char *p, uint64_t d, int n) {
  char *e = p + n;
  while (d >= 100000000u) {
    uint64_t q = d / 100000000u;
    e -= 8;
    nx__put8(e, nx__ascii8((uint32_t)(d - 100000000u * q)));
    d = q;
  }
  uint32_t v = (uint32_t)d;
  while (v >= 100) {
    uint32_t q = v / 100;
    e -= 2;
    memcpy(e, nx__pairs + 2 * (v - 100 * q), 2);
    v = q;
  }
  if (v >= 10) memcpy(e - 2, nx__pairs + 2 * v, 2);
  else e[-1] = (char)('0' + v);
}

static int put_digits(char *p, uint64_t d) {
  int n = nx__ndigits(d);
  write_digits(p, d, n);
  return n;
}

/* The text of a finite or infinite value or NaN, given by its float64 bits u
   and its bits b as an element of the binary format of eb exponent and fb
   fraction bits, computed. Inlined where eb and fb are constants (float64,
   float32), so the decoding and the digit search fold to that format; `inl`
   says whether to inline the digit search too. */
static inline __attribute__((always_inline)) int float_text_of(uint64_t u, uint64_t b, char *buf, int eb, int fb,
                                                               bool inl) {
  uint64_t a = u & 0x7FFFFFFFFFFFFFFFull;
  if (a > 0x7FF0000000000000ull) { memcpy(buf, "nan", 4); return 3; }
  /* The sign without a branch: it is as likely either way in much data. */
  buf[0] = '-';
  int len = (int)(u >> 63);
  if (a == 0x7FF0000000000000ull) { memcpy(buf + len, "inf", 4); return len + 3; }
  if (a == 0) { buf[len++] = '0'; buf[len] = 0; return len; }
  /* c * 2^q in the format's own terms: its significand and exponent. */
  uint64_t bits = b & ~((uint64_t)1 << (eb + fb)); /* the magnitude's */
  int bias = (1 << (eb - 1)) - 1, e = (int)(bits >> fb);
  uint64_t f = bits & (((uint64_t)1 << fb) - 1);
  uint64_t c = e ? f | (uint64_t)1 << fb : f;
  int q = (e ? e : 1) - bias - fb;
  nx__decimal dec = inl ? shortest_unstripped(c, q, f == 0 && e > 1) : nx__shortest(c, q, f == 0 && e > 1);
  /* A format of up to 24 bits of precision has at most 9 digits: the split
     takes 32-bit arithmetic. Then the count without trailing zeros. */
  int n = nx__ndigits(dec.d), x = dec.e + n - 1;
  nx__digits17 s = fb <= 23 ? nx__split9((uint32_t)dec.d, n) : nx__split17(dec.d, n);
  n = nx__significant(s);
  if (a >= POSITIONAL_MIN && a < POSITIONAL_END) len += nx__put_positional(buf + len, s, n, x);
  else len += nx__put_scientific(buf + len, s, n, x);
  buf[len] = 0;
  return len;
}

/* The same for any float format `code`. */
static int format_float_direct(int code, uint64_t u, uint64_t b, char *buf) {
  return float_text_of(u, b, buf, nx_dtype_exponent_bits_of(code), nx_dtype_fraction_bits_of(code), false);
}

/* For the formats of 16 bits or fewer, the text of every code, made on first
   use: printing is then a lookup. Threads that race to make a table each make
   one and all but the first to publish it free theirs. Without memory, text
   is computed as for the wider formats. */
/* Every table text is shorter than COPY bytes, so copying COPY bytes, a size
   the compiler moves in a few registers, beats a memcpy of each length. */
#define COPY 24

/* Each code's text in a slot of SLOT bytes, its length in the slot's last
   byte: one aligned slot never spans two cache lines, so a lookup of a code
   out of cache misses once (offsets into a pool of texts missed twice). The
   few texts of SLOT bytes or more (bfloat16's largest integers, written out
   in full) lie in `rest`: their slot holds LONG in its last byte, the text's
   offset in its first four and its length in the fifth. */
#define SLOT 16
#define LONG 0xFF

typedef struct {
  char *slots; /* code b's slot is slots[b * SLOT .. (b + 1) * SLOT) */
  char *rest;
} text_table;

static _Atomic(text_table *) tables[NX_DTYPE_COUNT];

static void free_table(text_table *t) {
  if (t) { nx__free(t->slots); nx__free(t->rest); }
  nx__free(t);
}

static text_table *make_table(int code) {
  size_t n = (size_t)1 << nx_dtype_bits_of(code), used = 0, cap = 0;
  text_table *t = nx__calloc(1, sizeof *t);
  if (t) t->slots = nx__calloc(n, SLOT); /* malloc's alignment is a multiple of SLOT */
  if (!t || !t->slots) { free_table(t); return NULL; }
  for (size_t b = 0; b < n; b++) {
    char text[NX_DTYPE_PP_MAX], *slot = t->slots + b * SLOT;
    int len = format_float_direct(code, nx_dtype_load_f64bits(code, b), b, text);
    if (len < SLOT) {
      memcpy(slot, text, (size_t)len);
      slot[SLOT - 1] = (char)len;
      continue;
    }
    if (len >= COPY) { free_table(t); return NULL; } /* none is: the fixed-size copy needs it */
    if (used + COPY > cap) { /* room for this text and the copy past the last one */
      cap = 2 * cap + 64 * COPY;
      char *grown = nx__realloc(t->rest, cap);
      if (!grown) { free_table(t); return NULL; }
      t->rest = grown;
    }
    uint32_t at = (uint32_t)used;
    memcpy(t->rest + used, text, (size_t)len);
    used += (size_t)len;
    memcpy(slot, &at, 4);
    slot[4] = (char)len;
    slot[SLOT - 1] = (char)LONG;
  }
  if (t->rest) memset(t->rest + used, 0, cap - used);
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

/* Code b's text from table t into out (room for COPY bytes past it). */
static inline int table_text(const text_table *t, uint64_t b, char *out) {
  const char *slot = t->slots + b * SLOT;
  unsigned len = (unsigned char)slot[SLOT - 1];
  if (len != LONG) memcpy(out, slot, SLOT);
  else {
    uint32_t at;
    memcpy(&at, slot, 4);
    len = (unsigned char)slot[4];
    memcpy(out, t->rest + at, COPY);
  }
  out[len] = 0;
  return (int)len;
}

/* Whether the double of bits u is a value of the IEEE-style binary format
   of eb exponent and fb fraction bits with infinities and NaNs (float32,
   float16, bfloat16, float8_e5m2; a NaN counts as one), and if so its bits
   in the format in *b (a NaN's: the quiet NaN of u's sign): a normal value
   keeps only the top fb of the 52 fraction bits, a subnormal one fewer for
   each step its exponent lies below the least normal's. Integer tests,
   cheaper than a store and a load. */
static inline __attribute__((always_inline)) bool ieee_bits(uint64_t u, int eb, int fb, uint64_t *b) {
  int bias = (1 << (eb - 1)) - 1, tn = 52 - fb; /* tn: the fraction bits a normal value leaves zero */
  int64_t emin = 1024 - bias, emax = 1023 + bias; /* the least and greatest normal exponents, biased as float64's */
  uint64_t a = u & 0x7FFFFFFFFFFFFFFFull, sign = (u >> 63) << (eb + fb), f = a & 0xFFFFFFFFFFFFFull;
  int64_t e = (int64_t)(a >> 52);
  if (a == 0 || a >= 0x7FF0000000000000ull) { /* zeros, infinities, NaNs */
    uint64_t top = (((uint64_t)1 << eb) - 1) << fb, quiet = (uint64_t)1 << (fb - 1);
    *b = sign | (a == 0 ? 0 : a == 0x7FF0000000000000ull ? top : top | quiet);
    return true;
  }
  if (e < emin - fb || e > emax) return false; /* below the least subnormal, or past the range */
  int t = e >= emin ? tn : tn + (int)(emin - e); /* the fraction bits that must be zero */
  if (f & (((uint64_t)1 << t) - 1)) return false;
  *b = sign | (e >= emin ? (uint64_t)(e - emin + 1) << fb | f >> tn : (f | (uint64_t)1 << 52) >> t);
  return true;
}

/* Whether the double of bits u is a value of float format `code` (not
   float64 or float32), and if so its bits in *b. The IEEE-style small
   formats by their bits' tests; the others by their own store and load, each
   inlined with its constants, rather than the general ones' switches: u is a
   value iff the load gives it back (a NaN iff the format has NaNs). */
static inline __attribute__((always_inline)) bool format_bits(int code, uint64_t u, uint64_t *b) {
  uint64_t back;
  switch (code) {
  case NX_FLOAT16: return ieee_bits(u, 5, 10, b);
  case NX_BFLOAT16: return ieee_bits(u, 8, 7, b);
  case NX_FLOAT8_E5M2: return ieee_bits(u, 5, 2, b);
  case NX_FLOAT8_E4M3FN: *b = nx_store_float8_e4m3fn_f64(u); back = nx_load_float8_e4m3fn_f64((nx_u8)*b); break;
  case NX_FLOAT4_E2M1FN: *b = nx_store_float4_e2m1fn_f64(u); back = nx_load_float4_e2m1fn_f64((nx_u8)*b); break;
  default: *b = nx_dtype_store_f64bits(code, u); back = nx_dtype_load_f64bits(code, *b); break;
  }
  if ((u & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull) return nx_dtype_has_nans(code);
  return back == u;
}

/* The text of the float64 bits u as a value of float format `code` (or a
   complex one's component) into out, which has room for COPY bytes past any
   text (a complex text's second part starts at most 26 bytes into its
   NX_DTYPE_PP_MAX): its
   length, or -1 if u is not a value of the format. */
/* float64 and float32 each in a function of its own, so that the compiler
   gives their many temporaries registers of their own (inlined into
   float_text together, they spilled). Every double is a float64 value, and a
   float32 one is its own store's load. */
static __attribute__((noinline)) int float64_text(uint64_t u, char *out) {
  return float_text_of(u, u, out, 11, 52, true);
}

static __attribute__((noinline)) int float32_text(uint64_t u, char *out) {
  uint64_t b;
  if (!ieee_bits(u, 8, 23, &b)) return -1;
  return float_text_of(u, b, out, 8, 23, true);
}

static int float_text(int code, uint64_t u, char *out) {
  /* float64 and float32 first, without the switches by code. */
  if (code == NX_FLOAT64) return float64_text(u, out);
  if (code == NX_FLOAT32) return float32_text(u, out);
  uint64_t b;
  if (!format_bits(code, u, &b)) return -1;
  text_table *t = nx_dtype_bits_of(code) <= 16 ? table_of(code) : NULL;
  if (!t) return format_float_direct(code, u, b, out);
  return table_text(t, b, out);
}

int nx__format_float(int code, uint64_t u, char *buf) {
  int len = float_text(code, u, buf);
  return len >= 0 ? len : format_float_direct(code, u, nx_dtype_store_f64bits(code, u), buf);
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

/* The text of a NaN or an infinity, whatever the format (the seed prints
   "nan", "inf" and "-inf" for every float that is not finite, and refuses
   only a finite one the format lacks): its length, or -1 for a finite u. */
static int nonfinite_text(uint64_t u, char *out) {
  if ((u & 0x7FF0000000000000ull) != 0x7FF0000000000000ull) return -1;
  const char *t = (u & 0x000FFFFFFFFFFFFFull) ? "nan" : (u >> 63) ? "-inf" : "inf";
  size_t n = strlen(t);
  memcpy(out, t, n + 1);
  return (int)n;
}

/* float_text, a NaN or an infinity in a format without one included. */
static int any_float_text(int code, uint64_t u, char *out) {
  int len = float_text(code, u, out);
  return len >= 0 ? len : nonfinite_text(u, out);
}

static int not_a_value(const char *fn, double x, nx_dtype dt) {
  char t[NX_DTYPE_PP_MAX];
  return nx__fail(NX_EINVAL, "%s: %s is not a value of %s", fn, show(x, t), nx_dtype_name(dt));
}

/* nx_dtype_pp_value but for its common cases: out of line, so that the
   entry point's fast paths save no registers for it. */
static __attribute__((noinline)) int pp_value_general(nx_dtype dt, nx_value v, char *buf, size_t cap) {
  static const char fn[] = "nx_dtype_pp_value";
  char t[NX_DTYPE_PP_MAX];
  int len = 0;
  if (!nx__dtype_valid(fn, dt)) return NX_EINVAL;
  if (buf == NULL) return nx__fail(NX_EINVAL, "%s: the buffer is NULL", fn);
  /* Write in place where any text fits; else through t, to check the size. */
  char *out = cap >= NX_DTYPE_PP_MAX ? buf : t;
  switch (nx_dtype_kind_of(dt)) {
  case NX_KIND_FLOAT:
    if ((len = any_float_text(dt, nx__f64_bits(v.f), out)) < 0) return not_a_value(fn, v.f, dt);
    break;
  case NX_KIND_COMPLEX: {
    int cc = component(dt);
    uint64_t im = nx__f64_bits(v.c.im);
    if ((len = any_float_text(cc, nx__f64_bits(v.c.re), out)) < 0) return not_a_value(fn, v.c.re, dt);
    /* The sign goes between the parts: -0 too, so the text keeps its sign
       bit. A NaN is never negative and prints "nan" whatever its sign bit
       (the seed's re-imi is for a negative imaginary part), so re+nani. */
    bool nan = (im & 0x7FF0000000000000ull) == 0x7FF0000000000000ull && (im & 0x000FFFFFFFFFFFFFull);
    out[len++] = (im >> 63) && !nan ? '-' : '+';
    int n = any_float_text(cc, im & 0x7FFFFFFFFFFFFFFFull, out + len);
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

int nx_dtype_pp_value(nx_dtype dt, nx_value v, char *buf, size_t cap) {
  /* The common cases straight to the text: float64, and the formats of 16
     bits or fewer once their tables are made, with a buffer for any text.
     Anything else, errors included (a value not of the format), takes the
     general path. */
  if (buf != NULL && cap >= NX_DTYPE_PP_MAX) {
    uint64_t u = nx__f64_bits(v.f), b;
    if (dt == NX_FLOAT64) return float64_text(u, buf);
    if (dt >= NX_FLOAT16 && dt <= NX_FLOAT4_E2M1FN) {
      const text_table *t = atomic_load_explicit(&tables[dt], memory_order_acquire);
      if (t && format_bits(dt, u, &b)) return table_text(t, b, buf);
    }
  }
  return pp_value_general(dt, v, buf, cap);
}

/* x == y by their bits, either zero for both: a comparison of doubles would
   take a subnormal for 0 under denormals-are-zero. */
static bool same_number(double x, double y) {
  uint64_t a, b;
  memcpy(&a, &x, 8);
  memcpy(&b, &y, 8);
  return a == b || ((a | b) << 1) == 0;
}

/* nx_dtype_format_value but for its common case: out of line, so that the
   entry point's fast path saves no registers for it. */
static __attribute__((noinline)) int format_value_general(int code, double x, char *buf, size_t cap) {
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
    if (!same_number(nx_dtype_load_double(code, b), x) || x >= lim) { not_a_value(fn, x, dt); return -1; }
    if (nx_dtype_kind_of(code) == NX_KIND_SIGNED) v.i = nx__int_value(b, nx_dtype_bits_of(code), 1);
    else v.u = b;
    break;
  }
  case NX_KIND_BOOLEAN:
    if (!same_number(x, 0) && !same_number(x, 1)) { not_a_value(fn, x, dt); return -1; }
    v.b = same_number(x, 1);
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

int nx_dtype_format_value(int code, double x, char *buf, size_t cap) {
  /* The common case straight to the text, a tail call: a float64 value (any
     double is one) or a float32 one, and a buffer for any text. Anything
     else, errors included, takes the general path. */
  if (buf != NULL && cap >= NX_DTYPE_PP_MAX) {
    if (code == NX_FLOAT64) return float64_text(nx__f64_bits(x), buf);
    if (code == NX_FLOAT32) {
      int len = float32_text(nx__f64_bits(x), buf);
      if (len >= 0) return len;
    }
  }
  return format_value_general(code, x, buf, cap);
}
