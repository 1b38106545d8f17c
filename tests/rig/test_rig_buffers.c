/* SPDX-License-Identifier: Apache-2.0 */
/* Buffers: create (every kind on every device, 0 bytes, the refusals),
   reference counts, free (dead with "freed", refused twice, memory kept
   while claims and work still use it), death by consume, host addresses per
   kind, overlaps, borrow (host to OpenCL, OpenCL io to host, opencl:0 to
   opencl:1, the test device's NX_NONE) and export. */
#include "rig_common.h"

static rig_devices R;
static nx_device *T0, *T1;

static nx_buffer *make(nx_device *d, nx_memory_kind k, nx_access a, int64_t n) {
  nx_buffer *b = NULL;
  int s = nx_buffer_create(d, k, a, n, &b);
  CHECK(s == 0 && b, "create %lld bytes of %s memory on %s: %s", (long long)n, kind_name(k), nx_device_name(d),
        nx_error_message());
  return s == 0 ? b : NULL;
}

static void pattern(uint8_t *p, int64_t n, unsigned seed) {
  for (int64_t i = 0; i < n; i++) p[i] = (uint8_t)(seed * 31u + (unsigned)i * 7u + ((unsigned)i >> 8));
}

static void test_create(void) {
  nx_device *devs[4] = {R.host, R.ocl0, R.ocl1, T0};
  nx_memory_kind kinds[3] = {NX_MEMORY_DEVICE, NX_MEMORY_HOST, NX_MEMORY_IO};
  nx_access accs[3] = {NX_ACCESS_READ, NX_ACCESS_WRITE, NX_ACCESS_READ_WRITE};
  int64_t sizes[3] = {0, 1, 4097};
  int made = 0;
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 3; k++) {
      if (!nx_device_has_memory(devs[i], kinds[k])) {
        nx_buffer *b = (nx_buffer *)&b;
        CHECK(nx_buffer_create(devs[i], kinds[k], NX_ACCESS_READ_WRITE, 8, &b) == NX_EINVAL,
              "%s memory on %s, which lacks it", kind_name(kinds[k]), nx_device_name(devs[i]));
        CHECK(b == (nx_buffer *)&b, "the refusal set its result");
        CHECK(strstr(nx_error_message(), "nx_buffer_create") != NULL, "message: %s", nx_error_message());
        continue;
      }
      for (int a = 0; a < 3; a++)
        for (int z = 0; z < 3; z++) {
          nx_buffer *b = make(devs[i], kinds[k], accs[a], sizes[z]);
          if (!b) continue;
          made++;
          CHECK(nx_buffer_device(b) == devs[i] && nx_buffer_kind(b) == kinds[k] && nx_buffer_access(b) == accs[a] &&
                    nx_buffer_bytes(b) == sizes[z],
                "facts of a %s buffer on %s", kind_name(kinds[k]), nx_device_name(devs[i]));
          CHECK(nx_buffer_refcount(b) == 1, "a new buffer's refcount is %d", nx_buffer_refcount(b));
          CHECK(nx_buffer_dead(b) == NULL, "a new buffer is dead: %s", nx_buffer_dead(b));
          bool addressed = nx_device_host_addresses(devs[i], kinds[k]);
          CHECK((nx_buffer_host_address(b) != NULL) == addressed, "host address of %lld bytes of %s memory on %s",
                (long long)sizes[z], kind_name(kinds[k]), nx_device_name(devs[i]));
          if (addressed && sizes[z] > 0 && (accs[a] & NX_ACCESS_WRITE)) {
            /* The host address holds the buffer's bytes: every byte writable. */
            CHECK(nx_buffer_wait(b, NX_ACCESS_WRITE) == 0, "wait on a new buffer");
            memset(nx_buffer_host_address(b), 0x5a, (size_t)sizes[z]);
          }
          if (sizes[z] > 0 && (accs[a] & NX_ACCESS_WRITE)) {
            CHECK(nx_rig_submit_fill(b, 0, sizes[z], 0xa5) == 0, "fill: %s", nx_error_message());
            uint8_t got[4097];
            if ((accs[a] & NX_ACCESS_READ) || addressed) {
              int s = accs[a] & NX_ACCESS_READ ? read_back(b, got) : nx_buffer_wait(b, NX_ACCESS_READ);
              if (!(accs[a] & NX_ACCESS_READ) && s == 0) memcpy(got, nx_buffer_host_address(b), (size_t)sizes[z]);
              CHECK(s == 0, "read back: %s", nx_error_message());
              int bad = 0;
              for (int64_t q = 0; q < sizes[z]; q++) bad += got[q] != 0xa5;
              CHECK(s != 0 || bad == 0, "%d bytes of a fill of %s memory on %s differ", bad, kind_name(kinds[k]),
                    nx_device_name(devs[i]));
            }
          }
          nx_buffer_release(b);
        }
    }
  CHECK(made == 3 * 3 * (2 + 3 + 3 + 1), "made %d buffers", made);

  /* Refusals: the result untouched, a message naming the function. */
  nx_buffer *b = (nx_buffer *)&b;
  CHECK(nx_buffer_create(R.host, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, -1, &b) == NX_EINVAL, "-1 bytes");
  CHECK(strstr(nx_error_message(), "negative") != NULL, "message: %s", nx_error_message());
  CHECK(nx_buffer_create(R.ocl0, NX_MEMORY_IO, NX_ACCESS_READ_WRITE, INT64_MIN, &b) == NX_EINVAL, "INT64_MIN bytes");
  CHECK(nx_buffer_create(R.host, NX_MEMORY_DEVICE, (nx_access)0, 8, &b) == NX_EINVAL, "access 0");
  CHECK(nx_buffer_create(R.host, NX_MEMORY_DEVICE, (nx_access)4, 8, &b) == NX_EINVAL, "access 4");
  CHECK(nx_buffer_create(R.ocl0, NX_MEMORY_DEVICE, (nx_access)-1, 8, &b) == NX_EINVAL, "access -1");
  CHECK(nx_buffer_create(R.ocl0, (nx_memory_kind)3, NX_ACCESS_READ, 8, &b) == NX_EINVAL, "kind 3");
  CHECK(nx_buffer_create(R.host, (nx_memory_kind)-1, NX_ACCESS_READ, 8, &b) == NX_EINVAL, "kind -1");
  CHECK(nx_buffer_create(NULL, NX_MEMORY_DEVICE, NX_ACCESS_READ, 8, &b) == NX_EINVAL, "NULL device");
  CHECK(nx_buffer_create(R.host, NX_MEMORY_DEVICE, NX_ACCESS_READ, 8, NULL) == NX_EINVAL, "NULL result");
  CHECK(b == (nx_buffer *)&b, "a refusal set its result");
}

