/* SPDX-License-Identifier: Apache-2.0 */
/* The LAPACKE linear algebra by reconstruction, in long double complex
   arithmetic from the results' values, on float32, float64, complex64 and
   complex128, batched: L L^H = A (and U^H U), Q R = A with Q^H Q = I,
   U diag(s) V^H = A with orthonormal U and V and s descending, A v = w v
   for eig and eigh with eigh's w ascending and V^H V = I, op(A) x = b for
   triangular_solve in every mode. Tolerance: every entry within
   TOL * n * eps * max|A| (eps of the dtype, n the matrix's larger extent),
   TOL = 64. Exact checks: the zero triangles, the dtypes and shapes of the
   `_new` results. Numeric failures: not positive definite and singular at
   a named batch index; refusals of ranks, shapes, dtypes. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "nx.h"

#define TOL 64.0L

typedef long double complex cx;

static uint64_t seed = 777;

static double rnd(void) { return (double)(int64_t)(splitmix64_next(&seed) >> 11) / 9007199254740992.0 * 2 - 1; }

static bool is_complex(nx_dtype dt) { return nx_dtype_kind(dt) == NX_KIND_COMPLEX; }

static long double eps_of(nx_dtype dt) { return dt == NX_FLOAT32 || dt == NX_COMPLEX64 ? 0x1p-24L : 0x1p-53L; }

static int64_t count(const nx_array *a) {
  const nx_layout *l = nx_array_layout(a);
  int64_t n = 1;
  for (int j = 0; j < l->rank; j++) n *= l->extent[j];
  return n;
}

static cx *load(const nx_array *a) {
  int64_t n = count(a);
  nx_value *v = calloc((size_t)n + 1, sizeof *v);
  cx *r = calloc((size_t)n + 1, sizeof *r);
  nx_array_to_array(a, v, n);
  bool c = is_complex(nx_array_dtype(a));
  for (int64_t i = 0; i < n; i++) r[i] = c ? (long double)v[i].c.re + I * (long double)v[i].c.im : (long double)v[i].f;
  free(v);
  return r;
}

static nx_array *make(nx_dtype dt, const int64_t *shape, int r, const cx *vals) {
  int64_t n = 1;
  for (int j = 0; j < r; j++) n *= shape[j];
  nx_value *v = calloc((size_t)n + 1, sizeof *v);
  for (int64_t i = 0; i < n; i++) {
    if (is_complex(dt)) v[i].c.re = (double)creall(vals[i]), v[i].c.im = (double)cimagl(vals[i]);
    else v[i].f = (double)creall(vals[i]);
  }
  nx_array *a = NULL;
  nx_array_of_array(dt, shape, r, v, n, &a);
  free(v);
  return a;
}

static cx *random_vals(nx_dtype dt, int64_t n) {
  cx *v = calloc((size_t)n + 1, sizeof *v);
  for (int64_t i = 0; i < n; i++) v[i] = rnd() + (is_complex(dt) ? I * rnd() : 0);
  return v;
}

/* The largest |x - y| over n entries, over scale: the checks' measure. */
static long double err(const cx *x, const cx *y, int64_t n) {
  long double e = 0;
  for (int64_t i = 0; i < n; i++)
    if (cabsl(x[i] - y[i]) > e || isnan(cabsl(x[i] - y[i]))) e = cabsl(x[i] - y[i]);
  return e;
}

static long double maxabs(const cx *x, int64_t n) {
  long double e = 0;
  for (int64_t i = 0; i < n; i++)
    if (cabsl(x[i]) > e) e = cabsl(x[i]);
  return e;
}

/* c (m x n) = a (m x k) b (k x n), a conjugated-transposed where ah (a given as k x m). */
static void mul(cx *c, const cx *a, const cx *b, int64_t m, int64_t k, int64_t n, bool ah) {
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      cx s = 0;
      for (int64_t p = 0; p < k; p++) s += (ah ? conjl(a[p * m + i]) : a[i * k + p]) * b[p * n + j];
      c[i * n + j] = s;
    }
}

