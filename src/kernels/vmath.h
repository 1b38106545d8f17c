/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the kernels module: float32 transcendentals through SLEEF's
   1-ulp vector functions, where the build found SLEEF (NX_HAVE_SLEEF): sixteen
   at a time on AVX-512F (vmath.c), eight on AVX2 with FMA (vmath_avx2.c).
   Each of those files is compiled for its instruction set and holds nothing
   else, so that nothing in it runs on a CPU without it; vmath_level.c
   chooses. */
#ifndef NX_KERNELS_VMATH_H
#define NX_KERNELS_VMATH_H

#include <stdbool.h>
#include <stdint.h>

#include "ops.h"

/* The levels, lowest first. */
#define NX__VMATH_NONE 0
#define NX__VMATH_AVX2 1
#define NX__VMATH_AVX512 2

/* Whether the loops compute op (at any level but NX__VMATH_NONE). */
bool nx__vmath_known(nx__uop op);

/* The highest level at most cap that this build and this CPU have. */
int nx__vmath_level(int cap);

/* z[i] = op(x[i]) for i < n, within 1 ulp, at a level nx__vmath_level
   answered (not NX__VMATH_NONE), op one nx__vmath_known accepts. z[i]'s
   bits depend on x[i] alone; where x[i] or z[i] is NaN they are the scalar
   path's, (float)nx__fn1(op, x[i]). */
void nx__vmath_f32(int level, nx__uop op, float *z, const float *x, int64_t n);

/* run(z, x, n, nt) over the whole run: with nt false below 2 MiB of result
   (or z not on a float's boundary), else a head up to z's 64-byte line with
   nt false and the rest with nt true (non-temporal stores, which a large
   result's lines then need not be read for). */
typedef void (*nx__vrun)(float *z, const float *x, int64_t n, bool nt);
void nx__vmath_split(nx__vrun run, float *z, const float *x, int64_t n);

/* r[l] = the scalar path's (float)nx__fn1(op, x[l]) for each lane l set in
   mask: the loops' lanes of a NaN result from a number (vmath_level.c,
   compiled for the baseline). */
void nx__vmath_scalar_lanes(nx__uop op, float *r, const float *x, unsigned mask);

/* The loops of each level (vmath.c, vmath_avx2.c). */
void nx__vmath512_f32(nx__uop op, float *z, const float *x, int64_t n);
void nx__vmath256_f32(nx__uop op, float *z, const float *x, int64_t n);

#endif
