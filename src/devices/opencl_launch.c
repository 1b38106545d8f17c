/* SPDX-License-Identifier: Apache-2.0 */
/* One OpenCL device kernel over a plan (nx__dk_plan), queued on the
   device's timeline. The timeline's thread sets the arguments, enqueues the
   kernel and waits for its event; a failed command fails the job, which
   loses the device as any failed OpenCL command does. */
#include <stdio.h>
#include <string.h>

#include "opencl.h"

#ifdef NX_HAVE_OPENCL

/* A GPU's launch: the most work items, each visiting every G-th element,
   in work-groups of 64. */
#define NX__CL_GLOBAL ((int64_t)1 << 18)
#define NX__CL_LOCAL 64
/* A CPU device's (kernels.cl, NX__CHUNKED): work-groups of one item, each
   a chunk of at least NX__CL_CHUNK elements, at most NX__CL_CHUNKS of them
   (enough to spread over the cores and even out their load). */
#define NX__CL_CHUNK ((int64_t)1 << 14)
#define NX__CL_CHUNKS 256

/* The kernel for L: the specialized one of its kernel and integer
   arguments where the program has it (kernels.cl names them so), else the
   generic one. Looked up once per name and device. */
static cl_kernel kernel_of(nx__cl_device *s, const nx__dk_launch *L) {
  char name[40];
  int len = snprintf(name, sizeof name, "%s", nx__kernel_names[L->k]);
  for (int i = 0; i < L->nargs; i++)
    if (!L->args[i].wide) len += snprintf(name + len, sizeof name - (size_t)len, "_%d", (int)L->args[i].i);
  for (int i = 0; i < s->nspecial; i++)
    if (!strcmp(s->special[i].name, name)) return s->special[i].k ? s->special[i].k : s->kernel[L->k];
  cl_int err;
  cl_kernel k = clCreateKernel(s->prog, name, &err);
  if (err != CL_SUCCESS) k = NULL;
  if (s->nspecial < NX__CL_SPECIAL) {
    snprintf(s->special[s->nspecial].name, sizeof s->special[0].name, "%s", name);
    s->special[s->nspecial++].k = k;
  }
  return k ? k : s->kernel[L->k];
}

static int run(nx_device *d, void *vc) {
  (void)d;
  nx__dk_launch *L = vc;
  nx__cl_device *s = L->s;
  cl_kernel k = kernel_of(s, L);
  cl_int err;
  cl_mem plan = clCreateBuffer(s->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, L->nplan * sizeof(cl_long), L->plan, &err);
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
  if (s->cpu) {
    int64_t chunks = (L->count + NX__CL_CHUNK - 1) / NX__CL_CHUNK;
    local = 1;
    global = (size_t)(chunks < NX__CL_CHUNKS ? chunks : NX__CL_CHUNKS);
  }
  if (err == CL_SUCCESS) err = clEnqueueNDRangeKernel(s->queue, k, 1, NULL, &global, &local, 0, NULL, &ev);
  if (err == CL_SUCCESS) err = clWaitForEvents(1, &ev);
  cl_int status = CL_COMPLETE;
  if (err == CL_SUCCESS) clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
  if (ev) clReleaseEvent(ev);
  clReleaseMemObject(plan);
  return err == CL_SUCCESS && status == CL_COMPLETE ? 0 : NX_EIO;
}

int nx__cl_launch(const char *fn, void *s, int k, nx_array *const *ops, int nw, int nr, const nx__dk_arg *args,
                  int nargs) {
  return nx__dk_submit(fn, s, k, ops, nw, nr, args, nargs, run);
}
#endif
