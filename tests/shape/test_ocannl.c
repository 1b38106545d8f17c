/* SPDX-License-Identifier: Apache-2.0 */
/* Cases ported from OCANNL's own test suite, as data: each is a small
   program (leaves, operations, closing) and the shapes, captured sizes or
   errors OCANNL's expected output pins. Each case names its source file and
   test in OCANNL's repository. */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

/* One step. T: term name batch input output (NULL rows are inferred);
   P: param name input output; E: einsum name spec args...; B: binary "+" of
   x and y (a pointwise operation: "*." constrains shapes alike); C: compose
   x * y; F: finish; S: name's shape (SIZE style) is x; V: the dim that
   label x stood for in name's spec is y; W: the product of the row of row
   variable x in name's spec is y; R: the step before failed with a message
   holding x. */
typedef struct {
  char op;
  const char *name, *x, *y, *z, *w;
} step;

typedef struct {
  const char *source;
  step steps[24];
} program;

/* A step lists only the fields its op reads; the rest are NULL. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const program cases[] = {
    {"test/einsum/test_einsum_capture.ml capture_for_computation",
     {{'T', "x", "", "", "2,3"}, {'T', "y", "", "", "3,4"}, {'E', "z", "ab;bc=>ac", "x", "y"},
      {'T', "x2", "", "", "5,7"}, {'E', "y2", "ij=>ji", "x2"}, {'T', "x3", "", "", "2,3,4"},
      {'T', "y3", "", "", "3,4,5"}, {'E', "z3", "a..r..;..r..b=>ab", "x3", "y3"}, {'F'},
      {'V', "z", "a", "2"}, {'V', "z", "b", "3"}, {'V', "z", "c", "4"}, {'V', "y2", "i", "5"},
      {'V', "y2", "j", "7"}, {'W', "z3", "r", "12"}}},
    {"test/einsum/test_einsum_capture.ml test_set_dim_and_set_equal, Test 5",
     {{'T', "x_test", "", "", "3,4"}, {'T', "y_test", "", "", "4,5"}, {'E', "z_test", "pq;qr=>pr", "x_test", "y_test"},
      {'F'}, {'V', "z_test", "p", "3"}, {'V', "z_test", "q", "4"}, {'V', "z_test", "r", "5"}, {'S', "z_test", "3,5"}}},
    {"test/einsum/test_einsum_capture.ml test_set_dim_and_set_equal, Test 6",
     {{'T', "x_row", "", "", "2,6"}, {'T', "y_row", "", "", "6,3"}, {'E', "z_row", "a..s..;..s..b=>ab", "x_row", "y_row"},
      {'F'}, {'W', "z_row", "s", "6"}, {'S', "z_row", "2,3"}}},
    {"test/einsum/test_einsum_capture.ml name clash, Test 1",
     {{'T', "x1", "", "", "2,3"}, {'T', "y1", "", "", "3,4"}, {'E', "z1", "..d.., d; d, e => ..d.., e", "x1", "y1"},
      {'R', NULL,
       "Name 'd' is used as both a dimension variable and a row variable in spec: ..d.., d; d, e => ..d.., e"}}},
    {"test/einsum/test_einsum_capture.ml name clash, Test 2",
     {{'T', "x2", "", "", "2,3,4"}, {'E', "y2", "..v.., v => v, ..v..", "x2"},
      {'R', NULL, "Name 'v' is used as both a dimension variable and a row variable in spec: ..v.., v => v, ..v.."}}},
    {"test/einsum/test_einsum_capture.ml name clash, Test 3",
     {{'T', "x3", "", "", "2,3,4"}, {'T', "y3", "", "", "3,4,5"}, {'E', "z3", "a, ..r..; ..r.., b => a, b", "x3", "y3"},
      {'F'}, {'S', "z3", "2,5"}}},
    {"test/operations/test_block_tensor.ml Test 5e (multi-character mode from '^')",
     {{'T', "a_e", "", "", "2"}, {'T', "b_e", "", "", "3"}, {'P', "c_e", NULL, NULL}, {'T', "fixed7", "", "", "7"},
      {'E', "cat", "ii; jj; kk => ii^jj^kk", "a_e", "b_e", "c_e"}, {'B', "concat_resid", "cat", "fixed7"}, {'F'},
      {'S', "concat_resid", "7"}, {'S', "c_e", "2"}, {'V', "cat", "kk", "2"}}},
    {"test/operations/test_block_tensor.ml Test 5e2",
     {{'T', "a_mc", "", "", "2"}, {'T', "b_mc", "", "", "3"}, {'T', "c_mc", "", "", "2"}, {'T', "fixed7_mc", "", "", "7"},
      {'E', "cat", "ii; mm; kk => ii^mm^kk", "a_mc", "b_mc", "c_mc"}, {'B', "concat_mc", "cat", "fixed7_mc"}, {'F'},
      {'S', "concat_mc", "7"}}},
    {"test/operations/test_block_tensor.ml Test 5f",
     {{'T', "pf1", "", "", "2"}, {'T', "pf2", "", "", "3"}, {'T', "fixed5", "", "", "5"},
      {'E', "cat", "ii; jj => ii^jj", "pf1", "pf2"}, {'B', "concat_2c", "fixed5", "cat"}, {'F'}, {'S', "concat_2c", "5"}}},
    {"test/operations/test_block_tensor.ml Test 5g",
     {{'T', "ng1", "", "", "2"}, {'T', "ng2", "", "", "3"}, {'T', "ng3", "", "", "2"}, {'T', "fixed7g", "", "", "7"},
      {'E', "bc_g", "jj; kk => jj^kk", "ng2", "ng3"}, {'E', "nested_concat", "ii; jjkk => ii^jjkk", "ng1", "bc_g"},
      {'B', "nested_dim", "nested_concat", "fixed7g"}, {'F'}, {'S', "nested_dim", "7"}, {'S', "bc_g", "5"}}},
    {"test/einsum/test_einsum_parser.ml test_single_char ('ij;jk=>ik': two axes each)",
     {{'T', "x", "", "", "2,3"}, {'T', "y", "", "", "3,4"}, {'E', "r", "ij;jk=>ik", "x", "y"}, {'F'}, {'S', "r", "2,4"}}},
    {"test/einsum/test_einsum_parser.ml test_single_char ('b|i->o')",
     {{'T', "x", "2", "3", "4"}, {'E', "r", "b|i->o => o|b->i", "x"}, {'F'}, {'S', "r", "4|2->3"}}},
    {"test/einsum/test_einsum_parser.ml test_multichar ('a, b,': a trailing comma, two axes)",
     {{'T', "x", "", "", "2,3"}, {'E', "r", "a, b, => b, a", "x"}, {'F'}, {'S', "r", "3,2"}}},
    {"test/einsum/test_einsum_parser.ml test_multichar ('a, b, c': three axes)",
     {{'T', "x", "", "", "2,3,4"}, {'E', "r", "a, b, c => c, b, a", "x"}, {'F'}, {'S', "r", "4,3,2"}}},
    {"test/einsum/test_einsum_parser.ml test_mode_detection ('...a..b' single-char)",
     {{'T', "x", "", "", "2,3,4,5"}, {'E', "r", "...ab => ba...", "x"}, {'F'}, {'S', "r", "5,4,2,3"}}},
    {"test/einsum/tensor_puzzles.ml diag ('ii => i', repeated label)",
     {{'T', "m33", "", "", "3,3"}, {'E', "p4", "ii => i", "m33"}, {'F'}, {'S', "p4", "3"}}},
    /* A number is a leaf of one output axis, 1 of the broadcast top
       (tensor.ml's number); a list literal [a; b] one output axis of its
       length, `: q` naming its basis. */
    {"test/operations/hello_world_op.ml Pointwise multiplication dims 1 (2 *. { hey = 7.0 })",
     {{'T', "two", "", "", "bcast_if_1=1"}, {'P', "hey", NULL, NULL}, {'B', "y", "two", "hey"}, {'F'}, {'S', "y", "1"}}},
    {"test/operations/hello_world_op.ml Matrix multiplication dims 1x1",
     {{'P', "hey", NULL, NULL}, {'T', "c2", "", "", "q=1"}, {'C', "m", "hey", "c2"}, {'T', "c1", "", "", "p=1"},
      {'B', "y", "m", "c1"}, {'F'}, {'S', "hey", "q=1->p=1"}, {'S', "y", "p=1"}}},
    {"test/operations/hello_world_op.ml Matrix multiplication dims 2x3",
     {{'P', "hey", NULL, NULL}, {'T', "c23", "", "", "2"}, {'C', "m", "hey", "c23"}, {'T', "c456", "", "", "3"},
      {'B', "y", "m", "c456"}, {'F'}, {'S', "hey", "2->3"}, {'S', "y", "3"}}},
    {"test/operations/hello_world_op.ml Big matrix",
     {{'P', "hey", NULL, NULL}, {'T', "r20", "", "", "20"}, {'C', "m", "hey", "r20"}, {'B', "y", "m", "r20"}, {'F'},
      {'S', "hey", "20->20"}, {'S', "y", "20"}}},
    {"test/operations/hello_world_op.ml Very big tensor ((hey * (1 + 1)) - 10)",
     {{'T', "hey", "6", "7,8,9", "10,11"}, {'T', "one", "", "", "bcast_if_1=1"}, {'T', "one2", "", "", "bcast_if_1=1"},
      {'B', "two", "one", "one2"}, {'C', "m", "hey", "two"}, {'T', "ten", "", "", "bcast_if_1=1"},
      {'B', "hoo", "m", "ten"}, {'F'}, {'S', "hoo", "6|10,11"}}},
    {"test/operations/test_param_shape_error.ml default_linear_op ({ w } * [ 3; 4; 5 ])",
     {{'P', "w", NULL, NULL}, {'T', "c345", "", "", "3"}, {'C', "w_o", "w", "c345"}, {'F'},
      {'R', NULL, "You forgot to specify the hidden dimension(s) 1"}}},
    {"test/operations/test_param_shape_error.ml default_affine_op_propagated ([ 1; 2 ] + ({ w } * [ 3; 4; 5 ]))",
     {{'T', "c12", "", "", "2"}, {'P', "w", NULL, NULL}, {'T', "c345", "", "", "3"}, {'C', "m", "w", "c345"},
      {'B', "w_o", "c12", "m"}, {'F'}, {'S', "w", "3->2"}}},
    {"test/operations/test_param_shape_error.ml default_affine_op_unknown_input ([ 1; 2 ] + ({ w } * { x }))",
     {{'T', "c12", "", "", "2"}, {'P', "w", NULL, NULL}, {'P', "x", NULL, NULL}, {'C', "m", "w", "x"},
      {'B', "w_o", "c12", "m"}, {'F'}, {'R', NULL, "You forgot to specify the hidden dimension(s) 1"}}},
    {"test/operations/test_param_shape_error.ml default_bias_param ({ x } + { y })",
     {{'P', "x", NULL, NULL}, {'P', "y", NULL, NULL}, {'B', "w_o", "x", "y"}, {'F'},
      {'R', NULL, "You forgot to specify the hidden dimension(s) 1"}}},
};
/* Cases at the level of dims, as OCANNL's tests that build Row constraints
   directly. v: a dim variable name; d: name solved to size x, basis y; a:
   name = x*y (x a number, y a dim); c: name = a convolution of stride x
   over y with kernel z, dilation 1, padding if w is "pad"; k: name = the
   concatenation of x, y (and z); =: x = y; i: x <= y; s: solve stage 1, or
   x; F: finish; L: x constraints are left deferred; N: name is not
   solved; D: name is
   solved to size x, basis y; R: the step before failed with a message
   holding x (a read before an R may be skipped: the error may come while
   solving). */
