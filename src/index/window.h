/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the index module: the geometry of sliding windows that unfold
   and fold share, checked before the door. */
#ifndef NX_INDEX_WINDOW_H
#define NX_INDEX_WINDOW_H

#include <stdint.h>

#include "nx_array.h"

typedef struct nx__win {
  int k;                      /* windowed axes: the last k of the spatial array */
  int r;                      /* the spatial array's rank (x of unfold, z of fold) */
  int64_t ext[NX_MAX_RANK];   /* the windowed axes' extents */
  int64_t size[NX_MAX_RANK], stride[NX_MAX_RANK], dil[NX_MAX_RANK], lo[NX_MAX_RANK];
  int64_t out[NX_MAX_RANK];   /* windows on each axis */
  int64_t count;              /* elements of a window: the product of size */
  int64_t nwin;               /* windows: the product of out (L) */
} nx__win;

/* Checks k and the window arguments against a spatial array of rank r whose
   last k extents are ext, filling w; fails naming name, the argument and its
   axis, and `what` (the array's description). */
int nx__win_make(const char *name, const char *what, int r, const int64_t *ext, int k, const int64_t *size,
                 const int64_t *stride, const int64_t *dilation, const int64_t *padding, nx__win *w);

/* Whether cols is [B..., C * count, L] for the spatial sp [B..., C, s...]
   of w's geometry. */
bool nx__win_fits(const nx__win *w, const nx_layout *sp, const nx_layout *cols);

/* Runs fn on z (written) and x through the door, the answer as name's
   status. With made, z is a fresh result: freed on failure, else *made. */
int nx__win_door(const char *name, nx_array *z, nx_array *x, nx_kernel_fn fn, void *ctx, nx_array **made);

#endif
