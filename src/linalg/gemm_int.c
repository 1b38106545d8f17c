/* SPDX-License-Identifier: Apache-2.0 */
/* Products of integers: every product and sum modulo 2^64 (unsigned
   arithmetic, no overflow), z keeping the low bits of the sum, which are the
   same whatever width the accumulation wraps at above z's. */
#include "../kernels/elem.h"
#include "mm.h"

typedef struct job {
  const nx__mm *P;
  int abits, bbits, zbits, asig, bsig;
} job;

static inline uint64_t ld(const char *base, int bits, int sig, int64_t e) {
  nx__arg r = bits >= 8 ? (nx__arg){(char *)base + e * (bits / 8), 0, 0} : (nx__arg){(char *)base, e, 0};
  return (uint64_t)nx__int_value(nx__ld(bits, &r, 0), bits, sig);
}

static void task(void *vj, int64_t u0, int64_t u1) {
  const job *J = vj;
  const nx__mm *P = J->P;
  for (int64_t u = u0; u < u1; u++) {
    int64_t t = u / P->m, i = u % P->m;
    int64_t pa = nx__mm_pos(P, &P->a, t) + i * P->a.rs, pb = nx__mm_pos(P, &P->b, t),
            pz = nx__mm_pos(P, &P->z, t) + i * P->z.rs;
    for (int64_t j = 0; j < P->n; j++) {
      uint64_t acc = 0;
      for (int64_t p = 0; p < P->k; p++)
        acc += ld(P->a.base, J->abits, J->asig, pa + p * P->a.cs) *
               ld(P->b.base, J->bbits, J->bsig, pb + p * P->b.rs + j * P->b.cs);
      int64_t e = pz + j * P->z.cs;
      nx__arg r = J->zbits >= 8 ? (nx__arg){P->z.base + e * (J->zbits / 8), 0, 0} : (nx__arg){P->z.base, e, 0};
      nx__st(J->zbits, &r, 0, acc);
    }
  }
}

void nx__mm_int(nx__mm *P) {
  job J = {P, nx_dtype_bits_of(P->a.dt), nx_dtype_bits_of(P->b.dt), nx_dtype_bits_of(P->z.dt),
           nx_dtype_kind_of(P->a.dt) == NX_KIND_SIGNED, nx_dtype_kind_of(P->b.dt) == NX_KIND_SIGNED};
  int64_t units = P->count * P->m;
  if ((double)units * (double)P->n * (double)P->k < 1e5) task(&J, 0, units);
  else nx__parallel(units, 4 * (int64_t)nx_num_threads(), task, &J);
}
