/* SPDX-License-Identifier: Apache-2.0 */
/* The device kernels against the host kernels, bit for bit: one source,
   built twice, test_devices_opencl (PoCL in CI) and, with NX_TEST_CUDA,
   test_devices_cuda (a GPU's; skipped without one).

   Every operation the device kernels compute runs twice on the same bytes
   over the same random strided layouts (negative and zero strides, offsets,
   transposes, sub-byte dtypes): once on host arrays through the host
   kernels, whose results the kernels suites check against their oracles,
   and once on arrays of the device. Every byte of the written buffers
   must agree, the bits outside the written elements included. Inputs are
   random bits, so NaNs with payloads, subnormals, infinities and integer
   extremes all occur. Covered: cast (all 441 pairs), fill, copy, assign,
   where, eq ne lt le, the exact binary and unary operations of every dtype;
   declined operations (pow, atan2, the transcendentals, complex division
   and recip) fail on device memory and fall through to the host on memory
   the host addresses. Then the refusals: operands on two devices, the
   door's answers on device operands, dtype and shape mismatches, a test
   device's operand with the device's. Layouts large enough to split over
   work items and tiles are covered too (large_cases). Then, on OpenCL, the program cache:
   two child processes with one fresh NX_CACHE_DIR, the first building the
   program from source, the second loading it from disk. Without a device
   the suite is skipped. */
#define _POSIX_C_SOURCE 200809L
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../array/test_array_common.h"
#include "nx_kernels.h"

#include "rig_test.h"

extern char **environ;
void nx__opencl_program_stats(int *built, int *loaded);
int nx__opencl_build_attempts(void);
void nx__opencl_test_break_build(bool on);
const char *nx__cuda_absent(void);

/* The backend under test: its devices' names, its kernels' name in
   messages, and the host-addressed kind of its memory (the second pass of
   binary operations, where declined cases fall through to the host). */
#ifdef NX_TEST_CUDA
#define PREFIX "cuda"
#define BACKEND "CUDA"
#define SHARED_KIND NX_MEMORY_HOST
#else
#define PREFIX "opencl"
#define BACKEND "OpenCL"
#define SHARED_KIND NX_MEMORY_IO
#endif

static uint64_t seed = 0x5eed0fde71ce5ull;

/* ---- Layouts and operand pairs ------------------------------------------ */

/* A random layout of shape (rank r) for a dtype of `bits`: axes in a random
   order, gaps between them, some flipped, and, where `broadcast`, one axis of
   stride 0; its offset puts the lowest position at `lead` >= 0. Sets *span
   to the element positions it needs. */
static nx_layout random_layout(const int64_t *shape, int r, bool broadcast, int64_t *span) {
  nx_layout l;
  memset(&l, 0, sizeof l);
  l.rank = r;
  int perm[NX_MAX_RANK];
  for (int j = 0; j < r; j++) perm[j] = j;
  for (int j = r - 1; j > 0; j--) {
    int k = (int)(rnd(&seed) % (uint64_t)(j + 1)), t = perm[j];
    perm[j] = perm[k];
    perm[k] = t;
  }
  int64_t step = 1 + (int64_t)(rnd(&seed) % 3);
  for (int j = 0; j < r; j++) {
    int a = perm[j];
    l.extent[a] = shape[a];
    l.stride[a] = step;
    step *= (shape[a] ? shape[a] : 1) + (int64_t)(rnd(&seed) % 2);
  }
  if (broadcast && r > 0) l.stride[rnd(&seed) % (uint64_t)r] = 0;
  int64_t lo = 0, hi = 0;
  for (int j = 0; j < r; j++) {
    if (rnd(&seed) % 3 == 0) l.stride[j] = -l.stride[j];
    int64_t e = (shape[j] ? shape[j] : 1) - 1;
    if (l.stride[j] < 0) lo += e * l.stride[j];
    else hi += e * l.stride[j];
  }
  int64_t lead = (int64_t)(rnd(&seed) % 4);
  l.offset = lead - lo;
  *span = l.offset + hi + 1 + (int64_t)(rnd(&seed) % 3);
  return l;
}

/* One operand on the host and on the device: the same bytes under the same
   layout. */
typedef struct pair {
  nx_array *h, *d;
} pair;

