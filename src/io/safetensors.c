/* SPDX-License-Identifier: Apache-2.0 */
/* .safetensors: an 8-byte little-endian header length N, N bytes of UTF-8
   JSON, then the data. The header is validated as the reference
   implementation validates it; each refusal names the reference's error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"
#include "../base/alloc.h"

#define MAX_HEADER_SIZE 100000000

/* Every safetensors dtype string, its width in bits, and the nx dtype that
   holds it (-1: none). */
static const struct {
  const char *name;
  int bits;
  int dt;
} dtypes[] = {
    {"BOOL", 8, NX_BOOL},          {"F4", 4, NX_FLOAT4_E2M1FN}, {"F6_E2M3", 6, -1},         {"F6_E3M2", 6, -1},
    {"U8", 8, NX_UINT8},           {"I8", 8, NX_INT8},          {"F8_E5M2", 8, NX_FLOAT8_E5M2},
    {"F8_E4M3", 8, NX_FLOAT8_E4M3FN}, {"F8_E8M0", 8, -1},       {"F8_E4M3FNUZ", 8, -1},     {"F8_E5M2FNUZ", 8, -1},
    {"I16", 16, NX_INT16},         {"U16", 16, NX_UINT16},      {"F16", 16, NX_FLOAT16},    {"BF16", 16, NX_BFLOAT16},
    {"I32", 32, NX_INT32},         {"U32", 32, NX_UINT32},      {"F32", 32, NX_FLOAT32},    {"C64", 64, NX_COMPLEX64},
    {"F64", 64, NX_FLOAT64},       {"I64", 64, NX_INT64},       {"U64", 64, NX_UINT64},
};
#define NDTYPES (sizeof dtypes / sizeof dtypes[0])

const char *nx__safetensors_dtype_name(nx_dtype dt) {
  for (size_t k = 0; k < NDTYPES; k++)
    if (dtypes[k].dt == (int)dt) return dtypes[k].name;
  return NULL;
}

/* The table is in the reference's order of its dtypes (increasing
   alignment), which its writer sorts by. */
int nx__safetensors_dtype_rank(nx_dtype dt) {
  for (size_t k = 0; k < NDTYPES; k++)
    if (dtypes[k].dt == (int)dt) return (int)k;
  return -1;
}

#ifdef NX_HAVE_JANSSON
#include <jansson.h>


typedef struct entry {
  const char *name;
  size_t name_len;
  int k; /* index into dtypes */
  int rank;
  int64_t shape[NX_MAX_RANK];
  uint64_t begin, end;
} entry;

static int by_offsets(const void *a, const void *b) {
  const entry *x = a, *y = b;
  if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
  if (x->end != y->end) return x->end < y->end ? -1 : 1;
  return 0;
}

#define BAD_JSON(...) nx__fail(NX_EINVAL, "%s: %s: invalid JSON in header (InvalidHeaderDeserialization): " __VA_ARGS__)

/* One tensor entry of the header into e. */
static int read_entry(const char *fn, const char *path, const char *name, json_t *v, entry *e) {
  if (!json_is_object(v)) return BAD_JSON("`%s` is not an object", fn, path, name);
  json_t *dt = json_object_get(v, "dtype"), *shape = json_object_get(v, "shape"),
         *off = json_object_get(v, "data_offsets");
  if (!dt || !shape || !off)
    return BAD_JSON("`%s` lacks \"%s\"", fn, path, name, !dt ? "dtype" : !shape ? "shape" : "data_offsets");
  if (!json_is_string(dt)) return BAD_JSON("`%s`: dtype is not a string", fn, path, name);
  e->k = -1;
  for (size_t k = 0; k < NDTYPES; k++)
    if (!strcmp(json_string_value(dt), dtypes[k].name)) e->k = (int)k;
  if (e->k < 0) return BAD_JSON("`%s`: unknown dtype \"%s\"", fn, path, name, json_string_value(dt));
  if (!json_is_array(shape)) return BAD_JSON("`%s`: shape is not an array", fn, path, name);
  if (json_array_size(shape) > NX_MAX_RANK)
    return nx__fail(NX_EINVAL, "%s: %s: tensor `%s` has %zu axes, past nx's %d", fn, path, name,
                    json_array_size(shape), NX_MAX_RANK);
  e->rank = (int)json_array_size(shape);
  for (int j = 0; j < e->rank; j++) {
    json_t *x = json_array_get(shape, (size_t)j);
    if (!json_is_integer(x) || json_integer_value(x) < 0)
      return BAD_JSON("`%s`: shape holds something other than a non-negative integer", fn, path, name);
    e->shape[j] = json_integer_value(x);
  }
  if (!json_is_array(off) || json_array_size(off) != 2)
    return BAD_JSON("`%s`: data_offsets is not an array of two integers", fn, path, name);
  json_t *b = json_array_get(off, 0), *en = json_array_get(off, 1);
  if (!json_is_integer(b) || !json_is_integer(en) || json_integer_value(b) < 0 || json_integer_value(en) < 0)
    return BAD_JSON("`%s`: data_offsets is not two non-negative integers", fn, path, name);
  e->begin = (uint64_t)json_integer_value(b);
  e->end = (uint64_t)json_integer_value(en);
  return 0;
}

