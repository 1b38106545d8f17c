/* SPDX-License-Identifier: Apache-2.0 */
/* Dims and rows: making them, substituting the solution into them (with
   path compression, so that long chains of bindings stay linear), comparing
   and printing them. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "solver.h"
#include "../base/alloc.h"

/* Room for variable ids up to n - 1: whole pages of variables (a page
   never moves, so nothing is copied as the session grows; one a freed
   session left is reused, cache.c), and the opnd bits by doubling. The log's table (vsaved) grows only when a snapshot is
   taken. */
int nx__shape_vars_reserve(nx_shape_session *s, int n) {
  if (n <= s->capvars) return 0;
  int pages = (int)(((int64_t)n + NX__VPAGE - 1) >> NX__VPAGE_BITS);
  int nw = s->nopnd_words, words = pages * (NX__VPAGE / 64);
  if (nx__shape_grow((void **)&s->opnd_bits, &nw, words, sizeof *s->opnd_bits, words)) return NX_ENOMEM;
  memset(s->opnd_bits + s->nopnd_words, 0, (size_t)(nw - s->nopnd_words) * sizeof *s->opnd_bits);
  s->nopnd_words = nw;
  if (nx__shape_grow((void **)&s->vpages, &s->capvpages, pages, sizeof *s->vpages, 8)) return NX_ENOMEM;
  while (s->nvpages < pages) {
    nx__vpage *p = nx__shape_cache_take(NX__CACHE_VPAGE, sizeof *p);
    if (!p) p = nx__malloc(sizeof *p);
    if (!p) return NX_ENOMEM;
    s->vpages[s->nvpages++] = p;
    s->capvars = s->nvpages > INT_MAX >> NX__VPAGE_BITS ? INT_MAX : s->nvpages * NX__VPAGE;
  }
  return 0;
}

static const nx__var zero_var; /* all bits zero, padding too: copied, not a string store */

/* Makes slot id a fresh variable (through the log: a reserved slot is older
   than a snapshot). */
static inline int init_var(nx_shape_session *s, int id, bool is_row, const char *name) {
  nx__var *v = NX__VAR(s, id);
  *v = zero_var;
  nx__shape_set_val(s, id, (nx__val){.d = NULL});
  nx__shape_set_self(s, id, (nx__val){.d = NULL});
  v->is_row = is_row;
  v->up = id;
  if (!name) return 0; /* most variables are unnamed: no call */
  v->name = nx__shape_strdup(s, name);
  return v->name ? 0 : NX_ENOMEM;
}

/* A fresh variable (id > 0, its name copied): the next id of an entered
   range while it lasts, else the next of the session; NX_ENOMEM. */
int nx__shape_new_var(nx_shape_session *s, bool is_row, const char *name) {
  bool ranged = s->ids.on && s->ids.var_next < s->ids.var_end;
  if (!ranged && s->nvars >= s->capvars && (s->nvars == INT_MAX || nx__shape_vars_reserve(s, s->nvars + 1)))
    return NX_ENOMEM;
  int id = ranged ? s->ids.var_next : s->nvars;
  if (init_var(s, id, is_row, name)) return NX_ENOMEM; /* one call site: inlined */
  if (ranged) s->ids.var_next++;
  else s->nvars++;
  return id;
}

/* A solved dim; the reserved bases are shared strings, a user basis is
   copied. NULL on out of memory. */
const nx_dim *nx__shape_dim_solved(nx_shape_session *s, int64_t d, const char *basis) {
  nx_dim *x = nx__shape_alloc(s, NX__DIM_SOLVED_SIZE);
  if (!x) return NULL;
  x->kind = NX__D_SOLVED;
  x->d = d;
  if (!basis || !strcmp(basis, NX_BASIS_DEFAULT)) x->basis = NX_BASIS_DEFAULT;
  else if (!strcmp(basis, NX_BASIS_BCAST)) x->basis = NX_BASIS_BCAST;
  else x->basis = nx__shape_strdup(s, basis);
  return x->basis ? x : NULL;
}

