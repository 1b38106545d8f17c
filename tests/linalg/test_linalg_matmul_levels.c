/* SPDX-License-Identifier: Apache-2.0 */
/* The matrix kernels at every instruction level this CPU has (portable C,
   AVX2 with FMA, AVX-512F, AVX-512 with VNNI), each forced in turn, bit for bit against
   references computed here from the operands' bits:
   - bfloat16 x bfloat16: the float32 chain over the pairs of p, odd element
     first, by fmaf, compared as float32 bits (and once stored as bfloat16,
     against the store rule), on random data, on data where a flushing dot
     product instruction such as VDPBF16PS would differ (products of
     exactly 2^-126 and 2^-127, subnormal inputs and sums, a tiny first
     tile of k carried into later ones, products past float32's range,
     infinities and NaN), on odd k (the last element alone, an infinity
     there), on transposed and sliced layouts, on one row or one column
     (m = 1, n = 1) and on a batch with b broadcast (stride 0);
   - float32 x float32 where the packed kernel runs it: the same chain, on
     shapes past a block, every layout of a, b and z;
   - int8 x int8 into int32: the sum of products modulo 2^32, on random
     data, on -128 x -128 everywhere (sums that wrap) and on every extreme
     pair, odd k, layouts. */
#include <math.h>
#include <stdlib.h>

#include "../check.h"
#include "../common.h"
#include "nx.h"
#include "../../src/linalg/blas.h"
#include "../../src/linalg/mm.h"

static uint64_t seed = 777;
static uint64_t rn(void) { return splitmix64_next(&seed); }

/* A bfloat16 bit pattern: sign random, exponent (unbiased) in [lo, hi],
   fraction random. */
static uint16_t bf_bits(int lo, int hi) {
  int e = lo + (int)(rn() % (uint64_t)(hi - lo + 1));
  return (uint16_t)((rn() & 1) << 15 | (uint64_t)(e + 127) << 7 | (rn() & 0x7f));
}

static float bf_value(uint16_t h) { return flt_of((uint32_t)h << 16); }

/* A [rows, cols] array of dt from raw element bits xs (C order); kind 0 as
   it is, 1 the transpose of a [cols, rows] array holding the same
   elements, 2 a slice with step 2 of a larger one. */
static nx_array *raw(nx_dtype dt, nx_dtype udt, const uint64_t *xs, int64_t rows, int64_t cols, int kind) {
  int64_t big[2] = {kind == 1 ? cols : kind == 2 ? 2 * rows : rows, kind == 1 ? rows : kind == 2 ? 2 * cols : cols};
  int64_t n = big[0] * big[1];
  nx_value *v = calloc((size_t)n, sizeof *v);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) {
      int64_t e = kind == 1 ? j * rows + i : kind == 2 ? 2 * i * big[1] + 2 * j : i * cols + j;
      v[e].u = xs[i * cols + j];
    }
  nx_array *u = NULL, *a = NULL, *r = NULL;
  if (nx_array_of_array(udt, big, 2, v, n, &u) == 0 && nx_array_bitcast(dt, u, &a) == 0) {
    nx_move m;
    if (kind == 1) {
      int order[2] = {1, 0};
      nx_move_permute(&m, order, 2);
    } else if (kind == 2) {
      int64_t st[2] = {0, 0}, sp[2] = {2 * rows, 2 * cols}, step[2] = {2, 2};
      nx_move_slice(&m, st, sp, step, 2);
    } else
      nx_move_reshape(&m, big, 2);
    if (nx_array_move(&m, a, &r)) r = NULL;
  }
  free(v);
  nx_array_free(u), nx_array_free(a);
  return r;
}

/* z's elements as raw bits through a bitcast to the unsigned dtype udt. */
static uint64_t *bits_out(nx_array *z, nx_dtype udt, int64_t n) {
  nx_array *u = NULL;
  uint64_t *out = calloc((size_t)n + 1, sizeof *out);
  nx_value *v = calloc((size_t)n + 1, sizeof *v);
  if (nx_array_bitcast(udt, z, &u) == 0 && nx_array_to_array(u, v, n) == 0)
    for (int64_t i = 0; i < n; i++) out[i] = v[i].u;
  nx_array_free(u);
  free(v);
  return out;
}

