/* SPDX-License-Identifier: Apache-2.0 */
/* bench_ops: nx's public elementwise operations and casts, driven by
   run_ops.py over stdin so that each nx call alternates with numpy's in one
   run. Commands, one a line, each answered by one line:
     load <name> <dtype> <n> <file>   an array of n elements holding the file's bytes ("ok")
     new <name> <dtype> <n>           a fresh array ("ok")
     threads <k>                      nx's thread count ("ok")
     run <op> <z> <x> [<y> [<w>]]     one call of nx_<op> (where: z, cond, x, y): its seconds of
                                      this thread's CPU time (nx on one thread runs on it)
     dump <name> <file>               the array's bytes into the file ("ok")
     quit */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nx.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* the calling thread's CPU time: nx runs on it */
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static _Noreturn void die(const char *what) {
  fprintf(stderr, "bench_ops: %s: %s\n", what, nx_error_message());
  exit(1);
}

typedef int (*un_fn)(nx_array *, nx_array *);
typedef int (*bin_fn)(nx_array *, nx_array *, nx_array *);
static const struct {
  const char *name;
  un_fn fn;
} unaries[] = {{"neg", nx_neg},     {"abs", nx_abs},   {"sqrt", nx_sqrt},   {"sign", nx_sign}, {"trunc", nx_trunc},
               {"ceil", nx_ceil},   {"floor", nx_floor}, {"round", nx_round}, {"recip", nx_recip}, {"cast", nx_cast}};
static const struct {
  const char *name;
  bin_fn fn;
} binaries[] = {{"add", nx_add}, {"sub", nx_sub}, {"mul", nx_mul}, {"fdiv", nx_fdiv}, {"min", nx_min},
                {"max", nx_max}, {"and", nx_and}, {"or", nx_or},   {"xor", nx_xor},   {"eq", nx_eq},
                {"ne", nx_ne},   {"lt", nx_lt},   {"le", nx_le}};

#define MAXARR 64
static struct {
  char name[32];
  nx_array *a;
} arrays[MAXARR];
static int narrays;

static nx_array *find(const char *name) {
  for (int i = 0; i < narrays; i++)
    if (strcmp(arrays[i].name, name) == 0) return arrays[i].a;
  fprintf(stderr, "bench_ops: no array %s\n", name);
  exit(1);
}

static void *bytes_of(nx_array *a) { return nx_buffer_host_address(nx_array_buffer(a)); }

static nx_array *add(const char *name, const char *dtype, int64_t n) {
  nx_dtype dt;
  nx_array *a;
  if (nx_dtype_of_name(dtype, &dt) || nx_array_host(dt, &n, 1, &a)) die(dtype);
  if (narrays == MAXARR) die("too many arrays");
  snprintf(arrays[narrays].name, sizeof arrays[narrays].name, "%s", name);
  arrays[narrays++].a = a;
  return a;
}

static int call(char **w, int nw) {
  const char *op = w[1];
  if (strcmp(op, "where") == 0 && nw == 6) return nx_where(find(w[2]), find(w[3]), find(w[4]), find(w[5]));
  for (size_t i = 0; i < sizeof unaries / sizeof *unaries; i++)
    if (strcmp(op, unaries[i].name) == 0 && nw == 4) return unaries[i].fn(find(w[2]), find(w[3]));
  for (size_t i = 0; i < sizeof binaries / sizeof *binaries; i++)
    if (strcmp(op, binaries[i].name) == 0 && nw == 5) return binaries[i].fn(find(w[2]), find(w[3]), find(w[4]));
  fprintf(stderr, "bench_ops: no operation %s of %d operands\n", op, nw - 2);
  exit(1);
}

int main(void) {
  char line[1024];
  while (fgets(line, sizeof line, stdin)) {
    char *w[8];
    int nw = 0;
    for (char *t = strtok(line, " \n"); t && nw < 8; t = strtok(NULL, " \n")) w[nw++] = t;
    if (nw == 0) continue;
    if (strcmp(w[0], "quit") == 0) break;
    if (strcmp(w[0], "load") == 0 && nw == 5) {
      nx_array *a = add(w[1], w[2], atoll(w[3]));
      size_t bytes = (size_t)nx_buffer_bytes(nx_array_buffer(a));
      FILE *f = fopen(w[4], "rb");
      if (!f || fread(bytes_of(a), 1, bytes, f) != bytes) die(w[4]);
      fclose(f);
      printf("ok\n");
    } else if (strcmp(w[0], "new") == 0 && nw == 4) {
      add(w[1], w[2], atoll(w[3]));
      printf("ok\n");
    } else if (strcmp(w[0], "threads") == 0 && nw == 2) {
      if (nx_set_num_threads(atoi(w[1]))) die("threads");
      printf("ok\n");
    } else if (strcmp(w[0], "run") == 0 && nw >= 4) {
      double t0 = now();
      if (call(w, nw)) die(w[1]);
      printf("%.9f\n", now() - t0);
    } else if (strcmp(w[0], "dump") == 0 && nw == 3) {
      nx_array *a = find(w[1]);
      size_t bytes = (size_t)nx_buffer_bytes(nx_array_buffer(a));
      FILE *f = fopen(w[2], "wb");
      if (!f || fwrite(bytes_of(a), 1, bytes, f) != bytes) die(w[2]);
      fclose(f);
      printf("ok\n");
    } else {
      fprintf(stderr, "bench_ops: cannot read %s\n", w[0]);
      return 1;
    }
    fflush(stdout);
  }
  return 0;
}
