/* SPDX-License-Identifier: Apache-2.0 */
/* The typed loops (src/kernels/typed.h) against the element paths, at every
   level this CPU runs: each operation's result bit for bit against the same
   call with the typed loops off (nx__typed_set_isa(NX__TYPED_OFF), the
   element paths the rest of the suites check against their oracles), over
   the special values, the rounding and saturation boundaries, random bits
   and moderate values, odd lengths, starts off the vectors' alignment, and
   in place. The casts among float32, float64, int8, int16, int32, int64,
   uint8 and bool: nx__cast_run against nx__cast_run_scalar, and every byte
   around the result unchanged. */
#include "kernels_common.h"
#include "cast.h"
#include "typed.h"

/* ---- Inputs ---- */

static const uint32_t f32_special[] = {
    0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FA00001, 0xFF800001,
    0x7FBFFFFF, 0x7FC12345, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000,
    0x7F7FFFFF, 0xFF7FFFFF, 0x3F000000, 0xBF000000, 0x3EFFFFFF, 0xBEFFFFFF, 0x3F000001, 0xBF000001,
    0x3F800000, 0xBF800000, 0x3FC00000, 0xBFC00000, 0x40200000, 0xC0200000, 0x4B000000, 0xCB000000,
    0x4B7FFFFF, 0x4AFFFFFF, 0x4B000001, 0xCAFFFFFF};
/* value boundaries of the integer formats, as floats */
static const double boundaries[] = {
    127, 127.5, 127.99, 128, 128.5, -128, -128.5, -128.99, -129, 255, 255.5, 255.99, 256, 256.5, -1, -0.5, -0.99,
    -1.5, 0.99, 32767, 32767.5, 32768, -32768, -32768.5, -32769, 65535, 65536, 2147483520.0, 2147483647.0,
    2147483647.5, 2147483648.0, -2147483648.0, -2147483648.5, -2147483649.0, -2147483904.0, 4294967296.0,
    9223372036854774784.0, 9223372036854775808.0, -9223372036854775808.0, -9223372036854777856.0,
    9223371487098961920.0, -9223371487098961920.0, 16777217.0, 9007199254740993.0, 1e30, -1e30, 0.49999999999999994,
    -0.49999999999999994, 2.5, -2.5, 3.5, 4503599627370495.5, -4503599627370495.5};
static const uint64_t f64_special[] = {
    0, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull, 0x7FF8000000000000ull,
    0xFFF8000000000000ull, 0x7FF0000000000001ull, 0xFFF4000000000000ull, 0x7FF7FFFFFFFFFFFFull,
    0x7FF8000012345678ull, 0xFFFFFFFFFFFFFFFFull, 1, 0x8000000000000001ull, 0x000FFFFFFFFFFFFFull,
    0x0010000000000000ull, 0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull, 0x36A0000000000000ull,
    0x3690000000000000ull, 0x47EFFFFFE0000000ull, 0x47EFFFFFF0000000ull, 0x47F0000000000000ull};
static const int64_t int_special[] = {
    0, 1, -1, 2, -2, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769, 65535, 65536,
    2147483647, 2147483648ll, -2147483647 - 1, -2147483649ll, 4294967295ll, 16777217, 16777219, -16777217,
    33554435, 9007199254740993ll, -9007199254740993ll, 9007199254740995ll, INT64_MAX, INT64_MIN, INT64_MAX - 1,
    INT64_MIN + 1, (1ll << 62) + (1ll << 38) + 1, -((1ll << 62) + (1ll << 38) + 1), (1ll << 62) + (1ll << 38),
    (1ll << 40) + (1ll << 16), 0x7FFFFF8000000000ll, 0x7FFFFFC000000000ll, -0x7FFFFFC000000000ll};

static uint64_t rnd(uint64_t *seed) { return splitmix64_next(seed); }

/* Element i of a fresh input of dt: the specials first, then random bits,
   moderate values (random integers over a random power of two, in the
   float formats' and integer formats' ranges) and boundaries in turn. */
