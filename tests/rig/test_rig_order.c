/* SPDX-License-Identifier: Apache-2.0 */
/* Order: read after write, write after read and write after write, each on
   its own, on one timeline and across the host, two OpenCL devices and a
   test device, for memories of each place (host pages, opencl:0 io and
   device memory, test memory), and for the host's own access through
   nx_buffer_wait. The first access is held back by a gate on its timeline,
   so a second access that did not follow it would see the wrong bytes.
   Then copies between every pair of buffers (every device and kind, and
   borrows), fills, and a random stress of copies, fills, host writes and
   device work checked against a sequential model. */
#include "rig_common.h"

#define N 256
enum { HOST, OCL0, OCL1, TEST, NDEV };
static const char *dev_names[NDEV] = {"host", "opencl:0", "opencl:1", "test"};
static nx_device *DEV[NDEV];
static long cases_run;

static nx_buffer *make(nx_device *d, nx_memory_kind k, int64_t n) {
  nx_buffer *b = NULL;
  int s = nx_buffer_create(d, k, NX_ACCESS_READ_WRITE, n, &b);
  CHECK(s == 0, "create %s memory on %s: %s", kind_name(k), nx_device_name(d), nx_error_message());
  return s ? NULL : b;
}

/* ---- The order rules, gated ------------------------------------------- */

/* A memory under test and its handles: h[d] the handle through which d
   reaches it on its own timeline (the buffer itself or a borrow), or NULL. */
typedef struct {
  const char *name;
  nx_buffer *h[NDEV];
  int owner;
} memory;

/* Per device, the buffers its timeline copies from (P, two slots for two
   writes) and into (Rd, two slots for two reads); on the host, host memory. */
static nx_buffer *P[NDEV][2], *Rd[NDEV][2];

static bool can_write(const memory *m, int d) { return m->h[d] || (d != HOST && m->h[HOST]); }
static bool can_read(const memory *m, int d) { return d != HOST || m->h[HOST]; }

/* Prepares a write of value v on d's timeline (the bytes it copies from). */
static void prepare_write(const memory *m, int d, int slot, uint8_t v) {
  if (!m->h[d]) CHECK(nx_rig_submit_fill(P[d][slot], 0, N, v) == 0, "prefill: %s", nx_error_message());
}

/* A write of all of m with v that runs on d's timeline. */
static void write_on(const memory *m, int d, int slot, uint8_t v) {
  int s;
  if (m->h[d]) s = nx_rig_submit_fill(m->h[d], 0, N, v);
  else s = nx_rig_submit_copy(m->h[HOST], 0, P[d][slot], 0, N); /* host dst: runs on the source's timeline */
  CHECK(s == 0, "write of %s on %s: %s", m->name, dev_names[d], nx_error_message());
}

/* A read of all of m on d's timeline into Rd[d][slot]. */
static void read_on(const memory *m, int d, int slot) {
  nx_buffer *src = d == HOST ? m->h[HOST] : m->h[m->owner];
  int s = nx_rig_submit_copy(Rd[d][slot], 0, src, 0, N);
  CHECK(s == 0, "read of %s on %s: %s", m->name, dev_names[d], nx_error_message());
}

static int all_bytes(nx_buffer *b, uint8_t v) {
  uint8_t got[N];
  int n = (int)nx_buffer_bytes(b);
  if (n > N || read_back(b, got)) return -1;
  int bad = 0;
  for (int i = 0; i < n; i++) bad += got[i] != v;
  return bad;
}

static void set_memory(const memory *m, uint8_t v) {
  CHECK(nx_rig_submit_fill(m->h[m->owner], 0, N, v) == 0, "initial fill: %s", nx_error_message());
  CHECK(nx_buffer_wait(m->h[m->owner], NX_ACCESS_READ_WRITE) == 0, "initial wait: %s", nx_error_message());
}

static void sync_all(void) {
  for (int d = 0; d < NDEV; d++) CHECK(nx_device_sync(DEV[d]) == 0, "sync %s: %s", dev_names[d], nx_error_message());
}

