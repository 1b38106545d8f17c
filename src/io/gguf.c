/* SPDX-License-Identifier: Apache-2.0 */
/* GGUF (llama.cpp's format), read only: the header, the key/value pairs
   (kept as text metadata), and the tensor infos. Every read is bounded by
   the file. Dimensions are in ggml order (the first varies fastest), so the
   C-order shape is their reverse. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"
#include "../base/alloc.h"

/* ggml's types: code, name, elements per block, bytes per block, nx dtype
   (-1: a quantized block type, listed but not converted). */
static const struct {
  int code;
  const char *name;
  int block, size, dt;
} types[] = {
    {0, "F32", 1, 4, NX_FLOAT32},     {1, "F16", 1, 2, NX_FLOAT16},     {2, "Q4_0", 32, 18, -1},
    {3, "Q4_1", 32, 20, -1},          {6, "Q5_0", 32, 22, -1},          {7, "Q5_1", 32, 24, -1},
    {8, "Q8_0", 32, 34, -1},          {9, "Q8_1", 32, 40, -1},          {10, "Q2_K", 256, 84, -1},
    {11, "Q3_K", 256, 110, -1},       {12, "Q4_K", 256, 144, -1},       {13, "Q5_K", 256, 176, -1},
    {14, "Q6_K", 256, 210, -1},       {15, "Q8_K", 256, 292, -1},       {16, "IQ2_XXS", 256, 66, -1},
    {17, "IQ2_XS", 256, 74, -1},      {18, "IQ3_XXS", 256, 98, -1},     {19, "IQ1_S", 256, 50, -1},
    {20, "IQ4_NL", 32, 18, -1},       {21, "IQ3_S", 256, 110, -1},      {22, "IQ2_S", 256, 82, -1},
    {23, "IQ4_XS", 256, 136, -1},     {24, "I8", 1, 1, NX_INT8},        {25, "I16", 1, 2, NX_INT16},
    {26, "I32", 1, 4, NX_INT32},      {27, "I64", 1, 8, NX_INT64},      {28, "F64", 1, 8, NX_FLOAT64},
    {29, "IQ1_M", 256, 56, -1},       {30, "BF16", 1, 2, NX_BFLOAT16},  {34, "TQ1_0", 256, 54, -1},
    {35, "TQ2_0", 256, 66, -1},       {39, "MXFP4", 32, 17, -1},        {40, "NVFP4", 64, 36, -1},
    {41, "Q1_0", 128, 18, -1},
};

/* A cursor over the mapping. */
typedef struct cur {
  const uint8_t *p;
  int64_t pos, size;
  nx_io_file *f;
  const char *fn;
} cur;

static int truncated(cur *c, const char *what) {
  return nx__fail(NX_EINVAL, "%s: %s: truncated GGUF: %s at byte %lld passes the end of the file (%lld bytes)", c->fn,
                  c->f->path, what, (long long)c->pos, (long long)c->size);
}

static int get(cur *c, void *out, int64_t n, const char *what) {
  if (n > c->size - c->pos) return truncated(c, what);
  memcpy(out, c->p + c->pos, (size_t)n);
  c->pos += n;
  return 0;
}

static int u32(cur *c, uint32_t *v, const char *what) {
  uint8_t b[4] = {0};
  int s = get(c, b, 4, what);
  *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
  return s;
}

static int u64(cur *c, uint64_t *v, const char *what) {
  uint8_t b[8] = {0};
  int s = get(c, b, 8, what);
  *v = 0;
  for (int k = 7; k >= 0; k--) *v = *v << 8 | b[k];
  return s;
}

/* A string: its bytes in the mapping. */
static int str(cur *c, const char **p, uint64_t *n, const char *what) {
  int s = u64(c, n, what);
  if (s != 0) return s;
  if (*n > (uint64_t)(c->size - c->pos)) return truncated(c, what);
  *p = (const char *)c->p + c->pos;
  c->pos += (int64_t)*n;
  return 0;
}

