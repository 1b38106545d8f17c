/* SPDX-License-Identifier: Apache-2.0 */
/* The typed cast loops (typed.h) at each level, and the choice of one for a
   run. */
#include "typed.h"
#include "typed_defs.h"
#include "typed_x86.h"

#define NX__LOOPS "typed_cast_loops.h"
#include "typed_levels.h"

/* The index of dt in the tables, or -1. */
static int index_of(nx_dtype dt) {
  switch (dt) {
  case NX_FLOAT32: return 0;
  case NX_FLOAT64: return 1;
  case NX_INT8: return 2;
  case NX_INT16: return 3;
  case NX_INT32: return 4;
  case NX_INT64: return 5;
  case NX_UINT8: return 6;
  case NX_BOOL: return 7;
  default: return -1;
  }
}

bool nx__typed_cast(nx_dtype to, void *dst, nx_dtype from, const void *src, int64_t n) {
  int t = index_of(to), f = index_of(from);
  if (t < 0 || f < 0) return false;
  const nx__un_fn(*table)[8];
  switch (nx__typed_level()) {
  case NX__TYPED_BASE: table = casts_base; break;
#if defined(NX__TYPED_X86)
  case NX__TYPED_AVX2:
    if (nx__typed_narrow256(to, dst, from, src, n)) return true;
    table = casts_avx2;
    break;
  case NX__TYPED_AVX512:
    if (nx__typed_narrow512(to, dst, from, src, n)) return true;
    table = casts_512;
    break;
#endif
  default: return false;
  }
  table[t][f](dst, src, n);
  return true;
}
