/* SPDX-License-Identifier: Apache-2.0 */
/* nx convert IN OUT --to DTYPE: converts tensor files between formats and
   dtypes through nx's kernels (nx_cast; for scales, nx_mul and nx_fdiv in
   float64), writing OUT through the io module's writer, which goes through a
   temporary file renamed into place, so a failure leaves no output. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_io.h"
#include "commands.h"
#include "nx_kernels.h"

static const char usage[] =
    "nx convert IN OUT --to DTYPE [--only GLOB] [--scale none|amax] [--as DTYPE] [--threads N]";

static void help(void) {
  printf("usage: %s\n\n"
         "Converts the tensors of IN (.npy, .npz, .safetensors, GGUF) into OUT (.npy, .npz, .safetensors,\n"
         "by its extension), each element stored into DTYPE by nx's store rule (one rounding).\n\n"
         "  --to DTYPE        the dtype of every converted tensor (nx dtypes lists them)\n"
         "  --only GLOB       only the tensors whose names match the shell pattern GLOB\n"
         "  --scale amax      divide each float tensor by its absolute maximum over DTYPE's largest\n"
         "                    finite value, so float8 and float4 keep the range; the scale goes in a\n"
         "                    float32 tensor <name>.scale and (safetensors) the metadata nx.scale.<name>\n"
         "  --scale none      no scale (the default); a tensor IN scales is multiplied back either way\n"
         "  --as DTYPE        read raw .npy bytes (|V1, <V2, as numpy saves ml_dtypes) as DTYPE\n"
         "  --threads N       threads for the kernels (default: every core)\n"
         "  --help            this text\n\n"
         "OUT is written to a temporary file in its folder, flushed and renamed at the end: on failure\n"
         "nothing is written. A progress bar shows on a terminal.\n\n"
         "Exit status: 0 done, 1 failed (unreadable input, a tensor the output cannot hold), 2 usage.\n"
         "Example: nx convert model.safetensors model-f8.safetensors --to float8_e4m3fn --scale amax\n",
         usage);
}

/* A float64 array of one value expanded to shape: a view, for the kernels'
   same-shape operands. */
static int scalar_like(double v, const nx_array *like, nx_array **out) {
  nx_array *one;
  nx_value x = {.f = v};
  int s = nx_array_of_array(NX_FLOAT64, NULL, 0, &x, 1, &one);
  if (s != 0) return s;
  const nx_layout *l = nx_array_layout(like);
  nx_move m;
  s = nx_move_expand(&m, l->extent, l->rank);
  if (s == 0) s = nx_array_move(&m, one, out);
  nx_array_free(one);
  return s;
}

/* The absolute maximum of x over its finite elements (NaNs and
   infinities left out, so one of them does not make every value 0): a plain
   loop over nx_dtype_load_bits, since the kernels have no reduction that
   skips non-finite elements. */
static void finite_max(void *ctx, int64_t k, double v) {
  (void)k;
  double *m = ctx;
  if (isfinite(v) && fabs(v) > *m) *m = fabs(v);
}

/* The float64 arrays convert makes are contiguous: read those directly, as
   doubles, which the compiler vectorises (the per-element loop over bits
   was a third of a conversion's time); any other layout element by
   element. */
static int amax_read(void *ctx, const void *base, nx_dtype dt, const nx_layout *l) {
  double *m = ctx;
  if (dt != NX_FLOAT64 || !nx_layout_is_contiguous(l)) return 1;
  int64_t n = nx_layout_count(l);
  if (n == 0) return 0; /* base may be NULL */
  const double *p = (const double *)base + l->offset;
  double best = 0;
  for (int64_t k = 0; k < n; k++) {
    double a = fabs(p[k]);
    best = a <= DBL_MAX && a > best ? a : best; /* false for NaN and infinity */
  }
  *m = best;
  return 0;
}

