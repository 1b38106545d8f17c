/* SPDX-License-Identifier: Apache-2.0 */
/* nx_scheme.h: shape schemes (Tensor.Scheme) over the shape module.

   A scheme is the shape constraints a tensor function imposes, inferred once
   by a trace and instantiated at each application. A tensor function is a C
   callback that builds symbolic tensors with nx_shape.h. What is shared and
   what is per-application follows ML's value restriction: the dims of a
   tensor created before the trace (a shared parameter) stay fixed across
   applications; everything the function creates (its intermediates, a
   parameter created inside it, a capture reference made inside it) is fresh
   per application. So create the shared parameters before nx_scheme_trace.

   Errors are as everywhere in nx: a status and nx_error_message(), whose
   text begins with the prefix Tensor.Scheme gives the error:
     "tracing the shape scheme <label>: "
     "applying the shape scheme <label> to <application>: "
     "checking the definition <name>: "
   followed by the shape error's own message. docs/schemes.md describes the
   generalization rule, the printed form and what a scheme cannot carry. */
#ifndef NX_SCHEME_H
#define NX_SCHEME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nx_error.h"
#include "nx_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nx_scheme nx_scheme;

/* The most results a tensor function may return (a flat list: flatten a
   structure). */
#define NX_SCHEME_MAX_RESULTS 16

/* The most arguments a trace takes: a bound, so that an arity no function
   has is refused at once rather than by making that many tracers. */
#define NX_SCHEME_MAX_ARITY 65536

/* A tensor function: applied to n tensors of session s, it builds its
   results with nx_shape.h, stores them in results[0..*nres) (room for
   NX_SCHEME_MAX_RESULTS) and returns 0, or returns a negative status (with
   nx_error_message() set) on failure. */
typedef int (*nx_scheme_fn)(void *ctx, nx_shape_session *s, nx_tensor *const *args, int n, nx_tensor **results,
                            int *nres);

/* ---- Schemes --------------------------------------------------------- */

/* nx_scheme_trace(s, label, n, f, ctx, &out) applies f to n tracing tensors
   whose shapes are fresh row variables (`..a..|..b..->..c..`), inside a
   rewind: the trace leaves nothing in s (no variable, tensor, constraint
   or binding, and no variable or tensor id is used up), and *out is the
   scheme of the constraints f registered over the tracing tensors, its
   results and the variables of tensors made before the trace. The scheme is
   independent of s's memory (free it with nx_scheme_free) but is applied to
   s only. n may be 0.
   Fails with NX_EINVAL, the session unchanged and *out untouched, when an
   argument is NULL, label is empty, n < 0 or n > NX_SCHEME_MAX_ARITY; and with the message prefixed
   "tracing the shape scheme <label>: " on a shape error in f (f's own
   failing status, a positive one returned as NX_EINVAL as every callback's
   here is, or one only the end-of-trace solve finds, such as a
   constraint f added with nx_shape_add_* and did not solve), when f forces
   dims (nx_shape_finish or a solve past stage 1 inside f: inference cannot
   close during a trace) or projections (nx_shape_projections or
   nx_tensor_resolve_padding inside f, whatever their outcome), when f returns a negative count or more
   than NX_SCHEME_MAX_RESULTS results (none is a scheme of no result: the
   seed's functions map a tensor list to a tensor list), when f makes a dim or row beyond what a scheme
   holds (a concatenation of more than 64 parts, a row flank of more than
   256 dims, a total over more than 64 rows), and for what a scheme cannot
   carry
   (nx_tensor_set_dim or nx_tensor_set_row_total on a dim or row of a
   tensor made before the trace). NX_ENOMEM if memory runs out. */
NX_API int nx_scheme_trace(nx_shape_session *s, const char *label, int n, nx_scheme_fn f, void *ctx,
                           nx_scheme **out);

/* nx_scheme_free(sc) frees a scheme. NULL is a no-op. */
NX_API void nx_scheme_free(nx_scheme *sc);

/* The scheme's label (owned by the scheme), its number of arguments and of
   results. Each fails (NULL, or -1 for the counts, with the message set) on
   a NULL scheme. */
NX_API const char *nx_scheme_label(const nx_scheme *sc);
NX_API int nx_scheme_arity(const nx_scheme *sc);
NX_API int nx_scheme_num_results(const nx_scheme *sc);

/* nx_scheme_to_string(sc, buf, cap) writes sc's boundary as
     <label> : <arguments> => <results>
   the shapes separated by ", ", each as batch|input->output under the
   trace's solution, a row variable as ..v.., an empty row as (); then one
   per line, indented by two spaces, the broadcasting inequalities r ⊑ o
   among the boundary's variables and the fixed ones, then the lower bounds
   of the boundary's variables (`glb ⊑ v`, `v ≥ n` for an at-least), the
   function's intermediate variables eliminated along monotone chains (an
   intermediate with no lower bound and two or more upper bounds stays, by
   a name of its own, as the hidden variable it is per application). Lines
   are separated by '\n', with none after the last. Variables are
   named by first appearance: generalized ones 'a, 'b, ..., 'z, 'a1, ...;
   fixed ones (shared with tensors made before the trace) '_a, '_b, ....
   Returns the full length (as snprintf does: the text is cut to fit cap,
   NUL-terminated when cap > 0), or -1 with the message set if sc is NULL or
   buf is NULL with cap > 0. */
