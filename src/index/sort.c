/* SPDX-License-Identifier: Apache-2.0 */
/* Sort and argsort along an axis: stable, ascending or descending, NaN after
   every number in both directions (their order kept), -0 equal to +0. Each
   element becomes a key whose unsigned order is the wanted order (32 bits
   for dtypes of 32 bits or fewer, 64 for the others), and stable radix
   sorts order each line: a long line of 32-bit keys by buckets
   (sort_buckets.h), others most significant digit first into parts the
   caches hold, skipping the digits every key of a part shares. Sort moves
   keys alone and decodes them into values; the few elements a key does not
   determine (a zero's sign, a NaN's payload) are kept aside in input order
   and written back into their runs. Argsort moves the key with its index in
   one 64-bit word. */
#define _DEFAULT_SOURCE /* madvise */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "nx_index.h"
#include "sort_buckets.h"
#include "sort_fill.h"
#include "sort_keys.h"
#include "walk.h"
#include "../base/alloc.h"

typedef struct sctx {
  bool desc, arg;
  int axis;
  int status;
  nx_dtype zt, xt;
  const nx_layout *zl, *xl;
  char *zb, *xb;
  int64_t lines, n;
} sctx;

/* Counts into starts: c[j] becomes the sum of the counts before j. */
static void exclusive_sum(uint32_t *c, int nb) {
  uint32_t sum = 0;
  for (int j = 0; j < nb; j++) {
    uint32_t t = c[j];
    c[j] = sum;
    sum += t;
  }
}

/* LSD radix sort of n words by their bits [lo, hi), in digits of 11 bits
   (8 for lines short enough that clearing 2048 counters would dominate), all
   digits' counts in one read; a digit where every word agrees is skipped.
   Returns the buffer holding the result (a or b). */
enum { NB = 1 << 11 };
#define DEFINE_RADIX(name, T)                                                                   \
  static T *name(T *a, T *b, int64_t n, int lo, int hi, uint32_t *cnt) {                     \
    int dig = n < 4096 ? 8 : 11, nb = 1 << dig, nd = (hi - lo + dig - 1) / dig;                \
    T mask = (T)(nb - 1);                                                                       \
    memset(cnt, 0, sizeof *cnt * (size_t)(nb * nd));                                            \
    for (int64_t i = 0; i < n; i++) {                                                           \
      T v = a[i] >> lo;                                                                         \
      for (int d = 0; d < nd; d++) cnt[d * nb + (uint32_t)((v >> (d * dig)) & mask)]++;         \
    }                                                                                           \
    for (int d = 0; d < nd; d++) {                                                              \
      uint32_t *c = cnt + d * nb;                                                               \
      int sh = lo + d * dig;                                                                    \
      if (c[(a[0] >> sh) & mask] == (uint32_t)n) continue;                                      \
      exclusive_sum(c, nb);                                                                     \
      for (int64_t i = 0; i < n; i++) {                                                         \
        T v = a[i];                                                                             \
        b[c[(v >> sh) & mask]++] = v;                                                           \
      }                                                                                         \
      T *t = a;                                                                                 \
      a = b, b = t;                                                                             \
    }                                                                                           \
    return a;                                                                                   \
  }
DEFINE_RADIX(radix32, uint32_t)
DEFINE_RADIX(radix64, uint64_t)

/* Sorts n words by their bits [lo, hi) most significant digit first, 11
   bits a level, each level counting with its own NB counters from cnt:
   parts of 32 or fewer by insertion (whole words compared: an argsort item's
   index below the key keeps equal keys in input order), short ones by the
   LSD radix. Returns the buffer holding the result (a or b). */
