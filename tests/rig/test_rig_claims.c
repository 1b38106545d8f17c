/* SPDX-License-Identifier: Apache-2.0 */
/* Claims and donation: first each rule on its own (precedence, all or none,
   a buffer named twice, holds, consume, refusals), then threads making
   random all-or-none claims over overlapping sets of shared buffers (some
   naming one buffer twice, some through borrows of one memory), random
   donations (hold then consume or unhold), frees, exports, retains and
   releases. Checked: no claim succeeds on memory held exclusive or dead (a
   shadow state kept beside the library's), consumed or freed memory is
   never claimed after, answers follow the precedence, nothing stays claimed
   after a refusal, claimed memory is never given back (the claimer writes
   it: ASan, TSan), a wall-clock bound, and balanced reference counts. */
#include "rig_common.h"

#include <sched.h>

#define NB 24     /* handles */
#define THREADS 8

static rig_devices R;
static nx_device *T0;

typedef struct {
  nx_buffer *b;
  int mem; /* the memory, shared by a borrow and its source */
} handle;

typedef struct {
  atomic_int dead, held, exported, claimers;
  atomic_int holder; /* the thread holding it, + 1 */
} shadow;

static handle H[NB];
static shadow SH[NB];
static atomic_int live_mems;
static atomic_long violations, claims_ok, claims_refused, holds_ok, consumes, frees, unholds, exports;
static int nmem;

#define VIOLATION(...)                                                                      \
  do {                                                                                      \
    if (atomic_fetch_add(&violations, 1) < 20) {                                            \
      fprintf(stderr, "violation: " __VA_ARGS__);                                           \
      fputc('\n', stderr);                                                                  \
    }                                                                                       \
  } while (0)

