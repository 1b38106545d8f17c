/* SPDX-License-Identifier: Apache-2.0 */
/* nx convert's progress bar (progress.h). */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

/* Draws in turn, so the percentages shown only grow. */
static pthread_mutex_t drawing = PTHREAD_MUTEX_INITIALIZER;

static void draw(int pct, const char *what) {
  int bar = pct * 30 / 100;
  fprintf(stderr, "\r[%.*s%*s] %3d%% %-40.40s", bar, "##############################", 30 - bar, "", pct,
          what ? what : "");
  fflush(stderr);
}

void nx_tool_progress_start(nx_tool_progress *p, int64_t total) {
  p->on = isatty(1) && isatty(2);
  p->total = total;
  atomic_init(&p->done, 0);
  atomic_init(&p->shown, -1);
  nx_tool_progress_add(p, 0, "");
}

void nx_tool_progress_add(nx_tool_progress *p, int64_t n, const char *what) {
  if (!p->on) return;
  long long done = atomic_fetch_add(&p->done, n) + n;
  int pct = p->total > 0 ? (int)(done * 100 / p->total) : 100;
  if (pct <= atomic_load(&p->shown)) return;
  pthread_mutex_lock(&drawing);
  if (pct > atomic_load(&p->shown)) {
    atomic_store(&p->shown, pct);
    draw(pct, what);
  }
  pthread_mutex_unlock(&drawing);
}

void nx_tool_progress_end(nx_tool_progress *p) {
  if (!p->on) return;
  fprintf(stderr, "\r\033[K");
  fflush(stderr);
}
