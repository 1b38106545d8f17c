/* SPDX-License-Identifier: Apache-2.0 */
/* The one allocator of nx: the C library's, or the program's
   (nx_set_allocator), and in the test variant a countdown that fails the
   Nth allocation, as SQLite's fault simulation does, so that a test can fail
   every allocation of an operation in turn. A count of live allocations lets
   nx_set_allocator refuse to change allocators while memory of the old one
   is held, which would hand it to the wrong free. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nx_alloc.h"

#include "alloc.h"
#include "error.h"

static void *libc_malloc(size_t n) { return malloc(n); }
static void *libc_calloc(size_t c, size_t n) { return calloc(c, n); }
static void *libc_realloc(void *p, size_t n) { return realloc(p, n); }
static void *libc_aligned_alloc(size_t a, size_t n) { return aligned_alloc(a, n); }
static void libc_free(void *p) { free(p); }

static const nx_allocator libc_allocator = {libc_malloc, libc_calloc, libc_realloc, libc_aligned_alloc, libc_free};
static nx_allocator user_allocator;
static _Atomic(const nx_allocator *) current = &libc_allocator;
static atomic_long live;
static void (*_Atomic drain_fn)(void);

void nx__alloc_set_drain(void (*drain)(void)) { atomic_store(&drain_fn, drain); }

#ifdef NX_TESTING
static atomic_long countdown, asked, failed;

void nx__alloc_fail_at(long k) {
  atomic_store(&asked, 0);
  atomic_store(&failed, 0);
  atomic_store(&countdown, k > 0 ? k : 0);
}

long nx__alloc_count(void) { return atomic_load(&asked); }
long nx__alloc_failed(void) { return atomic_load(&failed); }
long nx__alloc_live(void) { return atomic_load(&live); }

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

static void *counted(void *p) {
  if (p) atomic_fetch_add_explicit(&live, 1, memory_order_relaxed);
  return p;
}

void *nx__malloc(size_t n) { return fails() ? NULL : counted(atomic_load(&current)->malloc_fn(n ? n : 1)); }
void *nx__calloc(size_t count, size_t n) {
  return fails() ? NULL : counted(atomic_load(&current)->calloc_fn(count ? count : 1, n ? n : 1));
}
/* A failed realloc leaves p as it was, as the C library's does; size 0 is
   asked as 1 so that no allocator has to define it. */
void *nx__realloc(void *p, size_t n) {
  if (!p) return nx__malloc(n);
  return fails() ? NULL : atomic_load(&current)->realloc_fn(p, n ? n : 1);
}
void *nx__aligned_alloc(size_t align, size_t n) {
  return fails() ? NULL : counted(atomic_load(&current)->aligned_alloc_fn(align, n ? n : align));
}
void nx__free(void *p) {
  if (!p) return;
  atomic_fetch_sub_explicit(&live, 1, memory_order_relaxed);
  atomic_load(&current)->free_fn(p);
}

char *nx__strndup(const char *s, size_t n) {
  size_t len = 0;
  while (len < n && s[len]) len++; /* strnlen is POSIX, not C11 */
  char *p = nx__malloc(len + 1);
  if (p) {
    memcpy(p, s, len);
    p[len] = 0;
  }
  return p;
}

char *nx__strdup(const char *s) { return nx__strndup(s, strlen(s)); }

int nx_set_allocator(const nx_allocator *a) {
  static const char fn[] = "nx_set_allocator";
  if (a) {
    const char *missing = !a->malloc_fn          ? "malloc_fn"
                          : !a->calloc_fn        ? "calloc_fn"
                          : !a->realloc_fn       ? "realloc_fn"
                          : !a->aligned_alloc_fn ? "aligned_alloc_fn"
                          : !a->free_fn          ? "free_fn"
                                                 : NULL;
    if (missing) return nx__fail(NX_EINVAL, "%s: the allocator's %s is NULL", fn, missing);
  }
  void (*drain)(void) = atomic_load(&drain_fn);
  if (drain) drain(); /* memory kept for reuse is not held by an nx object */
  long n = atomic_load(&live);
  if (n != 0)
    return nx__fail(NX_EINVAL,
                    "%s: nx holds %ld allocations of the allocator in use; change it before nx allocates, or after "
                    "every nx object is freed",
                    fn, n);
  if (a) {
    user_allocator = *a;
    atomic_store(&current, &user_allocator);
  } else {
    atomic_store(&current, &libc_allocator);
  }
  return 0;
}
