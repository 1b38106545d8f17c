/* SPDX-License-Identifier: Apache-2.0 */
/* DLPack exchange (nx_array_to_dlpack, nx_array_from_dlpack): the round trip
   of every dtype without a copy, the codes and packing DLPack defines, the
   read-only flag, bit as a bool copy, the deleter called exactly once (and
   only it, for a major version nx does not read), the memory kept while a
   consumer holds it, and every refusal with its message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "nx_array.h"
#include "rig_test.h" /* test devices: the test variant of the library */

static bool says(const char *part) { return strstr(nx_error_message(), part) != NULL; }

/* ---- A counting deleter ------------------------------------------------ */

/* Tensors made here carry a counter in manager_ctx; those nx exports get
   their deleter wrapped so the counter sees it run. */
typedef struct counted {
  int calls;
  void (*inner)(struct DLManagedTensorVersioned *);
  void *inner_ctx;
} counted;

static counted *wrapped_of(struct DLManagedTensorVersioned *t);
static counted wraps[64];
static struct DLManagedTensorVersioned *wrap_t[64];
static int nwraps;

static void counting_deleter(struct DLManagedTensorVersioned *t) {
  counted *c = wrapped_of(t);
  c->calls++;
  if (c->inner) {
    t->manager_ctx = c->inner_ctx;
    t->deleter = c->inner;
    c->inner(t);
  }
}

static counted *wrapped_of(struct DLManagedTensorVersioned *t) {
  for (int i = 0; i < nwraps; i++)
    if (wrap_t[i] == t) return &wraps[i];
  return NULL;
}

/* Wraps t's deleter: the counter's calls count how often it runs. */
static counted *count_deleter(struct DLManagedTensorVersioned *t) {
  counted *c = wrapped_of(t);
  if (!c) {
    if (nwraps == 64) abort();
    wrap_t[nwraps] = t;
    c = &wraps[nwraps++];
  }
  c->calls = 0;
  c->inner = t->deleter;
  c->inner_ctx = t->manager_ctx;
  t->deleter = counting_deleter;
  return c;
}

/* A tensor made by hand over data: its own deleter only counts (no inner). */
typedef struct hand {
  struct DLManagedTensorVersioned t;
  int64_t shape[40], strides[40];
  counted *c;
} hand;

static void hand_init(hand *h, void *data, DLDataType dt, int ndim, const int64_t *shape, const int64_t *strides) {
  memset(h, 0, sizeof *h);
  h->t.version.major = DLPACK_MAJOR_VERSION;
  h->t.version.minor = DLPACK_MINOR_VERSION;
  h->t.dl_tensor.data = data;
  h->t.dl_tensor.device.device_type = kDLCPU;
  h->t.dl_tensor.ndim = ndim;
  h->t.dl_tensor.dtype = dt;
  if (shape) memcpy(h->shape, shape, sizeof(int64_t) * (size_t)(ndim > 0 && ndim <= 40 ? ndim : 0));
  h->t.dl_tensor.shape = h->shape;
  if (strides) {
    memcpy(h->strides, strides, sizeof(int64_t) * (size_t)(ndim > 0 && ndim <= 40 ? ndim : 0));
    h->t.dl_tensor.strides = h->strides;
  }
  h->t.deleter = NULL;
  h->c = count_deleter(&h->t);
}

/* ---- Element bits, independent of the library -------------------------- */

static void bits_at(nx_dtype dt, const uint8_t *base, int64_t p, uint8_t *out) {
  int bits = nx_dtype_bits_of(dt);
  memset(out, 0, 16);
  if (bits >= 8) memcpy(out, base + p * (bits / 8), (size_t)(bits / 8));
  else out[0] = (uint8_t)((base[(p * bits) >> 3] >> ((p * bits) & 7)) & ((1u << bits) - 1));
}

typedef struct view {
  const uint8_t *base;
  nx_dtype dt;
  nx_layout l;
} view;

static int grab(void *ctx, const void *base, nx_dtype dt, const nx_layout *l) {
  view *v = ctx;
  v->base = base;
  v->dt = dt;
  v->l = *l;
  return 0;
}

/* Element k in C order of the array seen through v. */
static int64_t pos_of(const nx_layout *l, int64_t k) {
  int64_t p = l->offset;
  for (int j = l->rank - 1; j >= 0; j--) {
    int64_t e = l->extent[j] ? l->extent[j] : 1;
    p += (k % e) * l->stride[j];
    k /= e;
  }
  return p;
}

static uint64_t seed = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) {
  seed ^= seed >> 12;
  seed ^= seed << 25;
  seed ^= seed >> 27;
  return seed * 0x2545F4914F6CDD1DULL;
}

static int fill_random(void *ctx, void *base, nx_dtype dt, const nx_layout *l) {
  (void)dt;
  (void)l;
  int64_t n = *(int64_t *)ctx;
  for (int64_t i = 0; i < n; i++) ((uint8_t *)base)[i] = (uint8_t)rnd();
  return 0;
}

static nx_array *random_array(nx_dtype dt, const int64_t *shape, int rank) {
  nx_array *a = NULL;
  int s = nx_array_host(dt, shape, rank, &a);
  CHECK(s == 0, "nx_array_host(%s): %s", nx_dtype_name(dt), nx_error_message());
  if (!a) return NULL;
  int64_t n = nx_buffer_bytes(nx_array_buffer(a));
  CHECK(nx_array_write(a, fill_random, &n) == 0, "fill: %s", nx_error_message());
  return a;
}

