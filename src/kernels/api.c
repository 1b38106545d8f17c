/* SPDX-License-Identifier: Apache-2.0 */
/* What every operation does around its kernel. */
#include "api.h"

int nx__need(const char *name, nx_array *const *ops, int n) {
  for (int i = 0; i < n; i++)
    if (!ops[i]) return nx__fail(NX_EINVAL, "%s: operand %d is NULL", name, i);
  return 0;
}

int nx__finish(const char *name, const char *kernel, int a, nx_array *const *ops, int n, nx_dtype dt) {
  if (a < 0) return nx__fail_as(name, a); /* the door's own failure (a lost device), named for the caller */
  if (a == NX_DONE) return 0;
  if (a == NX_DECLINED)
    return nx__fail(NX_EINVAL, "%s: %s does not compute this case (%s)", name, kernel, nx_dtype_name(dt));
  return nx_array_refused(name, (nx_answer)a, ops, n);
}

bool nx__same_shape(const nx_operand *ops, int n) {
  const nx_layout *l = ops[0].layout;
  for (int k = 1; k < n; k++) {
    if (ops[k].layout->rank != l->rank) return false;
    for (int j = 0; j < l->rank; j++)
      if (ops[k].layout->extent[j] != l->extent[j]) return false;
  }
  return true;
}

int nx__make(const char *name, const nx_array *like, nx_dtype dt, const int64_t *shape, int rank, nx_array **out) {
  if (!out) return nx__fail(NX_EINVAL, "%s: the result pointer is NULL", name);
  nx_buffer *b = nx_array_buffer(like);
  int s = nx_array_create(nx_buffer_device(b), nx_buffer_kind(b), dt, shape, rank, out);
  if (s < 0) {
    char t[160];
    return nx__fail(s, "%s: no result for %s: %s", name, nx_array_describe(like, t, sizeof t), nx_error_message());
  }
  return 0;
}

int nx__make_like(const char *name, const nx_array *x, nx_dtype dt, nx_array **out) {
  const nx_layout *l = nx_array_layout(x);
  return nx__make(name, x, dt, l->extent, l->rank, out);
}

void nx__walk(const nx_operand *ops, int n, nx__run_fn fn, void *ctx, int weight, int flags) {
  nx_dtype dts[NX__OPS];
  void *bases[NX__OPS];
  const nx_layout *ls[NX__OPS];
  for (int k = 0; k < n; k++) {
    dts[k] = ops[k].dtype;
    bases[k] = ops[k].base;
    ls[k] = ops[k].layout;
  }
  nx__plan P;
  nx__plan_make(&P, n, dts, bases, ls, flags);
  nx__plan_run(&P, fn, ctx, weight);
}
