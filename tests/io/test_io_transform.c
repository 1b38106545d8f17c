/* SPDX-License-Identifier: Apache-2.0 */
/* nx_io_writer_add_transform: tensors computed from another array at
   commit, run by run on the thread pool and written at their place in the
   file: each element read back equals the function of its source element
   (computed here, element by element), next to ordinary tensors whose
   bytes stay where they belong; runs of 2^20 elements at most, from a byte;
   sub-byte results and non-contiguous sources; a failing function fails
   the commit naming the tensor and leaves no file; the refusals. */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "../common.h"
#include "nx.h"

#include "io_dir.h"

/* The element's function: a uint32 hashed to its top 16 bits. */
static uint16_t hash16(uint32_t x) { return (uint16_t)((x * 2654435761u) >> 16); }

struct calls {
  atomic_long runs, bad_runs, elements;
  int fail_at; /* the run that fails (its first element / 2^20), -1 for none */
};

static int to16(void *ctx, const void *in, void *out, int64_t n) {
  struct calls *c = ctx;
  atomic_fetch_add(&c->runs, 1);
  atomic_fetch_add(&c->elements, n);
  if (n > ((int64_t)1 << 20) || n <= 0) atomic_fetch_add(&c->bad_runs, 1);
  const uint32_t *x = in;
  if (c->fail_at >= 0 && x[0] == (uint32_t)c->fail_at << 20) return NX_EINVAL;
  uint16_t *y = out;
  for (int64_t k = 0; k < n; k++) y[k] = hash16(x[k]);
  return 0;
}

/* uint8 to uint4: the low half of each byte, packed two to a byte. */
static int to4(void *ctx, const void *in, void *out, int64_t n) {
  (void)ctx;
  const uint8_t *x = in;
  uint8_t *y = out;
  for (int64_t k = 0; k + 1 < n; k += 2) y[k / 2] = (uint8_t)((x[k] & 15) | (x[k + 1] & 15) << 4);
  if (n & 1) y[n / 2] = (uint8_t)((y[n / 2] & 0xF0) | (x[n - 1] & 15));
  return 0;
}

struct bytes {
  uint8_t *p;
  size_t n;
};

static int put(void *ctx, void *base, nx_dtype dt, const nx_layout *l) {
  (void)dt;
  (void)l;
  struct bytes *b = ctx;
  memcpy(base, b->p, b->n);
  return 0;
}

static int get(void *ctx, const void *base, nx_dtype dt, const nx_layout *l) {
  struct bytes *b = ctx;
  if (!nx_layout_is_contiguous(l)) return NX_EINVAL;
  memcpy(b->p, (const uint8_t *)base + l->offset * nx_dtype_bits(dt) / 8, b->n);
  return 0;
}

static nx_array *host_of(nx_dtype dt, const int64_t *shape, int rank, void *bytes, size_t n) {
  nx_array *a = NULL;
  struct bytes b = {bytes, n};
  if (nx_array_host(dt, shape, rank, &a) != 0 || nx_array_write(a, put, &b) != 0) {
    CHECK(0, "a host array: %s", nx_error_message());
    nx_array_free(a);
    return NULL;
  }
  return a;
}

/* The bytes of tensor `name` of the file at p, or NULL. */
static uint8_t *read_back(const char *p, const char *name, nx_dtype dt, int64_t count) {
  nx_io_file *f;
  nx_array *a;
  int i;
  if (nx_io_open(p, &f) != 0) return NULL;
  int64_t bytes;
  nx_dtype_bytes(dt, count, &bytes);
  struct bytes b = {malloc((size_t)bytes + 1), (size_t)bytes};
  bool ok = nx_io_file_find(f, name, &i) == 0 && nx_io_file_tensor(f, i)->dtype == dt &&
            nx_io_load(f, i, &a) == 0;
  if (ok) {
    ok = nx_array_dtype(a) == dt && nx_layout_count(nx_array_layout(a)) == count && nx_array_read(a, get, &b) == 0;
    nx_array_free(a);
  }
  nx_io_close(f);
  if (!ok) {
    free(b.p);
    return NULL;
  }
  return b.p;
}

