/* SPDX-License-Identifier: Apache-2.0 */
/* Projections (nx_shape_projections): einsums computed by their projections
   alone, on small integer arrays, against loops written out by hand here;
   with --dump, each case's operands and result are printed for
   test_proj_numpy.py, which checks them against numpy's einsum. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define MAXOP 4
#define MAXEL 4096

typedef struct {
  const char *source; /* where the case comes from */
  const char *spec;
  int n;
  const char *rows[MAXOP][3]; /* batch, input, output of each operand */
  const char *numpy;          /* the same computation in numpy, over A0, A1, ... */
  const char *shape;          /* the result's shape (SIZE style) */
} pcase;

static const pcase cases[] = {
    {"matrix product", "ij;jk=>ik", 2, {{"", "", "2,3"}, {"", "", "3,4"}}, "np.einsum('ij,jk->ik', A0, A1)", "2,4"},
    {"kinds permuted", "b|i->o => o|b->i", 1, {{"2", "3", "4"}}, "np.einsum('boi->oib', A0)", "4|2->3"},
    {"diagonal", "ii => i", 1, {{"", "", "3,3"}}, "np.einsum('ii->i', A0)", "3"},
    {"a row variable reordered", "...ab => ba...", 1, {{"", "", "2,3,4,5"}}, "np.einsum('xyab->baxy', A0)",
     "5,4,2,3"},
    {"a row variable contracted", "a..r..;..r..b=>ab", 2, {{"", "", "2,3,4"}, {"", "", "3,4,5"}},
     "np.einsum('ars,rsb->ab', A0, A1)", "2,5"},
    {"three operands", "ij;jk;kl=>il", 3, {{"", "", "2,3"}, {"", "", "3,2"}, {"", "", "2,4"}},
     "np.einsum('ij,jk,kl->il', A0, A1, A2)", "2,4"},
    {"a sum to a scalar", "ij => ", 1, {{"", "", "3,4"}}, "np.einsum('ij->', A0)", ""},
    {"a fixed index", "i1 => i", 1, {{"", "", "3,2"}}, "A0[:, 1]", "3"},
    {"batched matrix product", "...|ij;...|jk=>...|ik", 2, {{"2", "", "3,2"}, {"2", "", "2,4"}},
     "np.einsum('bij,bjk->bik', A0, A1)", "2|3,4"},
    {"an outer product", "i;j=>ij", 2, {{"", "", "3"}, {"", "", "4"}}, "np.einsum('i,j->ij', A0, A1)", "3,4"},
    {"input and output", "i->o;o->p => i->p", 2, {{"", "2", "3"}, {"", "3", "4"}},
     "np.einsum('oi,po->pi', A0, A1)", "2->4"},
    {"a strided axis", "2*o => o", 1, {{"", "", "6"}}, "A0[::2]", "3"},
    {"a valid convolution", "o<+k; k => o", 2, {{"", "", "5"}, {"", "", "3"}},
     "np.einsum('ok,k->o', sliding_window_view(A0, 3), A1)", "3"},
    {"a strided valid convolution", "2*o<+k; k => o", 2, {{"", "", "7"}, {"", "", "3"}},
     "np.einsum('ok,k->o', sliding_window_view(A0, 3)[::2], A1)", "3"},
    {"a dilated valid convolution", "o<+2*k; k => o", 2, {{"", "", "7"}, {"", "", "3"}},
     "np.einsum('ok,k->o', sliding_window_view(A0, 5)[:, ::2], A1)", "3"},
    {"a padded convolution", "o=+k; k => o", 2, {{"", "", "5"}, {"", "", "3"}},
     "np.einsum('ok,k->o', sliding_window_view(np.pad(A0, (1, 1)), 3), A1)", "5"},
    {"a strided padded convolution", "2*o=+k; k => o", 2, {{"", "", "6"}, {"", "", "3"}},
     "np.einsum('ok,k->o', sliding_window_view(np.pad(A0, (1, 1)), 3)[::2][:3], A1)", "3"},
    {"a dilated padded convolution (padded 1 left, 3 right: the dilated span)", "o=+2*k; k => o", 2,
     {{"", "", "6"}, {"", "", "3"}}, "np.einsum('ok,k->o', sliding_window_view(np.pad(A0, (1, 3)), 5)[:, ::2], A1)", "6"},
    {"a 2-d convolution with channels (Nn_blocks.conv2d without padding)",
     "oh<+kh, ow<+kw, ic; kh, kw, ic -> oc => oh, ow, oc", 2, {{"", "", "5,4,2"}, {"", "3,2,2", "3"}},
     "np.einsum('abcde,odec->abo', sliding_window_view(A0, (3, 2), axis=(0, 1)), A1)", "3,3,3"},
    {"gnn_broadcast.ml pairwise messages", "..g.. | i, f; ..g.. | j, f => ..g.. | i, j, f", 2,
     {{"2", "", "3,2"}, {"2", "", "2,2"}}, "np.einsum('gif,gjf->gijf', A0, A1)", "2|3,2,2"},
    {"gnn_broadcast.ml aggregation", "..g.. | v, u; ..g.. | u, f => ..g.. | v, f", 2,
     {{"2", "", "3,3"}, {"2", "", "3,2"}}, "np.einsum('gvu,guf->gvf', A0, A1)", "2|3,2"},
    {"an einsum of four operands", "ij;jk;kl;lm=>im", 4, {{"", "", "2,3"}, {"", "", "3,2"}, {"", "", "2,2"}, {"", "", "2,3"}},
     "np.einsum('ij,jk,kl,lm->im', A0, A1, A2, A3)", "2,3"},
    /* Concatenations, after OCANNL's block operations (test_block_tensor.ml,
       test_concat_graph.ml and test_concat_ppx.ml compute concatenations with
       the specs "a; b => a^b" and "ii; jj; kk => ii^jj^kk"), computed by the
       projections' groups. */
    {"a concatenation", "a; b => a^b", 2, {{"", "", "2"}, {"", "", "3"}}, "np.concatenate([A0, A1])", "5"},
    {"a concatenation of three", "ii; jj; kk => ii^jj^kk", 3, {{"", "", "2"}, {"", "", "1"}, {"", "", "3"}},
     "np.concatenate([A0, A1, A2])", "6"},
    {"a block matrix", "a, c; a, d; b, c; b, d => a^b, c^d", 4,
     {{"", "", "2,3"}, {"", "", "2,2"}, {"", "", "1,3"}, {"", "", "1,2"}}, "np.block([[A0, A1], [A2, A3]])", "3,5"},
    {"a concatenation on a second axis", "i, a; i, b => i, a^b", 2, {{"", "", "2,3"}, {"", "", "2,1"}},
     "np.concatenate([A0, A1], axis=1)", "2,4"},
    {"a concatenation of outputs", "i->a; i->b => i->a^b", 2, {{"", "2", "3"}, {"", "2", "2"}},
     "np.concatenate([A0, A1], axis=0)", "2->5"},
    {"concatenated matrix-vector products", "a, k; b, k; k => a^b", 3, {{"", "", "2,3"}, {"", "", "1,3"}, {"", "", "3"}},
     "np.concatenate([A0 @ A2, A1 @ A2])", "3"},
    {"a concatenation permuted", "a^b, c => c, b^a", 1, {{"", "", "5,2"}}, "np.concatenate([A0[3:], A0[:3]]).T",
     "2,5"},
    {"a slice by a discardable part", "i^j => i", 1, {{"", "", "5"}}, "A0[:3]", "3"},
    {"a middle slice", "i^j^k => j", 1, {{"", "", "6"}}, "A0[1:3]", "2"},
};

