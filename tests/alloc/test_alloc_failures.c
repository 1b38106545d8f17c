/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation failure, as SQLite's OOM tests do it: each module's
   representative operations run with their 1st allocation failing, then
   their 2nd, and so on, until one runs with no allocation failed. Each
   failed run must answer NX_ENOMEM with a message and give back everything
   it took (LeakSanitizer checks, under the ASan build), and the objects it
   was given must stay usable: the same operation on them then succeeds.
   The hook is the test variant's (src/base/alloc.h). */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "../../src/base/alloc.h"
#include "dlpack/dlpack.h"
#include "nx.h"
#include "rig_test.h"

int nx__fail(int status, const char *fmt, ...);

static nx_device *test_dev;
static long total_failed, total_ops;

static int op_pp_value(void) {
  char buf[NX_DTYPE_PP_MAX];
  nx_value v = {.f = 0.1f};
  int len = nx_dtype_pp_value(NX_FLOAT32, v, buf, sizeof buf);
  return len < 0 ? len : 0;
}

static int op_buffer_fill(void) {
  nx_buffer *b;
  int s = nx_buffer_create(nx_rig_host(), NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 64, &b);
  if (s) return s;
  if (!(s = nx_rig_submit_fill(b, 0, 64, 7))) s = nx_buffer_wait(b, NX_ACCESS_READ);
  nx_buffer_release(b);
  return s;
}

static int op_donate(void) {
  nx_buffer *b;
  int s = nx_buffer_create(nx_rig_host(), NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 16, &b);
  if (s) return s;
  if (!(s = nx_buffer_hold_exclusive(b))) {
    s = nx_buffer_consume(b, "donated to the test");
    if (s) nx_buffer_unhold(b); /* the hold stays usable: give it back */
  }
  nx_buffer_release(b);
  return s;
}

static int op_copy_to_test_device(void) {
  nx_buffer *h, *t;
  int s = nx_buffer_create(nx_rig_host(), NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 64, &h);
  if (s) return s;
  if (!(s = nx_buffer_create(test_dev, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 64, &t))) {
    if (!(s = nx_rig_submit_copy(t, 0, h, 0, 64))) s = nx_buffer_wait(t, NX_ACCESS_READ);
    nx_buffer_release(t);
  }
  nx_buffer_release(h);
  return s;
}

static int op_arrays(void) {
  int64_t shape[2] = {3, 4}, idx[2] = {1, 2};
  nx_array *a, *c = NULL, *d = NULL;
  int s = nx_array_host(NX_FLOAT32, shape, 2, &a);
  if (s) return s;
  nx_value xs[12];
  if (!(s = nx_array_set(a, idx, (nx_value){.f = 2.5})) && !(s = nx_array_copy(a, &c)) &&
      !(s = nx_array_to_array(c, xs, 12)) && !(s = nx_array_to_device(test_dev, c, &d)))
    s = nx_add(a, a, c);
  nx_array_free(d);
  nx_array_free(c);
  nx_array_free(a);
  return s;
}

static int op_dlpack(void) {
  int64_t shape[1] = {5};
  nx_array *a, *b = NULL;
  int s = nx_array_host(NX_INT16, shape, 1, &a);
  if (s) return s;
  struct DLManagedTensorVersioned *t;
  if (!(s = nx_array_to_dlpack(a, &t))) s = nx_array_from_dlpack(t, &b);
  nx_array_free(b);
  nx_array_free(a);
  return s;
}

static nx_answer nothing(void *ctx, const nx_operand *ops, int nw, int nr) {
  (void)ctx, (void)ops, (void)nw, (void)nr;
  return NX_DONE;
}

/* Past 36 operands the door allocates the kernel's operand list. */
static int op_door_many(void) {
  int64_t shape[1] = {2};
  nx_array *a;
  int s = nx_array_host(NX_UINT8, shape, 1, &a);
  if (s) return s;
  nx_array *reads[40];
  for (int k = 0; k < 40; k++) reads[k] = a;
  s = nx_door_host(NULL, 0, reads, 40, nothing, NULL);
  nx_array_free(a);
  return s == NX_DONE ? 0 : s;
}

static int op_shape(void) {
  nx_shape_session *s;
  int st = nx_shape_session_new(&s);
  if (st) return st;
  nx_tensor *x, *w, *h, *e;
  nx_tensor *args[2];
  char buf[128];
  if (!(st = nx_tensor_term(s, "x", "7", "", "784", &x)) && !(st = nx_tensor_param(s, "w", NULL, "10", &w)) &&
      !(st = nx_tensor_compose(s, w, x, &h)) && !(args[0] = h, args[1] = h, st = nx_tensor_einsum(s, "b|->i;b|->i=>b|->i", args, 2, &e)) &&
      !(st = nx_shape_finish(s)))
    st = nx_tensor_to_string(s, e, NX_SHAPE_STYLE_SIZE, buf, sizeof buf) < 0 ? -1 : 0;
  nx_shape_session_free(s);
  return st;
}

