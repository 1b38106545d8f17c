/* SPDX-License-Identifier: Apache-2.0 */
/* nx_layout.h: layouts (strided views counted in elements), movements,
   bitcast arithmetic, the copy layout of to_device, distinctness and overlap.

   A layout maps an index (i_0, ..., i_{r-1}), 0 <= i_j < extent[j], to the
   element position offset + sum_j stride[j] * i_j. Positions, strides and the
   offset count elements, not bytes: an element of w bits at position p holds
   bits [p*w, (p+1)*w) of its buffer, so elements narrower than a byte pack
   little-endian inside a byte (position 0 in the low bits). Strides may be
   negative or 0 (an axis of stride 0 repeats its elements).

   The invariant. Every layout these functions accept or produce has
     - 0 <= rank <= NX_MAX_RANK and every extent >= 0, and the product of
       the extents fits in an int64_t;
     - every stride, on every axis (those of extent 0 or 1 included), in
       (-NX_LAYOUT_LIMIT, NX_LAYOUT_LIMIT) = (-2^62, 2^62): INT64_MIN never
       appears;
     - its hull in (-2^62, 2^62): every position offset + sum_j stride[j] *
       i_j with 0 <= i_j <= max(extent[j] - 1, 0), the positions it reaches
       and, for a layout with no element, those it would reach if its
       extents of 0 were 1. So the offset is inside too.
   So every position, every partial sum of one (itself a hull position), a
   stride times its extent and a flip's offset lie in (-2^62, 2^62), the
   hull's width is below 2^63, and the arithmetic on them (a bitcast's
   multiply by at most 128 included, checked) is free of overflow. Every
   movement keeps the hull or shrinks it, except expand and reshape, whose
   results are checked. A struct filled by hand that breaks the invariant is refused
   by every function with NX_EINVAL, naming the function and the operand; a
   result that would break it (a bitcast or copy past the bound) is refused
   the same way. Where the library itself chooses the strides of a layout
   with no element (C strides, a reshape or copy of one) and they would pass
   the bound, it gives them all 0 instead: such a layout reaches nothing.
   Likewise a narrowing bitcast gives 0 to the stride of an axis of extent 1
   that its multiply would take past the bound (the axis moves to no other
   element), and to every stride of a layout with no element.

   Widths are element widths in bits, those some dtype has: 1, 4, 8, 16, 32,
   64 or 128. Others are refused.

   Layouts and movements are values: plain structs that own nothing, that
   the caller copies and keeps where it likes. No function here allocates.

   Failures return NX_EINVAL and set nx_error_message() (nx_error.h), naming
   the function and its operands; an option's None is the status
   NX_NONE (1), with the out-parameter unset. Every function that
   fails leaves its out-parameters as they were. */
#ifndef NX_LAYOUT_H
#define NX_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "nx_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most axes a layout has. */
#define NX_MAX_RANK 32

/* The bound of the invariant: strides and hull positions lie strictly
   between -2^62 and 2^62. */
#define NX_LAYOUT_LIMIT ((int64_t)1 << 62)

/* A layout: rank axes of extents >= 0 and strides, and an offset, holding
   the invariant above. */
typedef struct nx_layout {
  int rank;
  int64_t offset;
  int64_t extent[NX_MAX_RANK];
  int64_t stride[NX_MAX_RANK];
} nx_layout;

/* ---- Making layouts ---------------------------------------------------- */

/* nx_layout_contiguous(shape, rank, &l) sets l to the C-contiguous layout of
   shape at offset 0: the last axis at stride 1, each other at the product of
   the extents after it, an extent of 0 counted as 1 (a shape with no element
   reaches nothing, and its strides stay small).
   Fails if rank < 0 or rank > NX_MAX_RANK, shape is NULL with rank > 0,
   an extent is negative, the element count does not fit in an int64_t, a
   position reaches 2^62 (more than 2^62 elements), or l is NULL. */
NX_API int nx_layout_contiguous(const int64_t *shape, int rank, nx_layout *l);

