/* SPDX-License-Identifier: Apache-2.0 */
/* The CUDA device kernels: nx_dtype.h and kernels.cl, the OpenCL device
   kernels' source, which compiles as CUDA too (its few differing names are
   defined at its top). nvcc builds this file at build time into a fatbin
   (sm_80, sm_90 and compute_90 PTX, cmake/cuda.cmake) that the library
   embeds and loads with cuModuleLoadData. Flags: --fmad=false, so that no
   product and sum fuse, as the host computes them. */
#define NX_DTYPE_PORTABLE_ONLY 1
#include "nx_dtype.h"
#include <math.h>

#include "kernels.cl"

/* A kernel that stores through an address no allocation holds: the
   deliberate fault the loss test uses (a sticky error, which loses the
   device). */
NX_KERNEL nx__fault(ulong address) { *(volatile unsigned *)address = 1u; }
