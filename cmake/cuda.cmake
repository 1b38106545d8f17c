# SPDX-License-Identifier: Apache-2.0
# CUDA (optional): the rig's CUDA devices (src/rig/cuda.c, which loads the
# driver at run time, so nothing links against it) and the device kernels
# in CUDA (src/devices/kernels.cu: nx_dtype.h and kernels.cl), compiled by
# nvcc into a fatbin for sm_80, sm_90 and compute_90 PTX and embedded in the
# library. NX_CUDA is on by default where nvcc is found; without it, or off,
# the library has no CUDA device and builds as before.
find_program(NX_NVCC nvcc HINTS ENV CUDA_PATH ENV CUDA_HOME PATH_SUFFIXES bin PATHS /usr/local/cuda/bin)
if(NX_NVCC)
  set(NX_CUDA_DEFAULT ON)
else()
  set(NX_CUDA_DEFAULT OFF)
endif()
option(NX_CUDA "CUDA devices and kernels (needs nvcc at build time, no GPU or driver)" ${NX_CUDA_DEFAULT})
if(NX_CUDA AND NOT NX_NVCC)
  message(STATUS "NX_CUDA: nvcc not found, so no CUDA devices")
  set(NX_CUDA OFF)
endif()
# The architectures: machine code for A100 (sm_80) and H100/H200 (sm_90),
# PTX of compute_90 that later GPUs compile at load.
set(NX_CUDA_GENCODE -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90
    -gencode arch=compute_90,code=compute_90 CACHE STRING "nvcc -gencode flags of the device kernels")
# nvcc's own flags, apart from the C compiler's: no fused multiply-add (the
# host computes products and sums apart), warnings as errors. The host's
# default NaN, which the kernels give for invalid operations as the host does.
set(NX_NVCC_FLAGS -std=c++17 --fmad=false -O3 -Werror all-warnings --threads 0)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  list(APPEND NX_NVCC_FLAGS -DNX__DEFAULT_NAN=0x7FF8000000000000UL)
endif()
set(NX_CUDA_INPUTS ${CMAKE_CURRENT_SOURCE_DIR}/include/nx_dtype.h ${CMAKE_CURRENT_SOURCE_DIR}/src/devices/kernels.cl
    ${CMAKE_CURRENT_SOURCE_DIR}/src/devices/kernels.cu)
if(NX_CUDA)
  message(STATUS "NX_CUDA: on (${NX_NVCC})")
  add_custom_command(OUTPUT ${NX_GENERATED}/nx_cuda.fatbin
    COMMAND ${CMAKE_COMMAND} -E make_directory ${NX_GENERATED}
    COMMAND ${NX_NVCC} ${NX_NVCC_FLAGS} ${NX_CUDA_GENCODE} -I${CMAKE_CURRENT_SOURCE_DIR}/include -fatbin
            -o ${NX_GENERATED}/nx_cuda.fatbin ${CMAKE_CURRENT_SOURCE_DIR}/src/devices/kernels.cu
    DEPENDS ${NX_CUDA_INPUTS}
    COMMENT "nvcc: the CUDA device kernels" VERBATIM)
  add_custom_command(OUTPUT ${NX_GENERATED}/nx_cuda_fatbin.h
    COMMAND ${CMAKE_COMMAND} -DOUT=${NX_GENERATED}/nx_cuda_fatbin.h -DNAME=nx__cuda_fatbin
            -DINPUT1=${NX_GENERATED}/nx_cuda.fatbin -DALIGN=16 -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/embed.cmake
    DEPENDS ${NX_GENERATED}/nx_cuda.fatbin ${CMAKE_CURRENT_SOURCE_DIR}/cmake/embed.cmake
    COMMENT "Embedding the CUDA device kernels")
  # One target owns the outputs, so that the libraries built from them do
  # not run nvcc each (at once, onto one file) under a parallel build.
  add_custom_target(nx_cuda_kernels DEPENDS ${NX_GENERATED}/nx_cuda_fatbin.h)
else()
  message(STATUS "NX_CUDA: off")
endif()
