/* SPDX-License-Identifier: Apache-2.0 */
/* Elements: values to bits and back, and the host's element access, which
   claims, waits, and holds the claim while it reads or writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_internal.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "nx stores elements little-endian and reads them with host loads: a big-endian host needs byte swaps here"
#endif

void nx__value_bits(nx_dtype dt, nx_value v, uint8_t *out) {
  uint64_t b[2] = {0, 0};
  switch (nx_dtype_kind_of(dt)) {
  case NX_KIND_FLOAT: b[0] = nx_dtype_store_double(dt, v.f); break;
  case NX_KIND_COMPLEX: {
    int c = dt == NX_COMPLEX128 ? NX_FLOAT64 : NX_FLOAT32, w = dt == NX_COMPLEX128 ? 8 : 4;
    uint64_t re = nx_dtype_store_double(c, v.c.re), im = nx_dtype_store_double(c, v.c.im);
    memcpy(out, &re, (size_t)w);
    memcpy(out + w, &im, (size_t)w);
    return;
  }
  case NX_KIND_SIGNED: b[0] = (uint64_t)v.i; break;
  case NX_KIND_UNSIGNED: b[0] = v.u; break;
  case NX_KIND_BOOLEAN: b[0] = v.b ? 1 : 0; break;
  }
  int bytes = nx_dtype_bits_of(dt) >= 8 ? nx_dtype_bits_of(dt) / 8 : 1;
  memcpy(out, b, (size_t)bytes);
}

nx_value nx__bits_value(nx_dtype dt, const uint8_t *in) {
  nx_value v;
  uint64_t b = 0;
  memset(&v, 0, sizeof v);
  int bits = nx_dtype_bits_of(dt);
  if (nx_dtype_kind_of(dt) == NX_KIND_COMPLEX) {
    int c = dt == NX_COMPLEX128 ? NX_FLOAT64 : NX_FLOAT32, w = dt == NX_COMPLEX128 ? 8 : 4;
    uint64_t re = 0, im = 0;
    memcpy(&re, in, (size_t)w);
    memcpy(&im, in + w, (size_t)w);
    v.c.re = nx_dtype_load_double(c, re);
    v.c.im = nx_dtype_load_double(c, im);
    return v;
  }
  memcpy(&b, in, (size_t)(bits >= 8 ? bits / 8 : 1));
  if (bits < 8) b &= (1u << bits) - 1;
  switch (nx_dtype_kind_of(dt)) {
  case NX_KIND_FLOAT: v.f = nx_dtype_load_double(dt, b); break;
  case NX_KIND_SIGNED: v.i = nx__int_value(b, bits, 1); break;
  case NX_KIND_UNSIGNED: v.u = b; break;
  case NX_KIND_BOOLEAN: v.b = b != 0; break;
  }
  return v;
}

void nx__bits_get(nx_dtype dt, const uint8_t *base, int64_t p, uint8_t *out) {
  int bits = nx_dtype_bits_of(dt);
  if (bits >= 8) memcpy(out, base + p * (bits / 8), (size_t)(bits / 8));
  else /* an atomic load: other threads may store the byte's other elements */
    out[0] = (uint8_t)((__atomic_load_n(base + ((p * bits) >> 3), __ATOMIC_RELAXED) >> ((p * bits) & 7)) &
                       ((1u << bits) - 1));
}

