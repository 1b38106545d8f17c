/* SPDX-License-Identifier: Apache-2.0 */
/* The instruction level of the matrix kernels: the best the CPU has, or a
   lower one a test forces (every level computes the same bits). */
#include <stdatomic.h>

#include "mm.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>

/* CPUID leaf 1, ECX bit 29 (clang 14's __builtin_cpu_supports does not
   know the name); asked once, CPUID being slow in a virtual machine. */
bool nx__mm_f16c(void) {
  static _Atomic int known = -1;
  int v = atomic_load_explicit(&known, memory_order_relaxed);
  if (v < 0) {
    unsigned a, b, c, d;
    v = __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29));
    atomic_store_explicit(&known, v, memory_order_relaxed);
  }
  return v;
}

static int best_level(void) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f"))
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? NX__MM_AVX2 : NX__MM_PLAIN;
  if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni")) return NX__MM_AVX512_VNNI;
  return NX__MM_AVX512;
}
#else
bool nx__mm_f16c(void) { return false; }
static int best_level(void) { return NX__MM_PLAIN; }
#endif

/* -1 until chosen: every thread that chooses it chooses the same. */
static _Atomic int level = -1;

int nx__mm_level(void) {
  int l = atomic_load_explicit(&level, memory_order_relaxed);
  if (l < 0) atomic_store_explicit(&level, l = best_level(), memory_order_relaxed);
  return l;
}

int nx__mm_levels(void) { return best_level(); }

void nx__mm_force(int l) {
  int best = best_level();
  atomic_store_explicit(&level, l < 0 || l > best ? best : l, memory_order_relaxed);
}

static _Atomic bool wide_forced = false;

void nx__mm_force_wide(bool on) { atomic_store_explicit(&wide_forced, on, memory_order_relaxed); }

bool nx__mm_wide_forced(void) { return atomic_load_explicit(&wide_forced, memory_order_relaxed); }
