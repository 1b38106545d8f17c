/* SPDX-License-Identifier: Apache-2.0 */
/* The store rule on the research vectors: every store vector of
   shared/reference/dtypes_vectors.md §1 (its five tables, transcribed exactly),
   the highlight table of dtypes.md §5, the integer examples of dtypes.md §2,
   the seed's of_float examples and the NaN rows. No MPFR: every expected bit
   pattern is the table's.

   A vector is checked through nx_dtype_store_bits, the portable
   nx_dtype_store_f64bits and the format's nx_store_<fmt>_f64; where the input
   is a float32 (its double is exact in float32) also through the direct
   nx_store_<fmt>_f32; and where the table notes what a trip through float32
   gives ("via f32"), that nx_store_<fmt>_f32 of the rounded float32 gives it,
   and the direct store does not. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "nx_dtype.h"


enum { F16, BF16, E4M3, E5M2, E2M1, NFMT };
static const struct {
  const char *name;
  int code;
} FMT[NFMT] = {
    {"float16", NX_FLOAT16},         {"bfloat16", NX_BFLOAT16},       {"float8_e4m3fn", NX_FLOAT8_E4M3FN},
    {"float8_e5m2", NX_FLOAT8_E5M2}, {"float4_e2m1fn", NX_FLOAT4_E2M1FN},
};

static uint64_t store_f64(int fi, uint64_t u) {
  switch (fi) {
  case F16: return nx_store_float16_f64(u);
  case BF16: return nx_store_bfloat16_f64(u);
  case E4M3: return nx_store_float8_e4m3fn_f64(u);
  case E5M2: return nx_store_float8_e5m2_f64(u);
  case E2M1: return nx_store_float4_e2m1fn_f64(u);
  }
  return ~(uint64_t)0;
}
static uint64_t store_f32(int fi, uint32_t v) {
  switch (fi) {
  case F16: return nx_store_float16_f32(v);
  case BF16: return nx_store_bfloat16_f32(v);
  case E4M3: return nx_store_float8_e4m3fn_f32(v);
  case E5M2: return nx_store_float8_e5m2_f32(v);
  case E2M1: return nx_store_float4_e2m1fn_f32(v);
  }
  return ~(uint64_t)0;
}

/* The float32 with the same value as the double u, by bits, if there is one
   (a NaN: the same sign and top fraction bits, none below them). */
static int f32_exactly(uint64_t u, uint32_t *v) {
  if (is_nan_bits(u)) {
    if (u & 0x1FFFFFFFull) return 0;
    *v = (uint32_t)(u >> 63) << 31 | 0x7F800000u | (uint32_t)((u & FRAC64) >> 29);
    return 1;
  }
  float f = (float)dbl_of(u);
  if (bits_of((double)f) != u) return 0;
  *v = bits_of_f(f);
  return 1;
}

/* Every check of one vector: input u (a double's bits) stores as want in
   format fi. via >= 0: the bits the trip through float32 gives. */
static void check_vector(int fi, const char *what, uint64_t u, uint64_t want, long via) {
  const char *nm = FMT[fi].name;
  uint64_t g1 = nx_dtype_store_bits(FMT[fi].code, dbl_of(u));
  uint64_t g2 = nx_dtype_store_f64bits(FMT[fi].code, u);
  uint64_t g3 = store_f64(fi, u);
  CHECK(g1 == want && g2 == want && g3 == want,
        "%s \"%s\": x=0x%016" PRIX64 " (%a): got 0x%" PRIX64 " (portable 0x%" PRIX64 ", per-format 0x%" PRIX64
        ") want 0x%" PRIX64,
        nm, what, u, dbl_of(u), g1, g2, g3, want);
  uint32_t v;
  if (f32_exactly(u, &v)) {
    uint64_t g = store_f32(fi, v);
    CHECK(g == want, "%s \"%s\" from float32 0x%08" PRIX32 ": got 0x%" PRIX64 " want 0x%" PRIX64, nm, what, v, g,
          want);
  }
  if (via >= 0) {
    uint32_t r = bits_of_f((float)dbl_of(u));
    uint64_t g = store_f32(fi, r);
    CHECK(g == (uint64_t)via, "%s \"%s\" via float32 0x%08" PRIX32 ": got 0x%" PRIX64 " want 0x%lX (the table's)", nm,
          what, r, g, (unsigned long)via);
    CHECK((uint64_t)via != want, "%s \"%s\": the table's trip through float32 gives the direct bits", nm, what);
  }
}

/* ---- dtypes_vectors.md §1 ------------------------------------------------- */

#define D(x) 0, x, 0
#define B(u) 1, 0, u

