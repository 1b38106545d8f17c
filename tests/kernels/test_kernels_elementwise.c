/* SPDX-License-Identifier: Apache-2.0 */
/* Elementwise operations against a scalar reference: every binary and unary
   operation over every dtype it computes, on contiguous, transposed,
   stepped, flipped and broadcast operands; the reference reads elements
   through nx_array_get and computes with the C operators (floats: the double
   result stored once by nx_dtype_store_bits, integers wrapped here). */
#include "kernels_common.h"
#include "fast.h"

typedef int (*bin_fn)(nx_array *, nx_array *, nx_array *);

static const struct {
  const char *name;
  bin_fn fn;
} bins[] = {{"add", nx_add}, {"sub", nx_sub}, {"mul", nx_mul}, {"fdiv", nx_fdiv}, {"idiv", nx_idiv},
            {"mod", nx_mod}, {"min", nx_min}, {"max", nx_max}, {"and", nx_and}, {"or", nx_or}, {"xor", nx_xor}};

/* The reference: whether the op computes dt, and its result's bits. */
static int ref_bin(int op, nx_dtype dt, nx_value x, nx_value y, uint64_t *out) {
  int k = nx_dtype_kind(dt), bits = nx_dtype_bits(dt);
  uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  if (k == NX_KIND_FLOAT) {
    double a = x.f, b = y.f, r;
    switch (op) {
    case 0: r = a + b; break;
    case 1: r = a - b; break;
    case 2: r = a * b; break;
    case 3: r = a / b; break;
    case 5: r = fmod(a, b); break;
    case 6: r = isnan(a) ? a : isnan(b) ? b : a < b ? a : b > a ? a : a == b ? (signbit(a) ? a : b) : b; break;
    case 7: r = isnan(a) ? a : isnan(b) ? b : a > b ? a : a == b ? (signbit(a) ? b : a) : b; break;
    default: return 0;
    }
    *out = nx_dtype_store_bits(dt, r);
    return 1;
  }
  if (k == NX_KIND_SIGNED || k == NX_KIND_UNSIGNED) {
    bool s = k == NX_KIND_SIGNED;
    uint64_t a = s ? (uint64_t)x.i : x.u, b = s ? (uint64_t)y.i : y.u, r;
    switch (op) {
    case 0: r = a + b; break;
    case 1: r = a - b; break;
    case 2: r = a * b; break;
    case 4:
      if (b == 0) r = 0;
      else if (s && y.i == -1) r = 0 - a;
      else r = s ? (uint64_t)(x.i / y.i) : a / b;
      break;
    case 5:
      if (b == 0) r = a;
      else if (s && y.i == -1) r = 0;
      else r = s ? (uint64_t)(x.i % y.i) : a % b;
      break;
    case 6: r = s ? (uint64_t)(x.i < y.i ? x.i : y.i) : (a < b ? a : b); break;
    case 7: r = s ? (uint64_t)(x.i > y.i ? x.i : y.i) : (a > b ? a : b); break;
    case 8: r = a & b; break;
    case 9: r = a | b; break;
    case 10: r = a ^ b; break;
    default: return 0;
    }
    *out = r & mask;
    return 1;
  }
  if (k == NX_KIND_BOOLEAN) {
    bool a = x.b, b = y.b;
    switch (op) {
    case 0: if (dt == NX_BIT) return 0; *out = a | b; return 1;
    case 2: if (dt == NX_BIT) return 0; *out = a & b; return 1;
    case 6: case 8: *out = a & b; return 1;
    case 7: case 9: *out = a | b; return 1;
    case 10: *out = a ^ b; return 1;
    default: return 0;
    }
  }
  return -1; /* complex: checked by its own path */
}

static int is_nan_of(nx_dtype dt, uint64_t b) {
  return nx_dtype_kind(dt) == NX_KIND_FLOAT && isnan(nx_dtype_load_bits(dt, b));
}

