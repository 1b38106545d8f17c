/* SPDX-License-Identifier: Apache-2.0 */
/* Worked examples for nx_layout.h: the seed's (copy layout of [3; 2] at
   strides [2; 2], bitcast narrower and wider, narrowing at NX_MAX_RANK),
   numpy's measured answers from shared/reference/layouts_kernels.md (§1.3
   reshapes, §3.2 internal overlap, §3.1 the x[:, ::7] / x[:, 3::3] pair),
   sub-byte overlap, Python slices written out, what the constructors store,
   and larger layouts than the random model draws (distinctness and
   shares-a-byte against brute force, soundness required, conservative
   answers counted). */
#include <inttypes.h>
#include <string.h>

#include "../check.h"
#include "layout_model.h"

static nx_layout mk(int rank, const int64_t *ext, const int64_t *str, int64_t off) {
  nx_layout l;
  int st = nx_layout_make(rank, ext, str, off, &l);
  CHECK(st == 0, "nx_layout_make: %d (%s)", st, nx_error_message());
  return l;
}

/* r has rank n, these extents (when ext is not NULL), these strides on the
   axes of extent >= 2 (all axes when all is set) and this offset. */
static bool is(const nx_layout *r, int n, const int64_t *ext, const int64_t *str, int64_t off, bool all) {
  if (r->rank != n || r->offset != off) return false;
  for (int k = 0; k < n; k++) {
    if (ext && r->extent[k] != ext[k]) return false;
    if ((all || r->extent[k] >= 2) && r->stride[k] != str[k]) return false;
  }
  return true;
}

static const char *show(const nx_layout *l) {
  static sbuf b[4];
  static int next;
  sbuf *s = &b[next++ % 4];
  s->n = 0;
  s->s[0] = 0;
  sb_layout(s, l);
  return s->s;
}

#define A(...) ((const int64_t[]){__VA_ARGS__})

static void copies(void) {
  nx_layout l, r;
  /* The seed's example. */
  l = mk(2, A(3, 2), A(2, 2), 0);
  for (int w = 8; w <= 64; w *= 2) {
    CHECK(nx_layout_copy(&l, w, &r) == 0 && is(&r, 2, A(3, 2), A(2, 1), 0, true), "copy of [3; 2] at [2; 2], width %d: %s, want strides [2; 1]", w, show(&r));
    CHECK(nx_layout_copy_bytes(&l, w) == 6 * w / 8, "copy_bytes of [3; 2] at [2; 2], width %d: %" PRId64, w, nx_layout_copy_bytes(&l, w));
  }
  /* Dense sources keep their layout, shifted to byte 0. */
  l = mk(2, A(3, 2), A(1, 3), 7);
  CHECK(nx_layout_copy(&l, 32, &r) == 0 && is(&r, 2, A(3, 2), A(1, 3), 0, true), "copy of a transpose: %s", show(&r));
  l = mk(2, A(2, 3), A(-3, -1), 5 + 40);
  CHECK(nx_layout_copy(&l, 8, &r) == 0 && is(&r, 2, A(2, 3), A(-3, -1), 5, true), "copy of a full flip: %s", show(&r));
  /* Sub-byte elements keep their place in their byte. */
  l = mk(1, A(3), A(1), 3);
  CHECK(nx_layout_copy(&l, 4, &r) == 0 && is(&r, 1, A(3), A(1), 1, true) && nx_layout_copy_bytes(&l, 4) == 2, "copy of 3 nibbles from position 3: %s, bytes %" PRId64, show(&r), nx_layout_copy_bytes(&l, 4));
  l = mk(1, A(3), A(1), 13);
  CHECK(nx_layout_copy(&l, 1, &r) == 0 && is(&r, 1, A(3), A(1), 5, true) && nx_layout_copy_bytes(&l, 1) == 1, "copy of 3 bits from bit 13: %s, bytes %" PRId64, show(&r), nx_layout_copy_bytes(&l, 1));
  /* 2 nibbles from position 1 straddle two bytes, a dense copy needs one. */
  l = mk(1, A(2), A(1), 1);
  CHECK(nx_layout_copy(&l, 4, &r) == 0 && is(&r, 1, A(2), A(1), 0, true) && nx_layout_copy_bytes(&l, 4) == 1, "copy of 2 nibbles from position 1: %s, bytes %" PRId64, show(&r), nx_layout_copy_bytes(&l, 4));
  l = mk(1, A(3), A(2), 0);
  CHECK(nx_layout_copy(&l, 4, &r) == 0 && is(&r, 1, A(3), A(1), 0, true) && nx_layout_copy_bytes(&l, 4) == 2, "copy of nibbles at stride 2: %s", show(&r));
  /* Gaps: the dense form, signs kept, least position at 0. */
  l = mk(2, A(2, 3), A(-6, -2), 10);
  CHECK(nx_layout_copy(&l, 16, &r) == 0 && is(&r, 2, A(2, 3), A(-3, -1), 5, true), "copy of [2; 3] at [-6; -2]: %s, want [-3; -1] offset 5", show(&r));
  l = mk(3, A(2, 3, 4), A(1, -40, 8), 100);
  CHECK(nx_layout_copy(&l, 8, &r) == 0 && is(&r, 3, A(2, 3, 4), A(1, -8, 2), 16, true), "copy of [2; 3; 4] at [1; -40; 8]: %s, want [1; -8; 2] offset 16", show(&r));
  /* Stride 0 kept, counted once. */
  l = mk(2, A(4, 3), A(0, 1), 7);
  CHECK(nx_layout_copy(&l, 8, &r) == 0 && is(&r, 2, A(4, 3), A(0, 1), 0, true) && nx_layout_copy_bytes(&l, 8) == 3, "copy of a broadcast: %s", show(&r));
  l = mk(2, A(4, 3), A(0, 2), 7);
  CHECK(nx_layout_copy(&l, 8, &r) == 0 && is(&r, 2, A(4, 3), A(0, 1), 0, true) && nx_layout_copy_bytes(&l, 8) == 3, "copy of a gapped broadcast: %s", show(&r));
  /* No element: the dense form, no bytes. */
  l = mk(2, A(0, 3), A(5, 2), 9);
  CHECK(nx_layout_copy(&l, 8, &r) == 0 && r.rank == 2 && r.extent[0] == 0 && r.extent[1] == 3 && nx_layout_copy_bytes(&l, 8) == 0, "copy of no element: %s", show(&r));
}

