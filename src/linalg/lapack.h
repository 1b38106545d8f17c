/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the linear algebra: batched LAPACK operations. lapack_batch.c
   checks the operands, plans the batch and copies each batch's matrices to
   and from column-major scratch; lapack_ops.c calls LAPACKE on them. */
#ifndef NX_LINALG_LAPACK_H
#define NX_LINALG_LAPACK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "nx_array.h"

typedef enum nx__lkind { NX__L_CHOL, NX__L_QR, NX__L_SVD, NX__L_EIG, NX__L_EIGH, NX__L_TRSV } nx__lkind;

typedef struct nx__lin {
  /* the operation, set by the caller */
  nx__lkind kind;
  bool upper;   /* cholesky, triangular_solve */
  bool flag;    /* qr complete, svd full, triangular_solve transpose */
  bool unit;    /* triangular_solve */
  bool vectors; /* eig and eigh (not eigvals, eigvalsh) */
  /* the plan, set by the kernel */
  const nx_operand *ops; /* the written operands, then a, then b */
  int nw;
  nx_dtype dt; /* a's */
  int nb;      /* batch axes */
  int64_t bext[NX_MAX_RANK], count;
  int64_t m, n; /* a's matrix */
  int64_t rhs;  /* b's columns (triangular_solve) */
  /* the first failure, in batch order */
  pthread_mutex_t mu;
  int status, info;
  int64_t bad;
} nx__lin;

/* The real and complex dtypes of a's results (a's dtype otherwise). */
nx_dtype nx__lin_real(nx_dtype dt);
nx_dtype nx__lin_complex(nx_dtype dt);

/* Copies operand o's matrix (or vector, as a column) at batch t into buf,
   column-major with leading dimension ld, or back. */
void nx__lin_get(const nx__lin *c, const nx_operand *o, int64_t t, void *buf, int64_t ld);
void nx__lin_put(const nx__lin *c, const nx_operand *o, int64_t t, const void *buf, int64_t ld);

/* The door's kernel: ops the written operands, then a (and b). */
nx_answer nx__lin_kernel(void *vc, const nx_operand *ops, int nw, int nr);

/* Runs the operation on batch t: 0, or a status (NX_ENOTPD, NX_ESINGULAR,
   NX_ENOCONV with LAPACK's info in *info, NX_ENOMEM). Defined where the
   build has LAPACKE. */
int nx__lin_batch(nx__lin *c, int64_t t, int *info);

#endif
