/* SPDX-License-Identifier: Apache-2.0 */
/* What the file subcommands (info, show, convert, diff) share: argument
   handling, elements as doubles, per-tensor scales, JSON strings. */
#ifndef NX_TOOLS_CMD_IO_H
#define NX_TOOLS_CMD_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "commands.h" /* the exit statuses */
#include "nx_io.h"

/* Prints "nx <cmd>: <message>" on stderr and returns NX_EXIT_FAILED. */
int nx_tool_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "nx <cmd>: <message>" and the usage line on stderr; returns
   NX_EXIT_USAGE. */
int nx_tool_usage(const char *cmd, const char *usage, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Opens path, or prints nx_io_open's message: NULL. */
nx_io_file *nx_tool_open(const char *cmd, const char *path);

/* Whether name matches the shell glob (NULL matches everything). */
bool nx_tool_match(const char *glob, const char *name);

/* The suffix of scale tensors: "<name>.scale", one float32, scales <name>. */
#define NX_SCALE_SUFFIX ".scale"

/* Whether tensor i is a scale tensor of another tensor of f. */
bool nx_tool_is_scale(nx_io_file *f, int i);

/* The scale of tensor i (its "<name>.scale" tensor's value, else 1): 0, or
   -1 with a message printed. */
int nx_tool_scale_of(const char *cmd, nx_io_file *f, int i, double *scale);

/* Loads tensor i, reinterpreting a raw tensor as `as` (the same width, or a
   4-bit dtype from one element per byte, ml_dtypes' storage of them): 0,
   or NX_EXIT_FAILED with the message printed, a raw tensor without `as`
   (as < 0) included. */
int nx_tool_load(const char *cmd, nx_io_file *f, int i, int as, nx_array **a);

/* Calls fn(ctx, k, x) for each element of a in C order (k its C-order rank),
   its value as a double (a complex element gives two calls, real then
   imaginary, k counting components): a plain loop over
   nx_dtype_load_bits. Returns 0 or a negative status. */
typedef void (*nx_tool_each_fn)(void *ctx, int64_t k, double x);
int nx_tool_each(const nx_array *a, nx_tool_each_fn fn, void *ctx);

/* The number of doubles nx_tool_each gives for a. */
int64_t nx_tool_values(const nx_array *a);

/* Writes s as a JSON string (quoted, escaped) to out; a byte that is not
   UTF-8 is written as U+FFFD, so that the text stays JSON. */
void nx_tool_json_string(FILE *out, const char *s);

/* Writes the shape as "[2, 3]" into buf. */
const char *nx_tool_shape(const int64_t *shape, int rank, char *buf, size_t cap);

/* Parses a dtype name (as nx dtypes lists them): 0, or -1. */
int nx_tool_dtype(const char *s, nx_dtype *dt);

#endif