/* ---- The round trip of every dtype ------------------------------------- */

static const struct {
  nx_dtype dt;
  uint8_t code, bits;
} want_codes[NX_DTYPE_COUNT] = {
    {NX_FLOAT64, kDLFloat, 64},   {NX_FLOAT32, kDLFloat, 32},       {NX_FLOAT16, kDLFloat, 16},
    {NX_BFLOAT16, kDLBfloat, 16}, {NX_FLOAT8_E4M3FN, 10, 8},        {NX_FLOAT8_E5M2, 12, 8},
    {NX_FLOAT4_E2M1FN, 17, 4},    {NX_INT64, kDLInt, 64},           {NX_UINT64, kDLUInt, 64},
    {NX_INT32, kDLInt, 32},       {NX_UINT32, kDLUInt, 32},         {NX_INT16, kDLInt, 16},
    {NX_UINT16, kDLUInt, 16},     {NX_INT8, kDLInt, 8},             {NX_UINT8, kDLUInt, 8},
    {NX_INT4, kDLInt, 4},         {NX_UINT4, kDLUInt, 4},           {NX_COMPLEX128, kDLComplex, 128},
    {NX_COMPLEX64, kDLComplex, 64}, {NX_BOOL, kDLBool, 8},          {NX_BIT, kDLBool, 8},
};

static void test_round_trip(void) {
  const int64_t shape[3] = {3, 4, 5};
  for (int i = 0; i < NX_DTYPE_COUNT; i++) {
    nx_dtype dt = want_codes[i].dt;
    const char *name = nx_dtype_name(dt);
    nx_array *a = random_array(dt, shape, 3);
    if (!a) continue;
    int refs = nx_buffer_refcount(nx_array_buffer(a));
    struct DLManagedTensorVersioned *t = NULL;
    int s = nx_array_to_dlpack(a, &t);
    CHECK(s == 0 && t, "%s: nx_array_to_dlpack: %s", name, nx_error_message());
    if (!t) {
      nx_array_free(a);
      continue;
    }
    DLTensor *x = &t->dl_tensor;
    CHECK(t->version.major == DLPACK_MAJOR_VERSION && t->version.minor == DLPACK_MINOR_VERSION, "%s: version %u.%u",
          name, t->version.major, t->version.minor);
    CHECK(x->device.device_type == kDLCPU && x->device.device_id == 0, "%s: device %d:%d", name,
          (int)x->device.device_type, (int)x->device.device_id);
    CHECK(x->dtype.code == want_codes[i].code && x->dtype.bits == want_codes[i].bits && x->dtype.lanes == 1,
          "%s: DLPack dtype %u/%u/%u", name, x->dtype.code, x->dtype.bits, x->dtype.lanes);
    CHECK(x->ndim == 3 && x->shape[0] == 3 && x->shape[1] == 4 && x->shape[2] == 5, "%s: shape", name);
    CHECK(x->strides && x->strides[0] == 20 && x->strides[1] == 5 && x->strides[2] == 1, "%s: strides", name);
    CHECK(x->byte_offset == 0, "%s: byte_offset %llu", name, (unsigned long long)x->byte_offset);
    view va;
    CHECK(nx_array_read(a, grab, &va) == 0, "%s: read", name);
    if (dt == NX_BIT) {
      CHECK(t->flags == DLPACK_FLAG_BITMASK_IS_COPIED, "bit: flags %llx", (unsigned long long)t->flags);
      CHECK(x->data && x->data != va.base, "bit: not a copy");
      CHECK(nx_buffer_refcount(nx_array_buffer(a)) == refs, "bit: the copy holds a buffer reference");
      /* Not exported: a donation can still hold the memory. */
      CHECK(nx_buffer_hold_exclusive(nx_array_buffer(a)) == 0, "bit: the copy exported the memory: %s",
            nx_error_message());
      nx_buffer_unhold(nx_array_buffer(a));
      int bad = 0;
      for (int64_t k = 0; k < 60; k++) {
        uint8_t e[16];
        bits_at(NX_BIT, va.base, pos_of(&va.l, k), e);
        bad += ((const uint8_t *)x->data)[k] != e[0];
      }
      CHECK(bad == 0, "bit: %d bool bytes differ from the bits", bad);
    } else {
      CHECK(t->flags == 0, "%s: flags %llx", name, (unsigned long long)t->flags);
      CHECK(x->data == va.base, "%s: data %p is not the buffer's %p", name, x->data, (const void *)va.base);
      CHECK(nx_buffer_refcount(nx_array_buffer(a)) == refs + 1, "%s: the tensor holds no buffer reference", name);
      CHECK(nx_buffer_hold_exclusive(nx_array_buffer(a)) == NX_EINVAL && says("exported"),
            "%s: exported memory could be held exclusive (%s)", name, nx_error_message());
    }
    void *data = x->data;
    counted *c = count_deleter(t);
    nx_array *b = NULL;
    s = nx_array_from_dlpack(t, &b);
    CHECK(s == 0 && b, "%s: nx_array_from_dlpack: %s", name, nx_error_message());
    CHECK(c->calls == 0, "%s: deleter ran on import", name);
    if (b) {
      nx_dtype bd = dt == NX_BIT ? NX_BOOL : dt;
      CHECK(nx_array_dtype(b) == bd, "%s: imported as %s", name, nx_dtype_name(nx_array_dtype(b)));
      CHECK(nx_array_device(b) == nx_rig_host() && nx_buffer_kind(nx_array_buffer(b)) == NX_MEMORY_HOST &&
                nx_buffer_access(nx_array_buffer(b)) == NX_ACCESS_READ_WRITE,
            "%s: imported buffer's device, kind or access", name);
      view vb;
      CHECK(nx_array_read(b, grab, &vb) == 0, "%s: read of the import: %s", name, nx_error_message());
      CHECK(vb.base + nx_dtype_bits_of(bd) * vb.l.offset / 8 == data, "%s: import copied (first element at %p, not %p)",
            name, (const void *)(vb.base + nx_dtype_bits_of(bd) * vb.l.offset / 8), data);
      int bad = 0;
      for (int64_t k = 0; k < 60; k++) {
        uint8_t e[16], f[16];
        bits_at(dt, va.base, pos_of(&va.l, k), e);
        bits_at(bd, vb.base, pos_of(&vb.l, k), f);
        if (dt == NX_BIT) bad += f[0] != e[0];
        else bad += memcmp(e, f, 16) != 0;
      }
      CHECK(bad == 0, "%s: %d elements differ after the round trip", name, bad);
      /* A view of the import keeps the memory: the deleter waits for it. */
      nx_move m;
      nx_array *v = NULL;
      CHECK(nx_move_flip(&m, (int[]){0}, 1) == 0 && nx_array_move(&m, b, &v) == 0, "%s: flip: %s", name,
            nx_error_message());
      nx_array_free(b);
      CHECK(c->calls == 0, "%s: deleter ran while a view lived", name);
      nx_array_free(v);
    }
    CHECK(c->calls == 1, "%s: the deleter ran %d times", name, c->calls);
    CHECK(nx_buffer_refcount(nx_array_buffer(a)) == refs, "%s: the deleter left %d references, not %d", name,
          nx_buffer_refcount(nx_array_buffer(a)), refs);
    nx_array_free(a);
  }
}

