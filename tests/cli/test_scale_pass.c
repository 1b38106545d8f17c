/* SPDX-License-Identifier: Apache-2.0 */
/* nx convert's scaled passes (tools/nx/scale_pass.c) at every level this CPU
   runs: the scaled store of every float source into every float target
   under many scales, element by element against the float64 definition
   (nx_dtype_store_bits of x * s_in / scale, each operation rounded once in
   float64), every bfloat16, float16 and 8-bit pattern and 2^16 random
   float32 and float64 ones, and sources made of the targets' ties (x / scale
   exactly halfway); amax against a plain loop over nx_dtype_load_bits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "nx.h"
#include "scale_pass.h"

static const nx_dtype floats[] = {NX_FLOAT64,       NX_FLOAT32,     NX_FLOAT16,      NX_BFLOAT16,
                                  NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2, NX_FLOAT4_E2M1FN};
#define NFLOATS (int)(sizeof floats / sizeof *floats)

/* Element k's bits of n packed elements of width w. */
static uint64_t bits_at(const uint8_t *p, int w, int64_t k) {
  if (w < 8) return (uint64_t)(p[k * w / 8] >> (k * w % 8)) & ((1u << w) - 1);
  uint64_t u = 0;
  memcpy(&u, p + k * (w / 8), (size_t)(w / 8));
  return u;
}

static void put_bits(uint8_t *p, int w, int64_t k, uint64_t u) {
  if (w < 8) p[k * w / 8] = (uint8_t)(p[k * w / 8] | (u << (k * w % 8)));
  else memcpy(p + k * (w / 8), &u, (size_t)(w / 8));
}

/* The float64 definition of one element. */
static uint64_t oracle(nx_dtype from, nx_dtype to, uint64_t bits, double s_in, double scale) {
  double x = nx_dtype_load_bits(from, bits);
  if (s_in != 1) x = isnan(x) ? x + x : x * s_in; /* nx_mul's first-operand NaN */
  if (scale != 1) x = x / scale;
  return nx_dtype_store_bits(to, x);
}

static long mismatches;

static void store_case(nx_dtype from, nx_dtype to, const uint8_t *src, int64_t n, double s_in, double scale,
                       int level) {
  int wi = nx_dtype_bits(from), wo = nx_dtype_bits(to);
  uint8_t *out = calloc((size_t)(n * wo / 8 + 8), 1);
  nx_tool_scaled c;
  nx_tool_scaled_init(&c, from, to, s_in, scale, NULL, "t");
  /* Runs of uneven lengths (multiples of 8), as the writer's last run is. */
  int64_t done = 0, step = 8 * 1000 + 8;
  int s = 0;
  while (done < n && s == 0) {
    int64_t m = n - done < step ? n - done : step;
    s = nx_tool_scaled_store(&c, src + done * wi / 8, out + done * wo / 8, m);
    done += m;
  }
  CHECK(s == 0, "the store returns 0");
  long bad = 0;
  int64_t first = -1;
  for (int64_t k = 0; k < n; k++)
    if (bits_at(out, wo, k) != oracle(from, to, bits_at(src, wi, k), s_in, scale) && bad++ == 0) first = k;
  CHECK(bad == 0, "level %d %s -> %s, s_in %.17g, scale %.9g: %ld elements differ, the first %lld (bits %#llx): %#llx, not %#llx",
        level, nx_dtype_name(from), nx_dtype_name(to), s_in, scale, bad, (long long)first,
        (unsigned long long)(first < 0 ? 0 : bits_at(src, wi, first)), (unsigned long long)(first < 0 ? 0 : bits_at(out, wo, first)),
        (unsigned long long)(first < 0 ? 0 : oracle(from, to, bits_at(src, wi, first), s_in, scale)));
  mismatches += bad;
  free(out);
}

/* Every pattern of a dtype of at most 16 bits, or n random float32 ones. */
static uint8_t *patterns(nx_dtype dt, int64_t *n) {
  int w = nx_dtype_bits(dt);
  *n = (int64_t)1 << (w <= 16 ? w : 16);
  uint8_t *p = calloc((size_t)(*n * w / 8 + 8), 1);
  uint64_t seed = 0x9E3779B97F4A7C15u;
  for (int64_t k = 0; k < *n; k++) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    put_bits(p, w, k, w <= 16 ? (uint64_t)k : (seed >> 32) & 0xFFFFFFFFu);
  }
  return p;
}

/* float32 sources x = m * scale for every midpoint m between neighbouring
   finite values of `to`, and the values themselves: each x / scale is a
   tie or exact, the cases a quotient through the reciprocal may miss. */
