/* SPDX-License-Identifier: Apache-2.0 */
/* Placement and the door at their edges, each a case that once went wrong:
   - host-addressed placement is synchronous: to_device, copy, a host->host
     transfer, a transfer into wrapped memory (as a DLPack import gives) and
     host <-> OpenCL io memory hold the bytes when they return, though the
     timeline that a device copy would run on is held back; and a store to a
     wrapped source right after a transfer's return does not reach dst;
   - sharing and identity over memory the host does not address go by the
     buffers' memory and offsets: an array written and read through the door
     as itself, disjoint written views of one buffer, transfer(a, a), and a
     transfer between disjoint views of one buffer, on OpenCL and a test
     device;
   - a strided to_device or transfer whose device copy fails (a lost test
     device) fails with NX_ELOST, releasing its staging once;
   - messages: nx_array_move names itself and its operand's dtype and shape;
     nx_array_of_array names the index and the value out of range;
   - int64 edges: nx_array_get on an empty layout at offset INT64_MAX, and
     on strides whose positions pass int64, fails cleanly;
   - steps past the stride bound: a slice that nx_move_shape accepts with
     one index or none (step 2^62, INT64_MAX, INT64_MIN) moves the array too;
   - a lost device's memory through the host door is NX_ELOST, not Off_host;
   - fresh buffers: the suite's allocator fills host storage with 0xA5, and
     to_device of a sub-byte array still gives a last byte zero past its last
     element on every device. */

#include "test_array_common.h"
#include "nx_alloc.h"

static arr_devices R;

/* ---- Synchronous host-addressed placement ------------------------------ */

#define MIB (1 << 20)

static void sleep_work(void *ctx) {
  struct timespec t = {0, (long)(intptr_t)ctx * 1000000L};
  nanosleep(&t, NULL);
}

/* Holds d's timeline back for ms milliseconds with work over an unrelated
   buffer. */
static nx_buffer *hold_back(nx_device *d, int ms) {
  nx_buffer *u = NULL;
  CHECK(nx_buffer_create(d, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 64, &u) == 0, "create: %s", nx_error_message());
  if (!u) return NULL;
  CHECK(nx_rig_submit(d, NULL, 0, &u, 1, sleep_work, (void *)(intptr_t)ms) == 0, "submit: %s", nx_error_message());
  return u;
}

static void fill_pattern(uint8_t *p, int64_t n, unsigned seed) {
  for (int64_t i = 0; i < n; i++) p[i] = (uint8_t)(seed + (unsigned)i * 7u + (unsigned)(i >> 8));
}

/* A host array of n uint8 holding the pattern, over memory of that kind on d. */
static nx_array *patterned(nx_device *d, nx_memory_kind kind, int64_t n, unsigned seed) {
  nx_array *a = NULL;
  CHECK(nx_array_create(d, kind, NX_UINT8, &n, 1, &a) == 0, "create on %s: %s", nx_device_name(d), nx_error_message());
  if (!a) return NULL;
  uint8_t *p = malloc((size_t)n);
  fill_pattern(p, n, seed);
  CHECK(raw_write(nx_array_buffer(a), p) == 0, "raw write: %s", nx_error_message());
  free(p);
  return a;
}

/* Whether the n bytes at p are the pattern of seed, read with no wait. */
static bool holds(const void *p, int64_t n, unsigned seed) {
  uint8_t *want = malloc((size_t)n);
  fill_pattern(want, n, seed);
  bool ok = p && memcmp(p, want, (size_t)n) == 0;
  free(want);
  return ok;
}

