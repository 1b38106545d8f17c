/* SPDX-License-Identifier: Apache-2.0 */
/* The door's answers against a model of its precedence. The input draws one
   to three buffers (host or test-device memory, read-only or writable; live,
   held exclusive or consumed), arrays of several widths over them (random
   strides, repeats and overlaps included) and written and read operand
   lists. The model computes the answer from the documented precedence, with
   overlaps, repeats and identity by enumerating every element's bytes
   (tests/layout/layout_model.h): the first kind of fault any operand has of
   dead, held exclusive, read-only (written), off the host (nx_door_host,
   non-empty), repeated elements (written), overlapping (written, against
   another operand it is not identical to, or any other written one). Both
   doors must answer it, run the kernel exactly when it is Done, and leave no
   claim behind. */
#include <stdbool.h>

#include "fuzz.h"
#include "../layout/layout_model.h"
#include "nx_array.h"
#include "rig_test.h"

enum { MAX_BUFFERS = 3, MAX_ARRAYS = 5, MAX_OPS = 6 };
enum { LIVE, HELD, DEAD };

static const nx_dtype dtypes[] = {NX_UINT8, NX_INT16, NX_FLOAT32, NX_BIT, NX_INT4};

typedef struct {
  nx_buffer *b;
  bool host, writable;
  int state;
} buf;

typedef struct {
  nx_array *a;
  int buffer;
  nx_layout l;
  int width;
} arr;

static int ran;
static nx_answer host_kernel(void *ctx, const nx_operand *ops, int nw, int nr) {
  (void)ctx, (void)ops, (void)nw, (void)nr;
  ran++;
  return NX_DONE;
}
static int device_kernel(void *ctx) {
  (void)ctx;
  ran++;
  return 0;
}

static nx_answer model(const buf *bs, const arr *as, const int *ops, int nw, int n, bool host_door) {
  bool dead = false, held = false, ro = false, off = false, rep = false, over = false;
  for (int i = 0; i < n; i++) {
    const arr *x = &as[ops[i]];
    const buf *b = &bs[x->buffer];
    dead |= b->state == DEAD;
    held |= b->state == HELD;
    ro |= i < nw && !b->writable;
    off |= host_door && !b->host && m_lcount(&x->l) > 0;
    rep |= i < nw && !bf_distinct(&x->l);
    for (int j = 0; i < nw && j < n; j++) {
      const arr *y = &as[ops[j]];
      if (j == i || y->buffer != x->buffer || !bf_shares_byte(&x->l, x->width, &y->l, y->width)) continue;
      over |= j < nw || !bf_identical(&x->l, x->width, &y->l, y->width);
    }
  }
  return dead ? NX_DEAD_BUFFER : held ? NX_HELD_EXCLUSIVE : ro ? NX_READ_ONLY : off ? NX_OFF_HOST
         : rep ? NX_REPEATED_ELEMENTS : over ? NX_OVERLAPPING : NX_DONE;
}

/* No claim is left on a live buffer: holding it exclusive succeeds. */
static void no_claim_left(const buf *bs, int nb) {
  for (int k = 0; k < nb; k++) {
    if (bs[k].state != LIVE) continue;
    int st = nx_buffer_hold_exclusive(bs[k].b);
    FUZZ_REQUIRE(st == 0, "buffer %d is still claimed after the door: %s", k, nx_error_message());
    nx_buffer_unhold(bs[k].b);
  }
}

