/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the typed loops (typed.h): the macros that write one loop,
   named for the level they are compiled for. A file defines NX__SUF (the
   name's suffix) and NX__TGT (the level's target attribute, or nothing) and
   then expands the loop lists of typed_elem_loops.h or typed_cast_loops.h,
   once per level. */
#ifndef NX_KERNELS_TYPED_DEFS_H
#define NX_KERNELS_TYPED_DEFS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NX__TYPED_X86 1
#define NX__TGT_AVX2 __attribute__((target("avx2")))
#define NX__TGT_512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))
#endif

#define NX__CAT_(a, b) a##b
#define NX__CAT(a, b) NX__CAT_(a, b)
#define NX__N(name) NX__CAT(name, NX__SUF)

/* z and x may be one array (an operation in place): each element is read
   before its own result is written, and no other, so the loops carry no
   dependence and vectorize without the compiler's overlap checks. */
#if defined(__clang__)
#define NX__IVDEP _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define NX__IVDEP _Pragma("GCC ivdep")
#else
#define NX__IVDEP
#endif

typedef void (*nx__un_fn)(void *z, const void *x, int64_t n);
typedef void (*nx__bin_fn)(void *z, const void *x, const void *y, int64_t n);
typedef void (*nx__wh_fn)(void *z, const void *c, const void *x, const void *y, int64_t n);

/* z[i] = EXPR of v = x[i]. */
#define NX__UN(name, TZ, TX, EXPR)                                        \
  NX__TGT static void NX__N(name)(void *zv, const void *xv, int64_t n) { \
    TZ *z = zv;                                                           \
    const TX *x = xv;                                                     \
    NX__IVDEP for (int64_t i = 0; i < n; i++) {                           \
      TX v = x[i];                                                        \
      z[i] = (EXPR);                                                      \
    }                                                                     \
  }

/* z[i] = EXPR of v = x[i], w = y[i]. */
#define NX__BIN(name, TZ, TX, EXPR)                                                        \
  NX__TGT static void NX__N(name)(void *zv, const void *xv, const void *yv, int64_t n) { \
    TZ *z = zv;                                                                            \
    const TX *x = xv, *y = yv;                                                             \
    NX__IVDEP for (int64_t i = 0; i < n; i++) {                                            \
      TX v = x[i], w = y[i];                                                               \
      z[i] = (EXPR);                                                                       \
    }                                                                                      \
  }

/* z[i] = c[i] ? x[i] : y[i], both read (no branch). */
#define NX__WH(name, T)                                                                                   \
  NX__TGT static void NX__N(name)(void *zv, const void *cv, const void *xv, const void *yv, int64_t n) { \
    T *z = zv;                                                                                            \
    const T *x = xv, *y = yv;                                                                             \
    const uint8_t *c = cv;                                                                                \
    NX__IVDEP for (int64_t i = 0; i < n; i++) {                                                           \
      T a = x[i], b = y[i];                                                                               \
      z[i] = c[i] ? a : b;                                                                                \
    }                                                                                                     \
  }

/* ---- Elementwise ---- */

/* round: half away from zero. v - trunc(v) is exact, so its magnitude
   decides; an infinity gives NaN there and keeps trunc's infinity. */
