/* SPDX-License-Identifier: Apache-2.0 */
/* The door. Its precedence over every combination of faults on up to three
   operands (table-driven, against a model written here) for both doors; the
   kernel runs only on Done, and no claim is left afterwards. The device door
   (no Off_host; fn's status propagates after the release). More than
   NX_MAX_OPERANDS operands: all claimed and released, and a refusal in the
   last run leaves nothing claimed in earlier runs. nx_array_refused's
   messages. nx_cpu_add and nx_add for every dtype against an independent
   computation, and their refusals. */
#include "test_array_common.h"

static arr_devices R;

/* ---- Faults ------------------------------------------------------------ */

enum fault { F_NONE, F_DEAD, F_HELD, F_RO, F_OFF, F_REP, F_OVL, F_ALIAS, F_COUNT };
static const char *const fault_name[F_COUNT] = {"none",     "dead",     "held", "read-only",
                                                "off-host", "repeated", "overlapping", "alias"};

#define SLOTS 3
/* Prebuilt operands: slot s, fault f. Every array is float32 [4].
   - none: its own host buffer;
   - dead: an expanded view (float32 [1] to [4]) of OpenCL device memory,
     freed: dead, off host and repeated at once, so Dead_buffer whatever else;
   - held: its own host buffer, held exclusive around each call;
   - read-only: a host buffer of access Read;
   - off-host: OpenCL device memory;
   - repeated: float32 [1] expanded to [4] (a fault only when written);
   - overlapping: slice [s, s+4) of one shared host float32 [8]: the slots
     overlap one another and are never identical;
   - alias: one shared host float32 [4], the same layout in every slot:
     identical arrays (a written one may share with identical read ones). */
static nx_array *op[SLOTS][F_COUNT];
static nx_array *ovl_base, *alias_base;

static nx_array *mk(nx_device *d, nx_memory_kind k, nx_access acc, int64_t n) {
  nx_buffer *b = NULL;
  nx_array *a = NULL;
  nx_layout l;
  CHECK(nx_buffer_create(d, k, acc, n * 4, &b) == 0, "buffer: %s", nx_error_message());
  nx_layout_contiguous(&n, 1, &l);
  CHECK(b && nx_array_v(NX_FLOAT32, &l, b, &a) == 0, "v: %s", nx_error_message());
  nx_buffer_release(b);
  return a;
}

static nx_array *moved(nx_array *a, const nx_move *m) {
  nx_array *r = NULL;
  CHECK(nx_array_move(m, a, &r) == 0, "move: %s", nx_error_message());
  return r;
}

static nx_array *expand4(nx_array *one) {
  nx_move m;
  nx_move_expand(&m, &(int64_t){4}, 1);
  return moved(one, &m);
}

static void build_ops(void) {
  ovl_base = mk(R.host, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 8);
  alias_base = mk(R.host, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 4);
  for (int s = 0; s < SLOTS; s++) {
    op[s][F_NONE] = mk(R.host, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 4);
    nx_array *one = mk(R.ocl0, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 1);
    op[s][F_DEAD] = expand4(one);
    nx_array_free(one);
    CHECK(nx_buffer_free(nx_array_buffer(op[s][F_DEAD])) == 0, "free");
    op[s][F_HELD] = mk(R.host, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 4);
    op[s][F_RO] = mk(R.host, NX_MEMORY_DEVICE, NX_ACCESS_READ, 4);
    op[s][F_OFF] = mk(R.ocl0, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 4);
    one = mk(R.host, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 1);
    op[s][F_REP] = expand4(one);
    nx_array_free(one);
    nx_move m;
    nx_move_shrink(&m, &(int64_t){s}, &(int64_t){s + 4}, 1);
    op[s][F_OVL] = moved(ovl_base, &m);
    nx_layout l = *nx_array_layout(alias_base);
    CHECK(nx_array_v(NX_FLOAT32, &l, nx_array_buffer(alias_base), &op[s][F_ALIAS]) == 0, "alias");
  }
}

static void free_ops(void) {
  for (int s = 0; s < SLOTS; s++)
    for (int f = 0; f < F_COUNT; f++) nx_array_free(op[s][f]);
  nx_array_free(ovl_base);
  nx_array_free(alias_base);
}