static gate *hold(int d) {
  gate *g = malloc(sizeof *g);
  gate_init(g);
  CHECK(nx_rig_submit(DEV[d], NULL, 0, NULL, 0, gate_work, g) == 0, "gate on %s: %s", dev_names[d],
        nx_error_message());
  gate_open_later(g, 15);
  return g;
}

static void unhold(gate *g) {
  gate_destroy(g);
  free(g);
}

static uint8_t next_value(void) {
  static uint8_t v = 1;
  v = (uint8_t)(v * 37 + 11);
  if (v == 0) v = 1;
  return v;
}

static void order_rules(const memory *m) {
  for (int a = 0; a < NDEV; a++)
    for (int b = 0; b < NDEV; b++) {
      uint8_t u = next_value(), v1 = next_value(), v2 = next_value();
      /* RAW: a writes (held back), b reads. */
      if (can_write(m, a) && can_read(m, b)) {
        set_memory(m, u);
        prepare_write(m, a, 0, v1);
        gate *g = hold(a);
        write_on(m, a, 0, v1);
        read_on(m, b, 0);
        sync_all();
        unhold(g);
        int bad = all_bytes(Rd[b][0], v1);
        CHECK(bad == 0, "RAW %s: a read on %s did not follow a write on %s (%d bytes)", m->name, dev_names[b],
              dev_names[a], bad);
        cases_run++;
      }
      /* WAR: a reads (held back), b writes. */
      if (can_read(m, a) && can_write(m, b)) {
        set_memory(m, u);
        prepare_write(m, b, 0, v1);
        sync_all();
        gate *g = hold(a);
        read_on(m, a, 0);
        write_on(m, b, 0, v1);
        sync_all();
        unhold(g);
        int bad = all_bytes(Rd[a][0], u), bad2 = all_bytes(m->h[m->owner], v1);
        CHECK(bad == 0, "WAR %s: a write on %s did not follow a read on %s (%d bytes)", m->name, dev_names[b],
              dev_names[a], bad);
        CHECK(bad2 == 0, "WAR %s: the write on %s is not there (%d bytes)", m->name, dev_names[b], bad2);
        cases_run++;
      }
      /* WAW: a writes (held back), b writes. */
      if (can_write(m, a) && can_write(m, b)) {
        set_memory(m, u);
        prepare_write(m, a, 0, v1);
        prepare_write(m, b, 1, v2);
        sync_all();
        gate *g = hold(a);
        write_on(m, a, 0, v1);
        write_on(m, b, 1, v2);
        sync_all();
        unhold(g);
        int bad = all_bytes(m->h[m->owner], v2);
        CHECK(bad == 0, "WAW %s: a write on %s did not follow a write on %s (%d bytes)", m->name, dev_names[b],
              dev_names[a], bad);
        cases_run++;
      }
    }
  /* WAR with readers on several timelines: a write follows every read. */
  {
    uint8_t u = next_value(), v = next_value();
    for (int w = 0; w < NDEV; w++) {
      if (!can_write(m, w)) continue;
      set_memory(m, u);
      prepare_write(m, w, 0, v);
      sync_all();
      gate *g[NDEV] = {0};
      for (int r = 0; r < NDEV; r++)
        if (r != w && can_read(m, r)) g[r] = hold(r);
      for (int r = 0; r < NDEV; r++)
        if (g[r]) read_on(m, r, 1);
      write_on(m, w, 0, v);
      sync_all();
      for (int r = 0; r < NDEV; r++)
        if (g[r]) {
          unhold(g[r]);
          int bad = all_bytes(Rd[r][1], u);
          CHECK(bad == 0, "WAR %s: a write on %s did not follow one of several reads, on %s (%d bytes)", m->name,
                dev_names[w], dev_names[r], bad);
        }
      cases_run++;
    }
  }
  /* The host's own access through nx_buffer_wait. */
  nx_buffer *hh = m->h[HOST];
  if (!hh) return;
  uint8_t *p = nx_buffer_host_address(hh);
  for (int a = 0; a < NDEV; a++) {
    uint8_t u = next_value(), v1 = next_value(), v2 = next_value();
    if (can_write(m, a)) { /* RAW: the host reads after a write on a */
      set_memory(m, u);
      prepare_write(m, a, 0, v1);
      sync_all();
      gate *g = hold(a);
      write_on(m, a, 0, v1);
      CHECK(nx_buffer_wait(hh, NX_ACCESS_READ) == 0, "wait: %s", nx_error_message());
      int bad = 0;
      for (int i = 0; i < N; i++) bad += p[i] != v1;
      CHECK(bad == 0, "RAW %s: the host's read did not follow a write on %s (%d bytes)", m->name, dev_names[a], bad);
      unhold(g);
      cases_run++;
    }
    if (can_read(m, a)) { /* WAR: the host writes after a read on a */
      set_memory(m, u);
      gate *g = hold(a);
      read_on(m, a, 0);
      CHECK(nx_buffer_wait(hh, NX_ACCESS_WRITE) == 0, "wait: %s", nx_error_message());
      memset(p, v1, N);
      sync_all();
      unhold(g);
      int bad = all_bytes(Rd[a][0], u);
      CHECK(bad == 0, "WAR %s: the host's write did not follow a read on %s (%d bytes)", m->name, dev_names[a], bad);
      cases_run++;
    }
    if (can_write(m, a)) { /* WAW: the host writes after a write on a */
      set_memory(m, u);
      prepare_write(m, a, 0, v1);
      sync_all();
      gate *g = hold(a);
      write_on(m, a, 0, v1);
      CHECK(nx_buffer_wait(hh, NX_ACCESS_WRITE) == 0, "wait: %s", nx_error_message());
      memset(p, v2, N);
      sync_all();
      unhold(g);
      int bad = all_bytes(hh, v2);
      CHECK(bad == 0, "WAW %s: the host's write did not follow a write on %s (%d bytes)", m->name, dev_names[a], bad);
      cases_run++;
    }
    /* A read-only wait does not wait for reads: it returns while a read on a
       is held back (no deadlock, no false dependency). */
    if (can_read(m, a) && a != HOST) {
      set_memory(m, u);
      gate *g = malloc(sizeof *g);
      gate_init(g);
      CHECK(nx_rig_submit(DEV[a], NULL, 0, NULL, 0, gate_work, g) == 0, "gate");
      gate_open_later(g, 300); /* a safety net: the wait must not need it */
      read_on(m, a, 0);
      double t0 = now_s();
      CHECK(nx_buffer_wait(hh, NX_ACCESS_READ) == 0, "wait for reading while a read is held back");
      CHECK(now_s() - t0 < 0.25, "a wait for reading waited for a read on %s (%.3f s)", dev_names[a], now_s() - t0);
      gate_open(g);
      sync_all();
      unhold(g);
      cases_run++;
    }
  }
}