static void test_refcounts(void) {
  nx_buffer *b = make(R.ocl0, NX_MEMORY_IO, NX_ACCESS_READ_WRITE, 64);
  if (!b) return;
  for (int i = 0; i < 5; i++) nx_buffer_retain(b);
  CHECK(nx_buffer_refcount(b) == 6, "refcount %d after 5 retains", nx_buffer_refcount(b));
  for (int i = 0; i < 5; i++) nx_buffer_release(b);
  CHECK(nx_buffer_refcount(b) == 1, "refcount %d after 5 releases", nx_buffer_refcount(b));
  nx_buffer_retain(NULL);
  nx_buffer_release(NULL);
  CHECK(nx_buffer_refcount(NULL) == 0, "refcount of NULL");
  /* Work holds its own references while queued and gives them back. */
  gate g;
  gate_init(&g);
  nx_buffer *w[1] = {b};
  CHECK(nx_rig_submit(R.ocl0, NULL, 0, w, 1, gate_work, &g) == 0, "submit: %s", nx_error_message());
  gate_open_later(&g, 20);
  CHECK(nx_device_sync(R.ocl0) == 0, "sync");
  gate_destroy(&g);
  CHECK(nx_buffer_refcount(b) == 1, "refcount %d after the work", nx_buffer_refcount(b));
  /* A borrow onto its own device is the buffer with a reference added. */
  nx_buffer *same = NULL;
  CHECK(nx_buffer_borrow(R.ocl0, b, &same) == 0 && same == b, "borrow onto its own device");
  CHECK(nx_buffer_refcount(b) == 2, "refcount %d after a borrow onto its own device", nx_buffer_refcount(b));
  nx_buffer_release(same);
  /* A borrow elsewhere is a new handle; the source's count is unchanged. */
  nx_buffer *h = NULL;
  CHECK(nx_buffer_borrow(R.host, b, &h) == 0 && h && h != b, "borrow onto the host");
  CHECK(nx_buffer_refcount(b) == 1 && nx_buffer_refcount(h) == 1, "refcounts %d %d", nx_buffer_refcount(b),
        nx_buffer_refcount(h));
  /* The memory outlives the first handle: the borrow still reaches it. */
  nx_buffer_release(b);
  CHECK(nx_buffer_wait(h, NX_ACCESS_WRITE) == 0, "wait on the borrow");
  memset(nx_buffer_host_address(h), 1, 64);
  CHECK(nx_rig_submit_fill(h, 0, 64, 9) == 0, "fill through the borrow after the source is released");
  CHECK(nx_buffer_wait(h, NX_ACCESS_READ) == 0 && ((uint8_t *)nx_buffer_host_address(h))[63] == 9, "fill seen");
  nx_buffer_release(h);
}

