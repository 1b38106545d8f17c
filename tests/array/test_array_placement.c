/* SPDX-License-Identifier: Apache-2.0 */
/* Placement between every pair of devices (the host, opencl:0, opencl:1, a
   test device), bit for bit: to_device, transfer, copy and borrow of float
   arrays holding NaNs with payloads (signalling and quiet, both signs),
   sub-byte arrays (int4, uint4, float4_e2m1fn, bit) and complex ones, over
   contiguous sources at offset 0 and at odd offsets, transposed, strided,
   flipped, broadcast and rank-0 ones. Source bytes are written and every
   result read back through raw buffer copies, not through the array module.
   to_device's layout is nx_layout_copy's; transfer writes dst's elements and
   no other bit of its buffer (checked over the whole dst buffer, prefilled
   with a pattern, sub-byte neighbours included). Fails, not skips, without
   two OpenCL devices. */
#include "test_array_common.h"

static arr_devices R;
static nx_device *DEV[4];
static const char *const DEVN[4] = {"host", "opencl:0", "opencl:1", "test"};

static const nx_dtype DTS[] = {NX_FLOAT64, NX_FLOAT32, NX_FLOAT16,    NX_BFLOAT16, NX_FLOAT8_E4M3FN,
                               NX_FLOAT8_E5M2, NX_FLOAT4_E2M1FN, NX_INT4, NX_UINT4, NX_BIT,
                               NX_COMPLEX64, NX_COMPLEX128, NX_UINT8};
#define NDT (int)(sizeof DTS / sizeof DTS[0])
#define NPOS 64 /* elements in every source and destination buffer */

/* A NaN of a float format (the component's for complex) with a random
   payload and sign: signalling or quiet as the payload's top bit says. */
static uint64_t nan_bits(int code, uint64_t r) {
  uint64_t s = r >> 63;
  switch (code) {
  case NX_FLOAT64: return s << 63 | 0x7FFULL << 52 | ((r & ((1ULL << 52) - 1)) | 1);
  case NX_FLOAT32: return s << 31 | 0xFFULL << 23 | ((r & ((1ULL << 23) - 1)) | 1);
  case NX_FLOAT16: return s << 15 | 0x1FULL << 10 | ((r & 0x3FF) | 1);
  case NX_BFLOAT16: return s << 15 | 0xFFULL << 7 | ((r & 0x7F) | 1);
  case NX_FLOAT8_E5M2: return s << 7 | 0x1FULL << 2 | ((r & 3) | 1);
  case NX_FLOAT8_E4M3FN: return s << 7 | 0x7F;
  default: return r;
  }
}

/* Fills the bytes of NPOS elements of dt: random bits, with NaNs (payloads
   kept) at every third position of a float format. */
static void fill_elems(nx_dtype dt, uint8_t *m, int64_t nbytes, uint64_t *seed) {
  int w = nx_dtype_bits(dt);
  for (int64_t i = 0; i < nbytes; i++) m[i] = (uint8_t)rnd(seed);
  if (nx_dtype_kind(dt) == NX_KIND_FLOAT && dt != NX_FLOAT4_E2M1FN)
    for (int64_t p = 0; p < NPOS; p += 3) {
      uint64_t b = nan_bits(dt, rnd(seed));
      elem_put(m, p, w, (uint8_t *)&b);
    }
  if (nx_dtype_kind(dt) == NX_KIND_COMPLEX) {
    int c = dt == NX_COMPLEX128 ? NX_FLOAT64 : NX_FLOAT32, cw = w / 16;
    for (int64_t p = 0; p < NPOS; p += 3) {
      uint64_t re = nan_bits(c, rnd(seed)), im = nan_bits(c, rnd(seed));
      memcpy(m + p * (w / 8), &re, (size_t)cw);
      memcpy(m + p * (w / 8) + cw, &im, (size_t)cw);
    }
  }
}