static void fill(nx_dtype dt, void *p, int64_t n, uint64_t *seed) {
  int bytes = nx_dtype_bits(dt) / 8;
  int kind = nx_dtype_kind(dt);
  int64_t nb = (int64_t)(sizeof boundaries / sizeof *boundaries), ni = (int64_t)(sizeof int_special / sizeof *int_special);
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = rnd(seed), b = r;
    int64_t pick = i % 4;
    if (kind == NX_KIND_FLOAT) {
      double v;
      int64_t ns = dt == NX_FLOAT32 ? (int64_t)(sizeof f32_special / sizeof *f32_special)
                                    : (int64_t)(sizeof f64_special / sizeof *f64_special);
      if (i < ns) {
        b = dt == NX_FLOAT32 ? f32_special[i] : f64_special[i];
      } else if (i < ns + nb) {
        v = boundaries[i - ns];
        b = dt == NX_FLOAT32 ? bits_of_f((float)v) : bits_of(v);
        if (dt == NX_FLOAT32 && (r & 1)) b += (r & 2) ? 1 : (uint64_t)-1; /* its neighbours */
      } else if (i < ns + nb + ni) {
        v = (double)int_special[i - ns - nb];
        b = dt == NX_FLOAT32 ? bits_of_f((float)v) : bits_of(v);
      } else if (pick == 1) {
        v = (double)(int64_t)(r >> 20) / (double)(1ull << (r & 63)) * ((r >> 6) & 1 ? -1 : 1);
        b = dt == NX_FLOAT32 ? bits_of_f((float)v) : bits_of(v);
      } else if (pick == 2) {
        v = boundaries[r % (uint64_t)nb];
        b = dt == NX_FLOAT32 ? bits_of_f((float)v) : bits_of(v);
      }
    } else if (kind == NX_KIND_BOOLEAN) {
      b = pick == 0 ? r : pick == 1 ? 0 : 1; /* nonzero bytes other than 1 are true too */
    } else if (i < ni) {
      b = (uint64_t)int_special[i];
    } else if (pick == 1) {
      b = r >> (r & 63);
      if ((r >> 6) & 1) b = 0 - b;
    } else if (pick == 2) {
      b = (uint64_t)int_special[r % (uint64_t)ni] + ((r >> 8) % 3) - 1;
    }
    memcpy((char *)p + i * bytes, &b, (size_t)bytes);
  }
}

/* An array of dt over n + 8 elements with a view of n elements from `off`. */
typedef struct buf {
  nx_array *base, *view;
  uint8_t *p;
  int64_t bytes;
} buf;

static buf make(nx_dtype dt, int64_t n, int64_t off) {
  buf b;
  int64_t all = n + 8, start = off, stop = off + n;
  CHECK(nx_array_host(dt, &all, 1, &b.base) == 0, "array: %s", nx_error_message());
  nx_move m;
  nx_move_shrink(&m, &start, &stop, 1);
  CHECK(nx_array_move(&m, b.base, &b.view) == 0, "view: %s", nx_error_message());
  b.p = nx_buffer_host_address(nx_array_buffer(b.base));
  b.bytes = all * nx_dtype_bits(dt) / 8;
  return b;
}

static void drop(buf *b) {
  nx_array_free(b->view);
  nx_array_free(b->base);
}

/* ---- The operations ---- */

typedef int (*un_fn)(nx_array *, nx_array *);
typedef int (*bin_fn)(nx_array *, nx_array *, nx_array *);
static const struct {
  const char *name;
  un_fn fn;
} unaries[] = {{"neg", nx_neg},     {"recip", nx_recip}, {"abs", nx_abs},     {"sqrt", nx_sqrt}, {"sign", nx_sign},
               {"trunc", nx_trunc}, {"ceil", nx_ceil},   {"floor", nx_floor}, {"round", nx_round}};
static const struct {
  const char *name;
  bin_fn fn;
  bool to_bool; /* a comparison */
} binaries[] = {{"eq", nx_eq, 1},   {"ne", nx_ne, 1},   {"lt", nx_lt, 1},   {"le", nx_le, 1},  {"and", nx_and, 0},
                {"or", nx_or, 0},   {"xor", nx_xor, 0}, {"add", nx_add, 0}, {"sub", nx_sub, 0}, {"mul", nx_mul, 0}, {"fdiv", nx_fdiv, 0}, {"min", nx_min, 0},
                {"max", nx_max, 0}};
