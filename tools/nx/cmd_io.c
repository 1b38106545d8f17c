/* SPDX-License-Identifier: Apache-2.0 */
/* What the file subcommands share. */
#define _POSIX_C_SOURCE 200809L
#include "cmd_io.h"

#include <fnmatch.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int nx_tool_fail(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "nx %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return NX_EXIT_FAILED;
}

int nx_tool_usage(const char *cmd, const char *usage, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "nx %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\nusage: %s\n", usage);
  va_end(ap);
  return NX_EXIT_USAGE;
}

nx_io_file *nx_tool_open(const char *cmd, const char *path) {
  nx_io_file *f;
  if (nx_io_open(path, &f) != 0) {
    nx_tool_fail(cmd, "%s", nx_error_message());
    return NULL;
  }
  return f;
}

bool nx_tool_match(const char *glob, const char *name) { return !glob || fnmatch(glob, name, 0) == 0; }

bool nx_tool_is_scale(nx_io_file *f, int i) {
  const char *n = nx_io_file_tensor(f, i)->name;
  size_t len = strlen(n), sl = strlen(NX_SCALE_SUFFIX);
  if (len <= sl || strcmp(n + len - sl, NX_SCALE_SUFFIX)) return false;
  char *base = strndup(n, len - sl);
  int j;
  bool r = base && nx_io_file_find(f, base, &j) == 0;
  free(base);
  return r;
}

static void take_first(void *ctx, int64_t k, double x) {
  if (k == 0) *(double *)ctx = x;
}

int nx_tool_scale_of(const char *cmd, nx_io_file *f, int i, double *scale) {
  const nx_io_tensor *t = nx_io_file_tensor(f, i);
  *scale = 1;
  size_t len = strlen(t->name) + sizeof NX_SCALE_SUFFIX;
  char *name = malloc(len);
  if (!name) return -1;
  snprintf(name, len, "%s%s", t->name, NX_SCALE_SUFFIX);
  int j, s = nx_io_file_find(f, name, &j);
  free(name);
  if (s != 0) return 0;
  const nx_io_tensor *st = nx_io_file_tensor(f, j);
  nx_array *a;
  if (!st->has_dtype || nx_dtype_kind(st->dtype) != NX_KIND_FLOAT || st->bytes * 8 != nx_dtype_bits(st->dtype)) {
    nx_tool_fail(cmd, "%s: tensor '%s' is not one float", nx_io_file_path(f), st->name);
    return -1;
  }
  if (nx_io_load(f, j, &a) != 0) {
    nx_tool_fail(cmd, "%s", nx_error_message());
    return -1;
  }
  s = nx_tool_each(a, take_first, scale);
  nx_array_free(a);
  if (s != 0) nx_tool_fail(cmd, "%s", nx_error_message());
  return s ? -1 : 0;
}

/* Raw bytes, one element per byte, as ml_dtypes stores its 4-bit formats:
   each element the low nibble of its byte (ml_dtypes reads no other bit),
   into a fresh array of the 4-bit dtype as. */
static int unpack4(const char *cmd, nx_io_file *f, const nx_io_tensor *t, nx_dtype as, nx_array **a) {
  int64_t n = 1;
  for (int k = 0; k < t->rank; k++) n *= t->shape[k];
  nx_value *v = malloc((size_t)(n ? n : 1) * sizeof *v);
  int s = v ? nx_array_to_array(*a, v, n) : -1;
  for (int64_t k = 0; s == 0 && k < n; k++) {
    unsigned c = (unsigned)v[k].u & 0xF;
    if (as == NX_FLOAT4_E2M1FN) v[k].f = nx_dtype_load_bits(NX_FLOAT4_E2M1FN, c);
    else if (as == NX_INT4) v[k].i = c >= 8 ? (int64_t)c - 16 : (int64_t)c;
    else v[k].u = c;
  }
  nx_array *r = NULL;
  if (s == 0) s = nx_array_of_array(as, t->shape, t->rank, v, n, &r);
  free(v);
  nx_array_free(*a);
  *a = r;
  if (s != 0) return nx_tool_fail(cmd, "%s: tensor '%s': %s", nx_io_file_path(f), t->name, v ? nx_error_message() : "out of memory");
  return 0;
}

