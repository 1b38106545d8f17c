/* SPDX-License-Identifier: Apache-2.0 */
/* nx_alloc.h: replacing the allocator nx uses for its own memory.

   Every allocation nx makes for itself (objects, tables, host storage of
   buffers) goes through one allocator, the C library's unless a program
   replaces it, as libuv's uv_replace_allocator does. Memory that other
   libraries allocate for nx (the OpenCL driver's buffers, libzip's and
   jansson's internals) is theirs and does not go through it. */
#ifndef NX_ALLOC_H
#define NX_ALLOC_H

#include <stddef.h>

#include "nx_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The five functions of an allocator, with the C library's meanings:
   malloc(size), calloc(count, size), realloc(ptr, size) (ptr NULL or from
   this allocator; size never 0), aligned_alloc(alignment, size) (alignment a
   power of two, at least sizeof(void *), size a multiple of it), and
   free(ptr), which takes any pointer the other four returned, and NULL. Each
   returns NULL when it cannot allocate; nx then answers NX_ENOMEM. They may
   be called from any thread, at once. */
typedef struct nx_allocator {
  void *(*malloc_fn)(size_t size);
  void *(*calloc_fn)(size_t count, size_t size);
  void *(*realloc_fn)(void *ptr, size_t size);
  void *(*aligned_alloc_fn)(size_t alignment, size_t size);
  void (*free_fn)(void *ptr);
} nx_allocator;

/* nx_set_allocator(a) makes nx allocate through *a from now on (the struct
   is copied); nx_set_allocator(NULL) goes back to the C library's. Memory
   must go back to the allocator it came from, so the allocator can change
   only while nx holds none: call it before anything else of nx, or after
   every nx object is freed and before the first use of what nx makes once
   per process (the printer's tables, the rig's devices, the thread pool).
   Not while another thread calls nx. Before it counts what nx holds, it
   gives back the memory nx keeps for reuse (the blocks freed shape
   sessions leave for the next one), which no nx object holds.
   Fails with NX_EINVAL when a function of *a is NULL, or when nx still
   holds memory (the message says how many allocations are live); the
   allocator in use is then unchanged. */
NX_API int nx_set_allocator(const nx_allocator *a);

#ifdef __cplusplus
}
#endif
#endif /* NX_ALLOC_H */