/* A spec dim some cases set before closing: "label=size". */
static const struct {
  const char *spec, *set;
} sets[] = {{"a^b, c => c, b^a", "a=3"}, {"i^j => i", "i=3"}, {"i^j^k => j", "i=1"}, {"i^j^k => j", "k=3"}};

static int64_t value_at(int op, int64_t i) { return (i * 7 + op * 5 + 3) % 11 - 5; }

/* The index of axis a of shape w at a point (it: each iterator's value,
   on: whether it is active) into *x; false when the shape takes no part
   there (the axis reads an iterator that is not active). */
static bool index_at(const nx_shape_proj *p, int w, int a, const int64_t *it, const bool *on, int64_t *size,
                     int64_t *x) {
  nx_shape_index ix;
  nx_proj_axis(p, w, a, size, &ix);
  for (int j = 0; j < ix.nparts; j++)
    if (on[ix.parts[j]]) return *x = ix.part_offset[j] + it[ix.parts[j]], true;
  if (ix.nparts) return false;
  *x = ix.offset;
  for (int t = 0; t < ix.nterms; t++) {
    if (!on[ix.iter[t]]) return false;
    *x += ix.coeff[t] * it[ix.iter[t]];
  }
  return true;
}

/* Runs the space of p: per group one active iterator at a time; every point
   reads each operand taking part at its indices (a point outside an operand
   reads the padding 0) and adds the product into the result at its
   indices. Returns 0, or -1 if an index is out of the result. */
static int run_proj(const nx_shape_proj *p, double *const *ops, double *res, int64_t nres) {
  int ni = nx_proj_iter_count(p), nops = nx_proj_operand_count(p), ng = nx_proj_group_count(p);
  int64_t it[64] = {0}, pos[64] = {0}, total[64] = {0};
  bool on[64];
  for (int64_t i = 0; i < nres; i++) res[i] = 0;
  for (int i = 0; i < ni; i++) total[nx_proj_iter_group(p, i)] += nx_proj_iter_size(p, i);
  for (int g = 0; g < ng; g++)
    if (total[g] == 0) return 0;
  for (;;) {
    /* Each group's position as its active iterator and that one's value. */
    int64_t left[64];
    memcpy(left, pos, sizeof left);
    for (int i = 0; i < ni; i++) {
      int g = nx_proj_iter_group(p, i);
      int64_t n = nx_proj_iter_size(p, i);
      on[i] = left[g] >= 0 && left[g] < n;
      it[i] = on[i] ? left[g] : 0;
      left[g] -= n;
    }
    double prod = 1;
    int64_t ro = 0;
    int taking = 0;
    bool skip = false;
    for (int w = NX_PROJ_RESULT; w < nops && !skip; w++) {
      int64_t off = 0;
      bool part = true, inside = true;
      for (int a = 0; a < nx_proj_rank(p, w) && part; a++) {
        int64_t size, x;
        if (!(part = index_at(p, w, a, it, on, &size, &x))) break;
        if (x < 0 || x >= size) inside = false;
        off = off * size + x;
      }
      if (w == NX_PROJ_RESULT) {
        if (!part) skip = true;
        else if (!inside) return -1;
        ro = off;
      } else if (part) {
        taking++;
        prod *= inside ? ops[w][off] : 0;
      }
    }
    if (!skip && taking) res[ro] += prod;
    int g = ng - 1;
    while (g >= 0 && ++pos[g] == total[g]) pos[g--] = 0;
    if (g < 0) return 0;
  }
}

static int64_t elems(const nx_shape_proj *p, int w) {
  int64_t n = 1, size;
  for (int a = 0; a < nx_proj_rank(p, w); a++) n *= nx_proj_axis(p, w, a, &size, NULL) ? 0 : size;
  return n;
}

static void print_array(const char *tag, const nx_shape_proj *p, int w, const double *v) {
  printf("%s %d", tag, nx_proj_rank(p, w));
  for (int a = 0; a < nx_proj_rank(p, w); a++) {
    int64_t size;
    nx_proj_axis(p, w, a, &size, NULL);
    printf(" %lld", (long long)size);
  }
  printf(" :");
  for (int64_t i = 0; i < elems(p, w); i++) printf(" %.17g", v[i]);
  printf("\n");
}

/* Builds case c, derives its projections and computes the result into res
   (the operands into ops); returns the projections, or NULL. */
static const nx_shape_proj *compute(nx_shape_session *s, const pcase *c, double *ops[MAXOP], double *res,
                                    int64_t *nres) {
  nx_tensor *args[MAXOP], *t;
  for (int i = 0; i < c->n; i++)
    CHECK(nx_tensor_term(s, NULL, c->rows[i][0], c->rows[i][1], c->rows[i][2], &args[i]) == 0, "%s: operand %d: %s",
          c->source, i, nx_error_message());
  int rc = nx_tensor_einsum(s, c->spec, args, c->n, &t);
  CHECK(rc == 0, "%s: einsum: %s", c->source, nx_error_message());
  for (size_t k = 0; !rc && k < sizeof sets / sizeof *sets; k++) {
    char label[16];
    long long v;
    if (strcmp(sets[k].spec, c->spec)) continue;
    CHECK(sscanf(sets[k].set, "%15[^=]=%lld", label, &v) == 2, "%s: set %s", c->source, sets[k].set);
    rc = nx_tensor_set_dim(s, nx_tensor_spec_dim(t, label), v);
    CHECK(rc == 0, "%s: set_dim: %s", c->source, nx_error_message());
  }
  if (rc || nx_shape_finish(s)) return NULL;
  CHECK(!strcmp(shape_str(s, t, NX_SHAPE_STYLE_SIZE), c->shape), "%s: shape %s, expected %s", c->source,
        shape_str(s, t, NX_SHAPE_STYLE_SIZE), c->shape);
  const nx_shape_proj *p;
  rc = nx_shape_projections(s, t, &p);
  CHECK(rc == 0, "%s: projections: %s", c->source, nx_error_message());
  if (rc) return NULL;
  CHECK(nx_proj_operand_count(p) == c->n, "%s: %d operands", c->source, nx_proj_operand_count(p));
  for (int i = 0; i < c->n; i++) {
    int64_t n = elems(p, i);
    ops[i] = malloc((size_t)(n ? n : 1) * sizeof(double));
    for (int64_t j = 0; j < n; j++) ops[i][j] = (double)value_at(i, j);
  }
  *nres = elems(p, NX_PROJ_RESULT);
  CHECK(*nres <= MAXEL && run_proj(p, ops, res, *nres) == 0, "%s: a result index out of range", c->source);
  return p;
}

static int dump(void) {
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    nx_shape_session *s;
    double *ops[MAXOP] = {0}, res[MAXEL];
    int64_t nres;
    if (nx_shape_session_new(&s)) return 1;
    const nx_shape_proj *p = compute(s, &cases[i], ops, res, &nres);
    if (!p) return 1;
    printf("case %s\n", cases[i].numpy);
    for (int j = 0; j < cases[i].n; j++) print_array("op", p, j, ops[j]);
    print_array("res", p, NX_PROJ_RESULT, res);
    for (int j = 0; j < cases[i].n; j++) free(ops[j]);
    nx_shape_session_free(s);
  }
  return check_failures ? 1 : 0;
}

