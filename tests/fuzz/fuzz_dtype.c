/* SPDX-License-Identifier: Apache-2.0 */
/* Dtype names and printed values. A name read back names its dtype, and any
   text that nx_dtype_of_name accepts is a dtype's name. A value of any dtype,
   from any bits, prints (nx_dtype_pp_value) to a text that strtod or strtoll
   reads back to the same bits under the store rule, and nx_dtype_format_value
   of any double either refuses with a message or prints one that reads back
   to the bits of that double's store; a buffer too small is refused with a
   message, never overrun. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "nx_dtype.h"

static uint64_t mask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

static void check_names(fuzz_in *in) {
  char s[40];
  size_t n = in->n < sizeof s - 1 ? in->n : sizeof s - 1;
  memcpy(s, in->p, n);
  s[n] = 0;
  nx_dtype dt;
  int st = nx_dtype_of_name(s, &dt);
  bool named = false;
  for (int c = 0; c < NX_DTYPE_COUNT; c++) named |= strcmp(nx_dtype_name((nx_dtype)c), s) == 0;
  FUZZ_REQUIRE(st == (named ? 0 : NX_NONE), "nx_dtype_of_name(\"%s\") = %d", s, st);
  if (st == 0) FUZZ_REQUIRE(strcmp(nx_dtype_name(dt), s) == 0, "\"%s\" read as %s", s, nx_dtype_name(dt));
}

/* The float code of a complex dtype's component. */
static int component(int code) { return code == NX_COMPLEX128 ? NX_FLOAT64 : NX_FLOAT32; }

/* The text of a float of format `code` read back: its bits under the store. */
static void float_back(int code, uint64_t bits, const char *text, const char **end) {
  char *e;
  double y = strtod(text, &e);
  FUZZ_REQUIRE(e != text, "%s: \"%s\" does not read as a number", nx_dtype_name((nx_dtype)code), text);
  *end = e;
  double x = nx_dtype_load_bits(code, bits);
  if (isnan(x)) {
    FUZZ_REQUIRE(isnan(y), "%s bits %#llx (NaN) printed \"%s\"", nx_dtype_name((nx_dtype)code), (unsigned long long)bits, text);
    return;
  }
  uint64_t back = nx_dtype_store_bits(code, y);
  FUZZ_REQUIRE(back == bits, "%s bits %#llx printed \"%s\", which stores as %#llx",
               nx_dtype_name((nx_dtype)code), (unsigned long long)bits, text, (unsigned long long)back);
}