/* A work fn that checks the memory it was given still holds its pattern
   when it runs (after the buffer was freed), then writes every byte. */
typedef struct {
  gate g;
  uint8_t *p;
  int64_t n;
  unsigned seed;
  int bad;
} late_work;

static void late_fn(void *ctx) {
  late_work *w = ctx;
  gate_work(&w->g);
  uint8_t *want = malloc((size_t)w->n);
  pattern(want, w->n, w->seed);
  w->bad = memcmp(w->p, want, (size_t)w->n) != 0;
  memset(w->p, 0x77, (size_t)w->n); /* use after free here if the memory went back early (ASan) */
  free(want);
}

static void nothing_fn(void *ctx) { (void)ctx; }

static void test_free(void) {
  /* Dead with "freed"; refused twice; every use refused. */
  nx_buffer *b = make(R.host, NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 32);
  if (!b) return;
  CHECK(nx_buffer_free(b) == 0, "free: %s", nx_error_message());
  CHECK(nx_buffer_dead(b) && strcmp(nx_buffer_dead(b), "freed") == 0, "dead reason %s", nx_buffer_dead(b));
  CHECK(nx_buffer_free(b) == NX_EINVAL, "free twice");
  CHECK(strstr(nx_error_message(), "nx_buffer_free") && strstr(nx_error_message(), "freed"), "message: %s",
        nx_error_message());
  nx_claim_answer ans[1];
  bool wr[1] = {false};
  CHECK(nx_rig_claim(1, &b, wr, ans) == NX_RIG_REFUSED && ans[0] == NX_CLAIM_DEAD, "claim of freed memory");
  CHECK(nx_rig_submit_fill(b, 0, 32, 1) == NX_EINVAL, "fill of freed memory");
  CHECK(nx_buffer_wait(b, NX_ACCESS_READ) == NX_EINVAL, "wait on freed memory");
  CHECK(nx_buffer_hold_exclusive(b) == NX_EINVAL, "hold of freed memory");
  CHECK(nx_buffer_export(b) == NX_EINVAL, "export of freed memory");
  nx_buffer *o = (nx_buffer *)&o;
  CHECK(nx_buffer_borrow(R.ocl0, b, &o) == NX_EINVAL && o == (nx_buffer *)&o, "borrow of freed memory");
  nx_buffer *c = make(R.host, NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 32);
  if (c) {
    CHECK(nx_rig_submit_copy(c, 0, b, 0, 32) == NX_EINVAL, "copy from freed memory");
    CHECK(nx_rig_submit_copy(b, 0, c, 0, 32) == NX_EINVAL, "copy into freed memory");
    nx_buffer_release(c);
  }
  CHECK(nx_buffer_refcount(b) == 1, "freed handle's refcount");
  nx_buffer_release(b);
  CHECK(nx_buffer_free(NULL) == NX_EINVAL, "free NULL");

  /* Free refused while held exclusive. */
  b = make(R.ocl1, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 32);
  if (b) {
    CHECK(nx_buffer_hold_exclusive(b) == 0, "hold");
    CHECK(nx_buffer_free(b) == NX_EINVAL && !nx_buffer_dead(b), "free of memory held exclusive");
    CHECK(nx_buffer_unhold(b) == 0 && nx_buffer_free(b) == 0, "free after unhold");
    nx_buffer_release(b);
  }

  /* Free while work that uses the memory is running: the memory stays until
     the work ends (the work sees its bytes; ASan sees no use after free). */
  struct { nx_device *d; nx_memory_kind k; } cases[] = {
      {R.host, NX_MEMORY_HOST}, {R.host, NX_MEMORY_DEVICE}, {R.ocl0, NX_MEMORY_IO}, {R.ocl1, NX_MEMORY_HOST}};
  for (int i = 0; i < 4; i++) {
    b = make(cases[i].d, cases[i].k, NX_ACCESS_READ_WRITE, 4096);
    if (!b) continue;
    late_work w;
    gate_init(&w.g);
    w.p = nx_buffer_host_address(b);
    w.n = 4096;
    w.seed = (unsigned)i + 1;
    w.bad = -1;
    CHECK(nx_buffer_wait(b, NX_ACCESS_WRITE) == 0, "wait");
    pattern(w.p, w.n, w.seed);
    nx_buffer *wl[1] = {b};
    CHECK(nx_rig_submit(cases[i].d, NULL, 0, wl, 1, late_fn, &w) == 0, "submit on %s: %s",
          nx_device_name(cases[i].d), nx_error_message());
    CHECK(gate_wait_entered(&w.g, 1, 5000), "the work did not start");
    CHECK(nx_buffer_free(b) == 0, "free while work runs: %s", nx_error_message());
    CHECK(nx_buffer_dead(b) && strcmp(nx_buffer_dead(b), "freed") == 0, "dead at once");
    nx_buffer_release(b); /* the last handle goes too: the work still holds the memory */
    /* Let the allocator reuse what it can before the work goes on. */
    for (int q = 0; q < 8; q++) {
      void *junk = malloc(4096);
      if (junk) memset(junk, 0xee, 4096);
      free(junk);
    }
    gate_open(&w.g);
    CHECK(nx_device_sync(cases[i].d) == 0, "sync");
    CHECK(w.bad == 0, "work on %s memory of %s, freed while it ran, saw other bytes (%d)", kind_name(cases[i].k),
          nx_device_name(cases[i].d), w.bad);
    gate_destroy(&w.g);
  }

  /* Free while a queued copy still has to read the memory: the copy reads
     the bytes it was given (the test device's and opencl:0's own memory). */
  nx_device *srcdev[3] = {T0, R.ocl0, R.ocl1};
  for (int i = 0; i < 3; i++) {
    nx_buffer *src = make(srcdev[i], NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 1000);
    nx_buffer *dst = make(R.host, NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 1000);
    if (!src || !dst) continue;
    uint8_t want[1000];
    pattern(want, 1000, 40u + (unsigned)i);
    CHECK(write_in(src, want) == 0, "write in: %s", nx_error_message());
    gate g;
    gate_init(&g);
    CHECK(nx_rig_submit(srcdev[i], NULL, 0, NULL, 0, gate_work, &g) == 0, "gate: %s", nx_error_message());
    CHECK(nx_rig_submit_copy(dst, 0, src, 0, 1000) == 0, "copy: %s", nx_error_message());
    CHECK(nx_buffer_free(src) == 0, "free a copy's source");
    nx_buffer_release(src);
    gate_open(&g);
    CHECK(nx_buffer_wait(dst, NX_ACCESS_READ) == 0, "wait: %s", nx_error_message());
    CHECK(memcmp(nx_buffer_host_address(dst), want, 1000) == 0, "a copy from %s memory freed before it ran",
          nx_device_name(srcdev[i]));
    gate_destroy(&g);
    nx_buffer_release(dst);
  }

  /* Free while claimed: dead for new claims at once, the memory usable by
     the claim until it is released. */
  b = make(R.host, NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 256);
  if (b) {
    bool wr1[1] = {true};
    CHECK(nx_rig_claim(1, &b, wr1, ans) == 0, "claim");
    CHECK(nx_buffer_free(b) == 0, "free while claimed: %s", nx_error_message());
    nx_buffer *b2[1] = {b};
    CHECK(nx_rig_claim(1, b2, wr1, ans) == NX_RIG_REFUSED && ans[0] == NX_CLAIM_DEAD, "a new claim after free");
    uint8_t *p = nx_buffer_host_address(b);
    memset(p, 3, 256); /* within the claim: still the memory */
    CHECK(p[255] == 3, "claimed memory");
    nx_rig_release(1, &b, wr1);
    nx_buffer_release(b);
  }
}