/* r (n x n) = l l^H */
static void gram(cx *r, const cx *l, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      cx t = 0;
      for (int64_t p = 0; p < n; p++) t += l[i * n + p] * conjl(l[j * n + p]);
      r[i * n + j] = t;
    }
}

static void eye(cx *e, int64_t n) {
  for (int64_t i = 0; i < n * n; i++) e[i] = (i / n == i % n);
}

static bool close_enough(const cx *x, const cx *y, int64_t len, nx_dtype dt, int64_t n, long double scale) {
  return err(x, y, len) <= TOL * (long double)n * eps_of(dt) * (scale > 1 ? scale : 1);
}

static const nx_dtype dts[4] = {NX_FLOAT32, NX_FLOAT64, NX_COMPLEX64, NX_COMPLEX128};

static void cholesky(nx_dtype dt, bool upper) {
  int64_t B = 3, n = 6, shape[3] = {B, n, n};
  cx *g = random_vals(dt, B * n * n), *a = calloc((size_t)(B * n * n), sizeof *a);
  for (int64_t b = 0; b < B; b++) { /* a = g g^H + n I: Hermitian positive definite */
    cx *ab = a + b * n * n, *gb = g + b * n * n;
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++) {
        cx s = i == j ? n : 0;
        for (int64_t p = 0; p < n; p++) s += gb[i * n + p] * conjl(gb[j * n + p]);
        ab[i * n + j] = s;
      }
  }
  nx_array *A = make(dt, shape, 3, a), *L = NULL;
  cx *a_exact = load(A); /* a as stored */
  int s = nx_cholesky_new(&L, A, upper);
  CHECK(s == 0, "cholesky %s: %s", nx_dtype_name(dt), nx_error_message());
  if (s == 0) {
    CHECK(nx_array_dtype(L) == dt && count(L) == B * n * n, "cholesky result");
    cx *l = load(L), *r = calloc((size_t)(n * n), sizeof *r);
    for (int64_t b = 0; b < B; b++) {
      cx *lb = l + b * n * n;
      long zeros = 0;
      for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
          if ((upper ? i > j : i < j) && lb[i * n + j] != 0) zeros++;
      CHECK(zeros == 0, "cholesky %s: %ld nonzeros in the other triangle", nx_dtype_name(dt), zeros);
      /* lower: l l^H; upper: l^H l */
      if (upper) mul(r, lb, lb, n, n, n, true);
      else gram(r, lb, n);
      CHECK(close_enough(r, a_exact + b * n * n, n * n, dt, n, maxabs(a_exact + b * n * n, n * n)),
            "cholesky %s upper=%d batch %lld: error %Lg", nx_dtype_name(dt), upper, (long long)b,
            err(r, a_exact + b * n * n, n * n));
    }
    free(l), free(r);
  }
  free(g), free(a), free(a_exact);
  nx_array_free(A), nx_array_free(L);
}

static void qr(nx_dtype dt, int64_t m, int64_t n, bool complete) {
  int64_t B = 2, shape[3] = {B, m, n}, k = complete ? m : m < n ? m : n;
  cx *a = random_vals(dt, B * m * n);
  nx_array *A = make(dt, shape, 3, a), *Q = NULL, *R = NULL;
  cx *ax = load(A);
  int s = nx_qr_new(&Q, &R, A, complete);
  CHECK(s == 0, "qr %s: %s", nx_dtype_name(dt), nx_error_message());
  if (s == 0) {
    CHECK(count(Q) == B * m * k && count(R) == B * k * n, "qr shapes");
    cx *q = load(Q), *r = load(R), *p = calloc((size_t)(m * n + k * k), sizeof *p), *e = calloc((size_t)(k * k), sizeof *e);
    eye(e, k);
    for (int64_t b = 0; b < B; b++) {
      cx *qb = q + b * m * k, *rb = r + b * k * n;
      long below = 0;
      for (int64_t i = 0; i < k; i++)
        for (int64_t j = 0; j < n && j < i; j++) below += rb[i * n + j] != 0;
      CHECK(below == 0, "qr %s: r has %ld nonzeros below the diagonal", nx_dtype_name(dt), below);
      mul(p, qb, rb, m, k, n, false);
      CHECK(close_enough(p, ax + b * m * n, m * n, dt, m > n ? m : n, maxabs(ax + b * m * n, m * n)),
            "qr %s %lldx%lld complete=%d: QR error %Lg", nx_dtype_name(dt), (long long)m, (long long)n, complete,
            err(p, ax + b * m * n, m * n));
      mul(p, qb, qb, k, m, k, true);
      CHECK(close_enough(p, e, k * k, dt, m, 1), "qr %s: Q^H Q error %Lg", nx_dtype_name(dt), err(p, e, k * k));
    }
    free(q), free(r), free(p), free(e);
  }
  free(a), free(ax);
  nx_array_free(A), nx_array_free(Q), nx_array_free(R);
}

