/* SPDX-License-Identifier: Apache-2.0 */
/* The device kernels' module on each CUDA device: the fatbin nvcc built at
   build time from nx_dtype.h and kernels.cl (kernels.cu), embedded in the
   library, loaded once per device and process in the device's context. The
   driver picks the machine code for the GPU's architecture, or compiles the
   PTX (and keeps the result in its own cache, ~/.nv/ComputeCache). */
#include <pthread.h>
#include <stdio.h>

#include "cuda.h"
#include "../base/alloc.h"

#ifdef NX_HAVE_CUDA
#include "nx_cuda_fatbin.h" /* nx__cuda_fatbin */

static struct {
  pthread_mutex_t mu;
  int n;
  nx__cu_device *state[64];
} table = {PTHREAD_MUTEX_INITIALIZER, 0, {0}};

static int setup(nx__cu_device *s, const char *fn) {
  const nx__cuda_api *cu = nx__cuda_api_get();
  const char *dn = nx_device_name(s->dev);
  CUresult e = nx__cuda_enter(s->c);
  if (e) return nx__fail(NX_EIO, "%s: %s: the context could not be made current (%d)", fn, dn, e);
  const char *what = "load the device kernels", *name = "";
  e = cu->module_load_data(&s->module, nx__cuda_fatbin);
  for (int k = 0; k < NX__K_KERNELS && !e; k++) e = cu->module_get_function(&s->kernel[k], s->module, name = nx__kernel_names[k]);
  if (!e) e = cu->module_get_function(&s->fault, s->module, name = "nx__fault");
  if (!e) {
    what = "allocate the plan's words";
    e = cu->mem_alloc(&s->plan, NX__PLAN_WORDS * sizeof(int64_t));
  }
  nx__cuda_leave();
  const char *en = "";
  if (e) cu->get_error_name(e, &en);
  if (e) return nx__fail(NX_EIO, "%s: %s could not %s%s%s (%s)", fn, dn, what, *name ? ": " : "", name, en ? en : "");
  /* Enough blocks to fill every SM several times over; each thread then
     visits every G-th element. */
  s->blocks = (unsigned)(s->c->sms > 0 ? s->c->sms : 1) * 16u;
  return 0;
}

int nx__cu_device_of(nx_device *d, const char *fn, nx__cu_device **out) {
  nx__cuda_device *c = nx__cuda_device_of(d);
  if (!c) return nx__fail(NX_EINVAL, "%s: %s is not a CUDA device", fn, nx_device_name(d));
  pthread_mutex_lock(&table.mu);
  for (int i = 0; i < table.n; i++)
    if (table.state[i]->dev == d) {
      *out = table.state[i];
      pthread_mutex_unlock(&table.mu);
      return 0;
    }
  int st = table.n < (int)(sizeof table.state / sizeof *table.state) ? 0 : nx__fail(NX_ENOMEM, "%s: too many CUDA devices", fn);
  nx__cu_device *s = st ? NULL : nx__calloc(1, sizeof *s);
  if (!st && !s) st = nx__fail(NX_ENOMEM, "%s: no memory for the device kernels", fn);
  if (s) {
    s->dev = d;
    s->c = c;
    /* Loaded under the table's lock: once per device, whichever thread comes first. */
    if ((st = setup(s, fn)) != 0) nx__free(s); /* the module stays with the context */
  }
  if (!st) {
    table.state[table.n++] = s;
    *out = s;
  }
  pthread_mutex_unlock(&table.mu);
  return st;
}
#endif
