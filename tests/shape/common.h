/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the shape suites. */
#ifndef NX_TESTS_SHAPE_COMMON_H
#define NX_TESTS_SHAPE_COMMON_H

#include <string.h>

#include "../check.h"
#include "nx_shape.h"

static const nx_shape_origin O = {"test", "test", NX_AXIS_OUTPUT, "test", NX_AXIS_OUTPUT};

static inline const nx_dim *dd(nx_shape_session *s, int64_t n) { return nx_dim_solved(s, n, NULL); }

static inline const nx_row *closed(nx_shape_session *s, const nx_dim *const *beg, int nb, const nx_dim *const *d,
                                   int nd) {
  return nx_row_make(s, beg, nb, d, nd, 0);
}

/* Solves stage `from` (1 or 7 typically) and, if `to` > from, each later one. */
static inline int solve_range(nx_shape_session *s, int from, int to) {
  int rc = nx_shape_solve(s, from);
  for (int st = from + 1; st <= to && !rc; st++) rc = nx_shape_solve(s, st);
  return rc;
}

static inline bool has(const char *msg, const char *part) { return strstr(msg, part) != NULL; }

static inline int64_t val(nx_shape_session *s, const nx_dim *d) {
  int64_t v = -1;
  return nx_shape_dim_value(s, d, &v, NULL) == 0 ? v : -1;
}

static inline const char *shape_str(nx_shape_session *s, const nx_tensor *t, enum nx_shape_style st) {
  static char buf[512];
  if (nx_tensor_to_string(s, t, st, buf, sizeof buf) < 0) return "<error>";
  return buf;
}

#endif
