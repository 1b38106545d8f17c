/* SPDX-License-Identifier: Apache-2.0 */
/* The linear algebra's public functions: the checks before the door, the
   door, the numeric failures' messages, and the `_new` results. */
#include <stdio.h>

#include "../kernels/api.h"
#include "lapack.h"
#include "nx_linalg.h"

static int ranks(const char *name, nx_array *const *ops, int n, const int *least) {
  for (int i = 0; i < n; i++)
    if (nx_array_layout(ops[i])->rank < least[i]) {
      char t[160];
      return nx__fail(NX_EINVAL, "%s: operand %d (%s) has rank below %d", name, i,
                      nx_array_describe(ops[i], t, sizeof t), least[i]);
    }
  return 0;
}

static const char *what_failed(int s) {
  switch (s) {
  case NX_ENOTPD: return "is not positive definite";
  case NX_ESINGULAR: return "is singular";
  case NX_ENOCONV: return "did not converge";
  case NX_ENOMEM: return "found no scratch space";
  default: return "had an argument LAPACK refused";
  }
}

static const char *detail(int s) {
  switch (s) {
  case NX_ENOTPD: return "the leading minor of order %d is not positive definite";
  case NX_ESINGULAR: return "diagonal element %d is zero";
  default: return "LAPACK's info %d";
  }
}

/* ops: the nw written ones, then the nr read ones (a first). */
/* own: the nw results are a _new form's own, which refusals do not name. */
static int run(const char *name, nx__lin *c, nx_array *const *ops, int nw, int nr, bool own) {
  int least[4];
  for (int i = 0; i < nw + nr; i++) least[i] = 2;
  /* the vectors of values: svd's s, eig's and eigh's w */
  if (c->kind == NX__L_SVD) least[1] = 1;
  if (c->kind == NX__L_EIG || c->kind == NX__L_EIGH) least[0] = 1;
  int s = nx__need(name, ops, nw + nr);
  if (s || (s = ranks(name, ops, nw + nr, least))) return s;
  c->status = 0;
  int a = nx_door_host(ops, nw, ops + nw, nr, nx__lin_kernel, c);
  if (a == NX_DONE && c->status) {
    char t[160], d[96];
    nx_array_describe(ops[nw], t, sizeof t);
    if (c->status == NX_ENOCONV && c->info == 0) snprintf(d, sizeof d, "an entry is NaN or infinite");
    else snprintf(d, sizeof d, detail(c->status), c->info);
    return nx__fail(c->status, "%s: %s %s at batch index %lld (%s)", name, t, what_failed(c->status), (long long)c->bad, d);
  }
  int k = own ? nw : 0;
  return nx__finish(name, nx_have_lapack() ? "LAPACKE" : "LAPACKE (not built in)", a, ops + k, nw + nr - k,
                    nx_array_dtype(ops[nw]));
}

/* Makes the n results of a `_new` variant (shapes: a's batch, then the
   trailing extents given) and runs; sets outs only on success. */
typedef struct made {
  nx_dtype dt;
  int tail;
  int64_t ext[2];
} made;

/* nr: the operands the function takes (a alone, or a and b), so that a NULL
   b of a two-operand function is refused, not read. */
static int run_new(const char *name, nx__lin *c, nx_array ***outs, const made *m, int nw, int nr, nx_array *a,
                   nx_array *b) {
  nx_array *in[2] = {a, b};
  int s = nx__need(name, in, nr);
  if (s) return s;
  for (int i = 0; i < nw; i++)
    if (!outs[i]) return nx__fail(NX_EINVAL, "%s: the result pointer %d is NULL", name, i);
  int least[2] = {2, 2};
  if ((s = ranks(name, in, nr, least))) return s;
  const nx_layout *l = nx_array_layout(a);
  nx_array *ops[6] = {NULL};
  for (int i = 0; i < nw && !s; i++) {
    int64_t shape[NX_MAX_RANK];
    int nb = l->rank - 2;
    for (int j = 0; j < nb; j++) shape[j] = l->extent[j];
    for (int j = 0; j < m[i].tail; j++) shape[nb + j] = m[i].ext[j];
    s = nx__make(name, a, m[i].dt, shape, nb + m[i].tail, &ops[i]);
  }
  ops[nw] = a, ops[nw + 1] = b;
  if (!s) s = run(name, c, ops, nw, nr, true);
  for (int i = 0; i < nw; i++) {
    if (s) nx_array_free(ops[i]);
    else *outs[i] = ops[i];
  }
  return s;
}

/* a's matrix extents (0 for a NULL a or one of rank below 2: run refuses it). */
static void dims(const nx_array *a, int64_t *m, int64_t *n) {
  *m = *n = 0;
  if (!a || nx_array_layout(a)->rank < 2) return;
  const nx_layout *l = nx_array_layout(a);
  *m = l->extent[l->rank - 2], *n = l->extent[l->rank - 1];
}

static nx_dtype dt_of(const nx_array *a) { return a ? nx_array_dtype(a) : NX_FLOAT32; }

int nx_cholesky(nx_array *l, nx_array *a, bool upper) {
  nx__lin c = {.kind = NX__L_CHOL, .upper = upper};
  nx_array *ops[2] = {l, a};
  return run("nx_cholesky", &c, ops, 1, 1, false);
}

