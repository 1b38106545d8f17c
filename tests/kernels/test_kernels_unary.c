/* SPDX-License-Identifier: Apache-2.0 */
/* Unary operations recip, sign, trunc, ceil, floor, round over every real
   dtype, on contiguous, transposed, stepped and flipped operands, against a
   reference that reads elements through nx_array_get and computes with C's
   functions (floats: the double result stored once by nx_dtype_store_bits);
   the complex operations against MPFR's exact components. */
#include <mpfr.h>

#include "kernels_common.h"

typedef int (*un_fn)(nx_array *, nx_array *);

static const struct {
  const char *name;
  un_fn fn;
} uns[] = {{"recip", nx_recip}, {"sign", nx_sign},   {"trunc", nx_trunc},
           {"ceil", nx_ceil},   {"floor", nx_floor}, {"round", nx_round}};

/* Whether op computes dt (docs/kernels.md's table), and its result's bits. */
static int ref_un(int op, nx_dtype dt, nx_value x, uint64_t xbits, uint64_t *out) {
  int k = nx_dtype_kind(dt), bits = nx_dtype_bits(dt);
  uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  if (k == NX_KIND_FLOAT) {
    double a = x.f, r;
    switch (op) {
    case 0: r = 1.0 / a; break;
    case 1:
      if (isnan(a) || a == 0) { /* kept bit for bit */
        *out = xbits;
        return 1;
      }
      r = a > 0 ? 1 : -1;
      break;
    case 2: r = trunc(a); break;
    case 3: r = ceil(a); break;
    case 4: r = floor(a); break;
    default: r = round(a); break;
    }
    *out = nx_dtype_store_bits(dt, r);
    return 1;
  }
  if (k == NX_KIND_SIGNED) {
    if (op == 0) return 0;
    *out = op == 1 ? (uint64_t)(int64_t)((x.i > 0) - (x.i < 0)) & mask : (uint64_t)x.i & mask;
    return 1;
  }
  if (k == NX_KIND_UNSIGNED) {
    if (op == 0) return 0;
    *out = op == 1 ? x.u != 0 : x.u;
    return 1;
  }
  return 0; /* booleans, and complex but for recip: declined */
}

static void check_unary(uint64_t *seed) {
  int64_t shape[2] = {7, 29};
  long cases = 0;
  for (int d = 0; d < NX_DTYPE_COUNT; d++) {
    nx_dtype dt = (nx_dtype)d;
    for (size_t op = 0; op < sizeof uns / sizeof *uns; op++)
      for (int lz = 0; lz < 4; lz++) {
        if (op == 0 && nx_dtype_kind(dt) == NX_KIND_COMPLEX) continue; /* check_complex's */
        nx_array *z = random_view(dt, shape, lz, seed), *x = random_view(dt, shape, (lz + 1 + (int)op) % 4, seed);
        int s = uns[op].fn(z, x);
        nx_value xv;
        uint64_t dummy;
        if (!ref_un((int)op, dt, xv = (nx_value){.u = 0}, 0, &dummy)) {
          CHECK(s == NX_EINVAL && strstr(nx_error_message(), "does not compute this case") &&
                    strstr(nx_error_message(), nx_dtype_name(dt)),
                "%s of %s declines: %d %s", uns[op].name, nx_dtype_name(dt), s, nx_error_message());
        } else {
          CHECK(s == 0, "%s of %s: %s", uns[op].name, nx_dtype_name(dt), nx_error_message());
          long bad = 0;
          for (int64_t i = 0; i < shape[0]; i++)
            for (int64_t j = 0; j < shape[1]; j++) {
              int64_t ix[2] = {i, j};
              uint64_t want = 0, got = elem_bits(z, ix), xb = elem_bits(x, ix);
              nx_array_get(x, ix, &xv);
              ref_un((int)op, dt, xv, xb, &want);
              bool nan = nx_dtype_kind(dt) == NX_KIND_FLOAT && isnan(nx_dtype_load_bits(dt, want)) &&
                         isnan(nx_dtype_load_bits(dt, got));
              if (got != want && !(nan && op != 1) && bad++ < 3)
                CHECK(0, "%s of %s at [%lld, %lld] (%llx): %llx, want %llx", uns[op].name, nx_dtype_name(dt),
                      (long long)i, (long long)j, (unsigned long long)xb, (unsigned long long)got,
                      (unsigned long long)want);
            }
          CHECK(bad == 0, "%s of %s: %ld wrong", uns[op].name, nx_dtype_name(dt), bad);
          cases++;
        }
        nx_array_free(z);
        nx_array_free(x);
      }
  }
  printf("unary: %ld cases\n", cases);
}