static void svd(nx_dtype dt, int64_t m, int64_t n, bool full) {
  int64_t B = 2, shape[3] = {B, m, n}, k = m < n ? m : n, uc = full ? m : k, vr = full ? n : k;
  cx *a = random_vals(dt, B * m * n);
  nx_array *A = make(dt, shape, 3, a), *U = NULL, *S = NULL, *V = NULL;
  cx *ax = load(A);
  int s = nx_svd_new(&U, &S, &V, A, full);
  CHECK(s == 0, "svd %s: %s", nx_dtype_name(dt), nx_error_message());
  if (s == 0) {
    nx_dtype rt = dt == NX_COMPLEX64 ? NX_FLOAT32 : dt == NX_COMPLEX128 ? NX_FLOAT64 : dt;
    CHECK(nx_array_dtype(S) == rt && count(S) == B * k && count(U) == B * m * uc && count(V) == B * vr * n,
          "svd results' dtypes and shapes");
    cx *u = load(U), *sv = load(S), *v = load(V), *us = calloc((size_t)(m * n), sizeof *us),
       *p = calloc((size_t)(m * m + n * n), sizeof *p), *e = calloc((size_t)(m * m + n * n), sizeof *e);
    for (int64_t b = 0; b < B; b++) {
      cx *ub = u + b * m * uc, *sb = sv + b * k, *vb = v + b * vr * n;
      bool sorted = true;
      for (int64_t i = 0; i < k; i++) sorted &= creall(sb[i]) >= 0 && (i == 0 || creall(sb[i]) <= creall(sb[i - 1]));
      CHECK(sorted, "svd %s: s not descending and non-negative", nx_dtype_name(dt));
      /* u[:, :k] diag(s) vh[:k, :] */
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
          cx t = 0;
          for (int64_t q = 0; q < k; q++) t += ub[i * uc + q] * sb[q] * vb[q * n + j];
          us[i * n + j] = t;
        }
      CHECK(close_enough(us, ax + b * m * n, m * n, dt, m > n ? m : n, maxabs(ax + b * m * n, m * n)),
            "svd %s %lldx%lld full=%d: error %Lg", nx_dtype_name(dt), (long long)m, (long long)n, full,
            err(us, ax + b * m * n, m * n));
      mul(p, ub, ub, uc, m, uc, true);
      eye(e, uc);
      CHECK(close_enough(p, e, uc * uc, dt, m, 1), "svd %s: U^H U error %Lg", nx_dtype_name(dt), err(p, e, uc * uc));
      /* vh vh^H */
      for (int64_t i = 0; i < vr; i++)
        for (int64_t j = 0; j < vr; j++) {
          cx t = 0;
          for (int64_t q = 0; q < n; q++) t += vb[i * n + q] * conjl(vb[j * n + q]);
          p[i * vr + j] = t;
        }
      eye(e, vr);
      CHECK(close_enough(p, e, vr * vr, dt, n, 1), "svd %s: V^H V error %Lg", nx_dtype_name(dt), err(p, e, vr * vr));
    }
    free(u), free(sv), free(v), free(us), free(p), free(e);
  }
  free(a), free(ax);
  nx_array_free(A), nx_array_free(U), nx_array_free(S), nx_array_free(V);
}

/* eig (hermitian: eigh) of a batch: A v_j = w_j v_j, |v_j| = 1; the values
   alone (eigvals, eigvalsh) within tolerance of those with vectors. */