static const struct {
  int fi;
  const char *what;
  int by_bits;
  double x;
  uint64_t u;
  uint64_t want;
  long via; /* -1: no "via f32" note */
} V1[] = {
    /* f16 */
    {F16, "zero", D(0.0), 0x0000, -1},
    {F16, "neg zero", D(-0.0), 0x8000, -1},
    {F16, "one", D(0x1p+0), 0x3C00, -1},
    {F16, "minus two", D(-0x1p+1), 0xC000, -1},
    {F16, "max finite", D(0x1.ffcp+15), 0x7BFF, -1},
    {F16, "pred(max)", D(0x1.ff8p+15), 0x7BFE, -1},
    {F16, "min normal", D(0x1p-14), 0x0400, -1},
    {F16, "max subnormal", D(0x1.ff8p-15), 0x03FF, -1},
    {F16, "min subnormal", D(0x1p-24), 0x0001, -1},
    {F16, "min_sub/2 tie->0", D(0x1p-25), 0x0000, -1},
    {F16, "min_sub/2*(1+2^-40)", D(0x1.0000000001p-25), 0x0001, 0x0000},
    {F16, "-min_sub/2 tie->-0", D(-0x1p-25), 0x8000, -1},
    {F16, "1.5*min_sub tie->2", D(0x1.8p-24), 0x0002, -1},
    {F16, "2.5*min_sub tie->2", D(0x1.4p-23), 0x0002, -1},
    {F16, "(max_sub+min_norm)/2 tie->min normal", D(0x1.ffcp-15), 0x0400, -1},
    {F16, "1+ulp/2 tie->1", D(0x1.002p+0), 0x3C00, -1},
    {F16, "1+3ulp/2 tie->1+2ulp", D(0x1.006p+0), 0x3C02, -1},
    {F16, "1+ulp/2+2^-40 (f32 trap)", D(0x1.0020000001p+0), 0x3C01, 0x3C00},
    {F16, "1+ulp/2-2^-40", D(0x1.001fffffffp+0), 0x3C00, -1},
    {F16, "max+ulp/2 (upper tie)", D(0x1.ffep+15), 0x7C00, -1},
    {F16, "max+ulp/2 - 2^-40*ulp (f32 trap)", D(0x1.ffdfffffffffcp+15), 0x7BFF, 0x7C00},
    {F16, "max+ulp/2 + 2^-20", D(0x1.ffe00004p+15), 0x7C00, -1},
    {F16, "(pred+max)/2 tie", D(0x1.ffap+15), 0x7BFE, -1},
    {F16, "-(max+ulp)", D(-0x1p+16), 0xFC00, -1},
    {F16, "2*max", D(0x1.ffcp+16), 0x7C00, -1},
    {F16, "1e300", D(0x1.7e43c8800759cp+996), 0x7C00, -1},
    {F16, "+inf", B(0x7FF0000000000000ull), 0x7C00, -1},
    {F16, "-inf", B(0xFFF0000000000000ull), 0xFC00, -1},
    {F16, "qNaN", B(0x7FF8000000000000ull), 0x7E00, -1},
    {F16, "-qNaN", B(0xFFF8000000000000ull), 0xFE00, -1},
    {F16, "sNaN payload 1", B(0x7FF0000000000001ull), 0x7E00, -1},
    {F16, "NaN payload 0x4000..", B(0x7FF4000000000000ull), 0x7F00, -1},
    {F16, "0.1", D(0x1.999999999999ap-4), 0x2E66, -1},
    {F16, "1/3", D(0x1.5555555555555p-2), 0x3555, -1},
    {F16, "pi", D(0x1.921fb54442d18p+1), 0x4248, -1},
    {F16, "1e-300", D(0x1.56e1fc2f8f359p-997), 0x0000, -1},
    {F16, "-1e-300", D(-0x1.56e1fc2f8f359p-997), 0x8000, -1},
    {F16, "5e-324", D(0x0.0000000000001p-1022), 0x0000, -1},
    /* bf16 */
    {BF16, "zero", D(0.0), 0x0000, -1},
    {BF16, "neg zero", D(-0.0), 0x8000, -1},
    {BF16, "one", D(0x1p+0), 0x3F80, -1},
    {BF16, "minus two", D(-0x1p+1), 0xC000, -1},
    {BF16, "max finite", D(0x1.fep+127), 0x7F7F, -1},
    {BF16, "pred(max)", D(0x1.fcp+127), 0x7F7E, -1},
    {BF16, "min normal", D(0x1p-126), 0x0080, -1},
    {BF16, "max subnormal", D(0x1.fcp-127), 0x007F, -1},
    {BF16, "min subnormal", D(0x1p-133), 0x0001, -1},
    {BF16, "min_sub/2 tie->0", D(0x1p-134), 0x0000, -1},
    {BF16, "min_sub/2*(1+2^-40)", D(0x1.0000000001p-134), 0x0001, 0x0000},
    {BF16, "-min_sub/2 tie->-0", D(-0x1p-134), 0x8000, -1},
    {BF16, "1.5*min_sub tie->2", D(0x1.8p-133), 0x0002, -1},
    {BF16, "2.5*min_sub tie->2", D(0x1.4p-132), 0x0002, -1},
    {BF16, "(max_sub+min_norm)/2 tie->min normal", D(0x1.fep-127), 0x0080, -1},
    {BF16, "1+ulp/2 tie->1", D(0x1.01p+0), 0x3F80, -1},
    {BF16, "1+3ulp/2 tie->1+2ulp", D(0x1.03p+0), 0x3F82, -1},
    {BF16, "1+ulp/2+2^-40 (f32 trap)", D(0x1.0100000001p+0), 0x3F81, 0x3F80},
    {BF16, "1+ulp/2-2^-40", D(0x1.00ffffffffp+0), 0x3F80, -1},
    {BF16, "max+ulp/2 (upper tie)", D(0x1.ffp+127), 0x7F80, -1},
    {BF16, "max+ulp/2 - 2^-40*ulp (f32 trap)", D(0x1.fefffffffffep+127), 0x7F7F, 0x7F80},
    {BF16, "max+ulp/2 + 2^-20", D(0x1.ff00002p+127), 0x7F80, -1},
    {BF16, "(pred+max)/2 tie", D(0x1.fdp+127), 0x7F7E, -1},
    {BF16, "-(max+ulp)", D(-0x1p+128), 0xFF80, -1},
    {BF16, "2*max", D(0x1.fep+128), 0x7F80, -1},
    {BF16, "1e300", D(0x1.7e43c8800759cp+996), 0x7F80, -1},
    {BF16, "+inf", B(0x7FF0000000000000ull), 0x7F80, -1},
    {BF16, "-inf", B(0xFFF0000000000000ull), 0xFF80, -1},
    {BF16, "qNaN", B(0x7FF8000000000000ull), 0x7FC0, -1},
    {BF16, "-qNaN", B(0xFFF8000000000000ull), 0xFFC0, -1},
    {BF16, "sNaN payload 1", B(0x7FF0000000000001ull), 0x7FC0, -1},
    {BF16, "NaN payload 0x4000..", B(0x7FF4000000000000ull), 0x7FE0, -1},
    {BF16, "0.1", D(0x1.999999999999ap-4), 0x3DCD, -1},
    {BF16, "1/3", D(0x1.5555555555555p-2), 0x3EAB, -1},
    {BF16, "pi", D(0x1.921fb54442d18p+1), 0x4049, -1},
    {BF16, "1e-300", D(0x1.56e1fc2f8f359p-997), 0x0000, -1},
    {BF16, "-1e-300", D(-0x1.56e1fc2f8f359p-997), 0x8000, -1},
    {BF16, "5e-324", D(0x0.0000000000001p-1022), 0x0000, -1},
    /* e4m3fn */
    {E4M3, "zero", D(0.0), 0x00, -1},
    {E4M3, "neg zero", D(-0.0), 0x80, -1},
    {E4M3, "one", D(0x1p+0), 0x38, -1},
    {E4M3, "minus two", D(-0x1p+1), 0xC0, -1},
    {E4M3, "max finite", D(0x1.cp+8), 0x7E, -1},
    {E4M3, "pred(max)", D(0x1.ap+8), 0x7D, -1},
    {E4M3, "min normal", D(0x1p-6), 0x08, -1},
    {E4M3, "max subnormal", D(0x1.cp-7), 0x07, -1},
    {E4M3, "min subnormal", D(0x1p-9), 0x01, -1},
    {E4M3, "min_sub/2 tie->0", D(0x1p-10), 0x00, -1},
    {E4M3, "min_sub/2*(1+2^-40)", D(0x1.0000000001p-10), 0x01, 0x00},
    {E4M3, "-min_sub/2 tie->-0", D(-0x1p-10), 0x80, -1},
    {E4M3, "1.5*min_sub tie->2", D(0x1.8p-9), 0x02, -1},
    {E4M3, "2.5*min_sub tie->2", D(0x1.4p-8), 0x02, -1},
    {E4M3, "(max_sub+min_norm)/2 tie->min normal", D(0x1.ep-7), 0x08, -1},
    {E4M3, "1+ulp/2 tie->1", D(0x1.1p+0), 0x38, -1},
    {E4M3, "1+3ulp/2 tie->1+2ulp", D(0x1.3p+0), 0x3A, -1},
    {E4M3, "1+ulp/2+2^-40 (f32 trap)", D(0x1.1000000001p+0), 0x39, 0x38},
    {E4M3, "1+ulp/2-2^-40", D(0x1.0fffffffffp+0), 0x38, -1},
    {E4M3, "max+ulp/2 (upper tie)", D(0x1.dp+8), 0x7E, -1},
    {E4M3, "max+ulp/2 - 2^-40*ulp (f32 trap)", D(0x1.cfffffffffep+8), 0x7E, -1},
    {E4M3, "max+ulp/2 + 2^-20", D(0x1.d00002p+8), 0x7E, -1},
    {E4M3, "(pred+max)/2 tie", D(0x1.bp+8), 0x7E, -1},
    {E4M3, "-(max+ulp)", D(-0x1.ep+8), 0xFE, -1},
    {E4M3, "2*max", D(0x1.cp+9), 0x7E, -1},
    {E4M3, "1e300", D(0x1.7e43c8800759cp+996), 0x7E, -1},
    {E4M3, "+inf", B(0x7FF0000000000000ull), 0x7E, -1},
    {E4M3, "-inf", B(0xFFF0000000000000ull), 0xFE, -1},
    {E4M3, "qNaN", B(0x7FF8000000000000ull), 0x7F, -1},
    {E4M3, "-qNaN", B(0xFFF8000000000000ull), 0xFF, -1},
    {E4M3, "sNaN payload 1", B(0x7FF0000000000001ull), 0x7F, -1},
    {E4M3, "NaN payload 0x4000..", B(0x7FF4000000000000ull), 0x7F, -1},
    {E4M3, "0.1", D(0x1.999999999999ap-4), 0x1D, -1},
    {E4M3, "1/3", D(0x1.5555555555555p-2), 0x2B, -1},
    {E4M3, "pi", D(0x1.921fb54442d18p+1), 0x45, -1},
    {E4M3, "1e-300", D(0x1.56e1fc2f8f359p-997), 0x00, -1},
    {E4M3, "-1e-300", D(-0x1.56e1fc2f8f359p-997), 0x80, -1},
    {E4M3, "5e-324", D(0x0.0000000000001p-1022), 0x00, -1},
    /* e5m2 */
    {E5M2, "zero", D(0.0), 0x00, -1},
    {E5M2, "neg zero", D(-0.0), 0x80, -1},
    {E5M2, "one", D(0x1p+0), 0x3C, -1},
    {E5M2, "minus two", D(-0x1p+1), 0xC0, -1},
    {E5M2, "max finite", D(0x1.cp+15), 0x7B, -1},
    {E5M2, "pred(max)", D(0x1.8p+15), 0x7A, -1},
    {E5M2, "min normal", D(0x1p-14), 0x04, -1},
    {E5M2, "max subnormal", D(0x1.8p-15), 0x03, -1},
    {E5M2, "min subnormal", D(0x1p-16), 0x01, -1},
    {E5M2, "min_sub/2 tie->0", D(0x1p-17), 0x00, -1},
    {E5M2, "min_sub/2*(1+2^-40)", D(0x1.0000000001p-17), 0x01, 0x00},
    {E5M2, "-min_sub/2 tie->-0", D(-0x1p-17), 0x80, -1},
    {E5M2, "1.5*min_sub tie->2", D(0x1.8p-16), 0x02, -1},
    {E5M2, "2.5*min_sub tie->2", D(0x1.4p-15), 0x02, -1},
    {E5M2, "(max_sub+min_norm)/2 tie->min normal", D(0x1.cp-15), 0x04, -1},
    {E5M2, "1+ulp/2 tie->1", D(0x1.2p+0), 0x3C, -1},
    {E5M2, "1+3ulp/2 tie->1+2ulp", D(0x1.6p+0), 0x3E, -1},
    {E5M2, "1+ulp/2+2^-40 (f32 trap)", D(0x1.2000000001p+0), 0x3D, 0x3C},
    {E5M2, "1+ulp/2-2^-40", D(0x1.1fffffffffp+0), 0x3C, -1},
    {E5M2, "max+ulp/2 (upper tie)", D(0x1.ep+15), 0x7C, -1},
    {E5M2, "max+ulp/2 - 2^-40*ulp (f32 trap)", D(0x1.dfffffffffcp+15), 0x7B, 0x7C},
    {E5M2, "max+ulp/2 + 2^-20", D(0x1.e00004p+15), 0x7C, -1},
    {E5M2, "(pred+max)/2 tie", D(0x1.ap+15), 0x7A, -1},
    {E5M2, "-(max+ulp)", D(-0x1p+16), 0xFC, -1},
    {E5M2, "2*max", D(0x1.cp+16), 0x7C, -1},
    {E5M2, "1e300", D(0x1.7e43c8800759cp+996), 0x7C, -1},
    {E5M2, "+inf", B(0x7FF0000000000000ull), 0x7C, -1},
    {E5M2, "-inf", B(0xFFF0000000000000ull), 0xFC, -1},
    {E5M2, "qNaN", B(0x7FF8000000000000ull), 0x7E, -1},
    {E5M2, "-qNaN", B(0xFFF8000000000000ull), 0xFE, -1},
    {E5M2, "sNaN payload 1", B(0x7FF0000000000001ull), 0x7E, -1},
    {E5M2, "NaN payload 0x4000..", B(0x7FF4000000000000ull), 0x7F, -1},
    {E5M2, "0.1", D(0x1.999999999999ap-4), 0x2E, -1},
    {E5M2, "1/3", D(0x1.5555555555555p-2), 0x35, -1},
    {E5M2, "pi", D(0x1.921fb54442d18p+1), 0x42, -1},
    {E5M2, "1e-300", D(0x1.56e1fc2f8f359p-997), 0x00, -1},
    {E5M2, "-1e-300", D(-0x1.56e1fc2f8f359p-997), 0x80, -1},
    {E5M2, "5e-324", D(0x0.0000000000001p-1022), 0x00, -1},
    /* e2m1 */
    {E2M1, "zero", D(0.0), 0x0, -1},
    {E2M1, "neg zero", D(-0.0), 0x8, -1},
    {E2M1, "one", D(0x1p+0), 0x2, -1},
    {E2M1, "minus two", D(-0x1p+1), 0xC, -1},
    {E2M1, "max finite", D(0x1.8p+2), 0x7, -1},
    {E2M1, "pred(max)", D(0x1p+2), 0x6, -1},
    {E2M1, "min normal", D(0x1p+0), 0x2, -1},
    {E2M1, "max subnormal", D(0x1p-1), 0x1, -1},
    {E2M1, "min subnormal", D(0x1p-1), 0x1, -1},
    {E2M1, "min_sub/2 tie->0", D(0x1p-2), 0x0, -1},
    {E2M1, "min_sub/2*(1+2^-40)", D(0x1.0000000001p-2), 0x1, 0x0},
    {E2M1, "-min_sub/2 tie->-0", D(-0x1p-2), 0x8, -1},
    {E2M1, "1.5*min_sub tie->2", D(0x1.8p-1), 0x2, -1},
    {E2M1, "2.5*min_sub tie->2", D(0x1.4p+0), 0x2, -1},
    {E2M1, "(max_sub+min_norm)/2 tie->min normal", D(0x1.8p-1), 0x2, -1},
    {E2M1, "1+ulp/2 tie->1", D(0x1.4p+0), 0x2, -1},
    {E2M1, "1+3ulp/2 tie->1+2ulp", D(0x1.cp+0), 0x4, -1},
    {E2M1, "1+ulp/2+2^-40 (f32 trap)", D(0x1.4000000001p+0), 0x3, 0x2},
    {E2M1, "1+ulp/2-2^-40", D(0x1.3fffffffffp+0), 0x2, -1},
    {E2M1, "max+ulp/2 (upper tie)", D(0x1.cp+2), 0x7, -1},
    {E2M1, "max+ulp/2 - 2^-40*ulp (f32 trap)", D(0x1.bfffffffff8p+2), 0x7, -1},
    {E2M1, "max+ulp/2 + 2^-20", D(0x1.c00008p+2), 0x7, -1},
    {E2M1, "(pred+max)/2 tie", D(0x1.4p+2), 0x6, -1},
    {E2M1, "-(max+ulp)", D(-0x1p+3), 0xF, -1},
    {E2M1, "2*max", D(0x1.8p+3), 0x7, -1},
    {E2M1, "1e300", D(0x1.7e43c8800759cp+996), 0x7, -1},
    {E2M1, "+inf", B(0x7FF0000000000000ull), 0x7, -1},
    {E2M1, "-inf", B(0xFFF0000000000000ull), 0xF, -1},
    {E2M1, "qNaN", B(0x7FF8000000000000ull), 0x0, -1},
    {E2M1, "-qNaN", B(0xFFF8000000000000ull), 0x0, -1},
    {E2M1, "sNaN payload 1", B(0x7FF0000000000001ull), 0x0, -1},
    {E2M1, "NaN payload 0x4000..", B(0x7FF4000000000000ull), 0x0, -1},
    {E2M1, "0.1", D(0x1.999999999999ap-4), 0x0, -1},
    {E2M1, "1/3", D(0x1.5555555555555p-2), 0x1, -1},
    {E2M1, "pi", D(0x1.921fb54442d18p+1), 0x5, -1},
    {E2M1, "1e-300", D(0x1.56e1fc2f8f359p-997), 0x0, -1},
    {E2M1, "-1e-300", D(-0x1.56e1fc2f8f359p-997), 0x8, -1},
    {E2M1, "5e-324", D(0x0.0000000000001p-1022), 0x0, -1},
};

