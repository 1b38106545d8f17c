/* SPDX-License-Identifier: Apache-2.0 */
/* The shape fuzz target's program, shared by the libFuzzer entry point and
   the driver that runs it without a fuzzer. */
#ifndef NX_TESTS_SHAPE_FUZZ_SPEC_H
#define NX_TESTS_SHAPE_FUZZ_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "nx_shape.h"

/* How a program ended: it closed, met a shape error, or its spec was refused. */
enum { FUZZ_CLOSED, FUZZ_SHAPE_ERROR, FUZZ_SPEC_REFUSED, FUZZ_SKIPPED };

/* Runs the program the input describes; returns 0 if every property held,
   else 1 with the first violation written to why; *end says how it ended. */
int nx_test_shape_fuzz_program(const uint8_t *data, size_t size, char *why, size_t cap, int *end);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
