/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the einsum spec parser and the solver behind it: the
   input is a spec over one to three operands of fixed and inferred shapes;
   the program applies it, then (chosen by the input's bytes) a few more
   operations on the result, and closes. After every call it checks what
   must hold: the status is 0 or NX_EINVAL with a message naming the call,
   and the session is tainted exactly after a shape error (a malformed spec,
   or one whose name is both a dim label and a row variable, is refused
   without tainting). Build with clang -fsanitize=fuzzer (a
   violation traps), or run through fuzz_driver.c without a fuzzer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_spec.h"

typedef struct {
  nx_shape_session *s;
  bool tainted; /* what the session must be */
  bool refused; /* a spec was refused */
  char *why;
  size_t cap;
} prog;

/* The status of fn, which returned rc, and the taint after it. */
static bool checked(prog *p, const char *fn, int rc) {
  const char *m = nx_error_message();
  if (rc != 0) {
    if (rc != NX_EINVAL || strncmp(m, fn, strlen(fn)) || m[strlen(fn)] != ':' || !m[strlen(fn) + 1]) {
      snprintf(p->why, p->cap, "%s returned %d with message \"%.200s\"", fn, rc, m);
      return false;
    }
    if (strstr(m, "Invalid einsum spec") || strstr(m, "Invalid permutation spec") || strstr(m, "Invalid block spec") ||
        strstr(m, "is used as both a dimension variable and a row variable"))
      p->refused = true;
    else p->tainted = true;
  }
  int probe = nx_shape_solve(p->s, 1);
  if (p->tainted ? probe != NX_EINVAL || !strstr(nx_error_message(), "tainted") : probe != 0) {
    snprintf(p->why, p->cap, "after %s (status %d): the session should %sbe tainted; a solve gave %d: %.200s", fn, rc,
             p->tainted ? "" : "not ", probe, nx_error_message());
    return false;
  }
  return true;
}

#define RUN(p, fn, ...) checked(p, #fn, fn(__VA_ARGS__))

int nx_test_shape_fuzz_program(const uint8_t *data, size_t size, char *why, size_t cap, int *end) {
  *end = FUZZ_SKIPPED;
  if (size > 4096) return 0;
  char *spec = malloc(size + 1);
  if (!spec) return 0;
  memcpy(spec, data, size);
  spec[size] = 0;
  uint64_t h = 1469598103934665603u; /* the program's choices: FNV-1a of the input */
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 1099511628211u;
  prog p = {.why = why, .cap = cap};
  if (nx_shape_session_new(&p.s)) {
    free(spec);
    return 0;
  }
  nx_shape_session *s = p.s;
  nx_tensor *a, *b, *c = NULL, *r = NULL, *t;
  int n = 1; /* mostly the spec's own operand count, sometimes another */
  for (size_t i = 0; i < size; i++) n += data[i] == ';';
  if (n > 3 || (h & 3) == 3) n = 1 + (int)(size % 3);
  /* c, a parameter to infer, only where the spec can use it */
  bool ok = RUN(&p, nx_tensor_term, s, "a", "2", "3", "4,5", &a) && RUN(&p, nx_tensor_term, s, "b", NULL, NULL, "5,6", &b) &&
            (n < 3 || RUN(&p, nx_tensor_param, s, "c", NULL, NULL, &c));
  nx_tensor *args[3] = {a, b, c};
  if (ok) {
    int rc = nx_tensor_einsum(s, spec, args, n, &r);
    ok = checked(&p, "nx_tensor_einsum", rc);
    if (rc) r = NULL;
  }
  char buf[256];
  if (ok && r && !p.tainted) {
    if (h & 1) ok = RUN(&p, nx_tensor_binary, s, "+", r, args[h >> 1 & 1], &t);
    if (ok && h & 4) ok = RUN(&p, nx_tensor_compose, s, r, args[h >> 3 & 1], &t);
    const nx_dim *d = nx_tensor_spec_dim(r, h & 16 ? "a" : "i");
    if (ok && d && h & 32) ok = RUN(&p, nx_tensor_set_dim, s, d, (int64_t)(h >> 6 & 7));
    if (ok && h & 512) ok = RUN(&p, nx_tensor_set_equal, s, r, args[0]);
  }
  if (ok) ok = RUN(&p, nx_shape_finish, s);
  if (ok && r && nx_tensor_to_string(s, r, NX_SHAPE_STYLE_SIZE, buf, sizeof buf) < 0) {
    snprintf(why, cap, "nx_tensor_to_string failed: %.200s", nx_error_message());
    ok = false;
  }
  *end = p.refused ? FUZZ_SPEC_REFUSED : p.tainted ? FUZZ_SHAPE_ERROR : FUZZ_CLOSED;
  nx_shape_session_free(s);
  free(spec);
  return ok ? 0 : 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char why[512];
  int end;
  if (nx_test_shape_fuzz_program(data, size, why, sizeof why, &end)) __builtin_trap();
  return 0;
}