#define NX__ROUND(T, f, v) \
  (fabs##f((v) - trunc##f(v)) >= (T)0.5 ? trunc##f(v) + copysign##f((T)1, v) : trunc##f(v))

/* A float format s of type T, bits B, sign bit SG, libm suffix f: the sign
   operations on the bits (a NaN's kept), the others in T itself, whose
   results are the correctly rounded ones (double's, stored once, for
   float32: double holds 2p+2 bits of float32), a NaN operand's NaN quieted
   as the element path's store quiets it (v + v before libm's trunc and the
   like, which the base level calls and which may return a signalling NaN
   as it is). */
#define NX__FLOAT_UN(s, T, B, SG, f)                                   \
  NX__UN(neg_##s, B, B, v ^ SG)                                        \
  NX__UN(abs_##s, B, B, v & ~SG)                                       \
  NX__UN(sqrt_##s, T, T, sqrt##f(v))                                   \
  NX__UN(sign_##s, T, T, v != v || v == 0 ? v : v > 0 ? (T)1 : (T)-1) \
  NX__UN(trunc_##s, T, T, v != v ? v + v : trunc##f(v))               \
  NX__UN(ceil_##s, T, T, v != v ? v + v : ceil##f(v))                 \
  NX__UN(floor_##s, T, T, v != v ? v + v : floor##f(v))               \
  NX__UN(round_##s, T, T, v != v ? v + v : NX__ROUND(T, f, v))        \
  NX__UN(recip_##s, T, T, (T)1 / v)

/* Integers wrap through the unsigned type U. */
#define NX__SINT_UN(s, T, U)                              \
  NX__UN(neg_##s, T, T, (T)(0 - (U)v))                    \
  NX__UN(abs_##s, T, T, v < 0 ? (T)(0 - (U)v) : v)        \
  NX__UN(sign_##s, T, T, (T)((v > 0) - (v < 0)))
#define NX__UINT_UN(s, T)             \
  NX__UN(neg_##s, T, T, (T)(0u - v))  \
  NX__UN(sign_##s, T, T, (T)(v != 0))

/* Binary arithmetic of a float format: a NaN first operand gives its own
   NaN, quieted (v + v), whichever operand the instruction takes first, as
   the element path has it. */
#define NX__FLOAT_BIN(s, T, B)                            \
  NX__BIN(add_##s, T, T, v != v ? v + v : v + w)          \
  NX__BIN(sub_##s, T, T, v != v ? v + v : v - w)          \
  NX__BIN(mul_##s, T, T, v != v ? v + v : v * w)          \
  NX__BIN(fdiv_##s, T, T, v != v ? v + v : v / w)         \
  NX__FMINMAX(min_##s, T, B, <, |)                        \
  NX__FMINMAX(max_##s, T, B, >, &)

/* min and max on the bits: a NaN operand's bits as they are (the first's
   where both are NaN), and of equal operands (zeros of two signs) the OR
   of the bits for min (-0), the AND for max (+0); in masks, without
   branches, so that the compiler vectorizes it. */
#define NX__FMINMAX(name, T, B, LT, OP)                                                    \
  NX__TGT static void NX__N(name)(void *zv, const void *xv, const void *yv, int64_t n) { \
    B *z = zv;                                                                             \
    const B *x = xv, *y = yv;                                                              \
    NX__IVDEP for (int64_t i = 0; i < n; i++) {                                            \
      B xb = x[i], yb = y[i];                                                              \
      T v, w;                                                                              \
      memcpy(&v, &xb, sizeof v);                                                           \
      memcpy(&w, &yb, sizeof w);                                                           \
      B nx = (B)0 - (v != v), ny = (B)0 - (w != w), lt = (B)0 - (v LT w), gt = (B)0 - (w LT v); \
      B r = (lt & xb) | (gt & yb) | (~(lt | gt) & (B)(xb OP yb));                          \
      r = (ny & yb) | (~ny & r);                                                           \
      z[i] = (nx & xb) | (~nx & r);                                                        \
    }                                                                                      \
  }

/* Integers: + - x wrap through W, an unsigned type as wide as T and int. */
#define NX__INT_BIN(s, T, W)                          \
  NX__BIN(add_##s, T, T, (T)((W)v + (W)w))            \
  NX__BIN(sub_##s, T, T, (T)((W)v - (W)w))            \
  NX__BIN(mul_##s, T, T, (T)((W)v * (W)w))            \
  NX__BIN(min_##s, T, T, v < w ? v : w)               \
  NX__BIN(max_##s, T, T, v > w ? v : w)               \
  NX__BIN(and_##s, T, T, (T)(v & w))                  \
  NX__BIN(or_##s, T, T, (T)(v | w))                   \
  NX__BIN(xor_##s, T, T, (T)(v ^ w))

/* Comparisons into bool; NaN compares unordered. */
#define NX__CMPS(s, T)              \
  NX__BIN(eq_##s, uint8_t, T, v == w) \
  NX__BIN(ne_##s, uint8_t, T, v != w) \
  NX__BIN(lt_##s, uint8_t, T, v < w)  \
  NX__BIN(le_##s, uint8_t, T, v <= w)

/* ---- Cast ---- */

/* A float's NaN quieted, every other value as it is: the store of a float
   into its own format. */
#define NX__QUIET32(v) ((v & 0x7FFFFFFFu) > 0x7F800000u ? v | 0x00400000u : v)
#define NX__QUIET64(v) ((v & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull ? v | 0x0008000000000000ull : v)

/* A float into a signed integer of range [MIN, MAX]: truncation toward
   zero, saturated (-MIN a power of two, exact in the float), NaN 0; CT the
   conversion's integer type. */
#define NX__F2I(TO, F, MIN, MAX, CT, v) \
  (v != v ? (TO)0 : v >= -(F)(MIN) ? (TO)(MAX) : v < (F)(MIN) ? (TO)(MIN) : (TO)(CT)v)
/* A float into uint8: negative values and NaN 0, from 256 on 255. */
#define NX__F2U8(v) (v > 0 ? v >= 256 ? (uint8_t)255 : (uint8_t)(int32_t)v : (uint8_t)0)
/* An integer into a narrower one: saturated at its range. */
#define NX__CLAMP(TO, LO, HI, v) (v < (LO) ? (TO)(LO) : v > (HI) ? (TO)(HI) : (TO)v)

#endif
