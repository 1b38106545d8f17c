# SPDX-License-Identifier: Apache-2.0
# OpenBLAS and LAPACKE, optional: without them matmul of float64 and complex
# and the linear algebra answer NX_DECLINED. Debian's threaded OpenBLAS comes
# first, used with its threads set to 1 (nx's own pool splits the work):
# Debian's serial variant is built without the locking that makes calls
# from several threads at once safe, so nx takes its calls one at a time.
option(NX_BLAS "Use OpenBLAS and LAPACKE where found" ON)
if(NX_BLAS)
  set(_arch ${CMAKE_LIBRARY_ARCHITECTURE})
  foreach(v pthread serial)
    list(APPEND _blas_libdirs /usr/lib/${_arch}/openblas-${v})
    list(APPEND _blas_incdirs /usr/include/${_arch}/openblas-${v})
  endforeach()
  find_library(NX_OPENBLAS_LIB NAMES openblas PATHS ${_blas_libdirs} NO_DEFAULT_PATH)
  find_library(NX_OPENBLAS_LIB NAMES openblas)
  find_path(NX_CBLAS_INCLUDE cblas.h PATHS ${_blas_incdirs} NO_DEFAULT_PATH)
  find_path(NX_CBLAS_INCLUDE cblas.h PATH_SUFFIXES openblas)
  find_library(NX_LAPACKE_LIB NAMES lapacke)
  find_path(NX_LAPACKE_INCLUDE lapacke.h)
endif()
if(NX_BLAS AND NX_OPENBLAS_LIB AND NX_CBLAS_INCLUDE)
  message(STATUS "nx: OpenBLAS ${NX_OPENBLAS_LIB}")
  set(NX_HAVE_BLAS ON)
  if(NX_LAPACKE_LIB AND NX_LAPACKE_INCLUDE)
    message(STATUS "nx: LAPACKE ${NX_LAPACKE_LIB}")
    set(NX_HAVE_LAPACKE ON)
    # LAPACKE needs liblapack.so.3 and libblas.so.3: the ones of the same
    # OpenBLAS variant, named here so the loader takes them and not the
    # system's alternatives (another variant's, whose threads this one lacks).
    get_filename_component(_blas_dir ${NX_OPENBLAS_LIB} DIRECTORY)
    find_library(NX_LAPACK_LIB NAMES lapack PATHS ${_blas_dir} NO_DEFAULT_PATH)
    find_library(NX_BLAS_LIB NAMES blas PATHS ${_blas_dir} NO_DEFAULT_PATH)
    list(APPEND NX_BUILD_LIBS ${NX_LAPACKE_LIB})
    list(APPEND NX_INSTALL_LIBS lapacke)
    set(NX_PC_LIBS_PRIVATE "-llapacke ${NX_PC_LIBS_PRIVATE}")
    # Named as needed even where the linker drops libraries no symbol of
    # the library itself uses (gcc's default --as-needed outside sanitizer
    # builds): liblapacke's own dependency on liblapack.so.3 is resolved
    # through the system's search, not this RUNPATH, and finds the same
    # soname already loaded only if nx named it.
    set(_blas_pair)
    foreach(l NX_LAPACK_LIB NX_BLAS_LIB)
      if(${l})
        list(APPEND _blas_pair ${${l}})
      endif()
    endforeach()
    if(_blas_pair)
      list(APPEND NX_BUILD_LIBS "-Wl,--push-state,--no-as-needed" ${_blas_pair} "-Wl,--pop-state")
    endif()
  endif()
  list(APPEND NX_BUILD_LIBS ${NX_OPENBLAS_LIB})
  list(APPEND NX_INSTALL_LIBS openblas)
  set(NX_PC_LIBS_PRIVATE "-lopenblas ${NX_PC_LIBS_PRIVATE}")
else()
  message(STATUS "nx: no OpenBLAS: float64 and complex matmul and the linear algebra are declined")
endif()