static void test_sync_placement(void) {
  int64_t n = MIB;
  nx_array *a = patterned(R.host, NX_MEMORY_DEVICE, n, 1), *r = NULL;
  if (!a) return;

  nx_buffer *u = hold_back(R.host, 120);
  CHECK(nx_array_to_device(R.host, a, &r) == 0, "to_device: %s", nx_error_message());
  CHECK(r && holds(nx_buffer_host_address(nx_array_buffer(r)), n, 1), "to_device host -> host returned before the bytes");
  nx_array_free(r), r = NULL;
  nx_buffer_release(u);

  u = hold_back(R.host, 120);
  CHECK(nx_array_copy(a, &r) == 0, "copy: %s", nx_error_message());
  CHECK(r && holds(nx_buffer_host_address(nx_array_buffer(r)), n, 1), "copy on the host returned before the bytes");
  nx_array_free(r), r = NULL;
  nx_buffer_release(u);

  nx_array *d = patterned(R.host, NX_MEMORY_DEVICE, n, 2);
  u = hold_back(R.host, 120);
  CHECK(d && nx_array_transfer(a, d) == 0, "transfer: %s", nx_error_message());
  CHECK(d && holds(nx_buffer_host_address(nx_array_buffer(d)), n, 1), "transfer host -> host returned before the bytes");
  nx_buffer_release(u);
  nx_array_free(d);

  /* Into wrapped memory, as nx_array_from_dlpack makes. */
  uint8_t *w = malloc((size_t)n);
  memset(w, 0, (size_t)n);
  nx_buffer *wb = NULL;
  nx_array *wa = NULL;
  nx_layout l;
  nx_layout_contiguous(&n, 1, &l);
  CHECK(nx_buffer_wrap_host(w, n, NX_ACCESS_READ_WRITE, NULL, NULL, &wb) == 0 && nx_array_v(NX_UINT8, &l, wb, &wa) == 0,
        "wrap: %s", nx_error_message());
  u = hold_back(R.host, 120);
  CHECK(wa && nx_array_transfer(a, wa) == 0, "transfer into wrapped memory: %s", nx_error_message());
  CHECK(holds(w, n, 1), "a transfer into wrapped memory returned before the bytes");
  nx_buffer_release(u);

  /* From wrapped memory: a store right after the return does not reach dst. */
  nx_array *d2 = patterned(R.host, NX_MEMORY_DEVICE, n, 3);
  u = hold_back(R.host, 120);
  CHECK(wa && d2 && nx_array_transfer(wa, d2) == 0, "transfer from wrapped memory: %s", nx_error_message());
  memset(w, 0xEE, (size_t)n);
  CHECK(d2 && nx_buffer_wait(nx_array_buffer(d2), NX_ACCESS_READ) == 0 &&
            holds(nx_buffer_host_address(nx_array_buffer(d2)), n, 1),
        "a store to the wrapped source after the transfer returned reached dst");
  nx_buffer_release(u);
  nx_array_free(d2);
  nx_array_free(wa);
  nx_buffer_release(wb);
  free(w);

  /* Host <-> OpenCL io memory: both host-addressed. */
  for (int dir = 0; dir < 2; dir++) {
    nx_array *io = patterned(R.ocl0, NX_MEMORY_IO, n, 4);
    nx_array *h = patterned(R.host, NX_MEMORY_DEVICE, n, 5);
    if (!io || !h) continue;
    nx_buffer *u0 = hold_back(R.ocl0, 120), *u1 = hold_back(R.host, 120);
    CHECK(nx_array_transfer(dir ? io : h, dir ? h : io) == 0, "transfer with io memory: %s", nx_error_message());
    void *p = nx_buffer_host_address(nx_array_buffer(dir ? h : io));
    /* The io pages are OpenCL's to map: wait for nothing but the mapping
       (the transfer ended every write it made). */
    CHECK(holds(p, n, dir ? 4 : 5), "transfer %s returned before the bytes", dir ? "io -> host" : "host -> io");
    nx_buffer_release(u0);
    nx_buffer_release(u1);
    nx_array_free(io);
    nx_array_free(h);
  }
  nx_array_free(a);
  nx_device_sync(R.host);
}

/* ---- Sharing by memory and offsets ------------------------------------- */

static int ran;
static int count_run(void *ctx) {
  (void)ctx;
  ran++;
  return 0;
}

/* Two wraps of one host memory at a distance that is no whole number of
   the elements (complex ones are wider than their alignment): compared as
   bytes, they share only where bytes meet (before: always "may share"). */
static nx_answer count_host(void *ctx, const nx_operand *ops, int nw, int nr) {
  (void)ctx, (void)ops, (void)nw, (void)nr;
  ran++;
  return NX_DONE;
}