/* Under layout l, span elements of storage. */
static pair make_pair_on(nx_device *dev, nx_memory_kind kind, nx_dtype dt, nx_layout l, int64_t span) {
  pair p = {NULL, NULL};
  int bits = nx_dtype_bits(dt);
  int64_t bytes = (span * bits + 7) / 8;
  uint8_t *raw = malloc((size_t)bytes + 1);
  for (int64_t i = 0; i < bytes; i++) raw[i] = (uint8_t)rnd(&seed);
  nx_buffer *hb = raw_buffer(nx_rig_host(), NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, bytes, raw);
  nx_buffer *db = raw_buffer(dev, kind, NX_ACCESS_READ_WRITE, bytes, raw);
  free(raw);
  if (hb && db) {
    int s1 = nx_array_v(dt, &l, hb, &p.h), s2 = nx_array_v(dt, &l, db, &p.d);
    CHECK(s1 == 0 && s2 == 0, "nx_array_v: %s", nx_error_message());
  }
  nx_buffer_release(hb);
  nx_buffer_release(db);
  return p;
}

static pair make_pair(nx_device *dev, nx_memory_kind kind, nx_dtype dt, const int64_t *shape, int r, bool broadcast) {
  int64_t span;
  nx_layout l = random_layout(shape, r, broadcast, &span);
  return make_pair_on(dev, kind, dt, l, span);
}

static void free_pair(pair p) {
  nx_array_free(p.h);
  nx_array_free(p.d);
}

/* Whether the written buffers of p agree byte for byte. */
static bool same_bytes(pair p, const char *what) {
  nx_buffer *hb = nx_array_buffer(p.h), *db = nx_array_buffer(p.d);
  int64_t n = nx_buffer_bytes(hb);
  uint8_t *a = malloc((size_t)n + 1), *b = malloc((size_t)n + 1);
  int s1 = raw_read(hb, a), s2 = raw_read(db, b);
  CHECK(s1 == 0 && s2 == 0, "%s: reading back: %s", what, nx_error_message());
  int64_t at = -1;
  for (int64_t i = 0; i < n && at < 0; i++)
    if (a[i] != b[i]) at = i;
  CHECK(at < 0, "%s: byte %lld of %lld differs: host %02x, device %02x", what, (long long)at, (long long)n,
        at >= 0 ? a[at] : 0, at >= 0 ? b[at] : 0);
  free(a);
  free(b);
  return at < 0;
}

static int random_shape(int64_t *shape) {
  int r = 1 + (int)(rnd(&seed) % 3);
  for (int j = 0; j < r; j++) shape[j] = rnd(&seed) % 8 == 0 ? 1 : 1 + (int64_t)(rnd(&seed) % 7);
  return r;
}

/* ---- The operations ------------------------------------------------------ */

typedef int (*bin_fn)(nx_array *, nx_array *, nx_array *);
typedef int (*un_fn)(nx_array *, nx_array *);
static const struct { const char *name; bin_fn f; } binaries[] = {
    {"add", nx_add}, {"sub", nx_sub}, {"mul", nx_mul}, {"fdiv", nx_fdiv}, {"idiv", nx_idiv}, {"mod", nx_mod},
    {"min", nx_min}, {"max", nx_max}, {"and", nx_and}, {"or", nx_or}, {"xor", nx_xor}, {"pow", nx_pow},
    {"atan2", nx_atan2}, {"eq", nx_eq}, {"ne", nx_ne}, {"lt", nx_lt}, {"le", nx_le}};
static const struct { const char *name; un_fn f; } unaries[] = {
    {"neg", nx_neg}, {"recip", nx_recip}, {"abs", nx_abs}, {"sqrt", nx_sqrt}, {"sign", nx_sign},
    {"trunc", nx_trunc}, {"ceil", nx_ceil}, {"floor", nx_floor}, {"round", nx_round}, {"copy", nx_copy},
    {"assign", nx_assign}, {"exp", nx_exp}, {"sin", nx_sin}};

static long agreed, declined_ok;

/* What the device kernels decline (the rest they must compute): pow, atan2,
   complex division. */
static bool declines_binary(const char *name, int dt) {
  return !strcmp(name, "pow") || !strcmp(name, "atan2") ||
         (nx_dtype_kind_of(dt) == NX_KIND_COMPLEX && !strcmp(name, "fdiv"));
}

