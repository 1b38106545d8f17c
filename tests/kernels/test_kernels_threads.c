/* Threads: kernels called from several threads at once, each large enough
   for the pool, on float32 and on int4 arrays sharing bytes with their
   neighbours' (neighbour elements of one byte written by different calls
   keep each other's stores); the results checked against a serial run. */
#include <pthread.h>

#include "kernels_common.h"

#define N (1 << 18)

static nx_array *xs, *zs[4], *nib;
static int failed[4]; /* per thread: the harness's counters are the main thread's */

static void *job(void *arg) {
  int t = (int)(intptr_t)arg;
  for (int r = 0; r < 3; r++) {
    failed[t] += nx_exp(zs[t], xs) != 0;
    /* int4: thread t writes the elements t, t + 4, ... of one array */
    nx_move m;
    int64_t st[1] = {t}, sp[1] = {N}, step[1] = {4};
    nx_move_slice(&m, st, sp, step, 1);
    nx_array *v;
    nx_array_move(&m, nib, &v);
    failed[t] += nx_fill(v, (nx_value){.i = t - 2}) != 0;
    nx_array_free(v);
  }
  return NULL;
}

int main(void) {
  uint64_t seed = 3;
  int64_t shape[1] = {N};
  xs = random_array(NX_FLOAT32, shape, 1, &seed);
  float *p = nx_buffer_host_address(nx_array_buffer(xs));
  for (int i = 0; i < N; i++) p[i] = (float)i / N;
  for (int t = 0; t < 4; t++) nx_array_host(NX_FLOAT32, shape, 1, &zs[t]);
  nx_array_host(NX_INT4, shape, 1, &nib);
  nx_set_num_threads(3);
  CHECK(nx_num_threads() == 3, "thread count");
  pthread_t th[4];
  for (int t = 0; t < 4; t++) pthread_create(&th[t], NULL, job, (void *)(intptr_t)t);
  for (int t = 0; t < 4; t++) pthread_join(th[t], NULL);
  for (int t = 0; t < 4; t++) CHECK(failed[t] == 0, "thread %d: %d calls failed", t, failed[t]);
  nx_array *serial;
  nx_set_num_threads(1);
  CHECK(nx_exp_new(&serial, xs) == 0, "serial exp");
  long bad = 0;
  const char *s = nx_buffer_host_address(nx_array_buffer(serial));
  for (int t = 0; t < 4; t++) bad += memcmp(s, nx_buffer_host_address(nx_array_buffer(zs[t])), 4 * N) != 0;
  CHECK(bad == 0, "threaded exp differs from serial in %ld arrays", bad);
  for (int64_t i = 0; i < N; i += 97) {
    int64_t ix[1] = {i};
    nx_value v;
    nx_array_get(nib, ix, &v);
    CHECK(v.i == (int64_t)(i % 4) - 2, "int4 element %lld: %lld", (long long)i, (long long)v.i);
  }
  CHECK(nx_set_num_threads(0) == NX_EINVAL, "0 threads refused");
  nx_array_free(serial);
  for (int t = 0; t < 4; t++) nx_array_free(zs[t]);
  nx_array_free(xs);
  nx_array_free(nib);
  return check_done();
}
