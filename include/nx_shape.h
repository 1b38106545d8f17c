/* SPDX-License-Identifier: Apache-2.0 */
/* nx_shape.h: shape inference over symbolic shapes, after OCANNL's rows,
   dimension and row variables, broadcasting inequalities and staged solver.

   A shape has three rows of axes, batch, input and output, written
   `batch|input->output`. A row is the dims anchored at its left (beg), the
   dims anchored at its right (dims), and between them either a row variable,
   which stands for any number of further axes, or nothing (a closed row). A
   dimension is solved (a size and a basis label: "default", the broadcast top
   "bcast_if_1", or a user label such as "rgb"), a variable, an affine
   `stride*over+offset` (optionally a convolution), or a concatenation.

   Constraints relate dims and rows: equality, and the broadcasting inequality
   res <= opnd ("the result side refines the operand side": equal, or the
   operand is the top 1 of basis bcast_if_1 that stretches to anything).
   Every constraint carries its origin (an operation and its operands), and a
   failure's message ends with the trace of the origins that led to it.

   Memory: everything lives in a session. Dims, rows and tensors made in a
   session are owned by it and stay valid until nx_shape_session_free, which
   frees them all. A session is used by one thread at a time; sessions are
   independent of one another.

   Failures return NX_EINVAL (or NX_ENOMEM) and set nx_error_message()
   (nx_error.h) to "<function>: <reason>; trace: <origins>", where the reason
   begins with OCANNL's wording (e.g. "solved dimensions for axis: different
   bases"). A shape error met while building a tensor or while closing taints
   the session: every later call that solves fails, naming the first error.
   Functions that make values return NULL on failure, with the message set
   (out of memory included). A size past int64 (an affine or convolution
   axis, a concatenation's sum) is a shape error. The library never
   aborts, exits or prints. docs/shapes.md describes the model, the
   constraints of every operation, the stages and every error. */
#ifndef NX_SHAPE_H
#define NX_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nx_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nx_shape_session nx_shape_session;
typedef struct nx_dim nx_dim;
typedef struct nx_row nx_row;
typedef struct nx_tensor nx_tensor;

/* The axis kinds, in notation order. The memory layout is batch, output,
   input. */
enum nx_axis_kind { NX_AXIS_BATCH = 0, NX_AXIS_INPUT = 1, NX_AXIS_OUTPUT = 2 };

/* The solver's stages. Stage 1 runs while tensors are built; closing
   (nx_shape_finish) runs stages 2 to 7. */
enum nx_shape_stage { NX_SHAPE_STAGE1 = 1, NX_SHAPE_STAGE2, NX_SHAPE_STAGE3, NX_SHAPE_STAGE4, NX_SHAPE_STAGE5, NX_SHAPE_STAGE6, NX_SHAPE_STAGE7 };

/* The printing styles of OCANNL's to_string_hum: sizes (`1|784->10,5`), axis
   numbers in the layout and sizes (`0:1|3:784->1:10,2:5`), bases only
   (`default|default->default`), and sizes with projection ids (`width=32p1`:
   the id the latest nx_shape_projections over the tensor gave the axis; an
   axis without one prints its size alone). A variable prints as `$id` or
   `$id:name` in every style. */
enum nx_shape_style { NX_SHAPE_STYLE_SIZE, NX_SHAPE_STYLE_AXIS_NUMBER_AND_SIZE, NX_SHAPE_STYLE_ONLY_BASES, NX_SHAPE_STYLE_PROJECTION_AND_SIZE };

/* Where a constraint comes from: the operation (may be NULL) and the two
   shapes it relates, by name and kind. Strings are copied into the session. */
typedef struct nx_shape_origin {
  const char *operation;
  const char *lhs_name;
  enum nx_axis_kind lhs_kind;
  const char *rhs_name;
  enum nx_axis_kind rhs_kind;
} nx_shape_origin;

/* ---- Sessions -------------------------------------------------------- */

/* nx_shape_session_new(&s) makes an empty session.
   Fails with NX_ENOMEM if memory runs out. */
NX_API int nx_shape_session_new(nx_shape_session **s);

/* nx_shape_session_free(s) frees s and everything made in it. NULL is a
   no-op. */
NX_API void nx_shape_session_free(nx_shape_session *s);

/* The number of constraints the session has processed so far (each one
   handled by the solver, including those it re-emits). Never fails but on
   a NULL session: 0, with the message set. */
NX_API int64_t nx_shape_constraint_count(const nx_shape_session *s);

/* The number of constraints held undecided after the last solve (deferred
   for a later stage or for more bindings). Closing fails if any are left
   after stage 7. Fails with NX_EINVAL on a NULL session. */
NX_API int nx_shape_deferred_count(const nx_shape_session *s);

/* ---- Snapshots and id ranges ------------------------------------------ */

/* A snapshot of a session's whole solver state: its variables and their
   solutions, bounds and flags, the pending, deferred and held constraints
   and marks, the tensors and their rows, the id counters, the taint and the
   last error. Taking one costs O(1) in the session's variables (it copies
   the pending constraints and the held pools' 8 bytes per entry); while a
   snapshot is live every change to older state is logged, and restoring
   costs what changed since it was taken. */
typedef struct nx_shape_snapshot nx_shape_snapshot;

/* nx_shape_snapshot_take(s, &snap) takes a snapshot of s's state now.
   Fails with NX_EINVAL on a NULL argument, NX_ENOMEM when memory runs out. */
NX_API int nx_shape_snapshot_take(nx_shape_session *s, nx_shape_snapshot **snap);

/* nx_shape_snapshot_restore(s, snap) puts s back in the state snap was
   taken in, bit for bit (nx_shape_dump prints the same text). Dims, rows
   and tensors made since are gone (their pointers dangle), and ids given
   since are given again. Snapshots nest: snap stays live (it may be
   restored again), and those taken after it end (restoring one fails; free
   them). Fails, changing nothing, with NX_EINVAL on a NULL argument or a
   snapshot that is not live in s (another session's, or ended), and with
   NX_ENOMEM when memory runs out (also when a change since snap could not
   be logged for want of memory). */
NX_API int nx_shape_snapshot_restore(nx_shape_session *s, const nx_shape_snapshot *snap);