static void test_consume(void) {
  nx_buffer *b = make(R.ocl0, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 16);
  if (!b) return;
  CHECK(nx_buffer_consume(b, "donated to nx_mul") == NX_EINVAL && !nx_buffer_dead(b), "consume without a hold");
  CHECK(nx_buffer_unhold(b) == NX_EINVAL, "unhold without a hold");
  CHECK(nx_buffer_hold_exclusive(b) == 0, "hold");
  CHECK(nx_buffer_hold_exclusive(b) == NX_EINVAL, "hold twice");
  nx_claim_answer ans[1];
  bool wr[1] = {false};
  CHECK(nx_rig_claim(1, &b, wr, ans) == NX_RIG_REFUSED && ans[0] == NX_CLAIM_HELD_EXCLUSIVE, "claim while held");
  CHECK(nx_buffer_consume(b, NULL) == NX_EINVAL && !nx_buffer_dead(b), "consume with NULL reason");
  char reason[64];
  snprintf(reason, sizeof reason, "donated to nx_mul");
  CHECK(nx_buffer_consume(b, reason) == 0, "consume: %s", nx_error_message());
  memset(reason, 'x', sizeof reason - 1); /* the reason was copied */
  CHECK(nx_buffer_dead(b) && strcmp(nx_buffer_dead(b), "donated to nx_mul") == 0, "reason %s", nx_buffer_dead(b));
  CHECK(nx_rig_claim(1, &b, wr, ans) == NX_RIG_REFUSED && ans[0] == NX_CLAIM_DEAD, "claim after consume");
  CHECK(nx_buffer_free(b) == NX_EINVAL && strstr(nx_error_message(), "donated to nx_mul"), "free after consume: %s",
        nx_error_message());
  CHECK(nx_buffer_unhold(b) == NX_EINVAL && nx_buffer_consume(b, "again") == NX_EINVAL, "unhold, consume after");
  CHECK(strcmp(nx_buffer_dead(b), "donated to nx_mul") == 0, "reason kept");
  CHECK(nx_rig_submit_fill(b, 0, 16, 0) == NX_EINVAL && strstr(nx_error_message(), "donated to nx_mul"),
        "fill after consume: %s", nx_error_message());
  /* A borrow shares the death: one memory. */
  nx_buffer *c = make(R.ocl0, NX_MEMORY_IO, NX_ACCESS_READ_WRITE, 16), *h = NULL;
  if (c && nx_buffer_borrow(R.host, c, &h) == 0) {
    CHECK(nx_buffer_hold_exclusive(h) == 0 && nx_buffer_consume(h, "donated to nx_add") == 0, "consume the borrow");
    CHECK(nx_buffer_dead(c) && strcmp(nx_buffer_dead(c), "donated to nx_add") == 0, "the source's reason %s",
          nx_buffer_dead(c));
    nx_buffer_release(h);
  }
  nx_buffer_release(c);
  nx_buffer_release(b);
}

