/* SPDX-License-Identifier: Apache-2.0 */
/* nx convert IN OUT --to DTYPE: converts tensor files between formats and
   dtypes, writing OUT through the io module's writer, which goes through a
   temporary file renamed into place, so a failure leaves no output. A
   scaled tensor goes through the fused passes of scale_pass.h (amax on the
   source's elements, then the scaled store run by the writer on the thread
   pool straight into the file); any other through nx's kernels (nx_cast,
   nx_copy). */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_io.h"
#include "commands.h"
#include "nx_kernels.h"
#include "progress.h"
#include "scale_pass.h"

static const char usage[] =
    "nx convert IN OUT --to DTYPE [--only GLOB] [--scale none|amax] [--as DTYPE] [--threads N]";

static void help(void) {
  printf("usage: %s\n\n"
         "Converts the tensors of IN (.npy, .npz, .safetensors, GGUF) into OUT (.npy, .npz, .safetensors,\n"
         "by its extension), each element stored into DTYPE by nx's store rule (one rounding).\n\n"
         "  --to DTYPE        the dtype of every converted tensor (nx dtypes lists them)\n"
         "  --only GLOB       only the tensors whose names match the shell pattern GLOB\n"
         "  --scale amax      divide each float (or scaled) tensor by its absolute maximum over DTYPE's\n"
         "                    largest finite value, so float8 and float4 keep the range; the scale goes in\n"
         "                    a float32 tensor <name>.scale and (safetensors) the metadata nx.scale.<name>;\n"
         "                    refused where no float32 scale is large enough (float64 data past it)\n"
         "  --scale none      no scale (the default); a tensor IN scales is multiplied back either way,\n"
         "                    whatever its dtype, but an integer one into an integer DTYPE keeps its scale\n"
         "  --as DTYPE        read raw .npy bytes (<V1, <V2, as numpy saves ml_dtypes) as DTYPE\n"
         "  --threads N       threads for the kernels and the scaled passes (default: every core)\n"
         "  --help            this text\n\n"
         "OUT is written to a temporary file in its folder, flushed and renamed at the end: on failure\n"
         "nothing is written. A progress bar shows on a terminal.\n\n"
         "Exit status: 0 done, 1 failed (unreadable input, a tensor the output cannot hold, no float32\n"
         "scale for it), 2 usage.\n"
         "Example: nx convert model.safetensors model-f8.safetensors --to float8_e4m3fn --scale amax\n",
         usage);
}

/* The float32 scale that maps amax onto max_finite: the least float32 s
   with amax / s <= max_finite (so nothing overflows), 1 for amax 0;
   infinity where no float32 is large enough (an amax past float32's range
   times max_finite, as float64 data may have). */
static double scale_for(double amax, double max_finite) {
  if (!(amax > 0)) return 1;
  float s = (float)nx_dtype_load_bits(NX_FLOAT32, nx_dtype_store_bits(NX_FLOAT32, amax / max_finite));
  while (isfinite(s) && amax / s > max_finite) s = nextafterf(s, INFINITY);
  return s;
}

typedef struct job {
  const char *cmd;
  nx_io_file *f;
  int i, as;
  nx_dtype to;
  bool amax;
  nx_array *out;     /* the converted tensor, or (scaled) the source of sc's pass */
  bool scaled;
  nx_tool_scaled sc; /* lives until the commit, which runs the pass */
  double scale;      /* the output's scale, 1 for none */
  nx_dtype scale_dt; /* its dtype: float32, or a kept input scale's own */
} job;

static bool is_integer(nx_dtype d) {
  return nx_dtype_kind(d) == NX_KIND_SIGNED || nx_dtype_kind(d) == NX_KIND_UNSIGNED;
}

/* The dtype of tensor i's scale tensor (nx_tool_scale_of has found it and
   checked it is one float). */
static nx_dtype scale_dtype(nx_io_file *f, int i) {
  const char *base = nx_io_file_tensor(f, i)->name;
  size_t len = strlen(base) + sizeof NX_SCALE_SUFFIX;
  char *name = malloc(len);
  int k;
  nx_dtype dt = NX_FLOAT32;
  if (name) snprintf(name, len, "%s%s", base, NX_SCALE_SUFFIX);
  if (name && nx_io_file_find(f, name, &k) == 0) dt = nx_io_file_tensor(f, k)->dtype;
  free(name);
  return dt;
}

