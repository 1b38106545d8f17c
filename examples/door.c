/* SPDX-License-Identifier: Apache-2.0 */
/* The door and a kernel of one's own: y = a*x + y over float32 arrays of
   any layout, as a host kernel that runs inside nx_door_host with its
   operands claimed; and nx_add, the kernel nx ships. */
#include <stdio.h>

#include <nx.h>

/* The host kernel: ops[0] is the written y, ops[1] the read x. It walks
   the elements in index order through each operand's layout, so views of
   any strides work; it refuses what it does not compute before writing. */
static nx_answer axpy(void *ctx, const nx_operand *ops, int nw, int nr) {
  const float a = *(const float *)ctx;
  if (nw != 1 || nr != 1) return NX_SHAPE_MISMATCH;
  const nx_layout *ly = ops[0].layout, *lx = ops[1].layout;
  if (ops[0].dtype != NX_FLOAT32 || ops[1].dtype != NX_FLOAT32) return NX_WRONG_DTYPE;
  if (ly->rank != 1 || lx->rank != 1 || ly->extent[0] != lx->extent[0]) return NX_SHAPE_MISMATCH;
  float *y = ops[0].base;
  const float *x = ops[1].base;
  for (int64_t i = 0; i < ly->extent[0]; i++) {
    float *yi = y + ly->offset + i * ly->stride[0];
    /* In double, then stored into float32 by nx's store rule. */
    double r = (double)a * x[lx->offset + i * lx->stride[0]] + *yi;
    *yi = (float)nx_dtype_load_bits(NX_FLOAT32, nx_dtype_store_bits(NX_FLOAT32, r));
  }
  return NX_DONE;
}

static int fail(const char *what) {
  fprintf(stderr, "%s: %s\n", what, nx_error_message());
  return 1;
}

static void print(const char *name, const nx_array *a) {
  printf("%s =", name);
  for (int64_t i = 0; i < nx_array_layout(a)->extent[0]; i++) {
    nx_value v;
    char t[NX_DTYPE_PP_MAX];
    if (nx_array_get(a, &i, &v) == 0 && nx_dtype_pp_value(nx_array_dtype(a), v, t, sizeof t) > 0) printf(" %s", t);
  }
  printf("\n");
}

int main(void) {
  int64_t n[1] = {4};
  nx_value xs[4] = {{.f = 1}, {.f = 2}, {.f = 3}, {.f = 4}}, ys[4] = {{.f = 10}, {.f = 20}, {.f = 30}, {.f = 40}};
  nx_array *x, *y, *z;
  if (nx_array_of_array(NX_FLOAT32, n, 1, xs, 4, &x) != 0 || nx_array_of_array(NX_FLOAT32, n, 1, ys, 4, &y) != 0)
    return fail("nx_array_of_array");

  float a = 0.5f;
  nx_array *written[1] = {y}, *read[1] = {x};
  int ans = nx_door_host(written, 1, read, 1, axpy, &a);
  if (ans < 0) return fail("axpy");
  if (ans != NX_DONE) {
    nx_array_refused("axpy", (nx_answer)ans, (nx_array *[]){y, x}, 2);
    return fail("axpy");
  }
  print("y = 0.5 x + y", y);

  /* The door refuses what would race: an operand written while another
     reads the same bytes in another order (here x and its reversed view). */
  nx_move m;
  const int axes[1] = {0};
  nx_array *rx;
  if (nx_move_flip(&m, axes, 1) != 0 || nx_array_move(&m, x, &rx) != 0) return fail("flip");
  written[0] = x;
  read[0] = rx;
  ans = nx_door_host(written, 1, read, 1, axpy, &a);
  if (ans != NX_OVERLAPPING) return fail("the door let an overlapping write through");
  nx_array_refused("axpy", (nx_answer)ans, (nx_array *[]){x, rx}, 2);
  printf("x = 0.5 flip(x) + x: %s\n", nx_error_message());

  /* nx_add: the first kernel nx ships, through the same door. */
  if (nx_array_host(NX_FLOAT32, n, 1, &z) != 0) return fail("nx_array_host");
  if (nx_add(z, x, y) != 0) return fail("nx_add");
  print("z = x + y", z);

  nx_array_free(rx);
  nx_array_free(z);
  nx_array_free(y);
  nx_array_free(x);
  return 0;
}