/* nx_shape_snapshot_free(snap) frees snap (live or ended, before or after
   its session). When the last live snapshot of a session goes, logging
   stops. NULL is a no-op. */
NX_API void nx_shape_snapshot_free(nx_shape_snapshot *snap);

/* The ids a session gives next: the next variable id (dim or row) and the
   next tensor id. */
typedef struct nx_shape_ids {
  int var, tensor;
} nx_shape_ids;

/* A block of ids, lo inclusive and hi exclusive. */
typedef struct nx_shape_id_range {
  int var_lo, var_hi, tensor_lo, tensor_hi;
} nx_shape_id_range;

/* nx_shape_ids_next(s, &next) reads the ids s gives next (a watermark:
   every id at or past it was made later). Fails with NX_EINVAL on a NULL
   argument. */
NX_API int nx_shape_ids_next(const nx_shape_session *s, nx_shape_ids *next);

/* nx_shape_ids_reserve(s, nvars, ntensors, &r) takes a block of nvars
   variable ids and ntensors tensor ids from s's counters now, for a trace:
   while the block is entered (nx_shape_ids_enter) new variables and tensors
   take its ids, so a trace run inside it moves no id made outside it. Fails
   with NX_EINVAL on a NULL argument, a negative count, a block past the
   int id space or of more than 2^24 variables, NX_ENOMEM when memory runs
   out. */
NX_API int nx_shape_ids_reserve(nx_shape_session *s, int nvars, int ntensors, nx_shape_id_range *r);

/* nx_shape_ids_enter(s, r) makes new variables and tensors take the ids of
   r in order; when r's ids of a kind run out, they come from the session's
   counter again. nx_shape_ids_leave(s, &rest) ends that and sets rest (may
   be NULL) to the unused part of the block. A snapshot restores whether a
   block is entered and how far. Fail with NX_EINVAL on a NULL session or
   range, on entering while a block is entered or a range s did not reserve
   (outside its counters), and on leaving when none is entered. */
NX_API int nx_shape_ids_enter(nx_shape_session *s, const nx_shape_id_range *r);
NX_API int nx_shape_ids_leave(nx_shape_session *s, nx_shape_id_range *rest);

/* nx_shape_dump(s, buf, cap) writes the canonical text of s's whole solver
   state (as a snapshot holds it: every variable's record, solution and
   bounds, the constraints and marks, the tensors' rows and the counters,
   printed structurally, never substituted), at most cap bytes with the NUL,
   and returns its full length (call it with cap 0 to size the buffer). It
   changes nothing in s. Fails with NX_EINVAL on a NULL session, or a NULL
   buf with cap > 0. */
NX_API int64_t nx_shape_dump(nx_shape_session *s, char *buf, size_t cap);

/* ---- Dimensions and rows --------------------------------------------- */

/* The reserved bases. */
#define NX_BASIS_DEFAULT "default"
#define NX_BASIS_BCAST "bcast_if_1"

/* nx_dim_solved(s, d, basis) is the solved dim of size d >= 0 and basis
   (NULL for "default"). NULL if d < 0 or memory runs out. */
NX_API const nx_dim *nx_dim_solved(nx_shape_session *s, int64_t d, const char *basis);

/* nx_dim_top(s) is 1 of basis bcast_if_1, the broadcast top. NULL (the
   message set) only for a NULL session. */
NX_API const nx_dim *nx_dim_top(nx_shape_session *s);

/* nx_dim_var(s, name) is a fresh dimension variable; name may be NULL.
   NULL on a NULL session or when memory runs out. */
NX_API const nx_dim *nx_dim_var(nx_shape_session *s, const char *name);

/* nx_dim_affine(s, stride, over, offset) is the affine dim stride*over+offset
   (its size is stride times over's). NULL if s or over is NULL, stride < 1,
   offset < 0, or memory runs out. */
NX_API const nx_dim *nx_dim_affine(nx_shape_session *s, int64_t stride, const nx_dim *over, int64_t offset);

/* nx_dim_conv(s, stride, over, offset, dilation, kernel, use_padding) is a
   convolution axis: its size is stride*over with padding, and
   stride*(over-1)+1+(kernel-1)*dilation without; kernel NULL is none (an
   affine dim). NULL if s or over is NULL, stride < 1, offset < 0, dilation
   < 1 with a kernel, or memory runs out. */
NX_API const nx_dim *nx_dim_conv(nx_shape_session *s, int64_t stride, const nx_dim *over, int64_t offset,
                                 int64_t dilation, const nx_dim *kernel, bool use_padding);

/* nx_dim_concat(s, parts, n) is the concatenation of n >= 1 dims; its size
   is the sum of theirs. NULL if s, parts or a part is NULL, n < 1, or
   memory runs out. */
NX_API const nx_dim *nx_dim_concat(nx_shape_session *s, const nx_dim *const *parts, int n);

/* nx_row_var_new(s, name) is a fresh row variable's id (> 0). Fails with
   NX_EINVAL on a NULL session, NX_ENOMEM when memory runs out. */
NX_API int nx_row_var_new(nx_shape_session *s, const char *name);

/* nx_row_make(s, beg, nbeg, dims, ndims, var) is the row beg..<var>..dims,
   closed when var is 0. NULL if s is NULL, a count is negative, a list or a
   dim is NULL, var is not a row variable of s, or memory runs out. */
NX_API const nx_row *nx_row_make(nx_shape_session *s, const nx_dim *const *beg, int nbeg, const nx_dim *const *dims,
                                 int ndims, int var);

/* ---- Constraints and the solver --------------------------------------- */

/* Each nx_shape_add_* adds one constraint to the session's pending list,
   with its origin (NULL for none); nx_shape_solve processes them. They fail
   only with NX_EINVAL on a NULL argument (and a negative total or count,
   for those that take one), or NX_ENOMEM when memory runs out; a shape
   error is found by the solve that processes the constraint. */
NX_API int nx_shape_add_dim_eq(nx_shape_session *s, const nx_dim *a, const nx_dim *b, const nx_shape_origin *o);
NX_API int nx_shape_add_dim_ineq(nx_shape_session *s, const nx_dim *res, const nx_dim *opnd, const nx_shape_origin *o);
NX_API int nx_shape_add_row_eq(nx_shape_session *s, const nx_row *a, const nx_row *b, const nx_shape_origin *o);
NX_API int nx_shape_add_row_ineq(nx_shape_session *s, const nx_row *res, const nx_row *opnd, const nx_shape_origin *o);
/* d's size is at least n. */
NX_API int nx_shape_add_at_least(nx_shape_session *s, const nx_dim *d, int64_t n, const nx_shape_origin *o);
/* The concatenation of the n rows has `total` elements. */
NX_API int nx_shape_add_total_elems(nx_shape_session *s, const nx_row *const *rows, int n, int64_t total,
                                    const nx_shape_origin *o);