static void rules(void) {
  nx_buffer *rw = NULL, *ro = NULL, *dd = NULL, *hx = NULL;
  CHECK(nx_buffer_create(R.host, NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 16, &rw) == 0 &&
            nx_buffer_create(R.ocl0, NX_MEMORY_IO, NX_ACCESS_READ, 16, &ro) == 0 &&
            nx_buffer_create(T0, NX_MEMORY_DEVICE, NX_ACCESS_READ, 16, &dd) == 0 &&
            nx_buffer_create(R.ocl1, NX_MEMORY_DEVICE, NX_ACCESS_READ, 16, &hx) == 0,
        "create: %s", nx_error_message());
  if (!rw || !ro || !dd || !hx) return;
  nx_claim_answer a[4];
  /* Read-only memory: claimed for reading, refused for writing. */
  nx_buffer *l1[1] = {ro};
  bool r1[1] = {false}, w1[1] = {true};
  CHECK(nx_rig_claim(1, l1, r1, a) == 0, "read claim of read-only memory");
  nx_rig_release(1, l1, r1);
  CHECK(nx_rig_claim(1, l1, w1, a) == NX_RIG_REFUSED && a[0] == NX_CLAIM_READ_ONLY, "write claim of read-only");
  /* Precedence: dead, then held exclusive, then read-only. */
  CHECK(nx_buffer_hold_exclusive(hx) == 0, "hold");
  nx_buffer *l2[1] = {hx};
  CHECK(nx_rig_claim(1, l2, w1, a) == NX_RIG_REFUSED && a[0] == NX_CLAIM_HELD_EXCLUSIVE,
        "held exclusive before read-only: %d", a[0]);
  CHECK(nx_buffer_consume(hx, "donated to nx_mul") == 0, "consume");
  CHECK(nx_rig_claim(1, l2, w1, a) == NX_RIG_REFUSED && a[0] == NX_CLAIM_DEAD, "dead before read-only: %d", a[0]);
  CHECK(nx_buffer_free(dd) == 0, "free");
  nx_buffer *l3[1] = {dd};
  CHECK(nx_rig_claim(1, l3, w1, a) == NX_RIG_REFUSED && a[0] == NX_CLAIM_DEAD, "freed, read-only: %d", a[0]);
  /* All or none, with an answer for every operand. */
  nx_buffer *l4[4] = {rw, hx, ro, rw};
  bool w4[4] = {true, false, true, false};
  for (int i = 0; i < 4; i++) a[i] = (nx_claim_answer)99;
  CHECK(nx_rig_claim(4, l4, w4, a) == NX_RIG_REFUSED, "a refused set");
  CHECK(a[0] == NX_CLAIMED && a[1] == NX_CLAIM_DEAD && a[2] == NX_CLAIM_READ_ONLY && a[3] == NX_CLAIMED,
        "answers %d %d %d %d", a[0], a[1], a[2], a[3]);
  CHECK(nx_buffer_hold_exclusive(rw) == 0, "nothing stays claimed after a refusal");
  CHECK(nx_buffer_unhold(rw) == 0, "unhold");
  /* A buffer named twice: claimed twice, released twice. */
  nx_buffer *l5[2] = {rw, rw};
  bool w5[2] = {true, true};
  CHECK(nx_rig_claim(2, l5, w5, a) == 0, "one buffer twice");
  CHECK(nx_buffer_hold_exclusive(rw) == NX_EINVAL, "hold refused while claimed");
  CHECK(strstr(nx_error_message(), "claimed") != NULL, "message: %s", nx_error_message());
  nx_rig_release(1, l5, w5);
  CHECK(nx_buffer_hold_exclusive(rw) == NX_EINVAL, "hold refused while claimed once more");
  nx_rig_release(1, l5, w5);
  CHECK(nx_buffer_hold_exclusive(rw) == 0 && nx_buffer_unhold(rw) == 0, "hold after both releases");
  /* A release with no claim left is refused, and changes nothing: a wait
     still returns (the count did not wrap), and a claim still counts one. */
  nx_rig_release(1, l5, w5);
  CHECK(strstr(nx_error_message(), "nx_rig_release: buffer 0 of 1 holds no claim") != NULL, "a third release: %s",
        nx_error_message());
  CHECK(nx_buffer_wait(rw, NX_ACCESS_READ_WRITE) == 0, "a wait after the refused release");
  CHECK(nx_buffer_wait(rw, (nx_access)999) == NX_EINVAL && strstr(nx_error_message(), "nx_buffer_wait: access 999") != NULL,
        "a wait for no access: %s", nx_error_message());
  CHECK(nx_rig_claim(1, l5, w5, a) == 0, "claimed again");
  nx_rig_release(1, l5, w5);
  CHECK(nx_buffer_hold_exclusive(rw) == 0 && nx_buffer_unhold(rw) == 0, "one claim, one release, nothing left");
  nx_rig_release(-1, l5, w5);
  CHECK(strstr(nx_error_message(), "nx_rig_release: n = -1 is negative") != NULL, "negative n: %s", nx_error_message());
  /* Claims coexist, for reading and writing, through a borrow too. */
  nx_buffer *rb = NULL;
  CHECK(nx_buffer_borrow(R.ocl1, rw, &rb) == 0, "borrow");
  if (rb) {
    nx_buffer *l6[3] = {rw, rb, rw};
    bool w6[3] = {true, true, false};
    CHECK(nx_rig_claim(3, l6, w6, a) == 0 && nx_rig_claim(3, l6, w6, a) == 0, "claims coexist");
    CHECK(nx_buffer_hold_exclusive(rb) == NX_EINVAL, "a borrow's memory is claimed");
    nx_rig_release(3, l6, w6);
    nx_rig_release(3, l6, w6);
    CHECK(nx_buffer_hold_exclusive(rb) == 0, "hold through the borrow");
    CHECK(nx_rig_claim(1, &rw, r1, a) == NX_RIG_REFUSED && a[0] == NX_CLAIM_HELD_EXCLUSIVE, "held through a borrow");
    CHECK(nx_buffer_unhold(rw) == 0, "unhold through the source");
    nx_buffer_release(rb);
  }
  /* Refusals of arguments. */
  CHECK(nx_rig_claim(0, NULL, NULL, NULL) == 0, "no operands");
  CHECK(nx_rig_claim(-1, l1, r1, a) == NX_EINVAL, "n < 0");
  CHECK(nx_rig_claim(1, NULL, r1, a) == NX_EINVAL && nx_rig_claim(1, l1, NULL, a) == NX_EINVAL &&
            nx_rig_claim(1, l1, r1, NULL) == NX_EINVAL,
        "NULL arrays");
  nx_buffer *l7[2] = {rw, NULL};
  bool r7[2] = {false, false};
  CHECK(nx_rig_claim(2, l7, r7, a) == NX_EINVAL, "a NULL operand");
  CHECK(nx_buffer_hold_exclusive(rw) == 0 && nx_buffer_unhold(rw) == 0, "a failed claim claims nothing");
  CHECK(nx_buffer_hold_exclusive(NULL) == NX_EINVAL && nx_buffer_unhold(NULL) == NX_EINVAL &&
            nx_buffer_consume(NULL, "x") == NX_EINVAL,
        "NULL");
  nx_rig_release(0, NULL, NULL);
  nx_buffer *bs[4] = {rw, ro, dd, hx};
  for (int i = 0; i < 4; i++) {
    CHECK(nx_buffer_refcount(bs[i]) == 1, "refcount");
    nx_buffer_release(bs[i]);
  }
}