static void bitcasts(void) {
  nx_layout l, r;
  l = mk(2, A(2, 3), NULL, 5);
  CHECK(nx_layout_bitcast(&l, 32, 8, &r) == 0 && is(&r, 3, A(2, 3, 4), A(12, 4, 1), 20, true), "f32 [2; 3] as bytes: %s", show(&r));
  nx_layout back;
  CHECK(nx_layout_bitcast(&r, 8, 32, &back) == 0 && is(&back, 2, A(2, 3), A(3, 1), 5, true), "and back: %s", show(&back));
  CHECK(nx_layout_bitcast(&l, 16, 16, &r) == 0 && is(&r, 2, A(2, 3), A(3, 1), 5, true), "equal widths: %s", show(&r));
  l = mk(2, A(2, 12), NULL, 0);
  CHECK(nx_layout_bitcast(&l, 8, 32, &r) == NX_NONE, "widening [2; 12] by 4: want None");
  l = mk(2, A(2, 4), A(4, 2), 0);
  CHECK(nx_layout_bitcast(&l, 8, 32, &r) == NX_NONE, "widening with a trailing stride 2: want None");
  l = mk(2, A(2, 4), A(6, 1), 0);
  CHECK(nx_layout_bitcast(&l, 8, 32, &r) == NX_NONE, "widening with a stride 6 by 4: want None");
  l = mk(2, A(2, 4), A(8, 1), 2);
  CHECK(nx_layout_bitcast(&l, 8, 32, &r) == NX_NONE, "widening at offset 2 by 4: want None");
  l = mk(2, A(2, 4), A(8, 1), 4);
  CHECK(nx_layout_bitcast(&l, 8, 32, &r) == 0 && is(&r, 1, A(2), A(2), 1, true), "widening [2; 4] at [8; 1] offset 4: %s", show(&r));
  l = mk(2, A(2, 4), A(-8, 1), 8);
  CHECK(nx_layout_bitcast(&l, 8, 32, &r) == 0 && is(&r, 1, A(2), A(-2), 2, true), "widening with a negative stride: %s", show(&r));
  l = mk(1, A(8), A(1), 0);
  CHECK(nx_layout_bitcast(&l, 1, 8, &r) == 0 && is(&r, 0, NULL, NULL, 0, true), "8 bits as a byte: %s", show(&r));
  l = mk(2, A(3, 2), A(2, 1), 6);
  CHECK(nx_layout_bitcast(&l, 4, 8, &r) == 0 && is(&r, 1, A(3), A(1), 3, true), "nibble pairs as bytes: %s", show(&r));
  l = mk(1, A(3), A(1), 1);
  CHECK(nx_layout_bitcast(&l, 8, 4, &r) == 0 && is(&r, 2, A(3, 2), A(2, 1), 2, true), "bytes as nibbles: %s", show(&r));
  CHECK(nx_layout_bitcast(&l, 128, 1, &r) == 0 && is(&r, 2, A(3, 128), A(128, 1), 128, true), "128-bit elements as bits: %s", show(&r));
  l = mk(0, NULL, NULL, 3);
  CHECK(nx_layout_bitcast(&l, 64, 16, &r) == 0 && is(&r, 1, A(4), A(1), 12, true), "a scalar narrowed: %s", show(&r));
  CHECK(nx_layout_bitcast(&l, 16, 64, &r) == NX_NONE, "a scalar widened: want None");
  /* No element: only the trailing axis of extent r is needed. */
  l = mk(2, A(0, 2), A(5, 1), 3);
  CHECK(nx_layout_bitcast(&l, 8, 16, &r) == 0 && r.rank == 1 && r.extent[0] == 0 && r.offset == 1, "no element [0; 2] at [5; 1] offset 3, widened: %s, want extent [0], offset 1", show(&r));
  l = mk(2, A(0, 2), A(4, 7), -3);
  CHECK(nx_layout_bitcast(&l, 8, 16, &r) == 0 && r.rank == 1 && r.extent[0] == 0 && r.stride[0] == 2 && r.offset == -2, "no element [0; 2] at [4; 7] offset -3, widened: %s, want stride 2, offset -2", show(&r));
  l = mk(2, A(2, 0), A(1, 1), 0);
  CHECK(nx_layout_bitcast(&l, 8, 16, &r) == NX_NONE, "no element [2; 0], widened by 2: want None");
  l = mk(1, A(0), A(1), 0);
  CHECK(nx_layout_bitcast(&l, 8, 16, &r) == NX_NONE, "no element [0], widened by 2: want None");
  /* Narrowing at NX_MAX_RANK is refused. */
  int64_t ones[NX_MAX_RANK];
  for (int k = 0; k < NX_MAX_RANK; k++) ones[k] = 1;
  l = mk(NX_MAX_RANK, ones, NULL, 0);
  CHECK(nx_layout_bitcast(&l, 16, 8, &r) == NX_EINVAL && strstr(nx_error_message(), "nx_layout_bitcast"), "narrowing at NX_MAX_RANK: want NX_EINVAL naming nx_layout_bitcast (%s)", nx_error_message());
  CHECK(nx_layout_bitcast(&l, 8, 16, &r) == NX_NONE, "widening a rank-%d layout of extent-1 axes by 2: want None", NX_MAX_RANK);
}

