/* SPDX-License-Identifier: Apache-2.0 */
/* nx_index.h: gathering, scattering, sorting, sliding windows and random
   bits on the host, in the style of nx_kernels.h. */
#ifndef NX_INDEX_H
#define NX_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "nx_array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Gather and scatter ------------------------------------------------ */

/* nx_gather(z, x, idx, axis) sets z[i] to x at i with i's axis coordinate
   replaced by idx[i]: idx of dtype int32 and z's shape, of x's rank and
   extents but on axis; z of x's dtype (bits copied). nx_gather_new(&z, x,
   idx, axis) makes z. Fail as nx_kernels.h's operations do, with NX_EINVAL
   for an axis out of range (negative ones count from the end), and, before
   any write, for an index outside [0, x's extent on axis), naming it and its
   position. */
NX_API int nx_gather(nx_array *z, nx_array *x, nx_array *idx, int axis);
NX_API int nx_gather_new(nx_array **z, nx_array *x, nx_array *idx, int axis);

typedef enum nx_scatter_mode {
  NX_SCATTER_SET, /* z at the index becomes the update; of several, the last in C order */
  NX_SCATTER_ADD  /* the update adds to z there (floats round once per update, in C order; integers wrap) */
} nx_scatter_mode;

/* nx_scatter(z, idx, u, axis, mode) writes each update u[i] into z at i with
   i's axis coordinate replaced by idx[i]: idx of dtype int32 and u's shape,
   of z's rank and extents but on axis, u of z's dtype; z's other elements
   keep theirs. nx_scatter_new(&z, t, idx, u, axis, mode) does it on a copy
   of t. Fail as nx_gather does, and with NX_EINVAL for a mode that is none;
   Add of bool is declined. */
NX_API int nx_scatter(nx_array *z, nx_array *idx, nx_array *u, int axis, nx_scatter_mode mode);
NX_API int nx_scatter_new(nx_array **z, nx_array *t, nx_array *idx, nx_array *u, int axis, nx_scatter_mode mode);

/* ---- Sorting ----------------------------------------------------------- */

/* nx_sort(z, x, axis, descending) sets each line of z along axis to x's line
   sorted, ascending or descending: stable (equal elements keep their order),
   -0 equal to +0, NaN after every number in both directions; z and x of one
   dtype and shape, any real dtype (sub-byte included; complex is declined);
   z may be identical to x. nx_argsort(z, x, axis, descending) sets z (int32)
   to the indices along axis that sort x's lines so. nx_sort_new,
   nx_argsort_new make z. Fail as nx_kernels.h's operations do, with
   NX_EINVAL for an axis out of range; a line longer than INT32_MAX is
   declined. */
NX_API int nx_sort(nx_array *z, nx_array *x, int axis, bool descending);
NX_API int nx_sort_new(nx_array **z, nx_array *x, int axis, bool descending);
NX_API int nx_argsort(nx_array *z, nx_array *x, int axis, bool descending);
NX_API int nx_argsort_new(nx_array **z, nx_array *x, int axis, bool descending);

/* ---- Random bits -------------------------------------------------------- */

/* nx_threefry(z, key, ctr) sets each word pair of z (the pairs along the
   last axis, of extent 2, the low word first) to the Threefry-2x32 hash, 20
   rounds, of ctr's pair at the same position under key's pair there: the
   words of Random123's threefry2x32_20 and of JAX's threefry_2x32. z, key
   and ctr of one shape, each int32 or uint32 (the words' bits); z may be key
   or ctr. nx_threefry_new(&z, key, ctr) makes z of ctr's dtype. Fail as
   nx_kernels.h's operations do: NX_EINVAL for a NULL operand, another dtype,
   different shapes or a last axis other than 2, before any write. */
NX_API int nx_threefry(nx_array *z, nx_array *key, nx_array *ctr);
NX_API int nx_threefry_new(nx_array **z, nx_array *key, nx_array *ctr);

#ifdef __cplusplus
}
#endif
#endif /* NX_INDEX_H */