NX_API int nx_scheme_to_string(const nx_scheme *sc, char *buf, size_t cap);

/* nx_scheme_reduced(sc, &why) says how an application of sc adds its
   constraints: 1 from the reduced form the trace computed (the constraints
   over the boundary, intermediates eliminated), 0 by replaying the body's
   whole record, because no reduction was known to be exact; then *why
   names the construct, a static string (NULL when reduced). Fails (-1, the
   message set) when sc or why is NULL. */
NX_API int nx_scheme_reduced(const nx_scheme *sc, const char **why);

/* nx_scheme_instantiate(s, sc, application, args, nargs, results, nres)
   adds sc's constraints for one application of its function to args, with
   results, without running the function: each generalized variable renamed
   to a fresh one, the fixed ones as they are, the tracing shapes made equal
   to args' and the results' to results'. results[j] NULL gets a fresh
   tensor (an interior one, as the function's own result would be); a
   non-NULL one is related as it is (a tensor computing the result).
   Everything the function created is fresh, and closing closes it as it
   would the body's. The constraints carry the application's name
   (application, or the arguments' labels joined by ", " when NULL), so a
   failure at closing names it too. Valid across closings, unless the
   scheme depends on open state: a fixed variable that was open at the trace
   and that closing left open because no shape holds it.
   results may be NULL when nres is 0.
   Fails with NX_EINVAL on a NULL argument or wrong counts (the session
   unchanged); when sc was traced in another session (one made later at a
   freed session's address included); on a tainted session; with the message prefixed "applying the
   shape scheme <label> to <application>: " on a shape error (the session
   is then tainted, as a failed construction taints it) and when the scheme
   depends on open state after a closing (trace again). NX_ENOMEM if memory
   runs out. */
NX_API int nx_scheme_instantiate(nx_shape_session *s, const nx_scheme *sc, const char *application,
                                 nx_tensor *const *args, int nargs, nx_tensor **results, int nres);

/* ---- Automatic schemes of tensor functions ------------------------------ */

/* A tensor function's body, with its tensor parameters (args) and its
   option-valued tensor parameters (opts, NULL for None). As nx_scheme_fn
   otherwise. */
typedef int (*nx_scheme_body)(void *ctx, nx_shape_session *s, nx_tensor *const *args, nx_tensor *const *opts,
                              nx_tensor **results, int *nres);

/* A tensor function: its name (the scheme's label), its tensor parameters
   and its option-valued tensor parameters by name, whether it has a unit
   stage (the closure built at () traces every presence pattern; without
   one, the first application traces them), and the body. */
typedef struct nx_scheme_function {
  const char *name;
  int ntensors;
  const char *const *tensor_names;
  int noptions; /* at most 8 */
  const char *const *option_names;
  bool has_unit_stage;
  nx_scheme_body body;
  void *ctx;
} nx_scheme_function;

/* A function's scheme slots in a session: one handle per closure, one slot
   per presence pattern of its option parameters. */
typedef struct nx_scheme_handle nx_scheme_handle;

/* How applications use a function's scheme (the op_shape_schemes setting). */
enum nx_op_shape_schemes {
  NX_OP_SHAPE_SCHEMES_OFF = 0,    /* no scheme: every application runs the body */
  NX_OP_SHAPE_SCHEMES_CHECK = 1,  /* each application is checked against its pattern's scheme, then the body runs */
  NX_OP_SHAPE_SCHEMES_ON = 2      /* each application instantiates the scheme; the body does not run */
};

/* nx_scheme_set_op_shape_schemes(mode) sets the process setting (CHECK at
   start); nx_scheme_session_op_shape_schemes(s, mode) overrides it for one
   session (mode -1 drops the override). The first fails with NX_EINVAL on
   a mode not of the enum, the second also on a NULL session. */
NX_API int nx_scheme_set_op_shape_schemes(int mode);
NX_API int nx_scheme_session_op_shape_schemes(nx_shape_session *s, int mode);
/* The mode applications in s use now: its override, else the process's
   setting (also for a NULL s). It cannot fail. */
NX_API int nx_scheme_op_shape_schemes(const nx_shape_session *s);

/* nx_scheme_function_new(s, fn, &h) builds a closure of fn in s: with a unit
   stage, it traces every presence pattern now. A pattern's label is
   `<name> [p, no q]` (just <name> without option parameters). A shape error
   that does not depend on the arguments fails the call with the message
   prefixed "tracing the shape scheme <label>: "; a trace a scheme cannot
   carry leaves that pattern unschemed (the log says so, once per function
   and reason in the process). The descriptor's strings are copied.
   Fails with NX_EINVAL on a NULL argument, an empty name, a NULL body,
   negative counts, more than 8 option parameters or more than 63
   parameters in all. */
NX_API int nx_scheme_function_new(nx_shape_session *s, const nx_scheme_function *fn, nx_scheme_handle **h);

