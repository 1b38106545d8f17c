/* SPDX-License-Identifier: Apache-2.0 */
/* The iteration engine: simplifying the operands' common shape, tiling, and
   cutting the walk into units the pool runs. */
#include <string.h>

#include "../base/alloc.h"
#include "engine.h"
#include "nx_kernels.h"
#include "stream.h"
#include "tile.h"

static int64_t iabs(int64_t x) { return x < 0 ? -x : x; }

/* Negative when axis a should run inside axis b: the first operand, written
   one first, whose strides on both axes are nonzero and differ decides. */
static int inner_first(const nx__plan *P, int64_t s[][NX_MAX_RANK], int a, int b) {
  for (int k = 0; k < P->nops; k++) {
    int64_t sa = iabs(s[k][a]), sb = iabs(s[k][b]);
    if (sa && sb && sa != sb) return sa < sb ? -1 : 1;
  }
  return 0;
}

static void swap_axes(nx__plan *P, int64_t *e, int64_t s[][NX_MAX_RANK], int a, int b) {
  int64_t t = e[a];
  e[a] = e[b];
  e[b] = t;
  for (int k = 0; k < P->nops; k++) {
    t = s[k][a];
    s[k][a] = s[k][b];
    s[k][b] = t;
  }
}

void nx__plan_make(nx__plan *P, int n, const nx_dtype *dts, void *const *bases, const nx_layout *const *ls,
                   int flags) {
  int r = ls[0]->rank, m = 0;
  P->nops = n;
  P->tile = 0;
  P->count = 1;
  for (int j = 0; j < r; j++) P->count *= ls[0]->extent[j];
  for (int k = 0; k < n; k++) {
    P->bits[k] = nx_dtype_bits_of(dts[k]);
    P->base[k] = bases[k];
    P->pos[k] = ls[k]->offset;
  }
  P->rank = 1;
  P->ext[0] = 1;
  for (int k = 0; k < n; k++) P->str[k][0] = 0;
  if (P->count == 0) return;
  int64_t *e = P->ext, (*s)[NX_MAX_RANK] = P->str;
  /* Axes of extent 1 go; the last logical axis becomes axis 0. */
  for (int j = r - 1; j >= 0; j--) {
    if (ls[0]->extent[j] == 1) continue;
    e[m] = ls[0]->extent[j];
    for (int k = 0; k < n; k++) s[k][m] = ls[k]->stride[j];
    m++;
  }
  if (!(flags & NX__IN_ORDER)) {
    for (int a = 0; a < m; a++) {
      bool neg = false, posv = false;
      for (int k = 0; k < n; k++) {
        neg |= s[k][a] < 0;
        posv |= s[k][a] > 0;
      }
      if (neg && !posv)
        for (int k = 0; k < n; k++) {
          P->pos[k] += (e[a] - 1) * s[k][a];
          s[k][a] = -s[k][a];
        }
    }
    /* Insertion sort, stable: ties keep C order. */
    for (int a = 1; a < m; a++)
      for (int b = a; b > 0 && inner_first(P, s, b, b - 1) < 0; b--) swap_axes(P, e, s, b, b - 1);
  }
  /* Coalesce: axis a joins the axis t inside it where every operand steps
     from t's last element to a's next by t's stride. */
  int t = 0;
  for (int a = 1; a < m; a++) {
    bool join = true;
    for (int k = 0; k < n && join; k++) join = s[k][a] == s[k][t] * e[t];
    if (join) {
      e[t] *= e[a];
      continue;
    }
    t++;
    e[t] = e[a];
    for (int k = 0; k < n; k++) s[k][t] = s[k][a];
  }
  P->rank = m ? t + 1 : 1;
  if (m == 0) {
    e[0] = 1;
    for (int k = 0; k < n; k++) s[k][0] = 0;
  }
  /* Tiling: a read operand whose smallest stride lies on another axis than
     axis 0 walks memory at a large stride along axis 0; tiles of both axes
     keep its cache lines hot while the run crosses them. */
  if ((flags & NX__IN_ORDER) || P->rank < 2 || e[0] < 16) return;
  for (int k = 1; k < n; k++) {
    int bytes = P->bits[k] >= 8 ? P->bits[k] / 8 : 1, best = 0;
    for (int b = 1; b < P->rank; b++)
      if (s[k][b] && (best == 0 || iabs(s[k][b]) < iabs(s[k][best]))) best = b;
    if (!best || e[best] < 16 || !s[k][0] || iabs(s[k][best]) >= iabs(s[k][0]) || iabs(s[k][0]) * bytes < 64)
      continue;
    for (int b = best; b > 1; b--) swap_axes(P, e, s, b, b - 1);
    P->tile = 1;
    return;
  }
}

/* ---- Running ------------------------------------------------------------ */

