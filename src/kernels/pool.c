/* The thread pool: persistent workers made at the first parallel region,
   the caller one of the region's threads, chunks claimed with one atomic
   add. One region runs at a time; a caller that finds the pool busy runs
   its region alone. After fork the child starts without workers and makes
   new ones when it needs them. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../base/error.h"
#include "engine.h"
#include "nx_kernels.h"

#define NX__MAX_THREADS 256

static pthread_mutex_t region = PTHREAD_MUTEX_INITIALIZER; /* one region at a time */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;   /* the fields below */
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER, done = PTHREAD_COND_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int started;           /* workers running */
static int wanted;            /* threads per region, the caller included */
static unsigned long gen;     /* the region's number */
static int busy;              /* workers still in the region */
static int region_threads;    /* threads of the region in flight */
static nx__task_fn task;
static void *task_ctx;
static int64_t task_units, task_chunk, task_chunks;
static atomic_llong next_chunk;

static int usable_cores(void) {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
#endif
  return 1;
}

static void chunks(void) {
  for (;;) {
    long long c = atomic_fetch_add_explicit(&next_chunk, 1, memory_order_relaxed);
    if (c >= task_chunks) return;
    int64_t u0 = c * task_chunk, u1 = u0 + task_chunk < task_units ? u0 + task_chunk : task_units;
    task(task_ctx, u0, u1);
  }
}

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg; /* 1.. : the caller is thread 0 */
  unsigned long seen = 0;
  pthread_mutex_lock(&lock);
  for (;;) {
    while (gen == seen) pthread_cond_wait(&wake, &lock);
    seen = gen;
    int mine = id < region_threads;
    pthread_mutex_unlock(&lock);
    if (mine) chunks();
    pthread_mutex_lock(&lock);
    if (mine && --busy == 0) pthread_cond_signal(&done);
  }
  return NULL;
}

/* fork: no region is in flight while the process forks; the child has no
   workers. */
static void before_fork(void) {
  pthread_mutex_lock(&region);
  pthread_mutex_lock(&lock);
}
static void after_fork_parent(void) {
  pthread_mutex_unlock(&lock);
  pthread_mutex_unlock(&region);
}
static void after_fork_child(void) {
  started = 0;
  busy = 0;
  gen = 0;
  pthread_mutex_init(&lock, NULL);
  pthread_mutex_init(&region, NULL);
  pthread_cond_init(&wake, NULL);
  pthread_cond_init(&done, NULL);
}

static void init(void) {
  const char *env = getenv("NX_NUM_THREADS");
  int n = 0;
  if (env) {
    char *end;
    long v = strtol(env, &end, 10);
    if (end != env && *end == 0 && v >= 1) n = v > NX__MAX_THREADS ? NX__MAX_THREADS : (int)v;
  }
  if (!n) n = usable_cores();
  pthread_mutex_lock(&lock);
  if (!wanted) wanted = n > NX__MAX_THREADS ? NX__MAX_THREADS : n;
  pthread_mutex_unlock(&lock);
  pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

int nx_num_threads(void) {
  pthread_once(&once, init);
  pthread_mutex_lock(&lock);
  int n = wanted;
  pthread_mutex_unlock(&lock);
  return n;
}

int nx_set_num_threads(int n) {
  if (n < 1 || n > NX__MAX_THREADS)
    return nx__fail(NX_EINVAL, "nx_set_num_threads: %d threads (1 to %d)", n, NX__MAX_THREADS);
  pthread_once(&once, init);
  pthread_mutex_lock(&lock);
  wanted = n;
  pthread_mutex_unlock(&lock);
  return 0;
}

void nx__parallel(int64_t units, int64_t nchunks, nx__task_fn fn, void *ctx) {
  int threads = nx_num_threads();
  if (units <= 0) return;
  if (nchunks > units) nchunks = units;
  if (threads < 2 || nchunks < 2 || pthread_mutex_trylock(&region) != 0) {
    fn(ctx, 0, units);
    return;
  }
  pthread_mutex_lock(&lock);
  while (started < threads - 1) {
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    int e = pthread_create(&t, &at, worker, (void *)(intptr_t)(started + 1));
    pthread_attr_destroy(&at);
    if (e) break;
    started++;
  }
  region_threads = threads < started + 1 ? threads : started + 1;
  task = fn;
  task_ctx = ctx;
  task_units = units;
  task_chunk = (units + nchunks - 1) / nchunks;
  task_chunks = (units + task_chunk - 1) / task_chunk;
  atomic_store_explicit(&next_chunk, 0, memory_order_relaxed);
  busy = region_threads - 1;
  gen++;
  pthread_cond_broadcast(&wake);
  pthread_mutex_unlock(&lock);
  chunks();
  pthread_mutex_lock(&lock);
  while (busy > 0) pthread_cond_wait(&done, &lock);
  pthread_mutex_unlock(&lock);
  pthread_mutex_unlock(&region);
}
