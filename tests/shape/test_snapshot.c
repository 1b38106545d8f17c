/* SPDX-License-Identifier: Apache-2.0 */
/* Snapshots and id ranges (nx_shape.h): a restore gives back the state a
   snapshot was taken in bit for bit (the dump before equals the dump after,
   whatever ran in between: new tensors, bindings, errors and taint,
   closing), replaying the same calls after a restore gives the same state
   again (the same ids), snapshots nest, and a trace inside a reserved id
   range moves no id made outside it. */
#include <stdlib.h>

#include "common.h"
#include "../../src/base/alloc.h"

static char *dump(nx_shape_session *s) {
  int64_t n = nx_shape_dump(s, NULL, 0);
  CHECK(n > 0, "dump length %lld: %s", (long long)n, nx_error_message());
  char *b = malloc((size_t)n + 1);
  CHECK(b && nx_shape_dump(s, b, (size_t)n + 1) == n, "dump");
  return b;
}

/* ---- A random program over a pool of tensors ---- */

typedef struct {
  nx_tensor *t[64];
  int n;
} pool;

static unsigned next(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return *seed >> 8;
}

static const char *sizes[] = {NULL, "", NULL, "3", NULL, "3,4", "", "rgb=3", NULL};
static const char *specs2[] = {"ab;bc=>ac", "i;i=>i", "...|i;...|i=>...|i", "ij;jk=>ik", "a;b=>ab"};

/* One call on the pool, chosen by seed; what it returns does not matter,
   as long as the state it leaves is a state. */
static void step(nx_shape_session *s, pool *p, unsigned *seed) {
  unsigned k = next(seed) % 9;
  nx_tensor *t = NULL, *a = p->n ? p->t[next(seed) % p->n] : NULL, *b = p->n ? p->t[next(seed) % p->n] : NULL;
  int rc = 1;
  char label[16];
  snprintf(label, sizeof label, "t%u", next(seed) % 100);
  const char *x = sizes[next(seed) % 9], *y = sizes[next(seed) % 9], *z = sizes[next(seed) % 9];
  if (k == 0 || !a) rc = nx_tensor_term(s, label, x, y, z, &t);
  else if (k == 1) rc = nx_tensor_param(s, label, y, z, &t);
  else if (k == 2) rc = nx_tensor_binary(s, "+", a, b, &t);
  else if (k == 3) rc = nx_tensor_compose(s, a, b, &t);
  else if (k == 4) {
    nx_tensor *args[2] = {a, b};
    rc = nx_tensor_einsum(s, specs2[next(seed) % 5], args, 2, &t);
  } else if (k == 5) rc = nx_tensor_unary(s, "relu", a, &t);
  else if (k == 6) rc = nx_tensor_fill(s, label, 12, x, NULL, z, &t);
  else if (k == 7) {
    const nx_dim *d = nx_tensor_spec_dim(a, "b");
    if (d) nx_tensor_set_dim(s, d, 1 + next(seed) % 4);
  } else if (next(seed) % 4 == 0) nx_shape_finish(s);
  else if (next(seed) % 3 == 0) nx_tensor_set_marks(s, a, next(seed) % 4);
  else if (next(seed) % 2 == 0) { /* rename two of a's and b's row variables, as made */
    int ids[2] = {nx_row_var(nx_tensor_row(a, NX_AXIS_OUTPUT)), nx_row_var(nx_tensor_row(b, NX_AXIS_INPUT))};
    nx_shape_renaming *r;
    if (ids[0] > 0 && ids[1] > 0 && nx_shape_rename_new(s, ids, 2, &r) == 0) {
      nx_shape_solve(s, 1);
      nx_shape_rename_free(r);
    }
  } else nx_tensor_transpose(s, a, &t);
  if (rc == 0 && t && p->n < 64) p->t[p->n++] = t;
}

/* Random programs with snapshots taken and restored on a stack: every
   restore must give back the snapshot's dump, and replaying the calls made
   after it must give the same dump as the first time. */