int nx_tool_load(const char *cmd, nx_io_file *f, int i, int as, nx_array **a) {
  const nx_io_tensor *t = nx_io_file_tensor(f, i);
  if (t->raw && as < 0) /* numbers of the raw bytes would be silently wrong: the file does not say the format */
    return nx_tool_fail(cmd, "%s: tensor '%s' holds raw %d-bit elements (%s) of a format the file does not name: "
                        "give --as DTYPE (%s)", nx_io_file_path(f), t->name, nx_dtype_bits(t->dtype), t->type,
                        nx_dtype_bits(t->dtype) == 16 ? "bfloat16 or float16, as numpy saves them"
                                                      : "float8_e4m3fn, float8_e5m2, int4, uint4 or float4_e2m1fn");
  if (nx_io_load(f, i, a) != 0) return nx_tool_fail(cmd, "%s", nx_error_message());
  if (as < 0 || !t->raw) return 0;
  if (nx_dtype_bits((nx_dtype)as) == 4 && nx_dtype_bits(t->dtype) == 8) return unpack4(cmd, f, t, (nx_dtype)as, a);
  if (nx_dtype_bits((nx_dtype)as) != nx_dtype_bits(t->dtype)) {
    nx_array_free(*a);
    return nx_tool_fail(cmd, "%s: tensor '%s' holds raw %d-bit elements (%s), and %s is %d bits", nx_io_file_path(f),
                        t->name, nx_dtype_bits(t->dtype), t->type, nx_dtype_name((nx_dtype)as),
                        nx_dtype_bits((nx_dtype)as));
  }
  nx_array *r;
  int s = nx_array_bitcast((nx_dtype)as, *a, &r);
  nx_array_free(*a);
  *a = NULL;
  if (s != 0) return nx_tool_fail(cmd, "%s: tensor '%s': %s", nx_io_file_path(f), t->name, nx_error_message());
  *a = r;
  return 0;
}

struct each {
  nx_tool_each_fn fn;
  void *ctx;
};

/* The bits of the element at position p of width w from base. */
static uint64_t bits_at(const uint8_t *base, int64_t p, int w, int part) {
  if (w < 8) return (uint64_t)(base[p * w / 8] >> (p * w % 8)) & ((1u << w) - 1);
  int n = part < 0 ? w / 8 : w / 16; /* a complex element's component */
  const uint8_t *q = base + p * (w / 8) + (part > 0 ? n : 0);
  uint64_t u = 0;
  for (int k = n - 1; k >= 0; k--) u = u << 8 | q[k];
  return u;
}

static int each_read(void *ctx, const void *base, nx_dtype dt, const nx_layout *l) {
  struct each *c = ctx;
  int64_t n = nx_layout_count(l);
  if (n == 0) return 0;
  int w = nx_dtype_bits(dt);
  bool cx = nx_dtype_kind(dt) == NX_KIND_COMPLEX;
  int part_code = dt == NX_COMPLEX128 ? NX_FLOAT64 : NX_FLOAT32;
  int64_t index[NX_MAX_RANK] = {0};
  int64_t pos = l->offset;
  for (int64_t k = 0; k < n; k++) {
    if (cx) {
      c->fn(c->ctx, 2 * k, nx_dtype_load_bits(part_code, bits_at(base, pos, w, 0)));
      c->fn(c->ctx, 2 * k + 1, nx_dtype_load_bits(part_code, bits_at(base, pos, w, 1)));
    } else {
      c->fn(c->ctx, k, nx_dtype_load_bits((int)dt, bits_at(base, pos, w, -1)));
    }
    for (int j = l->rank - 1; j >= 0; j--) {
      pos += l->stride[j];
      if (++index[j] < l->extent[j]) break;
      pos -= l->stride[j] * l->extent[j];
      index[j] = 0;
    }
  }
  return 0;
}

int nx_tool_each(const nx_array *a, nx_tool_each_fn fn, void *ctx) {
  struct each c = {fn, ctx};
  return nx_array_read(a, each_read, &c);
}

int64_t nx_tool_values(const nx_array *a) {
  int64_t n = nx_layout_count(nx_array_layout(a));
  return nx_dtype_kind(nx_array_dtype(a)) == NX_KIND_COMPLEX ? 2 * n : n;
}

/* The length of the strict UTF-8 character at p (no overlong form,
   surrogate or code point past U+10FFFF), 0 if none starts there. */
static int utf8_char(const unsigned char *p) {
  int len = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 : 0;
  if (len < 2) return len;
  uint32_t cp = *p & (0x7F >> len);
  for (int k = 1; k < len; k++) {
    if ((p[k] & 0xC0) != 0x80) return 0; /* a NUL ends the string here too */
    cp = cp << 6 | (p[k] & 0x3F);
  }
  static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  return cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ? 0 : len;
}

void nx_tool_json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    int len = utf8_char(p);
    if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
    else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
    else if (len == 0) fputs("\\ufffd", out); /* a byte that is no UTF-8: JSON text must be */
    else fwrite(p, 1, (size_t)len, out);
    p += len ? len : 1;
  }
  fputc('"', out);
}

const char *nx_tool_shape(const int64_t *shape, int rank, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "[");
  for (int j = 0; j < rank && n < cap; j++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", j ? ", " : "", (long long)shape[j]);
  if (n < cap) snprintf(buf + n, cap - n, "]");
  return buf;
}

int nx_tool_dtype(const char *s, nx_dtype *dt) { return nx_dtype_of_name(s, dt) == 0 ? 0 : -1; }
