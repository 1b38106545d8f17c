/* SPDX-License-Identifier: Apache-2.0 */
/* Sessions made and freed on several threads at once share the process's
   cache of freed blocks (src/shape/cache.c): each ends in the state a
   session alone ends in, byte for byte. Run under TSan (label concurrency). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nx.h"
#include "../check.h"

enum { THREADS = 3, ROUNDS = 2, LAYERS = 1500 };

/* A chain of layers closed, its dump (malloc'd), or NULL on failure. */
static char *chain(void) {
  nx_shape_session *s;
  if (nx_shape_session_new(&s)) return NULL;
  nx_tensor *h, *w, *b, *m, *y;
  bool bad = nx_tensor_term(s, "x", "8", "", "16", &h) != 0;
  for (int i = 0; i < LAYERS && !bad; i++)
    bad = nx_tensor_param(s, "w", NULL, "16", &w) || nx_tensor_param(s, "b", "", NULL, &b) ||
          nx_tensor_compose(s, w, h, &m) || nx_tensor_binary(s, "+", m, b, &y) || nx_tensor_unary(s, "tanh", y, &h);
  bad = bad || nx_shape_finish(s) != 0;
  int64_t n = bad ? -1 : nx_shape_dump(s, NULL, 0);
  char *out = n < 0 ? NULL : malloc((size_t)n + 1);
  if (out && nx_shape_dump(s, out, (size_t)n + 1) != n) {
    free(out);
    out = NULL;
  }
  nx_shape_session_free(s);
  return out;
}

static const char *want;
static int differ[THREADS];

static void *job(void *arg) {
  int t = (int)(intptr_t)arg;
  for (int r = 0; r < ROUNDS; r++) {
    char *got = chain();
    if (!got || strcmp(got, want)) differ[t]++;
    free(got);
  }
  return NULL;
}

int main(void) {
  char *alone = chain();
  CHECK(alone != NULL, "a session alone: %s", nx_error_message());
  want = alone;
  pthread_t th[THREADS];
  for (int t = 0; t < THREADS; t++) CHECK(pthread_create(&th[t], NULL, job, (void *)(intptr_t)t) == 0, "thread %d", t);
  for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
  for (int t = 0; t < THREADS; t++)
    CHECK(differ[t] == 0, "thread %d: %d of %d sessions ended in another state than alone", t, differ[t], ROUNDS);
  free(alone);
  return check_done();
}