static int move(const nx_move *m, const nx_layout *l, nx_layout *r) { return nx_layout_move(m, l, r); }

static void reshapes(void) {
  nx_layout l, r;
  nx_move m;
  /* zeros(6)[::2].reshape(3, 1) */
  l = mk(1, A(3), A(2), 0);
  nx_move_reshape(&m, A(3, 1), 2);
  CHECK(move(&m, &l, &r) == 0 && is(&r, 2, A(3, 1), A(2, 0), 0, false), "[3] at [2] to [3; 1]: %s", show(&r));
  /* (2, 3)[::-1, ::-1].reshape(6): stride -1 */
  l = mk(2, A(2, 3), A(-3, -1), 5);
  nx_move_reshape(&m, A(6), 1);
  CHECK(move(&m, &l, &r) == 0 && is(&r, 1, A(6), A(-1), 5, true), "a full flip to [6]: %s", show(&r));
  /* x[:, ::-1].reshape(6) needs a copy */
  l = mk(2, A(2, 3), A(3, -1), 2);
  CHECK(move(&m, &l, &r) == NX_NONE, "[2; 3] at [3; -1] to [6]: want None, got %s", show(&r));
  /* A transpose merges nothing, but splits and inserts 1s freely. */
  l = mk(2, A(3, 2), A(1, 3), 0);
  CHECK(move(&m, &l, &r) == NX_NONE, "a transpose to [6]: want None");
  nx_move_reshape(&m, A(3, 1, 2, 1), 4);
  CHECK(move(&m, &l, &r) == 0 && is(&r, 4, A(3, 1, 2, 1), A(1, 0, 3, 0), 0, false), "a transpose to [3; 1; 2; 1]: %s", show(&r));
  l = mk(2, A(4, 6), A(1, 4), 0);
  nx_move_reshape(&m, A(2, 2, 3, 2), 4);
  CHECK(move(&m, &l, &r) == 0 && is(&r, 4, A(2, 2, 3, 2), A(2, 1, 8, 4), 0, true), "[4; 6] at [1; 4] to [2; 2; 3; 2]: %s", show(&r));
  /* Stride 0 runs merge only with stride 0. */
  l = mk(2, A(2, 3), A(0, 1), 0);
  nx_move_reshape(&m, A(6), 1);
  CHECK(move(&m, &l, &r) == NX_NONE, "[2; 3] at [0; 1] to [6]: want None");
  l = mk(2, A(2, 2), A(0, 0), 4);
  nx_move_reshape(&m, A(-1), 1);
  CHECK(move(&m, &l, &r) == 0 && is(&r, 1, A(4), A(0), 4, true), "[2; 2] at [0; 0] to [-1]: %s", show(&r));
  /* Extent-1 axes never matter. */
  l = mk(4, A(2, 1, 3, 1), A(9, 100, 3, -7), 1);
  nx_move_reshape(&m, A(6), 1);
  CHECK(move(&m, &l, &r) == 0 && is(&r, 1, A(6), A(3), 1, true), "[2; 1; 3; 1] at [9; 100; 3; -7] to [6]: %s", show(&r));
  /* No element always reshapes. */
  l = mk(2, A(0, 3), A(7, -5), 2);
  nx_move_reshape(&m, A(3, 0, 5), 3);
  CHECK(move(&m, &l, &r) == 0 && r.rank == 3 && r.extent[0] == 3 && r.extent[1] == 0 && r.extent[2] == 5, "no element to [3; 0; 5]: %s", show(&r));
  /* A scalar and back. */
  l = mk(0, NULL, NULL, 9);
  nx_move_reshape(&m, A(1, 1), 2);
  CHECK(move(&m, &l, &r) == 0 && r.rank == 2 && r.offset == 9, "a scalar to [1; 1]: %s", show(&r));
  nx_layout s;
  nx_move_reshape(&m, NULL, 0);
  CHECK(move(&m, &r, &s) == 0 && s.rank == 0 && s.offset == 9, "[1; 1] to a scalar: %s", show(&s));
}