/* The kernels: a cast, a reduction over one axis, a matmul and a sort, on
   the thread pool where they split. */
static int op_kernels(void) {
  int64_t shape[2] = {16, 24};
  nx_array *a, *c = NULL, *m = NULL, *r = NULL, *t = NULL, *srt = NULL;
  int s = nx_array_host(NX_FLOAT32, shape, 2, &a);
  if (s) return s;
  int axes[1] = {0};
  nx_move mv;
  nx_move_permute(&mv, (int[]){1, 0}, 2);
  if (!(s = nx_fill(a, (nx_value){.f = 1.5})) && !(s = nx_cast_new(&c, NX_BFLOAT16, a)) &&
      !(s = nx_sum_new(&r, c, axes, 1, false)) && !(s = nx_array_move(&mv, a, &t)) && !(s = nx_matmul_new(&m, a, t)))
    s = nx_sort_new(&srt, a, 1, true);
  nx_array_free(srt);
  nx_array_free(m);
  nx_array_free(t);
  nx_array_free(r);
  nx_array_free(c);
  nx_array_free(a);
  return s;
}

static char io_dir[64];

/* Files: a safetensors file with metadata and an .npz written and read back. */
static int op_io(void) {
  int64_t shape[2] = {3, 5};
  nx_array *a, *back = NULL;
  int s = nx_array_host(NX_BFLOAT16, shape, 2, &a);
  if (s) return s;
  const char *names[2] = {"t.safetensors", "t.npz"};
  nx_io_format fmts[2] = {NX_IO_SAFETENSORS, NX_IO_NPZ};
  for (int k = 0; s == 0 && k < 2; k++) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", io_dir, names[k]);
    nx_io_writer *w;
    if ((s = nx_io_writer_open(path, fmts[k], &w))) break;
    if ((k == 0 && (s = nx_io_writer_metadata(w, "k", "v"))) || (s = nx_io_writer_add(w, "x", a)) ||
        (s = nx_io_writer_add(w, "y", a))) {
      nx_io_writer_abort(w);
      break;
    }
    if ((s = nx_io_writer_commit(w))) break; /* commit frees the writer either way */
    nx_io_file *f;
    if ((s = nx_io_open(path, &f))) break;
    int i;
    if (!(s = nx_io_file_find(f, "y", &i))) s = nx_io_load(f, i, &back);
    nx_array_free(back);
    back = NULL;
    nx_io_close(f);
  }
  nx_array_free(a);
  return s;
}

static void fail_each(const char *name, int (*op)(void)) {
  long k;
  for (k = 1; k < 10000; k++) {
    nx__fail(0, "%s", "");
    nx__alloc_fail_at(k);
    int s = op();
    long failed = nx__alloc_failed();
    nx__alloc_fail_at(0);
    if (!failed) {
      CHECK(s == 0, "%s: with no allocation failed: status %d (%s)", name, s, nx_error_message());
      break;
    }
    CHECK(s == NX_ENOMEM && nx_error_message()[0], "%s: allocation %ld failed: status %d, message \"%s\"; want NX_ENOMEM with a message",
          name, k, s, nx_error_message());
    /* What the failure left is usable: the operation then succeeds. */
    int again = op();
    CHECK(again == 0, "%s: after allocation %ld failed, it fails again unfailed: %d (%s)", name, k, again, nx_error_message());
  }
  printf("%-24s %3ld allocations failed in turn, each NX_ENOMEM, then it succeeded\n", name, k - 1);
  total_failed += k - 1;
  total_ops++;
}

int main(void) {
  if (!nx_rig_host() || nx_rig_test_device(&test_dev)) return skip("the rig did not start");
  /* Each once unfailed first: what is made once per process (tables,
     first-use set-up) is made, so every run after counts the same. */
  snprintf(io_dir, sizeof io_dir, "/tmp/nx-oom-XXXXXX");
  if (!mkdtemp(io_dir)) return skip("no temporary folder");
  int (*ops[])(void) = {op_pp_value, op_buffer_fill, op_donate, op_copy_to_test_device, op_arrays,
                        op_dlpack, op_door_many, op_shape, op_kernels, op_io};
  const char *names[] = {"dtype pp_value", "rig buffer and fill", "rig donation", "rig copy to a test device", "arrays",
                         "dlpack", "door of 40 operands", "shape inference", "kernels", "files"};
  enum { NOPS = sizeof ops / sizeof ops[0] };
  for (int k = 0; k < NOPS; k++) {
    int s = ops[k]();
    CHECK(s == 0, "%s unfailed: status %d (%s)", names[k], s, nx_error_message());
  }
  for (int k = 0; k < NOPS; k++) fail_each(names[k], ops[k]);
  char path[128];
  snprintf(path, sizeof path, "%s/t.safetensors", io_dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/t.npz", io_dir);
  unlink(path);
  rmdir(io_dir);
  printf("%ld operations, %ld allocation failures injected and survived\n", total_ops, total_failed);
  return check_done();
}
