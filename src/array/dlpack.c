/* SPDX-License-Identifier: Apache-2.0 */
/* DLPack 1.x exchange: the C form of seed 000's bigarray (export) and
   of_bigarray (import), without a copy except for bit, which DLPack has no
   code for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_internal.h"
#include "../base/alloc.h"

/* nx dtypes and DLPack codes, both ways. bit has none (exported as bool). */
static const struct {
  nx_dtype dt;
  uint8_t code, bits;
} codes[] = {
    {NX_FLOAT64, kDLFloat, 64},
    {NX_FLOAT32, kDLFloat, 32},
    {NX_FLOAT16, kDLFloat, 16},
    {NX_BFLOAT16, kDLBfloat, 16},
    {NX_FLOAT8_E4M3FN, kDLFloat8_e4m3fn, 8},
    {NX_FLOAT8_E5M2, kDLFloat8_e5m2, 8},
    {NX_FLOAT4_E2M1FN, kDLFloat4_e2m1fn, 4},
    {NX_INT64, kDLInt, 64},
    {NX_UINT64, kDLUInt, 64},
    {NX_INT32, kDLInt, 32},
    {NX_UINT32, kDLUInt, 32},
    {NX_INT16, kDLInt, 16},
    {NX_UINT16, kDLUInt, 16},
    {NX_INT8, kDLInt, 8},
    {NX_UINT8, kDLUInt, 8},
    {NX_INT4, kDLInt, 4},
    {NX_UINT4, kDLUInt, 4},
    {NX_COMPLEX128, kDLComplex, 128},
    {NX_COMPLEX64, kDLComplex, 64},
    {NX_BOOL, kDLBool, 8},
};
#define NCODES ((int)(sizeof codes / sizeof codes[0]))

static DLDataType code_of(nx_dtype dt) {
  DLDataType t = {kDLBool, 8, 1}; /* bit: its bool copy */
  for (int i = 0; i < NCODES; i++)
    if (codes[i].dt == dt) t.code = codes[i].code, t.bits = codes[i].bits;
  return t;
}

/* ---- Export ------------------------------------------------------------ */

/* A tensor nx exported: the tensor first (manager_ctx points here), the
   buffer it references and claims for reading (NULL for a copy), a bit
   array's bool copy, then the shape and the strides. */
typedef struct exported {
  struct DLManagedTensorVersioned t;
  nx_buffer *b;
  void *copy;
  int64_t dims[];
} exported;

static void export_deleter(struct DLManagedTensorVersioned *t) {
  if (!t) return;
  exported *e = t->manager_ctx;
  if (e->b) {
    bool w = false;
    nx_rig_release(1, &e->b, &w);
    nx_buffer_release(e->b);
  }
  nx__free(e->copy);
  nx__free(e);
}

/* A bit array's elements as bool bytes in C order, claimed and waited for
   reading while they are copied. */
static int copy_bits(const char *fn, const nx_array *a, exported *e) {
  int64_t n = nx_layout_count(&a->l);
  if (!(e->copy = nx__malloc((size_t)(n > 0 ? n : 1)))) return nx__fail(NX_ENOMEM, "%s: no memory for a copy", fn);
  int s = nx__array_enter(fn, a, false, n > 0);
  if (s) return s;
  if (n > 0) {
    const uint8_t *base = nx_buffer_host_address(a->b);
    uint8_t *out = e->copy;
    int64_t index[NX_MAX_RANK] = {0}, pos = a->l.offset, k = 0;
    do nx__bits_get(NX_BIT, base, pos, &out[k++]);
    while (nx__next_index(&a->l, index, &pos));
  }
  nx__array_leave(a, false);
  nx_layout c;
  if ((s = nx_layout_contiguous(a->l.extent, a->l.rank, &c))) return s;
  memcpy(e->dims + a->l.rank, c.stride, sizeof(int64_t) * (size_t)a->l.rank);
  e->t.dl_tensor.data = n > 0 ? e->copy : NULL;
  e->t.flags = DLPACK_FLAG_BITMASK_IS_COPIED;
  return 0;
}

