/* SPDX-License-Identifier: Apache-2.0 */
/* Failure paths of the rig, each a case that once went wrong:
   - every fallible step of making a test device, a buffer of every kind on
     every device, a wrap, a borrow and a submission fails in turn (injected
     failures of the test variant): the call fails with NX_ENOMEM and a
     message naming it, gives back what it made (LeakSanitizer runs at exit
     under ASan), leaves no device behind, and the next call succeeds;
   - every step of the first use (the host's timeline, OpenCL discovery)
     fails in turn, each in a child process: what was made works, and what
     failed is left out whole;
   - loss of io memory: after an OpenCL device is lost, its io and device
     memory are lost (nx_buffer_wait and nx_buffer_lost), its host memory
     (nx's pages) is not; claims on lost memory succeed;
   - OpenCL host and io buffers are mapped for the host after a host wait,
     unmapped after a command of the device, and hold the command's bytes
     after the next wait. */
#include "rig_common.h"

#include <sys/wait.h>

static rig_devices R;

/* Calls f with the k-th fallible step failing, for k = 1, 2, ... until a
   call injects nothing (then it must succeed); returns the steps tried. */
static int each_step(const char *what, int (*f)(void *), void (*undo)(void *), void *ctx) {
  int k;
  for (k = 1; k < 200; k++) {
    nx__inject_failures(k);
    int s = f(ctx);
    long fired = nx__injected();
    nx__inject_failures(0);
    if (!fired) {
      CHECK(s == 0, "%s with no step failing: %s", what, nx_error_message());
      if (!s && undo) undo(ctx);
      return k;
    }
    CHECK(s == NX_ENOMEM, "%s with step %d failing: status %d (%s)", what, k, s, nx_error_message());
    CHECK(s != 0 || strstr(nx_error_message(), "nx_") != NULL, "%s: the message names no function: %s", what,
          nx_error_message());
    if (!s && undo) undo(ctx);
  }
  CHECK(0, "%s: more than 200 steps", what);
  return k;
}

typedef struct {
  nx_device *d;
  nx_memory_kind kind;
  nx_buffer *b, *src;
  const char *fn;
} call;

static int make_test_device(void *ctx) {
  call *c = ctx;
  int before = nx_rig_devices(NULL, 0);
  int s = nx_rig_test_device(&c->d);
  CHECK(s == 0 || nx_rig_devices(NULL, 0) == before, "a failed nx_rig_test_device left a device behind");
  CHECK(s == 0 || strstr(nx_error_message(), "nx_rig_test_device"), "message: %s", nx_error_message());
  return s;
}

static int make_buffer(void *ctx) {
  call *c = ctx;
  int s = nx_buffer_create(c->d, c->kind, NX_ACCESS_READ_WRITE, 4096, &c->b);
  CHECK(s == 0 || strstr(nx_error_message(), "nx_buffer_create"), "message: %s", nx_error_message());
  return s;
}
static void drop_buffer(void *ctx) { nx_buffer_release(((call *)ctx)->b); }

static uint8_t wrapped[64];
static int make_wrap(void *ctx) {
  call *c = ctx;
  int s = nx_buffer_wrap_host(wrapped, 64, NX_ACCESS_READ_WRITE, NULL, NULL, &c->b);
  CHECK(s == 0 || strstr(nx_error_message(), "nx_buffer_wrap_host"), "message: %s", nx_error_message());
  return s;
}

static int make_borrow(void *ctx) {
  call *c = ctx;
  int s = nx_buffer_borrow(c->d, c->src, &c->b);
  CHECK(s == 0 || strstr(nx_error_message(), "nx_buffer_borrow"), "message: %s", nx_error_message());
  return s;
}

static void nothing(void *ctx) { (void)ctx; }
static int submit_all(void *ctx) {
  call *c = ctx;
  int s = nx_rig_submit(c->d, &c->src, 1, NULL, 0, nothing, NULL);
  if (!s) s = nx_rig_submit_fill(c->src, 0, 16, 7);
  if (!s) s = nx_rig_submit_copy(c->src, 0, c->src, 64, 16);
  if (!s) s = nx_device_sync(c->d);
  return s;
}

