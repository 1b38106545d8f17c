/* SPDX-License-Identifier: Apache-2.0 */
/* .npy: the header (magic, version, a Python-literal dict), its descr
   strings, and the preamble nx writes. */
#include <stdio.h>
#include <string.h>

#include "io_internal.h"

/* The largest header nx reads: numpy refuses past 10000 bytes unless told
   otherwise; structured headers can be longer, but nx refuses those. */
#define NPY_HEADER_MAX (1 << 20)

/* descr strings: the byte order, the kind and the width. */
static const struct {
  char kind;
  int bytes;
  nx_dtype dt;
} descrs[] = {
    {'b', 1, NX_BOOL},     {'i', 1, NX_INT8},     {'u', 1, NX_UINT8},       {'i', 2, NX_INT16},
    {'u', 2, NX_UINT16},   {'i', 4, NX_INT32},    {'u', 4, NX_UINT32},      {'i', 8, NX_INT64},
    {'u', 8, NX_UINT64},   {'f', 2, NX_FLOAT16},  {'f', 4, NX_FLOAT32},     {'f', 8, NX_FLOAT64},
    {'c', 8, NX_COMPLEX64}, {'c', 16, NX_COMPLEX128}, {'f', 1, NX_FLOAT8_E5M2},
};

/* A tiny reader of the header's Python literals. */
typedef struct lex {
  const char *p, *end;
} lex;

static void skip_space(lex *x) {
  while (x->p < x->end && (*x->p == ' ' || *x->p == '\t' || *x->p == '\n' || *x->p == '\r')) x->p++;
}

static bool eat(lex *x, char c) {
  skip_space(x);
  if (x->p < x->end && *x->p == c) {
    x->p++;
    return true;
  }
  return false;
}

/* A quoted string into out (cap bytes, NUL-terminated): false if none or too long. */
static bool string_lit(lex *x, char *out, size_t cap) {
  skip_space(x);
  if (x->p >= x->end || (*x->p != '\'' && *x->p != '"')) return false;
  char q = *x->p++;
  size_t n = 0;
  while (x->p < x->end && *x->p != q) {
    if (*x->p == '\\' || n + 1 >= cap) return false;
    out[n++] = *x->p++;
  }
  if (x->p >= x->end) return false;
  x->p++;
  out[n] = 0;
  return true;
}

static bool word(lex *x, const char *w) {
  skip_space(x);
  size_t n = strlen(w);
  if ((size_t)(x->end - x->p) >= n && !memcmp(x->p, w, n)) {
    x->p += n;
    return true;
  }
  return false;
}

/* A non-negative decimal integer (Python 2's L suffix allowed): false on
   overflow or none. */
static bool int_lit(lex *x, int64_t *v) {
  skip_space(x);
  if (x->p >= x->end || *x->p < '0' || *x->p > '9') return false;
  /* Python's literals have no leading zero (numpy cannot parse "(04,)") */
  if (*x->p == '0' && x->p + 1 < x->end && x->p[1] >= '0' && x->p[1] <= '9') return false;
  int64_t n = 0;
  while (x->p < x->end && *x->p >= '0' && *x->p <= '9') {
    int d = *x->p++ - '0';
    if (n > (INT64_MAX - d) / 10) return false;
    n = n * 10 + d;
  }
  if (x->p < x->end && *x->p == 'L') x->p++;
  *v = n;
  return true;
}

/* numpy's other spellings of the same dtypes, which its reader takes (other
   writers use them): a type character, a name, or a descr without its byte
   order (native: little-endian, as on every host nx builds for). The
   canonical "<kind><bytes>" form of d into out, or d itself. */
static const char *canonical(const char *d, char *out, size_t cap) {
  static const struct { const char *from, *to; } names[] = {
      {"?", "|b1"},         {"b", "|i1"},         {"B", "|u1"},         {"h", "<i2"},        {"H", "<u2"},
      {"i", "<i4"},         {"I", "<u4"},         {"l", "<i8"},         {"L", "<u8"},        {"q", "<i8"},
      {"Q", "<u8"},         {"e", "<f2"},         {"f", "<f4"},         {"d", "<f8"},        {"F", "<c8"},
      {"D", "<c16"},        {"bool", "|b1"},      {"int8", "|i1"},      {"uint8", "|u1"},    {"int16", "<i2"},
      {"uint16", "<u2"},    {"int32", "<i4"},     {"uint32", "<u4"},    {"int64", "<i8"},    {"uint64", "<u8"},
      {"float16", "<f2"},   {"float32", "<f4"},   {"float64", "<f8"},   {"complex64", "<c8"}, {"complex128", "<c16"}};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (!strcmp(d, names[k].from)) return names[k].to;
  if (strchr("biufcV", d[0]) && d[0] && d[1] >= '0' && d[1] <= '9') {
    snprintf(out, cap, "=%s", d);
    return out;
  }
  return d;
}

