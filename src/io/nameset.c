/* SPDX-License-Identifier: Apache-2.0 */
/* A set of names (C strings the caller keeps alive), by open addressing:
   the checks that a name is not given twice (a file's tensors and keys, a
   writer's) cost O(1) a name, not a walk over the names before it (n^2
   for n names). */
#include <stdint.h>
#include <string.h>

#include "io_internal.h"
#include "../base/alloc.h"

static uint64_t hash(const char *s) { /* FNV-1a */
  uint64_t h = 14695981039346656037u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211u;
  return h;
}

bool nx__nameset_has(const nx__nameset *set, const char *name) {
  if (!set->cap) return false;
  for (size_t i = hash(name) & (set->cap - 1);; i = (i + 1) & (set->cap - 1)) {
    if (!set->slot[i]) return false;
    NX__IO_COUNT_COMPARE();
    if (!strcmp(set->slot[i], name)) return true;
  }
}

static void place(const char **slot, size_t cap, const char *name) {
  size_t i = hash(name) & (cap - 1);
  while (slot[i]) i = (i + 1) & (cap - 1);
  slot[i] = name;
}

int nx__nameset_add(nx__nameset *set, const char *name) {
  if (2 * (set->n + 1) > set->cap) { /* at most half full: short probes */
    size_t cap = set->cap ? 2 * set->cap : 64;
    const char **slot = nx__calloc(cap, sizeof *slot);
    if (!slot) return NX_ENOMEM;
    for (size_t i = 0; i < set->cap; i++)
      if (set->slot[i]) place(slot, cap, set->slot[i]);
    nx__free(set->slot);
    set->slot = slot;
    set->cap = cap;
  }
  place(set->slot, set->cap, name);
  set->n++;
  return 0;
}

void nx__nameset_free(nx__nameset *set) {
  nx__free(set->slot);
  *set = (nx__nameset){0};
}

int nx__io_first_repeat(const void *items, size_t stride, size_t field, int n, int *first) {
  *first = -1;
  nx__nameset seen = {0};
  int s = 0;
  for (int i = 0; i < n && *first < 0 && !s; i++) {
    const char *name = *(const char *const *)((const char *)items + (size_t)i * stride + field);
    if (nx__nameset_has(&seen, name)) *first = i;
    else s = nx__nameset_add(&seen, name);
  }
  nx__nameset_free(&seen);
  return s;
}