/* The same computations written as loops, independent of the projections. */
static void by_hand(size_t i, double *const *A, double *R) {
  switch (i) {
  case 0:
    for (int a = 0; a < 2; a++)
      for (int k = 0; k < 4; k++) {
        R[a * 4 + k] = 0;
        for (int j = 0; j < 3; j++) R[a * 4 + k] += A[0][a * 3 + j] * A[1][j * 4 + k];
      }
    break;
  case 2:
    for (int a = 0; a < 3; a++) R[a] = A[0][a * 3 + a];
    break;
  case 7:
    for (int a = 0; a < 3; a++) R[a] = A[0][a * 2 + 1];
    break;
  case 11:
    for (int o = 0; o < 3; o++) R[o] = A[0][2 * o];
    break;
  }
}

/* OCANNL's parses of affine and convolution axes (test_conv_syntax.ml,
   test_einsum_parser.ml), read back through the projections: each spec's
   first operand axis `axis` (layout order) must index as the sum of the
   terms (label:coefficient) plus offset. OCANNL prints the parsed
   structure; here a small einsum holding the axis is inferred and its
   index read. pad: the padding of unmarked convolution axes. */
typedef struct {
  const char *source, *spec;
  enum nx_padding pad;
  const char *rows[2][3];
  int axis;
  const char *terms; /* "o:2,k:3" */
  int64_t offset;
  const char *shape; /* the result's */
} parse_case;

static const parse_case parses[] = {
    {"test_conv_syntax.ml test_conv_parsing Test 1: '2*o+3*k'", "2*o+3*k; k => o", NX_PADDING_FALSE,
     {{"", "", "9"}, {"", "", "3"}}, 0, "o:2,k:3", 0, "2"},
    {"test_conv_syntax.ml test_conv_parsing Test 2: 'o+k'", "o+k; k => o", NX_PADDING_FALSE,
     {{"", "", "5"}, {"", "", "3"}}, 0, "o:1,k:1", 0, "3"},
    {"test_conv_syntax.ml test_conv_parsing Test 3: 'a, 2*b+c'", "a, 2*b+c; c => a, b", NX_PADDING_FALSE,
     {{"", "", "2,7"}, {"", "", "3"}}, 1, "b:2,c:1", 0, "2,3"},
    {"test_conv_syntax.ml test_conv_parsing Test 4: 'i, o+k, j'", "i, o+k, j; k => i, o, j", NX_PADDING_FALSE,
     {{"", "", "2,5,3"}, {"", "", "2"}}, 1, "o:1,k:1", 0, "2,4,3"},
    {"test_conv_syntax.ml test_conv_parsing Test 5: 'a+bc'", "a+bc; bc => a", NX_PADDING_FALSE,
     {{"", "", "4"}, {"", "", "2"}}, 0, "a:1,bc:1", 0, "3"},
    {"test_conv_syntax.ml test_conv_parsing Test 6: 'i, j -> 2*i+j'", "i, j -> 2*i+j => i, j", NX_PADDING_FALSE,
     {{"", "3,2", "6"}}, 0, "i:2,j:1", 0, "3,2"},
    {"test_conv_syntax.ml test_conv_parsing Test 7: 'batch|input->3*output+1*kernel,'",
     "batch|input->3*output+1*kernel,; kernel => output", NX_PADDING_FALSE, {{"2", "3", "8"}, {"", "", "2"}}, 1,
     "output:3,kernel:1", 0, "3"},
    {"test_conv_syntax.ml test_strided_iteration_parsing Test 1: '2*output'", "2*output => output",
     NX_PADDING_UNSPECIFIED, {{"", "", "6"}}, 0, "output:2", 0, "3"},
    {"test_conv_syntax.ml test_strided_iteration_parsing Test 2: '3*i'", "3*i => i", NX_PADDING_UNSPECIFIED,
     {{"", "", "9"}}, 0, "i:3", 0, "3"},
    {"test_conv_syntax.ml test_strided_iteration_parsing Test 3: 'input -> 2*output'",
     "input -> 2*output => input -> output", NX_PADDING_UNSPECIFIED, {{"", "2", "8"}}, 0, "output:2", 0, "2->4"},
    {"test_conv_syntax.ml test_strided_iteration_parsing Test 4: 'regular, 3*strided'",
     "regular, 3*strided => regular, strided", NX_PADDING_UNSPECIFIED, {{"", "", "2,9"}}, 1, "strided:3", 0, "2,3"},
    {"test_conv_syntax.ml test_use_padding_syntax Test 1: 'o=+k'", "o=+k; k => o", NX_PADDING_UNSPECIFIED,
     {{"", "", "5"}, {"", "", "3"}}, 0, "o:1,k:1", -1, "5"},
    {"test_conv_syntax.ml test_use_padding_syntax Test 2: 'o<+k'", "o<+k; k => o", NX_PADDING_UNSPECIFIED,
     {{"", "", "5"}, {"", "", "3"}}, 0, "o:1,k:1", 0, "3"},
    {"test_conv_syntax.ml test_use_padding_syntax Test 3: '2*o=+k'", "2*o=+k; k => o", NX_PADDING_UNSPECIFIED,
     {{"", "", "6"}, {"", "", "3"}}, 0, "o:2,k:1", -1, "3"},
    {"test_conv_syntax.ml test_use_padding_syntax Test 4: 'o<+3*k'", "o<+3*k; k => o", NX_PADDING_UNSPECIFIED,
     {{"", "", "7"}, {"", "", "2"}}, 0, "o:1,k:3", 0, "4"},
    {"test_conv_syntax.ml test_use_padding_syntax Test 5: '2*o=+3*k'", "2*o=+3*k; k => o", NX_PADDING_UNSPECIFIED,
     {{"", "", "6"}, {"", "", "3"}}, 0, "o:2,k:3", -1, "3"},
    {"an offset and a kernel: '2*o<+1+k'", "2*o<+1+k; k => o", NX_PADDING_UNSPECIFIED,
     {{"", "", "7"}, {"", "", "3"}}, 0, "o:2,k:1", 1, "3"},
    {"identifier stride and dilation (OCANNL's syntax extension): 's*o<+d*k'", "s*o<+d*k; k => o",
     NX_PADDING_UNSPECIFIED, {{"", "", "9"}, {"", "", "3"}}, 0, "o:2,k:2", 0, "3"},
};