#define MAXD 8
static const program dim_cases[] = {
    {"test/einsum/test_dimension_labels.ml Test 9: Concat, consistent bases -- basis preserved",
     {{'v', "result"}, {'v', "comp"}, {'d', "three", "3", "x"}, {'k', "cat", "comp", "three"}, {'=', NULL, "result", "cat"},
      {'d', "two", "2", "x"}, {'=', NULL, "comp", "two"}, {'s'}, {'D', "result", "5", "x"}}},
    {"test/einsum/test_dimension_labels.ml Test 10: Concat, conflicting bases -- raises",
     {{'v', "result"}, {'v', "comp"}, {'d', "three", "3", "y"}, {'k', "cat", "comp", "three"}, {'=', NULL, "result", "cat"},
      {'d', "two", "2", "x"}, {'=', NULL, "comp", "two"}, {'s'}, {'D', "result", "5", "x"},
      {'R', NULL, "concat: conflicting dimension bases"}}},
    {"test/einsum/test_dimension_labels.ml Test 11: Concat, mix based/unbased -- basis preserved",
     {{'v', "result"}, {'v', "comp"}, {'d', "three", "3", "default"}, {'k', "cat", "comp", "three"},
      {'=', NULL, "result", "cat"}, {'d', "two", "2", "x"}, {'=', NULL, "comp", "two"}, {'s'}, {'D', "result", "5", "x"}}},
    {"test/einsum/test_dimension_labels.ml Test 12: Affine, matching bases -- preserved",
     {{'v', "over"}, {'v', "result"}, {'d', "k3", "3", "x"}, {'c', "conv", "1", "over", "k3"}, {'=', NULL, "result", "conv"},
      {'d', "four", "4", "x"}, {'=', NULL, "over", "four"}, {'s'}, {'D', "result", "6", "x"}}},
    {"test/einsum/test_dimension_labels.ml Test 13: Affine, conflicting bases -- raises",
     {{'v', "over"}, {'v', "result"}, {'d', "k3", "3", "y"}, {'c', "conv", "1", "over", "k3"}, {'=', NULL, "result", "conv"},
      {'d', "four", "4", "x"}, {'=', NULL, "over", "four"}, {'s'}, {'D', "result", "6", "x"},
      {'R', NULL, "convolution: conflicting dimension bases between stride and kernel"}}},
    {"test/einsum/test_dimension_labels.ml Test 14: Stride no-conv forward -- basis propagated",
     {{'v', "result"}, {'d', "four", "4", "x"}, {'a', "aff", "2", "four"}, {'=', NULL, "result", "aff"}, {'s'},
      {'D', "result", "8", "x"}}},
    {"test/einsum/test_dimension_labels.ml Test 15: Stride no-conv reverse -- basis propagated",
     {{'v', "over"}, {'a', "aff", "2", "over"}, {'d', "eight", "8", "x"}, {'=', NULL, "eight", "aff"}, {'s'},
      {'D', "over", "4", "x"}}},
    {"test/einsum/test_dimension_labels.ml Test 16: Conv no-padding forward -- basis propagated",
     {{'v', "result"}, {'d', "four", "4", "x"}, {'d', "k3", "3", "default"}, {'c', "conv", "1", "four", "k3"},
      {'=', NULL, "result", "conv"}, {'s'}, {'D', "result", "6", "x"}}},
    {"test/einsum/test_dimension_labels.ml Test 17: Conv no-padding reverse -- basis propagated",
     {{'v', "over"}, {'d', "k3", "3", "default"}, {'c', "conv", "1", "over", "k3"}, {'d', "six", "6", "x"},
      {'=', NULL, "six", "conv"}, {'s'}, {'D', "over", "4", "x"}}},
    {"test/einsum/test_concat_dim_solver.ml AC1: two Concat GLB bounds merge at stage 4",
     {{'v', "a"}, {'v', "b"}, {'v', "c"}, {'v', "d"}, {'v', "vv"}, {'k', "ab", "a", "b"}, {'k', "cd", "c", "d"},
      {'i', NULL, "ab", "vv"}, {'i', NULL, "cd", "vv"}, {'s', NULL, "4"}, {'L', NULL, "0"}}},
    {"test/einsum/test_concat_dim_solver.ml AC3: 3-var = 2-var (disjoint) solved at stage 4",
     {{'v', "a"}, {'v', "b"}, {'v', "c"}, {'v', "d"}, {'v', "e"}, {'k', "abc", "a", "b", "c"}, {'k', "de", "d", "e"},
      {'=', NULL, "abc", "de"}, {'s', NULL, "4"}, {'L', NULL, "0"}}},
    {"test/einsum/test_concat_dim_solver.ml AC3: 2-var = 3-var (disjoint) solved at stage 4",
     {{'v', "a"}, {'v', "b"}, {'v', "c"}, {'v', "d"}, {'v', "e"}, {'k', "ab", "a", "b"}, {'k', "cde", "c", "d", "e"},
      {'=', NULL, "ab", "cde"}, {'s', NULL, "4"}, {'L', NULL, "0"}}},
    {"test/einsum/test_concat_dim_solver.ml AC3: shared [s;a;b] = [s;c] solved at stage 4",
     {{'v', "s"}, {'v', "a"}, {'v', "b"}, {'v', "c"}, {'k', "sab", "s", "a", "b"}, {'k', "sc", "s", "c"},
      {'=', NULL, "sab", "sc"}, {'s', NULL, "4"}, {'L', NULL, "0"}}},
    {"test/einsum/test_concat_dim_solver.ml AC3: shared [s;p] = [s;q;r] solved at stage 4",
     {{'v', "s"}, {'v', "p"}, {'v', "q"}, {'v', "r"}, {'k', "sp", "s", "p"}, {'k', "sqr", "s", "q", "r"},
      {'=', NULL, "sp", "sqr"}, {'s', NULL, "4"}, {'L', NULL, "0"}}},
    {"test/einsum/test_concat_dim_solver.ml AC3: 3-var = 2-var deferred at stage 1",
     {{'v', "a"}, {'v', "b"}, {'v', "c"}, {'v', "d"}, {'v', "e"}, {'k', "abc", "a", "b", "c"}, {'k', "de", "d", "e"},
      {'=', NULL, "abc", "de"}, {'s', NULL, "1"}, {'L', NULL, "1"}}},
    {"test/operations/test_concat_dim_solver.ml test_ac1_glb_merge_compatible",
     {{'v', "v"}, {'d', "two", "2", "default"}, {'d', "three", "3", "default"}, {'d', "one", "1", "default"},
      {'d', "four", "4", "default"}, {'k', "c23", "two", "three"}, {'k', "c14", "one", "four"},
      {'i', NULL, "c23", "v"}, {'i', NULL, "c14", "v"}, {'s', NULL, "4"}, {'L', NULL, "0"}, {'d', "five", "5", "default"},
      {'=', NULL, "v", "five"}, {'s', NULL, "4"}, {'D', "v", "5", "default"}}},
    {"test/operations/test_concat_dim_solver.ml test_ac1_glb_merge_compatible (v = 6 conflicts)",
     {{'v', "v"}, {'d', "two", "2", "default"}, {'d', "three", "3", "default"}, {'d', "one", "1", "default"},
      {'d', "four", "4", "default"}, {'k', "c23", "two", "three"}, {'k', "c14", "one", "four"},
      {'i', NULL, "c23", "v"}, {'i', NULL, "c14", "v"}, {'s', NULL, "4"}, {'d', "six", "6", "default"},
      {'=', NULL, "v", "six"}, {'s', NULL, "4"}, {'R', NULL, "mismatch"}}},
    {"test/operations/test_concat_dim_solver.ml test_ac1_glb_merge_incompatible_demotes",
     {{'v', "v"}, {'d', "two", "2", "default"}, {'d', "three", "3", "default"}, {'d', "four", "4", "default"},
      {'k', "c23", "two", "three"}, {'k', "c24", "two", "four"}, {'i', NULL, "c23", "v"}, {'i', NULL, "c24", "v"},
      {'s', NULL, "4"}, {'D', "v", "1", "bcast_if_1"}}},
    {"test/operations/test_concat_dim_solver.ml test_ac1_glb_merge_postpone_below_stage4",
     {{'v', "v"}, {'d', "two", "2", "default"}, {'d', "three", "3", "default"}, {'d', "one", "1", "default"},
      {'d', "four", "4", "default"}, {'k', "c23", "two", "three"}, {'k', "c14", "one", "four"},
      {'i', NULL, "c23", "v"}, {'i', NULL, "c14", "v"}, {'s', NULL, "1"}, {'N', "v"}}},
    {"test/operations/test_concat_dim_solver.ml test_ac3_unequal_arity_all_var",
     {{'v', "a"}, {'v', "b"}, {'v', "c"}, {'v', "d"}, {'v', "e"}, {'k', "abc", "a", "b", "c"}, {'k', "de", "d", "e"},
      {'=', NULL, "abc", "de"}, {'s', NULL, "4"}, {'D', "c", "0", "default"}, {'d', "seven", "7", "default"},
      {'=', NULL, "a", "seven"}, {'s', NULL, "4"}, {'D', "d", "7", "default"}, {'d', "nine", "9", "default"},
      {'=', NULL, "b", "nine"}, {'s', NULL, "4"}, {'D', "e", "9", "default"}}},
    {"test/operations/test_concat_dim_solver.ml test_ac3_one_side_all_var_other_has_solved",
     {{'v', "a"}, {'v', "b"}, {'v', "e"}, {'d', "four", "4", "default"}, {'k', "ab", "a", "b"}, {'k', "fe", "four", "e"},
      {'=', NULL, "ab", "fe"}, {'s', NULL, "4"}, {'D', "b", "4", "default"}}},
    {"test/operations/test_concat_dim_solver.ml test_nested_concat_flattened",
     {{'v', "a"}, {'v', "b"}, {'v', "c"}, {'v', "d"}, {'v', "e"}, {'v', "f"}, {'k', "ab", "a", "b"},
      {'k', "abc", "ab", "c"}, {'k', "def", "d", "e", "f"}, {'=', NULL, "abc", "def"}, {'s', NULL, "4"},
      {'d', "two", "2", "default"}, {'d', "three", "3", "default"}, {'d', "four", "4", "default"},
      {'=', NULL, "a", "two"}, {'=', NULL, "b", "three"}, {'=', NULL, "c", "four"}, {'s', NULL, "4"},
      {'D', "d", "2", "default"}, {'D', "e", "3", "default"}, {'D', "f", "4", "default"}}},
    {"test/operations/test_concat_dim_solver.ml test_ac3_affine_residual_not_overconstrained",
     {{'v', "a"}, {'v', "c"}, {'v', "b"}, {'v', "w"}, {'a', "aff", "2", "w"}, {'k', "ac", "a", "c"},
      {'k', "affb", "aff", "b"}, {'=', NULL, "ac", "affb"}, {'s', NULL, "4"}, {'d', "five", "5", "default"},
      {'d', "seven", "7", "default"}, {'=', NULL, "a", "five"}, {'=', NULL, "b", "seven"}, {'s', NULL, "4"}}},
    /* Not tests of OCANNL's: row.ml's refusals in its words (unify_dim's
       Affine arms and its occurs check), nx's details after them. */
    {"tensor/row.ml unify_dim, Affine = Dim: a stride that does not divide the size",
     {{'v', "o"}, {'a', "aff", "2", "o"}, {'d', "five", "5", "default"}, {'=', NULL, "aff", "five"}, {'s'},
      {'R', NULL, "solved dimensions for axis: incompatible stride (2 does not divide 5)"}}},
    {"tensor/row.ml unify_dim, Affine = Dim: a kernel wider than the axis (no padding)",
     {{'v', "o"}, {'d', "k5", "5", "default"}, {'c', "conv", "1", "o", "k5"}, {'d', "three", "3", "default"},
      {'=', NULL, "conv", "three"}, {'s'},
      {'R', NULL, "solved dimensions for axis: incompatible stride (a kernel of 5 at dilation 1 does not fit in 3)"}}},
    {"tensor/row.ml unify_dim: the occurs check (v = 2*v)",
     {{'v', "v"}, {'a', "aff", "2", "v"}, {'=', NULL, "v", "aff"}, {'s'},
      {'R', NULL, "occurs check failed: dimension variable occurs in its own definition ("}}},
    /* Not a test of OCANNL's: the rule its row.ml states for the Concat =
       Concat arm of unify_dim (oldest variables paired, then the rest). */
    {"tensor/row.ml unify_dim, Concat = Concat: a^b^c = d^e, then a := 7, b := 9",
     {{'v', "a"}, {'v', "b"}, {'v', "c"}, {'v', "d"}, {'v', "e"}, {'k', "abc", "a", "b", "c"}, {'k', "de", "d", "e"},
      {'=', NULL, "abc", "de"}, {'s', NULL, "4"}, {'d', "seven", "7", "default"}, {'d', "nine", "9", "default"},
      {'=', NULL, "a", "seven"}, {'=', NULL, "b", "nine"}, {'F'}, {'L', NULL, "0"}, {'D', "c", "0", "default"},
      {'D', "d", "7", "default"}, {'D', "e", "9", "default"}}},
};
#pragma GCC diagnostic pop

