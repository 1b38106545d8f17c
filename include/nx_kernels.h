/* SPDX-License-Identifier: Apache-2.0 */
/* nx_kernels.h: the host kernels: cast, elementwise operations, reductions
   and scans, assembly, and the thread pool they run on.

   Every operation reads its arrays through the door (nx_array.h): it claims
   every operand or none, and answers the door's refusals in its precedence.
   An operation whose result the caller provides (z) writes z's elements and
   no other bit of its buffer; a `_new` variant makes a fresh C-contiguous
   result on the device of its first array operand, in that operand's kind
   of memory, and sets *z to it only on success.

   Operands have one shape: broadcasting is the caller's, through a view
   (nx_array_move with nx_move_expand), whose stride-0 axes a read operand
   may have and a written one may not (it would reach an element twice).

   Every operation returns 0, or fails with NX_EINVAL and sets
   nx_error_message() naming the operation and each operand's dtype and
   shape:
   - for a NULL array or out-parameter;
   - for a refusal of the door, with nx_array_refused's message, in the
     door's precedence: a dead buffer, memory held exclusive, a written
     operand's memory read-only, memory the host does not address, a written
     operand reaching an element twice, a written operand sharing a byte with
     another operand not identical to it;
   - for operands whose dtypes do not fit the operation (NX_WRONG_DTYPE's
     message) or whose shapes do not (NX_SHAPE_MISMATCH's), before any write;
   - for a dtype the operation does not compute (declined), with the message
     "<op>: <kernel> does not compute this case (<dtype>)";
   and with NX_ELOST as nx_door_host does, NX_ENOMEM where a `_new` result
   or scratch space cannot be made. Which dtypes each operation computes,
   what it computes in and its defined edge cases are in docs/kernels.md. */
#ifndef NX_KERNELS_H
#define NX_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "nx_array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Threads ------------------------------------------------------------ */

/* nx_num_threads() is the number of threads a kernel may run on, the
   caller's included: nx_set_num_threads's, else the environment variable
   NX_NUM_THREADS (a decimal from 1), else the cores the process may run on.
   Kernels below a size threshold run in the calling thread. */
NX_API int nx_num_threads(void);

/* nx_set_num_threads(n) sets the thread count for later kernels.
   Fails with NX_EINVAL unless 1 <= n <= 256. */
NX_API int nx_set_num_threads(int n);

/* ---- Cast --------------------------------------------------------------- */

/* nx_cast(dst, src) stores every element of src into dst, of the same shape
   and any dtypes, each element the store of src's exact value into dst's
   dtype by nx_dtype.h's store rule (one rounding), NaN payloads by its NaN
   rule; dst and src may share bytes only where identical (same dtype then).
   Fails as the module's operations do (NX_SHAPE_MISMATCH for other shapes). */
NX_API int nx_cast(nx_array *dst, nx_array *src);

/* nx_cast_new(&z, to, src) is nx_cast into a fresh array of dtype `to`.
   Fails as nx_cast does, and with NX_EINVAL for a `to` that is no dtype. */
NX_API int nx_cast_new(nx_array **z, nx_dtype to, nx_array *src);

/* ---- Elementwise -------------------------------------------------------- */

/* Binary operations, z = op(x, y) elementwise, z, x and y of one dtype and
   one shape (z may be identical to x or y):
     add, sub, mul   + - x; integers wrap, floats round once
     fdiv            true division (floats and complex)
     idiv, mod       integer division truncating toward zero, and its
                     remainder (sign of x); x / 0 = 0, x mod 0 = x, and
                     INT_MIN / -1 = INT_MIN, INT_MIN mod -1 = 0; mod of
                     floats is fmod (exact)
     pow, atan2      floats: x^y, atan2(y = x, x = y) as C's atan2(x, y);
                     pow(1, y) = pow(x, 0) = 1 for every x and y, NaN
                     included; pow of integers wraps, with x^-n = 0 unless
                     |x| = 1
     min, max        NaN propagates; -0 < +0
     and, or, xor    integers bitwise, booleans logically
   nx_<op>_new(&z, x, y) makes z. Fail as the module's operations do. */
