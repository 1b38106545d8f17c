/* SPDX-License-Identifier: Apache-2.0 */
/* Writers of .npy, .npz and .safetensors files: arrays and metadata are
   collected, then written at commit into a temporary file renamed over the
   output only once it is complete and on disk. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_internal.h"
#include "../base/alloc.h"

typedef struct item {
  char *name;
  nx_array *a; /* the writer's own view: the tensor, or a transform's source */
  nx_dtype dt; /* the tensor's dtype */
  nx_io_transform_fn f; /* NULL, or the transform computing the tensor from a */
  void *ctx;
} item;

struct nx_io_writer {
  char *path;
  nx_io_format fmt;
  item *items;
  int n, cap;
  nx__io_meta *meta;
  int nmeta, meta_cap;
  nx__nameset names, keys; /* the items' names and the metadata's keys */
};

int nx_io_writer_open(const char *path, nx_io_format fmt, nx_io_writer **w) {
  static const char fn[] = "nx_io_writer_open";
  if (!path || !w) return nx__fail(NX_EINVAL, "%s: %s is NULL", fn, path ? "w" : "path");
  if (fmt != NX_IO_NPY && fmt != NX_IO_NPZ && fmt != NX_IO_SAFETENSORS)
    return nx__fail(NX_EINVAL, "%s: %s: nx writes .npy, .npz and .safetensors files, not %s", fn, path,
                    fmt == NX_IO_GGUF ? "GGUF" : "that format");
#ifndef NX_HAVE_LIBZIP
  if (fmt == NX_IO_NPZ) return nx__fail(NX_EINVAL, "%s: %s: this nx was built without libzip, for .npz", fn, path);
#endif
#ifndef NX_HAVE_JANSSON
  if (fmt == NX_IO_SAFETENSORS)
    return nx__fail(NX_EINVAL, "%s: %s: this nx was built without a JSON library, for safetensors", fn, path);
#endif
  nx_io_writer *r = nx__calloc(1, sizeof *r);
  if (!r || !(r->path = nx__strdup(path))) {
    nx__free(r);
    return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, path);
  }
  r->fmt = fmt;
  *w = r;
  return 0;
}

void nx_io_writer_abort(nx_io_writer *w) {
  if (!w) return;
  for (int i = 0; i < w->n; i++) {
    nx__free(w->items[i].name);
    nx_array_free(w->items[i].a);
  }
  for (int i = 0; i < w->nmeta; i++) {
    nx__free(w->meta[i].key);
    nx__free(w->meta[i].value);
  }
  nx__free(w->items);
  nx__free(w->meta);
  nx__free(w->path);
  nx__nameset_free(&w->names);
  nx__nameset_free(&w->keys);
  nx__free(w);
}

int nx_io_writer_metadata(nx_io_writer *w, const char *key, const char *value) {
  static const char fn[] = "nx_io_writer_metadata";
  if (!w || !key || !value) return nx__fail(NX_EINVAL, "%s: %s is NULL", fn, !w ? "w" : !key ? "key" : "value");
  if (w->fmt != NX_IO_SAFETENSORS)
    return nx__fail(NX_EINVAL, "%s: %s: a .%s file has no metadata", fn, w->path, nx_io_format_name(w->fmt));
  if (!*key) return nx__fail(NX_EINVAL, "%s: %s: an empty key", fn, w->path);
  bool key_ok = nx__io_utf8_valid((const uint8_t *)key, (int64_t)strlen(key));
  if (!key_ok || !nx__io_utf8_valid((const uint8_t *)value, (int64_t)strlen(value)))
    return nx__fail(NX_EINVAL, "%s: %s: the %s of key '%s' is not UTF-8, which JSON requires", fn, w->path,
                    key_ok ? "value" : "name", key);
  if (nx__nameset_has(&w->keys, key)) return nx__fail(NX_EINVAL, "%s: %s: key '%s' is already added", fn, w->path, key);
  if (w->nmeta == w->meta_cap) {
    int cap = w->meta_cap ? 2 * w->meta_cap : 8;
    nx__io_meta *m = nx__realloc(w->meta, (size_t)cap * sizeof *m);
    if (!m) return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, w->path);
    w->meta = m;
    w->meta_cap = cap;
  }
  nx__io_meta *m = &w->meta[w->nmeta];
  m->key = nx__strdup(key);
  m->value = nx__strdup(value);
  if (!m->key || !m->value || nx__nameset_add(&w->keys, m->key)) {
    nx__free(m->key);
    nx__free(m->value);
    return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, w->path);
  }
  w->nmeta++;
  return 0;
}