/* The model of the precedence: faults of every operand, written ones first. */
static int model(const int *f, int nw, int n, int host) {
  int dead = 0, held = 0, ro = 0, off = 0, rep = 0, ovl = 0, ovl_w = 0, alias_w = 0;
  for (int i = 0; i < n; i++) {
    int w = i < nw;
    dead |= f[i] == F_DEAD;
    held |= f[i] == F_HELD;
    ro |= w && f[i] == F_RO;
    off |= host && f[i] == F_OFF;
    rep |= w && f[i] == F_REP;
    ovl += f[i] == F_OVL;
    ovl_w += w && f[i] == F_OVL;
    alias_w += w && f[i] == F_ALIAS;
  }
  if (dead) return NX_DEAD_BUFFER;
  if (held) return NX_HELD_EXCLUSIVE;
  if (ro) return NX_READ_ONLY;
  if (off) return NX_OFF_HOST;
  if (rep) return NX_REPEATED_ELEMENTS;
  if ((ovl >= 2 && ovl_w >= 1) || alias_w >= 2) return NX_OVERLAPPING;
  return NX_DONE;
}

static const char *answer_name(int a) {
  static const char *const n[] = {"Done",           "Declined",      "Wrong_dtype", "Dead_buffer",
                                  "Off_host",       "Held_exclusive", "Read_only",   "Repeated_elements",
                                  "Overlapping",    "Shape_mismatch"};
  return a >= 0 && a <= NX_SHAPE_MISMATCH ? n[a] : "(status)";
}

/* What a kernel sees: it records that it ran, checks its operands and that
   every buffer is claimed (a donation cannot hold it exclusive). */
typedef struct {
  int ran, nw, nr, bad;
  nx_array *const *ops;
  int n;
  int status; /* what the device kernel returns */
} kctx;

static void check_claimed(kctx *k) {
  for (int i = 0; i < k->n; i++) {
    nx_buffer *b = nx_array_buffer(k->ops[i]);
    if (nx_buffer_hold_exclusive(b) == 0) {
      k->bad++;
      nx_buffer_unhold(b);
    }
  }
}

static nx_answer host_kernel(void *ctx, const nx_operand *ops, int nw, int nr) {
  kctx *k = ctx;
  k->ran++;
  if (nw != k->nw || nr != k->nr) k->bad++;
  for (int i = 0; i < nw + nr; i++)
    if (ops[i].dtype != nx_array_dtype(k->ops[i]) || ops[i].layout->rank != nx_array_layout(k->ops[i])->rank ||
        ops[i].base != nx_buffer_host_address(nx_array_buffer(k->ops[i])) || !ops[i].base)
      k->bad++;
  check_claimed(k);
  return NX_DONE;
}

static int dev_kernel(void *ctx) {
  kctx *k = ctx;
  k->ran++;
  check_claimed(k);
  return k->status;
}

/* Every live buffer among ops can be held exclusive: no claim is left. */
static int claims_left(nx_array *const *ops, int n) {
  int left = 0;
  for (int i = 0; i < n; i++) {
    nx_buffer *b = nx_array_buffer(ops[i]);
    if (nx_buffer_dead(b)) continue;
    if (nx_buffer_hold_exclusive(b) != 0) left++;
    else nx_buffer_unhold(b);
  }
  return left;
}

static int call_door(int host, nx_array *const *ops, int nw, int nr, kctx *k) {
  k->ran = k->bad = 0;
  k->nw = nw;
  k->nr = nr;
  k->ops = ops;
  k->n = nw + nr;
  return host ? nx_door_host(ops, nw, ops + nw, nr, host_kernel, k) : nx_door(ops, nw, ops + nw, nr, dev_kernel, k);
}

static long combos, refusals_checked, by_answer[NX_SHAPE_MISMATCH + 1];