static void test_wrapped_distance(void) {
  static _Alignas(64) unsigned char mem[128];
  nx_buffer *b1 = NULL, *b2 = NULL;
  CHECK(nx_buffer_wrap_host(mem, 64, NX_ACCESS_READ_WRITE, NULL, NULL, &b1) == 0 &&
            nx_buffer_wrap_host(mem + 8, 64, NX_ACCESS_READ_WRITE, NULL, NULL, &b2) == 0,
        "wrap: %s", nx_error_message());
  if (!b1 || !b2) return;
  static const struct {
    nx_dtype dp, dq;
    int64_t oq; /* q's offset in its elements, from mem + 8 */
    bool share;
  } cases[] = {{NX_COMPLEX128, NX_COMPLEX128, 1, false}, /* bytes 0..15 and 24..39 */
               {NX_COMPLEX128, NX_COMPLEX128, 0, true},  /* 0..15 and 8..23 */
               {NX_COMPLEX128, NX_UINT8, 8, false},      /* 0..15 and byte 16 */
               {NX_COMPLEX128, NX_UINT8, 7, true},       /* byte 15 */
               {NX_COMPLEX64, NX_COMPLEX64, 1, false},   /* 0..7 of a [1] and 16..23 */
               {NX_UINT8, NX_COMPLEX128, 0, false},      /* the lower one narrow: byte 0 and 8..23 */
               {NX_INT4, NX_COMPLEX128, 0, false}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    nx_layout l;
    int64_t one = 1;
    nx_layout_contiguous(&one, 1, &l);
    nx_array *p = NULL, *q = NULL;
    CHECK(nx_array_v(cases[k].dp, &l, b1, &p) == 0, "case %zu: p: %s", k, nx_error_message());
    l.offset = cases[k].oq;
    CHECK(nx_array_v(cases[k].dq, &l, b2, &q) == 0, "case %zu: q: %s", k, nx_error_message());
    if (p && q) {
      nx_array *both[2] = {p, q};
      ran = 0;
      int s = nx_door_host(both, 1, both + 1, 1, count_host, NULL);
      CHECK(cases[k].share ? s == NX_OVERLAPPING && ran == 0 : s == NX_DONE && ran == 1,
            "case %zu: %s written and %s read, sharing %s: answer %d", k, nx_dtype_name(cases[k].dp),
            nx_dtype_name(cases[k].dq), cases[k].share ? "bytes" : "none", s);
      both[0] = q, both[1] = p;
      s = nx_door_host(both, 1, both + 1, 1, count_host, NULL);
      CHECK(cases[k].share ? s == NX_OVERLAPPING : s == NX_DONE, "case %zu, the other way: answer %d", k, s);
      if (cases[k].dp == cases[k].dq)
        CHECK((nx_array_transfer(p, q) == 0) == !cases[k].share, "case %zu: transfer: %s", k, nx_error_message());
    }
    nx_array_free(p), nx_array_free(q);
  }
  nx_buffer_release(b1), nx_buffer_release(b2);
}

