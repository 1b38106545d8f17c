/* SPDX-License-Identifier: Apache-2.0 */
/* Gather and scatter along an axis with int32 indices. Every index is
   checked before any write; the walks run in C order of the indices, so a
   scatter's later update to an element wins (Set) or adds after the earlier
   ones (Add: each sum rounded once, in that order). */
#include "nx_index.h"
#include "walk.h"

typedef struct gctx {
  int axis, mode;
  bool scatter;
  int status;             /* NX_EINVAL for an index out of range */
  int64_t bad_at, bad, n; /* the flat position in the indices, its value, the extent */
} gctx;

static bool other_axes_fit(const nx_layout *a, const nx_layout *b, int axis) {
  if (a->rank != b->rank) return false;
  for (int j = 0; j < a->rank; j++)
    if (j != axis && a->extent[j] != b->extent[j]) return false;
  return true;
}

static bool same_shape(const nx_layout *a, const nx_layout *b) {
  if (a->rank != b->rank) return false;
  for (int j = 0; j < a->rank; j++)
    if (a->extent[j] != b->extent[j]) return false;
  return true;
}

static int64_t count(const nx_layout *l) {
  int64_t c = 1;
  for (int j = 0; j < l->rank; j++) c *= l->extent[j];
  return c;
}

/* Every index in [0, n), or the first one that is not in c. */
static bool indices_in_range(gctx *c, const nx_operand *ix, int64_t n) {
  if (count(ix->layout) == 0) return true;
  const int64_t *str[1] = {ix->layout->stride};
  int64_t p0[1] = {ix->layout->offset};
  nx__walker w;
  nx__walk_init(&w, ix->layout->rank, ix->layout->extent, 1, p0, str, NULL);
  int64_t flat = 0;
  do {
    int32_t v;
    memcpy(&v, (char *)ix->base + w.pos[0] * 4, 4);
    if (v < 0 || v >= n) {
      c->status = NX_EINVAL, c->bad_at = flat, c->bad = v, c->n = n;
      return false;
    }
    flat++;
  } while (nx__walk_next(&w));
  return true;
}

/* ops: z, x, idx (gather) or z, idx, u (scatter; z the template, updated). */
static nx_answer kernel(void *vc, const nx_operand *ops, int nw, int nr) {
  gctx *c = vc;
  (void)nw;
  (void)nr;
  const nx_operand *z = &ops[0], *x = c->scatter ? &ops[2] : &ops[1], *ix = c->scatter ? &ops[1] : &ops[2];
  if (ix->dtype != NX_INT32 || z->dtype != x->dtype) return NX_WRONG_DTYPE;
  /* gather: z of idx's shape, x equal on the other axes; scatter: idx and u
     of one shape, z equal to them on the other axes */
  const nx_layout *big = c->scatter ? z->layout : x->layout, *small = c->scatter ? x->layout : z->layout;
  if (!same_shape(ix->layout, small) || !other_axes_fit(big, small, c->axis)) return NX_SHAPE_MISMATCH;
  int k = nx_dtype_kind_of(z->dtype);
  if (c->scatter && c->mode == NX_SCATTER_ADD && (k == NX_KIND_BOOLEAN)) return NX_DECLINED;
  if (!indices_in_range(c, ix, big->extent[c->axis]) || count(small) == 0) return NX_DONE;
  int bits = nx_dtype_bits_of(z->dtype);
  /* walk the small shape: the big operand's axis position comes from idx */
  int64_t bstr[NX_MAX_RANK];
  for (int j = 0; j < big->rank; j++) bstr[j] = j == c->axis ? 0 : big->stride[j];
  const int64_t *str[3] = {small->stride, ix->layout->stride, bstr};
  int64_t p0[3] = {small->offset, ix->layout->offset, big->offset};
  nx__walker w;
  nx__walk_init(&w, small->rank, small->extent, 3, p0, str, NULL);
  void *sbase = c->scatter ? x->base : z->base, *bbase = c->scatter ? z->base : x->base;
  do {
    int32_t v;
    memcpy(&v, (char *)ix->base + w.pos[1] * 4, 4);
    nx__arg s = nx__at(sbase, bits, w.pos[0]), b = nx__at(bbase, bits, w.pos[2] + (int64_t)v * big->stride[c->axis]);
    if (!c->scatter) nx__move(bits, &s, 0, &b, 0);
    else if (c->mode == NX_SCATTER_SET) nx__move(bits, &b, 0, &s, 0);
    else {
      nx__v acc = nx__load(z->dtype, &b, 0), u = nx__load(z->dtype, &s, 0);
      if (k == NX_KIND_FLOAT) acc.f += u.f;
      else if (k == NX_KIND_COMPLEX) acc.c.re += u.c.re, acc.c.im += u.c.im;
      else acc.u += u.u;
      nx__store(z->dtype, &b, 0, acc);
    }
  } while (nx__walk_next(&w));
  return NX_DONE;
}

static int axis_of(const char *name, const nx_array *x, int axis, int *out) {
  int r = nx_array_layout(x)->rank;
  int a = axis < 0 ? axis + r : axis;
  if (a < 0 || a >= r) {
    char t[160];
    return nx__fail(NX_EINVAL, "%s: axis %d is out of range for %s", name, axis, nx_array_describe(x, t, sizeof t));
  }
  *out = a;
  return 0;
}

