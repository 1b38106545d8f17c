/* SPDX-License-Identifier: Apache-2.0 */
/* .npz: a zip of .npy entries, read through libzip from the mapping. Every
   entry's .npy header is read and validated at open; its data is read into a
   fresh host array by nx_io_load (a deflated entry has to be inflated, and
   libzip gives no address of a stored entry's bytes). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"
#include "../base/alloc.h"

#ifdef NX_HAVE_LIBZIP
#include <zip.h>

/* Deflate inflates at most about 1032 to 1: an entry that claims more lies
   (a zip bomb's forged size), and is refused before it is inflated. */
#define DEFLATE_MAX_RATIO 1032

void nx__npz_close(nx_io_file *f) {
  zip_discard(f->zip);
  f->zip = NULL;
}

/* Reads exactly n bytes of z into p: 0, or -1 when the entry ends first or
   libzip fails (its message then names why). */
static int read_exact(zip_file_t *z, void *p, int64_t n) {
  uint8_t *q = p;
  while (n > 0) {
    zip_int64_t got = zip_fread(z, q, (zip_uint64_t)(n > (1 << 30) ? (1 << 30) : n));
    if (got <= 0) return -1;
    q += got;
    n -= got;
  }
  return 0;
}

static const char *entry_error(zip_file_t *z) {
  const char *e = z ? zip_error_strerror(zip_file_get_error(z)) : "";
  return e && *e ? e : "the entry ends early";
}

/* Reads entry i's .npy header. */
static int entry_header(nx_io_file *f, const char *fn, zip_uint64_t i, const zip_stat_t *st, nx__npy_header *h,
                        const char *where) {
  zip_file_t *z = zip_fopen_index(f->zip, i, 0);
  if (!z) return nx__fail(NX_EINVAL, "%s: %s: cannot open the entry: %s", fn, where, zip_strerror(f->zip));
  uint8_t pre[12];
  int64_t want = st->size < 12 ? (int64_t)st->size : 12;
  int s = 0;
  if (read_exact(z, pre, want) != 0) {
    s = nx__fail(NX_EINVAL, "%s: %s: cannot read the entry: %s", fn, where, entry_error(z));
  } else if (want < 10 || memcmp(pre, "\x93NUMPY", 6)) {
    s = nx__fail(NX_EINVAL, "%s: %s: the entry is not a .npy (wrong magic or shorter than 10 bytes)", fn, where);
  } else {
    int64_t len = pre[6] == 1 ? 10 + (pre[8] | (int64_t)pre[9] << 8)
                              : 12 + (pre[8] | (int64_t)pre[9] << 8 | (int64_t)pre[10] << 16 | (int64_t)pre[11] << 24);
    if (len > (1 << 20) + 12) len = (1 << 20) + 12; /* the parser refuses it */
    if (len > (int64_t)st->size) len = (int64_t)st->size;
    if (len < want) len = want; /* a header shorter than the bytes read: the parser refuses it */
    uint8_t *buf = nx__malloc((size_t)len);
    if (!buf) {
      s = nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, where);
    } else {
      memcpy(buf, pre, (size_t)want);
      if (len > want && read_exact(z, buf + want, len - want) != 0)
        s = nx__fail(NX_EINVAL, "%s: %s: cannot read the .npy header: %s", fn, where, entry_error(z));
      else
        s = nx__npy_header_parse(buf, len, h, fn, where);
      nx__free(buf);
    }
  }
  zip_fclose(z);
  return s;
}

