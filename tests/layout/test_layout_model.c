/* SPDX-License-Identifier: Apache-2.0 */
/* The layout API (nx_layout.h) against a brute-force model, on random
   layouts of small extents and random movement sequences: every answer is
   computed here by enumerating every index and its position, never read
   from the library.

   Each case draws a layout (rank 0..4, extents 0..4, strides in [-6, 6],
   offsets that keep positions >= 0 or any), checks its facts (count, span,
   bits, position, contiguity, distinctness), moves it by 1..4 random
   movements (each result checked element by element against the movement's
   definition and the next movement applied to it), and checks bitcast, the
   copy layout, shares-a-byte and identical on it.

   For a reshape, the model decides whether a strided layout exists by
   itself: a layout whose element at output index j (C-order rank k) is the
   input's element of C-order rank k has, for a result with an element, its
   offset fixed by j = 0 and each stride of an axis of extent >= 2 fixed by
   the index with a 1 on that axis (extent-1 axes never matter). So the
   search over candidate strides has exactly one candidate, and a solution
   exists iff that candidate reaches every element: checked over every
   output index.

   NX_LAYOUT_CASES in the environment overrides the number of cases. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../check.h"
#include "layout_model.h"

/* ---- Statistics ---------------------------------------------------------- */

enum { OUT_OK, OUT_NONE, OUT_REFUSED };
static long stat_move[8][3];
static long stat_distinct[2], stat_shares[2], stat_identical[2], stat_contig[2];
static long stat_bitcast[3], stat_copy_form[2], stat_slice_empty, stat_cases, stat_ctor;

/* Differences from the header's literal wording that no element can
   observe (strides of layouts with no element): counted and shown, not
   failed. */
static long note_count[2];
static const char *note_what[2] = {"contiguous strides of a shape with a zero extent",
                                   "copy-layout strides of a layout with no element"};
static void note(int which, const char *text) {
  if (note_count[which]++ == 0) printf("note (not a failure): %s differ from the header's literal rule, first: %s\n", note_what[which], text);
}

/* ---- Random layouts ------------------------------------------------------ */

static int64_t rand_extent(void) { return rng_pct(8) ? 0 : rng_in(1, 4); }

static void rand_parts(int *rank, int64_t *ext, int64_t *str, int64_t *off) {
  *rank = (int)rng_in(0, 4);
  int64_t lowest = 0;
  for (int k = 0; k < *rank; k++) {
    ext[k] = rand_extent();
    str[k] = rng_in(-6, 6);
    if (ext[k] > 0 && str[k] < 0) lowest += str[k] * (ext[k] - 1);
  }
  *off = rng_pct(50) ? -lowest + rng_in(0, 3) : rng_in(-12, 12);
}

/* A random layout, made by nx_layout_make (or nx_layout_contiguous), with
   its parts checked. */
static void rand_layout(nx_layout *l) {
  int rank;
  int64_t ext[NX_MAX_RANK], str[NX_MAX_RANK], off;
  rand_parts(&rank, ext, str, &off);
  int how = (int)rng_in(0, 9);
  int st;
  if (how == 0) {
    st = nx_layout_contiguous(ext, rank, l);
    int64_t s = 1;
    for (int k = rank - 1; k >= 0; k--) {
      str[k] = s;
      s *= ext[k];
    }
    off = 0;
  } else if (how == 1) {
    st = nx_layout_make(rank, ext, NULL, off, l);
    int64_t s = 1;
    for (int k = rank - 1; k >= 0; k--) {
      str[k] = s;
      s *= ext[k];
    }
  } else {
    st = nx_layout_make(rank, ext, str, off, l);
  }
  sbuf b = {0};
  sb_printf(&b, "rank %d extents ", rank);
  sb_arr(&b, ext, rank);
  sb_printf(&b, " strides ");
  sb_arr(&b, str, rank);
  sb_printf(&b, " offset %" PRId64 " (%s)", off, how == 0 ? "contiguous" : how == 1 ? "make, NULL strides" : "make");
  CHECK(st == 0, "making %s: status %d, %s", b.s, st, nx_error_message());
  bool same = st == 0 && l->rank == rank && l->offset == off;
  for (int k = 0; same && k < rank; k++) same = l->extent[k] == ext[k] && l->stride[k] == str[k];
  if (st == 0 && !same) {
    sbuf g = {0};
    sb_layout(&g, l);
    bool only_strides = l->rank == rank && l->offset == off;
    for (int k = 0; only_strides && k < rank; k++) only_strides = l->extent[k] == ext[k];
    if (only_strides && how < 2 && m_count(ext, rank) == 0) {
      sb_printf(&b, " gave %s", g.s);
      note(0, b.s);
      same = true;
    } else {
      CHECK(same, "making %s gave %s", b.s, g.s);
    }
  }
  if (st != 0 || !same) {
    /* Go on with the parts as drawn, so one failure does not end the run. */
    memset(l, 0, sizeof *l);
    l->rank = rank;
    l->offset = off;
    for (int k = 0; k < rank; k++) {
      l->extent[k] = ext[k];
      l->stride[k] = str[k];
    }
  }
}

/* ---- Facts --------------------------------------------------------------- */

static const int bit_widths[] = {1, 4, 8, 16, 32, 64, 128};