static void test_precedence(int host) {
  static const int shapes[][2] = {{1, 0}, {0, 1}, {2, 0}, {1, 1}, {0, 2}, {3, 0}, {2, 1}, {1, 2}, {0, 3}};
  long bad = 0;
  for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
    int nw = shapes[sh][0], nr = shapes[sh][1], n = nw + nr, total = 1;
    for (int i = 0; i < n; i++) total *= F_COUNT;
    for (int c = 0; c < total; c++) {
      int f[SLOTS], x = c;
      nx_array *ops[SLOTS];
      for (int i = 0; i < n; i++) {
        f[i] = x % F_COUNT;
        x /= F_COUNT;
        ops[i] = op[i][f[i]];
      }
      for (int i = 0; i < n; i++)
        if (f[i] == F_HELD) CHECK(nx_buffer_hold_exclusive(nx_array_buffer(ops[i])) == 0, "hold");
      kctx k = {0};
      k.status = 0;
      int want = model(f, nw, n, host), got = call_door(host, ops, nw, nr, &k);
      for (int i = 0; i < n; i++)
        if (f[i] == F_HELD) CHECK(nx_buffer_unhold(nx_array_buffer(ops[i])) == 0, "unhold");
      int left = claims_left(ops, n);
      combos++;
      if (want >= 0 && want <= NX_SHAPE_MISMATCH) by_answer[want]++;
      if (got != want || k.ran != (want == NX_DONE) || k.bad || left) {
        if (++bad <= 12) {
          char what[256];
          int len = 0;
          for (int i = 0; i < n; i++)
            len += snprintf(what + len, sizeof what - (size_t)len, "%s%s %s", i ? ", " : "", i < nw ? "written" : "read",
                            fault_name[f[i]]);
          CHECK(0, "%s: [%s]: answered %s (%d), model %s; kernel ran %d, bad %d, %d claims left; %s",
                host ? "nx_door_host" : "nx_door", what, answer_name(got), got, answer_name(want), k.ran, k.bad, left,
                got < 0 ? nx_error_message() : "");
        }
      }
      /* The refusal's message names the function and every operand. */
      if (got > NX_DONE && got <= NX_SHAPE_MISMATCH && (c % 7) == 0) {
        int s = nx_array_refused("nx_test", (nx_answer)got, ops, n);
        const char *m = nx_error_message();
        int ok = s == NX_EINVAL && strncmp(m, "nx_test: ", 9) == 0 && strstr(m, "(float32 [4]") != NULL;
        refusals_checked++;
        CHECK(ok, "refused %s: %s", answer_name(got), m);
      }
    }
  }
  CHECK(bad == 0, "%s: %ld combinations disagree with the model", host ? "nx_door_host" : "nx_door", bad);
}

/* ---- The device door --------------------------------------------------- */

static void test_device_door(void) {
  nx_array *ops[3] = {op[0][F_OFF], op[1][F_NONE], op[2][F_OFF]};
  kctx k = {0};
  /* Off host is no refusal: fn runs, under claims. */
  CHECK(call_door(0, ops, 1, 2, &k) == NX_DONE && k.ran == 1 && k.bad == 0, "nx_door over OpenCL memory: ran %d",
        k.ran);
  /* fn's negative status propagates, after the release. */
  k.status = NX_EIO;
  CHECK(call_door(0, ops, 1, 2, &k) == NX_EIO && k.ran == 1 && k.bad == 0, "nx_door propagates NX_EIO");
  CHECK(claims_left(ops, 3) == 0, "nx_door left claims after fn failed");
  k.status = NX_ELOST;
  CHECK(call_door(0, ops, 2, 1, &k) == NX_ELOST && k.ran == 1, "nx_door propagates NX_ELOST");
  CHECK(claims_left(ops, 3) == 0, "nx_door left claims after fn failed");
  /* The host door refuses the same operands as Off_host. */
  CHECK(call_door(1, ops, 1, 2, &k) == NX_OFF_HOST && k.ran == 0, "nx_door_host over OpenCL memory");
  /* NULL arguments. */
  CHECK(nx_door(NULL, 1, NULL, 0, dev_kernel, &k) == NX_EINVAL, "nx_door NULL written");
  CHECK(nx_door_host(ops, 1, NULL, 1, host_kernel, &k) == NX_EINVAL, "nx_door_host NULL read");
  CHECK(nx_door_host(ops, 1, NULL, 0, NULL, &k) == NX_EINVAL, "nx_door_host NULL kernel");
  /* No operand at all: fn runs. */
  k.status = 0;
  CHECK(nx_door(NULL, 0, NULL, 0, dev_kernel, &k) == NX_DONE && k.ran == 1, "nx_door of nothing");
  CHECK(call_door(1, ops, 0, 0, &k) == NX_DONE && k.ran == 1, "nx_door_host of nothing");
}

