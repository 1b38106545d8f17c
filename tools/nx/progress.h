/* SPDX-License-Identifier: Apache-2.0 */
/* nx convert's progress bar, on stderr: drawn only when both stdout and
   stderr are terminals, redrawn each time the percentage grows, from any
   thread. */
#ifndef NX_TOOLS_PROGRESS_H
#define NX_TOOLS_PROGRESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct nx_tool_progress {
  bool on;
  int64_t total;      /* units of work in all */
  atomic_llong done;  /* units done */
  atomic_int shown;   /* the percentage drawn last, -1 before the first */
} nx_tool_progress;

/* Starts p for `total` units, on when both stdout and stderr are terminals;
   draws 0%. */
void nx_tool_progress_start(nx_tool_progress *p, int64_t total);

/* Counts n more units done, on `what` (a tensor's name), redrawing when the
   percentage grows. Safe from several threads at once. */
void nx_tool_progress_add(nx_tool_progress *p, int64_t n, const char *what);

/* Clears the bar's line. */
void nx_tool_progress_end(nx_tool_progress *p);

#endif
