/* SPDX-License-Identifier: Apache-2.0 */
/* The plan a device kernel walks: the host engine's plan of the operands,
   flattened into 64-bit words (kernels.cl's layout). */
#include "launch.h"

const char *const nx__kernel_names[NX__K_KERNELS] = {"nx_cast",  "nx_fill",    "nx_copy", "nx_binary",
                                                     "nx_unary", "nx_compare", "nx_where"};

int nx__dk_plan(nx_array *const *ops, int n, int64_t *plan) {
  nx_dtype dts[NX__OPS];
  void *bases[NX__OPS];
  const nx_layout *ls[NX__OPS];
  for (int i = 0; i < n; i++) {
    dts[i] = nx_array_dtype(ops[i]);
    bases[i] = NULL; /* positions only: the device addresses its buffers */
    ls[i] = nx_array_layout(ops[i]);
  }
  nx__plan P;
  nx__plan_make(&P, n, dts, bases, ls, 0);
  int m = 0;
  plan[m++] = P.rank;
  plan[m++] = P.count;
  for (int j = 0; j < P.rank; j++) plan[m++] = P.ext[j];
  for (int i = 0; i < n; i++) {
    plan[m++] = P.pos[i];
    for (int j = 0; j < P.rank; j++) plan[m++] = P.str[i][j];
  }
  return m;
}
