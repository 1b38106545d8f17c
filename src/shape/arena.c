/* SPDX-License-Identifier: Apache-2.0 */
/* The session arena: every dim, row, constraint and tensor of a session is
   carved from its chunks, so freeing the session frees them all at once. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "solver.h"
#include "../base/alloc.h"

/* Chunks start small (a session for a few tensors stays small) and double
   up to CHUNK_MAX; they come zeroed from calloc, and every object in them
   (pointers, int64_t, no long double) needs at most 8-byte alignment. */
enum { CHUNK_MIN = 1 << 14, CHUNK_MAX = 1 << 20 };

#define CHUNK_BYTES (sizeof(nx__chunk) + CHUNK_MAX)

/* A zeroed chunk of cap bytes: a full-size one from the process's cache
   when it has one. */
static nx__chunk *chunk_new(size_t cap) {
  nx__chunk *k = cap == CHUNK_MAX ? nx__shape_cache_take(NX__CACHE_CHUNK, CHUNK_BYTES) : NULL;
  if (k) memset(k, 0, CHUNK_BYTES);
  else k = nx__calloc(1, sizeof *k + cap);
  if (k) k->cap = cap;
  return k;
}

/* A full-size chunk goes to the cache, any other back to the allocator. */
static void chunk_free(nx__chunk *c) {
  if (c->cap == CHUNK_MAX) nx__shape_cache_put(NX__CACHE_CHUNK, c, CHUNK_BYTES);
  else nx__free(c);
}

/* When the newest chunk is full: a new chunk (doubling to CHUNK_MAX). */
void *nx__shape_alloc_chunk(nx__chunk **chunks, size_t n) {
  if (n > SIZE_MAX / 2) return NULL;
  n = (n + 7) & ~(size_t)7;
  nx__chunk *c = *chunks;
  if (!c || c->used + n > c->cap) {
    size_t cap = c ? c->cap * 2 : CHUNK_MIN;
    if (cap > CHUNK_MAX) cap = CHUNK_MAX;
    if (n > cap) cap = n;
    nx__chunk *k = chunk_new(cap);
    if (!k) return NULL;
    if (c && n > CHUNK_MAX / 4) { /* a big object: keep filling the current chunk after it */
      k->next = c->next;
      c->next = k;
      k->used = n;
      return k->data;
    }
    k->next = c;
    *chunks = c = k;
  }
  void *p = c->data + c->used;
  c->used += n;
  return p;
}

const char *nx__shape_strdup(nx_shape_session *s, const char *str) { return str ? nx__shape_strndup(s, str, strlen(str)) : NULL; }

const char *nx__shape_strndup(nx_shape_session *s, const char *str, size_t n) {
  char *p = n < SIZE_MAX ? nx__shape_alloc(s, n + 1) : NULL;
  if (p) {
    memcpy(p, str, n);
    p[n] = 0;
  }
  return p;
}

/* Doubles a table to hold need slots; NX_ENOMEM on overflow or out of
   memory, the table unchanged. */
int nx__shape_grow(void **p, int *cap, int need, size_t elem, int first) {
  if (need <= *cap) return 0;
  if (need < 0 || elem == 0) return NX_ENOMEM;
  int nc = *cap > 0 ? (*cap > INT_MAX / 2 ? INT_MAX : *cap * 2) : first;
  if (nc < need) nc = need;
  if ((size_t)nc > SIZE_MAX / elem) return NX_ENOMEM;
  void *q = nx__realloc(*p, (size_t)nc * elem);
  if (!q) return NX_ENOMEM;
  *p = q;
  *cap = nc;
  return 0;
}

void nx__shape_arena_mark(nx__chunk *head, nx__arena_mark *m) {
  m->head = head;
  m->next = head ? head->next : NULL;
  m->used = head ? head->used : 0;
}

/* Frees the chunks made since m (new heads, and big objects' chunks put
   behind the head) and zeroes what the head gave out since, so that the
   arena hands out the same zeroed bytes again. */