void nx__bits_put(nx_dtype dt, uint8_t *base, int64_t p, const uint8_t *in) {
  int bits = nx_dtype_bits_of(dt);
  if (bits >= 8) {
    memcpy(base + p * (bits / 8), in, (size_t)(bits / 8));
    return;
  }
  /* One atomic compare-and-swap on the byte, so stores other threads make to
     its other elements are kept. */
  uint8_t *byte = base + ((p * bits) >> 3);
  unsigned shift = (unsigned)((p * bits) & 7), mask = ((1u << bits) - 1) << shift;
  uint8_t old = __atomic_load_n(byte, __ATOMIC_RELAXED), want;
  do want = (uint8_t)((old & ~mask) | (((unsigned)in[0] << shift) & mask));
  while (!__atomic_compare_exchange_n(byte, &old, want, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

bool nx__next_index(const nx_layout *l, int64_t *index, int64_t *pos) {
  for (int j = l->rank - 1; j >= 0; j--) {
    if (++index[j] < l->extent[j]) {
      *pos += l->stride[j];
      return true;
    }
    *pos -= l->stride[j] * (index[j] - 1);
    index[j] = 0;
  }
  return false;
}

int nx__array_enter(const char *fn, const nx_array *a, bool write, bool need_host) {
  char t[128];
  nx_buffer *b = a->b;
  nx_claim_answer ans;
  if (nx_rig_claim(1, &b, &write, &ans) != 0) {
    const char *why = ans == NX_CLAIM_DEAD ? "is dead" : ans == NX_CLAIM_HELD_EXCLUSIVE ? "is held exclusive"
                                                                                        : "admits no write";
    if (ans == NX_CLAIM_DEAD)
      return nx__fail(NX_EINVAL, "%s: the buffer of %s is dead (%s)", fn, nx_array_describe(a, t, sizeof t),
                      nx_buffer_dead(b));
    return nx__fail(NX_EINVAL, "%s: the memory of %s %s", fn, nx_array_describe(a, t, sizeof t), why);
  }
  if (need_host && !nx_buffer_host_address(b)) {
    nx_rig_release(1, &b, &write);
    return nx__fail(NX_EINVAL, "%s: the host does not address the memory of %s (on %s)", fn,
                    nx_array_describe(a, t, sizeof t), nx_device_name(nx_buffer_device(b)));
  }
  int s = nx_buffer_wait(b, write ? NX_ACCESS_READ_WRITE : NX_ACCESS_READ);
  if (s) {
    nx_rig_release(1, &b, &write);
    return nx__array_relay(fn, a, s); /* the rig's failure, named for fn */
  }
  return 0;
}

void nx__array_leave(const nx_array *a, bool write) {
  nx_buffer *b = a->b;
  nx_rig_release(1, &b, &write);
}

static int position(const char *fn, const nx_array *a, const int64_t *index, int64_t *p) {
  char t[128];
  if (a->l.rank > 0 && !index) return nx__fail(NX_EINVAL, "%s: the index is NULL", fn);
  /* Every index in range first: an array with no element has no index, and
     only then are the position's terms known to be an element's. */
  for (int j = 0; j < a->l.rank; j++)
    if (index[j] < 0 || index[j] >= a->l.extent[j])
      return nx__fail(NX_EINVAL, "%s: index %lld of axis %d is outside %s", fn, (long long)index[j], j,
                      nx_array_describe(a, t, sizeof t));
  int64_t pos = a->l.offset, term;
  for (int j = 0; j < a->l.rank; j++)
    if (__builtin_mul_overflow(a->l.stride[j], index[j], &term) || __builtin_add_overflow(pos, term, &pos))
      return nx__fail(NX_EINVAL, "%s: the position of the element of %s passes int64", fn,
                      nx_array_describe(a, t, sizeof t));
  *p = pos;
  return 0;
}

int nx_array_get(const nx_array *a, const int64_t *index, nx_value *v) {
  static const char fn[] = "nx_array_get";
  int64_t p;
  uint8_t bits[16];
  if (!a || !v) return nx__fail(NX_EINVAL, "%s: the array or result is NULL", fn);
  int s = position(fn, a, index, &p);
  if (s || (s = nx__array_enter(fn, a, false, true))) return s;
  nx__bits_get(a->dt, nx_buffer_host_address(a->b), p, bits);
  nx__array_leave(a, false);
  *v = nx__bits_value(a->dt, bits);
  return 0;
}

int nx_array_set(nx_array *a, const int64_t *index, nx_value v) {
  static const char fn[] = "nx_array_set";
  char t[128];
  int64_t p;
  uint8_t bits[16];
  if (!a) return nx__fail(NX_EINVAL, "%s: the array is NULL", fn);
  int s = position(fn, a, index, &p);
  if (s) return s;
  if (!nx_dtype_holds(a->dt, v)) {
    int kind = nx_dtype_kind_of(a->dt);
    return nx__fail(NX_EINVAL, kind == NX_KIND_SIGNED ? "%s: %lld is outside the range of %s" : "%s: %llu is outside the range of %s",
                    fn, kind == NX_KIND_SIGNED ? (long long)v.i : (long long)v.u, nx_array_describe(a, t, sizeof t));
  }
  if (!nx_layout_is_distinct(&a->l))
    return nx__fail(NX_EINVAL, "%s: %s reaches an element twice", fn, nx_array_describe(a, t, sizeof t));
  if ((s = nx__array_enter(fn, a, true, true))) return s;
  nx__value_bits(a->dt, v, bits);
  nx__bits_put(a->dt, nx_buffer_host_address(a->b), p, bits);
  nx__array_leave(a, true);
  return 0;
}

int nx_array_to_array(const nx_array *a, nx_value *out, int64_t n) {
  static const char fn[] = "nx_array_to_array";
  char t[128];
  uint8_t bits[16];
  if (!a || (n > 0 && !out)) return nx__fail(NX_EINVAL, "%s: the array or result is NULL", fn);
  int64_t count = nx_layout_count(&a->l);
  if (n != count)
    return nx__fail(NX_EINVAL, "%s: room for %lld values, and %s has %lld", fn, (long long)n,
                    nx_array_describe(a, t, sizeof t), (long long)count);
  /* Claimed with no element too, as nx_array_read is: a dead buffer or one
     held exclusive is refused whatever its count; memory off the host only
     where there are bytes to read. */
  int s = nx__array_enter(fn, a, false, count > 0);
  if (s) return s;
  if (count == 0) {
    nx__array_leave(a, false);
    return 0;
  }
  const uint8_t *base = nx_buffer_host_address(a->b);
  int64_t index[NX_MAX_RANK] = {0}, pos = a->l.offset, k = 0;
  do {
    nx__bits_get(a->dt, base, pos, bits);
    out[k++] = nx__bits_value(a->dt, bits);
  } while (nx__next_index(&a->l, index, &pos));
  nx__array_leave(a, false);
  return 0;
}

int nx_array_of_array(nx_dtype dt, const int64_t *shape, int rank, const nx_value *xs, int64_t n, nx_array **a) {
  static const char fn[] = "nx_array_of_array";
  nx_layout l;
  nx_array *r;
  uint8_t bits[16];
  if (!a || (rank > 0 && !shape)) return nx__fail(NX_EINVAL, "%s: %s is NULL", fn, !a ? "the result a" : "the shape");
  int s = nx_layout_contiguous(shape, rank, &l);
  if (s) return nx__fail_as(fn, s);
  if ((unsigned)dt >= NX_DTYPE_COUNT) return nx__fail(NX_EINVAL, "%s: %d is not a dtype", fn, (int)dt);
  if (n > 0 && !xs) return nx__fail(NX_EINVAL, "%s: the values xs are NULL", fn);
  if (n != nx_layout_count(&l))
    return nx__fail(NX_EINVAL, "%s: %lld values for %s of %lld elements", fn, (long long)n, nx_dtype_name(dt),
                    (long long)nx_layout_count(&l));
  for (int64_t i = 0; i < n; i++)
    if (!nx_dtype_holds(dt, xs[i]))
      return nx__fail(NX_EINVAL,
                      nx_dtype_kind_of(dt) == NX_KIND_SIGNED ? "%s: value %lld at index %lld is outside the range of %s"
                                                             : "%s: value %llu at index %lld is outside the range of %s",
                      fn, nx_dtype_kind_of(dt) == NX_KIND_SIGNED ? (long long)xs[i].i : (long long)xs[i].u,
                      (long long)i, nx_dtype_name(dt));
  if ((s = nx_array_host(dt, shape, rank, &r))) return nx__fail_as(fn, s);
  /* A fresh array no one else holds: its fill is done before it is written. */
  if ((s = nx_buffer_wait(r->b, NX_ACCESS_WRITE))) {
    nx_array_free(r);
    return nx__fail_as(fn, s);
  }
  uint8_t *base = nx_buffer_host_address(r->b);
  for (int64_t i = 0; i < n; i++) {
    nx__value_bits(dt, xs[i], bits);
    nx__bits_put(dt, base, i, bits);
  }
  *a = r;
  return 0;
}
