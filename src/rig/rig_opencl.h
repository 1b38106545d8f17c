/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the OpenCL objects behind a device and a buffer, for the device
   kernels (src/devices), which enqueue their own commands on a device's
   queue from its timeline's thread. */
#ifndef NX_RIG_OPENCL_H
#define NX_RIG_OPENCL_H

#include "nx_rig.h"

#ifdef NX_HAVE_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

/* Whether d is an OpenCL device; if so its context, in-order queue and id. */
bool nx__opencl_objects(const nx_device *d, cl_context *ctx, cl_command_queue *q, cl_device_id *id);

/* The cl_mem through which b's device reaches b's memory. */
cl_mem nx__opencl_mem(const nx_buffer *b);
#endif

#endif