/* The concatenation of the n rows has as many elements as d is long (OCANNL's
   total-elements constraint with a variable numerator, which relating a dim
   and a row reference makes): from stage 2 a solved d is a total of that
   many elements, and rows closed with solved dims solve d as their product;
   at stage 6 rows whose dims are solved close their row variables empty, d
   taking the product. Closing never guesses d itself. */
NX_API int nx_shape_add_total_dim(nx_shape_session *s, const nx_row *const *rows, int n, const nx_dim *d,
                                  const nx_shape_origin *o);
/* The concatenation of the n rows is exactly the ndims dims. */
NX_API int nx_shape_add_exact(nx_shape_session *s, const nx_row *const *rows, int n, const nx_dim *const *dims,
                              int ndims, const nx_shape_origin *o);
/* Marks: a leaf's dim or row (closed downward, to its lower bound, from
   stages 3-5; a parameter's must be inferable), and an interior row (closed
   at stages 6-7). */
NX_API int nx_shape_add_terminal_dim(nx_shape_session *s, bool is_param, const nx_dim *d, const nx_shape_origin *o);
NX_API int nx_shape_add_terminal_row(nx_shape_session *s, bool is_param, const nx_row *r, const nx_shape_origin *o);
NX_API int nx_shape_add_shape_row(nx_shape_session *s, const nx_row *r, const nx_shape_origin *o);

/* nx_shape_solve(s, stage) processes the pending constraints, and those
   deferred earlier, at that stage, and keeps what cannot be decided yet for
   later calls. Marks are kept until the stage that closes them.
   Fails with NX_EINVAL and the solver's message on a shape error (then the
   session is tainted), or if stage is not 1..7. */
NX_API int nx_shape_solve(nx_shape_session *s, int stage);

/* nx_shape_dim_value(s, d, &size, &basis) sets size and basis (a string the
   session owns) to d's solution and returns 0, or returns NX_NONE if d is
   not solved yet. size and basis may each be NULL, to read only the other.
   Fails with NX_EINVAL on a NULL argument, and (tainting the
   session) if d's size is past int64 (e.g. 2*k with k = INT64_MAX). */
NX_API int nx_shape_dim_value(nx_shape_session *s, const nx_dim *d, int64_t *size, const char **basis);

/* nx_shape_row_subst(s, r) is r under the current solution. NULL on a NULL
   argument; out of memory leaves parts unsubstituted (never NULL). */
NX_API const nx_row *nx_shape_row_subst(nx_shape_session *s, const nx_row *r);

/* Reading a row: its flank lengths, a dim of either flank, and its row
   variable (0 when closed). A NULL row reads as closed and empty (0 or
   NULL) with the message set; an index out of range gives NULL, the
   message naming the function and the index. */
NX_API int nx_row_beg_count(const nx_row *r);
NX_API int nx_row_dims_count(const nx_row *r);
NX_API const nx_dim *nx_row_beg_dim(const nx_row *r, int i);
NX_API const nx_dim *nx_row_dim(const nx_row *r, int i);
NX_API int nx_row_var(const nx_row *r);

/* nx_row_to_string(s, r, buf, cap) writes r under the solution as
   `3,..v..,7` (..v.. only for an open row; dims as in nx_tensor_to_string)
   and returns the length. Fails with NX_EINVAL on a NULL s or r, a NULL buf
   with cap > 0, or a cap too small for the text and its NUL (buf then holds
   a truncated prefix). */
NX_API int nx_row_to_string(nx_shape_session *s, const nx_row *r, char *buf, size_t cap);

/* ---- Reading the solver's state ---------------------------------------- */

/* The kinds of dims, as nx_dim_read reads them. */
enum nx_dim_kind { NX_DIM_SOLVED = 0, NX_DIM_VAR, NX_DIM_AFFINE, NX_DIM_CONCAT };

/* A dim's structure, as made (not under the solution). */
typedef struct nx_dim_parts {
  enum nx_dim_kind kind;
  int64_t size;      /* solved */
  const char *basis; /* solved: a string the session owns */
  int var;           /* var: its id */
  int64_t stride, offset, dilation; /* affine (dilation 1 without a kernel) */
  const nx_dim *over, *kernel;      /* affine: kernel NULL unless a convolution */
  bool use_padding;                 /* affine */
  const nx_dim *const *parts;       /* concat */
  int nparts;                       /* concat */
} nx_dim_parts;

/* nx_dim_read(d, &parts) reads d's structure. Fails with NX_EINVAL on a
   NULL argument. */
NX_API int nx_dim_read(const nx_dim *d, nx_dim_parts *parts);

/* nx_dim_var_id(d) is the id of dimension variable d (as made, not under
   the solution), or 0 if d is not a variable; 0 with the message set for
   NULL. A row variable's id is nx_row_var's. */
NX_API int nx_dim_var_id(const nx_dim *d);

/* nx_shape_dim_subst(s, d) is d under the current solution. NULL on a NULL
   argument; out of memory leaves parts unsubstituted (never NULL). */
NX_API const nx_dim *nx_shape_dim_subst(nx_shape_session *s, const nx_dim *d);

/* The constraints a session still holds: pending (added, not solved yet),
   deferred (undecided at the last solve: nx_shape_deferred_count of them)
   and marks (terminal and interior marks kept for the stage that closes
   them). Everything else the solver was given is solved: folded into the
   solution and the variables' bounds. */
enum nx_shape_constraint_state { NX_SHAPE_PENDING = 0, NX_SHAPE_DEFERRED, NX_SHAPE_MARK };

