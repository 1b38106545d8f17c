/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the dtype module. */
#ifndef NX_DTYPE_INTERNAL_H
#define NX_DTYPE_INTERNAL_H

#include "nx_dtype.h"

/* nx__dtype_valid(fn, dt) is true iff dt is a dtype code; otherwise it sets
   the message, naming fn. */
bool nx__dtype_valid(const char *fn, nx_dtype dt);

/* The shortest-nearest digits of a finite, nonzero value of a binary format of
   precision p = fraction_bits + 1: the value is c * 2^q with 0 < c < 2^p, and
   `bottom` says the lower neighbour is at half the gap of the upper (c is 2^(p-1)
   and not at the format's least exponent). The result is d * 10^e, d without
   trailing zeros. */
typedef struct nx__decimal {
  uint64_t d;
  int e;
} nx__decimal;
nx__decimal nx__shortest(uint64_t c, int q, bool bottom);

/* Writes the text of a finite float value, given by its float64 bits u and the
   float format code it belongs to, into buf (at least NX_DTYPE_PP_MAX bytes):
   its length. */
int nx__format_float(int code, uint64_t u, char *buf);

/* The bulk entry points' instruction sets: nx__dtype_bulk_levels() is the
   best this CPU runs (0 plain loops, 1 AVX2, 2 AVX-512), and
   nx__dtype_bulk_force(l) makes nx_dtype_store_n and nx_dtype_load_n use
   level l from now on (the best for l < 0 or past it), so tests reach every
   level the CPU has. */
int nx__dtype_bulk_levels(void);
void nx__dtype_bulk_force(int l);

#endif