static void eigen(nx_dtype dt, bool hermitian) {
  int64_t B = 2, n = 7, shape[3] = {B, n, n};
  cx *a = random_vals(dt, B * n * n);
  if (hermitian) /* the upper triangle is never read: make it garbage */
    for (int64_t b = 0; b < B; b++)
      for (int64_t i = 0; i < n; i++) {
        a[b * n * n + i * n + i] = creall(a[b * n * n + i * n + i]);
        for (int64_t j = i + 1; j < n; j++) a[b * n * n + i * n + j] = 100;
      }
  nx_array *A = make(dt, shape, 3, a), *W = NULL, *V = NULL, *W2 = NULL;
  cx *ax = load(A);
  if (hermitian)
    for (int64_t b = 0; b < B; b++)
      for (int64_t i = 0; i < n; i++)
        for (int64_t j = i + 1; j < n; j++) ax[b * n * n + i * n + j] = conjl(ax[b * n * n + j * n + i]);
  int s = hermitian ? nx_eigh_new(&W, &V, A) : nx_eig_new(&W, &V, A);
  int s2 = hermitian ? nx_eigvalsh_new(&W2, A) : nx_eigvals_new(&W2, A);
  CHECK(s == 0 && s2 == 0, "%s %s: %s", hermitian ? "eigh" : "eig", nx_dtype_name(dt), nx_error_message());
  if (s == 0 && s2 == 0) {
    cx *w = load(W), *v = load(V), *w2 = load(W2), *av = calloc((size_t)n, sizeof *av), *wv = calloc((size_t)n, sizeof *wv);
    for (int64_t b = 0; b < B; b++) {
      cx *Ab = ax + b * n * n, *wb = w + b * n, *vb = v + b * n * n;
      long double scale = maxabs(Ab, n * n) * n;
      bool ascending = true;
      for (int64_t j = 0; j < n; j++) {
        long double norm = 0;
        for (int64_t i = 0; i < n; i++) {
          cx t = 0;
          for (int64_t p = 0; p < n; p++) t += Ab[i * n + p] * vb[p * n + j];
          av[i] = t, wv[i] = wb[j] * vb[i * n + j];
          norm += cabsl(vb[i * n + j]) * cabsl(vb[i * n + j]);
        }
        CHECK(close_enough(av, wv, n, dt, n, scale), "%s %s: A v - w v error %Lg for value %lld",
              hermitian ? "eigh" : "eig", nx_dtype_name(dt), err(av, wv, n), (long long)j);
        CHECK(fabsl(norm - 1) <= TOL * n * eps_of(dt), "%s %s: |v| = %Lg", hermitian ? "eigh" : "eig",
              nx_dtype_name(dt), sqrtl(norm));
        if (hermitian) ascending &= cimagl(wb[j]) == 0 && (j == 0 || creall(wb[j]) >= creall(wb[j - 1]));
      }
      CHECK(ascending, "eigh %s: values not real and ascending", nx_dtype_name(dt));
      CHECK(close_enough(w2 + b * n, wb, n, dt, n, scale), "%s %s: values alone differ by %Lg",
            hermitian ? "eigvalsh" : "eigvals", nx_dtype_name(dt), err(w2 + b * n, wb, n));
    }
    nx_dtype want = hermitian ? (dt == NX_COMPLEX64 ? NX_FLOAT32 : dt == NX_COMPLEX128 ? NX_FLOAT64 : dt)
                              : (dt == NX_FLOAT32 || dt == NX_COMPLEX64 ? NX_COMPLEX64 : NX_COMPLEX128);
    CHECK(nx_array_dtype(W) == want && nx_array_dtype(W2) == want, "eigenvalues' dtype");
    free(w), free(v), free(w2), free(av), free(wv);
  }
  free(a), free(ax);
  nx_array_free(A), nx_array_free(W), nx_array_free(V), nx_array_free(W2);
}

