/* SPDX-License-Identifier: Apache-2.0 */
/* nx dtypes: the table of every dtype and its facts. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "nx_dtype.h"

enum { COLUMNS = 13, CELL = NX_DTYPE_PP_MAX };

static const char *const heads[COLUMNS] = {"code", "name", "bits", "kind", "exp", "frc", "inf",
                                           "nan", "epsilon", "min_normal", "max_finite", "min_value",
                                           "max_value"};

static const char *kind_name(nx_kind k) {
  static const char *const names[] = {"float", "complex", "signed", "unsigned", "boolean"};
  return names[k];
}

/* The one printer of values: every value of dt, a fact of its float format or
   its least or greatest value, is printed in dt's format, so the same number
   reads the same in every column (float8_e4m3fn's 448 is "450" in both
   max_finite and max_value). */
static int value_text(nx_dtype dt, nx_value v, char *t) {
  if (nx_dtype_is(NX_KIND_FLOAT, dt)) return nx_dtype_format_value(nx_dtype_code(dt), v.f, t, CELL);
  return nx_dtype_pp_value(dt, v, t, CELL);
}

/* The cells of dt's row, "-" for a fact dt does not have; -1 if a value
   does not print (with nx_error_message() set). */
static int row(nx_dtype dt, char cell[COLUMNS][CELL]) {
  for (int c = 0; c < COLUMNS; c++) snprintf(cell[c], CELL, "-");
  snprintf(cell[0], CELL, "%d", nx_dtype_code(dt));
  snprintf(cell[1], CELL, "%s", nx_dtype_name(dt));
  snprintf(cell[2], CELL, "%d", nx_dtype_bits(dt));
  snprintf(cell[3], CELL, "%s", kind_name(nx_dtype_kind(dt)));
  nx_float_format f;
  if (nx_dtype_float_format(dt, &f) == 0) {
    snprintf(cell[4], CELL, "%d", f.exponent_bits);
    snprintf(cell[5], CELL, "%d", f.fraction_bits);
    snprintf(cell[6], CELL, "%s", f.infinities ? "yes" : "no");
    snprintf(cell[7], CELL, "%s", f.nans ? "yes" : "no");
    const double facts[3] = {f.epsilon, f.min_normal, f.max_finite};
    for (int k = 0; k < 3; k++)
      if (value_text(dt, (nx_value){.f = facts[k]}, cell[8 + k]) < 0) return -1;
  }
  nx_value v;
  if (nx_dtype_min_value(dt, &v) == 0 && value_text(dt, v, cell[11]) < 0) return -1;
  if (nx_dtype_max_value(dt, &v) == 0 && value_text(dt, v, cell[12]) < 0) return -1;
  return 0;
}

static void print_row(char cell[COLUMNS][CELL], const int *width) {
  for (int c = 0; c + 1 < COLUMNS; c++) printf("%-*s  ", width[c], cell[c]);
  printf("%s\n", cell[COLUMNS - 1]);
}

int nx_cmd_dtypes(int argc, char **argv) {
  int status = nx_cmd_no_arguments(argc, argv);
  if (status != NX_EXIT_DONE) return status;
  static char cells[NX_DTYPE_COUNT + 1][COLUMNS][CELL];
  int width[COLUMNS] = {0};
  for (int c = 0; c < COLUMNS; c++) snprintf(cells[0][c], CELL, "%s", heads[c]);
  const nx_dtype *all = nx_dtype_all();
  for (int i = 0; i < NX_DTYPE_COUNT; i++)
    if (row(all[i], cells[i + 1]) != 0) {
      fprintf(stderr, "nx dtypes: %s: %s\n", nx_dtype_name(all[i]), nx_error_message());
      return NX_EXIT_FAILED;
    }
  /* Columns as wide as their widest cell, so every value lines up. */
  for (int r = 0; r <= NX_DTYPE_COUNT; r++)
    for (int c = 0; c < COLUMNS; c++) {
      int n = (int)strlen(cells[r][c]);
      if (n > width[c]) width[c] = n;
    }
  for (int r = 0; r <= NX_DTYPE_COUNT; r++) print_row(cells[r], width);
  return NX_EXIT_DONE;
}