const nx_dim *nx__shape_dim_var_new(nx_shape_session *s, int v) {
  nx_dim *x = nx__shape_alloc_in(&s->self_chunks, NX__DIM_VAR_SIZE);
  if (!x) return NULL;
  x->kind = NX__D_VAR;
  x->var = v;
  nx__shape_set_self(s, v, (nx__val){.d = x});
  return x;
}

const nx_row *nx__shape_row_new(nx_shape_session *s, const nx_dim *const *beg, int nbeg, const nx_dim *const *dims,
                          int ndims, int var) {
  nx_row *r = nx__shape_alloc(s, sizeof *r + (size_t)(nbeg + ndims) * sizeof(nx_dim *));
  if (!r) return NULL;
  const nx_dim **all = (const nx_dim **)(r + 1);
  for (int i = 0; i < nbeg; i++) all[i] = beg[i]; /* a few dims: copied by hand, not by calls */
  for (int i = 0; i < ndims; i++) all[nbeg + i] = dims[i];
  r->beg = all;
  r->dims = all + nbeg;
  r->nbeg = nbeg;
  r->ndims = ndims;
  r->var = var;
  return r;
}

const nx_row *nx__shape_row_of_var_new(nx_shape_session *s, int v) {
  nx_row *r = nx__shape_alloc_in(&s->self_chunks, sizeof *r);
  if (!r) return NULL;
  r->beg = r->dims = (const nx_dim **)(r + 1);
  r->var = v;
  nx__shape_set_self(s, v, (nx__val){.r = r});
  return r;
}

bool nx__shape_is_top(const nx_dim *d) { return d->kind == NX__D_SOLVED && d->d == 1 && !strcmp(d->basis, NX_BASIS_BCAST); }

bool nx__shape_basis_is(const nx_dim *d, const char *basis) { return !strcmp(d->basis, basis); }

/* The size of a convolution or affine axis, or false if it is past int64. */
static bool conv_size(int64_t stride, int64_t over, int64_t dilation, int64_t kernel, bool pad, int64_t *out) {
  int64_t a, b;
  if (pad) return !__builtin_mul_overflow(stride, over, out);
  return !__builtin_mul_overflow(stride, over - 1, &a) && !__builtin_mul_overflow(kernel - 1, dilation, &b) &&
         !__builtin_add_overflow(a, b, &a) && !__builtin_add_overflow(a, 1, out);
}

static bool reserved(const char *b) { return !strcmp(b, NX_BASIS_DEFAULT) || !strcmp(b, NX_BASIS_BCAST); }

const char *nx__shape_basis_merge(const char *a, const char *b) {
  if (!strcmp(a, b) || reserved(b)) return a;
  return reserved(a) ? b : NULL;
}

const char *nx__shape_basis_of_parts(const nx_dim *const *d, int n) {
  const char *named = NULL;
  for (int i = 0; i < n; i++) {
    if (reserved(d[i]->basis)) continue;
    if (named && strcmp(named, d[i]->basis)) return NULL;
    named = d[i]->basis;
  }
  return named ? named : NX_BASIS_DEFAULT;
}

/* A shape error met by a substitution (a size past int64, conflicting
   bases): substitution cannot fail, so it keeps the unsolved form and
   records the error, which the solver reports at the constraint it is
   running (or at the next solve). */
void nx__shape_subst_fail(nx_shape_session *s, const char *fmt, ...) {
  if (s->subst_failed) return;
  s->subst_failed = true;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->subst_what, sizeof s->subst_what, fmt, ap);
  va_end(ap);
}

static void overflow(nx_shape_session *s, const char *what, int64_t x, int64_t y) {
  nx__shape_subst_fail(s, "dimension size past int64: %s of %lld and %lld", what, (long long)x, (long long)y);
}

/* The names of two dims' bases, for a conflict's message. */
static void conflict(nx_shape_session *s, const char *what, const nx_dim *a, const nx_dim *b) {
  char x[128], y[128];
  nx__shape_dim_print(s, a, x, sizeof x);
  nx__shape_dim_print(s, b, y, sizeof y);
  nx__shape_subst_fail(s, "%s (%s vs %s)", what, x, y);
}

#define NX__CONV_CONFLICT "convolution: conflicting dimension bases between stride and kernel"
#define NX__CONCAT_CONFLICT "concat: conflicting dimension bases"