static void slices(void) {
  nx_layout l = mk(1, A(5), A(3), 2), r;
  nx_move m;
  struct {
    int64_t start, stop, step, n, off, stride;
  } t[] = {
      {NX_SLICE_NONE, NX_SLICE_NONE, -1, 5, 14, -3}, /* a[::-1] */
      {-2, NX_SLICE_NONE, 1, 2, 11, 3},              /* a[-2:] */
      {10, NX_SLICE_NONE, 1, 0, 0, 0},               /* a[10:] */
      {NX_SLICE_NONE, -10, -1, 5, 14, -3},           /* a[:-10:-1] */
      {1, 4, 2, 2, 5, 6},                            /* a[1:4:2] */
      {4, 0, -2, 2, 14, -6},                         /* a[4:0:-2] */
      {-100, 100, 3, 2, 2, 9},                       /* a[-100:100:3] */
      {3, 3, 1, 0, 0, 0},                            /* a[3:3] */
      {NX_SLICE_NONE, NX_SLICE_NONE, 7, 1, 2, 21},   /* a[::7] */
      {INT64_MAX, INT64_MIN + 1, -1, 5, 14, -3},     /* a[big:-big:-1] */
  };
  for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
    nx_move_slice(&m, &t[k].start, &t[k].stop, &t[k].step, 1);
    int st = move(&m, &l, &r);
    bool ok = st == 0 && r.rank == 1 && r.extent[0] == t[k].n && (t[k].n == 0 || r.offset == t[k].off) && (t[k].n < 2 || r.stride[0] == t[k].stride);
    sbuf mb = {0};
    sb_move(&mb, &m);
    CHECK(ok, "%s on [5] at [3] offset 2: status %d %s, want extent %" PRId64 " offset %" PRId64 " stride %" PRId64, mb.s, st, show(&r), t[k].n, t[k].off, t[k].stride);
  }
  /* A step too large for stride * step: one element; either refused or its
     position right, never undefined. */
  int64_t steps[2] = {INT64_MAX, -INT64_MAX};
  for (int k = 0; k < 2; k++) {
    int64_t none = NX_SLICE_NONE;
    nx_move_slice(&m, &none, &none, &steps[k], 1);
    int st = move(&m, &l, &r);
    int64_t want = k == 0 ? 2 : 14;
    CHECK((st == 0 && r.rank == 1 && r.extent[0] == 1 && r.offset == want) || (st == NX_EINVAL && strstr(nx_error_message(), "nx_layout_move")),
          "slice step %s on [5] at [3]: status %d %s, want extent 1 at position %" PRId64 " (or a refusal)", k ? "-INT64_MAX" : "INT64_MAX", st, show(&r), want);
  }
}

