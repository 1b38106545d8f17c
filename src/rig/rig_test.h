/* SPDX-License-Identifier: Apache-2.0 */
/* The rig's test hooks, built only into the test variant of the library
   (nx_testing, compiled with NX_TESTING), which the test suites and the
   benchmarks link; the installed libraries have none of them. */
#ifndef NX_RIG_TEST_H
#define NX_RIG_TEST_H

#include "nx_rig.h"
#include "rig_internal.h"

#ifndef NX_TESTING
#error "rig_test.h declares the hooks of the test variant of the library: build with NX_TESTING"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* nx_rig_test_device(&d) makes a new test device, "test:<n>", and returns 0:
   its work runs on a thread of its own, over memory the host does not
   address, and nx_test_device_fail makes it fail.
   Fails with NX_EINVAL if d is NULL or past 16 test devices, NX_ENOMEM if its
   timeline cannot start. */
int nx_rig_test_device(nx_device **d);

/* Where a test device fails. */
typedef enum nx_fault {
  NX_FAULT_NONE = 0,
  NX_FAULT_AT_SUBMIT = NX__FAULT_AT_SUBMIT,         /* the next submission to it fails and loses it */
  NX_FAULT_WHILE_RUNNING = NX__FAULT_WHILE_RUNNING, /* the next work it runs fails and loses it */
  NX_FAULT_AT_WAIT = NX__FAULT_AT_WAIT              /* the next wait on its work loses it */
} nx_fault;

/* nx_test_device_fail(d, faults) arms the faults on test device d; each
   fires once.
   Fails with NX_EINVAL unless d is a test device. */
int nx_test_device_fail(nx_device *d, int faults);

/* Queues on OpenCL device d a command that waits on a user event which is
   then set to a negative status: a real failure reported by the OpenCL
   runtime, which loses d. `written` (may be NULL) is named as written.
   Fails with NX_EINVAL unless d is an OpenCL device, NX_ELOST if d is lost. */
int nx__opencl_fail_by_user_event(nx_device *d, nx_buffer *written);

/* Queues on CUDA device d a kernel that stores through an address no
   allocation holds: a real fault, a sticky error of d's context, which
   loses d. `written` (may be NULL) is named as written.
   Fails with NX_EINVAL unless d is a CUDA device, NX_ELOST if d is lost,
   NX_EIO if d cannot load the kernels. */
int nx__cuda_fault(nx_device *d, nx_buffer *written);

/* nx__opencl_mapped(b) is how the OpenCL buffers over b's memory stand for
   the host: 1 if every one is mapped (the host may touch the pages), 0 if
   none is, -1 if some are, 2 if there is none. */
int nx__opencl_mapped(const nx_buffer *b);

/* nx__inject_failures(k) makes the k-th of the rig's fallible steps from now
   (an allocation, a mutex, condition or thread made, an OpenCL object made)
   fail as if it had run out, and every later one succeed; k = 0 disarms.
   nx__injected() is how many steps were made to fail since the last arming.
   The steps count across all threads. */
void nx__inject_failures(long k);
long nx__injected(void);

#ifdef __cplusplus
}
#endif
#endif
