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

#endif
