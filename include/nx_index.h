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
   Add of bool is declined. For both, a read operand identical to z (x, idx
   or u) is read as it was before the call (from a copy). */
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

/* ---- Sliding windows ---------------------------------------------------- */

/* The geometry of sliding windows over the last k axes of an array (k from
   1): on windowed axis j (0 .. k-1), size[j] elements (from 1) taken every
   dilation[j] (from 1), the window moved by stride[j] (from 1) over the axis
   padded with padding[2j] elements before it and padding[2j+1] after it
   (from 0, of the store of 0 into the dtype). The windows on axis j of
   extent s number out[j] = (s + padding[2j] + padding[2j+1] -
   dilation[j] * (size[j] - 1) - 1) / stride[j] + 1, and there must be at
   least one: a window larger than the padded axis is refused. */

/* nx_unfold(z, x, k, size, stride, dilation, padding) copies every window of
   x (im2col): x of shape [B..., C, s_0, ..., s_{k-1}] (rank k + 1 or more;
   C the axis before the windowed ones, B... any leading axes), z of x's
   dtype and shape [B..., C * size[0] * ... * size[k-1], L], L = out[0] *
   ... * out[k-1]: z[b..., (c, i_0, ..., i_{k-1}), (o_0, ..., o_{k-1})] (the
   grouped axes in C order) is x[b..., c, o_j * stride[j] - padding[2j] +
   i_j * dilation[j] ...], or the store of 0 where that is in the padding.
   Any dtype; bits are copied. nx_unfold_new makes z.
   Fail as nx_kernels.h's operations do, and with NX_EINVAL, before the door
   and naming the argument and its axis, for a NULL size, stride, dilation
   or padding, k below 1 or above x's rank - 1, a size, stride or dilation
   below 1, a padding below 0, a window larger than its padded axis, and a
   padded extent, window span or z extent past INT64_MAX. */
NX_API int nx_unfold(nx_array *z, nx_array *x, int k, const int64_t *size, const int64_t *stride,
                     const int64_t *dilation, const int64_t *padding);
NX_API int nx_unfold_new(nx_array **z, nx_array *x, int k, const int64_t *size, const int64_t *stride,
                         const int64_t *dilation, const int64_t *padding);

/* nx_fold(z, x, k, size, stride, dilation, padding) is unfold's adjoint
   (col2im): it sets each element of z, of shape [B..., C, s_0, ...,
   s_{k-1}], to the sum of the elements of x, of shape [B..., C * size[0] *
   ... * size[k-1], L], that unfold of z's shape would copy from it, and to
   0 where there is none: overlapping windows add, the padding is dropped.
   The sum of each z element is taken in ascending order of the window
   offset (i_0, ..., i_{k-1}) in C order: floats and complex in double,
   stored once by the store rule; integers wrapping; bool true where any
   term is. z and x of one dtype. nx_fold_new(&z, x, k, shape, size, stride,
   dilation, padding) makes z with s_j = shape[j] and C = x's axis divided
   by the window's element count.
   Fail as nx_unfold does, checking the geometry against z's windowed
   extents (nx_fold_new: against shape, and with NX_EINVAL for a NULL shape,
   an extent below 0, and x's axis not a multiple of the window's element
   count), NX_SHAPE_MISMATCH's message where x's shape is not the one unfold
   of z's shape would give. */
NX_API int nx_fold(nx_array *z, nx_array *x, int k, const int64_t *size, const int64_t *stride,
                   const int64_t *dilation, const int64_t *padding);
NX_API int nx_fold_new(nx_array **z, nx_array *x, int k, const int64_t *shape, const int64_t *size,
                       const int64_t *stride, const int64_t *dilation, const int64_t *padding);

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