static void trsv(nx_dtype dt, bool upper, bool transpose, bool unit) {
  int64_t B = 2, n = 6, k = 3, as[3] = {B, n, n}, bs[3] = {B, n, k};
  cx *a = random_vals(dt, B * n * n), *b = random_vals(dt, B * n * k);
  for (int64_t t = 0; t < B; t++)
    for (int64_t i = 0; i < n; i++) {
      a[t * n * n + i * n + i] += 4; /* well conditioned */
      if (unit) a[t * n * n + i * n + i] = 1000; /* never read */
    }
  nx_array *A = make(dt, as, 3, a), *Bm = make(dt, bs, 3, b), *X = NULL;
  cx *ax = load(A), *bx = load(Bm);
  int s = nx_triangular_solve_new(&X, A, Bm, upper, transpose, unit);
  CHECK(s == 0, "triangular_solve %s: %s", nx_dtype_name(dt), nx_error_message());
  if (s == 0) {
    cx *x = load(X), *op = calloc((size_t)(n * n), sizeof *op), *r = calloc((size_t)(n * k), sizeof *r);
    for (int64_t t = 0; t < B; t++) {
      /* op(A): the triangle read, the diagonal ones with unit, transposed */
      for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
          int64_t si = transpose ? j : i, sj = transpose ? i : j;
          bool in = upper ? sj >= si : sj <= si;
          op[i * n + j] = !in ? 0 : si == sj && unit ? 1 : ax[t * n * n + si * n + sj];
        }
      mul(r, op, x + t * n * k, n, n, k, false);
      CHECK(close_enough(r, bx + t * n * k, n * k, dt, n, maxabs(bx + t * n * k, n * k) * n),
            "triangular_solve %s upper=%d transpose=%d unit=%d: error %Lg", nx_dtype_name(dt), upper, transpose, unit,
            err(r, bx + t * n * k, n * k));
    }
    free(x), free(op), free(r);
  }
  free(a), free(b), free(ax), free(bx);
  nx_array_free(A), nx_array_free(Bm), nx_array_free(X);
}