/* a's own memory, claimed for reading until the deleter runs and exported. */
static int share(const char *fn, const nx_array *a, exported *e) {
  char t[128];
  nx_buffer *b = a->b;
  bool w = false, empty = nx__array_empty(a);
  nx_claim_answer ans;
  if (nx_rig_claim(1, &b, &w, &ans) != 0) {
    if (ans == NX_CLAIM_DEAD)
      return nx__fail(NX_EINVAL, "%s: the buffer of %s is dead (%s)", fn, nx_array_describe(a, t, sizeof t),
                      nx_buffer_dead(b));
    return nx__fail(NX_EINVAL, "%s: the memory of %s is held exclusive", fn, nx_array_describe(a, t, sizeof t));
  }
  int s = 0;
  void *host = nx_buffer_host_address(b);
  if (!empty && !host)
    s = nx__fail(NX_EINVAL, "%s: the host does not address the memory of %s (on %s)", fn,
                 nx_array_describe(a, t, sizeof t), nx_device_name(nx_buffer_device(b)));
  else if ((s = nx_buffer_export(b))) s = nx__array_relay(fn, a, s);
  if (s) {
    nx_rig_release(1, &b, &w);
    return s;
  }
  nx_buffer_retain(b);
  e->b = b;
  memcpy(e->dims + a->l.rank, a->l.stride, sizeof(int64_t) * (size_t)a->l.rank);
  /* DLPack: data NULL for a tensor of size 0. */
  e->t.dl_tensor.data = empty ? NULL : host;
  e->t.dl_tensor.byte_offset = empty ? 0 : (uint64_t)(a->l.offset * nx_dtype_bits_of(a->dt) / 8);
  e->t.flags = nx_buffer_access(b) & NX_ACCESS_WRITE ? 0 : DLPACK_FLAG_BITMASK_READ_ONLY;
  return 0;
}

int nx_array_to_dlpack(const nx_array *a, struct DLManagedTensorVersioned **out) {
  static const char fn[] = "nx_array_to_dlpack";
  char t[128];
  if (!a || !out) return nx__fail(NX_EINVAL, "%s: the array or the result is NULL", fn);
  int rank = a->l.rank, bits = nx_dtype_bits_of(a->dt);
  if (a->dt != NX_BIT && bits < 8 && !nx__array_empty(a) &&
      (!nx_layout_is_contiguous(&a->l) || (a->l.offset * bits) % 8 != 0))
    return nx__fail(NX_EINVAL,
                    "%s: %s is not C-contiguous from a whole byte, as DLPack's packing of %d-bit elements needs", fn,
                    nx_array_describe(a, t, sizeof t), bits);
  exported *e = nx__calloc(1, sizeof *e + 2 * sizeof(int64_t) * (size_t)rank);
  if (!e) return nx__fail(NX_ENOMEM, "%s: no memory for a tensor", fn);
  int s = a->dt == NX_BIT ? copy_bits(fn, a, e) : share(fn, a, e);
  if (s) {
    nx__free(e->copy);
    nx__free(e);
    return s;
  }
  memcpy(e->dims, a->l.extent, sizeof(int64_t) * (size_t)rank);
  e->t.version.major = DLPACK_MAJOR_VERSION;
  e->t.version.minor = DLPACK_MINOR_VERSION;
  e->t.manager_ctx = e;
  e->t.deleter = export_deleter;
  e->t.dl_tensor.device.device_type = kDLCPU;
  e->t.dl_tensor.device.device_id = 0;
  e->t.dl_tensor.ndim = rank;
  e->t.dl_tensor.dtype = code_of(a->dt);
  e->t.dl_tensor.shape = e->dims;
  e->t.dl_tensor.strides = e->dims + rank;
  *out = &e->t;
  return 0;
}

/* ---- Import ------------------------------------------------------------ */

/* The wrapped memory's release: the producer's deleter, once. */
static void import_release(void *ctx) {
  struct DLManagedTensorVersioned *t = ctx;
  if (t->deleter) t->deleter(t);
}

/* A refusal: the tensor is taken, so its deleter runs before the status
   returns. */
static int refuse(struct DLManagedTensorVersioned *t, int status) {
  import_release(t);
  return status;
}

/* The message of a failure below, named as fn's: "fn: " before it, in
   place of its own prefix `strip` where it has that. */
static int renamed(const char *fn, int status, const char *strip) {
  char msg[1024];
  const char *m = nx_error_message();
  size_t n = strip ? strlen(strip) : 0;
  snprintf(msg, sizeof msg, "%s", n && strncmp(m, strip, n) == 0 ? m + n : m);
  return nx__fail(status, "%s: %s", fn, msg);
}

static int64_t floor_div8(int64_t x) { return x >= 0 ? x / 8 : -((-x + 7) / 8); }

