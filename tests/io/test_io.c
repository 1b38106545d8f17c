/* SPDX-License-Identifier: Apache-2.0 */
/* The io module: every dtype written by nx into .npy, .npz and .safetensors
   and read back bit for bit (views of the mapping where they can be); a
   corpus of malformed files, each refused by nx_io_open with a message
   naming the function and the file; writers that fail leave no file. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "../common.h"
#include "nx_io.h"

#include "io_dir.h"

static bool exists(const char *p) { return access(p, F_OK) == 0; }

static void write_file(const char *p, const void *data, size_t n) {
  FILE *f = fopen(p, "wb");
  if (!f) return;
  fwrite(data, 1, n, f);
  fclose(f);
}

/* An array of dt and shape whose elements are splitmix64 bits (valid for
   every dtype: bool takes 0 or 1, integers any bits). */
static nx_array *random_array(nx_dtype dt, const int64_t *shape, int rank, uint64_t *seed) {
  nx_array *a;
  if (nx_array_host(dt, shape, rank, &a) != 0) return NULL;
  int64_t n = nx_layout_count(nx_array_layout(a)), index[NX_MAX_RANK] = {0};
  for (int64_t k = 0; k < n; k++) {
    int64_t r = k;
    for (int j = rank - 1; j >= 0; j--) {
      index[j] = r % shape[j];
      r /= shape[j];
    }
    uint64_t u = splitmix64_next(seed);
    nx_value v;
    switch (nx_dtype_kind(dt)) {
      case NX_KIND_FLOAT: v.f = nx_dtype_load_bits(dt, u); break;
      case NX_KIND_SIGNED: v.f = 0; v.i = (int64_t)nx_dtype_load_bits(dt, u); break;
      case NX_KIND_UNSIGNED: v.u = (uint64_t)nx_dtype_load_bits(dt, u); break;
      case NX_KIND_BOOLEAN: v.b = u & 1; break;
      default:
        v.c.re = nx_dtype_load_bits(dt == NX_COMPLEX64 ? NX_FLOAT32 : NX_FLOAT64, u);
        v.c.im = nx_dtype_load_bits(dt == NX_COMPLEX64 ? NX_FLOAT32 : NX_FLOAT64, splitmix64_next(seed));
    }
    if (nx_dtype_kind(dt) == NX_KIND_SIGNED) v.i = (int64_t)(u << (64 - nx_dtype_bits(dt))) >> (64 - nx_dtype_bits(dt));
    if (nx_dtype_kind(dt) == NX_KIND_UNSIGNED && nx_dtype_bits(dt) < 64) v.u = u & ((1ull << nx_dtype_bits(dt)) - 1);
    if (nx_array_set(a, index, v) != 0) {
      nx_array_free(a);
      return NULL;
    }
  }
  return a;
}

/* The bytes of the elements of a, C order, nx's packing, gathered through
   raw access. */
struct gather {
  uint8_t *out;
  int64_t n;
};
static int gather(void *ctx, const void *base, nx_dtype dt, const nx_layout *l) {
  struct gather *g = ctx;
  int w = nx_dtype_bits(dt);
  int64_t index[NX_MAX_RANK] = {0}, count = nx_layout_count(l);
  memset(g->out, 0, (size_t)g->n);
  for (int64_t k = 0; k < count; k++) {
    int64_t p = l->offset;
    for (int j = 0; j < l->rank; j++) p += index[j] * l->stride[j];
    for (int b = 0; b < w; b++) {
      int64_t src = p * w + b, dst = k * w + b;
      if ((((const uint8_t *)base)[src / 8] >> (src % 8)) & 1) g->out[dst / 8] |= (uint8_t)(1u << (dst % 8));
    }
    for (int j = l->rank - 1; j >= 0; j--) {
      if (++index[j] < l->extent[j]) break;
      index[j] = 0;
    }
  }
  return 0;
}

