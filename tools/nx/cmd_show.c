/* SPDX-License-Identifier: Apache-2.0 */
/* nx show FILE[:NAME][SLICE]: elements printed numpy-style with pp_value,
   summarized with "…" past 1000 elements, through a numpy-style slice; "[]"
   for a tensor of no element. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_io.h"
#include "commands.h"

static const char usage[] = "nx show FILE[:NAME][SLICE] [--as DTYPE] [--full]";

static void help(void) {
  printf("usage: %s\n\n"
         "Prints a tensor's elements, each as the shortest text that reads back to it, numpy-style:\n"
         "[[0.1, 0.2], [0.3, 0.4]]. Without NAME, every tensor of the file. Past 1000 elements each\n"
         "axis shows its first and last 3, with … between. A tensor of no element is [], whatever its\n"
         "shape, as numpy prints it.\n\n"
         "  SLICE         numpy's: [0], [1:3], [::2, -1], [:, 2:], one entry per leading axis\n"
         "  --as DTYPE    read raw .npy bytes (<V1, <V2) as DTYPE, e.g. bfloat16\n"
         "  --full        no summary: every element\n"
         "  --help        this text\n\n"
         "Exit status: 0 done, 1 failed (no such file or tensor, a bad slice), 2 usage.\n"
         "Example: nx show model.safetensors:w[0, :4]\n",
         usage);
}

/* One slice entry: an index (select) or start:stop:step. */
typedef struct entry {
  bool index;
  int64_t a, b, c;
} entry;

static bool parse_int(const char **p, int64_t *v) {
  char *end;
  long long x = strtoll(*p, &end, 10);
  if (end == *p) return false;
  *v = x;
  *p = end;
  return true;
}

static void skip(const char **p) {
  while (**p == ' ') (*p)++;
}

/* Parses "[e, e, ...]": the count, or -1. */
static int parse_slice(const char *s, entry *es) {
  const char *p = s + 1;
  int n = 0;
  for (;;) {
    skip(&p);
    if (*p == ']' && n == 0) break;
    if (n == NX_MAX_RANK) return -1;
    entry e = {false, NX_SLICE_NONE, NX_SLICE_NONE, NX_SLICE_NONE};
    int64_t v;
    bool have = parse_int(&p, &v);
    skip(&p);
    if (*p != ':') {
      if (!have) return -1;
      e.index = true;
      e.a = v;
    } else {
      if (have) e.a = v;
      p++;
      skip(&p);
      if (parse_int(&p, &v)) e.b = v;
      skip(&p);
      if (*p == ':') {
        p++;
        skip(&p);
        if (parse_int(&p, &v)) {
          if (v == 0) return -1;
          e.c = v;
        }
      }
    }
    es[n++] = e;
    skip(&p);
    if (*p == ',') {
      p++;
      continue;
    }
    if (*p == ']') break;
    return -1;
  }
  return p[1] == 0 ? n : -1;
}

static int apply_slice(const char *spec, nx_array **a) {
  entry es[NX_MAX_RANK];
  int n = parse_slice(spec, es);
  const nx_layout *l = nx_array_layout(*a);
  if (n < 0 || n > l->rank) return -1;
  int64_t st[NX_MAX_RANK], sp[NX_MAX_RANK], sc[NX_MAX_RANK];
  int drop[NX_MAX_RANK], nd = 0;
  for (int j = 0; j < n; j++) {
    if (es[j].index) {
      int64_t i = es[j].a < 0 ? es[j].a + l->extent[j] : es[j].a;
      if (i < 0 || i >= l->extent[j]) return -2;
      st[j] = i;
      sp[j] = i + 1;
      sc[j] = 1;
      drop[nd++] = j;
    } else {
      st[j] = es[j].a;
      sp[j] = es[j].b;
      sc[j] = es[j].c == NX_SLICE_NONE ? 1 : es[j].c;
    }
  }
  nx_move m;
  nx_array *r, *q;
  if (nx_move_slice(&m, st, sp, sc, n) != 0 || nx_array_move(&m, *a, &r) != 0) return -1;
  nx_array_free(*a);
  *a = r;
  if (nd) {
    if (nx_move_squeeze(&m, drop, nd) != 0 || nx_array_move(&m, *a, &q) != 0) return -1;
    nx_array_free(*a);
    *a = q;
  }
  return 0;
}

typedef struct printer {
  const nx_array *a;
  bool summary;
  int64_t index[NX_MAX_RANK];
  int status;
} printer;

static void element(printer *p) {
  nx_value v;
  char t[NX_DTYPE_PP_MAX];
  if (nx_array_get(p->a, p->index, &v) != 0 || nx_dtype_pp_value(nx_array_dtype(p->a), v, t, sizeof t) < 0) {
    p->status = -1;
    fputs("?", stdout);
    return;
  }
  fputs(t, stdout);
}

