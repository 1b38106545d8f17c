/* SPDX-License-Identifier: Apache-2.0 */
/* Scoped raw access: the C form of seed 000's read and write. The callback
   gets the host address of the claimed memory, the dtype and the layout; the
   claim ends however it returns. */
#include "array_internal.h"

static int access_raw(const char *fn, const nx_array *a, bool write, nx_read_fn rf, nx_write_fn wf, void *ctx) {
  if (!a || (!rf && !wf)) return nx__fail(NX_EINVAL, "%s: the array or the callback is NULL", fn);
  /* An array with no element runs f whatever its memory: only the claim. */
  int s = nx__array_enter(fn, a, write, !nx__array_empty(a));
  if (s) return s;
  void *base = nx_buffer_host_address(a->b);
  s = write ? wf(ctx, base, a->dt, &a->l) : rf(ctx, base, a->dt, &a->l);
  nx__array_leave(a, write);
  return s;
}

int nx_array_read(const nx_array *a, nx_read_fn f, void *ctx) {
  return access_raw("nx_array_read", a, false, f, NULL, ctx);
}

int nx_array_write(nx_array *a, nx_write_fn f, void *ctx) {
  return access_raw("nx_array_write", a, true, NULL, f, ctx);
}