/* An affine axis with over (and kernel) substituted: as OCANNL's s_dim_one,
   a stride-1 axis without a kernel or with padding is its over; a solved
   one takes over's basis, merged with the kernel's for a convolution. */
static const nx_dim *affine_sub(nx_shape_session *s, const nx_dim *d) {
  const nx_dim *o = nx__shape_dsub(s, d->over);
  const nx_dim *k = d->kernel ? nx__shape_dsub(s, d->kernel) : NULL;
  if (d->stride == 1 && (!k || d->use_padding)) return o;
  int64_t size;
  if (o->kind == NX__D_SOLVED && (!k || k->kind == NX__D_SOLVED)) {
    const char *basis = k ? nx__shape_basis_merge(o->basis, k->basis) : o->basis;
    if (!basis) conflict(s, NX__CONV_CONFLICT, o, k);
    else if (conv_size(d->stride, o->d, d->dilation, k ? k->d : 1, !k || d->use_padding, &size))
      return nx__shape_dim_solved(s, size, basis);
    else overflow(s, "an axis of stride and size", d->stride, o->d);
  }
  if (o == d->over && k == d->kernel) return d;
  nx_dim *x = nx__shape_alloc(s, sizeof *x);
  if (!x) return d;
  *x = *d;
  x->over = o;
  x->kernel = k;
  return x;
}

/* A concatenation with its parts substituted, nested ones flattened and
   parts of size 0 dropped: none left is 0, one is that part, all solved is
   their sum with their common named basis. */
static const nx_dim *concat_sub(nx_shape_session *s, const nx_dim *d) {
  int n = 0, cap = d->nparts;
  const nx_dim **parts = nx__shape_alloc(s, (size_t)cap * sizeof *parts);
  if (!parts) return d;
  bool solved = true, same = true;
  for (int i = 0; i < d->nparts; i++) {
    const nx_dim *p = nx__shape_dsub(s, d->parts[i]);
    same = same && p == d->parts[i] && p->kind != NX__D_CONCAT;
    int m = p->kind == NX__D_CONCAT ? p->nparts : 1;
    const nx_dim *const *ps = p->kind == NX__D_CONCAT ? p->parts : &p;
    if (n + m > cap) {
      int nc = cap + m + d->nparts;
      const nx_dim **q = nx__shape_alloc(s, (size_t)nc * sizeof *q);
      if (!q) return d;
      memcpy(q, parts, (size_t)n * sizeof *q);
      parts = q;
      cap = nc;
    }
    for (int j = 0; j < m; j++) {
      if (ps[j]->kind == NX__D_SOLVED && ps[j]->d == 0) {
        same = false;
        continue;
      }
      solved = solved && ps[j]->kind == NX__D_SOLVED;
      parts[n++] = ps[j];
    }
  }
  if (n == 0) return s->zero;
  if (n == 1) return parts[0];
  if (solved) {
    int64_t sum = 0;
    for (int i = 0; i < n && solved; i++) {
      int64_t t;
      if (__builtin_add_overflow(sum, parts[i]->d, &t)) {
        overflow(s, "a concatenation's sum", sum, parts[i]->d);
        solved = false;
      }
      sum = t;
    }
    const char *basis = nx__shape_basis_of_parts(parts, n);
    if (!basis) {
      char x[128];
      nx__shape_dim_print(s, d, x, sizeof x);
      nx__shape_subst_fail(s, "%s (%s)", NX__CONCAT_CONFLICT, x);
    } else if (solved)
      return nx__shape_dim_solved(s, sum, basis);
  }
  if (same) return d;
  nx_dim *x = nx__shape_alloc(s, sizeof *x);
  if (!x) return d;
  *x = *d;
  x->parts = parts;
  x->nparts = n;
  return x;
}

/* d under the solution, past the common cases of nx__shape_dsub (session.h);
   a variable's chain is compressed to its end. */
const nx_dim *nx__shape_dsub_rest(nx_shape_session *s, const nx_dim *d) {
  switch (d->kind) {
  case NX__D_VAR: {
    const nx_dim *x = NX__VAL(s, d->var).d;
    if (!x) return d;
    const nx_dim *v = nx__shape_dsub(s, x);
    if (v != x) nx__shape_set_val(s, d->var, (nx__val){.d = v}); /* path compression */
    return v;
  }
  case NX__D_AFFINE: return affine_sub(s, d);
  case NX__D_CONCAT: return concat_sub(s, d);
  }
  return d;
}

