/* SPDX-License-Identifier: Apache-2.0 */
/* Edges of the shape module: einsum labels and basis labels of any length,
   sizes past int64 (a convolution's or an affine axis's size, a
   concatenation's sum), and a positive rank cycle met while the rank graph
   grows, each from an input that once went wrong. */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define NEW(s) nx_shape_session *s; CHECK(nx_shape_session_new(&s) == 0, "session")

static char *label(size_t n, char first, char last) {
  char *p = malloc(n + 1);
  for (size_t i = 0; i < n; i++) p[i] = (char)('a' + i % 26);
  p[0] = first;
  p[n - 1] = last;
  p[n] = 0;
  return p;
}

/* "A,B;B,C=>A,C" with labels of n characters that agree on their first
   n-1: each label is one variable, so the product is 5,4. */
static void long_einsum_labels(size_t n) {
  char *a = label(n, 'a', 'x'), *b = label(n, 'a', 'y'), *c = label(n, 'a', 'z');
  size_t cap = 6 * n + 16;
  char *spec = malloc(cap);
  snprintf(spec, cap, "%s,%s;%s,%s=>%s,%s", a, b, b, c, a, c);
  NEW(s);
  nx_tensor *x, *y, *r = NULL;
  CHECK(nx_tensor_term(s, "x", "", "", "5,3", &x) == 0 && nx_tensor_term(s, "y", "", "", "3,4", &y) == 0, "leaves");
  nx_tensor *args[2] = {x, y};
  int rc = nx_tensor_einsum(s, spec, args, 2, &r);
  if (!rc) rc = nx_shape_finish(s);
  CHECK(rc == 0 && !strcmp(shape_str(s, r, NX_SHAPE_STYLE_SIZE), "5,4"), "labels of %zu characters: rc %d, %s", n,
        rc, rc ? nx_error_message() : shape_str(s, r, NX_SHAPE_STYLE_SIZE));
  CHECK(rc == 0 && val(s, nx_tensor_spec_dim(r, b)) == 3 && nx_tensor_spec_dim(r, a) != nx_tensor_spec_dim(r, b),
        "labels of %zu characters: captures", n);
  nx_shape_session_free(s);
  /* a row variable of a long name, used twice */
  snprintf(spec, cap, "..%s..,%s;%s=>..%s..", a, b, b, a);
  NEW(s2);
  CHECK(nx_tensor_term(s2, "x", "", "", "2,7,3", &x) == 0 && nx_tensor_term(s2, "y", "", "", "3", &y) == 0, "leaves");
  nx_tensor *args2[2] = {x, y};
  rc = nx_tensor_einsum(s2, spec, args2, 2, &r);
  if (!rc) rc = nx_shape_finish(s2);
  CHECK(rc == 0 && !strcmp(shape_str(s2, r, NX_SHAPE_STYLE_SIZE), "2,7"), "row variable of %zu characters: %s", n,
        rc ? nx_error_message() : shape_str(s2, r, NX_SHAPE_STYLE_SIZE));
  CHECK(rc == 0 && nx_tensor_spec_row(r, a) != NULL, "row variable of %zu characters: capture", n);
  nx_shape_session_free(s2);
  free(spec);
  free(a);
  free(b);
  free(c);
}

/* A basis label of any length in an axis list, printed whole. */
static void long_basis(size_t n) {
  char *b = label(n, 'q', 'r'), *axes = malloc(n + 8), *want = malloc(n + 8);
  snprintf(axes, n + 8, "%s=3", b);
  NEW(s);
  nx_tensor *x, *y, *r;
  CHECK(nx_tensor_term(s, "x", "", "", axes, &x) == 0, "basis of %zu characters: %s", n, nx_error_message());
  CHECK(nx_tensor_term(s, "y", "", "", axes, &y) == 0, "basis of %zu characters", n);
  CHECK(nx_tensor_binary(s, "+", x, y, &r) == 0 && nx_shape_finish(s) == 0, "same long basis: %s", nx_error_message());
  size_t cap = n + 64;
  char *buf = malloc(cap);
  int len = nx_tensor_to_string(s, r, NX_SHAPE_STYLE_SIZE, buf, cap);
  CHECK(len == (int)(n + 2) && !strcmp(buf, axes), "basis of %zu characters prints whole: %d", n, len);
  len = nx_tensor_to_string(s, r, NX_SHAPE_STYLE_SIZE, buf, 4);
  CHECK(len < 0 && has(nx_error_message(), "do not fit"), "basis of %zu characters: a short buffer is refused", n);
  nx_shape_session_free(s);
  free(buf);
  free(b);
  free(axes);
  free(want);
}