/* The index of the latest value named name, or -1. */
static int slot(const char *const *names, int n, const char *name) {
  for (int i = n - 1; i >= 0; i--)
    if (name && !strcmp(names[i], name)) return i;
  return -1;
}
#define LOOKUP(values, name) (slot(names, n, name) >= 0 ? (values)[slot(names, n, name)] : NULL)

/* Before a step: an R step checks the error the step before met (1: go on
   to the next); a read before an R is skipped if solving already failed (1);
   any other step after a failure fails the case (-1). 0: run the step. */
static int gate(const program *p, const step *st, int *rc, const char *last) {
  if (st->op == 'R') {
    CHECK(*rc != 0 && has(last, st->x), "%s: expected an error \"%s\", got %d \"%s\"", p->source, st->x, *rc, last);
    *rc = 0;
    return 1;
  }
  if (!*rc) return 0;
  if (st->op == 'D' && st[1].op == 'R') return 1; /* the error came while solving, before the read */
  CHECK(0, "%s: step %c %s failed: %s", p->source, st[-1].op, st[-1].name ? st[-1].name : "", last);
  return -1;
}

static void run_dims(const program *p) {
  nx_shape_session *s;
  CHECK(nx_shape_session_new(&s) == 0, "session");
  const nx_dim *d[MAXD * 2];
  const char *names[MAXD * 2];
  int n = 0, rc = 0;
  char last[1024] = "";
  for (const step *st = p->steps; st->op; st++) {
    int g = gate(p, st, &rc, last);
    if (g) {
      if (g < 0) break;
      continue;
    }
    const nx_dim *out = NULL, *x = LOOKUP(d, st->x), *y = LOOKUP(d, st->y),
                 *z = LOOKUP(d, st->z), *parts[3] = {x, y, z};
    int64_t size = -1;
    const char *basis = "";
    switch (st->op) {
    case 'v': out = nx_dim_var(s, st->name); break;
    case 'd': out = nx_dim_solved(s, atoll(st->x), st->y); break;
    case 'a': out = nx_dim_affine(s, atoll(st->x), y, 0); break;
    case 'c': out = nx_dim_conv(s, atoll(st->x), y, 0, 1, z, st->w && !strcmp(st->w, "pad")); break;
    case 'k': out = nx_dim_concat(s, parts, z ? 3 : 2); break;
    case '=': rc = nx_shape_add_dim_eq(s, x, y, &O); break;
    case 'i': rc = nx_shape_add_dim_ineq(s, x, y, &O); break;
    case 's': rc = nx_shape_solve(s, st->x ? atoi(st->x) : 1); break;
    case 'F': rc = nx_shape_finish(s); break;
    case 'L':
      CHECK(nx_shape_deferred_count(s) == atoi(st->x), "%s: %d constraints left, expected %s", p->source,
            nx_shape_deferred_count(s), st->x);
      break;
    case 'N':
      CHECK(nx_shape_dim_value(s, LOOKUP(d, st->name), NULL, NULL) == NX_NONE, "%s: %s is solved", p->source,
            st->name);
      break;
    case 'D':
      rc = nx_shape_dim_value(s, LOOKUP(d, st->name), &size, &basis);
      if (rc < 0) break;
      CHECK(rc == 0 && size == atoll(st->x) && !strcmp(basis, st->y), "%s: %s is %lld of basis %s, expected %s of %s",
            p->source, st->name, (long long)size, rc ? "?" : basis, st->x, st->y);
      rc = 0;
      break;
    }
    if (rc) snprintf(last, sizeof last, "%s", nx_error_message());
    if (out && n < MAXD * 2) {
      d[n] = out;
      names[n++] = st->name;
    }
  }
  CHECK(rc == 0, "%s: the last step failed: %s", p->source, last);
  nx_shape_session_free(s);
}

