/* SPDX-License-Identifier: Apache-2.0 */
/* Arrays, views and elements: a 2x3 int32 array on the host, a transposed
   view and a reversed slice over the same buffer, and elements read and
   written through them. */
#include <stdio.h>

#include <nx.h>

static int fail(const char *what) {
  fprintf(stderr, "%s: %s\n", what, nx_error_message());
  return 1;
}

static void print(const char *name, const nx_array *a) {
  char d[128];
  const nx_layout *l = nx_array_layout(a);
  printf("%s: %s =", name, nx_array_describe(a, d, sizeof d));
  int64_t i[2];
  for (i[0] = 0; i[0] < l->extent[0]; i[0]++) {
    printf(" [");
    for (i[1] = 0; i[1] < l->extent[1]; i[1]++) {
      nx_value v;
      if (nx_array_get(a, i, &v) == 0) printf(" %lld", (long long)v.i);
    }
    printf(" ]");
  }
  printf("\n");
}

int main(void) {
  int64_t shape[2] = {2, 3};
  nx_value xs[6];
  for (int k = 0; k < 6; k++) xs[k].i = k;
  nx_array *a, *t, *s;
  if (nx_array_of_array(NX_INT32, shape, 2, xs, 6, &a) != 0) return fail("nx_array_of_array");
  print("a", a);

  /* A view moves no element: the transpose swaps the strides. */
  nx_move m;
  const int order[2] = {1, 0};
  if (nx_move_permute(&m, order, 2) != 0 || nx_array_move(&m, a, &t) != 0) return fail("permute");
  print("a transposed", t);

  /* a[:, ::-1] as Python writes it: NX_SLICE_NONE leaves a bound out. */
  const int64_t starts[2] = {NX_SLICE_NONE, NX_SLICE_NONE}, stops[2] = {NX_SLICE_NONE, NX_SLICE_NONE};
  const int64_t steps[2] = {1, -1};
  if (nx_move_slice(&m, starts, stops, steps, 2) != 0 || nx_array_move(&m, a, &s) != 0) return fail("slice");
  print("a[:, ::-1]", s);

  /* A store through one view shows in every other. */
  int64_t at[2] = {0, 0};
  if (nx_array_set(s, at, (nx_value){.i = 100}) != 0) return fail("nx_array_set");
  print("after s[0, 0] = 100, a", a);

  /* An integer outside the dtype's range is refused, not wrapped. */
  if (nx_array_set(a, at, (nx_value){.i = 1LL << 40}) != 0) printf("refused: %s\n", nx_error_message());

  nx_array_free(s);
  nx_array_free(t);
  nx_array_free(a);
  return 0;
}