static void constructors(void) {
  nx_move m;
  int ord[3] = {2, -3, 1};
  CHECK(nx_move_reshape(&m, A(2, -1), 2) == 0 && m.kind == NX_MOVE_RESHAPE && m.n == 2 && m.a[0] == 2 && m.a[1] == -1, "nx_move_reshape stores kind, n, a");
  CHECK(nx_move_permute(&m, ord, 3) == 0 && m.kind == NX_MOVE_PERMUTE && m.n == 3 && m.a[0] == 2 && m.a[1] == -3 && m.a[2] == 1, "nx_move_permute stores kind, n, a");
  CHECK(nx_move_expand(&m, A(4, -1), 2) == 0 && m.kind == NX_MOVE_EXPAND && m.n == 2 && m.a[0] == 4 && m.a[1] == -1, "nx_move_expand stores kind, n, a");
  CHECK(nx_move_shrink(&m, A(1), A(3), 1) == 0 && m.kind == NX_MOVE_SHRINK && m.n == 1 && m.a[0] == 1 && m.b[0] == 3, "nx_move_shrink stores kind, n, a, b");
  CHECK(nx_move_slice(&m, A(NX_SLICE_NONE), A(-1), A(-2), 1) == 0 && m.kind == NX_MOVE_SLICE && m.n == 1 && m.a[0] == NX_SLICE_NONE && m.b[0] == -1 && m.c[0] == -2, "nx_move_slice stores kind, n, a, b, c");
  CHECK(nx_move_flip(&m, ord, 2) == 0 && m.kind == NX_MOVE_FLIP && m.n == 2 && m.a[0] == 2 && m.a[1] == -3, "nx_move_flip stores kind, n, a");
  CHECK(nx_move_squeeze(&m, ord, 1) == 0 && m.kind == NX_MOVE_SQUEEZE && m.n == 1 && m.a[0] == 2, "nx_move_squeeze stores kind, n, a");
  CHECK(nx_move_squeeze_all(&m) == 0 && m.kind == NX_MOVE_SQUEEZE && m.n == -1, "nx_move_squeeze_all stores n = -1");
  CHECK(nx_move_unsqueeze(&m, -2) == 0 && m.kind == NX_MOVE_UNSQUEEZE && m.a[0] == -2, "nx_move_unsqueeze stores a[0]");
}