int nx_array_from_dlpack(struct DLManagedTensorVersioned *t, nx_array **out) {
  static const char fn[] = "nx_array_from_dlpack";
  if (!t) return nx__fail(NX_EINVAL, "%s: the tensor is NULL", fn);
  if (!out) return refuse(t, nx__fail(NX_EINVAL, "%s: the result is NULL", fn));
  if (t->version.major != DLPACK_MAJOR_VERSION)
    return refuse(t, nx__fail(NX_EINVAL, "%s: DLPack version %u.%u, and nx reads major version %d", fn,
                              (unsigned)t->version.major, (unsigned)t->version.minor, DLPACK_MAJOR_VERSION));
  const DLTensor *x = &t->dl_tensor;
  int dev = (int)x->device.device_type;
  if (dev != kDLCPU && dev != kDLCUDAHost && dev != kDLROCMHost && dev != kDLCUDAManaged)
    return refuse(t, nx__fail(NX_EINVAL, "%s: device type %d is not memory the host addresses", fn, dev));
  int found = -1;
  for (int i = 0; i < NCODES && found < 0; i++)
    if (codes[i].code == x->dtype.code && codes[i].bits == x->dtype.bits) found = i;
  if (found < 0 || x->dtype.lanes != 1)
    return refuse(t, nx__fail(NX_EINVAL, "%s: DLPack dtype code %u of %u bits and %u lanes is no nx dtype", fn,
                              (unsigned)x->dtype.code, (unsigned)x->dtype.bits, (unsigned)x->dtype.lanes));
  nx_dtype dt = codes[found].dt;
  int bits = codes[found].bits;
  if (bits < 8 && (t->flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED))
    return refuse(t, nx__fail(NX_EINVAL, "%s: a %s tensor padded to a byte per element; nx packs them", fn,
                              nx_dtype_name(dt)));
  if (x->ndim < 0 || x->ndim > NX_MAX_RANK)
    return refuse(t, nx__fail(NX_EINVAL, "%s: %d dimensions, and nx arrays have 0 to %d", fn, (int)x->ndim,
                              NX_MAX_RANK));
  if (x->ndim > 0 && !x->shape) return refuse(t, nx__fail(NX_EINVAL, "%s: the shape is NULL", fn));
  for (int j = 0; j < x->ndim; j++)
    if (x->shape[j] < 0)
      return refuse(t, nx__fail(NX_EINVAL, "%s: extent %lld of axis %d is negative", fn, (long long)x->shape[j], j));
  /* Positions from data + byte_offset, DLPack's pointer to the data: the
     offset need not be whole elements (an aligned element past an
     allocation's start), only that element's address aligned. */
  nx_layout l;
  int s = nx_layout_make(x->ndim, x->shape, x->strides, 0, &l);
  if (s) return refuse(t, renamed(fn, s, NULL));
  /* The buffer: the bytes from the first the elements reach to the last. */
  void *base = NULL;
  int64_t lo, hi, bytes = 0;
  if ((s = nx_layout_bits(&l, bits, &lo, &hi)) < 0) return refuse(t, renamed(fn, s, NULL));
  if (s == 0) {
    if (hi > INT64_MAX - 7) return refuse(t, nx__fail(NX_EINVAL, "%s: the tensor reaches past 2^63 bits", fn));
    if (!x->data) return refuse(t, nx__fail(NX_EINVAL, "%s: NULL data for a tensor with an element", fn));
    uintptr_t at = (uintptr_t)x->data; /* integers, not pointers: no arithmetic outside an object */
    if (x->byte_offset > UINTPTR_MAX - at)
      return refuse(t, nx__fail(NX_EINVAL, "%s: a byte_offset of %llu from address %p passes the address space", fn,
                                (unsigned long long)x->byte_offset, x->data));
    at += (uintptr_t)x->byte_offset;
    int64_t first = floor_div8(lo), end = floor_div8(hi + 7);
    if ((first < 0 && (uintptr_t)-first > at) || (end > 0 && (uintptr_t)end > UINTPTR_MAX - at))
      return refuse(t, nx__fail(NX_EINVAL, "%s: the elements of a %s tensor at address %p lie %s the address space", fn,
                                nx_dtype_name(dt), (void *)at, first < 0 && (uintptr_t)-first > at ? "below" : "past"));
    /* The first element's address on its dtype's alignment, as nx_array_v
       checks it: its width, one component's for complex, a byte below 8. */
    int64_t al = nx_dtype_kind_of(dt) == NX_KIND_COMPLEX ? bits / 16 : bits >= 8 ? bits / 8 : 1;
    if (at % (uintptr_t)al)
      return refuse(t, nx__fail(NX_EINVAL, "%s: the first element of a %s tensor, at address %p, is not aligned to "
                                "%lld bytes", fn, nx_dtype_name(dt), (void *)at, (long long)al));
    base = (void *)(at + (uintptr_t)first);
    bytes = end - first;
    l.offset -= first * 8 / bits;
  } else {
    l.offset = 0; /* no element: the offset reaches nothing */
  }
  nx_buffer *b;
  nx_access access = t->flags & DLPACK_FLAG_BITMASK_READ_ONLY ? NX_ACCESS_READ : NX_ACCESS_READ_WRITE;
  if ((s = nx_buffer_wrap_host(base, bytes, access, import_release, t, &b))) return refuse(t, renamed(fn, s, NULL));
  /* From here the buffer owns t: its release calls the deleter. */
  if ((s = nx_array_v(dt, &l, b, out))) renamed(fn, s, "nx_array_v: ");
  nx_buffer_release(b);
  return s;
}
