/* SPDX-License-Identifier: Apache-2.0 */
/* GGUF files made byte by byte: the text form of long array values (valid
   UTF-8, cut between whole elements, the count kept), string values that
   are not UTF-8 or hold a NUL byte (shown mended, U+FFFD), and the cost
   of the duplicate-name checks of GGUF and .npz files of many tensors,
   counted in name comparisons (the test variant's hook), not timed. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "nx_io.h"
#include "../../src/io/io_internal.h"

#include "io_dir.h"

/* A growing byte string: the file under construction. */
typedef struct bytes {
  uint8_t *p;
  size_t n, cap;
} bytes;

static void put(bytes *b, const void *p, size_t n) {
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n) cap *= 2;
    uint8_t *q = realloc(b->p, cap);
    if (!q) abort(); /* the test's own memory: nothing to report it to */
    b->p = q;
    b->cap = cap;
  }
  memcpy(b->p + b->n, p, n);
  b->n += n;
}

static void u32(bytes *b, uint32_t v) {
  uint8_t x[4];
  for (int k = 0; k < 4; k++) x[k] = (uint8_t)(v >> (8 * k));
  put(b, x, 4);
}

static void u64(bytes *b, uint64_t v) {
  uint8_t x[8];
  for (int k = 0; k < 8; k++) x[k] = (uint8_t)(v >> (8 * k));
  put(b, x, 8);
}

static void str(bytes *b, const char *s, size_t n) {
  u64(b, n);
  put(b, s, n);
}

static void header(bytes *b, uint64_t tensors, uint64_t pairs) {
  put(b, "GGUF", 4);
  u32(b, 3);
  u64(b, tensors);
  u64(b, pairs);
}

/* A pair of a string value (n bytes). */
static void kv_string(bytes *b, const char *key, const char *v, size_t n) {
  str(b, key, strlen(key));
  u32(b, 8);
  str(b, v, n);
}

/* The head of an array value of count elements of type et (its elements
   follow); a pair's type 9 comes before it, an element of an array of
   arrays has none. */
static void array_head(bytes *b, uint32_t et, uint64_t count) {
  u32(b, et);
  u64(b, count);
}

/* An F32 tensor info of one dimension. */
static void tensor(bytes *b, const char *name, uint64_t dim, uint32_t type, uint64_t offset) {
  str(b, name, strlen(name));
  u32(b, 1);
  u64(b, dim);
  u32(b, type);
  u64(b, offset);
}

static void write_file(const char *p, const bytes *b) {
  FILE *f = fopen(p, "wb");
  if (!f) return;
  fwrite(b->p, 1, b->n, f);
  fclose(f);
}

/* Strict UTF-8, checked here apart from the library's own check. */
static bool utf8(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    int len = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || (len == 2 && *p < 0xC2)) return false;
    for (int k = 1; k < len; k++)
      if ((p[k] & 0xC0) != 0x80) return false;
    p += len;
  }
  return true;
}

static bool ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && !strcmp(s + n - m, tail);
}

/* Opens b as a file and gives the value of key (a copy, or NULL). */
static char *value_of(const char *name, const bytes *b, const char *key) {
  const char *p = path_of(name);
  write_file(p, b);
  nx_io_file *f = NULL;
  char *r = NULL;
  int s = nx_io_open(p, &f);
  CHECK(s == 0, "%s: %s", name, nx_error_message());
  for (int i = 0; s == 0 && i < nx_io_file_metadata_count(f); i++) {
    const char *k, *v;
    if (nx_io_file_metadata(f, i, &k, &v) == 0 && !strcmp(k, key)) r = strdup(v);
  }
  CHECK(s != 0 || r, "%s: no key %s", name, key);
  nx_io_close(f);
  unlink(p);
  return r;
}

/* Refused with NX_EINVAL, naming nx_io_open, the file and each of what[]. */
static void refused(const char *name, const bytes *b, const char *what1, const char *what2) {
  const char *p = path_of(name);
  write_file(p, b);
  nx_io_file *f = NULL;
  int s = nx_io_open(p, &f);
  CHECK(s == NX_EINVAL && f == NULL, "%s: opened (%d)", name, s);
  const char *m = nx_error_message();
  CHECK(strstr(m, "nx_io_open") && strstr(m, p) && strstr(m, what1) && (!what2 || strstr(m, what2)),
        "%s: message '%s' lacks '%s' / '%s'", name, m, what1, what2 ? what2 : "");
  if (s == 0) nx_io_close(f);
  unlink(p);
}

