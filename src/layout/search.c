/* SPDX-License-Identifier: Apache-2.0 */
/* A bounded exact search for a solution of sum a_i x_i = t, 0 <= x_i <= u_i,
   after numpy's solve_diophantine (mem_overlap.c). Terms go by decreasing
   coefficient; each level tries the values of its variable that keep the rest
   reachable (within the suffix's range, and a multiple of the suffix's gcd),
   and the last two variables are solved in closed form with extended Euclid. */
#include <stdlib.h>

#include "search.h"

typedef nx__i128 i128;

static i128 gcd(i128 a, i128 b) {
  while (b) { i128 t = a % b; a = b; b = t; }
  return a < 0 ? -a : a;
}

/* a*p + b*q = gcd(a, b) for a, b > 0. */
static i128 euclid(i128 a, i128 b, i128 *p, i128 *q) {
  i128 p0 = 1, q0 = 0, p1 = 0, q1 = 1;
  while (b) {
    i128 k = a / b, t;
    t = a - k * b; a = b; b = t;
    t = p0 - k * p1; p0 = p1; p1 = t;
    t = q0 - k * q1; q0 = q1; q1 = t;
  }
  *p = p0;
  *q = q0;
  return a;
}

/* a * b mod m for 0 <= a, b < m < 2^126, by doubling: the product itself
   may pass 128 bits. */
static i128 mulmod(i128 a, i128 b, i128 m) {
  i128 r = 0;
  while (b) {
    if (b & 1) r = (r + a) % m;
    a = (a + a) % m;
    b >>= 1;
  }
  return r;
}

static i128 floor_div(i128 a, i128 b) { /* b > 0 */
  i128 q = a / b;
  return q * b > a ? q - 1 : q;
}
static i128 ceil_div(i128 a, i128 b) { return -floor_div(-a, b); }

typedef struct {
  nx__equation *e;
  i128 sum[NX__TERMS + 1], g[NX__TERMS + 1]; /* suffix sums of a*ub, suffix gcds */
  i128 x[NX__TERMS];
  long *work;
  bool hard;
} state;

/* Whether the prefix chosen so far equals the avoided solution's. */
static bool on_avoid(const state *s, int upto) {
  if (!s->e->avoid) return false;
  for (int i = 0; i < upto; i++)
    if (s->x[i] != s->e->avoid[i]) return false;
  return true;
}

/* The last two variables: a x + b y = t in closed form. */
static bool solve2(state *s, int i, i128 t) {
  const nx__equation *e = s->e;
  i128 a = e->a[i], b = e->a[i + 1], X = e->ub[i], Y = e->ub[i + 1], p, q;
  i128 g = euclid(a, b, &p, &q);
  if (t % g) return false;
  /* x = x0 + (b/g) k, y = y0 - (a/g) k, x0 the least x >= 0. */
  i128 bg = b / g, ag = a / g, pm = p % bg;
  if (pm < 0) pm += bg;
  i128 x0 = mulmod(pm, (t / g) % bg, bg);
  if (x0 > X) return false;
  i128 y0 = (t - a * x0) / b;
  i128 lo = ceil_div(-x0, bg), hi = floor_div(X - x0, bg);
  i128 lo2 = ceil_div(y0 - Y, ag), hi2 = floor_div(y0, ag);
  if (lo2 > lo) lo = lo2;
  if (hi2 < hi) hi = hi2;
  if (lo > hi) return false;
  if (hi > lo || !on_avoid(s, i)) return true;
  /* One solution: it counts unless it is the avoided one. */
  return !(x0 + bg * lo == e->avoid[i] && y0 - ag * lo == e->avoid[i + 1]);
}

static bool search(state *s, int i, i128 t) {
  const nx__equation *e = s->e;
  int n = e->n;
  if (t < 0 || t > s->sum[i] || t % s->g[i]) return false;
  if (i == n - 1) {
    s->x[i] = t / e->a[i];
    return !on_avoid(s, n);
  }
  if (i == n - 2) return solve2(s, i, t);
  /* x must leave t - a x in [0, sum[i+1]] and a multiple of g[i+1]. */
  i128 a = e->a[i], g = s->g[i + 1];
  i128 lo = ceil_div(t - s->sum[i + 1], a), hi = floor_div(t, a);
  if (lo < 0) lo = 0;
  if (hi > e->ub[i]) hi = e->ub[i];
  i128 p, q, d = euclid(a, g, &p, &q), step = g / d;
  if (lo > hi || t % d) return false;
  /* a x = t (mod g): x = (t/d) p (mod g/d). */
  i128 pm = p % step;
  if (pm < 0) pm += step;
  i128 r = mulmod((t / d) % step, pm, step);
  i128 x = lo + ((r - lo) % step + step) % step;
  for (; x <= hi; x += step) {
    if (--*s->work < 0) { s->hard = true; return false; }
    s->x[i] = x;
    if (search(s, i + 1, t - a * x)) return true;
    if (s->hard) return false;
  }
  return false;
}

static int by_coefficient(const void *p, const void *q) {
  const i128 *a = p, *b = q;
  return *a < *b ? 1 : *a > *b ? -1 : 0;
}

nx__answer nx__solve(nx__equation *e, long *work) {
  state s;
  /* Sort the terms by decreasing coefficient, their bounds and any avoided
     values with them: an index sort over (a, ub, avoid) triples. */
  i128 rows[NX__TERMS][3], avoid[NX__TERMS];
  for (int i = 0; i < e->n; i++) {
    rows[i][0] = e->a[i];
    rows[i][1] = e->ub[i];
    rows[i][2] = e->avoid ? e->avoid[i] : 0;
  }
  qsort(rows, (size_t)e->n, sizeof rows[0], by_coefficient);
  for (int i = 0; i < e->n; i++) {
    e->a[i] = rows[i][0];
    e->ub[i] = rows[i][1];
    avoid[i] = rows[i][2];
  }
  if (e->avoid) e->avoid = avoid;
  if (e->n == 0) return e->target == 0 && !e->avoid ? NX__YES : NX__NO;
  s.e = e;
  s.work = work;
  s.hard = false;
  s.sum[e->n] = 0;
  s.g[e->n] = 0;
  for (int i = e->n - 1; i >= 0; i--) {
    s.sum[i] = s.sum[i + 1] + e->a[i] * e->ub[i];
    s.g[i] = gcd(e->a[i], s.g[i + 1]);
  }
  bool found = search(&s, 0, e->target);
  e->avoid = NULL; /* it pointed into this frame */
  return found ? NX__YES : s.hard ? NX__TOO_HARD : NX__NO;
}
