/* SPDX-License-Identifier: Apache-2.0 */
/* Shape inference of an MLP: a two-layer perceptron whose hidden width is
   given once, on the first layer's weights; the solver deduces every other
   shape from the data and the uses. */
#include <stdio.h>

#include <nx.h>

static int fail(const char *what) {
  fprintf(stderr, "%s: %s\n", what, nx_error_message());
  return 1;
}

int main(void) {
  nx_shape_session *s;
  if (nx_shape_session_new(&s) != 0) return fail("nx_shape_session_new");
  /* Shapes print as batch|input->output. The data: a batch of 32 images of
     784 pixels. The first weights say their output, 128 hidden units; the
     biases and the second weights say nothing; the labels say 10 classes. */
  nx_tensor *x, *w1, *b1, *w2, *b2, *h, *a, *o, *y, *l, *t;
  int rc = nx_tensor_term(s, "x", "32", "", "784", &x);
  rc = rc ? rc : nx_tensor_param(s, "w1", NULL, "hidden=128", &w1);
  rc = rc ? rc : nx_tensor_param(s, "b1", "", NULL, &b1);
  rc = rc ? rc : nx_tensor_param(s, "w2", NULL, NULL, &w2);
  rc = rc ? rc : nx_tensor_param(s, "b2", "", NULL, &b2);
  rc = rc ? rc : nx_tensor_term(s, "labels", "32", "", "classes=10", &l);
  /* h = relu(w1 * x + b1); y = w2 * h + b2; the loss compares y with the
     labels pointwise, so y's shape meets theirs. */
  rc = rc ? rc : nx_tensor_compose(s, w1, x, &h);
  rc = rc ? rc : nx_tensor_binary(s, "+", h, b1, &a);
  rc = rc ? rc : nx_tensor_unary(s, "relu", a, &a);
  rc = rc ? rc : nx_tensor_compose(s, w2, a, &o);
  rc = rc ? rc : nx_tensor_binary(s, "+", o, b2, &y);
  rc = rc ? rc : nx_tensor_binary(s, "-", y, l, &t);
  if (rc != 0) return fail("building the network");
  if (nx_shape_finish(s) != 0) return fail("nx_shape_finish");

  nx_tensor *all[] = {x, w1, b1, a, w2, b2, y, l, t};
  const char *names[] = {"x", "w1", "b1", "relu(...)", "w2", "b2", "y", "labels", "y - labels"};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    char text[256];
    if (nx_tensor_to_string(s, all[i], NX_SHAPE_STYLE_SIZE, text, sizeof text) < 0) return fail("to_string");
    printf("%-10s %s\n", names[i], text);
  }
  nx_shape_session_free(s);
  return 0;
}