/* ---- Many operands ----------------------------------------------------- */

static void test_many(int host, int n) {
  nx_array **ops = calloc((size_t)n, sizeof *ops);
  int nw = n / 2, nr = n - nw;
  nx_array **own = calloc((size_t)n, sizeof *own);
  for (int i = 0; i < n; i++) ops[i] = own[i] = mk(R.host, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 2);
  kctx k = {0};
  int got = call_door(host, ops, nw, nr, &k);
  CHECK(got == NX_DONE && k.ran == 1 && k.bad == 0, "%s of %d operands: %s (%d), ran %d, %d not claimed; %s",
        host ? "nx_door_host" : "nx_door", n, answer_name(got), got, k.ran, k.bad, got < 0 ? nx_error_message() : "");
  CHECK(claims_left(ops, n) == 0, "%d operands: claims left", n);
  if (n > 288) goto out; /* the rest needs the door to take n at all */
  /* A refusal in the last run: nothing claimed anywhere. The last operand
     (read) held exclusive; dead; off host (host door); overlapping the first
     (written); and, across runs, a dead last operand against a read-only
     first one. */
  nx_array *last = ops[n - 1];
  CHECK(nx_buffer_hold_exclusive(nx_array_buffer(last)) == 0, "hold");
  got = call_door(host, ops, nw, nr, &k);
  nx_buffer_unhold(nx_array_buffer(last));
  CHECK(got == NX_HELD_EXCLUSIVE && k.ran == 0, "%d operands, the last held: %s", n, answer_name(got));
  CHECK(claims_left(ops, n) == 0, "%d operands, the last held: claims left", n);
  ops[n - 1] = op[0][F_OFF];
  got = call_door(host, ops, nw, nr, &k);
  CHECK(got == (host ? NX_OFF_HOST : NX_DONE) && k.ran == !host, "%d operands, the last off host: %s", n,
        answer_name(got));
  CHECK(claims_left(ops, n) == 0, "%d operands, the last off host: claims left", n);
  nx_move m;
  nx_move_shrink(&m, &(int64_t){1}, &(int64_t){2}, 1);
  nx_array *sl = moved(ops[0], &m), *first = ops[0];
  ops[n - 1] = sl;
  got = call_door(host, ops, nw, nr, &k);
  CHECK(got == NX_OVERLAPPING && k.ran == 0, "%d operands, the last overlapping the first: %s", n, answer_name(got));
  CHECK(claims_left(ops, n) == 0, "%d operands, overlapping: claims left", n);
  ops[n - 1] = op[0][F_DEAD];
  got = call_door(host, ops, nw, nr, &k);
  CHECK(got == NX_DEAD_BUFFER && k.ran == 0, "%d operands, the last dead: %s", n, answer_name(got));
  ops[0] = op[0][F_RO];
  got = call_door(host, ops, nw, nr, &k);
  CHECK(got == NX_DEAD_BUFFER && k.ran == 0, "%d operands, the first read-only, the last dead: %s", n,
        answer_name(got));
  CHECK(claims_left(ops, n) == 0, "%d operands: claims left", n);
  ops[n - 1] = last;
  got = call_door(host, ops, nw, nr, &k);
  CHECK(got == NX_READ_ONLY && k.ran == 0, "%d operands, the first read-only: %s", n, answer_name(got));
  CHECK(claims_left(ops, n) == 0, "%d operands, the first read-only: claims left", n);
  /* A held operand in the middle run and a read-only one in the last. */
  ops[0] = first;
  ops[n - 1] = op[0][F_RO];
  if (nw > 0) {
    nx_array *t = ops[nw - 1];
    ops[nw - 1] = ops[n - 1];
    ops[n - 1] = t;
  }
  CHECK(nx_buffer_hold_exclusive(nx_array_buffer(ops[n / 3])) == 0, "hold");
  got = call_door(host, ops, nw, nr, &k);
  nx_buffer_unhold(nx_array_buffer(ops[n / 3]));
  CHECK(got == NX_HELD_EXCLUSIVE && k.ran == 0, "%d operands, one held in the middle, the last written read-only: %s",
        n, answer_name(got));
  CHECK(claims_left(ops, n) == 0, "%d operands: claims left", n);
  nx_array_free(sl);
out:
  for (int i = 0; i < n; i++) nx_array_free(own[i]);
  free(own);
  free(ops);
}