/* A file whose only pair is key k of an array value made by `value`. */
static bytes one_pair(void (*value)(bytes *b)) {
  bytes b = {0};
  header(&b, 0, 1);
  str(&b, "k", 1);
  u32(&b, 9);
  value(&b);
  return b;
}

static char e100[201]; /* "é" 100 times: 200 bytes */
static char q256[257]; /* 256 quotes, which the text escapes to 512 bytes */

static void twenty_e100(bytes *b) {
  array_head(b, 8, 20);
  for (int k = 0; k < 20; k++) str(b, e100, 200);
}

static void three_of_twenty(bytes *b) {
  array_head(b, 9, 3);
  for (int k = 0; k < 3; k++) twenty_e100(b);
}

/* Arrays 5 deep (the most GGUF values nest), 2 at each level, of 20
   strings of quotes. */
static void deep(bytes *b, int level) {
  if (level == 4) {
    array_head(b, 8, 20);
    for (int k = 0; k < 20; k++) str(b, q256, 256);
    return;
  }
  array_head(b, 9, 2);
  for (int k = 0; k < 2; k++) deep(b, level + 1);
}
static void deep0(bytes *b) { deep(b, 0); }

static void small(bytes *b) {
  array_head(b, 8, 3);
  str(b, "a", 1);
  str(b, "b,c", 3);
  str(b, "", 0);
}

static void ints(bytes *b) {
  array_head(b, 5, 20);
  for (uint32_t k = 0; k < 20; k++) u32(b, k);
}

/* Array values past the text's bound: whole elements, valid UTF-8, and the
   count at the end. */
static void long_arrays(void) {
  for (int k = 0; k < 100; k++) memcpy(e100 + 2 * k, "\xc3\xa9", 2);
  memset(q256, '"', 256);

  bytes b = one_pair(twenty_e100);
  char *v = value_of("arr.gguf", &b, "k");
  free(b.p);
  if (v) {
    CHECK(utf8(v) && strlen(v) <= 1023, "long array: %zu bytes, UTF-8 %d", strlen(v), utf8(v));
    CHECK(ends_with(v, ", ...] (20 values)"), "long array: the count kept: '%s'",
          v + (strlen(v) > 40 ? strlen(v) - 40 : 0));
    /* the shown elements are whole: "[" then k quoted copies, ", " between */
    bool whole = false;
    char want[4096]; /* room for 16 */
    for (int k = 1; k <= 16 && !whole; k++) {
      size_t n = 0;
      want[n++] = '[';
      for (int j = 0; j < k; j++) n += (size_t)snprintf(want + n, sizeof want - n, "%s\"%s\"", j ? ", " : "", e100);
      snprintf(want + n, sizeof want - n, ", ...] (20 values)");
      whole = !strcmp(v, want);
    }
    CHECK(whole, "long array: whole elements only: '%s'", v);
  }
  free(v);

  b = one_pair(three_of_twenty);
  v = value_of("nested.gguf", &b, "k");
  free(b.p);
  if (v) {
    CHECK(utf8(v) && strlen(v) <= 1023, "nested: UTF-8 within the bound");
    CHECK(!strncmp(v, "[[\"", 3) && strstr(v, ", ...] (20 values)") && ends_with(v, "...] (3 values)"),
          "nested: each array closed with its count: '%s'", v);
  }
  free(v);

  b = one_pair(deep0);
  v = value_of("deep.gguf", &b, "k");
  free(b.p);
  if (v) {
    /* brackets outside the quoted strings */
    int open = 0, close = 0;
    bool quoted = false;
    for (const char *c = v; *c; c++) {
      if (quoted && *c == '\\' && c[1]) c++;
      else if (*c == '"') quoted = !quoted;
      else if (!quoted) open += *c == '[', close += *c == ']';
    }
    CHECK(utf8(v) && strlen(v) <= 1023 && ends_with(v, "] (2 values)") && open == 5 && close == 5,
          "deep: every array closed (%d [, %d ]): '%s'", open, close, v);
  }
  free(v);

  /* short ones as before */
  b = one_pair(small);
  v = value_of("small.gguf", &b, "k");
  free(b.p);
  CHECK(v && !strcmp(v, "[\"a\", \"b,c\", \"\"] (3 values)"), "small: %s", v ? v : "");
  free(v);
  b = one_pair(ints);
  v = value_of("ints.gguf", &b, "k");
  free(b.p);
  CHECK(v && !strcmp(v, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, ...] (20 values)"), "ints: %s",
        v ? v : "");
  free(v);
}

