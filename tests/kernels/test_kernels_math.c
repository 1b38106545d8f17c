/* SPDX-License-Identifier: Apache-2.0 */
/* Transcendentals and sqrt against MPFR: every input of float16, bfloat16,
   float8_e4m3fn, float8_e5m2 and float4_e2m1fn correctly rounded (MPFR at
   the format's precision and exponent range, subnormalized); float32 and
   float64 within 1 ulp on random samples, float32 tanh within 0.84 ulp (its
   vector loop's bound) at each of its vector levels. Under sanitizers (NX_SAMPLED) a
   sixteenth of the 16-bit inputs and fewer samples. */
#include "kernels_common.h"
#include "mpfr_oracle.h"
#include "vmath.h"
#include "vtanh.h"

typedef int (*un_fn)(nx_array *, nx_array *);

static const struct {
  const char *name;
  un_fn fn;
  mp1_fn mp;
} ops[] = {{"sqrt", nx_sqrt, mpfr_sqrt}, {"exp", nx_exp, mpfr_exp},   {"log", nx_log, mpfr_log},
           {"sin", nx_sin, mpfr_sin},    {"cos", nx_cos, mpfr_cos},   {"tan", nx_tan, mpfr_tan},
           {"asin", nx_asin, mpfr_asin}, {"acos", nx_acos, mpfr_acos}, {"atan", nx_atan, mpfr_atan},
           {"sinh", nx_sinh, mpfr_sinh}, {"cosh", nx_cosh, mpfr_cosh}, {"tanh", nx_tanh, mpfr_tanh},
           {"erf", nx_erf, mpfr_erf}};
#define NOPS (int)(sizeof ops / sizeof *ops)

static uint64_t oracle(int op, nx_dtype dt, double x) { return mp_rounded(dt, ops[op].mp, NULL, x, 0); }

static void exhaustive(nx_dtype dt, int step) {
  int bits = nx_dtype_bits(dt);
  int64_t n = ((int64_t)1 << bits) / step;
  nx_array *x, *z;
  int64_t shape[1] = {n};
  nx_array_host(dt, shape, 1, &x);
  nx_array_host(dt, shape, 1, &z);
  nx_buffer_wait(nx_array_buffer(x), NX_ACCESS_READ_WRITE); /* the zeroing of a sub-byte array's last byte */
  uint8_t *px = nx_buffer_host_address(nx_array_buffer(x));
  for (int64_t i = 0; i < n; i++) {
    uint64_t b = (uint64_t)(i * step);
    if (bits == 16) memcpy(px + 2 * i, &b, 2);
    else if (bits == 8) px[i] = (uint8_t)b;
    else nx_subbyte_put(px, i, 4, (uint8_t)b);
  }
  uint8_t *pz = nx_buffer_host_address(nx_array_buffer(z));
  for (int op = 0; op < NOPS; op++) {
    CHECK(ops[op].fn(z, x) == 0, "%s of %s: %s", ops[op].name, nx_dtype_name(dt), nx_error_message());
    long bad = 0;
    for (int64_t i = 0; i < n; i++) {
      uint64_t b = (uint64_t)(i * step), got = 0;
      if (bits == 16) memcpy(&got, pz + 2 * i, 2);
      else if (bits == 8) got = pz[i];
      else got = nx_subbyte_get(pz, i, 4);
      double xv = nx_dtype_load_bits(dt, b);
      uint64_t want = oracle(op, dt, xv);
      bool nan = isnan(nx_dtype_load_bits(dt, want));
      if (got != want && !(nan && isnan(nx_dtype_load_bits(dt, got))) && bad++ < 3)
        CHECK(0, "%s of %s %llx (%g): %llx, want %llx", ops[op].name, nx_dtype_name(dt), (unsigned long long)b, xv,
              (unsigned long long)got, (unsigned long long)want);
    }
    CHECK(bad == 0, "%s of %s: %ld not correctly rounded", ops[op].name, nx_dtype_name(dt), bad);
  }
  nx_array_free(x);
  nx_array_free(z);
}

static double ulp_error(int op, nx_dtype dt, double x, double got) {
  return mp_ulp_error(dt, ops[op].mp, NULL, x, 0, got);
}