static void check_binary(uint64_t *seed) {
  int64_t shape[2] = {5, 37};
  long cases = 0;
  for (int d = 0; d < NX_DTYPE_COUNT; d++) {
    nx_dtype dt = (nx_dtype)d;
    if (nx_dtype_kind(dt) == NX_KIND_COMPLEX) continue;
    for (size_t op = 0; op < sizeof bins / sizeof *bins; op++)
      for (int lz = 0; lz < 4; lz++) {
        int lx = (lz + 1 + (int)op) % 4, ly = (lz + 2) % 5;
        nx_array *z = random_view(dt, shape, lz, seed), *x = random_view(dt, shape, lx, seed), *y;
        if (ly == 4) { /* broadcast: a row of stride 0 */
          int64_t row[2] = {1, shape[1]};
          nx_array *r = random_array(dt, row, 2, seed);
          nx_move m;
          nx_move_expand(&m, shape, 2);
          nx_array_move(&m, r, &y);
          nx_array_free(r);
        } else y = random_view(dt, shape, ly, seed);
        nx_value xv, yv;
        int64_t i0[2] = {0, 0};
        nx_array_get(x, i0, &xv);
        uint64_t dummy;
        int computes = ref_bin((int)op, dt, xv, xv, &dummy);
        int s = bins[op].fn(z, x, y);
        if (!computes) {
          /* nx_add keeps the seed's sentence without the dtype */
          CHECK(s == NX_EINVAL && strstr(nx_error_message(), "does not compute this case") &&
                    (op == 0 ? !strcmp(nx_error_message(), "nx_add: nx_cpu_add does not compute this case")
                             : strstr(nx_error_message(), nx_dtype_name(dt)) != NULL),
                "%s of %s declines: %d %s", bins[op].name, nx_dtype_name(dt), s, nx_error_message());
        } else {
          CHECK(s == 0, "%s of %s: %s", bins[op].name, nx_dtype_name(dt), nx_error_message());
          long bad = 0;
          for (int64_t i = 0; i < shape[0]; i++)
            for (int64_t j = 0; j < shape[1]; j++) {
              int64_t ix[2] = {i, j};
              uint64_t want, got = elem_bits(z, ix);
              nx_array_get(x, ix, &xv);
              nx_array_get(y, ix, &yv);
              ref_bin((int)op, dt, xv, yv, &want);
              bool ok = got == want || (is_nan_of(dt, want) && is_nan_of(dt, got));
              if (!ok && bad++ < 3)
                CHECK(0, "%s of %s layouts %d %d %d at [%lld, %lld]: %llx, want %llx", bins[op].name,
                      nx_dtype_name(dt), lz, lx, ly, (long long)i, (long long)j, (unsigned long long)got,
                      (unsigned long long)want);
            }
          CHECK(bad == 0, "%s of %s: %ld wrong", bins[op].name, nx_dtype_name(dt), bad);
          cases++;
        }
        nx_array_free(z);
        nx_array_free(x);
        nx_array_free(y);
      }
  }
  printf("binary: %ld cases\n", cases);
}

/* Integer edge cases: INT_MIN / -1, division and modulo by zero, wrapping. */
static void check_int_edges(void) {
  int64_t shape[1] = {4};
  nx_value xs[4] = {{.i = INT64_MIN}, {.i = 7}, {.i = -7}, {.i = INT64_MAX}};
  nx_value ys[4] = {{.i = -1}, {.i = 0}, {.i = 2}, {.i = 1}};
  nx_array *x, *y, *z;
  nx_array_of_array(NX_INT64, shape, 1, xs, 4, &x);
  nx_array_of_array(NX_INT64, shape, 1, ys, 4, &y);
  CHECK(nx_idiv_new(&z, x, y) == 0, "idiv: %s", nx_error_message());
  nx_value out[4];
  nx_array_to_array(z, out, 4);
  CHECK(out[0].i == INT64_MIN && out[1].i == 0 && out[2].i == -3 && out[3].i == INT64_MAX, "idiv edges %lld %lld %lld",
        (long long)out[0].i, (long long)out[1].i, (long long)out[2].i);
  nx_array_free(z);
  CHECK(nx_mod_new(&z, x, y) == 0, "mod: %s", nx_error_message());
  nx_array_to_array(z, out, 4);
  CHECK(out[0].i == 0 && out[1].i == 7 && out[2].i == -1 && out[3].i == 0, "mod edges %lld %lld %lld",
        (long long)out[0].i, (long long)out[1].i, (long long)out[2].i);
  nx_array_free(z);
  CHECK(nx_add_new(&z, x, x) == 0, "add: %s", nx_error_message());
  nx_array_to_array(z, out, 4);
  CHECK(out[0].i == 0 && out[3].i == -2, "add wraps: %lld %lld", (long long)out[0].i, (long long)out[3].i);
  nx_array_free(z);
  CHECK(nx_abs_new(&z, x) == 0, "abs: %s", nx_error_message());
  nx_array_to_array(z, out, 4);
  CHECK(out[0].i == INT64_MIN && out[2].i == 7, "abs INT_MIN %lld", (long long)out[0].i);
  nx_array_free(z);
  nx_array_free(x);
  nx_array_free(y);
}

