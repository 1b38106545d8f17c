/* SPDX-License-Identifier: Apache-2.0 */
/* Discardable parts of concatenations (OCANNL's
   compute_block_discardable_vars): a part of a concatenated axis on one
   side of an einsum is discardable (may be 0) when, for every shape on the
   other side, some axis has every component meeting the other parts'
   variables, so the other side can be made of the rest. Closing guesses a
   discardable variable still unconstrained (no lower bound, no at-least) 0
   before stage 6, where another would be guessed 1 at stage 7: `i^j => i`
   takes the first i elements of its operand. */
#include <string.h>

#include "tensor_internal.h"

#define MAXV 64

typedef struct {
  int v[MAXV];
  int n;
} vset;

static void add(vset *x, int v) {
  for (int i = 0; i < x->n; i++)
    if (x->v[i] == v) return;
  if (x->n < MAXV) x->v[x->n++] = v;
}

static bool meets(const vset *a, const vset *b) {
  for (int i = 0; i < a->n; i++)
    for (int j = 0; j < b->n; j++)
      if (a->v[i] == b->v[j]) return true;
  return false;
}

/* The variables a dim of a spec names (OCANNL's vars_of_dim). */
static void vars_of(const nx_dim *d, vset *x) {
  switch (d->kind) {
  case NX__D_VAR: add(x, d->var); break;
  case NX__D_AFFINE:
    vars_of(d->over, x);
    if (d->kernel) vars_of(d->kernel, x);
    break;
  case NX__D_CONCAT:
    for (int i = 0; i < d->nparts; i++) vars_of(d->parts[i], x);
    break;
  }
}

/* The axes of a shape's rows (both flanks): their count, and the i-th. */
static int naxes(const nx_row *const rows[3]) {
  return rows[0]->nbeg + rows[0]->ndims + rows[1]->nbeg + rows[1]->ndims + rows[2]->nbeg + rows[2]->ndims;
}

static const nx_dim *axis_at(const nx_row *const rows[3], int i) {
  for (int k = 0;; k++) {
    int m = rows[k]->nbeg + rows[k]->ndims;
    if (i < m) return i < rows[k]->nbeg ? rows[k]->beg[i] : rows[k]->dims[i - rows[k]->nbeg];
    i -= m;
  }
}

/* Whether some axis of the shape has every component meeting comp. */
static bool covered(const nx_row *const rows[3], const vset *comp) {
  for (int a = 0; a < naxes(rows); a++) {
    const nx_dim *d = axis_at(rows, a);
    bool all = true;
    int n = d->kind == NX__D_CONCAT ? d->nparts : 1;
    for (int j = 0; j < n && all; j++) {
      vset c = {.n = 0};
      vars_of(d->kind == NX__D_CONCAT ? d->parts[j] : d, &c);
      all = meets(&c, comp);
    }
    if (all) return true;
  }
  return false;
}

/* Guesses 0 for the discardable parts of the concatenations on this side
   (nthis shapes from this_rows) against the other side's nother shapes. */
static int side(nx_shape_session *s, const nx_row *const (*this_rows)[3], int nthis,
                const nx_row *const (*other)[3], int nother) {
  for (int sh = 0; sh < nthis; sh++)
    for (int a = 0; a < naxes(this_rows[sh]); a++) {
      const nx_dim *d = axis_at(this_rows[sh], a);
      if (d->kind != NX__D_CONCAT) continue;
      vset all = {.n = 0};
      vars_of(d, &all);
      for (int p = 0; p < d->nparts; p++) {
        vset comp = {.n = 0}, rest = {.n = 0};
        vars_of(d->parts[p], &comp);
        for (int i = 0; i < all.n; i++)
          if (!meets(&(vset){.v = {all.v[i]}, .n = 1}, &comp)) add(&rest, all.v[i]);
        bool ok = true;
        for (int o = 0; o < nother && ok; o++) ok = covered(other[o], &rest);
        for (int i = 0; ok && i < comp.n; i++) {
          const nx_dim *x = nx__shape_dsub(s, nx__shape_dim_var(s, comp.v[i]));
          if (x->kind != NX__D_VAR) continue;
          const nx__var *e = NX__VARR(s, x->var);
          if (e->glb || e->at_least || e->is_param) continue;
          nx__cons c = {.kind = NX__C_DIM_EQ, .d1 = x, .d2 = s->zero};
          int rc = nx__shape_push(s, &s->pending, &c);
          if (rc) return rc;
        }
      }
    }
  return 0;
}

int nx__shape_guess_discardable(nx_shape_session *s) {
  for (int i = 0; i < s->tensors.n; i++) {
    const nx_tensor *t = s->tensors.p[i];
    if (!t->env || !t->env->shape_rows) continue;
    const nx__spec_env *e = t->env;
    int n = e->nshapes - 1, rc;
    const nx_row *const (*rows)[3] = (const nx_row *const (*)[3])e->shape_rows;
    if ((rc = side(s, rows + n, 1, rows, n)) || (rc = side(s, rows, n, rows + n, 1))) return rc;
  }
  return 0;
}