static void failures(nx_dtype dt) {
  int64_t B = 3, n = 4, shape[3] = {B, n, n}, bs[3] = {B, n, 2};
  cx *a = calloc((size_t)(B * n * n), sizeof *a);
  for (int64_t t = 0; t < B; t++)
    for (int64_t i = 0; i < n; i++) a[t * n * n + i * n + i] = 2;
  a[1 * n * n + 2 * n + 2] = -1; /* batch 1: not positive definite, order 3 */
  nx_array *A = make(dt, shape, 3, a), *L = NULL;
  int s = nx_cholesky_new(&L, A, false);
  CHECK(s == NX_ENOTPD, "cholesky of a non-definite batch: %d (%s)", s, nx_error_message());
  CHECK(strstr(nx_error_message(), "nx_cholesky_new") && strstr(nx_error_message(), "batch index 1") &&
            strstr(nx_error_message(), "order 3"),
        "message: %s", nx_error_message());
  CHECK(L == NULL, "no result on failure");
  a[1 * n * n + 2 * n + 2] = 2;
  a[2 * n * n + 1 * n + 1] = 0; /* batch 2: singular */
  a[0 * n * n + 3 * n + 3] = 0; /* batch 0 too, but unit: the diagonal is not read */
  nx_array *A2 = make(dt, shape, 3, a), *b = NULL, *X = NULL;
  nx_array_host(dt, bs, 3, &b);
  s = nx_triangular_solve_new(&X, A2, b, false, false, false);
  CHECK(s == NX_ESINGULAR, "triangular_solve of a singular batch: %d (%s)", s, nx_error_message());
  CHECK(strstr(nx_error_message(), "batch index 0") && strstr(nx_error_message(), "diagonal element 4"),
        "message: %s", nx_error_message());
  s = nx_triangular_solve_new(&X, A2, b, false, false, true);
  CHECK(s == 0, "a unit diagonal is not read: %s", nx_error_message());
  nx_array_free(X);
  X = NULL;
  a[0 * n * n + 3 * n + 3] = 2;
  nx_array *A3 = make(dt, shape, 3, a);
  s = nx_triangular_solve_new(&X, A3, b, false, false, false);
  CHECK(s == NX_ESINGULAR && strstr(nx_error_message(), "batch index 2") &&
            strstr(nx_error_message(), "diagonal element 2"),
        "singular at batch 2: %d %s", s, nx_error_message());
  /* no convergence: a NaN (in the lower triangle) at batch 1 */
  cx *g = random_vals(dt, B * n * n);
  g[1 * n * n + 1 * n + 0] = NAN;
  nx_array *G = make(dt, shape, 3, g), *r1 = NULL, *r2 = NULL, *r3 = NULL;
  const char *names[5] = {"nx_svd_new", "nx_eig_new", "nx_eigvals_new", "nx_eigh_new", "nx_eigvalsh_new"};
  for (int op = 0; op < 5; op++) {
    s = op == 0   ? nx_svd_new(&r1, &r2, &r3, G, false)
        : op == 1 ? nx_eig_new(&r1, &r2, G)
        : op == 2 ? nx_eigvals_new(&r1, G)
        : op == 3 ? nx_eigh_new(&r1, &r2, G)
                  : nx_eigvalsh_new(&r1, G);
    CHECK(s == NX_ENOCONV && strstr(nx_error_message(), names[op]) && strstr(nx_error_message(), "batch index 1") &&
              strstr(nx_error_message(), "NaN or infinite"),
          "%s of a NaN: %d %s", names[op], s, nx_error_message());
    CHECK(r1 == NULL && r2 == NULL && r3 == NULL, "no results on failure");
  }
  /* eigh reads the lower triangle only: a NaN above it is no failure */
  g[1 * n * n + 1 * n + 0] = 0.5;
  g[1 * n * n + 0 * n + 1] = NAN;
  for (int64_t t = 0; t < B; t++)
    for (int64_t i = 0; i < n; i++) g[t * n * n + i * n + i] = creall(g[t * n * n + i * n + i]);
  nx_array *G2 = make(dt, shape, 3, g);
  s = nx_eigvalsh_new(&r1, G2);
  CHECK(s == 0, "eigvalsh with a NaN above the diagonal: %s", nx_error_message());
  free(g);
  nx_array_free(G), nx_array_free(G2), nx_array_free(r1);
  CHECK(strcmp(nx_status_name(NX_ENOTPD), "NX_ENOTPD") == 0 && strcmp(nx_status_name(NX_ENOCONV), "NX_ENOCONV") == 0 &&
            NX_ENOTPD != NX_ESINGULAR && NX_ESINGULAR != NX_ENOCONV && NX_ENOCONV != NX_ENOTPD,
        "distinct named statuses");
  free(a);
  nx_array_free(A), nx_array_free(A2), nx_array_free(A3), nx_array_free(b), nx_array_free(X);
}

static void refused(int s, const char *want, const char *what) {
  CHECK(s == NX_EINVAL, "%s: status %d", what, s);
  CHECK(strstr(nx_error_message(), want) != NULL, "%s: message \"%s\" lacks \"%s\"", what, nx_error_message(), want);
}

static void refusals(void) {
  int64_t s2[2] = {3, 4}, s1[1] = {3}, sq[2] = {3, 3}, sq3[3] = {2, 3, 3}, sq3b[3] = {3, 3, 3};
  nx_array *rect = NULL, *vec = NULL, *sqa = NULL, *sqd = NULL, *sqh = NULL, *bat = NULL, *batb = NULL, *out = NULL;
  nx_array_host(NX_FLOAT64, s2, 2, &rect);
  nx_array_host(NX_FLOAT64, s1, 1, &vec);
  nx_array_host(NX_FLOAT64, sq, 2, &sqa);
  nx_array_host(NX_FLOAT32, sq, 2, &sqd);
  nx_array_host(NX_FLOAT16, sq, 2, &sqh);
  nx_array_host(NX_FLOAT64, sq3, 3, &bat);
  nx_array_host(NX_FLOAT64, sq3b, 3, &batb);
  refused(nx_cholesky_new(&out, vec, false), "has rank below 2", "rank 1");
  refused(nx_cholesky_new(&out, rect, false), "nx_cholesky_new", "cholesky of a non-square");
  refused(nx_cholesky(sqd, sqa, false), "float32", "cholesky wrong result dtype");
  refused(nx_cholesky(batb, bat, false), "nx_cholesky", "batch mismatch");
  refused(nx_cholesky_new(&out, sqh, false), "LAPACKE does not compute this case (float16)", "float16 declined");
  refused(nx_eigh(vec, rect, sqa), "nx_eigh", "eigh wrong vector shape");
  refused(nx_eigvals(vec, sqa), "nx_eigvals", "eigvals of a real dtype result");
  refused(nx_svd(sqa, vec, sqa, rect, false), "nx_svd", "svd wrong shapes");
  refused(nx_triangular_solve(rect, sqa, sqa, false, false, false), "nx_triangular_solve", "trsv x of other columns");
  refused(nx_triangular_solve_new(&out, sqa, vec, false, false, false), "has rank below 2", "trsv vector b");
  refused(nx_qr(sqa, sqa, rect, false), "nx_qr", "qr wrong shapes");
  refused(nx_qr_new(&out, NULL, rect, false), "the result pointer 1 is NULL", "qr NULL result");
  /* b is an operand of the solve: NULL is refused, not read */
  refused(nx_triangular_solve_new(&out, sqa, NULL, false, false, false), "nx_triangular_solve_new: operand 1 is NULL",
          "trsv NULL b");
  CHECK(out == NULL, "no result made by a refusal");
  nx_array_free(rect), nx_array_free(vec), nx_array_free(sqa), nx_array_free(sqd), nx_array_free(sqh);
  nx_array_free(bat), nx_array_free(batb);
}

