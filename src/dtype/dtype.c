/* SPDX-License-Identifier: Apache-2.0 */
/* The Dtype API: facts, names, values, exactness and the bit-level entry
   points. The conversions themselves are nx_dtype.h's; this file adds what
   needs a host: names, errors and the typed values. */
#include <string.h>

#include "nx_dtype.h"
#include "../base/error.h"
#include "dtype_internal.h"
#include "store_table.h"

static const nx_dtype all[NX_DTYPE_COUNT] = {
#define NX__ALL(ID, name, bits, kind, eb, fb, inf, nan, sat) NX_##ID,
    NX_DTYPE_TABLE(NX__ALL)
#undef NX__ALL
};

static const char *const names[NX_DTYPE_COUNT] = {
#define NX__NAME(ID, name, bits, kind, eb, fb, inf, nan, sat) #name,
    NX_DTYPE_TABLE(NX__NAME)
#undef NX__NAME
};

bool nx__dtype_valid(const char *fn, nx_dtype dt) {
  if ((unsigned)dt < NX_DTYPE_COUNT) return true;
  nx__fail(NX_EINVAL, "%s: %d is not a dtype code (0 to %d)", fn, (int)dt, NX_DTYPE_COUNT - 1);
  return false;
}

const nx_dtype *nx_dtype_all(void) { return all; }

int nx_dtype_code(nx_dtype dt) { return nx__dtype_valid("nx_dtype_code", dt) ? (int)dt : -1; }

int nx_dtype_of_code(int c, nx_dtype *dt) {
  if (dt == NULL) return nx__fail(NX_EINVAL, "nx_dtype_of_code: the dtype out-parameter is NULL");
  if (c < 0 || c >= NX_DTYPE_COUNT) return NX_NONE;
  *dt = (nx_dtype)c;
  return 0;
}

int nx_dtype_bits(nx_dtype dt) { return nx__dtype_valid("nx_dtype_bits", dt) ? nx_dtype_bits_of(dt) : 0; }

int nx_dtype_bytes(nx_dtype dt, int64_t n, int64_t *b) {
  if (!nx__dtype_valid("nx_dtype_bytes", dt)) return NX_EINVAL;
  if (!b) return nx__fail(NX_EINVAL, "nx_dtype_bytes: the result b is NULL");
  int64_t bits = nx_dtype_bits_of(dt);
  if (n < 0) return nx__fail(NX_EINVAL, "nx_dtype_bytes: negative element count %lld of %s", (long long)n, names[dt]);
  /* The bits may pass an int64_t where the bytes do not: count in 128 bits. */
  unsigned __int128 bytes = ((unsigned __int128)n * (unsigned)bits + 7) / 8;
  if (bytes > INT64_MAX)
    return nx__fail(NX_EINVAL, "nx_dtype_bytes: %lld elements of %s take more bytes than an int64_t counts",
                    (long long)n, names[dt]);
  *b = (int64_t)bytes;
  return 0;
}

const char *nx_dtype_name(nx_dtype dt) { return nx__dtype_valid("nx_dtype_name", dt) ? names[dt] : NULL; }

int nx_dtype_of_name(const char *s, nx_dtype *dt) {
  if (dt == NULL) return nx__fail(NX_EINVAL, "nx_dtype_of_name: the dtype out-parameter is NULL");
  if (s == NULL) return NX_NONE;
  for (int c = 0; c < NX_DTYPE_COUNT; c++)
    if (strcmp(s, names[c]) == 0) {
      *dt = (nx_dtype)c;
      return 0;
    }
  return NX_NONE;
}

nx_kind nx_dtype_kind(nx_dtype dt) {
  return nx__dtype_valid("nx_dtype_kind", dt) ? (nx_kind)nx_dtype_kind_of(dt) : NX_KIND_FLOAT;
}

bool nx_dtype_is(nx_kind k, nx_dtype dt) { return nx__dtype_valid("nx_dtype_is", dt) && nx_dtype_kind_of(dt) == (int)k; }

bool nx_dtype_equal(nx_dtype a, nx_dtype b) {
  return nx__dtype_valid("nx_dtype_equal", a) && nx__dtype_valid("nx_dtype_equal", b) && a == b;
}

/* ---- Values ------------------------------------------------------------ */

static nx_value identity(nx_dtype dt, int one) {
  nx_value v;
  memset(&v, 0, sizeof v);
  switch (nx_dtype_kind_of(dt)) {
  case NX_KIND_FLOAT: v.f = one; break;
  case NX_KIND_COMPLEX: v.c.re = one; break;
  case NX_KIND_SIGNED: v.i = one; break;
  case NX_KIND_UNSIGNED: v.u = (uint64_t)one; break;
  case NX_KIND_BOOLEAN: v.b = one; break;
  }
  return v;
}

nx_value nx_dtype_zero(nx_dtype dt) { nx__dtype_valid("nx_dtype_zero", dt); return identity(dt, 0); }
nx_value nx_dtype_one(nx_dtype dt) { nx__dtype_valid("nx_dtype_one", dt); return identity(dt, 1); }

/* The greatest value of an integer format of `bits` bits, and the least. */
static uint64_t umax(int bits) { return bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1; }
static int64_t smax(int bits) { return (int64_t)(umax(bits) >> 1); }
static int64_t smin(int bits) { return -smax(bits) - 1; }

