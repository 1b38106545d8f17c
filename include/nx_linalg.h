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
     BLAS (float32 without BLAS, or where BLAS's float32 kernel is not an
     AVX-512 one on an AVX-512 CPU: nx's float32 kernel);
   - z, a and b floats of 32 bits or fewer, not all float32 (any mix:
     bfloat16, float16, the 8- and 4-bit floats, float32): the float32
     kernel: a's and b's elements converted exactly to float32 tile by
     tile, each z element one float32 chain from acc = +0 over the pairs
     p = 0, 2, 4, ..: acc = fma(a[i,p+1], b[p+1,j], acc) (where p+1 < k),
     then acc = fma(a[i,p], b[p,j], acc), stored once into z's dtype (the
     order of the AVX512-BF16 dot product, which bfloat16 x bfloat16 runs
     on where the CPU has it, with the same bits);
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
   for two different floats of 32 bits or fewer, int64 for two different
   integers.
   Fails as nx_matmul does (NX_WRONG_DTYPE for any other mix, float64 with
   another float included, naming a and b), NX_EINVAL for batch extents that
   do not broadcast. */
NX_API int nx_matmul_new(nx_array **z, nx_array *a, nx_array *b);

/* ---- Linear algebra (LAPACKE) -------------------------------------------

   Each operation below works on the matrices along the last two axes of
   its operands, batched over the leading axes, which every operand has
   alike (no broadcasting). a is float32, float64, complex64 or complex128;
   a "real" result is float32 for float32 and complex64, float64 for the
   others, and a "complex" one complex64 for float32 and complex64,
   complex128 for the others. Operands of any layout; a result may be
   identical to a. Every one fails as nx_matmul does: NX_EINVAL for a NULL
   array or out-parameter, a rank below 2 (below 1 for a vector of values),
   the door's refusals, NX_WRONG_DTYPE's message for a result of another
   dtype, NX_SHAPE_MISMATCH's for other shapes or batch axes, all before
   any write; NX_EINVAL, declined, with "<op>: LAPACKE does not compute
   this case (<dtype>)" for another dtype of a or a matrix extent of
   2^30 or more, and "LAPACKE (not built in)" in place of "LAPACKE" where the build
   lacks it; and NX_ENOMEM where scratch space cannot be made. A numeric failure is a
   status of its own, with a message naming the operation, a's dtype and
   shape and the first batch index (in C order of the batch axes) that
   failed; the results' matrices at that and later batch indices are then
   unspecified:
   - NX_ENOTPD: cholesky of a matrix that is not positive definite;
   - NX_ESINGULAR: triangular_solve with a zero on the diagonal;
   - NX_ENOCONV: svd, eig, eigvals, eigh or eigvalsh where LAPACK's
     iteration does not converge, or a's matrix (its lower triangle for
     eigh and eigvalsh) has a NaN or an infinity, on which LAPACK's
     iterations have no meaningful result. cholesky, qr and
     triangular_solve carry NaNs into their results as LAPACK computes.
   The results are LAPACK's (docs/linalg.md states the routines), not
   correctly rounded; the tests check them by reconstruction. */

/* nx_cholesky(l, a, upper) sets l to the Cholesky factor of the Hermitian
   positive definite a: lower triangular with a = l l^H, or, with upper,
   upper triangular with a = l^H l; the other triangle of l is zero. Only
   the triangle of a on l's side is read. l of a's dtype and shape, a's last
   two extents equal. */
NX_API int nx_cholesky(nx_array *l, nx_array *a, bool upper);
NX_API int nx_cholesky_new(nx_array **l, nx_array *a, bool upper);

/* nx_qr(q, r, a, complete) factors a [..., m, n] as q r, q with orthonormal
   columns (unitary for complex), r upper triangular: reduced, q [..., m, k]
   and r [..., k, n] with k = min(m, n); complete, q [..., m, m] and r
   [..., m, n]. q and r of a's dtype. */
NX_API int nx_qr(nx_array *q, nx_array *r, nx_array *a, bool complete);
NX_API int nx_qr_new(nx_array **q, nx_array **r, nx_array *a, bool complete);

/* nx_svd(u, s, vh, a, full) factors a [..., m, n] as u diag(s) vh: s
   [..., k] real, k = min(m, n), descending and non-negative; u [..., m, k]
   and vh [..., k, n] with orthonormal columns and rows, or, full, u
   [..., m, m] and vh [..., n, n] unitary; u and vh of a's dtype. */
NX_API int nx_svd(nx_array *u, nx_array *s, nx_array *vh, nx_array *a, bool full);
NX_API int nx_svd_new(nx_array **u, nx_array **s, nx_array **vh, nx_array *a, bool full);

/* nx_eig(w, v, a) sets w [..., n] (complex) to the eigenvalues of the
   square a [..., n, n] and v [..., n, n] (complex) to right eigenvectors,
   column j for w[j], each of Euclidean norm 1; a real a's conjugate pairs
   come with the positive imaginary part first. nx_eigvals(w, a) sets w
   alone. */
NX_API int nx_eig(nx_array *w, nx_array *v, nx_array *a);
NX_API int nx_eig_new(nx_array **w, nx_array **v, nx_array *a);
NX_API int nx_eigvals(nx_array *w, nx_array *a);
NX_API int nx_eigvals_new(nx_array **w, nx_array *a);

/* nx_eigh(w, v, a) sets w [..., n] (real) to the eigenvalues, ascending, of
   the Hermitian a [..., n, n], of which only the lower triangle is read,
   and v [..., n, n] (a's dtype) to orthonormal eigenvectors, column j for
   w[j]. nx_eigvalsh(w, a) sets w alone. */
NX_API int nx_eigh(nx_array *w, nx_array *v, nx_array *a);
NX_API int nx_eigh_new(nx_array **w, nx_array **v, nx_array *a);
NX_API int nx_eigvalsh(nx_array *w, nx_array *a);
NX_API int nx_eigvalsh_new(nx_array **w, nx_array *a);

/* nx_triangular_solve(x, a, b, upper, transpose, unit) sets x [..., n, k]
   to the solution of op(a) x = b, a [..., n, n] triangular (its lower
   triangle read, or its upper one with upper), op(a) = a or, with
   transpose, a^T (not conjugated); with unit its diagonal is taken as ones
   and not read. b [..., n, k] and x of a's dtype; x may be b. */
NX_API int nx_triangular_solve(nx_array *x, nx_array *a, nx_array *b, bool upper, bool transpose, bool unit);
NX_API int nx_triangular_solve_new(nx_array **x, nx_array *a, nx_array *b, bool upper, bool transpose, bool unit);

#ifdef __cplusplus
}
#endif
#endif /* NX_LINALG_H */