/* Issue inputs: a fixed-size parameter axis 2*k with k = INT64_MAX. */
static void conv_overflow(void) {
  NEW(s);
  nx_tensor *p, *f, *t;
  CHECK(nx_tensor_param(s, "op0", NULL, NULL, &p) == 0, "param");
  CHECK(nx_tensor_fill(s, "op1", INT64_MAX, NULL, NULL, NULL, &f) == 0, "fill");
  nx_tensor *args[2] = {p, f};
  int rc = nx_tensor_einsum(s, "v,2*k;k=>", args, 2, &t);
  if (!rc) rc = nx_shape_finish(s);
  CHECK(rc == NX_EINVAL && has(nx_error_message(), "dimension size past int64"), "2*INT64_MAX: rc %d %s", rc,
        nx_error_message());
  CHECK(nx_shape_solve(s, 1) == NX_EINVAL && has(nx_error_message(), "tainted"), "2*INT64_MAX taints the session");
  nx_shape_session_free(s);
  /* a convolution whose kernel span is past int64 */
  NEW(s2);
  const nx_dim *o = nx_dim_var(s2, "o"), *k = dd(s2, INT64_MAX);
  const nx_dim *cv = nx_dim_conv(s2, 1, o, 0, 2, k, false);
  CHECK(nx_shape_add_dim_eq(s2, cv, dd(s2, 5), &O) == 0, "conv eq");
  rc = nx_shape_solve(s2, 1);
  CHECK(rc == NX_EINVAL && has(nx_error_message(), "does not fit"), "kernel span past int64: %s", nx_error_message());
  nx_shape_session_free(s2);
  NEW(s3);
  const nx_dim *o3 = nx_dim_var(s3, "o"), *r3 = nx_dim_var(s3, "r");
  CHECK(nx_shape_add_dim_eq(s3, nx_dim_conv(s3, 3, o3, 0, 4, dd(s3, INT64_MAX / 2), false), r3, &O) == 0 &&
            nx_shape_add_dim_eq(s3, o3, dd(s3, 2), &O) == 0,
        "conv");
  CHECK(nx_shape_solve(s3, 1) == 0, "r is bound to the convolution unevaluated: %s", nx_error_message());
  /* reading r evaluates it */
  rc = nx_shape_dim_value(s3, r3, NULL, NULL);
  CHECK(rc == NX_EINVAL && has(nx_error_message(), "nx_shape_dim_value: dimension size past int64"),
        "conv size past int64: rc %d %s", rc, nx_error_message());
  nx_shape_session_free(s3);
}

/* Issue inputs: two terms of output 9223372036854775799, "x;y=>x^y". */
static void concat_overflow(void) {
  NEW(s);
  nx_tensor *x, *y, *t;
  CHECK(nx_tensor_term(s, "x", "", "", "9223372036854775799", &x) == 0 &&
            nx_tensor_term(s, "y", "", "", "9223372036854775799", &y) == 0,
        "terms");
  nx_tensor *args[2] = {x, y};
  int rc = nx_tensor_einsum(s, "x;y=>x^y", args, 2, &t);
  if (!rc) rc = nx_shape_finish(s);
  CHECK(rc == NX_EINVAL && has(nx_error_message(), "dimension size past int64"), "concat sum: rc %d %s", rc,
        nx_error_message());
  nx_shape_session_free(s);
  /* the sum met while solving for a part */
  NEW(s2);
  const nx_dim *v = nx_dim_var(s2, "v"), *parts[3] = {dd(s2, INT64_MAX - 1), dd(s2, 2), v};
  CHECK(nx_shape_add_dim_eq(s2, nx_dim_concat(s2, parts, 3), dd(s2, 7), &O) == 0, "concat eq");
  rc = nx_shape_solve(s2, 1);
  CHECK(rc == NX_EINVAL && has(nx_error_message(), "dimension size past int64"), "concat part sum: %s",
        nx_error_message());
  nx_shape_session_free(s2);
}

