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
   strides, in elements, in the order NX__EACH walks it (below: a grid
   stride on a GPU, chunks of rows or tiles on a CPU device). Elements of a
   byte or more are addressed by position times
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
#define NX_INL static __device__ __forceinline__
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
NX_DEV float as_float(uint u) { return __uint_as_float(u); }
NX_DEV uint as_uint(float x) { return __float_as_uint(x); }
#else
#pragma OPENCL FP_CONTRACT OFF
#define NX_G global
#define NX_KERNEL kernel void
#define NX_DEV static inline __attribute__((always_inline))
/* Element functions: always inlined, so that a specialized kernel's
   constants reach them. */
#define NX_INL static inline __attribute__((always_inline))
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

/* The loop every kernel has, over the elements of the plan, the positions
   of the current element in q[0 .. n). On a GPU work item g visits g,
   g + G, ... so that neighbouring items touch neighbouring elements at once
   (coalesced). A CPU device (built with NX__CHUNKED) runs a work-group's
   items one after another on one thread, so there each item (the launch
   makes work-groups of one) takes one contiguous chunk of the elements and
   walks it row by row along axis 0: the position of a row's first element
   by nx__at, once per row, then the row as a plain loop of constant
   strides, and of unit strides where every operand's is 1, the loop a CPU
   compiler vectorizes. */
#if defined(NX__CHUNKED)
/* Extent j of the plan, and operand k's stride along it (1 and 0 past its
   rank). */
NX_DEV long nx__ext(NX_G const long *plan, int j) { return j < plan[0] ? plan[2 + j] : 1; }
NX_DEV long nx__str(NX_G const long *plan, int k, int j) {
  int r = (int)plan[0];
  return j < r ? plan[2 + r + k * (r + 1) + 1 + j] : 0;
}

/* Whether every operand's elements are adjacent along axis 0. */
NX_DEV bool nx__unit(NX_G const long *plan, int n) {
  bool u = true;
  for (int k = 0; k < n; k++) u &= nx__str(plan, k, 0) == 1;
  return u;
}

/* Two walks. Where every operand is unit-stride along axis 0, each work
   item takes a contiguous chunk of the elements and walks it row by row:
   the position of a row's first element by nx__at, once per row, then the
   row as a plain loop (what a CPU compiler vectorizes). Elsewhere (a
   transposed operand, a strided or broadcast one) it takes a share of the
   tiles: NX__TILE_COLS elements along axis 0 by NX__TILE_ROWS along axis 1;
   a work item's tiles run along axis 0 through NX__TILE_SPAN elements.
   Each read operand that is not unit-stride along axis 0 and is of a byte
   or more (up to 64 bits) is first copied, tile by tile, into a private
   block of its own, its rows contiguous (nx__pack); then the tile's rows
   run as one loop, the packed operands read from their blocks at unit
   stride and the others in place at their own. Where every operand is then
   unit-stride (the written one dense, the reads dense or packed) the
   compiler's check of the strides takes the loop's vector version; where
   not (a strided written operand, a transposed sub-byte or 128-bit one)
   the tile still makes an operand adjacent along axis 1 use each cache
   line it loads for every row. Positions and strides are copied into
   scalars and q written at constant indices, so that they live in
   registers: a CPU compiler vectorizes no loop that addresses through a
   private array. */
#define NX__TILE_COLS 32
#define NX__TILE_ROWS 32
#define NX__TILE_SPAN 1024

/* Operand x's tile of cols elements along axis 0 by rows along axis 1 from
   position p (strides a, b), bits wide, into s: element (t, j) at
   s[j * NX__TILE_COLS + t]. A copy of bits. Where the operand is adjacent
   along axis 1 (b == 1, a transpose), 32- and 64-bit elements move in
   blocks of 8 x 8 and 4 x 4 through vector registers (whole vectors loaded
   along axis 1, transposed by shuffles, stored along axis 0); element by
   element otherwise and at the edges, a loop the compiler must not
   vectorize (its strided stores become scatters, slower than the scalar
   loop). Not inlined: called once a tile, it would otherwise be compiled
   again into every kernel's walk, once per read operand. */
#define NX__PACK_EL(T, ta, tb, ja, jb)                                                                    \
  for (long t = ta; t < tb; t++) {                                                                        \
    _Pragma("clang loop vectorize(disable)") for (long j = ja; j < jb; j++)                               \
      ((T *)s)[j * NX__TILE_COLS + t] = ((NX_G const T *)x)[p + t * a + j * b];                           \
  }
#if defined(__clang__)
#define NX__SHUF __builtin_shufflevector
/* Rows r0..r7 of 8 elements (at x, pitch xp) become the columns of d (pitch
   dp): d[k * dp + i] = x[i * xp + k]. */