static int amax_of(nx_array *x, double *amax) {
  *amax = 0;
  int s = nx_array_read(x, amax_read, amax);
  return s == 1 ? nx_tool_each(x, finite_max, amax) : s;
}

/* The float32 scale that maps amax onto max_finite: the least float32 s
   with amax / s <= max_finite (so nothing overflows), 1 for amax 0. */
static double scale_for(double amax, double max_finite) {
  if (!(amax > 0)) return 1;
  float s = (float)nx_dtype_load_bits(NX_FLOAT32, nx_dtype_store_bits(NX_FLOAT32, amax / max_finite));
  while (amax / s > max_finite) s = nextafterf(s, INFINITY);
  return s;
}

/* x widened to float64, exactly as nx_cast does (nx_dtype_load_f64bits of
   each element's bits), in a loop per element width for contiguous float
   sources of 8, 16 or 32 bits: nx_cast has no vector path into float64, and
   its general loop was over half of a conversion's time. Others go through
   nx_cast. */
static int widen_src(void *ctx, const void *base, nx_dtype dt, const nx_layout *l) {
  uint64_t *out = ctx;
  int w = nx_dtype_bits(dt);
  if (nx_dtype_kind(dt) != NX_KIND_FLOAT || (w != 8 && w != 16 && w != 32) || !nx_layout_is_contiguous(l)) return 1;
  int64_t n = nx_layout_count(l);
  if (n == 0) return 0; /* base may be NULL */
  const uint8_t *p = (const uint8_t *)base + l->offset * (w / 8);
  if (w == 8)
    for (int64_t k = 0; k < n; k++) out[k] = nx_dtype_load_f64bits((int)dt, p[k]);
  else if (w == 16)
    for (int64_t k = 0; k < n; k++) out[k] = nx_dtype_load_f64bits((int)dt, (uint64_t)p[2 * k] | (uint64_t)p[2 * k + 1] << 8);
  else
    for (int64_t k = 0; k < n; k++) {
      uint32_t u;
      memcpy(&u, p + 4 * k, 4); /* little-endian hosts: nx_cast reads so too */
      out[k] = nx_dtype_load_f64bits((int)dt, u);
    }
  return 0;
}

static int widen_dst(void *ctx, void *base, nx_dtype dt, const nx_layout *l) {
  (void)dt;
  if (!nx_layout_is_contiguous(l)) return 1;
  return nx_array_read(ctx, widen_src, nx_layout_count(l) ? (uint64_t *)base + l->offset : NULL);
}

static int to_float64(nx_array **x, nx_array *src) {
  const nx_layout *l = nx_array_layout(src);
  int s = nx_array_host(NX_FLOAT64, l->extent, l->rank, x);
  if (s == 0 && (s = nx_array_write(*x, widen_dst, src)) == 1) {
    nx_array_free(*x);
    *x = NULL;
    s = nx_cast_new(x, NX_FLOAT64, src);
  }
  return s;
}

typedef struct job {
  const char *cmd;
  nx_io_file *f;
  int i, as;
  nx_dtype to;
  bool amax;
  nx_array *out;
  double scale; /* the output's scale, 1 for none */
} job;