static const nx_dtype elem_dtypes[] = {NX_FLOAT32, NX_FLOAT64, NX_INT8,   NX_UINT8,  NX_INT16, NX_UINT16,
                                       NX_INT32,   NX_UINT32,  NX_INT64, NX_UINT64, NX_BOOL};
#define NDT (int)(sizeof elem_dtypes / sizeof *elem_dtypes)

static long cases, compared;

/* The result of one call at the level in use, into a fresh z (every byte
   0xA5 first); the status in *s. */
typedef struct call {
  int kind; /* 0 unary, 1 binary, 2 where, 3 unary in place */
  int op;
  nx_dtype dt, zt;
  int64_t n, offz, offx, offy;
} call;

static uint8_t *run_call(const call *c, const buf *x, const buf *y, const buf *cond, int64_t *bytes, int *s) {
  buf z = make(c->zt, c->n, c->offz);
  memset(z.p, 0xA5, (size_t)z.bytes);
  if (c->kind == 0) *s = unaries[c->op].fn(z.view, x->view);
  else if (c->kind == 1) *s = binaries[c->op].fn(z.view, x->view, y->view);
  else if (c->kind == 2) *s = nx_where(z.view, cond->view, x->view, y->view);
  else {
    /* in place: z's view over a copy of x's bytes */
    memcpy(z.p, x->p, (size_t)z.bytes);
    nx_array *v;
    int64_t start = c->offx, stop = c->offx + c->n;
    nx_move m;
    nx_move_shrink(&m, &start, &stop, 1);
    CHECK(nx_array_move(&m, z.base, &v) == 0, "view: %s", nx_error_message());
    *s = unaries[c->op].fn(v, v);
    nx_array_free(v);
  }
  uint8_t *out = malloc((size_t)z.bytes);
  memcpy(out, z.p, (size_t)z.bytes);
  *bytes = z.bytes;
  drop(&z);
  return out;
}

static const char *kind_name(const call *c) {
  return c->kind == 2 ? "where" : c->kind == 1 ? binaries[c->op].name : unaries[c->op].name;
}

