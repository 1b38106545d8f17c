/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the linear algebra: a planned batch of matrix products, each
   operand's matrices given by positions and element strides, for the
   kernels of each dtype class. */
#ifndef NX_LINALG_MM_H
#define NX_LINALG_MM_H

#include "../kernels/api.h"

/* An operand's matrices: matrix t's element [i, j] is at element position
   nx__mm_pos(P, o, t) + i * rs + j * cs of base. */
typedef struct nx__mop {
  nx_dtype dt;
  char *base;
  int64_t off;              /* the position of matrix 0's [0, 0] */
  int64_t bst[NX_MAX_RANK]; /* per batch axis of z: the stride, 0 where broadcast */
  int64_t rs, cs;
} nx__mop;

typedef struct nx__mm {
  int nb;                    /* z's batch axes */
  int64_t bext[NX_MAX_RANK]; /* their extents */
  int64_t count;             /* the number of products */
  int64_t m, n, k;
  nx__mop z, a, b;
  int status; /* 0, or NX_ENOMEM where scratch space could not be made */
} nx__mm;

/* The position of matrix t's [0, 0] in o. */
int64_t nx__mm_pos(const nx__mm *P, const nx__mop *o, int64_t t);

/* The products by the float32 kernel (operands of 32 bits or fewer). */
void nx__mm_f32(nx__mm *P);

/* The products of integers, wrapping modulo 2^64. */
void nx__mm_int(nx__mm *P);

/* The products through BLAS (one dtype of nx__blas_dtype's). */
void nx__mm_blas(nx__mm *P);

/* Allocates n bytes of scratch, or sets P's status and returns NULL. */
void *nx__mm_scratch(nx__mm *P, size_t n);

/* Copies o's matrices (an operand's own: extent 1 where it broadcasts) into
   a fresh C-contiguous buffer, or into o's from such a buffer when back, and
   in the first case points o at it. Returns the buffer, or NULL with P's
   status set. */
void *nx__mm_pack(nx__mm *P, nx__mop *o, int64_t rows, int64_t cols);
void nx__mm_unpack(nx__mm *P, const nx__mop *o, const void *buf, int64_t rows, int64_t cols);

#endif