/* String values that are not UTF-8 or hold a NUL byte (a tokenizer's byte
   tokens may be such): the file opens, and the value is shown mended, each
   stray byte and each NUL as U+FFFD (before: the value was handed out as it
   was, not UTF-8, and a NUL cut it short). */
#define FFFD "\xef\xbf\xbd"
static void bad_strings(void) {
  static const struct {
    const char *s;
    size_t n;
    const char *shown;
  } top[] = {{"a\xff", 2, "a" FFFD},
             {"\xc0\xaf", 2, FFFD FFFD},
             {"\xed\xa0\x80", 3, FFFD FFFD FFFD},
             {"a\0b", 3, "a" FFFD "b"},
             {"\xc3\xa9\xc3", 3, "\xc3\xa9" FFFD}};
  for (size_t k = 0; k < sizeof top / sizeof top[0]; k++) {
    bytes b = {0};
    header(&b, 0, 1);
    kv_string(&b, "tok.name", top[k].s, top[k].n);
    char *v = value_of("str.gguf", &b, "tok.name");
    CHECK(v && !strcmp(v, top[k].shown) && utf8(v), "string %zu shown as '%s'", k, v ? v : "(none)");
    free(v);
    free(b.p);
  }
  for (int bad = 0; bad < 2; bad++) {
    bytes b = {0};
    header(&b, 0, 1);
    str(&b, "tokens", 6);
    u32(&b, 9);
    array_head(&b, 8, 3);
    str(&b, "t", 1);
    str(&b, bad ? "x\0" : "\xc3", 2 - (size_t)!bad);
    str(&b, "u", 1);
    char *v = value_of("strs.gguf", &b, "tokens");
    const char *want = bad ? "[\"t\", \"x" FFFD "\", \"u\"] (3 values)" : "[\"t\", \"" FFFD "\", \"u\"] (3 values)";
    CHECK(v && !strcmp(v, want) && utf8(v), "array with a %s: '%s'", bad ? "NUL" : "stray byte", v ? v : "(none)");
    free(v);
    free(b.p);
  }
}

/* Duplicates: the first repeat in the file's order, and before an error of
   a later tensor, as checking each name in turn gives. */
static void duplicates(void) {
  /* names and ggml types of each file's tensors, and what is named */
  static const struct {
    const char *file, *names[4];
    uint32_t types[4];
    const char *says;
  } cases[] = {{"dup.gguf", {"w", "w"}, {0, 0}, "tensor 'w': a second tensor of that name"},
               {"dupfirst.gguf", {"v", "w", "w", "x"}, {0, 0, 0, 99}, "tensor 'w': a second tensor of that name"},
               {"typefirst.gguf", {"w", "x", "w"}, {0, 99, 0}, "tensor 'x' has ggml type 99"}};
  bytes b;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    int n = 0;
    while (n < 4 && cases[k].names[n]) n++;
    b = (bytes){0};
    header(&b, (uint64_t)n, 0);
    for (int i = 0; i < n; i++) tensor(&b, cases[k].names[i], 0, cases[k].types[i], 0);
    refused(cases[k].file, &b, cases[k].says, NULL);
    free(b.p);
  }
  /* keys: the first repeat in the file's order, as the gguf package's
     reader names it */
  b = (bytes){0};
  header(&b, 0, 4);
  kv_string(&b, "b", "1", 1);
  kv_string(&b, "a", "1", 1);
  kv_string(&b, "b", "2", 1);
  kv_string(&b, "a", "2", 1);
  refused("dupkey.gguf", &b, "key 'b' is given twice", NULL);
  free(b.p);
}

static long log2_up(long n) {
  long lg = 0;
  while ((1L << lg) < n) lg++;
  return lg;
}