static void check_parses(void) {
  static const char *const names[] = {"s", "d"};
  static const int64_t values[] = {2, 2};
  for (size_t i = 0; i < sizeof parses / sizeof *parses; i++) {
    const parse_case *c = &parses[i];
    nx_shape_session *s;
    nx_tensor *args[2], *t;
    int n = c->rows[1][2] ? 2 : 1;
    CHECK(nx_shape_session_new(&s) == 0, "session");
    for (int j = 0; j < n; j++) CHECK(nx_tensor_term(s, NULL, c->rows[j][0], c->rows[j][1], c->rows[j][2], &args[j]) == 0, "term");
    nx_einsum_options o = {.use_padding = c->pad, .nvalues = 2, .names = names, .values = values};
    int rc = nx_tensor_einsum_ex(s, c->spec, &o, args, n, &t);
    CHECK(rc == 0, "%s: %s", c->source, nx_error_message());
    const nx_shape_proj *p = NULL;
    if (!rc) CHECK(nx_shape_finish(s) == 0 && nx_shape_projections(s, t, &p) == 0, "%s: %s", c->source, nx_error_message());
    if (p) {
      CHECK(!strcmp(shape_str(s, t, NX_SHAPE_STYLE_SIZE), c->shape), "%s: shape %s, expected %s", c->source,
            shape_str(s, t, NX_SHAPE_STYLE_SIZE), c->shape);
      nx_shape_index ix;
      CHECK(nx_proj_axis(p, 0, c->axis, NULL, &ix) == 0, "%s: axis", c->source);
      char got[128] = "";
      for (int k = 0; k < ix.nterms; k++) {
        const char *l = nx_proj_iter_label(p, ix.iter[k]);
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s:%lld", k ? "," : "", l ? l : "?",
                 (long long)ix.coeff[k]);
      }
      CHECK(!strcmp(got, c->terms) && ix.offset == c->offset, "%s: index %s%+lld, expected %s%+lld", c->source, got,
            (long long)ix.offset, c->terms, (long long)c->offset);
    }
    nx_shape_session_free(s);
  }
}

/* test_conv_padding.ml test_conv2d_stride_with_padding prints the input's
   padded dims "6+3x6+3x1": a 3-wide kernel with '=' pads one left, two
   right (OCANNL's margins), on a 6x6 input at stride 2. */
static void check_padding(void) {
  nx_shape_session *s;
  nx_tensor *args[2], *t;
  const nx_shape_proj *p = NULL;
  CHECK(nx_shape_session_new(&s) == 0 && nx_tensor_term(s, "input", "", "", "6,6,1", &args[0]) == 0 &&
            nx_tensor_param(s, "kernel", NULL, NULL, &args[1]) == 0,
        "session");
  static const char *const names[] = {"stride"};
  static const int64_t values[] = {2};
  nx_einsum_options o = {.use_padding = NX_PADDING_TRUE, .nvalues = 1, .names = names, .values = values};
  CHECK(nx_tensor_einsum_ex(s, "... | stride*oh+kh, stride*ow+kw, ..ic..; kh, kw, ..ic.. -> ..oc.. => ... | oh, ow, ..oc..",
                            &o, args, 2, &t) == 0,
        "conv2d: %s", nx_error_message());
  CHECK(nx_tensor_set_dim(s, nx_tensor_spec_dim(t, "kh"), 3) == 0 && nx_tensor_set_dim(s, nx_tensor_spec_dim(t, "kw"), 3) == 0 &&
            nx_tensor_set_row_total(s, nx_tensor_spec_row(t, "oc"), 4) == 0 && nx_shape_finish(s) == 0 &&
            nx_shape_projections(s, t, &p) == 0,
        "conv2d: %s", nx_error_message());
  for (int a = 0; p && a < 3; a++) {
    int64_t l = -1, r = -1, size;
    CHECK(nx_proj_padding(p, 0, a, &l, &r) == 0 && nx_proj_axis(p, 0, a, &size, NULL) == 0, "padding");
    CHECK(a < 2 ? size == 6 && l == 1 && r == 2 : size == 1 && l == 0 && r == 0,
          "input axis %d: %lld+%lld+%lld, expected OCANNL's 6+3 (1 left, 2 right) or 1", a, (long long)l, (long long)size,
          (long long)r);
  }
  for (int a = 0; p && a < 3; a++) {
    int64_t l = -1, r = -1;
    CHECK(nx_proj_padding(p, NX_PROJ_RESULT, a, &l, &r) == 0 && l == 0 && r == 0, "result axis %d padded", a);
  }
  /* A dilated padded kernel: OCANNL's margins (1, 2 for a 3-wide kernel)
     do not cover its span; nx pads as far as the index reaches. */
  nx_tensor *d[2], *y;
  CHECK(nx_tensor_term(s, "x", "", "", "6", &d[0]) == 0 && nx_tensor_term(s, "k", "", "", "3", &d[1]) == 0 &&
            nx_tensor_einsum(s, "o=+2*k; k => o", d, 2, &y) == 0 && nx_shape_finish(s) == 0 &&
            nx_shape_projections(s, y, &p) == 0,
        "dilated: %s", nx_error_message());
  int64_t l = -1, r = -1;
  CHECK(nx_proj_padding(p, 0, 0, &l, &r) == 0 && l == 1 && r == 3, "a dilated padded kernel pads %lld, %lld", (long long)l,
        (long long)r);
  nx_shape_session_free(s);
}

/* A 2-d convolution of the 4x4 tensor x by a kernel of k x k, padded ('='):
   OCANNL's test_padding_reset.ml spec, its kernel sizes set by the
   captured labels. */
static int conv(nx_shape_session *s, nx_tensor *x, int64_t k, nx_tensor **out, const nx_shape_proj **p) {
  nx_tensor *args[2] = {x, NULL};
  int rc = nx_tensor_param(s, NULL, NULL, NULL, &args[1]);
  if (!rc) rc = nx_tensor_einsum(s, "oh=+kh, ow=+kw; kh, kw => oh, ow", args, 2, out);
  if (!rc) rc = nx_tensor_set_dim(s, nx_tensor_spec_dim(*out, "kh"), k);
  if (!rc) rc = nx_tensor_set_dim(s, nx_tensor_spec_dim(*out, "kw"), k);
  if (!rc) rc = nx_shape_finish(s);
  return rc ? rc : nx_shape_projections(s, *out, p);
}

static bool pad_is(nx_shape_session *s, const nx_tensor *t, int64_t l, int64_t r) {
  for (int a = 0; a < 2; a++) {
    int64_t x = -1, y = -1;
    if (nx_tensor_padding(s, t, a, &x, &y) || x != l || y != r) return false;
  }
  return true;
}

/* Tensors' padding across operations. OCANNL's test_padding_reset.ml applies
   a max-pool and a convolution, both 3x3 with '=', to one 4x4 input: every
   shape stays 4x4 (its expected output prints "shape 0:4,1:4" for the
   input, the pooled and the convolved tensor), and the input's padding is
   what both need. row.ml's derivation of projections raises "Operation
   padding (left=L, right=R) exceeds resolved padding (left=l, right=r)"
   when an operation needs more padding on an axis than a tensor whose
   padding is resolved (its memory laid out) has: provoked here as the code
   does, by a wider kernel over an input resolved after a first convolution. */