/* Sign-bit operations keep a NaN's bits; sign of zeros and NaN. */
static void check_sign_bits(void) {
  int64_t shape[1] = {3};
  nx_array *x, *z;
  nx_array_host(NX_FLOAT32, shape, 1, &x);
  uint32_t in[3] = {0x7FA00001u, 0xFFC12345u, 0x80000000u}; /* a signalling NaN, a quiet one, -0 */
  memcpy(nx_buffer_host_address(nx_array_buffer(x)), in, sizeof in);
  CHECK(nx_neg_new(&z, x) == 0, "neg: %s", nx_error_message());
  uint32_t out[3];
  memcpy(out, nx_buffer_host_address(nx_array_buffer(z)), sizeof out);
  CHECK(out[0] == 0xFFA00001u && out[1] == 0x7FC12345u && out[2] == 0, "neg bits %08x %08x %08x", out[0], out[1], out[2]);
  nx_array_free(z);
  CHECK(nx_abs_new(&z, x) == 0, "abs: %s", nx_error_message());
  memcpy(out, nx_buffer_host_address(nx_array_buffer(z)), sizeof out);
  CHECK(out[0] == 0x7FA00001u && out[1] == 0x7FC12345u && out[2] == 0, "abs bits %08x %08x %08x", out[0], out[1], out[2]);
  nx_array_free(z);
  nx_array_free(x);
}

/* Comparisons and where over every real dtype, with NaN. */
static void check_compare_where(uint64_t *seed) {
  int64_t shape[2] = {3, 19};
  typedef int (*cmp_fn)(nx_array *, nx_array *, nx_array *);
  cmp_fn fns[4] = {nx_eq, nx_ne, nx_lt, nx_le};
  for (int d = 0; d < NX_DTYPE_COUNT; d++) {
    nx_dtype dt = (nx_dtype)d;
    if (nx_dtype_kind(dt) == NX_KIND_COMPLEX) continue;
    for (int op = 0; op < 4; op++) {
      nx_array *x = random_view(dt, shape, op % 4, seed), *y = random_view(dt, shape, (op + 1) % 4, seed), *z;
      nx_array *zb = random_view(op % 2 ? NX_BIT : NX_BOOL, shape, (op + 2) % 4, seed);
      /* make some equal elements */
      CHECK(nx_copy(y, x) == 0 || op != 0, "copy: %s", nx_error_message());
      if (op == 0) {
        nx_array_free(y);
        y = random_view(dt, shape, 2, seed);
        int64_t ix[2] = {1, 4};
        nx_value v;
        nx_array_get(x, ix, &v);
        nx_array_set(y, ix, v);
      }
      CHECK(fns[op](zb, x, y) == 0, "cmp %d of %s: %s", op, nx_dtype_name(dt), nx_error_message());
      nx_array *w;
      CHECK(nx_where_new(&w, zb, x, y) == 0, "where of %s: %s", nx_dtype_name(dt), nx_error_message());
      long bad = 0;
      for (int64_t i = 0; i < shape[0]; i++)
        for (int64_t j = 0; j < shape[1]; j++) {
          int64_t ix[2] = {i, j};
          nx_value a, b, c;
          nx_array_get(x, ix, &a);
          nx_array_get(y, ix, &b);
          nx_array_get(zb, ix, &c);
          bool want;
          int k = nx_dtype_kind(dt);
          if (k == NX_KIND_FLOAT) want = op == 0 ? a.f == b.f : op == 1 ? a.f != b.f : op == 2 ? a.f < b.f : a.f <= b.f;
          else if (k == NX_KIND_SIGNED) want = op == 0 ? a.i == b.i : op == 1 ? a.i != b.i : op == 2 ? a.i < b.i : a.i <= b.i;
          else if (k == NX_KIND_UNSIGNED) want = op == 0 ? a.u == b.u : op == 1 ? a.u != b.u : op == 2 ? a.u < b.u : a.u <= b.u;
          else want = op == 0 ? a.b == b.b : op == 1 ? a.b != b.b : op == 2 ? a.b < b.b : a.b <= b.b;
          bad += c.b != want;
          bad += elem_bits(w, ix) != elem_bits(want ? x : y, ix);
        }
      CHECK(bad == 0, "compare %d / where of %s: %ld wrong", op, nx_dtype_name(dt), bad);
      nx_array_free(w);
      nx_array_free(x);
      nx_array_free(y);
      nx_array_free(zb);
      (void)z;
    }
  }
}

