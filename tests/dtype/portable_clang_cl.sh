#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_portable_clang_cl: nx_dtype.h compiles as OpenCL C with an offline
# compiler (clang -x cl for SPIR, as to SPIR-V), which defines
# __OPENCL_C_VERSION__ but not __OPENCL_VERSION__: OpenCL C 1.2, 2.0 and 3.0,
# with fp64 and, for 3.0, without. Compile only, warnings as errors.
#   portable_clang_cl.sh CLANG INCLUDE_DIR OUT_DIR
# CLANG empty or ending in -NOTFOUND: skipped (exit 77).
clang=$1 inc=$2 out=$3
case $clang in
  "" | *-NOTFOUND)
    echo "SKIP: clang not found"
    exit 77
    ;;
esac
mkdir -p "$out" || exit 1
cat >"$out/portable.cl" <<'EOF' || exit 1
#include "nx_dtype.h"
kernel void k(int code, global const ulong *in, global ulong *out, global uchar *packed) {
  size_t i = get_global_id(0);
  ulong r = nx_dtype_store_f64bits(code, in[i]) ^ nx_dtype_load_f64bits(code, in[i]);
  r ^= nx_store_float16_f32((uint)in[i]) ^ nx_load_float8_e4m3fn_f32((uchar)in[i]);
#if defined(NX_HAS_DOUBLE)
  r ^= nx_dtype_store_double(code, as_double(in[i]));
#endif
  nx_subbyte_put(packed, (long)i, 4, (uchar)r);
  out[i] = r ^ nx_subbyte_get(packed, (long)i, 4);
}
EOF
"$clang" --version | head -n 1
for opts in "-cl-std=CL1.2" "-cl-std=CL2.0" "-cl-std=CL3.0" \
  "-cl-std=CL3.0 -Xclang -cl-ext=-cl_khr_fp64,-__opencl_c_fp64"; do
  # $opts unquoted on purpose: several words.
  # shellcheck disable=SC2086
  "$clang" -x cl $opts -target spir64 -Xclang -finclude-default-header -fsyntax-only \
    -Wall -Wextra -Werror -I"$inc" "$out/portable.cl" || { echo "FAIL: clang -x cl $opts"; exit 1; }
  echo "ok: $opts"
done