/* ---- nx_array_refused -------------------------------------------------- */

static nx_array *f32(int64_t n) {
  nx_array *a = NULL;
  CHECK(nx_array_host(NX_FLOAT32, &n, 1, &a) == 0, "host: %s", nx_error_message());
  return a;
}

static void test_refused(void) {
  nx_array *z = f32(3), *x = f32(3), *y = f32(3), *ops[3] = {z, x, y};
  static const char *const gist[] = {"", "", "dtype", "dead", "host", "held exclusive", "read", "twice",
                                     "shares a byte", "fit"};
  const char *tail = " (float32 [3], float32 [3], float32 [3])";
  for (int a = NX_WRONG_DTYPE; a <= NX_SHAPE_MISMATCH; a++) {
    int s = nx_array_refused("nx_add", (nx_answer)a, ops, 3);
    const char *m = nx_error_message();
    size_t lm = strlen(m), lt = strlen(tail);
    CHECK(s == NX_EINVAL && strncmp(m, "nx_add: ", 8) == 0 && strstr(m, gist[a]) && lm > lt &&
              strcmp(m + lm - lt, tail) == 0,
          "refused %s: %s", answer_name(a), m);
  }
  for (int a = NX_DONE; a <= NX_DECLINED; a++) {
    int s = nx_array_refused("nx_add", (nx_answer)a, ops, 3);
    const char *m = nx_error_message();
    CHECK(s == NX_EINVAL && strstr(m, "nx_add") && strstr(m, "nothing") && strstr(m, answer_name(a)),
          "refused %s: %s", answer_name(a), m);
  }
  /* Held exclusive before the donation consumes: the generic reason; after:
     the consumer's. */
  nx_buffer *xb = nx_array_buffer(x);
  CHECK(nx_buffer_hold_exclusive(xb) == 0, "hold");
  int got = nx_cpu_add(z, x, y);
  CHECK(got == NX_HELD_EXCLUSIVE, "nx_cpu_add of a held x: %s", answer_name(got));
  CHECK(nx_add(z, x, y) == NX_EINVAL &&
            strcmp(nx_error_message(),
                   "nx_add: an operand's memory is held exclusive (float32 [3], float32 [3], float32 [3])") == 0,
        "nx_add of a held x: %s", nx_error_message());
  nx_array_refused("nx_add", NX_HELD_EXCLUSIVE, ops, 3);
  CHECK(strstr(nx_error_message(), "was") == NULL, "held, not consumed: %s", nx_error_message());
  CHECK(nx_buffer_consume(xb, "donated to nx_mul") == 0, "consume");
  const char *exact = "nx_add: float32 [3] was donated to nx_mul (float32 [3], float32 [3], float32 [3])";
  nx_array_refused("nx_add", NX_HELD_EXCLUSIVE, ops, 3);
  CHECK(strcmp(nx_error_message(), exact) == 0, "held, then consumed: %s", nx_error_message());
  got = nx_cpu_add(z, x, y);
  CHECK(got == NX_DEAD_BUFFER, "nx_cpu_add of a consumed x: %s", answer_name(got));
  CHECK(nx_add(z, x, y) == NX_EINVAL && strcmp(nx_error_message(), exact) == 0, "nx_add of a consumed x: %s",
        nx_error_message());
  CHECK(nx_array_refused("nx_add", NX_DEAD_BUFFER, ops, 3) == NX_EINVAL && strcmp(nx_error_message(), exact) == 0,
        "refused Dead_buffer: %s", nx_error_message());
  /* Two dead operands, in the operands' order. */
  CHECK(nx_buffer_free(nx_array_buffer(y)) == 0, "free y");
  nx_array_refused("nx_add", NX_DEAD_BUFFER, ops, 3);
  CHECK(strcmp(nx_error_message(), "nx_add: float32 [3] was donated to nx_mul, float32 [3] was freed (float32 [3], "
                                   "float32 [3], float32 [3])") == 0,
        "two dead: %s", nx_error_message());
  nx_array_free(z);
  nx_array_free(x);
  nx_array_free(y);
}

/* ---- nx_cpu_add and nx_add --------------------------------------------- */