void nx__shape_arena_rewind(nx__chunk **chunks, const nx__arena_mark *m) {
  nx__chunk *c = *chunks, *n;
  for (; c && c != m->head; c = n) {
    n = c->next;
    chunk_free(c);
  }
  *chunks = c;
  if (!c) return;
  for (nx__chunk *x = c->next; x && x != m->next; x = n) {
    n = x->next;
    chunk_free(x);
  }
  c->next = m->next;
  memset(c->data + m->used, 0, c->used - m->used);
  c->used = m->used;
}

void nx__shape_chunks_free(nx__chunk *c) {
  for (nx__chunk *n; c; c = n) {
    n = c->next;
    chunk_free(c);
  }
}

bool nx__shape_ivec_has(const nx__ivec *v, int x) {
  for (int i = 0; i < v->n; i++)
    if (v->p[i] == x) return true;
  return false;
}

int nx__shape_links_grow(nx_shape_session *s) {
  if (s->nlk == INT_MAX - 1 || nx__shape_grow((void **)&s->lk, &s->caplk, s->nlk + 2, sizeof *s->lk, 1024))
    return NX_ENOMEM;
  return 0;
}

int nx__shape_lbound_new(nx_shape_session *s) {
  if (s->caplbs - s->nlbs < 2 &&
      (s->nlbs == INT_MAX - 1 || nx__shape_grow((void **)&s->lbs, &s->caplbs, s->nlbs + 2, sizeof *s->lbs, 256)))
    return NX_ENOMEM;
  int i = ++s->nlbs;
  memset(&s->lbs[i], 0, sizeof s->lbs[i]);
  return i;
}

int nx_shape_session_new(nx_shape_session **out) {
  if (!out) return nx__fail(NX_EINVAL, "nx_shape_session_new: the result is NULL");
  nx_shape_session *s = nx__calloc(1, sizeof *s);
  if (!s) return nx__fail(NX_ENOMEM, "nx_shape_session_new: out of memory");
  static _Atomic uint64_t sessions_made;
  s->serial = ++sessions_made;
  s->nvars = 1;
  s->w_nlk = s->w_nlbs = -1; /* no snapshot: nothing is logged */
  nx__shape_hold_init(&s->marks, 0);
  nx__shape_hold_init(&s->deferred, 1);
  s->top = nx__shape_dim_solved(s, 1, NX_BASIS_BCAST);
  s->one_default = nx__shape_dim_solved(s, 1, NX_BASIS_DEFAULT);
  s->zero = nx__shape_dim_solved(s, 0, NX_BASIS_DEFAULT);
  s->empty = nx__shape_row_new(s, NULL, 0, NULL, 0, 0);
  if (!s->top || !s->one_default || !s->zero || !s->empty) {
    nx_shape_session_free(s);
    return nx__fail(NX_ENOMEM, "nx_shape_session_new: out of memory");
  }
  *out = s;
  return 0;
}

void nx_shape_session_free(nx_shape_session *s) {
  if (!s) return;
  for (int i = 0; i < s->nvpages; i++) nx__shape_cache_put(NX__CACHE_VPAGE, s->vpages[i], sizeof *s->vpages[i]);
  nx__free(s->vpages);
  nx__free(s->lk);
  nx__free(s->lbs);
  nx__free(s->opnd_bits);
  nx__free(s->pending.p);
  nx__free(s->queue.p);
  nx__shape_hold_free(&s->marks);
  nx__shape_hold_free(&s->deferred);
  nx__shape_snapshots_end(s);
  nx__free(s->wk);
  nx__free(s->tensors.p);
  nx__shape_chunks_free(s->chunks);
  nx__shape_chunks_free(s->self_chunks);
  nx__free(s);
}

int64_t nx_shape_constraint_count(const nx_shape_session *s) {
  return s ? s->nprocessed : (nx__fail(NX_EINVAL, "nx_shape_constraint_count: the session is NULL"), 0);
}