/* The deleter of an exported tensor, called directly, gives everything back;
   a consumer can outlive nx_buffer_free of the producer's buffer. */
static void test_export_lifetime(void) {
  nx_array *a = random_array(NX_FLOAT64, (int64_t[]){100}, 1);
  if (!a) return;
  struct DLManagedTensorVersioned *t = NULL;
  CHECK(nx_array_to_dlpack(a, &t) == 0, "export: %s", nx_error_message());
  if (!t) return;
  double first;
  memcpy(&first, t->dl_tensor.data, 8);
  CHECK(nx_buffer_free(nx_array_buffer(a)) == 0, "free of exported memory: %s", nx_error_message());
  double again;
  memcpy(&again, t->dl_tensor.data, 8); /* still there: ASan would see a use after free */
  CHECK(memcmp(&first, &again, 8) == 0, "the bytes changed after free");
  ((double *)t->dl_tensor.data)[99] = 1.0;
  nx_array_free(a); /* the tensor holds the last reference */
  t->deleter(t);
  /* Two exports of one array: each its own tensor; the memory exported once
     for good. */
  a = random_array(NX_INT32, (int64_t[]){4, 4}, 2);
  struct DLManagedTensorVersioned *t1 = NULL, *t2 = NULL;
  CHECK(nx_array_to_dlpack(a, &t1) == 0 && nx_array_to_dlpack(a, &t2) == 0, "two exports: %s", nx_error_message());
  if (t1 && t2) {
    CHECK(t1 != t2 && t1->dl_tensor.data == t2->dl_tensor.data && t1->dl_tensor.shape != t2->dl_tensor.shape,
          "two exports share a tensor or differ in data");
    t1->deleter(t1);
    t2->deleter(t2);
  }
  CHECK(nx_buffer_refcount(nx_array_buffer(a)) == 1, "references left: %d", nx_buffer_refcount(nx_array_buffer(a)));
  CHECK(nx_buffer_hold_exclusive(nx_array_buffer(a)) == NX_EINVAL, "memory exported once is never held exclusive");
  nx_array_free(a);
}