static void sampled(nx_dtype dt, int64_t n, uint64_t *seed) {
  nx_array *x, *z;
  int64_t shape[1] = {n};
  nx_array_host(dt, shape, 1, &x);
  nx_array_host(dt, shape, 1, &z);
  char *px = nx_buffer_host_address(nx_array_buffer(x)), *pz = nx_buffer_host_address(nx_array_buffer(z));
  for (int op = 0; op < NOPS; op++) {
    for (int64_t i = 0; i < n; i++) {
      uint64_t r = splitmix64_next(seed);
      /* half over all bits, half over a range around the function's domain */
      double v = (i & 1) ? dbl_of(r) : ldexp((double)(int64_t)(r >> 11) / 0x1p52, (int)(r % 12) - 6) * 2;
      if (dt == NX_FLOAT32) {
        float f = (i & 1) ? flt_of((uint32_t)r) : (float)v;
        memcpy(px + 4 * i, &f, 4);
      } else memcpy(px + 8 * i, &v, 8);
    }
    CHECK(ops[op].fn(z, x) == 0, "%s: %s", ops[op].name, nx_error_message());
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
      double xv, got;
      if (dt == NX_FLOAT32) {
        float a, b;
        memcpy(&a, px + 4 * i, 4);
        memcpy(&b, pz + 4 * i, 4);
        xv = a;
        got = b;
      } else {
        memcpy(&xv, px + 8 * i, 8);
        memcpy(&got, pz + 8 * i, 8);
      }
      double e = ulp_error(op, dt, xv, got);
      if (e > worst) worst = e;
      if (e > 1 && worst == e) CHECK(0, "%s of %s %a: %a, %g ulp", ops[op].name, nx_dtype_name(dt), xv, got, e);
    }
    printf("%s %s: max %.3f ulp over %lld samples\n", ops[op].name, nx_dtype_name(dt), worst, (long long)n);
  }
  nx_array_free(x);
  nx_array_free(z);
}

/* float32 tanh at each vector level this CPU runs (AVX2 as well as
   AVX-512, which nx_tanh picks where it can): within 0.84 ulp of MPFR's
   value (the bound docs/kernels.md derives: 0.5 ulp plus a third of one) on n samples (random bits, and over +-12, where tanh turns
   to +-1), the special values exact, a NaN's own NaN quieted; n - 3
   elements, so that each level's tail runs too. */
static void tanh_levels(int64_t n, uint64_t *seed) {
  float *x = malloc((size_t)n * 4), *z = malloc((size_t)n * 4);
  static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FA00001u, 0xFFC12345u,
                                     0x00000001u, 0x807FFFFFu, 0x39800000u, 0x41100000u, 0x41102000u, 0x7F7FFFFFu};
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = splitmix64_next(seed);
    float f = (i & 1) ? flt_of((uint32_t)r) : (float)((double)(int64_t)(r >> 11) / 0x1p53 * 24 - 12);
    if (i < (int64_t)(sizeof special / sizeof *special)) f = flt_of(special[i]);
    x[i] = f;
  }
  for (int level = NX__TANH_AVX2; level <= NX__TANH_AVX512; level++) {
    if (nx__tanh_level(level) != level) {
      printf("tanh float32: no level %d on this CPU\n", level);
      continue;
    }
    nx__tanh_f32(level, z, x, n - 3);
    double worst = 0;
    long bad = 0;
    for (int64_t i = 0; i < n - 3; i++) {
      uint32_t xb, zb;
      memcpy(&xb, &x[i], 4);
      memcpy(&zb, &z[i], 4);
      if (isnan(x[i])) {
        if (zb != (xb | 0x00400000u) && bad++ < 3) CHECK(0, "tanh level %d of NaN %08x: %08x", level, xb, zb);
        continue;
      }
      double e = mp_ulp_error(NX_FLOAT32, mpfr_tanh, NULL, x[i], 0, z[i]);
      if (e > worst) worst = e;
      if (e > 0.84 && bad++ < 3) CHECK(0, "tanh level %d of %a: %a, %g ulp", level, x[i], z[i], e);
    }
    CHECK(bad == 0, "tanh float32 level %d: %ld wrong", level, bad);
    printf("tanh float32 level %d: max %.6f ulp over %lld samples\n", level, worst, (long long)(n - 3));
    /* A run of 2 MiB of result and more (streamed stores), its result one
       element off a 64-byte line: the bits of the same level in short runs. */
    int64_t big = ((int64_t)1 << 19) + 5;
    float *bx = malloc((size_t)big * 4), *bz = malloc((size_t)(big + 1) * 4), *want = malloc((size_t)big * 4);
    for (int64_t i = 0; i < big; i++) bx[i] = x[i % (n - 3)];
    nx__tanh_f32(level, bz + 1, bx, big);
    for (int64_t i = 0; i < big; i += 4096) nx__tanh_f32(level, want + i, bx + i, big - i < 4096 ? big - i : 4096);
    CHECK(memcmp(bz + 1, want, (size_t)big * 4) == 0, "tanh level %d: a long run differs from short ones", level);
    free(bx);
    free(bz);
    free(want);
  }
  free(x);
  free(z);
}

