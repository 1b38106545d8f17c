/* SPDX-License-Identifier: Apache-2.0 */
/* One batch of each linear algebra operation on LAPACKE, column-major, in
   scratch of its own: potrf (cholesky), geqrf and orgqr/ungqr (qr), gesdd
   (svd), geev (eig, eigvals), syevd/heevd (eigh, eigvalsh), trtrs
   (triangular_solve). LAPACKE's check of its inputs for NaN is turned off
   once: a NaN propagates into the results as LAPACK computes them. */
#include "lapack.h"

#ifdef NX_HAVE_LAPACKE
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "../base/alloc.h"
#include "blas.h"

/* The routine of a's dtype: s, d, c or z. */
#define L4(dt, f, ...)                                                                                          \
  ((dt) == NX_FLOAT32 ? LAPACKE_s##f(__VA_ARGS__)                                                               \
   : (dt) == NX_FLOAT64 ? LAPACKE_d##f(__VA_ARGS__)                                                             \
   : (dt) == NX_COMPLEX64 ? LAPACKE_c##f(__VA_ARGS__)                                                           \
                          : LAPACKE_z##f(__VA_ARGS__))
/* ... where the real and complex routines have different names. */
#define L4RC(dt, fr, fc, ...)                                                                                   \
  ((dt) == NX_FLOAT32 ? LAPACKE_s##fr(__VA_ARGS__)                                                              \
   : (dt) == NX_FLOAT64 ? LAPACKE_d##fr(__VA_ARGS__)                                                            \
   : (dt) == NX_COMPLEX64 ? LAPACKE_c##fc(__VA_ARGS__)                                                          \
                          : LAPACKE_z##fc(__VA_ARGS__))

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void no_nancheck(void) { LAPACKE_set_nancheck(0); }

static int64_t ld_of(int64_t rows) { return rows > 1 ? rows : 1; }

/* Scratch of several parts, one allocation. */
typedef struct parts {
  char *block;
  size_t used, cap;
} parts;

static char *part(parts *p, int64_t elems, nx_dtype dt) {
  char *r = p->block + p->used;
  p->used += ((size_t)elems * (size_t)(nx_dtype_bits_of(dt) / 8) + 15) & ~(size_t)15;
  return r;
}

static size_t bytes(int64_t elems, nx_dtype dt) { return ((size_t)elems * (size_t)(nx_dtype_bits_of(dt) / 8) + 15) & ~(size_t)15; }

/* A status of LAPACK's info: 0, the numeric failure `fail` for info > 0,
   NX_ENOMEM for LAPACKE's workspace, NX_EINVAL for an argument it refused. */
static int status_of(int info, int fail, int *out) {
  *out = info;
  if (info == 0) return 0;
  if (info > 0) return fail;
  if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR) return NX_ENOMEM;
  return NX_EINVAL;
}

static void zero(nx_dtype dt, char *p) { memset(p, 0, (size_t)nx_dtype_bits_of(dt) / 8); }

static void set_re(nx_dtype dt, char *p, double v) {
  if (dt == NX_FLOAT32 || dt == NX_COMPLEX64) {
    float f = (float)v;
    memcpy(p, &f, 4);
  } else
    memcpy(p, &v, 8);
}

static double get_re(nx_dtype dt, const char *p) {
  if (dt == NX_FLOAT32 || dt == NX_COMPLEX64) {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  double d;
  memcpy(&d, p, 8);
  return d;
}

/* p = re + i im, p of complex dtype ct */
static void set_c(nx_dtype ct, char *p, double re, double im) {
  set_re(ct, p, re);
  set_re(ct, p + nx_dtype_bits_of(ct) / 16, im);
}

/* Whether the rows x cols matrix at buf (leading dimension ld), or its
   lower triangle, is finite:
   LAPACK's iterations refuse a NaN as an illegal argument, and printing,
   and take an infinity to no meaningful result. */
static bool all_finite(nx_dtype dt, const char *buf, int64_t rows, int64_t cols, int64_t ld, bool lower) {
  nx_dtype rt = nx__lin_real(dt);
  int parts = dt == rt ? 1 : 2, e = nx_dtype_bits_of(rt) / 8;
  for (int64_t j = 0; j < cols; j++)
    for (int64_t i = lower ? j * parts : 0; i < rows * parts; i++)
      if (!isfinite(get_re(rt, buf + (size_t)(j * ld * parts + i) * (size_t)e))) return false;
  return true;
}

static char *at(nx_dtype dt, char *buf, int64_t i, int64_t j, int64_t ld) {
  return buf + (size_t)(i + j * ld) * (size_t)(nx_dtype_bits_of(dt) / 8);
}

static void identity(nx_dtype dt, char *buf, int64_t n, int64_t ld) {
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) {
      zero(dt, at(dt, buf, i, j, ld));
      if (i == j) set_re(dt, at(dt, buf, i, j, ld), 1);
    }
}

static int cholesky(nx__lin *c, int64_t t, parts *p, int *info) {
  nx_dtype dt = c->dt;
  int64_t n = c->n, ld = ld_of(n);
  char *A = part(p, ld * n, dt);
  nx__lin_get(c, &c->ops[c->nw], t, A, ld);
  int s = status_of(L4(dt, potrf, LAPACK_COL_MAJOR, c->upper ? 'U' : 'L', (int)n, (void *)A, (int)ld), NX_ENOTPD, info);
  if (s) return s;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++)
      if (c->upper ? i > j : i < j) zero(dt, at(dt, A, i, j, ld));
  nx__lin_put(c, &c->ops[0], t, A, ld);
  return 0;
}

