/* SPDX-License-Identifier: Apache-2.0 */
/* Placement: to_device, transfer and copy, bit for bit on every pair of
   devices. Bytes move through submit_copy where the host does not address
   a memory, and the host gathers or scatters elements through host staging
   where a layout is not one run of bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_internal.h"

static int bits(const nx_array *a) { return nx_dtype_bits_of(a->dt); }

/* The byte span of a's elements: its first byte and its length. */
static void span(const nx_array *a, int64_t *first, int64_t *len) {
  int64_t lo, hi;
  nx_layout_span(&a->l, &lo, &hi);
  *first = (lo * bits(a)) >> 3;
  *len = ((((hi + 1) * bits(a)) - 1) >> 3) - *first + 1;
}

/* A host buffer holding a's span (a's own memory where the host addresses it,
   else a staged copy), with the position shift that places a's layout in it. */
static int stage(const char *fn, const nx_array *a, nx_buffer **h, int64_t *shift) {
  int64_t first, len;
  span(a, &first, &len);
  if (nx_buffer_host_address(a->b)) {
    nx_buffer_retain(a->b);
    *h = a->b;
    *shift = 0;
    return nx_buffer_wait(a->b, NX_ACCESS_READ);
  }
  int s = nx_buffer_create(nx_rig_host(), NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, len, h);
  if (s) {
    *h = NULL;
    return s;
  }
  if (!(s = nx_rig_submit_copy(*h, 0, a->b, first, len))) s = nx_buffer_wait(*h, NX_ACCESS_READ);
  if (s) {
    /* The caller holds no staging on failure. */
    nx_buffer_release(*h);
    *h = NULL;
    return s;
  }
  /* Whole bytes: for a sub-byte array a shift by elements-per-byte steps. */
  *shift = bits(a) < 8 ? first * (8 / bits(a)) : first / (bits(a) / 8);
  (void)fn;
  return 0;
}

/* Where the host addresses both memories it moves the bytes itself, on the
   calling thread, once the work each access must follow is done: the call
   returns once the bytes are there, and a store to src after it returns
   does not reach dst. Only where a device copies do placements return as
   nx_rig_submit_copy does. */
static bool host_both(nx_buffer *dst, nx_buffer *src) {
  return nx_buffer_host_address(dst) && nx_buffer_host_address(src);
}

static int host_copy(nx_buffer *dst, int64_t doff, nx_buffer *src, int64_t soff, int64_t bytes) {
  int s = nx_buffer_wait(src, NX_ACCESS_READ);
  if (!s) s = nx_buffer_wait(dst, NX_ACCESS_READ_WRITE);
  if (!s && bytes > 0)
    memmove((char *)nx_buffer_host_address(dst) + doff, (const char *)nx_buffer_host_address(src) + soff,
            (size_t)bytes);
  return s;
}

/* A copy of bytes: the host's own where it addresses both, else a device's. */
static int place_bytes(nx_buffer *dst, int64_t doff, nx_buffer *src, int64_t soff, int64_t bytes) {
  return host_both(dst, src) ? host_copy(dst, doff, src, soff, bytes) : nx_rig_submit_copy(dst, doff, src, soff, bytes);
}

/* Copies every element of src (over host memory sbase, positions less sshift)
   to dst's position (over dbase, less dshift), in C order of indices. */
static void gather(nx_dtype dt, const nx_layout *sl0, const uint8_t *sbase, int64_t sshift, const nx_layout *dl0,
                   uint8_t *dbase, int64_t dshift) {
  /* An axis of stride 0 in both (a broadcast the copy keeps) reads one
     element and writes one place at every index along it: walked once, so
     that a broadcast of 2^60 indices over a few bytes copies a few bytes. */
  nx_layout sv = *sl0, dv = *dl0;
  const nx_layout *sl = &sv, *dl = &dv;
  for (int j = 0; j < sv.rank; j++)
    if (sv.stride[j] == 0 && dv.stride[j] == 0) sv.extent[j] = dv.extent[j] = 1;
  int64_t si[NX_MAX_RANK] = {0}, di[NX_MAX_RANK] = {0}, ps = sl->offset - sshift, pd = dl->offset - dshift;
  uint8_t b[16];
  do {
    nx__bits_get(dt, sbase, ps, b);
    nx__bits_put(dt, dbase, pd, b);
    nx__next_index(dl, di, &pd);
  } while (nx__next_index(sl, si, &ps));
}

