/* SPDX-License-Identifier: Apache-2.0 */
/* Threads: BLAS and LAPACK called from several threads at once, through
   the pool and from user threads (float64 batched matmul and a batch of
   Cholesky factors), every result bit for bit the one a single thread
   computed first. A serial OpenBLAS built without its locking shares
   buffers between concurrent calls and corrupts some results: nx must take
   such calls one at a time. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "nx.h"

#define USERS 4
#define ROUNDS 25

static int64_t mshape[3] = {8, 48, 48}, cshape[3] = {64, 16, 16};
static nx_array *ma, *mb, *ca, *mref, *cref;
static long wrong[USERS], failed[USERS];

static nx_array *filled(const int64_t *shape, uint64_t seed, bool spd) {
  nx_array *a = NULL;
  if (nx_array_host(NX_FLOAT64, shape, 3, &a)) return NULL;
  double *p = nx_buffer_host_address(nx_array_buffer(a));
  int64_t n = shape[1];
  for (int64_t t = 0; t < shape[0]; t++)
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < shape[2]; j++) {
        double r = (double)(splitmix64_next(&seed) >> 11) / 9007199254740992.0;
        /* symmetric positive definite where asked: 1 / (1 + i + j + t) off the diagonal */
        p[(t * n + i) * shape[2] + j] = !spd ? r - 0.5 : i == j ? (double)(n + t) : 1.0 / (double)(1 + i + j + t);
      }
  return a;
}

static bool same(const nx_array *x, const nx_array *y, const int64_t *shape) {
  int64_t count = shape[0] * shape[1] * shape[2];
  return !memcmp(nx_buffer_host_address(nx_array_buffer(x)), nx_buffer_host_address(nx_array_buffer(y)),
                 (size_t)count * sizeof(double));
}

static void *user(void *arg) {
  int u = (int)(intptr_t)arg;
  for (int r = 0; r < ROUNDS; r++) {
    nx_array *z = NULL, *l = NULL;
    if (nx_matmul_new(&z, ma, mb)) failed[u]++;
    else wrong[u] += !same(z, mref, mshape);
    if (nx_cholesky_new(&l, ca, false)) failed[u]++;
    else wrong[u] += !same(l, cref, cshape);
    nx_array_free(z), nx_array_free(l);
  }
  return NULL;
}

int main(void) {
  if (!nx_have_lapack()) return skip("LAPACKE is not built in (test_linalg_lapack checks the refusal)");
  ma = filled(mshape, 1, false), mb = filled(mshape, 2, false), ca = filled(cshape, 3, true);
  CHECK(ma && mb && ca, "operands: %s", nx_error_message());
  if (!ma || !mb || !ca) return check_done();
  nx_set_num_threads(1);
  CHECK(nx_matmul_new(&mref, ma, mb) == 0, "serial matmul: %s", nx_error_message());
  CHECK(nx_cholesky_new(&cref, ca, false) == 0, "serial cholesky: %s", nx_error_message());
  if (!mref || !cref) return check_done();
  /* the reference is itself right: one product element and one factor's
     diagonal recomputed here */
  const double *pa = nx_buffer_host_address(nx_array_buffer(ma)), *pb = nx_buffer_host_address(nx_array_buffer(mb));
  double dot = 0;
  for (int p = 0; p < 48; p++) dot += pa[p] * pb[p * 48];
  double got = ((const double *)nx_buffer_host_address(nx_array_buffer(mref)))[0];
  CHECK(got - dot < 1e-12 && dot - got < 1e-12, "matmul [0, 0, 0]: %g, expected %g", got, dot);
  double l00 = ((const double *)nx_buffer_host_address(nx_array_buffer(cref)))[0];
  CHECK(l00 * l00 - 16 < 1e-12 && 16 - l00 * l00 < 1e-12, "cholesky [0, 0, 0]: %g, expected 4", l00);
  nx_set_num_threads(2);
  pthread_t th[USERS];
  for (int u = 0; u < USERS; u++) pthread_create(&th[u], NULL, user, (void *)(intptr_t)u);
  for (int u = 0; u < USERS; u++) pthread_join(th[u], NULL);
  for (int u = 0; u < USERS; u++) {
    CHECK(failed[u] == 0, "thread %d: %ld calls failed", u, failed[u]);
    CHECK(wrong[u] == 0, "thread %d: %ld of %d results differ from the serial ones", u, wrong[u], 2 * ROUNDS);
  }
  nx_array_free(ma), nx_array_free(mb), nx_array_free(ca), nx_array_free(mref), nx_array_free(cref);
  return check_done();
}