static bool same_bits(const nx_array *a, const nx_array *b) {
  if (nx_array_dtype(a) != nx_array_dtype(b)) return false;
  const nx_layout *la = nx_array_layout(a), *lb = nx_array_layout(b);
  if (la->rank != lb->rank) return false;
  for (int j = 0; j < la->rank; j++)
    if (la->extent[j] != lb->extent[j]) return false;
  int64_t n;
  nx_dtype_bytes(nx_array_dtype(a), nx_layout_count(la), &n);
  struct gather ga = {calloc(1, (size_t)n + 1), n}, gb = {calloc(1, (size_t)n + 1), n};
  bool ok = nx_array_read(a, gather, &ga) == 0 && nx_array_read(b, gather, &gb) == 0 && !memcmp(ga.out, gb.out, (size_t)n);
  free(ga.out);
  free(gb.out);
  return ok;
}

/* A .npy of a sub-byte or 8-bit float dtype is read as raw bytes, one per
   element (as ml_dtypes stores them): compare values bit for bit. */
static bool same_raw(const nx_array *a, const nx_array *raw) {
  int64_t n = nx_layout_count(nx_array_layout(a));
  nx_value *va = malloc((size_t)(n + 1) * sizeof *va), *vr = malloc((size_t)(n + 1) * sizeof *vr);
  bool ok = va && vr && nx_array_to_array(a, va, n) == 0 && nx_array_to_array(raw, vr, n) == 0;
  nx_dtype dt = nx_array_dtype(a);
  for (int64_t k = 0; ok && k < n; k++) {
    uint64_t bits = nx_dtype_kind(dt) == NX_KIND_FLOAT ? nx_dtype_store_bits(dt, va[k].f)
                    : nx_dtype_kind(dt) == NX_KIND_BOOLEAN ? (uint64_t)va[k].b
                                                          : (uint64_t)va[k].i & ((1u << nx_dtype_bits(dt)) - 1);
    ok = vr[k].u == bits;
  }
  free(va);
  free(vr);
  return ok;
}

