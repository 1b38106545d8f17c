/* SPDX-License-Identifier: Apache-2.0 */
/* Scoped raw access (nx_array_read, nx_array_write): the callback sees the
   buffer's host address, the dtype and the layout whole; device work is
   waited for; the claim ends however the callback returns; every refusal
   names the function and the operand, and calls nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "nx_array.h"
#include "rig_test.h" /* test devices: the test variant of the library */

/* What a callback saw. */
typedef struct seen {
  int calls;
  const void *base;
  nx_dtype dt;
  nx_layout l;
  nx_buffer *b;          /* to probe the claim from inside */
  int hold_inside;       /* nx_buffer_hold_exclusive's status inside f */
  int ret;               /* what f returns */
  float values[6];       /* float32 elements read in C order */
  float store;           /* what write stores, plus the index */
} seen;

static void note(seen *s, const void *base, nx_dtype dt, const nx_layout *l) {
  s->calls++;
  s->base = base;
  s->dt = dt;
  s->l = *l;
  if (s->b) {
    s->hold_inside = nx_buffer_hold_exclusive(s->b);
    if (s->hold_inside == 0) nx_buffer_unhold(s->b);
  }
}

static int on_read(void *ctx, const void *base, nx_dtype dt, const nx_layout *l) {
  seen *s = ctx;
  note(s, base, dt, l);
  if (dt == NX_FLOAT32 && l->rank == 2 && base) {
    int k = 0;
    for (int64_t i = 0; i < l->extent[0]; i++)
      for (int64_t j = 0; j < l->extent[1] && k < 6; j++)
        memcpy(&s->values[k++], (const char *)base + 4 * (l->offset + i * l->stride[0] + j * l->stride[1]), 4);
  }
  return s->ret;
}

static int on_write(void *ctx, void *base, nx_dtype dt, const nx_layout *l) {
  seen *s = ctx;
  note(s, base, dt, l);
  if (dt == NX_FLOAT32 && l->rank == 2 && base) {
    int k = 0;
    for (int64_t i = 0; i < l->extent[0]; i++)
      for (int64_t j = 0; j < l->extent[1]; j++, k++) {
        float v = s->store + (float)k;
        memcpy((char *)base + 4 * (l->offset + i * l->stride[0] + j * l->stride[1]), &v, 4);
      }
  }
  return s->ret;
}

static bool same_layout(const nx_layout *a, const nx_layout *b) {
  if (a->rank != b->rank || a->offset != b->offset) return false;
  for (int j = 0; j < a->rank; j++)
    if (a->extent[j] != b->extent[j] || a->stride[j] != b->stride[j]) return false;
  return true;
}

static bool says(const char *part) { return strstr(nx_error_message(), part) != NULL; }

/* A refusal: status NX_EINVAL, f never called, and the message naming fn,
   the operand and the reason. */