static void random_programs(void) {
  int restores = 0, replays = 0, tainted = 0;
  for (unsigned prog = 0; prog < 60; prog++) {
    nx_shape_session *s;
    CHECK(nx_shape_session_new(&s) == 0, "session");
    pool p = {.n = 0};
    unsigned seed = prog * 7919u + 1;
    nx_shape_snapshot *snap[4];
    char *at[4];
    int npool[4];
    unsigned seedat[4];
    int depth = 0;
    for (int i = 0; i < 40; i++) {
      unsigned r = next(&seed) % 10;
      if (r == 0 && depth < 4) {
        CHECK(nx_shape_snapshot_take(s, &snap[depth]) == 0, "take: %s", nx_error_message());
        at[depth] = dump(s);
        npool[depth] = p.n;
        seedat[depth] = seed;
        depth++;
      } else if (r == 1 && depth) {
        int k = (int)(next(&seed) % (unsigned)depth);
        char *before = dump(s);
        unsigned seed_now = seed;
        tainted += strstr(before, "tainted=1") != NULL;
        CHECK(nx_shape_snapshot_restore(s, snap[k]) == 0, "restore: %s", nx_error_message());
        char *after = dump(s);
        CHECK(!strcmp(at[k], after), "program %u: the dump after restoring snapshot %d differs", prog, k);
        restores++;
        /* replay what ran since snapshot k: the same calls give the same state */
        pool q = p;
        q.n = npool[k];
        unsigned sd = seedat[k];
        (void)seed_now;
        p.n = npool[k];
        for (int j = k + 1; j < depth; j++) {
          CHECK(nx_shape_snapshot_restore(s, snap[j]) != 0, "a snapshot taken after the restored one has ended");
          nx_shape_snapshot_free(snap[j]);
          free(at[j]);
        }
        depth = k + 1;
        if (strcmp(before, at[k])) { /* something changed: replay a few calls twice */
          for (int j = 0; j < 5; j++) step(s, &q, &sd);
          char *once = dump(s);
          CHECK(nx_shape_snapshot_restore(s, snap[k]) == 0, "restore again: %s", nx_error_message());
          q.n = npool[k];
          sd = seedat[k];
          for (int j = 0; j < 5; j++) step(s, &q, &sd);
          char *twice = dump(s);
          CHECK(!strcmp(once, twice), "program %u: replaying after a restore gives another state", prog);
          replays++;
          free(once);
          free(twice);
          p = q;
        }
        free(before);
        free(after);
      } else step(s, &p, &seed);
    }
    for (int j = 0; j < depth; j++) {
      nx_shape_snapshot_free(snap[j]);
      free(at[j]);
    }
    nx_shape_session_free(s);
  }
  CHECK(restores > 30 && replays > 15, "the programs restored %d times and replayed %d times", restores, replays);
  printf("random programs: %d restores, %d replays, %d from a tainted state\n", restores, replays, tainted);
}

/* An MLP's session: taken, closed (or tainted by an error), restored; the
   session then closes as if nothing had happened. */
static void mlp_restore(void) {
  nx_shape_session *s;
  CHECK(nx_shape_session_new(&s) == 0, "session");
  nx_tensor *x = NULL, *w = NULL, *b = NULL, *m = NULL, *h = NULL;
  CHECK(nx_tensor_term(s, "x", "32", "", "784", &x) == 0 && nx_tensor_param(s, "w", NULL, NULL, &w) == 0 &&
            nx_tensor_param(s, "b", "", "128", &b) == 0 && nx_tensor_compose(s, w, x, &m) == 0 &&
            nx_tensor_binary(s, "+", m, b, &h) == 0,
        "mlp: %s", nx_error_message());
  char *a = dump(s), open[600];
  snprintf(open, sizeof open, "%s", shape_str(s, w, NX_SHAPE_STYLE_SIZE));
  nx_shape_snapshot *snap;
  CHECK(nx_shape_snapshot_take(s, &snap) == 0, "take");
  CHECK(nx_shape_finish(s) == 0, "finish: %s", nx_error_message());
  CHECK(strcmp(shape_str(s, w, NX_SHAPE_STYLE_SIZE), open), "closing changed w: %s", open);
  CHECK(!strcmp(shape_str(s, h, NX_SHAPE_STYLE_SIZE), "32|128"), "closed: %s", shape_str(s, h, NX_SHAPE_STYLE_SIZE));
  CHECK(nx_shape_snapshot_restore(s, snap) == 0, "restore: %s", nx_error_message());
  char *c = dump(s);
  CHECK(!strcmp(a, c), "the dump after restoring a closed session differs");
  CHECK(!strcmp(shape_str(s, w, NX_SHAPE_STYLE_SIZE), open), "w open again: %s", shape_str(s, w, NX_SHAPE_STYLE_SIZE));
  /* an error taints; the restore untaints */
  nx_tensor *bad, *sum;
  CHECK(nx_tensor_term(s, "bad", "32", "", "7", &bad) == 0, "bad leaf");
  CHECK(nx_tensor_binary(s, "+", h, bad, &sum) == NX_EINVAL, "128 vs 7 is an error");
  CHECK(nx_shape_finish(s) == NX_EINVAL && has(nx_error_message(), "tainted"), "tainted: %s", nx_error_message());
  CHECK(nx_shape_snapshot_restore(s, snap) == 0, "restore after taint: %s", nx_error_message());
  free(c);
  c = dump(s);
  CHECK(!strcmp(a, c), "the dump after restoring a tainted session differs");
  CHECK(nx_shape_finish(s) == 0, "finish after the restore: %s", nx_error_message());
  CHECK(!strcmp(shape_str(s, w, NX_SHAPE_STYLE_SIZE), "784->128"), "w: %s", shape_str(s, w, NX_SHAPE_STYLE_SIZE));
  nx_shape_snapshot_free(snap);
  free(a);
  free(c);
  nx_shape_session_free(s);
}