static int extreme(const char *fn, nx_dtype dt, nx_value *v, int sign) {
  if (!nx__dtype_valid(fn, dt)) return NX_EINVAL;
  if (!v) return nx__fail(NX_EINVAL, "%s: the result v is NULL", fn);
  int bits = nx_dtype_bits_of(dt);
  nx_value r;
  memset(&r, 0, sizeof r);
  switch (nx_dtype_kind_of(dt)) {
  case NX_KIND_COMPLEX:
    return nx__fail(NX_EINVAL, "%s: %s is complex and complex numbers are not ordered", fn, names[dt]);
  case NX_KIND_FLOAT: {
    int eb = nx_dtype_exponent_bits_of(dt), fb = nx_dtype_fraction_bits_of(dt);
    uint64_t m = nx_dtype_has_infinities(dt) ? (((uint64_t)1 << eb) - 1) << fb : nx_dtype_max_finite_bits_of(dt);
    r.f = nx_dtype_load_double(dt, m);
    if (sign < 0) r.f = -r.f;
    break;
  }
  case NX_KIND_SIGNED: r.i = sign < 0 ? smin(bits) : smax(bits); break;
  case NX_KIND_UNSIGNED: r.u = sign < 0 ? 0 : umax(bits); break;
  case NX_KIND_BOOLEAN: r.b = sign > 0; break;
  }
  *v = r;
  return 0;
}

int nx_dtype_min_value(nx_dtype dt, nx_value *v) { return extreme("nx_dtype_min_value", dt, v, -1); }
int nx_dtype_max_value(nx_dtype dt, nx_value *v) { return extreme("nx_dtype_max_value", dt, v, 1); }

bool nx_dtype_holds(nx_dtype dt, nx_value v) {
  if (!nx__dtype_valid("nx_dtype_holds", dt)) return false;
  int bits = nx_dtype_bits_of(dt);
  switch (nx_dtype_kind_of(dt)) {
  case NX_KIND_SIGNED: return v.i >= smin(bits) && v.i <= smax(bits);
  case NX_KIND_UNSIGNED: return v.u <= umax(bits);
  default: return true;
  }
}

nx_value nx_dtype_of_float(nx_dtype dt, double x) {
  nx_value v;
  memset(&v, 0, sizeof v);
  if (!nx__dtype_valid("nx_dtype_of_float", dt)) return v;
  uint64_t b = nx_dtype_store_double(dt, x);
  switch (nx_dtype_kind_of(dt)) {
  case NX_KIND_FLOAT: v.f = nx_dtype_load_double(dt, b); break;
  case NX_KIND_COMPLEX: v.c.re = nx_dtype_load_double(dt, b); break;
  case NX_KIND_SIGNED: v.i = (int64_t)nx__int_value(b, nx_dtype_bits_of(dt), 1); break;
  case NX_KIND_UNSIGNED: v.u = b; break;
  case NX_KIND_BOOLEAN: v.b = b != 0; break;
  }
  return v;
}

int nx_dtype_float_format(nx_dtype dt, nx_float_format *f) {
  if (!nx__dtype_valid("nx_dtype_float_format", dt)) return NX_EINVAL;
  if (!f) return nx__fail(NX_EINVAL, "nx_dtype_float_format: the result f is NULL");
  if (nx_dtype_kind_of(dt) != NX_KIND_FLOAT)
    return nx__fail(NX_EINVAL, "nx_dtype_float_format: %s is not a float format", names[dt]);
  int eb = nx_dtype_exponent_bits_of(dt), fb = nx_dtype_fraction_bits_of(dt), bias = (1 << (eb - 1)) - 1;
  f->exponent_bits = eb;
  f->fraction_bits = fb;
  f->infinities = nx_dtype_has_infinities(dt);
  f->nans = nx_dtype_has_nans(dt);
  /* Powers of two, built from their bits: no libm. */
  f->epsilon = nx__f64_of_bits((uint64_t)(1023 - fb) << 52);
  f->min_normal = nx__f64_of_bits((uint64_t)(1023 + 1 - bias) << 52);
  f->max_finite = nx_dtype_load_double(dt, nx_dtype_max_finite_bits_of(dt));
  return 0;
}

/* ---- Bit-level entry points -------------------------------------------- */

/* The store of each code in a function of its own (the code a constant, so
   the header's switch folds to that format's store), called through a table:
   one indirect jump where the switch over every format compiled to a chain
   of compares, and each store with registers of its own rather than one
   frame saved for the largest. The 8- and 4-bit formats' stores go by
   table (store_table.h). */
#define NX__STORE_FN(ID, name, bits, kind, eb, fb, inf, nan, sat)                                    \
  static uint64_t store_##ID(uint64_t u) {                                                         \
    return nx__store_tabled(NX_##ID) ? nx__store_tabled_f64bits(NX_##ID, u) : nx_dtype_store_f64bits(NX_##ID, u); \
  }
NX_DTYPE_TABLE(NX__STORE_FN)
#undef NX__STORE_FN
#define NX__STORE_ENTRY(ID, name, bits, kind, eb, fb, inf, nan, sat) [NX_##ID] = store_##ID,
static uint64_t (*const stores[NX_DTYPE_COUNT])(uint64_t) = {NX_DTYPE_TABLE(NX__STORE_ENTRY)};
#undef NX__STORE_ENTRY

uint64_t nx_dtype_store_bits(int code, double x) {
  if ((unsigned)code >= NX_DTYPE_COUNT) {
    nx__dtype_valid("nx_dtype_store_bits", (nx_dtype)code); /* says why */
    return 0;
  }
  return stores[code](nx__f64_bits(x));
}

double nx_dtype_load_bits(int code, uint64_t bits) {
  if (!nx__dtype_valid("nx_dtype_load_bits", (nx_dtype)code)) return 0;
  return nx_dtype_load_double(code, bits);
}