/* The SLEEF loops at each level this build and CPU run (AVX2 as well as
   AVX-512F, which nx_exp and the others pick where they can): within 1 ulp
   of MPFR on n samples (random bits, and over +-4 and +-2^11), and a run
   of 2 MiB of result and more (streamed stores), one element off a 64-byte
   line, gives the bits of short runs, for each function. */
static void vmath_levels(int64_t n, uint64_t *seed) {
  static const nx__uop fns[] = {NX__EXP, NX__LOG, NX__SIN, NX__COS, NX__TAN, NX__ASIN, NX__ACOS, NX__ATAN};
  static const int fn_op[] = {1, 2, 3, 4, 5, 6, 7, 8}; /* their rows of ops[] */
  int64_t big = ((int64_t)1 << 19) + 5;
  float *x = malloc((size_t)big * 4), *z = malloc((size_t)(big + 16) * 4), *want = malloc((size_t)big * 4);
  CHECK(x && z && want && n <= big, "test buffers");
  for (int level = NX__VMATH_AVX2; x && z && want && level <= NX__VMATH_AVX512; level++) {
    if (nx__vmath_level(level) != level) {
      printf("SLEEF loops: level %d not in this build or not on this CPU; not checked\n", level);
      continue;
    }
    for (size_t f = 0; f < sizeof fns / sizeof *fns; f++) {
      for (int64_t i = 0; i < n; i++) {
        uint64_t r = splitmix64_next(seed);
        double u = (double)(int64_t)(r >> 11) / 0x1p53 * 2 - 1;
        x[i] = i % 3 == 0 ? flt_of((uint32_t)r) : (float)(i % 3 == 1 ? 4 * u : 0x1p11 * u);
      }
      nx__vmath_f32(level, fns[f], z, x, n - 3); /* n - 3: the masked tail runs too */
      double worst = 0;
      long bad = 0;
      for (int64_t i = 0; i < n - 3; i++) {
        double e = ulp_error(fn_op[f], NX_FLOAT32, x[i], z[i]);
        if (e > worst) worst = e;
        if (e > 1 && bad++ < 3)
          CHECK(0, "SLEEF %s level %d of %a: %a, %g ulp", ops[fn_op[f]].name, level, x[i], z[i], e);
      }
      CHECK(bad == 0, "SLEEF %s level %d: %ld over 1 ulp", ops[fn_op[f]].name, level, bad);
      printf("SLEEF %s level %d: max %.3f ulp over %lld samples\n", ops[fn_op[f]].name, level, worst,
             (long long)(n - 3));
    }
    for (int64_t i = 0; i < big; i++) x[i] = (float)ldexp((double)(splitmix64_next(seed) >> 11) / 0x1p53, 3) - 4;
    for (size_t f = 0; f < sizeof fns / sizeof *fns; f++) {
      float *zs = z + 1 + (16 - (int64_t)(((uintptr_t)z / 4) % 16)) % 16; /* one element past a 64-byte line */
      nx__vmath_f32(level, fns[f], zs, x, big);
      for (int64_t i = 0; i < big; i += 4096)
        nx__vmath_f32(level, fns[f], want + i, x + i, big - i < 4096 ? big - i : 4096);
      CHECK(memcmp(zs, want, (size_t)big * 4) == 0, "SLEEF %s level %d: a long run differs from short ones",
            ops[fn_op[f]].name, level);
    }
  }
  free(x);
  free(z);
  free(want);
}

