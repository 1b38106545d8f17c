/* SPDX-License-Identifier: Apache-2.0 */
/* The layout invariant at int64's edges (nx_layout.h): the inputs that once
   overflowed, crashed or answered wrongly, kept as regressions, and random
   hand-built layouts whose parts are drawn from INT64_MIN, INT64_MAX,
   +-2^62, +-2^61, X = INT64_MAX / 3 and small numbers, passed to every
   function. The model decides the invariant with __int128, apart from the
   library; a layout that breaks it is refused by every function with a
   message naming the function, and every result the library gives holds it.
   Run under UBSan (the asan configuration), any overflow is a failure. */
#include <inttypes.h>

#include "../check.h"
#include "layout_model.h"
#include "nx_array.h"

#define L62 ((int64_t)1 << 62)
#define L61 ((int64_t)1 << 61)
#define X3 (INT64_MAX / 3)

typedef __int128 i128;

/* The invariant, by its definition in nx_layout.h. */
static bool m_valid(const nx_layout *l) {
  if (l->rank < 0 || l->rank > NX_MAX_RANK) return false;
  i128 count = 1, lo = l->offset, hi = l->offset;
  bool empty = false;
  for (int j = 0; j < l->rank; j++) {
    if (l->extent[j] < 0) return false;
    empty |= l->extent[j] == 0;
  }
  for (int j = 0; j < l->rank && !empty; j++)
    if ((count *= l->extent[j]) > INT64_MAX) return false;
  for (int j = 0; j < l->rank; j++) {
    if (l->stride[j] <= -L62 || l->stride[j] >= L62) return false;
    i128 d = (i128)l->stride[j] * (l->extent[j] > 1 ? l->extent[j] - 1 : 0);
    if (d < 0) lo += d; else hi += d;
  }
  return lo > -L62 && hi < L62;
}

static nx_layout hand(int rank, const int64_t *ext, const int64_t *str, int64_t off) {
  nx_layout l;
  memset(&l, 0, sizeof l);
  l.rank = rank;
  l.offset = off;
  for (int j = 0; j < rank; j++) {
    l.extent[j] = ext[j];
    l.stride[j] = str[j];
  }
  return l;
}

static void prime(void) { (void)nx_status_name(0); }

