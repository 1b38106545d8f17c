/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the kernels module: typed inner loops for contiguous runs of
   the common dtypes (float32, float64, the integers of 8 to 64 bits, bool),
   one C loop per operation and dtype, compiled three times (for the base
   instruction set, for AVX2 and for AVX-512 F/BW/DQ/VL) so that the compiler
   vectorizes each for its level; the level runs where the CPU has it. Each
   gives the bits the element path (nx__uop_apply, nx__bop_apply, the
   comparisons, nx__cast_run_scalar) gives; test_kernels_typed checks so at
   every level. Each returns false, writing nothing, for a case it has no
   loop for (a non-contiguous run, another dtype, the level OFF). */
#ifndef NX_KERNELS_TYPED_H
#define NX_KERNELS_TYPED_H

#include <stdbool.h>

#include "ops.h"

/* The levels: OFF (the element paths only), the base instruction set, AVX2,
   AVX-512; BEST: the CPU's own. */
enum { NX__TYPED_OFF, NX__TYPED_BASE, NX__TYPED_AVX2, NX__TYPED_AVX512, NX__TYPED_BEST };

/* Caps the level at `level` and returns the level now in use (the lower of
   the cap and the CPU's). For the tests and benchmarks; not while kernels
   run. */
int nx__typed_set_isa(int level);

/* The level in use. */
int nx__typed_level(void);

/* z = op(x) over the run a (z, x) of dtype dt. */
bool nx__typed_unary(nx__uop op, nx_dtype dt, const nx__arg *a, int64_t n);

/* z = op(x, y) over the run a (z, x, y) of dtype dt: + - x / min max of
   the floats, + - x min max and or xor of the integers, and bool's (add
   or, mul and, min and, max or, and, or, xor). */
bool nx__typed_binary(nx__bop op, nx_dtype dt, const nx__arg *a, int64_t n);

/* z = (x op y) into bool over the run a (z, x, y) of dtype dt; op 0 eq,
   1 ne, 2 lt, 3 le. */
bool nx__typed_compare(int op, nx_dtype dt, const nx__arg *a, int64_t n);

/* z = c ? x : y over the run a (z, c, x, y), c bool, elements of `bytes`. */
bool nx__typed_where(int bytes, const nx__arg *a, int64_t n);

/* n contiguous elements of `from` at src into `to` at dst, for the pairs
   among float32, float64, int8, int16, int32, int64, uint8 and bool. */
bool nx__typed_cast(nx_dtype to, void *dst, nx_dtype from, const void *src, int64_t n);

#endif