static int convert_one(job *j) {
  const nx_io_tensor *t = nx_io_file_tensor(j->f, j->i);
  nx_array *src;
  double s_in;
  if (!t->has_dtype)
    return nx_tool_fail(j->cmd, "%s: tensor '%s' is of type %s, which nx does not convert; leave it out with --only",
                        nx_io_file_path(j->f), t->name, t->type);
  if (nx_tool_scale_of(j->cmd, j->f, j->i, &s_in) != 0) return NX_EXIT_FAILED;
  if (nx_tool_load(j->cmd, j->f, j->i, j->as, &src) != 0) return NX_EXIT_FAILED;
  nx_dtype from = nx_array_dtype(src);
  bool floats = nx_dtype_kind(from) == NX_KIND_FLOAT && nx_dtype_kind(j->to) == NX_KIND_FLOAT;
  int s = 0;
  j->scale = 1;
  if (floats && (j->amax || s_in != 1)) {
    /* In float64, which holds every float format's values exactly. */
    nx_array *x = NULL, *k = NULL;
    s = to_float64(&x, src);
    if (s == 0 && s_in != 1 && (s = scalar_like(s_in, x, &k)) == 0) s = nx_mul(x, x, k);
    nx_array_free(k);
    k = NULL;
    if (s == 0 && j->amax) {
      double amax;
      nx_float_format ff;
      nx_dtype_float_format(j->to, &ff);
      s = amax_of(x, &amax);
      if (s == 0) j->scale = scale_for(amax, ff.max_finite);
      if (s == 0 && j->scale != 1 && (s = scalar_like(j->scale, x, &k)) == 0) s = nx_fdiv(x, x, k);
      nx_array_free(k);
    }
    if (s == 0) s = nx_cast_new(&j->out, j->to, x);
    nx_array_free(x);
  } else if (from == j->to) {
    s = nx_copy_new(&j->out, src); /* bit for bit, NaN payloads included */
  } else {
    s = nx_cast_new(&j->out, j->to, src);
  }
  nx_array_free(src);
  if (s != 0) return nx_tool_fail(j->cmd, "%s: tensor '%s': %s", nx_io_file_path(j->f), t->name, nx_error_message());
  return NX_EXIT_DONE;
}

/* The progress bar, on stderr, only when both stdout and stderr are
   terminals. */
static void progress(bool on, int64_t done, int64_t total, const char *name) {
  if (!on) return;
  int pct = total ? (int)(done * 100 / total) : 100, bar = pct * 30 / 100;
  fprintf(stderr, "\r[%.*s%*s] %3d%% %-40.40s", bar, "##############################", 30 - bar, "", pct,
          name ? name : "");
  if (!name) fprintf(stderr, "\r\033[K");
  fflush(stderr);
}

static int run(const char *in, const char *out, nx_dtype to, const char *only, bool amax, int as) {
  static const char cmd[] = "convert";
  nx_io_format fmt;
  if (nx_io_format_of_path(out, &fmt) != 0)
    return nx_tool_fail(cmd, "%s: the output's extension names no format nx writes (.npy, .npz, .safetensors)", out);
  nx_io_file *f = nx_tool_open(cmd, in);
  if (!f) return NX_EXIT_FAILED;
  nx_io_writer *w;
  if (nx_io_writer_open(out, fmt, &w) != 0) {
    nx_io_close(f);
    return nx_tool_fail(cmd, "%s", nx_error_message());
  }
  int status = NX_EXIT_DONE, selected = 0;
  int64_t total = 0, done = 0;
  for (int i = 0; i < nx_io_file_count(f); i++)
    if (!nx_tool_is_scale(f, i) && nx_tool_match(only, nx_io_file_tensor(f, i)->name)) {
      total += nx_io_file_tensor(f, i)->bytes;
      selected++;
    }
  if (selected == 0) status = nx_tool_fail(cmd, "%s: no tensor%s%s", in, only ? " matches " : "", only ? only : "");
  bool bar = isatty(1) && isatty(2);
  if (fmt == NX_IO_SAFETENSORS)
    for (int i = 0; status == 0 && i < nx_io_file_metadata_count(f); i++) {
      const char *k, *v;
      nx_io_file_metadata(f, i, &k, &v);
      if (strncmp(k, "nx.scale.", 9) && nx_io_writer_metadata(w, k, v) != 0)
        status = nx_tool_fail(cmd, "%s", nx_error_message());
    }
  for (int i = 0; status == 0 && i < nx_io_file_count(f); i++) {
    const nx_io_tensor *t = nx_io_file_tensor(f, i);
    if (nx_tool_is_scale(f, i) || !nx_tool_match(only, t->name)) continue;
    progress(bar, done, total, t->name);
    job j = {cmd, f, i, as, to, amax, NULL, 1};
    status = convert_one(&j);
    if (status != 0) break;
    if (nx_io_writer_add(w, t->name, j.out) != 0) status = nx_tool_fail(cmd, "%s", nx_error_message());
    nx_array_free(j.out);
    if (status == 0 && j.scale != 1) {
      char name[1024], text[NX_DTYPE_PP_MAX];
      nx_value v = {.f = j.scale};
      nx_array *sa;
      snprintf(name, sizeof name, "%s%s", t->name, NX_SCALE_SUFFIX);
      nx_dtype_pp_value(NX_FLOAT32, v, text, sizeof text);
      if (nx_array_of_array(NX_FLOAT32, NULL, 0, &v, 1, &sa) != 0) {
        status = nx_tool_fail(cmd, "%s", nx_error_message());
        break;
      }
      if (nx_io_writer_add(w, name, sa) != 0) status = nx_tool_fail(cmd, "%s", nx_error_message());
      nx_array_free(sa);
      snprintf(name, sizeof name, "nx.scale.%s", t->name);
      if (status == 0 && fmt == NX_IO_SAFETENSORS && nx_io_writer_metadata(w, name, text) != 0)
        status = nx_tool_fail(cmd, "%s", nx_error_message());
    }
    done += t->bytes;
  }
  if (status == 0) {
    progress(bar, total, total, "writing");
    if (nx_io_writer_commit(w) != 0) status = nx_tool_fail(cmd, "%s", nx_error_message());
  } else {
    nx_io_writer_abort(w);
  }
  progress(bar, total, total, NULL);
  nx_io_close(f);
  return status;
}

