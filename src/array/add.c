/* SPDX-License-Identifier: Apache-2.0 */
/* The seed's kernel end to end: nx_cpu_add through the door, and nx_add,
   which turns its answers into results and errors. */
#include <string.h>

#include "array_internal.h"

static nx_answer add_body(void *ctx, const nx_operand *ops, int nw, int nr) {
  (void)ctx;
  if (nw != 1 || nr != 2) return NX_SHAPE_MISMATCH;
  nx_dtype dt = ops[0].dtype;
  if (ops[1].dtype != dt || ops[2].dtype != dt) return NX_WRONG_DTYPE;
  const nx_layout *lz = ops[0].layout, *lx = ops[1].layout, *ly = ops[2].layout;
  if (lx->rank != lz->rank || ly->rank != lz->rank) return NX_SHAPE_MISMATCH;
  for (int j = 0; j < lz->rank; j++)
    if (lx->extent[j] != lz->extent[j] || ly->extent[j] != lz->extent[j]) return NX_SHAPE_MISMATCH;
  if (dt == NX_BIT) return NX_DECLINED;
  for (int j = 0; j < lz->rank; j++)
    if (lz->extent[j] == 0) return NX_DONE;
  int64_t index[NX_MAX_RANK] = {0}, pz = lz->offset, px = lx->offset, py = ly->offset;
  int bits = nx_dtype_bits_of(dt), kind = nx_dtype_kind_of(dt);
  uint8_t bx[16], by[16], bz[16];
  do {
    nx__bits_get(dt, ops[1].base, px, bx);
    nx__bits_get(dt, ops[2].base, py, by);
    nx_value x = nx__bits_value(dt, bx), y = nx__bits_value(dt, by), z;
    memset(&z, 0, sizeof z);
    switch (kind) {
    case NX_KIND_FLOAT: z.f = x.f + y.f; break; /* one rounding: the store of the exact-enough double sum */
    case NX_KIND_COMPLEX: z.c.re = x.c.re + y.c.re; z.c.im = x.c.im + y.c.im; break;
    case NX_KIND_SIGNED: z.i = nx__int_value((uint64_t)x.i + (uint64_t)y.i, bits, 1); break; /* wraps */
    case NX_KIND_UNSIGNED: z.u = (x.u + y.u) & (bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1); break;
    case NX_KIND_BOOLEAN: z.b = x.b || y.b; break;
    }
    nx__value_bits(dt, z, bz);
    nx__bits_put(dt, ops[0].base, pz, bz);
    /* Step the three positions together. */
    int j = lz->rank - 1;
    for (; j >= 0; j--) {
      if (++index[j] < lz->extent[j]) {
        pz += lz->stride[j];
        px += lx->stride[j];
        py += ly->stride[j];
        break;
      }
      pz -= lz->stride[j] * (index[j] - 1);
      px -= lx->stride[j] * (index[j] - 1);
      py -= ly->stride[j] * (index[j] - 1);
      index[j] = 0;
    }
    if (j < 0) break;
  } while (1);
  return NX_DONE;
}

int nx_cpu_add(nx_array *z, nx_array *x, nx_array *y) {
  if (!z || !x || !y) return nx__fail(NX_EINVAL, "nx_cpu_add: operand %s is NULL", !z ? "z" : !x ? "x" : "y");
  nx_array *w[1] = {z}, *r[2] = {x, y};
  return nx_door_host(w, 1, r, 2, add_body, NULL);
}

int nx_add(nx_array *z, nx_array *x, nx_array *y) {
  if (!z || !x || !y) return nx__fail(NX_EINVAL, "nx_add: operand %s is NULL", !z ? "z" : !x ? "x" : "y");
  int a = nx_cpu_add(z, x, y);
  if (a < 0) return a;
  if (a == NX_DONE) return 0;
  if (a == NX_DECLINED) return nx__fail(NX_EINVAL, "nx_add: nx_cpu_add does not compute this case");
  nx_array *ops[3] = {z, x, y};
  return nx_array_refused("nx_add", (nx_answer)a, ops, 3);
}
