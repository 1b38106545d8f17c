/* SPDX-License-Identifier: Apache-2.0 */
/* nx_dtype.h: nx's 21 element formats, their facts, and every conversion into
   and out of them.

   The first part of this header is portable and header-only: it compiles
   unchanged as C99, C++, CUDA, HIP, OpenCL C and Metal, so a kernel on any device
   stores exactly the bits the host stores. It uses integer bit manipulation only:
   no <math.h>, no libm, no dependence on the floating-point environment
   (rounding mode, flush-to-zero).

   The second part, for C and C++ hosts only, declares the Dtype API of
   libnx (names, byte counts, values, exactness, printing), whose failures set
   nx_error_message() (nx_error.h).

   Configuration (define before including):
     NX_DTYPE_PORTABLE_ONLY  leave out the host API declarations, as OpenCL C
                             and Metal do automatically (CUDA and HIP keep
                             them for the host code of a single source).

   Conventions. A dtype is named by its code (enum nx_dtype, NX_FLOAT64 = 0 ...
   NX_BIT = 20, the order of Dtype.all). Conversions work on bit patterns: a
   float64 is its 64 bits as nx_u64, a float32 its 32 bits as nx_u32, and an
   element of a format narrower than 64 bits sits in the low bits of an nx_u64.
   Wider elements are little-endian in memory; sub-byte elements pack
   little-endian inside a byte (element 0 in the low bits). */
#ifndef NX_DTYPE_H
#define NX_DTYPE_H

/* ---- Target shims ------------------------------------------------------- */

/* OpenCL C: an OpenCL runtime's compiler defines __OPENCL_VERSION__; an
   offline one (clang -x cl, to SPIR-V) may define only __OPENCL_C_VERSION__. */
#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define NX__OPENCL 1
#endif

#if defined(NX__OPENCL)
typedef ulong nx_u64;
typedef long nx_i64;
typedef uint nx_u32;
typedef ushort nx_u16;
typedef uchar nx_u8;
#define NX_FN static inline
#define NX_DTYPE_PORTABLE_ONLY 1
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define NX_HAS_DOUBLE 1
#define NX__F64_BITS(x) as_ulong(x)
#define NX__F64_OF_BITS(u) as_double(u)
#endif
#define NX_HAS_FLOAT 1
#define NX__F32_BITS(x) as_uint(x)
#define NX__F32_OF_BITS(u) as_float(u)
#elif defined(__METAL_VERSION__)
typedef ulong nx_u64;
typedef long nx_i64;
typedef uint nx_u32;
typedef ushort nx_u16;
typedef uchar nx_u8;
#define NX_FN static inline
#define NX_DTYPE_PORTABLE_ONLY 1
#define NX_HAS_FLOAT 1
#define NX__F32_BITS(x) as_type<uint>(x)
#define NX__F32_OF_BITS(u) as_type<float>(u)
#else
#include <stdint.h>
#include <string.h>
typedef uint64_t nx_u64;
typedef int64_t nx_i64;
typedef uint32_t nx_u32;
typedef uint16_t nx_u16;
typedef uint8_t nx_u8;
#if defined(__CUDACC__) || defined(__HIPCC__)
/* No NX_DTYPE_PORTABLE_ONLY in the device pass (__CUDA_ARCH__,
   __HIP_DEVICE_COMPILE__): it parses the host code of the same source too,
   whose calls need the host API declared; device code cannot call it. */
#define NX_FN static __host__ __device__ inline
#else
#define NX_FN static inline
#endif
#define NX_HAS_DOUBLE 1
#define NX_HAS_FLOAT 1
/* memcpy is the bit cast every C and C++ compiler (and nvcc's device code)
   folds to a register move; a union would be undefined behaviour in C++. */
NX_FN nx_u64 nx__f64_bits(double x) { nx_u64 u; memcpy(&u, &x, 8); return u; }
NX_FN double nx__f64_of_bits(nx_u64 u) { double x; memcpy(&x, &u, 8); return x; }
NX_FN nx_u32 nx__f32_bits(float x) { nx_u32 u; memcpy(&u, &x, 4); return u; }
NX_FN float nx__f32_of_bits(nx_u32 u) { float x; memcpy(&x, &u, 4); return x; }
#define NX__F64_BITS(x) nx__f64_bits(x)
#define NX__F64_OF_BITS(u) nx__f64_of_bits(u)
#define NX__F32_BITS(x) nx__f32_bits(x)
#define NX__F32_OF_BITS(u) nx__f32_of_bits(u)
#endif

/* ---- The facts table ---------------------------------------------------- */

/* One row per dtype, in code order. Columns:
     ID     the code's suffix: NX_<ID>
     name   Dtype.name, the seed's constructor name in lower case
     bits   the width of one element
     kind   NX_KIND_<kind>
     eb fb  for a float format (a complex one: its component's), the exponent
            and fraction widths; 0 otherwise
     inf nan whether the float format has infinities and NaNs
     sat    the float format saturates past its largest finite value (no
            infinity): the largest finite magnitude's bits, else 0 */