/* Issue input: fill(a, 6), batch_slice, + a, + a, compose with a; repeated.
   The rank graph closes a positive cycle, which is the error, not a search
   that gives up. */
static void rank_cycle_blocks(int blocks) {
  NEW(s);
  int rc = 0;
  for (int i = 0; i < blocks && !rc; i++) {
    nx_tensor *a, *b, *c, *d, *e;
    rc = nx_tensor_fill(s, "a", 6, NULL, NULL, NULL, &a);
    if (!rc) rc = nx_tensor_batch_slice(s, a, &b);
    if (!rc) rc = nx_tensor_binary(s, "+", b, a, &c);
    if (!rc) rc = nx_tensor_binary(s, "+", c, a, &d);
    if (!rc) rc = nx_tensor_compose(s, d, a, &e);
  }
  if (!rc) rc = nx_shape_finish(s);
  CHECK(rc == NX_EINVAL && has(nx_error_message(), "Infinite number of axes by rank cycle"), "%d blocks: %s", blocks,
        nx_error_message());
  nx_shape_session_free(s);
}

/* Rank cycles closed by a binding (a join of classes) as well as by an edge. */
static void rank_cycle_by_join(void) {
  NEW(s);
  int r1 = nx_row_var_new(s, NULL), r2 = nx_row_var_new(s, NULL);
  const nx_dim *d2 = dd(s, 2);
  /* rank r1 >= rank r2 + 1, then r2 := [2, ..r1..]: rank r2 = rank r1 + 1 */
  nx_shape_add_row_ineq(s, nx_row_make(s, NULL, 0, NULL, 0, r1), nx_row_make(s, NULL, 0, &d2, 1, r2), &O);
  CHECK(nx_shape_solve(s, 1) == 0, "edge alone: %s", nx_error_message());
  nx_shape_add_row_eq(s, nx_row_make(s, NULL, 0, NULL, 0, r2), nx_row_make(s, &d2, 1, NULL, 0, r1), &O);
  int rc = nx_shape_solve(s, 1);
  CHECK(rc == NX_EINVAL && has(nx_error_message(), "Infinite number of axes"), "cycle by a join: %s",
        nx_error_message());
  nx_shape_session_free(s);
  /* a long chain without a cycle stays solvable (300 links: row
     substitution along such a chain is still quadratic, slow under ASan) */
  NEW(s2);
  d2 = dd(s2, 2);
  int prev = nx_row_var_new(s2, NULL);
  for (int i = 0; i < 300; i++) {
    int next = nx_row_var_new(s2, NULL);
    nx_shape_add_row_ineq(s2, nx_row_make(s2, NULL, 0, NULL, 0, prev), nx_row_make(s2, NULL, 0, &d2, 1, next), &O);
    prev = next;
  }
  CHECK(nx_shape_solve(s2, 1) == 0, "a chain of 300 rank edges: %s", nx_error_message());
  nx_shape_session_free(s2);
}

/* Without multi-character mode a run of digits is one fixed index, as in
   OCANNL's lexer: "a12" is the axis a and index 12. */
static void fixed_index_digits(void) {
  NEW(s);
  nx_tensor *x, *r;
  CHECK(nx_tensor_term(s, "x", "", "", "2,13", &x) == 0, "term");
  int rc = nx_tensor_einsum(s, "a12 => a", &x, 1, &r);
  if (!rc) rc = nx_shape_finish(s);
  CHECK(rc == 0 && !strcmp(shape_str(s, r, NX_SHAPE_STYLE_SIZE), "2"), "a12 => a: %s", rc ? nx_error_message() : "");
  nx_shape_session_free(s);
  NEW(s2);
  CHECK(nx_tensor_term(s2, "x", "", "", "2,12", &x) == 0, "term");
  rc = nx_tensor_einsum(s2, "a12 => a", &x, 1, &r);
  if (!rc) rc = nx_shape_finish(s2);
  CHECK(rc == NX_EINVAL && has(nx_error_message(), "dereferenced at dimension 13"), "index 12 of 12: %s",
        nx_error_message());
  nx_shape_session_free(s2);
}