/* The source layouts. */
#define NLAY 9
static int source_layout(int k, nx_layout *l) {
  static const int64_t e34[2] = {3, 4}, e43[2] = {4, 3}, e32[2] = {3, 2}, e04[2] = {0, 4};
  switch (k) {
  case 0: return nx_layout_make(2, e34, NULL, 0, l);                          /* contiguous */
  case 1: return nx_layout_make(2, e34, NULL, 5, l);                          /* an odd offset */
  case 2: return nx_layout_make(2, e43, (int64_t[]){1, 4}, 1, l);             /* transposed */
  case 3: return nx_layout_make(2, e34, (int64_t[]){16, 3}, 3, l);            /* strided */
  case 4: return nx_layout_make(2, e34, (int64_t[]){-4, -1}, 20, l);          /* flipped */
  case 5: return nx_layout_make(2, e34, (int64_t[]){0, 1}, 3, l);             /* broadcast */
  case 6: return nx_layout_make(2, e32, (int64_t[]){2, 2}, 1, l);             /* the seed's example */
  case 7: return nx_layout_make(0, NULL, NULL, 7, l);                         /* rank 0 */
  default: return nx_layout_make(2, e04, NULL, 0, l);                         /* no element */
  }
}
static const char *const LAYN[NLAY] = {"contiguous", "odd offset", "transposed", "strided", "flipped",
                                       "broadcast",  "[3;2] at [2;2]", "rank 0", "empty"};

/* The destination layouts of a shape: strided with gaps, or flipped. */
static void dest_layout(int k, const nx_layout *src, nx_layout *l) {
  if (src->rank == 0) {
    nx_layout_make(0, NULL, NULL, 5 + k, l);
    return;
  }
  int64_t e0 = src->extent[0], e1 = src->extent[1];
  if (k == 0) nx_layout_make(2, src->extent, (int64_t[]){2 * e1 + 1, 2}, 1, l);
  else nx_layout_make(2, src->extent, (int64_t[]){-e1, -1}, e0 * e1 - 1 + 3, l);
}

static nx_array *array_over(nx_dtype dt, const nx_layout *l, nx_buffer *b) {
  nx_array *a = NULL;
  int s = nx_array_v(dt, l, b, &a);
  CHECK(s == 0, "nx_array_v %s: %s", nx_dtype_name(dt), nx_error_message());
  return a;
}

/* Compares the elements of a (bytes am) with those of b (bytes bm), index by
   index: the number of indices whose bits differ. */
static long diff_elems(nx_dtype dt, const nx_layout *la, const uint8_t *am, const nx_layout *lb, const uint8_t *bm) {
  if (nx_layout_count(la) == 0) return 0;
  int w = nx_dtype_bits(dt);
  int64_t ia[NX_MAX_RANK] = {0}, ib[NX_MAX_RANK] = {0}, pa = la->offset, pb = lb->offset;
  long bad = 0;
  do {
    uint8_t x[16] = {0}, y[16] = {0};
    elem_get(am, pa, w, x);
    elem_get(bm, pb, w, y);
    bad += memcmp(x, y, 16) != 0;
    step_index(lb, ib, &pb);
  } while (step_index(la, ia, &pa));
  return bad;
}

static int dense_count(const nx_layout *l) {
  int64_t n = 1;
  for (int j = 0; j < l->rank; j++) n *= l->stride[j] == 0 && l->extent[j] > 0 ? 1 : l->extent[j];
  return (int)n;
}

static long n_to_device, n_transfer, n_copy, n_copy_refused, n_borrow, n_borrow_none;

