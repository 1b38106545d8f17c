/* SPDX-License-Identifier: Apache-2.0 */
/* nx_set_allocator: a program's allocator replaces the C library's for all
   of nx's own memory. The allocator here records every pointer it hands out;
   its free checks that what it is given is one of them (memory of another
   allocator handed to it, as a library's strdup or json_dumps would be, is a
   failure), and the test checks that every kind of operation (arrays,
   kernels on the pool, files of every format, shapes) allocates through it
   and gives everything back. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "nx.h"

#define SLOTS (1 << 16)
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *live[SLOTS];
static long made, freed, foreign, full;

static void remember(void *p) {
  if (!p) return;
  pthread_mutex_lock(&lock);
  size_t h = ((uintptr_t)p >> 4) % SLOTS, k;
  for (k = 0; k < SLOTS && live[(h + k) % SLOTS]; k++) {
  }
  if (k == SLOTS) full++;
  else live[(h + k) % SLOTS] = p, made++;
  pthread_mutex_unlock(&lock);
}

/* Whether p was handed out and not yet freed; forgets it. Linear probing
   with deletion by re-inserting the rest of the cluster. */
static int forget(void *p) {
  pthread_mutex_lock(&lock);
  size_t h = ((uintptr_t)p >> 4) % SLOTS, k;
  int found = 0;
  for (k = 0; k < SLOTS && live[(h + k) % SLOTS]; k++) {
    if (live[(h + k) % SLOTS] == p) {
      found = 1;
      break;
    }
  }
  if (found) {
    size_t i = (h + k) % SLOTS;
    live[i] = NULL;
    for (size_t j = (i + 1) % SLOTS; live[j]; j = (j + 1) % SLOTS) {
      void *q = live[j];
      live[j] = NULL;
      size_t g = ((uintptr_t)q >> 4) % SLOTS;
      while (live[g]) g = (g + 1) % SLOTS;
      live[g] = q;
    }
    freed++;
  } else {
    foreign++;
  }
  pthread_mutex_unlock(&lock);
  return found;
}

static void *my_malloc(size_t n) {
  void *p = malloc(n);
  remember(p);
  return p;
}
static void *my_calloc(size_t c, size_t n) {
  void *p = calloc(c, n);
  remember(p);
  return p;
}
static void *my_realloc(void *p, size_t n) {
  if (p && !forget(p)) return NULL; /* not ours: refuse rather than corrupt */
  void *q = realloc(p, n);
  remember(q ? q : p);
  return q;
}
static void *my_aligned_alloc(size_t a, size_t n) {
  void *p = aligned_alloc(a, n);
  remember(p);
  return p;
}
static void my_free(void *p) {
  if (p && forget(p)) free(p); /* a foreign pointer is counted, never freed */
}

static long live_now(void) {
  pthread_mutex_lock(&lock);
  long n = made - freed;
  pthread_mutex_unlock(&lock);
  return n;
}

static char dir[64];

static int files(nx_io_format fmt, const char *name, nx_array *a) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  nx_io_writer *w;
  int s = nx_io_writer_open(path, fmt, &w);
  if (s) return s;
  if (fmt == NX_IO_SAFETENSORS && (s = nx_io_writer_metadata(w, "source", "test"))) goto abort;
  if ((s = nx_io_writer_add(w, "b", a)) || (fmt != NX_IO_NPY && (s = nx_io_writer_add(w, "a", a)))) goto abort;
  if ((s = nx_io_writer_commit(w))) return s;
  nx_io_file *f;
  if ((s = nx_io_open(path, &f))) return s;
  nx_array *back = NULL;
  int i;
  if (fmt == NX_IO_NPY) s = nx_io_load(f, 0, &back);
  else if (!(s = nx_io_file_find(f, "b", &i))) s = nx_io_load(f, i, &back);
  nx_array_free(back);
  nx_io_close(f);
  unlink(path);
  return s;
abort:
  nx_io_writer_abort(w);
  return s;
}

/* One of each kind of operation; returns the allocations made by its
   first step (the array) alone. */
