/* SPDX-License-Identifier: Apache-2.0 */
/* Concurrency stress: threads for a bounded time claiming pairs of shared
   buffers all-or-none, holding and donating or giving back, freeing,
   submitting fills and waiting, copying their own data through a test
   device or an OpenCL device and back, and running kernels through the
   door: nx_add and nx_mul on host arrays over the shared buffers (read
   while other threads fill, donate and free them) and on their own arrays
   on an OpenCL device (the device kernels), while one test device is lost
   at a random moment by a random fault. Invariants:
   - a refused claim answers a refusal for some operand, and every answer
     is one of the four;
   - every failure is a negative status with a message; fills and waits on
     shared memory answer 0, dead (NX_EINVAL) or lost (NX_ELOST);
   - a thread's own round trip reads back exactly the bytes it wrote (no
     torn or lost writes) unless its device is lost;
   - a kernel that reads a shared buffer sees its one fill's bytes in every
     element while other threads donate and free it (no torn or freed
     read), and one refused answers a status with a message naming it;
   - an OpenCL kernel's result, read back, is exactly the host's;
   - every wait returns (ctest's timeout would catch a hang);
   - at the end no claim is left: every live shared buffer can be held
     exclusive, and LeakSanitizer (ASan build) finds no leak.
   16 threads; by default for NX_STRESS_SECONDS (20; also under TSan: label
   concurrency); NX_LONG_TESTS=1 runs for 600 s unless NX_STRESS_SECONDS
   says otherwise. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../check.h"
#include "../common.h"
#include "nx.h"
#include "rig_test.h"

/* Slots below FILL_SLOTS are filled by any thread at any time; the others
   hold one fill's bytes from their creation on, so that kernels read them
   while other threads claim, donate and free them but never write them: the
   door orders a host kernel against donations and frees, and a program
   orders it against work other threads submit (Nx_array's read), which
   this test does not. */
enum { SLOTS = 8, FILL_SLOTS = 6, BYTES = 256, MAX_THREADS = 16 };

static nx_device *lossy, *steady, *ocl;
static atomic_bool lossy_lost, stop;
static pthread_mutex_t slot_mu[SLOTS];
static nx_buffer *slot[SLOTS];
static atomic_long n_claims, n_refused, n_donated, n_freed, n_fills, n_trips, n_failures, n_kernels, n_ocl_kernels;
static pthread_mutex_t check_mu = PTHREAD_MUTEX_INITIALIZER;

/* CHECK from any thread. */
#define TCHECK(cond, ...)               \
  do {                                  \
    pthread_mutex_lock(&check_mu);      \
    CHECK(cond, __VA_ARGS__);           \
    pthread_mutex_unlock(&check_mu);    \
  } while (0)

static void failed_well(int s, const char *what) {
  atomic_fetch_add(&n_failures, 1);
  TCHECK(s < 0 && nx_error_message()[0], "%s: status %d, message \"%s\"", what, s, nx_error_message());
}

/* A new shared buffer for slot k: on the lossy device while it lives. */
static nx_buffer *fresh(int k) {
  nx_buffer *b = NULL;
  bool dev = (k & 1) && !atomic_load(&lossy_lost);
  int s = nx_buffer_create(dev ? lossy : nx_rig_host(), dev ? NX_MEMORY_DEVICE : NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, BYTES, &b);
  if (s) {
    failed_well(s, "nx_buffer_create");
    s = nx_buffer_create(nx_rig_host(), NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, BYTES, &b);
    TCHECK(s == 0, "host nx_buffer_create: %s", nx_error_message());
  }
  if (k >= FILL_SLOTS && b && nx_buffer_host_address(b)) {
    /* Its bytes before any other thread sees it. */
    s = nx_rig_submit_fill(b, 0, BYTES, (uint8_t)(0x3f + k));
    if (s == 0) s = nx_buffer_wait(b, NX_ACCESS_READ);
    TCHECK(s == 0, "the first fill of a kernels' slot: %s", nx_error_message());
  }
  return b;
}

static nx_buffer *take(int k) {
  pthread_mutex_lock(&slot_mu[k]);
  nx_buffer *b = slot[k];
  nx_buffer_retain(b);
  pthread_mutex_unlock(&slot_mu[k]);
  return b;
}

/* b is dead: the slot gets a new buffer, once. */
static void replace(int k, nx_buffer *b) {
  pthread_mutex_lock(&slot_mu[k]);
  if (slot[k] == b) {
    slot[k] = fresh(k);
    nx_buffer_release(b);
  }
  pthread_mutex_unlock(&slot_mu[k]);
}

