/* SPDX-License-Identifier: Apache-2.0 */
/* The work of the blocked kernels (gemm_wide.c, gemm_int8.c): z's blocks
   cut into chunks, about four a thread, each chunk with its own scratch
   (aligned to 64 bytes, a cache line and a vector). */
#include "mm.h"
#include "../base/alloc.h"

typedef struct job {
  const nx__mm *P;
  int64_t mc, nc, iblocks, jblocks, items, chunks;
  nx__mm_item_fn item;
  void **space;
} job;

static void task(void *vj, int64_t u0, int64_t u1) {
  const job *J = vj;
  for (int64_t c = u0; c < u1; c++) {
    int64_t i0 = c * J->items / J->chunks, i1 = (c + 1) * J->items / J->chunks;
    for (int64_t u = i0; u < i1; u++) {
      int64_t t = u / (J->iblocks * J->jblocks), rest = u % (J->iblocks * J->jblocks);
      J->item(J->P, t, rest / J->jblocks * J->mc, rest % J->jblocks * J->nc, J->space[c]);
    }
  }
}

void nx__mm_blocks(nx__mm *P, int64_t mc, int64_t nc, size_t space, nx__mm_item_fn item) {
  job J = {P, mc, nc, (P->m + mc - 1) / mc, (P->n + nc - 1) / nc, 0, 0, item, NULL};
  J.items = P->count * J.iblocks * J.jblocks;
  double ops = 2.0 * (double)P->m * (double)P->n * (double)P->k * (double)P->count;
  int64_t chunks = ops < 2e6 ? 1 : 4 * (int64_t)nx_num_threads();
  J.chunks = chunks < J.items ? chunks : J.items;
  J.space = nx__mm_scratch(P, sizeof(void *) * (size_t)J.chunks);
  int64_t made = 0;
  if (J.space)
    for (; made < J.chunks; made++)
      if (!(J.space[made] = nx__aligned_alloc(64, (space + 63) / 64 * 64))) {
        P->status = NX_ENOMEM;
        break;
      }
  if (made == J.chunks) {
    if (J.chunks == 1) task(&J, 0, 1);
    else nx__parallel(J.chunks, J.chunks, task, &J);
  }
  for (int64_t c = 0; c < made; c++) nx__free(J.space[c]);
  nx__free(J.space);
}
