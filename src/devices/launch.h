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

/* One launch of kernel k on a device, as its timeline's job holds it: the
   backend's state for the device (s), the buffers (written first), the
   arguments after them, and the plan. */
typedef struct nx__dk_launch {
  void *s;
  int k, nbuf, nargs;
  nx_buffer *bufs[NX__OPS];
  nx__dk_arg args[6];
  int64_t count;
  size_t nplan;
  int64_t plan[NX__PLAN_WORDS];
} nx__dk_launch;

/* nx__dk_submit(fn, s, k, ops, nw, nr, args, nargs, run) plans kernel k
   over the nw + nr operands (written first) and queues run(d, launch) on
   their device's timeline, which launches it and returns 0 or the
   device's failure (which loses the device); the launch is freed once the
   job settles. Returns 0 waiting for nothing; nothing is queued for no
   element. Fails as nx_rig_submit does, naming fn, and with NX_ENOMEM. */
int nx__dk_submit(const char *fn, void *s, int k, nx_array *const *ops, int nw, int nr, const nx__dk_arg *args,
                  int nargs, int (*run)(nx_device *d, void *launch));

/* nx__dk_plan(ops, n, plan) writes the host engine's plan of the n
   operands (axes dropped, flipped, ordered and coalesced as for the host
   kernels; positions in elements, the device addressing its buffers) as
   kernels.cl reads it, and returns the number of words written; plan[1] is
   the element count. */
int nx__dk_plan(nx_array *const *ops, int n, int64_t *plan);

#endif
