/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers every suite may use: bit casts between doubles, floats and their
   bits (memcpy, which C and C++ both define), and splitmix64, the small
   fixed-seed generator that makes random cases repeat from run to run. */
#ifndef NX_TESTS_COMMON_H
#define NX_TESTS_COMMON_H

#include <stdint.h>
#include <string.h>

#define SIGN64 0x8000000000000000ull
#define EXP64 0x7FF0000000000000ull
#define FRAC64 0x000FFFFFFFFFFFFFull

static inline uint64_t bits_of(double x) {
  uint64_t u;
  memcpy(&u, &x, 8);
  return u;
}
static inline double dbl_of(uint64_t u) {
  double x;
  memcpy(&x, &u, 8);
  return x;
}
static inline uint32_t bits_of_f(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}
static inline float flt_of(uint32_t u) {
  float x;
  memcpy(&x, &u, 4);
  return x;
}
static inline int is_nan_bits(uint64_t u) { return (u & ~SIGN64) > EXP64; }

/* The next value of the splitmix64 sequence whose state is *s. */
static inline uint64_t splitmix64_next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

#endif