/* ---- Threads ------------------------------------------------------------ */

static void touch(nx_buffer *b, int write) {
  /* Claimed memory stays: the claimer may use it (atomics: claims of one
     memory coexist, and ordering their writes is the program's business). */
  uint8_t *p = nx_buffer_host_address(b);
  if (!p) return;
  if (write) __atomic_fetch_add(&p[0], 1, __ATOMIC_RELAXED);
  else (void)__atomic_load_n(&p[1], __ATOMIC_RELAXED);
}

/* Each thread makes at most one memory dead, late enough that most claims
   meet live memory. */
#define ITERS 100000
static bool may_kill(int *killed, int it) { return !*killed && it > ITERS / 2 && (*killed = 1); }
static atomic_int go;

static void *worker(void *arg) {
  int me = (int)(intptr_t)arg;
  uint64_t s = 0x9e3779b97f4a7c15ULL * (uint64_t)(me + 1);
  int killed = 0, exported = 0;
  while (!atomic_load(&go)) sched_yield(); /* all start together */
  for (int it = 0; it < ITERS; it++) {
    int act = rnd_below(&s, 100);
    if (act < 70) { /* a claim */
      int n = 1 + rnd_below(&s, 4);
      nx_buffer *bs[5];
      bool wr[5];
      int idx[5], pre_dead[5];
      nx_claim_answer ans[5];
      for (int i = 0; i < n; i++) {
        idx[i] = rnd_below(&s, NB);
        if (i > 0 && rnd_below(&s, 5) == 0) idx[i] = idx[rnd_below(&s, i)]; /* one buffer twice */
        bs[i] = H[idx[i]].b;
        wr[i] = rnd_below(&s, 2);
      }
      for (int i = 0; i < n; i++) pre_dead[i] = atomic_load(&SH[H[idx[i]].mem].dead);
      bool retained = rnd_below(&s, 4) == 0;
      if (retained)
        for (int i = 0; i < n; i++) nx_buffer_retain(bs[i]);
      int st = nx_rig_claim(n, bs, wr, ans);
      if (st == 0) {
        atomic_fetch_add(&claims_ok, 1);
        for (int i = 0; i < n; i++) atomic_fetch_add(&SH[H[idx[i]].mem].claimers, 1);
        for (int i = 0; i < n; i++) {
          shadow *sh = &SH[H[idx[i]].mem];
          if (pre_dead[i]) VIOLATION("a claim of handle %d succeeded on memory dead before it began", idx[i]);
          if (atomic_load(&sh->held)) VIOLATION("a claim of handle %d succeeded while it is held exclusive", idx[i]);
          if (wr[i] && !(nx_buffer_access(bs[i]) & NX_ACCESS_WRITE))
            VIOLATION("a write claim of read-only handle %d succeeded", idx[i]);
          touch(bs[i], wr[i]);
        }
        for (int i = 0; i < n; i++) atomic_fetch_sub(&SH[H[idx[i]].mem].claimers, 1);
        nx_rig_release(n, bs, wr);
      } else if (st == NX_RIG_REFUSED) {
        atomic_fetch_add(&claims_refused, 1);
        int refused = 0;
        for (int i = 0; i < n; i++) {
          refused += ans[i] != NX_CLAIMED;
          if (pre_dead[i] && ans[i] != NX_CLAIM_DEAD)
            VIOLATION("handle %d, dead before the claim, answered %d (precedence: dead first)", idx[i], ans[i]);
          if (ans[i] == NX_CLAIM_READ_ONLY && !(wr[i] && !(nx_buffer_access(bs[i]) & NX_ACCESS_WRITE)))
            VIOLATION("handle %d answered read-only for a claim it admits", idx[i]);
          if (wr[i] && !(nx_buffer_access(bs[i]) & NX_ACCESS_WRITE) && ans[i] == NX_CLAIMED)
            VIOLATION("a write claim of read-only handle %d answered claimed", idx[i]);
          if ((int)ans[i] < NX_CLAIMED || ans[i] > NX_CLAIM_READ_ONLY) VIOLATION("answer %d", ans[i]);
        }
        if (!refused) VIOLATION("a refused claim answered claimed for every operand");
      } else {
        VIOLATION("nx_rig_claim returned %d: %s", st, nx_error_message());
      }
      if (retained)
        for (int i = 0; i < n; i++) nx_buffer_release(bs[i]);
    } else if (act < 85) { /* a donation, or a hold given back */
      int i = rnd_below(&s, NB);
      shadow *sh = &SH[H[i].mem];
      if (nx_buffer_hold_exclusive(H[i].b) == 0) {
        atomic_fetch_add(&holds_ok, 1);
        int was = atomic_exchange(&sh->held, 1);
        if (was) VIOLATION("two holds of one memory (handle %d)", i);
        atomic_store(&sh->holder, me + 1);
        if (atomic_load(&sh->claimers)) VIOLATION("a hold of handle %d succeeded while it is claimed", i);
        if (atomic_load(&sh->dead)) VIOLATION("a hold of dead handle %d succeeded", i);
        if (atomic_load(&sh->exported)) VIOLATION("a hold of exported handle %d succeeded", i);
        if (nx_buffer_free(H[i].b) != NX_EINVAL) VIOLATION("free of memory held exclusive (handle %d)", i);
        if (rnd_below(&s, 3) == 0 && may_kill(&killed, it)) {
          char reason[64];
          snprintf(reason, sizeof reason, "donated to nx_mul by thread %d", me);
          int st = nx_buffer_consume(H[i].b, reason);
          if (st) VIOLATION("consume: %s", nx_error_message());
          if (atomic_exchange(&sh->dead, 1)) VIOLATION("memory of handle %d died twice", i);
          atomic_fetch_sub(&live_mems, 1);
          const char *d = nx_buffer_dead(H[i].b);
          if (!d || strcmp(d, reason) != 0) VIOLATION("reason %s, wanted %s", d ? d : "NULL", reason);
          atomic_store(&sh->holder, 0);
          atomic_store(&sh->held, 0);
          atomic_fetch_add(&consumes, 1);
        } else {
          atomic_store(&sh->holder, 0);
          atomic_store(&sh->held, 0);
          if (nx_buffer_unhold(H[i].b)) VIOLATION("unhold: %s", nx_error_message());
          atomic_fetch_add(&unholds, 1);
        }
      }
    } else if (act < 88) { /* a free */
      int i = rnd_below(&s, NB);
      shadow *sh = &SH[H[i].mem];
      if (may_kill(&killed, it) && nx_buffer_free(H[i].b) == 0) {
        if (atomic_exchange(&sh->dead, 1)) VIOLATION("memory of handle %d freed after it died", i);
        if (atomic_load(&sh->held)) VIOLATION("memory of handle %d freed while held exclusive", i);
        atomic_fetch_sub(&live_mems, 1);
        atomic_fetch_add(&frees, 1);
      }
    } else if (act < 89) { /* an export, rarely: it is for good */
      int i = rnd_below(&s, NB);
      shadow *sh = &SH[H[i].mem];
      if (!exported && it > ITERS / 4 && rnd_below(&s, 100) == 0 && nx_buffer_export(H[i].b) == 0) {
        exported = 1;
        atomic_store(&sh->exported, 1);
        atomic_fetch_add(&exports, 1);
      }
    } else if (act < 95) { /* a reason read */
      int i = rnd_below(&s, NB);
      int dead = atomic_load(&SH[H[i].mem].dead);
      const char *d = nx_buffer_dead(H[i].b);
      if (dead && !d) VIOLATION("handle %d: dead, but nx_buffer_dead is NULL", i);
      if (d && strcmp(d, "freed") != 0 && strncmp(d, "donated to nx_mul by thread ", 28) != 0)
        VIOLATION("handle %d: reason %s", i, d);
    } else { /* retains and releases */
      int i = rnd_below(&s, NB), k = 1 + rnd_below(&s, 4);
      for (int q = 0; q < k; q++) nx_buffer_retain(H[i].b);
      if (nx_buffer_refcount(H[i].b) < 1 + k) VIOLATION("refcount of handle %d below %d", i, 1 + k);
      for (int q = 0; q < k; q++) nx_buffer_release(H[i].b);
    }
  }
  return NULL;
}