/* sign keeps a NaN's bits and a zero's sign (float32, raw bits). */
static void check_sign_nan(void) {
  int64_t n = 4;
  nx_array *x, *z;
  nx_array_host(NX_FLOAT32, &n, 1, &x);
  uint32_t in[4] = {0x7FA00001u, 0xFFC12345u, 0x80000000u, 0xC0490FDBu}, out[4];
  memcpy(nx_buffer_host_address(nx_array_buffer(x)), in, sizeof in);
  CHECK(nx_sign_new(&z, x) == 0, "sign: %s", nx_error_message());
  memcpy(out, nx_buffer_host_address(nx_array_buffer(z)), sizeof out);
  CHECK(out[0] == in[0] && out[1] == in[1] && out[2] == in[2] && out[3] == 0xBF800000u, "sign bits %08x %08x %08x %08x",
        out[0], out[1], out[2], out[3]);
  nx_array_free(z);
  nx_array_free(x);
}

/* ---- Complex --------------------------------------------------------------- */

typedef struct {
  double re, im;
} cpx;

static cpx cget(const nx_array *a, const int64_t *ix) {
  nx_value v;
  nx_array_get(a, ix, &v);
  return (cpx){v.c.re, v.c.im};
}

/* The exact product (op 2), quotient (3, 4: recip) of x and y, at 300 bits,
   as doubles rounded to nearest. */
static cpx exact(int op, cpx x, cpx y) {
  mpfr_t a, b, c, d, t, u, n, re, im;
  mpfr_inits2(300, a, b, c, d, t, u, n, re, im, (mpfr_ptr)0);
  if (op == 4) {
    y = x;
    x = (cpx){1, 0};
  }
  mpfr_set_d(a, x.re, MPFR_RNDN);
  mpfr_set_d(b, x.im, MPFR_RNDN);
  mpfr_set_d(c, y.re, MPFR_RNDN);
  mpfr_set_d(d, y.im, MPFR_RNDN);
  /* (a + bi)(c + di) = (ac - bd) + (ad + bc)i; over c^2 + d^2 with (c - di) */
  if (op != 2) {
    mpfr_sqr(t, c, MPFR_RNDN);
    mpfr_sqr(u, d, MPFR_RNDN);
    mpfr_add(n, t, u, MPFR_RNDN);
    mpfr_neg(d, d, MPFR_RNDN);
  }
  mpfr_mul(t, a, c, MPFR_RNDN);
  mpfr_mul(u, b, d, MPFR_RNDN);
  mpfr_sub(re, t, u, MPFR_RNDN);
  mpfr_mul(t, a, d, MPFR_RNDN);
  mpfr_mul(u, b, c, MPFR_RNDN);
  mpfr_add(im, t, u, MPFR_RNDN);
  if (op != 2) {
    mpfr_div(re, re, n, MPFR_RNDN);
    mpfr_div(im, im, n, MPFR_RNDN);
  }
  cpx r = {mpfr_get_d(re, MPFR_RNDN), mpfr_get_d(im, MPFR_RNDN)};
  mpfr_clears(a, b, c, d, t, u, n, re, im, (mpfr_ptr)0);
  return r;
}

/* Random finite components of moderate size (exponents within +-20). */
static void fill_complex(nx_array *a, uint64_t *seed) {
  const nx_layout *l = nx_array_layout(a);
  for (int64_t i = 0; i < l->extent[0]; i++)
    for (int64_t j = 0; j < l->extent[1]; j++) {
      int64_t ix[2] = {i, j};
      uint64_t r = splitmix64_next(seed), q = splitmix64_next(seed);
      nx_value v = {.c = {ldexp((double)(int64_t)r / 0x1p63, (int)(q % 41) - 20),
                          ldexp((double)(int64_t)q / 0x1p63, (int)(r % 41) - 20)}};
      if (nx_array_dtype(a) == NX_COMPLEX64) v.c.re = (float)v.c.re, v.c.im = (float)v.c.im;
      nx_array_set(a, ix, v);
    }
}