static void check_facts(const nx_layout *l) {
  sbuf b = {0};
  sb_layout(&b, l);
  int64_t n = m_lcount(l);
  CHECK(nx_layout_count(l) == n, "count of %s: %" PRId64 ", want %" PRId64, b.s, nx_layout_count(l), n);

  int64_t lo = 0, hi = 0, glo = -77, ghi = -77;
  bool has = m_span(l, &lo, &hi);
  int st = nx_layout_span(l, &glo, &ghi);
  if (has) CHECK(st == 0 && glo == lo && ghi == hi, "span of %s: status %d [%" PRId64 ", %" PRId64 "], want [%" PRId64 ", %" PRId64 "]", b.s, st, glo, ghi, lo, hi);
  else CHECK(st == NX_NONE && glo == -77 && ghi == -77, "span of %s (no element): status %d, out %" PRId64 " %" PRId64, b.s, st, glo, ghi);

  int w = bit_widths[rng_in(0, 6)];
  int64_t blo = -77, bhi = -77;
  st = nx_layout_bits(l, w, &blo, &bhi);
  if (has) CHECK(st == 0 && blo == lo * w && bhi == (hi + 1) * w, "bits of %s width %d: status %d [%" PRId64 ", %" PRId64 "), want [%" PRId64 ", %" PRId64 ")", b.s, w, st, blo, bhi, lo * w, (hi + 1) * w);
  else CHECK(st == NX_NONE && blo == -77 && bhi == -77, "bits of %s (no element): status %d", b.s, st);

  bool c = bf_contiguous(l);
  stat_contig[c]++;
  CHECK(nx_layout_is_contiguous(l) == c, "is_contiguous %s: %d, want %d", b.s, !c, c);

  bool d = bf_distinct(l);
  stat_distinct[d]++;
  bool gd = nx_layout_is_distinct(l);
  CHECK(gd == d, "is_distinct %s: %d, want %d%s", b.s, gd, d, d ? " (a conservative answer on a small layout)" : " (WRONG: repeats an element)");

  /* A random index in range, and one out of range. */
  if (n > 0) {
    int64_t idx[NX_MAX_RANK], p = -77;
    for (int k = 0; k < l->rank; k++) idx[k] = rng_in(0, l->extent[k] - 1);
    st = nx_layout_position(l, idx, &p);
    CHECK(st == 0 && p == m_pos(l, idx), "position in %s: status %d p %" PRId64 ", want %" PRId64, b.s, st, p, m_pos(l, idx));
    if (l->rank > 0) {
      int k = (int)rng_in(0, l->rank - 1);
      idx[k] = rng_pct(50) ? -1 : l->extent[k];
      p = -77;
      st = nx_layout_position(l, idx, &p);
      CHECK(st == NX_EINVAL && p == -77 && names("nx_layout_position"), "position in %s of index out of range on axis %d (%" PRId64 "): status %d p %" PRId64 " message %s", b.s, k, idx[k], st, p, nx_error_message());
    }
  }
}

/* ---- The movement model -------------------------------------------------- */

typedef struct {
  int rank;
  int64_t ext[NX_MAX_RANK];
  int perm[NX_MAX_RANK];
  int lead;
  int64_t start[NX_MAX_RANK], step[NX_MAX_RANK];
  bool flip[NX_MAX_RANK], removed[NX_MAX_RANK];
  int ins;
} model;

/* Python's slice(start, stop, step).indices(length): start and length of
   the result, or false for step 0. */
static bool py_slice(int64_t start, int64_t stop, int64_t step, int64_t length, int64_t *rstart, int64_t *rlen) {
  if (step == 0) return false;
  int64_t lower = step > 0 ? 0 : -1, upper = step > 0 ? length : length - 1;
  if (start == NX_SLICE_NONE) start = step < 0 ? upper : lower;
  else if (start < 0) {
    start += length;
    if (start < lower) start = lower;
  } else if (start > upper) start = upper;
  if (stop == NX_SLICE_NONE) stop = step < 0 ? lower : upper;
  else if (stop < 0) {
    stop += length;
    if (stop < lower) stop = lower;
  } else if (stop > upper) stop = upper;
  int64_t len;
  if (step > 0) len = stop > start ? (stop - start - 1) / step + 1 : 0;
  else len = start > stop ? (start - stop - 1) / (-step) + 1 : 0;
  *rstart = start;
  *rlen = len;
  return true;
}

/* Whether m fits an input of l's shape, and the result's shape and index
   map. */
static bool model_shape(const nx_move *m, const nx_layout *l, model *r) {
  memset(r, 0, sizeof *r);
  int rank = l->rank;
  const int64_t *e = l->extent;
  switch (m->kind) {
  case NX_MOVE_RESHAPE: {
    int inferred = -1;
    int64_t known = 1;
    for (int k = 0; k < m->n; k++) {
      if (m->a[k] == -1) {
        if (inferred >= 0) return false;
        inferred = k;
      } else if (m->a[k] < 0) return false;
      else known *= m->a[k];
    }
    int64_t count = m_lcount(l);
    r->rank = m->n;
    for (int k = 0; k < m->n; k++) r->ext[k] = m->a[k];
    if (inferred >= 0) {
      if (known == 0 || count % known != 0) return false;
      r->ext[inferred] = count / known;
    } else if (known != count) return false;
    return true;
  }
  case NX_MOVE_PERMUTE: {
    if (m->n != rank) return false;
    bool seen[NX_MAX_RANK] = {0};
    for (int k = 0; k < rank; k++) {
      int64_t a = m->a[k] < 0 ? m->a[k] + rank : m->a[k];
      if (a < 0 || a >= rank || seen[a]) return false;
      seen[a] = true;
      r->perm[k] = (int)a;
      r->ext[k] = e[a];
    }
    r->rank = rank;
    return true;
  }
  case NX_MOVE_EXPAND: {
    if (m->n < rank) return false;
    r->lead = m->n - rank;
    r->rank = m->n;
    for (int k = 0; k < m->n; k++) {
      int64_t t = m->a[k];
      if (k < r->lead) {
        if (t < 0) return false; /* -1 has no input extent to keep here */
        r->ext[k] = t;
      } else {
        int64_t in = e[k - r->lead];
        if (t == -1 || t == in) r->ext[k] = in;
        else if (t < 0 || in != 1) return false;
        else r->ext[k] = t;
      }
    }
    return true;
  }
  case NX_MOVE_SHRINK:
    if (m->n != rank) return false;
    for (int k = 0; k < rank; k++) {
      if (m->a[k] < 0 || m->a[k] > m->b[k] || m->b[k] > e[k]) return false;
      r->start[k] = m->a[k];
      r->ext[k] = m->b[k] - m->a[k];
    }
    r->rank = rank;
    return true;
  case NX_MOVE_SLICE:
    if (m->n > rank) return false;
    for (int k = 0; k < rank; k++) {
      if (k < m->n) {
        if (!py_slice(m->a[k], m->b[k], m->c[k], e[k], &r->start[k], &r->ext[k])) return false;
        r->step[k] = m->c[k];
      } else {
        r->start[k] = 0;
        r->step[k] = 1;
        r->ext[k] = e[k];
      }
    }
    r->rank = rank;
    return true;
  case NX_MOVE_FLIP:
    for (int k = 0; k < m->n; k++) {
      int64_t a = m->a[k] < 0 ? m->a[k] + rank : m->a[k];
      if (a < 0 || a >= rank || r->flip[a]) return false;
      r->flip[a] = true;
    }
    r->rank = rank;
    for (int k = 0; k < rank; k++) r->ext[k] = e[k];
    return true;
  case NX_MOVE_SQUEEZE:
    if (m->n == -1) {
      for (int k = 0; k < rank; k++) r->removed[k] = e[k] == 1;
    } else {
      for (int k = 0; k < m->n; k++) {
        int64_t a = m->a[k];
        if (a < 0 || a >= rank || r->removed[a] || e[a] != 1) return false;
        r->removed[a] = true;
      }
    }
    for (int k = 0; k < rank; k++)
      if (!r->removed[k]) r->ext[r->rank++] = e[k];
    return true;
  case NX_MOVE_UNSQUEEZE: {
    int64_t a = m->a[0];
    if (a < -(rank + 1) || a > rank || rank + 1 > NX_MAX_RANK) return false;
    r->ins = (int)(a < 0 ? a + rank + 1 : a);
    r->rank = rank + 1;
    for (int k = 0, j = 0; k < r->rank; k++) r->ext[k] = k == r->ins ? 1 : e[j++];
    return true;
  }
  }
  return false;
}

