/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the index module: walking a shape in C order of indices with
   the element positions of several operands, and an element's argument for
   the kernels' loads and stores. */
#ifndef NX_INDEX_WALK_H
#define NX_INDEX_WALK_H

#include "../kernels/api.h"
#include "../kernels/elem.h"

enum { NX__WALK_OPS = 4 };

typedef struct nx__walker {
  int rank, nops;
  int64_t ext[NX_MAX_RANK], idx[NX_MAX_RANK];
  int64_t pos[NX__WALK_OPS];
  int64_t str[NX__WALK_OPS][NX_MAX_RANK];
} nx__walker;

/* A walker over ext (rank entries) starting at positions pos0 with strides
   str[k] (rank entries each) for nops operands; axes with skip set are held
   at index 0. */
void nx__walk_init(nx__walker *w, int rank, const int64_t *ext, int nops, const int64_t *pos0,
                   const int64_t *const *str, const bool *skip);

/* To the next index in C order; false past the last. */
bool nx__walk_next(nx__walker *w);

/* The element at position pos of base, of `bits` bits, as a run of one. */
static inline nx__arg nx__at(void *base, int bits, int64_t pos) {
  return bits >= 8 ? (nx__arg){(char *)base + pos * (bits / 8), 0, 0} : (nx__arg){(char *)base, pos, 0};
}

#endif