#define DEFINE_PART(name, T, radix)                                                            \
  static T *name(T *a, T *b, int64_t n, int lo, int hi, uint32_t *cnt) {                     \
    if (n <= 32) {                                                                             \
      for (int64_t i = 1; i < n; i++) {                                                        \
        T v = a[i];                                                                            \
        int64_t j = i;                                                                         \
        for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];                                   \
        a[j] = v;                                                                              \
      }                                                                                        \
      return a;                                                                                \
    }                                                                                          \
    if (n < 4096 || hi - lo <= 11) return radix(a, b, n, lo, hi, cnt);                        \
    int sh = hi - 11;                                                                          \
    memset(cnt, 0, sizeof *cnt * NB);                                                          \
    for (int64_t i = 0; i < n; i++) cnt[(a[i] >> sh) & (NB - 1)]++;                            \
    if (cnt[(a[0] >> sh) & (NB - 1)] == (uint32_t)n) return name(a, b, n, lo, sh, cnt);        \
    exclusive_sum(cnt, NB);                                                                     \
    for (int64_t i = 0; i < n; i++) {                                                          \
      T v = a[i];                                                                              \
      b[cnt[(v >> sh) & (NB - 1)]++] = v;                                                      \
    }                                                                                          \
    for (int j = 0, at = 0; j < NB; at = (int)cnt[j], j++) {                                   \
      int64_t len = (int64_t)cnt[j] - at;                                                      \
      T *r = len ? name(b + at, a + at, len, lo, sh, cnt + NB) : b + at;                       \
      if (r != b + at) memcpy(b + at, r, sizeof *r * (size_t)len);                             \
    }                                                                                          \
    return b;                                                                                  \
  }
DEFINE_PART(part32, uint32_t, radix32)
DEFINE_PART(part64, uint64_t, radix64)

/* 64-bit keys with separate 32-bit indices (argsort of 64-bit dtypes), by
   bytes; returns the number of passes (odd: the result is in k2 and ix2). */
static int radix_pairs(uint64_t *k, uint32_t *ix, uint64_t *k2, uint32_t *ix2, int64_t n) {
  uint64_t and_all = ~0ull, or_all = 0;
  for (int64_t i = 0; i < n; i++) and_all &= k[i], or_all |= k[i];
  uint64_t varies = and_all ^ or_all;
  int passes = 0;
  for (int byte = 0; byte < 8; byte++) {
    int sh = 8 * byte;
    if (!((varies >> sh) & 0xFF)) continue;
    passes++;
    int64_t cnt[257] = {0};
    for (int64_t i = 0; i < n; i++) cnt[((k[i] >> sh) & 0xFF) + 1]++;
    for (int b = 0; b < 256; b++) cnt[b + 1] += cnt[b];
    for (int64_t i = 0; i < n; i++) {
      int64_t d = cnt[(k[i] >> sh) & 0xFF]++;
      k2[d] = k[i];
      ix2[d] = ix[i];
    }
    uint64_t *tk = k;
    k = k2, k2 = tk;
    uint32_t *ti = ix;
    ix = ix2, ix2 = ti;
  }
  return passes;
}

/* Elements set aside in input order: zeros (when one is -0) and NaNs. */
typedef struct aside {
  uint64_t *bits;
  int64_t n, cap;
} aside;

typedef struct scratch {
  void *a, *b;
  uint32_t *ix, *ix2, *cnt, *top, *hist;
  int slices; /* of a long line's bucket sort */
  aside zero, nan;
  bool negzero, ok;
} scratch;

static void put_aside(scratch *s, aside *l, uint64_t bits) {
  if (l->n == l->cap) {
    int64_t cap = l->cap ? 2 * l->cap : 64;
    uint64_t *p = nx__realloc(l->bits, (size_t)cap * 8);
    if (!p) {
      s->ok = false;
      return;
    }
    l->bits = p, l->cap = cap;
  }
  l->bits[l->n++] = bits;
}

/* A float's key, noting its bits aside when the key does not determine
   them; w is 32 or 64. */
static uint64_t float_key(scratch *s, int w, double f, uint64_t bits, bool desc, bool arg) {
  if (f != f) {
    if (!arg) put_aside(s, &s->nan, bits);
    return w == 32 ? NX__NAN32 : NX__NAN64;
  }
  if (f == 0) {
    if (!arg) put_aside(s, &s->zero, bits);
    s->negzero |= nx__f64_bits(f) >> 63;
    f = 0.0;
  }
  if (w == 64) return nx__fkey64(nx__f64_bits(f), desc);
  float g = (float)f; /* exact: every float format of 32 bits or fewer is in float32 */
  uint32_t b;
  memcpy(&b, &g, 4);
  return nx__fkey32(b, desc);
}

static uint64_t int_key(nx_dtype dt, int w, nx__v v, bool desc) {
  uint64_t k = v.u;
  if (nx_dtype_kind_of(dt) == NX_KIND_SIGNED) k ^= w == 32 ? NX__SIGN32 : NX__SIGN64;
  if (w == 32) k &= NX__NAN32;
  return desc ? (w == 32 ? ~k & NX__NAN32 : ~k) : k;
}

