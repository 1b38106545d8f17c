/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the bounded search behind distinctness and overlap. */
#ifndef NX_LAYOUT_SEARCH_H
#define NX_LAYOUT_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "nx_layout.h"

typedef __int128 nx__i128;

/* A linear equation sum a[i] * x[i] = target over integers 0 <= x[i] <= ub[i],
   every a[i] > 0. With `avoid` set, the solution x = avoid[] does not count. */
#define NX__TERMS (2 * NX_MAX_RANK + 2)
typedef struct nx__equation {
  int n;
  nx__i128 a[NX__TERMS], ub[NX__TERMS], target;
  const nx__i128 *avoid;
} nx__equation;

typedef enum { NX__NO, NX__YES, NX__TOO_HARD } nx__answer;

/* Whether the equation has a solution, within *work more steps (each step
   one candidate value of one variable), which it spends. */
nx__answer nx__solve(nx__equation *e, long *work);

#endif