/* Adds a (or, with f, the tensor of dtype dt that f computes from a). */
static int add_item(nx_io_writer *w, const char *fn, const char *name, const nx_array *a, nx_dtype dt,
                    nx_io_transform_fn f, void *ctx) {
  char d[256];
  const nx_layout *l = nx_array_layout(a);
  nx_array_describe(a, d, sizeof d);
  if (f) { /* the tensor's own dtype, a's shape */
    char *shape = strchr(d, '[');
    char t[256];
    snprintf(t, sizeof t, "%s %s", nx_dtype_name(dt), shape ? shape : "[]");
    memcpy(d, t, sizeof d);
  }
  if (!*name || !strcmp(name, "__metadata__"))
    return nx__fail(NX_EINVAL, "%s: %s: the name '%s' is not a tensor's (%s)", fn, w->path, name, d);
  if (w->fmt != NX_IO_NPY && !nx__io_utf8_valid((const uint8_t *)name, (int64_t)strlen(name)))
    return nx__fail(NX_EINVAL, "%s: %s: the name '%s' is not UTF-8, which a .%s file's names are (%s)", fn, w->path,
                    name, nx_io_format_name(w->fmt), d);
  if (nx__nameset_has(&w->names, name))
    return nx__fail(NX_EINVAL, "%s: %s: tensor '%s' is already added (%s)", fn, w->path, name, d);
  if (w->fmt == NX_IO_NPY && w->n == 1)
    return nx__fail(NX_EINVAL, "%s: %s: a .npy file holds one array; '%s' (%s) would be a second", fn, w->path, name, d);
  if (w->fmt == NX_IO_SAFETENSORS) {
    if (!nx__safetensors_dtype_name(dt))
      return nx__fail(NX_EINVAL, "%s: %s: tensor '%s' (%s): safetensors has no dtype string for %s", fn, w->path, name,
                      d, nx_dtype_name(dt));
    if (nx_dtype_bits(dt) < 8 && nx_layout_count(l) * nx_dtype_bits(dt) % 8)
      return nx__fail(NX_EINVAL, "%s: %s: tensor '%s' (%s) is not a whole number of bytes, which safetensors requires",
                      fn, w->path, name, d);
  }
  if (w->n == w->cap) {
    int cap = w->cap ? 2 * w->cap : 16;
    item *it = nx__realloc(w->items, (size_t)cap * sizeof *it);
    if (!it) return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, w->path);
    w->items = it;
    w->cap = cap;
  }
  const char *dead = nx_buffer_dead(nx_array_buffer(a)); /* the view below would not say it */
  if (dead) return nx__fail(NX_EINVAL, "%s: %s: tensor '%s' (%s): its buffer is dead (%s)", fn, w->path, name, d, dead);
  item *it = &w->items[w->n];
  nx_move keep;
  nx_move_slice(&keep, NULL, NULL, NULL, 0); /* slices no axis: a view of the same elements */
  if (!(it->name = nx__strdup(name))) return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, w->path);
  int s = nx_array_move(&keep, a, &it->a);
  if (s != 0) {
    nx__free(it->name);
    return nx__fail(s == NX_NONE ? NX_EINVAL : s, "%s: %s: tensor '%s' (%s): %s", fn, w->path, name, d,
                    nx_error_message());
  }
  if (nx__nameset_add(&w->names, it->name)) {
    nx_array_free(it->a);
    nx__free(it->name);
    return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, w->path);
  }
  it->dt = dt;
  it->f = f;
  it->ctx = ctx;
  w->n++;
  return 0;
}

int nx_io_writer_add(nx_io_writer *w, const char *name, const nx_array *a) {
  static const char fn[] = "nx_io_writer_add";
  if (!w || !name || !a) return nx__fail(NX_EINVAL, "%s: %s is NULL", fn, !w ? "w" : !name ? "name" : "a");
  return add_item(w, fn, name, a, nx_array_dtype(a), NULL, NULL);
}

