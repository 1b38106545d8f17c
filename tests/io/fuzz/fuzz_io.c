/* SPDX-License-Identifier: Apache-2.0 */
/* A libFuzzer target per parser (built with clang only, NX_FUZZ): the
   input, behind the format's magic where the target names one, goes into a
   file that nx_io_open maps and parses; every tensor it accepts is loaded
   and its elements read, so each header fact it believes is exercised.
   NX_FUZZ_MAGIC is "\x93NUMPY" (npy), "GGUF" (gguf) or "" (npz and
   safetensors, whose seeds carry their own first bytes). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nx_io.h"

static int touch(void *ctx, const void *base, nx_dtype dt, const nx_layout *l) {
  (void)dt;
  int64_t lo, hi;
  if (nx_layout_bits(l, nx_dtype_bits(dt), &lo, &hi) == 0) {
    const uint8_t *p = base;
    *(uint8_t *)ctx ^= p[lo / 8] ^ p[(hi - 1) / 8];
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
  static char path[64];
  if (!path[0]) snprintf(path, sizeof path, "/tmp/nx-fuzz-%d", (int)getpid());
  static const char magic[] = NX_FUZZ_MAGIC;
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  fwrite(magic, 1, sizeof magic - 1, f);
  fwrite(data, 1, n, f);
  fclose(f);
  nx_io_file *io;
  if (nx_io_open(path, &io) == 0) {
    uint8_t sink = 0;
    for (int i = 0; i < nx_io_file_count(io); i++) {
      nx_array *a;
      if (nx_io_load(io, i, &a) == 0) {
        nx_array_read(a, touch, &sink);
        nx_array_free(a);
      }
    }
    for (int i = 0; i < nx_io_file_metadata_count(io); i++) {
      const char *k, *v;
      nx_io_file_metadata(io, i, &k, &v);
    }
    nx_io_close(io);
  } else if (!strstr(nx_error_message(), "nx_io_open")) {
    abort(); /* every refusal names the function */
  }
  return 0;
}
