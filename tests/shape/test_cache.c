/* SPDX-License-Identifier: Apache-2.0 */
/* The blocks a freed session leaves are kept for the next session of the
   process (src/shape/cache.c): the next session allocates less and ends in
   the same state, byte for byte; nx_set_allocator gives all of it back, so
   that the cache never stops a program from changing allocators. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nx.h"
#include "../check.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long made, freed;

static void count(long *n, void *p) {
  if (!p) return;
  pthread_mutex_lock(&lock);
  (*n)++;
  pthread_mutex_unlock(&lock);
}
static void *my_malloc(size_t n) { void *p = malloc(n); count(&made, p); return p; }
static void *my_calloc(size_t c, size_t n) { void *p = calloc(c, n); count(&made, p); return p; }
static void *my_realloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (!p) count(&made, q);
  return q;
}
static void *my_aligned_alloc(size_t a, size_t n) { void *p = aligned_alloc(a, n); count(&made, p); return p; }
static void my_free(void *p) {
  count(&freed, p);
  free(p);
}
static long live_now(void) {
  pthread_mutex_lock(&lock);
  long n = made - freed;
  pthread_mutex_unlock(&lock);
  return n;
}

/* A chain of layers, inferred and closed, big enough to fill several
   variable pages and full-size arena chunks; its dump in *out (malloc'd). */
static long session(int layers, char **out) {
  long before = made;
  nx_shape_session *s;
  CHECK(nx_shape_session_new(&s) == 0, "a session: %s", nx_error_message());
  nx_tensor *h, *w, *b, *m, *y;
  bool bad = nx_tensor_term(s, "x", "32", "", "64", &h) != 0;
  for (int i = 0; i < layers && !bad; i++) /* one layer: a compose with a parameter, a bias, an activation */
    bad = nx_tensor_param(s, "w", NULL, "64", &w) || nx_tensor_param(s, "b", "", NULL, &b) ||
          nx_tensor_compose(s, w, h, &m) || nx_tensor_binary(s, "+", m, b, &y) || nx_tensor_unary(s, "relu", y, &h);
  CHECK(!bad && nx_shape_finish(s) == 0, "the chain: %s", nx_error_message());
  int64_t n = nx_shape_dump(s, NULL, 0);
  *out = malloc((size_t)n + 1);
  CHECK(*out && nx_shape_dump(s, *out, (size_t)n + 1) == n, "the dump");
  nx_shape_session_free(s);
  return made - before;
}

int main(void) {
  nx_allocator mine = {my_malloc, my_calloc, my_realloc, my_aligned_alloc, my_free};
  CHECK(nx_set_allocator(&mine) == 0, "set before nx allocates: %s", nx_error_message());
  char *first, *second;
  long made1 = session(3000, &first);
  long kept = live_now();
  CHECK(kept > 0, "the freed session's blocks are kept (%ld)", kept);
  long made2 = session(3000, &second);
  CHECK(made2 <= made1 - kept, "the next session reuses them: %ld allocations, %ld the first time, %ld kept", made2,
        made1, kept);
  CHECK(!strcmp(first, second), "and ends in the same state, byte for byte");
  CHECK(live_now() == kept, "and leaves as much kept (%ld, %ld before)", live_now(), kept);
  CHECK(nx_set_allocator(NULL) == 0, "changing the allocator drains the cache: %s", nx_error_message());
  CHECK(live_now() == 0, "then nothing of the old allocator is held (%ld)", live_now());
  free(first);
  free(second);
  return check_done();
}