int nx_array_to_device(nx_device *d, const nx_array *a, nx_array **r) {
  static const char fn[] = "nx_array_to_device";
  nx_layout cl;
  nx_buffer *b = NULL, *h = NULL;
  nx_array *out = NULL;
  int64_t shift;
  if (!a || !d || !r) return nx__fail(NX_EINVAL, "%s: an argument is NULL", fn);
  int s = nx_layout_copy(&a->l, bits(a), &cl);
  if (s) return s;
  if ((s = nx__array_enter(fn, a, false, false))) return s;
  int64_t bytes = nx_layout_copy_bytes(&a->l, bits(a));
  if ((s = nx_buffer_create(d, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, bytes, &b))) goto done;
  if ((s = nx_array_v(a->dt, &cl, b, &out))) goto done;
  if (nx__array_empty(a)) goto done;
  int64_t first, len;
  span(a, &first, &len);
  if (len == bytes && cl.offset + (bits(a) < 8 ? first * (8 / bits(a)) : first / (bits(a) / 8)) == a->l.offset) {
    /* The layout shifted: one copy of the span, neighbours' bits with it. */
    s = place_bytes(b, 0, a->b, first, len);
    goto done;
  }
  /* The dense rule: gather on the host, into the copy's memory where the
     host addresses it, else into staging that one copy then places. */
  if ((s = stage(fn, a, &h, &shift))) goto done;
  if (nx_buffer_host_address(b)) {
    /* Zeros first, as the staging below has them: the gather leaves a
       sub-byte copy's bits past its last element as the allocator gave. */
    if (!(s = nx_buffer_wait(b, NX_ACCESS_WRITE))) {
      if (bits(a) < 8) memset(nx_buffer_host_address(b), 0, (size_t)bytes);
      gather(a->dt, &a->l, nx_buffer_host_address(h), shift, &cl, nx_buffer_host_address(b), 0);
    }
  } else {
    nx_buffer *o;
    if (!(s = nx_buffer_create(nx_rig_host(), NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, bytes, &o))) {
      memset(nx_buffer_host_address(o), 0, (size_t)bytes);
      gather(a->dt, &a->l, nx_buffer_host_address(h), shift, &cl, nx_buffer_host_address(o), 0);
      s = nx_rig_submit_copy(b, 0, o, 0, bytes);
      nx_buffer_release(o);
    }
  }
done:
  nx__array_leave(a, false);
  if (h) nx_buffer_release(h);
  if (b) nx_buffer_release(b);
  if (s) {
    nx_array_free(out);
    return nx__array_relay(fn, a, s); /* the rig's failures, named for fn */
  }
  *r = out;
  return 0;
}

/* The runs of a layout: the innermost axis when its stride is 1 (or its
   extent 1), else single elements. */
static int64_t run_length(const nx_layout *l) {
  if (l->rank == 0) return 1;
  return l->stride[l->rank - 1] == 1 || l->extent[l->rank - 1] == 1 ? l->extent[l->rank - 1] : 1;
}

