/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the variables and the session that owns every table of the
   solver's state. */
#ifndef NX_SHAPE_SESSION_H
#define NX_SHAPE_SESSION_H

#include "constraints.h"

/* A variable's solution, NULL while unsolved. Solutions are kept in their
   own dense table (a page's val): substitution reads them far more often
   than anything else about a variable. */
typedef union {
  const nx_dim *d; /* dim */
  const nx_row *r; /* row */
} nx__val;

/* One variable: a dim variable or a row variable (is_row); the fields of
   the other kind share its storage. */
typedef struct nx__var {
  /* bytes 0-31: the bounds a step reads next to the hot part */
  union {
    struct {                    /* dim */
      const nx_dim *glb;        /* join of ground lower bounds */
      const nx__origin *glb_o;
      int64_t at_least;
    };
    struct {                    /* row */
      int lower, lower_tail;    /* s->lbs stored on this var (next_lower) */
      int watch, watch_tail;    /* s->lbs whose row mentions this var (next_watch) */
      int64_t pot;              /* rank.c: a feasible rank of the class */
      nx__edge *edges;
    };
  };
  /* bytes 32-63, within one cache line whatever the record's place: what
     nearly every step reads or writes */
  nx__ilist res, opnd; /* variables below / above */
  /* rank classes: union-find with offsets, rank(v) = rank(up) + off */
  int up, off;
  int wake; /* head of its list of held constraints that read it, 0: none */
  union {
    struct {
      bool is_row : 1, is_param : 1, safe_to_guess : 1, in_pointwise : 1, in_spec : 1, hidden_param : 1, closed_class : 1;
      bool no_guess : 1; /* a dim the rows of a total-dim constraint decide: closing never guesses it */
    };
    unsigned char flags; /* the bits above together, for passing several in one step */
  };
  /* bytes 64-95: read rarely */
  const char *name;
  struct {           /* row */
    nx__edge *edges_tail;
    int64_t drop;    /* rank.c: by how much a search lowers the class */
    int stamp;       /* rank.c: the search that last reached this class */
  };
} nx__var;

/* The flags a bound row variable passes to its value's row variable
   (nx__shape_bind_row), as bits of nx__var's flags: the mask is built from
   the named fields, the compiler folds it to a constant. */
static inline unsigned char nx__var_passed_flags(void) {
  nx__var m = {.flags = 0};
  m.is_param = m.safe_to_guess = m.in_pointwise = m.in_spec = m.hidden_param = true;
  return m.flags;
}

/* ---- The undo log (snapshot.c) ----
   While a snapshot is live, every change to state that existed when the
   latest live snapshot was taken is recorded first: a variable (its whole
   record, once per epoch), a solution or self entry, a link, a lower bound,
   or a field of an arena object (a rank edge's next, a tensor's marks). Restoring undoes the
   log back to the snapshot's position, in reverse; what was made since (ids
   past the watermarks, arena past its mark) is dropped wholesale. */
enum { NX__U_VAR, NX__U_VAL, NX__U_SELF, NX__U_LINK, NX__U_LBOUND, NX__U_BYTES };
typedef struct nx__undo {
  unsigned char kind;
  int index;
  union {
    nx__var var;
    nx__val val;
    nx__link link;
    nx__lbound lb;
    struct { unsigned char *at, old[8], n; } b; /* bytes in the arena */
  };
} nx__undo;

/* The range new ids come from while one is entered (nx_shape_ids_enter). */
typedef struct nx__id_cursor {
  bool on;
  int var_next, var_end, tensor_next, tensor_end;
} nx__id_cursor;

/* Variables come in pages of NX__VPAGE. */
#define NX__VPAGE_BITS 12
#define NX__VPAGE (1 << NX__VPAGE_BITS)

/* NX__VPAGE variables' tables: their solutions, their selves (the dim or
   row that is just the variable, made on first use) and their records. A
   page never moves, so a growing session never copies a table; solutions
   and selves stay dense, 8 bytes a variable. */
typedef struct nx__vpage {
  nx__val val[NX__VPAGE];
  nx__val self[NX__VPAGE];
  nx__var var[NX__VPAGE];
} nx__vpage;