/* The functions of vmath_levels and their rows of ops[]. */
static const nx__uop lane_fns[] = {NX__EXP, NX__LOG, NX__SIN, NX__COS, NX__TAN, NX__ASIN, NX__ACOS, NX__ATAN};
static const int lane_op[] = {1, 2, 3, 4, 5, 6, 7, 8};
#define NLANE_FNS (int)(sizeof lane_fns / sizeof *lane_fns)

/* f of the n floats x through nx's function (the best level, as a caller
   gets it), into z. */
static void through_nx(int op, float *z, const float *x, int64_t n) {
  nx_array *a, *b;
  nx_array_host(NX_FLOAT32, &n, 1, &a);
  nx_array_host(NX_FLOAT32, &n, 1, &b);
  memcpy(nx_buffer_host_address(nx_array_buffer(a)), x, (size_t)n * 4);
  CHECK(ops[op].fn(b, a) == 0, "%s: %s", ops[op].name, nx_error_message());
  memcpy(z, nx_buffer_host_address(nx_array_buffer(b)), (size_t)n * 4);
  nx_array_free(a);
  nx_array_free(b);
}

/* f at level (0: through nx) of x[0..n) into z. */
static void lanes_of(int level, int f, float *z, const float *x, int64_t n) {
  if (level) nx__vmath_f32(level, lane_fns[f], z, x, n);
  else through_nx(lane_op[f], z, x, n);
}

/* A lane's bits are its input's alone: the SLEEF loops at each level (and
   nx's functions) give every element, in runs whose other lanes hold huge
   values, infinities or NaNs (which sent SLEEF's plain sin, cos and tan down
   their slow reduction for all lanes, an ulp off for the others), the bits
   it has in a run of its own. */
static void vmath_lanes(uint64_t *seed) {
  enum { N = 1024 };
  static const uint32_t odd[] = {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFA12345u, 0x7149F2CAu, 0x43480000u,
                                 0xC3000000u, 0x4F000000u};
  float *x = malloc(N * 4), *y = malloc(N * 4), *z = malloc(N * 4), *alone = malloc(N * 4);
  for (int i = 0; i < N; i++) {
    uint64_t r = splitmix64_next(seed);
    double u = (double)(int64_t)(r >> 11) / 0x1p53 * 2 - 1;
    x[i] = i % 3 == 0 ? flt_of((uint32_t)r) : (float)(i % 3 == 1 ? 8 * u : 124 * u);
  }
  x[0] = -7.63982964f; /* the case found: sin 0xbf7a26f6 alone, 0xbf7a26f5 next to an infinity */
  for (int level = 0; level <= NX__VMATH_AVX512; level++) {
    if (level && nx__vmath_level(level) != level) continue;
    for (int f = 0; f < NLANE_FNS; f++) {
      long bad = 0;
      for (int i = 0; i < N; i++) lanes_of(level, f, &alone[i], &x[i], 1);
      /* x itself (random bits: some lanes huge, infinite or NaN), then x with
         every 16th element (a lane moving through the vector) one of odd[] */
      for (int k = 0; k <= (int)(sizeof odd / sizeof *odd); k++) {
        for (int i = 0; i < N; i++) y[i] = k > 0 && i % 16 == (i / 16 + k) % 16 ? flt_of(odd[k - 1]) : x[i];
        lanes_of(level, f, z, y, N);
        for (int i = 0; i < N; i++)
          if (bits_of_f(y[i]) == bits_of_f(x[i]) && bits_of_f(z[i]) != bits_of_f(alone[i]) && bad++ < 3)
            CHECK(0, "%s level %d of %a (%08x): %08x among odd lanes %d, %08x alone", ops[lane_op[f]].name, level,
                  x[i], bits_of_f(x[i]), bits_of_f(z[i]), k, bits_of_f(alone[i]));
      }
      float two[2] = {x[0], INFINITY}, z2[2];
      lanes_of(level, f, z2, two, 2);
      CHECK(bits_of_f(z2[0]) == bits_of_f(alone[0]), "%s level %d of [%a, inf]: %08x, %08x alone",
            ops[lane_op[f]].name, level, x[0], bits_of_f(z2[0]), bits_of_f(alone[0]));
      CHECK(bad == 0, "%s level %d: %ld lanes moved by their neighbours", ops[lane_op[f]].name, level, bad);
    }
  }
  free(x);
  free(y);
  free(z);
  free(alone);
}