/* Views: offsets in bytes, strides in elements, negative ones included. */
static void test_export_views(void) {
  nx_array *a = random_array(NX_INT16, (int64_t[]){4, 6}, 2);
  if (!a) return;
  nx_move m;
  nx_array *v = NULL;
  CHECK(nx_move_slice(&m, (int64_t[]){1, NX_SLICE_NONE}, (int64_t[]){3, NX_SLICE_NONE}, (int64_t[]){1, -2}, 2) == 0 &&
            nx_array_move(&m, a, &v) == 0,
        "slice: %s", nx_error_message());
  if (!v) return;
  struct DLManagedTensorVersioned *t = NULL;
  CHECK(nx_array_to_dlpack(v, &t) == 0, "export of a view: %s", nx_error_message());
  if (t) {
    const nx_layout *l = nx_array_layout(v);
    DLTensor *x = &t->dl_tensor;
    CHECK(x->shape[0] == 2 && x->shape[1] == 3 && x->strides[0] == 6 && x->strides[1] == -2,
          "view shape/strides %lld %lld / %lld %lld", (long long)x->shape[0], (long long)x->shape[1],
          (long long)x->strides[0], (long long)x->strides[1]);
    CHECK(x->byte_offset == (uint64_t)(2 * l->offset) && l->offset == 11, "byte_offset %llu for offset %lld",
          (unsigned long long)x->byte_offset, (long long)l->offset);
    nx_array *b = NULL;
    counted *c = count_deleter(t);
    CHECK(nx_array_from_dlpack(t, &b) == 0, "import of a view: %s", nx_error_message());
    if (b) {
      int bad = 0;
      for (int64_t i = 0; i < 2; i++)
        for (int64_t j = 0; j < 3; j++) {
          nx_value p, q;
          nx_array_get(v, (int64_t[]){i, j}, &p);
          nx_array_get(b, (int64_t[]){i, j}, &q);
          bad += p.i != q.i;
        }
      CHECK(bad == 0, "view import: %d elements differ", bad);
      /* The import's buffer covers only the bytes the view reaches. */
      CHECK(nx_buffer_bytes(nx_array_buffer(b)) == 2 * (6 + 4 + 1), "import buffer of %lld bytes",
            (long long)nx_buffer_bytes(nx_array_buffer(b)));
      /* Writes through the import show in the original: one memory. */
      CHECK(nx_array_set(b, (int64_t[]){1, 2}, (nx_value){.i = -77}) == 0, "set: %s", nx_error_message());
      nx_value p;
      CHECK(nx_array_get(a, (int64_t[]){2, 1}, &p) == 0 && p.i == -77, "the write did not reach a: %lld",
            (long long)p.i);
      nx_array_free(b);
    }
    CHECK(c->calls == 1, "view: deleter %d times", c->calls);
  }
  nx_array_free(v);
  nx_array_free(a);
}

static void test_read_only(void) {
  nx_buffer *buf = NULL;
  nx_array *a = NULL;
  nx_layout l;
  CHECK(nx_buffer_create(nx_rig_host(), NX_MEMORY_HOST, NX_ACCESS_READ, 32, &buf) == 0, "create");
  nx_layout_contiguous((int64_t[]){8}, 1, &l);
  CHECK(buf && nx_array_v(NX_FLOAT32, &l, buf, &a) == 0, "nx_array_v: %s", nx_error_message());
  nx_buffer_release(buf);
  if (!a) return;
  struct DLManagedTensorVersioned *t = NULL;
  CHECK(nx_array_to_dlpack(a, &t) == 0, "export of Read memory: %s", nx_error_message());
  if (t) {
    CHECK(t->flags == DLPACK_FLAG_BITMASK_READ_ONLY, "flags %llx", (unsigned long long)t->flags);
    nx_array *b = NULL;
    counted *c = count_deleter(t);
    CHECK(nx_array_from_dlpack(t, &b) == 0, "import read-only: %s", nx_error_message());
    if (b) {
      CHECK(nx_buffer_access(nx_array_buffer(b)) == NX_ACCESS_READ, "read-only import's access %d",
            (int)nx_buffer_access(nx_array_buffer(b)));
      CHECK(nx_array_set(b, (int64_t[]){0}, (nx_value){.f = 1}) == NX_EINVAL && says("admits no write"),
            "set on a read-only import: %s", nx_error_message());
      /* Re-export keeps the flag. */
      struct DLManagedTensorVersioned *t2 = NULL;
      CHECK(nx_array_to_dlpack(b, &t2) == 0 && t2 && t2->flags == DLPACK_FLAG_BITMASK_READ_ONLY &&
                t2->dl_tensor.data == t->dl_tensor.data,
            "re-export of a read-only import");
      nx_array_free(b);
      CHECK(c->calls == 0, "deleter ran while the re-export held the memory");
      if (t2) t2->deleter(t2);
    }
    CHECK(c->calls == 1, "read-only: deleter %d times", c->calls);
  }
  nx_array_free(a);
}

/* bit: a bool copy, independent of the array after the export. */
static void test_bit_copy(void) {
  nx_value xs[13];
  for (int i = 0; i < 13; i++) xs[i].b = (i * 7) % 3 == 0;
  nx_array *a = NULL;
  CHECK(nx_array_of_array(NX_BIT, (int64_t[]){13}, 1, xs, 13, &a) == 0, "of_array: %s", nx_error_message());
  if (!a) return;
  struct DLManagedTensorVersioned *t = NULL;
  CHECK(nx_array_to_dlpack(a, &t) == 0, "export bit: %s", nx_error_message());
  if (t) {
    const uint8_t *d = t->dl_tensor.data;
    int bad = 0;
    for (int i = 0; i < 13; i++) bad += d[i] != (xs[i].b ? 1 : 0);
    CHECK(bad == 0, "bit copy: %d bytes wrong", bad);
    CHECK(t->dl_tensor.dtype.code == kDLBool && t->dl_tensor.dtype.bits == 8, "bit exported as %u/%u",
          t->dl_tensor.dtype.code, t->dl_tensor.dtype.bits);
    CHECK(nx_array_set(a, (int64_t[]){1}, (nx_value){.b = true}) == 0 && d[1] == 0, "the copy follows the array");
    ((uint8_t *)t->dl_tensor.data)[0] = 1; /* the consumer owns the copy: writable */
    t->deleter(t);
  }
  /* A flipped bit view: copied in C order of its indices. */
  nx_move m;
  nx_array *v = NULL;
  CHECK(nx_move_flip(&m, (int[]){0}, 1) == 0 && nx_array_move(&m, a, &v) == 0, "flip");
  if (v && nx_array_to_dlpack(v, &t) == 0) {
    const uint8_t *d = t->dl_tensor.data;
    int bad = 0;
    for (int i = 0; i < 13; i++) {
      nx_value e;
      nx_array_get(v, (int64_t[]){i}, &e);
      bad += d[i] != (e.b ? 1 : 0);
    }
    CHECK(bad == 0 && t->dl_tensor.strides[0] == 1, "flipped bit copy: %d wrong", bad);
    t->deleter(t);
  }
  nx_array_free(v);
  nx_array_free(a);
}