/* The value of an element of dt (bfloat16, float16 or float32) of bits h,
   exactly. */
static float half_value(nx_dtype dt, uint64_t h) {
  return dt == NX_BFLOAT16 ? bf_value((uint16_t)h)
       : dt == NX_FLOAT16 ? (float)nx_dtype_load_bits(NX_FLOAT16, h) : flt_of((uint32_t)h);
}

/* The reference chain of z[i, j] from the bits of a (m x k, of da) and b
   (k x n, of db). */
static uint32_t chain_ref(nx_dtype da, nx_dtype db, const uint64_t *A, const uint64_t *B, int64_t k, int64_t n,
                          int64_t i, int64_t j) {
  float acc = 0;
  for (int64_t p = 0; p < k; p += 2) {
    if (p + 1 < k) acc = fmaf(half_value(da, A[i * k + p + 1]), half_value(db, B[(p + 1) * n + j]), acc);
    acc = fmaf(half_value(da, A[i * k + p]), half_value(db, B[p * n + j]), acc);
  }
  return bits_of_f(acc);
}

static nx_dtype bits_dtype(nx_dtype dt) { return dt == NX_FLOAT32 ? NX_UINT32 : NX_UINT16; }

/* z = a b for a (m x k, bits A) of da and b (k x n, bits B) of db (each
   bfloat16, float16 or float32) into float32, every layout kind of a and
   b, checked bit for bit, and once into da by the store rule; returns how
   many elements of the reference are subnormal, infinite or NaN (so a case
   can say that it reached them). */
static long mixed_case(nx_dtype da, nx_dtype db, const char *what, const uint64_t *A, const uint64_t *B, int64_t m,
                       int64_t k, int64_t n) {
  nx_dtype dt = da;
  long special = 0;
  uint32_t *ref = calloc((size_t)(m * n) + 1, sizeof *ref);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      uint32_t r = ref[i * n + j] = chain_ref(da, db, A, B, k, n, i, j);
      if ((r & 0x7f800000) == 0x7f800000 || ((r & 0x7f800000) == 0 && (r & 0x7fffff))) special++;
    }
  for (int kind = 0; kind < 3; kind++) {
    nx_array *a = raw(da, bits_dtype(da), A, m, k, kind), *b = raw(db, bits_dtype(db), B, k, n, (kind + 1) % 3),
             *z = NULL;
    int64_t zs[2] = {m, n};
    CHECK(a && b && nx_array_host(NX_FLOAT32, zs, 2, &z) == 0, "%s: operands", what);
    int s = nx_matmul(z, a, b);
    CHECK(s == 0, "%s: %s", what, nx_error_message());
    uint64_t *got = bits_out(z, NX_UINT32, m * n);
    long bad = 0, first = -1;
    for (int64_t e = 0; e < m * n; e++)
      if (got[e] != ref[e] && !bad++) first = (long)e;
    CHECK(bad == 0, "%s x %s %s (level %d, layouts %d): %ld of %lld wrong, first [%ld]: %08llx, not %08x",
          nx_dtype_name(da), nx_dtype_name(db), what, nx__mm_level(), kind, bad, (long long)(m * n), first, first < 0 ? 0ull : (unsigned long long)got[first],
          first < 0 ? 0u : ref[first]);
    free(got);
    if (kind == 0) {
      /* z of dt: each float32 result stored once by the store rule */
      nx_array *zb = NULL;
      CHECK(nx_array_host(dt, zs, 2, &zb) == 0 && nx_matmul(zb, a, b) == 0, "%s, z %s: %s", what, nx_dtype_name(dt),
            nx_error_message());
      uint64_t *gb = bits_out(zb, bits_dtype(dt), m * n);
      long badb = 0;
      for (int64_t e = 0; e < m * n; e++) badb += gb[e] != nx_dtype_store_bits(dt, (double)flt_of(ref[e]));
      CHECK(badb == 0, "%s (level %d), z %s: %ld of %lld wrong", what, nx__mm_level(), nx_dtype_name(dt), badb,
            (long long)(m * n));
      free(gb);
      nx_array_free(zb);
    }
    nx_array_free(a), nx_array_free(b), nx_array_free(z);
  }
  free(ref);
  return special;
}