/* n log n comparisons at most (a sort for the duplicate check, one for the
   index of names), with room for qsort's constant; n^2 / 2 is far past. */
static long bound(long n) { return n * (4 * log2_up(n) + 4); }

/* Opening a file of n tensors checks their names' uniqueness in n log n
   name comparisons, not n^2 / 2 (100000 GGUF tensors took 31 s), and
   finding each of them costs log n (nx convert finds every tensor's
   scale). */
static void many(void) {
  const long n = 40000;
  bytes b = {0};
  header(&b, (uint64_t)n, 1);
  kv_string(&b, "general.architecture", "x", 1);
  for (long k = 0; k < n; k++) {
    char name[32];
    snprintf(name, sizeof name, "blk.%ld.w", (k * 7919) % n); /* not in sorted order */
    tensor(&b, name, 0, 0, 0);
  }
  const char *p = path_of("many.gguf");
  write_file(p, &b);
  free(b.p);
  long before = nx__io_name_compares();
  nx_io_file *f = NULL;
  int s = nx_io_open(p, &f);
  long made = nx__io_name_compares() - before;
  CHECK(s == 0 && nx_io_file_count(f) == n, "many.gguf: %s", nx_error_message());
  CHECK(made <= bound(n), "many.gguf: %ld name comparisons for %ld tensors, past %ld", made, n, bound(n));
  before = nx__io_name_compares();
  bool found = s == 0;
  for (long k = 0; found && k < n; k++) {
    char name[32];
    int i = -1;
    snprintf(name, sizeof name, "blk.%ld.w", k);
    found = nx_io_file_find(f, name, &i) == 0 && !strcmp(nx_io_file_tensor(f, i)->name, name) &&
            i == (int)((k * 17679) % n); /* 7919 * 17679 = 1 mod 40000 */
    found = found && nx_io_file_find(f, "blk.123.w.scale", &i) == NX_NONE;
  }
  made = nx__io_name_compares() - before;
  CHECK(found, "many.gguf: each tensor found at its index, none that is not there");
  CHECK(made <= 2 * n * (log2_up(n) + 2), "many.gguf: %ld name comparisons to find %ld tensors twice", made, n);
  if (s == 0) nx_io_close(f);
  unlink(p);

  /* .npz entries, written by nx */
  const long m = 20000;
  p = path_of("many.npz");
  nx_io_writer *w = NULL;
  nx_array *a = NULL;
  int64_t one = 1;
  s = nx_io_writer_open(p, NX_IO_NPZ, &w);
  if (s == 0) s = nx_array_host(NX_INT8, &one, 1, &a);
  int64_t at0 = 0;
  if (s == 0) s = nx_array_set(a, &at0, (nx_value){.i = 7});
  before = nx__io_name_compares();
  for (long k = 0; k < m && s == 0; k++) {
    char name[32];
    snprintf(name, sizeof name, "e%ld", (k * 7919) % m);
    s = nx_io_writer_add(w, name, a);
  }
  /* the writer's check of each name against those added: a set, not a
     walk over them (m^2 / 2 = 2e8 comparisons) */
  made = nx__io_name_compares() - before;
  CHECK(made <= 4 * m, "writing many.npz: %ld name comparisons to add %ld entries", made, m);
  CHECK(s != 0 || nx_io_writer_add(w, "e5", a) == NX_EINVAL, "a name added twice to many.npz refused");
  if (s == 0) s = nx_io_writer_commit(w);
  else nx_io_writer_abort(w);
  nx_array_free(a);
  CHECK(s == 0, "many.npz written: %s", nx_error_message());
  before = nx__io_name_compares();
  s = nx_io_open(p, &f);
  made = nx__io_name_compares() - before;
  CHECK(s == 0 && nx_io_file_count(f) == m, "many.npz: %s", nx_error_message());
  CHECK(made <= bound(m), "many.npz: %ld name comparisons for %ld entries, past %ld", made, m, bound(m));
  if (s == 0) nx_io_close(f);
  unlink(p);
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/nx-test-io-gguf-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) return skip("cannot make a temporary folder");
  long_arrays();
  bad_strings();
  duplicates();
  many();
  rmdir(dir);
  return check_done();
}