static void run(const program *p) {
  nx_shape_session *s;
  CHECK(nx_shape_session_new(&s) == 0, "session");
  nx_tensor *t[16];
  const char *names[16];
  int n = 0, rc = 0;
  char last[1024] = "";
  for (const step *st = p->steps; st->op; st++) {
    int g = gate(p, st, &rc, last);
    if (g) {
      if (g < 0) break;
      continue;
    }
    nx_tensor *out = NULL, *a = LOOKUP(t, st->x), *b = LOOKUP(t, st->y);
    const nx_dim *d;
    const nx_row *r;
    int64_t prod = 1;
    switch (st->op) {
    case 'T': rc = nx_tensor_term(s, st->name, st->x, st->y, st->z, &out); break;
    case 'P': rc = nx_tensor_param(s, st->name, st->x, st->y, &out); break;
    case 'B': rc = nx_tensor_binary(s, "+", a, b, &out); break;
    case 'C': rc = nx_tensor_compose(s, a, b, &out); break;
    case 'F': rc = nx_shape_finish(s); break;
    case 'E': {
      nx_tensor *args[3] = {LOOKUP(t, st->y), LOOKUP(t, st->z), LOOKUP(t, st->w)};
      rc = nx_tensor_einsum(s, st->x, args, st->w ? 3 : st->z ? 2 : 1, &out);
      break;
    }
    case 'S':
      a = LOOKUP(t, st->name);
      CHECK(a && !strcmp(shape_str(s, a, NX_SHAPE_STYLE_SIZE), st->x), "%s: %s is %s, expected %s", p->source,
            st->name, a ? shape_str(s, a, NX_SHAPE_STYLE_SIZE) : "?", st->x);
      break;
    case 'V':
      d = nx_tensor_spec_dim(LOOKUP(t, st->name), st->x);
      CHECK(d && val(s, d) == atoll(st->y), "%s: %s's %s is %lld, expected %s", p->source, st->name, st->x,
            d ? (long long)val(s, d) : -1LL, st->y);
      break;
    case 'W':
      r = nx_tensor_spec_row(LOOKUP(t, st->name), st->x);
      r = r ? nx_shape_row_subst(s, r) : NULL;
      for (int i = 0; r && i < nx_row_beg_count(r) + nx_row_dims_count(r); i++)
        prod *= val(s, i < nx_row_beg_count(r) ? nx_row_beg_dim(r, i) : nx_row_dim(r, i - nx_row_beg_count(r)));
      CHECK(r && !nx_row_var(r) && prod == atoll(st->y), "%s: %s's row %s holds %lld, expected %s", p->source,
            st->name, st->x, (long long)prod, st->y);
      break;
    }
    if (rc) snprintf(last, sizeof last, "%s", nx_error_message());
    if (out && n < 16) {
      t[n] = out;
      names[n++] = st->name;
    }
  }
  CHECK(rc == 0, "%s: the last step failed: %s", p->source, last);
  nx_shape_session_free(s);
}

