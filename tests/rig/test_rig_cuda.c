/* SPDX-License-Identifier: Apache-2.0 */
/* The rig's CUDA devices: memory kinds, copies host <-> device <-> pinned
   host memory, fills, a borrow of host pages and of a peer's memory, order
   across the host, OpenCL and CUDA (a chain of copies and kernels checked
   against the host), and loss: a deliberately faulting kernel in a child
   process (a sticky error spoils the process's context), after which every
   call on the device answers NX_ELOST within a bound, never hangs. Skipped,
   with the reason, where no CUDA device is found (no GPU, no driver, or nx
   built without CUDA). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../array/test_array_common.h"
#include "nx_kernels.h"
#include "rig_test.h"

const char *nx__cuda_absent(void);

static uint64_t seed = 0xc0da12;

/* The loss, in this process (a child): it never returns to the caller. */
static void loss_child(void) {
  alarm(60); /* a hang is a failure: SIGALRM kills the child */
  nx_device *d;
  if (nx_rig_find("cuda:0", &d)) _exit(77);
  nx_buffer *b, *h, *other, *pinned;
  if (nx_buffer_create(d, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 4096, &b) ||
      nx_buffer_create(d, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 4096, &other) ||
      nx_buffer_create(d, NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 4096, &pinned) ||
      nx_buffer_create(nx_rig_host(), NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 4096, &h))
    _exit(10);
  if (nx_rig_submit_fill(b, 0, 4096, 1) || nx_rig_submit_fill(pinned, 0, 4096, 7) || nx_device_sync(d)) _exit(11);
  if (nx__cuda_fault(d, b)) _exit(12);
  int s = nx_device_sync(d);
  CHECK(s == NX_ELOST, "sync after the fault: %d (%s)", s, nx_error_message());
  CHECK(nx_device_lost(d), "the device is not lost after the fault");
  CHECK(nx_buffer_wait(b, NX_ACCESS_READ) == NX_ELOST, "wait on the written memory");
  CHECK(nx_buffer_wait(other, NX_ACCESS_READ) == NX_ELOST, "wait on the device's other memory");
  CHECK(!nx_buffer_lost(pinned), "pinned host memory no failed work wrote is lost");
  nx_buffer *n;
  CHECK(nx_buffer_create(d, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 64, &n) == NX_ELOST, "create after loss");
  CHECK(nx_rig_submit_fill(other, 0, 64, 0) == NX_ELOST, "fill after loss");
  CHECK(nx_rig_submit_copy(h, 0, other, 0, 64) == NX_ELOST, "copy from lost memory");
  CHECK(nx__cuda_fault(d, NULL) == NX_ELOST, "a kernel after loss");
  /* The door refuses a lost device's operands before it claims. */
  int64_t shape[1] = {16};
  nx_layout l;
  nx_layout_contiguous(shape, 1, &l);
  nx_array *a = NULL;
  CHECK(nx_array_v(NX_FLOAT32, &l, other, &a) == 0, "nx_array_v: %s", nx_error_message());
  if (a) EXPECT_FAIL(nx_add(a, a, a), NX_ELOST, "nx_add");
  nx_array_free(a);
  nx_buffer_release(b);
  nx_buffer_release(other);
  nx_buffer_release(pinned);
  nx_buffer_release(h);
  _exit(check_failures ? 1 : 0);
}

/* Runs the loss in a child forked before this process touches CUDA: 0
   passed, 77 no device, else failed. */