NX_DEV void nx__t8x8(uint *d, long dp, NX_G const uint *x, long xp) {
  uint8 r0 = vload8(0, x), r1 = vload8(0, x + xp), r2 = vload8(0, x + 2 * xp), r3 = vload8(0, x + 3 * xp);
  uint8 r4 = vload8(0, x + 4 * xp), r5 = vload8(0, x + 5 * xp), r6 = vload8(0, x + 6 * xp), r7 = vload8(0, x + 7 * xp);
  uint8 t0 = NX__SHUF(r0, r1, 0, 8, 1, 9, 4, 12, 5, 13), t1 = NX__SHUF(r0, r1, 2, 10, 3, 11, 6, 14, 7, 15);
  uint8 t2 = NX__SHUF(r2, r3, 0, 8, 1, 9, 4, 12, 5, 13), t3 = NX__SHUF(r2, r3, 2, 10, 3, 11, 6, 14, 7, 15);
  uint8 t4 = NX__SHUF(r4, r5, 0, 8, 1, 9, 4, 12, 5, 13), t5 = NX__SHUF(r4, r5, 2, 10, 3, 11, 6, 14, 7, 15);
  uint8 t6 = NX__SHUF(r6, r7, 0, 8, 1, 9, 4, 12, 5, 13), t7 = NX__SHUF(r6, r7, 2, 10, 3, 11, 6, 14, 7, 15);
  uint8 u0 = NX__SHUF(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13), u1 = NX__SHUF(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);
  uint8 u2 = NX__SHUF(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13), u3 = NX__SHUF(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);
  uint8 u4 = NX__SHUF(t4, t6, 0, 1, 8, 9, 4, 5, 12, 13), u5 = NX__SHUF(t4, t6, 2, 3, 10, 11, 6, 7, 14, 15);
  uint8 u6 = NX__SHUF(t5, t7, 0, 1, 8, 9, 4, 5, 12, 13), u7 = NX__SHUF(t5, t7, 2, 3, 10, 11, 6, 7, 14, 15);
  vstore8(NX__SHUF(u0, u4, 0, 1, 2, 3, 8, 9, 10, 11), 0, d);
  vstore8(NX__SHUF(u1, u5, 0, 1, 2, 3, 8, 9, 10, 11), 0, d + dp);
  vstore8(NX__SHUF(u2, u6, 0, 1, 2, 3, 8, 9, 10, 11), 0, d + 2 * dp);
  vstore8(NX__SHUF(u3, u7, 0, 1, 2, 3, 8, 9, 10, 11), 0, d + 3 * dp);
  vstore8(NX__SHUF(u0, u4, 4, 5, 6, 7, 12, 13, 14, 15), 0, d + 4 * dp);
  vstore8(NX__SHUF(u1, u5, 4, 5, 6, 7, 12, 13, 14, 15), 0, d + 5 * dp);
  vstore8(NX__SHUF(u2, u6, 4, 5, 6, 7, 12, 13, 14, 15), 0, d + 6 * dp);
  vstore8(NX__SHUF(u3, u7, 4, 5, 6, 7, 12, 13, 14, 15), 0, d + 7 * dp);
}
/* The same for 4 x 4 64-bit elements. */
NX_DEV void nx__t4x4(ulong *d, long dp, NX_G const ulong *x, long xp) {
  ulong4 r0 = vload4(0, x), r1 = vload4(0, x + xp), r2 = vload4(0, x + 2 * xp), r3 = vload4(0, x + 3 * xp);
  ulong4 t0 = NX__SHUF(r0, r1, 0, 4, 2, 6), t1 = NX__SHUF(r0, r1, 1, 5, 3, 7);
  ulong4 t2 = NX__SHUF(r2, r3, 0, 4, 2, 6), t3 = NX__SHUF(r2, r3, 1, 5, 3, 7);
  vstore4(NX__SHUF(t0, t2, 0, 1, 4, 5), 0, d);
  vstore4(NX__SHUF(t1, t3, 0, 1, 4, 5), 0, d + dp);
  vstore4(NX__SHUF(t0, t2, 2, 3, 6, 7), 0, d + 2 * dp);
  vstore4(NX__SHUF(t1, t3, 2, 3, 6, 7), 0, d + 3 * dp);
}
/* Blocks of B x B by fn where b == 1, the edges element by element. */
#define NX__PACK_BLOCKS(T, B, fn)                                                                         \
  if (b == 1) {                                                                                           \
    long cb = cols / B * B, rb = rows / B * B;                                                            \
    for (long t = 0; t < cb; t += B)                                                                      \
      for (long j = 0; j < rb; j += B)                                                                    \
        fn((T *)s + j * NX__TILE_COLS + t, NX__TILE_COLS, (NX_G const T *)x + p + t * a + j, a);          \
    NX__PACK_EL(T, cb, cols, 0, rows)                                                                     \
    NX__PACK_EL(T, 0, cb, rb, rows)                                                                       \
    return;                                                                                               \
  }
