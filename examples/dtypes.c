/* SPDX-License-Identifier: Apache-2.0 */
/* Dtypes and printing: every dtype's facts, what a store of 0.1 holds in each
   float format, its bits, and the shortest text that reads back to it. */
#include <inttypes.h>
#include <stdio.h>

#include <nx.h>

int main(void) {
  printf("nx %s (compiled against %s)\n", nx_version(), NX_VERSION_STRING);
  const nx_dtype *all = nx_dtype_all();
  for (int i = 0; i < NX_DTYPE_COUNT; i++) {
    nx_dtype dt = all[i];
    nx_float_format f;
    if (nx_dtype_float_format(dt, &f) != 0) continue; /* not a float format */
    /* The store rule: the nearest value of the format, ties to even. */
    uint64_t bits = nx_dtype_store_bits(nx_dtype_code(dt), 0.1);
    double held = nx_dtype_load_bits(nx_dtype_code(dt), bits);
    char text[NX_DTYPE_PP_MAX], max[NX_DTYPE_PP_MAX];
    if (nx_dtype_format_value(nx_dtype_code(dt), held, text, sizeof text) < 0 ||
        nx_dtype_format_value(nx_dtype_code(dt), f.max_finite, max, sizeof max) < 0) {
      fprintf(stderr, "%s\n", nx_error_message());
      return 1;
    }
    printf("%-14s %2d bits: 0.1 is stored as 0x%0*" PRIX64 " = %.17g, printed \"%s\"; largest finite \"%s\"\n",
           nx_dtype_name(dt), nx_dtype_bits(dt), (nx_dtype_bits(dt) + 3) / 4, bits, held, text, max);
  }
  /* A value that is not one of the format's is refused, with a message. */
  char text[NX_DTYPE_PP_MAX];
  if (nx_dtype_format_value(NX_FLOAT32, 0.1, text, sizeof text) < 0)
    printf("refused: %s\n", nx_error_message());
  return 0;
}