struct nx_shape_session {
  nx__chunk *chunks;
  nx__vpage **vpages; /* the variables' pages (variable 0 unused) */
  int nvpages, capvpages;
  nx__chunk *self_chunks; /* where those are made: together, in variable order */
  int nvars, capvars;
  /* by variable, one bit set when it gains an upper neighbour (opnd), never
     cleared: a superset of those that have one, so that stage 2's merge
     visits them alone instead of every variable's record */
  uint64_t *opnd_bits;
  int nopnd_words;
  nx__cvec pending, queue;
  nx__hold marks, deferred;
  nx__pvec tensors;
  struct { int code, next; } *wk; /* wake lists: code = id << 1 | tag */
  int nwk, capwk;
  nx__link *lk; /* the links of every nx__ilist */
  int nlk, caplk;
  nx__lbound *lbs; /* lower bounds of row variables, index 0 unused */
  int nlbs, caplbs;
  int qhead;
  int64_t nprocessed, nbinds, nchanges;
  int stamp;
  bool tainted;
  int stage;      /* the stage being solved */
  bool wake_lost; /* a wake could not be recorded (out of memory) */
  bool subst_failed; /* a substitution met a shape error (dim.c): a size past int64, a basis conflict */
  char subst_what[400]; /* its reason, in full */
  char taint[512];
  char err[900];
  const nx_dim *top, *one_default, *zero;
  const nx_row *empty; /* the closed empty row, shared (rows are immutable) */
  int next_tensor_id;
  int nproj_ids; /* projection ids given so far (padding.c; rewound with the state) */
  nx__id_cursor ids;
  /* snapshots (snapshot.c): the live ones in the order taken, the log, and
     the watermarks of the latest (changes past them are not logged) */
  struct nx_shape_snapshot **snaps;
  int nsnaps, capsnaps;
  nx__undo *undo;
  int nundo, capundo;
  bool logging;    /* a snapshot is live */
  bool undo_lost;  /* a change could not be logged (out of memory) */
  int epoch;       /* a variable is logged once per epoch (vsaved) */
  int *vsaved;     /* by variable: the epoch it was last logged in; made by
                      a snapshot's take for the variables below nvsaved */
  int nvsaved, capvsaved;
  /* older state is logged: variables below w_nvars, links and lower bounds
     up to w_nlk and w_nlbs; 0 and -1 while no snapshot is live, so that a
     barrier costs one comparison then */
  int w_nvars, w_nlk, w_nlbs;
  nx__cvec *rec; /* a trace's record: the constraints each solve takes from pending, each solve's
                    batch closed by a constraint of kind NX__C_BATCH_END (scheme_trace.c) */
  bool forced_proj; /* projections or padding were forced while a trace recorded */
  int64_t nrefs_made; /* references made so far, each's serial (rewound with the state) */
  int64_t ref_floor;  /* while a trace records: references of a serial below it were made outside it */
  struct nx__refvec *ref_rec; /* while a trace records: the bindings of those references (refs.c) */
  bool set_outside_ref; /* one of those references was set while a trace recorded */
  int64_t closings; /* solves past stage 1 so far (rewound with the state they changed) */
  bool forced_dims; /* a solve past stage 1 ran while a trace recorded (a later stage-1 solve lowers stage again) */
  int64_t shape_errors; /* shape errors met, rewound ones included: never rewound, so that a trace
                           tells an inner trace's or application's shape error from other failures */
  int op_mode;      /* the session's op_shape_schemes override plus 1; 0: none (scheme_fn.c) */
  uint64_t serial;  /* the process's count of sessions made: tells a session from a later one at its address */
  /* The restores of snapshots, as marks: the restore's number and the
     variable and tensor counts it went back to. A mark drops the older ones
     no lower than it in both counts; when full, the two oldest become one
     (the later number, the lesser counts), so a query may find a restore
     lower than it was, never higher (snapshot.c). Kept by every restore. */
  int64_t nrestores;
  struct nx__rmark {
    int64_t serial;
    int nvars, ntensors;
  } rmarks[32];
  int nrmarks;
};

/* Variable v of session s (v < s->nvars), its page and its record. */
#define NX__VPAGE_OF(s, v) ((s)->vpages[(v) >> NX__VPAGE_BITS])
#define NX__VAR_AT(s, v) (&NX__VPAGE_OF(s, v)->var[(v) & (NX__VPAGE - 1)])
/* Variable v's solution and self entry, as lvalues (writes go through the
   barriers below). */
#define NX__VAL(s, v) (NX__VPAGE_OF(s, v)->val[(v) & (NX__VPAGE - 1)])
#define NX__SELF(s, v) (NX__VPAGE_OF(s, v)->self[(v) & (NX__VPAGE - 1)])

/* The loggers behind the barriers below (snapshot.c); out of memory sets
   s->undo_lost, which makes restoring fail. */
void nx__shape_log_var(nx_shape_session *s, int v);
void nx__shape_log(nx_shape_session *s, int kind, int index, const void *old);
void nx__shape_log_bytes(nx_shape_session *s, void *at, size_t n); /* n <= 8 */

/* Ends the session's live snapshots and frees the log (session free). */
void nx__shape_snapshots_end(nx_shape_session *s);

/* Variable v, to read or change: while a snapshot is live, a variable older
   than the latest one is logged before its first change in an epoch. Reads
   that need no log use NX__VARR. */
