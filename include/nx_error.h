/* SPDX-License-Identifier: Apache-2.0 */
/* nx_error.h: statuses and the thread-local error message.

   Every fallible nx function returns an int status, 0 on success and a
   negative NX_E... code otherwise, or NULL; on failure it sets a message,
   local to the calling thread, that names the function and its operands. A
   function that answers an option returns 0 for Some, with its out-parameter
   set, and NX_NONE (1) for None, with its out-parameter unset; None is not a
   failure and sets no message. nx never aborts, exits or prints on bad
   input. */
#ifndef NX_ERROR_H
#define NX_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(NX_BUILDING_SHARED)
#define NX_API __declspec(dllexport)
#elif defined(__GNUC__)
#define NX_API __attribute__((visibility("default")))
#else
#define NX_API
#endif

/* The statuses: X(name, value, description). */
#define NX_STATUS_TABLE(X)                                        \
  X(OK, 0, "success")                                             \
  X(NONE, 1, "none: an option answered None")                     \
  X(EINVAL, -1, "invalid argument")                               \
  X(ENOMEM, -2, "out of memory")                                  \
  X(ELOST, -3, "device lost")                                     \
  X(EIO, -4, "input/output error")                               \
  X(ENOTPD, -5, "matrix not positive definite")                   \
  X(ESINGULAR, -6, "matrix singular")                             \
  X(ENOCONV, -7, "no convergence")

enum nx_status {
#define NX__STATUS(name, value, text) NX_##name = value,
  NX_STATUS_TABLE(NX__STATUS)
#undef NX__STATUS
};

/* nx_error_message() is the message of the last failure in the calling
   thread, "" if none: a string nx owns, valid until the thread's next nx call
   that fails. */
NX_API const char *nx_error_message(void);

/* nx_status_name(s) is the name of status s, as "NX_EINVAL", and
   nx_status_text(s) its description; "NX_UNKNOWN" and "unknown status" for a
   value that is none. Static strings. */
NX_API const char *nx_status_name(int s);
NX_API const char *nx_status_text(int s);

#ifdef __cplusplus
}
#endif
#endif /* NX_ERROR_H */
