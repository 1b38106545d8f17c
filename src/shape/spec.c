/* SPDX-License-Identifier: Apache-2.0 */
/* The einsum/permute spec parser, in OCANNL's syntax:
     spec    := operand (';' operand)* '=>' shape
     shape   := [row '|'] [row '->'] row     (batch | input -> output)
     row     := axis*  with at most one row variable ('...' or '..name..')
     axis    := atom ('^' atom)*              (concatenation)
     atom    := label | digits (fixed index) | '_' | affine
     affine  := [c '*'] label [pad] ['+' k] ['+' [c '*'] label]
   (multi-character mode; c a number or an identifier whose value the
   options give, pad '=' or '<'; a second label is a convolution's kernel)
   A spec is in multi-character mode when it holds any of , * + ^ & < or an
   '=' that does not begin "=>" (OCANNL's lexer's trigger): then axes are
   comma-separated identifiers (a letter, then letters, digits and '_'),
   with an optional trailing comma (and, as OCANNL's grammar, optional
   commas beside the row variable). Otherwise every letter is an axis of its
   own and a run of digits one fixed index. Spaces are ignored. A kind that
   is not written is a closed empty row. One name may not be both a dim
   label and a row variable. Errors name the byte position. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "tensor_internal.h"

typedef struct {
  nx_shape_session *s;
  const char *spec;
  const char *p, *end; /* the current slot */
  bool commas;
  nx__spec_env *env;
  int kind;
  const nx_einsum_options *opt; /* NULL: no identifier values, padding unspecified */
  bool leaf; /* a leaf's shape spec: a number is a size, not a fixed index */
} parser;

static int fail(parser *q, const char *p, const char *what) {
  return nx__shape_error(q->s, NULL, "Invalid einsum spec at position %d: %s: %s", (int)(p - q->spec), what, q->spec);
}

static void skip(parser *q) {
  while (q->p < q->end && isspace((unsigned char)*q->p)) q->p++;
}

/* Doubles an arena table of the spec's environment to hold n + 1 entries
   (the old copy stays in the arena); NX_ENOMEM past the int range. */
static int env_grow(void ***p, int n, int *cap, nx_shape_session *s, size_t elem) {
  if (n < *cap) return 0;
  if (*cap > INT_MAX / 2) return NX_ENOMEM;
  int nc = *cap ? *cap * 2 : 8;
  void **x = nx__shape_alloc(s, (size_t)nc * elem);
  if (!x) return NX_ENOMEM;
  if (n) memcpy(x, *p, (size_t)n * elem);
  *p = x;
  *cap = nc;
  return 0;
}

/* A variable named by the label's len bytes, whatever its length. */
static int new_named_var(nx_shape_session *s, bool is_row, const char *name, size_t len) {
  int v = nx__shape_new_var(s, is_row, NULL);
  if (v >= 0 && !(NX__VAR(s, v)->name = nx__shape_strndup(s, name, len))) return NX_ENOMEM;
  return v;
}

/* The dim variable of label name (len bytes) in the spec's environment, made
   at its first use; NULL when memory runs out. */
static const nx_dim *label_dim(parser *q, const char *name, size_t len) {
  nx__spec_env *e = q->env;
  for (int i = 0; i < e->ndims; i++)
    if (strlen(e->dim_names[i]) == len && !strncmp(e->dim_names[i], name, len)) return e->dims[i];
  int caps = e->caps_d;
  if (env_grow((void ***)&e->dim_names, e->ndims, &caps, q->s, sizeof(char *))) return NULL;
  if (env_grow((void ***)&e->dims, e->ndims, &e->caps_d, q->s, sizeof(nx_dim *))) return NULL;
  int v = new_named_var(q->s, false, name, len);
  if (v < 0) return NULL;
  e->dim_names[e->ndims] = NX__VAR(q->s, v)->name;
  e->dims[e->ndims] = nx__shape_dim_var(q->s, v);
  return e->dims[e->ndims++];
}

/* The row variable of name (len bytes), made at its first use and marked
   used by a spec; NX_ENOMEM when memory runs out. */