/* ---- dtypes.md §5's highlight table --------------------------------------- */

static const struct {
  const char *what;
  int by_bits; /* in: doubles' bits (NaNs, infinities) rather than values */
  double x[NFMT];
  uint64_t u[NFMT];
  uint16_t want[NFMT]; /* f16 bf16 e4m3fn e5m2 e2m1fn */
} H5[] = {
    {"-0.0", 0, {-0.0, -0.0, -0.0, -0.0, -0.0}, {0}, {0x8000, 0x8000, 0x80, 0x80, 0x8}},
    {"max finite", 0, {0x1.ffcp+15, 0x1.fep+127, 0x1.cp+8, 0x1.cp+15, 0x1.8p+2}, {0}, {0x7BFF, 0x7F7F, 0x7E, 0x7B, 0x7}},
    {"min subnormal", 0, {0x1p-24, 0x1p-133, 0x1p-9, 0x1p-16, 0x1p-1}, {0}, {0x0001, 0x0001, 0x01, 0x01, 0x1}},
    {"min_sub/2 (tie)", 0, {0x1p-25, 0x1p-134, 0x1p-10, 0x1p-17, 0x1p-2}, {0}, {0x0000, 0x0000, 0x00, 0x00, 0x0}},
    {"min_sub/2*(1+2^-40)", 0,
     {0x1.0000000001p-25, 0x1.0000000001p-134, 0x1.0000000001p-10, 0x1.0000000001p-17, 0x1.0000000001p-2}, {0},
     {0x0001, 0x0001, 0x01, 0x01, 0x1}},
    {"1.5*min_sub (tie)", 0, {0x1.8p-24, 0x1.8p-133, 0x1.8p-9, 0x1.8p-16, 0x1.8p-1}, {0},
     {0x0002, 0x0002, 0x02, 0x02, 0x2}},
    {"(max_sub+min_norm)/2", 0, {0x1.ffcp-15, 0x1.fep-127, 0x1.ep-7, 0x1.cp-15, 0x1.8p-1}, {0},
     {0x0400, 0x0080, 0x08, 0x04, 0x2}},
    {"1+ulp/2 (tie)", 0, {0x1.002p+0, 0x1.01p+0, 0x1.1p+0, 0x1.2p+0, 0x1.4p+0}, {0}, {0x3C00, 0x3F80, 0x38, 0x3C, 0x2}},
    {"1+ulp/2+2^-40", 0, {0x1.0020000001p+0, 0x1.0100000001p+0, 0x1.1000000001p+0, 0x1.2000000001p+0, 0x1.4000000001p+0},
     {0}, {0x3C01, 0x3F81, 0x39, 0x3D, 0x3}},
    {"1+3ulp/2 (tie)", 0, {0x1.006p+0, 0x1.03p+0, 0x1.3p+0, 0x1.6p+0, 0x1.cp+0}, {0}, {0x3C02, 0x3F82, 0x3A, 0x3E, 0x4}},
    {"max+ulp/2 (tie)", 0, {0x1.ffep+15, 0x1.ffp+127, 0x1.dp+8, 0x1.ep+15, 0x1.cp+2}, {0},
     {0x7C00, 0x7F80, 0x7E, 0x7C, 0x7}},
    {"max+ulp/2 - 2^-40 ulp", 0,
     {0x1.ffdfffffffffcp+15, 0x1.fefffffffffep+127, 0x1.cfffffffffep+8, 0x1.dfffffffffcp+15, 0x1.bfffffffff8p+2}, {0},
     {0x7BFF, 0x7F7F, 0x7E, 0x7B, 0x7}},
    {"2*max", 0, {0x1.ffcp+16, 0x1.fep+128, 0x1.cp+9, 0x1.cp+16, 0x1.8p+3}, {0}, {0x7C00, 0x7F80, 0x7E, 0x7C, 0x7}},
    {"-inf", 1, {0}, {EXP64 | SIGN64, EXP64 | SIGN64, EXP64 | SIGN64, EXP64 | SIGN64, EXP64 | SIGN64},
     {0xFC00, 0xFF80, 0xFE, 0xFC, 0xF}},
    {"qNaN", 1, {0}, {0x7FF8000000000000ull, 0x7FF8000000000000ull, 0x7FF8000000000000ull, 0x7FF8000000000000ull,
                      0x7FF8000000000000ull},
     {0x7E00, 0x7FC0, 0x7F, 0x7E, 0x0}},
    {"-qNaN", 1, {0}, {0xFFF8000000000000ull, 0xFFF8000000000000ull, 0xFFF8000000000000ull, 0xFFF8000000000000ull,
                       0xFFF8000000000000ull},
     {0xFE00, 0xFFC0, 0xFF, 0xFE, 0x0}},
    {"NaN 0x7FF0000000000001", 1, {0}, {0x7FF0000000000001ull, 0x7FF0000000000001ull, 0x7FF0000000000001ull,
                                        0x7FF0000000000001ull, 0x7FF0000000000001ull},
     {0x7E00, 0x7FC0, 0x7F, 0x7E, 0x0}},
    {"NaN 0x7FF4000000000000", 1, {0}, {0x7FF4000000000000ull, 0x7FF4000000000000ull, 0x7FF4000000000000ull,
                                        0x7FF4000000000000ull, 0x7FF4000000000000ull},
     {0x7F00, 0x7FE0, 0x7F, 0x7F, 0x0}},
    {"0.1", 0, {0.1, 0.1, 0.1, 0.1, 0.1}, {0}, {0x2E66, 0x3DCD, 0x1D, 0x2E, 0x0}},
    {"pi", 0, {0x1.921fb54442d18p+1, 0x1.921fb54442d18p+1, 0x1.921fb54442d18p+1, 0x1.921fb54442d18p+1,
               0x1.921fb54442d18p+1},
     {0}, {0x4248, 0x4049, 0x45, 0x42, 0x5}},
    {"1e-300", 0, {1e-300, 1e-300, 1e-300, 1e-300, 1e-300}, {0}, {0x0000, 0x0000, 0x00, 0x00, 0x0}},
    {"-1e-300", 0, {-1e-300, -1e-300, -1e-300, -1e-300, -1e-300}, {0}, {0x8000, 0x8000, 0x80, 0x80, 0x8}},
};