static void claim_pair(uint64_t r) {
  int i = (int)(r % SLOTS), j = (int)((r >> 8) % SLOTS);
  nx_buffer *bs[2] = {take(i), take(j)};
  bool w[2] = {(r >> 16) & 1, (r >> 17) & 1};
  nx_claim_answer ans[2];
  int s = nx_rig_claim(2, bs, w, ans);
  if (s == 0) {
    atomic_fetch_add(&n_claims, 1);
    nx_rig_release(2, bs, w);
  } else {
    atomic_fetch_add(&n_refused, 1);
    TCHECK(s == NX_RIG_REFUSED && (ans[0] != NX_CLAIMED || ans[1] != NX_CLAIMED) && ans[0] <= NX_CLAIM_READ_ONLY &&
               ans[1] <= NX_CLAIM_READ_ONLY,
           "nx_rig_claim refused with %d, answers %d %d", s, ans[0], ans[1]);
  }
  nx_buffer_release(bs[0]);
  nx_buffer_release(bs[1]);
}

static void donate(uint64_t r) {
  int k = (int)(r % SLOTS);
  nx_buffer *b = take(k);
  if (nx_buffer_hold_exclusive(b) == 0) {
    if ((r >> 8) & 1) {
      int s = nx_buffer_consume(b, "donated by the stress test");
      TCHECK(s == 0, "nx_buffer_consume under a hold: %s", nx_error_message());
      atomic_fetch_add(&n_donated, 1);
      replace(k, b);
    } else {
      TCHECK(nx_buffer_unhold(b) == 0, "nx_buffer_unhold: %s", nx_error_message());
    }
  }
  nx_buffer_release(b);
}

static void free_one(uint64_t r) {
  int k = (int)(r % SLOTS);
  nx_buffer *b = take(k);
  if (nx_buffer_free(b) == 0) {
    atomic_fetch_add(&n_freed, 1);
    replace(k, b);
  }
  nx_buffer_release(b);
}

static void fill_shared(uint64_t r) {
  nx_buffer *b = take((int)(r % FILL_SLOTS));
  int s = nx_rig_submit_fill(b, 0, BYTES, (uint8_t)r);
  if (s == 0) s = nx_buffer_wait(b, NX_ACCESS_READ);
  if (s) {
    failed_well(s, "a fill of shared memory and its wait");
    TCHECK(s == NX_EINVAL || s == NX_ELOST, "a fill or wait answered %d (%s)", s, nx_error_message());
  }
  atomic_fetch_add(&n_fills, 1);
  nx_buffer_release(b);
}

/* The thread's own bytes through a device and back. Failed work makes the
   host memory it would have written lost for good: a new one takes its
   place. */
static void round_trip(uint64_t r, nx_buffer **minep) {
  nx_buffer *mine = *minep;
  nx_device *d = (r >> 8) & 1 ? lossy : ocl && ((r >> 9) & 1) ? ocl : steady;
  nx_buffer *dev;
  int s = nx_buffer_create(d, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, BYTES, &dev);
  if (s) {
    failed_well(s, "nx_buffer_create on a test device");
    return;
  }
  uint8_t v = (uint8_t)(r >> 16);
  if (!(s = nx_rig_submit_fill(dev, 0, BYTES, v)) && !(s = nx_rig_submit_copy(mine, 0, dev, 0, BYTES)))
    s = nx_buffer_wait(mine, NX_ACCESS_READ_WRITE);
  if (s == 0) {
    const uint8_t *p = nx_buffer_host_address(mine);
    int bad = 0;
    for (int k = 0; k < BYTES; k++) bad += p[k] != v;
    TCHECK(bad == 0, "a round trip through %s read back %d bytes that are not %u", nx_device_name(d), bad, v);
    atomic_fetch_add(&n_trips, 1);
  } else {
    failed_well(s, "a round trip");
    TCHECK(d == lossy && s == NX_ELOST, "a round trip through %s failed: %d (%s)", nx_device_name(d), s, nx_error_message());
    nx_buffer_release(mine);
    if (nx_buffer_create(nx_rig_host(), NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, BYTES, minep)) *minep = NULL;
    TCHECK(*minep != NULL, "host nx_buffer_create: %s", nx_error_message());
  }
  nx_buffer_release(dev);
}

