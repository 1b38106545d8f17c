/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the device kernels: what every backend's launch shares. The
   kernels of kernels.cl by number, their arguments after the buffers, and
   the plan each kernel walks (plan.c), the same on OpenCL and CUDA. */
#ifndef NX_DEVICES_LAUNCH_H
#define NX_DEVICES_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include "nx_array.h"
#include "../kernels/engine.h"

/* The kernels, in kernels.cl's names: nx_cast ... nx_where. */
enum { NX__K_CAST, NX__K_FILL, NX__K_COPY, NX__K_BINARY, NX__K_UNARY, NX__K_COMPARE, NX__K_WHERE, NX__K_KERNELS };
extern const char *const nx__kernel_names[NX__K_KERNELS];

/* One kernel argument after the buffers: a 32-bit or a 64-bit integer. */
typedef struct nx__dk_arg {
  bool wide;
  int32_t i;
  uint64_t u;
} nx__dk_arg;

/* The most 64-bit words a plan has: rank, count, extents, and per operand
   its first position and strides. */
#define NX__PLAN_WORDS (2 + NX_MAX_RANK + NX__OPS * (1 + NX_MAX_RANK))

/* nx__dk_plan(ops, n, plan) writes the host engine's plan of the n
   operands (axes dropped, flipped, ordered and coalesced as for the host
   kernels; positions in elements, the device addressing its buffers) as
   kernels.cl reads it, and returns the number of words written; plan[1] is
   the element count. */
int nx__dk_plan(nx_array *const *ops, int n, int64_t *plan);

#endif
