/* SPDX-License-Identifier: Apache-2.0 */
/* BLAS's products, serial, for nx's pool to split. */
#include "blas.h"

#include <pthread.h>
#include <stdatomic.h>
#include <strings.h>

#include "mm.h"
#include "nx_linalg.h"

#ifdef NX_HAVE_BLAS
#include <cblas.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t serial_lock = PTHREAD_MUTEX_INITIALIZER;
static bool serial; /* written once, under once */

static void one_thread(void) {
  openblas_set_num_threads(1);
  serial = openblas_get_parallel() == 0;
}

void nx__blas_enter(void) {
  pthread_once(&once, one_thread);
  if (serial) pthread_mutex_lock(&serial_lock);
}

void nx__blas_leave(void) {
  if (serial) pthread_mutex_unlock(&serial_lock);
}

bool nx_have_blas(void) { return true; }

bool nx__blas_dtype(nx_dtype dt) {
  return dt == NX_FLOAT32 || dt == NX_FLOAT64 || dt == NX_COMPLEX64 || dt == NX_COMPLEX128;
}

/* Whether name (as openblas_get_corename gives it) is one of cores. */
static bool among(const char *name, const char *const *cores, size_t n) {
  for (size_t i = 0; name && i < n; i++)
    if (!strcasecmp(name, cores[i])) return true;
  return false;
}

int nx__blas_level(void) {
  /* found once (the core OpenBLAS picked does not change): a small matmul
     asks on every call */
  static atomic_int found = -1;
  int v = atomic_load_explicit(&found, memory_order_relaxed);
  if (v >= 0) return v;
  /* the cores of OpenBLAS's AVX-512 kernels, then of its AVX2 and FMA ones */
  static const char *const wide[] = {"skylakex", "cooperlake", "sapphirerapids", "zen4", "zen5"};
  static const char *const avx2[] = {"haswell", "zen"};
  const char *name = openblas_get_corename();
  if (among(name, wide, sizeof wide / sizeof *wide)) v = NX__MM_AVX512;
  else v = among(name, avx2, sizeof avx2 / sizeof *avx2) ? NX__MM_AVX2 : NX__MM_PLAIN;
  atomic_store_explicit(&found, v, memory_order_relaxed);
  return v;
}

void nx__blas_gemm(nx_dtype dt, int64_t m, int64_t n, int64_t k, nx__gm a, nx__gm b, void *c, int64_t ldc) {
  nx__blas_enter();
  enum CBLAS_TRANSPOSE ta = a.trans ? CblasTrans : CblasNoTrans, tb = b.trans ? CblasTrans : CblasNoTrans;
  int M = (int)m, N = (int)n, K = (int)k, la = (int)a.ld, lb = (int)b.ld, lc = (int)ldc;
  switch (dt) {
  case NX_FLOAT32: cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, 1.0f, a.p, la, b.p, lb, 0.0f, c, lc); break;
  case NX_FLOAT64: cblas_dgemm(CblasRowMajor, ta, tb, M, N, K, 1.0, a.p, la, b.p, lb, 0.0, c, lc); break;
  case NX_COMPLEX64: {
    const float one[2] = {1, 0}, zero[2] = {0, 0};
    cblas_cgemm(CblasRowMajor, ta, tb, M, N, K, one, a.p, la, b.p, lb, zero, c, lc);
    break;
  }
  default: {
    const double one[2] = {1, 0}, zero[2] = {0, 0};
    cblas_zgemm(CblasRowMajor, ta, tb, M, N, K, one, a.p, la, b.p, lb, zero, c, lc);
    break;
  }
  }
  nx__blas_leave();
}
#else
bool nx_have_blas(void) { return false; }
void nx__blas_enter(void) {}
void nx__blas_leave(void) {}
int nx__blas_level(void) { return NX__MM_PLAIN; }
bool nx__blas_dtype(nx_dtype dt) {
  (void)dt;
  return false;
}
void nx__blas_gemm(nx_dtype dt, int64_t m, int64_t n, int64_t k, nx__gm a, nx__gm b, void *c, int64_t ldc) {
  (void)dt, (void)m, (void)n, (void)k, (void)a, (void)b, (void)c, (void)ldc;
}
#endif

#ifdef NX_HAVE_LAPACKE
bool nx_have_lapack(void) { return true; }
#else
bool nx_have_lapack(void) { return false; }
#endif