int nx_array_transfer(const nx_array *src, nx_array *dst) {
  static const char fn[] = "nx_array_transfer";
  char t[128], u[128];
  if (!src || !dst) return nx__fail(NX_EINVAL, "%s: an array is NULL", fn);
  bool same = src->dt == dst->dt && src->l.rank == dst->l.rank;
  for (int j = 0; same && j < src->l.rank; j++) same = src->l.extent[j] == dst->l.extent[j];
  if (!same)
    return nx__fail(NX_EINVAL, "%s: %s into %s: the dtypes or shapes differ", fn, nx_array_describe(src, t, sizeof t),
                    nx_array_describe(dst, u, sizeof u));
  /* Dead first: freed storage is no longer host-addressed and no longer
     meets other pages, which the checks below would report instead. A
     death after this the claims answer. */
  for (int k = 0; k < 2; k++) {
    const nx_array *x = k ? src : dst;
    const char *why = nx_buffer_dead(x->b);
    if (why) return nx__fail(NX_EINVAL, "%s: the memory of %s is dead (%s)", fn, nx_array_describe(x, t, sizeof t), why);
  }
  if (!nx_layout_is_distinct(&dst->l))
    return nx__fail(NX_EINVAL, "%s: %s reaches an element twice", fn, nx_array_describe(dst, u, sizeof u));
  if (bits(dst) < 8 && !nx_buffer_host_address(dst->b) && !nx__array_empty(dst))
    return nx__fail(NX_EINVAL, "%s: %s is narrower than a byte and the host does not address its memory", fn,
                    nx_array_describe(dst, u, sizeof u));
  bool identical;
  if (nx__arrays_share(dst, src, &identical) && !identical)
    return nx__fail(NX_EINVAL, "%s: %s shares a byte with %s without being identical to it", fn,
                    nx_array_describe(dst, u, sizeof u), nx_array_describe(src, t, sizeof t));
  nx_buffer *bs[2] = {dst->b, src->b};
  bool w[2] = {true, false};
  nx_claim_answer ans[2];
  if (nx_rig_claim(2, bs, w, ans) != 0) {
    int k = ans[0] != NX_CLAIMED ? 0 : 1;
    const nx_array *x = k ? src : dst;
    const char *why = ans[k] == NX_CLAIM_DEAD ? "is dead" : ans[k] == NX_CLAIM_HELD_EXCLUSIVE ? "is held exclusive"
                                                                                            : "admits no write";
    return nx__fail(NX_EINVAL, "%s: the memory of %s %s", fn, nx_array_describe(x, t, sizeof t), why);
  }
  int s = 0;
  nx_buffer *h = NULL;
  int64_t shift;
  if (nx__array_empty(dst) || identical) goto done;
  if (nx_layout_is_contiguous(&src->l) && nx_layout_is_contiguous(&dst->l) && bits(dst) >= 8) {
    /* One run of bytes each: one copy. */
    int64_t wb = bits(dst) / 8, n = nx_layout_count(&dst->l);
    s = place_bytes(dst->b, dst->l.offset * wb, src->b, src->l.offset * wb, n * wb);
    goto done;
  }
  if ((s = stage(fn, src, &h, &shift))) goto done;
  if (nx_buffer_host_address(dst->b)) {
    if (!(s = nx_buffer_wait(dst->b, NX_ACCESS_READ_WRITE)))
      gather(src->dt, &src->l, nx_buffer_host_address(h), shift, &dst->l, nx_buffer_host_address(dst->b), 0);
    goto done;
  }
  /* dst's memory is the device's: gather into staging in dst's C order, then
     copy each run of dst's bytes, and nothing between them. */
  {
    int64_t n = nx_layout_count(&dst->l), wb = bits(dst) / 8, run = run_length(&dst->l);
    nx_buffer *o;
    nx_layout dense;
    if ((s = nx_buffer_create(nx_rig_host(), NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, n * wb, &o))) goto done;
    nx_layout_contiguous(dst->l.extent, dst->l.rank, &dense);
    gather(src->dt, &src->l, nx_buffer_host_address(h), shift, &dense, nx_buffer_host_address(o), 0);
    int64_t index[NX_MAX_RANK] = {0}, pos = dst->l.offset;
    nx_layout outer = dst->l;
    if (run > 1) outer.extent[outer.rank - 1] = 1; /* one step per run */
    int64_t k = 0;
    do {
      if (!s) s = nx_rig_submit_copy(dst->b, pos * wb, o, k * wb, run * wb);
      k += run;
    } while (nx__next_index(&outer, index, &pos));
    nx_buffer_release(o);
  }
done:
  nx_rig_release(2, bs, w);
  if (h) nx_buffer_release(h);
  return s ? nx__array_relay2(fn, src, dst, s) : 0; /* the rig's failures, named for fn */
}

int nx_array_copy(const nx_array *a, nx_array **r) {
  nx_array *out;
  if (!a || !r) return nx__fail(NX_EINVAL, "nx_array_copy: an argument is NULL");
  int s = nx_array_create(nx_array_device(a), NX_MEMORY_DEVICE, a->dt, a->l.extent, a->l.rank, &out);
  if (s) return nx__array_relay("nx_array_copy", NULL, s);
  if ((s = nx_array_transfer(a, out))) {
    nx_array_free(out);
    return nx__array_relay("nx_array_copy", NULL, s);
  }
  *r = out;
  return 0;
}