static void check_value(int code, fuzz_in *in) {
  nx_dtype dt = (nx_dtype)code;
  int width = nx_dtype_bits_of(code);
  uint64_t b0 = fuzz_u64(in), b1 = fuzz_u64(in);
  nx_value v;
  memset(&v, 0, sizeof v);
  uint64_t bits = b0 & mask(width), bim = 0;
  switch (nx_dtype_kind(dt)) {
  case NX_KIND_FLOAT: v.f = nx_dtype_load_bits(code, bits); break;
  case NX_KIND_COMPLEX:
    bits = b0 & mask(width / 2);
    bim = b1 & mask(width / 2);
    v.c.re = nx_dtype_load_bits(component(code), bits);
    v.c.im = nx_dtype_load_bits(component(code), bim);
    break;
  case NX_KIND_SIGNED: /* sign-extended from the width */
    v.i = width >= 64 ? (int64_t)bits : (int64_t)(bits << (64 - width)) >> (64 - width);
    break;
  case NX_KIND_UNSIGNED: v.u = bits; break;
  case NX_KIND_BOOLEAN: v.b = bits & 1; break;
  }
  char buf[NX_DTYPE_PP_MAX];
  int len = nx_dtype_pp_value(dt, v, buf, sizeof buf);
  FUZZ_REQUIRE(len >= 0 && (size_t)len < sizeof buf && strlen(buf) == (size_t)len,
               "nx_dtype_pp_value(%s, bits %#llx) = %d (%s)", nx_dtype_name(dt), (unsigned long long)bits, len,
               nx_error_message());
  const char *end;
  char *e;
  switch (nx_dtype_kind(dt)) {
  case NX_KIND_FLOAT:
    float_back(code, bits, buf, &end);
    FUZZ_REQUIRE(*end == 0, "%s printed \"%s\": text after the number", nx_dtype_name(dt), buf);
    break;
  case NX_KIND_COMPLEX:
    float_back(component(code), bits, buf, &end);
    FUZZ_REQUIRE(*end == '+' || *end == '-', "%s printed \"%s\": no sign before the imaginary part", nx_dtype_name(dt), buf);
    float_back(component(code), bim, end, &end);
    FUZZ_REQUIRE(strcmp(end, "i") == 0, "%s printed \"%s\": the imaginary part does not end in i", nx_dtype_name(dt), buf);
    break;
  case NX_KIND_SIGNED: {
    errno = 0;
    long long r = strtoll(buf, &e, 10);
    FUZZ_REQUIRE(!errno && !*e && r == v.i, "%s %lld printed \"%s\"", nx_dtype_name(dt), (long long)v.i, buf);
    break;
  }
  case NX_KIND_UNSIGNED: {
    errno = 0;
    unsigned long long r = strtoull(buf, &e, 10);
    FUZZ_REQUIRE(!errno && !*e && buf[0] != '-' && r == v.u, "%s %llu printed \"%s\"", nx_dtype_name(dt), (unsigned long long)v.u, buf);
    break;
  }
  case NX_KIND_BOOLEAN:
    FUZZ_REQUIRE(strcmp(buf, v.b ? "true" : "false") == 0, "%s %d printed \"%s\"", nx_dtype_name(dt), v.b, buf);
    break;
  }
  /* Every shorter buffer: refused with a message, nothing written past it. */
  size_t cap = (size_t)fuzz_in_range(in, 0, len);
  char small[NX_DTYPE_PP_MAX + 1];
  memset(small, 'Z', sizeof small);
  fuzz_clear_message();
  int st = nx_dtype_pp_value(dt, v, cap ? small : NULL, cap);
  FUZZ_FAILED_WELL(st, "nx_dtype_pp_value with too small a buffer");
  FUZZ_REQUIRE(small[cap] == 'Z', "nx_dtype_pp_value wrote past a buffer of %zu bytes", cap);
}

/* format_value of any double: refused with a message, or the text of the
   value the double is in that format. */
static void check_format(int code, fuzz_in *in) {
  uint64_t u = fuzz_u64(in);
  double x;
  memcpy(&x, &u, sizeof x);
  char buf[NX_DTYPE_PP_MAX];
  fuzz_clear_message();
  int len = nx_dtype_format_value(code, x, buf, sizeof buf);
  if (len < 0) {
    FUZZ_FAILED_WELL(len, "nx_dtype_format_value");
    return;
  }
  if (nx_dtype_kind((nx_dtype)code) != NX_KIND_FLOAT || isnan(x)) return;
  /* a float that is not finite prints in every format, as the seed says */
  if (isinf(x)) {
    FUZZ_REQUIRE(!strcmp(buf, x > 0 ? "inf" : "-inf"), "nx_dtype_format_value(%s, %a) printed \"%s\"",
                 nx_dtype_name((nx_dtype)code), x, buf);
    return;
  }
  const char *end;
  float_back(code, nx_dtype_store_bits(code, x), buf, &end);
  FUZZ_REQUIRE(nx_dtype_load_bits(code, nx_dtype_store_bits(code, x)) == x,
               "nx_dtype_format_value(%s, %a) printed \"%s\", but %a is no value of the format",
               nx_dtype_name((nx_dtype)code), x, buf, x);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_in in = {data, size};
  uint8_t mode = fuzz_u8(&in);
  int code = (mode >> 2) % NX_DTYPE_COUNT;
  switch (mode & 3) {
  case 0: check_names(&in); break;
  case 1: check_value(code, &in); break;
  case 2: check_format(code, &in); break;
  default:
    for (int c = 0; c < NX_DTYPE_COUNT; c++) check_value(c, &in);
  }
  return 0;
}