/* NaN bits: where the input is NaN or the result is (an invalid operation:
   log of a negative, sin, cos, tan of an infinity, asin, acos beyond +-1),
   the SLEEF loops at each level and nx's float32 functions give the scalar
   path's bits, (float)nx__fn1(op, x): a NaN's own NaN quieted, the scalar
   path's NaN for an invalid operation. Every float format's transcendentals
   give a NaN input's NaN quieted. */
static void vmath_nans(void) {
  static const uint32_t in[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF812345u, 0x7FA00000u, 0x7FFFFFFFu,
                                0x7F800000u, 0xFF800000u, 0xBF800000u, 0x8DA24260u, 0x80000001u, 0xC0000000u,
                                0x3FC00000u, 0xBFC00000u, 0x3F800001u, 0xBF800001u, 0x3F000000u, 0x40400000u};
  enum { N = (int)(sizeof in / sizeof *in) };
  float x[N], z[N];
  for (int i = 0; i < N; i++) x[i] = flt_of(in[i]);
  for (int level = 0; level <= NX__VMATH_AVX512; level++) {
    if (level && nx__vmath_level(level) != level) continue;
    for (int f = 0; f < NLANE_FNS; f++) {
      lanes_of(level, f, z, x, N);
      for (int i = 0; i < N; i++) {
        uint32_t want = bits_of_f((float)nx__fn1(lane_fns[f], (double)x[i])), got = bits_of_f(z[i]);
        if (isnan(x[i]) || isnan(flt_of(want)) || isnan(z[i]))
          CHECK(got == want, "%s level %d of %08x: %08x, the scalar path %08x", ops[lane_op[f]].name, level, in[i],
                got, want);
      }
    }
  }
  /* the other formats: a NaN gives itself, quieted */
  static const struct {
    nx_dtype dt;
    uint64_t nan[3];
  } fmt[] = {{NX_FLOAT64, {0xFFF8000000000000ull, 0xFFF0000000012345ull, 0x7FF4000000000001ull}},
             {NX_FLOAT16, {0xFE00u, 0xFC21u, 0x7D00u}},
             {NX_BFLOAT16, {0xFFC0u, 0xFF81u, 0x7FA0u}}};
  for (size_t d = 0; d < sizeof fmt / sizeof *fmt; d++) {
    nx_dtype dt = fmt[d].dt;
    int bytes = nx_dtype_bits(dt) / 8;
    int64_t n = 3;
    nx_array *a, *b;
    nx_array_host(dt, &n, 1, &a);
    nx_array_host(dt, &n, 1, &b);
    char *pa = nx_buffer_host_address(nx_array_buffer(a)), *pb = nx_buffer_host_address(nx_array_buffer(b));
    for (int i = 0; i < 3; i++) memcpy(pa + i * bytes, &fmt[d].nan[i], (size_t)bytes);
    for (int op = 0; op < NOPS; op++) {
      CHECK(ops[op].fn(b, a) == 0, "%s: %s", ops[op].name, nx_error_message());
      for (int i = 0; i < 3; i++) {
        uint64_t got = 0, want = nx_dtype_store_bits(dt, nx_dtype_load_bits(dt, fmt[d].nan[i]));
        memcpy(&got, pb + i * bytes, (size_t)bytes);
        CHECK(got == want, "%s of %s NaN %llx: %llx, want %llx", ops[op].name, nx_dtype_name(dt),
              (unsigned long long)fmt[d].nan[i], (unsigned long long)got, (unsigned long long)want);
      }
    }
    nx_array_free(a);
    nx_array_free(b);
  }
}

int main(void) {
#if defined(NX_SAMPLED)
  int step = 16;
  int64_t n = 20000;
#else
  int step = 1;
  int64_t n = 80000; /* 13 functions: over 10^6 samples per format */
#endif
  nx_dtype small[5] = {NX_FLOAT16, NX_BFLOAT16, NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2, NX_FLOAT4_E2M1FN};
  for (int i = 0; i < 5; i++) exhaustive(small[i], nx_dtype_bits(small[i]) == 16 ? step : 1);
  uint64_t seed = 7;
  sampled(NX_FLOAT32, n, &seed);
  sampled(NX_FLOAT64, n, &seed);
  tanh_levels(4 * n, &seed);
  vmath_levels(n, &seed);
  vmath_lanes(&seed);
  vmath_nans();
  return check_done();
}
