/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the layout module. */
#ifndef NX_LAYOUT_INTERNAL_H
#define NX_LAYOUT_INTERNAL_H

#include "nx_layout.h"
#include "../base/error.h"

/* Checked int64 arithmetic: true on overflow. */
#define NX__MUL(a, b, r) __builtin_mul_overflow(a, b, r)
#define NX__ADD(a, b, r) __builtin_add_overflow(a, b, r)

/* nx__layout_check(fn, what, l) is 0 iff l holds nx_layout.h's invariant:
   rank in [0, NX_MAX_RANK], extents >= 0 with a product that fits in an
   int64_t, every stride in (-2^62, 2^62), and the hull (every position l
   would reach if no extent were 0) in (-2^62, 2^62), empty layouts included;
   otherwise NX_EINVAL with the message naming fn and the operand `what`
   ("l", "a", "the result"). Everything that follows from the invariant
   (positions, partial sums, a stride times its extent, a flip's offset, the
   hull's width below 2^63) fits in an int64_t. */
int nx__layout_check(const char *fn, const char *what, const nx_layout *l);

/* Checks a layout the library derived (a result): an empty one whose
   derived strides pass the bound gets strides 0, since it reaches nothing,
   then nx__layout_check(fn, "the result", l). */
int nx__layout_settle(const char *fn, nx_layout *l);

/* Whether w is the width of some dtype: 1, 4, 8, 16, 32, 64 or 128. */
bool nx__layout_width(int w);

/* Whether l has no element. */
bool nx__layout_empty(const nx_layout *l);

/* nx_layout_span and nx_layout_copy, their failures naming fn. */
int nx__layout_span_of(const char *fn, const nx_layout *l, int64_t *least, int64_t *greatest);
int nx__layout_copy(const char *fn, const nx_layout *l, int width, nx_layout *r);

/* nx_layout_make, its failures naming fn. */
int nx__layout_make(const char *fn, int rank, const int64_t *extents, const int64_t *strides, int64_t offset,
                    nx_layout *l);

/* The least and greatest positions of a checked layout with elements. */
void nx__layout_span(const nx_layout *l, int64_t *least, int64_t *greatest);

/* Writes "[e0; e1; ...]" of l's extents into buf (cap bytes), for messages. */
const char *nx__shape_text(const int64_t *extents, int rank, char *buf, int cap);

#endif
