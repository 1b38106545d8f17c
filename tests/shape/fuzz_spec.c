/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the einsum spec parser: parse the input as a spec
   over one to three operands of fixed shapes, solve, and close. Must never
   crash, leak or hang. Build with clang -fsanitize=fuzzer, or run through
   fuzz_driver.c without a fuzzer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nx_shape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0;
  char *spec = malloc(size + 1);
  if (!spec) return 0;
  memcpy(spec, data, size);
  spec[size] = 0;
  nx_shape_session *s;
  if (nx_shape_session_new(&s)) {
    free(spec);
    return 0;
  }
  nx_tensor *a, *b, *c, *r;
  nx_tensor_term(s, "a", "2", "3", "4,5", &a);
  nx_tensor_term(s, "b", NULL, NULL, "5,6", &b);
  nx_tensor_param(s, "c", NULL, NULL, &c);
  nx_tensor *args[3] = {a, b, c};
  int n = 1 + (int)(size % 3);
  if (nx_tensor_einsum(s, spec, args, n, &r) == 0) {
    char buf[256];
    nx_tensor_to_string(s, r, NX_SHAPE_STYLE_AXIS_NUMBER_AND_SIZE, buf, sizeof buf);
    nx_shape_finish(s);
    nx_tensor_to_string(s, r, NX_SHAPE_STYLE_SIZE, buf, sizeof buf);
  }
  nx_shape_session_free(s);
  free(spec);
  return 0;
}
