/* SPDX-License-Identifier: Apache-2.0 */
/* The bucket sort of a long line of 32-bit keys (sort_buckets.h). The
   counts of the keys' top 16 bits (made while the keys were) are cut into
   runs of consecutive values holding about a bucket's worth of words each,
   so the buckets are key ranges in order and about equal whatever the
   keys' distribution (floats crowd a few exponents; a split by fixed top
   bits would leave most of them in a few parts). One stable scatter puts
   every word in its bucket, slices of the line in parallel, each bucket's
   words collected in a cache line of buffer per bucket and written a whole
   line at a time past the caches (the scatter's misses otherwise cost more
   than the sort's arithmetic); then each bucket, within the caches, is
   sorted by a least-significant-digit radix over the bits its key range
   spans (two passes for a bucket of one top value, three at most) whose
   last pass writes the output. So the line crosses memory about three
   times: the keys, the scatter, and the buckets read back and written
   out. */
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "nx_error.h"
#include "sort_buckets.h"
#include "sort_fill.h"
#include "sort_keys.h"
#include "../base/alloc.h"
#include "../kernels/engine.h"
#include "nx_kernels.h"

/* A bucket's target size in bytes: it and its scratch stay in L2. */
enum { TARGET = 64 << 10, SMALL = 32, MAX_BUCKETS = 1024 };

typedef struct plan {
  nx__bk *p;
  int nb;
  uint16_t *map;   /* NX__BK_TOP: the bucket of each top value */
  uint32_t *start; /* nb + 1 */
  uint32_t *off;   /* slices x nb: where slice s's first word of bucket d goes */
  uint16_t *lo16, *hi16;
  int64_t cap; /* the most words of a bucket of several top values */
} plan;

static void no_memory(nx__bk *p) { __atomic_store_n(&p->status, NX_ENOMEM, __ATOMIC_RELAXED); }

/* One cache line of buffer to its place in the destination, past the
   caches where the CPU can (the destination is read back only later). */