/* The descr's dtype: 0, or a refusal naming what it is. */
static int descr_dtype(const char *given, nx__npy_header *h, const char *fn, const char *where) {
  char buf[64];
  const char *d = canonical(given, buf, sizeof buf);
  size_t n = strlen(d);
  char order = d[0];
  if (n < 3 || (order != '<' && order != '>' && order != '|' && order != '='))
    return nx__fail(NX_EINVAL, "%s: %s: descr '%s' is not a numeric dtype nx reads", fn, where, given);
  char kind = d[1];
  int64_t bytes = 0;
  for (size_t k = 2; k < n; k++) {
    if (d[k] < '0' || d[k] > '9' || bytes > 1000)
      return nx__fail(NX_EINVAL, "%s: %s: descr '%s' is not a numeric dtype nx reads (dates, units and structured "
                                 "dtypes are refused)", fn, where, given);
    bytes = bytes * 10 + (d[k] - '0');
  }
  if (kind == 'O')
    return nx__fail(NX_EINVAL, "%s: %s: descr '%s' is an object dtype (a pickle), which nx refuses", fn, where, given);
  if (kind == 'V' && (bytes == 1 || bytes == 2)) {
    h->t.dtype = bytes == 1 ? NX_UINT8 : NX_UINT16;
    h->t.raw = true;
    h->t.has_dtype = true;
    return 0;
  }
  for (size_t k = 0; k < sizeof descrs / sizeof descrs[0]; k++)
    if (descrs[k].kind == kind && descrs[k].bytes == bytes) {
      h->t.dtype = descrs[k].dt;
      h->t.has_dtype = true;
      h->t.big_endian = order == '>' && bytes > 1;
      return 0;
    }
  if (strchr("biufc", kind))
    return nx__fail(NX_EINVAL, "%s: %s: descr '%s' is a numeric dtype of %lld bytes, which nx has no dtype for", fn,
                    where, given, (long long)bytes);
  return nx__fail(NX_EINVAL, "%s: %s: descr '%s' is not a numeric dtype nx reads (object, string, date, void "
                             "and structured dtypes are refused)", fn, where, given);
}

int nx__npy_header_parse(const uint8_t *p, int64_t n, nx__npy_header *h, const char *fn, const char *where) {
  memset(h, 0, sizeof *h);
  if (n < 10 || memcmp(p, "\x93NUMPY", 6))
    return nx__fail(NX_EINVAL, "%s: %s: not a .npy file (wrong magic or shorter than 10 bytes)", fn, where);
  int major = p[6];
  int64_t len, start;
  if (major == 1) {
    len = p[8] | (int64_t)p[9] << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (n < 12) return nx__fail(NX_EINVAL, "%s: %s: truncated .npy preamble", fn, where);
    len = p[8] | (int64_t)p[9] << 8 | (int64_t)p[10] << 16 | (int64_t)p[11] << 24;
    start = 12;
  } else {
    return nx__fail(NX_EINVAL, "%s: %s: .npy version %d.%d is not 1.0, 2.0 or 3.0", fn, where, major, p[7]);
  }
  if (p[7] != 0) /* as numpy, which reads versions 1.0, 2.0 and 3.0 alone */
    return nx__fail(NX_EINVAL, "%s: %s: .npy version %d.%d is not 1.0, 2.0 or 3.0", fn, where, major, p[7]);
  if (len > NPY_HEADER_MAX)
    return nx__fail(NX_EINVAL, "%s: %s: .npy header of %lld bytes is over the limit of %d", fn, where,
                    (long long)len, NPY_HEADER_MAX);
  if (start + len > n)
    return nx__fail(NX_EINVAL, "%s: %s: .npy header of %lld bytes passes the end of the file (%lld bytes)", fn,
                    where, (long long)len, (long long)n);
  lex x = {(const char *)p + start, (const char *)p + start + len};
  bool seen_descr = false, seen_order = false, seen_shape = false;
  if (!eat(&x, '{')) return nx__fail(NX_EINVAL, "%s: %s: the .npy header is not a dict", fn, where);
  while (!eat(&x, '}')) {
    char key[32];
    if (!string_lit(&x, key, sizeof key) || !eat(&x, ':'))
      return nx__fail(NX_EINVAL, "%s: %s: the .npy header is not a dict of quoted keys", fn, where);
    if (!strcmp(key, "descr") && !seen_descr) {
      seen_descr = true;
      skip_space(&x);
      if (x.p < x.end && *x.p == '[')
        return nx__fail(NX_EINVAL, "%s: %s: descr is a structured dtype, which nx refuses", fn, where);
      if (!string_lit(&x, h->descr, sizeof h->descr))
        return nx__fail(NX_EINVAL, "%s: %s: descr is not a dtype string nx reads", fn, where);
      int s = descr_dtype(h->descr, h, fn, where);
      if (s != 0) return s;
    } else if (!strcmp(key, "fortran_order") && !seen_order) {
      seen_order = true;
      if (word(&x, "True")) h->t.fortran = true;
      else if (!word(&x, "False"))
        return nx__fail(NX_EINVAL, "%s: %s: fortran_order is not True or False", fn, where);
    } else if (!strcmp(key, "shape") && !seen_shape) {
      seen_shape = true;
      if (!eat(&x, '(')) return nx__fail(NX_EINVAL, "%s: %s: shape is not a tuple", fn, where);
      while (!eat(&x, ')')) {
        if (h->t.rank == NX_MAX_RANK)
          return nx__fail(NX_EINVAL, "%s: %s: shape has more than %d axes", fn, where, NX_MAX_RANK);
        if (!int_lit(&x, &h->t.shape[h->t.rank]))
          return nx__fail(NX_EINVAL, "%s: %s: shape holds something other than extents that fit in an int64", fn,
                          where);
        h->t.rank++;
        if (!eat(&x, ',')) {
          if (!eat(&x, ')')) return nx__fail(NX_EINVAL, "%s: %s: shape is not a tuple", fn, where);
          break;
        }
      }
    } else {
      return nx__fail(NX_EINVAL, "%s: %s: the .npy header has an unknown or repeated key '%s'", fn, where, key);
    }
    if (!eat(&x, ',')) {
      if (!eat(&x, '}')) return nx__fail(NX_EINVAL, "%s: %s: the .npy header is not a dict", fn, where);
      break;
    }
  }
  skip_space(&x);
  if (x.p != x.end) return nx__fail(NX_EINVAL, "%s: %s: the .npy header has bytes after its dict", fn, where);
  if (!seen_descr || !seen_order || !seen_shape)
    return nx__fail(NX_EINVAL, "%s: %s: the .npy header lacks '%s'", fn, where,
                    !seen_descr ? "descr" : !seen_order ? "fortran_order" : "shape");
  int64_t count;
  int s = nx__io_sizes(h->t.dtype, h->t.shape, h->t.rank, &count, &h->t.bytes, fn, where);
  if (s != 0) return s;
  h->t.type = h->descr;
  h->data_offset = start + len;
  return 0;
}

