/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the kernels module: the contiguous float32 and float64 sums
   of the reductions' pairwise leaves. */
#ifndef NX_KERNELS_VSUM_H
#define NX_KERNELS_VSUM_H

#include <stdint.h>

/* The lanes of a run's sum: element i of the run goes to lane i % NX__SUM_LANES. */
#define NX__SUM_LANES 32

/* The sum of f[0..n) in double: each lane adds its elements in index order
   from +0, then the lanes combine pairwise (lane k += lane k + 16, then
   k + 8, 4, 2, 1). The same order, so the same bits, at every vector level
   (AVX-512F, AVX2, the baseline loop; nx__fast_set_isa caps it). */
double nx__sum_f32(const float *f, int64_t n);
double nx__sum_f64(const double *f, int64_t n);

#endif