/* Runs f on the host pair members and on the device ones; where the host
   computes the case, the device must give the same bytes or, for the
   operations it declines, fail naming its kernel (device memory) or give
   the host's bytes (memory the host addresses). */
static void compare_run(const char *what, int hs, int ds, pair z, bool host_addressed, bool declines) {
  char host_msg[512];
  snprintf(host_msg, sizeof host_msg, "%s", hs ? "host failed" : "");
  if (hs) {
    CHECK(ds != 0, "%s: the host fails (%d) but the device does not", what, hs);
    return;
  }
  if (ds) {
    const char *m = nx_error_message();
    CHECK(declines && !host_addressed && strstr(m, "does not compute") && strstr(m, BACKEND),
          "%s: the device failed where the host computes: %s", what, m);
    declined_ok++;
    return;
  }
  if (same_bytes(z, what)) agreed++;
  (void)host_addressed;
}

static void binary_cases(nx_device *dev, nx_memory_kind kind, int rounds) {
  for (int dt = 0; dt < NX_DTYPE_COUNT; dt++)
    for (size_t f = 0; f < sizeof binaries / sizeof *binaries; f++)
      for (int round = 0; round < rounds; round++) {
        bool cmp = f >= 13;
        int64_t shape[3];
        int r = random_shape(shape);
        pair z = make_pair(dev, kind, cmp ? (round % 2 ? NX_BIT : NX_BOOL) : (nx_dtype)dt, shape, r, false);
        pair x = make_pair(dev, kind, dt, shape, r, true), y = make_pair(dev, kind, dt, shape, r, true);
        if (!z.h || !x.h || !y.h) return;
        char what[128];
        snprintf(what, sizeof what, "%s %s on %s (%s memory)", binaries[f].name, nx_dtype_name(dt), nx_device_name(dev),
                 kind == NX_MEMORY_DEVICE ? "device" : kind == NX_MEMORY_IO ? "io" : "host");
        int hs = binaries[f].f(z.h, x.h, y.h), ds = binaries[f].f(z.d, x.d, y.d);
        compare_run(what, hs, ds, z, kind != NX_MEMORY_DEVICE, declines_binary(binaries[f].name, dt));
        if (!cmp && round == 0) { /* in place: z identical to x */
          hs = binaries[f].f(x.h, x.h, y.h);
          ds = binaries[f].f(x.d, x.d, y.d);
          compare_run(what, hs, ds, x, kind != NX_MEMORY_DEVICE, declines_binary(binaries[f].name, dt));
        }
        free_pair(z);
        free_pair(x);
        free_pair(y);
      }
}

static void unary_cases(nx_device *dev, nx_memory_kind kind, int rounds) {
  for (int dt = 0; dt < NX_DTYPE_COUNT; dt++)
    for (size_t f = 0; f < sizeof unaries / sizeof *unaries; f++)
      for (int round = 0; round < rounds; round++) {
        int64_t shape[3];
        int r = random_shape(shape);
        pair z = make_pair(dev, kind, dt, shape, r, false), x = make_pair(dev, kind, dt, shape, r, true);
        if (!z.h || !x.h) return;
        char what[128];
        snprintf(what, sizeof what, "%s %s on %s", unaries[f].name, nx_dtype_name(dt), nx_device_name(dev));
        bool cx = nx_dtype_kind_of(dt) == NX_KIND_COMPLEX;
        bool declines = !strcmp(unaries[f].name, "exp") || !strcmp(unaries[f].name, "sin") ||
                        (cx && !strcmp(unaries[f].name, "recip"));
        compare_run(what, unaries[f].f(z.h, x.h), unaries[f].f(z.d, x.d), z, kind != NX_MEMORY_DEVICE, declines);
        free_pair(z);
        free_pair(x);
      }
}