static void test_overlaps(void) {
  nx_buffer *h = make(R.host, NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 4096);
  nx_buffer *hd = make(R.host, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 4096);
  nx_buffer *io = make(R.ocl0, NX_MEMORY_IO, NX_ACCESS_READ_WRITE, 4096);
  nx_buffer *dv = make(R.ocl0, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 4096);
  nx_buffer *tv = make(T0, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 4096);
  nx_buffer *z = make(R.host, NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 0);
  if (!h || !hd || !io || !dv || !tv || !z) return;
  nx_buffer *all[6] = {h, hd, io, dv, tv, z};
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++)
      CHECK(nx_buffer_overlaps(all[i], all[j]) == (i == j), "overlaps(%d, %d)", i, j);
  CHECK(!nx_buffer_overlaps(h, NULL) && !nx_buffer_overlaps(NULL, h), "NULL");
  /* One memory through borrows: host pages on opencl:0, io pages on the host,
     opencl:0's memory on opencl:1. */
  nx_buffer *h_on0 = NULL, *io_on_host = NULL, *dv_on1 = NULL, *io_on1 = NULL;
  CHECK(nx_buffer_borrow(R.ocl0, h, &h_on0) == 0, "borrow host pages onto opencl:0");
  CHECK(nx_buffer_borrow(R.host, io, &io_on_host) == 0, "borrow io pages onto the host");
  CHECK(nx_buffer_borrow(R.ocl1, dv, &dv_on1) == 0, "borrow opencl:0 memory onto opencl:1");
  CHECK(nx_buffer_borrow(R.ocl1, io, &io_on1) == 0, "borrow opencl:0 io onto opencl:1");
  if (!h_on0 || !io_on_host || !dv_on1 || !io_on1) return;
  CHECK(nx_buffer_overlaps(h, h_on0) && nx_buffer_overlaps(h_on0, h), "host pages and their borrow");
  CHECK(nx_buffer_overlaps(io, io_on_host) && nx_buffer_overlaps(io_on1, io_on_host), "io pages and their borrows");
  CHECK(nx_buffer_overlaps(dv, dv_on1), "device memory and its borrow");
  CHECK(!nx_buffer_overlaps(h_on0, io_on_host) && !nx_buffer_overlaps(dv_on1, io_on1) &&
            !nx_buffer_overlaps(h_on0, hd),
        "borrows of different memories");
  CHECK(nx_buffer_host_address(h_on0) == nx_buffer_host_address(h) &&
            nx_buffer_host_address(io_on_host) == nx_buffer_host_address(io) &&
            nx_buffer_host_address(io_on1) == nx_buffer_host_address(io),
        "a borrow's host address is its memory's");
  CHECK(nx_buffer_host_address(dv_on1) == NULL, "opencl:0's device memory on opencl:1 has no host address");
  /* A copy whose ranges meet within one memory is refused; apart, it runs. */
  CHECK(nx_rig_submit_copy(h, 0, h_on0, 100, 200) == NX_EINVAL, "copy with meeting ranges through a borrow");
  CHECK(nx_rig_submit_copy(io_on_host, 10, io, 0, 11) == NX_EINVAL, "copy with meeting ranges in io pages");
  CHECK(nx_rig_submit_copy(dv, 0, dv_on1, 4095, 1) == 0, "copy of the last byte to the first");
  CHECK(nx_rig_submit_copy(h, 0, h, 1, 1) == 0, "copy within one buffer, ranges apart");
  CHECK(nx_rig_submit_copy(h, 0, h, 0, 1) == NX_EINVAL, "copy within one buffer, one range");
  CHECK(nx_rig_submit_copy(h, 0, h, 0, 0) == 0, "a copy of 0 bytes never meets");
  /* Bytes through borrowed mappings. */
  uint8_t want[4096], got[4096];
  pattern(want, 4096, 9);
  CHECK(nx_buffer_wait(h, NX_ACCESS_WRITE) == 0, "wait");
  memcpy(nx_buffer_host_address(h), want, 4096);
  CHECK(nx_rig_submit_copy(dv, 0, h_on0, 0, 2048) == 0, "opencl:0 copies from its borrow of host pages");
  CHECK(nx_rig_submit_copy(dv_on1, 2048, h, 2048, 2048) == 0, "opencl:1 copies host pages into opencl:0 memory");
  CHECK(read_back(dv, got) == 0 && memcmp(got, want, 4096) == 0, "bytes through the borrows");
  CHECK(nx_rig_submit_fill(dv_on1, 0, 16, 0xee) == 0, "opencl:1 fills opencl:0 memory");
  CHECK(nx_rig_submit_fill(io_on1, 0, 4096, 0x11) == 0, "opencl:1 fills opencl:0 io");
  memset(want, 0xee, 16);
  CHECK(read_back(dv, got) == 0 && memcmp(got, want, 4096) == 0, "opencl:1's fill seen by opencl:0");
  CHECK(nx_buffer_wait(io_on_host, NX_ACCESS_READ) == 0 && ((uint8_t *)nx_buffer_host_address(io))[4095] == 0x11,
        "opencl:1's fill of io pages seen by the host");
  nx_buffer *bs[] = {h_on0, io_on_host, dv_on1, io_on1};
  for (int i = 0; i < 4; i++) CHECK(nx_buffer_refcount(bs[i]) == 1, "borrow %d refcount", i);
  for (int i = 0; i < 4; i++) nx_buffer_release(bs[i]);
  for (int i = 0; i < 6; i++) nx_buffer_release(all[i]);
}

