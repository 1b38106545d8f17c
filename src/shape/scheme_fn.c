/* SPDX-License-Identifier: Apache-2.0 */
/* Automatic schemes of tensor functions: a closure's handle holds one slot
   per presence pattern of the option parameters, traced at the unit stage
   or at the first application, re-traced when stale; each application uses
   its pattern's scheme as the op_shape_schemes setting says. A trace a
   scheme cannot carry leaves the pattern unschemed, said once per function
   and reason in the process (the log), and announced by an event. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "scheme_internal.h"
#include "../base/alloc.h"

enum { PENDING, SCHEMED, UNSCHEMED };

typedef struct {
  int state;
  const char *reason; /* unschemed: one of nx__scheme_reason_* */
  char *label;
  nx_scheme *sc;
} slot;

struct nx_scheme_handle {
  nx_shape_session *s;
  char *name;
  int ntensors, noptions;
  char **tensor_names, **option_names;
  nx_scheme_body body;
  void *ctx;
  int npatterns;
  slot *slots;
};

/* ---- process settings: the mode, the event callback, the log ---- */

static _Atomic int process_mode = NX_OP_SHAPE_SCHEMES_CHECK;
static pthread_mutex_t settings_mu = PTHREAD_MUTEX_INITIALIZER;
static nx_scheme_event_fn event_fn;
static void *event_ctx;
static void (*log_fn)(void *, const char *);
static void *log_ctx;
static char **said; /* "function\treason", each said once, as many as there are */
static int nsaid, capsaid;

int nx_scheme_set_op_shape_schemes(int mode) {
  if (mode < NX_OP_SHAPE_SCHEMES_OFF || mode > NX_OP_SHAPE_SCHEMES_ON)
    return nx__fail(NX_EINVAL, "nx_scheme_set_op_shape_schemes: mode %d is not one of the enum", mode);
  atomic_store(&process_mode, mode);
  return 0;
}

int nx_scheme_session_op_shape_schemes(nx_shape_session *s, int mode) {
  if (!s) return nx__fail(NX_EINVAL, "nx_scheme_session_op_shape_schemes: NULL session");
  if (mode < -1 || mode > NX_OP_SHAPE_SCHEMES_ON)
    return nx__fail(NX_EINVAL, "nx_scheme_session_op_shape_schemes: mode %d is not one of the enum or -1", mode);
  /* kept in the session, so that it goes with it when it is freed */
  s->op_mode = mode + 1;
  return 0;
}

int nx_scheme_op_shape_schemes(const nx_shape_session *s) {
  return s && s->op_mode ? s->op_mode - 1 : atomic_load(&process_mode);
}

void nx_scheme_set_event_callback(nx_scheme_event_fn f, void *ctx) {
  pthread_mutex_lock(&settings_mu);
  event_fn = f;
  event_ctx = ctx;
  pthread_mutex_unlock(&settings_mu);
}

void nx_scheme_set_log(void (*log)(void *ctx, const char *line), void *ctx) {
  pthread_mutex_lock(&settings_mu);
  log_fn = log;
  log_ctx = ctx;
  for (int i = 0; i < nsaid; i++) nx__free(said[i]);
  nsaid = 0;
  pthread_mutex_unlock(&settings_mu);
}

static void event(enum nx_scheme_event_kind kind, const char *label, const char *reason) {
  pthread_mutex_lock(&settings_mu);
  nx_scheme_event_fn f = event_fn;
  void *ctx = event_ctx;
  pthread_mutex_unlock(&settings_mu);
  if (f) f(ctx, kind, label, reason);
}

/* "left unschemed", once per function and reason in the process. */
static void say_unschemed(const char *function, const char *label, const char *reason) {
  /* the key and the line whole, a name of any length (out of memory for
     the key, the note may be said again) */
  size_t nkey = strlen(function) + strlen(reason) + 2, nline = strlen(label) + strlen(reason) + 32;
  char *key = nx__malloc(nkey), *line = nx__malloc(nline);
  if (key) snprintf(key, nkey, "%s\t%s", function, reason);
  if (line) snprintf(line, nline, "shape scheme %s: left unschemed: %s", label, reason);
  pthread_mutex_lock(&settings_mu);
  bool seen = false;
  for (int i = 0; key && i < nsaid && !seen; i++) seen = !strcmp(said[i], key);
  if (key && !seen && !nx__scheme_grow((void **)&said, &capsaid, nsaid, sizeof *said)) said[nsaid++] = key, key = NULL;
  void (*f)(void *, const char *) = log_fn;
  void *ctx = log_ctx;
  pthread_mutex_unlock(&settings_mu);
  nx__free(key);
  if (!seen && line) {
    if (f) f(ctx, line);
    else fprintf(stderr, "%s\n", line);
  }
  nx__free(line);
}