static void test_injected(void) {
  call c = {0};
  int steps = each_step("nx_rig_test_device", make_test_device, NULL, &c);
  CHECK(steps > 4, "nx_rig_test_device has only %d fallible steps", steps);
  nx_device *devs[4] = {R.host, R.ocl0, R.ocl1, c.d};
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 3; k++) {
      if (!devs[i] || !nx_device_has_memory(devs[i], (nx_memory_kind)k)) continue;
      c.d = devs[i];
      c.kind = (nx_memory_kind)k;
      steps = each_step("nx_buffer_create", make_buffer, drop_buffer, &c);
      CHECK(steps >= 4, "nx_buffer_create has only %d fallible steps", steps);
      nx_buffer *src = NULL;
      if (nx_buffer_create(devs[i], (nx_memory_kind)k, NX_ACCESS_READ_WRITE, 4096, &src)) continue;
      c.src = src;
      for (int j = 0; j < 3; j++) {
        c.d = devs[j];
        if (devs[j] != devs[i] && nx_device_can_map(devs[j], src)) each_step("nx_buffer_borrow", make_borrow, drop_buffer, &c);
      }
      c.d = devs[i];
      each_step("submissions", submit_all, NULL, &c);
      nx_buffer_release(src);
    }
  each_step("nx_buffer_wrap_host", make_wrap, drop_buffer, &c);
}

/* The first use, each step failing in a child (the rig starts once per
   process): the child checks what it got and exits 0, or 3 where no step
   failed. */
static int first_use_child(long k) {
  nx__inject_failures(k);
  nx_device *all[64];
  int n = nx_rig_devices(all, 64);
  long fired = nx__injected();
  nx__inject_failures(0);
  int bad = 0;
  if (n > 0 && strcmp(nx_device_name(all[0]), "host") != 0) bad |= 1;
  if (n == 0 && nx_rig_host() != NULL) bad |= 2;
  for (int i = 1; i < n && i < 64; i++) {
    char want[32];
    snprintf(want, sizeof want, "opencl:%d", i - 1);
    if (strcmp(nx_device_name(all[i]), want) != 0) bad |= 4;
  }
  /* Every device made works. */
  for (int i = 0; i < n && i < 64; i++) {
    nx_buffer *b = NULL;
    uint8_t in[256], out[256];
    memset(in, i + 1, sizeof in);
    if (nx_buffer_create(all[i], NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 256, &b) || write_in(b, in) ||
        read_back(b, out) || memcmp(in, out, 256))
      bad |= 8;
    nx_buffer_release(b);
  }
  if (bad) fprintf(stderr, "first use with step %ld failing: %d devices, faults %d\n", k, n, bad);
  return bad ? 1 : fired ? 0 : 3;
}

static void test_first_use(void) {
  int k;
  for (k = 1; k < 100; k++) {
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) _exit(first_use_child(k));
    int st = 0;
    waitpid(p, &st, 0);
    CHECK(WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 3),
          "the first use with step %d failing: child status %d", k, st);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) break;
  }
  /* OpenCL's discovery has most of the first use's fallible steps. */
  CHECK(k > (NX_TEST_OPENCL_BUILT ? 10 : 2), "the first use has only %d fallible steps", k);
}

/* ---- Loss of io memory, and mapping ------------------------------------ */

