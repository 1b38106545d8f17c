/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the kernels module: float32 tanh eight (AVX-512F) or four
   (AVX2 with FMA) at a time, computed in double to a relative 2^-25.6 and
   rounded once, so within 0.84 ulp of the exact value (0.72 measured over
   every float32). No SLEEF needed: SLEEF's 1-ulp tanh costs five times its
   exp. */
#ifndef NX_KERNELS_VTANH_H
#define NX_KERNELS_VTANH_H

#include <stdint.h>

/* The vector levels of nx__tanh_f32. */
enum { NX__TANH_SCALAR, NX__TANH_AVX2, NX__TANH_AVX512 };

/* The best level this CPU runs, capped at cap (NX__TANH_AVX512: no cap). */
int nx__tanh_level(int cap);

/* z[i] = tanh(x[i]) for i < n at vector level `level` (one nx__tanh_level
   allowed; NX__TANH_SCALAR: double libm, one rounding). z may equal x. From
   2 MiB of result on, AVX-512 stores non-temporally past z's first 64-byte
   line. A NaN gives its own NaN, quieted, as the scalar path. */
void nx__tanh_f32(int level, float *z, const float *x, int64_t n);

#endif
