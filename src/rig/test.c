/* SPDX-License-Identifier: Apache-2.0 */
/* The test device: memory the host does not address (hidden storage that
   only its timeline touches), work on a thread of its own, and faults that
   nx_test_device_fail arms (timeline.c fires them). */
#include <stdlib.h>
#include <string.h>

#include "rig_internal.h"
#include "../base/alloc.h"

static int test_alloc(nx_device *d, nx__memory *m) {
  (void)d;
  m->impl = nx__malloc((size_t)(m->bytes > 0 ? m->bytes : 1));
  return m->impl ? 0 : NX_ENOMEM;
}

static void test_release(nx__memory *m) { nx__free(m->impl); }

const nx__backend nx__test_backend = {test_alloc,     test_release,   nx__plain_read, nx__plain_write,
                                      nx__plain_fill, nx__plain_copy, NULL,           NULL, NULL};