static long half_case(nx_dtype dt, const char *what, const uint64_t *A, const uint64_t *B, int64_t m, int64_t k,
                      int64_t n) {
  return mixed_case(dt, dt, what, A, B, m, k, n);
}

/* A batch of two (a [2, m, k] of da from the 2m rows of A) times one b
   broadcast over it (b [k, n] of db expanded to [2, k, n], stride 0), at
   the level forced: each batch's chains bit for bit. */
static void batched_case(nx_dtype da, nx_dtype db, const uint64_t *A, const uint64_t *B, int64_t m, int64_t k,
                         int64_t n) {
  nx_array *a2 = raw(da, bits_dtype(da), A, 2 * m, k, 0), *b2 = raw(db, bits_dtype(db), B, k, n, 0);
  nx_array *a = NULL, *b1 = NULL, *b = NULL, *z = NULL;
  int64_t as[3] = {2, m, k}, b1s[3] = {1, k, n}, bs[3] = {2, k, n}, zs[3] = {2, m, n};
  nx_move mv;
  CHECK(a2 && b2, "batched: operands");
  nx_move_reshape(&mv, as, 3);
  CHECK(nx_array_move(&mv, a2, &a) == 0, "batched a: %s", nx_error_message());
  nx_move_reshape(&mv, b1s, 3);
  CHECK(nx_array_move(&mv, b2, &b1) == 0, "batched b: %s", nx_error_message());
  nx_move_expand(&mv, bs, 3);
  CHECK(nx_array_move(&mv, b1, &b) == 0, "broadcast b: %s", nx_error_message());
  CHECK(nx_array_host(NX_FLOAT32, zs, 3, &z) == 0, "batched z: %s", nx_error_message());
  CHECK(nx_matmul(z, a, b) == 0, "batched %s x %s: %s", nx_dtype_name(da), nx_dtype_name(db), nx_error_message());
  uint64_t *got = bits_out(z, NX_UINT32, 2 * m * n);
  long bad = 0;
  for (int64_t i = 0; i < 2 * m; i++)
    for (int64_t j = 0; j < n; j++) bad += got[i * n + j] != chain_ref(da, db, A, B, k, n, i, j);
  CHECK(bad == 0, "batched %s x %s, b broadcast (level %d): %ld of %lld wrong", nx_dtype_name(da), nx_dtype_name(db),
        nx__mm_level(), bad, (long long)(2 * m * n));
  free(got);
  nx_array_free(a2), nx_array_free(b2), nx_array_free(a), nx_array_free(b1), nx_array_free(b), nx_array_free(z);
}