/* The input index that output index j reaches (not for reshape). */
static void model_source(const nx_move *m, const nx_layout *l, const model *r, const int64_t *j, int64_t *i) {
  switch (m->kind) {
  case NX_MOVE_RESHAPE: m_unravel(l->extent, l->rank, m_crank(r->ext, r->rank, j), i); break;
  case NX_MOVE_PERMUTE:
    for (int k = 0; k < r->rank; k++) i[r->perm[k]] = j[k];
    break;
  case NX_MOVE_EXPAND:
    for (int k = 0; k < l->rank; k++) i[k] = l->extent[k] == 1 ? 0 : j[k + r->lead];
    break;
  case NX_MOVE_SHRINK:
  case NX_MOVE_SLICE:
    for (int k = 0; k < l->rank; k++) i[k] = r->start[k] + j[k] * (m->kind == NX_MOVE_SHRINK ? 1 : r->step[k]);
    break;
  case NX_MOVE_FLIP:
    for (int k = 0; k < l->rank; k++) i[k] = r->flip[k] ? l->extent[k] - 1 - j[k] : j[k];
    break;
  case NX_MOVE_SQUEEZE:
    for (int k = 0, q = 0; k < l->rank; k++) i[k] = r->removed[k] ? 0 : j[q++];
    break;
  case NX_MOVE_UNSQUEEZE:
    for (int k = 0, q = 0; k < r->rank; k++)
      if (k != r->ins) i[q++] = j[k];
    break;
  }
}

/* Whether a strided layout of the result shape reaches, at every output
   index, the input element of the same C-order rank. */
static bool reshape_exists(const nx_layout *l, const model *r) {
  int64_t count = m_lcount(l);
  if (count == 0) return true;
  nx_layout c = {0};
  int64_t i[NX_MAX_RANK], j[NX_MAX_RANK] = {0};
  c.rank = r->rank;
  for (int k = 0; k < r->rank; k++) c.extent[k] = r->ext[k];
  m_unravel(l->extent, l->rank, 0, i);
  c.offset = m_pos(l, i);
  for (int k = 0; k < r->rank; k++) {
    if (r->ext[k] < 2) continue;
    memset(j, 0, sizeof j);
    j[k] = 1;
    m_unravel(l->extent, l->rank, m_crank(r->ext, r->rank, j), i);
    c.stride[k] = m_pos(l, i) - c.offset;
  }
  memset(j, 0, sizeof j);
  do {
    m_unravel(l->extent, l->rank, m_crank(r->ext, r->rank, j), i);
    if (m_pos(&c, j) != m_pos(l, i)) return false;
  } while (idx_next(r->ext, r->rank, j));
  return true;
}

/* The same question by search, as literally as it can be put: every stride
   of an axis of extent >= 2 in [-M, M], M the input's greatest minus least
   position (two of its positions differ by any such stride of a solution),
   the offset the position of the first element. Only for results with at
   most two such axes; a cross-check of reshape_exists on a sample. */
static long stat_search;
static bool reshape_search(const nx_layout *l, const model *r) {
  int64_t least, greatest;
  if (!m_span(l, &least, &greatest)) return true;
  int64_t mm = greatest - least;
  int ax[2], na = 0;
  for (int k = 0; k < r->rank; k++)
    if (r->ext[k] >= 2) ax[na++] = k;
  nx_layout c = {0};
  c.rank = r->rank;
  for (int k = 0; k < r->rank; k++) c.extent[k] = r->ext[k];
  int64_t i[NX_MAX_RANK], j[NX_MAX_RANK];
  m_unravel(l->extent, l->rank, 0, i);
  c.offset = m_pos(l, i);
  int64_t hi0 = na > 0 ? mm : 0, hi1 = na > 1 ? mm : 0;
  for (int64_t s0 = -hi0; s0 <= hi0; s0++)
    for (int64_t s1 = -hi1; s1 <= hi1; s1++) {
      if (na > 0) c.stride[ax[0]] = s0;
      if (na > 1) c.stride[ax[1]] = s1;
      bool all = true;
      memset(j, 0, sizeof j);
      do {
        m_unravel(l->extent, l->rank, m_crank(r->ext, r->rank, j), i);
        all = m_pos(&c, j) == m_pos(l, i);
      } while (all && idx_next(r->ext, r->rank, j));
      if (all) return true;
    }
  return false;
}