static void cast_cases(nx_device *dev) {
  for (int to = 0; to < NX_DTYPE_COUNT; to++)
    for (int from = 0; from < NX_DTYPE_COUNT; from++) {
      int64_t shape[3];
      int r = random_shape(shape);
      pair z = make_pair(dev, NX_MEMORY_DEVICE, to, shape, r, false), x = make_pair(dev, NX_MEMORY_DEVICE, from, shape, r, true);
      if (!z.h || !x.h) return;
      char what[128];
      snprintf(what, sizeof what, "cast %s -> %s on %s", nx_dtype_name(from), nx_dtype_name(to), nx_device_name(dev));
      int hs = nx_cast(z.h, x.h), ds = nx_cast(z.d, x.d);
      CHECK(hs == 0 && ds == 0, "%s: %d %d: %s", what, hs, ds, nx_error_message());
      if (hs == 0 && ds == 0 && same_bytes(z, what)) agreed++;
      free_pair(z);
      free_pair(x);
    }
}

static void fill_where_cases(nx_device *dev) {
  for (int dt = 0; dt < NX_DTYPE_COUNT; dt++) {
    int64_t shape[3];
    int r = random_shape(shape);
    pair z = make_pair(dev, NX_MEMORY_DEVICE, dt, shape, r, false);
    nx_value v;
    int k = nx_dtype_kind_of(dt);
    if (k == NX_KIND_FLOAT) v = (nx_value){.f = -1.0 / 3};
    else if (k == NX_KIND_COMPLEX) v = (nx_value){.c = {0.1, -2.5}};
    else if (k == NX_KIND_SIGNED) v = (nx_value){.i = -3};
    else if (k == NX_KIND_UNSIGNED) v = (nx_value){.u = 5};
    else v = (nx_value){.b = true};
    char what[128];
    snprintf(what, sizeof what, "fill %s on %s", nx_dtype_name(dt), nx_device_name(dev));
    int hs = nx_fill(z.h, v), ds = nx_fill(z.d, v);
    CHECK(hs == 0 && ds == 0, "%s: %s", what, nx_error_message());
    if (hs == 0 && ds == 0 && same_bytes(z, what)) agreed++;
    pair c = make_pair(dev, NX_MEMORY_DEVICE, dt % 2 ? NX_BIT : NX_BOOL, shape, r, true);
    pair x = make_pair(dev, NX_MEMORY_DEVICE, dt, shape, r, true), y = make_pair(dev, NX_MEMORY_DEVICE, dt, shape, r, true);
    snprintf(what, sizeof what, "where %s on %s", nx_dtype_name(dt), nx_device_name(dev));
    hs = nx_where(z.h, c.h, x.h, y.h);
    ds = nx_where(z.d, c.d, x.d, y.d);
    CHECK(hs == 0 && ds == 0, "%s: %s", what, nx_error_message());
    if (hs == 0 && ds == 0 && same_bytes(z, what)) agreed++;
    free_pair(z);
    free_pair(c);
    free_pair(x);
    free_pair(y);
  }
}

/* float32 sqrt over its special values (both zeros and infinities, NaNs of
   both signs with payloads, negatives, the subnormals' ends, the largest
   float) and 2^16 random bit patterns, contiguous: a device that takes it
   in float32 (an OpenCL device with correctly rounded float32 sqrt) must
   give the float64 path's bits, NaNs by the host's rule included. */
static void sqrt_cases(nx_device *dev) {
  static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u,
                                     0x7F800001u, 0xFFA12345u, 0x7FBFFFFFu, 0xBF800000u, 0x80000001u, 0x00000001u,
                                     0x007FFFFFu, 0x00800000u, 0x7F7FFFFFu, 0x3F800000u, 0x40000000u, 0xC0490FDBu};
  enum { N = (1 << 16) + (int)(sizeof special / sizeof *special) };
  uint32_t *raw = malloc((size_t)N * 4);
  CHECK(raw != NULL, "test buffer");
  if (!raw) return;
  for (int i = 0; i < N; i++) raw[i] = i < (int)(sizeof special / sizeof *special) ? special[i] : (uint32_t)rnd(&seed);
  nx_layout l;
  memset(&l, 0, sizeof l);
  l.rank = 1;
  l.extent[0] = N;
  l.stride[0] = 1;
  pair x = {NULL, NULL}, z = make_pair_on(dev, NX_MEMORY_DEVICE, NX_FLOAT32, l, N);
  nx_buffer *hb = raw_buffer(nx_rig_host(), NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, (int64_t)N * 4, (const uint8_t *)raw);
  nx_buffer *db = raw_buffer(dev, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, (int64_t)N * 4, (const uint8_t *)raw);
  free(raw);
  if (hb && db && z.h) {
    int s1 = nx_array_v(NX_FLOAT32, &l, hb, &x.h), s2 = nx_array_v(NX_FLOAT32, &l, db, &x.d);
    CHECK(s1 == 0 && s2 == 0, "nx_array_v: %s", nx_error_message());
    if (!s1 && !s2) {
      int hs = nx_sqrt(z.h, x.h), ds = nx_sqrt(z.d, x.d);
      CHECK(hs == 0 && ds == 0, "sqrt float32 specials: %s", nx_error_message());
      if (!hs && !ds && same_bytes(z, "sqrt float32 over special values and random bits")) agreed++;
    }
  }
  nx_buffer_release(hb);
  nx_buffer_release(db);
  free_pair(x);
  free_pair(z);
}