/* tensor/row.ml close_dim_terminal and process_shape_row: a variable with
   no environment entry (here the fresh axis broadcasting gives 2 *. x,
   compared only with the broadcast top) is not guessed by a terminal mark
   at stage 5; it stays open until the interior marks set it to 1 at stage
   7. */
static void template_until_stage7(void) {
  nx_shape_session *s;
  CHECK(nx_shape_session_new(&s) == 0, "session");
  nx_tensor *two, *x, *y;
  CHECK(nx_tensor_term(s, "two", "", "", "bcast_if_1=1", &two) == 0 && nx_tensor_term(s, "x", "", "", NULL, &x) == 0 &&
            nx_tensor_binary(s, "*.", two, x, &y) == 0,
        "2 *. x: %s", nx_error_message());
  for (int stage = 2; stage <= 5; stage++) CHECK(nx_shape_solve(s, stage) == 0, "stage %d: %s", stage, nx_error_message());
  const nx_row *yo = nx_shape_row_subst(s, nx_tensor_row(y, NX_AXIS_OUTPUT));
  const nx_dim *d = nx_row_dims_count(yo) == 1 ? nx_row_dim(yo, 0) : NULL;
  CHECK(d && nx_shape_dim_value(s, d, NULL, NULL) == NX_NONE, "after stage 5 y's axis is still open: %s",
        shape_str(s, y, NX_SHAPE_STYLE_SIZE));
  const char *basis = NULL;
  int64_t size = 0;
  CHECK(nx_shape_finish(s) == 0 && d && nx_shape_dim_value(s, d, &size, &basis) == 0 && size == 1 &&
            !strcmp(basis, NX_BASIS_BCAST),
        "closed at stage 7 to 1 of the broadcast top: %lld %s", (long long)size, basis ? basis : "?");
  CHECK(!strcmp(shape_str(s, x, NX_SHAPE_STYLE_SIZE), "1"), "x: %s", shape_str(s, x, NX_SHAPE_STYLE_SIZE));
  nx_shape_session_free(s);
}