static void check_tensor_padding(void) {
  nx_shape_session *s;
  nx_tensor *x = NULL, *pooled, *convd, *wide, *valid;
  const nx_shape_proj *p;
  CHECK(nx_shape_session_new(&s) == 0 && nx_tensor_term(s, "input", "", "", "4,4", &x) == 0, "session");
  CHECK(nx_tensor_padding(s, x, 0, NULL, NULL) == 0, "a closed leaf's padding: %s", nx_error_message());
  CHECK(pad_is(s, x, 0, 0) && !nx_tensor_padding_resolved(x), "no padding before any projection");
  CHECK(conv(s, x, 3, &pooled, &p) == 0 && conv(s, x, 3, &convd, &p) == 0, "3x3: %s", nx_error_message());
  CHECK(!strcmp(shape_str(s, x, NX_SHAPE_STYLE_SIZE), "4,4") && !strcmp(shape_str(s, pooled, NX_SHAPE_STYLE_SIZE), "4,4") &&
            !strcmp(shape_str(s, convd, NX_SHAPE_STYLE_SIZE), "4,4"),
        "test_padding_reset.ml shapes: %s", shape_str(s, convd, NX_SHAPE_STYLE_SIZE));
  CHECK(pad_is(s, x, 1, 2) && pad_is(s, pooled, 0, 0), "a 3-wide padded kernel pads its input 1 left, 2 right");
  nx_shape_snapshot *snap;
  CHECK(nx_shape_snapshot_take(s, &snap) == 0, "snapshot: %s", nx_error_message());
  CHECK(nx_tensor_resolve_padding(s, x) == 0 && nx_tensor_padding_resolved(x), "resolve: %s", nx_error_message());
  CHECK(nx_tensor_resolve_padding(s, x) == 0, "resolving twice");
  int rc = conv(s, x, 5, &wide, &p);
  CHECK(rc == NX_EINVAL &&
            has(nx_error_message(), "Operation padding (left=2, right=3) exceeds resolved padding (left=1, right=2)") &&
            has(nx_error_message(), "nx_shape_projections") && has(nx_error_message(), "input"),
        "a 5-wide kernel over the resolved input: %d %s", rc, nx_error_message());
  CHECK(pad_is(s, x, 1, 2) && pad_is(s, wide, 0, 0), "a failed derivation changes no padding");
  CHECK(conv(s, x, 3, &convd, &p) == 0, "a 3-wide kernel again fits: %s", nx_error_message());
  nx_tensor *args[2] = {x, NULL};
  CHECK(nx_tensor_param(s, NULL, NULL, NULL, &args[1]) == 0 &&
            nx_tensor_einsum(s, "oh<+kh, ow<+kw; kh, kw => oh, ow", args, 2, &valid) == 0 &&
            nx_tensor_set_dim(s, nx_tensor_spec_dim(valid, "kh"), 3) == 0 &&
            nx_tensor_set_dim(s, nx_tensor_spec_dim(valid, "kw"), 3) == 0 && nx_shape_finish(s) == 0 &&
            nx_shape_projections(s, valid, &p) == 0,
        "a convolution without padding over the resolved input: %s", nx_error_message());
  CHECK(nx_shape_snapshot_restore(s, snap) == 0 && !nx_tensor_padding_resolved(x) && pad_is(s, x, 1, 2),
        "restoring undoes the resolution: %s", nx_error_message());
  nx_shape_snapshot_free(snap);
  CHECK(conv(s, x, 5, &wide, &p) == 0 && pad_is(s, x, 2, 3), "unresolved, a wider kernel raises the padding: %s",
        nx_error_message());
  CHECK(nx_tensor_padding(s, x, 2, NULL, NULL) == NX_EINVAL && nx_tensor_padding(NULL, x, 0, NULL, NULL) == NX_EINVAL &&
            nx_tensor_resolve_padding(s, NULL) == NX_EINVAL && !nx_tensor_padding_resolved(NULL),
        "refusals");
  nx_tensor *open;
  CHECK(nx_tensor_term(s, "open", NULL, NULL, NULL, &open) == 0 && nx_tensor_padding(s, open, 0, NULL, NULL) == NX_EINVAL &&
            has(nx_error_message(), "not solved yet") && nx_tensor_resolve_padding(s, open) == NX_EINVAL,
        "an open tensor: %s", nx_error_message());
  nx_shape_session_free(s);
}

/* Runs p (no concatenations) as a reduction of operand 0 plus operand 1
   (pool: a max, the padding -inf) or of their product (a sum, the padding
   0), as OCANNL's "@^+" and "+*" do; res has the result's elements. */
static void run_reduce(const nx_shape_proj *p, double *const *ops, bool pool, double *res, int64_t nres) {
  int ni = nx_proj_iter_count(p);
  int64_t it[64] = {0};
  bool on[64];
  for (int i = 0; i < ni; i++) on[i] = true;
  for (int64_t i = 0; i < nres; i++) res[i] = pool ? -INFINITY : 0;
  for (;;) {
    int64_t off[2] = {0, 0}, ro = 0, size, x;
    bool inside = true;
    for (int w = 0; w < 2; w++)
      for (int a = 0; a < nx_proj_rank(p, w); a++) {
        index_at(p, w, a, it, on, &size, &x);
        inside = inside && x >= 0 && x < size;
        off[w] = off[w] * size + x;
      }
    for (int a = 0; a < nx_proj_rank(p, NX_PROJ_RESULT); a++) {
      index_at(p, NX_PROJ_RESULT, a, it, on, &size, &x);
      ro = ro * size + x;
    }
    double v0 = inside ? ops[0][off[0]] : pool ? -INFINITY : 0, v1 = inside ? ops[1][off[1]] : 0;
    if (pool) res[ro] = fmax(res[ro], v0 + v1);
    else res[ro] += v0 * v1;
    int i = ni - 1;
    while (i >= 0 && ++it[i] == nx_proj_iter_size(p, i)) it[i--] = 0;
    if (i < 0) return;
  }
}

/* OCANNL's test_padding_reset.ml: one 4x4 input holding -16..-1 under a 3x3
   padded max-pool (input @^+ "oh=+wh, ow=+ww; wh, ww => oh, ow" over a
   kernel of zeros) and a 3x3 padded sum (input +* "oh=+kh, ow=+kw; kh, kw
   => oh, ow" over ones). Its expected output pins pooled[0,0] = -11,
   pooled[1,1] = -6, pooled[3,3] = -1 (the padding -inf for a max) and
   conv[0,0] = -54, conv[1,1] = -99 (0 for a sum): the projections' indices
   reach the padding where OCANNL's do, and each operation reads it as its
   neutral value. */
static void check_padding_values(void) {
  nx_shape_session *s;
  nx_tensor *x = NULL, *y[2];
  const nx_shape_proj *p[2];
  double in[16], zeros[9] = {0}, ones[9], out[2][16];
  for (int i = 0; i < 16; i++) in[i] = i - 16;
  for (int i = 0; i < 9; i++) ones[i] = 1;
  CHECK(nx_shape_session_new(&s) == 0 && nx_tensor_term(s, "input", "", "", "4,4", &x) == 0, "session");
  CHECK(conv(s, x, 3, &y[0], &p[0]) == 0 && conv(s, x, 3, &y[1], &p[1]) == 0, "3x3: %s", nx_error_message());
  double *pool_ops[2] = {in, zeros}, *sum_ops[2] = {in, ones};
  run_reduce(p[0], pool_ops, true, out[0], 16);
  run_reduce(p[1], sum_ops, false, out[1], 16);
  CHECK(out[0][0] == -11 && out[0][5] == -6 && out[0][15] == -1, "pooled %g %g %g, expected OCANNL's -11 -6 -1", out[0][0],
        out[0][5], out[0][15]);
  CHECK(out[1][0] == -54 && out[1][5] == -99, "conv %g %g, expected OCANNL's -54 -99", out[1][0], out[1][5]);
  nx_shape_session_free(s);
}