enum nx_shape_constraint_kind {
  NX_SHAPE_DIM_EQ = 0,   /* a = b */
  NX_SHAPE_DIM_INEQ,     /* a <= b (a refines b) */
  NX_SHAPE_ROW_EQ,       /* ra = rb */
  NX_SHAPE_ROW_INEQ,     /* ra <= rb */
  NX_SHAPE_AT_LEAST,     /* a's size >= n */
  NX_SHAPE_TOTAL,        /* rows hold n elements */
  NX_SHAPE_EXACT,        /* rows are exactly dims */
  NX_SHAPE_TERMINAL_DIM, /* a leaf's dim a */
  NX_SHAPE_TERMINAL_ROW, /* a leaf's row ra */
  NX_SHAPE_SHAPE_ROW,    /* an interior row ra */
  NX_SHAPE_TOTAL_DIM     /* rows hold as many elements as dim a is long */
};

/* One constraint, its dims and rows as given (read them under the solution
   with nx_shape_dim_subst and nx_shape_row_subst). Fields a kind does not
   use are NULL or 0. */
typedef struct nx_shape_constraint {
  enum nx_shape_constraint_kind kind;
  enum nx_shape_constraint_state state; /* nx_shape_add_constraint ignores it */
  bool is_param;                        /* terminal marks: of a parameter */
  const nx_dim *a, *b;                  /* dim constraints; at least, terminal dim and total dim: a */
  const nx_row *ra, *rb;                /* row constraints; row marks: ra */
  const nx_row *const *rows;            /* total, total dim, exact */
  int nrows;
  const nx_dim *const *dims; /* exact */
  int ndims;
  int64_t n;                 /* at least, total */
  const nx_tensor *tensor;   /* row marks of a tensor's row, else NULL */
  enum nx_axis_kind tensor_kind;
  const char *operation; /* the operation of its latest origin, NULL if none */
} nx_shape_constraint;

/* Where an iteration over the held constraints is; zero it to start. */
typedef struct nx_shape_cursor {
  int part, pos;
} nx_shape_cursor;

/* nx_shape_next_constraint(s, &cur, &c) reads the next constraint s holds:
   the pending ones, then the deferred, then the marks, each in their order
   of arrival. Returns 0, or NX_NONE past the last. The pointers in c stay
   valid while s lives (not past a restore to an earlier snapshot). Fails
   with NX_EINVAL on a NULL argument. */
NX_API int nx_shape_next_constraint(nx_shape_session *s, nx_shape_cursor *cur, nx_shape_constraint *c);

/* nx_shape_add_constraint(s, c, o) adds a copy of c (a constraint read by
   nx_shape_next_constraint, or filled in) to the pending list, with origin
   o (NULL: none). Fails with NX_EINVAL on a NULL s or c, an unknown kind, or
   a dim, row or list the kind needs that is NULL (or a negative count or
   total); NX_ENOMEM when memory runs out. */
NX_API int nx_shape_add_constraint(nx_shape_session *s, const nx_shape_constraint *c, const nx_shape_origin *o);

/* What the solver knows of a variable. */
typedef struct nx_shape_var_info {
  int id;
  bool is_row;
  const char *name;  /* NULL if none */
  bool solved;
  const nx_dim *dim; /* dims: the solution (substituted), NULL while unsolved */
  const nx_row *row; /* rows: the solution (substituted), NULL while unsolved */
  const nx_dim *lower; /* dims: the join of its ground lower bounds (lower <= v), NULL if none */
  int64_t at_least;    /* dims: the size it must reach, 0 if none */
  int nupper, nlower;  /* the variables recorded above it (v <= w) and below it (u <= v) */
  int nlower_rows;     /* rows: its live lower bounds (row <= <v>) */
  bool is_param;       /* a parameter's: its size must be inferred */
  bool in_pointwise;   /* used by a pointwise operation */
  bool in_spec;        /* used by an einsum spec or a compose */
  bool is_template;    /* made by broadcasting (a result's extra axes): safe to guess */
  bool is_hidden;      /* a parameter's unknown row, which gets one hidden axis */
} nx_shape_var_info;

/* nx_shape_var_read(s, id, &info) reads variable id of s. Fails with
   NX_EINVAL on a NULL argument or an id that is not a variable of s. */
NX_API int nx_shape_var_read(nx_shape_session *s, int id, nx_shape_var_info *info);

/* nx_shape_var_neighbours(s, id, upper, ids, cap) writes the ids of the
   variables recorded above id (upper: id <= w) or below it (u <= id), up to
   cap of them, in the order recorded, and returns how many there are (read
   each under the solution: a neighbour may have been bound since).
   nx_shape_var_lower_rows(s, id, rows, cap) does the same for the live lower
   bounds of row variable id (0 for a dim variable). Fail with NX_EINVAL on
   a NULL s, a NULL list with cap > 0, a negative cap or an id that is not a
   variable of s. */
NX_API int nx_shape_var_neighbours(nx_shape_session *s, int id, bool upper, int *ids, int cap);
NX_API int nx_shape_var_lower_rows(nx_shape_session *s, int id, const nx_row **rows, int cap);

/* A renaming: a set of variables, each with a fresh one of its own. */
typedef struct nx_shape_renaming nx_shape_renaming;

/* nx_shape_rename_new(s, ids, n, &r) makes a fresh variable for each of the
   n ids (the same kind and name, a new id), consistently: each fresh one
   gets its original's flags, and its original's bounds, renamed, as
   pending constraints (a solution as an equation, the ground lower bound,
   at-least, the recorded neighbours, the lower bound rows of a row
   variable: a neighbour or a variable inside a bound that is in the set is
   its fresh one). Solve at stage 1 to apply them. Fails with NX_EINVAL on a
   NULL argument, a negative n, or an id that is not a variable of s;
   NX_ENOMEM when memory runs out. */
NX_API int nx_shape_rename_new(nx_shape_session *s, const int *ids, int n, nx_shape_renaming **r);

/* nx_shape_rename_var(r, id) is id's fresh variable, or id if it is not in
   the set; 0 with the message set for NULL r. */
NX_API int nx_shape_rename_var(const nx_shape_renaming *r, int id);

/* nx_shape_rename_dim(s, r, d) and nx_shape_rename_row(s, r, row) are d and
   row under the current solution with every variable of the set replaced by
   its fresh one, inside affine, convolution and concatenated dims too.
   NULL on a NULL argument or when memory runs out. */
NX_API const nx_dim *nx_shape_rename_dim(nx_shape_session *s, const nx_shape_renaming *r, const nx_dim *d);
NX_API const nx_row *nx_shape_rename_row(nx_shape_session *s, const nx_shape_renaming *r, const nx_row *row);

