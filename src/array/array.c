/* SPDX-License-Identifier: Apache-2.0 */
/* Arrays: making them, their parts, views and borrows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_internal.h"
#include "../base/alloc.h"

static int bits_of(nx_dtype dt) { return nx_dtype_bits_of(dt); }

/* The alignment of an element's first byte: its width for a byte or more,
   one component's for complex, one byte for narrower ones. */
static int64_t alignment(nx_dtype dt) {
  int bits = bits_of(dt);
  if (nx_dtype_kind_of(dt) == NX_KIND_COMPLEX) return bits / 16;
  return bits >= 8 ? bits / 8 : 1;
}

bool nx__array_empty(const nx_array *a) {
  for (int j = 0; j < a->l.rank; j++)
    if (a->l.extent[j] == 0) return true;
  return false;
}

const char *nx_array_describe(const nx_array *a, char *buf, size_t cap) {
  if (!buf) return nx__fail(NX_EINVAL, "nx_array_describe: buf is NULL"), NULL;
  if (!a) { snprintf(buf, cap, "NULL"); return buf; }
  int len = snprintf(buf, cap, "%s [", nx_dtype_name(a->dt));
  for (int j = 0; j < a->l.rank && len > 0 && (size_t)len < cap; j++)
    len += snprintf(buf + len, cap - (size_t)len, j ? "; %lld" : "%lld", (long long)a->l.extent[j]);
  if (len > 0 && (size_t)len < cap) snprintf(buf + len, cap - (size_t)len, "]");
  return buf;
}

/* The checks of nx_array_v, naming fn; a dead buffer is refused unless
   dead_ok (a movement, which the seed lets raise only as Move.shape does). */
static int make_view(const char *fn, nx_dtype dt, const nx_layout *l, nx_buffer *b, bool dead_ok, nx_array **out) {
  char t[128];
  if ((unsigned)dt >= NX_DTYPE_COUNT) return nx__fail(NX_EINVAL, "%s: %d is not a dtype", fn, (int)dt);
  if (!l || !b || !out) return nx__fail(NX_EINVAL, "%s: the layout, buffer or result is NULL", fn);
  nx_array a = {dt, *l, b};
  const char *why = dead_ok ? NULL : nx_buffer_dead(b);
  if (why) return nx__fail(NX_EINVAL, "%s: the buffer of %s is dead (%s)", fn, nx_array_describe(&a, t, sizeof t), why);
  int64_t lo, hi;
  int s = nx_layout_bits(l, bits_of(dt), &lo, &hi);
  if (s < 0) return nx__fail_as(fn, s);
  if (s == 0) {
    if (lo < 0 || hi > nx_buffer_bytes(b) * 8)
      return nx__fail(NX_EINVAL, "%s: a layout of %s reaches bits [%lld, %lld), outside the buffer's %lld bytes", fn,
                      nx_array_describe(&a, t, sizeof t), (long long)lo, (long long)hi, (long long)nx_buffer_bytes(b));
    int64_t first = l->offset * bits_of(dt) / 8, al = alignment(dt);
    uintptr_t addr = (uintptr_t)nx_buffer_host_address(b);
    if ((bits_of(dt) >= 8 && first % al) || (addr && (addr + (uintptr_t)first) % (uintptr_t)al))
      return nx__fail(NX_EINVAL, "%s: the first element of %s, at byte %lld, is not aligned to %lld bytes", fn,
                      nx_array_describe(&a, t, sizeof t), (long long)first, (long long)al);
  }
  nx_array *r = nx__malloc(sizeof *r);
  if (!r) return nx__fail(NX_ENOMEM, "%s: no memory for an array", fn);
  *r = a;
  nx_buffer_retain(b);
  *out = r;
  return 0;
}

static int make(const char *fn, nx_dtype dt, const nx_layout *l, nx_buffer *b, nx_array **out) {
  return make_view(fn, dt, l, b, false, out);
}

int nx_array_v(nx_dtype dt, const nx_layout *l, nx_buffer *b, nx_array **a) { return make("nx_array_v", dt, l, b, a); }

static int create(const char *fn, nx_device *d, nx_memory_kind kind, nx_dtype dt, const int64_t *shape, int rank,
                  nx_array **a) {
  nx_layout l;
  nx_buffer *b;
  int64_t bytes;
  if (!d || !a || (rank > 0 && !shape))
    return nx__fail(NX_EINVAL, "%s: %s is NULL", fn, !d ? "the device d" : !a ? "the result a" : "the shape");
  if ((unsigned)dt >= NX_DTYPE_COUNT) return nx__fail(NX_EINVAL, "%s: %d is not a dtype", fn, (int)dt);
  int s = nx_layout_contiguous(shape, rank, &l);
  if (s) return nx__fail_as(fn, s);
  if ((s = nx_dtype_bytes(dt, nx_layout_count(&l), &bytes))) return nx__fail_as(fn, s);
  if ((s = nx_buffer_create(d, kind, NX_ACCESS_READ_WRITE, bytes, &b))) return nx__fail_as(fn, s);
  /* A sub-byte array's last byte: zero past its last element. */
  if (bits_of(dt) < 8 && bytes > 0 && (s = nx_rig_submit_fill(b, bytes - 1, 1, 0))) {
    nx_buffer_release(b);
    return nx__fail_as(fn, s);
  }
  s = make(fn, dt, &l, b, a);
  nx_buffer_release(b);
  return s;
}