/* Sub-byte: element 0 in the low bits, exported as nx stores it; views that
   DLPack cannot express refused. */
static void test_sub_byte(void) {
  nx_value xs[10];
  for (int i = 0; i < 10; i++) xs[i].u = (uint64_t)(i + 3) & 15;
  nx_array *a = NULL;
  CHECK(nx_array_of_array(NX_UINT4, (int64_t[]){10}, 1, xs, 10, &a) == 0, "of_array: %s", nx_error_message());
  if (!a) return;
  struct DLManagedTensorVersioned *t = NULL;
  CHECK(nx_array_to_dlpack(a, &t) == 0, "export uint4: %s", nx_error_message());
  if (t) {
    const uint8_t *d = t->dl_tensor.data;
    int bad = 0;
    for (int i = 0; i < 10; i++) bad += ((d[i / 2] >> (4 * (i % 2))) & 15) != xs[i].u;
    CHECK(bad == 0 && d[0] == 0x43 && d[1] == 0x65, "uint4 packing: %d wrong, bytes %02x %02x", bad, d[0], d[1]);
    t->deleter(t);
  }
  nx_move m;
  nx_array *v = NULL;
  /* From element 2: byte_offset 1. */
  CHECK(nx_move_shrink(&m, (int64_t[]){2}, (int64_t[]){9}, 1) == 0 && nx_array_move(&m, a, &v) == 0, "shrink");
  if (v && nx_array_to_dlpack(v, &t) == 0) {
    CHECK(t->dl_tensor.byte_offset == 1 && t->dl_tensor.shape[0] == 7, "even view: byte_offset %llu",
          (unsigned long long)t->dl_tensor.byte_offset);
    counted *c = count_deleter(t);
    nx_array *b = NULL;
    CHECK(nx_array_from_dlpack(t, &b) == 0, "import even view: %s", nx_error_message());
    if (b) {
      int bad = 0;
      for (int i = 0; i < 7; i++) {
        nx_value e;
        nx_array_get(b, (int64_t[]){i}, &e);
        bad += e.u != xs[i + 2].u;
      }
      CHECK(bad == 0, "uint4 view import: %d wrong", bad);
      nx_array_free(b);
    }
    CHECK(c->calls == 1, "deleter %d", c->calls);
  } else CHECK(0, "export of an even uint4 view: %s", nx_error_message());
  nx_array_free(v);
  v = NULL;
  /* From element 1: an odd nibble. */
  CHECK(nx_move_shrink(&m, (int64_t[]){1}, (int64_t[]){9}, 1) == 0 && nx_array_move(&m, a, &v) == 0, "shrink");
  t = NULL;
  CHECK(v && nx_array_to_dlpack(v, &t) == NX_EINVAL && !t && says("nx_array_to_dlpack") && says("uint4 [8]") &&
            says("whole byte"),
        "odd-nibble view: %s", nx_error_message());
  nx_array_free(v);
  v = NULL;
  /* Step 2: not contiguous. */
  CHECK(nx_move_slice(&m, (int64_t[]){0}, (int64_t[]){NX_SLICE_NONE}, (int64_t[]){2}, 1) == 0 &&
            nx_array_move(&m, a, &v) == 0,
        "slice");
  CHECK(v && nx_array_to_dlpack(v, &t) == NX_EINVAL && says("uint4 [5]") && says("C-contiguous"),
        "strided uint4 view: %s", nx_error_message());
  nx_array_free(v);
  nx_array_free(a);

  /* Import of packed int4 and float4 made by hand. */
  uint8_t bytes[3] = {0x21, 0xF3, 0x7A};
  hand h;
  hand_init(&h, bytes, (DLDataType){kDLInt, 4, 1}, 1, (int64_t[]){6}, NULL);
  nx_array *b = NULL;
  CHECK(nx_array_from_dlpack(&h.t, &b) == 0, "int4 import: %s", nx_error_message());
  if (b) {
    int64_t want[6] = {1, 2, 3, -1, -6, 7};
    int bad = 0;
    for (int i = 0; i < 6; i++) {
      nx_value e;
      nx_array_get(b, (int64_t[]){i}, &e);
      bad += e.i != want[i];
    }
    CHECK(bad == 0, "int4 import: %d wrong", bad);
    CHECK(nx_buffer_host_address(nx_array_buffer(b)) == bytes && nx_buffer_bytes(nx_array_buffer(b)) == 3,
          "int4 import buffer");
    nx_array_free(b);
  }
  CHECK(h.c->calls == 1, "int4 import: deleter %d", h.c->calls);
  /* Odd extent, byte_offset 1, negative stride: positions from data+1. */
  hand_init(&h, bytes, (DLDataType){kDLFloat4_e2m1fn, 4, 1}, 1, (int64_t[]){3}, (int64_t[]){-1});
  h.t.dl_tensor.byte_offset = 1; /* element 0 at position 2, then 1, 0 */
  b = NULL;
  CHECK(nx_array_from_dlpack(&h.t, &b) == 0, "float4 import: %s", nx_error_message());
  if (b) {
    nx_value e0, e2;
    nx_array_get(b, (int64_t[]){0}, &e0); /* 0x3: 1.5 */
    nx_array_get(b, (int64_t[]){2}, &e2); /* 0x1: 0.5 */
    CHECK(nx_array_dtype(b) == NX_FLOAT4_E2M1FN && e0.f == 1.5 && e2.f == 0.5, "float4 import: %g %g", e0.f, e2.f);
    CHECK(nx_buffer_bytes(nx_array_buffer(b)) == 2, "float4 import buffer of %lld bytes",
          (long long)nx_buffer_bytes(nx_array_buffer(b)));
    nx_array_free(b);
  }
  CHECK(h.c->calls == 1, "float4 import: deleter %d", h.c->calls);
}