/* In place: l identical to a; qr of an empty matrix; a flipped a. */
static void layouts(void) {
  int64_t n = 5, shape[2] = {n, n};
  cx *a = calloc((size_t)(n * n), sizeof *a);
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) a[i * n + j] = i == j ? 10 : 1.0L / (1 + i + j);
  nx_array *A = make(NX_FLOAT64, shape, 2, a), *L = NULL, *F = NULL;
  int s = nx_cholesky_new(&L, A, false);
  nx_move m;
  int axes[2] = {0, 1};
  nx_move_flip(&m, axes, 2);
  nx_array_move(&m, A, &F); /* the flip of a symmetric matrix is symmetric: rot180 */
  CHECK(s == 0 && nx_cholesky(A, A, false) == 0, "in place: %s", nx_error_message());
  if (s == 0) {
    cx *l1 = load(L), *l2 = load(A);
    CHECK(err(l1, l2, n * n) == 0, "in place equals the fresh result");
    free(l1), free(l2);
  }
  nx_array_free(L);
  L = NULL;
  nx_array *A2 = make(NX_FLOAT64, shape, 2, a), *F2 = NULL;
  nx_array_move(&m, A2, &F2);
  s = nx_cholesky_new(&L, F2, false);
  CHECK(s == 0, "flipped: %s", nx_error_message());
  if (s == 0) {
    cx *l = load(L), *r = calloc((size_t)(n * n), sizeof *r), *f = load(F2);
    gram(r, l, n);
    CHECK(close_enough(r, f, n * n, NX_FLOAT64, n, 10), "flipped: error %Lg", err(r, f, n * n));
    free(l), free(r), free(f);
  }
  /* empty matrices: nothing to compute, the shapes still right */
  int64_t z0[3] = {2, 0, 0};
  nx_array *Z0 = NULL, *r1 = NULL, *r2 = NULL, *r3 = NULL;
  nx_array_host(NX_FLOAT64, z0, 3, &Z0);
  CHECK(nx_cholesky_new(&r1, Z0, false) == 0 && count(r1) == 0, "cholesky of [2, 0, 0]: %s", nx_error_message());
  nx_array_free(r1), r1 = NULL;
  CHECK(nx_eig_new(&r1, &r2, Z0) == 0 && count(r1) == 0, "eig of [2, 0, 0]: %s", nx_error_message());
  nx_array_free(r1), nx_array_free(r2), r1 = r2 = NULL;
  CHECK(nx_eigh_new(&r1, &r2, Z0) == 0 && count(r2) == 0, "eigh of [2, 0, 0]: %s", nx_error_message());
  nx_array_free(r1), nx_array_free(r2), r1 = r2 = NULL;
  CHECK(nx_svd_new(&r1, &r2, &r3, Z0, true) == 0 && count(r2) == 0, "svd of [2, 0, 0]: %s", nx_error_message());
  nx_array_free(r1), nx_array_free(r2), nx_array_free(r3), r1 = r2 = r3 = NULL;
  CHECK(nx_triangular_solve_new(&r1, Z0, Z0, false, false, false) == 0, "solve of [2, 0, 0]: %s", nx_error_message());
  nx_array_free(r1), nx_array_free(Z0);
  int64_t es[3] = {2, 0, 3};
  nx_array *E = NULL, *Q = NULL, *R = NULL;
  nx_array_host(NX_FLOAT32, es, 3, &E);
  s = nx_qr_new(&Q, &R, E, true);
  CHECK(s == 0 && count(Q) == 0 && count(R) == 0, "qr of empty matrices: %s", nx_error_message());
  free(a);
  nx_array_free(A), nx_array_free(L), nx_array_free(F), nx_array_free(A2), nx_array_free(F2);
  nx_array_free(E), nx_array_free(Q), nx_array_free(R);
}