static void test_rules(nx_device *t) {
  for (int d = 0; d < NDEV; d++)
    for (int s = 0; s < 2; s++) {
      P[d][s] = make(DEV[d], d == HOST ? NX_MEMORY_HOST : NX_MEMORY_DEVICE, N);
      Rd[d][s] = make(DEV[d], d == HOST ? NX_MEMORY_HOST : NX_MEMORY_DEVICE, N);
    }
  memory ms[4];
  memset(ms, 0, sizeof ms);
  /* Host pages: reached on opencl:0 and opencl:1 through borrows; the test
     device writes them by a copy it runs. */
  ms[0].name = "host pages";
  ms[0].owner = HOST;
  ms[0].h[HOST] = make(DEV[HOST], NX_MEMORY_HOST, N);
  /* opencl:0 io pages: the host and opencl:1 borrow them. */
  ms[1].name = "opencl:0 io";
  ms[1].owner = OCL0;
  ms[1].h[OCL0] = make(DEV[OCL0], NX_MEMORY_IO, N);
  /* opencl:0 device memory: opencl:1 borrows it. */
  ms[2].name = "opencl:0 device memory";
  ms[2].owner = OCL0;
  ms[2].h[OCL0] = make(DEV[OCL0], NX_MEMORY_DEVICE, N);
  /* test memory: only its own. */
  ms[3].name = "test memory";
  ms[3].owner = TEST;
  ms[3].h[TEST] = make(t, NX_MEMORY_DEVICE, N);
  if (!ms[0].h[HOST] || !ms[1].h[OCL0] || !ms[2].h[OCL0] || !ms[3].h[TEST]) return;
  CHECK(nx_buffer_borrow(DEV[OCL0], ms[0].h[HOST], &ms[0].h[OCL0]) == 0, "borrow");
  CHECK(nx_buffer_borrow(DEV[OCL1], ms[0].h[HOST], &ms[0].h[OCL1]) == 0, "borrow");
  CHECK(nx_buffer_borrow(DEV[HOST], ms[1].h[OCL0], &ms[1].h[HOST]) == 0, "borrow");
  CHECK(nx_buffer_borrow(DEV[OCL1], ms[1].h[OCL0], &ms[1].h[OCL1]) == 0, "borrow");
  CHECK(nx_buffer_borrow(DEV[OCL1], ms[2].h[OCL0], &ms[2].h[OCL1]) == 0, "borrow");
  for (int i = 0; i < 4; i++) order_rules(&ms[i]);
  for (int i = 0; i < 4; i++)
    for (int d = 0; d < NDEV; d++) nx_buffer_release(ms[i].h[d]);
  for (int d = 0; d < NDEV; d++)
    for (int s = 0; s < 2; s++) {
      nx_buffer_release(P[d][s]);
      nx_buffer_release(Rd[d][s]);
    }
}