static void test_borrow(void) {
  nx_buffer *h = make(R.host, NX_MEMORY_HOST, NX_ACCESS_READ, 64);
  nx_buffer *t = make(T0, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 64);
  nx_buffer *d0 = make(R.ocl0, NX_MEMORY_DEVICE, NX_ACCESS_WRITE, 64);
  nx_buffer *hd = make(R.host, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 64);
  if (!h || !t || !d0 || !hd) return;
  nx_buffer *o = NULL;
  /* The borrow's facts: d's mapping, b's access, kind and size. */
  CHECK(nx_buffer_borrow(R.ocl1, h, &o) == 0 && o, "borrow a read-only host buffer onto opencl:1");
  if (o) {
    CHECK(nx_buffer_device(o) == R.ocl1 && nx_buffer_access(o) == NX_ACCESS_READ &&
              nx_buffer_kind(o) == NX_MEMORY_HOST && nx_buffer_bytes(o) == 64,
          "facts of the borrow");
    CHECK(nx_rig_submit_fill(o, 0, 1, 0) == NX_EINVAL, "a read-only borrow admits no write");
    nx_buffer_release(o);
  }
  o = NULL;
  CHECK(nx_buffer_borrow(R.ocl0, hd, &o) == 0 && o, "the host's device memory onto opencl:0");
  if (o) {
    CHECK(nx_rig_submit_fill(o, 0, 64, 0x42) == 0, "opencl:0 fills the host's memory");
    CHECK(nx_buffer_wait(hd, NX_ACCESS_READ) == 0 && ((uint8_t *)nx_buffer_host_address(hd))[63] == 0x42,
          "the fill seen by the host");
    nx_buffer_release(o);
  }
  o = NULL;
  CHECK(nx_buffer_borrow(R.ocl0, d0, &o) == 0 && o == d0, "borrow onto its own device: the buffer itself");
  nx_buffer_release(o);
  /* The test device maps only its own, and no other device maps it. */
  nx_buffer *u = (nx_buffer *)&u;
  CHECK(nx_buffer_borrow(T0, h, &u) == NX_NONE && u == (nx_buffer *)&u, "test device borrows host memory");
  CHECK(nx_buffer_borrow(T0, d0, &u) == NX_NONE && u == (nx_buffer *)&u, "test device borrows opencl:0 memory");
  CHECK(nx_buffer_borrow(R.host, t, &u) == NX_NONE && u == (nx_buffer *)&u, "host borrows test memory");
  CHECK(nx_buffer_borrow(R.ocl0, t, &u) == NX_NONE && u == (nx_buffer *)&u, "opencl:0 borrows test memory");
  CHECK(nx_buffer_borrow(T1, t, &u) == NX_NONE && u == (nx_buffer *)&u, "test:1 borrows test:0 memory");
  CHECK(nx_buffer_borrow(R.host, d0, &u) == NX_NONE && u == (nx_buffer *)&u, "host borrows opencl:0 memory");
  CHECK(nx_buffer_borrow(T0, t, &u) == 0 && u == t, "test device borrows its own");
  nx_buffer_release(u);
  CHECK(nx_buffer_borrow(NULL, t, &u) == NX_EINVAL && nx_buffer_borrow(T0, NULL, &u) == NX_EINVAL &&
            nx_buffer_borrow(T0, t, NULL) == NX_EINVAL,
        "NULL arguments");
  CHECK(nx_buffer_refcount(t) == 1 && nx_buffer_refcount(h) == 1 && nx_buffer_refcount(d0) == 1, "refcounts");
  nx_buffer_release(h);
  nx_buffer_release(t);
  nx_buffer_release(d0);
  nx_buffer_release(hd);
}

