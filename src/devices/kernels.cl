/* SPDX-License-Identifier: Apache-2.0 */
/* The device kernels, compiled after nx_dtype.h as OpenCL C (the OpenCL
   program, which the library embeds with nx_dtype.h) and as CUDA (kernels.cu
   includes this file; nvcc compiles it at build time): cast, fill, copy,
   where, and the exact elementwise operations, each element computed as the
   host kernels compute it (src/kernels/ops.c, cast_scalar.c), so that the
   bits agree.

   Every kernel walks a plan (opencl_launch.c, cuda_launch.c): plan[0] the
   rank r, plan[1] the element count, plan[2 .. 2+r) the extents (axis 0
   innermost), then per operand its first element's position and its r
   strides, in elements. Work item g visits elements g, g + G, ... (G the
   NX_G size). Elements of a byte or more are addressed by position times
   width; sub-byte ones by bit position, and stored by an atomic
   compare-and-swap on the 32-bit word that holds them (the rig makes device
   buffers of whole 8-byte words, and the dispatcher declines where a
   borrowed buffer is not), so work items storing neighbours in one byte
   keep each other's bits.

   The two languages differ only in the few names defined first. Products
   and sums never fuse (FP_CONTRACT OFF here, nvcc --fmad=false). */
#if defined(__CUDACC__)
#define NX_G
#define NX_KERNEL extern "C" __global__ void
#define NX_DEV static __device__
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
#define NX__GID() ((long)blockIdx.x * (long)blockDim.x + (long)threadIdx.x)
#define NX__GSIZE() ((long)gridDim.x * (long)blockDim.x)
#define NX__CAS(w, o, n) atomicCAS((unsigned int *)(w), (o), (n))
#define NX__CLZ64(m) __clzll((long long)(m))
NX_DEV double as_double(ulong u) { return nx__f64_of_bits(u); }
NX_DEV ulong as_ulong(double x) { return nx__f64_bits(x); }
NX_DEV double2 nx__d2(double x, double y) { return make_double2(x, y); }
#else
#pragma OPENCL FP_CONTRACT OFF
#define NX_G global
#define NX_KERNEL kernel void
#define NX_DEV static
#define NX__GID() ((long)get_global_id(0))
#define NX__GSIZE() ((long)get_global_size(0))
#define NX__CAS(w, o, n) atomic_cmpxchg((w), (o), (n))
#define NX__CLZ64(m) clz(m)
#if defined(NX_HAS_DOUBLE)
NX_DEV double2 nx__d2(double x, double y) { return (double2)(x, y); }
#endif
#endif

/* The NaN an invalid operation (0/0, inf - inf) makes on the host: x86-64's
   default NaN unless the build names the host's (aarch64: 0x7FF8...). */
#ifndef NX__DEFAULT_NAN
#define NX__DEFAULT_NAN 0xFFF8000000000000UL
#endif

/* The positions of element i in each of n operands. */
NX_DEV void nx__at(NX_G const long *plan, int n, long i, long *pos) {
  int r = (int)plan[0];
  NX_G const long *ext = plan + 2;
  if (r == 1) { /* no division: the common case of a coalesced plan */
    for (int k = 0; k < n; k++) pos[k] = plan[3 + 2 * k] + i * plan[4 + 2 * k];
    return;
  }
  for (int k = 0; k < n; k++) pos[k] = plan[2 + r + k * (r + 1)];
  for (int j = 0; j < r; j++) {
    long e = ext[j], q = i % e;
    i /= e;
    for (int k = 0; k < n; k++) pos[k] += q * plan[2 + r + k * (r + 1) + 1 + j];
  }
}

/* The low 64 bits of the element at position p (a complex128's real part). */
NX_DEV ulong nx__ld(NX_G const uchar *b, long p, int bits) {
  switch (bits) {
  case 8: return b[p];
  case 16: return ((NX_G const ushort *)b)[p];
  case 32: return ((NX_G const uint *)b)[p];
  case 64: return ((NX_G const ulong *)b)[p];
  case 128: return ((NX_G const ulong *)b)[2 * p];
  default: return nx_subbyte_get(b, p, bits);
  }
}

NX_DEV ulong nx__ld_hi(NX_G const uchar *b, long p) { return ((NX_G const ulong *)b)[2 * p + 1]; }

