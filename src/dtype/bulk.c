/* SPDX-License-Identifier: Apache-2.0 */
/* nx_dtype_store_n and nx_dtype_load_n: the scalar stores and loads over
   arrays, vectorized for the instruction sets the CPU has, chosen at run
   time, with the plain loops as the fallback everywhere. */
#if defined(__GNUC__) && !defined(__clang__)
/* gcc vectorizes these loops only under -O3's cost model. */
#pragma GCC optimize("O3")
#endif
#include <stdatomic.h>
#include <string.h>

#include "../base/error.h"
#include "dtype_internal.h"

#define NX__ISA plain
#define NX__TARGET
#include "bulk_kernels.h"
#undef NX__ISA
#undef NX__TARGET

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_X86 1
#define NX__ISA avx2
#define NX__TARGET __attribute__((target("avx2,bmi2")))
#include "bulk_kernels.h"
#undef NX__ISA
#undef NX__TARGET
#define NX__ISA avx512
#define NX__TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,bmi2")))
#include "bulk_kernels.h"
#undef NX__ISA
#undef NX__TARGET
#include "bulk_avx512.h"

/* AVX-512: the float formats eight or sixteen at a time, the rest of them
   (and every other dtype) by the loops. A packed format's rest starts on a
   byte: 8 elements fill whole bytes. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,bmi2"))) static void store_n_avx512_floats(
    int code, const double *x, void *out, int64_t n) {
  int64_t done = store_floats_avx512(code, x, out, n);
  store_n_avx512(code, x + done, (uint8_t *)out + done * nx_dtype_bits_of(code) / 8, n - done);
}
#endif

/* The best level this CPU runs: 0 plain, 1 AVX2, 2 AVX-512 (F, BW, VL, DQ). */
static int best_level(void) {
#if defined(HAVE_X86)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("bmi2"))
    return 2;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2")) return 1;
#endif
  return 0;
}

/* The level in use, -1 until chosen: every thread that chooses it chooses the same. */
static _Atomic int level = -1;

static int current_level(void) {
  int l = atomic_load_explicit(&level, memory_order_relaxed);
  if (l < 0) atomic_store_explicit(&level, l = best_level(), memory_order_relaxed);
  return l;
}

int nx__dtype_bulk_levels(void) { return best_level(); }

void nx__dtype_bulk_force(int l) {
  int best = best_level();
  atomic_store_explicit(&level, l < 0 || l > best ? best : l, memory_order_relaxed);
}

/* The checks both entry points make, naming fn. */
static bool valid(const char *fn, nx_dtype dt, const void *x, const char *xn, const void *y, const char *yn, int64_t n) {
  if (!nx__dtype_valid(fn, dt)) return false;
  if (x == NULL || y == NULL) {
    nx__fail(NX_EINVAL, "%s: %s is NULL (%s, %lld elements)", fn, x == NULL ? xn : yn, nx_dtype_name(dt), (long long)n);
    return false;
  }
  if (n < 0) {
    nx__fail(NX_EINVAL, "%s: the count %lld is negative (%s)", fn, (long long)n, nx_dtype_name(dt));
    return false;
  }
  return true;
}

/* The loops by level. */
typedef void store_loops(int, const double *, void *, int64_t);
typedef void load_loops(int, const void *, double *, int64_t);
#if defined(HAVE_X86)
static store_loops *const stores[] = {store_n_plain, store_n_avx2, store_n_avx512_floats};
static load_loops *const loads[] = {load_n_plain, load_n_avx2, load_n_avx512};
#else
static store_loops *const stores[] = {store_n_plain};
static load_loops *const loads[] = {load_n_plain};
#endif

int nx_dtype_store_n(nx_dtype dt, const double *x, void *out, int64_t n) {
  if (!valid("nx_dtype_store_n", dt, x, "x", out, "out", n)) return NX_EINVAL;
  stores[current_level()](dt, x, out, n);
  return 0;
}

int nx_dtype_load_n(nx_dtype dt, const void *in, double *x, int64_t n) {
  if (!valid("nx_dtype_load_n", dt, in, "in", x, "x", n)) return NX_EINVAL;
  loads[current_level()](dt, in, x, n);
  return 0;
}