static int check_entries(nx_io_file *f, const char *fn, entry *es, size_t n, int64_t header) {
  uint64_t start = 0;
  for (size_t i = 0; i < n; i++) {
    entry *e = &es[i];
    if (e->begin != start || e->end < e->begin)
      return nx__fail(NX_EINVAL, "%s: %s: invalid offset for tensor `%.*s` (InvalidOffset): [%llu, %llu) where the "
                                 "data so far ends at %llu (a hole, an overlap or a reversed range)", fn, f->path,
                      (int)e->name_len, e->name, (unsigned long long)e->begin, (unsigned long long)e->end,
                      (unsigned long long)start);
    start = e->end;
    uint64_t count = 1;
    for (int j = 0; j < e->rank; j++) {
      uint64_t x = (uint64_t)e->shape[j];
      if (x && count > UINT64_MAX / x)
        return nx__fail(NX_EINVAL, "%s: %s: tensor `%.*s`: overflow computing buffer size from shape and/or element "
                                   "type (ValidationOverflow)", fn, f->path, (int)e->name_len, e->name);
      count *= x;
    }
    uint64_t bits = (uint64_t)dtypes[e->k].bits;
    if (count > UINT64_MAX / bits || count > (uint64_t)INT64_MAX)
      return nx__fail(NX_EINVAL, "%s: %s: tensor `%.*s`: overflow computing buffer size from shape and/or element "
                                 "type (ValidationOverflow)", fn, f->path, (int)e->name_len, e->name);
    uint64_t nbits = count * bits;
    if (nbits % 8)
      return nx__fail(NX_EINVAL, "%s: %s: tensor `%.*s`: %llu elements of %llu bits are not a whole number of bytes "
                                 "(MisalignedSlice)", fn, f->path, (int)e->name_len, e->name,
                      (unsigned long long)count, (unsigned long long)bits);
    if (e->end - e->begin != nbits / 8)
      return nx__fail(NX_EINVAL, "%s: %s: tensor `%.*s`: invalid shape, data type, or offset for tensor "
                                 "(TensorInvalidInfo): %s of %llu elements is %llu bytes, its offsets span %llu", fn,
                      f->path, (int)e->name_len, e->name, dtypes[e->k].name, (unsigned long long)count,
                      (unsigned long long)(nbits / 8), (unsigned long long)(e->end - e->begin));
  }
  uint64_t data = (uint64_t)(f->size - 8 - header);
  if (start != data)
    return nx__fail(NX_EINVAL, "%s: %s: incomplete metadata, file not fully covered (MetadataIncompleteBuffer): the "
                               "tensors end at %llu, the data is %llu bytes", fn, f->path, (unsigned long long)start,
                    (unsigned long long)data);
  for (size_t i = 0; i < n; i++) {
    entry *e = &es[i];
    nx_io_tensor t = {0};
    t.has_dtype = dtypes[e->k].dt >= 0;
    t.dtype = t.has_dtype ? (nx_dtype)dtypes[e->k].dt : NX_UINT8;
    t.rank = e->rank;
    memcpy(t.shape, e->shape, sizeof e->shape);
    t.offset = 8 + header + (int64_t)e->begin;
    t.bytes = (int64_t)(e->end - e->begin);
    int s = nx__io_add_tensor(f, fn, &t, e->name, e->name_len, dtypes[e->k].name);
    if (s != 0) return s;
  }
  return 0;
}

