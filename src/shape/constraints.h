/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: constraints, their origins, and the pools that hold them
   (pending and queued constraints by value, held ones by id). */
#ifndef NX_SHAPE_CONSTRAINTS_H
#define NX_SHAPE_CONSTRAINTS_H

#include "dims.h"

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
  NX__C_TOTAL, NX__C_EXACT, NX__C_TERM_DIM, NX__C_TERM_ROW, NX__C_SHAPE_ROW,
  NX__C_TOTAL_DIM /* rows hold as many elements as the dim d2 is long */
};

/* 32 bytes: the fields a kind does not use share storage (at least: d1, n;
   total: rows, n; total dim: rows, d2; exact: rows, ex). */
typedef struct nx__cons {
  unsigned char kind;
  bool is_param;
  int nrows; /* total, total dim, exact */
  union { const nx_dim *d1; const nx_row *r1; const nx_row **rows; /* total, total dim, exact */ };
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

/* A growable array of constraints held by value. */
typedef struct { nx__cons *p; int n, cap; } nx__cvec;
int nx__shape_cvec_push(nx__cvec *v, const nx__cons *c); /* 0 or NX_ENOMEM */

/* Not a constraint: the end of one solve's batch in a trace's record. */
#define NX__C_BATCH_END 0xFF

/* Results of a constraint step besides 0 and negative statuses. */
#define NX__DEFER 1
#define NX__KEEP 2

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
   reads, and a change to one of them (nx__shape_touch) queues it, for the
   current round if it comes later in the order, else for the next round. */
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

#endif