static void test_sharing(void) {
  nx_device *devs[3] = {R.ocl0, R.test, R.host};
  for (int k = 0; k < 3; k++) {
    nx_device *d = devs[k];
    nx_array *a = NULL;
    int64_t four = 4, sixteen = 16;
    CHECK(nx_array_create(d, NX_MEMORY_DEVICE, NX_FLOAT32, &four, 1, &a) == 0, "create: %s", nx_error_message());
    if (!a) continue;
    ran = 0;
    int s = nx_door(&a, 1, &a, 1, count_run, NULL);
    CHECK(s == NX_DONE && ran == 1, "%s: an array written and read as itself: answer %d, ran %d", nx_device_name(d), s,
          ran);
    CHECK(nx_array_transfer(a, a) == 0, "%s: transfer(a, a): %s", nx_device_name(d), nx_error_message());

    /* Two disjoint halves of one 64-byte buffer. */
    nx_array *whole = NULL, *lo = NULL, *hi = NULL;
    CHECK(nx_array_create(d, NX_MEMORY_DEVICE, NX_FLOAT32, &sixteen, 1, &whole) == 0, "create: %s", nx_error_message());
    if (!whole) continue;
    uint8_t bytes[64], got[64];
    for (int i = 0; i < 64; i++) bytes[i] = (uint8_t)(i + 1);
    CHECK(raw_write(nx_array_buffer(whole), bytes) == 0, "raw write");
    nx_layout l0, l1;
    nx_layout_make(1, (int64_t[]){8}, NULL, 0, &l0);
    nx_layout_make(1, (int64_t[]){8}, NULL, 8, &l1);
    CHECK(nx_array_v(NX_FLOAT32, &l0, nx_array_buffer(whole), &lo) == 0 &&
              nx_array_v(NX_FLOAT32, &l1, nx_array_buffer(whole), &hi) == 0,
          "views: %s", nx_error_message());
    nx_array *both[2] = {lo, hi};
    ran = 0;
    s = nx_door(both, 2, NULL, 0, count_run, NULL);
    CHECK(s == NX_DONE && ran == 1, "%s: two disjoint written views of one buffer: answer %d", nx_device_name(d), s);
    /* And views that share bytes are still refused. */
    nx_layout lm;
    nx_array *mid = NULL;
    nx_layout_make(1, (int64_t[]){8}, NULL, 4, &lm);
    CHECK(nx_array_v(NX_FLOAT32, &lm, nx_array_buffer(whole), &mid) == 0, "view: %s", nx_error_message());
    nx_array *over[2] = {lo, mid};
    s = nx_door(over, 2, NULL, 0, count_run, NULL);
    CHECK(s == NX_OVERLAPPING, "%s: two overlapping written views: answer %d", nx_device_name(d), s);
    s = nx_array_transfer(lo, mid);
    EXPECT_FAIL(s, NX_EINVAL, "nx_array_transfer", "shares a byte");
    /* A transfer between the disjoint halves. */
    CHECK(nx_array_transfer(lo, hi) == 0, "%s: transfer between disjoint views: %s", nx_device_name(d),
          nx_error_message());
    CHECK(raw_read(nx_array_buffer(whole), got) == 0 && memcmp(got, bytes, 32) == 0 && memcmp(got + 32, bytes, 32) == 0,
          "%s: the transfer between halves moved the wrong bytes", nx_device_name(d));
    nx_array_free(mid);
    nx_array_free(lo);
    nx_array_free(hi);
    nx_array_free(whole);
    nx_array_free(a);
  }
}

/* ---- Failing device copies --------------------------------------------- */

static void test_failing_copy(void) {
  for (int op = 0; op < 2; op++) {
    nx_device *t = NULL;
    CHECK(nx_rig_test_device(&t) == 0, "test device: %s", nx_error_message());
    if (!t) return;
    int64_t sixteen = 16;
    nx_array *whole = NULL, *a = NULL, *r = NULL, *dst = NULL;
    CHECK(nx_array_create(t, NX_MEMORY_DEVICE, NX_FLOAT32, &sixteen, 1, &whole) == 0, "create: %s", nx_error_message());
    if (!whole) return;
    nx_layout ls;
    nx_layout_make(1, (int64_t[]){4}, (int64_t[]){3}, 1, &ls); /* strided: staged on the host */
    CHECK(nx_array_v(NX_FLOAT32, &ls, nx_array_buffer(whole), &a) == 0, "view: %s", nx_error_message());
    CHECK(nx_array_host(NX_FLOAT32, (int64_t[]){4}, 1, &dst) == 0, "host: %s", nx_error_message());
    nx_device_sync(t);
    CHECK(nx_test_device_fail(t, NX_FAULT_WHILE_RUNNING) == 0, "arm");
    int s = op ? nx_array_transfer(a, dst) : nx_array_to_device(R.host, a, &r);
    CHECK(s == NX_ELOST, "%s of a strided array whose device copy fails: %d (%s)", op ? "transfer" : "to_device", s,
          nx_error_message());
    CHECK(nx_buffer_refcount(nx_array_buffer(a)) == 2, "the source's buffer holds %d references",
          nx_buffer_refcount(nx_array_buffer(a)));
    nx_array_free(r);
    nx_array_free(dst);
    nx_array_free(a);
    nx_array_free(whole);
  }
}

/* ---- Messages ---------------------------------------------------------- */

static void test_messages(void) {
  nx_array *a = NULL, *r = NULL;
  CHECK(nx_array_host(NX_FLOAT32, (int64_t[]){3, 4}, 2, &a) == 0, "host: %s", nx_error_message());
  nx_move m;
  CHECK(nx_move_reshape(&m, (int64_t[]){5}, 1) == 0, "move: %s", nx_error_message());
  int s = nx_array_move(&m, a, &r);
  EXPECT_FAIL(s, NX_EINVAL, "nx_array_move", "float32 [3; 4]");
  CHECK(strncmp(nx_error_message(), "nx_array_move", 13) == 0, "the message starts with another name: %s",
        nx_error_message());
  nx_array_free(a);

  nx_value v[2] = {{.i = 1}, {.i = 300}};
  s = nx_array_of_array(NX_INT8, (int64_t[]){2}, 1, v, 2, &r);
  EXPECT_FAIL(s, NX_EINVAL, "nx_array_of_array", "300", "index 1", "int8");
}