int nx_io_writer_add_transform(nx_io_writer *w, const char *name, const nx_array *a, nx_dtype dt,
                               nx_io_transform_fn f, void *ctx) {
  static const char fn[] = "nx_io_writer_add_transform";
  if (!w || !name || !a || !f)
    return nx__fail(NX_EINVAL, "%s: %s is NULL", fn, !w ? "w" : !name ? "name" : !a ? "a" : "f");
  if (!nx_dtype_name(dt)) return nx__fail(NX_EINVAL, "%s: %s: tensor '%s': dtype %d is no dtype", fn, w->path, name, (int)dt);
  return add_item(w, fn, name, a, dt, f, ctx);
}

/* A .npy or .npz output is made in memory: each transform's tensor becomes
   a host array holding its result. */
struct made {
  item *it;
  const char *path;
};

static int make_write(void *ctx, void *base, nx_dtype dt, const nx_layout *l) {
  struct made *m = ctx;
  (void)l; /* fresh and contiguous from byte 0 */
  (void)dt;
  return nx__io_transform_run(m->it->a, m->it->dt, m->it->f, m->it->ctx, -1, 0, base, "nx_io_writer_commit",
                              m->path, m->it->name);
}

static int make_in_memory(nx_io_writer *w) {
  for (int i = 0; i < w->n; i++) {
    item *it = &w->items[i];
    if (!it->f) continue;
    const nx_layout *l = nx_array_layout(it->a);
    nx_array *out;
    struct made m = {it, w->path};
    int s = nx_array_host(it->dt, l->extent, l->rank, &out);
    if (s == 0 && (s = nx_array_write(out, make_write, &m)) != 0) nx_array_free(out);
    if (s != 0) return nx__fail_as("nx_io_writer_commit", s);
    nx_array_free(it->a);
    it->a = out;
    it->f = NULL;
  }
  return 0;
}

/* Put callbacks: into the temporary file, or into memory. */
struct to_file {
  nx__io_temp *t;
  const char *path;
};

static int put_file(void *ctx, const void *p, size_t n) {
  struct to_file *c = ctx;
  return nx__io_temp_write(c->t, p, n, "nx_io_writer_commit", c->path);
}

static int commit_npy(nx_io_writer *w, nx__io_temp *t, const char *fn) {
  if (w->n != 1) return nx__fail(NX_EINVAL, "%s: %s: a .npy file needs one array, %d were added", fn, w->path, w->n);
  const nx_layout *l = nx_array_layout(w->items[0].a);
  uint8_t pre[NX__NPY_PREAMBLE_MAX];
  int n = nx__npy_preamble(nx_array_dtype(w->items[0].a), l->extent, l->rank, pre);
  int s = nx__io_temp_write(t, pre, (size_t)n, fn, w->path);
  struct to_file c = {t, w->path};
  if (s == 0) s = nx__io_array_bytes(w->items[0].a, true, put_file, &c, fn);
  return s;
}

#ifdef NX_HAVE_JANSSON
#include <jansson.h>

/* As the reference writer: its dtypes in decreasing order of its own list
   (by alignment, so each tensor stays aligned when the data starts on 8
   bytes; within one width its list's order: U64, I64, F64, C64, then F32,
   U32, I32, ...), then by name, byte by byte. */
static int by_alignment(const void *x, const void *y) {
  const item *a = x, *b = y;
  int ra = nx__safetensors_dtype_rank(a->dt), rb = nx__safetensors_dtype_rank(b->dt);
  if (ra != rb) return ra > rb ? -1 : 1;
  return strcmp(a->name, b->name);
}

/* The reference writer spells a control character's escape in lower-case
   hex (\u001f), jansson in upper case: lowered, the header is the
   reference's byte for byte. Only an escape's own backslash starts a
   sequence here (a literal one is written as two), so pairs are skipped. */
static void lower_escapes(char *t) {
  for (; *t; t++) {
    if (*t != '\\') continue;
    if (t[1] == 'u')
      for (int k = 2; k < 6 && t[k]; k++)
        if (t[k] >= 'A' && t[k] <= 'F') t[k] = (char)(t[k] - 'A' + 'a');
    if (t[1]) t++;
  }
}

