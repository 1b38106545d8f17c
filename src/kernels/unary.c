/* SPDX-License-Identifier: Apache-2.0 */
/* Unary elementwise operations: z = op(x), one dtype, one shape. */
#include <math.h>

#include "api.h"
#include "../devices/dispatch.h"
#include "ops.h"
#include "typed.h"
#include "vmath.h"
#include "vtanh.h"

typedef struct uctx {
  nx__uop op;
  nx_dtype dt;
} uctx;

static bool transcendental(nx__uop op) { return (op >= NX__EXP && op <= NX__TANH) || op == NX__ERF; }

/* The level of the SLEEF loops that compute op here (NX__VMATH_NONE: none). */
static int vmath_level(nx__uop op) { return nx__vmath_known(op) ? nx__vmath_level(NX__VMATH_AVX512) : NX__VMATH_NONE; }

static bool vector_math(nx__uop op) { return vmath_level(op) != NX__VMATH_NONE; }

/* The level of vtanh.c's tanh on this CPU (NX__TANH_SCALAR: none). */
static int tanh_level(void) { return nx__tanh_level(NX__TANH_AVX512); }

/* Whether float32 op runs a vector loop here. */
static bool vector_f32(nx__uop op) { return op == NX__TANH ? tanh_level() != NX__TANH_SCALAR : vector_math(op); }

typedef void (*f32_loop)(int arg, float *z, const float *x, int64_t n);

/* arg: the op and the level, op * 4 + level. */
static void sleef_loop(int arg, float *z, const float *x, int64_t n) { nx__vmath_f32(arg % 4, (nx__uop)(arg / 4), z, x, n); }

/* f(arg, ...) over the run: in place where both steps are 4 bytes, else
   through a block in the stack. */
static void vector_run(f32_loop f, int arg, const nx__arg *a, int64_t n) {
  if (a[0].step == 4 && a[1].step == 4) {
    f(arg, (float *)a[0].p, (const float *)a[1].p, n);
    return;
  }
  float blk[256];
  for (int64_t i0 = 0; i0 < n; i0 += 256) {
    int64_t m = n - i0 < 256 ? n - i0 : 256;
    for (int64_t i = 0; i < m; i++) memcpy(&blk[i], a[1].p + (i0 + i) * a[1].step, 4);
    f(arg, blk, blk, m);
    for (int64_t i = 0; i < m; i++) memcpy(a[0].p + (i0 + i) * a[0].step, &blk[i], 4);
  }
}

/* float32: tanh through vtanh.c (double inside, one rounding), the other
   transcendentals through SLEEF's 1-ulp vector functions where present;
   else double libm, one rounding of a result within a few units of 2^-53
   of the exact one. */
static void f32_body(nx__uop op, const nx__arg *a, int64_t n) {
  if (op == NX__TANH && tanh_level() != NX__TANH_SCALAR) {
    vector_run(nx__tanh_f32, tanh_level(), a, n);
    return;
  }
  if (vector_math(op)) {
    vector_run(sleef_loop, (int)op * 4 + vmath_level(op), a, n);
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    float x;
    memcpy(&x, a[1].p + i * a[1].step, 4);
    float r = (float)nx__fn1(op, (double)x);
    memcpy(a[0].p + i * a[0].step, &r, 4);
  }
}

static void body(void *vc, const nx__arg *a, int64_t n) {
  const uctx *c = vc;
  nx_dtype dt = c->dt;
  int bits = nx_dtype_bits_of(dt);
  if (dt == NX_FLOAT32 && transcendental(c->op)) {
    f32_body(c->op, a, n);
    return;
  }
  if (nx__typed_unary(c->op, dt, a, n)) return;
  for (int64_t i = 0; i < n; i++) {
    uint64_t lo = nx__ld(bits > 64 ? 64 : bits, &a[1], i), hi = bits > 64 ? nx__ld_hi(&a[1], i) : 0;
    nx__uop_apply(c->op, dt, &lo, &hi);
    nx__st(bits > 64 ? 64 : bits, &a[0], i, lo);
    if (bits > 64) nx__st_hi(&a[0], i, hi);
  }
}

static nx_answer kernel(void *vc, const nx_operand *ops, int nw, int nr) {
  uctx *c = vc;
  (void)nw;
  (void)nr;
  c->dt = ops[0].dtype;
  if (ops[1].dtype != c->dt) return NX_WRONG_DTYPE;
  if (!nx__same_shape(ops, 2)) return NX_SHAPE_MISMATCH;
  if (!nx__uop_computes(c->op, c->dt)) return NX_DECLINED;
  /* The vector functions cost about what a copy does (the benchmark's
     exp: 1.6 ns an element against add's 2.7); libm's, tens of times more. */
  int weight = !transcendental(c->op) ? 2 : c->dt == NX_FLOAT32 && vector_f32(c->op) ? 2 : 64;
  nx__walk(ops, 2, body, c, weight, 0);
  return NX_DONE;
}

/* made: z is the result unary_new made, which refusals do not name. */
static int unary(const char *name, nx__uop op, nx_array *z, nx_array *x, bool made) {
  nx_array *ops[2] = {z, x};
  int s = nx__need(name, ops, 2);
  if (s) return s;
  uctx c = {op, nx_array_dtype(z)};
  /* Device kernels (src/devices): operands on one OpenCL device run there. */
  if ((s = nx__device_dispatch(&(nx__devop){name, NX__DK_UNARY, op, 0, 0, made}, ops, 1, 1)) != NX_DECLINED) return s;
  int a = nx_door_host(ops, 1, ops + 1, 1, kernel, &c);
  return nx__finish(name, "the host kernel", a, ops + made, 2 - made, c.dt);
}

static int unary_new(const char *name, nx__uop op, nx_array **z, nx_array *x) {
  if (!x) return nx__fail(NX_EINVAL, "%s: operand 0 is NULL", name);
  if (!z) return nx__fail(NX_EINVAL, "%s: the result pointer is NULL", name);
  nx_array *r;
  int s = nx__make_like(name, x, nx_array_dtype(x), &r);
  if (s) return s;
  if ((s = unary(name, op, r, x, true))) {
    nx_array_free(r);
    return s;
  }
  *z = r;
  return 0;
}

#define NX__UNARY(name, OP)                                                                      \
  int nx_##name(nx_array *z, nx_array *x) { return unary("nx_" #name, OP, z, x, false); }               \
  int nx_##name##_new(nx_array **z, nx_array *x) { return unary_new("nx_" #name "_new", OP, z, x); }
NX__UNARY(neg, NX__NEG)
NX__UNARY(recip, NX__RECIP)
NX__UNARY(abs, NX__ABS)
NX__UNARY(sqrt, NX__SQRT)
NX__UNARY(sign, NX__SIGN)
NX__UNARY(exp, NX__EXP)
NX__UNARY(log, NX__LOG)
NX__UNARY(sin, NX__SIN)
NX__UNARY(cos, NX__COS)
NX__UNARY(tan, NX__TAN)
NX__UNARY(asin, NX__ASIN)
NX__UNARY(acos, NX__ACOS)
NX__UNARY(atan, NX__ATAN)
NX__UNARY(sinh, NX__SINH)
NX__UNARY(cosh, NX__COSH)
NX__UNARY(tanh, NX__TANH)
NX__UNARY(trunc, NX__TRUNC)
NX__UNARY(ceil, NX__CEIL)
NX__UNARY(floor, NX__FLOOR)
NX__UNARY(round, NX__ROUND)
NX__UNARY(erf, NX__ERF)