static int parse_json(nx_io_file *f, const char *fn, json_t *root, int64_t header) {
  if (!json_is_object(root)) return BAD_JSON("the header is not an object", fn, f->path);
  size_t n = json_object_size(root);
  entry *es = nx__calloc(n ? n : 1, sizeof *es);
  if (!es) return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, f->path);
  size_t ne = 0;
  int s = 0;
  const char *key;
  json_t *v;
  json_object_foreach(root, key, v) {
    size_t klen = strlen(key);
    if (!strcmp(key, "__metadata__")) {
      if (json_is_null(v)) continue; /* no metadata, as the reference reads it */
      if (!json_is_object(v)) {
        s = BAD_JSON("__metadata__ is not an object", fn, f->path);
        break;
      }
      const char *mk;
      json_t *mv;
      json_object_foreach(v, mk, mv) {
        if (!json_is_string(mv)) {
          s = BAD_JSON("__metadata__ `%s` is not a string", fn, f->path, mk);
          break;
        }
        if ((s = nx__io_add_meta(f, fn, mk, strlen(mk), json_string_value(mv), json_string_length(mv))) != 0) break;
      }
      if (s != 0) break;
      continue;
    }
    es[ne].name = key;
    es[ne].name_len = klen;
    if ((s = read_entry(fn, f->path, key, v, &es[ne])) != 0) break;
    ne++;
  }
  if (s == 0) {
    qsort(es, ne, sizeof *es, by_offsets);
    s = check_entries(f, fn, es, ne, header);
  }
  nx__free(es);
  return s;
}

int nx__safetensors_parse(nx_io_file *f, const char *fn) {
  if (f->size < 8)
    return nx__fail(NX_EINVAL, "%s: %s: header too small (HeaderTooSmall): %lld bytes, not a safetensors file", fn,
                    f->path, (long long)f->size);
  uint64_t n = 0;
  for (int k = 7; k >= 0; k--) n = n << 8 | f->map[k];
  if (n > MAX_HEADER_SIZE)
    return nx__fail(NX_EINVAL, "%s: %s: header too large (HeaderTooLarge): %llu bytes, past %d (or not a tensor file "
                               "nx knows)", fn, f->path, (unsigned long long)n, MAX_HEADER_SIZE);
  if ((int64_t)n > f->size - 8)
    return nx__fail(NX_EINVAL, "%s: %s: invalid header length (InvalidHeaderLength): %llu bytes past the file's %lld",
                    fn, f->path, (unsigned long long)n, (long long)f->size);
  const uint8_t *h = f->map + 8;
  if (!nx__io_utf8_valid(h, (int64_t)n))
    return nx__fail(NX_EINVAL, "%s: %s: invalid UTF-8 in header (InvalidHeader)", fn, f->path);
  json_error_t err;
  json_t *root = json_loadb((const char *)h, (size_t)n, JSON_REJECT_DUPLICATES, &err);
  enum json_error_code code = root ? json_error_unknown : json_error_code(&err);
  /* \u0000: the reference takes it, a C string cannot hold it */
  if (code == json_error_null_character || code == json_error_null_byte_in_key)
    return nx__fail(NX_EINVAL, "%s: %s: the header holds \\u0000 in a string at byte %d, which nx's names and "
                               "metadata (C strings) cannot hold", fn, f->path, err.position);
  if (!root) return BAD_JSON("%s at byte %d", fn, f->path, err.text, err.position);
  int s = parse_json(f, fn, root, (int64_t)n);
  json_decref(root);
  return s;
}

#else

int nx__safetensors_parse(nx_io_file *f, const char *fn) {
  return nx__fail(NX_EINVAL, "%s: %s: not a .npy, .npz or GGUF file, and this nx was built without a JSON library "
                             "for safetensors headers", fn, f->path);
}

#endif