/* A concatenation's parts are labels (affine ones too, nx's extension): a
   fixed index or '_' as a part is refused, where OCANNL's parser refuses it
   and its documents read a number there as a size (before: taken for a
   fixed index, "a => a^3" of 10 gave 14). */
static void concat_parts(void) {
  static const char *refused[] = {"a => a^3", "a => 3^a", "a => a^_", "a => _^a", "a => a ^ 12 ^ b"};
  for (size_t k = 0; k < sizeof refused / sizeof *refused; k++) {
    NEW(s);
    nx_tensor *x, *y = NULL;
    CHECK(nx_tensor_term(s, "x", "", "", "10", &x) == 0, "term");
    int rc = nx_tensor_concat(s, refused[k], &x, 1, &y);
    CHECK(rc == NX_EINVAL && has(nx_error_message(), "Invalid einsum spec") &&
              has(nx_error_message(), "a concatenation's part is a fixed index or '_'"),
          "%s: %d %s", refused[k], rc, nx_error_message());
    nx_shape_session_free(s);
  }
  static const char *taken[] = {"a; b => a^b", "a; b => a^2*b", "a => a_1^a"};
  for (size_t k = 0; k < sizeof taken / sizeof *taken; k++) {
    NEW(s);
    nx_tensor *x[2], *y = NULL;
    CHECK(nx_tensor_term(s, "x", "", "", "4", &x[0]) == 0 && nx_tensor_term(s, "w", "", "", "3", &x[1]) == 0, "terms");
    int rc = nx_tensor_concat(s, taken[k], x, k == 2 ? 1 : 2, &y);
    CHECK(rc == 0, "%s: %s", taken[k], nx_error_message());
    nx_shape_session_free(s);
  }
}

/* Multi-character mode: commas beside a row variable may be left out,
   spaces and a comma may stand inside '..name..', and a row may be a lone
   comma, as OCANNL's grammar reads them; each spec solves as its written-
   out form does (before: refused, "expected ','"). */
static void lenient_commas(void) {
  static const char *pairs[][2] = {{"x..v.., y => x", "x, ..v.., y => x"},
                                   {"...x, y => x", "..., x, y => x"},
                                   {"a ... b, c => a", "a, ..., b, c => a"},
                                   {"..v .., x => x", "..v.., x => x"},
                                   {".. v.., x => x", "..v.., x => x"},
                                   {"..v,.. , x => x", "..v.., x => x"},
                                   {"a, b, c, d => ,", "a, b, c, d => "}};
  for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++) {
    char got[2][1100];
    for (int j = 0; j < 2; j++) {
      NEW(s);
      nx_tensor *x, *y = NULL;
      CHECK(nx_tensor_term(s, "x", "", "", "2,3,4,5", &x) == 0, "term");
      int rc = nx_tensor_einsum(s, pairs[k][j], &x, 1, &y);
      if (!rc) rc = nx_shape_finish(s);
      snprintf(got[j], sizeof got[j], "%s", rc ? nx_error_message() : shape_str(s, y, NX_SHAPE_STYLE_SIZE));
      CHECK(rc == 0, "%s: %s", pairs[k][j], got[j]);
      nx_shape_session_free(s);
    }
    CHECK(!strcmp(got[0], got[1]), "%s gives %s, %s gives %s", pairs[k][0], got[0], pairs[k][1], got[1]);
  }
  /* still refused: two axes without a comma, two commas, a comma alone
     before an axis */
  static const char *bad[] = {"a b, c => a", "a,, b => a", "a, b => , a"};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    NEW(s);
    nx_tensor *x, *y = NULL;
    CHECK(nx_tensor_term(s, "x", "", "", "2,3", &x) == 0, "term");
    CHECK(nx_tensor_einsum(s, bad[k], &x, 1, &y) == NX_EINVAL && has(nx_error_message(), "Invalid einsum spec"),
          "%s: %s", bad[k], nx_error_message());
    nx_shape_session_free(s);
  }
}

int main(void) {
  lenient_commas();
  concat_parts();
  fixed_index_digits();
  long_einsum_labels(101);
  long_einsum_labels(150);
  long_einsum_labels(5000);
  long_basis(101);
  long_basis(3000);
  conv_overflow();
  concat_overflow();
  rank_cycle_blocks(1);
  rank_cycle_blocks(16);
  rank_cycle_by_join();
  return check_done();
}
