/* Sort and argsort along an axis: stable, ascending or descending, NaN after
   every number in both directions (their order kept), -0 equal to +0. Each
   element becomes a 64-bit key whose unsigned order is the wanted order, and
   a least-significant-digit radix sort by bytes (stable) orders each line,
   skipping the bytes every key of the line shares. */
#include <stdlib.h>

#include "nx_index.h"
#include "walk.h"

#define NAN_KEY UINT64_MAX

static uint64_t key_of(nx_dtype dt, nx__v v, bool desc) {
  uint64_t k;
  switch (nx_dtype_kind_of(dt)) {
  case NX_KIND_FLOAT: {
    if (v.f != v.f) return NAN_KEY;
    double f = v.f == 0 ? 0.0 : v.f; /* -0 sorts with +0 */
    uint64_t b = nx__bits(f);
    k = b >> 63 ? ~b : b | 0x8000000000000000ull;
    /* numbers' keys lie below NAN_KEY - 1 (+inf's is 0xFFF0...) */
    return desc ? NAN_KEY - 1 - k : k;
  }
  case NX_KIND_SIGNED: k = v.u ^ 0x8000000000000000ull; break;
  default: k = v.u; break;
  }
  return desc ? ~k : k;
}

typedef struct sctx {
  bool desc, arg;
  int axis;
  int status;
  nx_dtype zt, xt;
  const nx_layout *zl, *xl;
  char *zb, *xb;
  int64_t lines, n;
} sctx;

/* Sorts (key, index) pairs of one line stably by key; returns the number of
   passes (an odd number leaves the result in k2 and ix2). */
static int radix(uint64_t *k, uint32_t *ix, uint64_t *k2, uint32_t *ix2, int64_t n) {
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

typedef struct scratch {
  uint64_t *k, *k2, *bits, *hi;
  uint32_t *ix, *ix2;
} scratch;

static void sort_line(const sctx *c, scratch *s, int64_t zp, int64_t xp) {
  int64_t n = c->n;
  int xbits = nx_dtype_bits_of(c->xt), zbits = nx_dtype_bits_of(c->zt);
  int64_t xs = c->xl->stride[c->axis], zs = c->zl->stride[c->axis];
  for (int64_t i = 0; i < n; i++) {
    nx__arg a = nx__at(c->xb, xbits, xp + i * xs);
    s->k[i] = key_of(c->xt, nx__load(c->xt, &a, 0), c->desc);
    s->ix[i] = (uint32_t)i;
    s->bits[i] = nx__ld(xbits, &a, 0);
  }
  int passes = radix(s->k, s->ix, s->k2, s->ix2, n);
  const uint32_t *perm = passes % 2 ? s->ix2 : s->ix;
  for (int64_t i = 0; i < n; i++) {
    nx__arg d = nx__at(c->zb, zbits, zp + i * zs);
    if (c->arg) nx__st(32, &d, 0, perm[i]);
    else nx__st(xbits, &d, 0, s->bits[perm[i]]);
  }
}

static void *alloc(size_t n, bool *ok) {
  void *p = malloc(n ? n : 1);
  if (!p) *ok = false;
  return p;
}

static void lines_task(void *vc, int64_t u0, int64_t u1) {
  const sctx *c = vc;
  scratch s;
  bool ok = true;
  size_t n = (size_t)c->n;
  s.k = alloc(8 * n, &ok), s.k2 = alloc(8 * n, &ok), s.bits = alloc(8 * n, &ok);
  s.ix = alloc(4 * n, &ok), s.ix2 = alloc(4 * n, &ok);
  if (!ok) __atomic_store_n(&((sctx *)c)->status, NX_ENOMEM, __ATOMIC_RELAXED);
  else
    for (int64_t u = u0; u < u1; u++) {
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
  free(s.k), free(s.k2), free(s.bits), free(s.ix), free(s.ix2);
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
  if (c->lines * c->n < 65536 || c->lines == 1) lines_task(c, 0, c->lines);
  else nx__parallel(c->lines, 4 * (int64_t)nx_num_threads(), lines_task, c);
  return NX_DONE;
}

static int sort(const char *name, nx_array *z, nx_array *x, int axis, bool desc, bool arg) {
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
  return nx__finish(name, "the host kernel", ans, ops, 2, nx_array_dtype(x));
}

static int sort_new(const char *name, nx_array **z, nx_array *x, int axis, bool desc, bool arg) {
  if (!x) return nx__fail(NX_EINVAL, "%s: operand 0 is NULL", name);
  nx_array *out;
  int s = nx__make_like(name, x, arg ? NX_INT32 : nx_array_dtype(x), &out);
  if (s) return s;
  if ((s = sort(name, out, x, axis, desc, arg))) {
    nx_array_free(out);
    return s;
  }
  *z = out;
  return 0;
}

int nx_sort(nx_array *z, nx_array *x, int axis, bool descending) { return sort("nx_sort", z, x, axis, descending, false); }
int nx_sort_new(nx_array **z, nx_array *x, int axis, bool descending) {
  return sort_new("nx_sort_new", z, x, axis, descending, false);
}
int nx_argsort(nx_array *z, nx_array *x, int axis, bool descending) {
  return sort("nx_argsort", z, x, axis, descending, true);
}
int nx_argsort_new(nx_array **z, nx_array *x, int axis, bool descending) {
  return sort_new("nx_argsort_new", z, x, axis, descending, true);
}