static void test_mapping(void) {
  for (int k = NX_MEMORY_HOST; k <= NX_MEMORY_IO; k++) {
    nx_buffer *b = NULL, *hb = NULL, *borrow = NULL;
    CHECK(nx_buffer_create(R.ocl0, (nx_memory_kind)k, NX_ACCESS_READ_WRITE, 4096, &b) == 0, "create: %s",
          nx_error_message());
    if (!b) continue;
    CHECK(nx_buffer_wait(b, NX_ACCESS_WRITE) == 0 && nx__opencl_mapped(b) == 1, "%s memory: not mapped for the host",
          kind_name((nx_memory_kind)k));
    memset(nx_buffer_host_address(b), 1, 4096);
    CHECK(nx_rig_submit_fill(b, 100, 50, 0x5a) == 0 && nx_device_sync(R.ocl0) == 0, "fill: %s", nx_error_message());
    CHECK(nx__opencl_mapped(b) == 0, "%s memory: mapped while its device's command ran (%d)",
          kind_name((nx_memory_kind)k), nx__opencl_mapped(b));
    CHECK(nx_buffer_wait(b, NX_ACCESS_READ) == 0 && nx__opencl_mapped(b) == 1, "%s memory: not mapped after the wait",
          kind_name((nx_memory_kind)k));
    const uint8_t *p = nx_buffer_host_address(b);
    int bad = 0;
    for (int i = 0; i < 4096; i++) bad += p[i] != (i >= 100 && i < 150 ? 0x5a : 1);
    CHECK(bad == 0, "%s memory: %d bytes wrong after a device fill", kind_name((nx_memory_kind)k), bad);
    nx_buffer_release(b);
    (void)hb;
    (void)borrow;
  }
  /* Host memory an OpenCL device borrows: a buffer of its context over the
     host's pages, mapped and unmapped the same way. */
  nx_buffer *h = NULL, *bw = NULL;
  CHECK(nx_buffer_create(R.host, NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 4096, &h) == 0 &&
            nx_buffer_borrow(R.ocl0, h, &bw) == 0,
        "borrow: %s", nx_error_message());
  if (bw) {
    CHECK(nx_buffer_wait(h, NX_ACCESS_WRITE) == 0, "wait");
    memset(nx_buffer_host_address(h), 2, 4096);
    CHECK(nx_rig_submit_fill(bw, 0, 10, 0x77) == 0 && nx_device_sync(R.ocl0) == 0, "fill: %s", nx_error_message());
    CHECK(nx__opencl_mapped(h) == 0, "a borrow's buffer was mapped while its command ran");
    CHECK(nx_buffer_wait(h, NX_ACCESS_READ) == 0 && nx__opencl_mapped(h) == 1, "not mapped after the wait");
    const uint8_t *p = nx_buffer_host_address(h);
    CHECK(p[0] == 0x77 && p[9] == 0x77 && p[10] == 2 && p[4095] == 2, "the borrow's fill: %02x %02x %02x", p[0], p[9],
          p[10]);
  }
  nx_buffer_release(bw);
  nx_buffer_release(h);
}

static void test_io_loss(void) {
  nx_buffer *io = NULL, *dev = NULL, *host = NULL, *hio = NULL;
  CHECK(nx_buffer_create(R.ocl1, NX_MEMORY_IO, NX_ACCESS_READ_WRITE, 256, &io) == 0 &&
            nx_buffer_create(R.ocl1, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 256, &dev) == 0 &&
            nx_buffer_create(R.ocl1, NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 256, &host) == 0 &&
            nx_buffer_borrow(R.host, io, &hio) == 0,
        "create: %s", nx_error_message());
  if (!io || !dev || !host || !hio) return;
  CHECK(!nx_buffer_lost(io) && !nx_buffer_lost(hio), "io memory lost before the loss");
  CHECK(nx__opencl_fail_by_user_event(R.ocl1, NULL) == 0, "the user event: %s", nx_error_message());
  CHECK(nx_device_sync(R.ocl1) == NX_ELOST && nx_device_lost(R.ocl1), "opencl:1 is not lost");
  CHECK(nx_buffer_wait(io, NX_ACCESS_READ) == NX_ELOST && nx_buffer_lost(io), "io memory of a lost device is not lost");
  CHECK(nx_buffer_wait(hio, NX_ACCESS_READ) == NX_ELOST && nx_buffer_lost(hio),
        "the host's borrow of io memory of a lost device is not lost");
  CHECK(nx_buffer_wait(dev, NX_ACCESS_READ) == NX_ELOST && nx_buffer_lost(dev), "device memory of a lost device");
  CHECK(nx_buffer_wait(host, NX_ACCESS_READ) == 0 && !nx_buffer_lost(host),
        "host memory (nx's pages) of a lost device is lost: %s", nx_error_message());
  /* Claims on lost memory succeed: they order donation and freeing only. */
  bool w = true;
  nx_claim_answer a;
  CHECK(nx_rig_claim(1, &io, &w, &a) == 0, "a claim on lost memory was refused");
  nx_rig_release(1, &io, &w);
  nx_buffer_release(hio);
  nx_buffer_release(io);
  nx_buffer_release(dev);
  nx_buffer_release(host);
}

int main(void) {
  test_first_use(); /* before this process starts the rig */
  if (rig_need_devices(&R)) return check_done();
  test_injected();
  test_mapping();
  test_io_loss(); /* last: it loses opencl:1 */
  return check_done();
}