NX_DEV void nx__st(NX_G uchar *b, long p, int bits, ulong v) {
  switch (bits) {
  case 8: b[p] = (uchar)v; return;
  case 16: ((NX_G ushort *)b)[p] = (ushort)v; return;
  case 32: ((NX_G uint *)b)[p] = (uint)v; return;
  case 64: ((NX_G ulong *)b)[p] = v; return;
  case 128: ((NX_G ulong *)b)[2 * p] = v; return;
  }
  long bit = p * bits, byte = bit >> 3;
  volatile NX_G uint *w = (volatile NX_G uint *)(b + (byte & ~3L));
  uint sh = (uint)(((byte & 3) << 3) + (bit & 7)), mask = ((1u << bits) - 1) << sh, val = ((uint)v << sh) & mask;
  uint old = *w, prev;
  while ((prev = NX__CAS(w, old, (old & ~mask) | val)) != old) old = prev;
}

NX_DEV void nx__st_hi(NX_G uchar *b, long p, ulong v) { ((NX_G ulong *)b)[2 * p + 1] = v; }

/* A run of elements: the loop every kernel has. On a GPU work item g
   visits g, g + G, ... so that neighbouring items touch neighbouring
   elements at once (coalesced). A CPU device (built with NX__CHUNKED) runs
   a work-group's items one after another on one thread, so there each item
   takes one contiguous chunk instead: the grid-stride order would have one
   thread jump G elements at every step. */
#if defined(NX__CHUNKED)
#define NX__EACH(n)                                                               \
  long count = plan[1], pos[n], per_ = (count + NX__GSIZE() - 1) / NX__GSIZE();   \
  long lo_ = NX__GID() * per_, hi_ = lo_ + per_ < count ? lo_ + per_ : count;     \
  for (long i = lo_; i < hi_; i++)                                                \
    if ((nx__at(plan, n, i, pos)), 1)
#else
#define NX__EACH(n)                                                               \
  long count = plan[1], pos[n];                                                   \
  for (long i = NX__GID(); i < count; i += NX__GSIZE())                           \
    if ((nx__at(plan, n, i, pos)), 1)
#endif

NX_KERNEL nx_fill(NX_G uchar *z, NX_G const long *plan, int bits, ulong lo, ulong hi) {
  NX__EACH(1) {
    nx__st(z, pos[0], bits, lo);
    if (bits == 128) nx__st_hi(z, pos[0], hi);
  }
}

NX_KERNEL nx_copy(NX_G uchar *z, NX_G const uchar *x, NX_G const long *plan, int bits) {
  NX__EACH(2) {
    nx__st(z, pos[0], bits, nx__ld(x, pos[1], bits));
    if (bits == 128) nx__st_hi(z, pos[0], nx__ld_hi(x, pos[1]));
  }
}

NX_KERNEL nx_where(NX_G uchar *z, NX_G const uchar *c, NX_G const uchar *x, NX_G const uchar *y,
                     NX_G const long *plan, int bits, int cbits) {
  NX__EACH(4) {
    bool t = nx__ld(c, pos[1], cbits) != 0;
    NX_G const uchar *s = t ? x : y;
    long p = t ? pos[2] : pos[3];
    nx__st(z, pos[0], bits, nx__ld(s, p, bits));
    if (bits == 128) nx__st_hi(z, pos[0], nx__ld_hi(s, p));
  }
}

/* ---- Cast: the exact element path ---------------------------------------- */

enum { NX__V_FLOAT, NX__V_INT, NX__V_UINT };
typedef struct nx__value {
  ulong re, im; /* float: float64 bits; int: an int64's bits; uint: a uint64 */
  int cls;
} nx__value;

NX_DEV nx__value nx__cast_load(int from, ulong lo, ulong hi) {
  nx__value v = {0, 0, NX__V_FLOAT};
  switch (from) {
  case NX_COMPLEX128: v.re = lo; v.im = hi; return v;
  case NX_COMPLEX64: v.re = nx_load_float32_f64((uint)lo); v.im = nx_load_float32_f64((uint)(lo >> 32)); return v;
  case NX_UINT64: v.re = lo; v.cls = NX__V_UINT; return v;
  case NX_BOOL: v.re = (lo & 0xFF) != 0; v.cls = NX__V_INT; return v;
  case NX_BIT: v.re = lo & 1; v.cls = NX__V_INT; return v;
  }
  switch (nx_dtype_kind_of(from)) {
  case NX_KIND_FLOAT: v.re = nx_dtype_load_f64bits(from, lo); return v;
  case NX_KIND_SIGNED: v.re = (ulong)nx__int_value(lo, nx_dtype_bits_of(from), 1); v.cls = NX__V_INT; return v;
  default: v.re = (ulong)nx__int_value(lo, nx_dtype_bits_of(from), 0); v.cls = NX__V_UINT; return v;
  }
}