/* ---- Large layouts ------------------------------------------------------- */

/* A two-axis layout of shape {rows, cols}: row-major with `pitch` elements
   from row to row (cols: contiguous), or transposed (column-major). */
static pair pair2(nx_device *dev, nx_dtype dt, int64_t rows, int64_t cols, int64_t pitch, bool transposed) {
  nx_layout l;
  memset(&l, 0, sizeof l);
  l.rank = 2;
  l.extent[0] = rows;
  l.extent[1] = cols;
  l.stride[0] = transposed ? 1 : pitch;
  l.stride[1] = transposed ? rows : 1;
  return make_pair_on(dev, NX_MEMORY_DEVICE, dt, l, transposed ? rows * cols : (rows - 1) * pitch + cols);
}

/* Layouts big enough for a CPU device's walks to split them: several work
   items (a chunk boundary inside a row and inside a 32-bit word of
   sub-byte elements), rows with gaps between them (unit-stride, not one
   run), and transposed operands over several tiles along both axes and
   several spans of tiles (a partial tile last on each). Specialized
   kernels (float32 cast, add, where, copy, fill), generic ones (float16 to
   float64, int16 add, float32 lt into bits) and sub-byte ones (int4 sub,
   uint4 copy). */
static void large_cases(nx_device *dev) {
  static const struct { int64_t rows, cols, pitch; bool tz, tx; } shapes[] = {
      {151, 333, 333, false, false}, /* contiguous: one run */
      {151, 333, 400, false, false}, /* rows with gaps */
      {43, 2100, 2100, false, true}, /* the source transposed: 3 spans, 2 bands */
      {333, 151, 151, true, false},  /* the destination transposed */
  };
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
    for (int item = 0; item < 10; item++) {
      static const nx_dtype zt[] = {NX_BFLOAT16, NX_FLOAT64, NX_FLOAT32, NX_INT16, NX_INT4, NX_FLOAT32, NX_INT8,
                                    NX_UINT4,    NX_BIT,     NX_FLOAT32};
      static const nx_dtype xt[] = {NX_FLOAT32, NX_FLOAT16, NX_FLOAT32, NX_INT16, NX_INT4, NX_FLOAT32, NX_INT8,
                                    NX_UINT4,   NX_FLOAT32, NX_FLOAT32};
      int64_t r = shapes[i].rows, c = shapes[i].cols, p = shapes[i].pitch;
      pair z = pair2(dev, zt[item], r, c, p, shapes[i].tz), x = pair2(dev, xt[item], r, c, p, shapes[i].tx);
      pair y = pair2(dev, xt[item], r, c, p, false), b = pair2(dev, NX_BOOL, r, c, p, shapes[i].tx);
      if (!z.h || !x.h || !y.h || !b.h) return;
      char what[160];
      snprintf(what, sizeof what, "item %d (%s from %s) on [%lld, %lld], pitch %lld%s%s", item, nx_dtype_name(zt[item]),
               nx_dtype_name(xt[item]), (long long)r, (long long)c, (long long)p, shapes[i].tz ? ", z transposed" : "",
               shapes[i].tx ? ", x transposed" : "");
      int hs, ds;
      switch (item) {
      case 0: case 1: hs = nx_cast(z.h, x.h); ds = nx_cast(z.d, x.d); break;
      case 2: case 3: hs = nx_add(z.h, x.h, y.h); ds = nx_add(z.d, x.d, y.d); break;
      case 4: hs = nx_sub(z.h, x.h, y.h); ds = nx_sub(z.d, x.d, y.d); break;
      case 5: hs = nx_where(z.h, b.h, x.h, y.h); ds = nx_where(z.d, b.d, x.d, y.d); break;
      case 6: case 7: hs = nx_copy(z.h, x.h); ds = nx_copy(z.d, x.d); break;
      case 8: hs = nx_lt(z.h, x.h, y.h); ds = nx_lt(z.d, x.d, y.d); break;
      default: hs = nx_fill(z.h, (nx_value){.f = 0.1}); ds = nx_fill(z.d, (nx_value){.f = 0.1}); break;
      }
      CHECK(hs == 0 && ds == 0, "%s: %d %d: %s", what, hs, ds, nx_error_message());
      if (hs == 0 && ds == 0 && same_bytes(z, what)) agreed++;
      free_pair(z);
      free_pair(x);
      free_pair(y);
      free_pair(b);
    }
}