typedef struct {
  gate g;
  uint8_t *p;
} slow_write;

static void slow_write_fn(void *ctx) {
  slow_write *w = ctx;
  gate_work(&w->g);
  memset(w->p, 0x3c, 128);
}

static void test_export(void) {
  nx_buffer *b = make(R.ocl0, NX_MEMORY_IO, NX_ACCESS_READ_WRITE, 128);
  if (!b) return;
  /* Export waits for the work on the memory. */
  slow_write w;
  gate_init(&w.g);
  w.p = nx_buffer_host_address(b);
  nx_buffer *wl[1] = {b};
  CHECK(nx_rig_submit(R.ocl0, NULL, 0, wl, 1, slow_write_fn, &w) == 0, "submit: %s", nx_error_message());
  gate_open_later(&w.g, 50);
  CHECK(nx_buffer_export(b) == 0, "export: %s", nx_error_message());
  CHECK(w.p[0] == 0x3c && w.p[127] == 0x3c, "export returned before the work it must follow was done");
  gate_destroy(&w.g);
  /* Never held exclusive again, through any handle; claims still work. */
  CHECK(nx_buffer_hold_exclusive(b) == NX_EINVAL && strstr(nx_error_message(), "export"), "hold after export: %s",
        nx_error_message());
  nx_buffer *h = NULL;
  CHECK(nx_buffer_borrow(R.host, b, &h) == 0, "borrow");
  CHECK(nx_buffer_hold_exclusive(h) == NX_EINVAL, "hold of an exported memory through a borrow");
  nx_claim_answer ans[2];
  bool wr[2] = {true, false};
  nx_buffer *two[2] = {b, h};
  CHECK(nx_rig_claim(2, two, wr, ans) == 0, "claims of exported memory");
  nx_rig_release(2, two, wr);
  CHECK(nx_buffer_export(b) == 0, "export twice");
  CHECK(nx_buffer_hold_exclusive(b) == NX_EINVAL, "still never held");
  nx_buffer_release(h);
  /* Export refused while held exclusive, and for dead memory. */
  nx_buffer *c = make(R.host, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 8);
  if (c) {
    CHECK(nx_buffer_hold_exclusive(c) == 0 && nx_buffer_export(c) == NX_EINVAL, "export while held");
    CHECK(nx_buffer_unhold(c) == 0 && nx_buffer_free(c) == 0 && nx_buffer_export(c) == NX_EINVAL, "export dead");
    nx_buffer_release(c);
  }
  CHECK(nx_buffer_export(NULL) == NX_EINVAL, "export NULL");
  CHECK(nx_buffer_free(b) == 0, "free an exported memory");
  nx_buffer_release(b);
}

