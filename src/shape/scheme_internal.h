/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: a shape scheme as stored, apart from any session's memory.

   A trace records every constraint the function's operations registered
   (what each stage-1 solve took from the pending list), the flags they set
   on variables directly, and the tensors they made. Dims and rows are
   copied into the scheme's own tables, a variable named by a code: a
   variable made before the trace (fixed, '_a) by its session id (> 0), a
   variable made by the trace (generalized, 'a) by -(k + 1), k its index
   among the scheme's generalized variables. An application replays the
   record with fresh variables for the generalized ones: exactly the
   constraints inlining the body registers. */
#ifndef NX_SHAPE_SCHEME_INTERNAL_H
#define NX_SHAPE_SCHEME_INTERNAL_H

#include "tensor_internal.h"
#include "nx_scheme.h"

/* ---- The rewind ---- */
/* A trace and a check run inside a snapshot of the session
   (nx_shape_snapshot_take), restored after: nothing they did remains, and
   the next ids are the ones they started from. These wrap the snapshot
   calls; take is NULL when memory runs out. */
static inline nx_shape_snapshot *nx__rewind_take(nx_shape_session *s) {
  nx_shape_snapshot *w = NULL;
  return nx_shape_snapshot_take(s, &w) ? NULL : w;
}
static inline void nx__rewind_restore(nx_shape_session *s, nx_shape_snapshot *w) { (void)nx_shape_snapshot_restore(s, w); }
static inline void nx__rewind_free(nx_shape_snapshot *w) { nx_shape_snapshot_free(w); }

/* ---- The stored form ---- */
typedef struct nx__sdim {
  signed char kind; /* NX__D_* */
  bool use_padding;
  int var;          /* var: its code */
  int64_t d, stride, offset, dilation;
  const char *basis;
  int over, kernel; /* affine: dim indices (kernel -1: none) */
  int nparts, parts; /* concat: parts at ints[parts..] */
} nx__sdim;

typedef struct nx__srow {
  int nbeg, ndims, beg, dims; /* dim indices at ints[beg..], ints[dims..] */
  int var;                    /* a code, 0: closed */
} nx__srow;

typedef struct nx__scons {
  unsigned char kind; /* NX__C_* */
  bool is_param;
  int nrows;
  int a, b;   /* dims or rows by kind; exact: b the dims as a closed row */
  int rows;   /* total, exact: row indices at ints[rows..] */
  int64_t n;  /* at least, total */
  int origin; /* index into origins, -1: none */
} nx__scons;

/* An origin: its strings by index into the scheme's strs (-1: none), so
   that an application copies each distinct string into the session once;
   a name that is the label of a tracing tensor or of a tensor the function
   made is that tensor's, NX__SNAME(ref) (ref: the argument's index, or the
   arity plus the made tensor's), which an application names as it names
   its own tensor. */
#define NX__SNAME(ref) (-2 - (ref))
typedef struct nx__sorigin {
  int operation, lhs, rhs;
  signed char lk, rk;
} nx__sorigin;

/* A generalized variable: a row or dim variable, its name, its flags at
   the end of the trace (bit i: is_param, safe_to_guess, in_pointwise,
   in_spec, hidden_param). */
typedef struct nx__sgen {
  bool is_row;
  unsigned char flags;
  const char *name;
} nx__sgen;

/* A fixed variable whose flags the trace raised. */
typedef struct nx__sflag {
  int var;
  unsigned char flags;
} nx__sflag;

/* A tensor the function made: its rows, in the order it made them. */
typedef struct nx__stensor {
  const char *label;
  int op_len; /* a label made "<operation>#<id>": the operation's length (an application gives its own id); -1: a label given, kept */
  int made; /* its index among every tensor the function made (its id's offset) */
  int rows[3];
  bool is_param;
} nx__stensor;

/* Where a result comes from: a tensor the function made (its index), a
   tracing argument, or a tensor made before the trace. */
typedef struct nx__sresult {
  int made, arg; /* -1 when not that */
  nx_tensor *outside;
} nx__sresult;

struct nx_scheme {
  char *label;
  int arity, nres;
  char *text; /* to_string's */
  const nx_shape_session *session;
  uint64_t session_serial; /* the session's serial: one made later at its address is another */
  int64_t restores; /* the session's restores when the trace ended, its own included */
  int W, T0;        /* the variables and tensors made before the trace: what it may read */
  bool open_fixed;  /* the scheme reads a fixed variable open at the trace */
  int64_t closings; /* the session's closings (solves past stage 1) at the trace */
  nx__sdim *dims;
  int ndims, capdims;
  nx__srow *rows;
  int nrows, caprows;
  int *ints;
  int nints, capints;
  nx__scons *cons;
  int ncons, capcons;
  nx__sorigin *origins;
  int norigins, caporigins;
  const char **strs; /* the origins' strings, each once */
  int nstrs, capstrs;
  nx__sgen *gen;
  int ngen, capgen;
  nx__sflag *flags;
  int nflags, capflags;
  nx__stensor *tensors;
  int ntensors, captensors;
  int (*args)[3];      /* the tracing tensors' rows */
  nx__sresult *results;
  int (*res_rows)[3];  /* the results' rows */
  struct { nx_shape_ref *r; int dim, row; } *refbinds; /* references made before the trace that it bound, in
                                                          order, to a dim or a row of the tables (the other -1) */
  int nrefbinds, caprefbinds;
  int *fixed_open;     /* the fixed variables open at the trace */
  int nfixed_open, capfixed_open;
  struct nx__spool *strings;
  int nmade;              /* the tensors the function made (the ids an application takes) */
  struct nx_scheme *red;  /* the reduced form an application replays, NULL: the full record */
  const char *red_why;    /* why there is none (a static string), NULL when there is */
  struct nx__memo *memo;  /* an application's outcome, reused for ground arguments (scheme_memo.c) */
  bool memo_tried;        /* an application was recorded (memo NULL: its outcome is not reusable) */
  bool memo_checked, memo_fixed; /* whether the record names a fixed variable (then no memo), once found */
};

/* ---- Copying a solved session into a scheme's tables (scheme_copy.c) ---- */
/* A map from a session pointer to a scheme index, open addressing. */
typedef struct {
  const void **k;
  int *v;
  int n, cap;
} nx__pmap;

/* The copying of one trace (or of its reduced form) into sc. */
typedef struct {
  nx_scheme *sc;
  nx_shape_session *s;
  int W;      /* the first variable the trace made */
  int *gmap;  /* variable W + i: its generalized index + 1, 0: not yet */
  bool *seen; /* variable v < W: read by the record (NULL: not noted) */
  nx__pmap dims, rows, strs;
  nx__pmap names; /* a tracing or made tensor's label: its NX__SNAME ref */
  bool nomem, too_big; /* too_big: a concatenation of more than 64 parts, a flank of more than 256 dims or
                          a total over more than 64 rows, beyond what a scheme holds */
} nx__copier;

/* Row r's index in sc's rows (copied there once); c->nomem on out of memory. */
int nx__scheme_copy_row(nx__copier *c, const nx_row *r);
/* The same for dim d. */
int nx__scheme_copy_dim(nx__copier *c, const nx_dim *d);
/* Appends constraint k to sc's record. */
void nx__scheme_copy_cons(nx__copier *c, const nx__cons *k);
void nx__scheme_pmap_free(nx__pmap *m);
/* p's value in m, or -1; m gets p -> v (-1 if memory runs out). */
int nx__scheme_pmap_find(const nx__pmap *m, const void *p);
int nx__scheme_pmap_put(nx__pmap *m, const void *p, int v);
/* Notes the labels of the n tracing tensors and of the nmade tensors the
   function made (s->tensors from T1), so that origins name them by
   reference; c->nomem on out of memory. */
void nx__scheme_note_names(nx__copier *c, nx_tensor *const *args, int n, int T1, int nmade);
/* t, made by the function as its made-th tensor, in sc's table form (rows not set). */
nx__stensor nx__scheme_stensor(nx_scheme *sc, const nx_tensor *t, int made);
/* The first leaf of a derived origin (NULL if none). */
const nx__origin *nx__scheme_leaf_origin(const nx__origin *o);

/* The scheme's own copy of a string (NULL stays NULL). */
const char *nx__scheme_str(nx_scheme *sc, const char *str);
/* Grows a scheme table to hold one more element; -1 if memory runs out. */
int nx__scheme_grow(void **p, int *cap, int n, size_t elem);
#define NX__SGROW(sc, field, nfield, capfield) \
  nx__scheme_grow((void **)&(sc)->field, &(sc)->capfield, (sc)->nfield, sizeof *(sc)->field)

/* Flags of variable e as one byte (see nx__sgen). */
unsigned char nx__scheme_var_flags(const nx__var *e);
void nx__scheme_set_flags(nx__var *e, unsigned char flags);

/* nx_scheme_trace, saying in *carry why a failed trace is one a scheme
   cannot carry (one of the reasons below), or NULL for a shape error (or
   a bad argument, or out of memory). */
int nx__scheme_trace_as(nx_shape_session *s, const char *label, int n, nx_scheme_fn f, void *ctx, nx_scheme **out,
                        const char **carry);
extern const char *const nx__scheme_reason_force, *const nx__scheme_reason_set, *const nx__scheme_reason_tracers;

/* Whether an application would be refused for open state a closing since
   discarded (scheme_apply.c): the scheme is stale, trace again. */
bool nx__scheme_stale(const nx_scheme *sc, nx_shape_session *s);
/* Whether a restore since sc's trace went back below what the trace found
   (a snapshot taken before it restored, an enclosing trace ended): what
   sc reads of the session may be gone, its ids reused. Stale too. */
bool nx__scheme_rewound(const nx_scheme *sc, const nx_shape_session *s);
/* An application's name, whole (malloc'd, NULL when memory runs out):
   application, or the arguments' labels joined by ", " when it is NULL. */
char *nx__scheme_application(const char *application, nx_tensor *const *args, int n);

/* Where the session stood when a trace began: its first variable, its
   tensor count, the undo log's length, the marks' and the deferred
   constraints' counts. */
typedef struct nx__trace_at {
  int W, T0, U0, M0, D0, D0live;
} nx__trace_at;

/* scheme_reduce.c: sc's reduced form (sc->red) from the trace's solved
   session, before the rewind, or the reason there is none (sc->red_why):
   0, or NX_ENOMEM. */
int nx__scheme_reduce(nx_shape_session *s, nx_scheme *sc, const nx__trace_at *at, nx_tensor *const *args, int n,
                      nx_tensor *const *res, int nres);
/* Whether traces build the reduced form (off: see scheme_reduce.c). */
extern bool nx__scheme_reduce_on;

/* scheme_memo.c: the memo of an application to ground arguments (see
   there), a full replay's outcome made again for arguments of the same
   shapes. */
typedef struct nx__memo nx__memo;
#define NX__MEMO_MAXARGS 16
/* Where the session stood when a recorded replay began. */
typedef struct nx__memo_at {
  int V0, L0, B0, T0, id0, S0, U0, D0, WK0, M0, MC0, ML0, LV0[2];
  int64_t P0, N0, C0;
  nx__arena_mark chunks, self_chunks;
  char err[900];
} nx__memo_at;
extern bool nx__scheme_memo_on; /* tests compare applications with it off */
extern long nx__scheme_memo_hits; /* applications made from a memo, for tests */
/* Whether an application of sc to args in s may use or record a memo. */
bool nx__scheme_memo_eligible(const nx_shape_session *s, const nx_scheme *sc, nx_tensor *const *args,
                              nx_tensor *const *results);
/* Whether m was recorded with this prefix and arguments of these shapes. */
bool nx__scheme_memo_matches(const nx__memo *m, const nx_scheme *sc, const char *prefix, nx_tensor *const *args);
void nx__scheme_memo_begin(nx_shape_session *s, nx__memo_at *at);
/* The memo of the replay since at (a snapshot live since then), or NULL
   when its outcome is not one a memo holds, or memory runs out. */
nx__memo *nx__scheme_memo_record(nx_shape_session *s, const nx_scheme *sc, const nx__memo_at *at, const char *prefix,
                                 nx_tensor *const *args, nx_tensor *const *out);
/* Makes m's outcome for args: 0 or NX_ENOMEM. */
int nx__scheme_memo_apply(nx_shape_session *s, const nx__memo *m, nx_tensor *const *args, nx_tensor **out);
void nx__scheme_memo_free(nx__memo *m);
/* "<operation>#<id>" in s's arena, the operation its first nop bytes. */
const char *nx__scheme_id_label(nx_shape_session *s, const char *op, size_t nop, int id);

/* scheme_print.c: to_string's text from the trace's solved session, before
   the rewind; W is the first variable id the trace made. NULL if memory
   runs out. */
char *nx__scheme_print(nx_shape_session *s, const nx_scheme *sc, int W, nx_tensor *const *args, int n,
                       nx_tensor *const *results, int nres);

/* The text of a failure rc of a user's callback (who: "the function", "the
   block") into buf: its message, or, where it set none, that it set none
   (scheme.c). The caller clears the message before the callback runs. */
void nx__scheme_failure_text(int rc, const char *who, char *buf, size_t cap);

/* scheme_stats.c: the process-wide statistics. */
void nx__scheme_count(int kind, int64_t constraints, int64_t ns); /* kind: 0 trace, 1 inst, 2 check, 3 body */
int64_t nx__scheme_now_ns(void);

#endif
