/* SPDX-License-Identifier: Apache-2.0 */
/* api_args.h: what the generated NULL-argument test (tools/gen/null_calls.py)
   builds its valid arguments from, and its driver. Every object is made on
   first use inside the child that runs one call, so the parent never starts
   the library and each child starts from a fresh one.

   The documented default for a pointer type the generator does not know is
   api_blob(): a zeroed, aligned block of API_BLOB_BYTES bytes, room for any
   out-parameter or short array of any type. */
#ifndef NX_TESTS_API_ARGS_H
#define NX_TESTS_API_ARGS_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nx.h"

#define API_BLOB_BYTES 65536
#define API_CAP 256

/* The child's verdicts; any other end (a signal, a sanitizer's exit) is a
   crash. */
enum { API_PASS = 10, API_FAIL = 11 };
enum { API_VOID, API_STATUS, API_POINTER, API_VALUE };

static void api_die(const char *what) {
  fprintf(stderr, "cannot build a valid argument: %s: %s\n", what, nx_error_message());
  _exit(API_FAIL);
}

static void *api_blob(void) {
  static _Alignas(64) unsigned char blob[API_BLOB_BYTES];
  return blob;
}

static int64_t *api_i64(void) { /* a shape, an index or bounds: all 1s */
  static int64_t v[64];
  for (int i = 0; i < 64; i++) v[i] = 1;
  return v;
}
static int *api_int(void) { static int v[64]; return v; } /* axes: all 0 */
static bool *api_bool(void) { static bool v[64]; return v; }
static char *api_text(void) { static char t[API_CAP]; return t; }
static nx_value *api_values(void) { static nx_value v[64]; return v; }

static nx_layout *api_layout(void) { /* shape [2] */
  static nx_layout l;
  static const int64_t shape[1] = {2};
  if (nx_layout_contiguous(shape, 1, &l)) api_die("nx_layout_contiguous");
  return &l;
}

static nx_move *api_move(void) { /* a flip of axis 0 */
  static nx_move m;
  static const int axes[1] = {0};
  if (nx_move_flip(&m, axes, 1)) api_die("nx_move_flip");
  return &m;
}

static nx_device *api_device(void) { return nx_rig_host(); }

static nx_array *api_array(void) { /* float32 [2] on the host */
  static nx_array *a;
  static const int64_t shape[1] = {2};
  if (!a && nx_array_host(NX_FLOAT32, shape, 1, &a)) api_die("nx_array_host");
  return a;
}
static int64_t api_count(void) { return 2; }
static nx_array *const *api_arrays(void) {
  static nx_array *v[8];
  for (int i = 0; i < 8; i++) v[i] = api_array();
  return v;
}
static nx_array **api_out_array(void) { return (nx_array **)api_blob(); }

static nx_buffer *api_new_buffer(void) {
  nx_buffer *b;
  if (nx_buffer_create(nx_rig_host(), NX_MEMORY_HOST, NX_ACCESS_READ_WRITE, 64, &b)) api_die("nx_buffer_create");
  return b;
}
static nx_buffer *api_buffer(void) {
  static nx_buffer *b;
  if (!b) b = api_new_buffer();
  return b;
}
static nx_buffer *api_buffer2(void) {
  static nx_buffer *b;
  if (!b) b = api_new_buffer();
  return b;
}
static nx_buffer *const *api_buffers(void) {
  static nx_buffer *v[8];
  for (int i = 0; i < 8; i++) v[i] = api_buffer();
  return v;
}

static struct DLManagedTensorVersioned *api_dlpack(void) {
  struct DLManagedTensorVersioned *t;
  if (nx_array_to_dlpack(api_array(), &t)) api_die("nx_array_to_dlpack");
  return t;
}