/* nx_layout_make(rank, extents, strides, offset, &l) sets l to the layout of
   those parts. strides may be NULL for C-contiguous strides.
   Fails as nx_layout_contiguous does, and if the layout breaks the
   invariant (a stride or a hull position at 2^62 or past, in magnitude),
   on layouts with no element too. */
NX_API int nx_layout_make(int rank, const int64_t *extents, const int64_t *strides, int64_t offset, nx_layout *l);

/* ---- Facts ------------------------------------------------------------- */

/* The number of elements: the product of the extents (1 for rank 0); 0,
   with a message, for a NULL l or one that breaks the invariant. */
NX_API int64_t nx_layout_count(const nx_layout *l);

/* nx_layout_position(l, index, &p) sets p to the position of index, which
   has l->rank entries.
   Fails if l is NULL or breaks the invariant, index is NULL (rank > 0) or p
   is NULL, or unless 0 <= index[j] < l->extent[j] for every j. */
NX_API int nx_layout_position(const nx_layout *l, const int64_t *index, int64_t *p);

/* nx_layout_span(l, &least, &greatest) sets the least and greatest positions
   l reaches and returns 0, or returns NX_NONE for a layout with no
   element.
   Fails if l is NULL or breaks the invariant, or least or greatest is
   NULL. */
NX_API int nx_layout_span(const nx_layout *l, int64_t *least, int64_t *greatest);

/* nx_layout_bits(l, width, &lo, &hi) sets [lo, hi) to the bits that elements
   of `width` bits laid out by l reach, from the first bit of the least
   position to the end of the greatest, and returns 0; NX_NONE for a
   layout with no element. A buffer of at least ceil(hi / 8) bytes holds them
   when lo >= 0.
   Fails if width is no dtype's, l is NULL or breaks the invariant, lo or hi
   is NULL, or the bit numbers do not fit in an int64_t. */
NX_API int nx_layout_bits(const nx_layout *l, int width, int64_t *lo, int64_t *hi);

/* nx_layout_is_contiguous(l) is true iff l is C-contiguous: every index at
   position offset plus its C-order rank. Axes of extent 1 do not count, and
   a layout with no element is contiguous. False, with a message, for a
   NULL l or one that breaks the invariant. */
NX_API bool nx_layout_is_contiguous(const nx_layout *l);

/* nx_layout_is_distinct(l) is true iff l reaches no element twice: no two
   indices share a position. Exact: a sufficient test that holds for views of
   dense arrays answers at once; otherwise a search for two indices with
   equal positions decides, within NX_LAYOUT_WORK steps. A search that runs
   out of steps answers false, as a repeated element does: "too hard" is never
   answered as distinct. False, with a message, for a NULL l or one that
   breaks the invariant. */
NX_API bool nx_layout_is_distinct(const nx_layout *l);

/* The most steps the exact searches of nx_layout_is_distinct and
   nx_layout_shares_byte take before they answer conservatively. */
#define NX_LAYOUT_WORK (1 << 14)

/* nx_layout_shares_byte(a, wa, b, wb) is true iff, over the same memory, an
   element of a (wa bits wide) and an element of b (wb bits wide) have bits in
   one byte. Exact within NX_LAYOUT_WORK steps of search; a search that runs
   out answers true (they may share). A layout with no element shares
   nothing. True (they may share), with a message, for a NULL layout, one
   that breaks the invariant, or a width that is no dtype's. */
NX_API bool nx_layout_shares_byte(const nx_layout *a, int wa, const nx_layout *b, int wb);

/* nx_layout_identical(a, wa, b, wb) is true iff a and b have one element width
   and the same extents and place every index at the same bits: their offsets
   and the strides of their axes of extent 2 or more are equal, or they have
   no element. False, with a message, for a NULL layout, one that breaks
   the invariant, or a width that is no dtype's. */
NX_API bool nx_layout_identical(const nx_layout *a, int wa, const nx_layout *b, int wb);

/* ---- Movements --------------------------------------------------------- */