/* nx_shape_add_renamed(s, r, c, o) adds c with its dims and rows renamed by
   r (as nx_shape_rename_dim does). Fails as nx_shape_add_constraint does,
   and with NX_EINVAL on a NULL r. */
NX_API int nx_shape_add_renamed(nx_shape_session *s, const nx_shape_renaming *r, const nx_shape_constraint *c,
                                const nx_shape_origin *o);

/* nx_shape_rename_free(r) frees r (the fresh variables stay). NULL is a
   no-op. */
NX_API void nx_shape_rename_free(nx_shape_renaming *r);

/* ---- Symbolic tensors -------------------------------------------------- */

/* Dims are written as text in these calls: a comma-separated list of axes,
   each a size (`784`) or a labelled size (`rgb=3`). NULL for a row to infer
   (an open row), "" for a closed empty row. */

/* Every function that makes a tensor fails with NX_EINVAL on a NULL session,
   operand or result pointer, or when the session is tainted (naming its
   first error), and with NX_ENOMEM when memory runs out; the shape error
   its constraints meet at stage 1 fails it too, tainting the session.
   *t is set only on success. */

/* nx_tensor_term(s, label, batch, input, output, &t) makes a leaf tensor (a
   constant or data) with the given rows.
   Fails also if an axis list is malformed (its position is named). */
NX_API int nx_tensor_term(nx_shape_session *s, const char *label, const char *batch, const char *input,
                          const char *output, nx_tensor **t);

/* nx_tensor_param(s, label, input, output, &t) makes a parameter: its batch
   row is closed and empty; rows given as NULL are inferred from its uses,
   and closing fails with "You forgot to specify the hidden dimension(s) ..."
   if they cannot be. Fails also if an axis list is malformed. */
NX_API int nx_tensor_param(nx_shape_session *s, const char *label, const char *input, const char *output,
                           nx_tensor **t);

/* nx_tensor_fill(s, label, total, batch, input, output, &t) makes a leaf that
   holds `total` elements (a reshape or a constant fill): the product of its
   dims is total, so one unknown dim or row is deduced. Fails also if total
   is negative or an axis list is malformed. */
NX_API int nx_tensor_fill(nx_shape_session *s, const char *label, int64_t total, const char *batch,
                          const char *input, const char *output, nx_tensor **t);

/* nx_tensor_param_fill(s, label, total, input, output, &t) is a parameter
   (as nx_tensor_param) that also holds `total` elements (its values are
   given): one inferred dim or row of it is deduced from the product.
   Fails as nx_tensor_param, and on total < 0. */
NX_API int nx_tensor_param_fill(nx_shape_session *s, const char *label, int64_t total, const char *input,
                                const char *output, nx_tensor **t);

/* nx_tensor_of_spec(s, label, spec, is_param, total, &t) is a leaf (a
   parameter if is_param) whose shape is an OCANNL shape spec, as
   Shape.of_spec reads it: `batch|input->output` rows as in einsum specs,
   where a number is an axis of that size, a label a dim variable (one per
   name: nx_tensor_spec_dim(t, name) reads it), `l=5` an axis of size 5,
   `...` and `..rho..` row variables, e.g. "3, ..rho.., 7" (3 anchored left,
   7 right). total >= 0 also makes it hold total elements (a fill); -1
   none. Fails with NX_EINVAL on a NULL argument, total < -1, a malformed
   spec ("Invalid einsum spec at position N: ..."), a name used as a dim
   and a row variable, or a shape error. */
NX_API int nx_tensor_of_spec(nx_shape_session *s, const char *label, const char *spec, bool is_param, int64_t total,
                             nx_tensor **t);

/* Pointwise operations: the result broadcasts the operands (res <= each
   operand, kind by kind). op names the operation in traces. */
NX_API int nx_tensor_unary(nx_shape_session *s, const char *op, nx_tensor *a, nx_tensor **t);
NX_API int nx_tensor_binary(nx_shape_session *s, const char *op, nx_tensor *a, nx_tensor *b, nx_tensor **t);
NX_API int nx_tensor_ternary(nx_shape_session *s, const char *op, nx_tensor *a, nx_tensor *b, nx_tensor *c,
                             nx_tensor **t);

/* nx_tensor_compose(s, a, b, &t) is a*b, matrix-multiplication-like: b's
   output meets a's input (a_I <= b_O), and t has a's output, b's input and
   the broadcast of both batches. nx_tensor_compose_accumulate also
   broadcasts t against d (the accumulator). */
NX_API int nx_tensor_compose(nx_shape_session *s, nx_tensor *a, nx_tensor *b, nx_tensor **t);
NX_API int nx_tensor_compose_accumulate(nx_shape_session *s, nx_tensor *a, nx_tensor *b, nx_tensor *d,
                                        nx_tensor **t);

/* nx_tensor_transpose(s, a, &t) swaps input and output. */
NX_API int nx_tensor_transpose(nx_shape_session *s, nx_tensor *a, nx_tensor **t);

/* nx_tensor_batch_slice(s, a, &t) drops a's leftmost batch axis. */
NX_API int nx_tensor_batch_slice(nx_shape_session *s, nx_tensor *a, nx_tensor **t);

/* The most operands an einsum or a stack takes. */
#define NX_SHAPE_MAX_OPERANDS 16

/* nx_tensor_einsum(s, spec, args, n, &t) applies an OCANNL spec with n = 1
   (a permute) to NX_SHAPE_MAX_OPERANDS operands: "ab|cd->ef => cf|ae->db",
   "ab;bc=>ac", "ii; jj; kk; ll => ii^jj^kk^ll" (a block tensor). An
   axis is a letter, or, in multi-character mode (a spec holding any of
   , * + ^ & < or an '=' not in "=>"), a comma-separated identifier; a fixed
   index (a run of digits), `stride*o+offset`, a convolution
   `stride*o=+dilation*k` (`=` pads, `<` does not), `a^b`; `...` and `..r..` stand for
   row variables. Rows are equal to the spec's (no broadcasting). Labels and
   names may be of any length.
   Fails, without tainting the session, with "Invalid einsum spec ..."
   naming the position if the spec is malformed or its operand count is not
   n, and with "Name 'x' is used as both a dimension variable and a row
   variable in spec: ..." if a name is both; on shape errors (tainting). */
