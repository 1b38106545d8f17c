/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the device kernels: each CUDA device's module and kernels
   (cuda_program.c) and the launch of one kernel over a plan on a device's
   timeline (cuda_launch.c). */
#ifndef NX_DEVICES_CUDA_H
#define NX_DEVICES_CUDA_H

#include "../base/error.h"
#include "../rig/cuda_driver.h"
#include "launch.h"
#include "nx_array.h"

#ifdef NX_HAVE_CUDA
/* The threads of one block of every launch. */
#define NX__CU_THREADS 256

typedef struct nx__cu_device {
  nx_device *dev;
  nx__cuda_device *c;
  CUmodule module;
  CUfunction kernel[NX__K_KERNELS];
  CUfunction fault; /* nx__fault: the loss test's deliberate fault */
  /* The plan's words on the device; used by one launch at a time, on the
     device's timeline thread. */
  CUdeviceptr plan;
  unsigned blocks; /* the most blocks one launch has */
} nx__cu_device;

/* nx__cu_device_of(d, fn, &s) sets s to CUDA device d's module and
   kernels, loading the embedded fatbin on first use, and returns 0.
   Fails with NX_EIO naming fn where the device cannot load it (no machine
   code for its architecture and a driver too old for the PTX). */
int nx__cu_device_of(nx_device *d, const char *fn, nx__cu_device **s);

/* nx__cu_launch(fn, s, k, ops, nw, nr, args, nargs) queues kernel k on s's
   device as nx__cl_launch does on OpenCL (opencl.h), and returns 0 waiting
   for nothing. Fails as nx_rig_submit does, naming fn, and with NX_ENOMEM. */
int nx__cu_launch(const char *fn, void *s, int k, nx_array *const *ops, int nw, int nr, const nx__dk_arg *args,
                  int nargs);
#endif

#endif