/* Free while work runs, after earlier work that named the memory twice.
   Last in the suite: where the library gives the memory back early, ASan
   stops the program here. */
static void test_free_after_double_naming(void) {
  for (int i = 0; i < 2; i++) {
    nx_buffer *b = make(R.host, NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 4096);
    if (!b) continue;
    nx_buffer *both[1] = {b};
    if (i == 0) CHECK(nx_rig_submit(R.host, both, 1, both, 1, nothing_fn, NULL) == 0, "submit: %s", nx_error_message());
    else CHECK(nx_rig_submit_copy(b, 0, b, 2048, 2048) == 0, "copy within: %s", nx_error_message());
    late_work w;
    gate_init(&w.g);
    w.p = nx_buffer_host_address(b);
    w.n = 4096;
    w.seed = 20u + (unsigned)i;
    w.bad = -1;
    CHECK(nx_device_sync(R.host) == 0, "sync");
    pattern(w.p, w.n, w.seed);
    nx_buffer *wl[1] = {b};
    CHECK(nx_rig_submit(R.host, NULL, 0, wl, 1, late_fn, &w) == 0, "submit: %s", nx_error_message());
    CHECK(gate_wait_entered(&w.g, 1, 5000), "the work did not start");
    CHECK(nx_buffer_free(b) == 0, "free while work runs: %s", nx_error_message());
    nx_buffer_release(b);
    for (int q = 0; q < 8; q++) {
      void *junk = malloc(4096);
      if (junk) memset(junk, 0xee, 4096);
      free(junk);
    }
    gate_open(&w.g);
    CHECK(nx_device_sync(R.host) == 0, "sync");
    CHECK(w.bad == 0, "work on memory freed while it ran, after work that named it twice, saw other bytes (%d)",
          w.bad);
    gate_destroy(&w.g);
  }

}

int main(void) {
  if (rig_need_devices(&R)) return check_done();
  CHECK(nx_rig_test_device(&T0) == 0 && nx_rig_test_device(&T1) == 0, "test devices");
  if (!T0 || !T1) return check_done();
  double t = now_s();
  test_create();
  test_refcounts();
  test_free();
  test_consume();
  test_overlaps();
  test_borrow();
  test_export();
  test_free_after_double_naming();
  printf("%.2f s\n", now_s() - t);
  return check_done();
}