/* ---- Copies between every pair, and fills ------------------------------ */

#define M 3000

typedef struct {
  const char *name;
  nx_buffer *b;
  int mem; /* which memory: borrows share their source's */
} handle;

static void fill_random(uint8_t *p, int n, uint64_t *s) {
  for (int i = 0; i < n; i++) p[i] = (uint8_t)rnd(s);
}

static int make_handles(handle *hs, nx_device *t0, nx_device *t1, int64_t bytes) {
  int n = 0;
  struct { nx_device *d; nx_memory_kind k; const char *name; } own[] = {
      {DEV[HOST], NX_MEMORY_DEVICE, "host device"}, {DEV[HOST], NX_MEMORY_HOST, "host host"},
      {DEV[OCL0], NX_MEMORY_DEVICE, "opencl:0 device"}, {DEV[OCL0], NX_MEMORY_HOST, "opencl:0 host"},
      {DEV[OCL0], NX_MEMORY_IO, "opencl:0 io"}, {DEV[OCL1], NX_MEMORY_DEVICE, "opencl:1 device"},
      {DEV[OCL1], NX_MEMORY_HOST, "opencl:1 host"}, {DEV[OCL1], NX_MEMORY_IO, "opencl:1 io"},
      {t0, NX_MEMORY_DEVICE, "test:a device"}, {t1, NX_MEMORY_DEVICE, "test:b device"}};
  for (int i = 0; i < 10; i++) {
    hs[n].name = own[i].name;
    hs[n].b = make(own[i].d, own[i].k, bytes);
    hs[n].mem = n;
    if (!hs[n].b) return -1;
    n++;
  }
  struct { int dev, src; const char *name; } borrows[] = {
      {OCL1, 2, "opencl:0 device on opencl:1"}, {HOST, 4, "opencl:0 io on the host"},
      {OCL0, 1, "host host on opencl:0"}, {OCL1, 0, "host device on opencl:1"}};
  for (int i = 0; i < 4; i++) {
    hs[n].name = borrows[i].name;
    hs[n].mem = borrows[i].src;
    hs[n].b = NULL;
    CHECK(nx_buffer_borrow(DEV[borrows[i].dev], hs[borrows[i].src].b, &hs[n].b) == 0, "borrow %s: %s",
          borrows[i].name, nx_error_message());
    if (!hs[n].b) return -1;
    n++;
  }
  return n;
}