/* Pending constraints (added, not solved) are part of the state. */
static void pending_restore(void) {
  nx_shape_session *s;
  CHECK(nx_shape_session_new(&s) == 0, "session");
  const nx_dim *a = nx_dim_var(s, "a"), *b = nx_dim_var(s, "b");
  CHECK(nx_shape_add_dim_eq(s, a, dd(s, 5), &O) == 0, "a = 5");
  nx_shape_snapshot *snap;
  CHECK(nx_shape_snapshot_take(s, &snap) == 0, "take");
  char *x = dump(s);
  CHECK(strstr(x, "pending 0 ") != NULL, "the dump shows the pending constraint");
  CHECK(nx_shape_add_dim_eq(s, b, a, &O) == 0 && nx_shape_solve(s, 1) == 0, "solve");
  CHECK(val(s, a) == 5 && val(s, b) == 5, "solved a=%lld b=%lld", (long long)val(s, a), (long long)val(s, b));
  CHECK(nx_shape_snapshot_restore(s, snap) == 0, "restore");
  char *y = dump(s);
  CHECK(!strcmp(x, y), "the dump after restoring pending constraints differs");
  CHECK(val(s, a) == -1, "a is unsolved again");
  CHECK(nx_shape_solve(s, 1) == 0 && val(s, a) == 5 && val(s, b) == -1, "the pending a = 5 is solved, b is free");
  nx_shape_snapshot_free(snap);
  free(x);
  free(y);
  nx_shape_session_free(s);
}

/* A trace in a reserved block: the ids made outside it are those a session
   without the trace gives. */
