/* SPDX-License-Identifier: Apache-2.0 */
/* The blocks a freed session leaves (variable pages, full-size arena
   chunks), kept for the next session of the process, as an allocator keeps
   freed memory: a large session touches tens of MB once each, and on fresh
   pages from the kernel the faults cost a third of its time
   (docs/shapes.md). At most CACHE_MAX bytes are kept; the rest is freed.
   nx_set_allocator drains the cache first, so that no memory of the old
   allocator is held. */
#include <pthread.h>
#include <stddef.h>

#include "solver.h"
#include "../base/alloc.h"

enum { CACHE_MAX = 64 << 20 };

typedef struct block { struct block *next; } block;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static block *lists[NX__CACHE_KINDS];
static size_t held;

static void drain(void) {
  pthread_mutex_lock(&mu);
  for (int k = 0; k < NX__CACHE_KINDS; k++)
    for (block *b = lists[k], *n; b; b = n) {
      n = b->next;
      nx__free(b);
    }
  for (int k = 0; k < NX__CACHE_KINDS; k++) lists[k] = NULL;
  held = 0;
  pthread_mutex_unlock(&mu);
}

void *nx__shape_cache_take(int kind, size_t size) {
  pthread_mutex_lock(&mu);
  block *b = lists[kind];
  if (b) {
    lists[kind] = b->next;
    held -= size;
  }
  pthread_mutex_unlock(&mu);
  return b;
}

void nx__shape_cache_put(int kind, void *p, size_t size) {
  block *b = p;
  pthread_mutex_lock(&mu);
  bool keep = held + size <= CACHE_MAX;
  if (keep) {
    b->next = lists[kind];
    lists[kind] = b;
    held += size;
  }
  pthread_mutex_unlock(&mu);
  if (keep) nx__alloc_set_drain(drain);
  else nx__free(p);
}