static void axis(printer *p, int j) {
  const nx_layout *l = nx_array_layout(p->a);
  if (j == l->rank) {
    element(p);
    return;
  }
  int64_t n = l->extent[j];
  fputc('[', stdout);
  for (int64_t i = 0; i < n; i++) {
    if (p->summary && n > 6 && i == 3) {
      fputs(j + 1 == l->rank ? ", …" : ",\n", stdout);
      if (j + 1 < l->rank) printf("%*s…", j + 1, "");
      i = n - 3;
    }
    if (i) {
      fputc(',', stdout);
      if (j + 1 == l->rank) fputc(' ', stdout);
      else {
        for (int k = j + 1; k < l->rank; k++) fputc('\n', stdout);
        printf("%*s", j + 1, "");
      }
    }
    p->index[j] = i;
    axis(p, j + 1);
  }
  fputc(']', stdout);
}

static int show(nx_io_file *f, int i, const char *slice, int as, bool full, bool titled) {
  const nx_io_tensor *t = nx_io_file_tensor(f, i);
  nx_array *a;
  if (nx_tool_load("show", f, i, as, &a) != 0) return NX_EXIT_FAILED;
  if (slice) {
    int s = apply_slice(slice, &a);
    if (s != 0) {
      nx_array_free(a);
      return nx_tool_fail("show", "%s: tensor '%s' %s: %s", nx_io_file_path(f), t->name, slice,
                          s == -2 ? "an index is out of range" : "not a slice of its shape");
    }
  }
  char d[512];
  if (titled) printf("%s: %s\n", t->name, nx_array_describe(a, d, sizeof d));
  int64_t count = nx_layout_count(nx_array_layout(a));
  printer p = {a, !full && count > 1000, {0}, 0};
  /* No element: "[]" whatever the shape, as numpy prints it (the axes'
     brackets alone could be billions of lines: [3000000000, 0]). */
  if (count == 0) fputs("[]", stdout);
  else axis(&p, 0);
  fputc('\n', stdout);
  nx_array_free(a);
  if (p.status != 0) return nx_tool_fail("show", "%s: tensor '%s': %s", nx_io_file_path(f), t->name, nx_error_message());
  return NX_EXIT_DONE;
}

int nx_cmd_show(int argc, char **argv) {
  const char *spec = NULL;
  int as = -1;
  bool full = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      help();
      return NX_EXIT_DONE;
    } else if (!strcmp(argv[i], "--full")) {
      full = true;
    } else if (!strcmp(argv[i], "--as")) {
      nx_dtype dt;
      if (i + 1 == argc) return nx_tool_usage("show", usage, "--as needs a dtype");
      if (nx_tool_dtype(argv[++i], &dt) != 0) return nx_tool_usage("show", usage, "unknown dtype '%s'", argv[i]);
      as = (int)dt;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return nx_tool_usage("show", usage, "unknown option '%s'", argv[i]);
    } else if (spec) {
      return nx_tool_usage("show", usage, "unexpected argument '%s'", argv[i]);
    } else {
      spec = argv[i];
    }
  }
  if (!spec) return nx_tool_usage("show", usage, "no FILE given");
  char *path = strdup(spec);
  if (!path) return nx_tool_fail("show", "out of memory");
  char *slice = NULL, *name = NULL;
  size_t len = strlen(path);
  if (len && path[len - 1] == ']' && access(path, F_OK) != 0) {
    char *open = strrchr(path, '[');
    if (open) {
      slice = strdup(open);
      *open = 0;
    }
  }
  if (access(path, F_OK) != 0) {
    /* FILE:NAME, where either may hold colons: the longest FILE that
       exists, else the cut at the last colon (whose open then says what
       is missing) */
    char *cut = NULL;
    for (char *q = path + strlen(path); !cut && q-- > path;)
      if (*q == ':') {
        *q = 0;
        if (access(path, F_OK) == 0) cut = q;
        *q = ':';
      }
    if (!cut) cut = strrchr(path, ':');
    if (cut) {
      *cut = 0;
      name = cut + 1;
    }
  }
  int status = NX_EXIT_DONE;
  nx_io_file *f = nx_tool_open("show", path);
  if (!f) status = NX_EXIT_FAILED;
  else if (name) {
    int i;
    if (nx_io_file_find(f, name, &i) != 0)
      status = nx_tool_fail("show", "%s: no tensor named '%s'", path, name);
    else
      status = show(f, i, slice, as, full, false);
  } else {
    for (int i = 0; i < nx_io_file_count(f) && status == NX_EXIT_DONE; i++)
      status = show(f, i, slice, as, full, nx_io_file_count(f) > 1);
  }
  nx_io_close(f);
  free(slice);
  free(path);
  return status;
}