static int run_door(const char *name, gctx *c, nx_array *const *ops, nx_array *const *given, bool made) {
  int a = nx_door_host(ops, 1, ops + 1, 2, kernel, c);
  if (a == NX_DONE && c->status) {
    char t[160];
    return nx__fail(c->status, "%s: index %lld at position %lld of %s is out of range [0, %lld)", name,
                    (long long)c->bad, (long long)c->bad_at, nx_array_describe(ops[c->scatter ? 1 : 2], t, sizeof t),
                    (long long)c->n);
  }
  return nx__finish(name, "the host kernel", a, given + made, 3 - made, nx_array_dtype(ops[0]));
}

/* A read operand identical to z (which the door admits) would be read after
   z's writes changed it, an index even past the range checked: it is read
   from a copy made first. A copy that fails for want of memory fails the
   call; one refused for another reason leaves the door to refuse the
   original, with its precedence. */
static int unalias(const char *name, nx_array *z, nx_array **r, nx_array **copy) {
  const nx_layout *lz = nx_array_layout(z), *lr = nx_array_layout(*r);
  int wz = nx_dtype_bits_of(nx_array_dtype(z)), wr = nx_dtype_bits_of(nx_array_dtype(*r));
  if (!nx_buffer_overlaps(nx_array_buffer(z), nx_array_buffer(*r)) || !nx_layout_identical(lz, wz, lr, wr)) return 0;
  int s = nx_copy_new(copy, *r);
  if (s == NX_ENOMEM) return nx__fail_as(name, s);
  if (s == 0) *r = *copy;
  return 0;
}

/* made: given[0] is the result nx_gather_new made, which refusals do not
   name (nx_scatter_new's is a copy of the caller's template: named). */
static int run(const char *name, gctx *c, nx_array *const *given, bool made) {
  nx_array *ops[3] = {given[0], given[1], given[2]}, *copy[2] = {NULL, NULL};
  int a = unalias(name, ops[0], &ops[1], &copy[0]);
  if (a == 0) a = unalias(name, ops[0], &ops[2], &copy[1]);
  if (a == 0) a = run_door(name, c, ops, given, made);
  nx_array_free(copy[0]);
  nx_array_free(copy[1]);
  return a;
}

int nx_gather(nx_array *z, nx_array *x, nx_array *idx, int axis) {
  nx_array *ops[3] = {z, x, idx};
  gctx c = {0};
  int s = nx__need("nx_gather", ops, 3);
  if (s || (s = axis_of("nx_gather", x, axis, &c.axis))) return s;
  return run("nx_gather", &c, ops, false);
}

int nx_gather_new(nx_array **z, nx_array *x, nx_array *idx, int axis) {
  nx_array *ops[2] = {x, idx};
  int s = nx__need("nx_gather_new", ops, 2);
  if (s) return s;
  if (!z) return nx__fail(NX_EINVAL, "nx_gather_new: the result pointer is NULL");
  nx_array *out;
  if ((s = nx__make_like("nx_gather_new", idx, nx_array_dtype(x), &out))) return s;
  nx_array *all[3] = {out, x, idx};
  gctx c = {0};
  if ((s = axis_of("nx_gather_new", x, axis, &c.axis)) || (s = run("nx_gather_new", &c, all, true))) {
    nx_array_free(out);
    return s;
  }
  *z = out;
  return 0;
}

/* A mode that is neither NX_SCATTER_SET nor NX_SCATTER_ADD, named with the
   operands (target, indices, updates). */
static int bad_mode(const char *name, int mode, nx_array *const *ops) {
  char t[3][160];
  return nx__fail(NX_EINVAL, "%s: mode %d is neither NX_SCATTER_SET nor NX_SCATTER_ADD (scatter into %s at %s of %s)", name,
                  mode, nx_array_describe(ops[0], t[0], sizeof t[0]), nx_array_describe(ops[1], t[1], sizeof t[1]),
                  nx_array_describe(ops[2], t[2], sizeof t[2]));
}

int nx_scatter(nx_array *z, nx_array *idx, nx_array *u, int axis, nx_scatter_mode mode) {
  nx_array *ops[3] = {z, idx, u};
  gctx c = {0, (int)mode, true, 0, 0, 0, 0};
  int s = nx__need("nx_scatter", ops, 3);
  if (s || (s = axis_of("nx_scatter", z, axis, &c.axis))) return s;
  if (mode != NX_SCATTER_SET && mode != NX_SCATTER_ADD) return bad_mode("nx_scatter", mode, ops);
  return run("nx_scatter", &c, ops, false);
}

int nx_scatter_new(nx_array **z, nx_array *t, nx_array *idx, nx_array *u, int axis, nx_scatter_mode mode) {
  const char *name = "nx_scatter_new";
  nx_array *ops[3] = {t, idx, u};
  int s = nx__need(name, ops, 3);
  if (s) return s;
  if (!z) return nx__fail(NX_EINVAL, "%s: the result pointer is NULL", name);
  if (mode != NX_SCATTER_SET && mode != NX_SCATTER_ADD) return bad_mode(name, mode, ops);
  nx_array *out;
  gctx c = {0, (int)mode, true, 0, 0, 0, 0};
  if ((s = axis_of(name, t, axis, &c.axis)) || (s = nx_copy_new(&out, t))) return s;
  nx_array *all[3] = {out, idx, u};
  if ((s = run(name, &c, all, false))) {
    nx_array_free(out);
    return s;
  }
  *z = out;
  return 0;
}