static inline void put_line(void *dst, const void *src) {
#if defined(__SSE2__)
  __m128i *d = dst;
  const __m128i *s = src;
  _mm_stream_si128(d, _mm_load_si128(s));
  _mm_stream_si128(d + 1, _mm_load_si128(s + 1));
  _mm_stream_si128(d + 2, _mm_load_si128(s + 2));
  _mm_stream_si128(d + 3, _mm_load_si128(s + 3));
#else
  memcpy(dst, src, 64);
#endif
}
static inline void fence(void) {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

enum { SBLOCK = 512 };

/* The scatter of slice s of the line (words W, LINE of them a cache line;
   FILL(i, e) the e words from word i on, read in place or made into kb):
   word i of bucket d goes to pos[d]++, through the bucket's line of
   buffer; a line is written whole when it lies within the slice's part of
   the bucket, elementwise at the part's two ends. */
#define DEFINE_SCATTER(name, W, LINE, KEY, FILL)                                               \
  static void name(void *vp, int64_t s0, int64_t s1) {                                         \
    const plan *pl = vp;                                                                       \
    nx__bk *p = pl->p;                                                                         \
    int nb = pl->nb;                                                                           \
    W *buf = nx__aligned_alloc(64, (size_t)nb * 64);                                           \
    uint32_t *pos = nx__malloc(sizeof *pos * (size_t)nb * 2);                                  \
    if (!buf || !pos) {                                                                        \
      no_memory(p);                                                                            \
      nx__free(buf), nx__free(pos);                                                            \
      return;                                                                                  \
    }                                                                                          \
    uint32_t *restrict at = pos, *restrict first = pos + nb, kb[SBLOCK];                       \
    W *restrict lines = buf, *restrict b = p->b;                                               \
    const uint16_t *restrict map = pl->map;                                                    \
    const W *restrict a = p->a;                                                                \
    const uint32_t *restrict xf = p->xf;                                                       \
    int64_t xs = p->xs;                                                                        \
    uint32_t dm = p->desc ? ~0u : 0u;                                                          \
    (void)a, (void)xf, (void)xs, (void)dm, (void)kb;                                           \
    for (int64_t s = s0; s < s1; s++) {                                                        \
      int64_t i0 = p->n * s / p->slices, i1 = p->n * (s + 1) / p->slices;                      \
      memcpy(at, pl->off + s * nb, sizeof *at * (size_t)nb);                                   \
      memcpy(first, at, sizeof *at * (size_t)nb);                                              \
      for (int64_t i = i0; i < i1; i += SBLOCK) {                                              \
        int64_t e = i1 - i < SBLOCK ? i1 - i : SBLOCK;                                         \
        const W *restrict src = FILL(i, e);                                                    \
        for (int64_t j = 0; j < e; j++) {                                                      \
          W v = src[j];                                                                        \
          uint32_t d = map[KEY(v) >> 16], q = at[d]++;                                         \
          W *l = lines + (size_t)d * LINE;                                                     \
          l[q & (LINE - 1)] = v;                                                               \
          if ((q & (LINE - 1)) == LINE - 1) {                                                  \
            uint32_t q0 = q - (LINE - 1);                                                      \
            if (q0 >= first[d]) put_line(b + q0, l);                                           \
            else                                                                               \
              for (uint32_t r = first[d]; r <= q; r++) b[r] = l[r & (LINE - 1)];               \
          }                                                                                    \
        }                                                                                      \
      }                                                                                        \
      for (int d = 0; d < nb; d++) {                                                           \
        uint32_t r = at[d] & ~(uint32_t)(LINE - 1);                                            \
        for (r = r < first[d] ? first[d] : r; r < at[d]; r++) b[r] = lines[(size_t)d * LINE + (r & (LINE - 1))]; \
      }                                                                                        \
    }                                                                                          \
    fence();                                                                                   \
    nx__free(buf), nx__free(pos);                                                              \
  }

/* The output pass of a bucket of len words at line position at, the words
   in cur and word i going to place c[digit]++ (or to i when c is NULL);
   other is a free buffer of len words. */
#define DEFINE_FINAL(name, W, KEY)                                                             \
  static void name(const nx__bk *p, const W *restrict cur, W *restrict other, int64_t at,      \
                   int64_t len, uint32_t *restrict c, int sh, uint32_t m, uint32_t lo) {        \
    uint32_t *zv = p->zv ? p->zv + at : NULL, xr = p->xr, dm = p->desc ? ~0u : 0u;              \
    bool fl = p->fl;                                                                           \
    if (p->out == NX__BK_VALUES && c && (const void *)cur == (const void *)zv) {               \
      /* the bucket was ping-ponged through its own place in z */                            \
      for (int64_t i = 0; i < len; i++) other[c[((KEY(cur[i]) - lo) >> sh) & m]++] = cur[i];   \
      cur = other, c = NULL;                                                                   \
    }                                                                                          \
    switch (p->out) {                                                                          \
    case NX__BK_VALUES: {                                                                      \
      /* the keys in order into the free buffer (in the caches), then     \
         decoded along z once: stores scattered over z's lines would each \
         wait for its line (unless the free buffer is the bucket's place  \
         in z, just read) */                                              \
      const uint32_t *src = (const uint32_t *)(const void *)cur;                               \
      if (c) {                                                                                 \
        uint32_t *o = (uint32_t *)(void *)other;                                               \
        for (int64_t i = 0; i < len; i++) o[c[((KEY(cur[i]) - lo) >> sh) & m]++] = (uint32_t)KEY(cur[i]); \
        src = o;                                                                               \
      }                                                                                        \
      nx__key_decode(zv, src, len, fl, dm, xr);                                                \
      break;                                                                                   \
    }                                                                                          \
    case NX__BK_INDEX: {                                                                       \
      int64_t zs = p->zs;                                                                      \
      int32_t *restrict z = p->zi + at * zs;                                                   \
      if (!c)                                                                                  \
        for (int64_t i = 0; i < len; i++) z[i * zs] = (int32_t)(uint32_t)cur[i];               \
      else                                                                                     \
        for (int64_t i = 0; i < len; i++) {                                                    \
          W v = cur[i];                                                                        \
          z[c[((KEY(v) - lo) >> sh) & m]++ * zs] = (int32_t)(uint32_t)v;                       \
        }                                                                                      \
      break;                                                                                   \
    }                                                                                          \
    case NX__BK_EMIT:                                                                          \
      if (c)                                                                                   \
        for (int64_t i = 0; i < len; i++) other[c[((KEY(cur[i]) - lo) >> sh) & m]++] = cur[i]; \
      p->emit(p->ctx, c ? other : cur, at, len);                                               \
      break;                                                                                   \
    }                                                                                          \
  }

/* Sorts bucket d within the caches and writes it out; tmp is scratch of
   pl->cap words (unused where a serves). */
#define DEFINE_BUCKET(name, W, KEY, final)                                                     \
  static void name##_pass(const W *restrict src, W *restrict dst, int64_t len, uint32_t *restrict c, \
                          int sh, uint32_t m, uint32_t lo) {                                   \
    for (int64_t i = 0; i < len; i++) {                                                        \
      W v = src[i];                                                                            \
      dst[c[(((uint32_t)KEY(v) - lo) >> sh) & m]++] = v;                                       \
    }                                                                                          \
  }                                                                                            \
  static void name(const plan *pl, int d, W *tmp, uint32_t *cnt) {                             \
    W *heavy = NULL;                                                                           \
    nx__bk *p = pl->p;                                                                         \
    int64_t at = pl->start[d], len = (int64_t)pl->start[d + 1] - at;                           \
    W *cur = (W *)p->b + at;                                                                   \
    if (len <= SMALL) { /* whole words compared: an item's index keeps it stable */           \
      for (int64_t i = 1; i < len; i++) {                                                      \
        W v = cur[i];                                                                          \
        int64_t j = i;                                                                         \
        for (; j > 0 && cur[j - 1] > v; j--) cur[j] = cur[j - 1];                              \
        cur[j] = v;                                                                            \
      }                                                                                        \
      final(p, cur, NULL, at, len, NULL, 0, 0, 0);                                             \
      return;                                                                                  \
    }                                                                                          \
    /* scratch for the passes: a's place of the bucket, else a buffer; a    \
       bucket of one top value may be longer than the buffer, then it takes \
       its place in z where that is not b, else one of its own */            \
    W *other = p->a_scratch ? (W *)p->a + at : len <= pl->cap ? tmp : NULL;                   \
    if (!other && p->zv && (void *)p->zv != p->b) other = (W *)(void *)(p->zv + at);                    \
    if (!other && !(other = heavy = nx__malloc(sizeof *other * (size_t)len))) {                \
      no_memory(p);                                                                            \
      return;                                                                                  \
    }                                                                                          \
    uint32_t lo = (uint32_t)pl->lo16[d] << 16, span = (uint32_t)(pl->hi16[d] - pl->lo16[d]) << 16 | 0xFFFF; \
    int bits = 32 - __builtin_clz(span), np = bits <= 22 ? 2 : 3, dg = (bits + np - 1) / np;    \
    uint32_t m = (1u << dg) - 1, *c0 = cnt, *c1 = cnt + 2048, *c2 = cnt + 4096;                 \
    memset(cnt, 0, sizeof *cnt * 2048 * (size_t)np);                                           \
    if (np == 2)                                                                               \
      for (int64_t i = 0; i < len; i++) {                                                      \
        uint32_t r = (uint32_t)KEY(cur[i]) - lo;                                               \
        c0[r & m]++, c1[r >> dg]++;                                                            \
      }                                                                                        \
    else                                                                                       \
      for (int64_t i = 0; i < len; i++) {                                                      \
        uint32_t r = (uint32_t)KEY(cur[i]) - lo;                                               \
        c0[r & m]++, c1[(r >> dg) & m]++, c2[r >> 2 * dg]++;                                   \
      }                                                                                        \
    for (int k = 0; k < np; k++) {                                                             \
      uint32_t *c = cnt + 2048 * k, sum = 0;                                                   \
      for (uint32_t j = 0; j <= m; j++) {                                                      \
        uint32_t t = c[j];                                                                     \
        c[j] = sum, sum += t;                                                                  \
      }                                                                                        \
    }                                                                                          \
    for (int k = 0; k < np - 1; k++) {                                                         \
      name##_pass(cur, other, len, cnt + 2048 * k, k * dg, m, lo);                             \
      W *t = cur;                                                                              \
      cur = other, other = t;                                                                  \
    }                                                                                          \
    final(p, cur, other, at, len, cnt + 2048 * (np - 1), (np - 1) * dg, m, lo);                \
    nx__free(heavy);                                                                           \
  }

