/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the device kernels: each OpenCL device's program and kernels
   (opencl_program.c) and the launch of one kernel over a plan on a device's
   timeline (opencl_launch.c). */
#ifndef NX_DEVICES_OPENCL_H
#define NX_DEVICES_OPENCL_H

#include "../base/error.h"
#include "../rig/rig_opencl.h"
#include "launch.h"
#include "nx_array.h"

/* nx__opencl_program_stats(&built, &loaded): how many programs this process
   has built from source and loaded from the disk cache, for the tests. */
void nx__opencl_program_stats(int *built, int *loaded);

/* How many times this process has given the kernels' source to an OpenCL
   compiler, for the tests. */
int nx__opencl_build_attempts(void);

#ifdef NX_HAVE_OPENCL
#define NX__CL_MAX_DEVICES 64
#define NX__CL_SPECIAL 256

typedef struct nx__cl_device {
  char name[32];
  cl_context ctx;
  cl_command_queue queue;
  cl_device_id id;
  bool fp64, little, cpu; /* cpu: built with NX__CHUNKED (kernels.cl) */
  bool f32_denorms;        /* built with NX__F32_DENORMS */
  bool f32_sqrt;           /* built with NX__F32_SQRT */
  cl_program prog;
  /* Set and enqueued only on the device's timeline thread: one at a time. */
  cl_kernel kernel[NX__K_KERNELS];
  /* The specialized kernels looked up so far, by name (kernels.cl), and
     those the program has not (k NULL): touched on the timeline thread only. */
  int nspecial;
  struct {
    char name[40];
    cl_kernel k;
  } special[NX__CL_SPECIAL];
} nx__cl_device;

/* nx__cl_device_of(d, fn, &s) sets s to OpenCL device d's program and
   kernels, building them on first use, and returns 0.
   Fails with NX_EIO naming fn where the device cannot build them; where its
   compiler refused the source, later calls answer the same refusal without
   compiling again. */
int nx__cl_device_of(nx_device *d, const char *fn, nx__cl_device **s);

/* nx__cl_launch(fn, s, k, ops, nw, nr, args, nargs) queues kernel k on s's
   device over the nw + nr operands (written first; each a buffer argument in
   that order, then the plan, then the args), planned as the host engine
   plans them (nx__dk_plan), and returns 0, waiting for nothing. Nothing is
   queued for no element.
   Fails as nx_rig_submit does, naming fn, and with NX_ENOMEM. */
int nx__cl_launch(const char *fn, void *s, int k, nx_array *const *ops, int nw, int nr, const nx__dk_arg *args,
                  int nargs);
#endif

#endif