/* Import of foreign memory: C-contiguous by default, writes through nx land
   in it, freeing the buffer gives it back at once. */
static void test_import_foreign(void) {
  double *data = malloc(sizeof(double) * 12);
  for (int i = 0; i < 12; i++) data[i] = i * 0.25;
  hand h;
  hand_init(&h, data, (DLDataType){kDLFloat, 64, 1}, 2, (int64_t[]){3, 4}, NULL);
  nx_array *a = NULL;
  CHECK(nx_array_from_dlpack(&h.t, &a) == 0, "import: %s", nx_error_message());
  if (a) {
    const nx_layout *l = nx_array_layout(a);
    CHECK(l->rank == 2 && l->stride[0] == 4 && l->stride[1] == 1 && l->offset == 0, "NULL strides: C-contiguous");
    nx_value v;
    CHECK(nx_array_get(a, (int64_t[]){2, 3}, &v) == 0 && v.f == 2.75, "get: %g", v.f);
    CHECK(nx_array_set(a, (int64_t[]){1, 1}, (nx_value){.f = -9.5}) == 0 && data[5] == -9.5, "set reached %g",
          data[5]);
    CHECK(nx_array_device(a) == nx_rig_host() && nx_buffer_bytes(nx_array_buffer(a)) == 96, "device or size");
    /* nx_buffer_free: the memory goes once its claims end, and with it the
       tensor, at once. */
    CHECK(nx_buffer_free(nx_array_buffer(a)) == 0, "free: %s", nx_error_message());
    CHECK(h.c->calls == 1, "free: deleter %d times", h.c->calls);
    nx_array_free(a);
  }
  CHECK(h.c->calls == 1, "after free and release: deleter %d times", h.c->calls);
  /* Held by a claim: the deleter waits for the claim. */
  hand_init(&h, data, (DLDataType){kDLFloat, 64, 1}, 1, (int64_t[]){12}, NULL);
  a = NULL;
  CHECK(nx_array_from_dlpack(&h.t, &a) == 0, "import: %s", nx_error_message());
  if (a) {
    nx_buffer *b = nx_array_buffer(a);
    bool w = false;
    nx_claim_answer ans;
    CHECK(nx_rig_claim(1, &b, &w, &ans) == 0, "claim");
    nx_buffer_free(b);
    CHECK(h.c->calls == 0, "deleter ran under a claim");
    nx_rig_release(1, &b, &w);
    CHECK(h.c->calls == 1, "deleter after the claim: %d", h.c->calls);
    nx_array_free(a);
  }
  /* Other host devices of GPU runtimes, strides given, a rank-0 tensor. */
  int devs[3] = {kDLCUDAHost, kDLCUDAManaged, kDLROCMHost};
  for (int i = 0; i < 3; i++) {
    hand_init(&h, data + 3, (DLDataType){kDLFloat, 64, 1}, 0, NULL, NULL);
    h.t.dl_tensor.device.device_type = devs[i];
    a = NULL;
    CHECK(nx_array_from_dlpack(&h.t, &a) == 0, "device %d: %s", devs[i], nx_error_message());
    if (a) {
      nx_value v;
      CHECK(nx_array_get(a, NULL, &v) == 0 && v.f == 0.75 && nx_buffer_bytes(nx_array_buffer(a)) == 8, "rank 0: %g",
            v.f);
      nx_array_free(a);
    }
    CHECK(h.c->calls == 1, "device %d: deleter %d", devs[i], h.c->calls);
  }
  /* An empty tensor with NULL data. */
  hand_init(&h, NULL, (DLDataType){kDLInt, 32, 1}, 2, (int64_t[]){0, 5}, NULL);
  a = NULL;
  CHECK(nx_array_from_dlpack(&h.t, &a) == 0, "empty: %s", nx_error_message());
  if (a) {
    CHECK(nx_layout_count(nx_array_layout(a)) == 0 && nx_buffer_bytes(nx_array_buffer(a)) == 0, "empty import");
    nx_array_free(a);
  }
  CHECK(h.c->calls == 1, "empty: deleter %d", h.c->calls);
  free(data);
}