/* ---- Refusals ------------------------------------------------------------ */

static nx_array *dev_array(nx_device *d, nx_access acc, nx_dtype dt, int64_t n) {
  int64_t shape[1] = {n};
  nx_layout l;
  nx_layout_contiguous(shape, 1, &l);
  int64_t bytes;
  nx_dtype_bytes(dt, n, &bytes);
  nx_buffer *b = raw_buffer(d, NX_MEMORY_DEVICE, acc, bytes, NULL);
  nx_array *a = NULL;
  if (b) CHECK(nx_array_v(dt, &l, b, &a) == 0, "nx_array_v: %s", nx_error_message());
  nx_buffer_release(b);
  return a;
}

/* d1, another device of the backend, may be NULL. */
static void refusals(nx_device *d0, nx_device *d1) {
  nx_array *a = dev_array(d0, NX_ACCESS_READ_WRITE, NX_FLOAT32, 3), *b = dev_array(d0, NX_ACCESS_READ_WRITE, NX_FLOAT32, 3);
  nx_array *c = d1 ? dev_array(d1, NX_ACCESS_READ_WRITE, NX_FLOAT32, 3) : NULL, *h = NULL, *t = NULL;
  int64_t three = 3;
  nx_array_host(NX_FLOAT32, &three, 1, &h);
  char on0[64], on1[64], kernel[96];
  snprintf(on0, sizeof on0, "float32 [3] on %s", nx_device_name(d0));
  snprintf(on1, sizeof on1, "on %s", nx_device_name(d1));
  snprintf(kernel, sizeof kernel, "the %s kernel of %s does not compute this case (float32)", BACKEND, nx_device_name(d0));
  if (c) EXPECT_FAIL(nx_add(a, b, c), NX_EINVAL, "nx_add", "different devices", on0, on1);
  else printf("one %s device: the two-device refusal needs two\n", BACKEND);
  EXPECT_FAIL(nx_cast(a, h), NX_EINVAL, "nx_cast", "different devices", "on host", on0);
  EXPECT_FAIL(nx_copy(h, a), NX_EINVAL, "nx_copy", "different devices");
  /* A test device's operand with the device's: refused by the dispatch,
     and the test device's alone by the host door (Off_host). */
  nx_device *td;
  CHECK(nx_rig_test_device(&td) == 0, "nx_rig_test_device: %s", nx_error_message());
  t = dev_array(td, NX_ACCESS_READ_WRITE, NX_FLOAT32, 3);
  EXPECT_FAIL(nx_add(a, b, t), NX_EINVAL, "nx_add", "different devices", on0, "on test:");
  /* What claiming answers comes before the mix of devices, as the door
     ranks it: a dead host operand, a Read written one (before: "different
     devices" for both) */
  nx_array *gone = NULL;
  nx_array_host(NX_FLOAT32, &three, 1, &gone);
  nx_buffer_free(nx_array_buffer(gone));
  EXPECT_FAIL(nx_add(a, gone, b), NX_EINVAL, "nx_add", "was freed");
  nx_array *ro0 = dev_array(d0, NX_ACCESS_READ, NX_FLOAT32, 3);
  EXPECT_FAIL(nx_add(ro0, h, a), NX_EINVAL, "nx_add", "read-only");
  nx_array_free(gone), nx_array_free(ro0);
  EXPECT_FAIL(nx_neg(t, t), NX_EINVAL, "nx_neg");
  /* Dtypes and shapes, in the host kernels' words. */
  nx_array *i = dev_array(d0, NX_ACCESS_READ_WRITE, NX_INT32, 3), *four = dev_array(d0, NX_ACCESS_READ_WRITE, NX_FLOAT32, 4);
  EXPECT_FAIL(nx_add(a, b, i), NX_EINVAL, "nx_add", "dtype", "int32 [3]");
  EXPECT_FAIL(nx_mul(a, b, four), NX_EINVAL, "nx_mul", "do not fit", "float32 [4]");
  EXPECT_FAIL(nx_exp(a, b), NX_EINVAL, "nx_exp", kernel);
  /* The door's answers on device operands. */
  nx_array *ro = dev_array(d0, NX_ACCESS_READ, NX_FLOAT32, 3);
  EXPECT_FAIL(nx_add(ro, a, b), NX_EINVAL, "nx_add", "read-only");
  nx_move m[1];
  nx_array *bc = NULL;
  int64_t shape3[1] = {3};
  nx_move_expand(m, shape3, 1);
  nx_array *one = dev_array(d0, NX_ACCESS_READ_WRITE, NX_FLOAT32, 1);
  CHECK(nx_array_move(m, one, &bc) == 0, "expand: %s", nx_error_message());
  EXPECT_FAIL(nx_neg(bc, a), NX_EINVAL, "nx_neg", "reaches an element twice");
  CHECK(nx_buffer_hold_exclusive(nx_array_buffer(b)) == 0, "hold: %s", nx_error_message());
  EXPECT_FAIL(nx_sub(a, a, b), NX_EINVAL, "nx_sub", "held exclusive");
  nx_buffer_unhold(nx_array_buffer(b));
  CHECK(nx_buffer_free(nx_array_buffer(b)) == 0, "free: %s", nx_error_message());
  EXPECT_FAIL(nx_fill(b, (nx_value){.f = 1}), NX_EINVAL, "nx_fill", "freed");
  nx_array_free(a);
  nx_array_free(b);
  nx_array_free(c);
  nx_array_free(h);
  nx_array_free(t);
  nx_array_free(i);
  nx_array_free(four);
  nx_array_free(ro);
  nx_array_free(bc);
  nx_array_free(one);
}