NX_API int nx_add_new(nx_array **z, nx_array *x, nx_array *y);
NX_API int nx_sub(nx_array *z, nx_array *x, nx_array *y);
NX_API int nx_sub_new(nx_array **z, nx_array *x, nx_array *y);
NX_API int nx_mul(nx_array *z, nx_array *x, nx_array *y);
NX_API int nx_mul_new(nx_array **z, nx_array *x, nx_array *y);
NX_API int nx_fdiv(nx_array *z, nx_array *x, nx_array *y);
NX_API int nx_fdiv_new(nx_array **z, nx_array *x, nx_array *y);
NX_API int nx_idiv(nx_array *z, nx_array *x, nx_array *y);
NX_API int nx_idiv_new(nx_array **z, nx_array *x, nx_array *y);
NX_API int nx_mod(nx_array *z, nx_array *x, nx_array *y);
NX_API int nx_mod_new(nx_array **z, nx_array *x, nx_array *y);
NX_API int nx_pow(nx_array *z, nx_array *x, nx_array *y);
NX_API int nx_pow_new(nx_array **z, nx_array *x, nx_array *y);
NX_API int nx_atan2(nx_array *z, nx_array *x, nx_array *y);
NX_API int nx_atan2_new(nx_array **z, nx_array *x, nx_array *y);
NX_API int nx_min(nx_array *z, nx_array *x, nx_array *y);
NX_API int nx_min_new(nx_array **z, nx_array *x, nx_array *y);
NX_API int nx_max(nx_array *z, nx_array *x, nx_array *y);
NX_API int nx_max_new(nx_array **z, nx_array *x, nx_array *y);
NX_API int nx_and(nx_array *z, nx_array *x, nx_array *y);
NX_API int nx_and_new(nx_array **z, nx_array *x, nx_array *y);
NX_API int nx_or(nx_array *z, nx_array *x, nx_array *y);
NX_API int nx_or_new(nx_array **z, nx_array *x, nx_array *y);
NX_API int nx_xor(nx_array *z, nx_array *x, nx_array *y);
NX_API int nx_xor_new(nx_array **z, nx_array *x, nx_array *y);

/* Comparisons, z = (x op y) elementwise into z of dtype bool or bit, x and y
   of one dtype, all three of one shape: eq, ne, lt (x < y), le (x <= y).
   A NaN compares unequal to everything, itself included (ne is true); -0
   equals +0; complex numbers compare only by eq and ne.
   nx_<op>_new(&z, x, y) makes a bool z. Fail as the module's operations do. */
NX_API int nx_eq(nx_array *z, nx_array *x, nx_array *y);
NX_API int nx_eq_new(nx_array **z, nx_array *x, nx_array *y);
NX_API int nx_ne(nx_array *z, nx_array *x, nx_array *y);
NX_API int nx_ne_new(nx_array **z, nx_array *x, nx_array *y);
NX_API int nx_lt(nx_array *z, nx_array *x, nx_array *y);
NX_API int nx_lt_new(nx_array **z, nx_array *x, nx_array *y);
NX_API int nx_le(nx_array *z, nx_array *x, nx_array *y);
NX_API int nx_le_new(nx_array **z, nx_array *x, nx_array *y);

/* Unary operations, z = op(x) elementwise, z and x of one dtype and shape:
     neg, abs        integers wrap (abs INT_MIN = INT_MIN); floats act on the
                     sign bit alone, keeping a NaN's other bits
     recip           1 / x (floats and complex)
     sign            -1, 0 or 1 (a float's zero keeps its sign, NaN stays NaN)
     sqrt            correctly rounded
     exp log sin cos tan asin acos atan sinh cosh tanh erf
                     floats: correctly rounded for formats of 16 bits or
                     fewer, within 1 ulp for float32 and float64
     trunc ceil floor round
                     floats to integral values (round: halves away from
                     zero); integers unchanged
   nx_<op>_new(&z, x) makes z. Fail as the module's operations do. */