static int qr(nx__lin *c, int64_t t, parts *p, int *info) {
  nx_dtype dt = c->dt;
  int64_t m = c->m, n = c->n, kmin = m < n ? m : n, kq = c->flag ? m : kmin, ldm = ld_of(m), ldr = ld_of(kq);
  char *A = part(p, ldm * n, dt), *tau = part(p, kmin + 1, dt), *Q = part(p, ldm * kq, dt), *R = part(p, ldr * n, dt);
  nx__lin_get(c, &c->ops[c->nw], t, A, ldm);
  int s = status_of(L4(dt, geqrf, LAPACK_COL_MAJOR, (int)m, (int)n, (void *)A, (int)ldm, (void *)tau), NX_EINVAL, info);
  if (s) return s;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < kq; i++) {
      if (i <= j) memcpy(at(dt, R, i, j, ldr), at(dt, A, i, j, ldm), (size_t)nx_dtype_bits_of(dt) / 8);
      else zero(dt, at(dt, R, i, j, ldr));
    }
  memcpy(Q, A, (size_t)(ldm * kmin) * (size_t)(nx_dtype_bits_of(dt) / 8));
  s = status_of(L4RC(dt, orgqr, ungqr, LAPACK_COL_MAJOR, (int)m, (int)kq, (int)kmin, (void *)Q, (int)ldm, (void *)tau),
                NX_EINVAL, info);
  if (s) return s;
  nx__lin_put(c, &c->ops[0], t, Q, ldm);
  nx__lin_put(c, &c->ops[1], t, R, ldr);
  return 0;
}

static int svd(nx__lin *c, int64_t t, parts *p, int *info) {
  nx_dtype dt = c->dt, rt = nx__lin_real(dt);
  int64_t m = c->m, n = c->n, k = m < n ? m : n, ucols = c->flag ? m : k, vrows = c->flag ? n : k;
  int64_t ldm = ld_of(m), ldv = ld_of(vrows);
  char *A = part(p, ldm * n, dt), *S = part(p, k + 1, rt), *U = part(p, ldm * ucols, dt), *V = part(p, ldv * n, dt);
  nx__lin_get(c, &c->ops[c->nw], t, A, ldm);
  if (!all_finite(dt, A, m, n, ldm, false)) return *info = 0, NX_ENOCONV; /* info 0: a non-finite entry */
  if (k == 0) {
    /* nothing to factor: full bases are identities */
    identity(dt, U, ucols, ldm);
    identity(dt, V, vrows, ldv);
  } else {
    int s = status_of(L4(dt, gesdd, LAPACK_COL_MAJOR, c->flag ? 'A' : 'S', (int)m, (int)n, (void *)A, (int)ldm,
                         (void *)S, (void *)U, (int)ldm, (void *)V, (int)ldv),
                      NX_ENOCONV, info);
    if (s) return s;
  }
  nx__lin_put(c, &c->ops[0], t, U, ldm);
  nx__lin_put(c, &c->ops[1], t, S, ld_of(k));
  nx__lin_put(c, &c->ops[2], t, V, ldv);
  return 0;
}

