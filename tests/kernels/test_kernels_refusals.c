/* SPDX-License-Identifier: Apache-2.0 */
/* Every operation's refusals in the door's precedence, then the kernels':
   dead buffer, memory held exclusive, a written operand's memory read-only,
   memory the host does not address (a test device's), a written operand
   reaching an element twice, a written operand overlapping another, the
   wrong dtype, a shape mismatch. Each pair of faults (the higher one on one
   operand, the lower on another, or both on the written one) must answer
   the higher one's message, naming the operation, and leave the written
   operand's bytes as they were. */
#include "kernels_common.h"
#include "rig_test.h" /* test devices: the test variant of the library */

enum { DEAD, HELD, RO, OFF, REP, OVL, WDT, SHP, NF };
static const char *const fault_name[NF] = {"dead", "held", "read-only", "off-host",
                                           "repeated", "overlapping", "wrong dtype", "shape"};
static const char *const fault_msg[NF] = {"was freed",
                                          "memory is held exclusive",
                                          "memory is read-only",
                                          "the host does not address",
                                          "reaches an element twice",
                                          "shares a byte with another operand",
                                          "dtype is not the one the kernel loads",
                                          "do not fit the operation"};

static nx_device *testdev;

enum kind { BIN, CMP, WHERE, UN, SCAN, RED, ARG, CAST, FILL };

typedef struct op {
  const char *name;
  enum kind kind;
  void *fn;
} op;

#define B(n) {"nx_" #n, BIN, (void *)nx_##n}
#define C(n) {"nx_" #n, CMP, (void *)nx_##n}
#define U(n) {"nx_" #n, UN, (void *)nx_##n}
#define S(n) {"nx_" #n, SCAN, (void *)nx_##n}
#define R(n) {"nx_" #n, RED, (void *)nx_##n}
static const op ops[] = {
    B(add),   B(sub),       B(mul),       B(fdiv),        B(idiv),    B(mod),     B(pow),     B(atan2),
    B(min),   B(max),       B(and),       B(or),          B(xor),     C(eq),      C(ne),      C(lt),
    C(le),    {"nx_where", WHERE, (void *)nx_where},      U(neg),     U(recip),   U(abs),     U(sqrt),
    U(sign),  U(exp),       U(log),       U(sin),         U(cos),     U(tan),     U(asin),    U(acos),
    U(atan),  U(sinh),      U(cosh),      U(tanh),        U(trunc),   U(ceil),    U(floor),   U(round),
    U(erf),   U(copy),      U(assign),    S(cumsum),      S(cumprod), S(cummax),  S(cummin),  R(sum),
    R(prod),  R(reduce_min), R(reduce_max), R(any),       R(all),     {"nx_argmax", ARG, (void *)nx_argmax},
    {"nx_argmin", ARG, (void *)nx_argmin}, {"nx_cast", CAST, (void *)nx_cast}, {"nx_fill", FILL, (void *)nx_fill},
};

/* The dtype of each role that fits the operation: z, and the read ones. */
static nx_dtype z_dtype(const op *o) {
  switch (o->kind) {
  case CMP: return NX_BOOL;
  case ARG: return NX_INT32;
  case CAST: return NX_FLOAT64;
  default: return (o->kind == RED && (strcmp(o->name, "nx_any") == 0 || strcmp(o->name, "nx_all") == 0)) ? NX_BOOL
                                                                                                         : NX_FLOAT32;
  }
}
/* idiv, and, or, xor compute integers only: int32 operands for them. */
static nx_dtype read_dtype(const op *o) {
  const char *n = o->name;
  return strcmp(n, "nx_idiv") == 0 || strcmp(n, "nx_and") == 0 || strcmp(n, "nx_or") == 0 || strcmp(n, "nx_xor") == 0
             ? NX_INT32
             : NX_FLOAT32;
}