int nx_cmd_convert(int argc, char **argv) {
  static const char cmd[] = "convert";
  const char *files[2] = {NULL, NULL}, *only = NULL;
  int nfiles = 0, to = -1, as = -1;
  bool amax = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      help();
      return NX_EXIT_DONE;
    }
    bool takes = !strcmp(a, "--to") || !strcmp(a, "--only") || !strcmp(a, "--scale") || !strcmp(a, "--as") ||
                 !strcmp(a, "--threads");
    if (takes && i + 1 == argc) return nx_tool_usage(cmd, usage, "%s needs a value", a);
    nx_dtype dt;
    if (!strcmp(a, "--to") || !strcmp(a, "--as")) {
      if (nx_tool_dtype(argv[++i], &dt) != 0) return nx_tool_usage(cmd, usage, "unknown dtype '%s'", argv[i]);
      *(a[2] == 't' ? &to : &as) = (int)dt;
    } else if (!strcmp(a, "--only")) {
      only = argv[++i];
    } else if (!strcmp(a, "--scale")) {
      const char *v = argv[++i];
      if (strcmp(v, "none") && strcmp(v, "amax")) return nx_tool_usage(cmd, usage, "--scale is none or amax, not '%s'", v);
      amax = !strcmp(v, "amax");
    } else if (!strcmp(a, "--threads")) {
      char *end;
      long n = strtol(argv[++i], &end, 10);
      if (*end || end == argv[i] || nx_set_num_threads((int)(n > 256 ? 257 : n < 0 ? 0 : n)) != 0)
        return nx_tool_usage(cmd, usage, "--threads is a count from 1 to 256, not '%s'", argv[i]);
    } else if (a[0] == '-' && a[1]) {
      return nx_tool_usage(cmd, usage, "unknown option '%s'", a);
    } else if (nfiles == 2) {
      return nx_tool_usage(cmd, usage, "unexpected argument '%s'", a);
    } else {
      files[nfiles++] = a;
    }
  }
  if (nfiles < 2) return nx_tool_usage(cmd, usage, "IN and OUT are needed");
  if (to < 0) return nx_tool_usage(cmd, usage, "--to DTYPE is needed");
  return run(files[0], files[1], (nx_dtype)to, only, amax, as);
}