static void bf16_cases(void) {
  /* k odd and past two tiles of 256, m not a multiple of 6, n of 64 */
  const int64_t m = 13, k = 517, n = 70;
  uint64_t *A = calloc((size_t)(m * k), sizeof *A), *B = calloc((size_t)(k * n), sizeof *B);
  for (int64_t e = 0; e < m * k; e++) A[e] = bf_bits(-20, 20);
  for (int64_t e = 0; e < k * n; e++) B[e] = bf_bits(-20, 20);
  half_case(NX_BFLOAT16, "random", A, B, m, k, n);
  half_case(NX_BFLOAT16, "random, k = 1", A, B, m, 1, n);
  half_case(NX_BFLOAT16, "random, k = 256", A, B, m, 256, n);
  /* a row times a matrix, a matrix times a column, a dot product: panels
     of one line, the rest padding */
  half_case(NX_BFLOAT16, "random, m = 1", A, B, 1, k, n);
  half_case(NX_BFLOAT16, "random, n = 1", A, B, m, k, 1);
  half_case(NX_BFLOAT16, "random, m = n = 1", A, B, 1, k, 1);
  batched_case(NX_BFLOAT16, NX_BFLOAT16, A, B, m / 2, k, n);
  /* the first six rows' first tile of k tiny (products below 2^-126, sums
     subnormal), their later tiles zeros: the subnormal accumulators carry
     into the later tiles unflushed */
  for (int64_t i = 0; i < 6; i++)
    for (int64_t p = 0; p < k; p++) A[i * k + p] = p < 256 ? bf_bits(-80, -78) : 0;
  for (int64_t p = 0; p < 256; p++)
    for (int64_t j = 0; j < n; j++) B[p * n + j] = bf_bits(-61, -60);
  long sub = half_case(NX_BFLOAT16, "a tiny first tile", A, B, m, k, n);
  CHECK(sub > 0, "a tiny first tile gives subnormal results (%ld)", sub);
  /* every product a multiple of 2^-126, sums cancelling to it */
  for (int64_t e = 0; e < m * k; e++) A[e] = (rn() & 1) << 15 | (uint64_t)(127 - 63) << 7;
  for (int64_t e = 0; e < k * n; e++) B[e] = (rn() & 1) << 15 | (rn() % 2 ? (uint64_t)(127 - 63) << 7 : (uint64_t)(127 - 62) << 7 | 0x40);
  half_case(NX_BFLOAT16, "products 2^-126 and 3 * 2^-126", A, B, m, k, n);
  /* one step below: products 2^-127 and sums that go subnormal */
  for (int64_t e = 0; e < k * n; e++) B[e] = (rn() & 1) << 15 | (uint64_t)(127 - 64) << 7;
  sub = half_case(NX_BFLOAT16, "products 2^-127", A, B, m, k, n);
  CHECK(sub > 0, "some sums of products 2^-127 end subnormal (%ld)", sub);
  /* tiny and subnormal inputs */
  for (int64_t e = 0; e < m * k; e++) A[e] = rn() % 4 ? bf_bits(-80, -66) : rn() & 0x807f;
  for (int64_t e = 0; e < k * n; e++) B[e] = rn() % 4 ? bf_bits(-80, -66) : rn() & 0x807f;
  sub = half_case(NX_BFLOAT16, "tiny and subnormal", A, B, m, k, n);
  CHECK(sub > 0, "some tiny results are subnormal (%ld)", sub);
  /* products past float32's range, sums that overflow */
  for (int64_t e = 0; e < m * k; e++) A[e] = bf_bits(60, 70);
  for (int64_t e = 0; e < k * n; e++) B[e] = bf_bits(55, 64);
  half_case(NX_BFLOAT16, "products near and past 2^128", A, B, m, k, n);
  for (int64_t e = 0; e < m * k; e++) A[e] = bf_bits(62, 64);
  for (int64_t e = 0; e < k * n; e++) B[e] = bf_bits(62, 64);
  half_case(NX_BFLOAT16, "products near and past 2^128, k = 3", A, B, m, 3, n);
  /* infinities and NaN (the machine's default NaN, so that which NaN
     propagates cannot matter), the last element of k an infinity */
  for (int64_t e = 0; e < m * k; e++) A[e] = rn() % 50 ? bf_bits(-5, 5) : rn() % 3 ? 0x7f80 | (rn() & 1) << 15 : 0xffc0;
  for (int64_t e = 0; e < k * n; e++) B[e] = rn() % 50 ? bf_bits(-5, 5) : rn() % 3 ? 0x7f80 | (rn() & 1) << 15 : 0xffc0;
  for (int64_t i = 0; i < m; i++) A[i * k + k - 1] = i % 2 ? 0x7f80 : 0x3f80;
  for (int64_t j = 0; j < n; j++) B[(k - 1) * n + j] = j % 3 ? 0xff80 : 0;
  long sp = half_case(NX_BFLOAT16, "infinities and NaN", A, B, m, k, n);
  CHECK(sp > 0, "some results are infinite or NaN (%ld)", sp);
  /* an infinity as the odd k's last element where the rest is ordinary */
  for (int64_t e = 0; e < m * k; e++) A[e] = bf_bits(-5, 5);
  for (int64_t e = 0; e < k * n; e++) B[e] = bf_bits(-5, 5);
  for (int64_t i = 0; i < m; i++) A[i * k + k - 1] = 0x7f80;
  half_case(NX_BFLOAT16, "an infinity last", A, B, m, k, n);
  free(A), free(B);
}

/* A float16 bit pattern: sign random, exponent (unbiased) in [lo, hi] (-15
   for a subnormal or zero), fraction random. */
static uint16_t h_bits(int lo, int hi) {
  int e = lo + (int)(rn() % (uint64_t)(hi - lo + 1));
  return (uint16_t)((rn() & 1) << 15 | (uint64_t)(e + 15) << 10 | (rn() & 0x3ff));
}