static long work(void) {
  int64_t shape[2] = {64, 48};
  nx_array *a = NULL, *b = NULL, *c = NULL, *sorted = NULL;
  long start = made;
  CHECK(nx_array_host(NX_FLOAT32, shape, 2, &a) == 0, "an array: %s", nx_error_message());
  long with_array = made - start;
  CHECK(with_array > 0, "the array's memory came from the program's allocator (%ld allocations)", with_array);

  /* While nx holds memory of this allocator, it cannot change. */
  CHECK(nx_set_allocator(NULL) == NX_EINVAL, "changing the allocator while nx holds memory is refused");
  CHECK(strstr(nx_error_message(), "nx_set_allocator") && strstr(nx_error_message(), "holds"),
        "the message says nx holds memory: %s", nx_error_message());

  CHECK(nx_cast_new(&b, NX_BFLOAT16, a) == 0, "a cast: %s", nx_error_message());
  CHECK(nx_add_new(&c, a, a) == 0, "an add: %s", nx_error_message());
  int axes[1] = {1};
  nx_array *sum = NULL;
  CHECK(nx_sum_new(&sum, c, axes, 1, false) == 0, "a sum: %s", nx_error_message());
  CHECK(nx_sort_new(&sorted, c, 1, false) == 0, "a sort: %s", nx_error_message());
  CHECK(files(NX_IO_SAFETENSORS, "t.safetensors", b) == 0, "a safetensors file written and read: %s", nx_error_message());
  CHECK(files(NX_IO_NPZ, "t.npz", a) == 0, "an .npz file written and read: %s", nx_error_message());
  CHECK(files(NX_IO_NPY, "t.npy", a) == 0, "an .npy file written and read: %s", nx_error_message());

  nx_shape_session *s;
  CHECK(nx_shape_session_new(&s) == 0, "a shape session");
  nx_tensor *x, *w, *h;
  CHECK(nx_tensor_term(s, "x", "7", "", "784", &x) == 0 && nx_tensor_param(s, "w", NULL, "10", &w) == 0 &&
            nx_tensor_compose(s, w, x, &h) == 0 && nx_shape_finish(s) == 0,
        "a shape program: %s", nx_error_message());
  nx_shape_session_free(s);

  nx_array_free(sorted);
  nx_array_free(sum);
  nx_array_free(c);
  nx_array_free(b);
  nx_array_free(a);

  return with_array;
}

int main(void) {
  /* Refusals first: the allocator in use stays the C library's. */
  nx_allocator bad = {my_malloc, my_calloc, my_realloc, NULL, my_free};
  CHECK(nx_set_allocator(&bad) == NX_EINVAL, "an allocator without aligned_alloc_fn is refused");
  CHECK(strstr(nx_error_message(), "nx_set_allocator") && strstr(nx_error_message(), "aligned_alloc_fn"),
        "the message names the function and the member: %s", nx_error_message());
  CHECK(made == 0, "a refused allocator is never called");

  nx_allocator mine = {my_malloc, my_calloc, my_realloc, my_aligned_alloc, my_free};
  CHECK(nx_set_allocator(&mine) == 0, "set before nx allocates: %s", nx_error_message());
  snprintf(dir, sizeof dir, "/tmp/nx-alloc-XXXXXX");
  CHECK(mkdtemp(dir) != NULL, "a temporary folder");

  long before = made;
  long with_array = work();
  long after_one = live_now();
  long made_one = made - before;
  work();
  long after_two = live_now();
  rmdir(dir);
  CHECK(made_one > with_array, "kernels, files and shapes allocated through it too (%ld allocations)", made_one);
  CHECK(foreign == 0, "nx never handed the allocator's free memory it did not allocate (%ld times)", foreign);
  CHECK(full == 0, "the test's table of pointers did not fill");
  /* What the first round leaves is what nx makes once per process (the
     rig's devices, the thread pool, the printer's tables); a second round
     gives back everything it takes. */
  printf("%ld allocations through the program's allocator, %ld freed, %ld held by nx's per-process state, 0 foreign\n",
         made, freed, after_two);
  CHECK(after_two == after_one, "the second round gives back all it takes: %ld live after it, %ld after the first",
        after_two, after_one);
  return check_done();
}