static nx_shape_session *api_session(void) {
  static nx_shape_session *s;
  if (!s && nx_shape_session_new(&s)) api_die("nx_shape_session_new");
  return s;
}
static const nx_dim *api_dim(void) {
  static const nx_dim *d;
  if (!d && !(d = nx_dim_var(api_session(), "d"))) api_die("nx_dim_var");
  return d;
}
static const nx_dim *const *api_dims(void) {
  static const nx_dim *v[8];
  for (int i = 0; i < 8; i++) v[i] = api_dim();
  return v;
}
static const nx_row *api_row(void) {
  static const nx_row *r;
  if (!r && !(r = nx_row_make(api_session(), api_dims(), 0, api_dims(), 1, 0))) api_die("nx_row_make");
  return r;
}
static const nx_row *const *api_rows(void) {
  static const nx_row *v[8];
  for (int i = 0; i < 8; i++) v[i] = api_row();
  return v;
}
static nx_tensor *api_tensor(void) {
  static nx_tensor *t;
  if (!t && nx_tensor_term(api_session(), "t", "", "", "2", &t)) api_die("nx_tensor_term");
  return t;
}
static nx_tensor *const *api_tensors(void) {
  static nx_tensor *v[8];
  for (int i = 0; i < 8; i++) v[i] = api_tensor();
  return v;
}
/* A scheme and a tensor function of one argument, the identity. */
static int api_identity(void *ctx, nx_shape_session *s, nx_tensor *const *a, int n, nx_tensor **r, int *nr) {
  (void)ctx, (void)s, (void)n;
  r[0] = a[0];
  *nr = 1;
  return 0;
}
static int api_identity_body(void *ctx, nx_shape_session *s, nx_tensor *const *a, nx_tensor *const *o, nx_tensor **r,
                             int *nr) {
  (void)o;
  return api_identity(ctx, s, a, 1, r, nr);
}
static nx_scheme *api_scheme(void) {
  static nx_scheme *sc;
  if (!sc && nx_scheme_trace(api_session(), "identity", 1, api_identity, NULL, &sc)) api_die("nx_scheme_trace");
  return sc;
}
static const nx_scheme_function *api_scheme_function(void) {
  static const char *const names[1] = {"x"};
  static const nx_scheme_function f = {"identity", 1, names, 0, NULL, true, api_identity_body, NULL};
  return &f;
}
static nx_scheme_handle *api_scheme_handle(void) {
  static nx_scheme_handle *h;
  if (!h && nx_scheme_function_new(api_session(), api_scheme_function(), &h)) api_die("nx_scheme_function_new");
  return h;
}
static const nx_shape_origin *api_origin(void) {
  static nx_shape_origin o;
  o.operation = "op";
  return &o;
}

/* Sets the message to one that names another function, so the check sees
   the call's own. */
static void api_prime(const char *fn) {
  if (strcmp(fn, "nx_layout_count") != 0) (void)nx_layout_count(NULL);
  else (void)nx_layout_is_distinct(NULL);
}

/* Whether the message names fn as a whole word. */
static bool api_names(const char *fn) {
  size_t n = strlen(fn);
  for (const char *m = nx_error_message(); (m = strstr(m, fn)) != NULL; m++) {
    char c = m[n];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return true;
  }
  return false;
}

static void api_result(const char *fn, int allowed, int kind, int status, const void *p) {
  if (allowed) _exit(API_PASS);
  bool ok = api_names(fn);
  if (kind == API_STATUS) ok = ok && status < 0;
  if (kind == API_POINTER) ok = ok && p == NULL;
  if (!ok) {
    if (kind == API_STATUS) fprintf(stderr, "status %d (%s), ", status, nx_status_name(status));
    if (kind == API_POINTER) fprintf(stderr, "pointer %s, ", p ? "not NULL" : "NULL");
    fprintf(stderr, "message \"%s\"\n", nx_error_message());
  }
  _exit(ok ? API_PASS : API_FAIL);
}

static int api_main(void (*run)(int), const char *const *names, int n, const char *const *unknown, int functions,
                    int without_pointers) {
  int failed = 0, crashed = 0;
  for (int i = 0; unknown[i]; i++) printf("default argument (api_blob or zero) for unknown type %s\n", unknown[i]);
  for (int k = 0; k < n; k++) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 1; }
    if (pid == 0) {
      alarm(30); /* a hang is a failure too */
      fprintf(stderr, "%s: ", names[k]);
      run(k);
      fprintf(stderr, "no verdict\n");
      _exit(API_FAIL);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0) { perror("waitpid"); return 1; }
    if (WIFEXITED(st) && WEXITSTATUS(st) == API_PASS) continue;
    if (WIFEXITED(st) && WEXITSTATUS(st) == API_FAIL) {
      failed++;
      printf("FAIL %s\n", names[k]);
    } else {
      crashed++;
      printf("CRASH %s (%s %d)\n", names[k], WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    }
  }
  printf("%d functions (%d without a pointer parameter), %d calls with a NULL argument: %d wrong answers, %d crashes\n",
         functions, without_pointers, n, failed, crashed);
  return failed || crashed ? 1 : 0;
}

#endif