/* test/einsum/test_print_style.ml: Shape.to_string_hum of batch [1], input
   [784], output [10; 5] in each style, a dim of basis "height" (printed
   `height=28`, `height` alone in Only_bases), the broadcast top (`1`,
   `bcast_if_1`), and variables named and not (`$id:channels`, `$id`). */
static void print_styles(void) {
  nx_shape_session *s;
  nx_tensor *t, *h;
  CHECK(nx_shape_session_new(&s) == 0 && nx_tensor_term(s, "test_shape", "1", "784", "10,5", &t) == 0 &&
            nx_tensor_term(s, "h", "", "", "height=28,64", &h) == 0,
        "session: %s", nx_error_message());
  static const struct {
    enum nx_shape_style style;
    const char *shape, *h;
  } want[] = {
      {NX_SHAPE_STYLE_ONLY_BASES, "default|default->default,default", "height,default"},
      {NX_SHAPE_STYLE_SIZE, "1|784->10,5", "height=28,64"},
      {NX_SHAPE_STYLE_AXIS_NUMBER_AND_SIZE, "0:1|3:784->1:10,2:5", "0:height=28,1:64"},
      {NX_SHAPE_STYLE_PROJECTION_AND_SIZE, "1|784->10,5", "height=28,64"},
  };
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    CHECK(!strcmp(shape_str(s, t, want[i].style), want[i].shape), "style %d: %s, expected %s", (int)want[i].style,
          shape_str(s, t, want[i].style), want[i].shape);
    CHECK(!strcmp(shape_str(s, h, want[i].style), want[i].h), "style %d: %s, expected %s", (int)want[i].style,
          shape_str(s, h, want[i].style), want[i].h);
  }
  const nx_dim *named = nx_dim_var(s, "channels"), *unnamed = nx_dim_var(s, NULL), *top = nx_dim_top(s);
  const nx_dim *dims[3] = {named, unnamed, top};
  char buf[64], expect[64];
  snprintf(expect, sizeof expect, "$%d:channels,$%d,1", nx_dim_var_id(named), nx_dim_var_id(unnamed));
  CHECK(nx_row_to_string(s, nx_row_make(s, NULL, 0, dims, 3, 0), buf, sizeof buf) > 0 && !strcmp(buf, expect),
        "variables and the top: %s, expected %s", buf, expect);
  nx_shape_session_free(s);
}