/* ---- the check window of nx_scheme_check_definition ---- */

typedef struct nx__window {
  char **labels;
  int n, cap;
  bool nomem;
} nx__window;
static _Thread_local nx__window *window;

static void window_add(const char *label) {
  if (!window) return;
  if (nx__scheme_grow((void **)&window->labels, &window->cap, window->n, sizeof *window->labels)) {
    window->nomem = true;
    return;
  }
  char *c = nx__malloc(strlen(label) + 1);
  if (!c) {
    window->nomem = true;
    return;
  }
  memcpy(c, label, strlen(label) + 1);
  window->labels[window->n++] = c;
}

/* ---- handles ---- */

static char *dup_str(const char *s) {
  char *c = nx__malloc(strlen(s) + 1);
  if (c) memcpy(c, s, strlen(s) + 1);
  return c;
}

/* `<name> [p, no q]`, the names whole: measured, then written. */
static char *pattern_label(const nx_scheme_handle *h, unsigned pattern) {
  size_t cap = strlen(h->name) + 1;
  for (int i = 0; i < h->noptions; i++) cap += strlen(h->option_names[i]) + 6; /* " [no " or ", no ", and "]" */
  char *buf = nx__malloc(cap);
  if (!buf) return NULL;
  size_t len = (size_t)snprintf(buf, cap, "%s", h->name);
  for (int i = 0; i < h->noptions; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%s%s%s", i ? ", " : " [", pattern >> i & 1 ? "" : "no ",
                            h->option_names[i], i == h->noptions - 1 ? "]" : "");
  return buf;
}

void nx_scheme_handle_free(nx_scheme_handle *h) {
  if (!h) return;
  for (int i = 0; h->tensor_names && i < h->ntensors; i++) nx__free(h->tensor_names[i]);
  for (int i = 0; h->option_names && i < h->noptions; i++) nx__free(h->option_names[i]);
  nx__free(h->tensor_names);
  nx__free(h->option_names);
  for (int p = 0; h->slots && p < h->npatterns; p++) {
    nx__free(h->slots[p].label);
    nx_scheme_free(h->slots[p].sc);
  }
  nx__free(h->slots);
  nx__free(h->name);
  nx__free(h);
}

typedef struct {
  const nx_scheme_handle *h;
  unsigned pattern;
} tracing;

/* The body on tracers: the tensor parameters, then the present options. */
static int traced_body(void *ctx, nx_shape_session *s, nx_tensor *const *args, int n, nx_tensor **res, int *nres) {
  const tracing *t = ctx;
  nx_tensor *opts[8] = {0};
  int k = t->h->ntensors;
  for (int i = 0; i < t->h->noptions; i++)
    if (t->pattern >> i & 1) opts[i] = args[k++];
  (void)n;
  return t->h->body(t->h->ctx, s, args, opts, res, nres);
}

static int present(const nx_scheme_handle *h, unsigned pattern) {
  int n = h->ntensors;
  for (int i = 0; i < h->noptions; i++) n += pattern >> i & 1;
  return n;
}

/* Traces one pattern: schemed, unschemed (the trace is one a scheme cannot
   carry), or the trace's shape error. */
static int trace_pattern(nx_scheme_handle *h, unsigned p) {
  slot *sl = &h->slots[p];
  nx_scheme_free(sl->sc);
  sl->sc = NULL;
  tracing t = {h, p};
  const char *carry = NULL;
  int rc = nx__scheme_trace_as(h->s, sl->label, present(h, p), traced_body, &t, &sl->sc, &carry);
  if (!rc) {
    sl->state = SCHEMED;
    window_add(sl->label);
    event(NX_SCHEME_TRACED, sl->label, NULL);
    return 0;
  }
  if (!carry) {
    sl->state = PENDING; /* its scheme is gone: the next application traces again, and fails again */
    return rc;
  }
  sl->state = UNSCHEMED;
  sl->reason = carry;
  say_unschemed(h->name, sl->label, carry);
  event(NX_SCHEME_UNSCHEMED, sl->label, carry);
  return 0;
}

int nx_scheme_function_new(nx_shape_session *s, const nx_scheme_function *fn, nx_scheme_handle **out) {
  if (!s || !fn || !out || !fn->name || !fn->body || (fn->ntensors && !fn->tensor_names) ||
      (fn->noptions && !fn->option_names))
    return nx__fail(NX_EINVAL, "nx_scheme_function_new: NULL argument");
  if (!*fn->name || fn->ntensors < 0 || fn->noptions < 0 || fn->noptions > 8)
    return nx__fail(NX_EINVAL, "nx_scheme_function_new: empty name, negative counts or more than 8 option parameters");
  if (fn->ntensors + fn->noptions > 63) /* an application passes at most 63 */
    return nx__fail(NX_EINVAL, "nx_scheme_function_new: %s: %d tensor and %d option parameters, more than 63 in all",
                    fn->name, fn->ntensors, fn->noptions);
  for (int i = 0; i < fn->ntensors; i++)
    if (!fn->tensor_names[i]) return nx__fail(NX_EINVAL, "nx_scheme_function_new: tensor parameter %d has no name", i + 1);
  for (int i = 0; i < fn->noptions; i++)
    if (!fn->option_names[i]) return nx__fail(NX_EINVAL, "nx_scheme_function_new: option parameter %d has no name", i + 1);
  nx_scheme_handle *h = nx__calloc(1, sizeof *h);
  if (!h) return nx__fail(NX_ENOMEM, "nx_scheme_function_new: out of memory");
  h->s = s;
  h->ntensors = fn->ntensors, h->noptions = fn->noptions;
  h->body = fn->body, h->ctx = fn->ctx;
  h->npatterns = 1 << fn->noptions;
  h->name = dup_str(fn->name);
  h->tensor_names = nx__calloc((size_t)fn->ntensors + 1, sizeof *h->tensor_names);
  h->option_names = nx__calloc((size_t)fn->noptions + 1, sizeof *h->option_names);
  h->slots = nx__calloc((size_t)h->npatterns, sizeof *h->slots);
  bool ok = h->name && h->tensor_names && h->option_names && h->slots;
  for (int i = 0; ok && i < fn->ntensors; i++) ok = (h->tensor_names[i] = dup_str(fn->tensor_names[i])) != NULL;
  for (int i = 0; ok && i < fn->noptions; i++) ok = (h->option_names[i] = dup_str(fn->option_names[i])) != NULL;
  for (int p = 0; ok && p < h->npatterns; p++) ok = (h->slots[p].label = pattern_label(h, (unsigned)p)) != NULL;
  if (!ok) {
    nx_scheme_handle_free(h);
    return nx__fail(NX_ENOMEM, "nx_scheme_function_new: out of memory");
  }
  if (fn->has_unit_stage && nx_scheme_op_shape_schemes(s) != NX_OP_SHAPE_SCHEMES_OFF)
    for (int p = 0; p < h->npatterns; p++) {
      int rc = trace_pattern(h, (unsigned)p);
      if (rc) {
        nx_scheme_handle_free(h);
        return rc;
      }
    }
  *out = h;
  return 0;
}

const nx_scheme *nx_scheme_handle_scheme(const nx_scheme_handle *h, unsigned pattern) {
  if (!h) return nx__fail(NX_EINVAL, "nx_scheme_handle_scheme: the handle is NULL"), NULL;
  if (pattern >= (unsigned)h->npatterns)
    return nx__fail(NX_EINVAL, "nx_scheme_handle_scheme: pattern %u is past the %d patterns", pattern, h->npatterns), NULL;
  return h->slots[pattern].state == SCHEMED ? h->slots[pattern].sc : NULL;
}

static size_t put_status(const slot *sl, char *buf, size_t cap, size_t len) {
  const char *st = sl->state == PENDING ? "pending" : sl->state == SCHEMED ? "schemed" : "unschemed: ";
  int w = snprintf(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, "%s%s", st,
                   sl->state == UNSCHEMED ? sl->reason : "");
  return len + (w > 0 ? (size_t)w : 0);
}

int nx_scheme_status(const nx_scheme_handle *h, char *buf, size_t cap) {
  if (!h || (!buf && cap)) return nx__fail(NX_EINVAL, "nx_scheme_status: NULL argument"), -1;
  if (cap) buf[0] = 0;
  size_t len = 0;
  if (!h->noptions) len = put_status(&h->slots[0], buf, cap, 0);
  else
    for (int p = 0; p < h->npatterns; p++) {
      int w = snprintf(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, "%s%s: ", p ? "; " : "", h->slots[p].label);
      len += w > 0 ? (size_t)w : 0;
      len = put_status(&h->slots[p], buf, cap, len);
    }
  return len > INT32_MAX ? -1 : (int)len;
}

/* ---- applications ---- */

static int run_body(nx_scheme_handle *h, nx_tensor *const *args, nx_tensor *const *opts, nx_tensor **res, int *nres) {
  int64_t t0 = nx__scheme_now_ns();
  int64_t c0 = nx_shape_constraint_count(h->s);
  nx__fail(0, "%s", ""); /* so that a failure of the body's own, without a message, is not told by an older one */
  int rc = h->body(h->ctx, h->s, args, opts, res, nres);
  nx__scheme_count(3, nx_shape_constraint_count(h->s) - c0, nx__scheme_now_ns() - t0);
  if (rc > 0) { /* statuses are 0 or negative: a positive one is a failure, told as one */
    char what[1100];
    nx__scheme_failure_text(rc, "the body", what, sizeof what);
    return nx__fail(NX_EINVAL, "%s: %s", h->name, what);
  }
  return rc;
}

/* The application checked against the scheme in a rewind: its error, if
   any, as an instantiation reports it; the session is left as it was. */
static int check(nx_scheme_handle *h, const nx_scheme *sc, const char *app, nx_tensor *const *argv, int n) {
  int64_t t0 = nx__scheme_now_ns();
  nx_shape_snapshot *w = nx__rewind_take(h->s);
  if (!w) return nx__fail(NX_ENOMEM, "nx_scheme_apply: out of memory");
  nx_tensor *res[NX_SCHEME_MAX_RESULTS] = {0};
  nx__cvec *rec = h->s->rec;
  nx__refvec *refs = h->s->ref_rec;
  h->s->rec = NULL; /* what the window registers is rewound: an enclosing trace must not record it */
  h->s->ref_rec = NULL;
  int rc = nx_scheme_instantiate(h->s, sc, app, argv, n, res, sc->nres);
  char msg[1200];
  snprintf(msg, sizeof msg, "%s", rc ? nx_error_message() : "");
  h->s->rec = rec;
  h->s->ref_rec = refs;
  nx__rewind_restore(h->s, w);
  nx__rewind_free(w);
  nx__scheme_count(2, 0, nx__scheme_now_ns() - t0);
  event(NX_SCHEME_CHECKED, sc->label, NULL);
  if (!rc) return 0;
  /* An application that would fail: the session is tainted as the body
     would taint it, unless it already was (the taint keeps its first
     error, as every operation on a tainted session leaves it). */
  if (rc != NX_ENOMEM && !h->s->tainted) {
    h->s->tainted = true;
    h->s->shape_errors++;
    snprintf(h->s->taint, sizeof h->s->taint, "%.500s", msg);
  }
  return nx__fail(rc, "%s", msg);
}

int nx_scheme_apply(nx_scheme_handle *h, const char *application, nx_tensor *const *args, nx_tensor *const *opts,
                    nx_tensor **results, int *nres) {
  if (!h || (!args && h->ntensors) || (!opts && h->noptions) || !results || !nres)
    return nx__fail(NX_EINVAL, "nx_scheme_apply: NULL argument");
  nx_tensor *argv[64], *ov[8] = {0}; /* the body always gets its options, NULL for None */
  int n = 0;
  unsigned pattern = 0;
  for (int i = 0; i < h->ntensors; i++) {
    if (!args[i]) return nx__fail(NX_EINVAL, "nx_scheme_apply: %s: tensor parameter %s is NULL", h->name, h->tensor_names[i]);
    if (n < 64) argv[n++] = args[i];
  }
  for (int i = 0; i < h->noptions; i++)
    if ((ov[i] = opts[i])) {
      pattern |= 1u << i;
      if (n < 64) argv[n++] = opts[i];
    }
  if (n >= 64) return nx__fail(NX_EINVAL, "nx_scheme_apply: %s: more than 63 tensor arguments", h->name);
  int mode = nx_scheme_op_shape_schemes(h->s);
  opts = ov;
  if (mode == NX_OP_SHAPE_SCHEMES_OFF) return run_body(h, args, opts, results, nres);
  slot *sl = &h->slots[pattern];
  if (sl->state == PENDING) {
    /* No unit stage: the first application traces every pattern, each on
       its own: this one's error fails it, another's is left for that
       pattern's own application (the pattern stays pending). */
    int rc = 0;
    char msg[1200] = "";
    for (int p = 0; p < h->npatterns; p++)
      if (h->slots[p].state == PENDING) {
        int r = trace_pattern(h, (unsigned)p);
        if ((unsigned)p == pattern && r) rc = r, snprintf(msg, sizeof msg, "%s", nx_error_message());
      }
    if (rc) return nx__fail(rc, "%s", msg);
  } else if (sl->state == SCHEMED && nx__scheme_stale(sl->sc, h->s)) {
    int rc = trace_pattern(h, pattern);
    if (rc) return rc;
  }
  if (sl->state == UNSCHEMED) return run_body(h, args, opts, results, nres);
  /* the application's name: given, or the arguments' labels, options included */
  char *app = nx__scheme_application(application, argv, n);
  if (!app) return nx__fail(NX_ENOMEM, "nx_scheme_apply: out of memory");
  int rc;
  if (mode == NX_OP_SHAPE_SCHEMES_CHECK) {
    rc = check(h, sl->sc, app, argv, n);
    nx__free(app);
    return rc ? rc : run_body(h, args, opts, results, nres);
  }
  for (int j = 0; j < sl->sc->nres; j++) results[j] = NULL;
  rc = nx_scheme_instantiate(h->s, sl->sc, app, argv, n, results, sl->sc->nres);
  nx__free(app);
  event(NX_SCHEME_CHECKED, sl->label, NULL);
  if (!rc) *nres = sl->sc->nres;
  return rc;
}

/* ---- checking a definition ---- */

int nx_scheme_check_definition(nx_shape_session *s, const char *name, int (*block)(void *ctx, nx_shape_session *s),
                               void *ctx, char **labels, int cap, int *n) {
  if (!s || !name || !block || !n || (!labels && cap > 0) || cap < 0)
    return nx__fail(NX_EINVAL, "nx_scheme_check_definition: NULL argument");
  if (!*name) return nx__fail(NX_EINVAL, "nx_scheme_check_definition: empty name");
  *n = 0;
  nx_shape_snapshot *w = nx__rewind_take(s);
  if (!w) return nx__fail(NX_ENOMEM, "checking the definition %s: out of memory", name);
  int64_t t0 = nx__scheme_now_ns();
  nx__window win = {0}, *outer = window;
  window = &win;
  nx__cvec *rec = s->rec;
  nx__refvec *refs = s->ref_rec;
  s->rec = NULL; /* the trial registers nothing in an enclosing trace */
  s->ref_rec = NULL;
  nx__fail(0, "%s", ""); /* so that a failure of the block's own, without a message, is not told by an older one */
  int rc = block(ctx, s);
  char msg[1200];
  msg[0] = 0;
  if (rc) nx__scheme_failure_text(rc, "the block", msg, sizeof msg);
  if (rc > 0) rc = NX_EINVAL; /* statuses are 0 or negative */
  s->rec = rec;
  s->ref_rec = refs;
  window = outer;
  nx__rewind_restore(s, w);
  nx__rewind_free(w);
  nx__scheme_count(2, 0, nx__scheme_now_ns() - t0);
  if (!rc && win.nomem) rc = NX_ENOMEM, snprintf(msg, sizeof msg, "out of memory");
  if (!rc) {
    *n = win.n;
    for (int i = 0; i < win.n; i++)
      if (i < cap) labels[i] = win.labels[i];
      else nx__free(win.labels[i]);
  } else
    for (int i = 0; i < win.n; i++) nx__free(win.labels[i]);
  nx__free(win.labels);
  if (rc) return nx__fail(rc, "checking the definition %s: %s", name, msg);
  return 0;
}
