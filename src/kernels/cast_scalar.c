/* The exact element path of cast: every source element becomes its exact
   value (float64 bits for every float format and complex component, a 64-bit
   integer for the integer formats and booleans), which one store, by
   nx_dtype.h's rule, puts into the destination format. */
#include <string.h>

#include "cast.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "cast reads elements little-endian with host loads"
#endif

/* The exact value of one element. */
enum { V_FLOAT, V_INT, V_UINT };
typedef struct value {
  nx_u64 re, im; /* V_FLOAT: float64 bits (im +0 for a real); V_INT: an int64's bits; V_UINT: a uint64 */
  int cls;
} value;

/* The raw bits of the element at position p of a `bits`-wide format; a
   128-bit element's high half in *hi. */
static inline nx_u64 get_raw(const nx_u8 *b, int64_t p, int bits, nx_u64 *hi) {
  nx_u64 lo = 0;
  switch (bits) {
  case 1: case 4: return nx_subbyte_get(b, p, bits);
  case 8: return b[p];
  case 16: { nx_u16 x; memcpy(&x, b + p * 2, 2); return x; }
  case 32: { nx_u32 x; memcpy(&x, b + p * 4, 4); return x; }
  case 64: memcpy(&lo, b + p * 8, 8); return lo;
  default: memcpy(&lo, b + p * 16, 8); memcpy(hi, b + p * 16 + 8, 8); return lo;
  }
}

static inline void put_raw(nx_u8 *b, int64_t p, int bits, nx_u64 lo, nx_u64 hi) {
  switch (bits) {
  case 1: case 4: nx_subbyte_put(b, p, bits, (nx_u8)lo); return;
  case 8: b[p] = (nx_u8)lo; return;
  case 16: { nx_u16 x = (nx_u16)lo; memcpy(b + p * 2, &x, 2); return; }
  case 32: { nx_u32 x = (nx_u32)lo; memcpy(b + p * 4, &x, 4); return; }
  case 64: memcpy(b + p * 8, &lo, 8); return;
  default: memcpy(b + p * 16, &lo, 8); memcpy(b + p * 16 + 8, &hi, 8); return;
  }
}

static inline value load(int from, nx_u64 lo, nx_u64 hi) {
  value v = {0, 0, V_FLOAT};
  switch (from) {
  case NX_COMPLEX128: v.re = lo; v.im = hi; return v;
  case NX_COMPLEX64: v.re = nx_load_float32_f64((nx_u32)lo); v.im = nx_load_float32_f64((nx_u32)(lo >> 32)); return v;
  case NX_UINT64: v.re = lo; v.cls = V_UINT; return v;
  case NX_BOOL: v.re = (lo & 0xFF) != 0; v.cls = V_INT; return v;
  case NX_BIT: v.re = lo & 1; v.cls = V_INT; return v;
  }
  switch (nx_dtype_kind_of(from)) {
  case NX_KIND_FLOAT: v.re = nx_dtype_load_f64bits(from, lo); return v;
  case NX_KIND_SIGNED: v.re = (nx_u64)nx__int_value(lo, nx_dtype_bits_of(from), 1); v.cls = V_INT; return v;
  default: v.re = nx__int_value(lo, nx_dtype_bits_of(from), 0); v.cls = V_UINT; return v;
  }
}

/* The float64 bits of magnitude m, sign s, rounded to odd at 53 bits: exact
   below 2^53; above, the truncation with its last bit set when bits were
   dropped. A value rounded to odd with at least two bits more than a format's
   precision rounds to nearest into that format exactly as the integer itself
   would (round-to-odd double rounding is innocuous), so every format
   narrower than float64 gets one rounding from it. */
static inline nx_u64 f64bits_odd(nx_u64 m, nx_u64 s) {
  if (m >> 53) {
    int sh = 11 - __builtin_clzll(m); /* bits below the top 53 */
    nx_u64 q = (m >> sh) | ((m & (((nx_u64)1 << sh) - 1)) != 0);
    m = q << sh;
  }
  return nx__f64bits_of_u64(m, s);
}

/* Float format (or complex component) `c` from value v's real part. */
static inline nx_u64 store_float(int c, const value *v) {
  nx_u64 m = v->re, s = 0;
  if (v->cls == V_FLOAT) return nx_dtype_store_f64bits(c, v->re);
  if (v->cls == V_INT && (nx_i64)m < 0) { m = (nx_u64)0 - m; s = 1; }
  if (c == NX_FLOAT64) return nx__f64bits_of_u64(m, s); /* rounds once, to nearest */
  return nx_dtype_store_f64bits(c, f64bits_odd(m, s));
}

/* An integer format of `bits`, signed or not, from an integer value: saturate. */
static inline nx_u64 store_int(int bits, int is_signed, const value *v) {
  nx_u64 mask = bits == 64 ? ~(nx_u64)0 : ((nx_u64)1 << bits) - 1;
  nx_u64 umax = is_signed ? mask >> 1 : mask; /* the greatest value */
  if (v->cls == V_INT && (nx_i64)v->re < 0) {
    if (!is_signed) return 0;
    nx_i64 lo = -(nx_i64)(umax)-1;
    return ((nx_i64)v->re < lo ? (nx_u64)lo : v->re) & mask;
  }
  return v->re > umax ? umax : v->re;
}

static inline void store(int to, const value *v, nx_u64 *lo, nx_u64 *hi) {
  nx_u64 abs = 0x7FFFFFFFFFFFFFFFull;
  *hi = 0;
  switch (to) {
  case NX_COMPLEX128: case NX_COMPLEX64: {
    int c = to == NX_COMPLEX128 ? NX_FLOAT64 : NX_FLOAT32;
    nx_u64 re = store_float(c, v), im = v->cls == V_FLOAT ? nx_dtype_store_f64bits(c, v->im) : 0;
    if (to == NX_COMPLEX128) { *lo = re; *hi = im; }
    else *lo = re | im << 32;
    return;
  }
  case NX_BOOL: case NX_BIT:
    /* A complex number is true when either part is nonzero, as numpy has it. */
    *lo = v->cls == V_FLOAT ? ((v->re & abs) | (v->im & abs)) != 0 : v->re != 0;
    return;
  }
  switch (nx_dtype_kind_of(to)) {
  case NX_KIND_FLOAT: *lo = store_float(to, v); return;
  case NX_KIND_SIGNED: case NX_KIND_UNSIGNED: {
    int bits = nx_dtype_bits_of(to), sg = nx_dtype_kind_of(to) == NX_KIND_SIGNED;
    *lo = v->cls == V_FLOAT ? nx__store_int(v->re, bits, sg) : store_int(bits, sg, v);
    return;
  }
  }
}

void nx__cast_run_scalar(nx_dtype to, void *dst, int64_t dp, int64_t ds,
                         nx_dtype from, const void *src, int64_t sp, int64_t ss, int64_t n) {
  int fb = nx_dtype_bits_of(from), tb = nx_dtype_bits_of(to);
  const nx_u8 *s = (const nx_u8 *)src;
  nx_u8 *d = (nx_u8 *)dst;
  for (int64_t i = 0; i < n; i++) {
    nx_u64 hi = 0, lo = get_raw(s, sp + i * ss, fb, &hi);
    value v = load(from, lo, hi);
    store(to, &v, &lo, &hi);
    put_raw(d, dp + i * ds, tb, lo, hi);
  }
}
