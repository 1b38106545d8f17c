/* SPDX-License-Identifier: Apache-2.0 */
/* nx diff A B: per tensor, what differs: max absolute and relative error,
   RMS error, the count of differing elements and a histogram of errors in
   units in the last place of the coarser format. Both sides are brought to
   float64 by nx_cast (exact for every dtype nx has but int64 and uint64
   past 2^53), scales multiplied back by nx_mul; the measures are one plain
   pass over the doubles, which no kernel computes. Two integer tensors
   without scales are compared exactly instead, through int64 and uint64
   (a difference past 2^53 still counts). A complex element is one
   element: it differs when a part does, by the modulus of the difference. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_io.h"
#include "commands.h"
#include "nx_kernels.h"

static const char usage[] = "nx diff A B [--only GLOB] [--tol T] [--as DTYPE] [--json]";

static void help(void) {
  printf("usage: %s\n\n"
         "Compares the tensors of two files, by name: for each, the max absolute and relative error,\n"
         "the RMS error, how many elements differ, and a histogram of the errors in units in the last\n"
         "place (ulp) of the coarser of the two formats, at A's value. A tensor with a <name>.scale\n"
         "tensor is compared as its elements times that scale.\n\n"
         "  --only GLOB   only the tensors whose names match the shell pattern GLOB\n"
         "  --tol T       the largest absolute error that counts as equal (default 0)\n"
         "  --as DTYPE    read raw .npy bytes (<V1, <V2) as DTYPE\n"
         "  --json        one JSON object per tensor, one per line\n"
         "  --help        this text\n\n"
         "Exit status: 0 no tensor differs beyond T, 1 some do (or a tensor is missing, or a file cannot\n"
         "be read), 2 usage.\n",
         usage);
}

#define NBUCKETS 6
static const char *const bucket_names[NBUCKETS] = {"0", "<=1/2", "<=1", "<=2", "<=4", ">4"};

typedef struct stats {
  int64_t n, differ;
  double max_abs, max_rel, sum_sq;
  int64_t hist[NBUCKETS];
  /* the coarser format: its fraction bits and least normal exponent, or
     fb < 0 for integers (ulp 1); its scale */
  int fb, emin;
  double scale;
} stats;

/* One ulp of the coarser format at value x (scaled). */
static double ulp_at(const stats *st, double x) {
  if (st->fb < 0) return 1;
  double y = fabs(x) / st->scale;
  int e = y > 0 ? ilogb(y) : st->emin;
  if (e < st->emin) e = st->emin;
  return ldexp(st->scale, e - st->fb);
}

/* An element that differs from its peer by d (> 0, infinite for NaN
   against a number), of magnitude a, whose ulp is taken at at. */
static void differs(stats *st, double a, double at, double d) {
  st->differ++;
  if (d > st->max_abs) st->max_abs = d;
  if (a != 0 && d / a > st->max_rel) st->max_rel = d / a;
  st->sum_sq += d * d;
  double u = d / ulp_at(st, at);
  st->hist[u <= 0.5 ? 1 : u <= 1 ? 2 : u <= 2 ? 3 : u <= 4 ? 4 : 5]++;
}