#define KEY32(v) (v)
#define KEY64(v) ((uint32_t)((v) >> 32))
#define WORD(i, e) (a + (i))
#define FLOATS(i, e) (nx__fkey_block(kb, xf + (i) * xs, xs, e, dm, 0, NULL), kb)
DEFINE_SCATTER(scatter32, uint32_t, 16, KEY32, WORD)
DEFINE_SCATTER(scatter_floats, uint32_t, 16, KEY32, FLOATS)
DEFINE_SCATTER(scatter64, uint64_t, 8, KEY64, WORD)
DEFINE_FINAL(final32, uint32_t, KEY32)
DEFINE_FINAL(final64, uint64_t, KEY64)
DEFINE_BUCKET(bucket32, uint32_t, KEY32, final32)
DEFINE_BUCKET(bucket64, uint64_t, KEY64, final64)

static void buckets_task(void *vp, int64_t d0, int64_t d1) {
  const plan *pl = vp;
  nx__bk *p = pl->p;
  size_t wb = p->items ? 8 : 4;
  uint32_t *cnt = nx__malloc(sizeof *cnt * 2048 * 3);
  void *tmp = p->a_scratch ? NULL : nx__malloc(wb * (size_t)pl->cap);
  if (!cnt || (!p->a_scratch && !tmp)) {
    no_memory(p);
  } else
    for (int64_t d = d0; d < d1; d++) {
      if (p->items) bucket64(pl, (int)d, tmp, cnt);
      else bucket32(pl, (int)d, tmp, cnt);
    }
  nx__free(cnt), nx__free(tmp);
}