static void round_trip(nx_io_format fmt, const char *ext) {
  uint64_t seed = 42 + (uint64_t)fmt;
  const nx_dtype *all = nx_dtype_all();
  for (int d = 0; d < NX_DTYPE_COUNT; d++) {
    nx_dtype dt = all[d];
    bool holds0 = fmt != NX_IO_SAFETENSORS || (dt != NX_INT4 && dt != NX_UINT4 && dt != NX_BIT && dt != NX_COMPLEX128);
    int64_t shapes[3][2] = {{3, 4}, {0, 5}, {0, 0}};
    int ranks[3] = {2, 2, 0};
    for (int s = 0; s < 3; s++) {
      bool holds = holds0;
      char name[64];
      snprintf(name, sizeof name, "rt_%s_%d.%s", nx_dtype_name(dt), s, ext);
      const char *p = path_of(name);
      nx_array *a = random_array(dt, shapes[s], ranks[s], &seed);
      CHECK(a, "random %s", nx_dtype_name(dt));
      if (!a) continue;
      /* safetensors holds sub-byte tensors of whole bytes only: one float4 is not. */
      bool whole = nx_dtype_bits(dt) >= 8 || nx_layout_count(nx_array_layout(a)) * nx_dtype_bits(dt) % 8 == 0;
      if (fmt == NX_IO_SAFETENSORS && !whole) holds = false;
      nx_io_writer *w;
      CHECK(nx_io_writer_open(p, fmt, &w) == 0, "%s", nx_error_message());
      int added = nx_io_writer_add(w, "t", a);
      if (!holds) {
        CHECK(added == NX_EINVAL && strstr(nx_error_message(), "nx_io_writer_add") && strstr(nx_error_message(), p),
              "%s into %s: %d %s", nx_dtype_name(dt), ext, added, nx_error_message());
        nx_io_writer_abort(w);
        CHECK(!exists(p), "an aborted writer left %s", p);
        nx_array_free(a);
        continue;
      }
      CHECK(added == 0, "%s: %s", nx_dtype_name(dt), nx_error_message());
      if (fmt == NX_IO_SAFETENSORS) CHECK(nx_io_writer_metadata(w, "k", "v") == 0, "%s", nx_error_message());
      CHECK(nx_io_writer_commit(w) == 0, "%s: %s", nx_dtype_name(dt), nx_error_message());
      nx_io_file *f;
      int st = nx_io_open(p, &f);
      CHECK(st == 0, "%s: %s", nx_dtype_name(dt), nx_error_message());
      if (st != 0) {
        nx_array_free(a);
        continue;
      }
      CHECK(nx_io_file_format(f) == fmt && nx_io_file_count(f) == 1, "%s", p);
      const nx_io_tensor *t = nx_io_file_tensor(f, 0);
      nx_array *b = NULL;
      CHECK(nx_io_load(f, 0, &b) == 0, "%s: %s", nx_dtype_name(dt), nx_error_message());
      bool raw_form = fmt != NX_IO_SAFETENSORS && (nx_dtype_bits(dt) < 8 || dt == NX_FLOAT8_E4M3FN ||
                                                   dt == NX_FLOAT8_E5M2 || dt == NX_BFLOAT16);
      if (b && raw_form && dt != NX_BIT) {
        CHECK(t->raw, "%s in %s is raw bytes", nx_dtype_name(dt), ext);
        if (dt == NX_BFLOAT16) {
          nx_array *c;
          CHECK(nx_array_bitcast(NX_BFLOAT16, b, &c) == 0 && same_bits(a, c), "bfloat16 via <V2 in %s", ext);
          nx_array_free(c);
        } else {
          CHECK(same_raw(a, b), "%s via <V1 in %s", nx_dtype_name(dt), ext);
        }
      } else if (b && dt == NX_BIT) {
        CHECK(nx_array_dtype(b) == NX_BOOL, "bit is written as bool");
      } else if (b) {
        CHECK(same_bits(a, b), "%s through %s", nx_dtype_name(dt), ext);
      }
      if (fmt == NX_IO_SAFETENSORS) {
        const char *k, *v;
        CHECK(nx_io_file_metadata_count(f) == 1 && nx_io_file_metadata(f, 0, &k, &v) == 0 && !strcmp(k, "k") &&
                  !strcmp(v, "v"), "metadata kept");
      }
      /* Views of the mapping where nx can: the buffer is the file's. */
      if (b && fmt != NX_IO_NPZ && nx_layout_count(nx_array_layout(b)) > 0)
        CHECK(nx_buffer_access(nx_array_buffer(b)) == NX_ACCESS_READ &&
                  nx_buffer_bytes(nx_array_buffer(b)) == nx_io_file_bytes(f),
              "%s through %s is a view of the mapping", nx_dtype_name(dt), ext);
      nx_io_close(f);
      /* The array outlives the file. */
      if (b && !raw_form) CHECK(same_bits(a, b), "%s after close", nx_dtype_name(dt));
      nx_array_free(b);
      nx_array_free(a);
      unlink(p);
    }
  }
}

/* Refused with NX_EINVAL, naming nx_io_open, the file and `what`. */
static void refused(const char *name, const void *data, size_t n, const char *what) {
  const char *p = path_of(name);
  write_file(p, data, n);
  nx_io_file *f = NULL;
  int s = nx_io_open(p, &f);
  CHECK(s == NX_EINVAL && f == NULL, "%s: opened (%d)", name, s);
  const char *m = nx_error_message();
  CHECK(strstr(m, "nx_io_open") && strstr(m, p) && strstr(m, what), "%s: message '%s' lacks '%s'", name, m, what);
  if (s == 0) nx_io_close(f);
  unlink(p);
}

/* A safetensors file of header text h and n data bytes. */
static void safetensors_bad(const char *name, const char *h, size_t data, const char *what) {
  size_t hn = strlen(h);
  uint8_t *b = calloc(1, 8 + hn + data);
  for (int k = 0; k < 8; k++) b[k] = (uint8_t)((uint64_t)hn >> (8 * k));
  memcpy(b + 8, h, hn);
  refused(name, b, 8 + hn + data, what);
  free(b);
}

