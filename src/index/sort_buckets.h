/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to sort: a long line of 32-bit keys (or of 64-bit argsort items,
   the key above the index) ordered by one stable scatter into buckets of
   consecutive key ranges, drawn from a count of the keys' top 16 bits so
   that each bucket fits the caches, then each bucket sorted there by a
   least-significant-digit radix of as many passes as its key range needs
   and written out once. */
#ifndef NX_INDEX_SORT_BUCKETS_H
#define NX_INDEX_SORT_BUCKETS_H

#include <stdbool.h>
#include <stdint.h>

enum {
  NX__BK_MIN = 65536, /* lines shorter are sorted in the caches whole */
  NX__BK_SLICES = 4,  /* at most, of the scatter's parallel slices */
  NX__BK_TOP = 65536  /* counters of a slice: one per value of key >> 16 */
};

/* Where the sorted line goes. */
typedef enum nx__bk_out {
  NX__BK_VALUES, /* decoded into zv: nx__fbits32 for floats, else key ^ xr */
  NX__BK_INDEX,  /* each item's index into zi[i * zs] */
  NX__BK_EMIT    /* sorted words handed to emit, a bucket at a time */
} nx__bk_out;

typedef struct nx__bk {
  int64_t n;
  bool items;      /* 64-bit words: key << 32 | index; else 32-bit keys */
  void *a, *b;     /* a: the n words; b: n words, scratch or zv itself */
  bool a_scratch;  /* a may serve as scratch once scattered (it is not zv) */
  /* Where a is NULL: the keys are made again from the float32 elements
     xf[i * xs] as the scatter reads them (they do not overlap b) */
  const uint32_t *xf;
  int64_t xs;
  /* hist[s * NX__BK_TOP + (key >> 16)]: the counts of slice s, the words
     [s * n / slices, (s + 1) * n / slices) */
  const uint32_t *hist;
  int slices;
  nx__bk_out out;
  uint32_t *zv; /* VALUES: n elements, contiguous (may be a) */
  bool fl, desc;
  uint32_t xr;
  int32_t *zi; /* INDEX */
  int64_t zs;
  void (*emit)(void *ctx, const void *words, int64_t at, int64_t len); /* EMIT */
  void *ctx;
  bool serial_emit; /* emit writes bytes it shares with its neighbours (sub-byte z) */
  int status; /* NX_ENOMEM when a task found no scratch */
} nx__bk;

/* Sorts p's line, stable (items by key, then by their order in a), and
   writes it out as p->out says. Returns 0, or NX_ENOMEM (also left in
   p->status) when scratch could not be had; the output is then
   unspecified. */
int nx__bk_sort(nx__bk *p);

#endif
