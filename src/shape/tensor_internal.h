/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: symbolic tensor nodes and the einsum spec parser. */
#ifndef NX_SHAPE_TENSOR_INTERNAL_H
#define NX_SHAPE_TENSOR_INTERNAL_H

#include "solver.h"

/* ---- References and traces (refs.c) ---- */

/* A binding of a reference made outside a recording trace, which the
   trace's scheme carries: each application binds the reference again. */
typedef struct {
  nx_shape_ref *r;
  const nx_dim *dim; /* the dim bound, or NULL and a row */
  const nx_row *row;
} nx__refbind;
typedef struct nx__refvec {
  nx__refbind *p;
  int n, cap;
} nx__refvec;

/* Binds r to dim (or row), as an einsum binds a reference of its spec: a
   size known on r is applied to it, solved at stage 1 if solve (else left
   pending). Under a recording trace a reference made outside it is bound
   but its size not applied: the binding goes to the trace's record
   (s->ref_rec) for each application to make. fn names the caller in
   messages. */
int nx__shape_ref_bind(nx_shape_session *s, const char *fn, nx_shape_ref *r, const nx_dim *dim, const nx_row *row,
                       bool solve);

/* A spec's label environment: dim labels and row variable names. */
typedef struct nx__spec_env {
  int ndims, nrows;
  const char **dim_names;
  const nx_dim **dims;
  const char **row_names;
  const nx_row **rows;
  int caps_d, caps_r;
  /* The spec's rows of each shape, operands first and the result last
     (kept for projections), and its fixed indices: the variables the
     parser made for them and their values. */
  int nshapes;
  const nx_row *(*shape_rows)[3];
  int nfixed, caps_f;
  int *fixed_var;
  int64_t *fixed_idx;
  nx_tensor *const *args; /* the operands (nshapes - 1) */
} nx__spec_env;

/* What projections leave on a tensor (padding.c): per axis in layout
   order, the padding, the most each side needed by the projections derived
   so far (resolved: fixed, so that an operation needing more is an error),
   and the projection id the latest projections reading or writing the
   tensor gave the axis (OCANNL's fresh_proj_ids; 0: none yet), which
   NX_SHAPE_STYLE_PROJECTION_AND_SIZE prints. Immutable, replaced whole
   through the snapshots' log. */
typedef struct nx__tpad {
  bool resolved;
  int rank;
  const int64_t (*lr)[2];
  const int *proj; /* NULL: no ids given */
} nx__tpad;

struct nx_tensor {
  int id; /* the id and the three small fields share the first 8 bytes: 56 bytes a tensor, not 64 */
  bool is_param;
  unsigned char auto_len; /* a label made "<operation>#<id>": the operation's length + 1; 0: a label given */
  unsigned char marks_off; /* NX_TENSOR_TERMINAL, NX_TENSOR_CLOSING: those that do not act */
  const char *label;
  const nx_row *rows[3];
  nx__spec_env *env; /* einsum: its spec's labels, NULL for other nodes */
  const nx__tpad *pad; /* NULL: no projections derived over it yet, no padding, not resolved */
};

/* nx__shape_tensor_node(s, label) is a tensor with fresh open rows (row variables)
   and no constraint, in s's tensors (closing closes its rows); label NULL
   names it by its id. NULL if memory runs out. */
nx_tensor *nx__shape_tensor_node(nx_shape_session *s, const char *label);

/* A parsed spec: per operand (and the result, last), three rows. At-least
   constraints of fixed indices are added to the session's pending list. */
typedef struct nx__spec {
  int noperands;
  const nx_row *rows[NX_SHAPE_MAX_OPERANDS + 1][3];
} nx__spec;

/* nx__shape_spec_parse(s, spec, opt, &env, &out) parses an einsum or
   permute spec, its identifier strides and unmarked padding from opt
   (NULL: none).
   Returns 0, or NX_EINVAL with s->err naming the position. */
int nx__shape_spec_parse(nx_shape_session *s, const char *spec, const nx_einsum_options *opt, nx__spec_env *env,
                         nx__spec *out);

/* nx__shape_leaf_parse(s, spec, &env, rows): a leaf's shape spec (no '=>';
   numbers are sizes, `l=5` is 5) into its three rows. Returns 0, or
   NX_EINVAL with s->err naming the position. */
int nx__shape_leaf_parse(nx_shape_session *s, const char *spec, nx__spec_env *env, const nx_row **rows);

/* nx__shape_einsum(s, fn, block, spec, opt, args, n, &t) is nx_tensor_einsum
   with options (nx_tensor_concat when block), its failures naming fn. */
int nx__shape_einsum(nx_shape_session *s, const char *fn, bool block, const char *spec, const nx_einsum_options *opt,
                     nx_tensor *const *args, int n, nx_tensor **out);

/* nx__shape_axes_parse(s, text, &row): a comma-separated axis list as a closed row. */
int nx__shape_axes_parse(nx_shape_session *s, const char *text, const nx_row **row);

/* ---- tensor.c: the session's tensors seen by closing ---- */
/* The origin of an interior mark c (c->t a tensor), made on first use;
   NULL when memory runs out. */
const nx__origin *nx__shape_closing_origin(nx_shape_session *s, const nx__cons *c);
/* The interior mark of row i of s->tensors (tensor i / 3, kind i % 3);
   inline: a round of closing makes one per visit. */
static inline void nx__shape_closing_cons(nx_shape_session *s, int i, nx__cons *c) {
  const nx_tensor *t = s->tensors.p[i / 3];
  int k = i % 3;
  *c = (nx__cons){.kind = NX__C_SHAPE_ROW, .r1 = t->rows[k], .is_param = t->is_param, .nrows = k, .t = t};
}
/* Holds an interior mark for every row of every tensor: 0 or NX_ENOMEM. */
int nx__shape_add_shape_rows(nx_shape_session *s);

/* nx__shape_guess_discardable(s): before stage 6, the equations that
   guess 0 for the discardable parts of every einsum's concatenations still
   unconstrained (block.c), added to the pending list. */
int nx__shape_guess_discardable(nx_shape_session *s);

/* ---- padding.c: tensors' padding across projections ---- */
/* The projections of t (shape w: an operand, or NX_PROJ_RESULT) ask axis
   padding (left, right) of each axis of its tensor: checks every shape
   against a resolved padding (OCANNL's "Operation padding ... exceeds
   resolved padding"), then raises each tensor's padding to what p asks.
   0, NX_EINVAL (message set, nothing changed) or NX_ENOMEM. */
int nx__shape_pad_merge(nx_shape_session *s, const nx_tensor *t, const nx_shape_proj *p);

/* nx__shape_fail_as(fn, rc): rc, its message (set by the public function
   that failed) now naming fn instead; 0 for 0. */
int nx__shape_fail_as(const char *fn, int rc);

#endif
