/* SPDX-License-Identifier: Apache-2.0 */
/* Walking a shape in C order with operands' positions. */
#include "walk.h"

void nx__walk_init(nx__walker *w, int rank, const int64_t *ext, int nops, const int64_t *pos0,
                   const int64_t *const *str, const bool *skip) {
  w->rank = rank;
  w->nops = nops;
  for (int j = 0; j < rank; j++) {
    w->ext[j] = skip && skip[j] ? 1 : ext[j];
    w->idx[j] = 0;
    for (int k = 0; k < nops; k++) w->str[k][j] = str[k][j];
  }
  for (int k = 0; k < nops; k++) w->pos[k] = pos0[k];
}

bool nx__walk_next(nx__walker *w) {
  for (int j = w->rank - 1; j >= 0; j--) {
    if (++w->idx[j] < w->ext[j]) {
      for (int k = 0; k < w->nops; k++) w->pos[k] += w->str[k][j];
      return true;
    }
    for (int k = 0; k < w->nops; k++) w->pos[k] -= (w->ext[j] - 1) * w->str[k][j];
    w->idx[j] = 0;
  }
  return false;
}