/* c at `level` against c with the typed loops off. */
static void check_call(const call *c, int level, uint64_t *seed) {
  buf x = make(c->dt, c->n, c->offx), y = make(c->dt, c->n, c->offy), cond = make(NX_BOOL, c->n, c->offy);
  fill(c->dt, x.p, x.bytes / (nx_dtype_bits(c->dt) / 8), seed);
  fill(c->dt, y.p, y.bytes / (nx_dtype_bits(c->dt) / 8), seed);
  fill(NX_BOOL, cond.p, cond.bytes, seed);
  /* equal elements for the comparisons: every third of y's is x's */
  int eb = nx_dtype_bits(c->dt) / 8;
  for (int64_t i = 0; i < c->n; i += 3)
    memcpy(y.p + (c->offy + i) * eb, x.p + (c->offx + i) * eb, (size_t)eb);
  /* two NaNs of different payloads, the first signalling: whose is kept */
  if (nx_dtype_kind(c->dt) == NX_KIND_FLOAT)
    for (int64_t i = 1; i < c->n; i += 11) {
      uint64_t a = eb == 4 ? 0xFFA00001u : 0xFFF4000000000001ull, b = eb == 4 ? 0x7FC0BEEFu : 0x7FF800000000BEEFull;
      memcpy(x.p + (c->offx + i) * eb, &a, (size_t)eb);
      memcpy(y.p + (c->offy + i) * eb, &b, (size_t)eb);
      /* and zeros of the two signs, both ways, for min and max */
      uint64_t zero = 0, neg0 = eb == 4 ? 0x80000000u : 0x8000000000000000ull;
      if (i + 2 < c->n) {
        memcpy(x.p + (c->offx + i + 1) * eb, &zero, (size_t)eb);
        memcpy(y.p + (c->offy + i + 1) * eb, &neg0, (size_t)eb);
        memcpy(x.p + (c->offx + i + 2) * eb, &neg0, (size_t)eb);
        memcpy(y.p + (c->offy + i + 2) * eb, &zero, (size_t)eb);
      }
    }
  int s0, s1;
  int64_t n0, n1;
  nx__typed_set_isa(NX__TYPED_OFF);
  uint8_t *want = run_call(c, &x, &y, &cond, &n0, &s0);
  nx__typed_set_isa(level);
  uint8_t *got = run_call(c, &x, &y, &cond, &n1, &s1);
  CHECK(s0 == s1, "%s of %s: status %d at level %d, %d off", kind_name(c), nx_dtype_name(c->dt), s1, level, s0);
  if (s0 == 0) {
    int zb = nx_dtype_bits(c->zt) / 8;
    long bad = 0;
    for (int64_t i = 0; i < n0; i++)
      if (want[i] != got[i] && bad++ < 3) {
        int64_t e = i / zb - c->offz;
        uint64_t wv = 0, gv = 0, xv = 0;
        if (e >= 0 && e < c->n) {
          memcpy(&wv, want + (e + c->offz) * zb, (size_t)zb);
          memcpy(&gv, got + (e + c->offz) * zb, (size_t)zb);
          memcpy(&xv, x.p + (e + c->offx) * eb, (size_t)eb);
        }
        CHECK(0, "%s of %s, level %d, n %lld, offsets %lld %lld %lld%s: element %lld of x %llx: %llx, want %llx",
              kind_name(c), nx_dtype_name(c->dt), level, (long long)c->n, (long long)c->offz, (long long)c->offx,
              (long long)c->offy, c->kind == 3 ? " in place" : "", (long long)e, (unsigned long long)xv,
              (unsigned long long)gv, (unsigned long long)wv);
      }
    CHECK(bad == 0, "%s of %s, level %d, n %lld: %ld bytes differ", kind_name(c), nx_dtype_name(c->dt), level,
          (long long)c->n, bad);
    compared += c->n;
    cases++;
  }
  free(want);
  free(got);
  drop(&x);
  drop(&y);
  drop(&cond);
}

static const int64_t lengths[] = {1, 7, 33, 200, 1027};

static void check_elementwise(int level, uint64_t *seed) {
  for (int d = 0; d < NDT; d++)
    for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++) {
      int64_t n = lengths[li], o1 = (int64_t)li % 4, o2 = (int64_t)(li * 3 + 1) % 8, o3 = (int64_t)(li + 5) % 8;
      nx_dtype dt = elem_dtypes[d];
      for (int op = 0; op < (int)(sizeof unaries / sizeof *unaries); op++) {
        check_call(&(call){0, op, dt, dt, n, o1, o2, 0}, level, seed);
        check_call(&(call){3, op, dt, dt, n, o2, o2, 0}, level, seed);
      }
      for (int op = 0; op < (int)(sizeof binaries / sizeof *binaries); op++)
        check_call(&(call){1, op, dt, binaries[op].to_bool ? NX_BOOL : dt, n, o1, o2, o3}, level, seed);
      check_call(&(call){2, 0, dt, dt, n, o3, o1, o2}, level, seed);
    }
}

/* Runs of 2 MiB of result or more: float32 and float64 + - x / stream the
   lines of z past its first 64-byte boundary (typed_x86.h), so z starts
   at every offset of a line's first elements; on one thread, so that the
   run is whole. */
static void check_streamed(int level, uint64_t *seed) {
  int threads = nx_num_threads();
  nx_set_num_threads(1);
  static const nx_dtype dts[] = {NX_FLOAT32, NX_FLOAT64};
  for (int d = 0; d < 2; d++)
    for (int op = 7; op <= 10; op++) /* add sub mul fdiv */
      for (int64_t off = 0; off < 3; off++) {
        int64_t n = ((int64_t)2 << 20) / (nx_dtype_bits(dts[d]) / 8) + 37 + off;
        check_call(&(call){1, op, dts[d], dts[d], n, off, (off + 1) % 4, 2 - off}, level, seed);
      }
  nx_set_num_threads(threads);
}

