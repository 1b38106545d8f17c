/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the kernels module: an element's bits at index i of a run, its
   value for computing, and its store. Sub-byte elements load with atomic
   byte loads and store with an atomic read-modify-write of their byte, so
   threads storing other elements of the byte keep theirs. */
#ifndef NX_KERNELS_ELEM_H
#define NX_KERNELS_ELEM_H

#include <stdint.h>
#include <string.h>

#include "engine.h"

/* The low 64 bits of element i (a complex128's real part). */
static inline uint64_t nx__ld(int bits, const nx__arg *a, int64_t i) {
  if (bits >= 8) {
    const char *p = a->p + i * a->step;
    switch (bits) {
    case 8: return *(const uint8_t *)p;
    case 16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 32: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
  }
  int64_t b = (a->pos + i * a->step) * bits;
  uint8_t byte = __atomic_load_n((const uint8_t *)a->p + (b >> 3), __ATOMIC_RELAXED);
  return (byte >> (b & 7)) & ((1u << bits) - 1);
}

/* The high 64 bits of a complex128 element i (its imaginary part). */
static inline uint64_t nx__ld_hi(const nx__arg *a, int64_t i) {
  uint64_t v;
  memcpy(&v, a->p + i * a->step + 8, 8);
  return v;
}

static inline void nx__st(int bits, const nx__arg *a, int64_t i, uint64_t v) {
  if (bits >= 8) {
    char *p = a->p + i * a->step;
    switch (bits) {
    case 8: *(uint8_t *)p = (uint8_t)v; return;
    case 16: { uint16_t w = (uint16_t)v; memcpy(p, &w, 2); return; }
    case 32: { uint32_t w = (uint32_t)v; memcpy(p, &w, 4); return; }
    default: memcpy(p, &v, 8); return;
    }
  }
  int64_t b = (a->pos + i * a->step) * bits;
  uint8_t *p = (uint8_t *)a->p + (b >> 3), mask = (uint8_t)(((1u << bits) - 1) << (b & 7));
  uint8_t bitsv = (uint8_t)(((unsigned)v << (b & 7)) & mask);
  uint8_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(p, &old, (uint8_t)((old & ~mask) | bitsv), true, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
}

static inline void nx__st_hi(const nx__arg *a, int64_t i, uint64_t v) { memcpy(a->p + i * a->step + 8, &v, 8); }

/* A value to compute with: the member the dtype's kind names (f for float
   formats, c for complex, i for signed integers, u for unsigned ones and
   booleans, 0 or 1). */
typedef struct nx__cplx {
  double re, im;
} nx__cplx;
typedef union nx__v {
  double f;
  int64_t i;
  uint64_t u;
  nx__cplx c;
} nx__v;


static inline nx__v nx__load(nx_dtype dt, const nx__arg *a, int64_t i) {
  nx__v v;
  int bits = nx_dtype_bits_of(dt);
  uint64_t b = nx__ld(bits, a, i);
  switch (nx_dtype_kind_of(dt)) {
  case NX_KIND_FLOAT: v.f = nx__f64_of_bits(nx_dtype_load_f64bits(dt, b)); break;
  case NX_KIND_COMPLEX:
    if (dt == NX_COMPLEX128) {
      v.c.re = nx__f64_of_bits(b);
      v.c.im = nx__f64_of_bits(nx__ld_hi(a, i));
    } else {
      v.c.re = nx__f64_of_bits(nx_load_float32_f64((uint32_t)b));
      v.c.im = nx__f64_of_bits(nx_load_float32_f64((uint32_t)(b >> 32)));
    }
    break;
  case NX_KIND_SIGNED: v.i = nx__int_value(b, bits, 1); break;
  case NX_KIND_UNSIGNED: v.u = b; break;
  default: v.u = b != 0; break;
  }
  return v;
}

/* The store of v by the store rule (integers keep their low bits: wrapping). */
static inline void nx__store(nx_dtype dt, const nx__arg *a, int64_t i, nx__v v) {
  int bits = nx_dtype_bits_of(dt);
  switch (nx_dtype_kind_of(dt)) {
  case NX_KIND_FLOAT: nx__st(bits, a, i, nx_dtype_store_f64bits(dt, nx__f64_bits(v.f))); return;
  case NX_KIND_COMPLEX:
    if (dt == NX_COMPLEX128) {
      nx__st(64, a, i, nx__f64_bits(v.c.re));
      nx__st_hi(a, i, nx__f64_bits(v.c.im));
    } else {
      nx__st(64, a, i,
             (uint64_t)nx_store_float32_f64(nx__f64_bits(v.c.re)) | (uint64_t)nx_store_float32_f64(nx__f64_bits(v.c.im)) << 32);
    }
    return;
  case NX_KIND_SIGNED:
  case NX_KIND_UNSIGNED: nx__st(bits, a, i, v.u); return;
  default: nx__st(bits, a, i, v.u != 0); return;
  }
}

/* Bit-for-bit copy of element i of s into element j of d (one dtype). */
static inline void nx__move(int bits, const nx__arg *d, int64_t j, const nx__arg *s, int64_t i) {
  if (bits == 128) {
    memcpy(d->p + j * d->step, s->p + i * s->step, 16);
    return;
  }
  nx__st(bits, d, j, nx__ld(bits, s, i));
}

#endif