/* OCANNL's check_slice_shapes.ml: images of batch 2x4 and output 3x3x1,
   sliced on the leftmost batch axis (images @| batch_n), then
   Nn_blocks.conv2d with padding (kernel 3, stride 1, one output channel,
   kh, kw and oc set before its einsum, a bias added). Its expected output
   prints the sliced tensor's dims "4x3+3x3+3x1" (each 3-wide spatial axis
   padded by 3: 1 left and 2 right) and "padding: Some", and the images'
   "2x4x3x3x1" with "padding: None": the convolution's projections pad its
   operand, not the tensor the slice read. (One output channel is a total
   of 1 element on the row variable ..oc.., which row.ml closes empty at
   stage 5: the result is 4|3,3.) */
static void check_slice_padding(void) {
  nx_shape_session *s;
  nx_tensor *images, *args[2], *conv, *bias, *processed;
  const nx_shape_proj *p;
  CHECK(nx_shape_session_new(&s) == 0 && nx_tensor_term(s, "images", "2,4", "", "3,3,1", &images) == 0 &&
            nx_tensor_batch_slice(s, images, &args[0]) == 0 && nx_tensor_param(s, "kernel", NULL, NULL, &args[1]) == 0,
        "session: %s", nx_error_message());
  nx_shape_ref *refs[3] = {nx_shape_ref_new(s, "kh"), nx_shape_ref_new(s, "kw"), nx_shape_ref_new(s, "oc")};
  const int64_t sizes[3] = {3, 3, 1};
  for (int i = 0; i < 3; i++) CHECK(refs[i] && nx_shape_ref_set_dim(s, refs[i], sizes[i]) == 0, "set_dim");
  const char *names[1] = {"stride"};
  const int64_t values[1] = {1};
  nx_einsum_options opt = {.nvalues = 1, .names = names, .values = values, .use_padding = NX_PADDING_TRUE,
                           .nrefs = 3, .refs = refs};
  CHECK(nx_tensor_einsum_ex(s, "... | stride*oh+kh, stride*ow+kw, ..ic..; kh, kw, ..ic.. -> ..oc.. => ... | oh, ow, ..oc..",
                            &opt, args, 2, &conv) == 0 &&
            nx_tensor_param(s, "bias", NULL, NULL, &bias) == 0 && nx_tensor_binary(s, "+", conv, bias, &processed) == 0 &&
            nx_shape_finish(s) == 0 && nx_shape_projections(s, conv, &p) == 0,
        "conv2d: %s", nx_error_message());
  CHECK(!strcmp(shape_str(s, images, NX_SHAPE_STYLE_SIZE), "2,4|3,3,1") &&
            !strcmp(shape_str(s, args[0], NX_SHAPE_STYLE_SIZE), "4|3,3,1") &&
            !strcmp(shape_str(s, processed, NX_SHAPE_STYLE_SIZE), "4|3,3"),
        "shapes: %s", shape_str(s, processed, NX_SHAPE_STYLE_SIZE));
  const int64_t want[4][2] = {{0, 0}, {1, 2}, {1, 2}, {0, 0}};
  for (int a = 0; a < 4; a++) {
    int64_t l = -1, r = -1;
    CHECK(nx_tensor_padding(s, args[0], a, &l, &r) == 0 && l == want[a][0] && r == want[a][1],
          "the slice's axis %d padded %lld, %lld, expected OCANNL's 4x3+3x3+3x1", a, (long long)l, (long long)r);
  }
  for (int a = 0; a < 5; a++) {
    int64_t l = -1, r = -1;
    CHECK(nx_tensor_padding(s, images, a, &l, &r) == 0 && l == 0 && r == 0, "the images' axis %d is padded", a);
  }
  nx_shape_session_free(s);
}

/* OCANNL's test_interleave.ml: Operation.interleave [1; 2; 3] [4; 5; 6] is
   "..., i => ..., 2*i" of the first plus "..., i => ..., 2*i + 1" of the
   second, accumulated into one tensor; its expected output prints shape
   0:6 and 1, 4, ..., 3, 6. Here the two einsums (a strided index on the
   result side) are made equal in shape and run by their projections alone
   into one buffer; deinterleave_even and deinterleave_odd ("..., 2*i =>
   ..., i", "..., 2*i + 1 => ..., i") take the halves back. */
static void check_interleave(void) {
  nx_shape_session *s;
  nx_tensor *x[2], *y[2], *back[2];
  const nx_shape_proj *p;
  static const char *const spec[2] = {"..., i => ..., 2*i", "..., i => ..., 2*i + 1"};
  static const char *const unspec[2] = {"..., 2*i => ..., i", "..., 2*i + 1 => ..., i"};
  double in[2][3] = {{1, 2, 3}, {4, 5, 6}}, out[6] = {0}, part[6], half[2][3];
  CHECK(nx_shape_session_new(&s) == 0, "session");
  for (int k = 0; k < 2; k++)
    CHECK(nx_tensor_term(s, NULL, "", "", "3", &x[k]) == 0 && nx_tensor_einsum(s, spec[k], &x[k], 1, &y[k]) == 0,
          "%s: %s", spec[k], nx_error_message());
  CHECK(nx_tensor_set_equal(s, y[0], y[1]) == 0, "the two results are one tensor: %s", nx_error_message());
  for (int k = 0; k < 2; k++)
    CHECK(nx_tensor_einsum(s, unspec[k], &y[0], 1, &back[k]) == 0, "%s: %s", unspec[k], nx_error_message());
  CHECK(nx_shape_finish(s) == 0 && !strcmp(shape_str(s, y[0], NX_SHAPE_STYLE_AXIS_NUMBER_AND_SIZE), "0:6"),
        "interleave shape %s, expected OCANNL's 0:6", shape_str(s, y[0], NX_SHAPE_STYLE_AXIS_NUMBER_AND_SIZE));
  for (int k = 0; k < 2; k++) {
    double *ops[1] = {in[k]};
    CHECK(nx_shape_projections(s, y[k], &p) == 0 && elems(p, NX_PROJ_RESULT) == 6 && run_proj(p, ops, part, 6) == 0,
          "%s: %s", spec[k], nx_error_message());
    for (int j = 0; j < 6; j++) out[j] += part[j];
  }
  const double want[6] = {1, 4, 2, 5, 3, 6};
  for (int j = 0; j < 6; j++) CHECK(out[j] == want[j], "interleave element %d is %g, expected %g", j, out[j], want[j]);
  for (int k = 0; k < 2; k++) {
    double *ops[1] = {out};
    CHECK(nx_shape_projections(s, back[k], &p) == 0 && elems(p, NX_PROJ_RESULT) == 3 && run_proj(p, ops, half[k], 3) == 0,
          "%s: %s", unspec[k], nx_error_message());
    for (int j = 0; j < 3; j++)
      CHECK(half[k][j] == in[k][j], "%s: element %d is %g, expected %g", unspec[k], j, half[k][j], in[k][j]);
  }
  nx_shape_session_free(s);
}

/* A tensor's values, computed by the projections of the operation that made
   it, recursively (a leaf's are given): up to GRAPH tensors. */
#define GRAPH 64
typedef struct {
  const nx_tensor *t[GRAPH];
  double v[GRAPH][64];
  int n;
} graph;

