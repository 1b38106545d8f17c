/* SPDX-License-Identifier: Apache-2.0 */
/* A CUDA program over nx_dtype.h whole: the portable conversions in device
   code and the host API declared for the host code of the same source, as
   a CUDA user includes it. Compiled by nvcc in the test suite (no GPU is
   needed to compile); the checks are compile-time facts of the table. */
#include "nx_dtype.h"

static_assert(NX_DTYPE_COUNT == 21, "21 dtypes");
static_assert(sizeof(nx_u64) == 8 && sizeof(nx_i64) == 8, "64-bit words");

/* Every dtype's element from float64 bits and back, on the device. */
__global__ void round_trip(const nx_u64 *in, nx_u64 *out, int code, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = nx_dtype_load_f64bits(code, nx_dtype_store_f64bits(code, in[i]));
}

/* The host side of the same source: the host API is declared. */
const char *name_of(int code) { return nx_dtype_name((nx_dtype)code); }
