/* SPDX-License-Identifier: Apache-2.0 */
/* The plan a device kernel walks: the host engine's plan of the operands,
   flattened into 64-bit words (kernels.cl's layout), and the job that
   launches a kernel over it, for every backend. */
#include <string.h>

#include "launch.h"
#include "../base/alloc.h"
#include "../base/error.h"
#include "../rig/rig_internal.h"

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

static void drop(void *L) { nx__free(L); }

int nx__dk_submit(const char *fn, void *s, int k, nx_array *const *ops, int nw, int nr, const nx__dk_arg *args,
                  int nargs, int (*run)(nx_device *d, void *launch)) {
  int n = nw + nr;
  nx__dk_launch *L = nx__malloc(sizeof *L);
  if (!L) return nx__fail(NX_ENOMEM, "%s: no memory for the device kernel", fn);
  L->nplan = (size_t)nx__dk_plan(ops, n, L->plan);
  L->count = L->plan[1];
  if (L->count == 0) {
    nx__free(L);
    return 0;
  }
  L->s = s;
  L->k = k;
  L->nbuf = n;
  L->nargs = nargs;
  memcpy(L->args, args, (size_t)nargs * sizeof *args);
  nx_buffer *w[NX__OPS], *r[NX__OPS];
  for (int i = 0; i < n; i++) {
    L->bufs[i] = nx_array_buffer(ops[i]);
    if (i < nw) w[i] = L->bufs[i];
    else r[i - nw] = L->bufs[i];
  }
  return nx__rig_submit_hook(fn, nx_buffer_device(L->bufs[0]), r, nr, w, nw, run, drop, L);
}
