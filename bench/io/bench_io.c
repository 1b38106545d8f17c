/* The io benchmark's in-process part: nx_io_open + nx_io_close of each file
   named on the command line (the library's share of nx info: mapping the
   file and parsing its header), the best of many rounds after a warm-up.
   Prints "open_us:<path> <microseconds>" per file for bench/io/run.py, which
   times the nx command itself against its peers.

   usage: bench_io FILE... */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>

#include "nx_error.h"
#include "nx_io.h"

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    double best = 1e30;
    for (int round = 0; round < 201; round++) {
      nx_io_file *f;
      double t0 = now_us();
      if (nx_io_open(argv[a], &f) != 0) {
        fprintf(stderr, "bench_io: %s\n", nx_error_message());
        return 1;
      }
      nx_io_close(f);
      double t = now_us() - t0;
      if (round > 0 && t < best) best = t; /* round 0 warms the page cache */
    }
    printf("open_us:%s %.2f\n", argv[a], best);
  }
  return 0;
}