static void test_copies(nx_device *t0, nx_device *t1) {
  handle hs[16];
  int n = make_handles(hs, t0, t1, M);
  if (n < 0) return;
  uint64_t seed = 0x1234567;
  static uint8_t src[M], dst[M], got[M];
  int pairs = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      /* dst = hs[i], src = hs[j]. */
      fill_random(dst, M, &seed);
      fill_random(src, M, &seed);
      bool same = hs[i].mem == hs[j].mem;
      if (same) memcpy(src, dst, M);
      CHECK(write_in(hs[i].b, dst) == 0, "write in %s: %s", hs[i].name, nx_error_message());
      if (!same) CHECK(write_in(hs[j].b, src) == 0, "write in %s: %s", hs[j].name, nx_error_message());
      int64_t len = 1 + rnd_below(&seed, M / 2), so, doff;
      if (same) {
        so = 0;
        doff = len + rnd_below(&seed, (int)(M - 2 * len + 1));
      } else {
        so = rnd_below(&seed, (int)(M - len + 1));
        doff = rnd_below(&seed, (int)(M - len + 1));
      }
      if (rnd_below(&seed, 2) && same) { int64_t x = so; so = doff; doff = x; }
      int s = nx_rig_submit_copy(hs[i].b, doff, hs[j].b, so, len);
      CHECK(s == 0, "copy %s <- %s: %s", hs[i].name, hs[j].name, nx_error_message());
      memmove(dst + doff, src + so, (size_t)len);
      s = read_back(hs[i].b, got);
      CHECK(s == 0 && memcmp(got, dst, M) == 0, "copy %s <- %s [%lld, +%lld) <- [%lld, ...): bytes differ",
            hs[i].name, hs[j].name, (long long)doff, (long long)len, (long long)so);
      if (same) {
        /* Meeting ranges in one memory are refused. */
        CHECK(nx_rig_submit_copy(hs[i].b, 5, hs[j].b, 6, 10) == NX_EINVAL, "meeting ranges %s <- %s", hs[i].name,
              hs[j].name);
      }
      pairs++;
    }
  /* Fills of a range, on every handle. */
  for (int i = 0; i < n; i++) {
    fill_random(dst, M, &seed);
    CHECK(write_in(hs[i].b, dst) == 0, "write in");
    int64_t off = rnd_below(&seed, M), len = rnd_below(&seed, (int)(M - off + 1));
    uint8_t v = (uint8_t)rnd(&seed);
    CHECK(nx_rig_submit_fill(hs[i].b, off, len, v) == 0, "fill %s: %s", hs[i].name, nx_error_message());
    memset(dst + off, v, (size_t)len);
    CHECK(read_back(hs[i].b, got) == 0 && memcmp(got, dst, M) == 0, "fill of %s [%lld, +%lld)", hs[i].name,
          (long long)off, (long long)len);
    /* Ranges that pass the buffer are refused. */
    CHECK(nx_rig_submit_fill(hs[i].b, M, 1, v) == NX_EINVAL && nx_rig_submit_fill(hs[i].b, -1, 1, v) == NX_EINVAL &&
              nx_rig_submit_fill(hs[i].b, 1, M, v) == NX_EINVAL && nx_rig_submit_fill(hs[i].b, 0, -1, v) == NX_EINVAL,
          "fill ranges of %s", hs[i].name);
    CHECK(nx_rig_submit_fill(hs[i].b, M, 0, v) == 0, "an empty fill at the end of %s", hs[i].name);
    CHECK(nx_rig_submit_copy(hs[i].b, M - 1, hs[(i + 1) % n].b, 0, 2) == NX_EINVAL &&
              nx_rig_submit_copy(hs[i].b, 0, hs[(i + 1) % n].b, INT64_MAX, 2) == NX_EINVAL,
          "copy ranges of %s", hs[i].name);
  }
  printf("copies: %d pairs of %d handles, %d fills\n", pairs, n, n);
  /* A wait returns once the bytes are there, which may be before the
     timeline's worker drops its job's references: settle every timeline
     before counting them. */
  for (int i = 0; i < n; i++) nx_device_sync(nx_buffer_device(hs[i].b));
  for (int i = 0; i < n; i++) {
    CHECK(nx_buffer_refcount(hs[i].b) == 1, "refcount of %s: %d", hs[i].name, nx_buffer_refcount(hs[i].b));
    nx_buffer_release(hs[i].b);
  }
}

/* ---- Device work and the stress --------------------------------------- */

/* What a work fn does to the memory it writes, the same in the model. */
typedef struct {
  uint8_t *w;
  const uint8_t *r;
  int woff, roff, len;
  uint8_t c;
} work_args;

