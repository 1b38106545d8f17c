# SPDX-License-Identifier: Apache-2.0
# test_print_exact_path: test_print_exact.c against the library's sources with
# src/dtype/shortest.c built with NX_TEST_FORCE_EXACT, so its exact big-number
# fallback (exact_rop) answers every value instead of the 126-bit fast path.
# Included from tests/dtype/CMakeLists.txt. The sources are compiled once more
# into an object library of their own (NX_TEST_FORCE_EXACT is read by
# shortest.c alone); the test links those objects instead of nx_static.
set(_nx_exact_path_sources)
foreach(_s ${NX_SOURCES})
  list(APPEND _nx_exact_path_sources ${PROJECT_SOURCE_DIR}/${_s})
endforeach()
add_library(nx_objects_exact_path OBJECT ${_nx_exact_path_sources})
target_include_directories(nx_objects_exact_path PUBLIC ${PROJECT_SOURCE_DIR}/include)
target_compile_options(nx_objects_exact_path PRIVATE -fvisibility=hidden)
target_compile_definitions(nx_objects_exact_path PRIVATE NX_TEST_FORCE_EXACT)
# Built as the library is: its definitions (OpenCL, SLEEF), include folders
# (the generated device kernels' source) and vmath.c's instruction set.
target_compile_definitions(nx_objects_exact_path PRIVATE $<TARGET_PROPERTY:nx_objects,COMPILE_DEFINITIONS>)
target_include_directories(nx_objects_exact_path PRIVATE $<TARGET_PROPERTY:nx_objects,INCLUDE_DIRECTORIES>)
add_dependencies(nx_objects_exact_path nx_objects)
foreach(_nx_v vmath vmath_avx2)
  get_source_file_property(_nx_vmath_opts ${PROJECT_SOURCE_DIR}/src/kernels/${_nx_v}.c DIRECTORY ${PROJECT_SOURCE_DIR} COMPILE_OPTIONS)
  if(_nx_vmath_opts)
    set_source_files_properties(${PROJECT_SOURCE_DIR}/src/kernels/${_nx_v}.c PROPERTIES COMPILE_OPTIONS "${_nx_vmath_opts}")
  endif()
endforeach()

add_executable(test_print_exact_path ${CMAKE_CURRENT_SOURCE_DIR}/test_print_exact.c
  $<TARGET_OBJECTS:nx_objects_exact_path>)
# NX_PRINT_EXACT_PATH: the smaller random sample, and a line saying which build runs.
target_compile_definitions(test_print_exact_path PRIVATE NX_PRINT_EXACT_PATH)
target_include_directories(test_print_exact_path PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
  ${PROJECT_SOURCE_DIR}/include ${MPFR_INCLUDE})
target_link_libraries(test_print_exact_path PRIVATE ${MPFR_LIB} ${GMP_LIB} ${NX_LINK_LIBS})
add_test(NAME test_print_exact_path COMMAND test_print_exact_path)
set_tests_properties(test_print_exact_path PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