/* ---- Random movements ---------------------------------------------------- */

static int64_t rand_bound(int64_t e) {
  int x = (int)rng_in(0, 99);
  if (x < 25) return NX_SLICE_NONE;
  if (x < 28) return INT64_MAX;
  if (x < 31) return INT64_MIN + 1;
  return rng_in(-e - 3, e + 3);
}


static void rand_reshape(const nx_layout *l, nx_move *m) {
  int64_t count = m_lcount(l);
  int x = (int)rng_in(0, 99);
  m->n = (int)rng_in(0, 5);
  if (x < 70) {
    /* A factorization of the count, with 1s, sometimes one extent -1. */
    for (int k = 0; k < m->n; k++) m->a[k] = 1;
    if (count == 0) {
      if (m->n == 0) m->n = 1;
      for (int k = 0; k < m->n; k++) m->a[k] = rng_in(0, 4);
      m->a[rng_in(0, m->n - 1)] = 0;
    } else if (m->n > 0) {
      int64_t c = count;
      for (int64_t p = 2; c > 1; p++)
        while (c % p == 0) {
          m->a[rng_in(0, m->n - 1)] *= p;
          c /= p;
        }
    }
    if (m->n > 0 && rng_pct(30)) m->a[rng_in(0, m->n - 1)] = -1;
  } else if (x < 90) {
    for (int k = 0; k < m->n; k++) m->a[k] = rng_in(0, 6);
    if (m->n > 0 && rng_pct(30)) m->a[rng_in(0, m->n - 1)] = -1;
  } else if (x < 95) {
    if (m->n < 2) m->n = 2;
    for (int k = 0; k < m->n; k++) m->a[k] = rng_in(0, 4);
    int p = (int)rng_in(0, m->n - 1), q = (int)rng_in(0, m->n - 2);
    if (q >= p) q++;
    m->a[p] = m->a[q] = -1;
  } else {
    if (m->n < 1) m->n = 1;
    for (int k = 0; k < m->n; k++) m->a[k] = rng_in(0, 4);
    m->a[rng_in(0, m->n - 1)] = rng_in(-5, -2);
  }
}

static void rand_move(const nx_layout *l, nx_move *m) {
  memset(m, 0, sizeof *m);
  int r = l->rank;
  const int64_t *e = l->extent;
  m->kind = (nx_move_kind)rng_in(0, 7);
  switch (m->kind) {
  case NX_MOVE_RESHAPE: rand_reshape(l, m); break;
  case NX_MOVE_PERMUTE: {
    m->n = r;
    for (int k = 0; k < r; k++) m->a[k] = k;
    for (int k = r - 1; k > 0; k--) {
      int q = (int)rng_in(0, k);
      int64_t t = m->a[k];
      m->a[k] = m->a[q];
      m->a[q] = t;
    }
    for (int k = 0; k < r; k++)
      if (rng_pct(30)) m->a[k] -= r;
    if (rng_pct(20)) {
      int how = (int)rng_in(0, 3);
      if (how == 0 && r >= 2) m->a[rng_in(0, r - 1)] = m->a[rng_in(0, r - 1)]; /* maybe a repeat */
      else if (how == 1 && r >= 1) m->n = r - 1;                                 /* a missing axis */
      else if (how == 2 && r >= 1) m->a[rng_in(0, r - 1)] = rng_pct(50) ? r : -r - 1;
      else m->a[m->n++] = rng_in(-r - 1, r); /* one too many */
    }
    break;
  }
  case NX_MOVE_EXPAND: {
    m->n = r + (int)rng_in(0, 2);
    if (r > 0 && rng_pct(8)) m->n = r - 1;
    int lead = m->n - r;
    for (int k = 0; k < m->n; k++) {
      int64_t in = k >= lead && k - lead < r ? e[k - lead] : 1;
      if (k < lead) m->a[k] = rng_in(0, 3);
      else if (in == 1) m->a[k] = rng_in(-1, 4);
      else m->a[k] = rng_pct(85) ? (rng_pct(50) ? -1 : in) : rng_in(0, 4);
    }
    if (m->n > 0 && rng_pct(4)) m->a[rng_in(0, m->n - 1)] = -2;
    break;
  }
  case NX_MOVE_SHRINK:
    m->n = r;
    if (rng_pct(5)) m->n = r + (rng_pct(50) ? 1 : -1);
    if (m->n < 0) m->n = 0;
    for (int k = 0; k < m->n; k++) {
      int64_t ek = k < r ? e[k] : 2;
      if (rng_pct(88)) {
        m->a[k] = rng_in(0, ek);
        m->b[k] = rng_in(m->a[k], ek);
      } else {
        m->a[k] = rng_in(-1, ek + 1);
        m->b[k] = rng_in(-1, ek + 1);
      }
    }
    break;
  case NX_MOVE_SLICE:
    m->n = r ? (int)rng_in(0, r) : 0;
    if (rng_pct(4)) m->n = r + 1;
    for (int k = 0; k < m->n; k++) {
      int64_t ek = k < r ? e[k] : 2;
      m->a[k] = rand_bound(ek);
      m->b[k] = rand_bound(ek);
      m->c[k] = rng_pct(4) ? 0 : rng_pct(50) ? rng_in(1, 5) : rng_in(-5, -1);
    }
    break;
  case NX_MOVE_FLIP: {
    bool used[NX_MAX_RANK] = {0};
    int want = r ? (int)rng_in(0, r) : 0;
    for (int k = 0; k < want; k++) {
      int a = (int)rng_in(0, r - 1);
      if (used[a]) continue;
      used[a] = true;
      m->a[m->n++] = rng_pct(40) ? a - r : a;
    }
    if (rng_pct(10)) {
      if (m->n > 0 && rng_pct(50)) m->a[m->n] = m->a[0] >= 0 ? m->a[0] - r : m->a[0] + r; /* twice */
      else m->a[m->n] = rng_pct(50) ? r : -r - 1;                                          /* out of range */
      m->n++;
    }
    break;
  }
  case NX_MOVE_SQUEEZE:
    if (rng_pct(30)) {
      m->n = -1;
      break;
    }
    for (int k = 0; k < r; k++)
      if (e[k] == 1 ? rng_pct(70) : rng_pct(5)) m->a[m->n++] = k;
    if (rng_pct(8)) {
      m->a[m->n] = m->n > 0 && rng_pct(50) ? m->a[0] : r; /* twice, or out of range */
      m->n++;
    }
    break;
  case NX_MOVE_UNSQUEEZE:
    m->n = 1;
    m->a[0] = rng_pct(8) ? (rng_pct(50) ? r + 1 : -r - 2) : rng_in(-r - 1, r);
    break;
  }
}

