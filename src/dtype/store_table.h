/* SPDX-License-Identifier: Apache-2.0 */
/* nx_dtype_store_bits' stores into float8_e4m3fn, float8_e5m2 and
   float4_e2m1fn, on the host: the rounding read from a table of the store
   rule's results (store_tables.h, made by the portable store of nx_dtype.h)
   by the double's binade, the fraction bits the rounding looks at and
   whether any bit below them is set, rather than computed. The same bits as
   the portable store, without a branch, in 32 to 36 instructions a store
   where the computation takes 39 to 42 (gcc 12). Included by dtype.c. */
#include <stdint.h>

#include "nx_dtype.h"
#include "store_tables.h"

/* The store from float64 bits u into the format (fb, inf, nan) of width w
   whose table t covers the binades [lo, hi]. */
static inline uint64_t nx__store_by_table(uint64_t u, const uint8_t *t, int64_t lo, int64_t hi, int fb, int w, int inf,
                                          int nan) {
  uint64_t a = u & 0x7FFFFFFFFFFFFFFFull;
  int64_t e = (int64_t)(a >> 52);
  e = e < lo ? lo : e; /* below lo: 0, as at lo */
  e = e > hi ? hi : e; /* above hi: overflow, as at hi; infinities and NaNs too */
  int f = fb + 1;      /* the kept fraction bits and the rounding bit */
  /* (e - lo) << (f + 1) | ..., the subtraction last: it folds into the load's offset */
  uint64_t i = ((uint64_t)e << (f + 1)) | ((a >> (51 - f)) & ((2u << f) - 2)) | (uint64_t)((a << (12 + f)) != 0);
  uint64_t r = t[i - ((uint64_t)lo << (f + 1))] | ((u >> 63) << (w - 1));
  /* NaNs as nx__store_float makes them from the overflow's bits */
  uint64_t is_nan = (uint64_t)0 - (uint64_t)(a > 0x7FF0000000000000ull);
  if (!nan) return r & ~is_nan;
  if (!inf) return r | (is_nan & 1);
  return r | (is_nan & (((a & 0xFFFFFFFFFFFFFull) >> (52 - fb)) | ((uint64_t)1 << (fb - 1))));
}

/* Whether code's store goes by table. */
static inline int nx__store_tabled(int code) {
  return code == NX_FLOAT8_E4M3FN || code == NX_FLOAT8_E5M2 || code == NX_FLOAT4_E2M1FN;
}

/* The store by table of a code for which nx__store_tabled holds. */
static inline uint64_t nx__store_tabled_f64bits(int code, uint64_t u) {
  switch (code) {
  case NX_FLOAT8_E4M3FN: return nx__store_by_table(u, nx__st_E4M3FN, NX__ST_E4M3FN_LO, NX__ST_E4M3FN_HI, 3, 8, 0, 1);
  case NX_FLOAT8_E5M2: return nx__store_by_table(u, nx__st_E5M2, NX__ST_E5M2_LO, NX__ST_E5M2_HI, 2, 8, 1, 1);
  default: return nx__store_by_table(u, nx__st_E2M1FN, NX__ST_E2M1FN_LO, NX__ST_E2M1FN_HI, 1, 4, 0, 0);
  }
}
