/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: every allocation of nx goes through these, so that the test
   variant (NX_TESTING) can make the Nth one fail (nx__alloc_fail_at). They
   are the C library's functions otherwise. tools/alloc_sites.py rewrites
   raw calls into them and checks that none is left in src/. */
#ifndef NX_BASE_ALLOC_H
#define NX_BASE_ALLOC_H

#include <stddef.h>

void *nx__malloc(size_t n);
void *nx__calloc(size_t count, size_t n);
void *nx__realloc(void *p, size_t n);
void *nx__aligned_alloc(size_t align, size_t n);
void nx__free(void *p);
/* strdup and strndup through the same allocator (NULL when out of memory). */
char *nx__strdup(const char *s);
char *nx__strndup(const char *s, size_t n);

/* Registers the drain of a cache of freed memory (the shape module's):
   nx_set_allocator runs it before it counts the allocations nx holds. */
void nx__alloc_set_drain(void (*drain)(void));

#ifdef NX_TESTING
/* nx__alloc_fail_at(k) makes the k-th allocation from now fail (returning
   NULL), counting across all threads, and every later one succeed; k = 0
   disarms. nx__alloc_count() is how many allocations were asked for since
   the last arming, nx__alloc_failed() how many were made to fail. */
void nx__alloc_fail_at(long k);
long nx__alloc_count(void);
long nx__alloc_failed(void);
/* How many allocations are live (made and not yet freed), all threads. */
long nx__alloc_live(void);
#endif

#endif
