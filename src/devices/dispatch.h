/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the device dispatch the kernels' API layer calls before the host
   door. An operation whose operands all lie on one OpenCL device runs there
   (device kernels of src/devices); operands on several devices, one of whose
   memory the host does not address, are refused (nx copies nothing between
   devices); everything else falls through to the host kernels. */
#ifndef NX_DEVICES_DISPATCH_H
#define NX_DEVICES_DISPATCH_H

#include <stdint.h>

#include "nx_array.h"

/* The families of operations a device computes. */
typedef enum nx__dk { NX__DK_CAST, NX__DK_FILL, NX__DK_COPY, NX__DK_BINARY, NX__DK_UNARY, NX__DK_COMPARE, NX__DK_WHERE } nx__dk;

/* One operation: its public name (for messages), family, operation number
   within the family (nx__bop, nx__uop, compare's eq ne lt le as 0..3) and,
   for fill, the element's bits (lo, and hi for complex128). */
typedef struct nx__devop {
  const char *name;
  nx__dk kind;
  int op;
  uint64_t lo, hi;
  bool made; /* ops[0] is a result the function made (a _new form): not named */
} nx__devop;

/* nx__device_dispatch(op, ops, nw, nr) runs op on the device of its nw
   written and nr read operands (written first), where that is one OpenCL
   device, through nx_door: it returns 0 once the work is queued (no host
   wait), or a negative status with nx_error_message() naming op->name and
   the operands. Returns NX_DECLINED where the host kernels are to run the
   operation: every operand on the host; or operands the host addresses
   every one of whose devices or dtypes the device kernels do not take. */
int nx__device_dispatch(const nx__devop *op, nx_array *const *ops, int nw, int nr);

#endif