#else
#define NX__PACK_BLOCKS(T, B, fn)
#endif
static __attribute__((noinline)) void nx__pack(ulong *s, NX_G const uchar *x, long p, long a, long b, long cols, long rows, int bits) {
  switch (bits) {
  case 8: NX__PACK_EL(uchar, 0, cols, 0, rows) return;
  case 16: NX__PACK_EL(ushort, 0, cols, 0, rows) return;
  case 32: NX__PACK_BLOCKS(uint, 8, nx__t8x8) NX__PACK_EL(uint, 0, cols, 0, rows) return;
  default: NX__PACK_BLOCKS(ulong, 4, nx__t4x4) NX__PACK_EL(ulong, 0, cols, 0, rows) return;
  }
}

/* Read operand k (its kernel argument X, elements XB bits wide) of the
   packed walk: whether it is packed (pk<k>_), its block (blk<k>_), and the
   memory the tile's rows read it from (x<k>_, named X inside the row
   loop). A block is addressed as global memory: a CPU device has one
   address space, so the private block's address is the same there. */
#define NX__READ(k, X, XB)                                                                                \
  ulong blk##k##_[NX__TILE_COLS * NX__TILE_ROWS];                                                         \
  pk##k##_ = a##k != 1 && (XB) >= 8 && (XB) <= 64;                                                        \
  NX_G const uchar *x##k##_ = pk##k##_ ? (NX_G const uchar *)(ulong)blk##k##_ : X;
