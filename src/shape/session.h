/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the variables and the session that owns every table of the
   solver's state. */
#ifndef NX_SHAPE_SESSION_H
#define NX_SHAPE_SESSION_H

#include "constraints.h"

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
};

/* Variable v of session s (v < s->nvars). */
#define NX__VPAGE_BITS 12
#define NX__VPAGE (1 << NX__VPAGE_BITS)
#define NX__VAR(s, v) (&(s)->vpages[(v) >> NX__VPAGE_BITS][(v) & (NX__VPAGE - 1)])

/* A new zeroed lower bound: its index into s->lbs, or NX_ENOMEM. */
int nx__shape_lbound_new(nx_shape_session *s);

#endif