/* The sum of elements of dt with bits xb and yb, computed here. */
static void expect_add(nx_dtype dt, const uint8_t *xb, const uint8_t *yb, uint8_t *out) {
  int w = nx_dtype_bits(dt);
  uint64_t x = 0, y = 0, z;
  switch (nx_dtype_kind(dt)) {
  case NX_KIND_COMPLEX: {
    int c = dt == NX_COMPLEX128 ? NX_FLOAT64 : NX_FLOAT32, cw = w / 16;
    for (int part = 0; part < 2; part++) {
      uint64_t a = 0, b = 0;
      memcpy(&a, xb + part * cw, (size_t)cw);
      memcpy(&b, yb + part * cw, (size_t)cw);
      volatile double va = nx_dtype_load_bits(c, a), vb = nx_dtype_load_bits(c, b);
      uint64_t r = nx_dtype_store_bits(c, va + vb);
      memcpy(out + part * cw, &r, (size_t)cw);
    }
    return;
  }
  default: break;
  }
  memcpy(&x, xb, (size_t)(w >= 8 ? w / 8 : 1));
  memcpy(&y, yb, (size_t)(w >= 8 ? w / 8 : 1));
  uint64_t mask = w == 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1);
  switch (nx_dtype_kind(dt)) {
  case NX_KIND_FLOAT: {
    volatile double a = nx_dtype_load_bits(dt, x), b = nx_dtype_load_bits(dt, y);
    z = nx_dtype_store_bits(dt, a + b);
    break;
  }
  case NX_KIND_SIGNED: case NX_KIND_UNSIGNED: z = (x + y) & mask; break;
  default: z = (x & mask) || (y & mask); break;
  }
  z &= mask;
  memcpy(out, &z, (size_t)(w >= 8 ? w / 8 : 1));
}

/* Random element bits for dt: booleans 0 or 1. */
static void rnd_elem(nx_dtype dt, uint64_t *seed, uint8_t *e) {
  int w = nx_dtype_bits(dt);
  uint64_t r[2] = {rnd(seed), rnd(seed)};
  /* Some special values: NaNs with payloads, infinities, zeros, extremes. */
  if (nx_dtype_kind(dt) == NX_KIND_FLOAT && (r[1] & 7) == 0) r[0] = (r[0] & 1) ? ~(uint64_t)0 : ~(uint64_t)0 >> 1;
  if (nx_dtype_kind(dt) == NX_KIND_BOOLEAN) r[0] &= 1;
  memcpy(e, r, (size_t)(w >= 8 ? w / 8 : 1));
  if (w < 8) e[0] &= (uint8_t)((1u << w) - 1);
}

static nx_array *raw_host(nx_dtype dt, int64_t n, uint8_t **mem) {
  nx_array *a = NULL;
  CHECK(nx_array_host(dt, &n, 1, &a) == 0, "host %s: %s", nx_dtype_name(dt), nx_error_message());
  nx_buffer_wait(nx_array_buffer(a), NX_ACCESS_WRITE);
  *mem = nx_buffer_host_address(nx_array_buffer(a));
  return a;
}