#define NX__PACK(k, X, XB)                                                                                \
  if (pk##k##_) nx__pack(blk##k##_, X, p##k##_ + c_ * a##k, a##k, b##k, ce_ - c_, rows_, XB);
#define NX__SHADOW(k, X) NX_G const uchar *X = x##k##_;

#define NX__WALK(n, READS, PACKS, SHADOWS, BODY)                                                          \
  {                                                                                                       \
    long count = plan[1], pos[4] = {0}, s0[4] = {0}, s1[4] = {0}, e0 = nx__ext(plan, 0);                  \
    for (int k_ = 0; k_ < n; k_++) {                                                                      \
      s0[k_] = nx__str(plan, k_, 0);                                                                      \
      s1[k_] = nx__str(plan, k_, 1);                                                                      \
    }                                                                                                     \
    long a0 = s0[0], a1 = s0[1], a2 = s0[2], a3 = s0[3], b0 = s1[0], b1 = s1[1], b2 = s1[2], b3 = s1[3];  \
    if (nx__unit(plan, n)) {                                                                              \
      long per_ = (count + NX__GSIZE() - 1) / NX__GSIZE(), lo_ = NX__GID() * per_;                        \
      long hi_ = lo_ + per_ < count ? lo_ + per_ : count;                                                 \
      for (long i_ = lo_, len_; i_ < hi_; i_ += len_) {                                                   \
        len_ = e0 - i_ % e0;                                                                              \
        len_ = len_ < hi_ - i_ ? len_ : hi_ - i_;                                                         \
        nx__at(plan, n, i_, pos);                                                                         \
        long p0_ = pos[0], p1_ = pos[1], p2_ = pos[2], p3_ = pos[3];                                      \
        for (long t_ = 0; t_ < len_; t_++) {                                                              \
          long q[4] = {p0_ + t_, p1_ + t_, p2_ + t_, p3_ + t_};                                           \
          BODY                                                                                            \
        }                                                                                                 \
      }                                                                                                   \
    } else {                                                                                              \
      bool pk1_ = false, pk2_ = false, pk3_ = false;                                                      \
      READS                                                                                               \
      long u1_ = pk1_ ? 1 : a1, u2_ = pk2_ ? 1 : a2, u3_ = pk3_ ? 1 : a3;                                 \
      long e1 = nx__ext(plan, 1), spans = (e0 + NX__TILE_SPAN - 1) / NX__TILE_SPAN;                       \
      long bands = (e1 + NX__TILE_ROWS - 1) / NX__TILE_ROWS, units = count / (e0 * e1) * bands * spans;   \
      long per_ = (units + NX__GSIZE() - 1) / NX__GSIZE(), lo_ = NX__GID() * per_;                        \
      long hi_ = lo_ + per_ < units ? lo_ + per_ : units;                                                 \
      for (long u_ = lo_; u_ < hi_; u_++) {                                                               \
        long c0_ = u_ % spans * NX__TILE_SPAN, j0_ = u_ / spans % bands * NX__TILE_ROWS;                  \
        long c1_ = c0_ + NX__TILE_SPAN < e0 ? c0_ + NX__TILE_SPAN : e0;                                   \
        long rows_ = j0_ + NX__TILE_ROWS < e1 ? NX__TILE_ROWS : e1 - j0_;                                 \
        nx__at(plan, n, u_ / (spans * bands) * e0 * e1 + j0_ * e0, pos);                                  \
        long p0_ = pos[0], p1_ = pos[1], p2_ = pos[2], p3_ = pos[3];                                      \
        for (long c_ = c0_; c_ < c1_; c_ += NX__TILE_COLS) {                                              \
          long ce_ = c_ + NX__TILE_COLS < c1_ ? c_ + NX__TILE_COLS : c1_;                                 \
          PACKS                                                                                           \
          for (long j_ = 0; j_ < rows_; j_++) {                                                           \
            long r0_ = p0_ + j_ * b0, r1_ = pk1_ ? j_ * NX__TILE_COLS - c_ : p1_ + j_ * b1;               \
            long r2_ = pk2_ ? j_ * NX__TILE_COLS - c_ : p2_ + j_ * b2;                                    \
            long r3_ = pk3_ ? j_ * NX__TILE_COLS - c_ : p3_ + j_ * b3;                                    \
            for (long t_ = c_; t_ < ce_; t_++) {                                                          \
              long q[4] = {r0_ + t_ * a0, r1_ + t_ * u1_, r2_ + t_ * u2_, r3_ + t_ * u3_};                \
              SHADOWS                                                                                     \
              BODY                                                                                        \
            }                                                                                             \
          }                                                                                               \
        }                                                                                                 \
      }                                                                                                   \
    }                                                                                                     \
  }
/* The walks of kernels with no read operand, one, two and three: their
   read operands' arguments and element bits. */
#define NX__EACH0(BODY) NX__WALK(1, , , , BODY)
#define NX__EACH1(BODY, X, XB) NX__WALK(2, NX__READ(1, X, XB), NX__PACK(1, X, XB), NX__SHADOW(1, X), BODY)
#define NX__EACH2(BODY, X, XB, Y, YB)                                                                     \
  NX__WALK(3, NX__READ(1, X, XB) NX__READ(2, Y, YB), NX__PACK(1, X, XB) NX__PACK(2, Y, YB),               \
           NX__SHADOW(1, X) NX__SHADOW(2, Y), BODY)
#define NX__EACH3(BODY, X, XB, Y, YB, W, WB)                                                              \
  NX__WALK(4, NX__READ(1, X, XB) NX__READ(2, Y, YB) NX__READ(3, W, WB),                                   \
           NX__PACK(1, X, XB) NX__PACK(2, Y, YB) NX__PACK(3, W, WB),                                      \
           NX__SHADOW(1, X) NX__SHADOW(2, Y) NX__SHADOW(3, W), BODY)
#else
#define NX__EACH(n, BODY)                                                                      \
  {                                                                                                       \
    long count = plan[1], q[n];                                                                           \
    for (long i_ = NX__GID(); i_ < count; i_ += NX__GSIZE()) {                                            \
      nx__at(plan, n, i_, q);                                                                             \
      BODY                                                                                                \
    }                                                                                                     \
  }
#define NX__EACH0(BODY) NX__EACH(1, BODY)
#define NX__EACH1(BODY, X, XB) NX__EACH(2, BODY)
#define NX__EACH2(BODY, X, XB, Y, YB) NX__EACH(3, BODY)
#define NX__EACH3(BODY, X, XB, Y, YB, W, WB) NX__EACH(4, BODY)
#endif

/* Every kernel is an element function, inlined into the loop of the
   generic kernel (the dtypes and the operation its arguments) and of the
   specialized ones at the end (their constants, which fold every switch
   away, so that the loop is straight-line code). */
NX_INL void nx__fill_el(NX_G uchar *z, const long *q, int bits, ulong lo, ulong hi) {
  nx__st(z, q[0], bits, lo);
  if (bits == 128) nx__st_hi(z, q[0], hi);
}
#define NX__FILL(name, BITS)                                                             \
  NX_KERNEL name(NX_G uchar *z, NX_G const long *plan, int bits, ulong lo, ulong hi) {   \
    NX__EACH0(nx__fill_el(z, q, BITS, lo, hi);)                                          \
  }
NX__FILL(nx_fill, bits)

NX_INL void nx__copy_el(NX_G uchar *z, NX_G const uchar *x, const long *q, int bits) {
  nx__st(z, q[0], bits, nx__ld(x, q[1], bits));
  if (bits == 128) nx__st_hi(z, q[0], nx__ld_hi(x, q[1]));
}
#define NX__COPY(name, BITS)                                                             \
  NX_KERNEL name(NX_G uchar *z, NX_G const uchar *x, NX_G const long *plan, int bits) {  \
    NX__EACH1(nx__copy_el(z, x, q, BITS);, x, BITS)                                      \
  }
NX__COPY(nx_copy, bits)

/* Both sources are read (every position is inside its operand) and one
   picked: a select, not a branch. */
NX_INL void nx__where_el(NX_G uchar *z, NX_G const uchar *c, NX_G const uchar *x, NX_G const uchar *y,
                         const long *q, int bits, int cbits) {
  bool t = nx__ld(c, q[1], cbits) != 0;
  ulong a = nx__ld(x, q[2], bits), b = nx__ld(y, q[3], bits);
  nx__st(z, q[0], bits, t ? a : b);
  if (bits == 128) nx__st_hi(z, q[0], t ? nx__ld_hi(x, q[2]) : nx__ld_hi(y, q[3]));
}
#define NX__WHERE(name, BITS, CBITS)                                                             \
  NX_KERNEL name(NX_G uchar *z, NX_G const uchar *c, NX_G const uchar *x, NX_G const uchar *y,   \
                 NX_G const long *plan, int bits, int cbits) {                                   \
    NX__EACH3(nx__where_el(z, c, x, y, q, BITS, CBITS);, c, CBITS, x, BITS, y, BITS)             \
  }
NX__WHERE(nx_where, bits, cbits)

/* ---- Float32 and the narrow floats --------------------------------------- */

/* nx_dtype_load_f64bits and nx_dtype_store_f64bits, bit for bit, float32's
   through the device's own conversions where it computes in float64: exact
   one way, rounding to nearest the other (a few instructions, where the
   loads and stores of bits take a few dozen), NaNs through their bits (a
   GPU's conversions may give its canonical NaN): the load keeps a NaN's
   bits, the store quiets it. */
NX_DEV ulong nx__load_f64bits(int code, ulong b) {
#if defined(NX_HAS_DOUBLE)
  if (code == NX_FLOAT32) {
    float f = as_float((uint)b);
    ulong nan = (b >> 31 & 1) << 63 | 0x7FF0000000000000UL | (b & 0x7FFFFF) << 29;
    return isnan(f) ? nan : as_ulong((double)f);
  }
#endif
  return nx_dtype_load_f64bits(code, b);
}

NX_DEV ulong nx__store_f64bits(int code, ulong u) {
#if defined(NX_HAS_DOUBLE)
  if (code == NX_FLOAT32) {
    double x = as_double(u);
    ulong nan = (u >> 63) << 31 | 0x7FC00000UL | (u >> 29 & 0x7FFFFF);
    return isnan(x) ? nan : as_uint((float)x);
  }
#endif
  return nx_dtype_store_f64bits(code, u);
}

/* The float formats narrower than float32, and their exact conversions
   with it: the store rule from float32 bits (one rounding, as from the
   float64 of the same value) and the load into float32 bits. */
NX_DEV bool nx__narrow_float(int code) {
  return code == NX_FLOAT16 || code == NX_BFLOAT16 || code == NX_FLOAT8_E4M3FN || code == NX_FLOAT8_E5M2 ||
         code == NX_FLOAT4_E2M1FN;
}

/* nx_store_float16_f32 in 32-bit lanes (nx_dtype.h's rule computes in 64):
   a normal result by rebiasing the exponent and one add that rounds ties to
   even and carries into the exponent, clamped at infinity; a subnormal one
   (below 2^-14) by the float32 add of 0.5, whose ulp 2^-24 is float16's
   subnormal step, so the hardware rounds it (a float32 subnormal input,
   flushed or not, rounds to 0 either way); a NaN quieted, its payload's top
   bits kept. */
NX_DEV uint nx__store_float16_f32(uint u) {
  uint a = u & 0x7FFFFFFFu, s = (u >> 16) & 0x8000u;
  uint n = (a - 0x38000000u + 0xFFFu + ((a >> 13) & 1u)) >> 13;
  uint d = as_uint(as_float(a) + 0.5f) - 0x3F000000u;
  uint r = a < 0x38800000u ? d : (n < 0x7C00u ? n : 0x7C00u);
  return s | (a > 0x7F800000u ? 0x7E00u | ((a >> 13) & 0x3FFu) : r);
}

NX_DEV ulong nx__store_f32bits(int code, uint u) {
  switch (code) {
  case NX_FLOAT16: return nx__store_float16_f32(u);
  case NX_BFLOAT16: /* nx_store_bfloat16_f32 in three instructions: the same exponent range, so ties to
                      even by one add that carries into the exponent (infinity included); a NaN quieted */
    return (u & 0x7FFFFFFFu) > 0x7F800000u ? (u >> 16) | 0x40u : (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  case NX_FLOAT8_E4M3FN: return nx_store_float8_e4m3fn_f32(u);
  case NX_FLOAT8_E5M2: return nx_store_float8_e5m2_f32(u);
  default: return nx_store_float4_e2m1fn_f32(u);
  }
}

/* A NaN keeps its bits (float32's own, as they are). */
NX_DEV uint nx__as_f32bits(int code, ulong b) {
  switch (code) {
  case NX_FLOAT32: return (uint)b;
  case NX_FLOAT16: return nx_load_float16_f32((ushort)b);
  case NX_BFLOAT16: return nx_load_bfloat16_f32((ushort)b);
  case NX_FLOAT8_E4M3FN: return nx_load_float8_e4m3fn_f32((uchar)b);
  case NX_FLOAT8_E5M2: return nx_load_float8_e5m2_f32((uchar)b);
  default: return nx_load_float4_e2m1fn_f32((uchar)b);
  }
}

/* Quieted, as the store into float32 quiets a NaN. */
NX_DEV uint nx__load_f32bits(int code, ulong b) {
  uint r = nx__as_f32bits(code, b);
  return (r & 0x7FFFFFFFu) > 0x7F800000u ? r | 0x00400000u : r;
}

/* Whether float32 holds the values of format `code` and computes its
   + - x and comparisons exactly as float64 does: float32 itself and the
   16-bit floats (float32's 24 bits are at least twice theirs and 2 more,
   so rounding a float32 result again gives what rounding the exact one
   gives), on a device whose float32 keeps subnormals (NX__F32_DENORMS,
   set by the build where the device says so). */
NX_DEV bool nx__f32_exact(int code) {
#if defined(NX__F32_DENORMS)
  return code == NX_FLOAT32 || code == NX_FLOAT16 || code == NX_BFLOAT16;
#else
  (void)code;
  return false;
#endif
}

/* x + y, x - y, x * y of format `code` in float32, NaNs as nx__nan2 has
   them: the element's bits. */
NX_DEV ulong nx__f32_arith(int op, int code, ulong a, ulong b) {
  float x = as_float(nx__as_f32bits(code, a)), y = as_float(nx__as_f32bits(code, b));
  float r = op == 0 ? x + y : op == 1 ? x - y : x * y; /* NX__ADD, NX__SUB, NX__MUL */
  uint dn = (uint)(NX__DEFAULT_NAN >> 63) << 31 | 0x7FC00000u;
  uint nan = isnan(x) ? as_uint(x) | 0x400000u : isnan(y) ? as_uint(y) | 0x400000u : dn;
  uint u = isnan(r) ? nan : as_uint(r);
  return code == NX_FLOAT32 ? u : nx__store_f32bits(code, u);
}

/* float32 sqrt in float32, on a device whose float32 sqrt is correctly
   rounded (NX__F32_SQRT: the build asks for it with
   -cl-fp32-correctly-rounded-divide-sqrt where the device says it has it):
   the float64 path's bits, since float64's 53 bits are at least twice
   float32's 24 and 2 more, so sqrt rounded to float64 and then to float32
   is sqrt rounded once; NaNs as nx__nan1 has them (a NaN's own, quieted;
   an invalid operand's the host's default NaN). Twice the lanes of the
   float64 path on a CPU device. */
NX_DEV ulong nx__f32_sqrt(uint u) {
  float x = as_float(u), r = sqrt(x);
  uint dn = (uint)(NX__DEFAULT_NAN >> 63) << 31 | 0x7FC00000u;
  return isnan(x) ? (u | 0x400000u) : isnan(r) ? dn : as_uint(r);
}

/* A float32 (bits u) into the `bits`-wide integer (8, 16 or 32 bits),
   signed or not: nx__store_int's result (truncated toward zero, saturated,
   NaN 0) in float32 and 32-bit lanes. The bounds are powers of two, exact
   in float32: from hi up the largest value, to lo down the least (lo's
   neighbours above truncate to it too). */
NX_DEV bool nx__int_kind(int code) {
  return nx_dtype_kind_of(code) == NX_KIND_SIGNED || nx_dtype_kind_of(code) == NX_KIND_UNSIGNED;
}

NX_DEV ulong nx__f32_to_int(uint u, int bits, int sg) {
  float x = as_float(u), hi = sg ? (float)(1L << (bits - 1)) : (float)(1L << bits), lo = sg ? -hi : 0.0f;
  long top = sg ? (1L << (bits - 1)) - 1 : (1L << bits) - 1, bottom = sg ? -(1L << (bits - 1)) : 0;
  long r = isnan(x) ? 0 : x >= hi ? top : x <= lo ? bottom : (long)x;
  return (ulong)r & (bits == 64 ? ~0UL : (1UL << bits) - 1);
}

/* An integer of at most 32 bits (its bits b) into float32: one rounding to
   nearest, ties to even, as OpenCL and CUDA convert, in 32-bit lanes. */
NX_DEV ulong nx__int_to_f32(ulong b, int bits, int sg) {
  long v = nx__int_value(b, bits, sg);
  return sg ? as_uint((float)(int)v) : as_uint((float)(uint)v);
}

/* ---- Cast: the exact element path ---------------------------------------- */

enum { NX__V_FLOAT, NX__V_INT, NX__V_UINT };
typedef struct nx__value {
  ulong re, im; /* float: float64 bits; int: an int64's bits; uint: a uint64 */
  int cls;
  bool exact; /* an integer of at most 32 bits: exact as a float64 */
} nx__value;

NX_DEV nx__value nx__cast_load(int from, ulong lo, ulong hi) {
  nx__value v = {0, 0, NX__V_FLOAT, nx_dtype_bits_of(from) <= 32};
  switch (from) {
  case NX_COMPLEX128: v.re = lo; v.im = hi; return v;
  case NX_COMPLEX64: v.re = nx_load_float32_f64((uint)lo); v.im = nx_load_float32_f64((uint)(lo >> 32)); return v;
  case NX_UINT64: v.re = lo; v.cls = NX__V_UINT; return v;
  case NX_BOOL: v.re = (lo & 0xFF) != 0; v.cls = NX__V_INT; return v;
  case NX_BIT: v.re = lo & 1; v.cls = NX__V_INT; return v;
  }
  switch (nx_dtype_kind_of(from)) {
  case NX_KIND_FLOAT: v.re = nx__load_f64bits(from, lo); return v;
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
  if (v.cls == NX__V_FLOAT) return nx__store_f64bits(c, v.re);
#if defined(NX_HAS_DOUBLE)
  if (v.exact) /* the device's conversion, exact */
    return nx__store_f64bits(c, as_ulong(v.cls == NX__V_INT ? (double)(long)m : (double)m));
#endif
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

NX_INL void nx__cast_el(NX_G uchar *z, NX_G const uchar *x, const long *q, int to, int from) {
  int tb = nx_dtype_bits_of(to), fb = nx_dtype_bits_of(from);
  ulong hi = fb == 128 ? nx__ld_hi(x, q[1]) : 0, lo = nx__ld(x, q[1], fb);
  if (from == NX_FLOAT32 && nx__narrow_float(to)) lo = nx__store_f32bits(to, (uint)lo);
  else if (to == NX_FLOAT32 && nx__narrow_float(from)) lo = nx__load_f32bits(from, lo);
  else if (from == NX_FLOAT32 && nx__int_kind(to) && tb >= 8 && tb <= 32)
    lo = nx__f32_to_int((uint)lo, tb, nx_dtype_kind_of(to) == NX_KIND_SIGNED);
  else if (to == NX_FLOAT32 && nx__int_kind(from) && fb <= 32)
    lo = nx__int_to_f32(lo, fb, nx_dtype_kind_of(from) == NX_KIND_SIGNED);
  else lo = nx__cast_store(to, nx__cast_load(from, lo, hi), &hi);
  nx__st(z, q[0], tb, lo);
  if (tb == 128) nx__st_hi(z, q[0], hi);
}
#define NX__CAST(name, TO, FROM)                                                               \
  NX_KERNEL name(NX_G uchar *z, NX_G const uchar *x, NX_G const long *plan, int to, int from) { \
    NX__EACH1(nx__cast_el(z, x, q, TO, FROM);, x, nx_dtype_bits_of(FROM))                       \
  }
NX__CAST(nx_cast, to, from)

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
NX_DEV double nx__f(int dt, ulong b) { return as_double(nx__load_f64bits(dt, b)); }
NX_DEV ulong nx__fst(int dt, double x) { return nx__store_f64bits(dt, as_ulong(x)); }


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

NX_INL void nx__binary_el(NX_G uchar *z, NX_G const uchar *x, NX_G const uchar *y, const long *pos, int op,
                          int dt) {
  int bits = nx_dtype_bits_of(dt), k = nx_dtype_kind_of(dt);
  {
    ulong a = nx__ld(x, pos[1], bits), b = nx__ld(y, pos[2], bits), hi = 0, r;
#if defined(NX_HAS_DOUBLE)
    if (k == NX_KIND_FLOAT && op <= NX__MUL && nx__f32_exact(dt)) r = nx__f32_arith(op, dt, a, b);
    else if (k == NX_KIND_FLOAT) r = nx__fst(dt, nx__float_op(op, nx__f(dt, a), nx__f(dt, b)));
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
#define NX__BINARY(name, OP, DT)                                                                          \
  NX_KERNEL name(NX_G uchar *z, NX_G const uchar *x, NX_G const uchar *y, NX_G const long *plan, int op,   \
                 int dt) {                                                                                \
    NX__EACH2(nx__binary_el(z, x, y, q, OP, DT);, x, nx_dtype_bits_of(DT), y, nx_dtype_bits_of(DT))       \
  }
NX__BINARY(nx_binary, op, dt)

NX_INL void nx__unary_el(NX_G uchar *z, NX_G const uchar *x, const long *pos, int op, int dt) {
  int bits = nx_dtype_bits_of(dt), k = nx_dtype_kind_of(dt);
  {
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
#if defined(NX__F32_SQRT)
      else if (op == NX__SQRT && dt == NX_FLOAT32) lo = nx__f32_sqrt((uint)lo);
#endif
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
#define NX__UNARY(name, OP, DT)                                                                \
  NX_KERNEL name(NX_G uchar *z, NX_G const uchar *x, NX_G const long *plan, int op, int dt) {  \
    NX__EACH1(nx__unary_el(z, x, q, OP, DT);, x, nx_dtype_bits_of(DT))                         \
  }
NX__UNARY(nx_unary, op, dt)

NX_INL void nx__compare_el(NX_G uchar *z, NX_G const uchar *x, NX_G const uchar *y, const long *pos, int op,
                           int dt, int zt) {
  int bits = nx_dtype_bits_of(dt), k = nx_dtype_kind_of(dt), zb = nx_dtype_bits_of(zt);
  {
    ulong a = nx__ld(x, pos[1], bits), b = nx__ld(y, pos[2], bits);
    bool r;
    if (k == NX_KIND_FLOAT && nx__f32_exact(dt)) {
      float u = as_float(nx__as_f32bits(dt, a)), v = as_float(nx__as_f32bits(dt, b));
      r = op == NX__EQ ? u == v : op == NX__NE ? u != v : op == NX__LT ? u < v : u <= v;
    } else
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
#define NX__COMPARE(name, OP, DT, ZT)                                                                     \
  NX_KERNEL name(NX_G uchar *z, NX_G const uchar *x, NX_G const uchar *y, NX_G const long *plan, int op,   \
                 int dt, int zt) {                                                                        \
    NX__EACH2(nx__compare_el(z, x, y, q, OP, DT, ZT);, x, nx_dtype_bits_of(DT), y, nx_dtype_bits_of(DT))  \
  }
NX__COMPARE(nx_compare, op, dt, zt)

/* ---- Specialized kernels ------------------------------------------------ */

/* The kernels of the common operations on the common dtypes, each with its
   dtypes and operation as constants: nx_<kernel>_<a>[_<b>[_<c>]] where a, b,
   c are the generic kernel's integer arguments in order (dtype codes,
   operation numbers, element bits), which the launch looks up by that name
   and, where the program has none, runs the generic kernel instead. Each
   one is compiled (by PoCL, at its first launch) on its own, so the list is
   short: the float formats' casts to and from float32, the arithmetic of
   float32, float64, the 16-bit floats and int32/int64, fill, copy and where
   by width. The other dtypes and operations run the generic kernels, the
   same element functions with runtime switches. */
#if !defined(__CUDACC__)
#define NX__CAST_F32(c) NX__CAST(nx_cast_##c##_1, c, 1) NX__CAST(nx_cast_1_##c, 1, c)
NX__CAST_F32(0) NX__CAST_F32(2) NX__CAST_F32(3) NX__CAST_F32(4) NX__CAST_F32(5) /* the floats */
NX__CAST_F32(7) NX__CAST_F32(9) NX__CAST_F32(13) NX__CAST_F32(14) NX__CAST_F32(19) /* int64 int32 int8 uint8 bool */

#define NX__BY_WIDTH(w) NX__FILL(nx_fill_##w, w) NX__COPY(nx_copy_##w, w) NX__WHERE(nx_where_##w##_8, w, 8)
NX__BY_WIDTH(8) NX__BY_WIDTH(16) NX__BY_WIDTH(32) NX__BY_WIDTH(64)

/* add sub mul (0 1 2); fdiv min max (3 8 9) of the two wide floats */
#define NX__ARITH(dt) NX__BINARY(nx_binary_0_##dt, 0, dt) NX__BINARY(nx_binary_1_##dt, 1, dt) NX__BINARY(nx_binary_2_##dt, 2, dt)
#define NX__FLOAT(dt)                                                                                     \
  NX__ARITH(dt) NX__BINARY(nx_binary_3_##dt, 3, dt) NX__BINARY(nx_binary_8_##dt, 8, dt)                   \
  NX__BINARY(nx_binary_9_##dt, 9, dt) NX__UNARY(nx_unary_0_##dt, 0, dt) NX__UNARY(nx_unary_2_##dt, 2, dt) \
  NX__UNARY(nx_unary_3_##dt, 3, dt) NX__COMPARE(nx_compare_0_##dt##_19, 0, dt, 19)                        \
  NX__COMPARE(nx_compare_2_##dt##_19, 2, dt, 19) NX__COMPARE(nx_compare_3_##dt##_19, 3, dt, 19)
NX__FLOAT(0) NX__FLOAT(1)                                    /* float64 float32: + - * / min max neg abs sqrt eq lt le */
NX__ARITH(2) NX__ARITH(3) NX__ARITH(7) NX__ARITH(9)          /* float16 bfloat16 int64 int32: + - * */
#endif
