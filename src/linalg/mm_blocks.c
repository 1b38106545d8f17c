/* SPDX-License-Identifier: Apache-2.0 */
/* The work of the blocked kernels (gemm_wide.c, gemm_int8.c): z's blocks
   cut into chunks, about four a thread, taken by the pool's threads as they
   come free. Scratch (aligned to 64 bytes, a cache line and a vector) is
   made per thread, not per chunk: no more chunks run at once than there
   are threads, and each takes a free slot of scratch for its run. */
#include <stdatomic.h>

#include "mm.h"
#include "../base/alloc.h"

enum { SLOTS = 256 }; /* nx_set_num_threads's bound */

typedef struct job {
  const nx__mm *P;
  int64_t mc, nc, iblocks, jblocks, items, chunks, slots;
  nx__mm_item_fn item;
  void **space;
  atomic_bool used[SLOTS];
} job;

static void task(void *vj, int64_t u0, int64_t u1) {
  job *J = vj;
  int64_t s = 0;
  while (atomic_exchange_explicit(&J->used[s], true, memory_order_acquire)) s = (s + 1) % J->slots;
  for (int64_t c = u0; c < u1; c++) {
    int64_t i0 = c * J->items / J->chunks, i1 = (c + 1) * J->items / J->chunks;
    for (int64_t u = i0; u < i1; u++) {
      int64_t t = u / (J->iblocks * J->jblocks), rest = u % (J->iblocks * J->jblocks);
      J->item(J->P, t, rest / J->jblocks * J->mc, rest % J->jblocks * J->nc, J->space[s]);
    }
  }
  atomic_store_explicit(&J->used[s], false, memory_order_release);
}

void nx__mm_blocks(nx__mm *P, int64_t mc, int64_t nc, size_t space, nx__mm_item_fn item) {
  P->bm = mc;
  P->bn = nc;
  job *J = nx__mm_scratch(P, sizeof(job));
  if (!J) return;
  *J = (job){P, mc, nc, (P->m + mc - 1) / mc, (P->n + nc - 1) / nc, 0, 0, 0, item, NULL, {0}};
  J->items = P->count * J->iblocks * J->jblocks;
  double ops = 2.0 * (double)P->m * (double)P->n * (double)P->k * (double)P->count;
  int64_t threads = nx_num_threads(), chunks = ops < 2e6 ? 1 : 4 * threads;
  J->chunks = chunks < J->items ? chunks : J->items;
  J->slots = threads < J->chunks ? threads : J->chunks;
  for (int64_t s = 0; s < SLOTS; s++) atomic_init(&J->used[s], false);
  J->space = nx__mm_scratch(P, sizeof(void *) * (size_t)J->slots);
  int64_t made = 0;
  if (J->space)
    for (; made < J->slots; made++)
      if (!(J->space[made] = nx__aligned_alloc(64, (space + 63) / 64 * 64))) {
        P->status = NX_ENOMEM;
        break;
      }
  if (made == J->slots) {
    if (J->chunks == 1) task(J, 0, 1);
    else nx__parallel(J->chunks, J->chunks, task, J);
  }
  for (int64_t s = 0; s < made; s++) nx__free(J->space[s]);
  nx__free(J->space);
  nx__free(J);
}