/* a as [k, 4], k its extent over 4: a reduction's x. */
static nx_array *rows_of_4(nx_array *a) {
  nx_move m;
  nx_array *r = NULL;
  int64_t shape[2] = {nx_array_layout(a)->extent[0] / 4, 4};
  nx_move_reshape(&m, shape, 2);
  CHECK(nx_array_move(&m, a, &r) == 0, "reshape: %s", nx_error_message());
  nx_array_free(a);
  return r;
}

/* A rank-1 array of n elements (as rows of 4 where rows) with faults among
   DEAD, RO, OFF, REP (HELD is applied around the call). */
static nx_array *make(nx_dtype dt, int64_t n, unsigned faults, bool rows) {
  int64_t len = faults & (1u << REP) ? 1 : n, shape[1] = {len};
  nx_buffer *b = NULL;
  nx_array *a = NULL;
  nx_layout l;
  int64_t bytes = len * nx_dtype_bits(dt) / 8 + 1;
  CHECK(nx_buffer_create(faults & (1u << OFF) ? testdev : nx_rig_host(), NX_MEMORY_DEVICE,
                         faults & (1u << RO) ? NX_ACCESS_READ : NX_ACCESS_READ_WRITE, bytes, &b) == 0,
        "buffer: %s", nx_error_message());
  nx_layout_contiguous(shape, 1, &l);
  CHECK(nx_array_v(dt, &l, b, &a) == 0, "array: %s", nx_error_message());
  nx_buffer_release(b);
  if (faults & (1u << REP)) {
    nx_move m;
    nx_array *e = NULL;
    nx_move_expand(&m, &n, 1);
    CHECK(nx_array_move(&m, a, &e) == 0, "expand: %s", nx_error_message());
    nx_array_free(a);
    a = e;
  }
  if (rows) a = rows_of_4(a);
  if (faults & (1u << DEAD)) nx_buffer_free(nx_array_buffer(a));
  return a;
}

/* z and x overlapping: slices [0, 4) and [1, 5) of one buffer (z the
   expanded element 0 for REP), its memory read-only for RO. */
static void make_overlap(nx_dtype dt, unsigned zf, nx_array **z, nx_array **x) {
  nx_array *base = make(dt, 5, zf & (1u << RO), false);
  nx_move m;
  int64_t s0 = 0, e0 = 4, s1 = 1, e1 = 5, one = 1, four = 4;
  nx_move_slice(&m, &s1, &e1, &one, 1);
  nx_array_move(&m, base, x);
  if (zf & (1u << REP)) {
    nx_array *e;
    int64_t e1b = 1;
    nx_move_slice(&m, &s0, &e1b, &one, 1);
    nx_array_move(&m, base, &e);
    nx_move_expand(&m, &four, 1);
    nx_array_move(&m, e, z);
    nx_array_free(e);
  } else {
    nx_move_slice(&m, &s0, &e0, &one, 1);
    nx_array_move(&m, base, z);
  }
  nx_array_free(base);
}

static int call(const op *o, nx_array *z, nx_array *x, nx_array *y) {
  typedef int (*f3)(nx_array *, nx_array *, nx_array *);
  typedef int (*f4)(nx_array *, nx_array *, nx_array *, nx_array *);
  typedef int (*f2)(nx_array *, nx_array *);
  typedef int (*fa)(nx_array *, nx_array *, int);
  typedef int (*fr)(nx_array *, nx_array *, const int *, int);
  typedef int (*ff)(nx_array *, nx_value);
  switch (o->kind) {
  case BIN:
  case CMP: return ((f3)o->fn)(z, x, y);
  case WHERE: return ((f4)o->fn)(z, x, y, y);
  case UN:
  case CAST: return ((f2)o->fn)(z, x);
  case SCAN: return ((fa)o->fn)(z, x, 0);
  case ARG: return ((fa)o->fn)(z, x, 1);
  case RED: return ((fr)o->fn)(z, x, (const int[]){1}, 1);
  default: return ((ff)o->fn)(z, (nx_value){.f = 1});
  }
}

static bool has_y(const op *o) { return o->kind == BIN || o->kind == CMP || o->kind == WHERE; }

