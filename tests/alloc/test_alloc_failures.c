/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation failure, as SQLite's OOM tests do it: each module's
   representative operations run with their 1st allocation failing, then
   their 2nd, and so on, until one runs with no allocation failed. Each
   failed run must answer NX_ENOMEM with a message and give back everything
   it took (LeakSanitizer checks, under the ASan build), and the objects it
   was given must stay usable: the same operation on them then succeeds.
   The hook is the test variant's (src/base/alloc.h). */
#include <stdlib.h>
#include <string.h>

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
  int (*ops[])(void) = {op_pp_value, op_buffer_fill, op_donate, op_copy_to_test_device, op_arrays, op_dlpack, op_door_many, op_shape};
  const char *names[] = {"dtype pp_value", "rig buffer and fill", "rig donation", "rig copy to a test device", "arrays", "dlpack", "door of 40 operands", "shape inference"};
  for (int k = 0; k < 8; k++) {
    int s = ops[k]();
    CHECK(s == 0, "%s unfailed: status %d (%s)", names[k], s, nx_error_message());
  }
  for (int k = 0; k < 8; k++) fail_each(names[k], ops[k]);
  printf("%ld operations, %ld allocation failures injected and survived\n", total_ops, total_failed);
  return check_done();
}