static void formats(nx_io_format fmt, const char *ext) {
  /* Three whole runs and a short one, so the pool shares them. */
  const int64_t n = (3 << 20) + 88;
  int64_t shape[2] = {n / 8, 8};
  uint32_t *x = malloc(sizeof *x * (size_t)n);
  uint64_t seed = 11;
  for (int64_t k = 0; k < n; k++) x[k] = (uint32_t)splitmix64_next(&seed);
  nx_array *src = host_of(NX_UINT32, shape, 2, x, sizeof *x * (size_t)n);
  double before[3] = {1.5, -2, 3}, after[2] = {7, 8};
  int64_t s3[1] = {3}, s2[1] = {2};
  nx_array *b = host_of(NX_FLOAT64, s3, 1, before, sizeof before), *c = host_of(NX_FLOAT64, s2, 1, after, sizeof after);
  struct calls calls = {.fail_at = -1};
  char name[64];
  snprintf(name, sizeof name, "t.%s", ext);
  const char *p = path_of(name);
  nx_io_writer *w;
  bool one = fmt == NX_IO_NPY;
  CHECK(nx_io_writer_open(p, fmt, &w) == 0, "%s", nx_error_message());
  if (!one) CHECK(nx_io_writer_add(w, "b", b) == 0, "%s", nx_error_message());
  CHECK(nx_io_writer_add_transform(w, "h", src, NX_UINT16, to16, &calls) == 0, "%s", nx_error_message());
  if (!one) CHECK(nx_io_writer_add(w, "c", c) == 0, "%s", nx_error_message());
  CHECK(atomic_load(&calls.runs) == 0, "nothing runs before the commit");
  CHECK(nx_io_writer_commit(w) == 0, "%s: %s", ext, nx_error_message());
  CHECK(atomic_load(&calls.runs) == 4 && atomic_load(&calls.elements) == n && atomic_load(&calls.bad_runs) == 0,
        "%s: four runs of at most 2^20 elements cover the tensor: %ld runs, %ld elements", ext,
        atomic_load(&calls.runs), atomic_load(&calls.elements));
  uint16_t *h = (uint16_t *)read_back(p, one ? "arr" : "h", NX_UINT16, n);
  int64_t bad = h ? 0 : n;
  for (int64_t k = 0; h && k < n; k++) bad += h[k] != hash16(x[k]);
  CHECK(bad == 0, "%s: %lld elements are not the function of their source's", ext, (long long)bad);
  free(h);
  if (!one) {
    double *rb = (double *)read_back(p, "b", NX_FLOAT64, 3), *rc = (double *)read_back(p, "c", NX_FLOAT64, 2);
    CHECK(rb && rc && !memcmp(rb, before, sizeof before) && !memcmp(rc, after, sizeof after),
          "%s: the ordinary tensors beside it keep their bytes", ext);
    free(rb);
    free(rc);
  }
  /* A function that fails: the commit fails naming the tensor, no file. */
  unlink(p);
  calls = (struct calls){.fail_at = 2};
  x[2 << 20] = 2 << 20;
  nx_array_free(src);
  src = host_of(NX_UINT32, shape, 2, x, sizeof *x * (size_t)n);
  CHECK(nx_io_writer_open(p, fmt, &w) == 0 && nx_io_writer_add_transform(w, "h", src, NX_UINT16, to16, &calls) == 0,
        "%s", nx_error_message());
  CHECK(nx_io_writer_commit(w) == NX_EINVAL && strstr(nx_error_message(), "'h'") &&
            strstr(nx_error_message(), "nx_io_writer_commit"),
        "%s: a failing transform fails the commit: %s", ext, nx_error_message());
  CHECK(access(p, F_OK) != 0, "%s: and leaves no file", ext);
  nx_array_free(src);
  nx_array_free(b);
  nx_array_free(c);
  free(x);
}

