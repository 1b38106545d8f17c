/* Internal to the kernels module: float32 transcendentals sixteen at a time
   through SLEEF's 1-ulp AVX-512 functions, where the build found SLEEF
   (NX_HAVE_SLEEF) and the CPU has AVX-512F. vmath.c is compiled for
   AVX-512F and holds nothing else, so that nothing in it runs on a CPU
   without it. */
#ifndef NX_KERNELS_VMATH_H
#define NX_KERNELS_VMATH_H

#include <stdbool.h>
#include <stdint.h>

#include "ops.h"

/* Whether nx__vmath_f32 computes op; call it only on a CPU with AVX-512F. */
bool nx__vmath_known(nx__uop op);

/* z[i] = op(x[i]) for i < n, within 1 ulp (op one nx__vmath_known accepts). */
void nx__vmath_f32(nx__uop op, float *z, const float *x, int64_t n);

#endif