NX_API int nx_neg(nx_array *z, nx_array *x);
NX_API int nx_neg_new(nx_array **z, nx_array *x);
NX_API int nx_recip(nx_array *z, nx_array *x);
NX_API int nx_recip_new(nx_array **z, nx_array *x);
NX_API int nx_abs(nx_array *z, nx_array *x);
NX_API int nx_abs_new(nx_array **z, nx_array *x);
NX_API int nx_sqrt(nx_array *z, nx_array *x);
NX_API int nx_sqrt_new(nx_array **z, nx_array *x);
NX_API int nx_sign(nx_array *z, nx_array *x);
NX_API int nx_sign_new(nx_array **z, nx_array *x);
NX_API int nx_exp(nx_array *z, nx_array *x);
NX_API int nx_exp_new(nx_array **z, nx_array *x);
NX_API int nx_log(nx_array *z, nx_array *x);
NX_API int nx_log_new(nx_array **z, nx_array *x);
NX_API int nx_sin(nx_array *z, nx_array *x);
NX_API int nx_sin_new(nx_array **z, nx_array *x);
NX_API int nx_cos(nx_array *z, nx_array *x);
NX_API int nx_cos_new(nx_array **z, nx_array *x);
NX_API int nx_tan(nx_array *z, nx_array *x);
NX_API int nx_tan_new(nx_array **z, nx_array *x);
NX_API int nx_asin(nx_array *z, nx_array *x);
NX_API int nx_asin_new(nx_array **z, nx_array *x);
NX_API int nx_acos(nx_array *z, nx_array *x);
NX_API int nx_acos_new(nx_array **z, nx_array *x);
NX_API int nx_atan(nx_array *z, nx_array *x);
NX_API int nx_atan_new(nx_array **z, nx_array *x);
NX_API int nx_sinh(nx_array *z, nx_array *x);
NX_API int nx_sinh_new(nx_array **z, nx_array *x);
NX_API int nx_cosh(nx_array *z, nx_array *x);
NX_API int nx_cosh_new(nx_array **z, nx_array *x);
NX_API int nx_tanh(nx_array *z, nx_array *x);
NX_API int nx_tanh_new(nx_array **z, nx_array *x);
NX_API int nx_trunc(nx_array *z, nx_array *x);
NX_API int nx_trunc_new(nx_array **z, nx_array *x);
NX_API int nx_ceil(nx_array *z, nx_array *x);
NX_API int nx_ceil_new(nx_array **z, nx_array *x);
NX_API int nx_floor(nx_array *z, nx_array *x);
NX_API int nx_floor_new(nx_array **z, nx_array *x);
NX_API int nx_round(nx_array *z, nx_array *x);
NX_API int nx_round_new(nx_array **z, nx_array *x);
NX_API int nx_erf(nx_array *z, nx_array *x);
NX_API int nx_erf_new(nx_array **z, nx_array *x);

/* nx_where(z, c, x, y) sets z to x where c is true and to y elsewhere,
   elementwise, bit for bit: c of dtype bool or bit, z, x and y of one dtype,
   all four of one shape. nx_where_new(&z, c, x, y) makes z.
   Fail as the module's operations do. */
NX_API int nx_where(nx_array *z, nx_array *c, nx_array *x, nx_array *y);
NX_API int nx_where_new(nx_array **z, nx_array *c, nx_array *x, nx_array *y);

/* nx_fill(z, v) stores v into every element of z: v read by z's dtype's
   kind (nx_value), floats by the store rule, complex components each.
   Fails as the module's operations do, and with NX_EINVAL for an integer v
   outside z's range (nx_dtype_holds). */
NX_API int nx_fill(nx_array *z, nx_value v);

/* nx_copy(z, x) stores x's elements into z, of one dtype and shape, bit for
   bit (NaN payloads included); nx_assign(z, x) is the same operation under
   the name a backend's assign has. nx_copy_new(&z, x) makes z.
   Fail as the module's operations do. */
NX_API int nx_copy(nx_array *z, nx_array *x);
NX_API int nx_copy_new(nx_array **z, nx_array *x);
NX_API int nx_assign(nx_array *z, nx_array *x);

/* ---- Reductions and scans ----------------------------------------------- */

/* Reductions of x over the naxes distinct axes (negative ones count from the
   end; naxes 0 with axes NULL reduces nothing, and naxes -1 every axis) into
   z, whose shape is x's without those axes, or x's with extent 1 there:
     sum, prod   of z's dtype, x's; floats sum pairwise (error O(log n)), in
                 double for formats up to float64 and store once; integers
                 wrap; an empty sum is 0, an empty product 1
     min, max    NaN propagates; an empty min or max is declined (NX_EINVAL,
                 saying that min or max has no identity)
     any, all    z of dtype bool or bit, x of any real dtype: whether some
                 (every) element is nonzero (NaN is nonzero); empty: false
                 (true)
   nx_<op>_new(&z, x, axes, naxes, keepdims) makes z, with extent 1 at the
   reduced axes when keepdims. Fail as the module's operations do, and with
   NX_EINVAL for axes out of range or repeated. */