static int eig(nx__lin *c, int64_t t, parts *p, int *info) {
  nx_dtype dt = c->dt, ct = nx__lin_complex(dt);
  int64_t n = c->n, ld = ld_of(n);
  char jv = c->vectors ? 'V' : 'N';
  char *A = part(p, ld * n, dt), *W = part(p, n + 1, ct), *V = part(p, ld * n, ct);
  nx__lin_get(c, &c->ops[c->nw], t, A, ld);
  if (!all_finite(dt, A, n, n, ld, false)) return *info = 0, NX_ENOCONV; /* info 0: a non-finite entry */
  int s;
  if (dt == NX_COMPLEX64 || dt == NX_COMPLEX128) {
    s = status_of(dt == NX_COMPLEX64 ? LAPACKE_cgeev(LAPACK_COL_MAJOR, 'N', jv, (int)n, (void *)A, (int)ld, (void *)W,
                                                      NULL, 1, (void *)V, (int)ld)
                                      : LAPACKE_zgeev(LAPACK_COL_MAJOR, 'N', jv, (int)n, (void *)A, (int)ld, (void *)W,
                                                      NULL, 1, (void *)V, (int)ld),
                  NX_ENOCONV, info);
    if (s) return s;
  } else {
    char *wr = part(p, n + 1, dt), *wi = part(p, n + 1, dt), *VR = part(p, ld * n, dt);
    s = status_of(dt == NX_FLOAT32 ? LAPACKE_sgeev(LAPACK_COL_MAJOR, 'N', jv, (int)n, (void *)A, (int)ld, (void *)wr,
                                                    (void *)wi, NULL, 1, (void *)VR, (int)ld)
                                    : LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', jv, (int)n, (void *)A, (int)ld, (void *)wr,
                                                    (void *)wi, NULL, 1, (void *)VR, (int)ld),
                  NX_ENOCONV, info);
    if (s) return s;
    /* a conjugate pair's vectors are VR's columns j and j + 1: re +- i im */
    for (int64_t j = 0; j < n; j++) {
      double im = get_re(dt, at(dt, wi, j, 0, 1));
      set_c(ct, at(ct, W, j, 0, 1), get_re(dt, at(dt, wr, j, 0, 1)), im);
      bool pair = im > 0 && j + 1 < n;
      if (c->vectors)
        for (int64_t i = 0; i < n; i++) {
          double re = get_re(dt, at(dt, VR, i, j, ld)), vi = pair ? get_re(dt, at(dt, VR, i, j + 1, ld)) : 0;
          set_c(ct, at(ct, V, i, j, ld), re, vi);
          if (pair) set_c(ct, at(ct, V, i, j + 1, ld), re, -vi);
        }
      if (pair) {
        set_c(ct, at(ct, W, j + 1, 0, 1), get_re(dt, at(dt, wr, j + 1, 0, 1)), get_re(dt, at(dt, wi, j + 1, 0, 1)));
        j++;
      }
    }
  }
  nx__lin_put(c, &c->ops[0], t, W, ld);
  if (c->vectors) nx__lin_put(c, &c->ops[1], t, V, ld);
  return 0;
}

static int eigh(nx__lin *c, int64_t t, parts *p, int *info) {
  nx_dtype dt = c->dt, rt = nx__lin_real(dt);
  int64_t n = c->n, ld = ld_of(n);
  char *A = part(p, ld * n, dt), *W = part(p, n + 1, rt);
  nx__lin_get(c, &c->ops[c->nw], t, A, ld);
  if (!all_finite(dt, A, n, n, ld, true)) return *info = 0, NX_ENOCONV; /* info 0: a non-finite entry */
  int s = status_of(L4RC(dt, syevd, heevd, LAPACK_COL_MAJOR, c->vectors ? 'V' : 'N', 'L', (int)n, (void *)A, (int)ld,
                         (void *)W),
                    NX_ENOCONV, info);
  if (s) return s;
  nx__lin_put(c, &c->ops[0], t, W, ld);
  if (c->vectors) nx__lin_put(c, &c->ops[1], t, A, ld);
  return 0;
}

static int trsv(nx__lin *c, int64_t t, parts *p, int *info) {
  nx_dtype dt = c->dt;
  int64_t n = c->n, ld = ld_of(n), k = c->rhs;
  char *A = part(p, ld * n, dt), *B = part(p, ld * k, dt);
  nx__lin_get(c, &c->ops[c->nw], t, A, ld);
  nx__lin_get(c, &c->ops[c->nw + 1], t, B, ld);
  int s = status_of(L4(dt, trtrs, LAPACK_COL_MAJOR, c->upper ? 'U' : 'L', c->flag ? 'T' : 'N', c->unit ? 'U' : 'N',
                       (int)n, (int)k, (void *)A, (int)ld, (void *)B, (int)ld),
                    NX_ESINGULAR, info);
  if (s) return s;
  nx__lin_put(c, &c->ops[0], t, B, ld);
  return 0;
}

/* The scratch one batch needs: a generous bound over every part above, or
   0 where it passes SIZE_MAX (a broadcast a can be large without memory). */
static size_t scratch(const nx__lin *c) {
  nx_dtype ct = nx__lin_complex(c->dt);
  int64_t m = ld_of(c->m), n = ld_of(c->n), big = m > n ? m : n, k = ld_of(c->rhs);
  int64_t elems, more;
  if (__builtin_mul_overflow(big, big, &elems) || __builtin_mul_overflow(big, k, &more) ||
      __builtin_add_overflow(elems, more, &elems) || elems > INT64_MAX / 128)
    return 0;
  return 5 * bytes(elems, ct) + 4 * bytes(big + 1, ct) + 64;
}

int nx__lin_batch(nx__lin *c, int64_t t, int *info) {
  pthread_once(&once, no_nancheck);
  parts p = {NULL, 0, scratch(c)};
  if (!p.cap || !(p.block = nx__malloc(p.cap))) return NX_ENOMEM;
  int s;
  nx__blas_enter();
  switch (c->kind) {
  case NX__L_CHOL: s = cholesky(c, t, &p, info); break;
  case NX__L_QR: s = qr(c, t, &p, info); break;
  case NX__L_SVD: s = svd(c, t, &p, info); break;
  case NX__L_EIG: s = eig(c, t, &p, info); break;
  case NX__L_EIGH: s = eigh(c, t, &p, info); break;
  default: s = trsv(c, t, &p, info); break;
  }
  nx__blas_leave();
  nx__free(p.block);
  return s;
}
#endif
