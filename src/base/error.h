/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: setting the thread-local error message. */
#ifndef NX_BASE_ERROR_H
#define NX_BASE_ERROR_H

#include "nx_error.h"

#if defined(__GNUC__)
#define NX__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define NX__PRINTF(f, a)
#endif

/* nx__fail(status, fmt, ...) sets the calling thread's message to the
   formatted text, truncated to the message buffer, and returns status, so a
   failure is one return statement. */
int nx__fail(int status, const char *fmt, ...) NX__PRINTF(2, 3);

/* nx__fail_as(fn, status) is status, its message prefixed "fn: " where a
   function fn called failed under its own name (a negative status whose
   message does not name fn), so that a refusal names the function the
   caller called. */
int nx__fail_as(const char *fn, int status);

#endif
