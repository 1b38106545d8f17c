/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the linear algebra: BLAS where the build has it. nx's pool
   runs the threads; BLAS itself runs on one thread (the threaded OpenBLAS
   set to one thread once), so two pools never share the cores. */
#ifndef NX_LINALG_BLAS_H
#define NX_LINALG_BLAS_H

#include <stdbool.h>
#include <stdint.h>

#include "nx_dtype.h"

/* One operand of a row-major product: element [i, j] at p + (i * ld + j) or,
   transposed, at p + (j * ld + i), in elements. */
typedef struct nx__gm {
  const void *p;
  int64_t ld;
  bool trans;
} nx__gm;

/* Whether BLAS computes products of dt (and the build has it). */
bool nx__blas_dtype(nx_dtype dt);

/* The instruction level (mm.h's NX__MM_*) of BLAS's float32 kernel:
   NX__MM_AVX512 for OpenBLAS's AVX-512 cores, NX__MM_AVX2 for its Haswell
   and Zen ones, NX__MM_PLAIN for any other it chose (Debian's 0.3.21 does
   not recognise Sapphire Rapids and picks Prescott's unless
   OPENBLAS_CORETYPE names one), and without BLAS. */
int nx__blas_level(void);

/* Enter and leave one BLAS or LAPACK call, from any thread. The first
   entry sets OpenBLAS to one thread. A serial OpenBLAS (one that runs no
   threads of its own) may share its buffers between callers: Debian's
   0.3.21 is built without the locking that makes concurrent calls safe,
   and two calls at once corrupt each other's results, so with it the calls
   are taken one at a time under a lock. */
void nx__blas_enter(void);
void nx__blas_leave(void);

/* c (m x n, row-major, ldc) = a (m x k) * b (k x n) in dt, one serial call;
   m, n, k and the leading dimensions fit an int (the caller checks). */
void nx__blas_gemm(nx_dtype dt, int64_t m, int64_t n, int64_t k, nx__gm a, nx__gm b, void *c, int64_t ldc);

#endif