#define NX_DTYPE_TABLE(X)                                            \
  X(FLOAT64, float64, 64, FLOAT, 11, 52, 1, 1, 0)                    \
  X(FLOAT32, float32, 32, FLOAT, 8, 23, 1, 1, 0)                     \
  X(FLOAT16, float16, 16, FLOAT, 5, 10, 1, 1, 0)                     \
  X(BFLOAT16, bfloat16, 16, FLOAT, 8, 7, 1, 1, 0)                    \
  X(FLOAT8_E4M3FN, float8_e4m3fn, 8, FLOAT, 4, 3, 0, 1, 0x7E)        \
  X(FLOAT8_E5M2, float8_e5m2, 8, FLOAT, 5, 2, 1, 1, 0)               \
  X(FLOAT4_E2M1FN, float4_e2m1fn, 4, FLOAT, 2, 1, 0, 0, 0x7)         \
  X(INT64, int64, 64, SIGNED, 0, 0, 0, 0, 0)                         \
  X(UINT64, uint64, 64, UNSIGNED, 0, 0, 0, 0, 0)                     \
  X(INT32, int32, 32, SIGNED, 0, 0, 0, 0, 0)                         \
  X(UINT32, uint32, 32, UNSIGNED, 0, 0, 0, 0, 0)                     \
  X(INT16, int16, 16, SIGNED, 0, 0, 0, 0, 0)                         \
  X(UINT16, uint16, 16, UNSIGNED, 0, 0, 0, 0, 0)                     \
  X(INT8, int8, 8, SIGNED, 0, 0, 0, 0, 0)                            \
  X(UINT8, uint8, 8, UNSIGNED, 0, 0, 0, 0, 0)                        \
  X(INT4, int4, 4, SIGNED, 0, 0, 0, 0, 0)                            \
  X(UINT4, uint4, 4, UNSIGNED, 0, 0, 0, 0, 0)                        \
  X(COMPLEX128, complex128, 128, COMPLEX, 11, 52, 1, 1, 0)           \
  X(COMPLEX64, complex64, 64, COMPLEX, 8, 23, 1, 1, 0)               \
  X(BOOL, bool, 8, BOOLEAN, 0, 0, 0, 0, 0)                           \
  X(BIT, bit, 1, BOOLEAN, 0, 0, 0, 0, 0)

/* The dtypes, by code: Dtype.code and Dtype.all's order. */
typedef enum nx_dtype {
#define NX__ENUM(ID, name, bits, kind, eb, fb, inf, nan, sat) NX_##ID,
  NX_DTYPE_TABLE(NX__ENUM)
#undef NX__ENUM
  NX_DTYPE_COUNT /* 21: the number of dtypes */
} nx_dtype;

/* The kinds of number, in the seed's order (Dtype.kind). */
typedef enum nx_kind {
  NX_KIND_FLOAT,
  NX_KIND_COMPLEX,
  NX_KIND_SIGNED,
  NX_KIND_UNSIGNED,
  NX_KIND_BOOLEAN
} nx_kind;

/* Facts by code, as switches: every target turns them into tables, and a
   switch needs no address-space qualifier on any of them. An unknown code
   gives the default (0, or -1 for the kind). One case macro per column. */