int nx_cholesky_new(nx_array **l, nx_array *a, bool upper) {
  nx__lin c = {.kind = NX__L_CHOL, .upper = upper};
  int64_t m, n;
  dims(a, &m, &n);
  made md[1] = {{dt_of(a), 2, {m, n}}};
  nx_array **outs[1] = {l};
  return run_new("nx_cholesky_new", &c, outs, md, 1, 1, a, NULL);
}

int nx_qr(nx_array *q, nx_array *r, nx_array *a, bool complete) {
  nx__lin c = {.kind = NX__L_QR, .flag = complete};
  nx_array *ops[3] = {q, r, a};
  return run("nx_qr", &c, ops, 2, 1, false);
}

int nx_qr_new(nx_array **q, nx_array **r, nx_array *a, bool complete) {
  nx__lin c = {.kind = NX__L_QR, .flag = complete};
  int64_t m, n;
  dims(a, &m, &n);
  int64_t k = complete ? m : m < n ? m : n;
  made md[2] = {{dt_of(a), 2, {m, k}}, {dt_of(a), 2, {k, n}}};
  nx_array **outs[2] = {q, r};
  return run_new("nx_qr_new", &c, outs, md, 2, 1, a, NULL);
}

int nx_svd(nx_array *u, nx_array *s, nx_array *vh, nx_array *a, bool full) {
  nx__lin c = {.kind = NX__L_SVD, .flag = full};
  nx_array *ops[4] = {u, s, vh, a};
  return run("nx_svd", &c, ops, 3, 1, false);
}

int nx_svd_new(nx_array **u, nx_array **s, nx_array **vh, nx_array *a, bool full) {
  nx__lin c = {.kind = NX__L_SVD, .flag = full};
  int64_t m, n;
  dims(a, &m, &n);
  int64_t k = m < n ? m : n;
  nx_dtype dt = dt_of(a);
  made md[3] = {{dt, 2, {m, full ? m : k}}, {nx__lin_real(dt), 1, {k, 0}}, {dt, 2, {full ? n : k, n}}};
  nx_array **outs[3] = {u, s, vh};
  return run_new("nx_svd_new", &c, outs, md, 3, 1, a, NULL);
}

static int eigen(const char *name, nx__lkind kind, bool vectors, nx_array *w, nx_array *v, nx_array *a) {
  nx__lin c = {.kind = kind, .vectors = vectors};
  nx_array *ops[3] = {w, v, a};
  if (!vectors) ops[1] = a;
  return run(name, &c, ops, vectors ? 2 : 1, 1, false);
}

static int eigen_new(const char *name, nx__lkind kind, bool vectors, nx_array **w, nx_array **v, nx_array *a) {
  nx__lin c = {.kind = kind, .vectors = vectors};
  int64_t m, n;
  dims(a, &m, &n);
  nx_dtype dt = dt_of(a), wt = kind == NX__L_EIG ? nx__lin_complex(dt) : nx__lin_real(dt);
  nx_dtype vt = kind == NX__L_EIG ? nx__lin_complex(dt) : dt;
  made md[2] = {{wt, 1, {n, 0}}, {vt, 2, {n, n}}};
  nx_array **outs[2] = {w, v};
  return run_new(name, &c, outs, md, vectors ? 2 : 1, 1, a, NULL);
}

int nx_eig(nx_array *w, nx_array *v, nx_array *a) { return eigen("nx_eig", NX__L_EIG, true, w, v, a); }
int nx_eig_new(nx_array **w, nx_array **v, nx_array *a) { return eigen_new("nx_eig_new", NX__L_EIG, true, w, v, a); }
int nx_eigvals(nx_array *w, nx_array *a) { return eigen("nx_eigvals", NX__L_EIG, false, w, NULL, a); }
int nx_eigvals_new(nx_array **w, nx_array *a) { return eigen_new("nx_eigvals_new", NX__L_EIG, false, w, NULL, a); }
int nx_eigh(nx_array *w, nx_array *v, nx_array *a) { return eigen("nx_eigh", NX__L_EIGH, true, w, v, a); }
int nx_eigh_new(nx_array **w, nx_array **v, nx_array *a) { return eigen_new("nx_eigh_new", NX__L_EIGH, true, w, v, a); }
int nx_eigvalsh(nx_array *w, nx_array *a) { return eigen("nx_eigvalsh", NX__L_EIGH, false, w, NULL, a); }
int nx_eigvalsh_new(nx_array **w, nx_array *a) {
  return eigen_new("nx_eigvalsh_new", NX__L_EIGH, false, w, NULL, a);
}

int nx_triangular_solve(nx_array *x, nx_array *a, nx_array *b, bool upper, bool transpose, bool unit) {
  nx__lin c = {.kind = NX__L_TRSV, .upper = upper, .flag = transpose, .unit = unit};
  nx_array *ops[3] = {x, a, b};
  return run("nx_triangular_solve", &c, ops, 1, 2, false);
}

int nx_triangular_solve_new(nx_array **x, nx_array *a, nx_array *b, bool upper, bool transpose, bool unit) {
  nx__lin c = {.kind = NX__L_TRSV, .upper = upper, .flag = transpose, .unit = unit};
  int64_t m, n, bm, bn;
  dims(a, &m, &n);
  dims(b, &bm, &bn);
  made md[1] = {{dt_of(a), 2, {n, bn}}};
  nx_array **outs[1] = {x};
  return run_new("nx_triangular_solve_new", &c, outs, md, 1, 2, a, b);
}
