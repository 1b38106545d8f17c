/* SPDX-License-Identifier: Apache-2.0 */
/* The einsum spec parser and the shape solver on random programs. The input
   is a program: a line of operation bytes, then text lines that the
   operations take in turn as axis lists (a line "?" is an open row) and
   einsum specs. Leaves (terms, parameters, fills), pointwise operations,
   compositions, transposes, batch slices, einsums and equalities build
   tensors; the session is closed and every tensor printed. Properties: no
   crash or undefined behaviour, every failure a negative status with a
   message, a success leaves a tensor, printing fits its buffer or refuses. */
#include <string.h>

#include "fuzz.h"
#include "nx_shape.h"

enum { MAX_TEXTS = 12, MAX_TENSORS = 16 };

typedef struct {
  char *text[MAX_TEXTS];
  int n, next;
} texts;

static const char *take(texts *t) {
  if (t->n == 0) return "";
  const char *s = t->text[t->next++ % t->n];
  return strcmp(s, "?") == 0 ? NULL : s;
}

static void outcome(int st, nx_tensor *made, const char *fn) {
  if (st != 0) FUZZ_FAILED_WELL(st, fn);
  else FUZZ_REQUIRE(made != NULL, "%s succeeded without a tensor", fn);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0;
  char *copy = malloc(size + 1);
  if (!copy) return 0;
  memcpy(copy, data, size);
  copy[size] = 0;
  char *ops = copy, *nl = strchr(copy, '\n');
  texts tx = {.n = 0};
  if (nl) {
    *nl = 0;
    for (char *p = nl + 1; p && tx.n < MAX_TEXTS;) {
      tx.text[tx.n++] = p;
      if ((p = strchr(p, '\n'))) *p++ = 0;
    }
  }
  nx_shape_session *s;
  if (nx_shape_session_new(&s) != 0) abort();
  nx_tensor *ts[MAX_TENSORS];
  int nt = 0;
  size_t nops = strlen(ops);
  for (size_t k = 0; k < nops && k < 24; k++) {
    unsigned char op = (unsigned char)ops[k];
    nx_tensor *t = NULL, *a = nt ? ts[op % nt] : NULL, *b = nt ? ts[(op / 3) % nt] : NULL;
    int st = 0;
    fuzz_clear_message();
    switch (op % 9) {
    case 0: {
      const char *bt = take(&tx), *it = take(&tx), *ot = take(&tx);
      st = nx_tensor_term(s, "t", bt, it, ot, &t);
      outcome(st, t, "nx_tensor_term");
      break;
    }
    case 1: {
      const char *it = take(&tx), *ot = take(&tx);
      st = nx_tensor_param(s, "p", it, ot, &t);
      outcome(st, t, "nx_tensor_param");
      break;
    }
    case 2: {
      const char *bt = take(&tx), *it = take(&tx), *ot = take(&tx);
      st = nx_tensor_fill(s, "f", (int64_t)(op % 7) * 12, bt, it, ot, &t);
      outcome(st, t, "nx_tensor_fill");
      break;
    }
    case 3:
      if (!a) continue;
      st = op & 1 ? nx_tensor_unary(s, "relu", a, &t) : nx_tensor_binary(s, "add", a, b, &t);
      outcome(st, t, "a pointwise operation");
      break;
    case 4:
      if (!a) continue;
      st = nx_tensor_compose(s, a, b, &t);
      outcome(st, t, "nx_tensor_compose");
      break;
    case 5:
      if (!a) continue;
      st = op & 1 ? nx_tensor_transpose(s, a, &t) : nx_tensor_batch_slice(s, a, &t);
      outcome(st, t, "nx_tensor_transpose or nx_tensor_batch_slice");
      break;
    case 6: {
      if (!a) continue;
      nx_tensor *args[3] = {a, b, ts[(op / 7) % nt]};
      const char *spec = take(&tx);
      st = nx_tensor_einsum(s, spec ? spec : "", args, 1 + (op / 9) % 3, &t);
      outcome(st, t, "nx_tensor_einsum");
      break;
    }
    case 7:
      if (!a) continue;
      st = nx_tensor_set_equal(s, a, b);
      if (st) FUZZ_FAILED_WELL(st, "nx_tensor_set_equal");
      continue;
    case 8:
      if (!a) continue;
      st = nx_tensor_set_row_total(s, nx_tensor_row(a, (enum nx_axis_kind)(op % 3)), (int64_t)(op % 5) * 6);
      if (st) FUZZ_FAILED_WELL(st, "nx_tensor_set_row_total");
      continue;
    }
    if (st == 0 && nt < MAX_TENSORS) ts[nt++] = t;
  }
  fuzz_clear_message();
  int st = nx_shape_finish(s);
  if (st) FUZZ_FAILED_WELL(st, "nx_shape_finish");
  for (int k = 0; k < nt; k++) {
    char buf[256];
    fuzz_clear_message();
    int len = nx_tensor_to_string(s, ts[k], (enum nx_shape_style)(k % 4), buf, sizeof buf);
    if (len < 0) FUZZ_FAILED_WELL(len, "nx_tensor_to_string");
    else FUZZ_REQUIRE((size_t)len < sizeof buf && strlen(buf) == (size_t)len, "nx_tensor_to_string returned %d", len);
  }
  nx_shape_session_free(s);
  free(copy);
  return 0;
}