/* test/einsum/test_print_style.expected, "Variable dimensions": OCANNL's
   dim_to_string prints a variable as $id:name or $id in every style, so
   "Only_bases (named var): $1:channels" and "Only_bases (unnamed var): $2"
   as in Axis_size and Projection_and_size. A shape of a solved axis and two
   variables prints them alike in every style, only the solved axis's text
   following the style. */
static void print_style_vars(void) {
  nx_shape_session *s;
  nx_tensor *x, *y;
  CHECK(nx_shape_session_new(&s) == 0 && nx_tensor_term(s, "x", "", "", "3", &x) == 0 &&
            nx_tensor_einsum(s, "i => i, channels, _", &x, 1, &y) == 0,
        "session: %s", nx_error_message());
  int named = nx_dim_var_id(nx_tensor_spec_dim(y, "channels")), unnamed = 0;
  char size[128], vars[96], want[128];
  snprintf(size, sizeof size, "%s", shape_str(s, y, NX_SHAPE_STYLE_SIZE));
  snprintf(want, sizeof want, "3,$%d:channels,$", named);
  CHECK(named > 0 && !strncmp(size, want, strlen(want)) && sscanf(size + strlen(want), "%d", &unnamed) == 1 &&
            unnamed > 0,
        "Axis_size: %s, expected %s<id>", size, want);
  snprintf(vars, sizeof vars, "$%d:channels,$%d", named, unnamed);
  static const struct {
    enum nx_shape_style style;
    const char *solved;
  } want_style[] = {{NX_SHAPE_STYLE_ONLY_BASES, "default"},
                    {NX_SHAPE_STYLE_SIZE, "3"},
                    {NX_SHAPE_STYLE_AXIS_NUMBER_AND_SIZE, NULL},
                    {NX_SHAPE_STYLE_PROJECTION_AND_SIZE, "3"}};
  for (size_t i = 0; i < sizeof want_style / sizeof *want_style; i++) {
    if (want_style[i].solved) snprintf(want, sizeof want, "%s,%s", want_style[i].solved, vars);
    else snprintf(want, sizeof want, "0:3,1:$%d:channels,2:$%d", named, unnamed);
    const char *got = shape_str(s, y, want_style[i].style);
    CHECK(!strcmp(got, want), "style %d: %s, expected %s", (int)want_style[i].style, got, want);
  }
  nx_shape_session_free(s);
}

/* test/einsum/test_print_style.expected, "With projection (d=32,
   basis=width, proj_id)": "Axis_size: width=32", "Projection_and_size:
   width=32p1"; a dim without a projection id prints its size alone in
   Projection_and_size ("Projection_and_size (full): height=28", and the
   shape "1|784->10,5" above). The ids are those of tensor/shape.ml's
   fresh_proj_ids: each derive_projections gives every axis of the result,
   then of each operand, a fresh id (Proj_id.fresh, counted from 1), each
   shape's rows in the order batch, input, output (fresh_row_proj), and a
   later derivation over the same tensor gives it fresh ones again. nx counts
   them per session, and a snapshot rewinds them with the rest. */
static void print_style_projection(void) {
  nx_shape_session *s;
  nx_tensor *x, *y, *t, *u, *v;
  const nx_shape_proj *p;
  nx_shape_snapshot *snap = NULL;
  CHECK(nx_shape_session_new(&s) == 0 && nx_tensor_term(s, "x", "", "", "width=32", &x) == 0 &&
            nx_tensor_einsum(s, "w => w", &x, 1, &y) == 0 && nx_tensor_term(s, "t", "2", "3", "4", &t) == 0 &&
            nx_tensor_einsum(s, "b|i->o => b|i->o", &t, 1, &u) == 0 && nx_tensor_einsum(s, "w => w", &x, 1, &v) == 0 &&
            nx_shape_finish(s) == 0,
        "session: %s", nx_error_message());
  CHECK(!strcmp(shape_str(s, y, NX_SHAPE_STYLE_PROJECTION_AND_SIZE), "width=32"), "before projections: %s",
        shape_str(s, y, NX_SHAPE_STYLE_PROJECTION_AND_SIZE));
  CHECK(nx_shape_projections(s, y, &p) == 0, "projections of y: %s", nx_error_message());
  static const struct {
    int which;
    enum nx_shape_style style;
    const char *want;
  } after_y[] = {{0, NX_SHAPE_STYLE_PROJECTION_AND_SIZE, "width=32p1"},
                 {1, NX_SHAPE_STYLE_PROJECTION_AND_SIZE, "width=32p2"},
                 {0, NX_SHAPE_STYLE_SIZE, "width=32"},
                 {0, NX_SHAPE_STYLE_AXIS_NUMBER_AND_SIZE, "0:width=32"},
                 {0, NX_SHAPE_STYLE_ONLY_BASES, "width"},
                 {2, NX_SHAPE_STYLE_PROJECTION_AND_SIZE, "width=32"}};
  for (size_t i = 0; i < sizeof after_y / sizeof *after_y; i++) {
    nx_tensor *w = after_y[i].which == 0 ? y : after_y[i].which == 1 ? x : v;
    const char *got = shape_str(s, w, after_y[i].style);
    CHECK(!strcmp(got, after_y[i].want), "%s in style %d: %s, expected %s", nx_tensor_label(w), (int)after_y[i].style,
          got, after_y[i].want);
  }
  CHECK(nx_shape_projections(s, u, &p) == 0, "projections of u: %s", nx_error_message());
  CHECK(!strcmp(shape_str(s, u, NX_SHAPE_STYLE_PROJECTION_AND_SIZE), "2p3|3p4->4p5"), "u: %s",
        shape_str(s, u, NX_SHAPE_STYLE_PROJECTION_AND_SIZE));
  CHECK(!strcmp(shape_str(s, t, NX_SHAPE_STYLE_PROJECTION_AND_SIZE), "2p6|3p7->4p8"), "t: %s",
        shape_str(s, t, NX_SHAPE_STYLE_PROJECTION_AND_SIZE));
  CHECK(!strcmp(shape_str(s, t, NX_SHAPE_STYLE_AXIS_NUMBER_AND_SIZE), "0:2|2:3->1:4"), "t: %s",
        shape_str(s, t, NX_SHAPE_STYLE_AXIS_NUMBER_AND_SIZE));
  CHECK(nx_shape_snapshot_take(s, &snap) == 0, "snapshot: %s", nx_error_message());
  for (int round = 0; round < 2; round++) {
    CHECK(nx_shape_projections(s, v, &p) == 0, "projections of v: %s", nx_error_message());
    CHECK(!strcmp(shape_str(s, v, NX_SHAPE_STYLE_PROJECTION_AND_SIZE), "width=32p9"), "round %d: v: %s", round,
          shape_str(s, v, NX_SHAPE_STYLE_PROJECTION_AND_SIZE));
    CHECK(!strcmp(shape_str(s, x, NX_SHAPE_STYLE_PROJECTION_AND_SIZE), "width=32p10"), "round %d: x: %s", round,
          shape_str(s, x, NX_SHAPE_STYLE_PROJECTION_AND_SIZE));
    CHECK(!strcmp(shape_str(s, y, NX_SHAPE_STYLE_PROJECTION_AND_SIZE), "width=32p1"), "round %d: y: %s", round,
          shape_str(s, y, NX_SHAPE_STYLE_PROJECTION_AND_SIZE));
    CHECK(snap && nx_shape_snapshot_restore(s, snap) == 0, "restore: %s", nx_error_message());
    CHECK(!strcmp(shape_str(s, x, NX_SHAPE_STYLE_PROJECTION_AND_SIZE), "width=32p2") &&
              !strcmp(shape_str(s, v, NX_SHAPE_STYLE_PROJECTION_AND_SIZE), "width=32"),
          "round %d: restored: x %s", round, shape_str(s, x, NX_SHAPE_STYLE_PROJECTION_AND_SIZE));
  }
  nx_shape_snapshot_free(snap);
  nx_shape_session_free(s);
}

