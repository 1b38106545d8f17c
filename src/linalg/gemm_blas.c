/* SPDX-License-Identifier: Apache-2.0 */
/* Products through BLAS: each operand passed as it lies where BLAS can read
   it (row-major, or transposed as a transpose flag), otherwise packed once
   (an operand's own matrices, not the broadcast copies); z written in place
   where it is row- or column-major (the latter as z^T = b^T a^T), otherwise
   through scratch. nx's pool splits the products and their rows. */
#include <limits.h>
#include <stdlib.h>

#include "blas.h"
#include "mm.h"
#include "../base/alloc.h"

/* Whether BLAS reads the rows x cols matrix with strides rs, cs; if so its
   transpose flag and leading dimension. */
static bool view(int64_t rows, int64_t cols, int64_t rs, int64_t cs, nx__gm *g) {
  int64_t one_c = cols > 1 ? cols : 1, one_r = rows > 1 ? rows : 1;
  if ((cols <= 1 || cs == 1) && (rows <= 1 || rs >= one_c)) {
    g->trans = false;
    g->ld = rows <= 1 ? one_c : rs;
  } else if ((rows <= 1 || rs == 1) && (cols <= 1 || cs >= one_r)) {
    g->trans = true;
    g->ld = cols <= 1 ? one_r : cs;
  } else
    return false;
  return g->ld <= INT_MAX;
}

static void transpose(nx__mop *o) {
  int64_t s = o->rs;
  o->rs = o->cs;
  o->cs = s;
}

typedef struct job {
  const nx__mm *P;
  nx__gm ga, gb;
  int64_t rb, blocks, esize;
} job;

static void task(void *vj, int64_t u0, int64_t u1) {
  const job *J = vj;
  const nx__mm *P = J->P;
  for (int64_t u = u0; u < u1; u++) {
    int64_t t = u / J->blocks, r0 = (u % J->blocks) * J->rb, r1 = r0 + J->rb < P->m ? r0 + J->rb : P->m;
    nx__gm a = J->ga, b = J->gb;
    /* rows r0.. of a: r0 * rs elements on, whichever way BLAS reads it */
    a.p = P->a.base + (nx__mm_pos(P, &P->a, t) + r0 * P->a.rs) * J->esize;
    b.p = P->b.base + nx__mm_pos(P, &P->b, t) * J->esize;
    char *c = P->z.base + (nx__mm_pos(P, &P->z, t) + r0 * P->z.rs) * J->esize;
    nx__blas_gemm(P->z.dt, r1 - r0, P->n, P->k, a, b, c, P->z.rs);
  }
}

void nx__mm_blas(nx__mm *P) {
  void *zbuf = NULL, *abuf = NULL, *bbuf = NULL;
  const nx__mop z0 = P->z;
  nx__gm g;
  bool rowmajor = view(P->m, P->n, P->z.rs, P->z.cs, &g) && !g.trans;
  if (!rowmajor && view(P->n, P->m, P->z.cs, P->z.rs, &g) && !g.trans) {
    /* column-major z: z^T = b^T a^T */
    nx__mop a = P->a;
    P->a = P->b;
    P->b = a;
    transpose(&P->a);
    transpose(&P->b);
    transpose(&P->z);
    int64_t m = P->m;
    P->m = P->n;
    P->n = m;
  } else if (!rowmajor && !(zbuf = nx__mm_pack(P, &P->z, P->m, P->n)))
    return;
  if (P->m <= 1) P->z.rs = P->n > 1 ? P->n : 1; /* one row: any ldc >= n */
  if (P->z.rs > INT_MAX || P->m > INT_MAX || P->n > INT_MAX || P->k > INT_MAX) goto done; /* unreachable in practice */
  job J = {P, {0}, {0}, 0, 0, nx_dtype_bits_of(P->z.dt) / 8};
  if (!view(P->m, P->k, P->a.rs, P->a.cs, &J.ga)) {
    if (!(abuf = nx__mm_pack(P, &P->a, P->m, P->k))) goto done;
    view(P->m, P->k, P->a.rs, P->a.cs, &J.ga);
  }
  if (!view(P->k, P->n, P->b.rs, P->b.cs, &J.gb)) {
    if (!(bbuf = nx__mm_pack(P, &P->b, P->k, P->n))) goto done;
    view(P->k, P->n, P->b.rs, P->b.cs, &J.gb);
  }
  /* a's row stride in the row-block offset: a transposed a steps rows by
     rs too, since rs is its element stride between rows either way */
  int threads = nx_num_threads();
  double flops = 2.0 * (double)P->m * (double)P->n * (double)P->k * (double)P->count;
  int64_t parts = flops < 4e6 ? 1 : (2 * threads + P->count - 1) / P->count;
  if (parts < 1) parts = 1;
  int64_t rb = (P->m + parts - 1) / parts;
  if (rb < 32) rb = 32;
  J.rb = rb;
  J.blocks = (P->m + rb - 1) / rb;
  int64_t units = P->count * J.blocks;
  if (flops < 4e6) task(&J, 0, units);
  else nx__parallel(units, units, task, &J);
  if (zbuf) nx__mm_unpack(P, &z0, zbuf, P->m, P->n);
done:
  nx__free(zbuf);
  nx__free(abuf);
  nx__free(bbuf);
}
