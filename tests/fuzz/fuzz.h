/* SPDX-License-Identifier: Apache-2.0 */
/* What the fuzzers share: the input read as a stream of bytes (zeros once it
   runs out, so every input is a whole case), and the verdict of a failed
   property, which aborts so that libFuzzer keeps the input as a crash. */
#ifndef NX_TESTS_FUZZ_H
#define NX_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "nx_error.h"

typedef struct {
  const uint8_t *p;
  size_t n;
} fuzz_in;

static inline uint8_t fuzz_u8(fuzz_in *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

static inline uint64_t fuzz_u64(fuzz_in *in) {
  uint64_t v = 0;
  for (int k = 0; k < 8; k++) v |= (uint64_t)fuzz_u8(in) << (8 * k);
  return v;
}

/* Uniform enough in [lo, hi] for a fuzzer: one byte, or eight past 256. */
static inline int64_t fuzz_in_range(fuzz_in *in, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)(hi - lo) + 1;
  uint64_t r = span <= 256 ? fuzz_u8(in) : fuzz_u64(in);
  return lo + (int64_t)(r % span);
}

#define FUZZ_REQUIRE(cond, ...)                                                    \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      fprintf(stderr, "%s:%d: property failed: %s: ", __FILE__, __LINE__, #cond);  \
      fprintf(stderr, __VA_ARGS__);                                                \
      fputc('\n', stderr);                                                         \
      abort();                                                                     \
    }                                                                              \
  } while (0)

/* A failure is a negative status with a message. */
#define FUZZ_FAILED_WELL(st, fn)                                                           \
  FUZZ_REQUIRE((st) < 0 && nx_error_message()[0] != 0, "%s: status %d, message \"%s\"", \
               fn, (int)(st), nx_error_message())

/* The library's own message setter (src/base/error.h): the fuzzers empty the
   message before a call, so that a failure must set one of its own. */
int nx__fail(int status, const char *fmt, ...);
static inline void fuzz_clear_message(void) { nx__fail(0, "%s", ""); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
