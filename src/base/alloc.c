/* SPDX-License-Identifier: Apache-2.0 */
/* The one allocator of nx: the C library's, and in the test variant a
   countdown that fails the Nth allocation, as SQLite's fault simulation
   does, so that a test can fail every allocation of an operation in turn. */
#include <stdatomic.h>
#include <stdlib.h>

#include "alloc.h"

#ifdef NX_TESTING
static atomic_long countdown, asked, failed;

void nx__alloc_fail_at(long k) {
  atomic_store(&asked, 0);
  atomic_store(&failed, 0);
  atomic_store(&countdown, k > 0 ? k : 0);
}

long nx__alloc_count(void) { return atomic_load(&asked); }
long nx__alloc_failed(void) { return atomic_load(&failed); }

/* Whether this allocation is the one to fail. */
static int fails(void) {
  atomic_fetch_add(&asked, 1);
  long c = atomic_load(&countdown);
  while (c > 0 && !atomic_compare_exchange_weak(&countdown, &c, c - 1)) {
  }
  if (c != 1) return 0;
  atomic_fetch_add(&failed, 1);
  return 1;
}
#else
static int fails(void) { return 0; }
#endif

void *nx__malloc(size_t n) { return fails() ? NULL : malloc(n); }
void *nx__calloc(size_t count, size_t n) { return fails() ? NULL : calloc(count, n); }
/* A failed realloc leaves p as it was, as the C library's does. */
void *nx__realloc(void *p, size_t n) { return fails() ? NULL : realloc(p, n); }
void *nx__aligned_alloc(size_t align, size_t n) { return fails() ? NULL : aligned_alloc(align, n); }
void nx__free(void *p) { free(p); }
