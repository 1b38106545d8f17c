/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the layout module. */
#ifndef NX_LAYOUT_INTERNAL_H
#define NX_LAYOUT_INTERNAL_H

#include "nx_layout.h"
#include "../base/error.h"

/* Checked int64 arithmetic: true on overflow. */
#define NX__MUL(a, b, r) __builtin_mul_overflow(a, b, r)
#define NX__ADD(a, b, r) __builtin_add_overflow(a, b, r)

/* nx__layout_check(fn, l) is 0 iff l is a layout these functions make: rank
   in [0, NX_MAX_RANK], extents >= 0, an element count and (for a layout with
   elements) positions that fit in an int64_t; otherwise NX_EINVAL with the
   message naming fn. */
int nx__layout_check(const char *fn, const nx_layout *l);

/* nx_layout_make, its failures naming fn. */
int nx__layout_make(const char *fn, int rank, const int64_t *extents, const int64_t *strides, int64_t offset,
                    nx_layout *l);

/* The least and greatest positions of a checked layout with elements. */
void nx__layout_span(const nx_layout *l, int64_t *least, int64_t *greatest);

/* Writes "[e0; e1; ...]" of l's extents into buf (cap bytes), for messages. */
const char *nx__shape_text(const int64_t *extents, int rank, char *buf, int cap);

#endif
