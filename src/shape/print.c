/* SPDX-License-Identifier: Apache-2.0 */
/* Printing shapes as OCANNL's to_string_hum: rows as their dims joined by
   commas, combined as batch|input->output, with the chosen style. Each dim
   prints as OCANNL's dim_to_string (dim.c): variables the same in every
   style; in NX_SHAPE_STYLE_PROJECTION_AND_SIZE a solved axis is followed by
   `p<id>`, the projection id the latest nx_shape_projections over the
   tensor gave it (padding.c), as OCANNL prints the proj_id fresh_proj_ids
   leaves on the shape. */
#include <stdio.h>
#include <string.h>

#include "tensor_internal.h"

typedef struct {
  char *buf;
  size_t cap, len;
} out_t;

static void emit(out_t *o, const char *str) {
  size_t n = strlen(str);
  if (o->len < o->cap) snprintf(o->buf + o->len, o->cap - o->len, "%s", str);
  o->len += n;
}

/* The projection id of t's axis a (layout order), 0 for none. */
static int proj_id(const nx_tensor *t, int a) {
  return t->pad && t->pad->proj && a < t->pad->rank ? t->pad->proj[a] : 0;
}

static void print_row(nx_shape_session *s, const nx_tensor *t, const nx_row *r, enum nx_shape_style style,
                      int first_axis, out_t *o) {
  for (int i = 0; i < r->nbeg + r->ndims; i++) {
    const nx_dim *d = r->beg[i];
    char tmp[32];
    if (i) emit(o, ",");
    if (style == NX_SHAPE_STYLE_AXIS_NUMBER_AND_SIZE) {
      snprintf(tmp, sizeof tmp, "%d:", first_axis + i);
      emit(o, tmp);
    }
    nx__shape_dim_put_as(s, d, style == NX_SHAPE_STYLE_ONLY_BASES, o->buf, o->cap, &o->len);
    int id = style == NX_SHAPE_STYLE_PROJECTION_AND_SIZE && d->kind == NX__D_SOLVED ? proj_id(t, first_axis + i) : 0;
    if (id) {
      snprintf(tmp, sizeof tmp, "p%d", id);
      emit(o, tmp);
    }
  }
}

int nx_tensor_to_string(nx_shape_session *s, const nx_tensor *t, enum nx_shape_style style, char *buf, size_t cap) {
  if (!s || !t || (!buf && cap)) return nx__fail(NX_EINVAL, "nx_tensor_to_string: NULL argument");
  if (style < NX_SHAPE_STYLE_SIZE || style > NX_SHAPE_STYLE_PROJECTION_AND_SIZE)
    return nx__fail(NX_EINVAL, "nx_tensor_to_string: unknown style %d", (int)style);
  const nx_row *b = nx__shape_rsub_full(s, t->rows[NX_AXIS_BATCH]), *in = nx__shape_rsub_full(s, t->rows[NX_AXIS_INPUT]),
               *ou = nx__shape_rsub_full(s, t->rows[NX_AXIS_OUTPUT]);
  int nb = b->nbeg + b->ndims, ni = in->nbeg + in->ndims, no = ou->nbeg + ou->ndims;
  out_t o = {buf, cap, 0};
  if (cap) buf[0] = 0;
  if (nb) {
    print_row(s, t, b, style, 0, &o);
    emit(&o, "|");
  }
  if (ni) {
    print_row(s, t, in, style, nb + no, &o);
    emit(&o, "->");
  }
  print_row(s, t, ou, style, nb, &o);
  if (o.len >= cap)
    return nx__fail(NX_EINVAL, "nx_tensor_to_string: %s: %zu characters do not fit in %zu", t->label, o.len, cap);
  return (int)o.len;
}
