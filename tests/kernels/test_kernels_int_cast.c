/* nx_cast of int64 and uint64 sources into every float format at the
   rounding boundaries of each format (midpoints between neighbours, one
   above and one below, at every exponent), the ends of the integer ranges
   and random values, against MPFR: the exact integer rounded once to the
   format's precision, then nx_dtype_store_bits of that value (exact, so the
   store only decides the range). */
#include <stdint.h> /* before mpfr.h: its intmax_t functions */
#include <mpfr.h>

#include "kernels_common.h"

static double rounded(uint64_t v, bool sign, int prec) {
  mpfr_t r;
  mpfr_init2(r, prec);
  if (sign) mpfr_set_sj(r, (intmax_t)(int64_t)v, MPFR_RNDN);
  else mpfr_set_uj(r, (uintmax_t)v, MPFR_RNDN);
  double d = mpfr_get_d(r, MPFR_RNDN); /* exact: prec <= 53 */
  mpfr_clear(r);
  return d;
}

int main(void) {
  enum { MAXN = 1 << 16 };
  static uint64_t in[MAXN];
  int n = 0;
  uint64_t seed = 9;
  for (int p = 2; p <= 53; p++)
    for (int k = p; k < 64; k++) {
      /* around the midpoints above 2^k with an even and an odd neighbour
         below: 2^k + (2m + 1) 2^(k-p) for m = 0, 1 */
      for (uint64_t m = 0; m < 2; m++) {
        uint64_t mid = ((uint64_t)1 << k) + (2 * m + 1) * ((uint64_t)1 << (k - p));
        for (int dlt = -1; dlt <= 1 && n + 2 <= MAXN; dlt++) {
          in[n++] = mid + (uint64_t)(int64_t)dlt;
          in[n++] = 0 - (mid + (uint64_t)(int64_t)dlt); /* its negation, for signed sources */
        }
      }
    }
  uint64_t ends[] = {0, 1, 2, (uint64_t)INT64_MAX, (uint64_t)INT64_MIN, (uint64_t)INT64_MIN + 1, ~0ull, ~0ull - 1,
                     (uint64_t)1 << 63, ((uint64_t)1 << 63) + 1, ~0ull >> 11 << 11, (~0ull >> 11 << 11) + (1 << 10)};
  for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) in[n++] = ends[i];
  while (n < 20000) in[n++] = splitmix64_next(&seed) >> (splitmix64_next(&seed) % 64);
  int64_t shape[1] = {n};
  nx_dtype srcs[2] = {NX_INT64, NX_UINT64};
  long checked = 0;
  for (int s = 0; s < 2; s++) {
    nx_array *x;
    nx_array_host(srcs[s], shape, 1, &x);
    memcpy(nx_buffer_host_address(nx_array_buffer(x)), in, (size_t)n * 8);
    for (int d = 0; d < NX_DTYPE_COUNT; d++) {
      nx_dtype dt = (nx_dtype)d;
      if (nx_dtype_kind(dt) != NX_KIND_FLOAT) continue;
      nx_float_format f;
      nx_dtype_float_format(dt, &f);
      nx_array *z = NULL;
      CHECK(nx_cast_new(&z, dt, x) == 0, "cast %s to %s: %s", nx_dtype_name(srcs[s]), nx_dtype_name(dt),
            nx_error_message());
      if (!z) continue;
      long bad = 0;
      for (int64_t i = 0; i < n; i++) {
        uint64_t want = nx_dtype_store_bits(dt, rounded(in[i], s == 0, f.fraction_bits + 1));
        uint64_t got = elem_bits(z, &i);
        if (got != want && bad++ < 3)
          CHECK(0, "cast %s %llu to %s: %llx, want %llx", nx_dtype_name(srcs[s]), (unsigned long long)in[i],
                nx_dtype_name(dt), (unsigned long long)got, (unsigned long long)want);
        checked++;
      }
      CHECK(bad == 0, "cast %s to %s: %ld wrong", nx_dtype_name(srcs[s]), nx_dtype_name(dt), bad);
      nx_array_free(z);
    }
    nx_array_free(x);
  }
  printf("%ld casts of %d sources\n", checked, n);
  return check_done();
}
