/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the shape module's data model, environment and solver entry
   points. Every object lives in its session's arena (arena.c); the
   environment's tables are growable arrays the session frees. */
#ifndef NX_SHAPE_INTERNAL_H
#define NX_SHAPE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"
#include "nx_shape.h"

/* ---- Arena ---- */
typedef struct nx__chunk nx__chunk;
void *nx__shape_alloc(nx_shape_session *s, size_t n);
void *nx__shape_alloc_in(nx__chunk **chunks, size_t n);
const char *nx__shape_strdup(nx_shape_session *s, const char *str);
const char *nx__shape_strndup(nx_shape_session *s, const char *str, size_t n); /* the first n bytes */

/* A growable array of pointers or ints, malloc-backed. */
typedef struct { void **p; int n, cap; } nx__pvec;
typedef struct { int *p; int n, cap; } nx__ivec;
int nx__pvec_push(nx__pvec *v, void *x);
int nx__ivec_push(nx__ivec *v, int x);
bool nx__ivec_has(const nx__ivec *v, int x);

/* A list of ints in arrival order, its links in the session's one pool
   (s->lk, index 0 unused): a variable's neighbours cost 8 bytes each and no
   allocation of their own. */
typedef struct { int head, tail; } nx__ilist;
typedef struct { int x, next; } nx__link;
#define NX__EACH(s, l, i) for (int i = (l).head; i; i = (s)->lk[i].next)

/* ---- Dims and rows (immutable once made) ---- */
enum { NX__D_SOLVED, NX__D_VAR, NX__D_AFFINE, NX__D_CONCAT };

/* A dim is allocated only as large as its kind needs (a variable is its
   first 8 bytes, a solved dim its first 24); fields of other kinds share
   storage and are never read. */
struct nx_dim {
  signed char kind;
  bool use_padding; /* affine */
  union {
    int var;    /* var: id */
    int nparts; /* concat */
  };
  union {
    struct {             /* solved */
      int64_t d;         /* size */
      const char *basis; /* basis */
    };
    struct {                            /* affine */
      int64_t stride, offset, dilation;
      const nx_dim *over, *kernel;      /* kernel non-NULL for conv */
    };
    const nx_dim **parts; /* concat */
  };
};
#define NX__DIM_VAR_SIZE offsetof(nx_dim, d)
#define NX__DIM_SOLVED_SIZE (offsetof(nx_dim, basis) + sizeof(const char *))

struct nx_row {
  int nbeg, ndims;
  const nx_dim **beg, **dims;
  int var; /* 0: closed */
};

/* ---- Origins: a leaf names an operation; a derived one joins two ---- */
typedef struct nx__origin {
  union {
    struct { const char *operation, *lhs_name; };
    struct { const struct nx__origin *a, *b; }; /* derived */
  };
  const char *rhs_name;
  signed char lhs_kind, rhs_kind;
  bool derived;
} nx__origin;

/* ---- Constraints ---- */
enum {
  NX__C_DIM_EQ, NX__C_DIM_INEQ, NX__C_ROW_EQ, NX__C_ROW_INEQ, NX__C_AT_LEAST,
  NX__C_TOTAL, NX__C_EXACT, NX__C_TERM_DIM, NX__C_TERM_ROW, NX__C_SHAPE_ROW
};

/* 32 bytes: the fields a kind does not use share storage (at least: d1, n;
   total: rows, n; exact: rows, ex). */
typedef struct nx__cons {
  unsigned char kind;
  bool is_param;
  int nrows; /* total, exact */
  union { const nx_dim *d1; const nx_row *r1; const nx_row **rows; /* total, exact */ };
  union {
    const nx_dim *d2;
    const nx_row *r2;
    const nx_row *ex; /* exact: the dims, as a closed row */
    int64_t n;        /* at least, total */
    const void *t;    /* an interior mark of a tensor's row (nrows: the kind),
                         its origin (o is NULL) made only when needed */
  };
  const nx__origin *o;
} nx__cons;

/* Not a constraint: the end of one solve's batch in a trace's record. */
#define NX__C_BATCH_END 0xFF

/* A growable array of constraints held by value. */
typedef struct { nx__cons *p; int n, cap; } nx__cvec;
int nx__cvec_push(nx__cvec *v, const nx__cons *c);

/* A held constraint: a mark kept for a later stage, or a deferred one. Its
   id is its index in the pool, so ids follow the order of arrival, which is
   the order the solver visits them in. The pool keeps 8 bytes of state per
   id; the constraint itself is stored (cs) except for the interior marks
   closing adds, one per row of every tensor: those ids form one range and
   their constraints are made from the tensors when visited. */
typedef struct nx__held {
  int qp;    /* the round it is queued for */
  unsigned char group; /* marks: 0 terminal, 1 interior (shape) rows */
  bool alive;
} nx__held;