/* ---- int64 edges ------------------------------------------------------- */

static void test_int64_edges(void) {
  nx_buffer *b = NULL;
  CHECK(nx_buffer_create(R.host, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 64, &b) == 0, "create");
  if (!b) return;
  const int64_t X = INT64_MAX / 3;
  struct {
    int rank;
    int64_t extent[3], stride[3], offset;
  } cases[] = {
      {2, {3, 0}, {X, 1}, INT64_MAX},
      {3, {3, 3, 0}, {X, X, 1}, 0},
      {2, {0, 3}, {1, X}, INT64_MAX},
      {1, {0}, {1}, INT64_MAX},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    nx_layout l;
    nx_array *a = NULL;
    if (nx_layout_make(cases[k].rank, cases[k].extent, cases[k].stride, cases[k].offset, &l) != 0) continue;
    if (nx_array_v(NX_UINT8, &l, b, &a) != 0) continue; /* refused up front: as good */
    int64_t index[3] = {2, 2, 2};
    nx_value v;
    int s = nx_array_get(a, index, &v);
    EXPECT_FAIL(s, NX_EINVAL, "nx_array_get", "uint8");
    s = nx_array_set(a, index, (nx_value){.u = 1});
    EXPECT_FAIL(s, NX_EINVAL, "nx_array_set", "uint8");
    nx_array_free(a);
  }
  nx_buffer_release(b);
}

/* With an argument, only the part it names (messages, int64, sharing,
   failing, sync): each part alone, as when one of them aborts under UBSan. */
/* ---- Steps past the stride bound --------------------------------------- */

static void test_huge_steps(void) {
  nx_value xs[5];
  for (int i = 0; i < 5; i++) xs[i].u = (uint64_t)(10 + i);
  nx_array *a = NULL;
  CHECK(nx_array_of_array(NX_UINT8, (int64_t[]){5}, 1, xs, 5, &a) == 0, "of_array: %s", nx_error_message());
  if (!a) return;
  /* One index: the stride reaches nothing, so the old one stays where the
     new one would pass the bound or overflow; no index at all the same. */
  const int64_t steps[] = {NX_LAYOUT_LIMIT, INT64_MAX, -NX_LAYOUT_LIMIT, INT64_MIN + 1, INT64_MIN, NX_LAYOUT_LIMIT - 1};
  for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++)
    for (int empty = 0; empty < 2; empty++) {
      nx_move m;
      int64_t lo = empty ? (steps[k] > 0 ? 5 : 0) : NX_SLICE_NONE, hi = empty ? (steps[k] > 0 ? 0 : 5) : NX_SLICE_NONE;
      int64_t shape[NX_MAX_RANK];
      int rank = -1;
      CHECK(nx_move_slice(&m, &lo, &hi, &steps[k], 1) == 0, "slice: %s", nx_error_message());
      CHECK(nx_move_shape(&m, (int64_t[]){5}, 1, shape, &rank) == 0 && rank == 1 && shape[0] == 1 - empty,
            "nx_move_shape, step %lld: %s", (long long)steps[k], nx_error_message());
      nx_array *r = NULL;
      int s = nx_array_move(&m, a, &r);
      CHECK(s == 0 && r, "nx_array_move of uint8 [5], step %lld%s: %d (%s)", (long long)steps[k],
            empty ? ", no index" : "", s, nx_error_message());
      if (!r) continue;
      const nx_layout *l = nx_array_layout(r);
      int64_t want = steps[k] == NX_LAYOUT_LIMIT - 1 ? steps[k] : 1;
      CHECK(l->extent[0] == 1 - empty && l->stride[0] == want, "step %lld: [%lld] at [%lld]", (long long)steps[k],
            (long long)l->extent[0], (long long)l->stride[0]);
      nx_value v = {0};
      if (!empty)
        CHECK(nx_array_get(r, (int64_t[]){0}, &v) == 0 && v.u == (steps[k] > 0 ? 10u : 14u),
              "step %lld: element %llu (%s)", (long long)steps[k], (unsigned long long)v.u, nx_error_message());
      nx_array_free(r);
    }
  nx_array_free(a);
}