#define CHECK_REFUSED(call, sn, fn, operand, reason)                                                           \
  do {                                                                                                        \
    int st_ = (call);                                                                                         \
    CHECK(st_ == NX_EINVAL, "%s: status %d (%s)", #call, st_, nx_error_message());                            \
    CHECK((sn).calls == 0, "%s: the callback ran %d times", #call, (sn).calls);                                \
    CHECK(says(fn) && says(operand) && says(reason), "%s: message \"%s\" lacks %s, %s or %s", #call,         \
          nx_error_message(), fn, operand, reason);                                                           \
  } while (0)

static nx_array *floats32(void) {
  nx_value xs[6];
  for (int i = 0; i < 6; i++) xs[i].f = 1.5 * i;
  nx_array *a = NULL;
  int s = nx_array_of_array(NX_FLOAT32, (int64_t[]){3, 2}, 2, xs, 6, &a);
  CHECK(s == 0, "nx_array_of_array: %s", nx_error_message());
  return a;
}

static void test_read_sees(void) {
  nx_array *a = floats32();
  if (!a) return;
  seen s = {.ret = 0, .b = nx_array_buffer(a)};
  int st = nx_array_read(a, on_read, &s);
  CHECK(st == 0, "nx_array_read: %d %s", st, nx_error_message());
  CHECK(s.calls == 1, "f ran %d times", s.calls);
  CHECK(s.base == nx_buffer_host_address(nx_array_buffer(a)), "base %p, buffer at %p", s.base,
        nx_buffer_host_address(nx_array_buffer(a)));
  CHECK(s.dt == NX_FLOAT32, "dtype %d", (int)s.dt);
  CHECK(same_layout(&s.l, nx_array_layout(a)), "the layout f saw is not a's");
  for (int i = 0; i < 6; i++) CHECK(s.values[i] == 1.5f * i, "element %d is %g", i, s.values[i]);
  /* Inside f the memory is claimed: a donation cannot hold it. */
  CHECK(s.hold_inside == NX_EINVAL && says("claimed"), "hold_exclusive inside f: %d (%s)", s.hold_inside,
        nx_error_message());
  /* After it, the claim is over. */
  CHECK(nx_buffer_hold_exclusive(nx_array_buffer(a)) == 0, "the claim outlived f: %s", nx_error_message());
  nx_buffer_unhold(nx_array_buffer(a));

  /* A view keeps its layout whole: flipped and sliced, offset and negative
     strides as they are. */
  nx_move m;
  nx_array *v = NULL;
  CHECK(nx_move_slice(&m, (int64_t[]){NX_SLICE_NONE, NX_SLICE_NONE}, (int64_t[]){NX_SLICE_NONE, NX_SLICE_NONE},
                      (int64_t[]){-2, -1}, 2) == 0,
        "nx_move_slice: %s", nx_error_message());
  CHECK(nx_array_move(&m, a, &v) == 0, "nx_array_move: %s", nx_error_message());
  if (v) {
    seen t = {0};
    CHECK(nx_array_read(v, on_read, &t) == 0, "read of a view: %s", nx_error_message());
    CHECK(same_layout(&t.l, nx_array_layout(v)) && t.l.stride[0] == -4 && t.l.stride[1] == -1 && t.l.offset == 5,
          "the view's layout: offset %lld strides %lld %lld", (long long)t.l.offset, (long long)t.l.stride[0],
          (long long)t.l.stride[1]);
    CHECK(t.base == s.base, "a view's base is its buffer's first byte");
    CHECK(t.values[0] == 7.5f && t.values[1] == 6.0f && t.values[2] == 1.5f && t.values[3] == 0.0f,
          "view elements %g %g %g %g", t.values[0], t.values[1], t.values[2], t.values[3]);
    nx_array_free(v);
  }
  nx_array_free(a);
}

static void test_write_stores(void) {
  nx_array *a = floats32();
  if (!a) return;
  seen s = {.store = 10.0f, .b = nx_array_buffer(a)};
  int st = nx_array_write(a, on_write, &s);
  CHECK(st == 0 && s.calls == 1, "nx_array_write: %d, %d calls (%s)", st, s.calls, nx_error_message());
  CHECK(s.base == nx_buffer_host_address(nx_array_buffer(a)) && s.dt == NX_FLOAT32 &&
            same_layout(&s.l, nx_array_layout(a)),
        "write's callback saw the wrong base, dtype or layout");
  CHECK(s.hold_inside == NX_EINVAL, "hold_exclusive inside write's f: %d", s.hold_inside);
  for (int64_t i = 0; i < 3; i++)
    for (int64_t j = 0; j < 2; j++) {
      nx_value v;
      CHECK(nx_array_get(a, (int64_t[]){i, j}, &v) == 0 && v.f == 10.0 + (double)(2 * i + j),
            "element [%lld; %lld] is %g after write", (long long)i, (long long)j, v.f);
    }
  nx_array_free(a);
}

/* f's status comes back, and the claim ends all the same. */
static void test_error_ends_claim(void) {
  nx_array *a = floats32();
  if (!a) return;
  for (int w = 0; w < 2; w++) {
    seen s = {.ret = -1234, .store = 1.0f, .b = nx_array_buffer(a)};
    int st = w ? nx_array_write(a, on_write, &s) : nx_array_read(a, on_read, &s);
    CHECK(st == -1234 && s.calls == 1, "%s: f's status -1234 came back as %d", w ? "write" : "read", st);
    CHECK(s.hold_inside == NX_EINVAL, "the claim was not held inside f");
    CHECK(nx_buffer_hold_exclusive(nx_array_buffer(a)) == 0, "%s: the claim outlived a failing f: %s",
          w ? "write" : "read", nx_error_message());
    nx_buffer_unhold(nx_array_buffer(a));
    s.ret = 7; /* a positive status too */
    s.calls = 0;
    st = w ? nx_array_write(a, on_write, &s) : nx_array_read(a, on_read, &s);
    CHECK(st == 7, "f's status 7 came back as %d", st);
  }
  nx_array_free(a);
}

/* Device work on the memory is done before f runs. */
static void test_waits(void) {
  nx_array *a = NULL;
  int64_t n = 1 << 20;
  CHECK(nx_array_host(NX_UINT8, &n, 1, &a) == 0, "nx_array_host: %s", nx_error_message());
  if (!a) return;
  for (int round = 0; round < 4; round++) {
    uint8_t v = (uint8_t)(0x11 * (round + 1));
    CHECK(nx_rig_submit_fill(nx_array_buffer(a), 0, n, v) == 0, "fill: %s", nx_error_message());
    seen s = {0};
    CHECK(nx_array_read(a, on_read, &s) == 0, "read: %s", nx_error_message());
    const uint8_t *p = s.base;
    CHECK(p && p[0] == v && p[n - 1] == v, "read ran before the fill was done: %02x %02x", p ? p[0] : 0,
          p ? p[n - 1] : 0);
  }
  nx_array_free(a);
}

static void test_refusals(void) {
  nx_device *td = NULL;
  CHECK(nx_rig_test_device(&td) == 0, "nx_rig_test_device: %s", nx_error_message());

  /* NULL arguments. */
  {
    seen s = {0};
    nx_array *a = floats32();
    CHECK_REFUSED(nx_array_read(NULL, on_read, &s), s, "nx_array_read", "", "NULL");
    CHECK_REFUSED(nx_array_read(a, NULL, &s), s, "nx_array_read", "", "NULL");
    CHECK_REFUSED(nx_array_write(a, NULL, &s), s, "nx_array_write", "", "NULL");
    nx_array_free(a);
  }
  /* A dead buffer: freed, or consumed by a donation with its reason. */
  {
    seen s = {0};
    nx_array *a = floats32();
    CHECK(nx_buffer_free(nx_array_buffer(a)) == 0, "free: %s", nx_error_message());
    CHECK_REFUSED(nx_array_read(a, on_read, &s), s, "nx_array_read", "float32 [3; 2]", "dead (freed)");
    CHECK_REFUSED(nx_array_write(a, on_write, &s), s, "nx_array_write", "float32 [3; 2]", "dead (freed)");
    nx_array_free(a);
    a = floats32();
    CHECK(nx_buffer_hold_exclusive(nx_array_buffer(a)) == 0 &&
              nx_buffer_consume(nx_array_buffer(a), "donated to nx_mul") == 0,
          "donation: %s", nx_error_message());
    CHECK_REFUSED(nx_array_read(a, on_read, &s), s, "nx_array_read", "float32 [3; 2]", "donated to nx_mul");
    nx_array_free(a);
  }
  /* Held exclusive: refused, and claimable again once unheld. */
  {
    seen s = {0};
    nx_array *a = floats32();
    CHECK(nx_buffer_hold_exclusive(nx_array_buffer(a)) == 0, "hold: %s", nx_error_message());
    CHECK_REFUSED(nx_array_read(a, on_read, &s), s, "nx_array_read", "float32 [3; 2]", "held exclusive");
    CHECK_REFUSED(nx_array_write(a, on_write, &s), s, "nx_array_write", "float32 [3; 2]", "held exclusive");
    nx_buffer_unhold(nx_array_buffer(a));
    CHECK(nx_array_read(a, on_read, &s) == 0 && s.calls == 1, "read after unhold: %s", nx_error_message());
    nx_array_free(a);
  }
  /* Memory the host does not address (a test device's), with an element. */
  if (td) {
    seen s = {0};
    nx_array *a = NULL;
    CHECK(nx_array_create(td, NX_MEMORY_DEVICE, NX_FLOAT32, (int64_t[]){3, 2}, 2, &a) == 0, "create: %s",
          nx_error_message());
    if (a) {
      CHECK_REFUSED(nx_array_read(a, on_read, &s), s, "nx_array_read", "float32 [3; 2]",
                    "host does not address");
      CHECK_REFUSED(nx_array_write(a, on_write, &s), s, "nx_array_write", "float32 [3; 2]",
                    "host does not address");
      /* The refusal ended its claim. */
      CHECK(nx_buffer_hold_exclusive(nx_array_buffer(a)) == 0, "off-host refusal kept a claim: %s",
            nx_error_message());
      nx_buffer_unhold(nx_array_buffer(a));
      nx_array_free(a);
    }
  }
  /* Memory that admits no write: read runs, write is refused. */
  {
    seen s = {0};
    nx_buffer *b = NULL;
    nx_array *a = NULL;
    nx_layout l;
    CHECK(nx_buffer_create(nx_rig_host(), NX_MEMORY_DEVICE, NX_ACCESS_READ, 24, &b) == 0, "create: %s",
          nx_error_message());
    CHECK(nx_layout_contiguous((int64_t[]){3, 2}, 2, &l) == 0, "layout");
    CHECK(b && nx_array_v(NX_FLOAT32, &l, b, &a) == 0, "nx_array_v: %s", nx_error_message());
    if (a) {
      CHECK_REFUSED(nx_array_write(a, on_write, &s), s, "nx_array_write", "float32 [3; 2]", "admits no write");
      CHECK(nx_array_read(a, on_read, &s) == 0 && s.calls == 1, "read of Read memory: %s", nx_error_message());
      nx_array_free(a);
    }
    nx_buffer_release(b);
  }
}

/* An array with no element runs f whatever its memory; dead memory is still
   refused. */
static void test_empty(void) {
  nx_device *td = NULL;
  CHECK(nx_rig_test_device(&td) == 0, "nx_rig_test_device: %s", nx_error_message());
  if (!td) return;
  nx_array *a = NULL;
  CHECK(nx_array_create(td, NX_MEMORY_DEVICE, NX_FLOAT32, (int64_t[]){3, 0}, 2, &a) == 0, "create: %s",
        nx_error_message());
  if (!a) return;
  seen s = {.b = nx_array_buffer(a)};
  CHECK(nx_array_read(a, on_read, &s) == 0 && s.calls == 1, "read of an empty device array: %d calls (%s)", s.calls,
        nx_error_message());
  CHECK(s.dt == NX_FLOAT32 && same_layout(&s.l, nx_array_layout(a)), "empty: dtype or layout");
  CHECK(s.hold_inside == NX_EINVAL, "the empty array's memory was not claimed inside f");
  CHECK(nx_array_write(a, on_write, &s) == 0 && s.calls == 2, "write of an empty device array: %s",
        nx_error_message());
  CHECK(nx_buffer_hold_exclusive(nx_array_buffer(a)) == 0, "claim outlived f: %s", nx_error_message());
  nx_buffer_unhold(nx_array_buffer(a));
  CHECK(nx_buffer_free(nx_array_buffer(a)) == 0, "free");
  seen d = {0};
  CHECK_REFUSED(nx_array_read(a, on_read, &d), d, "nx_array_read", "float32 [3; 0]", "dead");
  nx_array_free(a);
}

/* Sub-byte and past Bigarray's 16 axes: the layout travels. */
static void test_layouts(void) {
  nx_array *a = NULL;
  int64_t shape[20];
  for (int j = 0; j < 20; j++) shape[j] = j % 5 == 0 ? 2 : 1;
  CHECK(nx_array_host(NX_INT4, shape, 20, &a) == 0, "nx_array_host rank 20: %s", nx_error_message());
  if (!a) return;
  seen s = {0};
  CHECK(nx_array_read(a, on_read, &s) == 0 && s.calls == 1, "read rank 20: %s", nx_error_message());
  CHECK(s.dt == NX_INT4 && s.l.rank == 20 && same_layout(&s.l, nx_array_layout(a)), "rank-20 layout");
  nx_array_free(a);
}

int main(void) {
  test_read_sees();
  test_write_stores();
  test_error_ends_claim();
  test_waits();
  test_refusals();
  test_empty();
  test_layouts();
  return check_done();
}