/* float16 x float16 (the packed kernel widens it through F16C or AVX-512F
   where the level has one, the float32 kernel elsewhere): random data, k
   past a tile of k at each level, subnormal inputs and products, results
   past float16's range (finite in float32), infinities and NaN. */
static void f16_cases(void) {
  const int64_t m = 13, k = 601, n = 70;
  uint64_t *A = calloc((size_t)(m * k), sizeof *A), *B = calloc((size_t)(k * n), sizeof *B);
  for (int64_t e = 0; e < m * k; e++) A[e] = h_bits(-6, 6);
  for (int64_t e = 0; e < k * n; e++) B[e] = h_bits(-6, 6);
  half_case(NX_FLOAT16, "random", A, B, m, k, n);
  half_case(NX_FLOAT16, "random, k = 1", A, B, m, 1, n);
  half_case(NX_FLOAT16, "random, m = 1", A, B, 1, k, n);
  half_case(NX_FLOAT16, "random, n = 1", A, B, m, k, 1);
  for (int64_t e = 0; e < m * k; e++) A[e] = rn() % 3 ? h_bits(-15, -10) : h_bits(-3, 3);
  for (int64_t e = 0; e < k * n; e++) B[e] = rn() % 3 ? h_bits(-15, -10) : h_bits(-3, 3);
  long sub = half_case(NX_FLOAT16, "subnormal inputs", A, B, m, k, n);
  CHECK(sub == 0, "float16 subnormal products are normal in float32 (%ld)", sub);
  for (int64_t e = 0; e < m * k; e++) A[e] = h_bits(10, 15);
  for (int64_t e = 0; e < k * n; e++) B[e] = h_bits(10, 15);
  half_case(NX_FLOAT16, "past float16's range", A, B, m, k, n);
  for (int64_t e = 0; e < m * k; e++) A[e] = rn() % 50 ? h_bits(-5, 5) : rn() % 3 ? 0x7c00 | (rn() & 1) << 15 : 0xfe00;
  for (int64_t e = 0; e < k * n; e++) B[e] = rn() % 50 ? h_bits(-5, 5) : rn() % 3 ? 0x7c00 | (rn() & 1) << 15 : 0xfe00;
  long sp = half_case(NX_FLOAT16, "infinities and NaN", A, B, m, k, n);
  CHECK(sp > 0, "some float16 results are infinite or NaN (%ld)", sp);
  free(A), free(B);
}

/* Mixed operands, each bfloat16, float16 or float32 (a bfloat16 weight
   and float32 activations, say): random data and infinities and NaN, k
   past a tile at each level. */
static void mixed_cases(void) {
  const int64_t m = 13, k = 601, n = 70;
  static const nx_dtype pairs[][2] = {{NX_BFLOAT16, NX_FLOAT32}, {NX_FLOAT32, NX_BFLOAT16}, {NX_FLOAT16, NX_BFLOAT16},
                                      {NX_FLOAT32, NX_FLOAT16}};
  uint64_t *A = calloc((size_t)(m * k), sizeof *A), *B = calloc((size_t)(k * n), sizeof *B);
  for (size_t q = 0; q < sizeof pairs / sizeof *pairs; q++) {
    nx_dtype da = pairs[q][0], db = pairs[q][1];
    for (int special = 0; special < 2; special++) {
      for (int side = 0; side < 2; side++) {
        nx_dtype dt = side ? db : da;
        uint64_t *X = side ? B : A;
        for (int64_t e = 0; e < (side ? k * n : m * k); e++) {
          uint64_t h = dt == NX_FLOAT16 ? h_bits(-6, 6) : bf_bits(-20, 20);
          if (dt == NX_FLOAT32) h = h << 16 | (rn() & 0xffff);
          if (special && rn() % 50 == 0) h = dt == NX_FLOAT32 ? 0x7f800000 : dt == NX_FLOAT16 ? 0x7c00 : 0x7f80;
          X[e] = h;
        }
      }
      mixed_case(da, db, special ? "mixed, infinities" : "mixed, random", A, B, m, k, n);
      if (!special) {
        mixed_case(da, db, "mixed, m = 1", A, B, 1, k, n);
        mixed_case(da, db, "mixed, n = 1", A, B, m, k, 1);
        batched_case(da, db, A, B, m / 2, k, n);
      }
    }
  }
  free(A), free(B);
}