/* Magnitude m, sign s, rounded to odd at 53 bits (see cast_scalar.c). */
NX_DEV ulong nx__f64bits_odd(ulong m, ulong s) {
  if (m >> 53) {
    int sh = 11 - (int)NX__CLZ64(m);
    ulong q = (m >> sh) | ((m & ((1UL << sh) - 1)) != 0);
    m = q << sh;
  }
  return nx__f64bits_of_u64(m, s);
}

NX_DEV ulong nx__cast_store_float(int c, nx__value v) {
  ulong m = v.re, s = 0;
  if (v.cls == NX__V_FLOAT) return nx_dtype_store_f64bits(c, v.re);
  if (v.cls == NX__V_INT && (long)m < 0) { m = 0 - m; s = 1; }
  if (c == NX_FLOAT64) return nx__f64bits_of_u64(m, s);
  return nx_dtype_store_f64bits(c, nx__f64bits_odd(m, s));
}

NX_DEV ulong nx__cast_store_int(int bits, int is_signed, nx__value v) {
  ulong mask = bits == 64 ? ~0UL : (1UL << bits) - 1, umax = is_signed ? mask >> 1 : mask;
  if (v.cls == NX__V_INT && (long)v.re < 0) {
    if (!is_signed) return 0;
    long lo = -(long)umax - 1;
    return ((long)v.re < lo ? (ulong)lo : v.re) & mask;
  }
  return v.re > umax ? umax : v.re;
}

NX_DEV ulong nx__cast_store(int to, nx__value v, ulong *hi) {
  ulong abs = 0x7FFFFFFFFFFFFFFFUL;
  *hi = 0;
  switch (to) {
  case NX_COMPLEX128: case NX_COMPLEX64: {
    int c = to == NX_COMPLEX128 ? NX_FLOAT64 : NX_FLOAT32;
    ulong re = nx__cast_store_float(c, v), im = v.cls == NX__V_FLOAT ? nx_dtype_store_f64bits(c, v.im) : 0;
    if (to == NX_COMPLEX128) { *hi = im; return re; }
    return re | im << 32;
  }
  case NX_BOOL: case NX_BIT: return v.cls == NX__V_FLOAT ? ((v.re & abs) | (v.im & abs)) != 0 : v.re != 0;
  }
  int bits = nx_dtype_bits_of(to), sg = nx_dtype_kind_of(to) == NX_KIND_SIGNED;
  if (nx_dtype_kind_of(to) == NX_KIND_FLOAT) return nx__cast_store_float(to, v);
  return v.cls == NX__V_FLOAT ? nx__store_int(v.re, bits, sg) : nx__cast_store_int(bits, sg, v);
}

NX_KERNEL nx_cast(NX_G uchar *z, NX_G const uchar *x, NX_G const long *plan, int to, int from) {
  int tb = nx_dtype_bits_of(to), fb = nx_dtype_bits_of(from);
  NX__EACH(2) {
    ulong hi = fb == 128 ? nx__ld_hi(x, pos[1]) : 0, lo = nx__ld(x, pos[1], fb);
    lo = nx__cast_store(to, nx__cast_load(from, lo, hi), &hi);
    nx__st(z, pos[0], tb, lo);
    if (tb == 128) nx__st_hi(z, pos[0], hi);
  }
}

/* ---- Elementwise operations -------------------------------------------- */

/* The operations' numbers: nx__bop and nx__uop of src/kernels/ops.h. */
enum { NX__ADD, NX__SUB, NX__MUL, NX__FDIV, NX__IDIV, NX__MOD, NX__POW, NX__ATAN2, NX__MIN, NX__MAX, NX__AND,
       NX__OR, NX__XOR };
enum { NX__NEG, NX__RECIP, NX__ABS, NX__SQRT, NX__SIGN, NX__TRUNC = 16, NX__CEIL, NX__FLOOR, NX__ROUND };
enum { NX__EQ, NX__NE, NX__LT, NX__LE };