/* Refusals: NULL, wrong dtype, shape mismatch before any write, bit add. */
static void check_refusals(uint64_t *seed) {
  int64_t s3[1] = {3}, s4[1] = {4};
  nx_array *a = random_array(NX_FLOAT32, s3, 1, seed), *b = random_array(NX_FLOAT64, s3, 1, seed),
           *c = random_array(NX_FLOAT32, s4, 1, seed), *bit = random_array(NX_BIT, s3, 1, seed);
  CHECK(nx_add(NULL, a, a) == NX_EINVAL && strncmp(nx_error_message(), "nx_add: ", 8) == 0, "NULL: %s",
        nx_error_message());
  CHECK(nx_sub(a, a, b) == NX_EINVAL && strstr(nx_error_message(), "nx_sub: an operand's dtype") &&
            strstr(nx_error_message(), "float64 [3]"),
        "wrong dtype: %s", nx_error_message());
  uint32_t before[3];
  memcpy(before, nx_buffer_host_address(nx_array_buffer(a)), 12);
  CHECK(nx_mul(a, a, c) == NX_EINVAL && strstr(nx_error_message(), "do not fit"), "shape: %s", nx_error_message());
  CHECK(memcmp(before, nx_buffer_host_address(nx_array_buffer(a)), 12) == 0, "no write before a refusal");
  CHECK(nx_add(bit, bit, bit) == NX_EINVAL &&
            strcmp(nx_error_message(), "nx_add: nx_cpu_add does not compute this case") == 0,
        "bit: %s", nx_error_message());
  CHECK(nx_cpu_add(bit, bit, bit) == NX_DECLINED, "nx_cpu_add of bit declines");
  /* a written operand that repeats an element: a broadcast z */
  nx_array *row;
  int64_t s33[2] = {3, 3};
  nx_move m;
  nx_move_expand(&m, s33, 2);
  nx_array_move(&m, a, &row);
  nx_array *full = random_array(NX_FLOAT32, s33, 2, seed);
  CHECK(nx_add(row, full, full) == NX_EINVAL && strstr(nx_error_message(), "reaches an element twice"), "repeated: %s",
        nx_error_message());
  CHECK(nx_add(full, row, full) == 0, "broadcast read: %s", nx_error_message());
  nx_array *n = NULL;
  CHECK(nx_exp_new(&n, bit) == NX_EINVAL && n == NULL && strstr(nx_error_message(), "nx_exp_new"), "exp of bit: %s",
        nx_error_message());
  nx_array_free(row);
  nx_array_free(full);
  nx_array_free(a);
  nx_array_free(b);
  nx_array_free(c);
  nx_array_free(bit);
}