static void test_to_device(void) {
  uint64_t seed = 42;
  uint8_t src[NPOS * 16], got[NPOS * 16 + 16];
  for (int si = 0; si < 4; si++)
    for (int kind = 0; kind < 3; kind++) {
      if (!nx_device_has_memory(DEV[si], (nx_memory_kind)kind)) continue;
      for (int d = 0; d < NDT; d++) {
        nx_dtype dt = DTS[d];
        int w = nx_dtype_bits(dt);
        int64_t nb;
        nx_dtype_bytes(dt, NPOS, &nb);
        fill_elems(dt, src, nb, &seed);
        nx_buffer *sb = raw_buffer(DEV[si], (nx_memory_kind)kind, NX_ACCESS_READ_WRITE, nb, src);
        if (!sb) continue;
        for (int k = 0; k < NLAY; k++) {
          nx_layout sl, cl;
          source_layout(k, &sl);
          nx_array *a = array_over(dt, &sl, sb);
          if (!a) continue;
          nx_layout_copy(&sl, w, &cl);
          for (int di = 0; di < 4; di++) {
            nx_array *r = NULL;
            int s = nx_array_to_device(DEV[di], a, &r);
            n_to_device++;
            CHECK(s == 0, "to_device %s -> %s, %s %s: %s", DEVN[si], DEVN[di], nx_dtype_name(dt), LAYN[k],
                  nx_error_message());
            if (s) continue;
            const nx_layout *rl = nx_array_layout(r);
            int same = nx_array_device(r) == DEV[di] && nx_array_dtype(r) == dt && rl->rank == cl.rank &&
                       rl->offset == cl.offset;
            for (int j = 0; same && j < rl->rank; j++)
              same = rl->extent[j] == cl.extent[j] && rl->stride[j] == cl.stride[j];
            CHECK(same, "to_device %s -> %s, %s %s: not nx_layout_copy's layout (offset %lld, wanted %lld)",
                  DEVN[si], DEVN[di], nx_dtype_name(dt), LAYN[k], (long long)rl->offset, (long long)cl.offset);
            if (k == 6 && dt != NX_BIT) /* bit: 7 bits fit the dense byte, so the shifted form */
              CHECK(rl->stride[0] == 2 && rl->stride[1] == 1, "[3;2] at [2;2] gets strides [%lld;%lld]",
                    (long long)rl->stride[0], (long long)rl->stride[1]);
            int64_t rb = nx_buffer_bytes(nx_array_buffer(r)), most;
            nx_dtype_bytes(dt, dense_count(&sl), &most);
            CHECK(rb <= most, "to_device %s %s: %lld bytes, more than %lld", nx_dtype_name(dt), LAYN[k],
                  (long long)rb, (long long)most);
            CHECK(nx_buffer_kind(nx_array_buffer(r)) == NX_MEMORY_DEVICE, "to_device gives device memory");
            if (rb > (int64_t)sizeof got) {
              nx_array_free(r);
              continue;
            }
            CHECK(raw_read(nx_array_buffer(r), got) == 0, "raw read: %s", nx_error_message());
            long bad = diff_elems(dt, &sl, src, rl, got);
            CHECK(bad == 0, "to_device %s -> %s, %s %s: %ld elements differ", DEVN[si], DEVN[di], nx_dtype_name(dt),
                  LAYN[k], bad);
            /* The shifted form of a sub-byte array: its first and last bytes
               are the source's, neighbours' bits included. */
            int64_t lo = 0, hi = 0;
            int shifted = rl->rank == sl.rank && nx_layout_span(&sl, &lo, &hi) == 0 && w < 8;
            int64_t fb = lo * w / 8, lb = ((hi + 1) * w - 1) / 8;
            for (int j = 0; shifted && j < sl.rank; j++) shifted = rl->stride[j] == sl.stride[j];
            shifted = shifted && rl->offset == sl.offset - fb * (8 / w);
            if (shifted && rb > 0) {
              CHECK(got[0] == src[fb] && got[rb - 1] == src[lb],
                    "to_device %s %s: the first and last bytes %02x %02x, the source's %02x %02x", nx_dtype_name(dt),
                    LAYN[k], got[0], got[rb - 1], src[fb], src[lb]);
            }
            nx_array_free(r);
          }
          nx_array_free(a);
        }
        nx_buffer_release(sb);
      }
    }
}