NX_API int nx_tensor_einsum(nx_shape_session *s, const char *spec, nx_tensor *const *args, int n,
                            nx_tensor **t);

/* nx_tensor_concat(s, spec, args, n, &t) is OCANNL's `++^` (a block): the
   einsum of spec over n operands, typically concatenating axes with `^`
   ("a; b => a^b"). It is nx_tensor_einsum but for one wording: a spec whose
   operand count is not n fails with "Invalid block spec (expected n
   arguments): spec" whatever n (nx_tensor_einsum words n = 1 to 3 as a
   permutation or an einsum spec). Fails as nx_tensor_einsum otherwise, its
   messages naming this function. */
NX_API int nx_tensor_concat(nx_shape_session *s, const char *spec, nx_tensor *const *args, int n, nx_tensor **t);

/* nx_tensor_stack(s, kind, args, n, &t) stacks the n operands (1 to
   NX_SHAPE_MAX_OPERANDS) on a new leading axis of that kind, as OCANNL's
   Operation.stack: each gains the axis by a fixed index 0, and the parts are
   concatenated on it, so t's new axis has size n when each part's is 1.
   Fails with NX_EINVAL on a NULL argument, n < 1 ("empty operands"), too
   many operands, a bad kind, or a shape error of the einsums it applies
   (as nx_tensor_einsum, named for this function). */
NX_API int nx_tensor_stack(nx_shape_session *s, enum nx_axis_kind kind, nx_tensor *const *args, int n,
                           nx_tensor **t);

/* nx_tensor_spec_dim(t, label) is the dim variable that label stood for in
   the spec that made t (a capture), or NULL; nx_tensor_spec_row(t, name) is
   the row of the row variable ..name.. (or of `...` in a kind: "batch",
   "input", "output"), or NULL (without a message: the spec had no such
   name, or t is not an einsum). NULL with the message set when t or the
   name is NULL. */
NX_API const nx_dim *nx_tensor_spec_dim(const nx_tensor *t, const char *label);
NX_API const nx_row *nx_tensor_spec_row(const nx_tensor *t, const char *name);

/* nx_tensor_set_dim(s, d, size) solves dim variable d to size (default
   basis); nx_tensor_set_row_total(s, r, total) constrains row r to hold
   `total` elements. Both solve at stage 1. Fail with NX_EINVAL on a NULL
   argument, a negative size or total, a tainted session, or a shape error
   (tainting); NX_ENOMEM when memory runs out. */
NX_API int nx_tensor_set_dim(nx_shape_session *s, const nx_dim *d, int64_t size);
NX_API int nx_tensor_set_row_total(nx_shape_session *s, const nx_row *r, int64_t total);

/* nx_tensor_set_equal(s, a, b) makes a's and b's shapes equal, kind by
   kind, and solves at stage 1. Fails as nx_tensor_set_dim does. */
NX_API int nx_tensor_set_equal(nx_shape_session *s, nx_tensor *a, nx_tensor *b);

/* ---- Delayed variable references ------------------------------------- */

/* A reference to a spec label that an einsum binds later (OCANNL's
   get_variable_ref): a dim label, or a row variable's name. Sizes set on it
   before the binding are kept and applied when it comes. Owned by the
   session. */
typedef struct nx_shape_ref nx_shape_ref;

/* nx_shape_ref_new(s, label) is a fresh, unbound reference to label.
   NULL (message set) on a NULL argument or when memory runs out. */
NX_API nx_shape_ref *nx_shape_ref_new(nx_shape_session *s, const char *label);

/* nx_shape_ref_label(r) is r's label; NULL, with the message set, for a
   NULL r. */
NX_API const char *nx_shape_ref_label(const nx_shape_ref *r);

/* The padding of a convolution axis written without '=' or '<'. */
enum nx_padding { NX_PADDING_UNSPECIFIED = 0, NX_PADDING_TRUE, NX_PADDING_FALSE };

/* What nx_tensor_einsum_ex adds to a spec (zero-initialised: nothing).
   values: the integer values of identifiers used as strides or dilations
   (`stride*oh+kh` with stride = 2), as OCANNL's syntax extension
   substitutes them. use_padding: for convolution axes without a marker
   (OCANNL's `use_padding` argument); unspecified makes such an axis an
   error. refs: references to bind to the spec's labels of their names. */
typedef struct nx_einsum_options {
  int nvalues;
  const char *const *names;
  const int64_t *values;
  enum nx_padding use_padding;
  int nrefs;
  nx_shape_ref *const *refs;
} nx_einsum_options;

/* nx_tensor_einsum_ex(s, spec, opt, args, n, &t) is nx_tensor_einsum with
   the options opt (NULL: none): identifier strides and dilations, the
   padding of unmarked convolution axes, and references, each bound to the
   dim or row variable its label names in spec (OCANNL's captured dims), a
   size known on it applied (a dim's size, a row's total elements).
   Fails as nx_tensor_einsum (its messages naming this function), with
   "Invalid stride value (expected integer): x" for an identifier with no
   value, "use_padding must be specified in convolution spec" for an
   unmarked convolution axis without a default; with "Variable L not found
   in environments for spec: ..." if a reference's label is in no operand
   of spec (the einsum's constraints are then kept, t is not set); on a
   shape error of a size applied. */
NX_API int nx_tensor_einsum_ex(nx_shape_session *s, const char *spec, const nx_einsum_options *opt,
                               nx_tensor *const *args, int n, nx_tensor **t);

/* nx_tensor_concat_ex(s, spec, opt, args, n, &t) is nx_tensor_concat with
   the options of nx_tensor_einsum_ex (NULL: none; OCANNL's `++^` with
   captured dims).
   Fails as nx_tensor_einsum_ex, with nx_tensor_concat's arity wording, its
   messages naming this function. */
NX_API int nx_tensor_concat_ex(nx_shape_session *s, const char *spec, const nx_einsum_options *opt,
                               nx_tensor *const *args, int n, nx_tensor **t);

/* nx_shape_ref_value(s, r, &size) sets size to r's known size and returns
   0, or returns NX_NONE: the size set on r, else its bound variable's
   solution (a row's element count once closed and solved). Fails with
   NX_EINVAL on a NULL argument. */