/* m built by its constructor from the parts in spec. */
static int construct(const nx_move *spec, nx_move *m) {
  int order[NX_MAX_RANK];
  int n = spec->n < 0 ? 0 : spec->n;
  for (int k = 0; k < n && k < NX_MAX_RANK; k++) order[k] = (int)spec->a[k];
  switch (spec->kind) {
  case NX_MOVE_RESHAPE: return nx_move_reshape(m, spec->a, spec->n);
  case NX_MOVE_PERMUTE: return nx_move_permute(m, order, spec->n);
  case NX_MOVE_EXPAND: return nx_move_expand(m, spec->a, spec->n);
  case NX_MOVE_SHRINK: return nx_move_shrink(m, spec->a, spec->b, spec->n);
  case NX_MOVE_SLICE: return nx_move_slice(m, spec->a, spec->b, spec->c, spec->n);
  case NX_MOVE_FLIP: return nx_move_flip(m, order, spec->n);
  case NX_MOVE_SQUEEZE: return spec->n == -1 ? nx_move_squeeze_all(m) : nx_move_squeeze(m, order, spec->n);
  case NX_MOVE_UNSQUEEZE: return nx_move_unsqueeze(m, (int)spec->a[0]);
  }
  return -99;
}

/* Applies spec to l through nx_move_shape and nx_layout_move and checks both
   against the model. Returns 0 with *out the result, else nonzero. */
static int check_move(const nx_layout *l, const nx_move *spec, nx_layout *out) {
  sbuf lb = {0}, mb = {0};
  sb_layout(&lb, l);
  sb_move(&mb, spec);
  model r;
  bool fits = model_shape(spec, l, &r);

  nx_move m;
  int st = construct(spec, &m);
  stat_ctor++;
  CHECK(st == 0, "constructing %s: status %d (%s); constructors check only n and pointers", mb.s, st, nx_error_message());
  if (st != 0) return -1;

  int64_t shp[NX_MAX_RANK];
  for (int k = 0; k < NX_MAX_RANK; k++) shp[k] = -77;
  int srank = -77;
  st = nx_move_shape(&m, l->extent, l->rank, shp, &srank);
  if (!fits) {
    bool untouched = srank == -77;
    for (int k = 0; k < NX_MAX_RANK; k++) untouched = untouched && shp[k] == -77;
    CHECK(st == NX_EINVAL && untouched, "nx_move_shape(%s) on %s: status %d (rank %d), want NX_EINVAL, out untouched", mb.s, lb.s, st, srank);
    CHECK(st != NX_EINVAL || names("nx_move_shape"), "nx_move_shape(%s) on %s: message \"%s\" does not name nx_move_shape", mb.s, lb.s, nx_error_message());
  } else {
    bool same = st == 0 && srank == r.rank;
    for (int k = 0; same && k < r.rank; k++) same = shp[k] == r.ext[k];
    sbuf want = {0}, got = {0};
    sb_arr(&want, r.ext, r.rank);
    sb_arr(&got, shp, srank >= 0 && srank <= NX_MAX_RANK ? srank : 0);
    CHECK(same, "nx_move_shape(%s) on %s: status %d shape %s (rank %d), want %s (%s)", mb.s, lb.s, st, got.s, srank, want.s, nx_error_message());
  }

  nx_layout res, sentinel;
  memset(&res, 0xA5, sizeof res);
  memcpy(&sentinel, &res, sizeof res);
  st = nx_layout_move(&m, l, &res);
  if (!fits) {
    stat_move[spec->kind][OUT_REFUSED]++;
    CHECK(st == NX_EINVAL && memcmp(&res, &sentinel, sizeof res) == 0, "nx_layout_move(%s) on %s: status %d, want NX_EINVAL, out untouched", mb.s, lb.s, st);
    CHECK(st != NX_EINVAL || names("nx_layout_move"), "nx_layout_move(%s) on %s: message \"%s\" does not name nx_layout_move", mb.s, lb.s, nx_error_message());
    return -1;
  }
  if (spec->kind == NX_MOVE_RESHAPE && m_lcount(l) > 0 && rng_pct(40)) {
    int big = 0;
    for (int k = 0; k < r.rank; k++) big += r.ext[k] >= 2;
    if (big <= 2) {
      stat_search++;
      CHECK(reshape_search(l, &r) == reshape_exists(l, &r), "the model: %s on %s: the stride search and the forced strides disagree", mb.s, lb.s);
    }
  }
  if (spec->kind == NX_MOVE_RESHAPE && !reshape_exists(l, &r)) {
    stat_move[spec->kind][OUT_NONE]++;
    sbuf g = {0};
    if (st == 0) sb_layout(&g, &res);
    CHECK(st == NX_NONE && memcmp(&res, &sentinel, sizeof res) == 0, "nx_layout_move(%s) on %s: status %d%s%s, want None (no strided layout reaches the elements in C order), out untouched", mb.s, lb.s, st, st == 0 ? ", gave " : "", g.s);
    return 1;
  }
  stat_move[spec->kind][OUT_OK]++;
  CHECK(st == 0, "nx_layout_move(%s) on %s: status %d (%s), want a layout", mb.s, lb.s, st, st < 0 ? nx_error_message() : "None");
  if (st != 0) return -1;
  sbuf rb = {0};
  sb_layout(&rb, &res);
  bool shape = res.rank == r.rank;
  for (int k = 0; shape && k < r.rank; k++) shape = res.extent[k] == r.ext[k];
  sbuf want = {0};
  sb_arr(&want, r.ext, r.rank);
  CHECK(shape, "nx_layout_move(%s) on %s gave %s, want extents %s", mb.s, lb.s, rb.s, want.s);
  if (!shape) return -1;
  if (spec->kind == NX_MOVE_SLICE && m_lcount(&res) == 0) stat_slice_empty++;
  int64_t j[NX_MAX_RANK] = {0}, i[NX_MAX_RANK];
  if (m_lcount(&res) > 0) do {
      model_source(spec, l, &r, j, i);
      int64_t got = m_pos(&res, j), exp = m_pos(l, i);
      if (got != exp) {
        sbuf jb = {0}, ib = {0};
        sb_arr(&jb, j, r.rank);
        sb_arr(&ib, i, l->rank);
        CHECK(got == exp, "nx_layout_move(%s) on %s gave %s: output index %s at position %" PRId64 ", but it is input index %s at %" PRId64, mb.s, lb.s, rb.s, jb.s, got, ib.s, exp);
        return -1;
      }
    } while (idx_next(res.extent, res.rank, j));
  *out = res;
  return 0;
}

