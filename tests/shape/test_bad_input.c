/* SPDX-License-Identifier: Apache-2.0 */
/* Bad input at the shape, scheme and rig functions' edges: each refused
   with a message naming the function, nothing read out of bounds (a tensor
   of another session, a NULL element of a list, a count no caller needs). */
#include <limits.h>
#include <string.h>

#include "../check.h"
#include "nx_dtype.h"
#include "nx_rig.h"
#include "nx_scheme.h"
#include "nx_shape.h"

static bool says(const char *part) { return strstr(nx_error_message(), part) != NULL; }

/* A tensor of another session is refused by nx_shape_projections, whose
   walk would read variables the session does not have. */
static void other_session(void) {
  nx_shape_session *s = NULL, *s2 = NULL;
  nx_shape_session_new(&s);
  nx_shape_session_new(&s2);
  nx_tensor *x = NULL, *t = NULL;
  CHECK(nx_tensor_term(s, "x", "", "", "2,3", &x) == 0, "%s", nx_error_message());
  CHECK(nx_tensor_einsum(s, "ij=>ji", &x, 1, &t) == 0, "%s", nx_error_message());
  CHECK(nx_shape_finish(s) == 0, "%s", nx_error_message());
  const nx_shape_proj *p = NULL;
  CHECK(nx_shape_projections(s2, t, &p) == NX_EINVAL && !p && says("nx_shape_projections") &&
            says("not a tensor of this session"),
        "another session's tensor: %s", nx_error_message());
  CHECK(nx_shape_projections(s, t, &p) == 0 && p, "its own session's: %s", nx_error_message());
  nx_shape_session_free(s2);
  nx_shape_session_free(s);
}

static int fails_quietly(void *ctx, nx_shape_session *s) {
  (void)ctx, (void)s;
  return -1;
}
static int traced_quietly(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)ctx, (void)s, (void)a, (void)n, (void)r, (void)nr;
  return -1;
}

static void lists_and_counts(void) {
  nx_shape_session *s = NULL;
  nx_shape_session_new(&s);
  /* a NULL dim of an exact row is refused, as a NULL row is */
  int v = nx_row_var_new(s, "r");
  const nx_row *row = nx_row_make(s, NULL, 0, NULL, 0, v);
  const nx_dim *dims[2] = {nx_dim_solved(s, 2, NULL), NULL};
  CHECK(row && nx_shape_add_exact(s, &row, 1, dims, 2, NULL) == NX_EINVAL && says("nx_shape_add_exact"),
        "a NULL dim in add_exact: %s", nx_error_message());
  CHECK(nx_shape_add_exact(s, &row, 1, dims, 1, NULL) == 0, "add_exact: %s", nx_error_message());
  /* no ids to rename: a renaming of none */
  nx_shape_renaming *rn = NULL;
  CHECK(nx_shape_rename_new(s, NULL, 0, &rn) == 0 && rn, "rename none: %s", nx_error_message());
  nx_shape_rename_free(rn);
  /* counts no caller needs are refused at once */
  nx_shape_id_range r;
  CHECK(nx_shape_ids_reserve(s, INT_MAX - 100, 0, &r) == NX_EINVAL && says("nx_shape_ids_reserve"),
        "reserve INT_MAX - 100: %s", nx_error_message());
  CHECK(nx_shape_ids_reserve(s, (1 << 24) + 1, 0, &r) == NX_EINVAL, "reserve 2^24 + 1");
  nx_scheme *sc = NULL;
  CHECK(nx_scheme_trace(s, "f", INT_MAX, traced_quietly, NULL, &sc) == NX_EINVAL && !sc && says("nx_scheme_trace"),
        "trace of INT_MAX arguments: %s", nx_error_message());
  /* a block or body failing without a message of its own is said so, not
     told by an older message */
  nx_dtype_name((nx_dtype)999); /* leaves a message behind */
  char *labels[4];
  int n = 0;
  CHECK(nx_scheme_check_definition(s, "d", fails_quietly, NULL, labels, 4, &n) != 0 &&
            says("checking the definition d: the block failed (status -1) without a message"),
        "a quiet block: %s", nx_error_message());
  nx_dtype_name((nx_dtype)999);
  CHECK(nx_scheme_trace(s, "g", 1, traced_quietly, NULL, &sc) != 0 && !sc &&
            says("tracing the shape scheme g: the function failed (status -1) without a message"),
        "a quiet body: %s", nx_error_message());
  nx_shape_session_free(s);
}