/* The movements. Each changes a layout without moving an element. */
typedef enum nx_move_kind {
  NX_MOVE_RESHAPE,   /* a: the new shape; one extent may be -1, inferred */
  NX_MOVE_PERMUTE,   /* a: order, a[k] the input axis of output axis k */
  NX_MOVE_EXPAND,    /* a: the new shape, broadcast from the input */
  NX_MOVE_SHRINK,    /* a, b: start and stop of every axis */
  NX_MOVE_SLICE,     /* a, b, c: start, stop and step of the first n axes */
  NX_MOVE_FLIP,      /* a: the axes to reverse */
  NX_MOVE_SQUEEZE,   /* a: the axes of extent 1 to remove; n = -1: all of them */
  NX_MOVE_UNSQUEEZE  /* a[0]: where the new axis of extent 1 goes */
} nx_move_kind;

/* A movement: a value, checked against a shape only when applied. */
typedef struct nx_move {
  nx_move_kind kind;
  int n;
  int64_t a[NX_MAX_RANK], b[NX_MAX_RANK], c[NX_MAX_RANK];
} nx_move;

/* A slice bound that is absent, as Python's a[:] has: the start or the stop
   its step's direction gives. */
#define NX_SLICE_NONE INT64_MIN

/* The constructors set m and return 0; each fails, m unset, if n < 0 or
   n > NX_MAX_RANK, or a pointer that n > 0 needs is NULL.

   nx_move_reshape: the shape of n extents, each >= 0 or -1 (inferred from the
     element count, at most one).
   nx_move_permute: order[k] is the input axis of output axis k; negative
     axes count from the end, as numpy's do.
   nx_move_expand: the shape of n extents (numpy's broadcast_to): the input's
     axes align with its last ones; an input axis of extent 1 takes any
     extent (0 included) at stride 0, leading new axes take stride 0, and
     -1 keeps the aligned input extent.
   nx_move_shrink: starts and stops of every axis, 0 <= start <= stop <=
     extent; an empty range is allowed.
   nx_move_slice: start, stop, step for the first n axes, Python's a[start:
     stop:step]: negative bounds count from the end, bounds out of range clamp,
     NX_SLICE_NONE is an absent bound; step is not 0. Axes past n are kept.
   nx_move_flip: the axes to reverse, each at most once, negative axes from
     the end.
   nx_move_squeeze: the axes of extent 1 to remove, each at most once;
     nx_move_squeeze_all removes every axis of extent 1.
   nx_move_unsqueeze: the new axis goes before input axis `axis`, in
     [-(rank + 1), rank] with negative ones from the end (numpy's
     expand_dims). */
NX_API int nx_move_reshape(nx_move *m, const int64_t *shape, int n);
NX_API int nx_move_permute(nx_move *m, const int *order, int n);
NX_API int nx_move_expand(nx_move *m, const int64_t *shape, int n);
NX_API int nx_move_shrink(nx_move *m, const int64_t *starts, const int64_t *stops, int n);
NX_API int nx_move_slice(nx_move *m, const int64_t *starts, const int64_t *stops, const int64_t *steps, int n);
NX_API int nx_move_flip(nx_move *m, const int *axes, int n);
NX_API int nx_move_squeeze(nx_move *m, const int *axes, int n);
NX_API int nx_move_squeeze_all(nx_move *m);
NX_API int nx_move_unsqueeze(nx_move *m, int axis);

/* nx_move_shape(m, shape, rank, out, &out_rank) checks m against an input of
   that shape and sets out (room for NX_MAX_RANK extents) and out_rank to the
   result's shape.
   Fails, out unset, naming the movement, when m, out or out_rank is NULL,
   m is not one the constructors make, and when m does not fit the shape:
   reshape to another element count, two inferred extents, an inferred extent
   that no whole extent gives (or any, for a shape of no element with a zero
   among the others); a permutation that repeats or misses an axis or names
   one out of range; expand of an axis of extent other than 1 to another
   extent, to fewer axes, or to a negative extent; shrink bounds out of
   [0, extent] or start > stop, or another number of axes than the rank;
   slice of more axes than the rank or with step 0; flip or squeeze of an axis
   out of range or named twice; squeeze of an axis whose extent is not 1;
   unsqueeze out of range or past NX_MAX_RANK; and any result past
   NX_MAX_RANK axes or an element count past an int64_t. */