/* ---- Bitcast ------------------------------------------------------------- */

static const int cast_widths[] = {1, 4, 8, 16, 32, 64, 128};

static void check_bitcast_one(const nx_layout *l, int from, int to) {
  sbuf lb = {0};
  sb_layout(&lb, l);
  nx_layout res, sentinel;
  memset(&res, 0xA5, sizeof res);
  memcpy(&sentinel, &res, sizeof res);
  int st = nx_layout_bitcast(l, from, to, &res);
  sbuf rb = {0};
  if (st == 0) sb_layout(&rb, &res);
  int64_t count = m_lcount(l);
  if (from == to) {
    stat_bitcast[0]++;
    CHECK(st == 0 && memcmp(&res.extent, l->extent, sizeof(int64_t) * (size_t)l->rank) == 0 && res.rank == l->rank && res.offset == l->offset && memcmp(&res.stride, l->stride, sizeof(int64_t) * (size_t)l->rank) == 0,
          "bitcast %s %d -> %d: status %d gave %s, want the same layout", lb.s, from, to, st, rb.s);
    return;
  }
  if (from > to) {
    int64_t q = from / to;
    if (l->rank == NX_MAX_RANK) return; /* refusals test */
    stat_bitcast[0]++;
    bool ok = st == 0 && res.rank == l->rank + 1 && res.offset == l->offset * q && res.extent[l->rank] == q && res.stride[l->rank] == 1;
    for (int k = 0; ok && k < l->rank; k++) ok = res.extent[k] == l->extent[k] && res.stride[k] == l->stride[k] * q;
    CHECK(ok, "bitcast %s %d -> %d (narrower by %" PRId64 "): status %d gave %s", lb.s, from, to, q, st, rb.s);
    if (!ok || count == 0) return;
    /* Bits: output element (j, t) holds bits [p(j)*from + t*to, +to). */
    int64_t j[NX_MAX_RANK] = {0};
    do {
      if (m_pos(&res, j) * to != m_pos(l, j) * from + j[l->rank] * to) {
        CHECK(false, "bitcast %s %d -> %d gave %s: an element not on its bits", lb.s, from, to, rb.s);
        return;
      }
    } while (idx_next(res.extent, res.rank, j));
    return;
  }
  int64_t q = to / from;
  int last = l->rank - 1;
  bool axis = l->rank >= 1 && l->extent[last] == q;
  bool can = axis;
  if (count > 0 && can) {
    can = l->stride[last] == 1 && floor_mod(l->offset, q) == 0;
    for (int k = 0; can && k < last; k++) can = floor_mod(l->stride[k], q) == 0;
  }
  if (!can) {
    stat_bitcast[1]++;
    CHECK(st == NX_NONE && memcmp(&res, &sentinel, sizeof res) == 0, "bitcast %s %d -> %d (wider by %" PRId64 "): status %d, want None, out untouched%s%s", lb.s, from, to, q, st, st == 0 ? "; gave " : "", rb.s);
    return;
  }
  stat_bitcast[2]++;
  bool ok = st == 0 && res.rank == last;
  for (int k = 0; ok && k < last; k++) ok = res.extent[k] == l->extent[k] && (floor_mod(l->stride[k], q) != 0 || res.stride[k] == l->stride[k] / q);
  if (count > 0) ok = ok && res.offset == l->offset / q;
  else ok = ok && res.offset == floor_div(l->offset, q);
  CHECK(ok, "bitcast %s %d -> %d (wider by %" PRId64 "): status %d gave %s", lb.s, from, to, q, st, rb.s);
  if (!ok || count == 0) return;
  int64_t j[NX_MAX_RANK] = {0};
  do {
    if (m_pos(&res, j) * to != m_pos(l, j) * from) { /* j[last] is 0: the first of the q */
        CHECK(false, "bitcast %s %d -> %d gave %s: an element not on its bits", lb.s, from, to, rb.s);
        return;
      }
    } while (idx_next(res.extent, res.rank, j));
}