/* A [rows, cols] float32 z laid out as kind 0 (C order), 1 (the transpose
   of a [cols, rows] array) or 2 (a slice with step 2 of a larger one). */
static nx_array *z_of(int64_t rows, int64_t cols, int kind) {
  int64_t big[2] = {kind == 1 ? cols : kind == 2 ? 2 * rows : rows, kind == 1 ? rows : kind == 2 ? 2 * cols : cols};
  nx_array *u = NULL, *z = NULL;
  if (nx_array_host(NX_FLOAT32, big, 2, &u)) return NULL;
  nx_move m;
  int order[2] = {1, 0};
  int64_t st[2] = {0, 0}, sp[2] = {2 * rows, 2 * cols}, step[2] = {2, 2};
  if (kind == 1) nx_move_permute(&m, order, 2);
  else if (kind == 2) nx_move_slice(&m, st, sp, step, 2);
  else nx_move_reshape(&m, big, 2);
  if (nx_array_move(&m, u, &z)) z = NULL;
  nx_array_free(u);
  return z;
}

/* float32 x float32 into float32 by the packed kernel at each level that
   has one (forced there: BLAS's kernel takes them where it is of the
   CPU's level): the same chain, bit for bit, on shapes past a block of z
   as two threads cut it and past one tile of k (256 at AVX-512, 512 at
   AVX2), with edges in every direction, every layout kind of a, b and z
   (z contiguous holds the chains itself, other z go through scratch). */
static void f32_cases(void) {
  if (nx__mm_level() < NX__MM_AVX2) return;
  nx__mm_force_wide(true);
  const int64_t m = 590, k = 601, n = 530;
  uint64_t *A = calloc((size_t)(m * k), sizeof *A), *B = calloc((size_t)(k * n), sizeof *B);
  uint32_t *ref = calloc((size_t)(m * n), sizeof *ref);
  for (int64_t e = 0; e < m * k; e++) A[e] = (uint64_t)bf_bits(-20, 20) << 16 | (rn() & 0xffff);
  for (int64_t e = 0; e < k * n; e++) B[e] = (uint64_t)bf_bits(-20, 20) << 16 | (rn() & 0xffff);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      float acc = 0;
      for (int64_t p = 0; p < k; p += 2) {
        if (p + 1 < k) acc = fmaf(flt_of((uint32_t)A[i * k + p + 1]), flt_of((uint32_t)B[(p + 1) * n + j]), acc);
        acc = fmaf(flt_of((uint32_t)A[i * k + p]), flt_of((uint32_t)B[p * n + j]), acc);
      }
      ref[i * n + j] = bits_of_f(acc);
    }
  for (int kind = 0; kind < 3; kind++)
    for (int zk = 0; zk < 3; zk++) {
      nx_array *a = raw(NX_FLOAT32, NX_UINT32, A, m, k, kind), *b = raw(NX_FLOAT32, NX_UINT32, B, k, n, (kind + 1) % 3),
               *z = z_of(m, n, zk);
      CHECK(a && b && z, "float32: operands");
      CHECK(nx_matmul(z, a, b) == 0, "float32: %s", nx_error_message());
      uint64_t *got = bits_out(z, NX_UINT32, m * n);
      long bad = 0, first = -1;
      for (int64_t e = 0; e < m * n; e++)
        if (got[e] != ref[e] && !bad++) first = (long)e;
      CHECK(bad == 0, "float32 (level %d, layouts %d, z %d): %ld of %lld wrong, first [%ld]: %08llx, not %08x",
            nx__mm_level(), kind, zk, bad,
            (long long)(m * n), first, first < 0 ? 0ull : (unsigned long long)got[first], first < 0 ? 0u : ref[first]);
      free(got);
      nx_array_free(a), nx_array_free(b), nx_array_free(z);
    }
  free(A), free(B), free(ref);
  nx__mm_force_wide(false);
}

/* z = a b for int8 a (m x k) and b (k x n) into zt, every layout kind, z's
   bits against the sum of products modulo 2^64 cut to z's width. */
