/* Internal to the kernels module: operations over lines or sub-arrays of x
   (reductions, scans) walk z and x's other axes with the engine and hand
   each of z's elements the position of x's sub-array. */
#ifndef NX_KERNELS_LINES_H
#define NX_KERNELS_LINES_H

#include "api.h"
#include "elem.h"

/* The axes an operation names: naxes -1 for all of x's rank axes, negative
   ones from the end. Sets mask[j] for each and returns 0, or fails naming
   name. */
int nx__axes(const char *name, const nx_array *x, const int *axes, int naxes, bool *mask);

/* Whether z's layout fits x's reduced over mask (x's shape without the axes,
   or with extent 1 there); if so sets zk, z's layout over x's kept axes in
   order, and xk, x's layout over them. */
bool nx__reduced_fit(const nx_layout *z, const nx_layout *x, const bool *mask, nx_layout *zk, nx_layout *xk);

/* x's layout over the axes of mask, at offset 0. */
void nx__sub_layout(const nx_layout *x, const bool *mask, nx_layout *r);

/* The body of a walk over z's elements: zi is element i of run a[0], xp the
   position in x's buffer of the sub-array it reads. */
typedef void (*nx__each_fn)(void *ctx, const nx__arg *z, int64_t i, int64_t xp);

/* Walks z's elements (zk) with x's positions (xk), both of the door's
   operands' dtypes and bases, calling fn for each; weight as nx__plan_run. */
void nx__each(const nx_operand *ops, const nx_layout *zk, const nx_layout *xk, nx__each_fn fn, void *ctx, int weight);

/* The shape of x reduced over mask, with extent 1 there when keep. */
int nx__reduced_shape(const nx_array *x, const bool *mask, bool keep, int64_t *shape);

#endif