static void malformed_safetensors(void) {
  uint8_t small[5] = {1, 0, 0, 0, 0};
  refused("small.safetensors", small, 5, "HeaderTooSmall");
  uint8_t huge[16] = {0, 0, 0, 0, 0, 0, 0, 0x10};
  refused("huge.safetensors", huge, 16, "HeaderTooLarge");
  uint8_t big[16] = {0x00, 0xE2, 0xF5, 0x05}; /* 100000000 + 512: past the limit */
  big[0] = 0x00;
  refused("big.safetensors", big, 16, "HeaderTooLarge");
  uint8_t lying[16] = {200, 0, 0, 0, 0, 0, 0, 0, '{', '}'};
  refused("lying.safetensors", lying, 16, "InvalidHeaderLength");
  safetensors_bad("utf8.safetensors", "{\"\xff\":1}", 0, "InvalidHeader");
  safetensors_bad("json.safetensors", "{\"a\": {\"dtype\": \"F32\",", 0, "InvalidHeaderDeserialization");
  safetensors_bad("notobj.safetensors", "[1, 2]", 0, "InvalidHeaderDeserialization");
  safetensors_bad("nul.safetensors", "{\"a\\u0000b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
                  "holds \\u0000 in a string");
  safetensors_bad("dtype.safetensors", "{\"a\":{\"dtype\":\"F12\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
                  "unknown dtype");
  safetensors_bad("dup.safetensors",
                  "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                  "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8, "duplicate");
  safetensors_bad("hole.safetensors",
                  "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                  "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}", 12, "InvalidOffset");
  safetensors_bad("overlap.safetensors",
                  "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                  "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8, "InvalidOffset");
  safetensors_bad("reversed.safetensors", "{\"a\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]},"
                  "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[4,0]}}", 4, "InvalidOffset");
  safetensors_bad("size.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", 4,
                  "TensorInvalidInfo");
  safetensors_bad("overflow.safetensors",
                  "{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,4]}}", 4,
                  "ValidationOverflow");
  safetensors_bad("misaligned.safetensors", "{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,1]}}", 1,
                  "MisalignedSlice");
  safetensors_bad("short.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 4,
                  "MetadataIncompleteBuffer");
  safetensors_bad("long.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 8,
                  "MetadataIncompleteBuffer");
  safetensors_bad("meta.safetensors", "{\"__metadata__\":{\"a\":1}}", 0, "not a string");
  safetensors_bad("rank.safetensors",
                  "{\"a\":{\"dtype\":\"U8\",\"shape\":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"
                  "\"data_offsets\":[0,1]}}", 1, "axes");
  /* Accepted as the reference accepts them: whitespace around the JSON, an
     empty header, zero-size and 0-rank tensors, dtypes nx has no dtype for. */
  const char *ok = "  {\"__metadata__\":{\"m\":\"x\"},\"e\":{\"dtype\":\"F8_E8M0\",\"shape\":[2],\"data_offsets\":[1,3]},"
                   "\"s\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[0,1]},"
                   "\"z\":{\"dtype\":\"F32\",\"shape\":[0,3],\"data_offsets\":[3,3]}}  ";
  size_t hn = strlen(ok);
  uint8_t b[512] = {0};
  for (int k = 0; k < 8; k++) b[k] = (uint8_t)((uint64_t)hn >> (8 * k));
  memcpy(b + 8, ok, hn);
  b[8 + hn] = 7;
  const char *p = path_of("ok.safetensors");
  write_file(p, b, 8 + hn + 3);
  nx_io_file *f;
  CHECK(nx_io_open(p, &f) == 0, "%s", nx_error_message());
  if (f) {
    CHECK(nx_io_file_count(f) == 3, "3 tensors");
    const nx_io_tensor *s = nx_io_file_tensor(f, 0), *e = nx_io_file_tensor(f, 1);
    CHECK(!strcmp(s->name, "s") && s->rank == 0 && s->has_dtype && s->dtype == NX_UINT8, "sorted by offset");
    CHECK(!strcmp(e->name, "e") && !e->has_dtype && !strcmp(e->type, "F8_E8M0"), "F8_E8M0 listed without a dtype");
    nx_array *a = NULL;
    CHECK(nx_io_load(f, 1, &a) == NX_EINVAL && strstr(nx_error_message(), "nx_io_load") &&
              strstr(nx_error_message(), "'e'"), "F8_E8M0 refused: %s", nx_error_message());
    nx_value v;
    CHECK(nx_io_load(f, 0, &a) == 0 && nx_array_get(a, NULL, &v) == 0 && v.u == 7, "0-rank tensor");
    nx_array_free(a);
    nx_io_close(f);
  }
  unlink(p);
}