/* ---- A lost device's memory through the host door ---------------------- */

static nx_answer count_kernel(void *ctx, const nx_operand *ops, int nw, int nr) {
  (void)ops, (void)nw, (void)nr;
  ++*(int *)ctx;
  return NX_DONE;
}

static void test_lost_door(void) {
  nx_device *t = NULL;
  CHECK(nx_rig_test_device(&t) == 0, "test device: %s", nx_error_message());
  if (!t) return;
  nx_array *a = NULL, *h = NULL;
  CHECK(nx_array_create(t, NX_MEMORY_DEVICE, NX_FLOAT32, (int64_t[]){4}, 1, &a) == 0, "create: %s", nx_error_message());
  CHECK(nx_array_host(NX_FLOAT32, (int64_t[]){4}, 1, &h) == 0, "host: %s", nx_error_message());
  if (!a || !h) return;
  nx_device_sync(t);
  CHECK(nx_test_device_fail(t, NX_FAULT_AT_SUBMIT) == 0, "arm");
  CHECK(nx_rig_submit_fill(nx_array_buffer(a), 0, 16, 0) == NX_ELOST, "the armed submission did not fail");
  CHECK(nx_device_lost(t) && nx_buffer_lost(nx_array_buffer(a)), "the test device is not lost");
  /* Its memory is also off the host: loss comes first, as nx_door's. */
  int kernel_ran = 0;
  for (int written = 0; written < 2; written++) {
    nx_array *ops[2] = {a, h};
    int s = written ? nx_door_host(ops, 1, ops + 1, 1, count_kernel, &kernel_ran)
                    : nx_door_host(ops + 1, 1, ops, 1, count_kernel, &kernel_ran);
    EXPECT_FAIL(s, NX_ELOST, "nx_door_host", "lost");
    s = written ? nx_door(ops, 1, ops + 1, 1, count_run, NULL) : nx_door(ops + 1, 1, ops, 1, count_run, NULL);
    EXPECT_FAIL(s, NX_ELOST, "nx_door", "lost");
  }
  CHECK(kernel_ran == 0, "the kernel ran %d times over a lost device's memory", kernel_ran);
  /* No claim is left: a donation can hold the host operand. */
  CHECK(nx_buffer_hold_exclusive(nx_array_buffer(h)) == 0 && nx_buffer_unhold(nx_array_buffer(h)) == 0,
        "the host operand is still claimed: %s", nx_error_message());
  nx_array_free(h);
  nx_array_free(a);
}

/* The rig's failures (a lost device, its lost memory) as the array
   functions report them: named for the function called and its operands,
   not for the rig's function that found them. */
static bool named(const char *fn, const char *operand) {
  const char *m = nx_error_message();
  return strncmp(m, fn, strlen(fn)) == 0 && m[strlen(fn)] == ':' && strstr(m, operand) && strstr(m, "lost");
}

static void test_lost_named(void) {
  nx_device *t = NULL;
  CHECK(nx_rig_test_device(&t) == 0, "test device: %s", nx_error_message());
  if (!t) return;
  nx_array *a = NULL, *h = NULL, *r = NULL;
  int64_t four = 4, i0 = 0;
  CHECK(nx_array_create(t, NX_MEMORY_DEVICE, NX_FLOAT32, &four, 1, &a) == 0 &&
            nx_array_create(nx_rig_host(), NX_MEMORY_HOST, NX_INT16, &four, 1, &h) == 0,
        "create: %s", nx_error_message());
  if (!a || !h) return;
  /* h must follow a copy the lost device does not finish: h's memory is lost */
  nx_array *a16 = NULL;
  CHECK(nx_array_create(t, NX_MEMORY_DEVICE, NX_INT16, &four, 1, &a16) == 0, "create: %s", nx_error_message());
  nx_device_sync(t);
  CHECK(nx_test_device_fail(t, NX_FAULT_WHILE_RUNNING) == 0, "arm");
  CHECK(a16 && nx_array_transfer(a16, h) == 0, "transfer: %s", nx_error_message());
  nx_value v = {0}, vs[4];
  CHECK(nx_array_get(h, &i0, &v) == NX_ELOST && named("nx_array_get", "int16 [4]"), "get: %s", nx_error_message());
  CHECK(nx_array_set(h, &i0, v) == NX_ELOST && named("nx_array_set", "int16 [4]"), "set: %s", nx_error_message());
  CHECK(nx_array_to_array(h, vs, 4) == NX_ELOST && named("nx_array_to_array", "int16 [4]"), "to_array: %s",
        nx_error_message());
  CHECK(nx_array_to_device(nx_rig_host(), h, &r) == NX_ELOST && named("nx_array_to_device", "int16 [4]"),
        "to_device: %s", nx_error_message());
  CHECK(nx_array_to_device(t, a, &r) == NX_ELOST && named("nx_array_to_device", "float32 [4]"),
        "to_device onto the lost device: %s", nx_error_message());
  nx_array *h32 = NULL;
  nx_array_host(NX_FLOAT32, &four, 1, &h32);
  CHECK(h32 && nx_array_transfer(h32, a) == NX_ELOST && named("nx_array_transfer", "float32 [4] into float32 [4]"),
        "transfer onto the lost device: %s", nx_error_message());
  nx_array_free(h32), nx_array_free(a16), nx_array_free(h), nx_array_free(a);
}

