/* SPDX-License-Identifier: Apache-2.0 */
/* The test harness: checks that count, report the first failures with their
   place, and a verdict. A test program returns check_done() from main; a
   test that cannot run returns skip(reason), which ctest counts as skipped
   (exit status 77) and the summary lists with its reason. */
#ifndef NX_TESTS_CHECK_H
#define NX_TESTS_CHECK_H

#include <stdio.h>

static long check_count, check_failures;

#define CHECK(cond, ...)                                                             \
  do {                                                                               \
    check_count++;                                                                   \
    if (!(cond)) {                                                                   \
      if (++check_failures <= 30) {                                                  \
        fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);     \
        fprintf(stderr, __VA_ARGS__);                                                \
        fputc('\n', stderr);                                                         \
      }                                                                              \
    }                                                                                \
  } while (0)

static inline int check_done(void) {
  printf("%ld checks, %ld failed\n", check_count, check_failures);
  if (check_count == 0) {
    printf("no check ran: a test that asserts nothing fails\n");
    return 1;
  }
  return check_failures ? 1 : 0;
}

/* Whether the nx under test was built with OpenCL. */
#ifdef NX_TEST_HAVE_OPENCL
#define NX_TEST_OPENCL_BUILT 1
#else
#define NX_TEST_OPENCL_BUILT 0
#endif
#define NX_TEST_NO_OPENCL_REASON "this nx was built without OpenCL (NX_OPENCL=OFF, or no OpenCL found)"

static inline int skip(const char *reason) {
  printf("SKIP: %s\n", reason);
  return 77;
}

#endif