static void npy_bad(const char *name, const char *header, size_t data, const char *what) {
  uint8_t b[1024] = {0};
  size_t hn = strlen(header);
  memcpy(b, "\x93NUMPY\x01\x00", 8);
  b[8] = (uint8_t)hn;
  b[9] = (uint8_t)(hn >> 8);
  memcpy(b + 10, header, hn);
  refused(name, b, 10 + hn + data, what);
}

static void malformed_npy(void) {
  npy_bad("object.npy", "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }\n", 8, "object");
  npy_bad("struct.npy", "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }\n", 4, "structured");
  npy_bad("string.npy", "{'descr': '|S4', 'fortran_order': False, 'shape': (1,), }\n", 4, "numeric");
  npy_bad("date.npy", "{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (1,), }\n", 8, "numeric");
  npy_bad("keys.npy", "{'descr': '<f4', 'shape': (1,), }\n", 4, "lacks 'fortran_order'");
  npy_bad("extra.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}\n", 4, "unknown");
  npy_bad("shape.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }\n", 4, "shape");
  npy_bad("overflow.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n", 8,
          "overflow");
  npy_bad("bigint.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }\n", 8, "fit");
  npy_bad("truncated.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n", 8, "passes the end");
  npy_bad("notdict.npy", "descr\n", 0, "not a dict");
  /* what numpy cannot parse either: a leading zero, a zero extent beside
     extents whose product overflows (the strides would), version 1.1 */
  npy_bad("zero.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (04,), }\n", 16, "shape");
  npy_bad("zerobig.npy",
          "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 9223372036854775807, 9223372036854775807), }\n", 0,
          "overflow");
  /* a .npy name without its magic says so (not only why it is no safetensors) */
  refused("empty.npy", "", 0, "not a .npy file (its first bytes are not the npy magic), nor safetensors: ");
  uint8_t v11[16] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 1, 0, 0};
  refused("version11.npy", v11, 16, "version 1.1");
  uint8_t v9[16] = {0x93, 'N', 'U', 'M', 'P', 'Y', 9, 0, 0, 0};
  refused("version.npy", v9, 16, "version 9.0");
  uint8_t hl[16] = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0xFF, 0xFF, 0xFF, 0x7F};
  refused("headerlen.npy", hl, 16, "over the limit");
  uint8_t hp[16] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0xFF, 0x0F};
  refused("headerpast.npy", hp, 16, "passes the end");
}

