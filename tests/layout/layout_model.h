/* SPDX-License-Identifier: Apache-2.0 */
/* layout_model.h: what the layout tests share. A fixed-seed PRNG
   (splitmix64), an index odometer, positions computed by hand, printing of
   layouts and movements, and brute-force answers to the questions
   nx_layout.h answers (distinct, shares a byte, identical, contiguous), all
   by enumerating every index. Nothing here calls the library, so the model
   is independent of the code under test. Sizes are small: every function
   here assumes positions, bit numbers and counts far from int64 limits. */
#ifndef NX_TESTS_LAYOUT_MODEL_H
#define NX_TESTS_LAYOUT_MODEL_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"
#include "nx_layout.h"

/* ---- splitmix64 ---------------------------------------------------------- */

static uint64_t rng_state = 0x243F6A8885A308D3u;

static inline void rng_seed(uint64_t s) { rng_state = s; }

/* A fuzzer defines LAYOUT_MODEL_RNG to draw the cases from its input. */
#ifdef LAYOUT_MODEL_RNG
uint64_t LAYOUT_MODEL_RNG(void);
static inline uint64_t rng_u64(void) { return LAYOUT_MODEL_RNG(); }
#else
static inline uint64_t rng_u64(void) {
  return splitmix64_next(&rng_state);
}
#endif

/* Uniform in [lo, hi], both included (hi - lo small). */
static inline int64_t rng_in(int64_t lo, int64_t hi) {
  return lo + (int64_t)(rng_u64() % (uint64_t)(hi - lo + 1));
}

/* True with probability pct/100. */
static inline bool rng_pct(int pct) { return (int)(rng_u64() % 100) < pct; }

/* ---- Arithmetic ----------------------------------------------------------- */

/* floor(a / b) for b > 0. */
static inline int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && a < 0) q--;
  return q;
}

/* a mod b in [0, b) for b > 0. */
static inline int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