static void check_complex(uint64_t *seed) {
  int64_t shape[2] = {6, 23};
  typedef int (*bin_fn)(nx_array *, nx_array *, nx_array *);
  bin_fn bins[4] = {nx_add, nx_sub, nx_mul, nx_fdiv};
  const char *names[7] = {"add", "sub", "mul", "fdiv", "recip", "neg", "eq/ne/where"};
  for (int c = 0; c < 2; c++) {
    nx_dtype dt = c ? NX_COMPLEX128 : NX_COMPLEX64;
    double eps = c ? 0x1p-53 : 0x1p-24;
    for (int op = 0; op < 7; op++) {
      nx_array *z = random_view(dt, shape, op % 4, seed), *x = random_view(dt, shape, (op + 1) % 4, seed),
               *y = random_view(dt, shape, (op + 2) % 4, seed);
      fill_complex(x, seed);
      fill_complex(y, seed);
      nx_array *eq = NULL, *ne = NULL, *w = NULL;
      int s;
      if (op < 4) s = bins[op](z, x, y);
      else if (op == 4) s = nx_recip(z, x);
      else if (op == 5) s = nx_neg(z, x);
      else {
        int64_t ix[2] = {2, 5};
        nx_array_set(y, ix, (nx_value){.c = {cget(x, ix).re, cget(x, ix).im}});
        s = nx_eq_new(&eq, x, y);
        if (s == 0) s = nx_ne_new(&ne, x, y);
        if (s == 0) s = nx_where_new(&w, eq, x, y);
      }
      CHECK(s == 0, "%s of %s: %s", names[op], nx_dtype_name(dt), nx_error_message());
      long bad = 0, equal = 0;
      for (int64_t i = 0; i < shape[0]; i++)
        for (int64_t j = 0; j < shape[1]; j++) {
          int64_t ix[2] = {i, j};
          cpx a = cget(x, ix), b = cget(y, ix), g = cget(z, ix), want;
          bool ok;
          if (op == 6) {
            nx_value e, n;
            nx_array_get(eq, ix, &e);
            nx_array_get(ne, ix, &n);
            bool same = a.re == b.re && a.im == b.im;
            equal += same;
            cpx wv = cget(w, ix), pick = same ? a : b;
            ok = e.b == same && n.b == !same && wv.re == pick.re && wv.im == pick.im;
          } else if (op == 5) {
            ok = bits_of(g.re) == (bits_of(a.re) ^ SIGN64) && bits_of(g.im) == (bits_of(a.im) ^ SIGN64);
          } else if (op < 2) { /* one rounding per component */
            want = op == 0 ? (cpx){a.re + b.re, a.im + b.im} : (cpx){a.re - b.re, a.im - b.im};
            if (!c) want = (cpx){(float)want.re, (float)want.im};
            ok = g.re == want.re && g.im == want.im;
          } else { /* within a few units of the exact result's magnitude */
            want = exact(op, a, b);
            double mag = hypot(want.re, want.im);
            ok = fabs(g.re - want.re) <= 4 * eps * mag && fabs(g.im - want.im) <= 4 * eps * mag;
          }
          if (!ok && bad++ < 3)
            CHECK(0, "%s of %s at [%lld, %lld]: (%a, %a)", names[op], nx_dtype_name(dt), (long long)i, (long long)j,
                  g.re, g.im);
        }
      CHECK(bad == 0, "%s of %s: %ld wrong", names[op], nx_dtype_name(dt), bad);
      CHECK(op != 6 || equal >= 1, "eq of %s saw an equal pair", nx_dtype_name(dt));
      nx_array_free(eq);
      nx_array_free(ne);
      nx_array_free(w);
      nx_array_free(z);
      nx_array_free(x);
      nx_array_free(y);
    }
  }
}

int main(void) {
  uint64_t seed = 5;
  check_unary(&seed);
  check_sign_nan();
  check_complex(&seed);
  return check_done();
}