static void check_bitcast(const nx_layout *l) {
  int from = cast_widths[rng_in(0, 6)], to = cast_widths[rng_in(0, 6)];
  check_bitcast_one(l, from, to);
  /* A layout that widening might take: l narrowed by hand, sometimes
     spoiled; and the round trip of a narrowing. */
  if (l->rank < NX_MAX_RANK && rng_pct(50)) {
    int a = (int)rng_in(0, 5), b = (int)rng_in(a + 1, 6);
    int64_t q = cast_widths[b] / cast_widths[a];
    if (q <= 16) {
      nx_layout n = *l;
      n.extent[n.rank] = q;
      n.stride[n.rank] = 1;
      for (int k = 0; k < n.rank; k++) n.stride[k] *= q;
      n.offset *= q;
      n.rank++;
      int spoil = (int)rng_in(0, 9);
      if (spoil == 0) n.offset += rng_in(1, q - 1);
      else if (spoil == 1 && n.rank > 1) n.stride[rng_in(0, n.rank - 2)] += rng_pct(50) ? 1 : -1;
      else if (spoil == 2) n.stride[n.rank - 1] = rng_pct(50) ? 2 : -1;
      else if (spoil == 3) n.extent[n.rank - 1] = q + (rng_pct(50) ? 1 : -1);
      check_bitcast_one(&n, cast_widths[a], cast_widths[b]);
      if (spoil > 3) {
        nx_layout narrow, back;
        int s1 = nx_layout_bitcast(l, cast_widths[b], cast_widths[a], &narrow);
        int s2 = s1 == 0 ? nx_layout_bitcast(&narrow, cast_widths[a], cast_widths[b], &back) : -99;
        bool same = s2 == 0 && back.rank == l->rank && back.offset == l->offset;
        for (int k = 0; same && k < l->rank; k++) same = back.extent[k] == l->extent[k] && back.stride[k] == l->stride[k];
        sbuf lb = {0};
        sb_layout(&lb, l);
        CHECK(same, "bitcast %s %d -> %d -> %d: statuses %d %d, not the same layout back", lb.s, cast_widths[b], cast_widths[a], cast_widths[b], s1, s2);
      }
    }
  }
}

/* ---- The copy layout ----------------------------------------------------- */

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

static void check_copy(const nx_layout *l, int w) {
  sbuf lb = {0};
  sb_layout(&lb, l);
  nx_layout res;
  memset(&res, 0xA5, sizeof res);
  int st = nx_layout_copy(l, w, &res);
  int64_t bytes = nx_layout_copy_bytes(l, w);
  CHECK(st == 0, "copy of %s width %d: status %d (%s)", lb.s, w, st, nx_error_message());
  if (st != 0) return;
  sbuf rb = {0};
  sb_layout(&rb, &res);

  int64_t count = m_lcount(l), dense = count ? 1 : 0;
  for (int k = 0; k < l->rank; k++)
    if (l->stride[k] != 0) dense *= l->extent[k];
  int64_t dense_bytes = ceil_div_pos(dense * w, 8);
  int64_t least = 0, greatest = 0;
  bool first = false;
  if (m_span(l, &least, &greatest)) {
    int64_t span_bytes = floor_div((greatest + 1) * w - 1, 8) - floor_div(least * w, 8) + 1;
    first = span_bytes <= dense_bytes;
  }
  nx_layout want = *l;
  if (first) {
    want.offset = l->offset - floor_div(least * w, 8) * 8 / w;
  } else {
    /* Axes by decreasing |stride|, ties in axis order. */
    int order[NX_MAX_RANK];
    for (int k = 0; k < l->rank; k++) order[k] = k;
    for (int k = 1; k < l->rank; k++)
      for (int q = k; q > 0 && abs64(l->stride[order[q - 1]]) < abs64(l->stride[order[q]]); q--) {
        int t = order[q];
        order[q] = order[q - 1];
        order[q - 1] = t;
      }
    int64_t prod = 1;
    for (int q = l->rank - 1; q >= 0; q--) {
      int a = order[q];
      if (l->stride[a] == 0) want.stride[a] = 0;
      else {
        want.stride[a] = l->stride[a] < 0 ? -prod : prod;
        prod *= l->extent[a];
      }
    }
    want.offset = 0;
    for (int k = 0; k < l->rank; k++)
      if (want.stride[k] < 0 && l->extent[k] > 0) want.offset -= want.stride[k] * (l->extent[k] - 1);
  }
  stat_copy_form[first ? 0 : 1]++;
  bool same = res.rank == want.rank && (count == 0 || res.offset == want.offset);
  for (int k = 0; same && k < l->rank; k++) same = res.extent[k] == want.extent[k] && res.stride[k] == want.stride[k];
  sbuf wb = {0};
  sb_layout(&wb, &want);
  if (!same && count == 0 && res.rank == want.rank) {
    sbuf t = {0};
    sb_printf(&t, "copy of %s width %d gave %s, literal rule %s", lb.s, w, rb.s, wb.s);
    note(1, t.s);
  } else {
    CHECK(same, "copy of %s width %d (%s form%s): gave %s, want %s", lb.s, w, first ? "shifted" : "dense", count ? "" : ", no element: offset not compared", rb.s, wb.s);
  }

  /* The buffer: copy_bytes holds every element of the copy, from byte 0. */
  int64_t clo, chi;
  if (m_span(&res, &clo, &chi)) {
    CHECK(clo >= 0 && (chi + 1) * w <= bytes * 8, "copy of %s width %d gave %s, bytes %" PRId64 ": elements outside the buffer", lb.s, w, rb.s, bytes);
    CHECK(bytes == ceil_div_pos((chi + 1) * w, 8), "copy_bytes of %s width %d: %" PRId64 ", want %" PRId64 " (the bytes the copy %s reaches from byte 0)", lb.s, w, bytes, ceil_div_pos((chi + 1) * w, 8), rb.s);
    CHECK(bytes <= dense_bytes, "copy_bytes of %s width %d: %" PRId64 ", more than a dense copy's %" PRId64, lb.s, w, bytes, dense_bytes);
  } else {
    CHECK(bytes == 0, "copy_bytes of %s width %d (no element): %" PRId64, lb.s, w, bytes);
  }
  if (bf_distinct(l)) CHECK(bf_distinct(&res), "copy of distinct %s width %d gave %s, which repeats an element", lb.s, w, rb.s);
}

