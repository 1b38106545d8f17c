/* SPDX-License-Identifier: Apache-2.0 */
/* nx_dtype_store_bits' stores into float8_e4m3fn, float8_e5m2 and
   float4_e2m1fn go by table (src/dtype/store_table.h); the portable store of
   nx_dtype.h (nx_dtype_store_f64bits), which test_store_mpfr holds to the
   MPFR oracle, computes them. Here the two agree on every entry of every
   table and past both ends: each binade from 20 below the format's least
   normal one to 20 above twice its bias (past its largest) and the four at
   either end of the doubles' range, every pattern of the fraction's top bits
   that the rounding reads (and one more), under each of several lower bits
   (none, the lowest, the one just below those read, all), both signs; and
   infinities, NaNs of every top payload and zeros. */
#include "../check.h"
#include "../common.h"
#include "nx_dtype.h"

static const int codes[] = {NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2, NX_FLOAT4_E2M1FN};

static void agree(int c, uint64_t u) {
  uint64_t got = nx_dtype_store_bits(c, dbl_of(u)), want = nx_dtype_store_f64bits(c, u);
  CHECK(got == want, "%s: x = %a (%016llx) stores 0x%llx, the portable store 0x%llx", nx_dtype_name(c), dbl_of(u),
        (unsigned long long)u, (unsigned long long)got, (unsigned long long)want);
}

int main(void) {
  for (size_t k = 0; k < sizeof codes / sizeof codes[0]; k++) {
    int c = codes[k], f = nx_dtype_fraction_bits_of(c) + 2; /* the bits read, and one more */
    int bias = (1 << (nx_dtype_exponent_bits_of(c) - 1)) - 1;
    for (int64_t b = 0; b <= 2047; b++) {
      if (b > 3 && b < 2044 && (b < 1023 - bias - 20 || b > 1023 + 2 * bias + 20)) continue;
      for (uint64_t top = 0; top < ((uint64_t)1 << f); top++) {
        uint64_t lows[] = {0, 1, ((uint64_t)1 << (52 - f)) - 1, (uint64_t)1 << (51 - f)};
        for (size_t l = 0; l < 4; l++)
          for (uint64_t s = 0; s < 2; s++) agree(c, (s << 63) | ((uint64_t)b << 52) | (top << (52 - f)) | lows[l]);
      }
    }
    agree(c, EXP64);
    agree(c, SIGN64 | EXP64);
    agree(c, 0);
    agree(c, SIGN64);
  }
  return check_done();
}