/* nx_add of a shared buffer of the kernels' slots, seen as float32, with
   itself: every element is its one fill's byte four times, doubled, while
   other threads claim, donate and free it. Refusals (dead, held, off the
   host) are statuses naming nx_add. */
static void kernel_shared(uint64_t r) {
  nx_buffer *b = take(FILL_SLOTS + (int)(r % (SLOTS - FILL_SLOTS)));
  nx_layout l;
  int64_t n = BYTES / 4;
  nx_layout_contiguous(&n, 1, &l);
  nx_array *a = NULL, *z = NULL;
  int s = nx_array_v(NX_FLOAT32, &l, b, &a);
  if (s == 0) s = nx_array_host(NX_FLOAT32, &n, 1, &z);
  if (s == 0) s = nx_add(z, a, a);
  if (s == 0) {
    nx_value v[BYTES / 4];
    s = nx_array_to_array(z, v, n);
    TCHECK(s == 0, "reading a kernel's result: %s", nx_error_message());
    int torn = 0;
    for (int k = 1; s == 0 && k < n; k++) torn += memcmp(&v[k].f, &v[0].f, sizeof(double)) != 0;
    TCHECK(torn == 0, "a kernel over a shared buffer saw %d elements unlike the first: a torn read", torn);
    atomic_fetch_add(&n_kernels, 1);
  } else if (a) {
    failed_well(s, "nx_add over a shared buffer");
    TCHECK(strstr(nx_error_message(), "nx_add") != NULL, "the refusal names nx_add: %s", nx_error_message());
  } else {
    failed_well(s, "nx_array_v over a shared buffer");
  }
  nx_array_free(z);
  nx_array_free(a);
  nx_buffer_release(b);
}

/* The thread's own arrays on the OpenCL device: x filled, z = x * x by the
   device kernel, read back and compared with the host's product. */
static void kernel_opencl(uint64_t r) {
  int64_t n = 257;
  nx_array *x = NULL, *z = NULL;
  float f = (float)(r % 1000) / 7.0f;
  int s = nx_array_create(ocl, NX_MEMORY_DEVICE, NX_FLOAT32, &n, 1, &x);
  if (s == 0) s = nx_array_create(ocl, NX_MEMORY_DEVICE, NX_FLOAT32, &n, 1, &z);
  if (s == 0) s = nx_fill(x, (nx_value){.f = f});
  if (s == 0) s = nx_mul(z, x, x);
  nx_array *h = NULL;
  if (s == 0) s = nx_array_to_device(nx_rig_host(), z, &h);
  if (s == 0) {
    nx_value v[257];
    s = nx_array_to_array(h, v, n);
    float want = f * f;
    int bad = 0;
    for (int k = 0; s == 0 && k < n; k++) {
      float got = (float)v[k].f; /* a float32's value, exactly */
      bad += memcmp(&got, &want, sizeof want) != 0;
    }
    TCHECK(s == 0 && bad == 0, "an OpenCL product read back %d elements unlike the host's (%s)", bad, nx_error_message());
    atomic_fetch_add(&n_ocl_kernels, 1);
  } else {
    failed_well(s, "a kernel on the OpenCL device");
    TCHECK(0, "a kernel on %s failed: %d (%s)", nx_device_name(ocl), s, nx_error_message());
  }
  nx_array_free(h);
  nx_array_free(z);
  nx_array_free(x);
}

static void *worker(void *arg) {
  uint64_t seed = (uint64_t)(uintptr_t)arg * 0x9E3779B97F4A7C15ull + 1;
  nx_buffer *mine;
  if (nx_buffer_create(nx_rig_host(), NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, BYTES, &mine)) return NULL;
  while (!atomic_load(&stop)) {
    uint64_t r = splitmix64_next(&seed);
    switch (r % 11) {
    case 0: case 1: case 2: claim_pair(r >> 4); break;
    case 3: donate(r >> 4); break;
    case 4: free_one(r >> 4); break;
    case 5: case 6: fill_shared(r >> 4); break;
    case 7: kernel_shared(r >> 4); break;
    case 8:
      if (ocl) kernel_opencl(r >> 4);
      else kernel_shared(r >> 4);
      break;
    default:
      if (mine) round_trip(r >> 4, &mine);
      break;
    }
  }
  nx_buffer_release(mine);
  return NULL;
}