/* The element a number's key stands for, by the store rule (exact). */
static void store_key(const sctx *c, const nx__arg *d, int w, uint64_t k) {
  nx__v v;
  bool desc = c->desc;
  if (nx_dtype_kind_of(c->xt) == NX_KIND_FLOAT) {
    if (w == 64) {
      nx__st(64, d, 0, nx__fbits64(k, desc));
      return;
    }
    uint32_t b = nx__fbits32((uint32_t)k, desc);
    float g;
    memcpy(&g, &b, 4);
    v.f = g;
  } else {
    if (desc) k = ~k & (w == 32 ? NX__NAN32 : NX__NAN64);
    if (nx_dtype_kind_of(c->xt) == NX_KIND_SIGNED) k ^= w == 32 ? NX__SIGN32 : NX__SIGN64;
    v.u = w == 32 && nx_dtype_kind_of(c->xt) == NX_KIND_SIGNED ? (uint64_t)(int64_t)(int32_t)k : k;
  }
  nx__store(c->xt, d, 0, v);
}

/* Writes the sorted words w[0..len) to line positions [at, at + len): the
   index of an argsort item, or the value a sort key stands for (NaN keys
   skipped: their elements are written from the aside list). */
static void emit(const sctx *c, int w, const void *words, int64_t at, int64_t len, int64_t zp) {
  int zbits = nx_dtype_bits_of(c->zt);
  int64_t zs = c->zl->stride[c->axis];
  bool desc = c->desc;
  if (c->arg) {
    const uint64_t *k = words;
    int32_t *z = (int32_t *)c->zb + zp + at * zs;
    for (int64_t i = 0; i < len; i++) z[i * zs] = (int32_t)(uint32_t)k[i];
  } else if (c->xt == NX_FLOAT32) {
    const uint32_t *k = words;
    uint32_t *z = (uint32_t *)c->zb + zp + at * zs;
    for (int64_t i = 0; i < len && k[i] != NX__NAN32; i++) z[i * zs] = nx__fbits32(k[i], desc);
  } else
    for (int64_t i = 0; i < len; i++) {
      uint64_t k = w == 32 ? ((const uint32_t *)words)[i] : ((const uint64_t *)words)[i];
      if (k == (w == 32 ? NX__NAN32 : NX__NAN64) && nx_dtype_kind_of(c->xt) == NX_KIND_FLOAT) break;
      nx__arg d = nx__at(c->zb, zbits, zp + (at + i) * zs);
      store_key(c, &d, w, k);
    }
}

/* emit as the bucket sort's callback: the line's z position with c. */
typedef struct emit_ctx {
  const sctx *c;
  int64_t zp;
} emit_ctx;
static void emit_words(void *vp, const void *words, int64_t at, int64_t len) {
  const emit_ctx *e = vp;
  emit(e->c, 32, words, at, len, e->zp);
}

/* The parts of a line after its top split: ends[j] is where part j ends. */
typedef struct parts {
  const sctx *c;
  void *a, *b;
  const uint32_t *ends;
  int w, lo, hi;
  int64_t zp;
} parts;

/* Orders the line's words in a (keys, or argsort items with the key in the
   high half) and emits them. A long line is first split stably by the key's
   top 11 bits (counted while the keys were made), then the parts, each small
   enough for the caches, are sorted on the bits below and emitted, on the
   pool; so the line crosses memory about three times, not once a digit. */