static int label_row(parser *q, const char *name, size_t len) {
  nx__spec_env *e = q->env;
  for (int i = 0; i < e->nrows; i++)
    if (strlen(e->row_names[i]) == len && !strncmp(e->row_names[i], name, len)) return e->rows[i]->var;
  int caps = e->caps_r;
  if (env_grow((void ***)&e->row_names, e->nrows, &caps, q->s, sizeof(char *))) return NX_ENOMEM;
  if (env_grow((void ***)&e->rows, e->nrows, &e->caps_r, q->s, sizeof(nx_row *))) return NX_ENOMEM;
  int v = new_named_var(q->s, true, name, len);
  if (v < 0) return v;
  NX__VAR(q->s, v)->in_spec = true;
  e->row_names[e->nrows] = NX__VAR(q->s, v)->name;
  e->rows[e->nrows++] = nx__shape_row_of_var(q->s, v);
  return v;
}

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The decimal number at q->p; refused past int64. */
static int number(parser *q, int64_t *out) {
  int64_t x = 0;
  const char *st = q->p;
  while (q->p < q->end && isdigit((unsigned char)*q->p)) {
    if (x > (INT64_MAX - 9) / 10) return fail(q, st, "number too large");
    x = x * 10 + (*q->p++ - '0');
  }
  *out = x;
  return 0;
}

/* A fixed index i: a fresh dim of size at least i + 1, recorded so that
   projections read the constant. */
static int fresh_fixed(parser *q, int64_t i, const nx_dim **out) {
  int v = nx__shape_new_var(q->s, false, NULL);
  if (v < 0) return v;
  nx__spec_env *e = q->env;
  int caps = e->caps_f;
  if (env_grow((void ***)&e->fixed_var, e->nfixed, &caps, q->s, sizeof(int)) ||
      env_grow((void ***)&e->fixed_idx, e->nfixed, &e->caps_f, q->s, sizeof(int64_t)))
    return NX_ENOMEM;
  e->fixed_var[e->nfixed] = v;
  e->fixed_idx[e->nfixed++] = i;
  *out = nx__shape_dim_var(q->s, v);
  nx__cons c = {.kind = NX__C_AT_LEAST, .d1 = *out, .n = i + 1};
  return nx__shape_push(q->s, &q->s->pending, &c);
}

/* The length of the identifier at q->p: in multi-character mode a letter
   then letters, digits and '_'; otherwise one letter. 0 if none. */
static size_t ident(const parser *q) {
  const char *p = q->p;
  if (p >= q->end || !isalpha((unsigned char)*p)) return 0;
  if (!q->commas) return 1;
  while (p < q->end && ident_char(*p)) p++;
  return (size_t)(p - q->p);
}

/* A stride or dilation written as an identifier: its value from the
   options, as OCANNL's syntax extension substitutes it. */
static int ident_value(parser *q, const char *st, size_t len, const char *what, int64_t *out) {
  const nx_einsum_options *o = q->opt;
  for (int i = 0; o && i < o->nvalues; i++)
    if (o->names && o->names[i] && strlen(o->names[i]) == len && !strncmp(o->names[i], st, len)) {
      *out = o->values[i];
      return 0;
    }
  char msg[160];
  snprintf(msg, sizeof msg, "Invalid %s value (expected integer): %.*s", what, (int)(len > 64 ? 64 : len), st);
  return fail(q, st, msg);
}

/* A coefficient before '*' (a number or an identifier with a value), if
   one is there: *has says whether it was. */
static int coefficient(parser *q, const char *what, int64_t *out, bool *has) {
  const char *st = q->p;
  size_t len = ident(q);
  int rc;
  *has = false;
  if (len) q->p += len;
  else if (q->p < q->end && isdigit((unsigned char)*q->p)) {
    if ((rc = number(q, out))) return rc;
  } else return 0;
  skip(q);
  if (q->p < q->end && *q->p == '*') {
    q->p++;
    skip(q);
    *has = true;
    return len ? ident_value(q, st, len, what, out) : 0;
  }
  q->p = st; /* not a coefficient: read it again as what it is */
  return 0;
}