static void id_ranges(void) {
  nx_shape_session *s = NULL, *ref = NULL;
  CHECK(nx_shape_session_new(&s) == 0 && nx_shape_session_new(&ref) == 0, "sessions");
  nx_shape_id_range r, rest;
  CHECK(nx_shape_ids_reserve(s, 100, 10, &r) == 0, "reserve: %s", nx_error_message());
  CHECK(nx_shape_ids_reserve(ref, 100, 10, &rest) == 0, "reserve in the reference");
  CHECK(r.var_hi - r.var_lo == 100 && r.tensor_hi - r.tensor_lo == 10, "the block's size");
  nx_shape_ids before, after, in;
  CHECK(nx_shape_ids_next(s, &before) == 0 && before.var == r.var_hi, "the counter is past the block");
  CHECK(nx_shape_ids_enter(s, &r) == 0, "enter: %s", nx_error_message());
  CHECK(nx_shape_ids_enter(s, &r) == NX_EINVAL, "entering twice fails");
  CHECK(nx_shape_ids_next(s, &in) == 0 && in.var == r.var_lo && in.tensor == r.tensor_lo, "inside: the block's ids");
  nx_tensor *t, *u;
  CHECK(nx_tensor_term(s, "x", "2", NULL, "3", &t) == 0 && nx_tensor_unary(s, "relu", t, &u) == 0, "trace");
  const nx_dim *v = nx_dim_var(s, "v");
  char buf[64];
  nx_shape_dim_value(s, v, NULL, NULL);
  CHECK(nx_row_to_string(s, nx_row_make(s, &v, 1, NULL, 0, 0), buf, sizeof buf) > 0, "print");
  int id = buf[0] == '$' ? atoi(buf + 1) : 0;
  CHECK(id > r.var_lo + 6 && id < r.var_hi, "the trace's variable %s is in the block %d..%d", buf, r.var_lo, r.var_hi);
  CHECK(nx_shape_ids_leave(s, &rest) == 0 && rest.var_lo == id + 1 && rest.tensor_lo == r.tensor_lo + 2,
        "leave: the rest of the block starts at %d", rest.var_lo);
  CHECK(nx_shape_ids_leave(s, NULL) == NX_EINVAL, "leaving twice fails");
  CHECK(nx_shape_ids_next(s, &after) == 0 && after.var == before.var && after.tensor == before.tensor,
        "the trace moved the watermark: %d vs %d", after.var, before.var);
  /* the same user calls after the trace give the ids of the session without it */
  nx_tensor *a, *b;
  CHECK(nx_tensor_term(s, NULL, "", NULL, "4", &a) == 0 && nx_tensor_term(ref, NULL, "", NULL, "4", &b) == 0, "user");
  char sa[600], sb[600];
  snprintf(sa, sizeof sa, "%s", shape_str(s, a, NX_SHAPE_STYLE_SIZE));
  snprintf(sb, sizeof sb, "%s", shape_str(ref, b, NX_SHAPE_STYLE_SIZE));
  CHECK(!strcmp(sa, sb) && !strcmp(nx_tensor_label(a), nx_tensor_label(b)), "user ids: %s %s vs %s %s", sa,
        nx_tensor_label(a), sb, nx_tensor_label(b));
  /* a snapshot restores whether a block is entered and how far */
  nx_shape_snapshot *snap = NULL;
  CHECK(nx_shape_ids_enter(s, &rest) == 0 && nx_shape_snapshot_take(s, &snap) == 0, "enter the rest, take");
  CHECK(nx_dim_var(s, NULL) != NULL && nx_shape_ids_leave(s, NULL) == 0, "a variable, leave");
  CHECK(nx_shape_snapshot_restore(s, snap) == 0 && nx_shape_ids_next(s, &in) == 0 && in.var == rest.var_lo,
        "after the restore the block is entered at %d (got %d)", rest.var_lo, in.var);
  nx_shape_snapshot_free(snap);
  /* bad ranges */
  nx_shape_id_range bogus = {1, 1 << 30, 1, 2};
  CHECK(nx_shape_ids_leave(s, NULL) == 0 && nx_shape_ids_enter(s, &bogus) == NX_EINVAL &&
            has(nx_error_message(), "nx_shape_ids_enter"),
        "a range past the counters: %s", nx_error_message());
  CHECK(nx_shape_ids_reserve(s, -1, 0, &r) == NX_EINVAL && nx_shape_ids_reserve(s, 0x7fffffff, 0, &r) == NX_EINVAL,
        "a negative or too large block: %s", nx_error_message());
  nx_shape_session_free(s);
  nx_shape_session_free(ref);
}

/* Nested snapshots, ended ones, other sessions', NULLs, and a snapshot
   freed after its session. */