static int commit_safetensors(nx_io_writer *w, nx__io_temp *t, const char *fn) {
  if (w->n) qsort(w->items, (size_t)w->n, sizeof *w->items, by_alignment);
  json_t *root = json_object();
  int s = root ? 0 : NX_ENOMEM;
  if (s == 0 && w->nmeta) {
    json_t *m = json_object();
    if (!m || json_object_set_new(root, "__metadata__", m)) s = NX_ENOMEM;
    for (int i = 0; s == 0 && i < w->nmeta; i++)
      if (json_object_set_new(m, w->meta[i].key, json_string(w->meta[i].value))) s = NX_ENOMEM;
  }
  int64_t off = 0;
  for (int i = 0; s == 0 && i < w->n; i++) {
    const nx_layout *l = nx_array_layout(w->items[i].a);
    nx_dtype dt = w->items[i].dt;
    int64_t bytes;
    nx_dtype_bytes(dt, nx_layout_count(l), &bytes);
    json_t *e = json_object(), *shape = json_array(), *offs = json_array();
    if (!e || !shape || !offs || json_object_set_new(root, w->items[i].name, e) ||
        json_object_set_new(e, "dtype", json_string(nx__safetensors_dtype_name(dt))) ||
        json_object_set_new(e, "shape", shape) || json_object_set_new(e, "data_offsets", offs)) {
      s = NX_ENOMEM;
      break;
    }
    for (int j = 0; j < l->rank; j++) json_array_append_new(shape, json_integer(l->extent[j]));
    json_array_append_new(offs, json_integer(off));
    json_array_append_new(offs, json_integer(off + bytes));
    off += bytes;
  }
  /* json_dumpb into nx's own memory: json_dumps would allocate it with the
     C library's malloc, which nx's free must not be handed. */
  size_t need = s == 0 ? json_dumpb(root, NULL, 0, JSON_COMPACT) : 0;
  char *text = need ? nx__malloc(need + 1) : NULL;
  if (text && json_dumpb(root, text, need, JSON_COMPACT) == need) {
    text[need] = 0;
    lower_escapes(text);
  } else {
    nx__free(text);
    text = NULL;
  }
  json_decref(root);
  if (!text) return nx__fail(NX_ENOMEM, "%s: %s: out of memory (or a name that is not UTF-8)", fn, w->path);
  size_t n = strlen(text), padded = (n + 7) / 8 * 8;
  uint8_t len[8];
  for (int k = 0; k < 8; k++) len[k] = (uint8_t)((uint64_t)padded >> (8 * k));
  static const char spaces[8] = "        ";
  s = nx__io_temp_write(t, len, 8, fn, w->path);
  if (s == 0) s = nx__io_temp_write(t, text, n, fn, w->path);
  if (s == 0) s = nx__io_temp_write(t, spaces, padded - n, fn, w->path);
  nx__free(text);
  struct to_file c = {t, w->path};
  int64_t at = 8 + (int64_t)padded; /* the file offset of the next tensor's bytes */
  for (int i = 0; s == 0 && i < w->n; i++) {
    item *it = &w->items[i];
    int64_t bytes;
    nx_dtype_bytes(it->dt, nx_layout_count(nx_array_layout(it->a)), &bytes);
    if (!it->f) {
      s = nx__io_array_bytes(it->a, false, put_file, &c, fn);
    } else if ((s = nx__io_transform_run(it->a, it->dt, it->f, it->ctx, t->fd, at, NULL, fn, w->path, it->name)) == 0 &&
               lseek(t->fd, (off_t)(at + bytes), SEEK_SET) < 0) {
      s = nx__fail(NX_EIO, "%s: %s: cannot seek past tensor '%s'", fn, w->path, it->name);
    }
    at += bytes;
  }
  return s;
}
#else
static int commit_safetensors(nx_io_writer *w, nx__io_temp *t, const char *fn) {
  (void)t;
  return nx__fail(NX_EINVAL, "%s: %s: built without a JSON library", fn, w->path);
}
#endif

#ifdef NX_HAVE_LIBZIP
#include <zip.h>

struct to_mem {
  uint8_t *p;
  size_t n, cap;
};

static int put_mem(void *ctx, const void *p, size_t n) {
  struct to_mem *c = ctx;
  if (n > c->cap - c->n) return NX_EINVAL; /* the writer sized it: cannot happen */
  memcpy(c->p + c->n, p, n);
  c->n += n;
  return 0;
}


/* libzip writes the archive at zip_close, through a file of its own renamed
   over the temporary one; the entries are in memory until then. */