/* Each import refusal: NX_EINVAL naming nx_array_from_dlpack, the tensor
   taken (its deleter run once), no array. */
static void refused_import(hand *h, const char *reason, int line) {
  nx_array *a = NULL;
  int s = nx_array_from_dlpack(&h->t, &a);
  CHECK(s == NX_EINVAL && !a, "line %d: status %d (%s)", line, s, nx_error_message());
  CHECK(says("nx_array_from_dlpack") && says(reason), "line %d: message \"%s\" lacks \"%s\"", line,
        nx_error_message(), reason);
  CHECK(h->c->calls == 1, "line %d: deleter ran %d times", line, h->c->calls);
  nx_array_free(a);
}

static void test_import_refusals(void) {
  _Alignas(16) uint8_t data[64] = {0};
  hand h;
  const DLDataType f32 = {kDLFloat, 32, 1};
#define REFUSE(setup, reason)                               \
  do {                                                      \
    hand_init(&h, data, f32, 1, (int64_t[]){4}, NULL);      \
    setup;                                                  \
    refused_import(&h, reason, __LINE__);                   \
  } while (0)
  REFUSE(h.t.version.major = 2; h.t.dl_tensor.ndim = -99; h.t.dl_tensor.shape = (int64_t *)1, "version 2.");
  REFUSE(h.t.version.major = 0, "version 0.");
  REFUSE(h.t.dl_tensor.device.device_type = kDLCUDA, "device type 2");
  REFUSE(h.t.dl_tensor.device.device_type = kDLOpenCL, "device type 4");
  REFUSE(h.t.dl_tensor.dtype = ((DLDataType){kDLFloat8_e3m4, 8, 1}), "code 7 of 8 bits");
  REFUSE(h.t.dl_tensor.dtype = ((DLDataType){kDLOpaqueHandle, 64, 1}), "code 3");
  REFUSE(h.t.dl_tensor.dtype = ((DLDataType){kDLFloat6_e2m3fn, 6, 1}), "code 15");
  REFUSE(h.t.dl_tensor.dtype = ((DLDataType){kDLFloat, 8, 1}), "code 2 of 8 bits");
  REFUSE(h.t.dl_tensor.dtype = ((DLDataType){kDLFloat4_e2m1fn, 8, 1}), "code 17 of 8 bits");
  REFUSE(h.t.dl_tensor.dtype = ((DLDataType){kDLBool, 1, 1}), "code 6 of 1 bits");
  REFUSE(h.t.dl_tensor.dtype = ((DLDataType){kDLComplex, 32, 1}), "code 5 of 32 bits");
  REFUSE(h.t.dl_tensor.dtype = ((DLDataType){kDLFloat, 32, 4}), "4 lanes");
  REFUSE(h.t.dl_tensor.dtype = ((DLDataType){kDLUInt, 4, 1}); h.t.flags = DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED,
         "padded");
  REFUSE(h.t.dl_tensor.ndim = 33, "33 dimensions");
  REFUSE(h.t.dl_tensor.ndim = -1, "-1 dimensions");
  REFUSE(h.t.dl_tensor.shape = NULL, "shape is NULL");
  REFUSE(h.shape[0] = -3, "extent -3 of axis 0 is negative");
  REFUSE(h.t.dl_tensor.strides = h.strides; h.strides[0] = INT64_MAX / 2, "nx_layout_make");
  REFUSE(h.t.dl_tensor.data = NULL, "NULL data");
  REFUSE(h.t.dl_tensor.byte_offset = 2, "not aligned"); /* data + 2: the element's address is what is checked */
  REFUSE(h.t.dl_tensor.byte_offset = UINT64_MAX, "passes the address space");
  REFUSE(h.t.dl_tensor.data = (void *)64; h.t.dl_tensor.strides = h.strides; h.strides[0] = -((int64_t)1 << 40),
         "below the address space");
  REFUSE(h.t.dl_tensor.data = data + 2, "not aligned");
  REFUSE(h.t.dl_tensor.dtype = ((DLDataType){kDLComplex, 128, 1}); h.t.dl_tensor.data = data + 4, "not aligned");
#undef REFUSE
  /* The tensor every refusal above starts from is imported. */
  hand_init(&h, data, f32, 1, (int64_t[]){4}, NULL);
  nx_array *a = NULL;
  CHECK(nx_array_from_dlpack(&h.t, &a) == 0 && a, "control import: %s", nx_error_message());
  nx_array_free(a);
  CHECK(h.c->calls == 1, "control: deleter %d", h.c->calls);
  /* complex128 aligned to its component (8 bytes) is fine. */
  hand_init(&h, data + 8, (DLDataType){kDLComplex, 128, 1}, 1, (int64_t[]){2}, NULL);
  a = NULL;
  CHECK(nx_array_from_dlpack(&h.t, &a) == 0, "complex128 at 8 bytes: %s", nx_error_message());
  nx_array_free(a);
  /* A byte_offset that is no whole number of elements, to an aligned
     element: DLPack's pointer to the data is data + byte_offset (before:
     refused as "not a whole number"), read as numpy reads it. */
  double dv[4] = {1.0, 2.0, 3.0, 4.0};
  for (int k = 0; k < 2; k++) {
    if (k == 0) hand_init(&h, dv, (DLDataType){kDLComplex, 128, 1}, 1, (int64_t[]){1}, NULL);
    else hand_init(&h, (char *)dv + 4, (DLDataType){kDLFloat, 64, 1}, 1, (int64_t[]){2}, NULL);
    h.t.dl_tensor.byte_offset = k == 0 ? 8 : 4; /* the complex's component; a double past 4 bytes */
    a = NULL;
    nx_value v = {0};
    int64_t i0 = 0;
    int st = nx_array_from_dlpack(&h.t, &a);
    CHECK(st == 0 && nx_array_get(a, &i0, &v) == 0 &&
              (k == 0 ? v.c.re == 2.0 && v.c.im == 3.0 : v.f == 2.0),
          "byte_offset %llu into %s: %s", (unsigned long long)h.t.dl_tensor.byte_offset, k ? "float64" : "complex128",
          st ? nx_error_message() : "another value");
    nx_array_free(a);
  }
  /* NULL arguments. */
  CHECK(nx_array_from_dlpack(NULL, &a) == NX_EINVAL && says("nx_array_from_dlpack"), "NULL tensor");
  hand_init(&h, data, f32, 1, (int64_t[]){4}, NULL);
  CHECK(nx_array_from_dlpack(&h.t, NULL) == NX_EINVAL && h.c->calls == 1, "NULL result: the tensor is taken");
}