static void test_add(void) {
  enum { N = 97 };
  uint64_t seed = 0x1234567;
  long elems = 0;
  for (int d = 0; d < NX_DTYPE_COUNT; d++) {
    nx_dtype dt = (nx_dtype)d;
    int w = nx_dtype_bits(dt);
    int64_t nb;
    nx_dtype_bytes(dt, 2 * N, &nb);
    uint8_t *xm, *ym, *zm, *y1m;
    nx_array *x = raw_host(dt, N, &xm), *y = raw_host(dt, N, &ym), *z = raw_host(dt, 2 * N, &zm);
    nx_array *y1 = raw_host(dt, 1, &y1m);
    uint8_t e[16];
    for (int64_t i = 0; i < N; i++) {
      rnd_elem(dt, &seed, e);
      elem_put(xm, i, w, e);
      rnd_elem(dt, &seed, e);
      elem_put(ym, i, w, e);
    }
    rnd_elem(dt, &seed, e);
    elem_put(y1m, 0, w, e);
    for (int64_t i = 0; i < nb; i++) zm[i] = (uint8_t)rnd(&seed);
    if (nx_dtype_kind(dt) == NX_KIND_BOOLEAN)
      for (int64_t i = 0; i < 2 * N; i++) elem_put(zm, i, w, (uint8_t[16]){(uint8_t)(i & 1)});
    uint8_t *before = malloc((size_t)nb);
    memcpy(before, zm, (size_t)nb);
    /* Contiguous: z's first N elements. */
    nx_move m;
    nx_array *zc = NULL, *zs = NULL, *xf = NULL, *yb = NULL;
    nx_move_shrink(&m, &(int64_t){0}, &(int64_t){N}, 1);
    zc = moved(z, &m);
    /* Strided, flipped, broadcast: z[1::2], x flipped, y1 expanded. */
    nx_move_slice(&m, &(int64_t){1}, &(int64_t){NX_SLICE_NONE}, &(int64_t){2}, 1);
    zs = moved(z, &m);
    nx_move_flip(&m, &(int){0}, 1);
    xf = moved(x, &m);
    nx_move_expand(&m, &(int64_t){N}, 1);
    yb = moved(y1, &m);
    int a1 = nx_cpu_add(zc, x, y);
    if (dt == NX_BIT) {
      CHECK(a1 == NX_DECLINED, "nx_cpu_add of bit: %s", answer_name(a1));
      CHECK(nx_add(zc, x, y) == NX_EINVAL &&
                strcmp(nx_error_message(), "nx_add: nx_cpu_add does not compute this case") == 0,
            "nx_add of bit: %s", nx_error_message());
      CHECK(memcmp(before, zm, (size_t)nb) == 0, "a declined add wrote");
    } else {
      CHECK(a1 == NX_DONE, "nx_cpu_add of %s: %s %s", nx_dtype_name(dt), answer_name(a1), nx_error_message());
      int a2 = nx_cpu_add(zs, xf, yb);
      CHECK(a2 == NX_DONE, "nx_cpu_add of %s views: %s", nx_dtype_name(dt), answer_name(a2));
      /* Element by element: z[0:N] = x + y, then z[1 + 2i] = x[N-1-i] +
         y1[0]; z's even positions past N keep their bits. NaN + NaN is
         either operand's NaN (the seed does not say which; the compiler may
         commute the addition), so both orders are accepted. */
      nx_buffer_wait(nx_array_buffer(z), NX_ACCESS_READ);
      uint8_t xb[16], ybits[16], r1[16], r2[16], g[16];
      long bad = 0;
      for (int64_t p = 0; p < 2 * N; p++) {
        int64_t xi = p < N ? p : N - 1 - (p - 1) / 2;
        int in_add = p < N || (p % 2 == 1);
        uint8_t *ysrc = p < N ? ym : y1m;
        int64_t yi = p < N ? p : 0;
        /* Positions below N were overwritten by the second add where odd. */
        if (p < N && p % 2 == 1) xi = N - 1 - (p - 1) / 2, ysrc = y1m, yi = 0;
        memset(g, 0, 16), memset(r1, 0, 16), memset(r2, 0, 16);
        elem_get(zm, p, w, g);
        if (!in_add) {
          elem_get(before, p, w, r1);
          bad += memcmp(g, r1, 16) != 0;
          continue;
        }
        elem_get(xm, xi, w, xb);
        elem_get(ysrc, yi, w, ybits);
        expect_add(dt, xb, ybits, r1);
        expect_add(dt, ybits, xb, r2);
        if (memcmp(g, r1, 16) && memcmp(g, r2, 16) && ++bad <= 3) {
          uint64_t gv, ev;
          memcpy(&gv, g, 8);
          memcpy(&ev, r1, 8);
          CHECK(0, "nx_cpu_add of %s: element %lld is %016llx, expected %016llx", nx_dtype_name(dt), (long long)p,
                (unsigned long long)gv, (unsigned long long)ev);
        }
      }
      CHECK(bad == 0, "nx_cpu_add of %s: %ld elements wrong", nx_dtype_name(dt), bad);
      elems += 2 * N;
      CHECK(nx_add(zc, x, y) == 0, "nx_add of %s: %s", nx_dtype_name(dt), nx_error_message());
    }
    /* Wrong_dtype and Shape_mismatch. */
    nx_dtype other = dt == NX_FLOAT32 ? NX_INT32 : NX_FLOAT32;
    nx_array *o = NULL, *s4 = NULL;
    CHECK(nx_array_host(other, &(int64_t){N}, 1, &o) == 0, "other");
    CHECK(nx_array_host(dt, &(int64_t){N + 1}, 1, &s4) == 0, "longer");
    int a = nx_cpu_add(zc, x, o);
    CHECK(a == NX_WRONG_DTYPE, "%s + %s: %s", nx_dtype_name(dt), nx_dtype_name(other), answer_name(a));
    char desc[64];
    snprintf(desc, sizeof desc, "%s [%d]", nx_dtype_name(other), N);
    CHECK(nx_add(zc, x, o) == NX_EINVAL && strstr(nx_error_message(), "nx_add: ") == nx_error_message() &&
              strstr(nx_error_message(), "dtype") && strstr(nx_error_message(), desc),
          "nx_add of mixed dtypes: %s", nx_error_message());
    a = nx_cpu_add(o, x, y);
    CHECK(a == NX_WRONG_DTYPE, "%s into %s: %s", nx_dtype_name(dt), nx_dtype_name(other), answer_name(a));
    a = nx_cpu_add(zc, x, s4);
    CHECK(a == NX_SHAPE_MISMATCH, "[%d] + [%d] of %s: %s", N, N + 1, nx_dtype_name(dt), answer_name(a));
    snprintf(desc, sizeof desc, "%s [%d]", nx_dtype_name(dt), N + 1);
    CHECK(nx_add(zc, x, s4) == NX_EINVAL && strstr(nx_error_message(), "fit") && strstr(nx_error_message(), desc),
          "nx_add of mixed shapes: %s", nx_error_message());
    a = nx_cpu_add(s4, x, y);
    CHECK(a == NX_SHAPE_MISMATCH, "[%d] into [%d]: %s", N, N + 1, answer_name(a));
    /* The door's refusals come first: z overlapping x. */
    a = nx_cpu_add(x, xf, y);
    CHECK(a == (dt == NX_BIT ? NX_OVERLAPPING : NX_OVERLAPPING), "x = flip(x) + y: %s", answer_name(a));
    a = nx_cpu_add(x, x, y);
    CHECK(a == (dt == NX_BIT ? NX_DECLINED : NX_DONE), "x = x + y (identical): %s", answer_name(a));
    nx_array_free(o);
    nx_array_free(s4);
    nx_array_free(zc);
    nx_array_free(zs);
    nx_array_free(xf);
    nx_array_free(yb);
    free(before);
    nx_array_free(x);
    nx_array_free(y);
    nx_array_free(y1);
    nx_array_free(z);
  }
  printf("nx_cpu_add: %ld elements checked over %d dtypes\n", elems, NX_DTYPE_COUNT - 1);
}