static void facts(void) {
  nx_layout l;
  l = mk(3, A(2, 1, 3), A(3, 100, 1), 4);
  CHECK(nx_layout_is_contiguous(&l), "[2; 1; 3] at [3; 100; 1] is contiguous");
  l = mk(2, A(0, 3), A(-4, 9), -2);
  CHECK(nx_layout_is_contiguous(&l), "no element is contiguous");
  l = mk(2, A(3, 2), A(1, 3), 0);
  CHECK(!nx_layout_is_contiguous(&l), "a transpose is not contiguous");
  /* §3.2: numpy's measured answers. */
  l = mk(2, A(4, 3), A(0, 1), 0);
  CHECK(!nx_layout_is_distinct(&l), "a broadcast repeats");
  l = mk(2, A(4, 4), A(1, 1), 0);
  CHECK(!nx_layout_is_distinct(&l), "(4, 4) at (1, 1) repeats");
  l = mk(2, A(2, 3), A(3, 1), 0);
  CHECK(nx_layout_is_distinct(&l), "(2, 3) at (3, 1) is distinct");
  l = mk(2, A(2, 3), A(2, 1), 0);
  CHECK(!nx_layout_is_distinct(&l), "(2, 3) at (2, 1) repeats");
  l = mk(2, A(1000, 1000), A(1, 1000), 0);
  CHECK(nx_layout_is_distinct(&l), "a transposed 1000 x 1000 is distinct");
  /* Not views of a dense array: the search decides. */
  l = mk(2, A(7, 7), A(7, 6), 0);
  CHECK(nx_layout_is_distinct(&l), "(7, 7) at (7, 6) is distinct (7a = 6b has no small solution)");
  l = mk(2, A(8, 8), A(7, 6), 0);
  CHECK(!nx_layout_is_distinct(&l), "(8, 8) at (7, 6) repeats (7*6 = 6*7)");
  l = mk(3, A(5, 7, 2), A(7, 5, 35), 0);
  CHECK(nx_layout_is_distinct(&l) == bf_distinct(&l), "(5, 7, 2) at (7, 5, 35): want %d", bf_distinct(&l));
  l = mk(1, A(1), A(0), 0);
  CHECK(nx_layout_is_distinct(&l), "one element at stride 0 is distinct");
  l = mk(3, A(2, 1, 3), A(0, 0, 0), 0);
  CHECK(!nx_layout_is_distinct(&l), "(2, 1, 3) at stride 0 repeats");

  nx_layout a, b;
  /* §3.1: x[:, ::7] and x[:, 3::3]: the exact answer. */
  for (int64_t cols = 19; cols <= 24; cols++) {
    a = mk(2, A(10, (cols + 6) / 7), A(cols, 7), 0);
    b = mk(2, A(10, (cols - 3 + 2) / 3), A(cols, 3), 3);
    bool want = bf_shares_byte(&a, 8, &b, 8);
    CHECK(nx_layout_shares_byte(&a, 8, &b, 8) == want, "x[:, ::7] and x[:, 3::3] of x (10, %" PRId64 "): want %d", cols, want);
    CHECK(nx_layout_shares_byte(&a, 32, &b, 32) == bf_shares_byte(&a, 32, &b, 32), "the same at width 32");
  }
  /* Sub-byte neighbours. */
  a = mk(1, A(1), A(1), 0);
  b = mk(1, A(1), A(1), 1);
  CHECK(nx_layout_shares_byte(&a, 4, &b, 4), "nibbles 0 and 1 share byte 0");
  CHECK(!nx_layout_shares_byte(&a, 8, &b, 8), "bytes 0 and 1 share none");
  a = mk(1, A(1), A(1), 1);
  b = mk(1, A(1), A(1), 2);
  CHECK(!nx_layout_shares_byte(&a, 4, &b, 4), "nibbles 1 and 2 share none");
  a = mk(1, A(1), A(1), 7);
  b = mk(1, A(1), A(1), 8);
  CHECK(!nx_layout_shares_byte(&a, 1, &b, 1), "bits 7 and 8 share none");
  a = mk(1, A(1), A(1), 1);
  b = mk(1, A(1), A(1), 0);
  CHECK(nx_layout_shares_byte(&a, 4, &b, 8), "nibble 1 and byte 0 share");
  a = mk(1, A(8), A(1), 8);
  b = mk(1, A(1), A(1), 1);
  CHECK(nx_layout_shares_byte(&a, 1, &b, 8), "bits 8..15 and byte 1 share");
  CHECK(!nx_layout_shares_byte(&a, 1, &b, 16), "bits 8..15 and the 16-bit element at bytes 2..3 share none");
  a = mk(1, A(1), A(1), -1);
  b = mk(1, A(1), A(1), -1);
  CHECK(nx_layout_shares_byte(&a, 4, &b, 8), "nibble -1 and byte -1 share");
  b = mk(1, A(1), A(1), 0);
  CHECK(!nx_layout_shares_byte(&a, 4, &b, 8), "nibble -1 and byte 0 share none");
  a = mk(2, A(4, 2), A(4, 1), 0);
  b = mk(2, A(4, 2), A(4, 1), 2);
  CHECK(!nx_layout_shares_byte(&a, 8, &b, 8), "interleaved pairs share none");
  CHECK(nx_layout_shares_byte(&a, 16, &b, 8), "interleaved pairs, one side 16 bits wide, share");
  a = mk(2, A(3, 0), A(1, 1), 0);
  CHECK(!nx_layout_shares_byte(&a, 8, &a, 8), "no element shares nothing, even with itself");
  a = mk(1, A(3), A(2), 0);
  CHECK(nx_layout_shares_byte(&a, 8, &a, 8), "a layout with an element shares with itself");

  a = mk(2, A(2, 1), A(3, 5), 4);
  b = mk(2, A(2, 1), A(3, 9), 4);
  CHECK(nx_layout_identical(&a, 8, &b, 8), "strides of extent-1 axes do not matter");
  CHECK(!nx_layout_identical(&a, 8, &b, 16), "widths differ");
  CHECK(!nx_layout_identical(&a, 3, &a, 3) && strstr(nx_error_message(), "nx_layout_identical: widths 3 and 3") != NULL,
        "a width that is no dtype's: %s", nx_error_message());
  b = mk(2, A(2, 1), A(3, 9), 5);
  CHECK(!nx_layout_identical(&a, 8, &b, 8), "offsets differ");
  b = mk(2, A(1, 2), A(5, 3), 4);
  CHECK(!nx_layout_identical(&a, 8, &b, 8), "extents differ");
  a = mk(2, A(0, 3), A(1, 1), 0);
  b = mk(2, A(0, 3), A(7, -2), 11);
  CHECK(nx_layout_identical(&a, 4, &b, 4), "no element, same extents");
  b = mk(2, A(3, 0), A(7, -2), 11);
  CHECK(!nx_layout_identical(&a, 4, &b, 4), "no element, other extents");
}