NX_API int nx_shape_ref_value(nx_shape_session *s, const nx_shape_ref *r, int64_t *size);

/* nx_shape_ref_set_dim(s, r, size) is OCANNL's Shape.set_dim: the size of a
   dim reference, the total elements of a row reference, kept until an
   einsum binds an unbound one.
   Fails with NX_EINVAL: "Cannot set dimension for variable reference with
   label L" if r's known size differs, a negative size, a NULL argument, or
   a shape error of applying it. */
NX_API int nx_shape_ref_set_dim(nx_shape_session *s, nx_shape_ref *r, int64_t size);

/* nx_shape_ref_set_equal(s, a, b) is OCANNL's Shape.set_equal: with both
   sizes known they must agree; with one known, the other is set to it;
   else two bound dims (or two bound rows) are made equal, and a bound dim
   and a bound row are related as OCANNL relates them: the row holds as
   many elements as the dim is long (nx_shape_add_total_dim; decided from
   stage 2, so by nx_shape_finish).
   Fails with NX_EINVAL: "Cannot set equal dimensions for variable
   references with different values", "set_equal: insufficient information
   between labels A and B" (one unbound, neither size known), a NULL
   argument, or a shape error. */
NX_API int nx_shape_ref_set_equal(nx_shape_session *s, nx_shape_ref *a, nx_shape_ref *b);

/* nx_shape_ref_set_scale(s, factor, large, small) is OCANNL's
   Shape.set_scale: large = factor * small, for dim references; decided at
   once where sizes are known, else an equation with the affine dim
   factor*small.
   Fails with NX_EINVAL and OCANNL's messages: "factor must be >= 1",
   "requires two dimension variables" (a row reference), "dimensions do not
   satisfy d_large = factor * d_small", "solved dimension N for L is not
   divisible by factor F", "insufficient information between labels"; a
   NULL argument, or a shape error. */
NX_API int nx_shape_ref_set_scale(nx_shape_session *s, int64_t factor, nx_shape_ref *large, nx_shape_ref *small);

/* nx_tensor_row(t, kind) is t's row of that kind, as built (read it under the
   solution with nx_shape_row_subst); nx_tensor_label(t) its label. NULL for
   a NULL tensor or a kind out of range, the message set. */
NX_API const nx_row *nx_tensor_row(const nx_tensor *t, enum nx_axis_kind kind);
NX_API const char *nx_tensor_label(const nx_tensor *t);

/* Which of closing's marks act on a tensor: its terminal marks (a leaf's
   rows close downward to their lower bounds at stages 3 to 5) and its
   interior marks (every tensor's rows close at stages 6 and 7). Both by
   default. */
enum { NX_TENSOR_TERMINAL = 1, NX_TENSOR_CLOSING = 2 };

/* nx_tensor_set_marks(s, t, marks) makes only the marks in `marks` (a
   combination of the two above) act on t from now on, so that
   nx_shape_finish leaves a tensor without them open, as far as nothing else
   decides its dims (a snapshot restores the setting). nx_tensor_marks(t) is
   the current setting (0 with the message set for NULL). Fails with
   NX_EINVAL on a NULL argument or unknown bits. */
NX_API int nx_tensor_set_marks(nx_shape_session *s, nx_tensor *t, unsigned marks);
NX_API unsigned nx_tensor_marks(const nx_tensor *t);

/* nx_shape_finish(s) closes inference: stages 2 to 7 over every constraint
   and mark, after which every shape of s is solved (closed rows, solved
   dims), but what only the marks turned off by nx_tensor_set_marks would
   have decided. Fails with NX_EINVAL on a NULL session, a tainted one, the first
   shape error (tainting), or constraints left unsolved after stage 7;
   NX_ENOMEM when memory runs out. */
NX_API int nx_shape_finish(nx_shape_session *s);

/* nx_tensor_to_string(s, t, style, buf, cap) writes t's shape under the
   current solution as OCANNL's to_string_hum does: rows joined by `|` and
   `->`, an empty batch or input row left out; each dim as OCANNL's
   dim_to_string: a solved dim as its size, or `label=size` for a user basis
   (its basis in NX_SHAPE_STYLE_ONLY_BASES), followed by `p<id>` in
   NX_SHAPE_STYLE_PROJECTION_AND_SIZE once projections gave it an id; a
   variable as `$id` or `$id:name` in every style; an affine dim as
   `stride*over+offset` and a convolution as
   `conv(stride*over+offset+dilation*kernel)` (a stride or dilation of 1 and
   an offset of 0 left out); a concatenation as `(a^b)`; and
   returns the length. Fails with NX_EINVAL on a NULL s or t, a NULL buf
   with cap > 0, an unknown style, or a cap too small for the text and its
   NUL. */
NX_API int nx_tensor_to_string(nx_shape_session *s, const nx_tensor *t, enum nx_shape_style style, char *buf,
                               size_t cap);

/* ---- Projections: the loops of an einsum ------------------------------ */

/* The projections of an operation, after OCANNL's derive_projections: an
   iteration space of iterators (one per spec label, per axis a row variable
   stands for, per `_`), and for the result and each operand, per axis in
   memory layout order (batch, output, input), the index that axis reads at
   a point of the space. Running every point of the space, reading each
   operand at its indices and accumulating into the result at its indices,
   computes the einsum. Owned by the session. */
typedef struct nx_shape_proj nx_shape_proj;

/* The most terms an index has: stride*over and dilation*kernel. */
#define NX_SHAPE_INDEX_TERMS 2

/* An axis's index: offset + sum of coeff[i] * iterator iter[i] over the
   nterms terms (0 terms: a fixed index). A convolution with padding can
   index before 0 or past the axis: such a point reads the padding (the
   operation's neutral value).
   A concatenated axis (nparts > 0, nterms 0) indexes by its parts: with
   the iterator parts[j] active (see nx_proj_iter_group), its index is
   part_offset[j] + parts[j] (part_offset[j]: the sizes of the parts before
   j); at a point where none of its parts is active, the shape holding it
   takes no part. parts and part_offset are owned by the projections. */
typedef struct nx_shape_index {
  int nterms;
  int iter[NX_SHAPE_INDEX_TERMS];
  int64_t coeff[NX_SHAPE_INDEX_TERMS];
  int64_t offset;
  int nparts;
  const int *parts;
  const int64_t *part_offset;
} nx_shape_index;

