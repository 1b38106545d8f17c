/* SPDX-License-Identifier: Apache-2.0 */
/* Running out of memory: every function of nx_shape.h that makes a value
   returns NULL or NX_ENOMEM with a message naming it. A child process caps
   its address space, holds all the memory it can get, then calls each
   function until it fails. Sanitizers reserve address space of their own,
   so under them the suite is skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NX_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define NX_TEST_SANITIZED 1
#endif
#endif

#ifndef NX_TEST_SANITIZED
typedef struct block { struct block *next; } block;

/* Takes every block of memory left, largest first; returns them as a list. */
static block *hog(void) {
  block *list = NULL;
  for (size_t n = (size_t)1 << 30; n >= sizeof(block); n /= 2)
    for (block *b; (b = malloc(n));) {
      b->next = list;
      list = b;
    }
  return list;
}

static void release(block *b) {
  while (b) {
    block *n = b->next;
    free(b);
    b = n;
  }
}

enum { DIM_SOLVED, DIM_VAR, DIM_AFFINE, DIM_CONV, DIM_CONCAT, ROW_MAKE, ROW_VAR, TERM, EINSUM, NFN };
static const char *names[NFN] = {"nx_dim_solved", "nx_dim_var",   "nx_dim_affine",  "nx_dim_conv",     "nx_dim_concat",
                                 "nx_row_make",   "nx_row_var_new", "nx_tensor_term", "nx_tensor_einsum"};

/* One call of function f; false once it fails. */
static bool call(nx_shape_session *s, int f, int i, const nx_dim *d, nx_tensor *x) {
  char spec[64];
  nx_tensor *t;
  switch (f) {
  case DIM_SOLVED: return nx_dim_solved(s, i, "rgb") != NULL;
  case DIM_VAR: return nx_dim_var(s, "v") != NULL;
  case DIM_AFFINE: return nx_dim_affine(s, 2, d, 1) != NULL;
  case DIM_CONV: return nx_dim_conv(s, 2, d, 0, 1, d, false) != NULL;
  case DIM_CONCAT: return nx_dim_concat(s, (const nx_dim *const[]){d, d, d}, 3) != NULL;
  case ROW_MAKE: return nx_row_make(s, &d, 1, &d, 1, 0) != NULL;
  case ROW_VAR: return nx_row_var_new(s, "r") > 0;
  case TERM: return nx_tensor_term(s, NULL, "2", "3", "label_of_an_axis=4", &t) == 0;
  default:
    snprintf(spec, sizeof spec, "a%d,b;b=>a%d", i, i);
    return nx_tensor_einsum(s, spec, (nx_tensor *const[]){x, x}, 2, &t) == 0;
  }
}

static int child(void) {
  struct rlimit lim;
  getrlimit(RLIMIT_AS, &lim);
  long pages = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f || fscanf(f, "%ld", &pages) != 1) return 2;
  fclose(f);
  lim.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)256 << 20);
  if (setrlimit(RLIMIT_AS, &lim)) return 2;
  for (int fn = 0; fn < NFN; fn++) {
    nx_shape_session *s;
    if (nx_shape_session_new(&s)) return 2;
    const nx_dim *d = nx_dim_var(s, "d");
    nx_tensor *x;
    if (!d || nx_tensor_term(s, "x", "", "", "2,3", &x)) return 2;
    block *held = hog();
    long i = 0;
    while (i < 100000000 && call(s, fn, (int)i, d, x)) i++;
    const char *m = nx_error_message();
    bool named = !strncmp(m, names[fn], strlen(names[fn])) && has(m, "out of memory");
    char copy[256];
    snprintf(copy, sizeof copy, "%s", m);
    release(held);
    CHECK(i < 100000000 && named, "%s after %ld calls: \"%s\"", names[fn], i, copy);
    nx_shape_session_free(s);
  }
  return check_done();
}
#endif

int main(void) {
#ifdef NX_TEST_SANITIZED
  return skip("a capped address space and a sanitizer's reserved shadow memory do not mix");
#else
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return skip("fork failed");
  if (pid == 0) exit(child());
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child ended with status %d", st);
  return check_done();
#endif
}