/* Held constraints (the marks, or the deferred constraints) and the work
   list of those to revisit: an entry is registered on the variables it
   reads, and a change to one of them (nx__touch) queues it, for the current
   round if it comes later in the order, else for the next round. */
typedef struct nx__hold {
  nx__held *p; /* by id */
  int n, cap, nlive;
  nx__cons *cs; /* the stored constraints, by id (less vn past the range) */
  int ncs, capcs;
  int vbase, vn, vt0; /* the range: ids vbase.. of rows 3*vt0.. of s->tensors */
  nx__ivec live[2]; /* ids per group, ascending; dead ones dropped lazily */
  nx__ivec heap;    /* woken during a round, later in the order */
  nx__ivec next;    /* woken for the next round */
  nx__ivec seq;     /* scratch: the ids a round visits */
  int round, cur;   /* cur: the id being run, INT_MAX between rounds */
  unsigned active;  /* groups that run at this stage */
  bool armed;       /* wakes are recorded (marks: only inside a stage loop) */
  int tag;          /* 0 marks, 1 deferred */
  int stage;        /* deferred: the stage of the last full round */
} nx__hold;

/* A lower bound of a row variable: row <= <owner>, alive until re-emitted. */
typedef struct nx__lbound {
  const nx_row *row;
  const nx__origin *o;
  int owner;
  int next_lower, next_watch; /* the next on its owner's / its row variable's list, 0: none */
  bool alive;
} nx__lbound;

/* A rank edge: rank(from) >= rank(to) + w. */
typedef struct nx__edge {
  int from, to, w;
  struct nx__edge *next;
} nx__edge;

/* A variable's solution, NULL while unsolved. Solutions are kept in their
   own dense table (s->val): substitution reads them far more often than
   anything else about a variable. */
typedef union {
  const nx_dim *d; /* dim */
  const nx_row *r; /* row */
} nx__val;

/* One variable: a dim variable or a row variable (is_row); the fields of
   the other kind share its storage. */
typedef struct nx__var {
  const char *name;
  nx__ilist res, opnd; /* variables below / above */
  union {
    struct {                    /* dim */
      const nx_dim *glb;        /* join of ground lower bounds */
      const nx__origin *glb_o;
      int64_t at_least;
    };
    struct {                    /* row */
      int lower, lower_tail;    /* s->lbs stored on this var (next_lower) */
      int watch, watch_tail;    /* s->lbs whose row mentions this var (next_watch) */
      nx__edge *edges, *edges_tail;
      int stamp;          /* rank.c: the search that last reached this class */
      int64_t pot, drop;  /* rank.c: a feasible rank of the class; by how much a search lowers it */
    };
  };
  /* rank classes: union-find with offsets, rank(v) = rank(up) + off */
  int up, off;
  int wake; /* head of its list of held constraints that read it, 0: none */
  bool is_row : 1, is_param : 1, safe_to_guess : 1, in_pointwise : 1, in_spec : 1, hidden_param : 1, closed_class : 1;
} nx__var;

struct nx_shape_session {
  nx__chunk *chunks;
  nx__var **vpages; /* the variables, NX__VPAGE at a time (index 0 unused): a
                       page never moves, so a growing table is never copied */
  int nvpages, capvpages;
  nx__val *val;  /* solutions, by variable */
  nx__val *self; /* the dim or row that is just the variable, made on first use */
  nx__chunk *self_chunks; /* where those are made: together, in variable order */
  int nvars, capvars;
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
  nx__cvec *rec; /* a trace's record: the constraints each solve takes from pending, each solve's
                    batch closed by a constraint of kind NX__C_BATCH_END (scheme_trace.c) */
};

/* Variable v of session s (v < s->nvars). */
#define NX__VPAGE_BITS 12
#define NX__VPAGE (1 << NX__VPAGE_BITS)
#define NX__VAR(s, v) (&(s)->vpages[(v) >> NX__VPAGE_BITS][(v) & (NX__VPAGE - 1)])

int nx__ilist_push(nx_shape_session *s, nx__ilist *l, int x);
bool nx__ilist_has(const nx_shape_session *s, const nx__ilist *l, int x);
int nx__lbound_new(nx_shape_session *s); /* an index into s->lbs, or a negative status */

/* ---- dim.c: making, substituting and comparing ---- */
int nx__shape_new_var(nx_shape_session *s, bool is_row, const char *name);
const nx_dim *nx__dim_solved(nx_shape_session *s, int64_t d, const char *basis);
const nx_dim *nx__dim_var(nx_shape_session *s, int v);
const nx_row *nx__row_of_var(nx_shape_session *s, int v);
const nx_row *nx__row_new(nx_shape_session *s, const nx_dim *const *beg, int nbeg, const nx_dim *const *dims,
                          int ndims, int var);
