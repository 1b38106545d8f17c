/* SPDX-License-Identifier: Apache-2.0 */
/* nx_dtype.h under nvcc: compiled, not run (the test machine may have no GPU).
   A kernel calls every kind of portable function on the device: the facts,
   the store rule by code from float64 bits and on doubles, the loads, the
   per-format float32 stores and loads, and the sub-byte helpers on global
   memory. A host function of the same source calls the host API, which the
   device pass parses too. Built by portable_cuda.sh with nvcc -x cu -c. */
#include "nx_dtype.h"

__global__ void nx_portable_kernel(const unsigned long long *in, unsigned long long *out, nx_u8 *packed,
                                   int n) {
  int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  int code = i % NX_DTYPE_COUNT;
  nx_u64 u = in[i];
  nx_u32 f = (nx_u32)u;
  nx_u64 r = nx_dtype_store_f64bits(code, u);
  r ^= nx_dtype_load_f64bits(code, r) << 1;
  r ^= nx_dtype_store_double(code, nx_dtype_load_double(code, u));
  r ^= (nx_u64)nx_dtype_bits_of(code) + (nx_u64)nx_dtype_kind_of(code) + (nx_u64)nx_dtype_has_nans(code) +
       nx_dtype_max_finite_bits_of(code);
  r ^= (nx_u64)nx_store_float16_f32(f) ^ ((nx_u64)nx_store_bfloat16_f32(f) << 16) ^
       ((nx_u64)nx_store_float8_e4m3fn_f32(f) << 32) ^ ((nx_u64)nx_store_float8_e5m2_f32(f) << 40) ^
       ((nx_u64)nx_store_float4_e2m1fn_f32(f) << 48);
  r ^= (nx_u64)nx_load_float16_f32((nx_u16)u) ^ ((nx_u64)nx_load_bfloat16_f32((nx_u16)u) << 1) ^
       ((nx_u64)nx_load_float8_e4m3fn_f32((nx_u8)u) << 2) ^ ((nx_u64)nx_load_float8_e5m2_f32((nx_u8)u) << 3) ^
       ((nx_u64)nx_load_float4_e2m1fn_f32((nx_u8)u) << 4);
  r ^= nx_load_float16_f64((nx_u16)u) ^ nx_load_float8_e4m3fn_f64((nx_u8)u);
  /* One thread per byte: the sub-byte stores are not atomic. */
  for (int j = 0; j < 2; j++) nx_subbyte_put(packed, 2 * (nx_i64)i + j, 4, (nx_u8)(u >> (4 * j)));
  r ^= nx_subbyte_get(packed, 2 * (nx_i64)i + 1, 4);
  out[i] = r;
}

/* Host code in the same source: the host API and the portable functions,
   both usable here. */
unsigned long long nx_portable_host(double x) {
  return nx_dtype_store_bits(NX_FLOAT16, x) ^ nx_dtype_store_f64bits(NX_BFLOAT16, 0x3FF0000000000000ull) ^
         (unsigned long long)nx_dtype_bits(NX_BIT);
}
