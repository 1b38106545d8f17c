/* SPDX-License-Identifier: Apache-2.0 */
/* Movement sequences against the brute-force position model: the cases of
   tests/layout/test_layout_model.c (a layout, its facts, one to four
   movements each checked element by element against the movement's
   definition, then bitcast, copy, sharing and identity), drawn from the
   fuzzer's input instead of a fixed-seed generator. A failed check aborts. */
#include "fuzz.h"

static fuzz_in input;
uint64_t fuzz_layout_rng(void);
uint64_t fuzz_layout_rng(void) { return fuzz_u64(&input); }

#define LAYOUT_MODEL_RNG fuzz_layout_rng
#define main nx_layout_model_main
int nx_layout_model_main(void);
#include "../layout/test_layout_model.c"
#undef main

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input = (fuzz_in){data, size};
  one_case();
  if (check_failures) abort();
  return 0;
}
