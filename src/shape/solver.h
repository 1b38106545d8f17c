/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the solver's entry points, file by file. A step function
   returns 0 (done), NX__DEFER (undecided: held for more bindings or a later
   stage), NX__KEEP (a mark kept for its stage), NX_EINVAL with s->err set
   by nx__shape_error (a shape error), or NX_ENOMEM. */
#ifndef NX_SHAPE_SOLVER_H
#define NX_SHAPE_SOLVER_H

#include "session.h"

/* Kept out of line: a rare case that would make its caller save registers
   on every call (rank.c's search, solve.c's at-least). */
#if defined(__GNUC__)
#define NX__NOINLINE __attribute__((noinline))
#else
#define NX__NOINLINE
#endif

/* ---- solve.c: the queue, errors and dim constraints ---- */
/* Appends c to where (s->pending or s->queue): 0 or NX_ENOMEM. Inline,
   with c's address never passed on, and copied member by member: copied
   whole through a call, the 16-byte loads waited on the caller's narrower
   stores (perf put a tenth of the chain's samples there). A full one grows,
   or the queue reuses its consumed prefix, in nx__shape_push_room. */
int nx__shape_push_room(nx_shape_session *s, nx__cvec *where);
static inline int nx__shape_push(nx_shape_session *s, nx__cvec *where, const nx__cons *c) {
  if (where->n == where->cap && nx__shape_push_room(s, where)) return NX_ENOMEM;
  nx__cons *d = &where->p[where->n++];
  /* member by member, each as wide as the caller's store of it (a whole-struct
     copy loads 16 bytes at once, which the caller's stores cannot forward) */
  d->kind = c->kind;
  d->is_param = c->is_param;
  d->nrows = c->nrows;
  d->d1 = c->d1; /* each union is 8 bytes, whichever member is in use */
  d->d2 = c->d2;
  d->o = c->o;
  return 0;
}
/* Drains the pending list and the queue at stage, retrying deferred
   constraints while bindings happen: 0, or the first failing step's status. */
/* A restore of a snapshot, marked (snapshot.c); whether a restore after
   the one numbered since went back below nvars variables or ntensors
   tensors: what a scheme traced then read may be gone, its ids reused. */
void nx__shape_mark_restore(nx_shape_session *s);
bool nx__shape_rewound_below(const nx_shape_session *s, int64_t since, int nvars, int ntensors);

int nx__shape_run(nx_shape_session *s, int stage);
/* One constraint at stage, dispatched by kind (see the step results above). */
int nx__shape_step(nx_shape_session *s, const nx__cons *c, int stage);
/* The shape error a substitution met (a size past int64, conflicting
   bases), reported at origin o; 0 if none. */
int nx__shape_subst_error(nx_shape_session *s, const nx__origin *o);
/* Writes the message and o's trace into s->err; returns NX_EINVAL. */
int nx__shape_error(nx_shape_session *s, const nx__origin *o, const char *fmt, ...) NX__PRINTF(3, 4);
/* a and b joined as one derived origin (either may be NULL; on out of
   memory, a). */
const nx__origin *nx__shape_origin_join(nx_shape_session *s, const nx__origin *a, const nx__origin *b);
/* A copy of a public origin in the arena; NULL for NULL or out of memory. */
const nx__origin *nx__shape_origin_make(nx_shape_session *s, const nx_shape_origin *o);
/* a = b: binds a variable side (occurs check), or compares, or defers. */
int nx__shape_unify_dim(nx_shape_session *s, const nx_dim *a, const nx_dim *b, const nx__origin *o);

/* ---- row.c: row constraints ---- */
/* <v> := val, re-emitting the bounds stored on v against val. */
int nx__shape_bind_row(nx_shape_session *s, int v, const nx_row *val, const nx__origin *o);
int nx__shape_solve_row_eq(nx_shape_session *s, const nx__cons *c, int stage);
int nx__shape_solve_row_ineq(nx_shape_session *s, const nx__cons *c, int stage);
/* The join of w's live lower bounds; NULL if none (or out of memory). */
const nx_row *nx__shape_row_glb(nx_shape_session *s, int w);

/* ---- rank.c: the rank graph over row variables ---- */
/* Joins v's class with val's row variable's as v := val does. */
int nx__shape_rank_union(nx_shape_session *s, int v, const nx_row *val, const nx__origin *o);
/* Records rank(from) >= rank(to) + w; NX_EINVAL on a positive cycle. */
int nx__shape_rank_edge(nx_shape_session *s, int from, int to, int w, const nx__origin *o);

/* ---- elems.c: rows constraints ---- */
int nx__shape_solve_total(nx_shape_session *s, const nx__cons *c, int stage);
int nx__shape_solve_total_dim(nx_shape_session *s, const nx__cons *c, int stage);
int nx__shape_solve_exact(nx_shape_session *s, const nx__cons *c, int stage);

/* ---- close.c: marks and the stage-2 merge ---- */
/* A terminal or interior mark at stage: NX__KEEP until its stage. */
int nx__shape_close_mark(nx_shape_session *s, const nx__cons *c, int stage);
/* Queues the stage-2 merges of unique adjacency pairs: 0 or NX_ENOMEM. */
int nx__shape_stage2_pairs(nx_shape_session *s);

/* ---- hold.c: marks and deferred constraints, woken by what they read ---- */
void nx__shape_hold_init(nx__hold *h, int tag);
void nx__shape_hold_free(nx__hold *h);
/* Holds c (its step changed something when changed): 0 or NX_ENOMEM. */
int nx__shape_hold_add(nx_shape_session *s, nx__hold *h, const nx__cons *c, bool changed);
/* Runs h's entries at stage: every live one (full) or the woken ones. */
int nx__shape_hold_round(nx_shape_session *s, nx__hold *h, bool full, int stage);
/* Interior marks for the rows of tensors t0.. (n rows), as one range. */
int nx__shape_hold_add_rows(nx_shape_session *s, nx__hold *h, int t0, int n);
/* The constraint of held id. */
nx__cons nx__shape_hold_cons(nx_shape_session *s, const nx__hold *h, int id);
int nx__shape_hold_first(const nx__hold *h); /* the first live id, or -1 */
/* Queues the held readers of v. */
void nx__shape_wake(nx_shape_session *s, int v);
/* v changed (bound, a new bound or lower bound, a flag): wake its readers. */
static inline void nx__shape_touch(nx_shape_session *s, int v) {
  s->nchanges++;
  if (NX__VARR(s, v)->wake) nx__shape_wake(s, v);
}
/* An entry whose own step changed something is revisited in the next round
   (it may read what it changed before it was registered on it). */
int nx__shape_hold_requeue(nx_shape_session *s, nx__hold *h, int id);

/* ---- api.c ---- */
/* Solves at stage unless s is tainted; a shape error taints s. Sets the
   message naming fn on failure. */
int nx__shape_solve_checked(nx_shape_session *s, const char *fn, int stage);

#endif
