/* SPDX-License-Identifier: Apache-2.0 */
/* nx_linalg.h: matrix products and linear algebra on the host, in the style
   of nx_kernels.h: through the door, refusals in the door's precedence,
   NX_WRONG_DTYPE's and NX_SHAPE_MISMATCH's messages before any write,
   messages naming the operation and each operand's dtype and shape, `_new`
   variants that make a fresh C-contiguous result.

   float32, float64, complex64 and complex128 products and the linear
   algebra run on OpenBLAS and LAPACKE where the build found them; without
   them those cases are declined ("<op>: BLAS is not built in (<dtype>)"),
   except float32 matmul, which then runs the float32 kernel below. The
   accumulation rules are in docs/linalg.md. */
#ifndef NX_LINALG_H
#define NX_LINALG_H

#include <stdbool.h>
#include <stdint.h>

#include "nx_array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* nx_have_blas() is whether this build has OpenBLAS (matmul of float64 and
   complex through BLAS); nx_have_lapack() whether it has LAPACKE (the linear
   algebra below). */
NX_API bool nx_have_blas(void);
NX_API bool nx_have_lapack(void);

/* nx_matmul(z, a, b) sets z[..., i, j] to the sum over p of a[..., i, p] *
   b[..., p, j]: a of shape [..., m, k], b [..., k, n], z [..., m, n], each of
   rank 2 or more. The leading (batch) axes of a and b align with z's from the
   right; each of their extents is z's or 1 (broadcast), and an operand may
   have fewer of them; a broadcast axis may also be one of stride 0. Any
   layout: negative strides, steps, transposes; z may be identical to a or b
   (the product goes through scratch space then).
   Dtypes:
   - z, a and b all float32, all float64, all complex64 or all complex128:
     BLAS (float32 without BLAS: the float32 kernel);
   - z, a and b floats of 32 bits or fewer, not all float32 (any mix:
     bfloat16, float16, the 8- and 4-bit floats, float32): the float32
     kernel: a's and b's elements converted exactly to float32 tile by
     tile, each z element the float32 chain acc = fma(a[i,p], b[p,j], acc)
     for p = 0 .. k-1 from acc = +0, stored once into z's dtype;
   - z, a and b integers (any widths, signed or unsigned): products and
     sums wrap modulo 2^64, z keeps the low bits;
   - any other mix is NX_WRONG_DTYPE; bool and bit are declined.
   Fails as nx_kernels.h's operations do: NX_EINVAL for a NULL array, a
   rank below 2, NX_SHAPE_MISMATCH's message for inner extents that differ,
   batch extents that do not align, or z of another shape; NX_ENOMEM where
   scratch space cannot be made. */
NX_API int nx_matmul(nx_array *z, nx_array *a, nx_array *b);

/* nx_matmul_new(&z, a, b) makes z of shape [batch..., m, n] (the batch the
   broadcast of a's and b's) and dtype: a's where a and b share it, float32
   for two different floats, int64 for two different integers.
   Fails as nx_matmul does, NX_EINVAL for batch extents that do not
   broadcast. */
NX_API int nx_matmul_new(nx_array **z, nx_array *a, nx_array *b);

#ifdef __cplusplus
}
#endif
#endif /* NX_LINALG_H */
