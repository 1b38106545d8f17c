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
const char *nx__shape_strdup(nx_shape_session *s, const char *str);

/* A growable array of pointers or ints, malloc-backed. */
typedef struct { void **p; int n, cap; } nx__pvec;
typedef struct { int *p; int n, cap; } nx__ivec;
int nx__pvec_push(nx__pvec *v, void *x);
int nx__ivec_push(nx__ivec *v, int x);
bool nx__ivec_has(const nx__ivec *v, int x);

/* ---- Dims and rows (immutable once made) ---- */
enum { NX__D_SOLVED, NX__D_VAR, NX__D_AFFINE, NX__D_CONCAT };

struct nx_dim {
  int kind;
  int64_t d;           /* solved: size */
  const char *basis;   /* solved: basis */
  int var;             /* var: id */
  int64_t stride, offset, dilation; /* affine */
  const nx_dim *over, *kernel;      /* affine; kernel non-NULL for conv */
  bool use_padding;
  int nparts;          /* concat */
  const nx_dim **parts;
};

struct nx_row {
  int nbeg, ndims;
  const nx_dim **beg, **dims;
  int var; /* 0: closed */
};

/* ---- Origins: a leaf names an operation; a derived one joins two ---- */
typedef struct nx__origin {
  const char *operation, *lhs_name, *rhs_name;
  int lhs_kind, rhs_kind;
  const struct nx__origin *a, *b; /* derived: both set, names NULL */
} nx__origin;

/* ---- Constraints ---- */
enum {
  NX__C_DIM_EQ, NX__C_DIM_INEQ, NX__C_ROW_EQ, NX__C_ROW_INEQ, NX__C_AT_LEAST,
  NX__C_TOTAL, NX__C_EXACT, NX__C_TERM_DIM, NX__C_TERM_ROW, NX__C_SHAPE_ROW
};

typedef struct nx__cons {
  int kind;
  const nx_dim *d1, *d2;
  const nx_row *r1, *r2;
  const nx_row **rows; /* total, exact */
  int nrows;
  const nx_dim **exact;
  int nexact;
  int64_t n; /* at least, total */
  bool is_param;
  const nx__origin *o;
} nx__cons;

/* A lower bound of a row variable: row <= <owner>, alive until re-emitted. */
typedef struct nx__lbound {
  const nx_row *row;
  int owner;
  const nx__origin *o;
  bool alive;
} nx__lbound;

/* A rank edge: rank(from) >= rank(to) + w. */
typedef struct nx__edge {
  int from, to, w;
  struct nx__edge *next;
} nx__edge;

/* One variable: a dim variable or a row variable. */
typedef struct nx__var {
  bool is_row;
  const char *name;
  const nx_dim *dval;  /* dim: solution, NULL when unsolved */
  const nx_row *rval;  /* row: solution, NULL when unsolved */
  const nx_dim *self_dim;
  const nx_row *self_row;
  nx__ivec res, opnd;  /* variables below / above */
  const nx_dim *glb;   /* dim: join of ground lower bounds */
  const nx__origin *glb_o;
  int64_t at_least;
  nx__pvec lower;      /* row: nx__lbound* stored on this var */
  nx__pvec watch;      /* row: nx__lbound* whose row mentions this var */
  bool is_param, safe_to_guess, in_pointwise, in_spec, hidden_param;
  /* rank classes: union-find with offsets, rank(v) = rank(up) + off */
  int up, off;
  bool closed_class;
  nx__edge *edges, *edges_tail;
  int nin, nout;
  int stamp, dist;
} nx__var;

struct nx_shape_session {
  nx__chunk *chunks;
  nx__var *vars; /* index 0 unused */
  int nvars, capvars;
  nx__pvec pending, queue, deferred, marks, tensors;
  int qhead;
  int64_t nprocessed, nbinds;
  int stamp;
  bool tainted;
  char taint[512];
  char err[900];
  const nx_dim *top, *one_default;
  int next_tensor_id;
};

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
int nx__dim_print(nx_shape_session *s, const nx_dim *d, char *buf, size_t cap);
int nx__row_print(nx_shape_session *s, const nx_row *r, char *buf, size_t cap);

/* ---- solve.c ---- */
int nx__push(nx_shape_session *s, nx__pvec *where, const nx__cons *c);
int nx__run(nx_shape_session *s, int stage);
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
int nx__rank_union(nx_shape_session *s, int v, const nx_row *val);
int nx__rank_edge(nx_shape_session *s, int from, int to, int w, const nx__origin *o);

/* ---- row.c ---- */
int nx__solve_row_eq(nx_shape_session *s, const nx__cons *c, int stage);
int nx__solve_row_ineq(nx_shape_session *s, const nx__cons *c, int stage);

/* ---- close.c ---- */
int nx__close_mark(nx_shape_session *s, const nx__cons *c, int stage);
int nx__solve_rows_constr(nx_shape_session *s, const nx__cons *c, int stage);
int nx__stage2_pairs(nx_shape_session *s);

/* Results of a constraint step besides 0 and negative statuses. */
#define NX__DEFER 1
#define NX__KEEP 2

#endif