/* A refusal: status NX_EINVAL and the message naming fn. */
#define REFUSES(fn, call)                                                                                     \
  do {                                                                                                       \
    prime();                                                                                                 \
    int64_t rc_ = (int64_t)(call);                                                                           \
    CHECK(rc_ == NX_EINVAL && names(fn), "%s: %" PRId64 ", message \"%s\"", #call, rc_, nx_error_message()); \
  } while (0)

/* Every function refuses l, which breaks the invariant. */
static void all_refuse(const nx_layout *l, const char *what) {
  nx_layout r, ok;
  int64_t a = 0, b = 0, idx[NX_MAX_RANK] = {0}, one = 1;
  nx_move m;
  int ax = 0;
  int64_t sh[1] = {-1};
  CHECK(nx_layout_make(1, &one, NULL, 0, &ok) == 0, "a layout of one element");
  REFUSES("nx_layout_span", nx_layout_span(l, &a, &b));
  REFUSES("nx_layout_bits", nx_layout_bits(l, 8, &a, &b));
  REFUSES("nx_layout_position", nx_layout_position(l, idx, &a));
  REFUSES("nx_layout_copy", nx_layout_copy(l, 8, &r));
  REFUSES("nx_layout_copy_bytes", nx_layout_copy_bytes(l, 16));
  REFUSES("nx_layout_bitcast", nx_layout_bitcast(l, 8, 4, &r));
  REFUSES("nx_layout_make", nx_layout_make(l->rank, l->extent, l->stride, l->offset, &r));
  if (l->rank > 0) {
    nx_move_flip(&m, &ax, 1);
    REFUSES("nx_layout_move", nx_layout_move(&m, l, &r));
  }
  nx_move_reshape(&m, sh, 1);
  REFUSES("nx_layout_move", nx_layout_move(&m, l, &r));
  prime();
  CHECK(nx_layout_count(l) == 0 && names("nx_layout_count"), "%s: count %" PRId64, what, nx_layout_count(l));
  prime();
  CHECK(!nx_layout_is_distinct(l) && names("nx_layout_is_distinct"), "%s: is_distinct answered true", what);
  prime();
  CHECK(!nx_layout_is_contiguous(l) && names("nx_layout_is_contiguous"), "%s: is_contiguous answered true", what);
  prime();
  CHECK(nx_layout_shares_byte(l, 8, &ok, 8) && names("nx_layout_shares_byte"), "%s: shares_byte answered false", what);
  prime();
  CHECK(!nx_layout_identical(l, 8, l, 8) && names("nx_layout_identical"), "%s: identical answered true", what);
}

static void regressions(void) {
  nx_layout l, r;
  int64_t a, b;
  /* A slice multiplies the stride by the step whatever the count, as
     numpy's views do: [5] at [1] sliced 1::7 is [1] at [7], offset 1, and
     5:0:3 (no index) is [0] at [3]. */
  {
    int64_t e5[1] = {5}, st1[1] = {1}, lo = 1, hi = NX_SLICE_NONE, step = 7;
    nx_move m;
    CHECK(nx_layout_make(1, e5, st1, 0, &l) == 0, "%s", nx_error_message());
    nx_move_slice(&m, &lo, &hi, &step, 1);
    CHECK(nx_layout_move(&m, &l, &r) == 0 && r.extent[0] == 1 && r.stride[0] == 7 && r.offset == 1,
          "1::7 of [5]: [%" PRId64 "] at [%" PRId64 "] + %" PRId64, r.extent[0], r.stride[0], r.offset);
    lo = 5, hi = 0, step = 3;
    nx_move_slice(&m, &lo, &hi, &step, 1);
    CHECK(nx_layout_move(&m, &l, &r) == 0 && r.extent[0] == 0 && r.stride[0] == 3, "5:0:3 of [5]: [%" PRId64
          "] at [%" PRId64 "]", r.extent[0], r.stride[0]);
    /* Unless that product passes the bound: with one index or none the
       stride reaches nothing, so the old one stays, as where the product
       overflows, and the slice nx_move_shape accepts moves every layout:
       ::2^62 of [5] at [1] is [1] at [1], ::-(2^62) is [1] at [1] + 4, and
       5:0:INT64_MAX is [0] at [1]. */
    const int64_t big_steps[] = {L62, INT64_MAX, -L62, INT64_MIN + 1, INT64_MIN};
    for (size_t k = 0; k < sizeof big_steps / sizeof big_steps[0]; k++)
      for (int empty = 0; empty < 2; empty++) {
        step = big_steps[k];
        lo = empty ? (step > 0 ? 5 : 0) : NX_SLICE_NONE;
        hi = empty ? (step > 0 ? 0 : 5) : NX_SLICE_NONE;
        nx_move_slice(&m, &lo, &hi, &step, 1);
        int s = nx_layout_move(&m, &l, &r);
        CHECK(s == 0 && r.extent[0] == 1 - empty && r.stride[0] == 1 && r.offset == (empty || step > 0 ? 0 : 4),
              "%s::%" PRId64 " of [5] at [1]: %d, [%" PRId64 "] at [%" PRId64 "] + %" PRId64 " (%s)",
              empty ? "empty " : "", step, s, r.extent[0], r.stride[0], r.offset, s ? nx_error_message() : "");
      }
  }
  /* A copy of [1; 3] at [INT64_MIN; 2], and a flip of [1] at [INT64_MIN]. */
  int64_t e13[2] = {1, 3}, smin2[2] = {INT64_MIN, 2}, e1[1] = {1}, smin[1] = {INT64_MIN};
  REFUSES("nx_layout_make", nx_layout_make(2, e13, smin2, 0, &l));
  l = hand(2, e13, smin2, 0);
  all_refuse(&l, "[1; 3] at [INT64_MIN; 2]");
  l = hand(1, e1, smin, 0);
  all_refuse(&l, "[1] at [INT64_MIN]");

  /* [2^62] at [1]: reach 2^62 - 1, a valid layout; its copies of width 16
     and 128 need 2^63 and 2^66 bytes, refused, never 0 or INT64_MIN. */
  int64_t big[1] = {L62}, s1[1] = {1};
  CHECK(nx_layout_make(1, big, s1, 0, &l) == 0, "[2^62] at [1]: %s", nx_error_message());
  REFUSES("nx_layout_copy", nx_layout_copy(&l, 128, &r));
  REFUSES("nx_layout_copy_bytes", nx_layout_copy_bytes(&l, 128));
  REFUSES("nx_layout_copy_bytes", nx_layout_copy_bytes(&l, 16));
  REFUSES("nx_layout_bits", nx_layout_bits(&l, 128, &a, &b));
  CHECK(nx_layout_copy_bytes(&l, 8) == L62, "copy_bytes of [2^62] width 8: %" PRId64, nx_layout_copy_bytes(&l, 8));

  /* A hand-built expand with n = 100 once wrote past a rank-sized array. */
  nx_move m;
  memset(&m, 0, sizeof m);
  m.kind = NX_MOVE_EXPAND;
  m.n = 100;
  CHECK(nx_layout_make(1, e1, NULL, 0, &l) == 0, "[1]");
  REFUSES("nx_layout_move", nx_layout_move(&m, &l, &r));
  m.n = -1;
  REFUSES("nx_layout_move", nx_layout_move(&m, &l, &r));
  m.kind = (nx_move_kind)99;
  m.n = 1;
  REFUSES("nx_layout_move", nx_layout_move(&m, &l, &r));
  int64_t shp[1] = {1}, out[NX_MAX_RANK];
  int orank;
  m.kind = NX_MOVE_EXPAND;
  m.n = 100;
  REFUSES("nx_move_shape", nx_move_shape(&m, shp, 1, out, &orank));

  /* {2,2,2} at {-2^62, 1, 1}: once bitcast 8 -> 4 to strides [INT64_MIN, 2,
     2, 1] and answered distinct. Now refused at make; one inside the bound
     bitcasts, and is_distinct tells the truth. */
  int64_t e222[3] = {2, 2, 2}, sneg[3] = {-L62, 1, 1}, sok[3] = {-(L61 - 1), 1, 1};
  REFUSES("nx_layout_make", nx_layout_make(3, e222, sneg, 0, &l));
  l = hand(3, e222, sneg, 0);
  all_refuse(&l, "{2,2,2} at {-2^62,1,1}");
  CHECK(nx_layout_make(3, e222, sok, 0, &l) == 0, "{2,2,2} at {-(2^61-1),1,1}: %s", nx_error_message());
  CHECK(!nx_layout_is_distinct(&l), "{2,2,2} at {-(2^61-1),1,1} repeats an element");
  int st = nx_layout_bitcast(&l, 8, 4, &r);
  CHECK(st == NX_EINVAL || (m_valid(&r) && !nx_layout_is_distinct(&r)), "bitcast 8 -> 4: %d", st);

  /* Signed overflow in copy, and layouts with no element whose strides were
     never checked. */
  int64_t ea[3] = {0, L62, L62}, sa[3] = {1, 1, 1}, eb[3] = {L62, 4, 0}, sb[3] = {-1, 1, 1};
  int64_t ec[3] = {3, 3, 0}, sc[3] = {X3, X3, 1}, ed[3] = {L62, L62, 0};
  const int64_t *cases[3][2] = {{ea, sa}, {ec, sc}, {ed, sa}};
  /* {2^62, 4, 0} at {-1, 1, 1}: its hull [-(2^62 - 1), 3] is inside. */
  CHECK(nx_layout_make(3, eb, sb, 0, &l) == 0, "{2^62,4,0} at {-1,1,1}: %s", nx_error_message());
  CHECK(nx_layout_copy(&l, 8, &r) == 0 && m_valid(&r) && nx_layout_copy_bytes(&l, 8) == 0, "copy of {2^62,4,0}");
  for (int k = 0; k < 3; k++) {
    REFUSES("nx_layout_make", nx_layout_make(3, cases[k][0], cases[k][1], 0, &l));
    l = hand(3, cases[k][0], cases[k][1], 0);
    all_refuse(&l, "an empty layout past the bound");
  }
  REFUSES("nx_layout_make", nx_layout_make(0, NULL, NULL, INT64_MAX - 1, &l));
  l = hand(0, NULL, NULL, INT64_MAX - 1);
  all_refuse(&l, "rank 0 at offset INT64_MAX - 1");

  /* Reshape after a bitcast: {3,3} at {1, -2^61} reaches -2^62, refused;
     at {1, -2^60} its bitcast 8 -> 4 would, refused; at {1, -2^59} it fits
     and reshapes to {-1} or answers None. */
  int64_t e33[2] = {3, 3}, s61[2] = {1, -L61}, s60[2] = {1, -(L61 / 4)}, flat[1] = {-1}, s6[2] = {1, -(L61 / 2)};
  REFUSES("nx_layout_make", nx_layout_make(2, e33, s61, 0, &l));
  CHECK(nx_layout_make(2, e33, s6, 0, &l) == 0, "{3,3} at {1,-2^60}: %s", nx_error_message());
  REFUSES("nx_layout_bitcast", nx_layout_bitcast(&l, 8, 4, &r));
  CHECK(nx_layout_make(2, e33, s60, 0, &l) == 0, "{3,3} at {1,-2^59}");
  CHECK(nx_layout_bitcast(&l, 8, 4, &r) == 0 && m_valid(&r), "bitcast of {3,3} at {1,-2^59}: %s", nx_error_message());
  nx_layout q;
  nx_move_reshape(&m, flat, 1);
  st = nx_layout_move(&m, &r, &q);
  CHECK(st == NX_NONE || (st == 0 && m_valid(&q)), "reshape after bitcast: %d (%s)", st, nx_error_message());

  /* A narrowing whose multiply takes the stride of an axis of extent 1 past
     the bound (a slice leaves such strides): that stride becomes 0, the
     others are multiplied (before: refused); with no element, every
     stride is 0, at any narrowing (before: refused by 8 -> 1, not 8 -> 4). */
  int64_t e14[2] = {1, 4}, s14[2] = {L61, 1}, e02[2] = {0, 2}, s02[2] = {1, L61};
  CHECK(nx_layout_make(2, e14, s14, 0, &l) == 0, "{1,4} at {2^61,1}: %s", nx_error_message());
  for (int to = 4; to >= 1; to -= 3) {
    st = nx_layout_bitcast(&l, 8, to, &r);
    CHECK(st == 0 && r.rank == 3 && r.stride[0] == 0 && r.stride[1] == 8 / to && r.stride[2] == 1 &&
              r.extent[2] == 8 / to && m_valid(&r),
          "bitcast 8 -> %d of {1,4} at {2^61,1}: %d (%s)", to, st, nx_error_message());
  }
  CHECK(nx_layout_make(2, e02, s02, 0, &l) == 0, "{0,2} at {1,2^61}: %s", nx_error_message());
  for (int to = 4; to >= 1; to -= 3) {
    st = nx_layout_bitcast(&l, 8, to, &r);
    CHECK(st == 0 && r.rank == 3 && r.stride[0] == 0 && r.stride[1] == 0 && m_valid(&r),
          "bitcast 8 -> %d of {0,2} at {1,2^61}: %d (%s)", to, st, nx_error_message());
  }
  int64_t e24[2] = {2, 4}, s24[2] = {L61, 1};
  CHECK(nx_layout_make(2, e24, s24, 0, &l) == 0, "{2,4} at {2^61,1}: %s", nx_error_message());
  REFUSES("nx_layout_bitcast", nx_layout_bitcast(&l, 8, 4, &r)); /* an axis that moves: still refused */

  /* Widths no dtype has are refused everywhere. */
  int64_t e4[1] = {4};
  CHECK(nx_layout_make(1, e4, NULL, 5, &l) == 0, "[4] at offset 5");
  int bad[] = {0, 2, 3, 12, 24, 256, -8};
  for (int k = 0; k < 7; k++) {
    REFUSES("nx_layout_copy", nx_layout_copy(&l, bad[k], &r));
    REFUSES("nx_layout_copy_bytes", nx_layout_copy_bytes(&l, bad[k]));
    REFUSES("nx_layout_bits", nx_layout_bits(&l, bad[k], &a, &b));
    REFUSES("nx_layout_bitcast", nx_layout_bitcast(&l, bad[k], 8, &r));
    prime();
    CHECK(nx_layout_shares_byte(&l, bad[k], &l, 8) && names("nx_layout_shares_byte"), "width %d shares_byte", bad[k]);
  }

  /* C strides of a shape with no element that would pass the bound settle to
     0, and the layout is usable. */
  int64_t ez[3] = {L61, L61, 0};
  CHECK(nx_layout_contiguous(ez, 3, &l) == 0 && l.stride[0] == 0 && l.stride[1] == 0 && l.stride[2] == 0,
        "contiguous [2^61; 2^61; 0]: %s", nx_error_message());
  CHECK(nx_layout_copy(&l, 8, &r) == 0 && nx_layout_copy_bytes(&l, 8) == 0, "copy of [2^61; 2^61; 0]");
  nx_move_reshape(&m, flat, 1);
  CHECK(nx_layout_move(&m, &l, &r) == 0 && r.rank == 1 && r.extent[0] == 0 && m_valid(&r),
        "reshape of [2^61; 2^61; 0] to {-1}: %s", nx_error_message());

  /* The array module: an empty layout at offset INT64_MAX is refused. */
  nx_buffer *buf;
  nx_array *arr = NULL;
  CHECK(nx_buffer_create(nx_rig_host(), NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 64, &buf) == 0, "a buffer");
  int64_t e0[1] = {0}, s0[1] = {1};
  l = hand(1, e0, s0, INT64_MAX);
  prime();
  CHECK(nx_array_v(NX_FLOAT32, &l, buf, &arr) == NX_EINVAL && arr == NULL, "nx_array_v of an empty layout at INT64_MAX");
  nx_buffer_release(buf);
}

/* ---- Random hand-built layouts at the edges ---------------------------- */

static int64_t pick(const int64_t *pool, int n) { return pool[rng_in(0, n - 1)]; }

static const int64_t strides_pool[] = {0, 1, -1, 2, -2, 3, 7, -5, X3, -X3, L61, -L61, L62 - 1, -(L62 - 1), L62, -L62,
                                       INT64_MAX, INT64_MIN, INT64_MAX / 2, (L62 - 1) / 3};
static const int64_t extents_pool[] = {0, 1, 2, 3, 4, 5, 1 << 20, L61, L62 - 1, L62, INT64_MAX, X3};
static const int64_t offsets_pool[] = {0, 1, -1, 17, X3, -X3, L61, L62 - 1, -(L62 - 1), L62, -L62, INT64_MAX, INT64_MIN};
#define NPOOL(p) ((int)(sizeof p / sizeof *p))

static nx_layout random_layout(void) {
  nx_layout l;
  memset(&l, 0, sizeof l);
  l.rank = (int)rng_in(0, 4);
  l.offset = rng_pct(50) ? rng_in(-20, 20) : pick(offsets_pool, NPOOL(offsets_pool));
  for (int j = 0; j < l.rank; j++) {
    l.extent[j] = rng_pct(60) ? rng_in(0, 4) : pick(extents_pool, NPOOL(extents_pool));
    l.stride[j] = rng_pct(50) ? rng_in(-6, 6) : pick(strides_pool, NPOOL(strides_pool));
  }
  return l;
}

static const int widths[] = {1, 4, 8, 16, 32, 64, 128};

/* A result the library gave holds the invariant. */
#define HOLDS(what, st, r) CHECK((st) != 0 || m_valid(&(r)), "%s gave a layout that breaks the invariant", what)

static void random_moves(const nx_layout *l) {
  nx_move m;
  nx_layout r;
  int64_t a[NX_MAX_RANK], b[NX_MAX_RANK], c[NX_MAX_RANK];
  int ax[NX_MAX_RANK];
  int n = l->rank;
  for (int j = 0; j < n; j++) {
    ax[j] = j;
    a[j] = rng_pct(70) ? rng_in(-3, 3) : pick(offsets_pool, NPOOL(offsets_pool));
    b[j] = rng_pct(70) ? rng_in(-3, 5) : pick(offsets_pool, NPOOL(offsets_pool));
    c[j] = rng_pct(70) ? rng_in(-3, 3) : pick(strides_pool, NPOOL(strides_pool));
  }
  int st;
  nx_move_flip(&m, ax, n);
  st = nx_layout_move(&m, l, &r);
  HOLDS("flip", st, r);
  CHECK(st == 0, "flip of a valid layout refused: %s", nx_error_message());
  nx_move_slice(&m, a, b, c, n);
  st = nx_layout_move(&m, l, &r);
  HOLDS("slice", st, r);
  nx_move_shrink(&m, a, b, n);
  st = nx_layout_move(&m, l, &r);
  HOLDS("shrink", st, r);
  for (int j = 0; j < n; j++) b[j] = rng_pct(60) ? -1 : pick(extents_pool, NPOOL(extents_pool));
  b[n] = rng_in(0, 3);
  nx_move_expand(&m, b, n + 1);
  st = nx_layout_move(&m, l, &r);
  HOLDS("expand", st, r);
  int64_t flat[1] = {-1};
  nx_move_reshape(&m, flat, 1);
  st = nx_layout_move(&m, l, &r);
  HOLDS("reshape", st, r);
  nx_move_reshape(&m, l->extent, n);
  st = nx_layout_move(&m, l, &r);
  HOLDS("reshape to the same shape", st, r);
  nx_move_unsqueeze(&m, (int)rng_in(0, n));
  st = nx_layout_move(&m, l, &r);
  HOLDS("unsqueeze", st, r);
  nx_move_squeeze_all(&m);
  st = nx_layout_move(&m, l, &r);
  HOLDS("squeeze", st, r);
}

static void random_valid(const nx_layout *l) {
  nx_layout r, made;
  int64_t lo, hi, p, idx[NX_MAX_RANK];
  int64_t n = nx_layout_count(l);
  CHECK(nx_layout_make(l->rank, l->extent, l->stride, l->offset, &made) == 0, "make refused a valid layout: %s",
        nx_error_message());
  bool empty = false;
  for (int j = 0; j < l->rank; j++) empty |= l->extent[j] == 0;
  int st = nx_layout_span(l, &lo, &hi);
  CHECK(st == (empty ? NX_NONE : 0), "span: %d", st);
  if (!empty) {
    for (int j = 0; j < l->rank; j++) idx[j] = rng_pct(50) ? 0 : l->extent[j] - 1;
    i128 want = l->offset;
    for (int j = 0; j < l->rank; j++) want += (i128)l->stride[j] * idx[j];
    CHECK(nx_layout_position(l, idx, &p) == 0 && p == want, "position");
    for (int k = 0; k < 7; k++) {
      int w = widths[k];
      int64_t blo, bhi;
      i128 wl = (i128)lo * w, wh = ((i128)hi + 1) * w;
      bool fits = wl >= INT64_MIN && wh <= INT64_MAX;
      st = nx_layout_bits(l, w, &blo, &bhi);
      CHECK(fits ? st == 0 && blo == wl && bhi == wh : st == NX_EINVAL, "bits width %d: %d", w, st);
    }
    if (n <= 512) CHECK(nx_layout_is_distinct(l) == bf_distinct(l), "is_distinct against enumeration");
  }
  (void)nx_layout_is_contiguous(l);
  (void)nx_layout_shares_byte(l, 8, l, 4);
  for (int k = 0; k < 7; k++) {
    int w = widths[k];
    st = nx_layout_copy(l, w, &r);
    HOLDS("copy", st, r);
    int64_t bytes = nx_layout_copy_bytes(l, w);
    CHECK(st == 0 ? bytes >= 0 : bytes == NX_EINVAL, "copy_bytes width %d: %" PRId64 " (copy %d)", w, bytes, st);
    if (st == 0 && !empty) {
      int64_t clo, chi;
      nx_layout_span(&r, &clo, &chi);
      CHECK(clo >= 0 && bytes == (int64_t)((((i128)chi + 1) * w + 7) >> 3),
            "copy_bytes width %d: %" PRId64 ", copy at positions [%" PRId64 ", %" PRId64 "], offset %" PRId64, w, bytes,
            clo, chi, r.offset);
    }
    for (int k2 = 0; k2 < 7; k2++) {
      st = nx_layout_bitcast(l, w, widths[k2], &r);
      HOLDS("bitcast", st, r);
    }
  }
  random_moves(l);
}

int main(void) {
  regressions();
  rng_seed(0x5EED1E7E5u);
  long valid = 0, invalid = 0;
  for (int it = 0; it < 40000; it++) {
    nx_layout l = random_layout();
    if (m_valid(&l)) {
      valid++;
      random_valid(&l);
    } else {
      invalid++;
      all_refuse(&l, "a random layout past the bound");
    }
  }
  printf("random layouts at the edges: %ld valid, %ld past the bound\n", valid, invalid);
  return check_done();
}