#ifndef NX_TEST_CUDA
/* ---- The program cache --------------------------------------------------- */

/* The child: one add on opencl:0, then "built B loaded L". */
static int child(void) {
  nx_device *d;
  if (nx_rig_find("opencl:0", &d)) return 3;
  nx_array *a = dev_array(d, NX_ACCESS_READ_WRITE, NX_FLOAT32, 8);
  if (!a || nx_add(a, a, a) || nx_device_sync(d)) return 4;
  nx_array_free(a);
  int built, loaded;
  nx__opencl_program_stats(&built, &loaded);
  printf("built %d loaded %d\n", built, loaded);
  return 0;
}

/* The child of a broken compiler: the first kernel meets the compiler's
   refusal, the second the same refusal under its own name, and only one
   compilation was tried. Prints "refused <attempts>" when both answered
   NX_EIO with those messages. */
static int broken_child(void) {
  nx_device *d;
  if (nx_rig_find("opencl:0", &d)) return 3;
  nx__opencl_test_break_build(true);
  nx_array *a = dev_array(d, NX_ACCESS_READ_WRITE, NX_FLOAT32, 8);
  if (!a) return 4;
  int s1 = nx_add(a, a, a);
  char m1[700];
  snprintf(m1, sizeof m1, "%s", nx_error_message());
  int s2 = nx_mul(a, a, a);
  const char *m2 = nx_error_message();
  const char *want = "could not build the device kernels";
  bool ok = s1 == NX_EIO && s2 == NX_EIO && strncmp(m1, "nx_add: ", 8) == 0 && strncmp(m2, "nx_mul: ", 8) == 0 &&
            strstr(m1, want) && strcmp(m1 + 8, m2 + 8) == 0;
  if (!ok) fprintf(stderr, "broken compiler: %d \"%s\", then %d \"%s\"\n", s1, m1, s2, m2);
  nx_array_free(a);
  printf("refused %d\n", nx__opencl_build_attempts());
  return ok ? 0 : 5;
}

