/* SPDX-License-Identifier: Apache-2.0 */
/* The passes of nx convert over a tensor that is scaled (--scale amax of a
   float tensor, or a <name>.scale of the input, whatever the tensor's
   dtype): its absolute maximum, read on the
   source's own elements, and the scaled store, one block of elements at a
   time, which the io writer runs on the thread pool straight into the
   output file. Every result is the one a float64 pass gives: each element
   widened to float64 exactly, multiplied by the input's scale and divided
   by the output's in float64 (one rounding each), and stored into the target
   dtype by nx_dtype.h's store rule. */
#ifndef NX_TOOLS_SCALE_PASS_H
#define NX_TOOLS_SCALE_PASS_H

#include <stdbool.h>
#include <stdint.h>

#include "nx_io.h"
#include "progress.h"

/* nx_tool_amax(x, s_in, &amax) sets amax to the largest |v| over x's
   elements v = x * s_in (in float64) that are finite (NaNs and infinities
   left out), 0 where none is; x is a C-contiguous array from a byte
   (nx_contiguous's), its elements as nx_dtype_load_n gives them (a complex
   one's real part). On nx_num_threads() threads. Returns 0, or
   nx_array_read's failure (its message set). */
int nx_tool_amax(const nx_array *x, double s_in, double *amax);

/* The scaled store, an nx_io_transform_fn over a ctx of this type (made by
   nx_tool_scaled_init): out = store_to(x * s_in / scale) element by
   element, the multiplication left out for s_in 1 and the division for
   scale 1; each call counts its source bytes on progress (where not NULL)
   under name. from is any dtype, loaded by nx_dtype_load_n (a complex
   one's real part, as nx_cast takes it); to any dtype, stored by
   nx_dtype_store_n (a complex one's imaginary part 0, so a complex source
   into a complex dtype goes through nx_mul instead); scale is 1 or a
   positive finite float32 (scale_for's), 1 for a target that is not
   float. */
typedef struct nx_tool_scaled {
  nx_dtype from, to;
  double s_in, scale;
  nx_tool_progress *progress;
  const char *name;
  const struct loops *loops; /* the CPU's loops */
  double r;                  /* 1 / scale */
  int drop;                  /* the bits of a double below the target's midpoints */
  bool recip;                /* whether x / scale goes through r (scale_pass.c) */
} nx_tool_scaled;
void nx_tool_scaled_init(nx_tool_scaled *c, nx_dtype from, nx_dtype to, double s_in, double scale,
                         nx_tool_progress *progress, const char *name);
int nx_tool_scaled_store(void *ctx, const void *in, void *out, int64_t n);

/* The loops' levels: nx_tool_scale_levels() is the best this CPU runs (0
   plain, which divides; 1 AVX2 and FMA; 2 AVX-512 and FMA), and
   nx_tool_scale_cap(l) makes later passes use at most level l (for tests
   of each level). */
int nx_tool_scale_levels(void);
void nx_tool_scale_cap(int level);

#endif