/* A label at q->p, as the dim variable it names. */
static int label_at(parser *q, const char *what, const nx_dim **out) {
  size_t len = ident(q);
  if (!len) return fail(q, q->p, what);
  *out = label_dim(q, q->p, len);
  q->p += len;
  skip(q);
  return *out ? 0 : NX_ENOMEM;
}

/* OCANNL's affine axis, in multi-character mode:
     [stride '*'] over [pad] ['+' offset] ['+' [dilation '*'] kernel]
   where stride and dilation are numbers or identifiers with values, pad is
   '=' (use padding) or '<' (none), and a kernel makes it a convolution,
   whose padding must be given (by the marker or the options). A bare label
   is the label itself. */
static int affine_axis(parser *q, const nx_dim **out) {
  const char *st = q->p;
  int64_t stride = 1, offset = 0, dilation = 1;
  bool has_stride, has_dilation, has_offset = false;
  int pad = NX_PADDING_UNSPECIFIED, rc;
  const nx_dim *over = NULL, *kernel = NULL;
  if ((rc = coefficient(q, "stride", &stride, &has_stride))) return rc;
  if ((rc = label_at(q, has_stride ? "expected a label after '*'" : "expected an axis", &over))) return rc;
  const char *pad_at = q->p;
  if (q->leaf && !has_stride && q->p + 1 < q->end && *q->p == '=' && isdigit((unsigned char)q->p[1])) {
    q->p++; /* OCANNL's `l=5` in a leaf: the size 5 (the label is a name, not a basis) */
    int64_t size = 0;
    if ((rc = number(q, &size))) return rc;
    *out = nx__shape_dim_solved(q->s, size, NX_BASIS_DEFAULT);
    return *out ? 0 : NX_ENOMEM;
  }
  if (q->p < q->end && (*q->p == '=' || *q->p == '<')) {
    pad = *q->p++ == '=' ? NX_PADDING_TRUE : NX_PADDING_FALSE;
    skip(q);
  }
  if (q->p < q->end && *q->p == '+') {
    q->p++;
    skip(q);
    if (q->p < q->end && isdigit((unsigned char)*q->p)) {
      const char *num = q->p;
      if ((rc = number(q, &offset))) return rc;
      skip(q);
      if (q->p < q->end && *q->p == '*') { /* a dilation, not an offset */
        q->p = num;
        offset = 0;
      } else {
        has_offset = true;
        if (q->p < q->end && *q->p == '+') {
          q->p++;
          skip(q);
        } else goto made;
      }
    }
    if ((rc = coefficient(q, "dilation", &dilation, &has_dilation))) return rc;
    if ((rc = label_at(q, "expected a kernel label or an offset after '+'", &kernel))) return rc;
  }
made:
  if (stride < 1) return fail(q, st, "stride must be at least 1");
  if (kernel && dilation < 1) return fail(q, st, "dilation must be at least 1");
  if (!kernel && pad != NX_PADDING_UNSPECIFIED) return fail(q, pad_at, "a padding marker without a kernel");
  if (kernel && pad == NX_PADDING_UNSPECIFIED && q->opt) pad = q->opt->use_padding;
  if (kernel && pad == NX_PADDING_UNSPECIFIED)
    return fail(q, st, "use_padding must be specified in convolution spec (use = for true, < for false)");
  if (kernel) *out = nx_dim_conv(q->s, stride, over, offset, dilation, kernel, pad == NX_PADDING_TRUE);
  else if (has_stride || has_offset) *out = nx_dim_affine(q->s, stride, over, offset);
  else *out = over;
  return *out ? 0 : NX_ENOMEM;
}

/* One part of an axis: `_`, a fixed index (a size in a leaf spec), a
   label, or (multi-character mode) an affine or convolution axis. */
