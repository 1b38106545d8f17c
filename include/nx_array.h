/* SPDX-License-Identifier: Apache-2.0 */
/* nx_array.h: arrays over device buffers, their elements and placement, raw
   access, DLPack exchange, and the door that host kernels read arrays
   through.

   An array is three facts over a buffer (nx_rig.h): a dtype (nx_dtype.h),
   what one element is; a layout (nx_layout.h), where elements lie; and the
   buffer, which places it on a device. An array's layout reaches only bits
   of its buffer, at non-negative positions, and its first element lies on a
   multiple of its alignment: its width for dtypes of a byte or more, one byte
   for narrower ones, one component's for complex ones. Only this module's
   functions make arrays, so every array keeps these facts.

   Arrays are handles (nx_array *) that the caller frees with nx_array_free;
   each holds a reference to its buffer. A function that reads or writes
   elements on the host claims the buffer's memory, waits for the device work
   the access must follow (nx_buffer_wait), and holds the claim while it runs.

   Failures return a negative status and set nx_error_message(), naming the
   function and each operand's dtype and shape; NX_ELOST where the device
   work an access must follow was lost. An option's None is NX_NONE,
   with the out-parameter unset. */
#ifndef NX_ARRAY_H
#define NX_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nx_dtype.h"
#include "nx_layout.h"
#include "nx_rig.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nx_array nx_array;

/* The status of an option's None. */

/* ---- Arrays ------------------------------------------------------------ */

/* nx_array_v(dt, l, b, &a) sets a to the array of dt elements laid out by l
   over b's bytes (adding a reference to b) and returns 0.
   Fails with NX_EINVAL if b is dead, l reaches a bit before or past b's
   bytes, or l has an element and its first element's byte offset into b's
   memory, or for host-addressed memory its address, is not a multiple of dt's
   alignment. */
NX_API int nx_array_v(nx_dtype dt, const nx_layout *l, nx_buffer *b, nx_array **a);

/* nx_array_create(d, kind, dt, shape, rank, &a) sets a to a fresh
   C-contiguous array of that shape in d's memory of that kind, at offset 0,
   with unspecified elements, and returns 0. Its buffer holds
   nx_dtype_bytes(dt, n) bytes for n elements; the bits of a sub-byte array's
   last byte past its last element are zero.
   Fails as nx_layout_contiguous, nx_buffer_create and, for a sub-byte array,
   nx_rig_submit_fill do. */
NX_API int nx_array_create(nx_device *d, nx_memory_kind kind, nx_dtype dt, const int64_t *shape, int rank,
                           nx_array **a);

/* nx_array_host(dt, shape, rank, &a) is nx_array_create on the host's device
   memory. */
NX_API int nx_array_host(nx_dtype dt, const int64_t *shape, int rank, nx_array **a);

/* nx_array_free(a) frees the handle and drops its buffer reference. NULL is
   ignored. */
NX_API void nx_array_free(nx_array *a);

/* The parts of an array: valid while a lives. A NULL a sets a message and
   gives NX_DTYPE_COUNT (no dtype) or NULL. */
NX_API nx_dtype nx_array_dtype(const nx_array *a);
NX_API const nx_layout *nx_array_layout(const nx_array *a);
NX_API nx_buffer *nx_array_buffer(const nx_array *a);
NX_API nx_device *nx_array_device(const nx_array *a);

/* nx_array_expect(dt, a) is 0 if a's dtype is dt.
   Fails with NX_EINVAL naming both dtypes otherwise: the run-time check of
   what OCaml's types check at compile time; and with NX_EINVAL if a is NULL
   or dt is not a dtype. */
NX_API int nx_array_expect(nx_dtype dt, const nx_array *a);

/* nx_array_describe(a, buf, cap) writes "<dtype> [<shape>]" of a into buf,
   as refusals name operands, and returns buf: "NULL" for a NULL a. NULL,
   with a message, for a NULL buf. */
NX_API const char *nx_array_describe(const nx_array *a, char *buf, size_t cap);

/* ---- Views ------------------------------------------------------------- */

/* nx_array_move(m, a, &r) sets r to the array over a's buffer laid out by
   nx_layout_move(m, a's layout) and returns 0, or returns NX_NONE where
   that is None.
   Fails as nx_move_shape does, with a message that names nx_array_move and
   a's dtype and shape before the movement's reason. */
