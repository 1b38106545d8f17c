/* SPDX-License-Identifier: Apache-2.0 */
/* Test hooks of the rig, for the test suites only. */
#ifndef NX_RIG_TEST_H
#define NX_RIG_TEST_H

#include "nx_rig.h"

/* Queues on OpenCL device d a command that waits on a user event which is
   then set to a negative status: a real failure reported by the OpenCL
   runtime, which loses d. `written` (may be NULL) is named as written. */
NX_API int nx__opencl_fail_by_user_event(nx_device *d, nx_buffer *written);

#endif