static void malformed_gguf(void) {
  uint8_t v1[24] = {'G', 'G', 'U', 'F', 1};
  refused("v1.gguf", v1, 24, "version 1");
  uint8_t be[24] = {'G', 'G', 'U', 'F', 0, 0, 0, 3};
  refused("bigendian.gguf", be, 24, "a big-endian GGUF file (version 3)");
  uint8_t t[10] = {'G', 'G', 'U', 'F', 3, 0, 0, 0, 1};
  refused("trunc.gguf", t, 10, "truncated");
  uint8_t counts[24] = {'G', 'G', 'U', 'F', 3, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F};
  refused("counts.gguf", counts, 24, "counts");
  /* One pair with a string key whose length passes the file. */
  uint8_t key[40] = {'G', 'G', 'U', 'F', 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0};
  refused("key.gguf", key, 40, "a key");
  /* A tensor of unknown type 99. */
  uint8_t ty[64] = {'G', 'G', 'U', 'F', 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                    1, 0, 0, 0, 0, 0, 0, 0, 'w', 1, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 99, 0, 0, 0};
  refused("type.gguf", ty, 64, "ggml type 99");
  /* An F32 tensor of 4 elements whose data passes the end. */
  uint8_t past[64] = {'G', 'G', 'U', 'F', 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                      1, 0, 0, 0, 0, 0, 0, 0, 'w', 1, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  refused("past.gguf", past, 64, "passes the end");
}

/* A committed file of the fuzzers' seeds, refused as refused() refuses. */
static void refused_seed(const char *name, const char *what) {
  char p[512];
  snprintf(p, sizeof p, "%s/%s", NX_IO_SEEDS, name);
  FILE *f = fopen(p, "rb");
  uint8_t b[4096];
  size_t n = f ? fread(b, 1, sizeof b, f) : 0;
  if (f) fclose(f);
  CHECK(n > 0 && n < sizeof b, "%s: read %zu bytes", p, n);
  if (n > 0) refused(strrchr(name, '/') + 1, b, n, what);
}

static void malformed_npz(void) {
  uint8_t z[64] = {'P', 'K', 3, 4, 20, 0};
  refused("trunc.npz", z, 64, "not a zip archive");
  /* A deflated entry whose headers claim 4 GiB from 115 bytes: refused
     before anything is inflated. */
  refused_seed("npz/bomb.npz", "zip bomb");
  /* Two entries named x.npy. */
  refused_seed("npz/duplicate.npz", "two entries have the same name");
  /* An entry whose .npy header says it is shorter than the 12 bytes read
     first (found by fuzz_npz: the copy of those bytes overran the header's
     buffer). */
  refused_seed("npz/short-header.npz", ".npy");
}

static void writers(void) {
  nx_array *a;
  int64_t shape[1] = {4};
  uint64_t seed = 7;
  a = random_array(NX_FLOAT32, shape, 1, &seed);
  nx_io_writer *w;
  /* No folder: the commit fails, naming the file, and writes nothing. */
  const char *bad = "/nonexistent-folder-of-nx/x.safetensors";
  CHECK(nx_io_writer_open(bad, NX_IO_SAFETENSORS, &w) == 0, "%s", nx_error_message());
  CHECK(nx_io_writer_add(w, "a", a) == 0, "%s", nx_error_message());
  CHECK(nx_io_writer_commit(w) == NX_EIO && strstr(nx_error_message(), bad), "%s", nx_error_message());
  /* A failed write keeps an existing file as it was. */
  const char *p = path_of("keep.npy");
  write_file(p, "old", 3);
  CHECK(nx_io_writer_open(p, NX_IO_NPY, &w) == 0, "%s", nx_error_message());
  CHECK(nx_io_writer_add(w, "a", a) == 0, "%s", nx_error_message());
  CHECK(nx_io_writer_add(w, "b", a) == NX_EINVAL && strstr(nx_error_message(), "one array"), "%s", nx_error_message());
  CHECK(nx_io_writer_add(w, "a", a) == NX_EINVAL && strstr(nx_error_message(), "already"), "%s", nx_error_message());
  nx_io_writer_abort(w);
  struct stat st;
  CHECK(stat(p, &st) == 0 && st.st_size == 3, "the old file is kept");
  CHECK(nx_io_writer_open(p, NX_IO_GGUF, &w) == NX_EINVAL && strstr(nx_error_message(), "GGUF"), "GGUF write refused");
  CHECK(nx_io_writer_open(p, NX_IO_NPY, &w) == 0 && nx_io_writer_metadata(w, "k", "v") == NX_EINVAL, "npy metadata");
  nx_io_writer_abort(w);
  CHECK(nx_io_writer_open(NULL, NX_IO_NPY, &w) == NX_EINVAL, "NULL path");
  nx_io_file *f;
  CHECK(nx_io_open(NULL, &f) == NX_EINVAL && strstr(nx_error_message(), "nx_io_open"), "NULL path");
  CHECK(nx_io_open(path_of("missing.npy"), &f) == NX_EIO && strstr(nx_error_message(), "missing.npy"), "missing");
  CHECK(nx_io_load(NULL, 0, NULL) == NX_EINVAL, "NULL file");
  /* The folder holds no temporary files afterwards. */
  unlink(p);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", dir);
  CHECK(system(cmd) == 0, "%s is empty: no temporary file left", dir);
  nx_array_free(a);
}

/* Safetensors' data in the reference writer's order, so that its files and
   nx's are the same bytes: its dtypes in decreasing order of its list (not
   by width alone: U64, I64, F64 and C64 are one width, as are F32, U32 and
   I32), then names byte by byte; the header lists them in that order. The
   tensors are added in the reverse order. */
static void writer_order(void) {
  static const nx_dtype order[] = {NX_UINT64,  NX_INT64,   NX_FLOAT64,       NX_COMPLEX64,   NX_FLOAT32, NX_UINT32,
                                   NX_INT32,   NX_BFLOAT16, NX_FLOAT16,      NX_UINT16,      NX_INT16,   NX_FLOAT8_E4M3FN,
                                   NX_FLOAT8_E5M2, NX_INT8, NX_UINT8,        NX_FLOAT4_E2M1FN, NX_BOOL};
  const int n = (int)(sizeof order / sizeof order[0]);
  const char *p = path_of("order.safetensors");
  nx_io_writer *w = NULL;
  CHECK(nx_io_writer_open(p, NX_IO_SAFETENSORS, &w) == 0, "%s", nx_error_message());
  uint64_t seed = 3;
  int64_t two = 2;
  for (int k = n - 1; k >= 0 && w; k--) {
    nx_array *a = random_array(order[k], &two, 1, &seed);
    char name[64];
    snprintf(name, sizeof name, "t_%s", nx_dtype_name(order[k]));
    CHECK(a && nx_io_writer_add(w, name, a) == 0, "add %s: %s", name, nx_error_message());
    nx_array_free(a);
  }
  /* two names of one dtype: "B" before "a" byte by byte */
  nx_array *f = random_array(NX_FLOAT32, &two, 1, &seed);
  CHECK(w && nx_io_writer_add(w, "a", f) == 0 && nx_io_writer_add(w, "B", f) == 0, "%s", nx_error_message());
  nx_array_free(f);
  CHECK(w && nx_io_writer_commit(w) == 0, "commit: %s", nx_error_message());
  FILE *in = fopen(p, "rb");
  char head[4096] = {0};
  size_t got = in ? fread(head, 1, sizeof head - 1, in) : 0;
  if (in) fclose(in);
  CHECK(got > 8, "read %s", p);
  const char *last = head + 8, *at;
  for (int k = 0; k < n; k++) {
    char key[72];
    snprintf(key, sizeof key, "\"t_%s\"", nx_dtype_name(order[k]));
    at = strstr(head + 8, key);
    CHECK(at && at > last, "%s listed after the one before it", key);
    if (at) last = at;
  }
  const char *B = strstr(head + 8, "\"B\""), *a = strstr(head + 8, "\"a\"");
  const char *t32 = strstr(head + 8, "\"t_float32\""), *t64 = strstr(head + 8, "\"t_complex64\"");
  CHECK(B && a && t32 && t64 && t64 < B && B < a && a < t32, "float32's names in byte order: \"B\", \"a\", \"t_float32\"");
  unlink(p);
}

/* A strided, transposed, sub-byte-offset view is written as its elements. */
static void views(void) {
  int64_t shape[2] = {4, 6};
  uint64_t seed = 9;
  nx_array *a = random_array(NX_FLOAT4_E2M1FN, shape, 2, &seed), *v, *c;
  int order[2] = {1, 0};
  nx_move m;
  nx_move_permute(&m, order, 2);
  CHECK(nx_array_move(&m, a, &v) == 0, "permute");
  nx_io_writer *w;
  const char *p = path_of("view.safetensors");
  CHECK(nx_io_writer_open(p, NX_IO_SAFETENSORS, &w) == 0 && nx_io_writer_add(w, "v", v) == 0 &&
            nx_io_writer_commit(w) == 0, "%s", nx_error_message());
  nx_io_file *f;
  CHECK(nx_io_open(p, &f) == 0, "%s", nx_error_message());
  if (f) {
    CHECK(nx_io_load(f, 0, &c) == 0 && same_bits(v, c), "a transposed float4 view round trips");
    nx_array_free(c);
    nx_io_close(f);
  }
  unlink(p);
  nx_array_free(v);
  nx_array_free(a);
}

/* What the formats' neighbours make and take: special files, a stale
   errno, empty archives, names that are not UTF-8. */
static void edges(void) {
  nx_io_file *f = NULL;
  /* a FIFO is refused at once, not waited on; errno left over from before
     is not given as the reason */
  const char *fifo = path_of("fifo.safetensors");
  if (mkfifo(fifo, 0600) == 0) {
    errno = ENOSPC;
    CHECK(nx_io_open(fifo, &f) == NX_EIO && !f && strstr(nx_error_message(), "not a regular file") &&
              !strstr(nx_error_message(), strerror(ENOSPC)),
          "a FIFO: %s", nx_error_message());
    unlink(fifo);
  }
  errno = ENOSPC;
  CHECK(nx_io_open(dir, &f) == NX_EIO && !f && !strstr(nx_error_message(), strerror(ENOSPC)), "a folder: %s",
        nx_error_message());
  /* a writer with nothing added writes an empty archive that reads back */
  const char *e = path_of("empty.npz");
  nx_io_writer *w;
  CHECK(nx_io_writer_open(e, NX_IO_NPZ, &w) == 0 && nx_io_writer_commit(w) == 0, "empty npz: %s", nx_error_message());
  CHECK(nx_io_open(e, &f) == 0 && nx_io_file_count(f) == 0, "empty npz read: %s", nx_error_message());
  nx_io_close(f);
  unlink(e);
  e = path_of("empty.safetensors");
  CHECK(nx_io_writer_open(e, NX_IO_SAFETENSORS, &w) == 0 && nx_io_writer_commit(w) == 0, "empty safetensors: %s",
        nx_error_message());
  CHECK(nx_io_open(e, &f) == 0 && nx_io_file_count(f) == 0, "empty safetensors read: %s", nx_error_message());
  nx_io_close(f);
  unlink(e);
  /* names and metadata that are not UTF-8 are refused where they are given */
  int64_t shape[1] = {2};
  uint64_t seed = 3;
  nx_array *a = random_array(NX_FLOAT32, shape, 1, &seed);
  const nx_io_format fmts[2] = {NX_IO_SAFETENSORS, NX_IO_NPZ};
  for (int k = 0; k < 2; k++) {
    CHECK(nx_io_writer_open(path_of(k ? "u.npz" : "u.safetensors"), fmts[k], &w) == 0, "%s", nx_error_message());
    CHECK(nx_io_writer_add(w, "a\xff", a) == NX_EINVAL && strstr(nx_error_message(), "nx_io_writer_add") &&
              strstr(nx_error_message(), "not UTF-8"),
          "a name not UTF-8 (%s): %s", nx_io_format_name(fmts[k]), nx_error_message());
    CHECK(nx_io_writer_add(w, "caf\xc3\xa9", a) == 0, "a UTF-8 name: %s", nx_error_message());
    nx_io_writer_abort(w);
  }
  CHECK(nx_io_writer_open(path_of("m.safetensors"), NX_IO_SAFETENSORS, &w) == 0, "%s", nx_error_message());
  CHECK(nx_io_writer_metadata(w, "k", "\xc0\xaf") == NX_EINVAL && strstr(nx_error_message(), "value of key 'k'"),
        "an overlong value: %s", nx_error_message());
  CHECK(nx_io_writer_metadata(w, "\xed\xa0\x80", "v") == NX_EINVAL && strstr(nx_error_message(), "not UTF-8"),
        "a surrogate key: %s", nx_error_message());
  nx_io_writer_abort(w);
  nx_array_free(a);
}

int main(void) {
  CHECK(!strcmp(nx_io_format_name(NX_IO_GGUF), "gguf") && nx_io_format_name((nx_io_format)99) == NULL &&
            strstr(nx_error_message(), "nx_io_format_name: 99 is no nx_io_format"),
        "format names: %s", nx_error_message());
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/nx-test-io-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) return skip("cannot make a temporary folder");
  round_trip(NX_IO_SAFETENSORS, "safetensors");
  round_trip(NX_IO_NPY, "npy");
  round_trip(NX_IO_NPZ, "npz");
  malformed_safetensors();
  malformed_npy();
  malformed_gguf();
  malformed_npz();
  views();
  writer_order();
  writers();
  edges();
  rmdir(dir);
  return check_done();
}
