/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: symbolic tensor nodes and the einsum spec parser. */
#ifndef NX_SHAPE_TENSOR_INTERNAL_H
#define NX_SHAPE_TENSOR_INTERNAL_H

#include "internal.h"

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
} nx__spec_env;

struct nx_tensor {
  int id;
  const char *label;
  const nx_row *rows[3];
  bool is_param;
  nx__spec_env *env; /* einsum: its spec's labels, NULL for other nodes */
};

/* A parsed spec: per operand (and the result, last), three rows. At-least
   constraints of fixed indices are added to the session's pending list. */
typedef struct nx__spec {
  int noperands;
  const nx_row *rows[NX_SHAPE_MAX_OPERANDS + 1][3];
} nx__spec;

/* nx__spec_parse(s, spec, &env, &out) parses an einsum or permute spec.
   Returns 0, or NX_EINVAL with s->err naming the position. */
int nx__spec_parse(nx_shape_session *s, const char *spec, nx__spec_env *env, nx__spec *out);

/* nx__axes_parse(s, text, &row): a comma-separated axis list as a closed row. */
int nx__axes_parse(nx_shape_session *s, const char *text, const nx_row **row);

#endif