static void test_transfer(void) {
  uint64_t seed = 7;
  uint8_t src[NPOS * 16], pat[NPOS * 16], got[NPOS * 16], want[NPOS * 16];
  for (int si = 0; si < 4; si++)
    for (int di = 0; di < 4; di++)
      for (int kind = 0; kind < 3; kind += 2) { /* dst device memory, and io memory */
        if (!nx_device_has_memory(DEV[di], (nx_memory_kind)kind)) continue;
        for (int d = 0; d < NDT; d++) {
          nx_dtype dt = DTS[d];
          int w = nx_dtype_bits(dt);
          if (w < 8 && !nx_device_host_addresses(DEV[di], (nx_memory_kind)kind)) continue; /* refused */
          int64_t nb;
          nx_dtype_bytes(dt, NPOS, &nb);
          fill_elems(dt, src, nb, &seed);
          nx_buffer *sb = raw_buffer(DEV[si], NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, nb, src);
          nx_buffer *db = raw_buffer(DEV[di], (nx_memory_kind)kind, NX_ACCESS_READ_WRITE, nb, NULL);
          if (!sb || !db) continue;
          for (int k = 0; k < NLAY; k++)
            for (int dk = 0; dk < 2; dk++) {
              nx_layout sl, dl;
              source_layout(k, &sl);
              dest_layout(dk, &sl, &dl);
              for (int64_t i = 0; i < nb; i++) pat[i] = (uint8_t)rnd(&seed);
              CHECK(raw_write(db, pat) == 0, "raw write: %s", nx_error_message());
              nx_array *a = array_over(dt, &sl, sb), *b = array_over(dt, &dl, db);
              if (!a || !b) continue;
              int s = nx_array_transfer(a, b);
              n_transfer++;
              CHECK(s == 0, "transfer %s -> %s (%s memory), %s %s: %s", DEVN[si], DEVN[di],
                    kind ? "io" : "device", nx_dtype_name(dt), LAYN[k], nx_error_message());
              CHECK(raw_read(db, got) == 0, "raw read: %s", nx_error_message());
              /* The expected dst buffer: the pattern, dst's elements from src. */
              memcpy(want, pat, (size_t)nb);
              if (nx_layout_count(&sl) > 0) {
                int64_t ia[NX_MAX_RANK] = {0}, ib[NX_MAX_RANK] = {0}, pa = sl.offset, pb = dl.offset;
                do {
                  uint8_t x[16];
                  elem_get(src, pa, w, x);
                  elem_put(want, pb, w, x);
                  step_index(&dl, ib, &pb);
                } while (step_index(&sl, ia, &pa));
              }
              int64_t first_bad = -1;
              for (int64_t i = 0; i < nb && first_bad < 0; i++)
                if (got[i] != want[i]) first_bad = i;
              CHECK(s != 0 || first_bad < 0,
                    "transfer %s -> %s (%s memory), %s %s into %s: byte %lld is %02x, expected %02x (pattern %02x)",
                    DEVN[si], DEVN[di], kind ? "io" : "device", nx_dtype_name(dt), LAYN[k], dk ? "flipped" : "strided",
                    (long long)first_bad, first_bad >= 0 ? got[first_bad] : 0, first_bad >= 0 ? want[first_bad] : 0,
                    first_bad >= 0 ? pat[first_bad] : 0);
              nx_array_free(a);
              nx_array_free(b);
            }
          nx_buffer_release(sb);
          nx_buffer_release(db);
        }
      }
}

