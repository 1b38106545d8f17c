/* SPDX-License-Identifier: Apache-2.0 */
/* A scheme's storage and accessors: its tables grow by doubling, its
   strings live in a pool freed with it. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "scheme_internal.h"
#include "../base/alloc.h"

struct nx__spool {
  struct nx__spool *next;
  char s[];
};

const char *nx__scheme_str(nx_scheme *sc, const char *str) {
  if (!str) return NULL;
  size_t n = strlen(str) + 1;
  struct nx__spool *p = nx__malloc(sizeof *p + n);
  if (!p) return NULL;
  memcpy(p->s, str, n);
  p->next = sc->strings;
  sc->strings = p;
  return p->s;
}

int nx__scheme_grow(void **p, int *cap, int n, size_t elem) {
  if (n < *cap) return 0;
  return n == INT_MAX || nx__shape_grow(p, cap, n + 1, elem, 16) ? -1 : 0;
}

unsigned char nx__scheme_var_flags(const nx__var *e) {
  return (unsigned char)(e->is_param | e->safe_to_guess << 1 | e->in_pointwise << 2 | e->in_spec << 3 |
                         e->hidden_param << 4);
}

void nx__scheme_set_flags(nx__var *e, unsigned char f) {
  e->is_param |= f & 1;
  e->safe_to_guess |= (f >> 1) & 1;
  e->in_pointwise |= (f >> 2) & 1;
  e->in_spec |= (f >> 3) & 1;
  e->hidden_param |= (f >> 4) & 1;
}

void nx_scheme_free(nx_scheme *sc) {
  if (!sc) return;
  for (struct nx__spool *p = sc->strings, *n; p; p = n) {
    n = p->next;
    nx__free(p);
  }
  nx__free(sc->label);
  nx__free(sc->text);
  nx__free(sc->dims);
  nx__free(sc->rows);
  nx__free(sc->ints);
  nx__free(sc->cons);
  nx__free(sc->origins);
  nx__free(sc->strs);
  nx__free(sc->gen);
  nx__free(sc->flags);
  nx__free(sc->tensors);
  nx__free(sc->args);
  nx__free(sc->results);
  nx__free(sc->res_rows);
  nx__free(sc->fixed_open);
  nx__free(sc->refbinds);
  nx_scheme_free(sc->red);
  nx__scheme_memo_free(sc->memo);
  nx__free(sc);
}

const char *nx_scheme_label(const nx_scheme *sc) {
  return sc ? sc->label : (nx__fail(NX_EINVAL, "nx_scheme_label: the scheme is NULL"), NULL);
}

int nx_scheme_arity(const nx_scheme *sc) {
  return sc ? sc->arity : (nx__fail(NX_EINVAL, "nx_scheme_arity: the scheme is NULL"), -1);
}

int nx_scheme_num_results(const nx_scheme *sc) {
  return sc ? sc->nres : (nx__fail(NX_EINVAL, "nx_scheme_num_results: the scheme is NULL"), -1);
}

int nx_scheme_to_string(const nx_scheme *sc, char *buf, size_t cap) {
  if (!sc || (!buf && cap)) return nx__fail(NX_EINVAL, "nx_scheme_to_string: NULL argument"), -1;
  size_t n = strlen(sc->text);
  if (cap) snprintf(buf, cap, "%s", sc->text);
  return n > INT32_MAX ? -1 : (int)n;
}

int nx_scheme_reduced(const nx_scheme *sc, const char **why) {
  if (!sc || !why) return nx__fail(NX_EINVAL, "nx_scheme_reduced: %s is NULL", sc ? "why" : "the scheme"), -1;
  *why = sc->red_why;
  return sc->red != NULL;
}

void nx__scheme_failure_text(int rc, const char *who, char *buf, size_t cap) {
  if (*nx_error_message()) snprintf(buf, cap, "%s", nx_error_message());
  else snprintf(buf, cap, "%s failed (status %d) without a message", who, rc);
}
