/* SPDX-License-Identifier: Apache-2.0 */
/* One OpenCL device kernel over a plan (nx__dk_plan), queued on the
   device's timeline. The timeline's thread sets the arguments, enqueues the
   kernel and waits for its event; a failed command fails the job, which
   loses the device as any failed OpenCL command does. */
#include <stdlib.h>
#include <string.h>

#include "opencl.h"
#include "../base/alloc.h"

#ifdef NX_HAVE_OPENCL
#include "../rig/rig_internal.h"

/* The most work items one launch has; each visits every G-th element. */
#define NX__CL_GLOBAL ((int64_t)1 << 18)
#define NX__CL_LOCAL 64

typedef struct launch {
  nx__cl_device *s;
  int k, nbuf, nargs;
  nx_buffer *bufs[NX__OPS];
  nx__dk_arg args[6];
  int64_t count;
  size_t nplan;
  int64_t plan[NX__PLAN_WORDS];
} launch;

static int run(nx_device *d, void *vc) {
  (void)d;
  launch *L = vc;
  cl_kernel k = L->s->kernel[L->k];
  cl_int err;
  cl_mem plan = clCreateBuffer(L->s->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, L->nplan * sizeof(cl_long), L->plan, &err);
  if (err != CL_SUCCESS) return NX_EIO;
  cl_uint a = 0;
  for (int i = 0; i < L->nbuf; i++) {
    cl_mem m = nx__opencl_mem(L->bufs[i]);
    err |= clSetKernelArg(k, a++, sizeof m, &m);
  }
  err |= clSetKernelArg(k, a++, sizeof plan, &plan);
  for (int i = 0; i < L->nargs; i++) {
    cl_int v32 = L->args[i].i;
    cl_ulong v64 = L->args[i].u;
    err |= L->args[i].wide ? clSetKernelArg(k, a++, sizeof v64, &v64) : clSetKernelArg(k, a++, sizeof v32, &v32);
  }
  cl_event ev = NULL;
  /* One work-group size always: some drivers (PoCL) compile the kernel
     again for each work-group size they are given or pick. */
  size_t local = NX__CL_LOCAL, global = (size_t)(L->count < NX__CL_GLOBAL ? L->count : NX__CL_GLOBAL);
  global = (global + local - 1) / local * local;
  if (err == CL_SUCCESS) err = clEnqueueNDRangeKernel(L->s->queue, k, 1, NULL, &global, &local, 0, NULL, &ev);
  if (err == CL_SUCCESS) err = clWaitForEvents(1, &ev);
  cl_int status = CL_COMPLETE;
  if (err == CL_SUCCESS) clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
  if (ev) clReleaseEvent(ev);
  clReleaseMemObject(plan);
  return err == CL_SUCCESS && status == CL_COMPLETE ? 0 : NX_EIO;
}

static void drop(void *vc) { nx__free(vc); }

int nx__cl_launch(const char *fn, void *s, int k, nx_array *const *ops, int nw, int nr, const nx__dk_arg *args,
                  int nargs) {
  int n = nw + nr;
  launch *L = nx__malloc(sizeof *L);
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
#endif
