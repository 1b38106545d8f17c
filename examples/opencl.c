/* SPDX-License-Identifier: Apache-2.0 */
/* Placement on OpenCL: a bfloat16 array goes to the first OpenCL device and
   comes back bit for bit. This program only places and copies; operations on
   arrays that lie on one OpenCL device (cast, fill, copy, where, comparisons
   and the exact elementwise operations; not the transcendentals, pow, atan2
   or complex division) run there, bit for bit as on the host
   (docs/devices.md). Without an OpenCL device the program says so and ends. */
#include <stdio.h>
#include <string.h>

#include <nx.h>

static int fail(const char *what) {
  fprintf(stderr, "%s: %s\n", what, nx_error_message());
  return 1;
}

int main(void) {
  nx_device *all[16], *cl = NULL;
  int n = nx_rig_devices(all, 16);
  for (int i = 0; i < n && i < 16 && !cl; i++)
    if (!strncmp(nx_device_name(all[i]), "opencl:", 7)) cl = all[i];
  if (!cl) {
    printf("no OpenCL device: nothing to place (nx found %d device%s)\n", n, n == 1 ? "" : "s");
    return 0;
  }
  printf("device %s: %s\n", nx_device_name(cl), nx_device_description(cl));

  int64_t shape[1] = {5};
  nx_value xs[5] = {{.f = 1.0}, {.f = 0.1}, {.f = -3.5}, {.f = 1e30}, {.f = 65504}};
  nx_array *h, *d, *back;
  if (nx_array_of_array(NX_BFLOAT16, shape, 1, xs, 5, &h) != 0) return fail("nx_array_of_array");
  /* The host cannot address the device's memory: the copy goes through the
     device's timeline, and nx_array_to_device returns once it is queued. */
  if (nx_array_to_device(cl, h, &d) != 0) return fail("nx_array_to_device");
  if (nx_array_to_device(nx_rig_host(), d, &back) != 0) return fail("nx_array_to_device (back)");
  char desc[64];
  printf("on %s: %s\n", nx_device_name(nx_array_device(d)), nx_array_describe(d, desc, sizeof desc));
  int same = 1;
  for (int64_t i = 0; i < 5; i++) {
    nx_value a, b;
    char t[NX_DTYPE_PP_MAX];
    if (nx_array_get(h, &i, &a) != 0 || nx_array_get(back, &i, &b) != 0) return fail("nx_array_get");
    if (nx_dtype_pp_value(NX_BFLOAT16, b, t, sizeof t) < 0) return fail("nx_dtype_pp_value");
    printf("  [%lld] %s\n", (long long)i, t);
    same &= a.f == b.f;
  }
  printf("round trip %s\n", same ? "bit for bit" : "CHANGED a value");
  nx_array_free(back);
  nx_array_free(d);
  nx_array_free(h);
  return same ? 0 : 1;
}
