/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to sort: the keys whose unsigned order is the wanted order. A
   float's key (its bits with -0 already made +0): negative numbers
   inverted, others with the sign bit set; descending reverses the numbers
   below the NaN key (+inf's key is 0xFF80... and 0xFFF0..., far below it),
   NaN's key the largest in both directions. */
#ifndef NX_INDEX_SORT_KEYS_H
#define NX_INDEX_SORT_KEYS_H

#include <stdbool.h>
#include <stdint.h>

#define NX__NAN32 UINT32_MAX
#define NX__NAN64 UINT64_MAX
#define NX__SIGN32 0x80000000u
#define NX__SIGN64 0x8000000000000000ull

static inline uint32_t nx__fkey32(uint32_t b, bool desc) {
  uint32_t k = b >> 31 ? ~b : b | NX__SIGN32;
  return desc ? NX__NAN32 - 1 - k : k;
}
static inline uint64_t nx__fkey64(uint64_t b, bool desc) {
  uint64_t k = b >> 63 ? ~b : b | NX__SIGN64;
  return desc ? NX__NAN64 - 1 - k : k;
}
static inline uint32_t nx__fbits32(uint32_t k, bool desc) {
  if (desc) k = NX__NAN32 - 1 - k;
  return k >> 31 ? k & ~NX__SIGN32 : ~k;
}
static inline uint64_t nx__fbits64(uint64_t k, bool desc) {
  if (desc) k = NX__NAN64 - 1 - k;
  return k >> 63 ? k & ~NX__SIGN64 : ~k;
}

/* The same for float32 without branches, dm all ones for descending (the
   descending key is the ascending one's complement less one): NaNs the
   NaN key, both zeros +0's key. Selects and signed compares only (m is
   below 2^31), so a loop of it vectorizes. */
static inline uint32_t nx__fkey32_dm(uint32_t b, uint32_t dm) {
  uint32_t m = b & ~NX__SIGN32, k = b ^ ((uint32_t)((int32_t)b >> 31) | NX__SIGN32);
  k = m ? k : NX__SIGN32;
  k = (k ^ dm) - (dm & 1);
  return (int32_t)m > 0x7F800000 ? NX__NAN32 : k;
}
static inline uint32_t nx__fbits32_dm(uint32_t k, uint32_t dm) {
  k = (k + (dm & 1)) ^ dm;
  return k ^ (~(uint32_t)((int32_t)k >> 31) | NX__SIGN32);
}

#endif