/* nx_rig_release with a NULL among its buffers releases none. */
static void release_null(void) {
  nx_buffer *b = NULL;
  CHECK(nx_buffer_create(nx_rig_host(), NX_MEMORY_HOST, NX_ACCESS_READ | NX_ACCESS_WRITE, 16, &b) == 0, "%s",
        nx_error_message());
  bool w[2] = {true, true};
  nx_claim_answer ans[1];
  CHECK(nx_rig_claim(1, &b, w, ans) == 0, "claim: %s", nx_error_message());
  nx_buffer *two[2] = {b, NULL};
  nx_rig_release(2, two, w);
  CHECK(says("nx_rig_release: buffer 1 of 2 is NULL"), "release with a NULL: %s", nx_error_message());
  /* b is still claimed: it cannot be held exclusive until the release */
  CHECK(nx_buffer_hold_exclusive(b) != 0 && says("is claimed"), "the claim was kept: %s", nx_error_message());
  nx_rig_release(1, &b, w);
  CHECK(nx_buffer_hold_exclusive(b) == 0, "held after the release: %s", nx_error_message());
  nx_buffer_unhold(b);
  nx_buffer_release(b);
}

/* set_scale with factor 1 is set_equal, but its refusal names the function
   called. */
static void scale_one_named(void) {
  nx_shape_session *s;
  CHECK(nx_shape_session_new(&s) == 0, "session");
  nx_shape_ref *a = nx_shape_ref_new(s, "a"), *b = nx_shape_ref_new(s, "b");
  CHECK(nx_shape_ref_set_scale(s, 1, a, b) == NX_EINVAL && says("nx_shape_ref_set_scale: ") &&
            !says("nx_shape_ref_set_equal") && says("insufficient information between labels a and b"),
        "set_scale by 1 of two unbound references: %s", nx_error_message());
  nx_shape_session_free(s);
}

/* A refused argument is named: which pointer is NULL, which count is bad. */
static void which_argument(void) {
  nx_shape_session *s;
  nx_tensor *t, *z = NULL;
  CHECK(nx_shape_session_new(&s) == 0 && nx_tensor_term(s, "x", "", "", "3", &t) == 0, "session");
  CHECK(nx_tensor_binary(s, "+", t, NULL, &z) == NX_EINVAL && says("nx_tensor_binary: b is NULL") && !z, "b: %s",
        nx_error_message());
  CHECK(nx_tensor_binary(s, "+", t, t, NULL) == NX_EINVAL && says("nx_tensor_binary: the result pointer is NULL"),
        "out: %s", nx_error_message());
  CHECK(nx_tensor_binary(NULL, "+", t, t, &z) == NX_EINVAL && says("nx_tensor_binary: the session is NULL"), "s: %s",
        nx_error_message());
  CHECK(nx_tensor_fill(s, "f", -1, NULL, NULL, NULL, &z) == NX_EINVAL && says("nx_tensor_fill: the total is negative"), "total: %s",
        nx_error_message());
  const nx_row *r = nx_tensor_row(t, NX_AXIS_OUTPUT);
  CHECK(nx_shape_add_total_elems(s, &r, 1, -1, NULL) == NX_EINVAL && says("nx_shape_add_total_elems: the rows") &&
            says("the total (negative)"),
        "total elems -1: %s", nx_error_message());
  CHECK(nx_shape_add_row_eq(s, r, NULL, NULL) == NX_EINVAL && says("nx_shape_add_row_eq: a or b is NULL"), "row eq: %s",
        nx_error_message());
  nx_shape_session_free(s);
}

/* Out-of-range queries answer NULL and say why, naming the function. */
static void queries_out_of_range(void) {
  nx_shape_session *s;
  nx_tensor *t;
  CHECK(nx_shape_session_new(&s) == 0 && nx_tensor_term(s, "x", "", "", "3", &t) == 0, "session");
  CHECK(nx_tensor_row(t, (enum nx_axis_kind)7) == NULL && says("nx_tensor_row: 7 is no axis kind"), "kind 7: %s",
        nx_error_message());
  const nx_row *r = nx_tensor_row(t, NX_AXIS_OUTPUT);
  CHECK(r && nx_row_dim(r, 1) == NULL && says("nx_row_dim: index 1 is out of range for a row of 1"), "dim 1 of one: %s",
        nx_error_message());
  CHECK(r && nx_row_beg_dim(r, -1) == NULL && says("nx_row_beg_dim: index -1"), "beg dim -1: %s", nx_error_message());
  nx_shape_session_free(s);
}

int main(void) {
  other_session();
  lists_and_counts();
  release_null();
  scale_one_named();
  queries_out_of_range();
  which_argument();
  return check_done();
}