/* Text under construction, bounded: a put that does not fit before `end`
   writes nothing and sets `full`, so that the text is only ever whole
   pieces (never a character cut in two). Each open array keeps SUFFIX
   bytes past `end` for its closing ", ...] (N values)". */
#define SUFFIX 40
typedef struct text {
  char buf[1024];
  size_t n, end;
  bool full;
} text;

static void put(text *t, const char *fmt, ...) NX__PRINTF(2, 3);
static void put(text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = t->n < t->end ? vsnprintf(t->buf + t->n, t->end - t->n, fmt, ap) : -1;
  va_end(ap);
  if (k >= 0 && (size_t)k < t->end - t->n) {
    t->n += (size_t)k;
  } else {
    t->full = true;
    t->buf[t->n] = 0;
  }
}

static const int scalar_size[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

/* One value of type ty, written into t (or only checked and skipped where t
   is NULL). An element is
   either written whole or leaves t as it was, with t->full set; an array
   closes itself with its count however far it got. */
static int value(cur *c, uint32_t ty, text *t, int depth) {
  if (ty > 12) return nx__fail(NX_EINVAL, "%s: %s: GGUF value type %u is not one of 0..12", c->fn, c->f->path, ty);
  if (ty == 8) {
    const char *p = NULL;
    uint64_t n;
    int s = str(c, &p, &n, "a string value");
    if (s != 0) return s;
    if (!t) return 0;
    /* Metadata is UTF-8 C strings: a value that is not (a tokenizer's byte
       tokens may not be) is shown mended, each stray byte and each NUL as
       U+FFFD, rather than the whole file refused for one value; the gguf
       package reads the tensors of such a file too. */
    char mended[3 * 256];
    if (!nx__io_utf8_valid((const uint8_t *)p, (int64_t)n) || memchr(p, 0, (size_t)n)) {
      n = nx__io_utf8_mend(p, n < 256 ? (size_t)n : 256, mended, sizeof mended);
      p = mended;
    }
    int len = (int)nx__io_utf8_cut(p, (size_t)n, 256); /* whole characters */
    if (!depth) {
      put(t, "%.*s", len, p);
      return 0;
    }
    /* in an array, quoted (a quote or backslash escaped), so that a comma
       inside a string or an empty one can be told */
    size_t at = t->n;
    put(t, "\"");
    for (int k = 0; k < len && !t->full; k++) put(t, p[k] == '"' || p[k] == '\\' ? "\\%c" : "%c", p[k]);
    put(t, "\"");
    if (t->full) t->buf[t->n = at] = 0; /* not the string's head alone */
    return 0;
  }
  if (ty == 9) {
    uint32_t et;
    uint64_t n;
    int s = u32(c, &et, "an array's type");
    if (s == 0) s = u64(c, &n, "an array's length");
    if (s != 0) return s;
    if (depth > 4) return nx__fail(NX_EINVAL, "%s: %s: GGUF arrays nest past 4 levels", c->fn, c->f->path);
    if (et > 12) return nx__fail(NX_EINVAL, "%s: %s: GGUF array type %u is not one of 0..12", c->fn, c->f->path, et);
    if (et != 8 && et != 9) {
      /* Fixed-size elements: bound the count by the file before anything. */
      if (n > (uint64_t)(c->size - c->pos) / (uint64_t)scalar_size[et]) return truncated(c, "an array");
    } else if (n > (uint64_t)(c->size - c->pos) / 8) {
      return truncated(c, "an array");
    }
    /* Open only with room for the suffix after it; else nothing is written. */
    if (t && t->n + 1 + SUFFIX < t->end) {
      put(t, "[");
      t->end -= SUFFIX;
    } else if (t) {
      t->full = true;
      t = NULL;
    }
    uint64_t shown = 0;
    for (uint64_t k = 0; k < n; k++) {
      text *into = t && !t->full && k < 16 ? t : NULL;
      if (!into && et != 8 && et != 9) {
        c->pos += (int64_t)((n - k) * (uint64_t)scalar_size[et]);
        break;
      }
      size_t at = into ? into->n : 0;
      if (into && k) put(into, ", ");
      size_t head = into ? into->n : 0;
      if ((s = value(c, et, into && !into->full ? into : NULL, depth + 1)) != 0) return s;
      if (into && into->full && into->n == head) into->buf[into->n = at] = 0; /* nothing of it fit: no ", " */
      if (into && into->n > head) shown++;
    }
    if (t) {
      t->end += SUFFIX;
      put(t, "%s] (%" PRIu64 " values)", shown == n ? "" : shown ? ", ..." : "...", n);
    }
    return 0;
  }
  uint8_t b[8] = {0};
  int s = get(c, b, scalar_size[ty], "a value");
  if (s != 0 || !t) return s;
  uint64_t u = 0;
  for (int k = scalar_size[ty] - 1; k >= 0; k--) u = u << 8 | b[k];
  switch (ty) {
    case 0: case 2: case 4: case 10: put(t, "%" PRIu64, u); break;
    case 1: put(t, "%d", (int8_t)u); break;
    case 3: put(t, "%d", (int16_t)u); break;
    case 5: put(t, "%d", (int32_t)u); break;
    case 11: put(t, "%" PRId64, (int64_t)u); break;
    case 7: put(t, "%s", u ? "true" : "false"); break;
    case 6: {
      char v[NX_DTYPE_PP_MAX];
      nx_dtype_pp_value(NX_FLOAT32, (nx_value){.f = nx_dtype_load_bits(NX_FLOAT32, u)}, v, sizeof v);
      put(t, "%s", v);
      break;
    }
    default: {
      char v[NX_DTYPE_PP_MAX];
      nx_dtype_pp_value(NX_FLOAT64, (nx_value){.f = nx_dtype_load_bits(NX_FLOAT64, u)}, v, sizeof v);
      put(t, "%s", v);
    }
  }
  return 0;
}

typedef struct span {
  uint64_t begin, end;
  int i;
} span;

static int by_begin(const void *a, const void *b) {
  const span *x = a, *y = b;
  return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* Refuses a key given twice, naming the first repeat in the file's order
   (as the gguf package's reader does). */
static int unique_keys(nx_io_file *f, const char *fn) {
  int first;
  if (nx__io_first_repeat(f->meta, sizeof *f->meta, offsetof(nx__io_meta, key), f->nmeta, &first) != 0)
    return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, f->path);
  if (first >= 0) return nx__fail(NX_EINVAL, "%s: %s: key '%s' is given twice", fn, f->path, f->meta[first].key);
  return 0;
}

/* Refuses a tensor name given twice. Run once all the infos before the
   first bad one are read, it names the first repeat, so that a file gets
   the refusal a check of each name in turn would give. */
static int unique_names(nx_io_file *f, const char *fn) {
  int first;
  if (nx__io_first_repeat(f->tensors, sizeof *f->tensors, offsetof(nx_io_tensor, name), f->count, &first) != 0)
    return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, f->path);
  if (first >= 0)
    return nx__fail(NX_EINVAL, "%s: %s: tensor '%s': a second tensor of that name", fn, f->path,
                    f->tensors[first].name);
  return 0;
}

int nx__gguf_parse(nx_io_file *f, const char *fn) {
  cur c = {f->map, 4, f->size, f, fn};
  uint32_t version = 0;
  uint64_t nt = 0, nkv = 0;
  int s = u32(&c, &version, "the version");
  if (s == 0 && (version == 2u << 24 || version == 3u << 24)) /* the version's bytes swapped */
    return nx__fail(NX_EINVAL, "%s: %s: a big-endian GGUF file (version %u), which nx does not read", fn, f->path,
                    version >> 24);
  if (s == 0 && version != 2 && version != 3)
    return nx__fail(NX_EINVAL, "%s: %s: GGUF version %u is not 2 or 3", fn, f->path, version);
  if (s == 0) s = u64(&c, &nt, "the tensor count");
  if (s == 0) s = u64(&c, &nkv, "the key/value count");
  if (s != 0) return s;
  /* Each pair and each tensor info takes at least 12 bytes: counts the file
     cannot hold are refused before anything is allocated for them. */
  if (nkv > (uint64_t)f->size / 12 || nt > (uint64_t)f->size / 12 || nt > INT32_MAX)
    return nx__fail(NX_EINVAL, "%s: %s: GGUF counts (%" PRIu64 " tensors, %" PRIu64 " pairs) pass what the file holds",
                    fn, f->path, nt, nkv);
  uint64_t alignment = 32;
  for (uint64_t k = 0; k < nkv; k++) {
    const char *key = NULL;
    uint64_t klen = 0;
    uint32_t ty = 0;
    if ((s = str(&c, &key, &klen, "a key")) != 0 || (s = u32(&c, &ty, "a value's type")) != 0) return s;
    /* GGUF's keys are UTF-8 and unique, as its reference reader requires */
    if (!nx__io_utf8_valid((const uint8_t *)key, (int64_t)klen) || memchr(key, 0, (size_t)klen))
      return nx__fail(NX_EINVAL, "%s: %s: key %" PRIu64 " is not UTF-8 without NUL bytes", fn, f->path, k);
    text t = {.n = 0, .end = sizeof t.buf};
    int64_t at = c.pos;
    if ((s = value(&c, ty, &t, 0)) != 0) return s;
    if (klen == 17 && !memcmp(key, "general.alignment", 17)) {
      if (ty != 4) return nx__fail(NX_EINVAL, "%s: %s: general.alignment is not a uint32", fn, f->path);
      uint32_t a = (uint32_t)f->map[at] | (uint32_t)f->map[at + 1] << 8 | (uint32_t)f->map[at + 2] << 16 |
                   (uint32_t)f->map[at + 3] << 24;
      if (a == 0 || (a & (a - 1)))
        return nx__fail(NX_EINVAL, "%s: %s: general.alignment %u is not a power of two", fn, f->path, a);
      alignment = a;
    }
    if ((s = nx__io_add_meta(f, fn, key, (size_t)klen, t.buf, t.n)) != 0) return s;
  }
  if ((s = unique_keys(f, fn)) != 0) return s;
  span *sp = nx__calloc(nt ? nt : 1, sizeof *sp);
  if (!sp) return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, f->path);
  for (uint64_t k = 0; k < nt && s == 0; k++) {
    const char *name = NULL;
    uint64_t nlen = 0;
    uint32_t nd = 0, code = 0;
    nx_io_tensor t = {0};
    uint64_t dims[NX_MAX_RANK] = {0}, off = 0;
    if ((s = str(&c, &name, &nlen, "a tensor name")) != 0 || (s = u32(&c, &nd, "a tensor's rank")) != 0) break;
    if (!nx__io_utf8_valid((const uint8_t *)name, (int64_t)nlen)) {
      s = nx__fail(NX_EINVAL, "%s: %s: tensor %" PRIu64 "'s name is not UTF-8", fn, f->path, k);
      break;
    }
    if (nd > NX_MAX_RANK) {
      s = nx__fail(NX_EINVAL, "%s: %s: tensor '%.*s' has %u dimensions, past %d", fn, f->path, (int)nlen, name, nd,
                   NX_MAX_RANK);
      break;
    }
    for (uint32_t j = 0; j < nd && s == 0; j++) s = u64(&c, &dims[j], "a dimension");
    if (s == 0) s = u32(&c, &code, "a tensor's type");
    if (s == 0) s = u64(&c, &off, "a tensor's offset");
    if (s != 0) break;
    int ti = -1;
    for (size_t q = 0; q < sizeof types / sizeof types[0]; q++)
      if (types[q].code == (int)code) ti = (int)q;
    if (ti < 0) {
      s = nx__fail(NX_EINVAL, "%s: %s: tensor '%.*s' has ggml type %u, which is unknown", fn, f->path, (int)nlen, name,
                   code);
      break;
    }
    uint64_t count = 1;
    t.rank = (int)nd;
    for (uint32_t j = 0; j < nd; j++) {
      if (dims[j] > (uint64_t)INT64_MAX || (dims[j] && count > (uint64_t)INT64_MAX / dims[j])) {
        s = nx__fail(NX_EINVAL, "%s: %s: tensor '%.*s': the element count overflows an int64", fn, f->path, (int)nlen,
                     name);
        break;
      }
      count *= dims[j];
      t.shape[nd - 1 - j] = (int64_t)dims[j];
    }
    if (s != 0) break;
    if (nd > 0 && dims[0] % (uint64_t)types[ti].block) {
      s = nx__fail(NX_EINVAL, "%s: %s: tensor '%.*s': its first dimension %" PRIu64 " is not a multiple of %s's block "
                   "of %d", fn, f->path, (int)nlen, name, dims[0], types[ti].name, types[ti].block);
      break;
    }
    uint64_t blocks = count / (uint64_t)types[ti].block;
    if (blocks > (uint64_t)INT64_MAX / (uint64_t)types[ti].size) {
      s = nx__fail(NX_EINVAL, "%s: %s: tensor '%.*s': the byte size overflows an int64", fn, f->path, (int)nlen, name);
      break;
    }
    if (off % alignment) {
      s = nx__fail(NX_EINVAL, "%s: %s: tensor '%.*s': offset %" PRIu64 " is not a multiple of the alignment %" PRIu64,
                   fn, f->path, (int)nlen, name, off, alignment);
      break;
    }
    t.bytes = (int64_t)(blocks * (uint64_t)types[ti].size);
    t.has_dtype = types[ti].dt >= 0;
    t.dtype = t.has_dtype ? (nx_dtype)types[ti].dt : NX_UINT8;
    sp[k] = (span){off, off + (uint64_t)t.bytes, (int)k};
    if (sp[k].end < off) {
      s = nx__fail(NX_EINVAL, "%s: %s: tensor '%.*s': its offset overflows", fn, f->path, (int)nlen, name);
      break;
    }
    t.offset = (int64_t)(off > (uint64_t)INT64_MAX ? INT64_MAX : off); /* made absolute below */
    if (memchr(name, 0, (size_t)nlen)) {
      s = nx__fail(NX_EINVAL, "%s: %s: tensor '%s': its name holds a NUL byte", fn, f->path, name);
      break;
    }
    s = nx__io_add_tensor(f, fn, &t, name, (size_t)nlen, types[ti].name);
  }
  /* A name given twice before the first bad info is refused first. */
  int d = unique_names(f, fn);
  if (d != 0) s = d;
  if (s == 0) {
    uint64_t data = ((uint64_t)c.pos + alignment - 1) / alignment * alignment;
    uint64_t avail = (uint64_t)f->size > data ? (uint64_t)f->size - data : 0;
    qsort(sp, nt, sizeof *sp, by_begin);
    for (uint64_t k = 0; k < nt && s == 0; k++) {
      nx_io_tensor *t = &f->tensors[sp[k].i];
      if (sp[k].end > avail)
        s = nx__fail(NX_EINVAL, "%s: %s: tensor '%s': its data [%" PRIu64 ", %" PRIu64 ") passes the end of the data "
                     "section (%" PRIu64 " bytes)", fn, f->path, t->name, sp[k].begin, sp[k].end, avail);
      else if (k && sp[k].begin < sp[k - 1].end)
        s = nx__fail(NX_EINVAL, "%s: %s: tensor '%s': its data overlaps tensor '%s''s", fn, f->path, t->name,
                     f->tensors[sp[k - 1].i].name);
      else
        t->offset = (int64_t)(data + sp[k].begin);
    }
  }
  nx__free(sp);
  return s;
}
