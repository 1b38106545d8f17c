/* SPDX-License-Identifier: Apache-2.0 */
/* nx_dtype.h as C++11: the portable part compiled by a C++ compiler gives the
   bits the C library (libnx, compiled as C) gives, and the host API links
   from C++ (extern "C").

   For every dtype, a few thousand float64 inputs (special values, then a
   fixed-seed mix of random bit patterns, magnitudes near the formats' ranges
   and values with short significands, which hit ties) are stored through the
   header's nx_dtype_store_f64bits, nx_dtype_store_double and per-format
   functions and compared with the library's nx_dtype_store_bits; element bit
   patterns (every code of a format of up to 16 bits, random ones beyond) are
   loaded through nx_dtype_load_f64bits, nx_dtype_load_double and the
   per-format loads and compared with nx_dtype_load_bits. The float32 stores
   and loads are compared with the library's through the exact float32 to
   float64 load. The facts agree with the API's, and nx_subbyte_get/put with
   a reference on plain bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "nx_dtype.h"

namespace {

uint64_t rng_state = 0x6E785F6378783131ull; /* fixed seed */

/* splitmix64 */
uint64_t next_random() {
  return splitmix64_next(&rng_state);
}

double f64_of_bits(uint64_t u) {
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

uint64_t bits_of_f64(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

const uint64_t specials[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
    0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF0000000000001ull, 0x7FF4000000000000ull,
    0xFFF0000000000001ull, 0x7FFFFFFFFFFFFFFFull, 0x0000000000000001ull, 0x800FFFFFFFFFFFFFull,
    0x0010000000000000ull, 0x7FEFFFFFFFFFFFFFull, 0x3FF0000000000000ull, 0xBFF0000000000000ull,
    0x3FE0000000000000ull, 0x3FF8000000000000ull, 0x4004000000000000ull, 0xBFE0000000000000ull,
    0x40EFFC0000000000ull, /* 65504 */
    0x40EFFE0000000000ull, /* 65520: float16's overflow tie */
    0x407C000000000000ull, /* 448 */
    0x407D000000000000ull, /* 464 */
    0x407E000000000000ull, /* 480 */
    0x4018000000000000ull, /* 6 */
    0x401C000000000000ull, /* 7 */
    0x43E0000000000000ull, /* 2^63 */
    0xC3E0000000000000ull, /* -2^63 */
    0x43F0000000000000ull, /* 2^64 */
    0x43DFFFFFFFFFFFFFull, 0x43EFFFFFFFFFFFFFull, 0xC3E0000000000001ull,
    0x41DFFFFFFFC00000ull, /* 2^31 - 1 */
    0x41E0000000000000ull, /* 2^31 */
    0x3E70000000000000ull, /* 2^-24: float16's least subnormal */
    0x3E60000000000000ull, /* 2^-25: half of it, a tie to 0 */
    0x3E60000000000001ull, 0x36A0000000000000ull, /* 2^-149 */
    0x3690000000000000ull,
};

/* A float64 input, class by class. */
uint64_t random_f64(int i) {
  uint64_t r = next_random(), sign = r & 0x8000000000000000ull;
  uint64_t e = 1023 - 152 + (next_random() % 225); /* 2^-152 .. 2^72 */
  switch (i % 4) {
  case 0: return r; /* any bits: NaNs, huge and tiny magnitudes */
  case 1: return sign | (e << 52) | (next_random() & 0xFFFFFFFFFFFFFull);
  case 2: { /* a short significand: exact values and ties */
    int k = 1 + (int)(next_random() % 12);
    return sign | (e << 52) | ((next_random() & 0xFFFFFFFFFFFFFull) >> (52 - k) << (52 - k));
  }
  default: /* integers near a power of two, and NaN payloads */
    if (r & 1) return sign | 0x7FF0000000000000ull | (next_random() & 0xFFFFFFFFFFFFFull) | 1;
    return sign | ((1023 + next_random() % 66) << 52) | (next_random() & 0xFFFFFFFFFFFFFull);
  }
}

/* The per-format functions, by code, for the float formats narrower than
   float32: the direct float32 store and the exact float32 load. */
uint64_t store_f32(int code, uint32_t u) {
  switch (code) {
  case NX_FLOAT16: return nx_store_float16_f32(u);
  case NX_BFLOAT16: return nx_store_bfloat16_f32(u);
  case NX_FLOAT8_E4M3FN: return nx_store_float8_e4m3fn_f32(u);
  case NX_FLOAT8_E5M2: return nx_store_float8_e5m2_f32(u);
  case NX_FLOAT4_E2M1FN: return nx_store_float4_e2m1fn_f32(u);
  }
  return 0;
}

uint32_t load_f32(int code, uint64_t b) {
  switch (code) {
  case NX_FLOAT16: return nx_load_float16_f32((nx_u16)b);
  case NX_BFLOAT16: return nx_load_bfloat16_f32((nx_u16)b);
  case NX_FLOAT8_E4M3FN: return nx_load_float8_e4m3fn_f32((nx_u8)b);
  case NX_FLOAT8_E5M2: return nx_load_float8_e5m2_f32((nx_u8)b);
  case NX_FLOAT4_E2M1FN: return nx_load_float4_e2m1fn_f32((nx_u8)b);
  }
  return 0;
}

/* The per-format stores and loads from and to float64 bits. */
uint64_t store_f64_format(int code, uint64_t u) {
  switch (code) {
  case NX_FLOAT64: return nx_store_float64_f64(u);
  case NX_FLOAT32: return nx_store_float32_f64(u);
  case NX_FLOAT16: return nx_store_float16_f64(u);
  case NX_BFLOAT16: return nx_store_bfloat16_f64(u);
  case NX_FLOAT8_E4M3FN: return nx_store_float8_e4m3fn_f64(u);
  case NX_FLOAT8_E5M2: return nx_store_float8_e5m2_f64(u);
  case NX_FLOAT4_E2M1FN: return nx_store_float4_e2m1fn_f64(u);
  }
  return nx_dtype_store_f64bits(code, u);
}

uint64_t load_f64_format(int code, uint64_t b) {
  switch (code) {
  case NX_FLOAT32: return nx_load_float32_f64((nx_u32)b);
  case NX_FLOAT16: return nx_load_float16_f64((nx_u16)b);
  case NX_BFLOAT16: return nx_load_bfloat16_f64((nx_u16)b);
  case NX_FLOAT8_E4M3FN: return nx_load_float8_e4m3fn_f64((nx_u8)b);
  case NX_FLOAT8_E5M2: return nx_load_float8_e5m2_f64((nx_u8)b);
  case NX_FLOAT4_E2M1FN: return nx_load_float4_e2m1fn_f64((nx_u8)b);
  }
  return nx_dtype_load_f64bits(code, b);
}

bool narrow_float(int code) {
  return code == NX_FLOAT16 || code == NX_BFLOAT16 || code == NX_FLOAT8_E4M3FN || code == NX_FLOAT8_E5M2 ||
         code == NX_FLOAT4_E2M1FN;
}

const int n_random = 4000;

void check_stores(int code) {
  const int n_special = (int)(sizeof specials / sizeof specials[0]);
  for (int i = 0; i < n_special + n_random; i++) {
    uint64_t u = i < n_special ? specials[i] : random_f64(i);
    uint64_t want = nx_dtype_store_bits(code, f64_of_bits(u));
    uint64_t got = nx_dtype_store_f64bits(code, u);
    CHECK(got == want, "%s: store of %016llx: C++ %llx, libnx %llx", nx_dtype_name((nx_dtype)code),
          (unsigned long long)u, (unsigned long long)got, (unsigned long long)want);
    got = nx_dtype_store_double(code, f64_of_bits(u));
    CHECK(got == want, "%s: store_double of %016llx: C++ %llx, libnx %llx", nx_dtype_name((nx_dtype)code),
          (unsigned long long)u, (unsigned long long)got, (unsigned long long)want);
    got = store_f64_format(code, u);
    CHECK(got == want, "%s: per-format store of %016llx: C++ %llx, libnx %llx", nx_dtype_name((nx_dtype)code),
          (unsigned long long)u, (unsigned long long)got, (unsigned long long)want);
  }
  if (!narrow_float(code)) return;
  /* float32 inputs: the direct store equals the library's store of the
     float32's exact float64 value (one rounding either way). */
  for (int i = 0; i < 2 * n_random; i++) {
    uint32_t f = (uint32_t)(random_f64(i) >> (i % 2 ? 32 : 29));
    if (i < 64) f = (uint32_t)i << 25 | (uint32_t)i; /* NaNs, infinities, zeros, subnormals */
    uint64_t want = nx_dtype_store_bits(code, f64_of_bits(nx_load_float32_f64(f)));
    uint64_t got = store_f32(code, f);
    CHECK(got == want, "%s: store of float32 %08lx: C++ %llx, libnx %llx", nx_dtype_name((nx_dtype)code),
          (unsigned long)f, (unsigned long long)got, (unsigned long long)want);
  }
}

void check_loads(int code) {
  int bits = nx_dtype_bits_of(code);
  uint64_t mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
  long n = bits <= 16 ? (long)mask + 1 : 2 * n_random;
  for (long i = 0; i < n; i++) {
    uint64_t b = bits <= 16 ? (uint64_t)i : next_random() & mask;
    /* Above the element's width: bits a load must ignore. */
    if (i % 3 == 0 && bits < 64) b |= next_random() & ~mask;
    if (bits > 16 && i % 4 == 1) b = store_f64_format(code, random_f64(i)); /* a value stored */
    uint64_t want = bits_of_f64(nx_dtype_load_bits(code, b));
    uint64_t got = nx_dtype_load_f64bits(code, b);
    CHECK(got == want, "%s: load of %llx: C++ %016llx, libnx %016llx", nx_dtype_name((nx_dtype)code),
          (unsigned long long)b, (unsigned long long)got, (unsigned long long)want);
    got = bits_of_f64(nx_dtype_load_double(code, b));
    CHECK(got == want, "%s: load_double of %llx: C++ %016llx, libnx %016llx", nx_dtype_name((nx_dtype)code),
          (unsigned long long)b, (unsigned long long)got, (unsigned long long)want);
    got = load_f64_format(code, b);
    CHECK(got == want, "%s: per-format load of %llx: C++ %016llx, libnx %016llx", nx_dtype_name((nx_dtype)code),
          (unsigned long long)b, (unsigned long long)got, (unsigned long long)want);
    if (narrow_float(code)) {
      got = nx_load_float32_f64(load_f32(code, b));
      CHECK(got == want, "%s: float32 load of %llx: C++ %016llx, libnx %016llx", nx_dtype_name((nx_dtype)code),
            (unsigned long long)b, (unsigned long long)got, (unsigned long long)want);
    }
  }
}

void check_facts(int code) {
  nx_dtype dt = (nx_dtype)code;
  CHECK(nx_dtype_bits_of(code) == nx_dtype_bits(dt), "%s: bits", nx_dtype_name(dt));
  CHECK(nx_dtype_kind_of(code) == (int)nx_dtype_kind(dt), "%s: kind", nx_dtype_name(dt));
  nx_float_format f;
  if (nx_dtype_float_format(dt, &f) == 0) {
    CHECK(nx_dtype_exponent_bits_of(code) == f.exponent_bits, "%s: exponent bits", nx_dtype_name(dt));
    CHECK(nx_dtype_fraction_bits_of(code) == f.fraction_bits, "%s: fraction bits", nx_dtype_name(dt));
    CHECK((nx_dtype_has_infinities(code) != 0) == f.infinities, "%s: infinities", nx_dtype_name(dt));
    CHECK((nx_dtype_has_nans(code) != 0) == f.nans, "%s: nans", nx_dtype_name(dt));
    CHECK(nx_dtype_load_double(code, nx_dtype_max_finite_bits_of(code)) == f.max_finite, "%s: max finite",
          nx_dtype_name(dt));
  }
}

void check_subbyte() {
  for (int bits = 1; bits <= 4; bits *= 2) {
    nx_u8 buf[64], ref[64];
    for (int i = 0; i < 64; i++) buf[i] = ref[i] = (nx_u8)next_random();
    long n = 64 * 8 / bits;
    for (int k = 0; k < 2000; k++) {
      long p = (long)(next_random() % (uint64_t)n);
      nx_u8 v = (nx_u8)next_random(); /* the high bits are ignored */
      nx_subbyte_put(buf, p, bits, v);
      int bit = (int)(p * bits);
      unsigned m = ((1u << bits) - 1) << (bit % 8);
      ref[bit / 8] = (nx_u8)((ref[bit / 8] & ~m) | (((unsigned)v << (bit % 8)) & m));
    }
    CHECK(memcmp(buf, ref, sizeof buf) == 0, "nx_subbyte_put, %d bits", bits);
    for (long p = 0; p < n; p++) {
      int bit = (int)(p * bits);
      unsigned want = (ref[bit / 8] >> (bit % 8)) & ((1u << bits) - 1);
      CHECK(nx_subbyte_get(buf, p, bits) == want, "nx_subbyte_get(%ld), %d bits", p, bits);
    }
  }
}

} // namespace

int main() {
  for (int code = 0; code < NX_DTYPE_COUNT; code++) {
    check_facts(code);
    check_stores(code);
    check_loads(code);
  }
  /* Unknown codes: 0 from the header; 0 and a message from the library. */
  CHECK(nx_dtype_store_f64bits(NX_DTYPE_COUNT, 0x3FF0000000000000ull) == 0, "unknown code store");
  CHECK(nx_dtype_load_f64bits(-1, 1) == 0, "unknown code load");
  CHECK(nx_dtype_bits_of(NX_DTYPE_COUNT) == 0 && nx_dtype_kind_of(-1) == -1, "unknown code facts");
  CHECK(nx_dtype_store_bits(NX_DTYPE_COUNT, 1.0) == 0 && nx_error_message()[0] != '\0', "libnx unknown code");
  check_subbyte();
  return check_done();
}
