/* SPDX-License-Identifier: Apache-2.0 */
/* The batched linear algebra's kernel: the operands' dtypes and shapes
   checked against a's, the batches split over the pool, each batch's
   matrices copied to and from column-major scratch, and the first numeric
   failure in batch order kept for the message. */
#include "lapack.h"

#include <string.h>

#include "../kernels/api.h"

nx_dtype nx__lin_real(nx_dtype dt) {
  return dt == NX_COMPLEX64 ? NX_FLOAT32 : dt == NX_COMPLEX128 ? NX_FLOAT64 : dt;
}

nx_dtype nx__lin_complex(nx_dtype dt) {
  return dt == NX_FLOAT32 ? NX_COMPLEX64 : dt == NX_FLOAT64 ? NX_COMPLEX128 : dt;
}

static int64_t base_pos(const nx__lin *c, const nx_operand *o, int64_t t) {
  int64_t pos = o->layout->offset;
  for (int j = c->nb - 1; j >= 0; j--) {
    pos += (t % c->bext[j]) * o->layout->stride[j];
    t /= c->bext[j];
  }
  return pos;
}

/* The matrix of o at t: rows, columns and their strides (a vector is one
   column). */
static void shape_of(const nx__lin *c, const nx_operand *o, int64_t *rows, int64_t *cols, int64_t *rs, int64_t *cs) {
  const nx_layout *l = o->layout;
  *rows = l->extent[c->nb];
  *rs = l->stride[c->nb];
  bool matrix = l->rank == c->nb + 2;
  *cols = matrix ? l->extent[c->nb + 1] : 1;
  *cs = matrix ? l->stride[c->nb + 1] : 0;
}

static void copy(const nx__lin *c, const nx_operand *o, int64_t t, char *buf, int64_t ld, bool out) {
  int64_t rows, cols, rs, cs, pos = base_pos(c, o, t);
  shape_of(c, o, &rows, &cols, &rs, &cs);
  size_t e = (size_t)nx_dtype_bits_of(o->dtype) / 8;
  char *base = o->base;
  for (int64_t j = 0; j < cols; j++)
    for (int64_t i = 0; i < rows; i++) {
      char *p = base + (size_t)(pos + i * rs + j * cs) * e, *q = buf + (size_t)(i + j * ld) * e;
      if (out) memcpy(p, q, e);
      else memcpy(q, p, e);
    }
}

void nx__lin_get(const nx__lin *c, const nx_operand *o, int64_t t, void *buf, int64_t ld) {
  copy(c, o, t, buf, ld, false);
}

void nx__lin_put(const nx__lin *c, const nx_operand *o, int64_t t, const void *buf, int64_t ld) {
  copy(c, o, t, (char *)buf, ld, true);
}

/* What operand i (of ops: the written ones, a, b) must be: its trailing
   extents (1 or 2) and dtype. */
static int expect(const nx__lin *c, int i, int64_t *ext, nx_dtype *dt) {
  int64_t m = c->m, n = c->n, k = m < n ? m : n;
  *dt = c->dt;
  ext[0] = m, ext[1] = n;
  if (i == c->nw) return 2; /* a */
  if (i == c->nw + 1) return ext[0] = n, ext[1] = c->rhs, 2; /* b */
  switch (c->kind) {
  case NX__L_CHOL: return 2;
  case NX__L_QR:
    if (c->flag) k = m;
    if (i == 0) ext[1] = k;
    else ext[0] = k;
    return 2;
  case NX__L_SVD:
    if (i == 1) return *dt = nx__lin_real(c->dt), ext[0] = k, 1;
    if (i == 0) ext[1] = c->flag ? m : k;
    else ext[0] = c->flag ? n : k;
    return 2;
  case NX__L_EIG:
  case NX__L_EIGH:
    *dt = c->kind == NX__L_EIG ? nx__lin_complex(c->dt) : i == 0 ? nx__lin_real(c->dt) : c->dt;
    if (i == 0) return ext[0] = n, 1;
    return ext[0] = n, ext[1] = n, 2;
  default: return ext[0] = n, ext[1] = c->rhs, 2; /* x */
  }
}

static bool lapack_dtype(nx_dtype dt) {
  return dt == NX_FLOAT32 || dt == NX_FLOAT64 || dt == NX_COMPLEX64 || dt == NX_COMPLEX128;
}

#ifdef NX_HAVE_LAPACKE
static void batches(void *vc, int64_t t0, int64_t t1) {
  nx__lin *c = vc;
  for (int64_t t = t0; t < t1; t++) {
    pthread_mutex_lock(&c->mu);
    bool past = c->status && c->bad < t;
    pthread_mutex_unlock(&c->mu);
    if (past) return; /* a failure before: this part's results are unspecified */
    int info = 0, s = nx__lin_batch(c, t, &info);
    if (!s) continue;
    pthread_mutex_lock(&c->mu);
    if (!c->status || t < c->bad) c->status = s, c->bad = t, c->info = info;
    pthread_mutex_unlock(&c->mu);
    return;
  }
}
#endif

nx_answer nx__lin_kernel(void *vc, const nx_operand *ops, int nw, int nr) {
  nx__lin *c = vc;
  const nx_operand *a = &ops[nw];
  c->ops = ops;
  c->nw = nw;
  c->dt = a->dtype;
  if (!lapack_dtype(c->dt)) return NX_DECLINED;
  const nx_layout *al = a->layout;
  c->nb = al->rank - 2;
  c->m = al->extent[al->rank - 2];
  c->n = al->extent[al->rank - 1];
  c->rhs = nr > 1 ? ops[nw + 1].layout->extent[ops[nw + 1].layout->rank - 1] : 0;
  c->count = 1;
  for (int j = 0; j < c->nb; j++) c->count *= (c->bext[j] = al->extent[j]);
  for (int i = 0; i < nw + nr; i++) {
    int64_t ext[2];
    nx_dtype dt;
    expect(c, i, ext, &dt);
    if (ops[i].dtype != dt) return NX_WRONG_DTYPE;
  }
  bool square = c->kind != NX__L_QR && c->kind != NX__L_SVD;
  if (square && c->m != c->n) return NX_SHAPE_MISMATCH;
  for (int i = 0; i < nw + nr; i++) {
    int64_t ext[2];
    nx_dtype dt;
    int tail = expect(c, i, ext, &dt);
    const nx_layout *l = ops[i].layout;
    if (l->rank != c->nb + tail) return NX_SHAPE_MISMATCH;
    for (int j = 0; j < c->nb; j++)
      if (l->extent[j] != c->bext[j]) return NX_SHAPE_MISMATCH;
    for (int j = 0; j < tail; j++)
      if (l->extent[c->nb + j] != ext[j]) return NX_SHAPE_MISMATCH;
  }
#ifndef NX_HAVE_LAPACKE
  return NX_DECLINED;
#else
  /* LAPACK's dimensions are ints */
  if (c->m > INT32_MAX / 2 || c->n > INT32_MAX / 2 || c->rhs > INT32_MAX / 2) return NX_DECLINED;
  if (c->count == 0) return NX_DONE;
  c->status = 0;
  pthread_mutex_init(&c->mu, NULL);
  int64_t work = (c->m + 1) * (c->n + 1) * (c->m < c->n ? c->m + 1 : c->n + 1) * c->count;
  nx__parallel(c->count, work < NX__SERIAL_WORK ? 1 : 2 * (int64_t)nx_num_threads(), batches, c);
  pthread_mutex_destroy(&c->mu);
  return NX_DONE;
#endif
}