static bool x_capable(int f) { return f == DEAD || f == HELD || f == OFF; }

static long pairs_checked;

/* One call with fault hi placed as described above and fault lo (NF: none);
   false where the operation cannot carry that pair. */
static bool try_pair(const op *o, int hi, int lo) {
  nx_dtype zdt = z_dtype(o), xdt = o->kind == WHERE ? NX_BOOL : read_dtype(o), ydt = read_dtype(o);
  if (zdt == NX_FLOAT32) zdt = read_dtype(o);
  bool reduces = o->kind == RED || o->kind == ARG;
  int64_t zn = 4;
  unsigned zf = 0, xf = 0, yf = 0;
  bool ovl = false, y_wdt = false, y_shp = false;
  int faults[2] = {hi, lo};
  if (o->kind == CAST && (hi == WDT || lo == WDT)) return false;
  if (o->kind == FILL && lo != NF) return false;
  if (o->kind == FILL && hi == OVL) return false;
  if (o->kind == WHERE && (hi == OVL || lo == OVL)) return false;
  if (hi == OVL || lo == OVL) {
    ovl = true;
    int other = hi == OVL ? lo : hi;
    if (other == RO || other == REP) zf |= 1u << other;
    else if (other != NF) {
      if (!has_y(o)) return false;
      if (other == WDT) y_wdt = true;
      else if (other == SHP) y_shp = true;
      else yf |= 1u << other;
    }
  } else
    for (int k = 0; k < 2; k++) {
      int f = faults[k];
      if (f == NF) continue;
      /* a fault any operand may carry goes on x, unless the higher one is
         there already; the others on z */
      bool on_x = x_capable(f) && o->kind != FILL && (k == 0 || !x_capable(hi));
      if (on_x) xf |= 1u << f;
      else if (f == WDT) zdt = NX_FLOAT64;
      else if (f == SHP) zn = 5;
      else zf |= 1u << f;
    }
  /* a dead buffer cannot be held: both on z is no pair */
  if ((zf & (1u << DEAD)) && (zf & (1u << HELD))) return false;
  nx_array *z = NULL, *x = NULL, *y = NULL;
  if (ovl) make_overlap(zdt, zf, &z, &x);
  else {
    z = make(zdt, zn, zf & ~(1u << HELD), false);
    if (o->kind != FILL) x = make(xdt, reduces ? 16 : 4, xf & ~(1u << HELD), reduces);
  }
  if (reduces && ovl) x = rows_of_4(x);
  if (has_y(o)) y = make(y_wdt ? NX_FLOAT64 : ydt, y_shp ? 5 : 4, yf & ~(1u << HELD), false);
  nx_buffer *held[3] = {0};
  if (zf & (1u << HELD)) held[0] = nx_array_buffer(z);
  if (xf & (1u << HELD)) held[1] = nx_array_buffer(x);
  if (yf & (1u << HELD)) held[2] = nx_array_buffer(y);
  for (int k = 0; k < 3; k++)
    if (held[k]) CHECK(nx_buffer_hold_exclusive(held[k]) == 0, "hold: %s", nx_error_message());
  /* z's bytes, where the host reads them, to see that nothing was written */
  nx_buffer *zb = nx_array_buffer(z);
  bool readable = !(zf & ((1u << DEAD) | (1u << OFF)));
  unsigned char before[64] = {0};
  int64_t nb = nx_buffer_bytes(zb) < 64 ? nx_buffer_bytes(zb) : 64;
  if (readable) {
    if (!held[0]) nx_buffer_wait(zb, NX_ACCESS_READ);
    memset(nx_buffer_host_address(zb), 0xA5, zf & (1u << RO) ? 0 : (size_t)nb);
    memcpy(before, nx_buffer_host_address(zb), (size_t)nb);
  }
  int s = call(o, z, x, y);
  const char *msg = nx_error_message();
  bool ok = s == NX_EINVAL && strstr(msg, fault_msg[hi]) && strncmp(msg, o->name, strlen(o->name)) == 0 &&
            msg[strlen(o->name)] == ':';
  CHECK(ok, "%s with %s and %s: %d %s", o->name, fault_name[hi], lo == NF ? "nothing" : fault_name[lo], s, msg);
  for (int k = 0; k < 3; k++)
    if (held[k]) nx_buffer_unhold(held[k]);
  if (readable)
    CHECK(memcmp(before, nx_buffer_host_address(zb), (size_t)nb) == 0, "%s with %s and %s wrote before refusing",
          o->name, fault_name[hi], lo == NF ? "nothing" : fault_name[lo]);
  nx_array_free(z);
  nx_array_free(x);
  nx_array_free(y);
  pairs_checked++;
  return true;
}