const nx_dim *nx__dsub(nx_shape_session *s, const nx_dim *d);
const nx_row *nx__rsub(nx_shape_session *s, const nx_row *r);      /* row variables only */
const nx_row *nx__rsub_full(nx_shape_session *s, const nx_row *r); /* and every dim */
bool nx__dim_equal(const nx_dim *a, const nx_dim *b);
bool nx__is_top(const nx_dim *d);
bool nx__dim_has_var(const nx_dim *d, int v);
bool nx__basis_is(const nx_dim *d, const char *basis);
/* OCANNL's merge of derived bases: equal ones, or the named one of a named
   and a reserved one; NULL when two named bases conflict. */
const char *nx__basis_merge(const char *a, const char *b);
/* The common named basis of n solved dims (default if none); NULL when two
   named ones differ. */
const char *nx__basis_of_parts(const nx_dim *const *d, int n);
/* Records a substitution's shape error (the first one wins). */
void nx__subst_fail(nx_shape_session *s, const char *fmt, ...) NX__PRINTF(2, 3);
int nx__dim_print(nx_shape_session *s, const nx_dim *d, char *buf, size_t cap);
/* Appends d to buf at *len, never past cap; *len grows by d's full length. */
void nx__dim_put(nx_shape_session *s, const nx_dim *d, char *buf, size_t cap, size_t *len);
int nx__row_print(nx_shape_session *s, const nx_row *r, char *buf, size_t cap);

/* ---- solve.c ---- */
int nx__push(nx_shape_session *s, nx__cvec *where, const nx__cons *c);
int nx__run(nx_shape_session *s, int stage);
int nx__step(nx_shape_session *s, const nx__cons *c, int stage);
/* The shape error a substitution met (a size past int64, conflicting
   bases), reported at origin o; 0 if none. */
int nx__subst_error(nx_shape_session *s, const nx__origin *o);
int nx__error(nx_shape_session *s, const nx__origin *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
const nx__origin *nx__origin_join(nx_shape_session *s, const nx__origin *a, const nx__origin *b);
const nx__origin *nx__origin_make(nx_shape_session *s, const nx_shape_origin *o);
int nx__unify_dim(nx_shape_session *s, const nx_dim *a, const nx_dim *b, const nx__origin *o);
int nx__bind_row(nx_shape_session *s, int v, const nx_row *val, const nx__origin *o);

/* ---- rank.c ---- */
int nx__rank_find(nx_shape_session *s, int v, int *off);
int nx__rank_union(nx_shape_session *s, int v, const nx_row *val, const nx__origin *o);
int nx__rank_edge(nx_shape_session *s, int from, int to, int w, const nx__origin *o);

/* ---- row.c ---- */
int nx__solve_row_eq(nx_shape_session *s, const nx__cons *c, int stage);
int nx__solve_row_ineq(nx_shape_session *s, const nx__cons *c, int stage);

/* ---- close.c ---- */
int nx__close_mark(nx_shape_session *s, const nx__cons *c, int stage);
const nx__origin *nx__closing_origin(nx_shape_session *s, const nx__cons *c); /* tensor.c: c->t's origin */
void nx__closing_cons(nx_shape_session *s, int i, nx__cons *c); /* tensor.c: the mark of row i of s->tensors */
int nx__solve_rows_constr(nx_shape_session *s, const nx__cons *c, int stage);
int nx__stage2_pairs(nx_shape_session *s);

/* ---- hold.c: marks and deferred constraints, woken by what they read ---- */
void nx__hold_init(nx__hold *h, int tag);
void nx__hold_free(nx__hold *h);
int nx__hold_add(nx_shape_session *s, nx__hold *h, const nx__cons *c, bool changed);
int nx__hold_round(nx_shape_session *s, nx__hold *h, bool full, int stage);
/* Interior marks for the rows of tensors t0.. (n rows), as one range. */
int nx__hold_add_rows(nx_shape_session *s, nx__hold *h, int t0, int n);
nx__cons nx__hold_cons(nx_shape_session *s, const nx__hold *h, int id);
int nx__hold_first(const nx__hold *h); /* the first live id, or -1 */
void nx__wake(nx_shape_session *s, int v);
/* v changed (bound, a new bound or lower bound, a flag): wake its readers. */
static inline void nx__touch(nx_shape_session *s, int v) {
  s->nchanges++;
  if (NX__VAR(s, v)->wake) nx__wake(s, v);
}
/* An entry whose own step changed something is revisited in the next round
   (it may read what it changed before it was registered on it). */
int nx__hold_requeue(nx_shape_session *s, nx__hold *h, int id);

/* Results of a constraint step besides 0 and negative statuses. */
#define NX__DEFER 1
#define NX__KEEP 2

#endif
