/* SPDX-License-Identifier: Apache-2.0 */
/* Loss: every injection point of the test device (at submit, while work
   runs, at wait) with every operation (submit, a copy to the host, a copy
   from the host, a fill; the firing wait a buffer wait or a device sync;
   create and borrow after loss), each on a fresh test device. Checked: every
   wait on the lost device's unfinished work settles with NX_ELOST within a
   bound (a watchdog ends the process on a hang), memory that must follow the
   lost work is lost (a host buffer a copy from the lost device writes, and a
   host buffer copied from that one), the work's fn never runs, and other
   devices and memory are untouched (host buffers the lost work only read or
   never touched keep their bytes and their waits return 0; a host buffer
   the lost device wrote before it failed stays; an unrelated test device
   still works). Last, a real OpenCL failure through a user event on
   opencl:1: its work's waits give NX_ELOST, the memory it wrote is lost,
   and opencl:0 still works. */
#include "rig_common.h"
#include "rig_test.h"

#define N 512
#define BOUND 5.0

static rig_devices R;
static nx_device *W; /* the witness: a test device no fault touches */
static nx_buffer *WB;
static int scenarios;
static double worst;

enum { OP_SUBMIT, OP_COPY_TO_HOST, OP_COPY_FROM_HOST, OP_FILL, NOPS };
static const char *op_names[NOPS] = {"submit", "copy to the host", "copy from the host", "fill"};

static nx_buffer *make(nx_device *d, nx_memory_kind k, int64_t n) {
  nx_buffer *b = NULL;
  int s = nx_buffer_create(d, k, NX_ACCESS_READ_WRITE, n, &b);
  CHECK(s == 0, "create %s memory on %s: %s", kind_name(k), nx_device_name(d), nx_error_message());
  return s ? NULL : b;
}

static void pattern(uint8_t *p, unsigned seed) {
  for (int i = 0; i < N; i++) p[i] = (uint8_t)(seed * 13u + (unsigned)i * 3u + 1u);
}

/* A wait that must settle within the bound; returns its status. */
static int bounded(const char *what, int (*fn)(void *), void *arg) {
  watchdog w;
  watchdog_arm(&w, 3 * BOUND, what);
  double t = now_s();
  int s = fn(arg);
  double took = now_s() - t;
  watchdog_disarm(&w);
  if (took > worst) worst = took;
  CHECK(took < BOUND, "%s took %.2f s", what, took);
  return s;
}

static int wait_read(void *b) { return nx_buffer_wait(b, NX_ACCESS_READ); }
static int wait_write(void *b) { return nx_buffer_wait(b, NX_ACCESS_WRITE); }
static int sync_dev(void *d) { return nx_device_sync(d); }

static atomic_int fn_ran;
static void marked_fn(void *ctx) {
  (void)ctx;
  atomic_fetch_add(&fn_ran, 1);
}

static void witness_works(const char *after, bool ocl1_lost) {
  uint8_t want[N], got[N];
  pattern(want, (unsigned)scenarios + 77u);
  CHECK(write_in(WB, want) == 0 && read_back(WB, got) == 0 && memcmp(want, got, N) == 0,
        "the witness test device failed after %s: %s", after, nx_error_message());
  CHECK(!nx_device_lost(W) && nx_device_sync(W) == 0, "the witness is lost after %s", after);
  CHECK(!nx_device_lost(R.host) && !nx_device_lost(R.ocl0) && nx_device_lost(R.ocl1) == ocl1_lost,
        "another device lost after %s", after);
}

