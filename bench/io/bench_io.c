/* SPDX-License-Identifier: Apache-2.0 */
/* The io benchmark's measurements that Python cannot make cleanly (its own
   start-up and resident memory would be counted), for bench/io/run.py:

   bench_io open FILE...      nx_io_open + nx_io_close of each file, the
                              library's share of nx info (mapping the file and
                              parsing its header): the best of 200 rounds after
                              a warm-up; prints "open_us:<path> <us>".
   bench_io spawn N ARGV...   runs ARGV N times (stdout to /dev/null) after a
                              warm-up; prints "spawn_us <min> <median>",
                              "cpu_us <least user + system time of a run>" and
                              "rss_kib <peak resident KiB of one run>". */
#define _DEFAULT_SOURCE /* wait4 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nx_error.h"
#include "nx_io.h"

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int open_files(int n, char **paths) {
  for (int a = 0; a < n; a++) {
    double best = 1e30;
    for (int round = 0; round < 201; round++) {
      nx_io_file *f;
      double t0 = now_us();
      if (nx_io_open(paths[a], &f) != 0) {
        fprintf(stderr, "bench_io: %s\n", nx_error_message());
        return 1;
      }
      nx_io_close(f);
      double t = now_us() - t0;
      if (round > 0 && t < best) best = t; /* round 0 warms the page cache */
    }
    printf("open_us:%s %.2f\n", paths[a], best);
  }
  return 0;
}

/* One run of argv: its wall time, its peak resident memory in rss and its
   CPU time (user + system, every thread) in cpu. */
static double spawn(char **argv, long *rss, double *cpu) {
  double t0 = now_us();
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1);
    execvp(argv[0], argv);
    _exit(127);
  }
  int status;
  struct rusage ru;
  if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  *rss = ru.ru_maxrss;
  *cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  return now_us() - t0;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int spawn_many(int n, char **argv) {
  double *t = malloc(sizeof *t * (size_t)n);
  long rss = 0, r;
  double cpu = 1e30, c;
  if (!t || spawn(argv, &r, &c) < 0) {
    fprintf(stderr, "bench_io: %s failed\n", argv[0]);
    free(t);
    return 1;
  }
  for (int k = 0; k < n; k++) {
    if ((t[k] = spawn(argv, &r, &c)) < 0) {
      fprintf(stderr, "bench_io: %s failed\n", argv[0]);
      free(t);
      return 1;
    }
    if (r > rss) rss = r;
    if (c < cpu) cpu = c;
  }
  qsort(t, (size_t)n, sizeof *t, cmp);
  printf("spawn_us %.1f %.1f\ncpu_us %.1f\nrss_kib %ld\n", t[0], t[n / 2], cpu, rss);
  free(t);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 2 && !strcmp(argv[1], "open")) return open_files(argc - 2, argv + 2);
  if (argc > 3 && !strcmp(argv[1], "spawn") && atoi(argv[2]) > 0) return spawn_many(atoi(argv[2]), argv + 3);
  fprintf(stderr, "usage: bench_io open FILE... | bench_io spawn N ARGV...\n");
  return 2;
}