static uint8_t *ties(nx_dtype to, double scale, int64_t *n) {
  int w = nx_dtype_bits(to);
  int64_t count = (int64_t)1 << w;
  double *v = malloc(sizeof *v * (size_t)count);
  int64_t k = 0;
  for (int64_t b = 0; b < count; b++) {
    double x = nx_dtype_load_bits(to, (uint64_t)b);
    if (isfinite(x) && x >= 0) v[k++] = x;
  }
  /* Sorted: the patterns of non-negative values ascend with their bits. */
  float *f = malloc(sizeof *f * (size_t)(3 * k + 8));
  int64_t m = 0;
  for (int64_t i = 0; i + 1 < k; i++) {
    double mid = (v[i] + v[i + 1]) / 2, x = mid * scale;
    if ((double)(float)x == x && x / scale == mid) f[m++] = (float)x, f[m++] = (float)-x;
    double y = v[i + 1] * scale;
    if ((double)(float)y == y) f[m++] = (float)y;
  }
  while (m % 8) f[m++] = 0;
  free(v);
  *n = m;
  return (uint8_t *)f;
}

static double amax_oracle(nx_dtype dt, const uint8_t *p, int64_t n, double s_in) {
  double best = 0;
  for (int64_t k = 0; k < n; k++) {
    double x = nx_dtype_load_bits(dt, bits_at(p, nx_dtype_bits(dt), k));
    if (s_in != 1) x = x * s_in;
    if (isfinite(x) && fabs(x) > best) best = fabs(x);
  }
  return best;
}

struct bytes {
  const uint8_t *p;
  size_t n;
};

static int fill(void *ctx, void *base, nx_dtype dt, const nx_layout *l) {
  (void)dt;
  (void)l; /* fresh: contiguous from byte 0 */
  struct bytes *c = ctx;
  memcpy(base, c->p, c->n);
  return 0;
}

/* amax of `reps` copies of the n elements at p, on the threads. */
static void amax_case(nx_dtype dt, const uint8_t *p, int64_t n, int reps, double s_in, int level) {
  int w = nx_dtype_bits(dt);
  size_t bytes = (size_t)(n * w / 8);
  uint8_t *big = malloc(bytes * (size_t)reps);
  for (int r = 0; r < reps; r++) memcpy(big + bytes * (size_t)r, p, bytes);
  int64_t shape[1] = {n * reps};
  nx_array *a;
  struct bytes c = {big, bytes * (size_t)reps};
  double got = -1, want = amax_oracle(dt, p, n, s_in);
  int s = nx_array_host(dt, shape, 1, &a);
  if (s == 0) s = nx_array_write(a, fill, &c);
  if (s == 0) s = nx_tool_amax(a, s_in, &got);
  CHECK(s == 0 && got == want, "level %d amax of %s x %.17g: %.17g, not %.17g (%s)", level, nx_dtype_name(dt), s_in, got,
        want, s ? nx_error_message() : "");
  nx_array_free(a);
  free(big);
}

int main(void) {
  nx_set_num_threads(2);
  static const double scales[] = {3, 0.1f, 1.0f / 3, 7e-3f, 12345.678f, 1.7e30f, 2.5e-30f, 0.75f, 2, 1};
  int levels = nx_tool_scale_levels();
  for (int level = 0; level <= levels; level++) {
    nx_tool_scale_cap(level);
    for (int a = 0; a < NFLOATS; a++) {
      int64_t n;
      uint8_t *src = patterns(floats[a], &n);
      for (int b = 0; b < NFLOATS; b++)
        for (int s = 0; s < (int)(sizeof scales / sizeof *scales); s++)
          store_case(floats[a], floats[b], src, n, 1, scales[s], level);
      store_case(floats[a], NX_FLOAT8_E4M3FN, src, n, 0.37, 3, level);
      store_case(floats[a], NX_FLOAT16, src, n, -2.5e-3, 0.1f, level);
      /* More than a unit of 2^20 elements, so the threads share it. */
      int reps = (int)(((int64_t)3 << 20) / n) + 1;
      amax_case(floats[a], src, n, reps, 1, level);
      amax_case(floats[a], src, n, 1, -0.37, level);
      amax_case(floats[a], src, n, 1, 1e300, level); /* products overflow: left out */
      free(src);
    }
    for (int b = 0; b < NFLOATS; b++) {
      if (nx_dtype_bits(floats[b]) > 16) continue;
      for (int s = 0; s < 8; s++) {
        int64_t n;
        uint8_t *src = ties(floats[b], scales[s], &n);
        store_case(NX_FLOAT32, floats[b], src, n, 1, scales[s], level);
        free(src);
      }
    }
  }
  CHECK(mismatches == 0, "%ld elements differ from the float64 definition", mismatches);
  return check_done();
}