static int commit_npz(nx_io_writer *w, nx__io_temp *t, const char *fn) {
  if (w->n == 0) {
    /* libzip removes an archive with no entry at its close: an empty
       archive (numpy's savez of nothing) is its end record alone */
    static const uint8_t end[22] = {'P', 'K', 5, 6};
    return nx__io_temp_write(t, end, sizeof end, fn, w->path);
  }
  close(t->fd);
  t->fd = -1;
  int err = 0;
  zip_t *z = zip_open(t->tmp, ZIP_CREATE | ZIP_TRUNCATE, &err);
  if (!z) return nx__fail(NX_EIO, "%s: %s: the zip library cannot create the archive (error %d)", fn, w->path, err);
  /* The entries' bytes stay nx's until the archive is written: a zip
     source that frees its buffer would hand it to the C library's free. */
  uint8_t **bufs = nx__calloc((size_t)(w->n ? w->n : 1), sizeof *bufs);
  if (!bufs) {
    zip_discard(z);
    return nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, w->path);
  }
  int s = 0;
  for (int i = 0; s == 0 && i < w->n; i++) {
    nx_array *a = w->items[i].a;
    const nx_layout *l = nx_array_layout(a);
    uint8_t pre[NX__NPY_PREAMBLE_MAX];
    int np = nx__npy_preamble(nx_array_dtype(a), l->extent, l->rank, pre);
    int64_t data = nx__npy_data_bytes(nx_array_dtype(a), nx_layout_count(l));
    struct to_mem m = {nx__malloc((size_t)(np + data) + 1), 0, (size_t)(np + data)};
    if (!m.p) {
      s = nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, w->path);
      break;
    }
    put_mem(&m, pre, (size_t)np);
    s = nx__io_array_bytes(a, true, put_mem, &m, fn);
    char *entry = nx__malloc(strlen(w->items[i].name) + 5);
    bufs[i] = m.p;
    zip_source_t *src = s == 0 && entry ? zip_source_buffer(z, m.p, m.n, 0) : NULL;
    if (s == 0 && (!entry || !src)) s = nx__fail(NX_ENOMEM, "%s: %s: out of memory", fn, w->path);
    if (s == 0) {
      sprintf(entry, "%s.npy", w->items[i].name);
      /* An ASCII name is stored as its bytes (numpy's zipfile stores it so);
         libzip refuses a control byte other than tab and line ends in a name
         flagged UTF-8, and numpy's names may hold one. */
      bool ascii = true;
      for (const char *c = entry; *c; c++) ascii &= (unsigned char)*c < 0x80;
      if (zip_file_add(z, entry, src, ascii ? ZIP_FL_ENC_RAW : ZIP_FL_ENC_UTF_8) < 0) {
        zip_source_free(src);
        s = nx__fail(NX_EIO, "%s: %s: entry '%s': the zip library refuses it (%s)%s", fn, w->path, entry,
                     zip_strerror(z), ascii ? "" : "; a name beyond ASCII may not hold a control character");
      } else {
        zip_set_file_compression(z, (zip_uint64_t)i, ZIP_CM_STORE, 0);
      }
    }
    nx__free(entry);
  }
  if (s == 0 && zip_close(z) != 0) {
    s = nx__fail(NX_EIO, "%s: %s: the zip library cannot write the archive: %s", fn, w->path, zip_strerror(z));
  }
  if (s != 0) zip_discard(z);
  for (int i = 0; i < w->n; i++) nx__free(bufs[i]);
  nx__free(bufs);
  if (s != 0) return s;
  t->fd = open(t->tmp, O_RDWR);
  if (t->fd < 0) return nx__fail(NX_EIO, "%s: %s: cannot reopen the written archive", fn, w->path);
  return 0;
}
#else
static int commit_npz(nx_io_writer *w, nx__io_temp *t, const char *fn) {
  (void)t;
  return nx__fail(NX_EINVAL, "%s: %s: built without libzip", fn, w->path);
}
#endif

int nx_io_writer_commit(nx_io_writer *w) {
  static const char fn[] = "nx_io_writer_commit";
  if (!w) return nx__fail(NX_EINVAL, "%s: w is NULL", fn);
  nx__io_temp t;
  int s = w->fmt == NX_IO_SAFETENSORS ? 0 : make_in_memory(w);
  if (s == 0) s = nx__io_temp_open(&t, w->path, fn);
  if (s == 0) {
    s = w->fmt == NX_IO_NPY ? commit_npy(w, &t, fn)
        : w->fmt == NX_IO_NPZ ? commit_npz(w, &t, fn)
                              : commit_safetensors(w, &t, fn);
    if (s == 0) s = nx__io_temp_commit(&t, w->path, fn);
    else nx__io_temp_abort(&t);
  }
  nx_io_writer_abort(w);
  return s;
}