static void draw_layout(fuzz_in *in, nx_layout *l, int width, int64_t bytes) {
  int rank = (int)fuzz_in_range(in, 0, 2);
  int64_t ext[2], str[2], lo = 0, hi = 0;
  for (int k = 0; k < rank; k++) {
    ext[k] = fuzz_in_range(in, 0, 3);
    str[k] = fuzz_in_range(in, -3, 3);
    if (ext[k] > 0) {
      int64_t reach = str[k] * (ext[k] - 1);
      if (reach < 0) lo += reach;
      else hi += reach;
    }
  }
  /* An offset that keeps every position inside the buffer where it can. */
  int64_t elems = bytes * 8 / width, room = elems - 1 - (hi - lo);
  int64_t off = -lo + (room > 0 ? fuzz_in_range(in, 0, room) : 0);
  if (nx_layout_make(rank, ext, str, off, l) != 0) nx_layout_contiguous(NULL, 0, l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static nx_device *test_dev;
  if (!test_dev && nx_rig_test_device(&test_dev) != 0) abort();
  fuzz_in in = {data, size};
  buf bs[MAX_BUFFERS];
  arr as[MAX_ARRAYS];
  int nb = (int)fuzz_in_range(&in, 1, MAX_BUFFERS), na = 0;
  for (int k = 0; k < nb; k++) {
    uint8_t c = fuzz_u8(&in);
    bs[k].host = (c & 3) != 0;
    bs[k].writable = (c & 4) == 0;
    bs[k].state = (c >> 3) % 6 == 0 ? DEAD : (c >> 3) % 6 == 1 ? HELD : LIVE;
    int st = nx_buffer_create(bs[k].host ? nx_rig_host() : test_dev, bs[k].host ? NX_MEMORY_HOST : NX_MEMORY_DEVICE,
                              bs[k].writable ? NX_ACCESS_READ_WRITE : NX_ACCESS_READ, 32, &bs[k].b);
    FUZZ_REQUIRE(st == 0, "nx_buffer_create: %s", nx_error_message());
  }
  int want_arrays = (int)fuzz_in_range(&in, 1, MAX_ARRAYS);
  for (int k = 0; k < want_arrays; k++) {
    arr *x = &as[na];
    x->buffer = (int)fuzz_in_range(&in, 0, nb - 1);
    nx_dtype dt = dtypes[fuzz_in_range(&in, 0, 4)];
    x->width = nx_dtype_bits(dt);
    draw_layout(&in, &x->l, x->width, 32);
    fuzz_clear_message();
    int st = nx_array_v(dt, &x->l, bs[x->buffer].b, &x->a);
    if (st == 0) na++;
    else FUZZ_FAILED_WELL(st, "nx_array_v");
  }
  for (int k = 0; k < nb; k++) {
    if (bs[k].state == LIVE) continue;
    FUZZ_REQUIRE(nx_buffer_hold_exclusive(bs[k].b) == 0, "hold: %s", nx_error_message());
    if (bs[k].state == DEAD) FUZZ_REQUIRE(nx_buffer_consume(bs[k].b, "consumed by the fuzzer") == 0, "consume: %s", nx_error_message());
  }
  if (na > 0) {
    int ops[MAX_OPS];
    int nw = (int)fuzz_in_range(&in, 0, 3), nr = (int)fuzz_in_range(&in, 0, 3);
    nx_array *list[MAX_OPS];
    for (int i = 0; i < nw + nr; i++) list[i] = as[ops[i] = (int)fuzz_in_range(&in, 0, na - 1)].a;
    for (int host_door = 0; host_door < 2; host_door++) {
      nx_answer want = model(bs, as, ops, nw, nw + nr, host_door);
      ran = 0;
      int got = host_door ? nx_door_host(list, nw, list + nw, nr, host_kernel, NULL)
                          : nx_door(list, nw, list + nw, nr, device_kernel, NULL);
      FUZZ_REQUIRE(got == (int)want && ran == (want == NX_DONE),
                   "%s with %d written and %d read operands answered %d (kernel ran %d times), the model %d",
                   host_door ? "nx_door_host" : "nx_door", nw, nr, got, ran, (int)want);
      no_claim_left(bs, nb);
    }
  }
  for (int k = 0; k < na; k++) nx_array_free(as[k].a);
  for (int k = 0; k < nb; k++) {
    if (bs[k].state == HELD) nx_buffer_unhold(bs[k].b);
    nx_buffer_release(bs[k].b);
  }
  return 0;
}