/* Integers and booleans in 64 bits: x and y are the values (signed ones
   sign-extended, booleans 0 or 1); the store keeps the low bits. */
NX_DEV ulong nx__ipow(ulong x, ulong y) {
  ulong r = 1;
  for (; y; y >>= 1, x *= x)
    if (y & 1) r *= x;
  return r;
}

NX_DEV ulong nx__int_op(int op, int k, ulong xu, ulong yu) {
  long x = (long)xu, y = (long)yu;
  if (k == NX_KIND_SIGNED) switch (op) {
    case NX__IDIV: return y == 0 ? 0 : y == -1 ? 0 - xu : (ulong)(x / y);
    case NX__MOD: return (ulong)(y == 0 ? x : y == -1 ? 0 : x % y);
    case NX__POW:
      if (y >= 0) return nx__ipow(xu, yu);
      return (ulong)(x == 1 ? 1 : x == -1 ? ((yu & 1) ? -1 : 1) : 0);
    case NX__MIN: return (ulong)(x < y ? x : y);
    case NX__MAX: return (ulong)(x > y ? x : y);
    }
  switch (op) {
  case NX__ADD: return k == NX_KIND_BOOLEAN ? (xu | yu) : xu + yu;
  case NX__SUB: return xu - yu;
  case NX__MUL: return xu * yu;
  case NX__IDIV: return yu ? xu / yu : 0;
  case NX__MOD: return yu ? xu % yu : xu;
  case NX__POW: return nx__ipow(xu, yu);
  case NX__MIN: return xu < yu ? xu : yu;
  case NX__MAX: return xu > yu ? xu : yu;
  case NX__AND: return xu & yu;
  case NX__OR: return xu | yu;
  case NX__XOR: return xu ^ yu;
  }
  return 0;
}

/* An integer or boolean element's value. */
NX_DEV ulong nx__int_of(int dt, int k, ulong b) {
  if (k == NX_KIND_BOOLEAN) return b != 0;
  return k == NX_KIND_SIGNED ? (ulong)nx__int_value(b, nx_dtype_bits_of(dt), 1) : b;
}

NX_DEV ulong nx__int_store(int k, ulong v) { return k == NX_KIND_BOOLEAN ? v != 0 : v; }

#if defined(NX_HAS_DOUBLE)
NX_DEV double nx__f(int dt, ulong b) { return as_double(nx_dtype_load_f64bits(dt, b)); }
NX_DEV ulong nx__fst(int dt, double x) { return nx_dtype_store_f64bits(dt, as_ulong(x)); }

/* The host's NaNs, whatever the device's: an operation on a NaN gives its
   first NaN operand, quieted; an invalid one gives the host's default NaN.
   (GPUs give one canonical NaN for both; PoCL, on the host's CPU, agrees
   with the host without these, so the OpenCL suite checks the rule.) */
NX_DEV double nx__quiet(double x) { return as_double(as_ulong(x) | 0x0008000000000000UL); }
NX_DEV double nx__nan2(double r, double x, double y) {
  if (!isnan(r)) return r;
  return isnan(x) ? nx__quiet(x) : isnan(y) ? nx__quiet(y) : as_double(NX__DEFAULT_NAN);
}
NX_DEV double nx__nan1(double r, double x) { return nx__nan2(r, x, 0.0); }
NX_DEV double nx__fadd(double x, double y) { return nx__nan2(x + y, x, y); }
NX_DEV double nx__fsub(double x, double y) { return nx__nan2(x - y, x, y); }
NX_DEV double nx__fmul(double x, double y) { return nx__nan2(x * y, x, y); }
NX_DEV double nx__fdiv(double x, double y) { return nx__nan2(x / y, x, y); }

NX_DEV double nx__fminmax(bool mx, double x, double y) {
  if (isnan(x)) return x;
  if (isnan(y)) return y;
  if (x == y) return (signbit(x) != 0) != mx ? x : y; /* -0 < +0 */
  return (x < y) != mx ? x : y;
}

