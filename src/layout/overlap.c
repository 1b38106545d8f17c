/* SPDX-License-Identifier: Apache-2.0 */
/* Distinctness, overlap at the byte and identity of layouts. */
#include <stdlib.h>
#include <string.h>

#include "layout_internal.h"
#include "search.h"

typedef nx__i128 i128;

static bool empty(const nx_layout *l) { return nx__layout_empty(l); }

/* ---- Distinctness ------------------------------------------------------ */

typedef struct {
  int64_t s, n;
} axis;

static int by_stride(const void *p, const void *q) {
  const axis *a = p, *b = q;
  return a->s < b->s ? -1 : a->s > b->s;
}

bool nx_layout_is_distinct(const nx_layout *l) {
  if (nx__layout_check("nx_layout_is_distinct", "l", l)) return false;
  if (empty(l)) return true;
  axis ax[NX_MAX_RANK];
  int n = 0;
  for (int j = 0; j < l->rank; j++) {
    if (l->extent[j] == 1) continue;
    if (l->stride[j] == 0) return false; /* stride 0 over extent 2 or more */
    ax[n].s = l->stride[j] < 0 ? -l->stride[j] : l->stride[j];
    ax[n++].n = l->extent[j];
  }
  /* Sufficient: by increasing |stride|, each stride passes the reach of all
     smaller ones, as every view of a dense array's strides do. */
  qsort(ax, (size_t)n, sizeof ax[0], by_stride);
  int64_t reach = 0;
  int j = 0;
  for (; j < n && ax[j].s > reach; j++) reach += ax[j].s * (ax[j].n - 1);
  if (j == n) return true;
  /* Exact: two indices x != x' with equal positions are a solution z != u of
     sum |s| z = sum |s| u, 0 <= z <= 2u, z = x - x' + u mirrored by sign. */
  nx__equation e;
  i128 avoid[NX__TERMS];
  e.n = n;
  e.target = 0;
  for (int i = 0; i < n; i++) {
    e.a[i] = ax[i].s;
    e.ub[i] = 2 * (i128)(ax[i].n - 1);
    avoid[i] = ax[i].n - 1;
    e.target += e.a[i] * avoid[i];
  }
  e.avoid = avoid;
  long work = NX_LAYOUT_WORK;
  return nx__solve(&e, &work) == NX__NO;
}

/* ---- Identity ---------------------------------------------------------- */

bool nx_layout_identical(const nx_layout *a, int wa, const nx_layout *b, int wb) {
  if (nx__layout_check("nx_layout_identical", "a", a) || nx__layout_check("nx_layout_identical", "b", b)) return false;
  if (!nx__layout_width(wa) || !nx__layout_width(wb)) {
    nx__fail(NX_EINVAL, "nx_layout_identical: widths %d and %d are not each a dtype's (1, 4, 8, 16, 32, 64 or 128)", wa,
             wb);
    return false;
  }
  if (wa != wb || a->rank != b->rank) return false;
  for (int j = 0; j < a->rank; j++)
    if (a->extent[j] != b->extent[j]) return false;
  if (empty(a)) return true;
  if (a->offset != b->offset) return false;
  for (int j = 0; j < a->rank; j++)
    if (a->extent[j] > 1 && a->stride[j] != b->stride[j]) return false;
  return true;
}

/* ---- Sharing a byte ---------------------------------------------------- */

/* The bytes a layout's elements touch, as an affine form: base + sum c_i x_i
   + t, 0 <= x_i <= u_i, 0 <= t < slack. */
typedef struct {
  i128 base, slack;
  int n;
  i128 c[NX_MAX_RANK], u[NX_MAX_RANK];
} form;

/* The forms of a layout of elements `w` bits wide, one per combination of
   residues below, passed to f until it answers true (or work runs out).
   A byte or more: element p's bytes are p * w/8 + t, 0 <= t < w/8, one form.
   Narrower, m = 8/w elements to a byte: element p is in byte floor(p / m),
   affine only in steps that are multiples of m. Split each axis of stride s
   by x = m' y + z, m' = m / gcd(s, m): then s m' is a multiple of m, and each
   combination of the z's gives a form in the y's. */
typedef bool (*form_fn)(const form *f, void *ctx, long *work);

static i128 floor_div(i128 a, i128 b) {
  i128 q = a / b;
  return q * b > a ? q - 1 : q;
}

static int64_t gcd64(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  while (b) { int64_t t = a % b; a = b; b = t; }
  return a;
}