int main(void) {
  double t0 = now_s();
  if (!NX_TEST_OPENCL_BUILT) {
    /* opencl:0 serves only as memory the host cannot address: a test
       device's is such memory too. */
    R.host = nx_rig_host();
    CHECK(nx_rig_test_device(&R.test) == 0, "nx_rig_test_device: %s", nx_error_message());
    if (!R.test) return check_done();
    R.ocl0 = R.test;
    printf("a test device stands in for opencl:0: %s\n", NX_TEST_NO_OPENCL_REASON);
  } else if (arr_need_devices(&R)) {
    return check_done();
  }
  build_ops();
  test_precedence(1);
  test_precedence(0);
  printf("precedence: %ld combinations, %ld refusal messages; by answer:", combos, refusals_checked);
  for (int a = 0; a <= NX_SHAPE_MISMATCH; a++)
    if (by_answer[a]) printf(" %s %ld", answer_name(a), by_answer[a]);
  printf("\n");
  CHECK(by_answer[NX_DONE] && by_answer[NX_DEAD_BUFFER] && by_answer[NX_HELD_EXCLUSIVE] && by_answer[NX_READ_ONLY] &&
            by_answer[NX_OFF_HOST] && by_answer[NX_REPEATED_ELEMENTS] && by_answer[NX_OVERLAPPING],
        "the table reaches every answer of the door");
  test_device_door();
  int ns[] = {19, 40, 100, 288, 300};
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
    test_many(1, ns[i]);
    test_many(0, ns[i]);
  }
  free_ops();
  test_refused();
  test_add();
  printf("test_door: %.2f s\n", now_s() - t0);
  return check_done();
}
