/* Internal to the kernels module: the iteration engine every host kernel
   runs on. A plan simplifies the operands' common shape (axes of extent 1
   dropped, axes ordered by the written operand's strides, axes negative in
   every operand flipped, adjacent axes coalesced), picks a tiled traversal
   where a read operand's unit stride lies on another axis than the written
   one's, and runs a body over inner runs, split across the pool's threads. */
#ifndef NX_KERNELS_ENGINE_H
#define NX_KERNELS_ENGINE_H

#include <stdint.h>

#include "nx_array.h"

/* The most operands one plan carries (where: one written, three read). */
#define NX__OPS 6

/* One operand's part of an inner run. For a dtype of a byte or more, p is
   the address of the run's first element and step the byte distance between
   elements (pos is 0). For a sub-byte dtype, p is the buffer's first byte,
   pos the element position of the run's first element and step the element
   distance; element i of the run is at position pos + i * step. */
typedef struct nx__arg {
  char *p;
  int64_t pos, step;
} nx__arg;

/* A body: n elements of every operand, written ones first. */
typedef void (*nx__run_fn)(void *ctx, const nx__arg *a, int64_t n);

/* Plan flags. */
enum {
  NX__IN_ORDER = 1 /* visit elements in C order of indices: no sort, no flip, no tiling */
};

typedef struct nx__plan {
  int nops, rank, tile; /* tile: the axis tiled with axis 0, or 0 for none */
  int64_t count;        /* the element count; 0: nothing to run */
  int bits[NX__OPS];
  char *base[NX__OPS];
  int64_t pos[NX__OPS];  /* the position of the first element visited */
  int64_t ext[NX_MAX_RANK]; /* axis 0 innermost */
  int64_t str[NX__OPS][NX_MAX_RANK];
} nx__plan;

/* nx__plan_make(P, n, dts, bases, layouts, flags) plans a walk over n
   operands of one shape (layouts of equal rank and extents), operand 0 the
   written one. */
void nx__plan_make(nx__plan *P, int n, const nx_dtype *dts, void *const *bases, const nx_layout *const *layouts,
                   int flags);

/* nx__plan_run(P, fn, ctx, weight) runs fn over every inner run of P, on the
   pool's threads where the work (bytes moved times weight: 1 for bandwidth
   bound bodies, more for compute bound ones) passes the serial threshold. */
void nx__plan_run(const nx__plan *P, nx__run_fn fn, void *ctx, int weight);

/* The same walk run serially in the calling thread. */
void nx__plan_run_serial(const nx__plan *P, nx__run_fn fn, void *ctx);

/* ---- The pool ----------------------------------------------------------- */

/* A task over units [u0, u1). */
typedef void (*nx__task_fn)(void *ctx, int64_t u0, int64_t u1);

/* nx__parallel(units, chunks, fn, ctx) runs fn over [0, units) cut into at
   most `chunks` ranges, on up to nx_num_threads() threads, the caller one of
   them; serially where the pool is busy with another caller's region (so
   kernels called from several threads at once, and nested ones, work). */
void nx__parallel(int64_t units, int64_t chunks, nx__task_fn fn, void *ctx);

/* The work (bytes times weight) below which nx__plan_run stays serial:
   NX__SERIAL_WORK, measured (docs/kernels.md); the benchmark sets
   nx__serial_work to 0 before any kernel runs to time threads below it. */
#define NX__SERIAL_WORK ((int64_t)1 << 18)
extern int64_t nx__serial_work;

#endif
