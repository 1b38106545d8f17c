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
  int64_t bm, bn; /* a blocked kernel's blocks of z (nx__mm_blocks sets them) */
} nx__mm;

/* The position of matrix t's [0, 0] in o. */
int64_t nx__mm_pos(const nx__mm *P, const nx__mop *o, int64_t t);

/* The instruction levels of the kernels, each computing the same bits:
   portable C, AVX2 with FMA (the float32 kernel's micro-kernel and the
   packed kernel in AVX registers), AVX-512F (both in AVX-512 registers), and AVX-512 with BW and VNNI (int8 products). */
enum { NX__MM_PLAIN, NX__MM_AVX2, NX__MM_AVX512, NX__MM_AVX512_VNNI };

/* The level in use (the best this CPU has unless forced); the best; and,
   for tests, forcing one (-1 or above the best: the best). */
int nx__mm_level(void);
int nx__mm_levels(void);
void nx__mm_force(int level);

/* For tests: float32 x float32 products to the packed kernel wherever it
   runs, whatever BLAS's level (on), or as chosen (off). */
void nx__mm_force_wide(bool on);
bool nx__mm_wide_forced(void);

/* Whether the CPU has F16C (float16 conversions in AVX registers). */
bool nx__mm_f16c(void);

/* The products by the float32 kernel (operands of 32 bits or fewer). */
void nx__mm_f32(nx__mm *P);

/* The products of operands each bfloat16, float16 or float32 by a packed
   kernel (AVX-512F, or AVX2 with FMA), bit for bit the float32 kernel's;
   false (nothing done) where the level is below NX__MM_AVX2, an operand is
   of another dtype, or one is float16 at AVX2 on a CPU without F16C. */
bool nx__mm_wide(nx__mm *P);

/* The products of two int8 operands by VPDPBUSD, bit for bit the integer
   kernel's; false (nothing done) where the level is below
   NX__MM_AVX512_VNNI, the operands are not both int8, or z has 64 bits and
   k is 2^17 or more (the sum could then leave 32 bits). */
bool nx__mm_int8(nx__mm *P);

/* Runs a blocked kernel: item(P, t, i0, j0, space) computes the block of
   product t's z from row i0 and column j0 (mc x nc, or what is left), with
   `space` bytes of scratch of its own; blocks in chunks on the pool (one
   chunk below 2e6 operations), after setting P's bm and bn to mc and nc.
   Sets P's status where scratch cannot be
   made, and then runs nothing. */
typedef void (*nx__mm_item_fn)(const nx__mm *P, int64_t t, int64_t i0, int64_t j0, void *space);
void nx__mm_blocks(nx__mm *P, int64_t mc, int64_t nc, size_t space, nx__mm_item_fn item);

/* Stores the rows x cols float32 accumulations c (row stride ldc) into z's
   matrix at position pz, rows from i0 and columns from j0, each rounded once
   into z's dtype by the store rule. */
void nx__mm_store(const nx__mm *P, int64_t pz, int64_t i0, int64_t j0, int64_t rows, int64_t cols, const float *c,
                  int64_t ldc);

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
