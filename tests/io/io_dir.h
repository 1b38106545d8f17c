/* SPDX-License-Identifier: Apache-2.0 */
/* The io suites' temporary folder (made by each main) and paths in it. */
#ifndef NX_TESTS_IO_DIR_H
#define NX_TESTS_IO_DIR_H

#include <stdio.h>

static char dir[256];

/* dir/name, in one of four buffers that take turns (so a call can name two). */
static const char *path_of(const char *name) {
  static char p[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
  return p[k];
}

#endif