/* A batch large enough for the pool: every matrix right, and of two
   failures the first in batch order named. */
static void many(void) {
  int64_t B = 96, n = 16, shape[3] = {B, n, n};
  cx *a = calloc((size_t)(B * n * n), sizeof *a);
  for (int64_t t = 0; t < B; t++)
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++) a[t * n * n + i * n + j] = i == j ? n + t : 1.0L / (1 + i + j + t);
  nx_array *A = make(NX_FLOAT64, shape, 3, a), *L = NULL;
  cx *ax = load(A);
  int s = nx_cholesky_new(&L, A, false);
  CHECK(s == 0, "cholesky of %lld: %s", (long long)B, nx_error_message());
  if (s == 0) {
    cx *l = load(L), *r = calloc((size_t)(n * n), sizeof *r);
    long bad = 0;
    for (int64_t t = 0; t < B; t++) {
      cx *lb = l + t * n * n;
      gram(r, lb, n);
      bad += !close_enough(r, ax + t * n * n, n * n, NX_FLOAT64, n, maxabs(ax + t * n * n, n * n));
    }
    CHECK(bad == 0, "cholesky of %lld: %ld wrong", (long long)B, bad);
    free(l), free(r);
  }
  a[70 * n * n + 5 * n + 5] = -1, a[41 * n * n + 9 * n + 9] = -1;
  nx_array *A2 = make(NX_FLOAT64, shape, 3, a), *L2 = NULL;
  s = nx_cholesky_new(&L2, A2, false);
  CHECK(s == NX_ENOTPD && strstr(nx_error_message(), "batch index 41 ") && strstr(nx_error_message(), "order 10"),
        "the first failure: %s", nx_error_message());
  free(a), free(ax);
  nx_array_free(A), nx_array_free(L), nx_array_free(A2), nx_array_free(L2);
}

int main(void) {
  if (!nx_have_lapack()) {
    nx_array *a = NULL, *l = NULL;
    int64_t sq[2] = {2, 2};
    nx_array_host(NX_FLOAT64, sq, 2, &a);
    int s = nx_cholesky_new(&l, a, false);
    nx_array_free(a);
    if (s != NX_EINVAL || !strstr(nx_error_message(), "LAPACKE (not built in)")) {
      printf("without LAPACKE, cholesky answered %d (%s)\n", s, nx_error_message());
      return 1;
    }
    return skip("LAPACKE is not built in (the linear algebra is declined, as checked)");
  }
  for (int d = 0; d < 4; d++) {
    nx_dtype dt = dts[d];
    cholesky(dt, false);
    cholesky(dt, true);
    qr(dt, 5, 3, false), qr(dt, 5, 3, true), qr(dt, 3, 5, false), qr(dt, 3, 5, true);
    svd(dt, 5, 3, false), svd(dt, 5, 3, true), svd(dt, 3, 5, false), svd(dt, 4, 4, true);
    eigen(dt, false);
    eigen(dt, true);
    for (int f = 0; f < 8; f++) trsv(dt, f & 1, f & 2, f & 4);
    failures(dt);
  }
  refusals();
  layouts();
  many();
  return check_done();
}