static void test_copy(void) {
  uint64_t seed = 99;
  uint8_t src[NPOS * 16], got[NPOS * 16];
  for (int si = 0; si < 4; si++)
    for (int d = 0; d < NDT; d++) {
      nx_dtype dt = DTS[d];
      int w = nx_dtype_bits(dt);
      int64_t nb;
      nx_dtype_bytes(dt, NPOS, &nb);
      fill_elems(dt, src, nb, &seed);
      nx_buffer *sb = raw_buffer(DEV[si], NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, nb, src);
      if (!sb) continue;
      for (int k = 0; k < NLAY; k++) {
        nx_layout sl, cl;
        source_layout(k, &sl);
        nx_array *a = array_over(dt, &sl, sb), *r = NULL;
        if (!a) continue;
        int s = nx_array_copy(a, &r);
        n_copy++;
        if (s != 0 && w < 8 && !nx_buffer_host_address(sb)) {
          /* The seed's copy raises what transfer raises: a sub-byte dst the
             host does not address. */
          CHECK(s == NX_EINVAL, "copy of %s on %s: %s", nx_dtype_name(dt), DEVN[si], nx_error_message());
          n_copy_refused++;
          nx_array_free(a);
          continue;
        }
        CHECK(s == 0, "copy on %s, %s %s: %s", DEVN[si], nx_dtype_name(dt), LAYN[k], nx_error_message());
        if (s) {
          nx_array_free(a);
          continue;
        }
        nx_layout_contiguous(sl.extent, sl.rank, &cl);
        const nx_layout *rl = nx_array_layout(r);
        int same = nx_array_device(r) == DEV[si] && rl->rank == cl.rank && rl->offset == 0;
        for (int j = 0; same && j < cl.rank; j++) same = rl->extent[j] == cl.extent[j] && rl->stride[j] == cl.stride[j];
        CHECK(same, "copy on %s, %s %s: not a C-contiguous array on the device", DEVN[si], nx_dtype_name(dt), LAYN[k]);
        CHECK(raw_read(nx_array_buffer(r), got) == 0, "raw read");
        long bad = diff_elems(dt, &sl, src, rl, got);
        CHECK(bad == 0, "copy on %s, %s %s: %ld elements differ", DEVN[si], nx_dtype_name(dt), LAYN[k], bad);
        nx_array_free(r);
        nx_array_free(a);
      }
      nx_buffer_release(sb);
    }
}

static void test_borrow(void) {
  uint64_t seed = 5;
  uint8_t src[NPOS * 16], got[NPOS * 16], pat[NPOS * 16];
  static const nx_dtype bdts[] = {NX_FLOAT32, NX_INT4, NX_COMPLEX128};
  for (int si = 0; si < 4; si++)
    for (int kind = 0; kind < 3; kind++) {
      if (!nx_device_has_memory(DEV[si], (nx_memory_kind)kind)) continue;
      for (int d = 0; d < 3; d++) {
        nx_dtype dt = bdts[d];
        int64_t nb;
        nx_dtype_bytes(dt, NPOS, &nb);
        fill_elems(dt, src, nb, &seed);
        nx_buffer *sb = raw_buffer(DEV[si], (nx_memory_kind)kind, NX_ACCESS_READ_WRITE, nb, src);
        if (!sb) continue;
        nx_layout sl;
        source_layout(d == 1 ? 1 : 4, &sl);
        nx_array *a = array_over(dt, &sl, sb);
        for (int di = 0; a && di < 4; di++) {
          nx_array *r = NULL;
          int s = nx_array_borrow(DEV[di], a, &r);
          n_borrow++;
          bool can = nx_device_can_map(DEV[di], sb);
          if (di == si) {
            CHECK(s == 0 && r && nx_buffer_overlaps(nx_array_buffer(r), sb), "borrow onto its own device %s: %s",
                  DEVN[di], nx_error_message());
          } else if (!can) {
            CHECK(s == NX_NONE && r == NULL, "borrow %s (%d) -> %s, which cannot map it: %d", DEVN[si], kind,
                  DEVN[di], s);
            n_borrow_none++;
            continue;
          } else {
            CHECK(s == 0 && r, "borrow %s (%d) -> %s: %s", DEVN[si], kind, DEVN[di], nx_error_message());
          }
          if (!r) continue;
          const nx_layout *rl = nx_array_layout(r);
          CHECK(nx_array_device(r) == DEV[di] && nx_array_dtype(r) == dt && rl->offset == sl.offset &&
                    rl->rank == sl.rank && memcmp(rl->stride, sl.stride, sizeof(int64_t) * (size_t)sl.rank) == 0,
                "borrow %s -> %s: the dtype, layout or device differ", DEVN[si], DEVN[di]);
          nx_buffer *rb = nx_array_buffer(r);
          CHECK(nx_buffer_bytes(rb) == nb && raw_read(rb, got) == 0 && memcmp(got, src, (size_t)nb) == 0,
                "borrow %s -> %s: the bytes differ", DEVN[si], DEVN[di]);
          /* Writes through either show in the other. */
          for (int64_t i = 0; i < nb; i++) pat[i] = (uint8_t)rnd(&seed);
          CHECK(raw_write(rb, pat) == 0 && raw_read(sb, got) == 0 && memcmp(got, pat, (size_t)nb) == 0,
                "borrow %s -> %s: a write through the borrow does not show", DEVN[si], DEVN[di]);
          memcpy(src, pat, (size_t)nb);
          /* And placement through the borrow is bit for bit. */
          nx_array *c = NULL;
          CHECK(nx_array_to_device(R.host, r, &c) == 0, "to_device of a borrow: %s", nx_error_message());
          if (c) {
            CHECK(raw_read(nx_array_buffer(c), got) == 0 &&
                      diff_elems(dt, &sl, src, nx_array_layout(c), got) == 0,
                  "to_device of a borrow %s -> %s differs", DEVN[si], DEVN[di]);
            nx_array_free(c);
          }
          nx_array_free(r);
        }
        nx_array_free(a);
        nx_buffer_release(sb);
      }
    }
}