static int run_child(const char *self, const char *mode, const char *cache, char *out, size_t cap, double *secs) {
  int fd[2];
  if (pipe(fd)) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
  posix_spawn_file_actions_addclose(&fa, fd[0]);
  setenv("NX_CACHE_DIR", cache, 1);
  char *argv[] = {(char *)self, (char *)mode, NULL};
  pid_t pid;
  double t0 = now_s();
  int s = posix_spawn(&pid, self, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fd[1]);
  out[0] = 0;
  ssize_t n = s == 0 ? read(fd[0], out, cap - 1) : 0;
  out[n > 0 ? n : 0] = 0;
  close(fd[0]);
  int st = 0;
  if (s == 0) waitpid(pid, &st, 0);
  *secs = now_s() - t0;
  return s == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int run_cache_child(const char *self, const char *cache, int *built, int *loaded, double *secs) {
  char out[128];
  if (run_child(self, "--child", cache, out, sizeof out, secs)) return -1;
  return sscanf(out, "built %d loaded %d", built, loaded) == 2 ? 0 : -1;
}

static void cache_cases(const char *self) {
  char dir[] = "/tmp/nx-cache-test-XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  int b1 = -1, l1 = -1, b2 = -1, l2 = -1;
  double t1 = 0, t2 = 0;
  CHECK(run_cache_child(self, dir, &b1, &l1, &t1) == 0, "first child failed");
  CHECK(run_cache_child(self, dir, &b2, &l2, &t2) == 0, "second child failed");
  CHECK(b1 == 1 && l1 == 0, "first run: built %d, loaded %d from the cache (want 1, 0)", b1, l1);
  CHECK(b2 == 0 && l2 == 1, "second run: built %d, loaded %d from the cache (want 0, 1)", b2, l2);
  printf("program cache: first run %.3f s (built from source), second %.3f s (loaded)\n", t1, t2);
  /* A compiler's refusal is remembered: two kernels, one compilation. */
  char out[64];
  double t3 = 0;
  int tries = -1;
  CHECK(run_child(self, "--broken", dir, out, sizeof out, &t3) == 0, "the broken-compiler child failed (see its stderr)");
  CHECK(sscanf(out, "refused %d", &tries) == 1 && tries == 1, "a refused build was tried %d times (want 1): %s", tries, out);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0, "removing %s", dir);
}

#endif

int main(int argc, char **argv) {
#ifndef NX_TEST_CUDA
  if (argc > 1 && strcmp(argv[1], "--child") == 0) return child();
  if (argc > 1 && strcmp(argv[1], "--broken") == 0) return broken_child();
#else
  (void)argc;
  (void)argv;
#endif
  nx_device *d0, *d1;
#ifdef NX_TEST_CUDA
  const char *why = nx__cuda_absent();
  if (why) {
    char reason[256];
    snprintf(reason, sizeof reason, "no CUDA device (%s)", why);
    return skip(reason);
  }
#endif
#ifndef NX_TEST_CUDA
  if (!NX_TEST_OPENCL_BUILT) return skip(NX_TEST_NO_OPENCL_REASON);
#endif
  if (nx_rig_find(PREFIX ":0", &d0)) return skip("no OpenCL device (PoCL: POCL_DEVICES=\"pthread pthread\")");
  if (nx_rig_find(PREFIX ":1", &d1)) d1 = NULL;
  printf("%s: %s\n", nx_device_name(d0), nx_device_description(d0));
  cast_cases(d0);
  fill_where_cases(d0);
  large_cases(d0);
  sqrt_cases(d0);
  binary_cases(d0, NX_MEMORY_DEVICE, 2);
  unary_cases(d0, NX_MEMORY_DEVICE, 2);
  binary_cases(d0, SHARED_KIND, 1);
  refusals(d0, d1);
#ifndef NX_TEST_CUDA
  cache_cases("/proc/self/exe");
#endif
  printf("%ld cases agreed bit for bit, %ld declined on device memory\n", agreed, declined_ok);
  return check_done();
}