typedef struct job {
  const nx__plan *P;
  nx__run_fn fn;
  void *ctx;
  int64_t b0, nb0, nb1; /* axis 0 in pieces of b0, nb0 of them; tiles of axis 1: nb1 */
  int64_t t0, t1;       /* a tiled plan's tile: t0 elements of axis 0 by t1 of axis 1 */
  unsigned packed;      /* bit k: operand k is read through a transposed scratch block */
  int npacked;          /* how many are */
  int64_t scratch;      /* the bytes of one operand's scratch block */
} job;

static void args_at(const nx__plan *P, const int64_t *pos, nx__arg *a) {
  for (int k = 0; k < P->nops; k++) {
    int bits = P->bits[k];
    if (bits >= 8) {
      a[k].p = P->base[k] + pos[k] * (bits / 8);
      a[k].pos = 0;
      a[k].step = P->str[k][0] * (bits / 8);
    } else {
      a[k].p = P->base[k];
      a[k].pos = pos[k];
      a[k].step = P->str[k][0];
    }
  }
}

/* Units of an untiled plan: run r (an index over axes 1..rank-1) piece q of
   axis 0, unit = r * nb0 + q. */
static void run_flat(void *ctx, int64_t u0, int64_t u1) {
  const job *J = ctx;
  const nx__plan *P = J->P;
  int64_t idx[NX_MAX_RANK], pos[NX__OPS], at[NX__OPS], q = u0 % J->nb0, rr = u0 / J->nb0;
  nx__arg a[NX__OPS];
  for (int k = 0; k < P->nops; k++) pos[k] = P->pos[k];
  for (int j = 1; j < P->rank; j++) {
    idx[j] = rr % P->ext[j];
    rr /= P->ext[j];
    for (int k = 0; k < P->nops; k++) pos[k] += idx[j] * P->str[k][j];
  }
  for (int64_t u = u0; u < u1; u++) {
    int64_t first = q * J->b0, len = P->ext[0] - first < J->b0 ? P->ext[0] - first : J->b0;
    for (int k = 0; k < P->nops; k++) at[k] = pos[k] + first * P->str[k][0];
    args_at(P, at, a);
    J->fn(J->ctx, a, len);
    if (++q < J->nb0) continue;
    q = 0;
    for (int j = 1; j < P->rank; j++) {
      if (++idx[j] < P->ext[j]) {
        for (int k = 0; k < P->nops; k++) pos[k] += P->str[k][j];
        break;
      }
      for (int k = 0; k < P->nops; k++) pos[k] -= (idx[j] - 1) * P->str[k][j];
      idx[j] = 0;
    }
  }
}

/* The read operands a tiled plan transposes into scratch blocks: those of
   a byte or more whose unit stride is on axis 1 (and which move on axis 0),
   at most NX__PACKED of them. Their tile is two cache lines of the
   narrowest across axis 1 and long along axis 0 (NX__PACK_BYTES a block),
   so that every operand is read by whole lines and the written one, walked
   along axis 0, in long runs the hardware prefetches; without such an
   operand tiles are NX__TILE square. */
#define NX__PACKED 2
#define NX__PACK_BYTES ((int64_t)1 << 17)
static void tile_of(const nx__plan *P, job *J) {
  int lo = 8, hi = 0, n = 0;
  J->packed = 0;
  for (int k = 1; k < P->nops && n < NX__PACKED; k++)
    if (P->bits[k] >= 8 && P->str[k][1] == 1 && P->str[k][0] != 0 && P->str[k][0] != 1) {
      int b = P->bits[k] / 8;
      J->packed |= 1u << k;
      n++;
      lo = b < lo ? b : lo;
      hi = b > hi ? b : hi;
    }
  J->npacked = n;
  J->t0 = J->t1 = NX__TILE;
  if (!J->packed) return;
  J->t1 = 128 / lo > NX__TILE ? NX__TILE : 128 / lo;
  J->t0 = NX__PACK_BYTES / (J->t1 * hi);
  if (J->t0 > 1024) J->t0 = 1024;
  if (J->t0 > P->ext[0]) J->t0 = (P->ext[0] + 15) / 16 * 16;
  J->scratch = J->t0 * J->t1 * hi;
}

/* Units of a tiled plan: unit = (outer * nb0 + tile of axis 0) * nb1 + tile
   of axis 1, so that consecutive tiles continue the packed operands' lines;
   each walks its tile's rows of axis 0, the packed operands' rows read from
   their transposed scratch blocks (or, where the blocks cannot be had, in
   place). */