/* Cuts the top values into buckets of about `target` words each: a value
   holding more than that makes a bucket alone. */
static void cut(plan *pl, const uint32_t *total, int64_t target) {
  int nb = 0;
  int64_t acc = 0;
  pl->start[0] = 0;
  pl->cap = 1;
  for (int j = 0; j < NX__BK_TOP; j++) {
    int64_t h = total[j];
    if (h && acc && acc + h > target) {
      if (pl->hi16[nb] != pl->lo16[nb] && acc > pl->cap) pl->cap = acc;
      pl->start[nb + 1] = pl->start[nb] + (uint32_t)acc;
      nb++, acc = 0;
    }
    if (h && !acc) pl->lo16[nb] = (uint16_t)j;
    if (h) pl->hi16[nb] = (uint16_t)j;
    acc += h;
    pl->map[j] = (uint16_t)nb;
  }
  if (pl->hi16[nb] != pl->lo16[nb] && acc > pl->cap) pl->cap = acc;
  pl->start[nb + 1] = pl->start[nb] + (uint32_t)acc;
  pl->nb = nb + 1;
}

int nx__bk_sort(nx__bk *p) {
  plan pl = {p, 0, NULL, NULL, NULL, NULL, NULL, 0};
  int S = p->slices;
  size_t wb = p->items ? 8 : 4;
  int64_t target = (int64_t)(TARGET / wb);
  if (p->n / MAX_BUCKETS > target) target = p->n / MAX_BUCKETS;
  /* at most one bucket a top value, and fewer than 2n / target + 2 */
  int64_t most = 2 * p->n / target + 2;
  if (most > NX__BK_TOP) most = NX__BK_TOP;
  uint32_t *total = nx__malloc(sizeof *total * NX__BK_TOP);
  pl.map = nx__malloc(sizeof *pl.map * NX__BK_TOP);
  pl.start = nx__malloc(sizeof *pl.start * (size_t)(most + 1));
  pl.lo16 = nx__malloc(sizeof *pl.lo16 * (size_t)most * 2);
  pl.off = nx__malloc(sizeof *pl.off * (size_t)most * (size_t)S);
  if (!total || !pl.map || !pl.start || !pl.lo16 || !pl.off) {
    no_memory(p);
    goto out;
  }
  pl.hi16 = pl.lo16 + most;
  memcpy(total, p->hist, sizeof *total * NX__BK_TOP);
  for (int s = 1; s < S; s++)
    for (int j = 0; j < NX__BK_TOP; j++) total[j] += p->hist[(size_t)s * NX__BK_TOP + j];
  cut(&pl, total, target);
  /* slice s's part of bucket d starts after the earlier slices' parts */
  int nb = pl.nb;
  for (int d = 0; d < nb; d++) pl.off[d] = pl.start[d];
  for (int s = 1; s < S; s++) {
    uint32_t *o = pl.off + (size_t)s * nb;
    memcpy(o, o - nb, sizeof *o * (size_t)nb);
    const uint32_t *h = p->hist + (size_t)(s - 1) * NX__BK_TOP;
    for (int j = 0; j < NX__BK_TOP; j++) o[pl.map[j]] += h[j];
  }
  nx__parallel(S, S, p->items ? scatter64 : p->a ? scatter32 : scatter_floats, &pl);
  int chunks = p->out == NX__BK_EMIT && p->serial_emit ? 1 : nb < 8 * nx_num_threads() ? nb : 8 * nx_num_threads();
  if (!p->status) nx__parallel(nb, chunks, buckets_task, &pl);
out:
  nx__free(total), nx__free(pl.map), nx__free(pl.start), nx__free(pl.lo16), nx__free(pl.off);
  return p->status;
}