static const double *values_of(nx_shape_session *s, graph *g, const nx_tensor *t) {
  for (int i = 0; i < g->n; i++)
    if (g->t[i] == t) return g->v[i];
  const nx_shape_proj *p;
  if (g->n == GRAPH || nx_shape_projections(s, t, &p)) return NULL;
  double *ops[NX_SHAPE_MAX_OPERANDS];
  for (int i = 0; i < nx_proj_operand_count(p); i++)
    if (!(ops[i] = (double *)values_of(s, g, nx_proj_tensor(p, i)))) return NULL;
  int k = g->n;
  if (k == GRAPH || elems(p, NX_PROJ_RESULT) > 64 || run_proj(p, ops, g->v[k], elems(p, NX_PROJ_RESULT))) return NULL;
  g->t[k] = t, g->n++;
  return g->v[k];
}

/* A nest of stacks: at depth 0 the two parts stacked on kinds[0], at depth
   d two nests of depth d - 1 stacked on kinds[d], each built afresh. */
static int nest(nx_shape_session *s, nx_tensor *const *parts, const enum nx_axis_kind *kinds, int depth, nx_tensor **out) {
  if (!depth) return nx_tensor_stack(s, kinds[0], parts, 2, out);
  nx_tensor *two[2];
  int rc = nest(s, parts, kinds, depth - 1, &two[0]);
  if (!rc) rc = nest(s, parts, kinds, depth - 1, &two[1]);
  return rc ? rc : nx_tensor_stack(s, kinds[depth], two, 2, out);
}

/* OCANNL's block tensor literals (test_block_tensor.ml), which stack by a
   fixed index and a concatenation (nx_tensor_stack), computed by the
   projections of both operations alone: the values and shapes its expected
   output prints. */
static void check_block_literals(void) {
  static const double x1[] = {1, 2, 3}, x2[] = {4, 5, 6}, x3[] = {10, 20}, x4[] = {30, 40}, x5[] = {7, 8, 9};
  static const struct {
    const char *source;
    enum nx_axis_kind kind;
    const char *shape;
    double want[24];
  } lits[] = {
      {"test_block_tensor.ml Test 1: List output axis [x1; x2] (shape 0:2,1:3)", NX_AXIS_OUTPUT, "2,3", {1, 2, 3, 4, 5, 6}},
      {"test_block_tensor.ml Test 2: Array batch axis [|x3; x4|] (shape 0:2|1:2)", NX_AXIS_BATCH, "2|2", {10, 20, 30, 40}},
      {"test_block_tensor.ml Test 3: Tuple input axis (x1, x2) (shape 1:2->0:3)", NX_AXIS_INPUT, "2->3", {1, 4, 2, 5, 3, 6}},
      {"test_block_tensor.ml Test 4: 3-way list [x1; x2; x5] (shape 0:3,1:3)", NX_AXIS_OUTPUT, "3,3", {1, 2, 3, 4, 5, 6, 7, 8, 9}},
      {"test_block_tensor.ml Test 5: Nested [[x1; x2]; [x1; x2]] (shape 0:2,1:2,2:3)", NX_AXIS_OUTPUT, "2,2,3",
       {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}},
      {"test_block_tensor.ml Test 5b: Deeper nest (3 levels) (shape 0:2,1:2,2:2,3:3)", NX_AXIS_OUTPUT, "2,2,2,3",
       {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}},
      {"test_block_tensor.ml Test 5c: Cross-kind [ (x1, x2); (x1, x2) ] (shape 2:2->0:2,1:3)", NX_AXIS_OUTPUT, "2->2,3",
       {1, 4, 2, 5, 3, 6, 1, 4, 2, 5, 3, 6}},
      {"test_block_tensor.ml Test 5c2: Cross-kind [| [x1; x2]; [x1; x2] |] (shape 0:2|1:2,2:3)", NX_AXIS_BATCH, "2|2,3",
       {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}},
      {"test_block_tensor.ml Test 5c3: Three-way [| [ (x1, x2); (x1, x2) ]; ... |] (shape 0:2|3:2->1:2,2:3)",
       NX_AXIS_BATCH, "2|2->2,3", {1, 4, 2, 5, 3, 6, 1, 4, 2, 5, 3, 6, 1, 4, 2, 5, 3, 6, 1, 4, 2, 5, 3, 6}},
  };
  /* The nests: per case, the kinds of its levels, innermost first (Tests 5 to 5c3). */
  static const enum nx_axis_kind nests[][3] = {
      [4] = {NX_AXIS_OUTPUT, NX_AXIS_OUTPUT},
      [5] = {NX_AXIS_OUTPUT, NX_AXIS_OUTPUT, NX_AXIS_OUTPUT},
      [6] = {NX_AXIS_INPUT, NX_AXIS_OUTPUT},
      [7] = {NX_AXIS_OUTPUT, NX_AXIS_BATCH},
      [8] = {NX_AXIS_INPUT, NX_AXIS_OUTPUT, NX_AXIS_BATCH},
  };
  for (size_t i = 0; i < sizeof lits / sizeof *lits; i++) {
    nx_shape_session *s;
    nx_tensor *a = NULL, *b = NULL, *c = NULL, *t;
    graph g = {.n = 3};
    bool two = i == 1;
    CHECK(nx_shape_session_new(&s) == 0 && nx_tensor_term(s, "xa", "", "", two ? "2" : "3", &a) == 0 &&
              nx_tensor_term(s, "xb", "", "", two ? "2" : "3", &b) == 0 && nx_tensor_term(s, "xc", "", "", "3", &c) == 0,
          "terms");
    g.t[0] = a, g.t[1] = b, g.t[2] = c;
    memcpy(g.v[0], two ? x3 : x1, (two ? 2 : 3) * sizeof(double));
    memcpy(g.v[1], two ? x4 : x2, (two ? 2 : 3) * sizeof(double));
    memcpy(g.v[2], x5, sizeof x5);
    nx_tensor *parts[3] = {a, b, c};
    int rc = 0;
    if (i < 4) rc = nx_tensor_stack(s, lits[i].kind, parts, i == 3 ? 3 : 2, &t);
    else rc = nest(s, parts, nests[i], i == 5 || i == 8 ? 2 : 1, &t);
    CHECK(rc == 0 && nx_shape_finish(s) == 0, "%s: %s", lits[i].source, nx_error_message());
    CHECK(!strcmp(shape_str(s, t, NX_SHAPE_STYLE_SIZE), lits[i].shape), "%s: shape %s", lits[i].source,
          shape_str(s, t, NX_SHAPE_STYLE_SIZE));
    const double *v = rc ? NULL : values_of(s, &g, t);
    CHECK(v != NULL, "%s: computed by the projections: %s", lits[i].source, nx_error_message());
    const nx_shape_proj *p;
    if (v && nx_shape_projections(s, t, &p) == 0) {
      CHECK(nx_proj_tensor(p, NX_PROJ_RESULT) == t && nx_proj_tensor(p, nx_proj_operand_count(p)) == NULL,
            "%s: nx_proj_tensor", lits[i].source);
      int n = (int)elems(p, NX_PROJ_RESULT);
      for (int j = 0; j < n; j++)
        CHECK(v[j] == lits[i].want[j], "%s: element %d is %g, OCANNL prints %g", lits[i].source, j, v[j], lits[i].want[j]);
    }
    nx_shape_session_free(s);
  }
}

