/* SPDX-License-Identifier: Apache-2.0 */
/* Stacking, as OCANNL's Operation.stack builds it from two einsums: each
   operand gains a new leading axis of the kind by a fixed index 0
   (`...|...->... => ...|...->0,...`: an axis of size at least 1, which
   closing makes 1), and the parts are concatenated on that axis
   (`...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,...`). */
#include <stdio.h>
#include <string.h>

#include "tensor_internal.h"

#define FN "nx_tensor_stack"

/* Appends the printf-formatted text to buf at *len, failing past cap. */
static bool put(char *buf, size_t cap, size_t *len, const char *fmt, const char *x) {
  int k = snprintf(buf + *len, cap - *len, fmt, x);
  if (k < 0 || (size_t)k >= cap - *len) return false;
  *len += (size_t)k;
  return true;
}

int nx_tensor_stack(nx_shape_session *s, enum nx_axis_kind kind, nx_tensor *const *args, int n, nx_tensor **out) {
  if (!s || !args || !out) return nx__fail(NX_EINVAL, FN ": NULL argument");
  if (n < 1) return nx__fail(NX_EINVAL, FN ": empty operands (n = %d)", n);
  if (n > NX_SHAPE_MAX_OPERANDS)
    return nx__fail(NX_EINVAL, FN ": %d operands, more than %d", n, NX_SHAPE_MAX_OPERANDS);
  if (kind != NX_AXIS_BATCH && kind != NX_AXIS_INPUT && kind != NX_AXIS_OUTPUT)
    return nx__fail(NX_EINVAL, FN ": axis kind %d", (int)kind);
  static const char *const unsqueeze[3] = {"...|...->... => 0,...|...->...", "...|...->... => ...|0,...->...",
                                           "...|...->... => ...|...->0,..."};
  static const char *const part[3] = {"%s,...|...->...", "...|%s,...->...", "...|...->%s,..."};
  nx_tensor *u[NX_SHAPE_MAX_OPERANDS];
  char spec[NX_SHAPE_MAX_OPERANDS * 24 + 64], cat[NX_SHAPE_MAX_OPERANDS * 8];
  size_t len = 0, clen = 0;
  for (int i = 0; i < n; i++) {
    if (!args[i]) return nx__fail(NX_EINVAL, FN ": operand %d is NULL", i);
    int rc = nx_tensor_einsum(s, unsqueeze[kind], &args[i], 1, &u[i]);
    if (rc) return nx__shape_fail_as(FN, rc);
    char label[16];
    snprintf(label, sizeof label, "bt%d", i);
    if ((i && !put(spec, sizeof spec, &len, "%s", "; ")) || !put(spec, sizeof spec, &len, part[kind], label) ||
        !put(cat, sizeof cat, &clen, i ? "^%s" : "%s", label))
      return nx__fail(NX_EINVAL, FN ": spec too long");
  }
  if (!put(spec, sizeof spec, &len, "%s", " => ") || !put(spec, sizeof spec, &len, part[kind], cat))
    return nx__fail(NX_EINVAL, FN ": spec too long");
  return nx__shape_fail_as(FN, nx_tensor_einsum(s, spec, u, n, out));
}