#define DEFINE_ORDER(name, T, part)                                                            \
  static void name##_parts(void *vp, int64_t j0, int64_t j1) {                                 \
    const parts *p = vp;                                                                       \
    uint32_t *cnt = nx__malloc(sizeof *cnt * NB * 12);                                             \
    if (!cnt) {                                                                                \
      __atomic_store_n(&((sctx *)p->c)->status, NX_ENOMEM, __ATOMIC_RELAXED);                  \
      return;                                                                                  \
    }                                                                                          \
    T *a = p->a, *b = p->b;                                                                    \
    for (int64_t j = j0; j < j1; j++) {                                                        \
      int64_t at = j ? p->ends[j - 1] : 0, len = (int64_t)p->ends[j] - at;                     \
      if (len) emit(p->c, p->w, part(b + at, a + at, len, p->lo, p->hi - 11, cnt), at, len, p->zp); \
    }                                                                                          \
    nx__free(cnt);                                                                                 \
  }                                                                                            \
  static void name(const sctx *c, scratch *s, T *a, int64_t n, int lo, int hi, int64_t zp) {   \
    T *b = s->b;                                                                               \
    uint32_t *top = s->top;                                                                    \
    int w = c->arg || sizeof(T) == 4 ? 32 : 64;                                                \
    if (n < 65536 || top[(a[0] >> (hi - 11)) & (NB - 1)] == (uint32_t)n) {                     \
      emit(c, w, part(a, b, n, lo, hi, s->cnt), 0, n, zp);                                     \
      return;                                                                                  \
    }                                                                                          \
    exclusive_sum(top, NB);                                                                     \
    for (int64_t i = 0; i < n; i++) {                                                          \
      T v = a[i];                                                                              \
      b[top[(v >> (hi - 11)) & (NB - 1)]++] = v;                                               \
    }                                                                                          \
    parts p = {c, a, b, top, w, lo, hi, zp};                                                   \
    nx__parallel(NB, 8 * (int64_t)nx_num_threads(), name##_parts, &p);                         \
  }
DEFINE_ORDER(order64, uint64_t, part64)

static bool in_z(const sctx *c) {
  int bits = nx_dtype_bits_of(c->xt);
  return !c->arg && c->zl->stride[c->axis] == 1 && (bits == 32 || bits == 64);
}

static void *alloc(size_t n, bool *ok);

/* The keys of a long float32 line, its slices on the pool: each counts its
   keys' top 16 bits, the keys below zero's and the zeros and NaNs, and
   stores argsort items in a (sort keys are made again by the scatter);
   the zeros and NaNs, when there are any, are then set aside in input
   order by one more read. Returns the count of keys below zero's. */
typedef struct fkeys {
  const sctx *c;
  const uint32_t *x;
  int64_t xs, n;
  uint64_t *items;
  uint32_t *hist;
  int slices;
  int64_t below[NX__BK_SLICES], special[NX__BK_SLICES];
} fkeys;

enum { KBLOCK = 512 };

static void fkeys_task(void *vp, int64_t s0, int64_t s1) {
  fkeys *f = vp;
  const uint32_t *x = f->x;
  int64_t xs = f->xs;
  uint32_t dm = f->c->desc ? ~0u : 0u, zk = nx__fkey32(0, f->c->desc), kb[KBLOCK];
  uint64_t *items = f->items;
  for (int64_t sl = s0; sl < s1; sl++) {
    int64_t i0 = f->n * sl / f->slices, i1 = f->n * (sl + 1) / f->slices, counts[2] = {0, 0};
    uint32_t *h = f->hist + (size_t)sl * NX__BK_TOP;
    for (int64_t i = i0; i < i1; i += KBLOCK) {
      int64_t e = i1 - i < KBLOCK ? i1 - i : KBLOCK;
      nx__fkey_block(kb, x + i * xs, xs, e, dm, zk, counts);
      for (int64_t j = 0; j < e; j++) h[kb[j] >> 16]++;
      if (items)
        for (int64_t j = 0; j < e; j++) items[i + j] = (uint64_t)kb[j] << 32 | (uint64_t)(i + j);
    }
    f->below[sl] = counts[0], f->special[sl] = counts[1];
  }
}

static int64_t float_keys(const sctx *c, scratch *s, const uint32_t *x, int64_t xs, void *a, int slices) {
  fkeys f = {c, x, xs, c->n, c->arg ? a : NULL, s->hist, slices, {0}, {0}};
  nx__parallel(slices, slices, fkeys_task, &f);
  int64_t below = 0, special = 0;
  for (int sl = 0; sl < slices; sl++) below += f.below[sl], special += f.special[sl];
  for (int64_t i = 0; special && !c->arg && i < c->n; i++) {
    uint32_t b = x[i * xs], m = b & ~NX__SIGN32;
    if (m - 1 < 0x7F800000u) continue;
    put_aside(s, m ? &s->nan : &s->zero, b);
    s->negzero |= !m && b >> 31;
  }
  return below;
}

static void sort_line(const sctx *c, scratch *s, int64_t zp, int64_t xp) {
  int64_t n = c->n;
  int xbits = nx_dtype_bits_of(c->xt), zbits = nx_dtype_bits_of(c->zt), w = xbits <= 32 ? 32 : 64;
  int64_t xs = c->xl->stride[c->axis], zs = c->zl->stride[c->axis];
  bool desc = c->desc, arg = c->arg, fl = nx_dtype_kind_of(c->xt) == NX_KIND_FLOAT;
  /* a sort whose line of z is contiguous and of the keys' width makes its
     keys there (each element read before its key is written, so z may be
     x) and decodes them in place: one line of scratch fewer to fault in */
  void *a = in_z(c) ? (char *)c->zb + zp * (xbits / 8) : s->a;
  /* a long float32 line leaves its keys unwritten: the bucket scatter
     makes them again as it reads x (z is first written after that) */
  bool direct = c->xt == NX_FLOAT32 && !arg && n >= NX__BK_MIN;
  if (direct) a = NULL;
  /* and when z's line is contiguous and not x's (the door admits only
     identical or disjoint operands), the scatter's destination is z itself:
     no line of scratch to fault in (its first touch costs about as much as
     the scatter) */
  uint32_t *into_z = direct && in_z(c) && (uint32_t *)c->zb + zp != (const uint32_t *)c->xb + xp
                         ? (uint32_t *)c->zb + zp
                         : NULL;
  if (!into_z && !s->b && !(s->b = alloc((w == 64 || arg ? 8 : 4) * (size_t)n, &s->ok))) return;
  uint32_t *a32 = a, *top = s->top;
  uint64_t *a64 = a;
  uint64_t zk = w == 32 ? nx__fkey32(0, desc) : nx__fkey64(0, desc);
  int64_t below = 0; /* keys before zero's */
  int tsh = w - 11;
  s->zero.n = s->nan.n = 0;
  s->negzero = false;
  /* a long line of 32-bit keys counts their top 16 bits for its buckets,
     a slice of the line at a time (sort_buckets.h); others the top 11 */
  bool bk = w == 32 && n >= NX__BK_MIN;
  int slices = bk ? s->slices : 1, hsh = bk ? 16 : tsh;
  if (bk) memset(s->hist, 0, sizeof *s->hist * NX__BK_TOP * (size_t)slices);
  else memset(top, 0, sizeof *top * NB);
  if (bk && c->xt == NX_FLOAT32) below = float_keys(c, s, (const uint32_t *)c->xb + xp, xs, a, slices);
  else for (int sl = 0; sl < slices; sl++) {
    int64_t i0 = n * sl / slices, i1 = n * (sl + 1) / slices;
    uint32_t *h = bk ? s->hist + (size_t)sl * NX__BK_TOP : top;
    if (c->xt == NX_FLOAT32) {
      /* the common case, without the generic loads */
      const uint32_t *x = (const uint32_t *)c->xb + xp;
      for (int64_t i = i0; i < i1; i++) {
        uint32_t b = x[i * xs], m = b & ~NX__SIGN32, k;
        if (m - 1 < 0x7F800000u) k = nx__fkey32(b, desc); /* neither zero nor NaN */
        else {
          float g;
          memcpy(&g, &b, 4);
          k = (uint32_t)float_key(s, 32, g, b, desc, arg);
        }
        below += k < zk;
        h[k >> hsh]++;
        if (arg) a64[i] = (uint64_t)k << 32 | (uint64_t)i;
        else if (!direct) a32[i] = k;
      }
    } else
      for (int64_t i = i0; i < i1; i++) {
        nx__arg e = nx__at(c->xb, xbits, xp + i * xs);
        nx__v v = nx__load(c->xt, &e, 0);
        uint64_t k = fl ? float_key(s, w, v.f, nx__ld(xbits, &e, 0), desc, arg) : int_key(c->xt, w, v, desc);
        below += k < zk;
        h[k >> hsh]++;
        if (w == 32 && arg) a64[i] = k << 32 | (uint64_t)i;
        else if (w == 32) a32[i] = (uint32_t)k;
        else a64[i] = k;
        if (w == 64 && arg) s->ix[i] = (uint32_t)i;
      }
  }
  if (!s->ok) return;
  if (bk) {
    emit_ctx ec = {c, zp};
    bool signd = nx_dtype_kind_of(c->xt) == NX_KIND_SIGNED;
    uint32_t *z32 = (uint32_t *)c->zb + zp;
    void *dest = into_z ? (void *)into_z : s->b;
    nx__bk p = {n, arg, a, dest, a && a == s->a, (const uint32_t *)c->xb + xp, xs, s->hist, slices,
                NX__BK_EMIT, NULL, fl, desc, (desc ? ~0u : 0u) ^ (signd ? NX__SIGN32 : 0u), NULL, zs, emit_words, &ec, zbits < 8, 0};
    if (arg) p.out = NX__BK_INDEX, p.zi = (int32_t *)c->zb + zp;
    else if (in_z(c)) p.out = NX__BK_VALUES, p.zv = z32;
    if (nx__bk_sort(&p)) s->ok = false;
  } else if (w == 32 && arg) emit(c, 32, part64(a, s->b, n, 32, 64, s->cnt), 0, n, zp);
  else if (w == 32) emit(c, 32, part32(a, s->b, n, 0, 32, s->cnt), 0, n, zp);
  else if (!arg) order64(c, s, a, n, 0, 64, zp);
  else {
    /* argsort of 64-bit dtypes: keys and indices apart, by bytes */
    int passes = radix_pairs(a, s->ix, s->b, s->ix2, n);
    const uint32_t *perm = passes % 2 ? s->ix2 : s->ix;
    for (int64_t i = 0; i < n; i++) {
      nx__arg d = nx__at(c->zb, zbits, zp + i * zs);
      nx__st(32, &d, 0, perm[i]);
    }
  }
  if (arg) return;
  /* the zeros' run in their input order when a sign differs, then the NaNs */
  int64_t numbers = n - s->nan.n;
  for (int64_t j = 0; s->negzero && j < s->zero.n; j++) {
    nx__arg d = nx__at(c->zb, zbits, zp + (below + j) * zs);
    nx__st(xbits, &d, 0, s->zero.bits[j]);
  }
  for (int64_t j = 0; j < s->nan.n; j++) {
    nx__arg d = nx__at(c->zb, zbits, zp + (numbers + j) * zs);
    nx__st(xbits, &d, 0, s->nan.bits[j]);
  }
}

/* Scratch of a long line in huge pages where the system has them: the
   faults of fresh small pages would cost as much as a pass of the sort. */
static void *alloc(size_t n, bool *ok) {
  bool huge = n >= (4u << 20);
  size_t align = huge ? 2u << 20 : 64; /* whole cache lines for the bucket scatter */
  void *p = nx__aligned_alloc(align, (n + align - 1) / align * align);
#ifdef MADV_HUGEPAGE
  if (p && huge) madvise(p, n, MADV_HUGEPAGE);
#endif
  if (!p) *ok = false;
  return p;
}

static void lines_task(void *vc, int64_t u0, int64_t u1) {
  const sctx *c = vc;
  scratch s;
  memset(&s, 0, sizeof s);
  s.ok = true;
  size_t n = (size_t)c->n;
  bool pairs = c->arg && nx_dtype_bits_of(c->xt) > 32;
  size_t wb = c->arg || nx_dtype_bits_of(c->xt) > 32 ? 8 : 4;
  if (!in_z(c)) s.a = alloc(wb * n, &s.ok);
  s.cnt = alloc(4 * NB * 12, &s.ok); /* and s.b when a line needs it */
  s.top = alloc(4 * NB, &s.ok);
  if (pairs) s.ix = alloc(4 * n, &s.ok), s.ix2 = alloc(4 * n, &s.ok);
  if (nx_dtype_bits_of(c->xt) <= 32 && c->n >= NX__BK_MIN) {
    /* one line alone may use the pool; the lines of many share it */
    int t = nx_num_threads();
    s.slices = c->lines > 1 ? 1 : t < NX__BK_SLICES ? t : NX__BK_SLICES;
    s.hist = alloc(4 * NX__BK_TOP * (size_t)s.slices, &s.ok);
  }
  for (int64_t u = u0; u < u1 && s.ok; u++) {
    /* line u: its index over the other axes, in C order */
    int64_t rest = u, zp = c->zl->offset, xp = c->xl->offset;
    for (int j = c->xl->rank - 1; j >= 0; j--) {
      if (j == c->axis) continue;
      int64_t e = c->xl->extent[j], q = rest % e;
      rest /= e;
      zp += q * c->zl->stride[j];
      xp += q * c->xl->stride[j];
    }
    sort_line(c, &s, zp, xp);
  }
  if (!s.ok) __atomic_store_n(&((sctx *)c)->status, NX_ENOMEM, __ATOMIC_RELAXED);
  nx__free(s.a), nx__free(s.b), nx__free(s.cnt), nx__free(s.top), nx__free(s.ix), nx__free(s.ix2), nx__free(s.hist), nx__free(s.zero.bits), nx__free(s.nan.bits);
}

static nx_answer kernel(void *vc, const nx_operand *ops, int nw, int nr) {
  sctx *c = vc;
  (void)nw;
  (void)nr;
  c->zt = ops[0].dtype, c->xt = ops[1].dtype;
  if (c->arg ? c->zt != NX_INT32 : c->zt != c->xt) return NX_WRONG_DTYPE;
  if (!nx__same_shape(ops, 2)) return NX_SHAPE_MISMATCH;
  if (nx_dtype_kind_of(c->xt) == NX_KIND_COMPLEX) return NX_DECLINED;
  c->zl = ops[0].layout, c->xl = ops[1].layout;
  c->zb = ops[0].base, c->xb = ops[1].base;
  c->n = c->xl->extent[c->axis];
  if (c->n > INT32_MAX) return NX_DECLINED;
  c->lines = 1;
  for (int j = 0; j < c->xl->rank; j++)
    if (j != c->axis) c->lines *= c->xl->extent[j];
  if (c->lines == 0 || c->n == 0) return NX_DONE;
  /* sub-byte lines share bytes of z: their writes stay on one thread */
  if (c->lines * c->n < 65536 || c->lines == 1 || nx_dtype_bits_of(c->zt) < 8) lines_task(c, 0, c->lines);
  else nx__parallel(c->lines, 4 * (int64_t)nx_num_threads(), lines_task, c);
  return NX_DONE;
}

/* made: z is the result sort_new made, which refusals do not name. */
static int sort(const char *name, nx_array *z, nx_array *x, int axis, bool desc, bool arg, bool made) {
  nx_array *ops[2] = {z, x};
  int s = nx__need(name, ops, 2);
  if (s) return s;
  int r = nx_array_layout(x)->rank, a = axis < 0 ? axis + r : axis;
  char t[160];
  if (a < 0 || a >= r)
    return nx__fail(NX_EINVAL, "%s: axis %d is out of range for %s", name, axis, nx_array_describe(x, t, sizeof t));
  sctx c = {desc, arg, a, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0};
  int ans = nx_door_host(ops, 1, ops + 1, 1, kernel, &c);
  if (ans == NX_DONE && c.status)
    return nx__fail(c.status, "%s: no scratch space for %s", name, nx_array_describe(x, t, sizeof t));
  return nx__finish(name, "the host kernel", ans, ops + made, 2 - made, nx_array_dtype(x));
}

static int sort_new(const char *name, nx_array **z, nx_array *x, int axis, bool desc, bool arg) {
  if (!z) return nx__fail(NX_EINVAL, "%s: the result pointer is NULL", name);
  if (!x) return nx__fail(NX_EINVAL, "%s: operand 0 is NULL", name);
  nx_array *out;
  int s = nx__make_like(name, x, arg ? NX_INT32 : nx_array_dtype(x), &out);
  if (s) return s;
  if ((s = sort(name, out, x, axis, desc, arg, true))) {
    nx_array_free(out);
    return s;
  }
  *z = out;
  return 0;
}

int nx_sort(nx_array *z, nx_array *x, int axis, bool descending) { return sort("nx_sort", z, x, axis, descending, false, false); }
int nx_sort_new(nx_array **z, nx_array *x, int axis, bool descending) {
  return sort_new("nx_sort_new", z, x, axis, descending, false);
}
int nx_argsort(nx_array *z, nx_array *x, int axis, bool descending) {
  return sort("nx_argsort", z, x, axis, descending, true, false);
}
int nx_argsort_new(nx_array **z, nx_array *x, int axis, bool descending) {
  return sort_new("nx_argsort_new", z, x, axis, descending, true);
}