NX_API int nx_array_move(const nx_move *m, const nx_array *a, nx_array **r);

/* nx_array_bitcast(dt, a, &r) sets r to a's bits read as elements of dt over
   a's buffer (nx_layout_bitcast) and returns 0, or returns NX_NONE where
   widening's conditions fail or the result's first element is not on a
   multiple of dt's alignment.
   Fails with NX_EINVAL if a's buffer is dead, and on a narrowing of an array
   of rank NX_MAX_RANK (the message naming nx_array_bitcast and a). */
NX_API int nx_array_bitcast(nx_dtype dt, const nx_array *a, nx_array **r);

/* ---- Elements ---------------------------------------------------------- */

/* nx_array_get(a, index, &v) sets v to a's element at index (rank entries).
   Fails with NX_EINVAL unless every index[j] is in [0, extent j), if a's
   buffer is dead, its memory is held exclusive, or the host does not address
   it; NX_ELOST as nx_buffer_wait does. */
NX_API int nx_array_get(const nx_array *a, const int64_t *index, nx_value *v);

/* nx_array_set(a, index, v) stores v at a's index. Stores to the other
   elements of a sub-byte element's byte, from any thread, are kept.
   Fails as nx_array_get does, and if a reaches an element twice
   (nx_layout_is_distinct), a's memory admits no write (Read), or v is an
   integer outside dt's range (nx_dtype_holds). */
NX_API int nx_array_set(nx_array *a, const int64_t *index, nx_value v);

/* nx_array_to_array(a, out, n) writes a's elements in C order of indices into
   out, which has room for n values, and returns 0.
   Fails as nx_array_get does, and if n is not a's element count. */
NX_API int nx_array_to_array(const nx_array *a, nx_value *out, int64_t n);

/* nx_array_of_array(dt, shape, rank, xs, n, &a) sets a to a fresh
   C-contiguous host array of that shape holding the n values xs in C order,
   each stored as nx_dtype_of_float says for floats (a float value is a
   double; an integer value is stored exactly), and returns 0.
   Fails as nx_layout_contiguous does, if xs is NULL with n > 0, if n is not
   the shape's element count, or if a value is an integer outside dt's range
   (the message names its index and the value). */
NX_API int nx_array_of_array(nx_dtype dt, const int64_t *shape, int rank, const nx_value *xs, int64_t n,
                             nx_array **a);

/* ---- Placement --------------------------------------------------------- */

/* Where the host addresses the memory of both arrays (the host's memory,
   wrapped or DLPack-imported memory, OpenCL host and io memory), placement
   moves the bytes on the calling thread, once the work each access must
   follow is done, and returns once they are there: a store the program makes
   to the source after the return does not reach the destination. Where a
   device copies, it returns as nx_rig_submit_copy does, the bytes ordered
   for every later access. Sharing and identity go by the buffers' memory
   and offsets, whatever the host addresses. */

/* nx_array_to_device(d, a, &r) sets r to a's elements on d, also when a is on
   d, in a fresh buffer of d's device memory of at most nx_dtype_bytes of one
   element per index of a (an axis of stride 0 counted once), laid out as
   nx_layout_copy says, bit for bit (NaN payloads included), and returns 0.
   Fails with NX_EINVAL if a's buffer is dead or its memory is held
   exclusive, and as nx_buffer_create, nx_rig_submit_copy and
   nx_rig_submit_fill do. */
NX_API int nx_array_to_device(nx_device *d, const nx_array *a, nx_array **r);

/* nx_array_transfer(src, dst) stores src's elements into dst, of the same
   shape and dtype, bit for bit. It writes dst's elements and no other bit of
   its buffer, a sub-byte neighbour included.
   Fails with NX_EINVAL if the shapes or dtypes differ, a buffer is dead or its
   memory is held exclusive, dst reaches an element twice, dst's elements are
   narrower than a byte and the host does not address its memory, dst's
   memory admits no write, or dst shares a byte with src without being
   identical to it; and as nx_rig_submit_copy does. */
NX_API int nx_array_transfer(const nx_array *src, nx_array *dst);

/* nx_array_copy(a, &r) sets r to a fresh C-contiguous array on a's device
   holding a's elements: the array nx_array_create makes there filled by
   nx_array_transfer.
   Fails as those do, the message naming nx_array_copy. */