/* tensor/row.ml's dim_to_string of an affine dim: the over, `stride*` before
   it unless the stride is 1, `+offset` after it unless the offset is 0; a
   convolution adds `+kernel`, `dilation*` before the kernel unless the
   dilation is 1, all inside conv(...); use_padding is not printed. The dims
   inside follow the style (a solved kernel prints its basis in Only_bases).
   Unsolved, as an operand's shape holds them after stage 1. (A stride-1
   padded convolution or stride-1 affine dim is its over once substituted,
   as in OCANNL's s_dim_one, so it prints as the over's variable.) */
static void print_style_affine(void) {
  nx_shape_session *s;
  nx_tensor *c, *z, *c2, *w, *z2;
  CHECK(nx_shape_session_new(&s) == 0 && nx_tensor_param(s, "c", NULL, NULL, &c) == 0 &&
            nx_tensor_einsum(s, "2*o<+1+k, o2<+3*k2, 2*o3=+k3, 2*o4=+1+2*k4, 2*o5+1, 3*o6 => o, o2, o3, o4, o5, o6",
                             &c, 1, &z) == 0,
        "session: %s", nx_error_message());
  int id[10];
  static const char *const labels[10] = {"o", "k", "o2", "k2", "o3", "k3", "o4", "k4", "o5", "o6"};
  for (int i = 0; i < 10; i++) CHECK((id[i] = nx_dim_var_id(nx_tensor_spec_dim(z, labels[i]))) > 0, "%s", labels[i]);
  char want[512];
  snprintf(want, sizeof want,
           "conv(2*$%d:o+1+$%d:k),conv($%d:o2+3*$%d:k2),conv(2*$%d:o3+$%d:k3),conv(2*$%d:o4+1+2*$%d:k4),2*$%d:o5+1,3*$%d:o6",
           id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7], id[8], id[9]);
  for (int st = NX_SHAPE_STYLE_SIZE; st <= NX_SHAPE_STYLE_PROJECTION_AND_SIZE; st++) {
    if (st == NX_SHAPE_STYLE_AXIS_NUMBER_AND_SIZE) continue;
    CHECK(!strcmp(shape_str(s, c, (enum nx_shape_style)st), want), "style %d: %s, expected %s", st,
          shape_str(s, c, (enum nx_shape_style)st), want);
  }
  CHECK(nx_tensor_param(s, "c2", NULL, NULL, &c2) == 0 && nx_tensor_term(s, "w", "", "", "kern=3", &w) == 0 &&
            nx_tensor_einsum(s, "o<+k; k => o", (nx_tensor *[]){c2, w}, 2, &z2) == 0,
        "conv with a solved kernel: %s", nx_error_message());
  int o = nx_dim_var_id(nx_tensor_spec_dim(z2, "o"));
  snprintf(want, sizeof want, "conv($%d:o+kern=3)", o);
  CHECK(!strcmp(shape_str(s, c2, NX_SHAPE_STYLE_SIZE), want), "Axis_size: %s, expected %s",
        shape_str(s, c2, NX_SHAPE_STYLE_SIZE), want);
  snprintf(want, sizeof want, "conv($%d:o+kern)", o);
  CHECK(!strcmp(shape_str(s, c2, NX_SHAPE_STYLE_ONLY_BASES), want), "Only_bases: %s, expected %s",
        shape_str(s, c2, NX_SHAPE_STYLE_ONLY_BASES), want);
  nx_shape_session_free(s);
}

int main(void) {
  template_until_stage7();
  print_styles();
  print_style_vars();
  print_style_projection();
  print_style_affine();
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run(&cases[i]);
  for (size_t i = 0; i < sizeof dim_cases / sizeof *dim_cases; i++) run_dims(&dim_cases[i]);
  return check_done();
}