static int loss_in_child(void) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) loss_child();
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) != pid) return -1;
  if (WIFSIGNALED(st)) {
    fprintf(stderr, "the loss child died of signal %d%s\n", WTERMSIG(st), WTERMSIG(st) == SIGALRM ? " (a hang)" : "");
    return -1;
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static nx_buffer *filled(nx_device *d, nx_memory_kind kind, int64_t n, const uint8_t *bytes) {
  nx_buffer *b = raw_buffer(d, kind, NX_ACCESS_READ_WRITE, n, bytes);
  CHECK(b != NULL, "a buffer of %lld bytes on %s: %s", (long long)n, nx_device_name(d), nx_error_message());
  return b;
}

static bool equal(nx_buffer *b, const uint8_t *want, int64_t n, const char *what) {
  uint8_t *got = malloc((size_t)n);
  int s = raw_read(b, got);
  bool same = s == 0 && memcmp(got, want, (size_t)n) == 0;
  CHECK(same, "%s: %s", what, s ? nx_error_message() : "the bytes differ");
  free(got);
  return same;
}

/* Copies through every kind: host -> device -> pinned -> device -> host. */
static void copies(nx_device *d) {
  enum { N = 1 << 20 };
  uint8_t *src = malloc(N), *want = malloc(N);
  for (int i = 0; i < N; i++) src[i] = (uint8_t)rnd(&seed);
  nx_buffer *h = filled(nx_rig_host(), NX_MEMORY_DEVICE, N, src), *out = filled(nx_rig_host(), NX_MEMORY_DEVICE, N, NULL);
  nx_buffer *x = filled(d, NX_MEMORY_DEVICE, N, NULL), *p = filled(d, NX_MEMORY_HOST, N, NULL);
  nx_buffer *y = filled(d, NX_MEMORY_DEVICE, N, NULL);
  CHECK(nx_device_host_addresses(d, NX_MEMORY_HOST) && !nx_device_host_addresses(d, NX_MEMORY_DEVICE), "addressing");
  CHECK(nx_buffer_host_address(p) != NULL && nx_buffer_host_address(x) == NULL, "host addresses");
  CHECK(!nx_device_has_memory(d, NX_MEMORY_IO), "CUDA has no io memory");
  int s = nx_rig_submit_copy(x, 0, h, 0, N);
  s = s ? s : nx_rig_submit_copy(p, 0, x, 0, N);
  s = s ? s : nx_rig_submit_copy(y, 0, p, 0, N);
  s = s ? s : nx_rig_submit_fill(y, 100, 50, 0xAB);
  s = s ? s : nx_rig_submit_copy(x, 4096, y, 0, 8192); /* device to device */
  s = s ? s : nx_rig_submit_copy(out, 0, x, 0, N);
  CHECK(s == 0, "the chain of copies: %s", nx_error_message());
  /* x is src with y's first 8192 bytes (src with the fill) at 4096. */
  uint8_t *y0 = malloc(8192);
  memcpy(y0, src, 8192);
  memset(y0 + 100, 0xAB, 50);
  memcpy(want, src, N);
  memcpy(want + 4096, y0, 8192);
  equal(out, want, N, "host <- device <- pinned <- device <- host");
  free(y0);
  nx_buffer_release(h);
  nx_buffer_release(out);
  nx_buffer_release(x);
  nx_buffer_release(p);
  nx_buffer_release(y);
  free(src);
  free(want);
}

/* A borrow of the host's pages: a kernel on the device writes them, the
   host reads the result in place. */
static void borrow(nx_device *d) {
  int64_t shape[1] = {1000};
  nx_layout l;
  nx_layout_contiguous(shape, 1, &l);
  float xs[1000], ys[1000];
  for (int i = 0; i < 1000; i++) xs[i] = (float)i * 0.5f;
  nx_buffer *hb = filled(nx_rig_host(), NX_MEMORY_HOST, sizeof xs, (const uint8_t *)xs), *db;
  CHECK(nx_device_can_map(d, hb), "%s cannot map host memory", nx_device_name(d));
  int s = nx_buffer_borrow(d, hb, &db);
  CHECK(s == 0, "borrow: %s", nx_error_message());
  if (s) return;
  nx_array *a = NULL;
  CHECK(nx_array_v(NX_FLOAT32, &l, db, &a) == 0, "nx_array_v: %s", nx_error_message());
  CHECK(nx_add(a, a, a) == 0, "add on borrowed pages: %s", nx_error_message());
  CHECK(nx_buffer_wait(hb, NX_ACCESS_READ) == 0, "wait: %s", nx_error_message());
  memcpy(ys, nx_buffer_host_address(hb), sizeof ys);
  bool ok = true;
  for (int i = 0; i < 1000; i++) ok &= ys[i] == xs[i] + xs[i];
  CHECK(ok, "the device's add did not reach the host's pages");
  nx_array_free(a);
  nx_buffer_release(db);
  nx_buffer_release(hb);
}

/* Peers: cuda:1 borrows cuda:0's device memory where it can, and copies
   between the two run on one timeline. */
static void peers(nx_device *d0, nx_device *d1) {
  enum { N = 65536 };
  uint8_t *src = malloc(N);
  for (int i = 0; i < N; i++) src[i] = (uint8_t)rnd(&seed);
  nx_buffer *a = filled(d0, NX_MEMORY_DEVICE, N, src), *b = filled(d1, NX_MEMORY_DEVICE, N, NULL);
  CHECK(nx_rig_submit_copy(b, 0, a, 0, N) == 0, "copy cuda:0 -> cuda:1: %s", nx_error_message());
  equal(b, src, N, "the copy between two GPUs");
  if (nx_device_can_map(d1, a)) {
    nx_buffer *m;
    CHECK(nx_buffer_borrow(d1, a, &m) == 0, "peer borrow: %s", nx_error_message());
    nx_buffer_release(m);
  } else {
    printf("%s has no peer access to %s\n", nx_device_name(d1), nx_device_name(d0));
  }
  nx_buffer_release(a);
  nx_buffer_release(b);
  free(src);
}

/* Order across the host, OpenCL and CUDA: each step reads the last one's
   result on another device; the host computes the same chain. */
static void chain(nx_device *cu, nx_device *cl) {
  enum { N = 4096 };
  int64_t shape[1] = {N};
  nx_layout l;
  nx_layout_contiguous(shape, 1, &l);
  int32_t v[N], want[N];
  for (int i = 0; i < N; i++) v[i] = (int32_t)(rnd(&seed) % 1000), want[i] = v[i];
  nx_device *devs[3] = {cu, cl ? cl : cu, nx_rig_host()};
  nx_buffer *b[3];
  nx_array *a[3];
  for (int k = 0; k < 3; k++) {
    b[k] = filled(devs[k], NX_MEMORY_DEVICE, sizeof v, k == 2 ? (const uint8_t *)v : NULL);
    a[k] = NULL;
    if (b[k]) nx_array_v(NX_INT32, &l, b[k], &a[k]);
  }
  /* host -> cuda, cuda: x + x, -> opencl, opencl: x * x, -> host, host: x - 1,
     five rounds, nothing waited for between steps. */
  for (int r = 0; r < 5; r++) {
    int s = nx_rig_submit_copy(b[0], 0, b[2], 0, sizeof v);
    s = s ? s : nx_add(a[0], a[0], a[0]);
    s = s ? s : nx_rig_submit_copy(b[1], 0, b[0], 0, sizeof v);
    s = s ? s : nx_mul(a[1], a[1], a[1]);
    s = s ? s : nx_rig_submit_copy(b[2], 0, b[1], 0, sizeof v);
    s = s ? s : nx_neg(a[2], a[2]);
    CHECK(s == 0, "round %d of the chain: %s", r, nx_error_message());
    for (int i = 0; i < N; i++) {
      uint32_t x = (uint32_t)want[i] * 2u;
      want[i] = (int32_t)(0u - x * x);
    }
  }
  equal(b[2], (const uint8_t *)want, sizeof want, cl ? "host -> CUDA -> OpenCL chain" : "host -> CUDA chain");
  for (int k = 0; k < 3; k++) {
    nx_array_free(a[k]);
    nx_buffer_release(b[k]);
  }
}

int main(void) {
  int loss = loss_in_child();
  const char *why = nx__cuda_absent();
  if (why || loss == 77) {
    char reason[256];
    snprintf(reason, sizeof reason, "no CUDA device (%s)", why ? why : "the child found none");
    return skip(reason);
  }
  CHECK(loss == 0, "the loss by a faulting kernel failed in its child (%d)", loss);
  nx_device *d0, *d1 = NULL, *cl = NULL;
  CHECK(nx_rig_find("cuda:0", &d0) == 0, "cuda:0: %s", nx_error_message());
  printf("cuda:0: %s\n", nx_device_description(d0));
  copies(d0);
  borrow(d0);
  if (nx_rig_find("cuda:1", &d1) == 0) peers(d0, d1);
  else printf("one GPU: the peer checks need two\n");
  if (nx_rig_find("opencl:0", &cl)) cl = NULL;
  chain(d0, cl);
  return check_done();
}