static int atom(parser *q, const nx_dim **out) {
  skip(q);
  const char *st = q->p;
  if (q->p >= q->end) return fail(q, st, "expected an axis");
  char c = *q->p;
  int64_t n = 0;
  int rc;
  if (c == '_' && (!q->commas || q->p + 1 >= q->end || !ident_char(q->p[1]))) {
    q->p++;
    int v = nx__shape_new_var(q->s, false, NULL);
    if (v < 0) return v;
    *out = nx__shape_dim_var(q->s, v);
    return 0;
  }
  if (q->commas && (isalnum((unsigned char)c))) {
    /* a number not followed by '*' is a fixed index */
    const char *p = q->p;
    while (p < q->end && isdigit((unsigned char)*p)) p++;
    while (p < q->end && isspace((unsigned char)*p)) p++;
    if (!isdigit((unsigned char)c) || (p < q->end && *p == '*')) return affine_axis(q, out);
  }
  if (isdigit((unsigned char)c)) {
    if ((rc = number(q, &n))) return rc;
    if (q->leaf) { /* a size */
      *out = nx__shape_dim_solved(q->s, n, NX_BASIS_DEFAULT);
      return *out ? 0 : NX_ENOMEM;
    }
    if (n == INT64_MAX) return fail(q, st, "fixed index too large"); /* its axis would need n + 1 */
    return fresh_fixed(q, n, out);
  }
  if (!isalpha((unsigned char)c)) return fail(q, st, "unexpected character");
  q->p++;
  *out = label_dim(q, st, 1);
  return *out ? 0 : NX_ENOMEM;
}

/* Whether [b, e) is a fixed index or '_' (spaces after it ignored). */
static bool is_blank(const char *b, const char *e) {
  while (e > b && isspace((unsigned char)e[-1])) e--;
  if (e - b == 1 && *b == '_') return true;
  if (e == b) return false;
  for (const char *p = b; p < e; p++)
    if (!isdigit((unsigned char)*p)) return false;
  return true;
}

/* An axis: one atom, or atoms joined by '^' (a concatenation). */
static int axis(parser *q, const nx_dim **out) {
  const nx_dim *parts[64];
  int n = 0, rc;
  const char *blank = NULL; /* a part that is a fixed index or '_' */
  for (;;) {
    if (n == 64) return fail(q, q->p, "too many concatenated parts");
    skip(q);
    const char *st = q->p;
    if ((rc = atom(q, &parts[n++]))) return rc;
    if (!blank && !q->leaf && is_blank(st, q->p)) blank = st;
    skip(q);
    if (q->p < q->end && *q->p == '^') {
      q->p++;
      continue;
    }
    break;
  }
  /* OCANNL's grammar has labels for a concatenation's parts; a number there
     reads in its documents as a size, not as an index, so neither is
     guessed. */
  if (n > 1 && blank) return fail(q, blank, "a concatenation's part is a fixed index or '_', not a label");
  *out = n == 1 ? parts[0] : nx_dim_concat(q->s, parts, n);
  return *out ? 0 : NX_ENOMEM;
}

static const char *kind_names[3] = {"batch", "input", "output"};

static bool only_space(const char *p, const char *e) {
  for (; p < e; p++)
    if (!isspace((unsigned char)*p)) return false;
  return true;
}

/* The row of kind `kind` written in [b, e): axes, at most one row variable
   (`...` named by the kind, or `..name..`) splitting them into the left and
   right flanks. */