int nx_array_create(nx_device *d, nx_memory_kind kind, nx_dtype dt, const int64_t *shape, int rank, nx_array **a) {
  return create("nx_array_create", d, kind, dt, shape, rank, a);
}

int nx_array_host(nx_dtype dt, const int64_t *shape, int rank, nx_array **a) {
  return create("nx_array_host", nx_rig_host(), NX_MEMORY_DEVICE, dt, shape, rank, a);
}

void nx_array_free(nx_array *a) {
  if (!a) return;
  nx_buffer_release(a->b);
  nx__free(a);
}

/* A NULL array has no facts: a message, and NX_DTYPE_COUNT or NULL. */
nx_dtype nx_array_dtype(const nx_array *a) {
  return a ? a->dt : (nx__fail(NX_EINVAL, "nx_array_dtype: the array is NULL"), NX_DTYPE_COUNT);
}
const nx_layout *nx_array_layout(const nx_array *a) {
  return a ? &a->l : (nx__fail(NX_EINVAL, "nx_array_layout: the array is NULL"), NULL);
}
nx_buffer *nx_array_buffer(const nx_array *a) {
  return a ? a->b : (nx__fail(NX_EINVAL, "nx_array_buffer: the array is NULL"), NULL);
}
nx_device *nx_array_device(const nx_array *a) {
  return a ? nx_buffer_device(a->b) : (nx__fail(NX_EINVAL, "nx_array_device: the array is NULL"), NULL);
}

int nx_array_expect(nx_dtype dt, const nx_array *a) {
  if (!a) return nx__fail(NX_EINVAL, "nx_array_expect: the array is NULL");
  if ((unsigned)dt >= NX_DTYPE_COUNT) return nx__fail(NX_EINVAL, "nx_array_expect: %d is not a dtype", (int)dt);
  if (a->dt == dt) return 0;
  return nx__fail(NX_EINVAL, "nx_array_expect: expected an array of %s, got one of %s", nx_dtype_name(dt),
                  nx_dtype_name(a->dt));
}

int nx__array_relay2(const char *fn, const nx_array *a, const nx_array *b, int s) {
  char t[128], u[128], why[1024];
  const char *msg = nx_error_message(), *colon = strstr(msg, ": ");
  size_t n = strlen(fn);
  if (strncmp(msg, fn, n) == 0 && msg[n] == ':') return s; /* named for fn already */
  snprintf(why, sizeof why, "%s", colon ? colon + 2 : msg);
  if (!a) return nx__fail(s, "%s: %s", fn, why);
  if (!b) return nx__fail(s, "%s: %s: %s", fn, nx_array_describe(a, t, sizeof t), why);
  return nx__fail(s, "%s: %s into %s: %s", fn, nx_array_describe(a, t, sizeof t), nx_array_describe(b, u, sizeof u),
                  why);
}

int nx__array_relay(const char *fn, const nx_array *a, int s) { return nx__array_relay2(fn, a, NULL, s); }

int nx_array_move(const nx_move *m, const nx_array *a, nx_array **r) {
  static const char fn[] = "nx_array_move";
  nx_layout l;
  if (!a || !m) return nx__fail(NX_EINVAL, "%s: %s is NULL", fn, !a ? "the array" : "the movement m");
  int s = nx_layout_move(m, &a->l, &l);
  if (s < 0) return nx__array_relay(fn, a, s);
  /* A dead buffer too: the result reaches only positions a reaches, at a's
     alignment, and what reads it refuses the death. */
  return s ? s : make_view(fn, a->dt, &l, a->b, true, r);
}

int nx_array_bitcast(nx_dtype dt, const nx_array *a, nx_array **r) {
  static const char fn[] = "nx_array_bitcast";
  nx_layout l;
  if (!a || (unsigned)dt >= NX_DTYPE_COUNT) return nx__fail(NX_EINVAL, "%s: the array is NULL or the dtype unknown", fn);
  char t[128];
  const char *why = nx_buffer_dead(a->b);
  if (why) return nx__fail(NX_EINVAL, "%s: the buffer of %s is dead (%s)", fn, nx_array_describe(a, t, sizeof t), why);
  int s = nx_layout_bitcast(&a->l, bits_of(a->dt), bits_of(dt), &l);
  if (s < 0) return nx__array_relay(fn, a, s);
  if (s) return s;
  /* Misaligned for dt: None, not an error. */
  if (!nx__array_empty(a) && bits_of(dt) >= 8) {
    int64_t first = l.offset * bits_of(dt) / 8, al = alignment(dt);
    uintptr_t addr = (uintptr_t)nx_buffer_host_address(a->b);
    if (first % al || (addr && (addr + (uintptr_t)first) % (uintptr_t)al)) return NX_NONE;
  }
  return make(fn, dt, &l, a->b, r);
}

int nx_array_borrow(nx_device *d, const nx_array *a, nx_array **r) {
  nx_buffer *b;
  char t[128];
  if (!a || !d) return nx__fail(NX_EINVAL, "nx_array_borrow: %s is NULL", !a ? "the array" : "the device d");
  const char *why = nx_buffer_dead(a->b);
  if (why)
    return nx__fail(NX_EINVAL, "nx_array_borrow: the buffer of %s is dead (%s)", nx_array_describe(a, t, sizeof t), why);
  int s = nx_buffer_borrow(d, a->b, &b);
  if (s) return nx__array_relay("nx_array_borrow", a, s);
  s = make("nx_array_borrow", a->dt, &a->l, b, r);
  nx_buffer_release(b);
  return s;
}