/* A complex tensor times s_in into the complex dtype to: through
   complex128, whose parts nx_mul multiplies as float64 pairs (the scaled
   store's loads keep only the real part). */
static int complex_times(nx_array **out, nx_array *src, double s_in, nx_dtype to) {
  nx_array *d = NULL, *pairs = NULL, *one = NULL, *k = NULL;
  nx_value v = {.f = s_in};
  nx_move m;
  int s = nx_cast_new(&d, NX_COMPLEX128, src);
  if (s == 0) s = nx_array_bitcast(NX_FLOAT64, d, &pairs);
  if (s == 0) s = nx_array_of_array(NX_FLOAT64, NULL, 0, &v, 1, &one);
  if (s == 0) s = nx_move_expand(&m, nx_array_layout(pairs)->extent, nx_array_layout(pairs)->rank);
  if (s == 0) s = nx_array_move(&m, one, &k);
  if (s == 0) s = nx_mul(pairs, pairs, k); /* in place: d's elements */
  if (s == 0 && to != NX_COMPLEX128) s = nx_cast_new(out, to, d);
  else if (s == 0) {
    *out = d;
    d = NULL;
  }
  nx_array_free(k);
  nx_array_free(one);
  nx_array_free(pairs);
  nx_array_free(d);
  return s;
}

/* Converts tensor i. A tensor with an input scale is multiplied back by it
   whatever its kind, and a float one is divided by its amax scale (the
   fused passes, scale_pass.h: the amax pass here, the scaled store at the
   writer's commit); but an integer tensor into an integer dtype stays
   scaled, its integers cast and its scale kept, since multiplying back
   would truncate the fractions the scale makes (the integer store). Any
   other tensor goes through nx_cast (nx_copy for the same dtype). */
static int convert_one(job *j, nx_tool_progress *p) {
  const nx_io_tensor *t = nx_io_file_tensor(j->f, j->i);
  nx_array *src;
  double s_in;
  if (!t->has_dtype)
    return nx_tool_fail(j->cmd, "%s: tensor '%s' is of type %s, which nx does not convert; leave it out with --only",
                        nx_io_file_path(j->f), t->name, t->type);
  if (nx_tool_scale_of(j->cmd, j->f, j->i, &s_in) != 0) return NX_EXIT_FAILED;
  if (nx_tool_load(j->cmd, j->f, j->i, j->as, &src) != 0) return NX_EXIT_FAILED;
  nx_dtype from = nx_array_dtype(src);
  bool to_float = nx_dtype_kind(j->to) == NX_KIND_FLOAT;
  bool keep = s_in != 1 && is_integer(from) && is_integer(j->to);
  int s = 0;
  j->scale = 1;
  j->scale_dt = NX_FLOAT32;
  if (keep) {
    j->scale = s_in;
    j->scale_dt = scale_dtype(j->f, j->i);
  }
  if (!keep && s_in != 1 && nx_dtype_kind(from) == NX_KIND_COMPLEX && nx_dtype_kind(j->to) == NX_KIND_COMPLEX) {
    s = complex_times(&j->out, src, s_in, j->to);
  } else if (!keep && (s_in != 1 || (j->amax && to_float && nx_dtype_kind(from) == NX_KIND_FLOAT))) {
    s = nx_contiguous(&j->out, src);
    if (s == 0 && j->amax && to_float) {
      double amax;
      nx_float_format ff;
      nx_dtype_float_format(j->to, &ff);
      s = nx_tool_amax(j->out, s_in, &amax);
      if (s == 0) j->scale = scale_for(amax, ff.max_finite);
      if (s == 0 && !isfinite(j->scale)) {
        nx_array_free(src);
        return nx_tool_fail(j->cmd, "%s: tensor '%s': no float32 scale brings its absolute maximum, %g, within %s's "
                            "largest finite value, %g (amax / %g is past float32's range)", nx_io_file_path(j->f),
                            t->name, amax, nx_dtype_name(j->to), ff.max_finite, ff.max_finite);
      }
    }
    j->scaled = true;
    nx_tool_scaled_init(&j->sc, from, j->to, s_in, j->scale, p, t->name);
  } else if (from == j->to) {
    s = nx_copy_new(&j->out, src); /* bit for bit, NaN payloads included */
  } else {
    s = nx_cast_new(&j->out, j->to, src);
  }
  nx_array_free(src);
  if (s != 0) return nx_tool_fail(j->cmd, "%s: tensor '%s': %s", nx_io_file_path(j->f), t->name, nx_error_message());
  return NX_EXIT_DONE;
}

