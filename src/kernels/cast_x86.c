/* Vector paths of cast, chosen at run time by CPU feature. */
#include "cast_internal.h"

int nx__cast_fast(nx_dtype to, void *dst, int64_t dp, nx_dtype from, const void *src, int64_t sp, int64_t n) {
  (void)to; (void)dst; (void)dp; (void)from; (void)src; (void)sp; (void)n;
  return 0;
}
