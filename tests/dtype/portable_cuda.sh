#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_portable_cuda: nx_dtype.h compiles under nvcc, device and host passes,
# warnings as errors. Compile only: no GPU is needed.
#   portable_cuda.sh NVCC SOURCE INCLUDE_DIR OUT_DIR [ARCH]
# NVCC empty or ending in -NOTFOUND: skipped (exit 77).
nvcc=$1 src=$2 inc=$3 out=$4 arch=${5:-sm_80}
case $nvcc in
  "" | *-NOTFOUND)
    echo "SKIP: nvcc not found"
    exit 77
    ;;
esac
mkdir -p "$out" || exit 1
"$nvcc" --version | tail -n 1
set -x
"$nvcc" -x cu -std=c++14 -arch="$arch" -Wno-deprecated-gpu-targets --Werror all-warnings \
  -Xcompiler -Wall,-Wextra,-Werror -I"$inc" -c "$src" -o "$out/portable_cuda.o" || exit 1
# The header alone as CUDA: self-contained, warning-free with no use.
printf '#include "nx_dtype.h"\n' >"$out/header_only.cu" || exit 1
"$nvcc" -x cu -std=c++14 -arch="$arch" -Wno-deprecated-gpu-targets --Werror all-warnings \
  -Xcompiler -Wall,-Wextra,-Werror -I"$inc" -c "$out/header_only.cu" -o "$out/header_only.o" || exit 1
set +x
echo "PASS: nx_dtype.h compiles under nvcc (-arch=$arch)"