/* A transposed uint8 source into uint4: the function sees the source's C
   order, and the result is packed. */
static void packed(void) {
  int64_t shape[2] = {6, 10}, tshape[2] = {10, 6};
  uint8_t x[60];
  for (int k = 0; k < 60; k++) x[k] = (uint8_t)(k * 7 + 3);
  nx_array *a = host_of(NX_UINT8, shape, 2, x, sizeof x), *t = NULL;
  int order[2] = {1, 0};
  nx_move m;
  nx_move_permute(&m, order, 2);
  CHECK(a && nx_array_move(&m, a, &t) == 0, "permute");
  const char *p = path_of("packed.npz");
  nx_io_writer *w;
  CHECK(nx_io_writer_open(p, NX_IO_NPZ, &w) == 0 && nx_io_writer_add_transform(w, "q", t, NX_UINT4, to4, NULL) == 0 &&
            nx_io_writer_commit(w) == 0,
        "%s", nx_error_message());
  nx_io_file *f;
  nx_array *q;
  CHECK(nx_io_open(p, &f) == 0 && nx_io_load(f, 0, &q) == 0, "%s", nx_error_message());
  if (f && q) {
    /* .npz holds uint4 one per byte, read as raw uint8 bytes. */
    uint8_t got[60];
    struct bytes b = {got, 60};
    const nx_layout *l = nx_array_layout(q);
    CHECK(l->rank == 2 && l->extent[0] == tshape[0] && l->extent[1] == tshape[1], "the shape is the source's");
    CHECK(nx_array_read(q, get, &b) == 0, "%s", nx_error_message());
    int bad = 0;
    for (int i = 0; i < 10; i++)
      for (int j = 0; j < 6; j++) bad += (got[i * 6 + j] & 15) != (x[j * 10 + i] & 15);
    CHECK(bad == 0, "%d uint4 elements are not their transposed source's low half", bad);
    nx_array_free(q);
  }
  nx_io_close(f);
  unlink(p);
  /* The refusals, before anything is written. */
  const char *ps = path_of("r.safetensors");
  CHECK(nx_io_writer_open(ps, NX_IO_SAFETENSORS, &w) == 0, "%s", nx_error_message());
  CHECK(nx_io_writer_add_transform(w, "q", t, NX_UINT4, to4, NULL) == NX_EINVAL &&
            strstr(nx_error_message(), "nx_io_writer_add_transform") && strstr(nx_error_message(), "uint4 [10; 6]"),
        "safetensors has no uint4, named with the result's dtype and shape: %s", nx_error_message());
  CHECK(nx_io_writer_add_transform(w, "q", t, (nx_dtype)999, to4, NULL) == NX_EINVAL, "no dtype");
  CHECK(nx_io_writer_add_transform(w, "q", t, NX_UINT8, NULL, NULL) == NX_EINVAL, "no function");
  CHECK(nx_io_writer_add_transform(w, "q", t, NX_UINT8, to4, NULL) == 0 &&
            nx_io_writer_add_transform(w, "q", t, NX_UINT8, to4, NULL) == NX_EINVAL &&
            strstr(nx_error_message(), "already"),
        "a second tensor of one name");
  nx_io_writer_abort(w);
  CHECK(access(ps, F_OK) != 0, "an aborted writer writes nothing");
  nx_array_free(t);
  nx_array_free(a);
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/nx-test-io-transform-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) return skip("cannot make a temporary folder");
  nx_set_num_threads(3);
  formats(NX_IO_SAFETENSORS, "safetensors");
  formats(NX_IO_NPY, "npy");
  formats(NX_IO_NPZ, "npz");
  packed();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", dir);
  CHECK(system(cmd) == 0, "%s is empty: no temporary file left", dir);
  rmdir(dir);
  return check_done();
}