/* One scenario: a fresh test device, the fault armed, the operation. */
static void scenario(int fault, int op, bool fire_by_sync) {
  char what[160];
  snprintf(what, sizeof what, "%s, %s%s", fault == NX_FAULT_AT_SUBMIT ? "loss at submit"
                                          : fault == NX_FAULT_WHILE_RUNNING ? "loss while running"
                                                                            : "loss at wait",
           op_names[op], fire_by_sync ? ", fired by nx_device_sync" : "");
  nx_device *t = NULL;
  CHECK(nx_rig_test_device(&t) == 0, "%s: a test device: %s", what, nx_error_message());
  if (!t) return;
  scenarios++;
  nx_buffer *tb = make(t, NX_MEMORY_DEVICE, N);       /* the lost device's memory */
  nx_buffer *hin = make(R.host, NX_MEMORY_HOST, N);   /* read by lost work only */
  nx_buffer *hout = make(R.host, NX_MEMORY_HOST, N);  /* written by a copy from the lost device */
  nx_buffer *hf = make(R.host, NX_MEMORY_DEVICE, N);  /* copied from hout: follows the lost work */
  nx_buffer *hside = make(R.host, NX_MEMORY_HOST, N); /* no lost work touches it */
  nx_buffer *hdone = make(R.host, NX_MEMORY_HOST, N); /* written by the device before it failed */
  nx_buffer *wb2 = make(W, NX_MEMORY_DEVICE, N);      /* a witness buffer copied from lost memory */
  if (!tb || !hin || !hout || !hf || !hside || !hdone || !wb2) return;
  uint8_t pt[N], pin[N], pout[N], pside[N], got[N];
  pattern(pt, 1);
  pattern(pin, 2);
  pattern(pout, 3);
  pattern(pside, 4);
  CHECK(write_in(tb, pt) == 0 && write_in(hin, pin) == 0 && write_in(hout, pout) == 0 && write_in(hside, pside) == 0,
        "%s: setup: %s", what, nx_error_message());
  CHECK(nx_rig_submit_copy(hdone, 0, tb, 0, N) == 0 && nx_buffer_wait(hdone, NX_ACCESS_READ) == 0,
        "%s: a copy before the loss", what);
  atomic_store(&fn_ran, 0);

  /* Hold the device back, so that what follows is unfinished work. */
  gate g;
  gate_init(&g);
  CHECK(nx_rig_submit(t, NULL, 0, NULL, 0, gate_work, &g) == 0, "%s: gate", what);
  CHECK(gate_wait_entered(&g, 1, 5000), "%s: the gate did not start", what);
  if (fault == NX_FAULT_WHILE_RUNNING || fault == NX_FAULT_AT_WAIT) {
    if (fault == NX_FAULT_WHILE_RUNNING) CHECK(nx_test_device_fail(t, fault) == 0, "arm");
  } else {
    /* At submit: queue the work that the loss leaves unfinished first. */
    CHECK(nx_rig_submit_copy(hout, 0, tb, 0, N) == 0, "%s: copy before the faulty submit: %s", what,
          nx_error_message());
    CHECK(nx_test_device_fail(t, fault) == 0, "arm");
  }

  /* The operation. */
  int s = 0;
  nx_buffer *tbl[1] = {tb}, *hinl[1] = {hin};
  switch (op) {
  case OP_SUBMIT: s = nx_rig_submit(t, hinl, 0, tbl, 1, marked_fn, NULL); break;
  case OP_COPY_TO_HOST: s = nx_rig_submit_copy(hout, 0, tb, 0, N); break;
  case OP_COPY_FROM_HOST: s = nx_rig_submit_copy(tb, 0, hin, 0, N); break;
  case OP_FILL: s = nx_rig_submit_fill(tb, 0, N, 0xab); break;
  }
  if (fault == NX_FAULT_AT_SUBMIT) {
    CHECK(s == NX_ELOST, "%s: the faulty submission returned %d, not NX_ELOST", what, s);
    CHECK(nx_device_lost(t), "%s: the device is not lost", what);
  } else {
    CHECK(s == 0, "%s: the submission: %s", what, nx_error_message());
    if (op != OP_COPY_TO_HOST)
      CHECK(nx_rig_submit_copy(hout, 0, tb, 0, N) == 0, "%s: copy to the host: %s", what, nx_error_message());
  }
  gate_open_later(&g, 30);

  if (fault == NX_FAULT_AT_WAIT) {
    CHECK(nx_test_device_fail(t, fault) == 0, "arm");
    s = fire_by_sync ? bounded(what, sync_dev, t) : bounded(what, wait_read, hout);
    CHECK(s == NX_ELOST, "%s: the firing wait returned %d, not NX_ELOST", what, s);
    CHECK(nx_device_lost(t), "%s: the device is not lost", what);
  }
  /* Follow the lost work on the host's timeline: that memory is lost too.
     (After the loss at wait, so that the firing wait is the test's.) */
  s = nx_rig_submit_copy(hf, 0, hout, 0, N);
  CHECK(s == 0, "%s: a host copy that follows the lost work: %s", what, nx_error_message());

  /* Every wait on the lost work settles with NX_ELOST, within the bound. */
  CHECK(bounded(what, wait_read, hout) == NX_ELOST, "%s: wait on a host buffer the lost device writes", what);
  CHECK(bounded(what, wait_write, hout) == NX_ELOST, "%s: write wait on it", what);
  CHECK(bounded(what, wait_read, hf) == NX_ELOST, "%s: wait on a host buffer that follows the lost work", what);
  CHECK(bounded(what, wait_read, tb) == NX_ELOST, "%s: wait on the lost device's memory", what);
  CHECK(bounded(what, sync_dev, t) == NX_ELOST, "%s: nx_device_sync of the lost device", what);
  CHECK(strstr(nx_error_message(), nx_device_name(t)) != NULL, "%s: message %s", what, nx_error_message());
  CHECK(nx_device_lost(t), "%s: lost", what);
  gate_destroy(&g);
  CHECK(atomic_load(&fn_ran) == 0, "%s: the lost work's fn ran", what);

  /* What no lost work wrote is untouched: bytes, and waits that give 0. */
  CHECK(bounded(what, wait_write, hin) == 0, "%s: a host buffer the lost work only read: %s", what,
        nx_error_message());
  CHECK(memcmp(nx_buffer_host_address(hin), pin, N) == 0, "%s: the bytes of a host buffer lost work read", what);
  CHECK(bounded(what, wait_write, hside) == 0 && memcmp(nx_buffer_host_address(hside), pside, N) == 0,
        "%s: an untouched host buffer", what);
  CHECK(bounded(what, wait_read, hdone) == 0 && memcmp(nx_buffer_host_address(hdone), pt, N) == 0,
        "%s: a host buffer written before the loss", what);
  CHECK(bounded(what, sync_dev, R.host) == 0, "%s: the host's timeline", what);

  /* After the loss: every submission, create and borrow give NX_ELOST. */
  nx_buffer *o = (nx_buffer *)&o;
  CHECK(nx_buffer_create(t, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 8, &o) == NX_ELOST && o == (nx_buffer *)&o,
        "%s: create after loss", what);
  CHECK(nx_buffer_borrow(t, tb, &o) == NX_ELOST && o == (nx_buffer *)&o, "%s: borrow onto the lost device", what);
  CHECK(nx_buffer_borrow(R.host, tb, &o) == NX_ELOST && o == (nx_buffer *)&o, "%s: borrow of lost memory", what);
  CHECK(nx_buffer_borrow(t, hside, &o) == NX_ELOST && o == (nx_buffer *)&o, "%s: the lost device borrows", what);
  CHECK(nx_rig_submit(t, NULL, 0, NULL, 0, marked_fn, NULL) == NX_ELOST, "%s: submit after loss", what);
  CHECK(nx_rig_submit_fill(tb, 0, N, 1) == NX_ELOST, "%s: fill after loss", what);
  CHECK(nx_rig_submit_copy(hside, 0, tb, 0, N) == NX_ELOST, "%s: copy to the host after loss", what);
  CHECK(nx_rig_submit_copy(tb, 0, hside, 0, N) == NX_ELOST, "%s: copy from the host after loss", what);
  CHECK(nx_buffer_wait(hside, NX_ACCESS_WRITE) == 0 && memcmp(nx_buffer_host_address(hside), pside, N) == 0,
        "%s: the refused copy touched nothing", what);
  /* Another device's copy from the lost memory: that device stays, the
     memory it writes is lost. */
  CHECK(nx_rig_submit_copy(wb2, 0, tb, 0, N) == 0, "%s: the witness copies lost memory: %s", what,
        nx_error_message());
  CHECK(bounded(what, wait_read, wb2) == NX_ELOST, "%s: what follows lost memory on another device", what);
  CHECK(!nx_device_lost(W), "%s: the witness is lost", what);
  CHECK(nx_rig_submit_copy(hside, 0, hin, 0, N) == 0 && read_back(hside, got) == 0 && memcmp(got, pin, N) == 0,
        "%s: the host still copies", what);
  CHECK(atomic_load(&fn_ran) == 0, "%s: a fn ran on the lost device", what);
  witness_works(what, false);

  nx_buffer *all[] = {tb, hin, hout, hf, hside, hdone, wb2};
  for (int i = 0; i < 7; i++) {
    CHECK(nx_buffer_refcount(all[i]) == 1, "%s: refcount %d", what, nx_buffer_refcount(all[i]));
    nx_buffer_release(all[i]);
  }
}