/* r with its row variable's solution rv spliced in, past the common cases of
   nx__shape_rsub (session.h): {l; r; v} with v := {l'; r'; b'} is
   {l@l'; r'@r; b'}. */
const nx_row *nx__shape_rsub_rest(nx_shape_session *s, const nx_row *r, const nx_row *rv) {
  const nx_row *v = nx__shape_rsub(s, rv);
  if (v != rv) nx__shape_set_val(s, r->var, (nx__val){.r = v}); /* path compression */
  if (!r->nbeg && !r->ndims) return v;
  int nb = r->nbeg + v->nbeg, nd = v->ndims + r->ndims;
  nx_row *x = nx__shape_alloc(s, sizeof *x + (size_t)(nb + nd) * sizeof(nx_dim *));
  if (!x) return r;
  const nx_dim **all = (const nx_dim **)(x + 1), **p = all; /* a few dims: copied by hand, not by calls */
  for (int i = 0; i < r->nbeg; i++) *p++ = r->beg[i];
  for (int i = 0; i < v->nbeg + v->ndims; i++) *p++ = v->beg[i]; /* v's beg and dims are contiguous */
  for (int i = 0; i < r->ndims; i++) *p++ = r->dims[i];
  x->beg = all;
  x->dims = all + nb;
  x->nbeg = nb;
  x->ndims = nd;
  x->var = v->var;
  return x;
}

/* r with its row variable and every dim substituted; r itself where nothing changed. */
const nx_row *nx__shape_rsub_full(nx_shape_session *s, const nx_row *r) {
  const nx_row *x = nx__shape_rsub(s, r);
  int n = x->nbeg + x->ndims;
  const nx_dim *buf[64], **all = n <= 64 ? buf : nx__malloc((size_t)n * sizeof *all);
  if (!all) return x;
  bool same = true;
  for (int i = 0; i < n; i++) {
    all[i] = nx__shape_dsub(s, x->beg[i]); /* beg and dims are contiguous */
    same = same && all[i] == x->beg[i];
  }
  const nx_row *y = same ? x : nx__shape_row_new(s, all, x->nbeg, all + x->nbeg, x->ndims, x->var);
  if (all != buf) nx__free(all);
  return y ? y : x;
}

/* Structural equality (not under the solution). */
bool nx__shape_dim_equal(const nx_dim *a, const nx_dim *b) {
  if (a == b) return true;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case NX__D_SOLVED: return a->d == b->d && !strcmp(a->basis, b->basis);
  case NX__D_VAR: return a->var == b->var;
  case NX__D_AFFINE:
    return a->stride == b->stride && a->offset == b->offset && nx__shape_dim_equal(a->over, b->over) &&
           (a->kernel == b->kernel || (a->kernel && b->kernel && nx__shape_dim_equal(a->kernel, b->kernel)));
  case NX__D_CONCAT:
    if (a->nparts != b->nparts) return false;
    for (int i = 0; i < a->nparts; i++)
      if (!nx__shape_dim_equal(a->parts[i], b->parts[i])) return false;
    return true;
  }
  return false;
}

/* Whether v occurs in d (the occurs check; d substituted by the caller). */
bool nx__shape_dim_has_var(const nx_dim *d, int v) {
  switch (d->kind) {
  case NX__D_VAR: return d->var == v;
  case NX__D_AFFINE: return nx__shape_dim_has_var(d->over, v) || (d->kernel && nx__shape_dim_has_var(d->kernel, v));
  case NX__D_CONCAT:
    for (int i = 0; i < d->nparts; i++)
      if (nx__shape_dim_has_var(d->parts[i], v)) return true;
  }
  return false;
}

/* Appends to buf at *len, never past cap; *len keeps the full length, so a
   caller learns the size it needs whatever the names' lengths. */
void nx__shape_put(char *buf, size_t cap, size_t *len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(*len < cap ? buf + *len : NULL, *len < cap ? cap - *len : 0, fmt, ap);
  va_end(ap);
  if (n > 0) *len += (size_t)n;
}