/* test_block_tensor.ml Tests 5e2 and 5g: concatenations added to a zero
   vector of 7, whose exact values OCANNL prints ("10 20 30 40 50 60 70" for
   "ii; mm; kk => ii^mm^kk", and "1 2 ... 7" for the nested "jj; kk =>
   jj^kk" inside "ii; jjkk => ii^jjkk"). The concatenations are computed
   by their projections; the pointwise sum with zeros, whose loops nx's
   projections do not give, is checked for its shape (7) only. */
static void check_concat_values(void) {
  for (int nested = 0; nested < 2; nested++) {
    nx_shape_session *s;
    nx_tensor *a = NULL, *b = NULL, *c = NULL, *zeros, *cat, *sum;
    graph g = {.n = 3};
    static const double mc[3][3] = {{10, 20}, {30, 40, 50}, {60, 70}}, ng[3][3] = {{1, 2}, {3, 4, 5}, {6, 7}};
    CHECK(nx_shape_session_new(&s) == 0 && nx_tensor_term(s, "a", "", "", "2", &a) == 0 &&
              nx_tensor_term(s, "b", "", "", "3", &b) == 0 && nx_tensor_term(s, "c", "", "", "2", &c) == 0 &&
              nx_tensor_term(s, "fixed7", "", "", "7", &zeros) == 0,
          "terms");
    g.t[0] = a, g.t[1] = b, g.t[2] = c;
    for (int i = 0; i < 3; i++) memcpy(g.v[i], nested ? ng[i] : mc[i], sizeof mc[i]);
    nx_tensor *abc[3] = {a, b, c};
    int rc;
    if (nested) {
      nx_tensor *bc;
      rc = nx_tensor_einsum(s, "jj; kk => jj^kk", abc + 1, 2, &bc);
      nx_tensor *abc2[2] = {a, bc};
      if (!rc) rc = nx_tensor_einsum(s, "ii; jjkk => ii^jjkk", abc2, 2, &cat);
    } else
      rc = nx_tensor_einsum(s, "ii; mm; kk => ii^mm^kk", abc, 3, &cat);
    if (!rc) rc = nx_tensor_binary(s, "+", cat, zeros, &sum);
    CHECK(rc == 0 && nx_shape_finish(s) == 0 && !strcmp(shape_str(s, sum, NX_SHAPE_STYLE_SIZE), "7"),
          "test_block_tensor.ml Test %s: %s", nested ? "5g" : "5e2", nx_error_message());
    const double *v = rc ? NULL : values_of(s, &g, cat);
    for (int j = 0; v && j < 7; j++)
      CHECK(v[j] == (nested ? j + 1 : 10 * (j + 1)), "test_block_tensor.ml Test %s: element %d is %g",
            nested ? "5g" : "5e2", j, v[j]);
    CHECK(v != NULL, "computed: %s", nx_error_message());
    nx_shape_session_free(s);
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--dump")) return dump();
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    nx_shape_session *s;
    double *ops[MAXOP] = {0}, res[MAXEL], want[MAXEL];
    int64_t nres = 0;
    CHECK(nx_shape_session_new(&s) == 0, "session");
    const nx_shape_proj *p = compute(s, &cases[i], ops, res, &nres);
    if (p && (i == 0 || i == 2 || i == 7 || i == 11)) {
      by_hand(i, ops, want);
      for (int64_t j = 0; j < nres; j++)
        CHECK(res[j] == want[j], "%s: element %lld is %g, by hand %g", cases[i].source, (long long)j, res[j], want[j]);
    }
    if (p && !strcmp(cases[i].spec, "a, c; a, d; b, c; b, d => a^b, c^d")) {
      /* two groups, {a, b} and {c, d}, each iterated one part after the other */
      CHECK(nx_proj_iter_count(p) == 4 && nx_proj_group_count(p) == 2 && nx_proj_iter_group(p, 0) == 0 &&
                nx_proj_iter_group(p, 1) == 0 && nx_proj_iter_group(p, 2) == 1 && nx_proj_iter_group(p, 3) == 1,
            "block matrix: groups %d", nx_proj_group_count(p));
      nx_shape_index ix;
      CHECK(nx_proj_axis(p, NX_PROJ_RESULT, 1, NULL, &ix) == 0 && ix.nparts == 2 && ix.nterms == 0 &&
                ix.parts[0] == 2 && ix.parts[1] == 3 && ix.part_offset[0] == 0 && ix.part_offset[1] == 3,
            "block matrix: the index of c^d");
    }
    if (p && i == 0) { /* the result's iterators first: i, k, then j */
      CHECK(nx_proj_iter_count(p) == 3 && nx_proj_iter_size(p, 0) == 2 && nx_proj_iter_size(p, 1) == 4 &&
                nx_proj_iter_size(p, 2) == 3 && !strcmp(nx_proj_iter_label(p, 2), "j"),
            "matrix product: iterators");
    }
    for (int j = 0; j < MAXOP; j++) free(ops[j]);
    nx_shape_session_free(s);
  }
  check_parses();
  check_padding();
  check_tensor_padding();
  check_slice_padding();
  check_padding_values();
  check_interleave();
  check_block_literals();
  check_concat_values();
  /* Refusals. */
  nx_shape_session *s;
  nx_tensor *x, *y;
  const nx_shape_proj *p;
  CHECK(nx_shape_session_new(&s) == 0 && nx_tensor_term(s, "x", "", "", "2,3", &x) == 0, "session");
  CHECK(nx_shape_projections(s, x, &p) == NX_EINVAL && has(nx_error_message(), "not made by nx_tensor_einsum"),
        "a leaf: %s", nx_error_message());
  CHECK(nx_tensor_einsum(s, "ij => ji", &x, 1, &y) == 0, "permute");
  nx_tensor *z;
  CHECK(nx_tensor_param(s, "w", NULL, NULL, &z) == 0 && nx_tensor_einsum(s, "ab => ba", &z, 1, &y) == 0, "param");
  CHECK(nx_shape_projections(s, y, &p) == NX_EINVAL && has(nx_error_message(), "not solved yet"), "unsolved: %s",
        nx_error_message());
  {
    nx_shape_session *s2;
    nx_tensor *v, *w;
    CHECK(nx_shape_session_new(&s2) == 0 && nx_tensor_term(s2, "v", "", "", "7", &v) == 0 &&
              nx_tensor_einsum(s2, "a^2*b => a, b", &v, 1, &w) == 0 &&
              nx_tensor_set_dim(s2, nx_tensor_spec_dim(w, "a"), 3) == 0 && nx_shape_finish(s2) == 0,
          "a nested part: %s", nx_error_message());
    CHECK(nx_shape_projections(s2, w, &p) == NX_EINVAL && has(nx_error_message(), "not a label"),
          "a nested concatenation part: %s", nx_error_message());
    nx_shape_session_free(s2);
  }
  CHECK(nx_proj_group_count(NULL) == NX_EINVAL && nx_proj_iter_group(NULL, 0) == -1, "NULL groups");
  CHECK(nx_shape_projections(NULL, y, &p) == NX_EINVAL && nx_shape_projections(s, NULL, &p) == NX_EINVAL &&
            nx_shape_projections(s, y, NULL) == NX_EINVAL,
        "NULL arguments");
  CHECK(nx_proj_iter_size(NULL, 0) == -1 && nx_proj_rank(NULL, 0) == -1 && nx_proj_axis(NULL, 0, 0, NULL, NULL) ==
            NX_EINVAL, "NULL projections");
  nx_shape_session_free(s);
  return check_done();
}