static void i8_case(const char *what, const int8_t *A, const int8_t *B, int64_t m, int64_t k, int64_t n, nx_dtype zt) {
  uint64_t *xa = calloc((size_t)(m * k) + 1, sizeof *xa), *xb = calloc((size_t)(k * n) + 1, sizeof *xb);
  for (int64_t e = 0; e < m * k; e++) xa[e] = (uint8_t)A[e];
  for (int64_t e = 0; e < k * n; e++) xb[e] = (uint8_t)B[e];
  int zbits = nx_dtype_bits(zt);
  uint64_t mask = zbits == 64 ? ~0ull : (1ull << zbits) - 1;
  nx_dtype uz = zbits == 8 ? NX_UINT8 : zbits == 16 ? NX_UINT16 : zbits == 32 ? NX_UINT32 : NX_UINT64;
  for (int kind = 0; kind < 3; kind++) {
    nx_array *a = raw(NX_INT8, NX_UINT8, xa, m, k, kind), *b = raw(NX_INT8, NX_UINT8, xb, k, n, (kind + 2) % 3),
             *z = NULL;
    int64_t zs[2] = {m, n};
    CHECK(a && b && nx_array_host(zt, zs, 2, &z) == 0, "%s: operands", what);
    int s = nx_matmul(z, a, b);
    CHECK(s == 0, "%s: %s", what, nx_error_message());
    uint64_t *got = bits_out(z, uz, m * n);
    long bad = 0;
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        uint64_t acc = 0;
        for (int64_t p = 0; p < k; p++) acc += (uint64_t)(int64_t)A[i * k + p] * (uint64_t)(int64_t)B[p * n + j];
        bad += (got[i * n + j] & mask) != (acc & mask);
      }
    CHECK(bad == 0, "%s (level %d, layouts %d, z %s): %ld of %lld wrong", what, nx__mm_level(), kind,
          nx_dtype_name(zt), bad, (long long)(m * n));
    free(got);
    nx_array_free(a), nx_array_free(b), nx_array_free(z);
  }
  free(xa), free(xb);
}

static void int8_cases(void) {
  const int64_t m = 14, k = 1031, n = 37; /* k past a tile of 1024 and not a multiple of 4 */
  int8_t *A = malloc((size_t)(m * k)), *B = malloc((size_t)(k * n));
  for (int64_t e = 0; e < m * k; e++) A[e] = (int8_t)rn();
  for (int64_t e = 0; e < k * n; e++) B[e] = (int8_t)rn();
  static const nx_dtype zts[] = {NX_INT32, NX_INT8, NX_UINT16, NX_INT64};
  for (size_t q = 0; q < sizeof zts / sizeof *zts; q++) i8_case("random", A, B, m, k, n, zts[q]);
  i8_case("random, k = 1", A, B, m, 1, n, NX_INT32);
  i8_case("random, k = 3", A, B, m, 3, n, NX_INT32);
  /* the extremes: every pair of -128, -1, 0, 1 and 127 */
  static const int8_t ext[] = {-128, -1, 0, 1, 127};
  for (int64_t e = 0; e < m * k; e++) A[e] = ext[rn() % 5];
  for (int64_t e = 0; e < k * n; e++) B[e] = ext[rn() % 5];
  i8_case("extremes", A, B, m, k, n, NX_INT32);
  i8_case("extremes", A, B, m, k, n, NX_INT64);
  free(A), free(B);
  /* -128 x -128 over k = 2^17 + 5: the sum 2^31 + 5 * 2^14 wraps in int32
     (and a 64-bit z, which needs the whole sum, takes the integer kernel) */
  const int64_t kw = (1 << 17) + 5;
  int8_t *wa = malloc((size_t)(2 * kw)), *wb = malloc((size_t)(kw * 3));
  memset(wa, 0x80, (size_t)(2 * kw));
  memset(wb, 0x80, (size_t)(kw * 3));
  i8_case("-128 x -128, wrapping", wa, wb, 2, kw, 3, NX_INT32);
  i8_case("-128 x -128, 64 bits", wa, wb, 2, kw, 3, NX_INT64);
  free(wa), free(wb);
}

int main(void) {
  int best = nx__mm_levels();
  printf("levels 0 to %d\n", best);
  for (int level = 0; level <= best; level++) {
    nx__mm_force(level);
    bf16_cases();
    f16_cases();
    mixed_cases();
    f32_cases();
    int8_cases();
  }
  nx__mm_force(-1);
  return check_done();
}