NX_API int nx_sum(nx_array *z, nx_array *x, const int *axes, int naxes);
NX_API int nx_sum_new(nx_array **z, nx_array *x, const int *axes, int naxes, bool keepdims);
NX_API int nx_prod(nx_array *z, nx_array *x, const int *axes, int naxes);
NX_API int nx_prod_new(nx_array **z, nx_array *x, const int *axes, int naxes, bool keepdims);
NX_API int nx_reduce_min(nx_array *z, nx_array *x, const int *axes, int naxes);
NX_API int nx_reduce_min_new(nx_array **z, nx_array *x, const int *axes, int naxes, bool keepdims);
NX_API int nx_reduce_max(nx_array *z, nx_array *x, const int *axes, int naxes);
NX_API int nx_reduce_max_new(nx_array **z, nx_array *x, const int *axes, int naxes, bool keepdims);
NX_API int nx_any(nx_array *z, nx_array *x, const int *axes, int naxes);
NX_API int nx_any_new(nx_array **z, nx_array *x, const int *axes, int naxes, bool keepdims);
NX_API int nx_all(nx_array *z, nx_array *x, const int *axes, int naxes);
NX_API int nx_all_new(nx_array **z, nx_array *x, const int *axes, int naxes, bool keepdims);

/* nx_argmax(z, x, axis) sets z (int32, x's shape without `axis`, or with
   extent 1 there) to the index along axis of the greatest element, the
   first of equal ones; a NaN is greater than every number (the first NaN
   wins). nx_argmin likewise for the least. An axis of extent 0 is declined,
   and so is one longer than INT32_MAX (NX_EINVAL, saying which). nx_argmax_new(&z, x, axis, keepdims)
   makes z. Fail as the module's operations do, and with NX_EINVAL for an
   axis out of range. */
NX_API int nx_argmax(nx_array *z, nx_array *x, int axis);
NX_API int nx_argmax_new(nx_array **z, nx_array *x, int axis, bool keepdims);
NX_API int nx_argmin(nx_array *z, nx_array *x, int axis);
NX_API int nx_argmin_new(nx_array **z, nx_array *x, int axis, bool keepdims);

/* Inclusive scans along axis, z and x of one dtype and shape (z may be
   identical to x): cumsum, cumprod (floats accumulate in double and store
   each result once; integers wrap), cummax, cummin (NaN propagates from
   where it appears). nx_<op>_new(&z, x, axis) makes z. Fail as the module's
   operations do, and with NX_EINVAL for an axis out of range. */
NX_API int nx_cumsum(nx_array *z, nx_array *x, int axis);
NX_API int nx_cumsum_new(nx_array **z, nx_array *x, int axis);
NX_API int nx_cumprod(nx_array *z, nx_array *x, int axis);
NX_API int nx_cumprod_new(nx_array **z, nx_array *x, int axis);
NX_API int nx_cummax(nx_array *z, nx_array *x, int axis);
NX_API int nx_cummax_new(nx_array **z, nx_array *x, int axis);
NX_API int nx_cummin(nx_array *z, nx_array *x, int axis);
NX_API int nx_cummin_new(nx_array **z, nx_array *x, int axis);

/* ---- Assembly ----------------------------------------------------------- */

/* nx_pad_new(&z, x, before, after, v) makes z of x's dtype, extent
   before[j] + extent j + after[j] on axis j (rank entries each, >= 0), x's
   elements in the middle and v (as nx_fill reads it) around them.
   Fails as the module's operations do, with NX_EINVAL for a negative or too
   large pad and for NULL before or after with a rank above 0, and as
   nx_fill does. */
NX_API int nx_pad_new(nx_array **z, nx_array *x, const int64_t *before, const int64_t *after, nx_value v);

/* nx_cat_new(&z, xs, n, axis) makes z, the n >= 1 arrays xs (one dtype and
   rank, extents equal but on axis) one after another along axis.
   Fails as the module's operations do, and with NX_EINVAL for n < 1, an axis
   out of range, or an extent sum past an int64_t. */
NX_API int nx_cat_new(nx_array **z, nx_array *const *xs, int n, int axis);

/* nx_contiguous(&z, x) sets z to x itself (a new handle over its buffer)
   where x is C-contiguous with its first element at a byte boundary, and
   otherwise to nx_copy_new's copy. Fails as nx_copy_new does. */
NX_API int nx_contiguous(nx_array **z, nx_array *x);

#ifdef __cplusplus
}
#endif
#endif /* NX_KERNELS_H */