/* The real OpenCL failure: a command waiting on a user event set to a
   negative status, on opencl:1. */
static void opencl_failure(void) {
  const char *what = "the OpenCL user-event failure";
  nx_buffer *d1 = make(R.ocl1, NX_MEMORY_DEVICE, N), *io1 = make(R.ocl1, NX_MEMORY_IO, N);
  nx_buffer *h1 = make(R.ocl1, NX_MEMORY_HOST, N), *hw = make(R.host, NX_MEMORY_HOST, N);
  nx_buffer *hside = make(R.host, NX_MEMORY_HOST, N), *d0 = make(R.ocl0, NX_MEMORY_DEVICE, N);
  nx_buffer *io0 = make(R.ocl0, NX_MEMORY_IO, N);
  if (!d1 || !io1 || !h1 || !hw || !hside || !d0 || !io0) return;
  uint8_t p1[N], p2[N], p3[N], got[N];
  pattern(p1, 11);
  pattern(p2, 12);
  pattern(p3, 13);
  CHECK(write_in(d1, p1) == 0 && write_in(io1, p2) == 0 && write_in(h1, p3) == 0 && write_in(hside, p3) == 0 &&
            write_in(hw, p2) == 0,
        "setup: %s", nx_error_message());

  /* Held back by a gate, so that the copy is queued before the failure. */
  gate g;
  gate_init(&g);
  CHECK(nx_rig_submit(R.ocl1, NULL, 0, NULL, 0, gate_work, &g) == 0, "gate: %s", nx_error_message());
  CHECK(nx__opencl_fail_by_user_event(R.ocl1, d1) == 0, "the hook: %s", nx_error_message());
  CHECK(nx_rig_submit_copy(hw, 0, d1, 0, N) == 0, "a copy that follows the failure: %s", nx_error_message());
  gate_open_later(&g, 20);
  CHECK(bounded(what, wait_read, d1) == NX_ELOST, "the memory the failed command wrote");
  CHECK(bounded(what, wait_read, hw) == NX_ELOST, "a host buffer that follows the failed command");
  CHECK(bounded(what, sync_dev, R.ocl1) == NX_ELOST, "nx_device_sync(opencl:1)");
  CHECK(nx_device_lost(R.ocl1), "opencl:1 is not lost");
  gate_destroy(&g);
  /* Memory no failed work writes: the host's, and opencl:1's host pages. */
  CHECK(bounded(what, wait_write, hside) == 0 && memcmp(nx_buffer_host_address(hside), p3, N) == 0,
        "an untouched host buffer");
  CHECK(bounded(what, wait_read, h1) == 0 && memcmp(nx_buffer_host_address(h1), p3, N) == 0,
        "opencl:1's host memory no failed work wrote: %s", nx_error_message());
  /* nx_rig.h: every memory of kind NX_MEMORY_DEVICE or NX_MEMORY_IO on the
     lost device is lost (io memory is the device's storage, pages its
     runtime allocated for it), though no failed work wrote it. */
  CHECK(bounded(what, wait_read, io1) == NX_ELOST && nx_buffer_lost(io1),
        "opencl:1's io memory was not lost with its device");
  nx_buffer *o = (nx_buffer *)&o;
  CHECK(nx_buffer_create(R.ocl1, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 8, &o) == NX_ELOST, "create after loss");
  CHECK(nx_buffer_borrow(R.ocl1, io0, &o) == NX_ELOST && o == (nx_buffer *)&o, "borrow onto opencl:1 after loss");
  CHECK(nx_rig_submit_fill(d1, 0, N, 0) == NX_ELOST, "fill after loss");
  CHECK(nx__opencl_fail_by_user_event(R.ocl1, NULL) == NX_ELOST, "the hook on a lost device");
  CHECK(nx__opencl_fail_by_user_event(R.host, NULL) == NX_EINVAL, "the hook on the host");

  /* opencl:0, in the same platform and context, still works. */
  CHECK(!nx_device_lost(R.ocl0), "opencl:0 is lost");
  CHECK(write_in(d0, p1) == 0 && read_back(d0, got) == 0 && memcmp(got, p1, N) == 0, "opencl:0 device memory: %s",
        nx_error_message());
  CHECK(nx_rig_submit_copy(io0, 0, d0, 0, N) == 0 && nx_rig_submit_fill(d0, 0, 16, 0x5e) == 0,
        "opencl:0 copies and fills: %s", nx_error_message());
  CHECK(read_back(io0, got) == 0 && memcmp(got, p1, N) == 0, "opencl:0's copy");
  memset(p1, 0x5e, 16);
  CHECK(read_back(d0, got) == 0 && memcmp(got, p1, N) == 0, "opencl:0's fill");
  CHECK(bounded(what, sync_dev, R.ocl0) == 0, "nx_device_sync(opencl:0)");
  witness_works(what, true);
  nx_buffer *all[] = {d1, io1, h1, hw, hside, d0, io0};
  for (int i = 0; i < 7; i++) nx_buffer_release(all[i]);
}

int main(void) {
  if (rig_need_devices(&R)) return check_done();
  CHECK(nx_rig_test_device(&W) == 0, "the witness test device");
  if (!W) return check_done();
  WB = make(W, NX_MEMORY_DEVICE, N);
  if (!WB) return check_done();
  double t = now_s();
  int faults[3] = {NX_FAULT_AT_SUBMIT, NX_FAULT_WHILE_RUNNING, NX_FAULT_AT_WAIT};
  for (int f = 0; f < 3; f++)
    for (int op = 0; op < NOPS; op++) scenario(faults[f], op, false);
  scenario(NX_FAULT_AT_WAIT, OP_FILL, true);
  CHECK(scenarios == 13, "%d scenarios ran, wanted 13", scenarios);
  printf("%d test-device scenarios, %.2f s, slowest wait %.3f s\n", scenarios, now_s() - t, worst);
  opencl_failure();
  nx_buffer_release(WB);
  printf("total %.2f s, slowest wait %.3f s\n", now_s() - t, worst);
  return check_done();
}