static void lifetimes(void) {
  nx_shape_session *s = NULL, *s2 = NULL;
  CHECK(nx_shape_session_new(&s) == 0 && nx_shape_session_new(&s2) == 0, "sessions");
  nx_shape_snapshot *a = NULL, *b = NULL, *c = NULL;
  CHECK(nx_shape_snapshot_take(s, &a) == 0, "take a");
  char *da = dump(s);
  const nx_dim *v = nx_dim_var(s, "v");
  CHECK(nx_tensor_set_dim(s, v, 3) == 0, "v = 3");
  CHECK(nx_shape_snapshot_take(s, &b) == 0, "take b");
  char *db = dump(s);
  CHECK(strcmp(da, db), "the states differ");
  CHECK(nx_shape_snapshot_restore(s2, a) == NX_EINVAL && has(nx_error_message(), "not live"), "another session's");
  CHECK(nx_shape_snapshot_restore(s, b) == 0, "restore b (nothing changed)");
  char *x = dump(s);
  CHECK(!strcmp(x, db), "b's state");
  free(x);
  CHECK(nx_shape_snapshot_restore(s, a) == 0, "restore a");
  x = dump(s);
  CHECK(!strcmp(x, da), "a's state");
  free(x);
  CHECK(nx_shape_snapshot_restore(s, b) == NX_EINVAL, "b ended with the restore of a");
  nx_shape_snapshot_free(b);
  CHECK(nx_shape_snapshot_take(s, &c) == 0, "take c");
  nx_shape_snapshot_free(a); /* an older one freed first: c stays live */
  CHECK(nx_dim_var(s, NULL) != NULL, "a variable");
  CHECK(nx_shape_snapshot_restore(s, c) == 0, "restore c");
  x = dump(s);
  CHECK(!strcmp(x, da), "c's state is a's");
  free(x);
  CHECK(nx_shape_snapshot_take(NULL, &a) == NX_EINVAL && nx_shape_snapshot_take(s, NULL) == NX_EINVAL, "NULL take");
  CHECK(nx_shape_snapshot_restore(NULL, c) == NX_EINVAL && nx_shape_snapshot_restore(s, NULL) == NX_EINVAL, "NULL");
  CHECK(nx_shape_dump(NULL, NULL, 0) == NX_EINVAL, "NULL dump");
  nx_shape_snapshot_free(NULL);
  nx_shape_session_free(s);
  nx_shape_snapshot_free(c); /* after its session */
  nx_shape_session_free(s2);
  free(da);
  free(db);
}

/* Allocations failing while a snapshot is live: the k-th allocation of a
   trace fails, for every k until a trace runs through. Restoring then gives
   the snapshot's state back bit for bit, or, when a change could not be
   logged, refuses with NX_ENOMEM (and the session stays usable). */
static void alloc_failures(void) {
  int restored = 0, refused = 0;
  for (long k = 1; k < 100000; k++) {
    nx_shape_session *s;
    CHECK(nx_shape_session_new(&s) == 0, "session");
    nx_tensor *x = NULL, *w = NULL, *b = NULL, *m = NULL, *h = NULL, *e = NULL;
    CHECK(nx_tensor_term(s, "x", "8", "", "16", &x) == 0 && nx_tensor_param(s, "w", NULL, NULL, &w) == 0,
          "before: %s", nx_error_message());
    nx_shape_snapshot *snap;
    CHECK(nx_shape_snapshot_take(s, &snap) == 0, "take");
    char *at = dump(s);
    nx__alloc_fail_at(k);
    /* the trace: any call may fail for want of memory; those after go on */
    nx_tensor_compose(s, w, x, &m);
    nx_tensor_param(s, "b", "", "4", &b);
    if (nx_tensor_binary(s, "+", m, b, &h) == 0) {
      nx_tensor *args[2] = {h, x};
      nx_tensor_einsum(s, "i;j=>ij", args, 2, &e);
      int ids[1] = {nx_row_var(nx_tensor_row(h, NX_AXIS_BATCH))};
      nx_shape_renaming *r;
      if (ids[0] > 0 && nx_shape_rename_new(s, ids, 1, &r) == 0) nx_shape_rename_free(r);
    }
    nx_shape_finish(s);
    long failed = nx__alloc_failed();
    nx__alloc_fail_at(0);
    int rc = nx_shape_snapshot_restore(s, snap);
    CHECK(rc == 0 || rc == NX_ENOMEM, "restore after failure %ld: %d", k, rc);
    if (rc == 0) {
      char *after = dump(s);
      CHECK(!strcmp(at, after), "allocation %ld failed: the restored state differs", k);
      free(after);
      restored++;
    } else
      refused++;
    nx_shape_snapshot_free(snap);
    free(at);
    nx_shape_session_free(s);
    if (!failed) break; /* the trace ran with no allocation failing */
  }
  /* every allocation of the trace failed in turn: six of them since the rank
     search's common case stopped allocating (it was fourteen) */
  CHECK(restored + refused >= 6 && restored >= 4, "%d restores after a failed allocation, %d refused", restored, refused);
  printf("allocation failures: %d restores, %d refused\n", restored, refused);
}

int main(void) {
  alloc_failures();
  mlp_restore();
  pending_restore();
  lifetimes();
  id_ranges();
  random_programs();
  return check_done();
}
