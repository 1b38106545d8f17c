/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the shape module's memory. Dims, rows, origins and tensors are
   carved from the session's arena (arena.c) and freed with it; the tables
   that grow (vectors, the link pool, the variables) are realloc-backed and
   grow through one overflow-checked helper. */
#ifndef NX_SHAPE_ARENA_H
#define NX_SHAPE_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"
#include "nx_shape.h"

typedef struct nx__chunk nx__chunk;

/* A chunk of an arena: bytes handed out from data, used of cap. */
struct nx__chunk {
  nx__chunk *next;
  size_t used, cap;
  _Alignas(max_align_t) unsigned char data[];
};

/* nx__shape_alloc(s, n) (session.h): n zeroed bytes (8-byte aligned) in s's
   arena, or NULL when memory runs out or n is past SIZE_MAX / 2. */
/* A new chunk and n bytes from it: nx__shape_alloc_in's rare path. */
void *nx__shape_alloc_chunk(nx__chunk **chunks, size_t n);
/* The same in a list of chunks (the session keeps two): a bump in the newest
   chunk, inline, where the arena is called most. */
static inline void *nx__shape_alloc_in(nx__chunk **chunks, size_t n) {
  nx__chunk *c = *chunks;
  if (c && n <= c->cap - c->used) {
    size_t m = (n + 7) & ~(size_t)7;
    if (m <= c->cap - c->used) {
      void *p = c->data + c->used;
      c->used += m;
      return p;
    }
  }
  return nx__shape_alloc_chunk(chunks, n);
}
/* A position in a list of chunks, and the rewind to it (what was allocated
   since is freed; the list must not have been rewound past m since). */
typedef struct nx__arena_mark {
  nx__chunk *head, *next;
  size_t used;
} nx__arena_mark;
void nx__shape_arena_mark(nx__chunk *head, nx__arena_mark *m);
void nx__shape_arena_rewind(nx__chunk **chunks, const nx__arena_mark *m);
/* The process's cache of freed sessions' blocks (cache.c), by kind (a
   variable page, a full-size arena chunk), every block of a kind `size`
   bytes: take gives one (uninitialised) or NULL when none is kept; put
   keeps p, or frees it when the cache is full. */
enum { NX__CACHE_VPAGE, NX__CACHE_CHUNK, NX__CACHE_KINDS };
void *nx__shape_cache_take(int kind, size_t size);
void nx__shape_cache_put(int kind, void *p, size_t size);
/* Frees a list of chunks. */
void nx__shape_chunks_free(nx__chunk *c);
/* A copy of str in the arena (NULL for NULL, or when memory runs out). */
const char *nx__shape_strdup(nx_shape_session *s, const char *str);
const char *nx__shape_strndup(nx_shape_session *s, const char *str, size_t n); /* the first n bytes */

/* Makes room for at least `need` elements of `elem` bytes in the
   realloc-backed table *p of capacity *cap: doubles it (from `first` when
   empty), or more if need asks for it. Returns 0, or NX_ENOMEM when memory
   runs out or the count or byte size would overflow int or size_t (*p and
   *cap unchanged then). */
int nx__shape_grow(void **p, int *cap, int need, size_t elem, int first);

/* A growable array of pointers or ints, malloc-backed. */
typedef struct { void **p; int n, cap; } nx__pvec;
typedef struct { int *p; int n, cap; } nx__ivec;
/* Appending: 0 or NX_ENOMEM (the array unchanged). Inline: the arrays grow
   by doubling, so there is mostly room, and a round pushes once a visit.
   n + 1 never passes INT_MAX, since a table of INT_MAX entries cannot be
   made (nx__shape_grow refuses it). */
static inline int nx__shape_pvec_push(nx__pvec *v, void *x) {
  if (v->n == v->cap && nx__shape_grow((void **)&v->p, &v->cap, v->n + 1, sizeof *v->p, 8)) return NX_ENOMEM;
  v->p[v->n++] = x;
  return 0;
}
static inline int nx__shape_ivec_push(nx__ivec *v, int x) {
  if (v->n == v->cap && nx__shape_grow((void **)&v->p, &v->cap, v->n + 1, sizeof *v->p, 8)) return NX_ENOMEM;
  v->p[v->n++] = x;
  return 0;
}
bool nx__shape_ivec_has(const nx__ivec *v, int x);

/* A list of ints in arrival order, its links in the session's one pool
   (s->lk, index 0 unused): a variable's neighbours cost 8 bytes each and no
   allocation of their own. */
typedef struct { int head, tail; } nx__ilist;
typedef struct { int x, next; } nx__link;
#define NX__EACH(s, l, i) for (int i = (l).head; i; i = (s)->lk[i].next)
/* nx__shape_ilist_push(s, l, x), appending x to l, is inline in session.h. */
/* nx__shape_ilist_has(s, l, x), whether x is in l, is inline in session.h. */

#endif