/* Messages that name the function called and the faulty argument:
   nx_threefry_new's own name (not nx_threefry's) for a refused operand; a
   NULL axes pointer with a count, in every reduction taking axes; a NULL
   arrays pointer of nx_cat_new; nx_where_new's and nx_cast_new's own names
   before their operation's refusal. */
static bool starts(const char *name) { return strncmp(nx_error_message(), name, strlen(name)) == 0; }

static void messages(void) {
  int64_t s2[2] = {3, 2}, s3[2] = {2, 3};
  nx_array *k = NULL, *k3 = NULL, *f = NULL, *z = NULL;
  nx_array_host(NX_UINT32, s2, 2, &k);
  nx_array_host(NX_UINT32, s3, 2, &k3);
  nx_array_host(NX_FLOAT32, s2, 2, &f);
  CHECK(nx_threefry_new(&z, f, k) == NX_EINVAL && !z && starts("nx_threefry_new: ") &&
            strstr(nx_error_message(), "float32"),
        "threefry_new of a float32 key: %s", nx_error_message());
  CHECK(nx_threefry_new(&z, k3, k3) == NX_EINVAL && !z && starts("nx_threefry_new: "), "threefry_new of [2, 3]: %s",
        nx_error_message());
  CHECK(nx_threefry(k3, k3, k3) == NX_EINVAL && starts("nx_threefry: "), "threefry of [2, 3]: %s", nx_error_message());
  typedef int (*red_fn)(nx_array *, nx_array *, const int *, int);
  typedef int (*red_new_fn)(nx_array **, nx_array *, const int *, int, bool);
  static const struct {
    const char *name, *name_new;
    red_fn fn;
    red_new_fn fn_new;
  } red[] = {{"nx_sum", "nx_sum_new", nx_sum, nx_sum_new},
             {"nx_prod", "nx_prod_new", nx_prod, nx_prod_new},
             {"nx_reduce_min", "nx_reduce_min_new", nx_reduce_min, nx_reduce_min_new},
             {"nx_reduce_max", "nx_reduce_max_new", nx_reduce_max, nx_reduce_max_new},
             {"nx_any", "nx_any_new", nx_any, nx_any_new},
             {"nx_all", "nx_all_new", nx_all, nx_all_new}};
  int64_t s1 = 2;
  nx_array *r = NULL;
  nx_array_host(NX_FLOAT32, &s1, 1, &r);
  for (size_t i = 0; i < sizeof red / sizeof *red; i++) {
    CHECK(red[i].fn_new(&z, f, NULL, 1, false) == NX_EINVAL && !z && starts(red[i].name_new) &&
              strstr(nx_error_message(), "axes pointer is NULL"),
          "%s with NULL axes: %s", red[i].name_new, nx_error_message());
    CHECK(red[i].fn(r, f, NULL, 1) == NX_EINVAL && starts(red[i].name) &&
              strstr(nx_error_message(), "axes pointer is NULL"),
          "%s with NULL axes: %s", red[i].name, nx_error_message());
  }
  CHECK(nx_cat_new(&z, NULL, 2, 0) == NX_EINVAL && !z && starts("nx_cat_new: ") &&
            strstr(nx_error_message(), "arrays pointer is NULL"),
        "cat_new of NULL arrays: %s", nx_error_message());
  nx_array *xs[1] = {f};
  CHECK(nx_cat_new(&z, xs, 0, 0) == NX_EINVAL && !z && starts("nx_cat_new: 0 arrays"), "cat_new of 0 arrays: %s",
        nx_error_message());
  /* the _new forms name themselves before the operation's own refusal */
  CHECK(nx_where_new(&z, f, f, f) == NX_EINVAL && !z && starts("nx_where_new: "), "where_new of a float32 condition: %s",
        nx_error_message());
  /* A result that cannot be made: the maker's message once, whole, after
     the function's (before: the message was formatted into itself, and came
     out doubled and cut) */
  int64_t huge[2] = {(int64_t)1 << 61, 0}, want_shape[2] = {((int64_t)1 << 62) + 3, 2};
  nx_value zero = {0};
  char inner[1024], want[1200];
  nx_array *none = NULL;
  CHECK(nx_array_create(nx_rig_host(), NX_MEMORY_DEVICE, NX_FLOAT32, want_shape, 2, &none) < 0, "create of 2^62 rows");
  snprintf(inner, sizeof inner, "%s", nx_error_message());
  snprintf(want, sizeof want, "nx_pad_new: no result for float32 [3; 2]: %s", inner);
  CHECK(nx_pad_new(&z, f, huge, huge, zero) < 0 && !z && strcmp(nx_error_message(), want) == 0,
        "pad_new past an int64_t: \"%s\", want \"%s\"", nx_error_message(), want);
  /* the refusal of where_new names the caller's three operands, once */
  CHECK(nx_where_new(&z, f, f, f) == NX_EINVAL &&
            strcmp(nx_error_message(), "nx_where_new: an operand's dtype is not the one the kernel loads (float32 [3; 2], "
                                       "float32 [3; 2], float32 [3; 2])") == 0,
        "where_new's refusal: %s", nx_error_message());
  /* the _new forms' refusals name the caller's operands only, not the
     result they made (before: "(float32 [3], float32 [3], float32 [4])") */
  int64_t n3 = 3, n4 = 4;
  nx_array *x3 = NULL, *y4 = NULL, *d3 = NULL;
  nx_array_host(NX_FLOAT32, &n3, 1, &x3), nx_array_host(NX_FLOAT32, &n4, 1, &y4), nx_array_host(NX_FLOAT64, &n3, 1, &d3);
  static const char fit[] = "the operands do not fit the operation", kind[] = "an operand's dtype is not the one the kernel loads";
  char want_new[256];
  snprintf(want_new, sizeof want_new, "nx_add_new: %s (float32 [3], float32 [4])", fit);
  CHECK(nx_add_new(&z, x3, y4) == NX_EINVAL && !z && !strcmp(nx_error_message(), want_new), "add_new: %s",
        nx_error_message());
  snprintf(want_new, sizeof want_new, "nx_eq_new: %s (float32 [3], float64 [3])", kind);
  CHECK(nx_eq_new(&z, x3, d3) == NX_EINVAL && !z && !strcmp(nx_error_message(), want_new), "eq_new: %s",
        nx_error_message());
  nx_array *m23 = NULL, *m45 = NULL;
  int64_t s23[2] = {2, 3}, s45[2] = {4, 5};
  nx_array_host(NX_FLOAT32, s23, 2, &m23), nx_array_host(NX_FLOAT32, s45, 2, &m45);
  snprintf(want_new, sizeof want_new, "nx_matmul_new: %s (float32 [2; 3], float32 [4; 5])", fit);
  CHECK(nx_matmul_new(&z, m23, m45) == NX_EINVAL && !z && !strcmp(nx_error_message(), want_new), "matmul_new: %s",
        nx_error_message());
  nx_array_free(x3), nx_array_free(y4), nx_array_free(d3), nx_array_free(m23), nx_array_free(m45);
  /* the same for sorting, random numbers and the linear algebra: a dead
     operand is named alone, not with the result made for it */
  int64_t n2 = 2, s22[2] = {2, 2};
  nx_array *gone = NULL, *key = NULL, *ctr = NULL, *mat = NULL;
  nx_array_host(NX_FLOAT32, &n3, 1, &gone), nx_buffer_free(nx_array_buffer(gone));
  nx_array_host(NX_UINT32, &n2, 1, &key), nx_array_host(NX_UINT32, &n2, 1, &ctr), nx_buffer_free(nx_array_buffer(key));
  nx_array_host(NX_FLOAT64, s22, 2, &mat), nx_buffer_free(nx_array_buffer(mat));
  CHECK(nx_argsort_new(&z, gone, 0, false) == NX_EINVAL && !z &&
            !strcmp(nx_error_message(), "nx_argsort_new: float32 [3] was freed (float32 [3])"),
        "argsort_new of a dead array: %s", nx_error_message());
  CHECK(nx_threefry_new(&z, key, ctr) == NX_EINVAL && !z &&
            !strcmp(nx_error_message(), "nx_threefry_new: uint32 [2] was freed (uint32 [2], uint32 [2])"),
        "threefry_new of a dead key: %s", nx_error_message());
  CHECK(nx_cholesky_new(&z, mat, false) == NX_EINVAL && !z &&
            !strcmp(nx_error_message(), "nx_cholesky_new: float64 [2; 2] was freed (float64 [2; 2])"),
        "cholesky_new of a dead matrix: %s", nx_error_message());
  nx_array_free(gone), nx_array_free(key), nx_array_free(ctr), nx_array_free(mat);
  /* min and max of no element, argmax of an empty axis: said as such */
  int64_t e0[2] = {0, 3};
  nx_array *empty = NULL;
  nx_array_host(NX_FLOAT32, e0, 2, &empty);
  int ax0 = 0;
  CHECK(nx_reduce_min_new(&z, empty, &ax0, 1, false) == NX_EINVAL && !z && starts("nx_reduce_min_new: ") &&
            strstr(nx_error_message(), "no element") && strstr(nx_error_message(), "min has no identity"),
        "min of no element: %s", nx_error_message());
  CHECK(nx_argmax_new(&z, empty, 0, false) == NX_EINVAL && !z && starts("nx_argmax_new: ") &&
            strstr(nx_error_message(), "empty axis") && strstr(nx_error_message(), "float32 [0; 3]"),
        "argmax of an empty axis: %s", nx_error_message());
  nx_array_free(empty);
  nx_array *dead = NULL;
  nx_array_host(NX_FLOAT32, s2, 2, &dead);
  nx_buffer_free(nx_array_buffer(dead));
  CHECK(nx_cast_new(&z, NX_FLOAT16, dead) == NX_EINVAL && !z && starts("nx_cast_new: ") &&
            strstr(nx_error_message(), "was freed"),
        "cast_new of a dead array: %s", nx_error_message());
  nx_array_free(dead);
  nx_array_free(k);
  nx_array_free(k3);
  nx_array_free(f);
  nx_array_free(r);
}

int main(void) {
  if (nx_rig_test_device(&testdev) != 0) {
    CHECK(0, "nx_rig_test_device: %s", nx_error_message());
    return check_done();
  }
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
    const op *o = &ops[i];
    long before = pairs_checked;
    for (int hi = 0; hi < NF; hi++) {
      if (o->kind == FILL && (hi == WDT || hi == SHP)) continue; /* fill takes any dtype and shape */
      try_pair(o, hi, NF);
      for (int lo = hi + 1; lo < NF; lo++) try_pair(o, hi, lo);
    }
    CHECK(pairs_checked - before >= (o->kind == FILL ? 5 : 20), "%s: %ld pairs", o->name, pairs_checked - before);
  }
  printf("%ld refusals checked over %zu operations\n", pairs_checked, sizeof ops / sizeof *ops);
  messages();
  return check_done();
}