NX_API int nx_array_copy(const nx_array *a, nx_array **r);

/* nx_array_borrow(d, a, &r) sets r to a's elements on d without a copy: a's
   dtype and layout over d's borrow of a's buffer (nx_buffer_borrow), which
   shares a's memory, so writes through either show in the other; returns 0,
   or NX_NONE where d cannot map a's memory.
   Fails with NX_EINVAL if a's buffer is dead, NX_ELOST for a lost device. */
NX_API int nx_array_borrow(nx_device *d, const nx_array *a, nx_array **r);

/* ---- The door ---------------------------------------------------------- */

/* What a kernel answers, and the door (seed 000's answer). */
typedef enum nx_answer {
  NX_DONE,
  NX_DECLINED,
  NX_WRONG_DTYPE,       /* an operand's dtype is not the one the kernel loads */
  NX_DEAD_BUFFER,       /* an operand's buffer is dead */
  NX_OFF_HOST,          /* the host does not address an operand's memory */
  NX_HELD_EXCLUSIVE,    /* an operand's memory is held exclusive */
  NX_READ_ONLY,         /* a written operand's memory is Read */
  NX_REPEATED_ELEMENTS, /* a written operand reaches an element twice */
  NX_OVERLAPPING,       /* a written operand shares a byte with another written
                           operand, or with a read operand not identical to it */
  NX_SHAPE_MISMATCH     /* the operands do not fit the operation */
} nx_answer;

/* The length of the runs in which the door claims and releases arrays. */
#define NX_MAX_OPERANDS 18

/* What a host kernel sees of an operand inside the door: its dtype, its
   layout, and the host address of its buffer's first byte. */
typedef struct nx_operand {
  nx_dtype dtype;
  const nx_layout *layout;
  void *base;
} nx_operand;

/* A host kernel's body: it runs inside the door with every operand claimed
   and its device work done, written operands first, and answers NX_DONE,
   NX_DECLINED, or a refusal of its own (NX_WRONG_DTYPE, NX_SHAPE_MISMATCH)
   before any write. */
typedef nx_answer (*nx_kernel_fn)(void *ctx, const nx_operand *ops, int nw, int nr);

/* nx_door_host(written, nw, read, nr, fn, ctx) is the door of host kernels: it
   claims the memory of the nw written arrays for writing and of the nr read
   ones for reading, every claim or none, in runs of NX_MAX_OPERANDS; waits
   under the claims for the device work the accesses must follow; runs fn with
   the operands' host addresses; releases the claims; and returns fn's answer.
   Without running fn or holding a claim it answers, in this precedence for
   the first operand (written ones, then read ones) that has a fault of the
   kind: NX_DEAD_BUFFER (whatever else is wrong with a dead operand), then
   NX_HELD_EXCLUSIVE, then NX_READ_ONLY for a written one; then NX_OFF_HOST,
   NX_REPEATED_ELEMENTS for a written one, and NX_OVERLAPPING.
   Fails with NX_EINVAL for NULL arrays where counts are positive, and with
   NX_ELOST, having run nothing and holding no claim, if an operand's memory is
   a lost device's or must follow work a lost device did not finish. */
NX_API int nx_door_host(nx_array *const *written, int nw, nx_array *const *read, int nr, nx_kernel_fn fn, void *ctx);

/* A device kernel's body: it runs with every operand claimed and submits its
   work with nx_rig_submit, naming each written array's buffer in its writes
   and each read one's in its reads or writes; returns 0 or a negative status. */
typedef int (*nx_submit_fn)(void *ctx);

/* nx_door(written, nw, read, nr, fn, ctx) is the door of kernels that submit
   device work: it claims as nx_door_host does, runs fn, and releases the
   claims when fn returns, before its status propagates. It waits for no
   device work. It returns NX_DONE once fn returns 0, and otherwise, without
   running fn or holding a claim, NX_DEAD_BUFFER or NX_HELD_EXCLUSIVE for an
   array, or NX_READ_ONLY, NX_REPEATED_ELEMENTS or NX_OVERLAPPING for a
   written one. It allocates nothing (nx_door_host allocates the kernel's
   operand list past 36 operands).
   Fails with fn's negative status, and with NX_ELOST as nx_door_host does. */