/* ---- Casts ---- */

static const nx_dtype cast_dtypes[] = {NX_FLOAT32, NX_FLOAT64, NX_INT8, NX_INT16, NX_INT32, NX_INT64, NX_UINT8, NX_BOOL};

static void check_casts(uint64_t *seed) {
  int level = nx__typed_level();
  for (size_t f = 0; f < 8; f++)
    for (size_t t = 0; t < 8; t++)
      for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++) {
        nx_dtype from = cast_dtypes[f], to = cast_dtypes[t];
        int64_t n = lengths[li] + 3000 * (li == 4), sp = (int64_t)(li + t) % 8, dp = (int64_t)(li * 5 + f) % 8;
        int fb = nx_dtype_bits(from) / 8, tb = nx_dtype_bits(to) / 8;
        uint8_t *src = malloc((size_t)((n + 8) * fb)), *d0 = malloc((size_t)((n + 8) * tb)),
                *d1 = malloc((size_t)((n + 8) * tb));
        fill(from, src, n + 8, seed);
        memset(d0, 0x5A, (size_t)((n + 8) * tb));
        memset(d1, 0x5A, (size_t)((n + 8) * tb));
        nx__cast_run_scalar(to, d0, dp, 1, from, src, sp, 1, n);
        nx__cast_run(to, d1, dp, 1, from, src, sp, 1, n);
        long bad = 0;
        for (int64_t i = 0; i < (n + 8) * tb; i++)
          if (d0[i] != d1[i] && bad++ < 3) {
            int64_t e = i / tb - dp;
            uint64_t sv = 0, wv = 0, gv = 0;
            if (e >= 0 && e < n) {
              memcpy(&sv, src + (sp + e) * fb, (size_t)fb);
              memcpy(&wv, d0 + (dp + e) * tb, (size_t)tb);
              memcpy(&gv, d1 + (dp + e) * tb, (size_t)tb);
            }
            CHECK(0, "cast %s -> %s, level %d, n %lld, at %lld: of %llx gives %llx, want %llx", nx_dtype_name(from),
                  nx_dtype_name(to), level, (long long)n, (long long)e, (unsigned long long)sv,
                  (unsigned long long)gv, (unsigned long long)wv);
          }
        CHECK(bad == 0, "cast %s -> %s, level %d: %ld bytes differ", nx_dtype_name(from), nx_dtype_name(to), level,
              bad);
        compared += n;
        cases++;
        free(src);
        free(d0);
        free(d1);
      }
}

/* The typed loops must be the ones running: at the level in use, a cast of
   int64 2^62 + 2^38 + 1 into float32 rounds once (up), where rounding
   through float64 first would round it down, and float32 sqrt of a 4096
   element run gives the element path's bits (checked above) in the typed
   loop's time; here, that the level is what was asked. */
static void check_levels(void) {
  CHECK(nx__typed_set_isa(NX__TYPED_OFF) == NX__TYPED_OFF, "the level goes off");
  CHECK(nx__typed_set_isa(NX__TYPED_BASE) == NX__TYPED_BASE, "the base level runs everywhere");
  int64_t v = (1ll << 62) + (1ll << 38) + 1;
  float f;
  nx__cast_run(NX_FLOAT32, &f, 0, 1, NX_INT64, &v, 0, 1, 1);
  CHECK(f == 0x1p62f + 0x1p39f, "int64 2^62 + 2^38 + 1 into float32 rounds once: %a", (double)f);
  nx__typed_set_isa(NX__TYPED_BEST);
}

int main(void) {
  uint64_t seed = 9;
  check_levels();
  for (int level = NX__TYPED_BASE; level < NX__TYPED_BEST; level++) {
    if (nx__typed_set_isa(level) != level) {
      printf("level %d: not on this CPU\n", level);
      continue;
    }
    check_elementwise(level, &seed);
    check_streamed(level, &seed);
    nx__typed_set_isa(level);
    check_casts(&seed);
    printf("level %d: checked\n", level);
  }
  nx__typed_set_isa(NX__TYPED_BEST);
  printf("%ld cases, %ld elements compared\n", cases, compared);
  return check_done();
}
