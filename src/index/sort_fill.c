/* SPDX-License-Identifier: Apache-2.0 */
/* The key blocks of sort (sort_fill.h): each loop compiled plain and for
   AVX2 and AVX-512 by target attributes, the level picked once by the
   CPU's features. The loops vectorize at each level; the passes that make
   or use the keys (a count, a scatter) cannot, so they take them a block
   at a time, or a bucket (in the caches) at a time. */
#include <stdbool.h>

#include "sort_fill.h"
#include "sort_keys.h"

/* The loop over e elements of stride XS (a constant where it is 1, so
   the loads are contiguous), with the counts or without. */
#define FILL_LOOP(XS)                                                                              \
  if (counts) {                                                                                    \
    uint32_t below = 0, special = 0;                                                               \
    for (int64_t j = 0; j < e; j++) {                                                              \
      uint32_t b = x[j * (XS)], kj = nx__fkey32_dm(b, dm);                                         \
      k[j] = kj;                                                                                   \
      below += kj < zk ? 1u : 0u;                                                                  \
      special += (b & ~NX__SIGN32) - 1 >= 0x7F800000u ? 1u : 0u; /* a zero or a NaN */             \
    }                                                                                              \
    counts[0] += below, counts[1] += special;                                                      \
  } else                                                                                           \
    for (int64_t j = 0; j < e; j++) k[j] = nx__fkey32_dm(x[j * (XS)], dm);

#define DEFINE_FILL(name, TARGET)                                                                  \
  TARGET static void name(uint32_t *restrict k, const uint32_t *restrict x, int64_t xs, int64_t e,  \
                          uint32_t dm, uint32_t zk, int64_t *restrict counts) {                     \
    if (xs == 1) {                                                                                  \
      FILL_LOOP(1)                                                                                  \
    } else {                                                                                        \
      FILL_LOOP(xs)                                                                                 \
    }                                                                                               \
  }

/* The decoding loop, in place (z is k) or from k to z. */
#define DECODE_LOOP(Z, K) \
  if (fl)                                                                                          \
    for (int64_t j = 0; j < n; j++) Z[j] = nx__fbits32_dm(K[j], dm);                               \
  else                                                                                             \
    for (int64_t j = 0; j < n; j++) Z[j] = K[j] ^ xr;

#define DEFINE_DECODE(name, TARGET)                                                                \
  TARGET static void name(uint32_t *z, const uint32_t *k, int64_t n, bool fl, uint32_t dm, uint32_t xr) { \
    if (z == k) {                                                                                   \
      DECODE_LOOP(z, z)                                                                             \
    } else {                                                                                        \
      uint32_t *restrict zr = z;                                                                    \
      const uint32_t *restrict kr = k;                                                              \
      DECODE_LOOP(zr, kr)                                                                           \
    }                                                                                               \
  }

DEFINE_FILL(fill_plain, )
DEFINE_DECODE(decode_plain, )
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_X86 1
#define AVX2 __attribute__((target("avx2")))
#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
DEFINE_FILL(fill_avx2, AVX2)
DEFINE_FILL(fill_avx512, AVX512)
DEFINE_DECODE(decode_avx2, AVX2)
DEFINE_DECODE(decode_avx512, AVX512)
#endif

/* The level this CPU runs (0 plain, 1 AVX2, 2 AVX-512), -1 until chosen:
   every thread that chooses it chooses the same. */
static _Atomic int level = -1;

static int cpu_level(void) {
  int l = level;
  if (l >= 0) return l;
  l = 0;
#if defined(HAVE_X86)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq"))
    l = 2;
  else if (__builtin_cpu_supports("avx2"))
    l = 1;
#endif
  level = l;
  return l;
}

void nx__fkey_block(uint32_t *k, const uint32_t *x, int64_t xs, int64_t e, uint32_t dm, uint32_t zk,
                    int64_t *counts) {
  int l = cpu_level();
#if defined(HAVE_X86)
  if (l == 2) fill_avx512(k, x, xs, e, dm, zk, counts);
  else if (l == 1) fill_avx2(k, x, xs, e, dm, zk, counts);
  else
#endif
    fill_plain(k, x, xs, e, dm, zk, counts);
  (void)l;
}

void nx__key_decode(uint32_t *z, const uint32_t *k, int64_t n, bool fl, uint32_t dm, uint32_t xr) {
  int l = cpu_level();
#if defined(HAVE_X86)
  if (l == 2) decode_avx512(z, k, n, fl, dm, xr);
  else if (l == 1) decode_avx2(z, k, n, fl, dm, xr);
  else
#endif
    decode_plain(z, k, n, fl, dm, xr);
  (void)l;
}
