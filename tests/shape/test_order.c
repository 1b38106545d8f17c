/* SPDX-License-Identifier: Apache-2.0 */
/* Order independence: the same programs, their independent operations built
   in shuffled orders (and the low-level constraints added in every
   permutation), solve to the same shapes. */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

/* A small MLP: three layers of parameters with inferred dims, broadcasting
   biases, one given input and one given output size. The leaves are made in
   the order `perm` gives; the operations follow. */
static void mlp(const int *perm, char out[4][64]) {
  nx_shape_session *s;
  CHECK(nx_shape_session_new(&s) == 0, "session");
  nx_tensor *leaf[6] = {0};
  const char *names[6] = {"w1", "b1", "w2", "b2", "x", "y"};
  for (int i = 0; i < 6; i++) {
    int k = perm[i], rc;
    if (k == 4) rc = nx_tensor_term(s, "x", "8", "", "784", &leaf[k]);
    else if (k == 5) rc = nx_tensor_term(s, "y", "8", "", "10", &leaf[k]);
    else if (k == 0) rc = nx_tensor_param(s, names[k], NULL, "128", &leaf[k]);
    else if (k == 2) rc = nx_tensor_param(s, names[k], NULL, NULL, &leaf[k]);
    else rc = nx_tensor_param(s, names[k], "", NULL, &leaf[k]);
    CHECK(rc == 0, "mlp leaf %s: %s", names[k], nx_error_message());
  }
  nx_tensor *m1, *h1, *r1, *m2, *h2, *loss;
  CHECK(nx_tensor_compose(s, leaf[0], leaf[4], &m1) == 0, "w1*x: %s", nx_error_message());
  CHECK(nx_tensor_binary(s, "+", m1, leaf[1], &h1) == 0, "+b1: %s", nx_error_message());
  CHECK(nx_tensor_unary(s, "relu", h1, &r1) == 0, "relu: %s", nx_error_message());
  CHECK(nx_tensor_compose(s, leaf[2], r1, &m2) == 0, "w2*: %s", nx_error_message());
  CHECK(nx_tensor_binary(s, "+", m2, leaf[3], &h2) == 0, "+b2: %s", nx_error_message());
  CHECK(nx_tensor_binary(s, "-", h2, leaf[5], &loss) == 0, "-y: %s", nx_error_message());
  int rc = nx_shape_finish(s);
  nx_tensor *show[4] = {leaf[0], leaf[1], leaf[2], loss};
  for (int i = 0; i < 4; i++)
    snprintf(out[i], 64, "%.60s", rc ? nx_error_message() : shape_str(s, show[i], NX_SHAPE_STYLE_SIZE));
  nx_shape_session_free(s);
}

static void shuffle(int *p, int n, unsigned *seed) {
  for (int i = n - 1; i > 0; i--) {
    *seed = *seed * 1103515245u + 12345u;
    int j = (int)((*seed >> 16) % (unsigned)(i + 1));
    int t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
}

/* The constraints of the closing-order example in every permutation. */
static void permutations(void) {
  int idx[5] = {0, 1, 2, 3, 4}, count = 0;
  for (int a = 0; a < 120; a++) {
    int p[5], used = 0, x = a;
    for (int i = 0; i < 5; i++) { /* the a-th permutation */
      int k = x % (5 - i);
      x /= 5 - i;
      for (int j = 0; j < 5; j++)
        if (!(used & 1 << j) && k-- == 0) {
          p[i] = idx[j];
          used |= 1 << j;
          break;
        }
    }
    nx_shape_session *s;
    CHECK(nx_shape_session_new(&s) == 0, "session");
    const nx_dim *al = nx_dim_var(s, "alpha"), *be = nx_dim_var(s, "beta");
    CHECK(al && be, "variables");
    for (int i = 0; i < 5; i++) {
      int rc = -1;
      switch (p[i]) {
      case 0: rc = nx_shape_add_dim_ineq(s, dd(s, 3), al, &O); break;
      case 1: rc = nx_shape_add_dim_ineq(s, al, be, &O); break;
      case 2: rc = nx_shape_add_dim_ineq(s, dd(s, 5), be, &O); break;
      case 3: rc = nx_shape_add_terminal_dim(s, false, al, &O); break;
      case 4: rc = nx_shape_add_terminal_dim(s, false, be, &O); break;
      }
      CHECK(rc == 0, "permutation %d, constraint %d: %s", a, p[i], nx_error_message());
    }
    int rc = solve_range(s, 1, 7);
    count += rc == 0 && val(s, al) == 3 && val(s, be) == 1;
    nx_shape_session_free(s);
  }
  CHECK(count == 120, "closing order: %d of 120 permutations give alpha=3 beta=1", count);
}

int main(void) {
  int base[6] = {0, 1, 2, 3, 4, 5};
  char ref[4][64], got[4][64];
  mlp(base, ref);
  CHECK(!strcmp(ref[0], "784->128") && !strcmp(ref[1], "128") && !strcmp(ref[2], "128->10") &&
            !strcmp(ref[3], "8|10"),
        "mlp: w1 %s, b1 %s, w2 %s, loss %s", ref[0], ref[1], ref[2], ref[3]);
  unsigned seed = 7;
  for (int t = 0; t < 50; t++) {
    int p[6] = {0, 1, 2, 3, 4, 5};
    shuffle(p, 6, &seed);
    mlp(p, got);
    for (int i = 0; i < 4; i++) CHECK(!strcmp(ref[i], got[i]), "shuffle %d: %s vs %s", t, ref[i], got[i]);
  }
  permutations();
  return check_done();
}
