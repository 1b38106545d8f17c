/* Internal to the kernels module: the operations' scalar semantics, one
   function per family over nx__v values, and the table of which dtypes each
   computes. Floats compute in double (float64's own operations for float64)
   and store once; integers compute in 64 bits and store their low bits,
   which wraps; booleans are 0 or 1. */
#ifndef NX_KERNELS_OPS_H
#define NX_KERNELS_OPS_H

#include <stdbool.h>

#include "elem.h"

typedef enum nx__bop {
  NX__ADD, NX__SUB, NX__MUL, NX__FDIV, NX__IDIV, NX__MOD, NX__POW, NX__ATAN2,
  NX__MIN, NX__MAX, NX__AND, NX__OR, NX__XOR
} nx__bop;

typedef enum nx__uop {
  NX__NEG, NX__RECIP, NX__ABS, NX__SQRT, NX__SIGN, NX__EXP, NX__LOG, NX__SIN, NX__COS, NX__TAN,
  NX__ASIN, NX__ACOS, NX__ATAN, NX__SINH, NX__COSH, NX__TANH, NX__TRUNC, NX__CEIL, NX__FLOOR,
  NX__ROUND, NX__ERF
} nx__uop;

/* Whether the binary (unary) operation computes dtype dt. */
bool nx__bop_computes(nx__bop op, nx_dtype dt);
bool nx__uop_computes(nx__uop op, nx_dtype dt);

/* op(x, y) for values of dtype dt (a computed case). */
nx__v nx__bop_apply(nx__bop op, nx_dtype dt, nx__v x, nx__v y);

/* The bits of op(x) for an element of dtype dt whose bits are b (lo, and hi
   for complex128): the sign-bit operations act on the bits themselves. */
void nx__uop_apply(nx__uop op, nx_dtype dt, uint64_t *lo, uint64_t *hi);

/* A transcendental function of one or two doubles, rounded once into float
   format dt: correctly rounded for formats of 16 bits or fewer (a double
   result near one of the format's midpoints is decided again in long
   double), within 1 ulp for float32 (double) and float64 (long double). */
uint64_t nx__math1(nx__uop op, nx_dtype dt, double x);
uint64_t nx__math2(nx__bop op, nx_dtype dt, double x, double y);

/* The element-wide functions math.c evaluates. */
double nx__fn1(nx__uop op, double x);
long double nx__fn1l(nx__uop op, long double x);

#endif