/* Adds tensor j's result to w, and its scale where it has one. */
static int add_one(const char *cmd, nx_io_writer *w, nx_io_format fmt, job *j, const char *name) {
  int s = j->scaled ? nx_io_writer_add_transform(w, name, j->out, j->to, nx_tool_scaled_store, &j->sc)
                    : nx_io_writer_add(w, name, j->out);
  if (s != 0) return nx_tool_fail(cmd, "%s", nx_error_message());
  if (j->scale == 1) return NX_EXIT_DONE;
  char sname[1024], text[NX_DTYPE_PP_MAX];
  nx_value v = {.f = j->scale};
  nx_array *sa;
  snprintf(sname, sizeof sname, "%s%s", name, NX_SCALE_SUFFIX);
  nx_dtype_pp_value(j->scale_dt, v, text, sizeof text);
  if (nx_array_of_array(j->scale_dt, NULL, 0, &v, 1, &sa) != 0) return nx_tool_fail(cmd, "%s", nx_error_message());
  s = nx_io_writer_add(w, sname, sa);
  nx_array_free(sa);
  snprintf(sname, sizeof sname, "nx.scale.%s", name);
  if (s == 0 && fmt == NX_IO_SAFETENSORS) s = nx_io_writer_metadata(w, sname, text);
  return s ? nx_tool_fail(cmd, "%s", nx_error_message()) : NX_EXIT_DONE;
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
  int status = NX_EXIT_DONE, selected = 0, n = nx_io_file_count(f);
  int64_t total = 0;
  for (int i = 0; i < n; i++)
    if (!nx_tool_is_scale(f, i) && nx_tool_match(only, nx_io_file_tensor(f, i)->name)) {
      total += nx_io_file_tensor(f, i)->bytes;
      selected++;
    }
  job *jobs = calloc((size_t)n + 1, sizeof *jobs);
  if (!jobs) status = nx_tool_fail(cmd, "out of memory");
  else if (selected == 0) status = nx_tool_fail(cmd, "%s: no tensor%s%s", in, only ? " matches " : "", only ? only : "");
  /* Every tensor counts its bytes twice: its amax pass or its conversion
     here, and its scaled store (or its writing) at the commit. */
  nx_tool_progress bar;
  nx_tool_progress_start(&bar, 2 * total);
  if (fmt == NX_IO_SAFETENSORS)
    for (int i = 0; status == 0 && i < nx_io_file_metadata_count(f); i++) {
      const char *k, *v;
      nx_io_file_metadata(f, i, &k, &v);
      if (strncmp(k, "nx.scale.", 9) && nx_io_writer_metadata(w, k, v) != 0)
        status = nx_tool_fail(cmd, "%s", nx_error_message());
    }
  for (int i = 0; status == 0 && i < n; i++) {
    const nx_io_tensor *t = nx_io_file_tensor(f, i);
    if (nx_tool_is_scale(f, i) || !nx_tool_match(only, t->name)) continue;
    job *j = &jobs[i];
    *j = (job){.cmd = cmd, .f = f, .i = i, .as = as, .to = to, .amax = amax, .scale = 1, .scale_dt = NX_FLOAT32};
    nx_tool_progress_add(&bar, 0, t->name);
    status = convert_one(j, &bar);
    if (status == 0) status = add_one(cmd, w, fmt, j, t->name);
    nx_tool_progress_add(&bar, j->scaled ? t->bytes : 2 * t->bytes, t->name);
  }
  if (status == 0) {
    if (nx_io_writer_commit(w) != 0) status = nx_tool_fail(cmd, "%s", nx_error_message());
  } else {
    nx_io_writer_abort(w);
  }
  nx_tool_progress_end(&bar);
  for (int i = 0; jobs && i < n; i++) nx_array_free(jobs[i].out);
  free(jobs);
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
