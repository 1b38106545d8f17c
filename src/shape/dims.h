/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: dims and rows (immutable once made), and dim.c's making,
   substituting, comparing and printing of them. */
#ifndef NX_SHAPE_DIMS_H
#define NX_SHAPE_DIMS_H

#include "arena.h"

enum { NX__D_SOLVED, NX__D_VAR, NX__D_AFFINE, NX__D_CONCAT };

/* A dim is allocated only as large as its kind needs (a variable is its
   first 8 bytes, a solved dim its first 24); fields of other kinds share
   storage and are never read. */
struct nx_dim {
  signed char kind;
  bool use_padding; /* affine */
  union {
    int var;    /* var: id */
    int nparts; /* concat */
  };
  union {
    struct {             /* solved */
      int64_t d;         /* size */
      const char *basis; /* basis */
    };
    struct {                            /* affine */
      int64_t stride, offset, dilation;
      const nx_dim *over, *kernel;      /* kernel non-NULL for conv */
    };
    const nx_dim **parts; /* concat */
  };
};
#define NX__DIM_VAR_SIZE offsetof(nx_dim, d)
#define NX__DIM_SOLVED_SIZE (offsetof(nx_dim, basis) + sizeof(const char *))

struct nx_row {
  int nbeg, ndims;
  const nx_dim **beg, **dims; /* contiguous: dims == beg + nbeg */
  int var; /* 0: closed */
};

/* Making (NULL when memory runs out). nx__shape_new_var returns the new
   variable's id, or NX_ENOMEM. */
int nx__shape_new_var(nx_shape_session *s, bool is_row, const char *name);
/* Room in the variable tables for ids below n: 0 or NX_ENOMEM. */
int nx__shape_vars_reserve(nx_shape_session *s, int n);
const nx_dim *nx__shape_dim_solved(nx_shape_session *s, int64_t d, const char *basis);
/* nx__shape_dim_var(s, v) and nx__shape_row_of_var(s, v), the dim and the row
   that are just variable v, are inline in session.h; made on first use by: */
const nx_dim *nx__shape_dim_var_new(nx_shape_session *s, int v);
const nx_row *nx__shape_row_of_var_new(nx_shape_session *s, int v);
const nx_row *nx__shape_row_new(nx_shape_session *s, const nx_dim *const *beg, int nbeg, const nx_dim *const *dims,
                                int ndims, int var);

/* Substitution under the current solution (never fails: out of memory
   keeps the unsubstituted form, a shape error is recorded by
   nx__shape_subst_fail). */
/* nx__shape_dsub(s, d) and nx__shape_rsub(s, r) (row variables only) are
   inline in session.h, their common cases there; the rest: */
const nx_dim *nx__shape_dsub_rest(nx_shape_session *s, const nx_dim *d);
const nx_row *nx__shape_rsub_rest(nx_shape_session *s, const nx_row *r, const nx_row *rv); /* rv: r's value */
const nx_row *nx__shape_rsub_full(nx_shape_session *s, const nx_row *r); /* and every dim */

bool nx__shape_dim_equal(const nx_dim *a, const nx_dim *b);
bool nx__shape_is_top(const nx_dim *d);
bool nx__shape_dim_has_var(const nx_dim *d, int v);
bool nx__shape_basis_is(const nx_dim *d, const char *basis);
/* OCANNL's merge of derived bases: equal ones, or the named one of a named
   and a reserved one; NULL when two named bases conflict. */
const char *nx__shape_basis_merge(const char *a, const char *b);
/* The common named basis of n solved dims (default if none); NULL when two
   named ones differ. */
const char *nx__shape_basis_of_parts(const nx_dim *const *d, int n);
/* Records a substitution's shape error (the first one wins). */
void nx__shape_subst_fail(nx_shape_session *s, const char *fmt, ...) NX__PRINTF(2, 3);

/* Appends the formatted text to buf at *len, never past cap; *len grows by
   its full length, so a caller learns the size it needs. */
void nx__shape_put(char *buf, size_t cap, size_t *len, const char *fmt, ...) NX__PRINTF(4, 5);
/* Printing: the full length is returned (or added to *len) whatever cap. */
int nx__shape_dim_print(nx_shape_session *s, const nx_dim *d, char *buf, size_t cap);
/* Appends d to buf at *len, never past cap; *len grows by d's full length.
   As OCANNL's dim_to_string: sizes (label=size for a user basis), or with
   bases_only the bases of solved dims (its Only_bases style). */
void nx__shape_dim_put(nx_shape_session *s, const nx_dim *d, char *buf, size_t cap, size_t *len);
void nx__shape_dim_put_as(nx_shape_session *s, const nx_dim *d, bool bases_only, char *buf, size_t cap, size_t *len);
int nx__shape_row_print(nx_shape_session *s, const nx_row *r, char *buf, size_t cap);

#endif
