/* SPDX-License-Identifier: Apache-2.0 */
/* Sub-byte nx_array_set from many threads keeps neighbours: THREADS threads
   each store their own elements of one shared int4 array and one shared bit
   array, whose elements interleave so that every byte holds elements of
   several threads (every thread's, for bit). After each store a thread reads
   its element back; at the end every element holds its own thread's last
   value. Labelled concurrency: TSan runs it. */
#include "test_array_common.h"

#include <pthread.h>

#define THREADS 8
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define ROUNDS 1500
#else
#define ROUNDS 20000
#endif
#define N4 32 /* int4: 16 bytes, each holding two threads' elements */
#define NB 64 /* bit: 8 bytes, each holding one element of every thread */

static nx_array *A4, *AB, *V4; /* V4: a strided view of A4 (every other element, flipped) */

typedef struct {
  int t;
  long bad, fails;
} worker;

/* Thread t's value for element i in round r. */
static int64_t val4(int t, int i, int r) { return (int64_t)((t * 5 + i * 3 + r) % 16) - 8; }
static bool valb(int t, int i, int r) { return ((t + i + r) * 2654435761u >> 7) & 1; }

static void *work(void *arg) {
  worker *w = arg;
  int t = w->t;
  for (int r = 0; r < ROUNDS; r++) {
    for (int i = t; i < N4; i += THREADS) {
      int64_t idx = i;
      nx_value v = {.i = val4(t, i, r)}, g;
      if (nx_array_set(A4, &idx, v)) w->fails++;
      if (nx_array_get(A4, &idx, &g) || g.i != v.i) w->bad++;
    }
    for (int i = t; i < NB; i += THREADS) {
      int64_t idx = i;
      nx_value v = {.b = valb(t, i, r)}, g;
      if (nx_array_set(AB, &idx, v)) w->fails++;
      if (nx_array_get(AB, &idx, &g) || g.b != v.b) w->bad++;
    }
  }
  return NULL;
}

/* Threads store through a view too: V4's index j is A4's element
   N4 - 1 - 2j; each thread t owns the j with (N4 - 1 - 2j) % THREADS == t. */
static void *work_view(void *arg) {
  worker *w = arg;
  int t = w->t;
  for (int r = 0; r < ROUNDS / 4; r++)
    for (int64_t j = 0; j < N4 / 2; j++) {
      int i = N4 - 1 - 2 * (int)j;
      if (i % THREADS != t) continue;
      nx_value v = {.i = val4(t, i, r + 7)}, g;
      if (nx_array_set(V4, &j, v)) w->fails++;
      if (nx_array_get(V4, &j, &g) || g.i != v.i) w->bad++;
    }
  return NULL;
}

static void run(void *(*fn)(void *), const char *what) {
  pthread_t th[THREADS];
  worker w[THREADS];
  for (int t = 0; t < THREADS; t++) {
    w[t].t = t;
    w[t].bad = w[t].fails = 0;
    CHECK(pthread_create(&th[t], NULL, fn, &w[t]) == 0, "pthread_create");
  }
  long bad = 0, fails = 0;
  for (int t = 0; t < THREADS; t++) {
    pthread_join(th[t], NULL);
    bad += w[t].bad;
    fails += w[t].fails;
  }
  CHECK(fails == 0, "%s: %ld stores failed: %s", what, fails, nx_error_message());
  CHECK(bad == 0, "%s: %ld reads did not see the thread's own last store", what, bad);
}

int main(void) {
  double t0 = now_s();
  int64_t n4 = N4, nb = NB;
  CHECK(nx_array_host(NX_INT4, &n4, 1, &A4) == 0, "int4: %s", nx_error_message());
  CHECK(nx_array_host(NX_BIT, &nb, 1, &AB) == 0, "bit: %s", nx_error_message());
  if (!A4 || !AB) return check_done();
  nx_move m;
  nx_array *f = NULL;
  nx_move_flip(&m, &(int){0}, 1);
  CHECK(nx_array_move(&m, A4, &f) == 0, "flip");
  nx_move_slice(&m, &(int64_t){0}, &(int64_t){NX_SLICE_NONE}, &(int64_t){2}, 1);
  CHECK(f && nx_array_move(&m, f, &V4) == 0, "slice");
  run(work, "direct stores");
  nx_value out4[N4], outb[NB];
  CHECK(nx_array_to_array(A4, out4, N4) == 0 && nx_array_to_array(AB, outb, NB) == 0, "to_array: %s",
        nx_error_message());
  long wrong = 0;
  for (int i = 0; i < N4; i++) wrong += out4[i].i != val4(i % THREADS, i, ROUNDS - 1);
  for (int i = 0; i < NB; i++) wrong += outb[i].b != valb(i % THREADS, i, ROUNDS - 1);
  CHECK(wrong == 0, "%ld elements do not hold their thread's last value", wrong);
  /* The bytes themselves: an independent unpacking of the int4 buffer. */
  uint8_t raw[N4 / 2];
  CHECK(raw_read(nx_array_buffer(A4), raw) == 0, "raw read");
  wrong = 0;
  for (int i = 0; i < N4; i++) {
    int nib = (raw[i / 2] >> (4 * (i & 1))) & 15;
    wrong += nib != (int)(val4(i % THREADS, i, ROUNDS - 1) & 15);
  }
  CHECK(wrong == 0, "%ld nibbles of the buffer are wrong", wrong);
  /* Through the strided, flipped view: the odd elements change, the even ones
     keep the direct round's values. */
  run(work_view, "stores through a view");
  CHECK(nx_array_to_array(A4, out4, N4) == 0, "to_array");
  wrong = 0;
  for (int i = 0; i < N4; i++)
    wrong += out4[i].i != (i % 2 ? val4(i % THREADS, i, ROUNDS / 4 - 1 + 7) : val4(i % THREADS, i, ROUNDS - 1));
  CHECK(wrong == 0, "after the view's stores, %ld elements are wrong", wrong);
  nx_array_free(V4);
  nx_array_free(f);
  nx_array_free(A4);
  nx_array_free(AB);
  printf("test_array_subbyte_set: %d threads x %d rounds, %.2f s\n", THREADS, ROUNDS, now_s() - t0);
  return check_done();
}