static void test_export_refusals(void) {
  char msg[256];
  struct DLManagedTensorVersioned *t = NULL;
  CHECK(nx_array_to_dlpack(NULL, &t) == NX_EINVAL && says("nx_array_to_dlpack"), "NULL array");
  nx_array *a = random_array(NX_FLOAT32, (int64_t[]){3, 2}, 2);
  if (!a) return;
  CHECK(nx_array_to_dlpack(a, NULL) == NX_EINVAL, "NULL result");
  CHECK(nx_buffer_hold_exclusive(nx_array_buffer(a)) == 0, "hold");
  CHECK(nx_array_to_dlpack(a, &t) == NX_EINVAL && !t && says("nx_array_to_dlpack") && says("float32 [3; 2]") &&
            says("held exclusive"),
        "held exclusive: %s", nx_error_message());
  CHECK(nx_buffer_consume(nx_array_buffer(a), "donated to nx_mul") == 0, "consume");
  CHECK(nx_array_to_dlpack(a, &t) == NX_EINVAL && !t && says("float32 [3; 2]") && says("dead (donated to nx_mul)"),
        "dead: %s", nx_error_message());
  nx_array_free(a);
  a = random_array(NX_BIT, (int64_t[]){9}, 1);
  nx_buffer_free(nx_array_buffer(a));
  CHECK(nx_array_to_dlpack(a, &t) == NX_EINVAL && !t && says("nx_array_to_dlpack") && says("bit [9]") &&
            says("dead (freed)"),
        "dead bit: %s", nx_error_message());
  nx_array_free(a);
  nx_device *td = NULL;
  CHECK(nx_rig_test_device(&td) == 0, "test device");
  if (!td) return;
  a = NULL;
  CHECK(nx_array_create(td, NX_MEMORY_DEVICE, NX_INT8, (int64_t[]){5}, 1, &a) == 0, "create on test device");
  if (a) {
    CHECK(nx_array_to_dlpack(a, &t) == NX_EINVAL && !t && says("int8 [5]") && says("host does not address"),
          "off host: %s", nx_error_message());
    snprintf(msg, sizeof msg, "%s", nx_error_message());
    CHECK(strstr(msg, "nx_array_to_dlpack"), "off host names the function: %s", msg);
    /* The refusal holds no claim. */
    CHECK(nx_buffer_hold_exclusive(nx_array_buffer(a)) == 0, "off-host refusal kept a claim");
    nx_buffer_unhold(nx_array_buffer(a));
    nx_array_free(a);
  }
  a = NULL;
  CHECK(nx_array_create(td, NX_MEMORY_DEVICE, NX_BIT, (int64_t[]){5}, 1, &a) == 0, "create bit on test device");
  if (a) {
    CHECK(nx_array_to_dlpack(a, &t) == NX_EINVAL && says("bit [5]") && says("host does not address"),
          "off-host bit: %s", nx_error_message());
    nx_array_free(a);
  }
  /* An array with no element on memory the host does not address: data
     NULL, exported. */
  a = NULL;
  CHECK(nx_array_create(td, NX_MEMORY_DEVICE, NX_FLOAT16, (int64_t[]){0, 3}, 2, &a) == 0, "create empty");
  if (a) {
    t = NULL;
    CHECK(nx_array_to_dlpack(a, &t) == 0 && t && !t->dl_tensor.data && t->dl_tensor.shape[0] == 0,
          "empty off-host export: %s", nx_error_message());
    if (t) t->deleter(t);
    nx_array_free(a);
  }
}

int main(void) {
  test_round_trip();
  test_export_lifetime();
  test_export_views();
  test_read_only();
  test_bit_copy();
  test_sub_byte();
  test_import_foreign();
  test_import_refusals();
  test_export_refusals();
  return check_done();
}
