/* SPDX-License-Identifier: Apache-2.0 */
/* Cast: the entry point, which hands contiguous runs of the pairs that have a
   vector path to it and everything else to the exact element path. */
#include "cast.h"
#include "cast_internal.h"
#include "typed.h"

nx__cast_loop nx__cast_find(const nx__cast_path *paths, size_t n, int to, int from, int *block) {
  for (size_t k = 0; k < n; k++)
    if (paths[k].to == to && paths[k].from == from) {
      *block = paths[k].block;
      return paths[k].fn;
    }
  return 0;
}

void nx__cast_run(nx_dtype to, void *dst, int64_t dp, int64_t ds,
                  nx_dtype from, const void *src, int64_t sp, int64_t ss, int64_t n) {
  if (n > 0 && ss == 1 && ds == 1) {
    /* the typed loops' dtypes are whole bytes */
    int tb = nx_dtype_bits_of(to) / 8, fb = nx_dtype_bits_of(from) / 8;
    if (tb && fb && nx__typed_cast(to, (char *)dst + dp * tb, from, (const char *)src + sp * fb, n)) return;
    if (nx__cast_fast(to, dst, dp, from, src, sp, n)) return;
  }
  nx__cast_run_scalar(to, dst, dp, ds, from, src, sp, ss, n);
}