static int row(parser *q, const char *b, const char *e, int kind, const nx_row **out) {
  q->p = b;
  q->end = e;
  q->kind = kind;
  const nx_dim *dims[256];
  int n = 0, nbeg = -1, var = 0, rc;
  bool after_var = false; /* the item before is the row variable */
  for (;;) {
    skip(q);
    if (q->p >= q->end) break;
    /* Multi-character mode: a comma between two axes; beside the row
       variable it may be left out, and a row may be a lone comma, as
       OCANNL's grammar has them. */
    if (q->commas && *q->p == ',' && (n + (var != 0) > 0 || q->p + 1 == q->end || only_space(q->p + 1, q->end))) {
      q->p++;
      skip(q);
      if (q->p >= q->end) break; /* a trailing comma */
    } else if (q->commas && n + (var != 0) > 0 && !after_var && *q->p != '.') {
      return fail(q, q->p, "expected ','");
    }
    after_var = false;
    if (*q->p == '.') {
      const char *st = q->p;
      if (var) return fail(q, st, "a second row variable in one row");
      if (q->end - q->p >= 3 && !strncmp(q->p, "...", 3)) {
        q->p += 3;
        var = label_row(q, kind_names[kind], strlen(kind_names[kind]));
      } else if (q->end - q->p >= 2 && q->p[1] == '.') {
        /* '..' name [','] '..', spaces between them (OCANNL's lexer skips them) */
        q->p += 2;
        skip(q);
        const char *l = q->p;
        while (q->p < q->end && ident_char(*q->p)) q->p++;
        const char *le = q->p;
        skip(q);
        if (q->commas && q->p < q->end && *q->p == ',') q->p++, skip(q);
        if (l == le || q->end - q->p < 2 || strncmp(q->p, "..", 2)) return fail(q, st, "expected '..name..' or '...'");
        var = label_row(q, l, (size_t)(le - l));
        q->p += 2;
      } else return fail(q, st, "expected '..name..' or '...'");
      if (var < 0) return var;
      nbeg = n;
      after_var = true;
      continue;
    }
    if (n == 256) return fail(q, q->p, "too many axes");
    if ((rc = axis(q, &dims[n]))) return rc;
    n++;
  }
  if (nbeg < 0) nbeg = 0;
  *out = var ? nx__shape_row_new(q->s, dims, nbeg, dims + nbeg, n - nbeg, var) : nx__shape_row_new(q->s, NULL, 0, dims, n, 0);
  return *out ? 0 : NX_ENOMEM;
}

static const char *find(const char *b, const char *e, const char *pat) {
  size_t k = strlen(pat);
  for (const char *p = b; p + k <= e; p++)
    if (!strncmp(p, pat, k)) return p;
  return NULL;
}

/* The three rows of `batch|input->output` in [b, e); a kind not written
   is a closed empty row. */
static int shape(parser *q, const char *b, const char *e, const nx_row **rows) {
  const char *bar = find(b, e, "|"), *arrow = find(b, e, "->");
  if (bar && find(bar + 1, e, "|")) return fail(q, find(bar + 1, e, "|"), "a second '|'");
  if (arrow && find(arrow + 2, e, "->")) return fail(q, find(arrow + 2, e, "->"), "a second '->'");
  if (bar && arrow && bar > arrow) return fail(q, bar, "'|' after '->'");
  const char *ib = bar ? bar + 1 : b, *ob = arrow ? arrow + 2 : ib;
  int rc;
  if ((rc = row(q, b, bar ? bar : b, NX_AXIS_BATCH, &rows[NX_AXIS_BATCH]))) return rc;
  if ((rc = row(q, ib, arrow ? arrow : ib, NX_AXIS_INPUT, &rows[NX_AXIS_INPUT]))) return rc;
  return row(q, ob, e, NX_AXIS_OUTPUT, &rows[NX_AXIS_OUTPUT]);
}

/* Whether spec is in multi-character mode (see the top of this file). */
static bool multichar(const char *spec) {
  for (const char *p = spec; *p; p++)
    if (strchr(",*+^&<", *p) || (*p == '=' && p[1] != '>')) return true;
  return false;
}

/* OCANNL's check: a name that labels a dim and a row variable in one spec. */
static int name_clash(parser *q) {
  const nx__spec_env *e = q->env;
  for (int i = 0; i < e->ndims; i++)
    for (int j = 0; j < e->nrows; j++)
      if (!strcmp(e->dim_names[i], e->row_names[j]))
        return nx__shape_error(q->s, NULL, "Name '%s' is used as both a dimension variable and a row variable in spec: %s",
                         e->dim_names[i], q->spec);
  return 0;
}

/* Refuses bytes outside printable ASCII and whitespace. */
static bool check_chars(parser *q, const char *spec, const char *end, int *rc) {
  for (const char *p = spec; p < end; p++) {
    unsigned char c = (unsigned char)*p;
    if (c >= 0x80 || (c < 0x20 && !isspace(c))) return *rc = fail(q, p, "unexpected character"), false;
  }
  return true;
}