static bool each_form(const nx_layout *l, int w, form_fn f, void *ctx, long *work) {
  form fm;
  memset(&fm, 0, sizeof fm);
  if (w >= 8) {
    int64_t wb = w / 8;
    fm.base = (i128)l->offset * wb;
    fm.slack = wb;
    for (int j = 0; j < l->rank; j++)
      if (l->extent[j] > 1 && l->stride[j] != 0) {
        fm.c[fm.n] = (i128)l->stride[j] * wb;
        fm.u[fm.n++] = l->extent[j] - 1;
      }
    return f(&fm, ctx, work);
  }
  int64_t m = 8 / w, mp[NX_MAX_RANK], z[NX_MAX_RANK] = {0};
  int split[NX_MAX_RANK], ns = 0;
  fm.slack = 1;
  for (int j = 0; j < l->rank; j++) {
    if (l->extent[j] <= 1 || l->stride[j] == 0) continue;
    mp[j] = m / gcd64(l->stride[j], m);
    if (mp[j] == 1) {
      fm.c[fm.n] = l->stride[j] / m;
      fm.u[fm.n++] = l->extent[j] - 1;
    } else {
      split[ns++] = j;
    }
  }
  for (;;) { /* every combination of residues, as an odometer */
    if (--*work < 0) return true; /* out of steps: they may share */
    form g = fm;
    i128 p0 = l->offset;
    bool ok = true;
    for (int k = 0; k < ns; k++) {
      int j = split[k];
      if (z[k] >= l->extent[j]) { ok = false; break; }
      p0 += (i128)l->stride[j] * z[k];
      g.c[g.n] = (i128)l->stride[j] * mp[j] / m;
      g.u[g.n++] = (l->extent[j] - 1 - z[k]) / mp[j];
    }
    g.base = floor_div(p0, m);
    if (ok && f(&g, ctx, work)) return true;
    int k = 0;
    while (k < ns && ++z[k] == mp[split[k]]) z[k++] = 0;
    if (k == ns) return false;
  }
}

/* Whether form a and form b share a byte: a solution of
   a.base + sum a.c x + t = b.base + sum b.c y + t'. */
static bool forms_meet(const form *a, const form *b, long *work) {
  nx__equation e;
  i128 rhs = b->base - a->base;
  e.n = 0;
  e.avoid = NULL;
  /* Terms of a with their signs, of b negated, the slacks +1 and -1: every
     negative coefficient c over [0, u] mirrors to |c| over x' = u - x. */
  const form *fs[2] = {a, b};
  for (int side = 0; side < 2; side++) {
    const form *f = fs[side];
    for (int i = 0; i <= f->n; i++) {
      i128 c = i < f->n ? f->c[i] : 1, u = i < f->n ? f->u[i] : f->slack - 1;
      if (side) c = -c;
      if (c == 0 || u == 0) continue;
      if (c < 0) { rhs -= c * u; c = -c; }
      e.a[e.n] = c;
      e.ub[e.n++] = u;
    }
  }
  e.target = rhs;
  nx__answer r = nx__solve(&e, work);
  return r != NX__NO; /* too hard: they may share */
}

typedef struct {
  const nx_layout *b;
  int wb;
  const form *fa;
} pair_ctx;

static bool inner(const form *fb, void *ctx, long *work) {
  pair_ctx *p = ctx;
  return forms_meet(p->fa, fb, work);
}

static bool outer(const form *fa, void *ctx, long *work) {
  pair_ctx *p = ctx;
  p->fa = fa;
  return each_form(p->b, p->wb, inner, p, work);
}

bool nx_layout_shares_byte(const nx_layout *a, int wa, const nx_layout *b, int wb) {
  static const char fn[] = "nx_layout_shares_byte";
  if (nx__layout_check(fn, "a", a) || nx__layout_check(fn, "b", b)) return true; /* cannot tell: they may */
  if (!nx__layout_width(wa) || !nx__layout_width(wb)) {
    nx__fail(NX_EINVAL, "%s: widths %d and %d are not each a dtype's (1, 4, 8, 16, 32, 64 or 128)", fn, wa, wb);
    return true;
  }
  if (empty(a) || empty(b)) return false;
  /* The byte ranges first: disjoint ones share nothing. */
  int64_t la, ha, lb, hb;
  nx__layout_span(a, &la, &ha);
  nx__layout_span(b, &lb, &hb);
  i128 a0 = floor_div((i128)la * wa, 8), a1 = floor_div(((i128)ha + 1) * wa - 1, 8);
  i128 b0 = floor_div((i128)lb * wb, 8), b1 = floor_div(((i128)hb + 1) * wb - 1, 8);
  if (a1 < b0 || b1 < a0) return false;
  if (nx_layout_identical(a, wa, b, wb)) return true;
  long work = NX_LAYOUT_WORK;
  pair_ctx p = {b, wb, NULL};
  return each_form(a, wa, outer, &p, &work);
}