NX_API int nx_move_shape(const nx_move *m, const int64_t *shape, int rank, int64_t *out, int *out_rank);

/* nx_layout_move(m, l, &r) sets r to the layout of l moved by m and returns
   0, or returns NX_NONE where no single strided layout expresses the
   result. Only a reshape answers None: exactly where numpy's no-copy reshape
   fails (axes that are not merged with a stride that runs on; axes of
   extent 1 never matter, and a layout with no element always reshapes).
   Permute, expand, shrink, slice (offset += start*stride, stride *= step,
   as numpy's views, the stride kept where that overflows or passes 2^62 in
   magnitude on an axis of one index or none),
   flip (offset += (n-1)*stride, stride = -stride), squeeze and unsqueeze
   always have one.
   Fails if m, l or r is NULL, l breaks the invariant, m is not one the
   constructors make (an unknown kind, or n outside 0 to NX_MAX_RANK: -1
   only for squeeze_all), as nx_move_shape does, and if the result breaks
   the invariant (an expand or reshape past the bound). */
NX_API int nx_layout_move(const nx_move *m, const nx_layout *l, nx_layout *r);

/* ---- Bitcast and copies ------------------------------------------------ */

/* nx_layout_bitcast(l, from, to, &r) sets r to the layout of l's bits read as
   elements of `to` bits instead of `from` bits (widths 1, 4, 8, 16, 32, 64 or
   128), with r the ratio of the two widths:
   - equal widths keep the layout;
   - to a narrower width, a trailing axis of extent r and stride 1 is
     appended, and the other strides and the offset are multiplied by r;
   - to a wider width, l needs a trailing axis of extent r and stride 1, and
     an offset and other strides that are multiples of r; the axis is removed
     and they are divided by r. A layout with no element needs only the
     trailing axis of extent r: its other strides and offset are divided where
     they divide and its offset rounded down.
   Returns 0, or NX_NONE where widening's conditions fail.
   Fails if l or r is NULL, l breaks the invariant, a width is not one of
   those, on a narrowing of a layout of rank NX_MAX_RANK, or if the result
   breaks the invariant (a narrowing past the bound). */
NX_API int nx_layout_bitcast(const nx_layout *l, int from, int to, nx_layout *r);

/* nx_layout_copy(l, width, &r) sets r to the layout that to_device gives a
   copy of l's elements of `width` bits in a fresh buffer, which holds
   nx_layout_copy_bytes of them:
   - where the bytes from l's first to its last position are no more than a
     dense copy's (one element per index, an axis of stride 0 counted once),
     l shifted down by whole bytes so that its first position lies in byte 0
     (a sub-byte element keeps its place inside its byte);
   - otherwise the copy's axes go by decreasing magnitude of l's stride, ties
     in axis order, the last at stride 1 and each other at the product of the
     extents after it; each takes the sign of l's stride, an axis of stride 0
     keeps 0 (and counts as extent 1 in the products, as an extent of 0
     does), and the least position is at 0. Shape [3; 2] at strides [2; 2]
     gets strides [2; 1].
   A layout with no element gets the second form.
   Fails if l or r is NULL, l breaks the invariant, width is no dtype's, the
   copy's layout would break the invariant (2^62 positions or more), or its
   bytes do not fit in an int64_t. */
NX_API int nx_layout_copy(const nx_layout *l, int width, nx_layout *r);

/* nx_layout_copy_bytes(l, width) is the size of the buffer nx_layout_copy's
   layout needs: the bytes its positions reach from byte 0 (0 for no element).
   Fails, returning NX_EINVAL (negative) with a message naming
   nx_layout_copy_bytes, where nx_layout_copy fails. */
NX_API int64_t nx_layout_copy_bytes(const nx_layout *l, int width);

#ifdef __cplusplus
}
#endif
#endif /* NX_LAYOUT_H */