/* nx_scheme_apply(h, application, args, opts, results, &nres) applies the
   function to args (fn->ntensors of them) and opts (fn->noptions, NULL for
   None), as the op_shape_schemes setting says: the pattern's scheme is
   traced first if it is pending or stale (the session was closed since),
   an argument-dependent error fails prefixed "applying the shape scheme
   <label> to <application>: " before the body runs (application NULL: the
   arguments' labels); an unschemed pattern runs the body. results needs
   room for NX_SCHEME_MAX_RESULTS. Patterns traced at a first application
   are refused each on its own: another pattern's trace error fails that
   pattern's own application (it stays pending), not this one; a stale
   pattern whose re-trace fails is pending again. In CHECK mode an
   application to a tainted session leaves the taint its first error.
   A handle is used with its session only, while that session lives: free
   the handle before the session (nx_shape_session_free does not). */
NX_API int nx_scheme_apply(nx_scheme_handle *h, const char *application, nx_tensor *const *args,
                           nx_tensor *const *opts, nx_tensor **results, int *nres);

/* nx_scheme_status(h, buf, cap) writes "pending", "schemed" or
   "unschemed: <reason>"; with option parameters, "<label>: <status>" per
   pattern separated by "; ". Returns the full length as nx_scheme_to_string
   does, or -1 on a NULL handle. */
NX_API int nx_scheme_status(const nx_scheme_handle *h, char *buf, size_t cap);

/* The scheme of a pattern (a bit mask: bit i set when option i is
   present), or NULL if it is pending or unschemed. The handle owns it: it
   lasts until the pattern is traced again (an application after a closing
   that made it stale) or the handle is freed. */
NX_API const nx_scheme *nx_scheme_handle_scheme(const nx_scheme_handle *h, unsigned pattern);

/* nx_scheme_handle_free(h) frees a closure's handle and its schemes; a
   NULL h does nothing. */
NX_API void nx_scheme_handle_free(nx_scheme_handle *h);

/* Events: a pattern's scheme was traced (label), left unschemed (label,
   reason), or an application was checked against it (label). */
enum nx_scheme_event_kind { NX_SCHEME_TRACED = 0, NX_SCHEME_UNSCHEMED = 1, NX_SCHEME_CHECKED = 2 };
typedef void (*nx_scheme_event_fn)(void *ctx, enum nx_scheme_event_kind kind, const char *label,
                                   const char *reason);
/* Sets the process's event callback (NULL: none). */
NX_API void nx_scheme_set_event_callback(nx_scheme_event_fn f, void *ctx);
/* Sets where "left unschemed" notes go (NULL: stderr, the default), and
   forgets which were said. */
NX_API void nx_scheme_set_log(void (*log)(void *ctx, const char *line), void *ctx);

/* ---- Statistics --------------------------------------------------------- */

/* Process-wide registration statistics since the last reset: how many
   traces, instantiations, checks and plain body runs there were, and the
   constraints each registered. */
typedef struct nx_scheme_registration_counts {
  int64_t traces, instantiations, checks, body_runs;
  int64_t traced_constraints, instantiated_constraints;
} nx_scheme_registration_counts;
/* Process-wide shape-registration wall time (nanoseconds) since the last
   reset, by the same four kinds. */
typedef struct nx_scheme_registration_times {
  int64_t trace_ns, instantiate_ns, check_ns, body_ns;
} nx_scheme_registration_times;

/* nx_scheme_registration_counts_get() is the counts now (the seed's
   registration_counts); it cannot fail. Safe from any thread. */
NX_API nx_scheme_registration_counts nx_scheme_registration_counts_get(void);
/* nx_scheme_reset_registration_counts() sets every count to 0; it cannot fail. */
NX_API void nx_scheme_reset_registration_counts(void);
/* nx_scheme_registration_times_get() is the times now (the seed's
   registration_times); it cannot fail. Safe from any thread. */
NX_API nx_scheme_registration_times nx_scheme_registration_times_get(void);
/* nx_scheme_reset_registration_times() sets every time to 0; it cannot fail. */
NX_API void nx_scheme_reset_registration_times(void);

/* ---- Checking a definition --------------------------------------------- */

/* nx_scheme_check_definition(s, name, block, ctx, labels, cap, &n) runs
   block (a trial application of a definition: it builds closures with
   nx_scheme_function_new and may apply them) inside a window that is
   always rewound and allocates no session ids, so the unit-stage traces of
   the block and of the sub-blocks it builds run, and with them any shape
   error that does not depend on the arguments. It stores the labels of the
   schemes traced, innermost first (each a copy to free with free()), in
   labels[0..*n) (at most cap; *n is the full count). The session is
   unchanged afterwards.
   Fails with NX_EINVAL on a NULL argument or empty name; with the message
   prefixed "checking the definition <name>: " when block fails (the labels
   then are none). */
NX_API int nx_scheme_check_definition(nx_shape_session *s, const char *name,
                                      int (*block)(void *ctx, nx_shape_session *s), void *ctx, char **labels,
                                      int cap, int *n);

#ifdef __cplusplus
}
#endif
#endif /* NX_SCHEME_H */