static void apply_work(const work_args *a) {
  for (int i = 0; i < a->len; i++) a->w[a->woff + i] = (uint8_t)(a->w[a->woff + i] * 5u + a->r[a->roff + i] + a->c);
}

static void work_fn(void *ctx) {
  apply_work(ctx);
  free(ctx);
}

static void nothing_fn(void *ctx) { (void)ctx; }

/* Work on a device over host-addressed memory it reaches: the host's, and
   an OpenCL device's own io and host memory, and its borrows. */
static void test_device_work(void) {
  struct { int d; nx_memory_kind k; } cases[] = {
      {HOST, NX_MEMORY_HOST}, {HOST, NX_MEMORY_DEVICE}, {OCL0, NX_MEMORY_IO}, {OCL0, NX_MEMORY_HOST},
      {OCL1, NX_MEMORY_IO}, {OCL1, NX_MEMORY_HOST}};
  for (int c = 0; c < 6; c++) {
    nx_buffer *w = make(DEV[cases[c].d], cases[c].k, 64), *r = make(DEV[cases[c].d], cases[c].k, 64);
    if (!w || !r) return;
    CHECK(nx_rig_submit_fill(w, 0, 64, 1) == 0 && nx_rig_submit_fill(r, 0, 64, 2) == 0, "fills");
    work_args *a = malloc(sizeof *a);
    *a = (work_args){nx_buffer_host_address(w), nx_buffer_host_address(r), 0, 0, 64, 3};
    nx_buffer *wl[1] = {w}, *rl[1] = {r};
    CHECK(nx_rig_submit(DEV[cases[c].d], rl, 1, wl, 1, work_fn, a) == 0, "work on %s: %s", dev_names[cases[c].d],
          nx_error_message());
    CHECK(all_bytes(w, 1 * 5 + 2 + 3) == 0, "work on %s %s memory", dev_names[cases[c].d], kind_name(cases[c].k));
    nx_buffer_release(w);
    nx_buffer_release(r);
  }
  /* The host's memory is reached from every device: "only the host's and
     d's own memory, and memory d has borrowed" (nx_rig_submit). */
  nx_buffer *hb = make(DEV[HOST], NX_MEMORY_HOST, 64);
  for (int d = OCL0; d < NDEV && hb; d++) {
    nx_buffer *wl[1] = {hb};
    int s = nx_rig_submit(DEV[d], NULL, 0, wl, 1, nothing_fn, NULL);
    CHECK(s == 0, "work on %s naming the host's memory: %s", dev_names[d], s ? nx_error_message() : "");
  }
  CHECK(nx_device_sync(DEV[TEST]) == 0 && nx_device_sync(DEV[OCL0]) == 0 && nx_device_sync(DEV[OCL1]) == 0, "sync");
  /* Memory a device cannot reach: another device's, not borrowed. */
  nx_buffer *d0 = make(DEV[OCL0], NX_MEMORY_IO, 64), *tb = make(DEV[TEST], NX_MEMORY_DEVICE, 64);
  if (d0 && tb) {
    nx_buffer *l0[1] = {d0}, *lt[1] = {tb};
    CHECK(nx_rig_submit(DEV[OCL1], l0, 1, NULL, 0, nothing_fn, NULL) == NX_EINVAL, "opencl:1 reads opencl:0 io");
    CHECK(nx_rig_submit(DEV[HOST], lt, 1, NULL, 0, nothing_fn, NULL) == NX_EINVAL, "host reads test memory");
    CHECK(nx_rig_submit(DEV[OCL0], NULL, 0, lt, 1, nothing_fn, NULL) == NX_EINVAL, "opencl:0 writes test memory");
    CHECK(nx_rig_submit(DEV[TEST], l0, 1, NULL, 0, nothing_fn, NULL) == NX_EINVAL, "test reads opencl:0 io");
  }
  nx_buffer *ro = NULL;
  CHECK(nx_buffer_create(DEV[HOST], NX_MEMORY_HOST, NX_ACCESS_READ, 8, &ro) == 0, "read-only buffer");
  if (ro) {
    nx_buffer *l[1] = {ro};
    CHECK(nx_rig_submit(DEV[HOST], NULL, 0, l, 1, nothing_fn, NULL) == NX_EINVAL, "a write of read-only memory");
    CHECK(nx_rig_submit(DEV[HOST], l, 1, NULL, 0, nothing_fn, NULL) == 0, "a read of read-only memory");
    CHECK(nx_rig_submit(DEV[HOST], l, 1, l, 1, nothing_fn, NULL) == NX_EINVAL, "in both lists counts as written");
  }
  CHECK(nx_rig_submit(DEV[HOST], NULL, -1, NULL, 0, nothing_fn, NULL) == NX_EINVAL &&
            nx_rig_submit(DEV[HOST], NULL, 0, NULL, 0, NULL, NULL) == NX_EINVAL &&
            nx_rig_submit(NULL, NULL, 0, NULL, 0, nothing_fn, NULL) == NX_EINVAL,
        "bad submit arguments");
  CHECK(nx_device_sync(DEV[HOST]) == 0, "sync");
  nx_buffer_release(ro);
  nx_buffer_release(d0);
  nx_buffer_release(tb);
  nx_buffer_release(hb);
}