NX_API int nx_door(nx_array *const *written, int nw, nx_array *const *read, int nr, nx_submit_fn fn, void *ctx);

/* nx_array_refused(name, answer, operands, n) sets the message of the refusal
   `answer` that a kernel answered for the n operands, naming name (the
   function the user called, as "nx_add"), the reason the answer gives and
   each operand's dtype and shape, and returns NX_EINVAL. For NX_DEAD_BUFFER,
   and for NX_HELD_EXCLUSIVE once the holder consumed the memory, the reason
   names each operand whose buffer is dead, in order, as "<dtype> <shape> was
   <why>": "nx_add: float32 [3] was donated to nx_mul (float32 [3], float32
   [3], float32 [3])". For NX_DONE and NX_DECLINED it says they refuse
   nothing. */
NX_API int nx_array_refused(const char *name, nx_answer answer, nx_array *const *operands, int n);

/* ---- The first kernel -------------------------------------------------- */

/* nx_cpu_add(z, x, y) is the host kernel z = x + y, elementwise, for operands
   of one dtype and one shape, through the door: floats add in double and
   store by the store rule, integers wrap, booleans or, complex numbers add by
   components. It answers as the door does, NX_WRONG_DTYPE for operands of
   different dtypes, NX_SHAPE_MISMATCH for different shapes, and NX_DECLINED
   for the cases it does not compute (bit). Returns the answer, or a negative
   status as nx_door_host does. */
NX_API int nx_cpu_add(nx_array *z, nx_array *x, nx_array *y);

/* nx_add(z, x, y) is the seed's example: z = x + y through nx_cpu_add,
   returning 0 when it answers NX_DONE, and otherwise NX_EINVAL with the
   message "nx_add: nx_cpu_add does not compute this case" for NX_DECLINED and
   nx_array_refused's for a refusal. */
NX_API int nx_add(nx_array *z, nx_array *x, nx_array *y);

/* ---- Raw access and DLPack -------------------------------------------- */

/* The C form of seed 000's Bigarray functions: scoped raw access hands the
   host address, dtype and layout of claimed memory to a callback (the layout
   travels whole: no contiguity or rank limit), and DLPack 1.x
   (include/dlpack/dlpack.h, dmlc/dlpack 7f393bb, DLPACK_MAJOR_VERSION 1)
   exchanges arrays with other libraries without a copy. */
#include "dlpack/dlpack.h"

/* The callbacks of raw access: base is the host address of the first byte of
   the array's buffer, and the element at position p of layout l occupies bits
   [p * bits, (p + 1) * bits) from it (sub-byte elements little-endian inside
   a byte: element 0 in the low bits). They return 0 or a status of their
   own, which the access returns. */
typedef int (*nx_read_fn)(void *ctx, const void *base, nx_dtype dt, const nx_layout *l);
typedef int (*nx_write_fn)(void *ctx, void *base, nx_dtype dt, const nx_layout *l);

/* nx_array_read(a, f, ctx) claims a's memory for reading, waits for the
   device work a read must follow (nx_buffer_wait), calls f(ctx, base, a's
   dtype, a's layout), ends the claim however f returns, and returns f's
   result. An a with no element gets f called whatever its memory, with a
   base that may be NULL. The claim orders the access only against donation
   and freeing: f must not write through base, since work that reads the
   memory may still run, nor keep base after it returns; the program orders
   base against work other threads submit while f runs.
   Fails, without calling f, with NX_EINVAL naming nx_array_read and a
   ("float32 [3; 2]") if a or f is NULL, a's buffer is dead, its memory is held
   exclusive, or a has an element and the host does not address its memory;
   NX_ELOST as nx_buffer_wait does. */
NX_API int nx_array_read(const nx_array *a, nx_read_fn f, void *ctx);

/* nx_array_write(a, f, ctx) is nx_array_read for writing: it claims a's
   memory for writing, waits for the device work a write must follow, and
   what f stores through base are a's elements. f must not keep base after it
   returns.
   Fails as nx_array_read does, naming nx_array_write, and also if a's memory
   admits no write (NX_ACCESS_READ). */
NX_API int nx_array_write(nx_array *a, nx_write_fn f, void *ctx);