int nx__npy_parse(nx_io_file *f, const char *fn) {
  nx__npy_header h;
  int s = nx__npy_header_parse(f->map, f->size, &h, fn, f->path);
  if (s != 0) return s;
  if (h.t.bytes > f->size - h.data_offset)
    return nx__fail(NX_EINVAL, "%s: %s: the data of %lld bytes that the header gives passes the end of the file "
                               "(%lld bytes after the header)", fn, f->path, (long long)h.t.bytes,
                    (long long)(f->size - h.data_offset));
  h.t.offset = h.data_offset;
  return nx__io_add_tensor(f, fn, &h.t, "arr", 3, h.descr);
}

const char *nx__npy_descr(nx_dtype dt) {
  switch (dt) {
    case NX_FLOAT64: return "<f8";
    case NX_FLOAT32: return "<f4";
    case NX_FLOAT16: return "<f2";
    case NX_BFLOAT16: return "<V2";
    case NX_INT64: return "<i8";
    case NX_UINT64: return "<u8";
    case NX_INT32: return "<i4";
    case NX_UINT32: return "<u4";
    case NX_INT16: return "<i2";
    case NX_UINT16: return "<u2";
    case NX_INT8: return "|i1";
    case NX_UINT8: return "|u1";
    case NX_COMPLEX128: return "<c16";
    case NX_COMPLEX64: return "<c8";
    case NX_BOOL:
    case NX_BIT: return "|b1";
    default: return "<V1"; /* float8, float4, int4, uint4: one byte each, as np.save writes ml_dtypes' */
  }
}

int nx__npy_preamble(nx_dtype dt, const int64_t *shape, int rank, uint8_t *buf) {
  char dict[NX__NPY_PREAMBLE_MAX];
  int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", nx__npy_descr(dt));
  for (int j = 0; j < rank; j++)
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld%s", (long long)shape[j], rank == 1 ? "," : j + 1 < rank ? ", " : "");
  n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
  /* As numpy: room for the shape to grow, then spaces and a newline to a
     multiple of 64 bytes in all. */
  int total = 10 + n + 21 + 1;
  total = (total + 63) / 64 * 64;
  int len = total - 10;
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (uint8_t)(len & 0xFF);
  buf[9] = (uint8_t)(len >> 8);
  memcpy(buf + 10, dict, (size_t)n);
  memset(buf + 10 + n, ' ', (size_t)(len - n - 1));
  buf[total - 1] = '\n';
  return total;
}

int64_t nx__npy_data_bytes(nx_dtype dt, int64_t count) {
  int bits = nx_dtype_bits(dt);
  return bits < 8 ? count : count * (bits / 8);
}