/* Prints d as OCANNL's dim_to_string does: a solved dim as its size, or
   label=size for a user basis (its basis alone when bases_only, OCANNL's
   Only_bases); a variable as $id or $id:name in every style; an affine dim
   as stride*over+offset, the stride left out when 1 and the offset when 0;
   a convolution as conv(stride*over+offset+dilation*kernel), the dilation
   left out when 1 and the padding never shown; a concatenation as (a^b). */
void nx__shape_dim_put_as(nx_shape_session *s, const nx_dim *d, bool bases_only, char *buf, size_t cap, size_t *len) {
  switch (d->kind) {
  case NX__D_SOLVED:
    if (bases_only) nx__shape_put(buf, cap, len, "%s", d->basis);
    else if (!strcmp(d->basis, NX_BASIS_DEFAULT) || !strcmp(d->basis, NX_BASIS_BCAST))
      nx__shape_put(buf, cap, len, "%lld", (long long)d->d);
    else nx__shape_put(buf, cap, len, "%s=%lld", d->basis, (long long)d->d);
    return;
  case NX__D_VAR:
    if (NX__VARR(s, d->var)->name) nx__shape_put(buf, cap, len, "$%d:%s", d->var, NX__VARR(s, d->var)->name);
    else nx__shape_put(buf, cap, len, "$%d", d->var);
    return;
  case NX__D_AFFINE:
    if (d->kernel) nx__shape_put(buf, cap, len, "conv(");
    if (d->stride != 1) nx__shape_put(buf, cap, len, "%lld*", (long long)d->stride);
    nx__shape_dim_put_as(s, d->over, bases_only, buf, cap, len);
    if (d->offset) nx__shape_put(buf, cap, len, "+%lld", (long long)d->offset);
    if (d->kernel) {
      nx__shape_put(buf, cap, len, "+");
      if (d->dilation != 1) nx__shape_put(buf, cap, len, "%lld*", (long long)d->dilation);
      nx__shape_dim_put_as(s, d->kernel, bases_only, buf, cap, len);
      nx__shape_put(buf, cap, len, ")");
    }
    return;
  case NX__D_CONCAT:
    nx__shape_put(buf, cap, len, "(");
    for (int i = 0; i < d->nparts; i++) {
      if (i) nx__shape_put(buf, cap, len, "^");
      nx__shape_dim_put_as(s, d->parts[i], bases_only, buf, cap, len);
    }
    nx__shape_put(buf, cap, len, ")");
  }
}

void nx__shape_dim_put(nx_shape_session *s, const nx_dim *d, char *buf, size_t cap, size_t *len) {
  nx__shape_dim_put_as(s, d, false, buf, cap, len);
}

int nx__shape_dim_print(nx_shape_session *s, const nx_dim *d, char *buf, size_t cap) {
  size_t len = 0;
  if (cap) buf[0] = 0;
  nx__shape_dim_put(s, d, buf, cap, &len);
  return (int)len;
}

/* Prints r as `beg,..v..,dims` (`()` for the closed empty row); the full length. */
int nx__shape_row_print(nx_shape_session *s, const nx_row *r, char *buf, size_t cap) {
  size_t len = 0;
  if (cap) buf[0] = 0;
  bool first = true;
  for (int i = 0; i < r->nbeg; i++, first = false) {
    if (!first) nx__shape_put(buf, cap, &len, ",");
    nx__shape_dim_put(s, r->beg[i], buf, cap, &len);
  }
  if (r->var) {
    if (!first) nx__shape_put(buf, cap, &len, ",");
    if (NX__VARR(s, r->var)->name) nx__shape_put(buf, cap, &len, "..%s..", NX__VARR(s, r->var)->name);
    else nx__shape_put(buf, cap, &len, "..$%d..", r->var);
    first = false;
  }
  for (int i = 0; i < r->ndims; i++, first = false) {
    if (!first) nx__shape_put(buf, cap, &len, ",");
    nx__shape_dim_put(s, r->dims[i], buf, cap, &len);
  }
  if (first) nx__shape_put(buf, cap, &len, "()");
  return (int)len;
}