static void run_tiled(void *ctx, int64_t u0, int64_t u1) {
  const job *J = ctx;
  const nx__plan *P = J->P;
  nx__arg a[NX__OPS];
  unsigned packed = J->packed;
  char *scratch = packed ? nx__aligned_alloc(64, (size_t)(J->npacked * J->scratch)) : NULL;
  if (!scratch) packed = 0;
  for (int64_t u = u0; u < u1; u++) {
    int64_t q1 = u % J->nb1, q0 = (u / J->nb1) % J->nb0, o = u / J->nb1 / J->nb0, pos[NX__OPS];
    for (int k = 0; k < P->nops; k++) pos[k] = P->pos[k] + q0 * J->t0 * P->str[k][0] + q1 * J->t1 * P->str[k][1];
    for (int j = 2; j < P->rank; j++) {
      int64_t i = o % P->ext[j];
      o /= P->ext[j];
      for (int k = 0; k < P->nops; k++) pos[k] += i * P->str[k][j];
    }
    int64_t len0 = P->ext[0] - q0 * J->t0, len1 = P->ext[1] - q1 * J->t1;
    if (len0 > J->t0) len0 = J->t0;
    if (len1 > J->t1) len1 = J->t1;
    for (int k = 1, n = 0; k < P->nops; k++)
      if (packed >> k & 1) {
        int bytes = P->bits[k] / 8;
        nx__tile_pack(scratch + n++ * J->scratch, P->base[k] + pos[k] * bytes, bytes, len0, len1, J->t0,
                      P->str[k][0]);
      }
    for (int64_t i = 0; i < len1; i++) {
      args_at(P, pos, a);
      for (int k = 1, n = 0; k < P->nops; k++)
        if (packed >> k & 1) {
          a[k].p = scratch + n++ * J->scratch + i * J->t0 * (P->bits[k] / 8);
          a[k].step = P->bits[k] / 8;
        }
      J->fn(J->ctx, a, len0);
      for (int k = 0; k < P->nops; k++) pos[k] += P->str[k][1];
    }
  }
  nx__free(scratch);
}

static int64_t runs_of(const nx__plan *P, int from) {
  int64_t r = 1;
  for (int j = from; j < P->rank; j++) r *= P->ext[j];
  return r;
}

/* Chunks a thread of a region claims on average: enough that a thread
   slowed by another process (or started late) leaves the others at most a
   sixteenth of its share to wait for, few enough that the claims (an
   atomic add each) cost nothing beside a chunk's work. */
#define NX__CHUNKS_PER_THREAD 16

static void run(const nx__plan *P, nx__run_fn fn, void *ctx, int threads) {
  if (P->count == 0) return;
  job J = {P, fn, ctx, P->ext[0], 1, 1, 0, 0, 0, 0, 0};
  if (P->tile) {
    tile_of(P, &J);
    J.nb0 = (P->ext[0] + J.t0 - 1) / J.t0;
    J.nb1 = (P->ext[1] + J.t1 - 1) / J.t1;
    int64_t units = runs_of(P, 2) * J.nb0 * J.nb1;
    if (threads > 1) nx__parallel(units, NX__CHUNKS_PER_THREAD * (int64_t)threads, run_tiled, &J);
    else run_tiled(&J, 0, units);
    return;
  }
  int64_t runs = runs_of(P, 1);
  int64_t chunks = NX__CHUNKS_PER_THREAD * (int64_t)threads;
  if (threads > 1 && runs < chunks) {
    /* Few long runs: cut axis 0 into pieces of a multiple of 64 elements,
       none shorter than the result's NX__STREAM_BYTES while there is
       still a piece for each thread: a piece shorter than that would not
       stream its stores where the whole run on one thread does (a 16M
       bfloat16 add on two threads, in 32 pieces of 1 MiB, ran at 1.3 times
       its time on one). */
    int64_t want = (chunks + runs - 1) / runs;
    J.b0 = (P->ext[0] + want - 1) / want;
    int64_t least = P->bits[0] > 0 ? NX__STREAM_BYTES * 8 / P->bits[0] : 0;
    int64_t per_run = (threads + runs - 1) / runs, each = (P->ext[0] + per_run - 1) / per_run;
    if (J.b0 < least) J.b0 = least < each ? least : each;
    J.b0 = (J.b0 + 63) / 64 * 64;
    J.nb0 = (P->ext[0] + J.b0 - 1) / J.b0;
  }
  if (threads > 1) nx__parallel(runs * J.nb0, chunks, run_flat, &J);
  else run_flat(&J, 0, runs * J.nb0);
}

int64_t nx__serial_work = NX__SERIAL_WORK;

void nx__plan_run_serial(const nx__plan *P, nx__run_fn fn, void *ctx) { run(P, fn, ctx, 1); }

void nx__plan_run(const nx__plan *P, nx__run_fn fn, void *ctx, int weight) {
  int64_t bits = 0;
  for (int k = 0; k < P->nops; k++) bits += P->bits[k];
  /* count * bits / 8, without overflow for the largest counts */
  int64_t bytes = P->count / 8 * bits + (P->count % 8) * bits / 8;
  int threads = nx_num_threads();
  if (threads < 2 || bytes < nx__serial_work / (weight > 0 ? weight : 1)) threads = 1;
  run(P, fn, ctx, threads);
}