static inline int64_t ceil_div_pos(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

/* ---- Indices and positions ----------------------------------------------- */

static inline int64_t m_count(const int64_t *ext, int rank) {
  int64_t c = 1;
  for (int k = 0; k < rank; k++) c *= ext[k];
  return c;
}

static inline int64_t m_lcount(const nx_layout *l) { return m_count(l->extent, l->rank); }

/* The next index in C order; false after the last (idx back at zeros). */
static inline bool idx_next(const int64_t *ext, int rank, int64_t *idx) {
  for (int k = rank - 1; k >= 0; k--) {
    if (++idx[k] < ext[k]) return true;
    idx[k] = 0;
  }
  return false;
}

static inline int64_t m_pos(const nx_layout *l, const int64_t *idx) {
  int64_t p = l->offset;
  for (int k = 0; k < l->rank; k++) p += l->stride[k] * idx[k];
  return p;
}

/* The C-order rank of idx in a shape. */
static inline int64_t m_crank(const int64_t *ext, int rank, const int64_t *idx) {
  int64_t r = 0;
  for (int k = 0; k < rank; k++) r = r * ext[k] + idx[k];
  return r;
}

/* The index of C-order rank r. */
static inline void m_unravel(const int64_t *ext, int rank, int64_t r, int64_t *idx) {
  for (int k = rank - 1; k >= 0; k--) {
    idx[k] = ext[k] ? r % ext[k] : 0;
    r = ext[k] ? r / ext[k] : 0;
  }
}

/* Every position of l in C order of its indices into pos (room for
   m_lcount(l)); returns the count. */
static inline int64_t m_positions(const nx_layout *l, int64_t *pos) {
  int64_t n = m_lcount(l), idx[NX_MAX_RANK] = {0};
  if (n == 0) return 0;
  int64_t i = 0;
  do pos[i++] = m_pos(l, idx);
  while (idx_next(l->extent, l->rank, idx));
  return n;
}

static inline bool m_span(const nx_layout *l, int64_t *least, int64_t *greatest) {
  int64_t n = m_lcount(l), idx[NX_MAX_RANK] = {0};
  if (n == 0) return false;
  *least = INT64_MAX;
  *greatest = INT64_MIN;
  do {
    int64_t p = m_pos(l, idx);
    if (p < *least) *least = p;
    if (p > *greatest) *greatest = p;
  } while (idx_next(l->extent, l->rank, idx));
  return true;
}

static inline int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* ---- Brute-force answers ------------------------------------------------- */

/* No two indices share a position. */
static inline bool bf_distinct(const nx_layout *l) {
  int64_t n = m_lcount(l);
  if (n <= 1) return true;
  int64_t *pos = malloc((size_t)n * sizeof *pos);
  if (!pos) abort();
  m_positions(l, pos);
  qsort(pos, (size_t)n, sizeof *pos, cmp_i64);
  bool d = true;
  for (int64_t i = 1; i < n && d; i++) d = pos[i] != pos[i - 1];
  free(pos);
  return d;
}

/* Every index at offset plus its C-order rank. */
static inline bool bf_contiguous(const nx_layout *l) {
  int64_t idx[NX_MAX_RANK] = {0};
  if (m_lcount(l) == 0) return true;
  do
    if (m_pos(l, idx) != l->offset + m_crank(l->extent, l->rank, idx)) return false;
  while (idx_next(l->extent, l->rank, idx));
  return true;
}

/* The byte range [*b0, *b1] (inclusive) that the element at position p,
   w bits wide, touches: bits [p*w, (p+1)*w). */
static inline void elem_bytes(int64_t p, int w, int64_t *b0, int64_t *b1) {
  *b0 = floor_div(p * w, 8);
  *b1 = floor_div((p + 1) * w - 1, 8);
}

typedef struct {
  int64_t lo, hi;
} byte_range;

static inline int cmp_range(const void *a, const void *b) {
  const byte_range *x = a, *y = b;
  return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The bytes l's elements of width w touch, as sorted disjoint inclusive
   ranges (malloc'd; *n ranges). */
static inline byte_range *bf_bytes(const nx_layout *l, int w, int64_t *n) {
  int64_t c = m_lcount(l), idx[NX_MAX_RANK] = {0}, k = 0;
  byte_range *r = malloc((size_t)(c ? c : 1) * sizeof *r);
  if (!r) abort();
  if (c) {
    do {
      elem_bytes(m_pos(l, idx), w, &r[k].lo, &r[k].hi);
      k++;
    } while (idx_next(l->extent, l->rank, idx));
    qsort(r, (size_t)c, sizeof *r, cmp_range);
    int64_t m = 0;
    for (int64_t i = 0; i < c; i++) {
      if (m > 0 && r[i].lo <= r[m - 1].hi + 1) {
        if (r[i].hi > r[m - 1].hi) r[m - 1].hi = r[i].hi;
      } else {
        r[m++] = r[i];
      }
    }
    k = m;
  }
  *n = k;
  return r;
}

/* Some byte holds bits of an element of a and of an element of b. */
static inline bool bf_shares_byte(const nx_layout *a, int wa, const nx_layout *b, int wb) {
  int64_t na, nb;
  byte_range *ra = bf_bytes(a, wa, &na), *rb = bf_bytes(b, wb, &nb);
  bool s = false;
  for (int64_t i = 0, j = 0; i < na && j < nb && !s;) {
    if (ra[i].hi < rb[j].lo) i++;
    else if (rb[j].hi < ra[i].lo) j++;
    else s = true;
  }
  free(ra);
  free(rb);
  return s;
}

/* One width, the same extents, and every index at the same position (or no
   element). */
static inline bool bf_identical(const nx_layout *a, int wa, const nx_layout *b, int wb) {
  if (wa != wb || a->rank != b->rank) return false;
  for (int k = 0; k < a->rank; k++)
    if (a->extent[k] != b->extent[k]) return false;
  int64_t idx[NX_MAX_RANK] = {0};
  if (m_lcount(a) == 0) return true;
  do
    if (m_pos(a, idx) != m_pos(b, idx)) return false;
  while (idx_next(a->extent, a->rank, idx));
  return true;
}

/* ---- Printing ------------------------------------------------------------ */

typedef struct {
  char s[2048];
  size_t n;
} sbuf;

static inline void sb_printf(sbuf *b, const char *fmt, ...) {
  if (b->n >= sizeof b->s) return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
  va_end(ap);
  if (k > 0) b->n += (size_t)k;
  if (b->n >= sizeof b->s) b->n = sizeof b->s - 1;
}

static inline void sb_i64(sbuf *b, int64_t v) {
  if (v == NX_SLICE_NONE) sb_printf(b, "None");
  else if (v == INT64_MAX) sb_printf(b, "INT64_MAX");
  else sb_printf(b, "%" PRId64, v);
}

static inline void sb_arr(sbuf *b, const int64_t *v, int n) {
  sb_printf(b, "[");
  for (int k = 0; k < n; k++) {
    if (k) sb_printf(b, ", ");
    sb_i64(b, v[k]);
  }
  sb_printf(b, "]");
}

static inline void sb_layout(sbuf *b, const nx_layout *l) {
  if (l->rank < 0 || l->rank > NX_MAX_RANK) {
    sb_printf(b, "{rank %d (bad)}", l->rank);
    return;
  }
  sb_printf(b, "{rank %d, extents ", l->rank);
  sb_arr(b, l->extent, l->rank);
  sb_printf(b, ", strides ");
  sb_arr(b, l->stride, l->rank);
  sb_printf(b, ", offset %" PRId64 "}", l->offset);
}

static inline const char *move_name(nx_move_kind k) {
  switch (k) {
  case NX_MOVE_RESHAPE: return "reshape";
  case NX_MOVE_PERMUTE: return "permute";
  case NX_MOVE_EXPAND: return "expand";
  case NX_MOVE_SHRINK: return "shrink";
  case NX_MOVE_SLICE: return "slice";
  case NX_MOVE_FLIP: return "flip";
  case NX_MOVE_SQUEEZE: return "squeeze";
  case NX_MOVE_UNSQUEEZE: return "unsqueeze";
  }
  return "?";
}

/* A movement as its constructor call would take it. */
static inline void sb_move(sbuf *b, const nx_move *m) {
  sb_printf(b, "%s(", move_name(m->kind));
  int n = m->n < 0 ? 0 : m->n > NX_MAX_RANK ? NX_MAX_RANK : m->n;
  switch (m->kind) {
  case NX_MOVE_SHRINK:
    sb_printf(b, "starts ");
    sb_arr(b, m->a, n);
    sb_printf(b, ", stops ");
    sb_arr(b, m->b, n);
    break;
  case NX_MOVE_SLICE:
    sb_printf(b, "starts ");
    sb_arr(b, m->a, n);
    sb_printf(b, ", stops ");
    sb_arr(b, m->b, n);
    sb_printf(b, ", steps ");
    sb_arr(b, m->c, n);
    break;
  case NX_MOVE_UNSQUEEZE: sb_printf(b, "axis %" PRId64, m->a[0]); break;
  case NX_MOVE_SQUEEZE:
    if (m->n == -1) {
      sb_printf(b, "all");
      break;
    }
    sb_arr(b, m->a, n);
    break;
  default: sb_arr(b, m->a, n); break;
  }
  sb_printf(b, ")");
}

/* Whether the last failure's message names fn. */
static inline bool names(const char *fn) {
  const char *m = nx_error_message();
  return m != NULL && strstr(m, fn) != NULL;
}

#endif