#define NX__COL_bits(ID, name, bits, kind, eb, fb, inf, nan, sat) case NX_##ID: return bits;
#define NX__COL_kind(ID, name, bits, kind, eb, fb, inf, nan, sat) case NX_##ID: return NX_KIND_##kind;
#define NX__COL_eb(ID, name, bits, kind, eb, fb, inf, nan, sat) case NX_##ID: return eb;
#define NX__COL_fb(ID, name, bits, kind, eb, fb, inf, nan, sat) case NX_##ID: return fb;
#define NX__COL_inf(ID, name, bits, kind, eb, fb, inf, nan, sat) case NX_##ID: return inf;
#define NX__COL_nan(ID, name, bits, kind, eb, fb, inf, nan, sat) case NX_##ID: return nan;
#define NX__COL_sat(ID, name, bits, kind, eb, fb, inf, nan, sat) case NX_##ID: return sat;
#define NX__FACT(fn, col, dflt)                                   \
  NX_FN int fn(int code) {                                        \
    switch (code) { NX_DTYPE_TABLE(NX__COL_##col) }               \
    return dflt;                                                  \
  }
NX__FACT(nx_dtype_bits_of, bits, 0)
NX__FACT(nx_dtype_kind_of, kind, -1)
NX__FACT(nx_dtype_exponent_bits_of, eb, 0)
NX__FACT(nx_dtype_fraction_bits_of, fb, 0)
NX__FACT(nx_dtype_has_infinities, inf, 0)
NX__FACT(nx_dtype_has_nans, nan, 0)
NX__FACT(nx_dtype_saturation_of, sat, 0)

/* ---- Float formats: the store rule on bits ------------------------------ */

/* The bits of the largest finite magnitude of the binary format with eb
   exponent and fb fraction bits: all ones but the last where the top binade
   holds infinities and NaNs (IEEE), else as the table's sat column says. */
NX_FN nx_u64 nx__max_finite(int eb, int fb, int sat) {
  return sat ? (nx_u64)sat : ((((nx_u64)1 << eb) - 1) << fb) - 1;
}

/* The bits of the largest finite magnitude of float format `code` (of a
   complex one's component); 0 for other dtypes. */
NX_FN nx_u64 nx_dtype_max_finite_bits_of(int code) {
  int eb = nx_dtype_exponent_bits_of(code);
  return eb ? nx__max_finite(eb, nx_dtype_fraction_bits_of(code), nx_dtype_saturation_of(code)) : 0;
}

/* The stores and loads below have no data-dependent branches: every case
   (normal, subnormal, zero, overflow, infinity, NaN) is computed and the
   result picked by selects of computed values, which compilers make
   conditional moves (vector blends in a loop), so a store takes the same
   time on any data and a loop of them vectorizes. Conditions on the format
   (eb, fb, inf, ...) are constants once inlined. Where a compiler would
   branch on a select (gcc does when one side is a rare case), the select is
   written with a mask: nx__sel(c, a, b) is a where c holds, else b. */
NX_FN nx_u64 nx__sel(int c, nx_u64 a, nx_u64 b) { return b ^ ((a ^ b) & ((nx_u64)0 - (nx_u64)(c != 0))); }

/* The magnitude a (sign bit clear) of a finite float of exponent width se and
   fraction width sm, rounded once, ties to even, into the format of widths eb
   and fb with its exponent range unbounded above. The result's bits may pass
   the format's largest finite value (an infinity's always do, but for a
   store into the source's own format, where they are the infinity's); the
   caller applies overflow. Subnormal results are kept; a result below half
   the least subnormal is 0, as is a zero. Requires fb <= sm, a target whose
   least normal exponent is no lower than the source's, and, where the two
   biases differ, a target whose least subnormal is more than twice the
   source's least normal (so a subnormal source rounds to 0: f64 into every
   narrower format, f32 into float16 and the 8- and 4-bit ones); where they
   are equal a subnormal source needs no normalizing, its bits at the least
   exponent already place the target's rounding point. */
NX_FN nx_u64 nx__round_mag(nx_u64 a, int se, int sm, int eb, int fb) {
  /* Exponent arithmetic in 64 bits, the width of the bits: a vectorizer
     keeps every lane the same width. */
  nx_i64 sbias = (1 << (se - 1)) - 1, bias = (1 << (eb - 1)) - 1;
  nx_i64 e = (nx_i64)(a >> sm);
  nx_u64 sig = (a & (((nx_u64)1 << sm) - 1)) | ((nx_u64)1 << sm), q;
  if (sbias == bias) { /* a subnormal source: no implicit bit, the least exponent */
    nx_u64 z = (nx_u64)(e == 0);
    sig ^= z << sm;
    e += (nx_i64)z;
  }
  /* emin: the source exponent of the target's least normal binade; c: the
     rounding point (the bits below the target's last kept one) of source
     exponent 0, that of exponent e being c - e below emin, sm - fb from it. */
  nx_i64 emin = sbias - bias + 1, c = emin + sm - fb;
  /* Below emin - fb - 2 the result is 0 all the same: the exponent clamped
     there keeps the rounding point at most sm + 2, every shift below 64. */
  e = e < emin - fb - 2 ? emin - fb - 2 : e;
  nx_i64 s = c - e;
  s = s < sm - fb ? sm - fb : s;
  nx_u64 su = (nx_u64)s;
  /* Ties to even by one add: half a step less one, plus the lowest kept bit,
     carries exactly when the rest passes half or is half with that bit odd. */
  if (sm == fb) q = sig; /* nothing to round */
  else q = (sig + (((nx_u64)1 << (su - 1)) - 1) + ((sig >> su) & 1)) >> su;
  /* Adding the exponent, e - emin from emin up and 0 below (e + s - c both),
     to a q that still carries its implicit bit lets a rounding carry flow
     into the exponent: subnormal to normal, binade to binade. */
  return ((nx_u64)(e + s - c) << fb) + q;
}

/* The store rule from a float of widths (se, sm) given by its bits u, into the
   float format (eb, fb, inf, nan, sat) with fb <= sm, under nx__round_mag's
   requirements: the result's bits. */
NX_FN nx_u64 nx__store_float(nx_u64 u, int se, int sm, int eb, int fb, int inf, int nan, int sat) {
  int w = 1 + eb + fb;
  nx_u64 sign = ((u >> (se + sm)) & 1) << (w - 1), a = u & ((((nx_u64)1) << (se + sm)) - 1);
  nx_u64 sexp_all = (((nx_u64)1 << se) - 1) << sm;
  nx_u64 max = nx__max_finite(eb, fb, sat), inf_bits = (((nx_u64)1 << eb) - 1) << fb;
  nx_u64 over = inf ? inf_bits : max; /* overflow, infinity included */
  nx_u64 r = nx__round_mag(a, se, sm, eb, fb);
  /* An infinity's and a NaN's r pass max (their exponent is all ones): both
     give over here, and a NaN's result is over's bits and a few more. */
  r = sign | (r > max ? over : r);
  nx_u64 is_nan = (nx_u64)0 - (nx_u64)(a > sexp_all);
  if (!nan) return r & ~is_nan; /* float4_e2m1fn: +0 */
  if (!inf) return r | (is_nan & 1); /* float8_e4m3fn: S.1111.110 saturated, S.1111.111 the NaN */
  /* The top fb bits of the fraction (quiet bit and the payload below it),
     made quiet: a signalling NaN whose top payload bits are zero would
     otherwise become an infinity. */
  return r | (is_nan & (((a & (((nx_u64)1 << sm) - 1)) >> (sm - fb)) | ((nx_u64)1 << (fb - 1))));
}

/* The store rule from float64 bits for the formats narrower than float64. */
NX_FN nx_u64 nx__store_from_f64(nx_u64 u, int eb, int fb, int inf, int nan, int sat) {
  return nx__store_float(u, 11, 52, eb, fb, inf, nan, sat);
}

/* float64 and float32 as the formats' sources. */
#define NX__F64 11, 52
#define NX__F32 8, 23

/* Store rule from float64 bits u, one function per float format: the bits
   the element holds. */
NX_FN nx_u64 nx_store_float64_f64(nx_u64 u) { return nx__store_float(u, NX__F64, 11, 52, 1, 1, 0); }
NX_FN nx_u32 nx_store_float32_f64(nx_u64 u) { return (nx_u32)nx__store_from_f64(u, 8, 23, 1, 1, 0); }
NX_FN nx_u16 nx_store_float16_f64(nx_u64 u) { return (nx_u16)nx__store_from_f64(u, 5, 10, 1, 1, 0); }
NX_FN nx_u16 nx_store_bfloat16_f64(nx_u64 u) { return (nx_u16)nx__store_from_f64(u, 8, 7, 1, 1, 0); }
NX_FN nx_u8 nx_store_float8_e4m3fn_f64(nx_u64 u) { return (nx_u8)nx__store_from_f64(u, 4, 3, 0, 1, 0x7E); }
NX_FN nx_u8 nx_store_float8_e5m2_f64(nx_u64 u) { return (nx_u8)nx__store_from_f64(u, 5, 2, 1, 1, 0); }
NX_FN nx_u8 nx_store_float4_e2m1fn_f64(nx_u64 u) { return (nx_u8)nx__store_from_f64(u, 2, 1, 0, 0, 0x7); }

/* Direct float32 conversions: the store rule from float32 bits u, one rounding
   (a float32 that came from a double has been rounded once already: store the
   double itself to keep to one rounding). */
NX_FN nx_u16 nx_store_float16_f32(nx_u32 u) { return (nx_u16)nx__store_float(u, NX__F32, 5, 10, 1, 1, 0); }
NX_FN nx_u16 nx_store_bfloat16_f32(nx_u32 u) { return (nx_u16)nx__store_float(u, NX__F32, 8, 7, 1, 1, 0); }
NX_FN nx_u8 nx_store_float8_e4m3fn_f32(nx_u32 u) { return (nx_u8)nx__store_float(u, NX__F32, 4, 3, 0, 1, 0x7E); }
NX_FN nx_u8 nx_store_float8_e5m2_f32(nx_u32 u) { return (nx_u8)nx__store_float(u, NX__F32, 5, 2, 1, 1, 0); }
NX_FN nx_u8 nx_store_float4_e2m1fn_f32(nx_u32 u) { return (nx_u8)nx__store_float(u, NX__F32, 2, 1, 0, 0, 0x7); }

/* Integers: truncate toward zero and saturate to the range of the `bits`-wide
   integer, signed or not; NaN stores as 0. The result is the element's bits
   (two's complement for signed ones). */
NX_FN nx_u64 nx__store_int(nx_u64 u, int bits, int is_signed) {
  nx_u64 neg = u >> 63, a = u & 0x7FFFFFFFFFFFFFFFull;
  nx_u64 mask = bits == 64 ? ~(nx_u64)0 : ((nx_u64)1 << bits) - 1;
  nx_i64 x = (nx_i64)(a >> 52) - 1023; /* 64 bits, as the stores of floats */
  nx_i64 lim = is_signed ? bits - 1 : bits; /* magnitudes from 2^lim saturate */
  nx_u64 sig = (a & 0xFFFFFFFFFFFFFull) | 0x10000000000000ull;
  /* The integer part of a magnitude in [1, 2^lim): both shifts clamped into
     0..63 (outside, the result is picked from elsewhere), the one that
     applies picked. */
  nx_i64 rs = 52 - x, ls = x - 52;
  rs = rs < 0 ? 0 : rs > 63 ? 63 : rs;
  ls = ls < 0 ? 0 : ls & 63;
  nx_u64 mag = nx__sel(x <= 52, sig >> (nx_u64)rs, sig << (nx_u64)ls), r;
  if (is_signed) {
    nx_u64 top = ((nx_u64)1 << lim) - 1; /* lim <= 63 */
    /* saturation: -2^lim or 2^lim - 1 */
    r = nx__sel(x >= lim, top + neg, nx__sel((int)neg, (nx_u64)0 - mag, mag)) & mask;
  } else {
    r = nx__sel((int)neg, 0, nx__sel(x >= lim, mask, mag));
  }
  return nx__sel((a > 0x7FF0000000000000ull) | (x < 0), 0, r); /* NaN, or |x| < 1 */
}

/* Booleans store x != 0: true for NaN, false for -0. */
NX_FN nx_u64 nx__store_bool(nx_u64 u) { return (u & 0x7FFFFFFFFFFFFFFFull) != 0; }

/* The store rule by code, from float64 bits u: the element's bits in the low
   bits of the result. A complex dtype stores u as its real part and a zero
   imaginary part: the result is the element's low 64 bits (its real part).
   An unknown code gives 0. */
NX_FN nx_u64 nx_dtype_store_f64bits(int code, nx_u64 u) {
  switch (code) {
  case NX_FLOAT64: case NX_COMPLEX128: return nx_store_float64_f64(u);
  case NX_FLOAT32: case NX_COMPLEX64: return nx_store_float32_f64(u);
  case NX_FLOAT16: return nx_store_float16_f64(u);
  case NX_BFLOAT16: return nx_store_bfloat16_f64(u);
  case NX_FLOAT8_E4M3FN: return nx_store_float8_e4m3fn_f64(u);
  case NX_FLOAT8_E5M2: return nx_store_float8_e5m2_f64(u);
  case NX_FLOAT4_E2M1FN: return nx_store_float4_e2m1fn_f64(u);
  case NX_INT64: case NX_INT32: case NX_INT16: case NX_INT8: case NX_INT4:
    return nx__store_int(u, nx_dtype_bits_of(code), 1);
  case NX_UINT64: case NX_UINT32: case NX_UINT16: case NX_UINT8: case NX_UINT4:
    return nx__store_int(u, nx_dtype_bits_of(code), 0);
  case NX_BOOL: case NX_BIT: return nx__store_bool(u);
  }
  return 0;
}

/* ---- Loads -------------------------------------------------------------- */

/* The bits of the float of widths (de, dm) whose value is that of the float
   format (eb, fb, inf, nan, sat) element b: exact, for a destination of at
   least the format's precision and range, its subnormals normal there. A NaN
   keeps its sign and its fraction's bits at the top of the destination's; the
   e4m3fn NaN gives the quiet NaN of its sign. Without data-dependent branches,
   as the stores. Requires fb < 32. */
NX_FN nx_u64 nx__load_float(nx_u64 b, int eb, int fb, int inf, int nan, int de, int dm) {
  int bias = (1 << (eb - 1)) - 1, dbias = (1 << (de - 1)) - 1, emax = (1 << eb) - 1;
  nx_u64 sign = (b >> (eb + fb)) & 1, fmask = ((nx_u64)1 << fb) - 1, f = b & fmask;
  nx_u64 dall = (((nx_u64)1 << de) - 1) << dm, r, g = f;
  nx_i64 e = (nx_i64)((b >> fb) & (nx_u64)emax), x = 1 - bias; /* 64 bits, as in the stores */
  /* A subnormal's normalization: shift its leading one up to bit fb, by a
     binary search of fixed length (the steps are powers of two summing to at
     least fb, each taken iff the bits it would skip are zero). */
#define NX__NORM_STEP(st)                                   \
  if ((st) <= fb) {                                         \
    nx_i64 k = (st) & -(nx_i64)((g >> (fb + 1 - (st))) == 0); \
    g <<= (nx_u64)k;                                        \
    x -= k;                                                 \
  }
  NX__NORM_STEP(16) NX__NORM_STEP(8) NX__NORM_STEP(4) NX__NORM_STEP(2) NX__NORM_STEP(1)
#undef NX__NORM_STEP
  r = nx__sel(e != 0, ((nx_u64)(e - bias + dbias) << dm) | (f << (dm - fb)),
              nx__sel(f != 0, ((nx_u64)(x + dbias) << dm) | ((g & fmask) << (dm - fb)), 0));
  if (inf) r = nx__sel(e == emax, dall | (f << (dm - fb)), r); /* infinity or NaN */
  else if (nan) r = nx__sel((e == emax) & (f == fmask), dall | ((nx_u64)1 << (dm - 1)), r);
  return (sign << (de + dm)) | r;
}

/* The float64 bits of the integer n, rounded to nearest, ties to even, where
   |n| passes 2^53 (integer arithmetic: no dependence on the rounding mode). */
NX_FN nx_u64 nx__f64bits_of_u64(nx_u64 n, nx_u64 sign) {
  int l = 0; /* the bit length of n */
  nx_u64 t = n, q;
  if (n == 0) return sign << 63;
  if (t >> 32) { t >>= 32; l += 32; }
  if (t >> 16) { t >>= 16; l += 16; }
  if (t >> 8) { t >>= 8; l += 8; }
  if (t >> 4) { t >>= 4; l += 4; }
  if (t >> 2) { t >>= 2; l += 2; }
  if (t >> 1) { t >>= 1; l += 1; }
  l += 1;
  if (l <= 53) q = n << (53 - l);
  else {
    int s = l - 53;
    nx_u64 rest = n & (((nx_u64)1 << s) - 1), halfway = (nx_u64)1 << (s - 1);
    q = n >> s;
    q += (rest > halfway) | ((rest == halfway) & (q & 1));
    if (q >> 53) { q >>= 1; l++; }
  }
  return (sign << 63) | ((nx_u64)(l - 1 + 1023) << 52) | (q & 0xFFFFFFFFFFFFFull);
}

/* The value of an element of a `bits`-wide integer format whose bits are b,
   sign-extended for a signed one. */
NX_FN nx_i64 nx__int_value(nx_u64 b, int bits, int is_signed) {
  nx_u64 mask = bits == 64 ? ~(nx_u64)0 : ((nx_u64)1 << bits) - 1;
  b &= mask;
  if (is_signed && bits < 64 && (b >> (bits - 1))) b |= ~mask;
  return (nx_i64)b;
}

/* Loads into float64 bits, one function per float format. */
NX_FN nx_u64 nx_load_float32_f64(nx_u32 b) { return nx__load_float(b, 8, 23, 1, 1, NX__F64); }
NX_FN nx_u64 nx_load_float16_f64(nx_u16 b) { return nx__load_float(b, 5, 10, 1, 1, NX__F64); }
NX_FN nx_u64 nx_load_bfloat16_f64(nx_u16 b) { return nx__load_float(b, 8, 7, 1, 1, NX__F64); }
NX_FN nx_u64 nx_load_float8_e4m3fn_f64(nx_u8 b) { return nx__load_float(b, 4, 3, 0, 1, NX__F64); }
NX_FN nx_u64 nx_load_float8_e5m2_f64(nx_u8 b) { return nx__load_float(b, 5, 2, 1, 1, NX__F64); }
NX_FN nx_u64 nx_load_float4_e2m1fn_f64(nx_u8 b) { return nx__load_float(b & 0xF, 2, 1, 0, 0, NX__F64); }

/* Loads into float32 bits, exact, for the formats narrower than float32. */
NX_FN nx_u32 nx_load_float16_f32(nx_u16 b) { return (nx_u32)nx__load_float(b, 5, 10, 1, 1, NX__F32); }
NX_FN nx_u32 nx_load_bfloat16_f32(nx_u16 b) { return (nx_u32)b << 16; /* same exponent range */ }
NX_FN nx_u32 nx_load_float8_e4m3fn_f32(nx_u8 b) { return (nx_u32)nx__load_float(b, 4, 3, 0, 1, NX__F32); }
NX_FN nx_u32 nx_load_float8_e5m2_f32(nx_u8 b) { return (nx_u32)nx__load_float(b, 5, 2, 1, 1, NX__F32); }
NX_FN nx_u32 nx_load_float4_e2m1fn_f32(nx_u8 b) { return (nx_u32)nx__load_float(b & 0xF, 2, 1, 0, 0, NX__F32); }

/* The value of an element of dtype `code` whose bits are b, as float64 bits:
   exact for every float format and for integers up to 2^53 in magnitude, the
   nearest double (ties to even) beyond; 0 or 1 for booleans (any nonzero bits
   are true); a complex element's real part, from its low 64 bits. An unknown
   code gives 0. */
NX_FN nx_u64 nx_dtype_load_f64bits(int code, nx_u64 b) {
  nx_i64 v;
  switch (code) {
  case NX_FLOAT64: case NX_COMPLEX128: return b;
  case NX_FLOAT32: case NX_COMPLEX64: return nx_load_float32_f64((nx_u32)b);
  case NX_FLOAT16: return nx_load_float16_f64((nx_u16)b);
  case NX_BFLOAT16: return nx_load_bfloat16_f64((nx_u16)b);
  case NX_FLOAT8_E4M3FN: return nx_load_float8_e4m3fn_f64((nx_u8)b);
  case NX_FLOAT8_E5M2: return nx_load_float8_e5m2_f64((nx_u8)b);
  case NX_FLOAT4_E2M1FN: return nx_load_float4_e2m1fn_f64((nx_u8)b);
  case NX_INT64: case NX_INT32: case NX_INT16: case NX_INT8: case NX_INT4:
    v = nx__int_value(b, nx_dtype_bits_of(code), 1);
    return v < 0 ? nx__f64bits_of_u64((nx_u64)0 - (nx_u64)v, 1) : nx__f64bits_of_u64((nx_u64)v, 0);
  case NX_UINT64: case NX_UINT32: case NX_UINT16: case NX_UINT8: case NX_UINT4:
    return nx__f64bits_of_u64((nx_u64)nx__int_value(b, nx_dtype_bits_of(code), 0), 0);
  case NX_BOOL: return (b & 0xFF) ? 0x3FF0000000000000ull : 0;
  case NX_BIT: return (b & 1) ? 0x3FF0000000000000ull : 0;
  }
  return 0;
}

#if defined(NX_HAS_DOUBLE)
/* The store rule and the load by code on doubles. */
NX_FN nx_u64 nx_dtype_store_double(int code, double x) { return nx_dtype_store_f64bits(code, NX__F64_BITS(x)); }
NX_FN double nx_dtype_load_double(int code, nx_u64 b) { return NX__F64_OF_BITS(nx_dtype_load_f64bits(code, b)); }
#endif

/* ---- Sub-byte elements -------------------------------------------------- */

/* The element at position p of a buffer of `bits`-wide elements (1, 2 or 4),
   packed little-endian inside each byte: element 0 in the low bits. */
#if defined(NX__OPENCL)
#define NX__GLOBAL global
#elif defined(__METAL_VERSION__)
#define NX__GLOBAL device /* Metal pointers need an address space */
#else
#define NX__GLOBAL
#endif
NX_FN nx_u8 nx_subbyte_get(const NX__GLOBAL nx_u8 *buf, nx_i64 p, int bits) {
  nx_i64 bit = p * bits;
  return (nx_u8)((buf[bit >> 3] >> (bit & 7)) & ((1u << bits) - 1));
}

/* Stores v's low `bits` bits as the element at position p, leaving the other
   bits of its byte as they are. Not atomic: a byte shared with another thread's
   stores needs the array module's atomic store. */
NX_FN void nx_subbyte_put(NX__GLOBAL nx_u8 *buf, nx_i64 p, int bits, nx_u8 v) {
  nx_i64 bit = p * bits;
  unsigned mask = ((1u << bits) - 1) << (bit & 7);
  buf[bit >> 3] = (nx_u8)((buf[bit >> 3] & ~mask) | (((unsigned)v << (bit & 7)) & mask));
}

/* ---- The Dtype API (C and C++ hosts, libnx) ----------------------------- */

#if !defined(NX_DTYPE_PORTABLE_ONLY)
#include <stddef.h>
#include "nx_error.h"
#ifndef __cplusplus
#include <stdbool.h>
#endif
#ifdef __cplusplus
extern "C" {
#endif

/* A complex value: its real part first, as a complex element stores it. */
typedef struct nx_complex {
  double re, im;
} nx_complex;

/* A value of a dtype, the C form of the seed's 'v: the member its kind names
   holds it. Float formats: f (a double holds every value of every float
   format). Signed integers: i. Unsigned integers: u. Complex: c. Booleans: b. */
typedef union nx_value {
  double f;
  int64_t i;
  uint64_t u;
  nx_complex c;
  bool b;
} nx_value;

/* The facts of a float format (Dtype.float_format). */
typedef struct nx_float_format {
  int exponent_bits; /* the width of the exponent field */
  int fraction_bits; /* the width of the fraction field, without the implicit bit */
  bool infinities;   /* whether the format has infinities */
  bool nans;         /* whether the format has NaNs */
  double epsilon;    /* the gap between 1 and the next value, 2^-fraction_bits */
  double min_normal; /* the least positive normal value */
  double max_finite; /* the largest finite value */
} nx_float_format;

/* Functions below that take an nx_dtype need one of the 21 codes; another
   value gives -1 (nx_dtype_code), 0, NULL or false (as the function's type
   allows) and sets nx_error_message(), naming the function. */

/* The queries from nx_dtype_code to nx_dtype_one take a dtype by value. One
   that is no dtype (a code outside 0 to NX_DTYPE_COUNT - 1, as a cast of a
   bad integer gives) fails: nx_error_message() then names the function and
   the code, and the query answers -1 (code), 0 (bits), NULL (name),
   NX_KIND_FLOAT (kind), false (is, equal), or a value of zero bits (zero,
   one). */

/* nx_dtype_all() is every dtype in code order: NX_DTYPE_COUNT of them. */
NX_API const nx_dtype *nx_dtype_all(void);

/* nx_dtype_code(dt) is dt's code: its index in nx_dtype_all() and its NX_<NAME>. */
NX_API int nx_dtype_code(nx_dtype dt);

/* nx_dtype_of_code(c, &dt) sets dt to the dtype whose code is c and returns 0,
   or returns NX_NONE and leaves dt unset unless 0 <= c < NX_DTYPE_COUNT.
   It allocates nothing. Fails with NX_EINVAL if dt is NULL. */
NX_API int nx_dtype_of_code(int c, nx_dtype *dt);

/* nx_dtype_bits(dt) is the width of one element of dt in bits: 1 for NX_BIT,
   4 for the 4-bit formats, 8 for NX_BOOL, up to 128 for NX_COMPLEX128. */
NX_API int nx_dtype_bits(nx_dtype dt);

/* nx_dtype_bytes(dt, n, &b) sets b to the number of bytes n elements of dt
   fill, ceil(n * bits / 8), and returns 0.
   Fails with NX_EINVAL, b unset, if n < 0 or the number does not fit in an
   int64_t. */
NX_API int nx_dtype_bytes(nx_dtype dt, int64_t n, int64_t *b);

/* nx_dtype_name(dt) is dt's name, the seed's constructor name in lower case,
   as "float32" or "float4_e2m1fn": a static string. */
NX_API const char *nx_dtype_name(nx_dtype dt);

/* nx_dtype_of_name(s, &dt) sets dt to the dtype named s and returns 0, or
   returns NX_NONE, dt unset, if no dtype has that name (NULL included).
   Fails with NX_EINVAL if dt is NULL. */
NX_API int nx_dtype_of_name(const char *s, nx_dtype *dt);

/* nx_dtype_kind(dt) is the kind of number dt holds. */
NX_API nx_kind nx_dtype_kind(nx_dtype dt);

/* nx_dtype_is(k, dt) is true iff nx_dtype_kind(dt) is k. */
NX_API bool nx_dtype_is(nx_kind k, nx_dtype dt);

/* nx_dtype_equal(a, b) is true iff a and b are the same dtype. */
NX_API bool nx_dtype_equal(nx_dtype a, nx_dtype b);

/* nx_dtype_zero(dt) is dt's additive identity: 0, 0+0i, and false for booleans. */
NX_API nx_value nx_dtype_zero(nx_dtype dt);

/* nx_dtype_one(dt) is dt's multiplicative identity: 1, 1+0i, and true for booleans. */
NX_API nx_value nx_dtype_one(nx_dtype dt);

/* nx_dtype_min_value(dt, &v) sets v to dt's least value and returns 0:
   -infinity for a float format with infinities, -448 for float8_e4m3fn and -6
   for float4_e2m1fn, the least integer, 0 for unsigned formats, and false for
   booleans.
   Fails with NX_EINVAL, v unset, if dt is complex. */
NX_API int nx_dtype_min_value(nx_dtype dt, nx_value *v);

/* nx_dtype_max_value(dt, &v) sets v to dt's greatest value and returns 0:
   infinity for a float format with infinities, 448 for float8_e4m3fn and 6
   for float4_e2m1fn, the greatest integer (15, 255, 65535, ... for unsigned
   ones, UINT64_MAX for uint64), and true for booleans.
   Fails with NX_EINVAL, v unset, if dt is complex. */
NX_API int nx_dtype_max_value(nx_dtype dt, nx_value *v);

/* nx_dtype_holds(dt, v) is false iff dt is an integer format and v an integer
   below its least or above its greatest value: the only values a store into
   dt refuses. It allocates nothing. */
NX_API bool nx_dtype_holds(nx_dtype dt, nx_value v);

/* nx_dtype_exact(a, b) is true iff every value of a is a value of b, so that a
   store of one into b gives the same number, the same infinity or a NaN. A
   boolean is 0 or 1, which every dtype holds, and only a boolean holds a
   boolean. An integer is exact into an integer that holds its range, and into
   a float whose significand (fraction_bits and one) holds its magnitude: int8
   into bfloat16, int16 into float32, int32 into float64, int64 into none. A
   float is exact into a float of at least its precision, range and least
   magnitude that has an infinity and a NaN where it does: float16 and bfloat16
   into float32, the 8-bit floats into float16. A complex number is exact only
   into a complex dtype, and a real into a complex one whose component it is
   exact into. It allocates nothing. */
NX_API bool nx_dtype_exact(nx_dtype a, nx_dtype b);

/* nx_dtype_of_float(dt, x) is the value a store of x into dt holds (the store
   rule): for a float format the nearest value, ties to even, with dt's
   overflow and NaN rules; integers truncate toward zero and saturate, NaN to 0;
   complex x+0i rounded to the component; booleans x != 0, true for NaN. */
NX_API nx_value nx_dtype_of_float(nx_dtype dt, double x);

/* nx_dtype_float_format(dt, &f) sets f to the facts of dt's float format and
   returns 0.
   Fails with NX_EINVAL, f unset, unless dt is a float format (the seed's type
   admits only those). */
NX_API int nx_dtype_float_format(nx_dtype dt, nx_float_format *f);

/* nx_dtype_pp_value(dt, v, buf, cap) writes the text of a value v of dt into
   buf, NUL-terminated, and returns its length:
   - a finite float as the fewest significant digits that round back to it
     under the store rule with the exponent unbounded above, and of those the
     nearest, ties to the even digit: "0.1" for the float32 nearest 0.1,
     "65500" for float16 65504, "450" for float8_e4m3fn 448. Positional for
     magnitudes from 1e-4 up to 1e16, as "0.01563", and d.ddde+XX outside, as
     "1.59e+29" and "6e-08"; the same digits on every system. "-0"; "nan",
     "inf", "-inf" for a float that is not finite, in every float format
     (those without NaN or infinities included: only a finite float is
     refused);
   - an integer in decimal, an unsigned one unsigned;
   - a complex number as its two components so formatted, "re+imi" or "re-imi"
     when the imaginary part is negative, as "0.5-2i";
   - a boolean as "true" or "false".
   Fails with NX_EINVAL, buf's contents unspecified, if a finite float or a
   complex component is not a value of dt's format (0.1 is not a float32), an
   integer is outside dt's range, or cap is too small for the text and its NUL
   (at most NX_DTYPE_PP_MAX bytes for any value). */
NX_API int nx_dtype_pp_value(nx_dtype dt, nx_value v, char *buf, size_t cap);

/* The longest text nx_dtype_pp_value writes, its NUL included. */
#define NX_DTYPE_PP_MAX 64

/* The bits an element of dtype `code` holds after a store of x (the store
   rule), in the low bits of the result. Defined for every non-complex dtype;
   for a complex one, its real part's bits (the element's low 64 bits). An
   unknown code gives 0 and sets nx_error_message(). */
NX_API uint64_t nx_dtype_store_bits(int code, double x);

/* The value of an element of dtype `code` whose bits are `bits`, as a double
   (exact for every float format and for integers up to 2^53 in magnitude; the
   nearest double, ties to even, beyond). An unknown code gives 0 and sets
   nx_error_message(). */
NX_API double nx_dtype_load_bits(int code, uint64_t bits);

/* pp_value for a real value x of dtype `code` into buf (NUL-terminated, at most
   cap bytes): integers and booleans given as the double of their value, a
   complex dtype's x as x+0i. Returns the length, or -1 with nx_error_message()
   set if code is unknown, x is not a value of the format (0.1 is not a
   float32, 2.5 not an int8; a float that is not finite prints, as
   nx_dtype_pp_value says) or the buffer is too small. */
NX_API int nx_dtype_format_value(int code, double x, char *buf, size_t cap);

/* nx_dtype_store_n(dt, x, out, n) stores the n doubles x[0], ..., x[n-1]
   into n elements of dt at out, each the bits nx_dtype_store_bits(dt, x[i])
   gives, in the element's byte width (a complex element: x[i] as its real
   part and a zero imaginary part). Sub-byte elements pack little-endian in
   ceil(n * bits / 8) bytes, element 0 in the low bits; the bits of a last
   partial byte past element n - 1 keep their values. out needs no alignment;
   x and out must not overlap. Vectorized where the CPU allows; the same bits
   on every CPU. Returns 0.
   Fails with NX_EINVAL, nothing written, if dt is not a dtype, x or out is
   NULL, or n < 0. */
NX_API int nx_dtype_store_n(nx_dtype dt, const double *x, void *out, int64_t n);

/* nx_dtype_load_n(dt, in, x, n) sets x[i], for i < n, to the value of
   element i of the n elements of dt at in (laid out as nx_dtype_store_n
   writes them): the double nx_dtype_load_bits gives for its bits (a complex
   element: its real part). in needs no alignment; in and x must not overlap.
   Returns 0.
   Fails with NX_EINVAL, nothing written, if dt is not a dtype, in or x is
   NULL, or n < 0. */
NX_API int nx_dtype_load_n(nx_dtype dt, const void *in, double *x, int64_t n);

#ifdef __cplusplus
}
#endif
#endif /* !NX_DTYPE_PORTABLE_ONLY */

#endif /* NX_DTYPE_H */