static inline nx__var *nx__shape_var(nx_shape_session *s, int v) {
  if (v < s->w_nvars && s->vsaved[v] != s->epoch) nx__shape_log_var(s, v);
  return NX__VAR_AT(s, v);
}
#define NX__VAR(s, v) nx__shape_var((s), (v))
#define NX__VARR(s, v) ((const nx__var *)NX__VAR_AT(s, v))

/* Setting a solution, a self entry, a link's next, and changing a lower
   bound, through the log. */
static inline void nx__shape_set_val(nx_shape_session *s, int v, nx__val x) {
  if (v < s->w_nvars) nx__shape_log(s, NX__U_VAL, v, &NX__VAL(s, v));
  NX__VAL(s, v) = x;
}
static inline void nx__shape_set_self(nx_shape_session *s, int v, nx__val x) {
  if (v < s->w_nvars) nx__shape_log(s, NX__U_SELF, v, &NX__SELF(s, v));
  NX__SELF(s, v) = x;
}
static inline void nx__shape_set_link_next(nx_shape_session *s, int i, int next) {
  if (i <= s->w_nlk) nx__shape_log(s, NX__U_LINK, i, &s->lk[i]);
  s->lk[i].next = next;
}
static inline nx__lbound *nx__shape_lbound(nx_shape_session *s, int i) {
  if (i <= s->w_nlbs) nx__shape_log(s, NX__U_LBOUND, i, &s->lbs[i]);
  return &s->lbs[i];
}
/* Room for two more links in s->lk (one past the last, index 0 unused):
   0 or NX_ENOMEM (arena.c). */
int nx__shape_links_grow(nx_shape_session *s);
/* Appends x to l through a new link of the pool; NX_ENOMEM leaves l
   unchanged. Inline: the pool grows by doubling, so there is mostly room. */
static inline int nx__shape_ilist_push(nx_shape_session *s, nx__ilist *l, int x) {
  if (s->caplk - s->nlk < 2 && nx__shape_links_grow(s)) return NX_ENOMEM;
  int i = ++s->nlk;
  s->lk[i].x = x;
  s->lk[i].next = 0;
  if (l->tail) nx__shape_set_link_next(s, l->tail, i);
  else l->head = i;
  l->tail = i;
  return 0;
}

/* Whether x is in l. */
static inline bool nx__shape_ilist_has(const nx_shape_session *s, const nx__ilist *l, int x) {
  NX__EACH(s, *l, i)
  if (s->lk[i].x == x) return true;
  return false;
}

/* A field of an arena object (at most 8 bytes), about to change. */
#define NX__LOG_FIELD(s, field) \
  do { \
    if ((s)->logging) nx__shape_log_bytes((s), &(field), sizeof(field)); \
  } while (0)

/* n zeroed bytes in s's arena (arena.h). */
static inline void *nx__shape_alloc(nx_shape_session *s, size_t n) { return nx__shape_alloc_in(&s->chunks, n); }

/* Substitution under the current solution (dims.h). The common cases (a
   solved dim, an unbound variable, one bound to a solved dim or an unbound
   variable; a row without a variable or whose variable's value needs no
   splicing) are answered here, inline, where substitution is called most. */
static inline const nx_dim *nx__shape_dsub(nx_shape_session *s, const nx_dim *d) {
  if (d->kind == NX__D_SOLVED) return d;
  if (d->kind == NX__D_VAR) {
    const nx_dim *x = NX__VAL(s, d->var).d;
    if (!x) return d;
    if (x->kind == NX__D_SOLVED || (x->kind == NX__D_VAR && !NX__VAL(s, x->var).d)) return x;
  }
  return nx__shape_dsub_rest(s, d);
}
static inline const nx_row *nx__shape_rsub(nx_shape_session *s, const nx_row *r) {
  if (!r->var) return r;
  const nx_row *rv = NX__VAL(s, r->var).r;
  if (!rv) return r;
  if (!r->nbeg && !r->ndims && (!rv->var || !NX__VAL(s, rv->var).r)) return rv;
  return nx__shape_rsub_rest(s, r, rv);
}

/* Variable v gained an upper neighbour (see opnd_bits). */
static inline void nx__shape_mark_opnd(nx_shape_session *s, int v) { s->opnd_bits[v >> 6] |= (uint64_t)1 << (v & 63); }

/* The dim or the row that is just variable v (dims.h): NULL when memory runs out. */
static inline const nx_dim *nx__shape_dim_var(nx_shape_session *s, int v) {
  return NX__SELF(s, v).d ? NX__SELF(s, v).d : nx__shape_dim_var_new(s, v);
}
static inline const nx_row *nx__shape_row_of_var(nx_shape_session *s, int v) {
  return NX__SELF(s, v).r ? NX__SELF(s, v).r : nx__shape_row_of_var_new(s, v);
}

/* A new zeroed lower bound: its index into s->lbs, or NX_ENOMEM. */
int nx__shape_lbound_new(nx_shape_session *s);

#endif
