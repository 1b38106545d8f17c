/* nx dtypes: the table of every dtype and its facts. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "nx_dtype.h"

static const char *kind_name(nx_kind k) {
  static const char *const names[] = {"float", "complex", "signed", "unsigned", "boolean"};
  return names[k];
}

/* A value of dt as pp_value writes it, or "-" where dt has none. */
static void value_text(nx_dtype dt, int (*get)(nx_dtype, nx_value *), char *t, size_t cap) {
  nx_value v;
  if (get(dt, &v) != 0 || nx_dtype_pp_value(dt, v, t, cap) < 0) snprintf(t, cap, "-");
}

/* A float64 value as nx prints float64s. */
static void f64_text(double x, char *t, size_t cap) {
  if (nx_dtype_format_value(NX_FLOAT64, x, t, cap) < 0) snprintf(t, cap, "?");
}

int nx_cmd_dtypes(int argc, char **argv) {
  int early = nx_cmd_no_arguments(argc, argv, "dtypes",
                                  "Prints every dtype nx has: its code, name, bits, kind, exponent and fraction bits,\nwhether it has infinities and NaN, and its epsilon, smallest normal, largest finite,\nsmallest and largest values.");
  if (early >= 0) return early;
  printf("%-4s %-14s %4s %-8s %3s %3s %3s %3s %-10s %-24s %-24s %-21s %-20s\n", "code", "name", "bits", "kind", "exp",
         "frc", "inf", "nan", "epsilon", "min_normal", "max_finite", "min_value", "max_value");
  const nx_dtype *all = nx_dtype_all();
  for (int i = 0; i < NX_DTYPE_COUNT; i++) {
    nx_dtype dt = all[i];
    nx_float_format f;
    char eps[32] = "-", mn[32] = "-", mx[32] = "-", lo[NX_DTYPE_PP_MAX], hi[NX_DTYPE_PP_MAX];
    int is_float = nx_dtype_float_format(dt, &f) == 0;
    if (is_float) {
      f64_text(f.epsilon, eps, sizeof eps);
      f64_text(f.min_normal, mn, sizeof mn);
      f64_text(f.max_finite, mx, sizeof mx);
    }
    value_text(dt, nx_dtype_min_value, lo, sizeof lo);
    value_text(dt, nx_dtype_max_value, hi, sizeof hi);
    char eb[8] = "-", fb[8] = "-";
    const char *inf = "-", *nan = "-";
    if (is_float) {
      snprintf(eb, sizeof eb, "%d", f.exponent_bits);
      snprintf(fb, sizeof fb, "%d", f.fraction_bits);
      inf = f.infinities ? "yes" : "no";
      nan = f.nans ? "yes" : "no";
    }
    printf("%-4d %-14s %4d %-8s %3s %3s %3s %3s %-10s %-24s %-24s %-21s %-20s\n", nx_dtype_code(dt), nx_dtype_name(dt),
           nx_dtype_bits(dt), kind_name(nx_dtype_kind(dt)), eb, fb, inf, nan, eps, mn, mx, lo, hi);
  }
  return 0;
}