#define S 512
#define MAXH 16

static void stress(uint64_t seed, int ops, nx_device *t0, nx_device *t1) {
  handle hs[MAXH];
  int n = make_handles(hs, t0, t1, S);
  if (n < 0) return;
  static uint8_t model[MAXH][S], tmp[S];
  /* Start from known bytes. */
  for (int i = 0; i < n; i++)
    if (hs[i].mem == i) {
      fill_random(model[i], S, &seed);
      CHECK(write_in(hs[i].b, model[i]) == 0, "write in: %s", nx_error_message());
    }
  int counts[6] = {0}, mid_bad = 0;
  for (int op = 0; op < ops; op++) {
    int kind = rnd_below(&seed, 100);
    int i = rnd_below(&seed, n), j = rnd_below(&seed, n);
    uint8_t *mi = model[hs[i].mem], *mj = model[hs[j].mem];
    int len = rnd_below(&seed, 8) == 0 ? 0 : 1 + rnd_below(&seed, S);
    int ioff = rnd_below(&seed, S - len + 1), joff = rnd_below(&seed, S - len + 1);
    if (kind < 40) { /* copy */
      if (hs[i].mem == hs[j].mem && ioff < joff + len && joff < ioff + len && len > 0) {
        CHECK(nx_rig_submit_copy(hs[i].b, ioff, hs[j].b, joff, len) == NX_EINVAL, "meeting copy refused");
        continue;
      }
      CHECK(nx_rig_submit_copy(hs[i].b, ioff, hs[j].b, joff, len) == 0, "copy %s <- %s: %s", hs[i].name, hs[j].name,
            nx_error_message());
      memmove(mi + ioff, mj + joff, (size_t)len);
      counts[0]++;
    } else if (kind < 60) { /* fill */
      uint8_t v = (uint8_t)rnd(&seed);
      CHECK(nx_rig_submit_fill(hs[i].b, ioff, len, v) == 0, "fill %s: %s", hs[i].name, nx_error_message());
      memset(mi + ioff, v, (size_t)len);
      counts[1]++;
    } else if (kind < 72) { /* a host write after nx_buffer_wait */
      uint8_t *p = nx_buffer_host_address(hs[i].b);
      if (!p) continue;
      CHECK(nx_buffer_wait(hs[i].b, NX_ACCESS_WRITE) == 0, "wait: %s", nx_error_message());
      fill_random(tmp, len, &seed);
      memcpy(p + ioff, tmp, (size_t)len);
      memcpy(mi + ioff, tmp, (size_t)len);
      counts[2]++;
    } else if (kind < 80) { /* a host read after nx_buffer_wait */
      uint8_t *p = nx_buffer_host_address(hs[i].b);
      if (!p) continue;
      CHECK(nx_buffer_wait(hs[i].b, NX_ACCESS_READ) == 0, "wait: %s", nx_error_message());
      if (memcmp(p, mi, S) != 0) mid_bad++;
      counts[3]++;
    } else if (kind < 97) { /* device work over host-addressed memory it reaches */
      nx_buffer *w = hs[i].b, *r = hs[j].b;
      nx_device *d = nx_buffer_device(w);
      if (!nx_buffer_host_address(w) || !nx_buffer_host_address(r)) {
        /* Work that names memory without touching it (the test device's). */
        nx_buffer *wl[1] = {w};
        if (nx_buffer_device(w) != nx_buffer_device(r)) continue;
        nx_buffer *rl[1] = {r};
        CHECK(nx_rig_submit(d, rl, 1, wl, 1, nothing_fn, NULL) == 0, "work on %s: %s", nx_device_name(d),
              nx_error_message());
        counts[5]++;
        continue;
      }
      /* r must be reachable from d: the host's memory (host work), or d's. */
      if (!(d == DEV[HOST] || nx_buffer_device(r) == d)) continue;
      work_args *a = malloc(sizeof *a);
      *a = (work_args){nx_buffer_host_address(w), nx_buffer_host_address(r), ioff, joff, len, (uint8_t)rnd(&seed)};
      work_args ma = *a;
      ma.w = mi;
      ma.r = mj;
      nx_buffer *wl[1] = {w}, *rl[1] = {r};
      int s = nx_rig_submit(d, rl, 1, wl, 1, work_fn, a);
      CHECK(s == 0, "work on %s: %s <- %s: %s", nx_device_name(d), hs[i].name, hs[j].name, nx_error_message());
      if (s) { free(a); continue; }
      apply_work(&ma);
      counts[4]++;
    } else { /* a sync */
      CHECK(nx_device_sync(nx_buffer_device(hs[i].b)) == 0, "sync: %s", nx_error_message());
    }
  }
  CHECK(mid_bad == 0, "stress seed %llx: %d host reads after nx_buffer_wait saw other bytes than the model",
        (unsigned long long)seed, mid_bad);
  int bad = 0;
  for (int i = 0; i < n; i++) {
    if (hs[i].mem != i) continue;
    CHECK(read_back(hs[i].b, tmp) == 0, "read back: %s", nx_error_message());
    if (memcmp(tmp, model[i], S) != 0) {
      bad++;
      CHECK(0, "stress: %s differs from the model", hs[i].name);
    }
  }
  printf("stress %d ops: %d copies, %d fills, %d host writes, %d host reads, %d work, %d empty work; %d memories bad\n",
         ops, counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], bad);
  CHECK(counts[0] > ops / 5 && counts[4] > ops / 50 && counts[5] > ops / 100 && counts[2] > ops / 40, "the stress ran every operation");
  /* A wait returns once the bytes are there, which may be before the
     timeline's worker drops its job's references: settle every timeline
     before counting them. */
  for (int i = 0; i < n; i++) nx_device_sync(nx_buffer_device(hs[i].b));
  for (int i = 0; i < n; i++) {
    CHECK(nx_buffer_refcount(hs[i].b) == 1, "refcount of %s: %d", hs[i].name, nx_buffer_refcount(hs[i].b));
    nx_buffer_release(hs[i].b);
  }
}

int main(int argc, char **argv) {
  rig_devices r;
  if (rig_need_devices(&r)) return check_done();
  nx_device *t0 = NULL, *t1 = NULL;
  CHECK(nx_rig_test_device(&t0) == 0 && nx_rig_test_device(&t1) == 0, "test devices");
  if (!t0 || !t1) return check_done();
  DEV[HOST] = r.host;
  DEV[OCL0] = r.ocl0;
  DEV[OCL1] = r.ocl1;
  DEV[TEST] = t0;
  int ops = argc > 1 ? atoi(argv[1]) : 20000;
  double t = now_s();
  test_rules(t0);
  printf("order rules: %ld cases, %.2f s\n", cases_run, now_s() - t);
  t = now_s();
  test_copies(t0, t1);
  test_device_work();
  printf("copies, fills, work: %.2f s\n", now_s() - t);
  t = now_s();
  stress(0x9e3779b97f4a7c15ULL, ops, t0, t1);
  stress(0xdeadbeefcafef00dULL, ops, t0, t1);
  stress(0x0123456789abcdefULL, ops, t0, t1);
  printf("stress: %.2f s\n", now_s() - t);
  return check_done();
}
