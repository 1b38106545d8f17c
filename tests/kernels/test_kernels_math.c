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
  return check_done();
}