/* Which shape of a projection: the result, or operand 0, 1, ... */
#define NX_PROJ_RESULT (-1)

/* nx_shape_projections(s, t, &p) derives the projections of the einsum (or
   permute) that made t, from its spec and the current solution.
   The result's iterators come first, in the order of its axes.
   Fails with NX_EINVAL on a NULL argument, a tainted session, a t not made
   by nx_tensor_einsum, a dim the operation reads not solved yet (call
   nx_shape_finish first), a part of a concatenated axis that is not a
   label (a fixed index, an affine or nested part) or a label twice in one
   concatenated axis, or an operation needing more padding on an axis of a
   tensor whose padding is resolved (nx_tensor_resolve_padding); NX_ENOMEM
   if memory runs out. On success it raises the padding of the operation's
   tensors (nx_tensor_padding) and gives each of their axes a fresh
   projection id (the result's first, then each operand's, rows in the
   order batch, input, output), which NX_SHAPE_STYLE_PROJECTION_AND_SIZE
   prints. */
NX_API int nx_shape_projections(nx_shape_session *s, const nx_tensor *t, const nx_shape_proj **p);

/* nx_proj_iter_count(p) is the number of iterators; nx_proj_iter_size(p,
   i) the size of iterator i; nx_proj_iter_label(p, i) the spec label it
   stands for, or NULL for a row variable's axis or `_` (the message then
   unchanged). Each fails on a NULL p or an i out of range: NX_EINVAL from
   the count, -1 from the size, NULL from the label, the message set. */
NX_API int nx_proj_iter_count(const nx_shape_proj *p);
NX_API int64_t nx_proj_iter_size(const nx_shape_proj *p, int i);
NX_API const char *nx_proj_iter_label(const nx_shape_proj *p, int i);

/* The iteration space is a product of groups. An iterator that is no part
   of a concatenated axis is a group of its own; the iterators of the parts
   of a concatenation (and of concatenations sharing one) form one group,
   whose iterators run one after the other rather than nested, as OCANNL's
   block operations iterate their concat components: a point of the space
   has, per group, one active iterator and its value. At a point, a shape
   (the result or an operand) one of whose axes reads an iterator that is
   not active takes no part: an operand is left out of the product (when
   every operand is, or the result is, the point does nothing), so that
   "a; b => a^b" writes operand 0 where a is active and operand 1 where b
   is. nx_proj_group_count(p) is the number of groups (NX_EINVAL on a NULL
   p), nx_proj_iter_group(p, i) the group of iterator i, numbered in the
   order of their first iterators (-1 with the message set for a NULL p or
   an i out of range). */
NX_API int nx_proj_group_count(const nx_shape_proj *p);
NX_API int nx_proj_iter_group(const nx_shape_proj *p, int i);

/* nx_proj_operand_count(p) is the number of operands (the result is
   NX_PROJ_RESULT); nx_proj_rank(p, which) the rank of shape `which`. They
   fail on a NULL p or a which out of range: NX_EINVAL and -1, the message
   set. */
NX_API int nx_proj_operand_count(const nx_shape_proj *p);
NX_API int nx_proj_rank(const nx_shape_proj *p, int which);

/* nx_proj_tensor(p, which) is the tensor of shape `which`: the operation's
   result or one of its operands (so that a caller can run a graph of
   operations, nx_tensor_stack's inner ones included, by their projections).
   NULL, with the message set, on a NULL p or a which out of range. */
NX_API const nx_tensor *nx_proj_tensor(const nx_shape_proj *p, int which);

/* nx_proj_axis(p, which, axis, &size, &index) sets the size of axis `axis`
   (layout order) of shape `which` and its index (each out-parameter may be
   NULL).
   Fails with NX_EINVAL on a NULL p or which or axis out of range. */
NX_API int nx_proj_axis(const nx_shape_proj *p, int which, int axis, int64_t *size, nx_shape_index *index);

/* nx_proj_padding(p, which, axis, &left, &right): the padding the axis
   needs around its elements: how far its index reaches before 0 (left)
   and past its last element (right) over the whole space, and for a
   convolution with `=` at least OCANNL's margins, floor(K/2) left and
   ceil(K/2) right for a kernel of size K. 0 and 0 for an axis that stays in
   range (every result axis, and every axis without padding). Each
   out-parameter may be NULL. Fails as nx_proj_axis. */
NX_API int nx_proj_padding(const nx_shape_proj *p, int which, int axis, int64_t *left, int64_t *right);

/* ---- Tensors' padding across operations -------------------------------- */

/* A tensor keeps the padding its operations need, as OCANNL keeps it on a
   shape: each nx_shape_projections raises the padding of every tensor the
   operation reads or writes to what it needs (nx_proj_padding: per axis in
   layout order, the most on each side). Once a tensor's padding is resolved
   (OCANNL resolves it when the tensor's memory is laid out), it no longer
   changes, and nx_shape_projections of an operation that would need more
   on one of its axes fails with OCANNL's message "Operation padding
   (left=L, right=R) exceeds resolved padding (left=l, right=r)", changing
   no tensor's padding (the session is not tainted: nothing was solved). */

/* nx_tensor_padding(s, t, axis, &left, &right) sets the padding of t's axis
   `axis` (layout order) so far: 0 and 0 before any projection asked for
   some. Each out-parameter may be NULL. Fails with NX_EINVAL on a NULL s
   or t, t's rows not solved yet, or an axis out of range. */
NX_API int nx_tensor_padding(nx_shape_session *s, const nx_tensor *t, int axis, int64_t *left, int64_t *right);

/* nx_tensor_resolve_padding(s, t) fixes t's padding as it is now (a no-op
   if already resolved; a snapshot restores the setting). Fails with
   NX_EINVAL on a NULL argument or t's rows not solved yet (call
   nx_shape_finish first); NX_ENOMEM when memory runs out.
   nx_tensor_padding_resolved(t) says whether t's padding is resolved
   (false, with the message set, for NULL). */
NX_API int nx_tensor_resolve_padding(nx_shape_session *s, nx_tensor *t);
NX_API bool nx_tensor_padding_resolved(const nx_tensor *t);

#ifdef __cplusplus
}
#endif
#endif /* NX_SHAPE_H */