int main(void) {
  if (rig_need_devices(&R)) return check_done();
  CHECK(nx_rig_test_device(&T0) == 0, "test device");
  if (!T0) return check_done();
  rules();

  /* The shared buffers: host-addressed memories (written by claimers), a
     few the host does not address, read-only ones, and borrows. */
  struct { nx_device *d; nx_memory_kind k; nx_access a; } own[] = {
      {R.host, NX_MEMORY_HOST, NX_ACCESS_READ_WRITE}, {R.host, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE},
      {R.host, NX_MEMORY_HOST, NX_ACCESS_READ},       {R.ocl0, NX_MEMORY_IO, NX_ACCESS_READ_WRITE},
      {R.ocl0, NX_MEMORY_HOST, NX_ACCESS_WRITE},      {R.ocl1, NX_MEMORY_IO, NX_ACCESS_READ_WRITE},
      {R.ocl1, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE}, {T0, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE},
      {R.host, NX_MEMORY_HOST, NX_ACCESS_READ_WRITE}, {R.host, NX_MEMORY_DEVICE, NX_ACCESS_READ}};
  nmem = NB - 4;
  for (int i = 0; i < nmem; i++) {
    H[i].mem = i;
    CHECK(nx_buffer_create(own[i % 10].d, own[i % 10].k, own[i % 10].a, 64, &H[i].b) == 0, "create: %s",
          nx_error_message());
    if (!H[i].b) return check_done();
  }
  struct { nx_device *d; int src; } borrows[] = {{R.ocl0, 0}, {R.host, 3}, {R.ocl0, 6}, {R.ocl1, 8}};
  for (int i = 0; i < 4; i++) {
    H[nmem + i].mem = borrows[i].src;
    CHECK(nx_buffer_borrow(borrows[i].d, H[borrows[i].src].b, &H[nmem + i].b) == 0, "borrow: %s", nx_error_message());
    if (!H[nmem + i].b) return check_done();
  }
  atomic_store(&live_mems, nmem);

  watchdog w;
  watchdog_arm(&w, 20.0, "the claim threads");
  double t = now_s();
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++)
    if (pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i)) {
      fprintf(stderr, "no thread\n");
      return 1;
    }
  atomic_store(&go, 1);
  for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
  double took = now_s() - t;
  watchdog_disarm(&w);
  printf("%d threads: %ld claims, %ld refused, %ld holds, %ld consumed, %ld unheld, %ld freed, %ld exported; %.2f s\n",
         THREADS, atomic_load(&claims_ok), atomic_load(&claims_refused), atomic_load(&holds_ok),
         atomic_load(&consumes), atomic_load(&unholds), atomic_load(&frees), atomic_load(&exports), took);
  CHECK(atomic_load(&violations) == 0, "%ld violations", atomic_load(&violations));
  CHECK(took < 20.0, "the threads took %.1f s", took);
  CHECK(atomic_load(&claims_ok) > 1000 && atomic_load(&claims_refused) > 100 && atomic_load(&holds_ok) > 10 &&
            atomic_load(&consumes) + atomic_load(&frees) > 0,
        "the run exercised every path");

  /* Afterwards: nothing stays claimed (every live memory not exported can be
     held exclusive), dead memory refuses, claims of every live memory at
     once succeed, and each handle has the one reference it began with. */
  nx_buffer *live[NB];
  bool wr[NB];
  nx_claim_answer ans[NB];
  int nl = 0;
  for (int i = 0; i < NB; i++) {
    shadow *sh = &SH[H[i].mem];
    CHECK(atomic_load(&sh->claimers) == 0 && atomic_load(&sh->held) == 0, "shadow of %d", i);
    if (atomic_load(&sh->dead)) {
      CHECK(nx_buffer_dead(H[i].b) != NULL, "handle %d dead", i);
      CHECK(nx_buffer_hold_exclusive(H[i].b) == NX_EINVAL, "hold of dead handle %d", i);
      bool r = false;
      CHECK(nx_rig_claim(1, &H[i].b, &r, ans) == NX_RIG_REFUSED && ans[0] == NX_CLAIM_DEAD, "claim of dead %d", i);
    } else {
      CHECK(nx_buffer_dead(H[i].b) == NULL, "handle %d: reason %s", i, nx_buffer_dead(H[i].b));
      if (atomic_load(&sh->exported)) {
        CHECK(nx_buffer_hold_exclusive(H[i].b) == NX_EINVAL, "hold of exported handle %d", i);
      } else {
        int st = nx_buffer_hold_exclusive(H[i].b);
        CHECK(st == 0, "handle %d: something stayed claimed or held: %s", i, nx_error_message());
        if (st == 0) CHECK(nx_buffer_unhold(H[i].b) == 0, "unhold");
      }
      live[nl] = H[i].b;
      wr[nl++] = false;
    }
  }
  CHECK(nx_rig_claim(nl, live, wr, ans) == 0, "every live memory at once");
  nx_rig_release(nl, live, wr);
  for (int i = 0; i < NB; i++) {
    CHECK(nx_buffer_refcount(H[i].b) == 1, "handle %d refcount %d", i, nx_buffer_refcount(H[i].b));
    nx_buffer_release(H[i].b);
  }
  return check_done();
}