/* float16 and bfloat16 + - x / over contiguous operands (the vector paths)
   on every input bit pattern, each against a scrambled partner, against the
   double result stored once; a NaN result is the first operand's NaN,
   quieted, where that is a NaN, else the second's where that is one. On
   2^20 + 77 elements on one thread, a run past 2 MiB, which stores
   non-temporally; the result a view starting `shift` elements into its
   buffer, so that its head is not on a line. */
static void check_half_contiguous(int64_t n, int64_t shift) {
  nx_dtype dts[2] = {NX_FLOAT16, NX_BFLOAT16};
  bin_fn fns[4] = {nx_add, nx_sub, nx_mul, nx_fdiv};
  for (int d = 0; d < 2; d++) {
    nx_array *x, *y, *zbuf, *z;
    int64_t nz = n + shift, start = shift, stop = n + shift;
    nx_array_host(dts[d], &n, 1, &x);
    nx_array_host(dts[d], &n, 1, &y);
    nx_array_host(dts[d], &nz, 1, &zbuf);
    nx_move m;
    nx_move_shrink(&m, &start, &stop, 1);
    CHECK(nx_array_move(&m, zbuf, &z) == 0, "shrink: %s", nx_error_message());
    uint16_t *px = nx_buffer_host_address(nx_array_buffer(x)), *py = nx_buffer_host_address(nx_array_buffer(y)),
             *pz = (uint16_t *)nx_buffer_host_address(nx_array_buffer(zbuf)) + shift;
    for (int64_t i = 0; i < n; i++) {
      px[i] = (uint16_t)i;
      py[i] = (uint16_t)(i * 40503 + 12345);
    }
    uint16_t quiet = dts[d] == NX_FLOAT16 ? 0x0200 : 0x0040;
    for (int op = 0; op < 4; op++) {
      CHECK(fns[op](z, x, y) == 0, "%s op %d: %s", nx_dtype_name(dts[d]), op, nx_error_message());
      long bad = 0;
      for (int64_t i = 0; i < n; i++) {
        double a = nx_dtype_load_bits(dts[d], px[i]), b = nx_dtype_load_bits(dts[d], py[i]);
        double r = op == 0 ? a + b : op == 1 ? a - b : op == 2 ? a * b : a / b;
        /* Where only y is a NaN, that NaN quieted; a NaN the operation makes
           (inf - inf, 0 * inf, 0 / 0) is the machine's default, any NaN. */
        uint64_t want = isnan(a)   ? (uint64_t)(px[i] | quiet)
                        : isnan(b) ? (uint64_t)(py[i] | quiet)
                                   : nx_dtype_store_bits(dts[d], r);
        bool ok = pz[i] == want || (!isnan(a) && !isnan(b) && isnan(r) && isnan(nx_dtype_load_bits(dts[d], pz[i])));
        if (!ok && bad++ < 3)
          CHECK(0, "%s op %d of %04x, %04x at %lld: %04x, want %04llx", nx_dtype_name(dts[d]), op, px[i], py[i],
                (long long)i, pz[i], (unsigned long long)want);
      }
      CHECK(bad == 0, "%s op %d, %lld elements: %ld wrong", nx_dtype_name(dts[d]), op, (long long)n, bad);
    }
    nx_array_free(x);
    nx_array_free(y);
    nx_array_free(z);
    nx_array_free(zbuf);
  }
}

int main(void) {
  uint64_t seed = 42;
  check_binary(&seed);
  check_int_edges();
  check_sign_bits();
  check_compare_where(&seed);
  check_refusals(&seed);
  /* At each vector level this CPU runs (and the scalar loops) */
  for (int level = NX__FAST_SCALAR; level < NX__FAST_BEST; level++) {
    if (nx__fast_set_isa(level) != level) continue;
    check_half_contiguous(65536, 0);
    int threads = nx_num_threads(); /* one thread: one run of the whole array */
    nx_set_num_threads(1);
    check_half_contiguous(((int64_t)1 << 20) + 77, 0);
    check_half_contiguous(((int64_t)1 << 20) + 77, 5);
    nx_set_num_threads(threads);
    printf("float16 and bfloat16 arithmetic: level %d checked\n", level);
  }
  nx__fast_set_isa(NX__FAST_BEST);
  return check_done();
}
