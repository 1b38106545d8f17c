/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the kernels module: typed loops for the common dtypes of a
   byte or more, which the compiler vectorizes where the run is contiguous.
   Each gives the same bits as the scalar path, or a NaN where it gives one. */
#ifndef NX_KERNELS_FAST_H
#define NX_KERNELS_FAST_H

#include <stdbool.h>

#include "ops.h"

/* Runs op over the run a (z, x, y) and returns true, or returns false for a
   case it has no loop for. */
bool nx__fast_binary(nx__bop op, nx_dtype dt, const nx__arg *a, int64_t n);

/* The vector levels of the float16 and bfloat16 arithmetic and of the
   float32 and float64 sums. */
enum { NX__FAST_SCALAR, NX__FAST_AVX2, NX__FAST_AVX512, NX__FAST_BEST };

/* Caps the level those loops use at `level` (NX__FAST_BEST: no cap) and
   returns the level now in use. For the tests; not while kernels run. */
int nx__fast_set_isa(int level);

/* The level those loops use now: the CPU's, capped as above. */
int nx__fast_level(void);

#endif