/* nx_array_to_dlpack(a, &t) sets t to a DLPack tensor over a's own bytes and
   returns 0; the consumer calls t->deleter(t) once, from any thread, when it
   is done. It waits once for all the work on a's memory, and from then on
   that memory is never held exclusive again (nx_buffer_export); t holds a
   reference to a's buffer and a read claim on its memory until the deleter
   runs, so nx_buffer_free makes the memory dead for nx but its bytes last
   until then. Access through t follows later device work only after
   nx_buffer_wait.
   t->version is DLPACK_MAJOR_VERSION.DLPACK_MINOR_VERSION; data the host
   address of the buffer's first byte (kDLCPU, device 0), or NULL for an a
   with no element (as DLPack asks); shape and strides in elements (owned by
   t); byte_offset a's offset in bytes, 0 for an a with no element; flags
   DLPACK_FLAG_BITMASK_READ_ONLY where the memory admits no write. Dtypes go
   to DLPack codes: float16/32/64 kDLFloat, bfloat16 kDLBfloat, intN and
   uintN kDLInt and kDLUInt of N bits (int4 and uint4 of 4 bits), complex64
   and complex128 kDLComplex, bool kDLBool of 8 bits, float8_e4m3fn
   kDLFloat8_e4m3fn, float8_e5m2 kDLFloat8_e5m2, float4_e2m1fn
   kDLFloat4_e2m1fn of 4 bits; sub-byte elements packed as DLPack defines
   them (the i-th element of a byte D is (D >> (i * bits)) & mask), which is
   nx's own packing. A bit array, which DLPack has no code for, is exported
   as a fresh C-contiguous copy in kDLBool form, one byte 0 or 1 per element,
   flagged DLPACK_FLAG_BITMASK_IS_COPIED; its memory is claimed and waited
   for reading while it is copied, and not exported.
   Fails with NX_EINVAL naming nx_array_to_dlpack and a if a or t is NULL,
   a's buffer is dead or its memory held exclusive, a has an element and the
   host does not address its memory, or a's elements are narrower than a
   byte and a has an element but is not C-contiguous from a whole byte
   (DLPack's byte_offset counts bytes and packing needs unit strides); with
   NX_ENOMEM; and with NX_ELOST as nx_buffer_export does. */
NX_API int nx_array_to_dlpack(const nx_array *a, struct DLManagedTensorVersioned **t);

/* nx_array_from_dlpack(t, &a) sets a to the array over t's bytes, without a
   copy, and returns 0; a's buffer is host memory on the host
   (nx_buffer_wrap_host) over the bytes t's elements reach, with access
   NX_ACCESS_READ where t is flagged DLPACK_FLAG_BITMASK_READ_ONLY and
   NX_ACCESS_READ_WRITE otherwise. nx_array_from_dlpack takes t whether it
   succeeds or fails: on failure it calls t->deleter(t) (where not NULL)
   before it returns, and on success once nx no longer uses the memory (the
   last reference to a buffer over it gone, or the memory freed or donated
   and its claims and work ended), exactly once, from any thread. That
   memory is outside the claims: nx cannot stop t's owner from touching it,
   and the program orders the owner's access against nx's work.
   The dtype comes from t's code and bits (the reverse of
   nx_array_to_dlpack's table; kDLBool of 8 bits is bool), lanes must be 1;
   strides NULL means C-contiguous; byte_offset counts bytes from data, and
   need not be a whole number of elements (data + byte_offset is the
   address of the first element, which must be aligned). t's device must
   be kDLCPU, or host memory a GPU runtime made (kDLCUDAHost, kDLROCMHost,
   kDLCUDAManaged), which the host addresses.
   Fails with NX_EINVAL naming nx_array_from_dlpack if t or a is NULL, t's
   major version is not DLPACK_MAJOR_VERSION (then only the deleter is
   touched), the device is another, the code is one no nx dtype has or its
   bits or lanes do not match, ndim is negative or past NX_MAX_RANK, an
   extent is negative, a sub-byte tensor is flagged
   DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED, data is NULL for a tensor
   with an element, data + byte_offset or the elements it reaches lie
   outside the address space, or
   as nx_layout_make and nx_array_v do (its first element off its dtype's
   alignment); with NX_ENOMEM. */
NX_API int nx_array_from_dlpack(struct DLManagedTensorVersioned *t, nx_array **a);

#ifdef __cplusplus
}
#endif
#endif /* NX_ARRAY_H */
