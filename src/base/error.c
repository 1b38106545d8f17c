/* SPDX-License-Identifier: Apache-2.0 */
/* The thread-local error message and the status names. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

/* Long enough for a refusal that names its function and several operands;
   longer messages are cut, never overflowed. */
static _Thread_local char message[1024];

/* Formatted aside first: an argument may be the message itself (a failure
   that wraps the one before it), and vsnprintf must not read what it writes. */
int nx__fail(int status, const char *fmt, ...) {
  char text[sizeof message];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  memcpy(message, text, strlen(text) + 1);
  return status;
}

const char *nx_error_message(void) { return message; }

int nx__fail_as(const char *fn, int status) {
  if (status >= 0 || strstr(message, fn)) return status;
  char inner[sizeof message];
  snprintf(inner, sizeof inner, "%s", message);
  return nx__fail(status, "%s: %s", fn, inner);
}

const char *nx_status_name(int s) {
  switch (s) {
#define NX__NAME(name, value, text) case value: return "NX_" #name;
    NX_STATUS_TABLE(NX__NAME)
#undef NX__NAME
  }
  return "NX_UNKNOWN";
}

const char *nx_status_text(int s) {
  switch (s) {
#define NX__TEXT(name, value, text) case value: return text;
    NX_STATUS_TABLE(NX__TEXT)
#undef NX__TEXT
  }
  return "unknown status";
}
