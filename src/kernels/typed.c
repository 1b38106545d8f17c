/* SPDX-License-Identifier: Apache-2.0 */
/* The typed loops' level: the CPU's, found once, under a cap the tests set. */
#include <stdatomic.h>

#include "typed.h"
#include "typed_defs.h"

static atomic_int cap = NX__TYPED_BEST;

static int cpu_level(void) {
  static atomic_int found = -1;
  int v = atomic_load_explicit(&found, memory_order_relaxed);
  if (v >= 0) return v;
  v = NX__TYPED_BASE;
#if defined(NX__TYPED_X86)
  /* vcvtqq2ps, vpmovsqb and the byte masks the AVX-512 loops compile to
     need DQ, BW and VL beside F */
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    v = NX__TYPED_AVX512;
  else if (__builtin_cpu_supports("avx2"))
    v = NX__TYPED_AVX2;
#endif
  atomic_store_explicit(&found, v, memory_order_relaxed);
  return v;
}

int nx__typed_level(void) {
  int c = atomic_load_explicit(&cap, memory_order_relaxed), cpu = cpu_level();
  return c < cpu ? c : cpu;
}

int nx__typed_set_isa(int level) {
  atomic_store_explicit(&cap, level, memory_order_relaxed);
  return nx__typed_level();
}