/* ---- Pairs: shares a byte, identical ------------------------------------- */

static const int share_widths[] = {1, 4, 8, 16, 32};

static void check_shares(const nx_layout *a, const nx_layout *b) {
  int wa = share_widths[rng_in(0, 4)], wb = rng_pct(50) ? wa : share_widths[rng_in(0, 4)];
  bool s = bf_shares_byte(a, wa, b, wb);
  stat_shares[s]++;
  bool g = nx_layout_shares_byte(a, wa, b, wb);
  if (g != s) {
    sbuf x = {0}, y = {0};
    sb_layout(&x, a);
    sb_layout(&y, b);
    CHECK(g == s, "shares_byte(%s width %d, %s width %d): %d, want %d%s", x.s, wa, y.s, wb, g, s, s ? " (WRONG: they share a byte)" : " (a conservative answer on small layouts)");
  }
  bool g2 = nx_layout_shares_byte(b, wb, a, wa);
  CHECK(g2 == g, "shares_byte is not symmetric");
}

static void check_identical(const nx_layout *a) {
  nx_layout b = *a;
  int wa = share_widths[rng_in(0, 4)], wb = wa;
  switch (rng_in(0, 7)) {
  case 0: break;
  case 1: /* an axis of extent 1 (or any, when no element) restrided */
    if (b.rank) b.stride[rng_in(0, b.rank - 1)] += rng_in(-3, 3);
    break;
  case 2: b.offset += rng_in(-2, 2); break;
  case 3: wb = share_widths[rng_in(0, 4)]; break;
  case 4:
    if (b.rank) b.extent[rng_in(0, b.rank - 1)] = rand_extent();
    break;
  case 5:
    if (b.rank < NX_MAX_RANK) {
      b.extent[b.rank] = 1;
      b.stride[b.rank] = 0;
      b.rank++;
    }
    break;
  default: rand_layout(&b); break;
  }
  bool s = bf_identical(a, wa, &b, wb);
  stat_identical[s]++;
  bool g = nx_layout_identical(a, wa, &b, wb);
  if (g != s) {
    sbuf x = {0}, y = {0};
    sb_layout(&x, a);
    sb_layout(&y, &b);
    CHECK(g == s, "identical(%s width %d, %s width %d): %d, want %d", x.s, wa, y.s, wb, g, s);
  }
}

/* ---- Main ---------------------------------------------------------------- */

/* One case: a random layout, its facts, a random movement sequence, and
   bitcast, copy, sharing and identity on what it gives. The fuzzer of
   movements (tests/fuzz) runs it with its input as the random source. */
static long moves, seqs_long;
static void one_case(void) {
  stat_cases++;
  nx_layout l, cur, next;
  rand_layout(&l);
  check_facts(&l);
  cur = l;
  int nm = (int)rng_in(1, 4), done = 0;
  for (int k = 0; k < nm; k++) {
    nx_move spec;
    rand_move(&cur, &spec);
    moves++;
    if (check_move(&cur, &spec, &next) != 0) break;
    cur = next;
    done++;
    check_facts(&cur);
  }
  if (done >= 2) seqs_long++;
  check_bitcast(&l);
  check_copy(&l, bit_widths[rng_in(0, 6)]);
  if (done) check_copy(&cur, bit_widths[rng_in(0, 6)]);
  /* Pairs: a random other layout, the moved layout over the same memory,
     and l shifted by a few positions. */
  nx_layout o;
  rand_layout(&o);
  check_shares(&l, &o);
  check_shares(&l, &cur);
  nx_layout sh = l;
  sh.offset += rng_in(-3, 3);
  check_shares(&l, &sh);
  check_identical(&l);
  check_identical(&cur);
}

int main(void) {
  long cases = 200000;
  const char *env = getenv("NX_LAYOUT_CASES");
  if (env && atol(env) > 0) cases = atol(env);
  rng_seed(0x5EED1A70u);
  clock_t t0 = clock();
  for (long c = 0; c < cases; c++) one_case();
  double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
  printf("%ld cases, %ld movements (%ld sequences of 2 or more applied), %ld constructed, %.2f s\n", stat_cases, moves, seqs_long, stat_ctor, secs);
  for (int k = 0; k < 8; k++)
    printf("  %-9s ok %7ld  None %6ld  refused %6ld\n", move_name((nx_move_kind)k), stat_move[k][OUT_OK], stat_move[k][OUT_NONE], stat_move[k][OUT_REFUSED]);
  printf("  empty slice results %ld; reshapes also decided by a stride search over [-M, M]: %ld\n", stat_slice_empty, stat_search);
  printf("  distinct %ld / repeats %ld; contiguous %ld / not %ld\n", stat_distinct[1], stat_distinct[0], stat_contig[1], stat_contig[0]);
  printf("  shares a byte %ld / not %ld; identical %ld / not %ld\n", stat_shares[1], stat_shares[0], stat_identical[1], stat_identical[0]);
  printf("  bitcast same-or-narrower %ld, wider None %ld, wider ok %ld; copy shifted %ld, dense %ld\n", stat_bitcast[0], stat_bitcast[1], stat_bitcast[2], stat_copy_form[0], stat_copy_form[1]);
  for (int k = 0; k < 2; k++)
    if (note_count[k]) printf("  note: %ld cases of %s differing from the literal rule\n", note_count[k], note_what[k]);
  return check_done();
}