NX_DEV double nx__float_op(int op, double x, double y) {
  switch (op) {
  case NX__ADD: return nx__fadd(x, y);
  case NX__SUB: return nx__fsub(x, y);
  case NX__MUL: return nx__fmul(x, y);
  case NX__FDIV: return nx__fdiv(x, y);
  case NX__MOD:
    /* The C library's invalid cases, as it computes them, (x * y) / (x * y):
       a NaN operand's NaN, else the invalid operation's NaN. */
    if (isnan(x) || isnan(y) || isinf(x) || y == 0) return nx__fdiv(nx__fmul(x, y), nx__fmul(x, y));
    return fmod(x, y);
  case NX__MIN: return nx__fminmax(false, x, y);
  case NX__MAX: return nx__fminmax(true, x, y);
  }
  return 0;
}

/* The C runtime's complex product (Annex G: infinities recovered from a
   NaN + iNaN result), which the host's complex multiplication calls. */
NX_DEV double2 nx__cmul(double a, double b, double c, double d) {
  double ac = nx__fmul(a, c), bd = nx__fmul(b, d), ad = nx__fmul(a, d), bc = nx__fmul(b, c);
  double x = nx__fsub(ac, bd), y = nx__fadd(ad, bc);
  if (isnan(x) && isnan(y)) {
    bool recalc = false;
    if (isinf(a) || isinf(b)) {
      a = copysign(isinf(a) ? 1.0 : 0.0, a);
      b = copysign(isinf(b) ? 1.0 : 0.0, b);
      if (isnan(c)) c = copysign(0.0, c);
      if (isnan(d)) d = copysign(0.0, d);
      recalc = true;
    }
    if (isinf(c) || isinf(d)) {
      c = copysign(isinf(c) ? 1.0 : 0.0, c);
      d = copysign(isinf(d) ? 1.0 : 0.0, d);
      if (isnan(a)) a = copysign(0.0, a);
      if (isnan(b)) b = copysign(0.0, b);
      recalc = true;
    }
    if (!recalc && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {
      if (isnan(a)) a = copysign(0.0, a);
      if (isnan(b)) b = copysign(0.0, b);
      if (isnan(c)) c = copysign(0.0, c);
      if (isnan(d)) d = copysign(0.0, d);
      recalc = true;
    }
    if (recalc) {
      x = nx__fmul(INFINITY, nx__fsub(nx__fmul(a, c), nx__fmul(b, d)));
      y = nx__fmul(INFINITY, nx__fadd(nx__fmul(a, d), nx__fmul(b, c)));
    }
  }
  return nx__d2(x, y);
}

/* A complex element's parts, and their store. */
NX_DEV double2 nx__cx(int dt, ulong lo, ulong hi) {
  if (dt == NX_COMPLEX128) return nx__d2(as_double(lo), as_double(hi));
  return nx__d2(as_double(nx_load_float32_f64((uint)lo)), as_double(nx_load_float32_f64((uint)(lo >> 32))));
}

NX_DEV ulong nx__cxst(int dt, double2 v, ulong *hi) {
  if (dt == NX_COMPLEX128) {
    *hi = as_ulong(v.y);
    return as_ulong(v.x);
  }
  return (ulong)nx_store_float32_f64(as_ulong(v.x)) | (ulong)nx_store_float32_f64(as_ulong(v.y)) << 32;
}
#endif

NX_KERNEL nx_binary(NX_G uchar *z, NX_G const uchar *x, NX_G const uchar *y, NX_G const long *plan, int op,
                      int dt) {
  int bits = nx_dtype_bits_of(dt), k = nx_dtype_kind_of(dt);
  NX__EACH(3) {
    ulong a = nx__ld(x, pos[1], bits), b = nx__ld(y, pos[2], bits), hi = 0, r;
#if defined(NX_HAS_DOUBLE)
    if (k == NX_KIND_FLOAT) r = nx__fst(dt, nx__float_op(op, nx__f(dt, a), nx__f(dt, b)));
    else if (k == NX_KIND_COMPLEX) {
      double2 u = nx__cx(dt, a, bits == 128 ? nx__ld_hi(x, pos[1]) : 0);
      double2 v = nx__cx(dt, b, bits == 128 ? nx__ld_hi(y, pos[2]) : 0);
      r = nx__cxst(dt, op == NX__ADD   ? nx__d2(nx__fadd(u.x, v.x), nx__fadd(u.y, v.y))
                        : op == NX__SUB ? nx__d2(nx__fsub(u.x, v.x), nx__fsub(u.y, v.y))
                                        : nx__cmul(u.x, u.y, v.x, v.y), &hi);
    } else
#endif
      r = nx__int_store(k, nx__int_op(op, k, nx__int_of(dt, k, a), nx__int_of(dt, k, b)));
    nx__st(z, pos[0], bits, r);
    if (bits == 128) nx__st_hi(z, pos[0], hi);
  }
}

NX_KERNEL nx_unary(NX_G uchar *z, NX_G const uchar *x, NX_G const long *plan, int op, int dt) {
  int bits = nx_dtype_bits_of(dt), k = nx_dtype_kind_of(dt);
  NX__EACH(2) {
    ulong lo = nx__ld(x, pos[1], bits), hi = bits == 128 ? nx__ld_hi(x, pos[1]) : 0;
    if (k == NX_KIND_COMPLEX) { /* neg only: the sign bits */
      if (bits == 128) { lo ^= 1UL << 63; hi ^= 1UL << 63; }
      else lo ^= 0x8000000080000000UL;
    } else if (k == NX_KIND_SIGNED || k == NX_KIND_UNSIGNED) {
      long v = nx__int_value(lo, bits, k == NX_KIND_SIGNED);
      ulong u = (ulong)v;
      if (op == NX__NEG) u = 0 - u;
      else if (op == NX__ABS) u = k == NX_KIND_SIGNED && v < 0 ? 0 - u : u; /* unsigned: itself */
      else if (op == NX__SIGN) u = k == NX_KIND_UNSIGNED ? (lo != 0) : (ulong)(v > 0) - (ulong)(v < 0);
      lo = u;
    } else {
      ulong sb = 1UL << (bits - 1);
      if (op == NX__NEG) lo ^= sb;
      else if (op == NX__ABS) lo &= ~sb;
#if defined(NX_HAS_DOUBLE)
      else {
        double v = nx__f(dt, lo), r = 0;
        bool keep = false;
        switch (op) {
        case NX__RECIP: r = nx__fdiv(1.0, v); break;
        case NX__SIGN: keep = isnan(v) || v == 0; r = v > 0 ? 1.0 : -1.0; break;
        case NX__TRUNC: r = nx__nan1(trunc(v), v); break;
        case NX__CEIL: r = nx__nan1(ceil(v), v); break;
        case NX__FLOOR: r = nx__nan1(floor(v), v); break;
        case NX__ROUND: r = nx__nan1(round(v), v); break;
        case NX__SQRT: r = nx__nan1(sqrt(v), v); break;
        }
        if (!keep) lo = dt == NX_FLOAT64 ? as_ulong(r) : nx__fst(dt, r);
      }
#endif
    }
    nx__st(z, pos[0], bits, lo);
    if (bits == 128) nx__st_hi(z, pos[0], hi);
  }
}

NX_KERNEL nx_compare(NX_G uchar *z, NX_G const uchar *x, NX_G const uchar *y, NX_G const long *plan, int op,
                       int dt, int zt) {
  int bits = nx_dtype_bits_of(dt), k = nx_dtype_kind_of(dt), zb = nx_dtype_bits_of(zt);
  NX__EACH(3) {
    ulong a = nx__ld(x, pos[1], bits), b = nx__ld(y, pos[2], bits);
    bool r;
#if defined(NX_HAS_DOUBLE)
    if (k == NX_KIND_FLOAT) {
      double u = nx__f(dt, a), v = nx__f(dt, b);
      r = op == NX__EQ ? u == v : op == NX__NE ? u != v : op == NX__LT ? u < v : u <= v;
    } else if (k == NX_KIND_COMPLEX) {
      double2 u = nx__cx(dt, a, bits == 128 ? nx__ld_hi(x, pos[1]) : 0);
      double2 v = nx__cx(dt, b, bits == 128 ? nx__ld_hi(y, pos[2]) : 0);
      bool eq = u.x == v.x && u.y == v.y;
      r = op == NX__EQ ? eq : !eq;
    } else
#endif
    if (k == NX_KIND_SIGNED) {
      long u = nx__int_value(a, bits, 1), v = nx__int_value(b, bits, 1);
      r = op == NX__EQ ? u == v : op == NX__NE ? u != v : op == NX__LT ? u < v : u <= v;
    } else {
      ulong u = nx__int_of(dt, k, a), v = nx__int_of(dt, k, b);
      r = op == NX__EQ ? u == v : op == NX__NE ? u != v : op == NX__LT ? u < v : u <= v;
    }
    nx__st(z, pos[0], zb, r);
  }
}
