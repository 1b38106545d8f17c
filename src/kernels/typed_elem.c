/* SPDX-License-Identifier: Apache-2.0 */
/* The elementwise typed loops (typed.h) at each level, and the choice of
   one for a run. */
#include "typed.h"
#include "typed_defs.h"
#include "typed_x86.h"

typedef struct nx__typed_elem {
  nx__un_fn un[10][9];   /* [dtype][operation] */
  nx__bin_fn bin[10][13]; /* [dtype][nx__bop] */
  nx__bin_fn cmp[4][11]; /* [eq ne lt le][dtype] */
  nx__bin_fn boolop[3];  /* bool and, or, xor */
  nx__wh_fn wh[4];       /* elements of 1, 2, 4, 8 bytes */
} nx__typed_elem;

#define NX__LOOPS "typed_elem_loops.h"
#include "typed_levels.h"

static const nx__typed_elem *loops(void) {
  switch (nx__typed_level()) {
  case NX__TYPED_BASE: return &elem_base;
#if defined(NX__TYPED_X86)
  case NX__TYPED_AVX2: return &elem_avx2;
  case NX__TYPED_AVX512: return &elem_512;
#endif
  default: return 0;
  }
}

/* The row of dt (bool 10), or -1. */
static int row(nx_dtype dt) {
  switch (dt) {
  case NX_FLOAT32: return 0;
  case NX_FLOAT64: return 1;
  case NX_INT8: return 2;
  case NX_UINT8: return 3;
  case NX_INT16: return 4;
  case NX_UINT16: return 5;
  case NX_INT32: return 6;
  case NX_UINT32: return 7;
  case NX_INT64: return 8;
  case NX_UINT64: return 9;
  case NX_BOOL: return 10;
  default: return -1;
  }
}

/* Whether each of the first k operands of a steps by `bytes`. */
static bool contiguous(const nx__arg *a, int k, int64_t bytes) {
  for (int i = 0; i < k; i++)
    if (a[i].step != bytes) return false;
  return true;
}

bool nx__typed_unary(nx__uop op, nx_dtype dt, const nx__arg *a, int64_t n) {
  const nx__typed_elem *L = loops();
  int r = row(dt), col;
  if (!L || r < 0 || r == 10) return false;
  int64_t bytes = nx_dtype_bits_of(dt) / 8;
  if (!contiguous(a, 2, bytes)) return false;
  switch (op) {
  case NX__NEG: col = 0; break;
  case NX__RECIP: col = 1; break;
  case NX__ABS: col = 2; break;
  case NX__SQRT: col = 3; break;
  case NX__SIGN: col = 4; break;
  case NX__TRUNC: col = 5; break;
  case NX__CEIL: col = 6; break;
  case NX__FLOOR: col = 7; break;
  case NX__ROUND: col = 8; break;
  default: return false;
  }
  nx__un_fn f = L->un[r][col];
  if (!f) {
    /* integers are integral, and unsigned ones their own magnitude */
    bool copy = r >= 2 && (col >= 5 || (col == 2 && r % 2 == 1));
    if (!copy) return false;
    if (a[0].p != a[1].p) memmove(a[0].p, a[1].p, (size_t)(n * bytes));
    return true;
  }
  f(a[0].p, a[1].p, n);
  return true;
}

bool nx__typed_binary(nx__bop op, nx_dtype dt, const nx__arg *a, int64_t n) {
  const nx__typed_elem *L = loops();
  int r = row(dt);
  if (!L || r < 0) return false;
  if (!contiguous(a, 3, r == 10 ? 1 : nx_dtype_bits_of(dt) / 8)) return false;
  if (r < 10) {
    nx__bin_fn f = L->bin[r][op];
    if (!f) return false;
    if (nx__typed_stream(nx__typed_level(), op, dt, f, a[0].p, a[1].p, a[2].p, n)) return true;
    f(a[0].p, a[1].p, a[2].p, n);
    return true;
  }
  int k;
  switch (op) {
  case NX__AND: case NX__MUL: case NX__MIN: k = 0; break;
  case NX__OR: case NX__ADD: case NX__MAX: k = 1; break;
  case NX__XOR: k = 2; break;
  default: return false;
  }
  L->boolop[k](a[0].p, a[1].p, a[2].p, n);
  return true;
}

bool nx__typed_compare(int op, nx_dtype dt, const nx__arg *a, int64_t n) {
  const nx__typed_elem *L = loops();
  int r = row(dt);
  if (!L || r < 0 || op < 0 || op > 3 || a[0].step != 1) return false;
  int64_t bytes = r == 10 ? 1 : nx_dtype_bits_of(dt) / 8;
  if (a[1].step != bytes || a[2].step != bytes) return false;
  if (nx__typed_level() == NX__TYPED_AVX512 && nx__typed_cmp512(op, dt, (uint8_t *)a[0].p, a[1].p, a[2].p, n))
    return true;
  L->cmp[op][r](a[0].p, a[1].p, a[2].p, n);
  return true;
}

bool nx__typed_where(int bytes, const nx__arg *a, int64_t n) {
  const nx__typed_elem *L = loops();
  int k = bytes == 1 ? 0 : bytes == 2 ? 1 : bytes == 4 ? 2 : bytes == 8 ? 3 : -1;
  if (!L || k < 0 || a[1].step != 1 || !contiguous(a, 1, bytes) || a[2].step != bytes || a[3].step != bytes)
    return false;
  L->wh[k](a[0].p, a[1].p, a[2].p, a[3].p, n);
  return true;
}
