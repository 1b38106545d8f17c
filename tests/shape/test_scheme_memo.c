/* SPDX-License-Identifier: Apache-2.0 */
/* The memo of applications to ground arguments: where it is used, and that
   it changes nothing. Each scenario runs in two fresh sessions, with the
   memo on and off, and the whole solver state (nx_shape_dump) must be the
   same after the applications and after closing; the count of
   applications made from a memo says whether it was used. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "nx_scheme.h"

extern bool nx__scheme_memo_on;
extern long nx__scheme_memo_hits;

enum { BLOCKS = 4 };

typedef struct {
  nx_tensor *w[BLOCKS];
} ctx_t;

/* compose with a parameter made before, a bias made inside, relu, add */
static int block(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  ctx_t *c = ctx;
  nx_tensor *h = a[0];
  (void)n;
  *nr = 1;
  for (int i = 0; i < BLOCKS; i++) {
    nx_tensor *y, *b, *z, *t;
    int rc = nx_tensor_compose(s, c->w[i], h, &y);
    if (!rc) rc = nx_tensor_param(s, "b", "", NULL, &b);
    if (!rc) rc = nx_tensor_binary(s, "+", y, b, &z);
    if (!rc) rc = nx_tensor_unary(s, "relu", z, &t);
    if (!rc) rc = nx_tensor_binary(s, "+", t, y, &h);
    if (rc) return rc;
  }
  r[0] = h;
  return 0;
}

static char *dump(nx_shape_session *s) {
  int64_t n = nx_shape_dump(s, NULL, 0);
  char *d = malloc((size_t)n + 1);
  if (d) nx_shape_dump(s, d, (size_t)n + 1);
  return d;
}

/* The kinds of scenario. */
enum { GROUND, OPEN_ARG, GIVEN_RESULT, OPEN_PARAM, OTHER_SHAPES, OTHER_NAME, IN_SNAPSHOT, NSCEN };
static const char *const names[NSCEN] = {"ground", "open argument", "given result", "open shared parameter",
                                         "other shapes", "other application name", "inside a snapshot"};

/* Runs scenario k with the memo on or off: the dumps after the
   applications and after closing, *hits the memo's uses, *results the
   results' shapes after closing. */
static void scenario(int k, bool on, char **after, char **closed, long *hits, char *results, size_t cap) {
  nx__scheme_memo_on = on;
  long h0 = nx__scheme_memo_hits;
  nx_shape_session *s;
  nx_shape_session_new(&s);
  ctx_t c;
  for (int i = 0; i < BLOCKS; i++)
    nx_tensor_param(s, "w", i ? "16" : "8", k == OPEN_PARAM && i == 1 ? NULL : "16", &c.w[i]);
  nx_tensor *x[4], *res[4] = {0};
  for (int j = 0; j < 4; j++) {
    const char *out = k == OPEN_ARG ? NULL : k == OTHER_SHAPES && j == 2 ? "9" : "8";
    nx_tensor_term(s, "x", k == OTHER_SHAPES && j == 3 ? "5" : "3", "", out, &x[j]);
  }
  nx_scheme *sc = NULL;
  CHECK(nx_scheme_trace(s, "block", 1, block, &c, &sc) == 0, "%s: trace: %s", names[k], nx_error_message());
  nx_shape_snapshot *w = NULL;
  for (int j = 0; j < 4 && sc; j++) {
    /* a memo is recorded outside snapshots only (not at the first
       application, inside one; at the second, after it is restored), and
       used inside one (the third) and after it is restored (the fourth) */
    if (k == IN_SNAPSHOT) {
      if (j == 0 || j == 2) nx_shape_snapshot_take(s, &w);
      else {
        nx_shape_snapshot_restore(s, w);
        nx_shape_snapshot_free(w);
        w = NULL;
        res[j - 1] = NULL; /* made since the snapshot: gone */
      }
    }
    if (k == GIVEN_RESULT) nx_tensor_term(s, "r", NULL, NULL, NULL, &res[j]);
    const char *app = k == OTHER_NAME && j == 2 ? "y" : "x";
    int rc = nx_scheme_instantiate(s, sc, app, &x[j], 1, &res[j], 1);
    /* 9 as the input of a 8-wide parameter fails: the same way both times */
    CHECK(rc == 0 || (k == OTHER_SHAPES && j == 2), "%s: application %d: %s", names[k], j, nx_error_message());
    if (rc) break;
  }
  *after = dump(s);
  int rc = nx_shape_finish(s);
  *closed = dump(s);
  size_t len = 0;
  results[0] = 0;
  for (int j = 0; j < 4 && !rc; j++)
    if (res[j]) len += (size_t)snprintf(results + len, cap - len, "%s ", shape_str(s, res[j], NX_SHAPE_STYLE_SIZE));
  if (rc) snprintf(results, cap, "closing failed");
  *hits = nx__scheme_memo_hits - h0;
  nx_scheme_free(sc);
  nx_shape_session_free(s);
  nx__scheme_memo_on = true;
}

int main(void) {
  /* which scenarios use the memo: ground arguments of one shape under one
     application name, around snapshots; not open arguments, given results
     or a record that names an open shared parameter */
  const long want[NSCEN] = {3, 0, 0, 0, 1, 2, 2};
  for (int k = 0; k < NSCEN; k++) {
    char *a_on, *c_on, *a_off, *c_off, r_on[256], r_off[256];
    long h_on, h_off;
    scenario(k, true, &a_on, &c_on, &h_on, r_on, sizeof r_on);
    scenario(k, false, &a_off, &c_off, &h_off, r_off, sizeof r_off);
    CHECK(h_off == 0, "%s: the memo was used while off", names[k]);
    CHECK(h_on == want[k], "%s: %ld applications from the memo, not %ld", names[k], h_on, want[k]);
    CHECK(a_on && a_off && !strcmp(a_on, a_off), "%s: the state after the applications differs", names[k]);
    CHECK(c_on && c_off && !strcmp(c_on, c_off), "%s: the state after closing differs", names[k]);
    CHECK(!strcmp(r_on, r_off), "%s: results %s against %s", names[k], r_on, r_off);
    if (k == GROUND) CHECK(!strcmp(r_on, "3|16 3|16 3|16 3|16 "), "ground: results %s", r_on);
    free(a_on), free(c_on), free(a_off), free(c_off);
  }
  return check_done();
}