/* Reads every entry's facts into f, stopping at the first bad one. */
static int entries(nx_io_file *f, const char *fn) {
  zip_int64_t n = zip_get_num_entries(f->zip, 0);
  for (zip_int64_t i = 0; i < n; i++) {
    zip_stat_t st;
    if (zip_stat_index(f->zip, (zip_uint64_t)i, 0, &st) != 0)
      return nx__fail(NX_EINVAL, "%s: %s: entry %lld: %s", fn, f->path, (long long)i, zip_strerror(f->zip));
    /* An ASCII name is its bytes, control bytes included, as Python's
       zipfile (numpy's) reads it; libzip's guess would map those through
       CP437's glyphs. Other names as libzip decodes them: UTF-8 where the
       entry says so, else CP437, as zipfile does. */
    const char *raw = zip_get_name(f->zip, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
    bool ascii = raw != NULL;
    for (const char *c = raw; ascii && *c; c++) ascii = (unsigned char)*c < 0x80;
    if (ascii) st.name = raw;
    size_t len = strlen(st.name);
    char where[600];
    snprintf(where, sizeof where, "%s:%s", f->path, st.name);
    if (len < 4 || strcmp(st.name + len - 4, ".npy")) /* ".npy" alone: numpy's entry of the name "" */
      return nx__fail(NX_EINVAL, "%s: %s: the entry is not a .npy (its name does not end in .npy)", fn, where);
    if (st.comp_method != ZIP_CM_STORE && st.comp_method != ZIP_CM_DEFLATE)
      return nx__fail(NX_EINVAL, "%s: %s: compression method %d is neither stored nor deflated", fn, where,
                      (int)st.comp_method);
    if (st.comp_method == ZIP_CM_DEFLATE && st.size / DEFLATE_MAX_RATIO > st.comp_size + 1)
      return nx__fail(NX_EINVAL, "%s: %s: the entry claims %llu bytes from %llu deflated ones, more than deflate "
                                 "gives (a zip bomb)", fn, where, (unsigned long long)st.size,
                      (unsigned long long)st.comp_size);
    if (st.size > (zip_uint64_t)INT64_MAX)
      return nx__fail(NX_EINVAL, "%s: %s: the entry's size overflows an int64", fn, where);
    nx__npy_header h;
    int s = entry_header(f, fn, (zip_uint64_t)i, &st, &h, where);
    if (s != 0) return s;
    if ((int64_t)st.size - h.data_offset != h.t.bytes)
      return nx__fail(NX_EINVAL, "%s: %s: the entry holds %lld data bytes, its .npy header gives %lld", fn, where,
                      (long long)((int64_t)st.size - h.data_offset), (long long)h.t.bytes);
    len -= 4;
    h.t.offset = h.data_offset;
    if ((s = nx__io_add_tensor(f, fn, &h.t, st.name, len, h.descr)) != 0) return s;
  }
  return 0;
}

int nx__npz_parse(nx_io_file *f, const char *fn) {
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t *src = zip_source_buffer_create(f->map, (zip_uint64_t)f->size, 0, &err);
  if (src) {
    f->zip = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
    if (!f->zip) zip_source_free(src);
  }
  if (!f->zip) {
    /* libzip refuses two entries of one name itself, as "File already exists". */
    int s = zip_error_code_zip(&err) == ZIP_ER_EXISTS
                ? nx__fail(NX_EINVAL, "%s: %s: two entries have the same name (%s)", fn, f->path,
                           zip_error_strerror(&err))
                : nx__fail(NX_EINVAL, "%s: %s: not a zip archive nx reads: %s", fn, f->path, zip_error_strerror(&err));
    zip_error_fini(&err);
    return s;
  }
  zip_error_fini(&err);
  int s = entries(f, fn);
  /* A name given twice before the first bad entry is refused first, as a
     check of each name in turn would, against a set of the names before. */
  int first;
  if (nx__io_first_repeat(f->tensors, sizeof *f->tensors, offsetof(nx_io_tensor, name), f->count, &first) != 0)
    return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, f->path);
  if (first >= 0)
    return nx__fail(NX_EINVAL, "%s: %s:%s.npy: a second entry of that name", fn, f->path, f->tensors[first].name);
  return s;
}

struct npz_fill {
  zip_file_t *z;
  const nx_io_tensor *t;
  int swap;
};

static int npz_fill(void *ctx, uint8_t *base, int64_t bytes) {
  struct npz_fill *c = ctx;
  if (read_exact(c->z, base, bytes) != 0) return NX_EIO;
  uint8_t extra;
  /* Reading past the end makes libzip check the CRC. */
  if (zip_fread(c->z, &extra, 1) != 0) return NX_EIO;
  for (int64_t k = 0; c->swap > 1 && k < bytes; k += c->swap)
    for (int j = 0; j < c->swap / 2; j++) {
      uint8_t x = base[k + j];
      base[k + j] = base[k + c->swap - 1 - j];
      base[k + c->swap - 1 - j] = x;
    }
  return 0;
}

int nx__npz_load(nx_io_file *f, int i, nx_array **a) {
  static const char fn[] = "nx_io_load";
  const nx_io_tensor *t = &f->tensors[i];
  zip_file_t *z = zip_fopen_index(f->zip, (zip_uint64_t)i, 0);
  if (!z) return nx__fail(NX_EIO, "%s: %s:%s.npy: %s", fn, f->path, t->name, zip_strerror(f->zip));
  uint8_t *skip = nx__malloc((size_t)t->offset);
  int s = skip ? 0 : NX_ENOMEM;
  if (s == 0 && read_exact(z, skip, t->offset) != 0) s = NX_EIO;
  nx__free(skip);
  int bits = nx_dtype_bits(t->dtype);
  struct npz_fill c = {z, t, t->big_endian ? (nx_dtype_kind(t->dtype) == NX_KIND_COMPLEX ? bits / 16 : bits / 8) : 0};
  nx_array *r = NULL;
  if (s == 0) s = nx__io_fresh(t, npz_fill, &c, &r);
  if (s != 0) {
    int st = s == NX_ENOMEM ? s : NX_EIO;
    s = s == NX_ENOMEM ? nx__fail(s, "%s: %s:%s.npy: out of memory", fn, f->path, t->name)
        : s == NX_EIO  ? nx__fail(st, "%s: %s:%s.npy: cannot read the entry: %s", fn, f->path, t->name, entry_error(z))
                       : s;
    zip_fclose(z);
    return s;
  }
  zip_fclose(z);
  *a = r;
  return 0;
}

#else

void nx__npz_close(nx_io_file *f) { f->zip = NULL; }

int nx__npz_parse(nx_io_file *f, const char *fn) {
  return nx__fail(NX_EINVAL, "%s: %s: a .npz file, and this nx was built without libzip", fn, f->path);
}

int nx__npz_load(nx_io_file *f, int i, nx_array **a) {
  (void)i;
  (void)a;
  return nx__fail(NX_EINVAL, "nx_io_load: %s: a .npz file, and this nx was built without libzip", f->path);
}

#endif