static bool same_value(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

static void measure(stats *st, double a, double b) {
  st->n++;
  if (same_value(a, b)) {
    st->hist[0]++;
    return;
  }
  double d = fabs(a - b);
  differs(st, fabs(a), a, isnan(d) ? INFINITY : d);
}

/* A complex element, a and b its (re, im) pairs. */
static void measure_complex(stats *st, const double *a, const double *b) {
  st->n++;
  if (same_value(a[0], b[0]) && same_value(a[1], b[1])) {
    st->hist[0]++;
    return;
  }
  double d = hypot(a[0] - b[0], a[1] - b[1]);
  differs(st, hypot(a[0], a[1]), fmax(fabs(a[0]), fabs(a[1])), isnan(d) ? INFINITY : d);
}

/* Two integers, each signed or not as its flag says, compared exactly. */
static void measure_int(stats *st, uint64_t a, bool sa, uint64_t b, bool sb) {
  st->n++;
  bool na = sa && (int64_t)a < 0, nb = sb && (int64_t)b < 0;
  uint64_t ma = na ? 0 - a : a, mb = nb ? 0 - b : b; /* magnitudes */
  if (na == nb && ma == mb) {
    st->hist[0]++;
    return;
  }
  /* |a - b|: the magnitudes' difference on one side of zero, their sum
     (as a double, which may round) across it */
  double d = na == nb ? (double)(ma > mb ? ma - mb : mb - ma) : (double)ma + (double)mb;
  differs(st, (double)ma, (double)ma, d);
}

struct pass {
  stats *st;
  const void *a;
  int64_t n;
  int kind;    /* 0 doubles, 1 complex pairs of doubles, 2 64-bit integers */
  bool sa, sb; /* kind 2: whether each side is signed */
};

static int inner(void *ctx, const void *base, nx_dtype dt, const nx_layout *l) {
  (void)dt;
  struct pass *p = ctx;
  if (p->kind == 2) {
    const uint64_t *a = p->a, *b = (const uint64_t *)base + l->offset;
    for (int64_t k = 0; k < p->n; k++) measure_int(p->st, a[k], p->sa, b[k], p->sb);
    return 0;
  }
  const double *a = p->a, *b = (const double *)base + l->offset;
  if (p->kind == 1)
    for (int64_t k = 0; k + 1 < p->n; k += 2) measure_complex(p->st, a + k, b + k);
  else
    for (int64_t k = 0; k < p->n; k++) measure(p->st, a[k], b[k]);
  return 0;
}

struct outer_ctx {
  stats *st;
  nx_array *b;
  int kind;
  bool sa, sb;
};

static int outer(void *ctx, const void *base, nx_dtype dt, const nx_layout *l) {
  struct outer_ctx *c = ctx;
  size_t w = (size_t)nx_dtype_bits(dt) / 8;
  struct pass p = {c->st, (const char *)base + (size_t)l->offset * w, nx_layout_count(l), c->kind, c->sa, c->sb};
  return nx_array_read(c->b, inner, &p);
}

static bool is_integer(nx_dtype d) {
  return nx_dtype_kind(d) == NX_KIND_SIGNED || nx_dtype_kind(d) == NX_KIND_UNSIGNED;
}

/* x as int64 (signed) or uint64: a fresh C-contiguous array. */
static int as_ints(nx_array *x, nx_array **out) {
  *out = NULL;
  return nx_cast_new(out, nx_dtype_kind(nx_array_dtype(x)) == NX_KIND_SIGNED ? NX_INT64 : NX_UINT64, x);
}

/* x as float64 values, times scale: a fresh C-contiguous array (complex
   ones as pairs on a last axis). */
static int as_doubles(nx_array *x, double scale, nx_array **out) {
  bool cx = nx_dtype_kind(nx_array_dtype(x)) == NX_KIND_COMPLEX;
  nx_array *d = NULL, *r = NULL, *k = NULL, *one = NULL;
  int s = nx_cast_new(&d, cx ? NX_COMPLEX128 : NX_FLOAT64, x);
  if (s == 0 && cx) {
    s = nx_array_bitcast(NX_FLOAT64, d, &r);
    nx_array_free(d);
    d = r;
  }
  if (s == 0 && scale != 1) {
    nx_value v = {.f = scale};
    const nx_layout *l = nx_array_layout(d);
    nx_move m;
    s = nx_array_of_array(NX_FLOAT64, NULL, 0, &v, 1, &one);
    if (s == 0) s = nx_move_expand(&m, l->extent, l->rank);
    if (s == 0) s = nx_array_move(&m, one, &k);
    if (s == 0) s = nx_mul(d, d, k);
  }
  nx_array_free(one);
  nx_array_free(k);
  if (s != 0) {
    nx_array_free(d);
    return s;
  }
  *out = d;
  return 0;
}

static void coarser(stats *st, nx_dtype a, nx_dtype b, double sa, double sb) {
  nx_float_format fa, fb;
  bool ha = nx_dtype_float_format(a == NX_COMPLEX128 ? NX_FLOAT64 : a == NX_COMPLEX64 ? NX_FLOAT32 : a, &fa) == 0;
  bool hb = nx_dtype_float_format(b == NX_COMPLEX128 ? NX_FLOAT64 : b == NX_COMPLEX64 ? NX_FLOAT32 : b, &fb) == 0;
  st->fb = -1;
  st->scale = 1;
  if (!ha && !hb) return;
  bool use_a = ha && (!hb || fa.fraction_bits <= fb.fraction_bits);
  nx_float_format *f = use_a ? &fa : &fb;
  st->fb = f->fraction_bits;
  st->emin = ilogb(f->min_normal);
  st->scale = use_a ? sa : sb;
}

/* A number as JSON has it; JSON has no infinity or NaN, so those are the
   strings "inf", "-inf" and "nan". */
static void json_number(const char *key, double x) {
  if (isfinite(x)) printf(", \"%s\": %.17g", key, x);
  else printf(", \"%s\": \"%s\"", key, isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
}

/* A tensor of one file only: side is "a" or "b", path that file. */
static void only_in(bool json, const char *name, const char *side, const char *path) {
  if (!json) {
    printf("%-24s only in %s\n", name, path);
    return;
  }
  printf("{\"name\": ");
  nx_tool_json_string(stdout, name);
  printf(", \"only_in\": \"%s\", \"file\": ", side);
  nx_tool_json_string(stdout, path);
  printf("}\n");
}

static void report(bool json, const char *name, nx_dtype da, nx_dtype db, const stats *st) {
  double rms = st->n ? sqrt(st->sum_sq / (double)st->n) : 0;
  if (json) {
    printf("{\"name\": ");
    nx_tool_json_string(stdout, name);
    printf(", \"a\": \"%s\", \"b\": \"%s\", \"elements\": %lld, \"differ\": %lld", nx_dtype_name(da),
           nx_dtype_name(db), (long long)st->n, (long long)st->differ);
    json_number("max_abs", st->max_abs);
    json_number("max_rel", st->max_rel);
    json_number("rms", rms);
    printf(", \"ulp_histogram\": {");
    for (int k = 0; k < NBUCKETS; k++) printf("%s\"%s\": %lld", k ? ", " : "", bucket_names[k], (long long)st->hist[k]);
    printf("}}\n");
    return;
  }
  printf("%-24s %-14s %-14s %11.4g %11.4g %11.4g %9lld/%-9lld", name, nx_dtype_name(da), nx_dtype_name(db),
         st->max_abs, st->max_rel, rms, (long long)st->differ, (long long)st->n);
  for (int k = 0; k < NBUCKETS; k++) printf(" %s:%lld", bucket_names[k], (long long)st->hist[k]);
  printf("\n");
}

/* Compares tensor ia of a with tensor ib of b: 0 equal within tol, 1
   beyond it, -1 failed (message printed). */
static int compare(nx_io_file *a, int ia, nx_io_file *b, int ib, int as, double tol, bool json) {
  static const char cmd[] = "diff";
  const nx_io_tensor *ta = nx_io_file_tensor(a, ia), *tb = nx_io_file_tensor(b, ib);
  double sa, sb;
  nx_array *xa = NULL, *xb = NULL, *da = NULL, *db = NULL;
  if (nx_tool_scale_of(cmd, a, ia, &sa) != 0 || nx_tool_scale_of(cmd, b, ib, &sb) != 0) return -1;
  if (nx_tool_load(cmd, a, ia, as, &xa) != 0) return -1;
  if (nx_tool_load(cmd, b, ib, as, &xb) != 0) {
    nx_array_free(xa);
    return -1;
  }
  int r = 0;
  const nx_layout *la = nx_array_layout(xa), *lb = nx_array_layout(xb);
  bool cxa = nx_dtype_kind(nx_array_dtype(xa)) == NX_KIND_COMPLEX;
  bool cxb = nx_dtype_kind(nx_array_dtype(xb)) == NX_KIND_COMPLEX;
  bool exact = is_integer(nx_array_dtype(xa)) && is_integer(nx_array_dtype(xb)) && sa == 1 && sb == 1;
  bool same = la->rank == lb->rank;
  for (int j = 0; same && j < la->rank; j++) same = la->extent[j] == lb->extent[j];
  if (!same || cxa != cxb) {
    char d1[1024], d2[1024]; /* room for NX_MAX_RANK extents of 19 digits */
    if (json) {
      printf("{\"name\": ");
      nx_tool_json_string(stdout, ta->name);
      printf(", \"a\": \"%s\", \"b\": \"%s\", \"a_shape\": %s, \"b_shape\": %s, \"mismatch\": \"%s\"}\n",
             nx_dtype_name(nx_array_dtype(xa)), nx_dtype_name(nx_array_dtype(xb)),
             nx_tool_shape(la->extent, la->rank, d1, sizeof d1), nx_tool_shape(lb->extent, lb->rank, d2, sizeof d2),
             same ? "kinds" : "shapes");
    } else {
      printf("%-24s %s differ: %s and %s\n", ta->name, same ? "kinds (complex and real)" : "shapes",
             nx_array_describe(xa, d1, sizeof d1), nx_array_describe(xb, d2, sizeof d2));
    }
    r = 1;
  } else if (exact ? as_ints(xa, &da) != 0 || as_ints(xb, &db) != 0
                   : as_doubles(xa, sa, &da) != 0 || as_doubles(xb, sb, &db) != 0) {
    r = -1;
    nx_tool_fail(cmd, "tensor '%s': %s", ta->name, nx_error_message());
  } else {
    stats st = {0};
    coarser(&st, nx_array_dtype(xa), nx_array_dtype(xb), sa, sb);
    struct outer_ctx c = {&st, db, exact ? 2 : cxa, nx_array_dtype(da) == NX_INT64, nx_array_dtype(db) == NX_INT64};
    if (nx_array_read(da, outer, &c) != 0) {
      r = -1;
      nx_tool_fail(cmd, "tensor '%s': %s", ta->name, nx_error_message());
    } else {
      report(json, ta->name, nx_array_dtype(xa), nx_array_dtype(xb), &st);
      r = st.max_abs > tol || (st.differ && isnan(st.max_abs)) ? 1 : 0;
    }
  }
  (void)tb;
  nx_array_free(xa);
  nx_array_free(xb);
  nx_array_free(da);
  nx_array_free(db);
  return r;
}

/* Whether a tensor of f (not a scale) has a name that glob matches: a
   mistyped --only must not read as "no difference". */
static bool matches(nx_io_file *f, const char *glob) {
  for (int i = 0; i < nx_io_file_count(f); i++)
    if (!nx_tool_is_scale(f, i) && nx_tool_match(glob, nx_io_file_tensor(f, i)->name)) return true;
  return false;
}

int nx_cmd_diff(int argc, char **argv) {
  static const char cmd[] = "diff";
  const char *files[2] = {NULL, NULL}, *only = NULL;
  int nfiles = 0, as = -1;
  double tol = 0;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      help();
      return NX_EXIT_DONE;
    }
    bool takes = !strcmp(a, "--only") || !strcmp(a, "--tol") || !strcmp(a, "--as");
    if (takes && i + 1 == argc) return nx_tool_usage(cmd, usage, "%s needs a value", a);
    if (!strcmp(a, "--only")) {
      only = argv[++i];
    } else if (!strcmp(a, "--tol")) {
      char *end;
      tol = strtod(argv[++i], &end);
      if (*end || end == argv[i] || !(tol >= 0))
        return nx_tool_usage(cmd, usage, "--tol is a number >= 0, not '%s'", argv[i]);
    } else if (!strcmp(a, "--as")) {
      nx_dtype dt;
      if (nx_tool_dtype(argv[++i], &dt) != 0) return nx_tool_usage(cmd, usage, "unknown dtype '%s'", argv[i]);
      as = (int)dt;
    } else if (!strcmp(a, "--json")) {
      json = true;
    } else if (a[0] == '-' && a[1]) {
      return nx_tool_usage(cmd, usage, "unknown option '%s'", a);
    } else if (nfiles == 2) {
      return nx_tool_usage(cmd, usage, "unexpected argument '%s'", a);
    } else {
      files[nfiles++] = a;
    }
  }
  if (nfiles < 2) return nx_tool_usage(cmd, usage, "A and B are needed");
  nx_io_file *fa = nx_tool_open(cmd, files[0]), *fb = fa ? nx_tool_open(cmd, files[1]) : NULL;
  if (!fb) {
    nx_io_close(fa);
    return NX_EXIT_FAILED;
  }
  if (only && !matches(fa, only) && !matches(fb, only)) {
    nx_io_close(fa);
    nx_io_close(fb);
    return nx_tool_fail(cmd, "no tensor of %s or %s matches %s", files[0], files[1], only);
  }
  if (!json)
    printf("%-24s %-14s %-14s %11s %11s %11s %19s  ulp histogram\n", "name", "a", "b", "max abs", "max rel", "rms",
           "differ/elements");
  int status = NX_EXIT_DONE, compared = 0;
  for (int i = 0; i < nx_io_file_count(fa); i++) {
    const nx_io_tensor *t = nx_io_file_tensor(fa, i);
    if (nx_tool_is_scale(fa, i) || !nx_tool_match(only, t->name)) continue;
    int j;
    if (nx_io_file_find(fb, t->name, &j) != 0) {
      only_in(json, t->name, "a", files[0]);
      status = NX_EXIT_FAILED;
      continue;
    }
    int r = compare(fa, i, fb, j, as, tol, json);
    compared++;
    if (r != 0) status = NX_EXIT_FAILED;
  }
  for (int j = 0; j < nx_io_file_count(fb); j++) {
    const nx_io_tensor *t = nx_io_file_tensor(fb, j);
    int i;
    if (nx_tool_is_scale(fb, j) || !nx_tool_match(only, t->name) || nx_io_file_find(fa, t->name, &i) == 0) continue;
    only_in(json, t->name, "b", files[1]);
    status = NX_EXIT_FAILED;
  }
  nx_io_close(fa);
  nx_io_close(fb);
  return status;
}