/* A broadcast of 2^60 indices over a few bytes copies those bytes: the copy
   keeps the stride-0 axis, so an index along it is copied once (it visited
   every index, and this call did not return). On every device. */
static void test_huge_broadcast(void) {
  for (int k = 0; k < 4; k++) {
    nx_buffer *b = NULL;
    int64_t e[2] = {(int64_t)1 << 60, 2}, st[2] = {0, 5};
    nx_layout l;
    nx_array *a = NULL, *r = NULL;
    CHECK(nx_buffer_create(R.host, NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 64, &b) == 0 &&
              nx_buffer_wait(b, NX_ACCESS_WRITE) == 0 && nx_layout_make(2, e, st, 2, &l) == 0 &&
              nx_array_v(NX_UINT16, &l, b, &a) == 0,
          "a broadcast view: %s", nx_error_message());
    if (!a) continue;
    uint16_t *m = nx_buffer_host_address(b);
    m[2] = 9, m[7] = 77;
    CHECK(nx_array_to_device(DEV[k], a, &r) == 0, "%s: to_device: %s", DEVN[k], nx_error_message());
    if (r && k) { /* and back to the host, broadcast still, to read it */
      nx_array *back = NULL;
      CHECK(nx_array_to_device(R.host, r, &back) == 0, "%s: back to the host: %s", DEVN[k], nx_error_message());
      nx_array_free(r);
      r = back;
    }
    nx_value v = {0}, w = {0};
    int64_t i0[2] = {((int64_t)1 << 60) - 1, 1}, i1[2] = {12345, 0};
    CHECK(r && nx_array_get(r, i0, &v) == 0 && nx_array_get(r, i1, &w) == 0 && v.u == 77 && w.u == 9 &&
              nx_array_layout(r)->stride[0] == 0,
          "%s: the copy holds 77 and 9, broadcast: %llu %llu (%s)", DEVN[k], (unsigned long long)v.u, (unsigned long long)w.u,
          nx_error_message());
    nx_array_free(r), nx_array_free(a), nx_buffer_release(b);
  }
}

int main(void) {
  double t0 = now_s();
  if (arr_need_devices(&R)) return check_done();
  DEV[0] = R.host, DEV[1] = R.ocl0, DEV[2] = R.ocl1, DEV[3] = R.test;
  test_to_device();
  double t1 = now_s();
  test_transfer();
  double t2 = now_s();
  test_copy();
  test_borrow();
  test_huge_broadcast();
  printf("to_device %ld (%.2f s), transfer %ld (%.2f s), copy %ld (%ld refused: sub-byte off host), borrow %ld (%ld "
         "None); %.2f s\n",
         n_to_device, t1 - t0, n_transfer, t2 - t1, n_copy, n_copy_refused, n_borrow, n_borrow_none, now_s() - t0);
  return check_done();
}