/* ---- Integers: dtypes.md §2 ------------------------------------------------ */

static const struct {
  int code;
  const char *name;
  int by_bits;
  double x;
  uint64_t u;
  int64_t value;
  uint64_t want; /* the element's bits */
} I2[] = {
    {NX_INT4, "int4", D(7.9), 7, 0x7},
    {NX_INT4, "int4", D(-8.9), -8, 0x8},
    {NX_INT4, "int4", D(1e300), 7, 0x7},
    {NX_INT4, "int4", B(0xFFF0000000000000ull), -8, 0x8},
    {NX_INT4, "int4", B(0x7FF8000000000000ull), 0, 0x0},
    {NX_UINT4, "uint4", D(-0.9), 0, 0x0},
    {NX_UINT4, "uint4", D(-3.0), 0, 0x0},
    {NX_UINT4, "uint4", D(16.0), 15, 0xF},
};

int main(void) {
  /* §1 */
  long n1 = 0;
  for (size_t i = 0; i < sizeof V1 / sizeof V1[0]; i++, n1++)
    check_vector(V1[i].fi, V1[i].what, V1[i].by_bits ? V1[i].u : bits_of(V1[i].x), V1[i].want, V1[i].via);
  CHECK(n1 == 5 * 38, "dtypes_vectors.md §1 has 38 vectors in each of 5 tables, not %ld in all", n1);
  long c1 = check_count;

  /* §5 */
  for (size_t i = 0; i < sizeof H5 / sizeof H5[0]; i++)
    for (int fi = 0; fi < NFMT; fi++)
      check_vector(fi, H5[i].what, H5[i].by_bits ? H5[i].u[fi] : bits_of(H5[i].x[fi]), H5[i].want[fi], -1);
  /* §5's further float16 ties, float32 inputs: 2.5 * 2^-24 and 2 + 2^-10. */
  CHECK(nx_store_float16_f32(0x34200000u) == 0x0002, "float16 from float32 0x34200000: got 0x%X want 0x0002",
        nx_store_float16_f32(0x34200000u));
  CHECK(nx_store_float16_f32(0x40001000u) == 0x4000, "float16 from float32 0x40001000: got 0x%X want 0x4000",
        nx_store_float16_f32(0x40001000u));
  check_vector(F16, "f32 0x34200000 (2.5 min_sub)", bits_of((double)flt_of(0x34200000u)), 0x0002, -1);
  check_vector(F16, "f32 0x40001000 (2+2^-10)", bits_of((double)flt_of(0x40001000u)), 0x4000, -1);
  long c5 = check_count;

  /* §2's integer examples: the element's bits and of_float's value. */
  for (size_t i = 0; i < sizeof I2 / sizeof I2[0]; i++) {
    double x = I2[i].by_bits ? dbl_of(I2[i].u) : I2[i].x;
    uint64_t g = nx_dtype_store_bits(I2[i].code, x), g2 = nx_dtype_store_f64bits(I2[i].code, bits_of(x));
    CHECK(g == I2[i].want && g2 == I2[i].want, "%s store %a: got 0x%" PRIX64 " (portable 0x%" PRIX64 ") want 0x%" PRIX64,
          I2[i].name, x, g, g2, I2[i].want);
    nx_value v = nx_dtype_of_float((nx_dtype)I2[i].code, x);
    int64_t got = I2[i].code == NX_INT4 ? v.i : (int64_t)v.u;
    CHECK(got == I2[i].value, "%s of_float %a: got %" PRId64 " want %" PRId64, I2[i].name, x, got, I2[i].value);
  }
  long c2 = check_count;

  /* The seed's of_float examples. */
  {
    nx_value v = nx_dtype_of_float(NX_FLOAT16, 0.1);
    CHECK(bits_of(v.f) == bits_of(0x1.998p-4), "of_float float16 0.1: got %a want 0x1.998p-4", v.f);
    CHECK(nx_dtype_store_bits(NX_FLOAT16, 0.1) == 0x2E66, "float16 store 0.1: got 0x%" PRIX64,
          nx_dtype_store_bits(NX_FLOAT16, 0.1));
    CHECK(nx_dtype_load_bits(NX_FLOAT16, 0x2E66) == 0x1.998p-4, "float16 load 0x2E66: got %a",
          nx_dtype_load_bits(NX_FLOAT16, 0x2E66));
    v = nx_dtype_of_float(NX_FLOAT16, 65519.0);
    CHECK(v.f == 65504.0, "of_float float16 65519: got %a want 65504", v.f);
    CHECK(nx_dtype_store_bits(NX_FLOAT16, 65519.0) == 0x7BFF, "float16 store 65519: got 0x%" PRIX64,
          nx_dtype_store_bits(NX_FLOAT16, 65519.0));
    v = nx_dtype_of_float(NX_FLOAT16, 65520.0);
    CHECK(bits_of(v.f) == EXP64, "of_float float16 65520: got %a want inf", v.f);
    CHECK(nx_dtype_store_bits(NX_FLOAT16, 65520.0) == 0x7C00, "float16 store 65520: got 0x%" PRIX64,
          nx_dtype_store_bits(NX_FLOAT16, 65520.0));
    v = nx_dtype_of_float(NX_FLOAT8_E5M2, 61440.0);
    CHECK(bits_of(v.f) == EXP64, "of_float float8_e5m2 61440: got %a want inf", v.f);
    CHECK(nx_dtype_store_bits(NX_FLOAT8_E5M2, 61440.0) == 0x7C, "float8_e5m2 store 61440: got 0x%" PRIX64,
          nx_dtype_store_bits(NX_FLOAT8_E5M2, 61440.0));
    CHECK(nx_dtype_load_bits(NX_FLOAT8_E5M2, 0x7B) == 57344.0, "float8_e5m2 load 0x7B: got %a",
          nx_dtype_load_bits(NX_FLOAT8_E5M2, 0x7B));
    /* of_float of a NaN: the quiet NaN of x's sign; e2m1fn's +0. */
    static const uint64_t nans[] = {0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF0000000000001ull,
                                    0xFFF0000000000001ull, 0x7FF4000000000000ull};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++)
      for (int fi = 0; fi < NFMT; fi++) {
        uint64_t r = bits_of(nx_dtype_of_float((nx_dtype)FMT[fi].code, dbl_of(nans[i])).f);
        if (fi == E2M1)
          CHECK(r == 0, "of_float %s NaN 0x%016" PRIX64 ": got 0x%016" PRIX64 " want +0", FMT[fi].name, nans[i], r);
        else
          CHECK(is_nan_bits(r) && (r >> 63) == (nans[i] >> 63) && (r & (1ull << 51)),
                "of_float %s NaN 0x%016" PRIX64 ": got 0x%016" PRIX64 " want a quiet NaN of its sign", FMT[fi].name,
                nans[i], r);
      }
  }
  long cs = check_count;

  /* The NaN rows: a NaN stays a NaN (never an infinity), sign kept, quiet
     bit set; e4m3fn's S.1111.111; e2m1fn's +0. The signalling NaNs whose top
     payload bits are zero are the trap: 0x7FF0000000000001 and its like. */
  {
    static const struct {
      uint64_t u;
      uint16_t want[NFMT];
    } N[] = {
        {0x7FF0000000000001ull, {0x7E00, 0x7FC0, 0x7F, 0x7E, 0x0}},
        {0xFFF0000000000001ull, {0xFE00, 0xFFC0, 0xFF, 0xFE, 0x0}},
        {0x7FF0000000000400ull, {0x7E00, 0x7FC0, 0x7F, 0x7E, 0x0}},
        {0x7FF0000020000000ull, {0x7E00, 0x7FC0, 0x7F, 0x7E, 0x0}}, /* float32's last fraction bit only */
        {0x7FF8000000000000ull, {0x7E00, 0x7FC0, 0x7F, 0x7E, 0x0}},
        {0xFFF8000000000000ull, {0xFE00, 0xFFC0, 0xFF, 0xFE, 0x0}},
        {0x7FF4000000000000ull, {0x7F00, 0x7FE0, 0x7F, 0x7F, 0x0}},
        {0xFFFFFFFFFFFFFFFFull, {0xFFFF, 0xFFFF, 0xFF, 0xFF, 0x0}},
        {0x7FF7FFFFFFFFFFFFull, {0x7FFF, 0x7FFF, 0x7F, 0x7F, 0x0}},
    };
    for (size_t i = 0; i < sizeof N / sizeof N[0]; i++)
      for (int fi = 0; fi < NFMT; fi++) check_vector(fi, "NaN row", N[i].u, N[i].want[fi], -1);
    static const uint64_t infs[NFMT] = {0x7C00, 0x7F80, 0, 0x7C, 0};
    for (int fi = 0; fi < NFMT; fi++) {
      if (!infs[fi]) continue;
      uint64_t r = nx_dtype_store_bits(FMT[fi].code, dbl_of(0x7FF0000000000001ull));
      CHECK(r != infs[fi], "%s: the signalling NaN 0x7FF0000000000001 became infinity 0x%" PRIX64, FMT[fi].name, r);
    }
    /* float32: the quiet bit set, the top 23 payload bits kept. */
    CHECK(nx_dtype_store_bits(NX_FLOAT32, dbl_of(0x7FF0000000000001ull)) == 0x7FC00000u,
          "float32 store sNaN 0x7FF0000000000001: got 0x%" PRIX64,
          nx_dtype_store_bits(NX_FLOAT32, dbl_of(0x7FF0000000000001ull)));
    CHECK(nx_dtype_store_bits(NX_FLOAT32, dbl_of(0xFFF4000020000000ull)) == 0xFFE00001u,
          "float32 store NaN 0xFFF4000020000000: got 0x%" PRIX64,
          nx_dtype_store_bits(NX_FLOAT32, dbl_of(0xFFF4000020000000ull)));
  }
  long cn = check_count;

  printf("dtypes_vectors.md §1: %ld vectors, %ld checks\n", n1, c1);
  printf("dtypes.md §5 highlights and ties: %ld checks\n", c5 - c1);
  printf("dtypes.md §2 integers: %ld checks\n", c2 - c5);
  printf("seed of_float examples: %ld checks\n", cs - c2);
  printf("NaN rows: %ld checks\n", cn - cs);
  return check_done();
}
