# SPDX-License-Identifier: Apache-2.0
# Portability of nx_dtype.h's portable part: as C++11 against libnx, under
# nvcc (compile only), and as OpenCL C on every OpenCL device (PoCL in CI).
# Included from tests/dtype/CMakeLists.txt.

# ---- test_portable_cxx: C++11, -Wall -Wextra -Werror, against libnx ---------
include(CheckLanguage)
check_language(CXX)
if(CMAKE_CXX_COMPILER)
  enable_language(CXX)
  nx_test(test_portable_cxx SOURCES test_portable_cxx.cpp LABELS portability)
  set_target_properties(test_portable_cxx PROPERTIES
    CXX_STANDARD 11 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  target_compile_options(test_portable_cxx PRIVATE -Wall -Wextra -Werror -Wpedantic)
else()
  add_test(NAME test_portable_cxx COMMAND ${CMAKE_COMMAND} -E echo "SKIP: no C++ compiler")
  set_tests_properties(test_portable_cxx PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP:" LABELS portability)
endif()

# ---- test_portable_cuda: nvcc -x cu -c, device and host passes --------------
# Registered with or without nvcc; without, it skips (exit 77).
if(CMAKE_CUDA_COMPILER)
  set(NX_NVCC_HINT ${CMAKE_CUDA_COMPILER})
endif()
find_program(NX_NVCC NAMES nvcc
  HINTS ${NX_NVCC_HINT} ENV CUDA_PATH ENV CUDA_HOME ENV CUDAToolkit_ROOT
  PATHS /usr/local/cuda /opt/cuda
  PATH_SUFFIXES bin
  DOC "nvcc, for test_portable_cuda (compile only)")
set(NX_NVCC_ARCH sm_80 CACHE STRING "The -arch test_portable_cuda compiles for")
find_program(NX_SH sh REQUIRED)
add_test(NAME test_portable_cuda
  COMMAND ${NX_SH} ${CMAKE_CURRENT_SOURCE_DIR}/portable_cuda.sh "${NX_NVCC}"
    ${CMAKE_CURRENT_SOURCE_DIR}/portable_cuda.cu ${PROJECT_SOURCE_DIR}/include
    ${CMAKE_CURRENT_BINARY_DIR}/portable_cuda ${NX_NVCC_ARCH})
set_tests_properties(test_portable_cuda PROPERTIES
  SKIP_RETURN_CODE 77 LABELS "portability;cuda" TIMEOUT 600)

# ---- test_portable_clang_cl: OpenCL C with an offline compiler --------------
# clang -x cl for SPIR: OpenCL C 1.2, 2.0, 3.0, with and without fp64.
# Registered with or without clang; without, it skips (exit 77).
find_program(NX_CLANG NAMES clang clang-18 clang-17 clang-16 clang-15 clang-14
  DOC "clang, for test_portable_clang_cl (compile only)")
add_test(NAME test_portable_clang_cl
  COMMAND ${NX_SH} ${CMAKE_CURRENT_SOURCE_DIR}/portable_clang_cl.sh "${NX_CLANG}"
    ${PROJECT_SOURCE_DIR}/include ${CMAKE_CURRENT_BINARY_DIR}/portable_clang_cl)
set_tests_properties(test_portable_clang_cl PROPERTIES
  SKIP_RETURN_CODE 77 LABELS portability TIMEOUT 300)

# ---- test_opencl_dtype: the header as OpenCL C, bit for bit with the host ----
# It fails, not skips, without an OpenCL platform and device: CI has PoCL.
option(NX_TEST_OPENCL "Run test_opencl_dtype (needs an OpenCL device, as PoCL)" ON)
set(NX_POCL_DEVICES pthread CACHE STRING
  "POCL_DEVICES for test_opencl_dtype (\"pthread pthread\": two devices)")
if(NX_TEST_OPENCL)
  find_package(OpenCL)
  if(OpenCL_FOUND)
    set(NX_POCL_CACHE ${CMAKE_CURRENT_BINARY_DIR}/pocl-cache)
    file(MAKE_DIRECTORY ${NX_POCL_CACHE})
    nx_test(test_opencl_dtype SOURCES test_opencl_dtype.c LIBS OpenCL::OpenCL LABELS opencl
      ENV "POCL_DEVICES=${NX_POCL_DEVICES}" "POCL_CACHE_DIR=${NX_POCL_CACHE}"
          "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp:print_suppressions=0")
    target_compile_definitions(test_opencl_dtype PRIVATE
      NX_DTYPE_H_PATH="${PROJECT_SOURCE_DIR}/include/nx_dtype.h")
  else()
    add_test(NAME test_opencl_dtype COMMAND ${CMAKE_COMMAND} -E echo
      "FAIL: OpenCL (headers and libOpenCL) not found at configure time; install ocl-icd-opencl-dev, opencl-headers and pocl-opencl-icd, or configure with -DNX_TEST_OPENCL=OFF")
    set_tests_properties(test_opencl_dtype PROPERTIES FAIL_REGULAR_EXPRESSION "FAIL:" LABELS opencl)
  endif()
endif()