/* ---- Fresh buffers' bits ----------------------------------------------- */

/* The suite's allocator: host storage comes filled with 0xA5, so a bit that
   nx leaves unset shows. */
static void *poisoned_aligned_alloc(size_t alignment, size_t size) {
  void *p = aligned_alloc(alignment, size);
  if (p) memset(p, 0xA5, size);
  return p;
}

static void test_fresh_bits(void) {
  nx_value xs[5];
  for (int i = 0; i < 5; i++) xs[i].i = i - 2;
  nx_array *a = NULL, *v = NULL;
  CHECK(nx_array_of_array(NX_INT4, (int64_t[]){5}, 1, xs, 5, &a) == 0, "of_array: %s", nx_error_message());
  nx_move m;
  CHECK(nx_move_slice(&m, &(int64_t){NX_SLICE_NONE}, &(int64_t){NX_SLICE_NONE}, &(int64_t){-2}, 1) == 0, "slice");
  CHECK(a && nx_array_move(&m, a, &v) == 0, "move: %s", nx_error_message());
  if (!v) return;
  /* Elements 4, 2, 0 (2, 0, -2) at stride -1 from position 2: the dense
     rule gathers them into 1.5 bytes, 0xE 0x0 in the first, 0x2 and a zero
     nibble in the last. */
  nx_device *devs[3] = {R.host, R.ocl0, R.test};
  for (int k = 0; k < 3; k++) {
    nx_array *r = NULL;
    CHECK(nx_array_to_device(devs[k], v, &r) == 0, "to_device %s: %s", nx_device_name(devs[k]), nx_error_message());
    if (!r) continue;
    uint8_t got[2] = {0xFF, 0xFF};
    CHECK(nx_buffer_bytes(nx_array_buffer(r)) == 2 && raw_read(nx_array_buffer(r), got) == 0, "read: %s",
          nx_error_message());
    CHECK(got[0] == 0x0E && got[1] == 0x02, "to_device %s of int4 [5] sliced ::-2: bytes %02x %02x, want 0e 02",
          nx_device_name(devs[k]), got[0], got[1]);
    nx_array_free(r);
  }
  nx_array_free(v);
  nx_array_free(a);
}

int main(int argc, char **argv) {
  static const struct {
    const char *name;
    void (*run)(void);
  } parts[] = {{"messages", test_messages}, {"int64", test_int64_edges},   {"sharing", test_sharing},
               {"failing", test_failing_copy}, {"sync", test_sync_placement}, {"steps", test_huge_steps},
               {"lost", test_lost_door},       {"fresh", test_fresh_bits},
               {"wraps", test_wrapped_distance}, {"lost_named", test_lost_named}};
  /* Before anything else of nx, while it holds no memory. */
  static const nx_allocator poisoning = {malloc, calloc, realloc, poisoned_aligned_alloc, free};
  CHECK(nx_set_allocator(&poisoning) == 0, "nx_set_allocator: %s", nx_error_message());
  if (arr_need_devices(&R)) return check_done();
  for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
    if (argc < 2 || strcmp(argv[1], parts[k].name) == 0) parts[k].run();
  return check_done();
}