/* Larger layouts than the random model's: brute force still decides;
   soundness is required, and conservative answers are counted. */
static void larger(void) {
  rng_seed(0xB16B00B5u);
  long dn = 0, dcons = 0, sn = 0, scons = 0;
  for (int c = 0; c < 3000; c++) {
    nx_layout l;
    int rank = (int)rng_in(1, 3);
    int64_t ext[3], str[3];
    for (int k = 0; k < rank; k++) {
      ext[k] = rng_in(1, 12);
      str[k] = rng_in(-40, 40);
    }
    l = mk(rank, ext, str, rng_in(0, 500));
    bool want = bf_distinct(&l), got = nx_layout_is_distinct(&l);
    dn++;
    CHECK(!got || want, "is_distinct %s: true, but it repeats an element", show(&l));
    if (want && !got) dcons++;

    nx_layout o;
    int orank = (int)rng_in(1, 3);
    for (int k = 0; k < orank; k++) {
      ext[k] = rng_in(1, 12);
      str[k] = rng_in(-40, 40);
    }
    o = mk(orank, ext, str, rng_in(0, 500));
    int wa = (int[]){1, 4, 8, 16, 32}[rng_in(0, 4)], wb = (int[]){1, 4, 8, 16, 32}[rng_in(0, 4)];
    bool sw = bf_shares_byte(&l, wa, &o, wb), sg = nx_layout_shares_byte(&l, wa, &o, wb);
    sn++;
    CHECK(sg || !sw, "shares_byte(%s width %d, %s width %d): false, but they share a byte", show(&l), wa, show(&o), wb);
    if (sg && !sw) scons++;
  }
  printf("larger layouts: is_distinct %ld cases, %ld conservative; shares_byte %ld cases, %ld conservative\n", dn, dcons, sn, scons);
}

int main(void) {
  copies();
  bitcasts();
  reshapes();
  slices();
  constructors();
  facts();
  larger();
  return check_done();
}