int main(void) {
  bool long_run = getenv("NX_LONG_TESTS") && strcmp(getenv("NX_LONG_TESTS"), "1") == 0;
  const char *env = getenv("NX_STRESS_SECONDS");
  double secs = env ? atof(env) : long_run ? 600 : 20;
  if (!(secs > 0)) secs = 20;
  int nthreads = 16;
  if (!nx_rig_host() || nx_rig_test_device(&lossy) || nx_rig_test_device(&steady)) return skip("no test devices");
  if (nx_rig_find("opencl:0", &ocl) != 0) {
    ocl = NULL;
    CHECK(!NX_TEST_OPENCL_BUILT, "nx has OpenCL but opencl:0 is missing (PoCL: POCL_DEVICES=pthread): %s", nx_error_message());
    printf("skipped: the OpenCL round trips and kernels: %s\n", NX_TEST_NO_OPENCL_REASON);
  }
  if (ocl) {
    /* The device kernels' program is built (or loaded from the cache) by
       one operation before the timed run: its first build, which compiles
       every device kernel, can take longer than the run, which is about
       concurrency. Not counted: the threads' kernels are. */
    nx_array *w = NULL;
    int64_t one = 1;
    CHECK(nx_array_create(ocl, NX_MEMORY_DEVICE, NX_FLOAT32, &one, 1, &w) == 0 && nx_fill(w, (nx_value){.f = 1}) == 0 &&
              nx_mul(w, w, w) == 0 && nx_device_sync(ocl) == 0,
          "a first kernel on opencl:0: %s", nx_error_message());
    nx_array_free(w);
  }
  for (int k = 0; k < SLOTS; k++) {
    pthread_mutex_init(&slot_mu[k], NULL);
    slot[k] = fresh(k);
  }
  pthread_t th[MAX_THREADS];
  for (int k = 0; k < nthreads; k++) pthread_create(&th[k], NULL, worker, (void *)(uintptr_t)(k + 1));
  /* The lossy device is lost at a random moment of the middle half of the
     run, by a random fault (at a submission, while work runs, or at a
     wait): every wait on it settles. NX_STRESS_SEED repeats a run. */
  uint64_t seed = getenv("NX_STRESS_SEED") ? strtoull(getenv("NX_STRESS_SEED"), NULL, 0) : (uint64_t)time(NULL);
  uint64_t st = seed;
  double at = secs * (0.25 + 0.5 * (double)(splitmix64_next(&st) >> 11) / 9007199254740992.0);
  static const int faults[3] = {NX_FAULT_AT_SUBMIT, NX_FAULT_WHILE_RUNNING, NX_FAULT_AT_WAIT};
  static const char *const fault_names[3] = {"at a submission", "while work runs", "at a wait"};
  int fault = (int)(splitmix64_next(&st) % 3);
  struct timespec before = {(time_t)at, (long)((at - (time_t)at) * 1e9)};
  struct timespec after = {(time_t)(secs - at), (long)((secs - at - (time_t)(secs - at)) * 1e9)};
  nanosleep(&before, NULL);
  TCHECK(nx_test_device_fail(lossy, faults[fault]) == 0, "nx_test_device_fail: %s", nx_error_message());
  atomic_store(&lossy_lost, true);
  nanosleep(&after, NULL);
  atomic_store(&stop, true);
  for (int k = 0; k < nthreads; k++) pthread_join(th[k], NULL);
  /* No claim left behind: every live shared buffer can be held. */
  for (int k = 0; k < SLOTS; k++) {
    if (!nx_buffer_dead(slot[k]))
      CHECK(nx_buffer_hold_exclusive(slot[k]) == 0 && nx_buffer_unhold(slot[k]) == 0, "slot %d after the threads: %s", k, nx_error_message());
    nx_buffer_release(slot[k]);
  }
  CHECK(n_claims > 0 && n_refused > 0 && n_donated > 0 && n_freed > 0 && n_trips > 0 && n_kernels > 0 &&
            (!ocl || n_ocl_kernels > 0),
        "every kind of operation ran");
  printf("%d threads for %.0f s: %ld claims granted, %ld refused, %ld donations, %ld frees, %ld fills, %ld round trips checked, "
         "%ld host kernels over shared buffers checked, %ld OpenCL kernels checked, %ld failures each with a message; "
         "lossy device lost %s after %.1f s: %s (NX_STRESS_SEED=%llu)\n",
         nthreads, secs, (long)n_claims, (long)n_refused, (long)n_donated, (long)n_freed, (long)n_fills, (long)n_trips,
         (long)n_kernels, (long)n_ocl_kernels, (long)n_failures, fault_names[fault], at,
         nx_device_lost(lossy) ? "yes" : "no", (unsigned long long)seed);
  return check_done();
}
