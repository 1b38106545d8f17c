/* Internal to the kernels module: what every operation does around its
   kernel: NULL checks, the door, turning answers into statuses and
   messages, and making `_new` results. */
#ifndef NX_KERNELS_API_H
#define NX_KERNELS_API_H

#include "../base/error.h"
#include "engine.h"
#include "nx_kernels.h"

/* Fails naming `name` if one of the n arrays is NULL. */
int nx__need(const char *name, nx_array *const *ops, int n);

/* The status of a kernel's answer a for the n operands: 0 for NX_DONE, the
   declined message naming name, kernel and dtype dt, nx_array_refused's for
   a refusal, a negative status as it is. */
int nx__finish(const char *name, const char *kernel, int a, nx_array *const *ops, int n, nx_dtype dt);

/* Whether the n operands have the rank and extents of the first. */
bool nx__same_shape(const nx_operand *ops, int n);

/* A fresh C-contiguous array of dt and that shape on like's device and
   memory kind, or a status naming name. */
int nx__make(const char *name, const nx_array *like, nx_dtype dt, const int64_t *shape, int rank, nx_array **out);

/* A fresh array of dt in x's shape. */
int nx__make_like(const char *name, const nx_array *x, nx_dtype dt, nx_array **out);

/* Plans the n operands of the door's list and runs fn over them. */
void nx__walk(const nx_operand *ops, int n, nx__run_fn fn, void *ctx, int weight, int flags);

#endif