int nx__shape_spec_parse(nx_shape_session *s, const char *spec, const nx_einsum_options *opt, nx__spec_env *env,
                         nx__spec *out) {
  parser q = {.s = s, .spec = spec, .env = env, .commas = multichar(spec), .opt = opt};
  const char *end = spec + strlen(spec), *arrow = find(spec, end, "=>");
  if (!arrow) return fail(&q, end, "missing '=>'");
  if (find(arrow + 2, end, "=>")) return fail(&q, find(arrow + 2, end, "=>"), "a second '=>'");
  int n = 0, rc = 0;
  if (!check_chars(&q, spec, end, &rc)) return rc;
  const char *b = spec;
  for (;;) {
    const char *semi = find(b, arrow, ";"), *e = semi ? semi : arrow;
    if (n == NX_SHAPE_MAX_OPERANDS) return fail(&q, b, "more operands than NX_SHAPE_MAX_OPERANDS");
    if ((rc = shape(&q, b, e, out->rows[n]))) return rc;
    n++;
    if (!semi) break;
    b = semi + 1;
  }
  if (find(arrow + 2, end, ";")) return fail(&q, find(arrow + 2, end, ";"), "';' in the result");
  out->noperands = n;
  if ((rc = shape(&q, arrow + 2, end, out->rows[NX_SHAPE_MAX_OPERANDS]))) return rc;
  return name_clash(&q);
}

/* A shape spec without '=>', whose numbers are sizes (OCANNL's
   Shape.of_spec). */
int nx__shape_leaf_parse(nx_shape_session *s, const char *spec, nx__spec_env *env, const nx_row **rows) {
  parser q = {.s = s, .spec = spec, .env = env, .commas = multichar(spec), .leaf = true};
  const char *end = spec + strlen(spec);
  int rc = 0;
  if (!check_chars(&q, spec, end, &rc)) return rc;
  if (find(spec, end, "=>")) return fail(&q, find(spec, end, "=>"), "'=>' in a leaf's shape spec");
  if (find(spec, end, ";")) return fail(&q, find(spec, end, ";"), "';' in a leaf's shape spec");
  if ((rc = shape(&q, spec, end, rows))) return rc;
  return name_clash(&q);
}

int nx__shape_axes_parse(nx_shape_session *s, const char *text, const nx_row **out) {
  const nx_dim *dims[256];
  int n = 0;
  const char *p = text;
  while (*p) {
    while (isspace((unsigned char)*p)) p++;
    if (!*p) break;
    if (n == 256) return nx__shape_error(s, NULL, "too many axes in \"%s\"", text);
    const char *st = p, *eq = NULL;
    while (*p && *p != ',') {
      if (*p == '=') eq = p;
      p++;
    }
    const char *num = eq ? eq + 1 : st, *ne = p;
    while (isspace((unsigned char)*num)) num++;
    while (ne > num && isspace((unsigned char)ne[-1])) ne--;
    int64_t d = 0;
    if (num == ne) return nx__shape_error(s, NULL, "axis list \"%s\": expected a size at position %d", text, (int)(num - text));
    for (const char *x = num; x < ne; x++) {
      if (!isdigit((unsigned char)*x) || d > (INT64_MAX - 9) / 10)
        return nx__shape_error(s, NULL, "axis list \"%s\": bad size at position %d", text, (int)(x - text));
      d = d * 10 + (*x - '0');
    }
    const char *basis = NX_BASIS_DEFAULT;
    if (eq) {
      const char *lb = st, *le = eq;
      while (isspace((unsigned char)*lb)) lb++;
      while (le > lb && isspace((unsigned char)le[-1])) le--;
      if (le == lb) return nx__shape_error(s, NULL, "axis list \"%s\": bad label at position %d", text, (int)(lb - text));
      if (!(basis = nx__shape_strndup(s, lb, (size_t)(le - lb)))) return NX_ENOMEM;
    }
    if (!(dims[n++] = nx__shape_dim_solved(s, d, basis))) return NX_ENOMEM;
    if (*p == ',') {
      p++;
      if (!*p) return nx__shape_error(s, NULL, "axis list \"%s\": expected an axis after ','", text);
    }
  }
  *out = nx__shape_row_new(s, NULL, 0, dims, n, 0);
  return *out ? 0 : NX_ENOMEM;
}
