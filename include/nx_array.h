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
   work an access must follow was lost. An option's None is NX_ARRAY_NONE,
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
#define NX_ARRAY_NONE 1

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

/* The parts of an array: valid while a lives. */
NX_API nx_dtype nx_array_dtype(const nx_array *a);
NX_API const nx_layout *nx_array_layout(const nx_array *a);
NX_API nx_buffer *nx_array_buffer(const nx_array *a);
NX_API nx_device *nx_array_device(const nx_array *a);

/* nx_array_expect(dt, a) is 0 if a's dtype is dt.
   Fails with NX_EINVAL naming both dtypes otherwise: the run-time check of
   what OCaml's types check at compile time. */
NX_API int nx_array_expect(nx_dtype dt, const nx_array *a);

/* nx_array_describe(a, buf, cap) writes "<dtype> [<shape>]" of a into buf,
   as refusals name operands, and returns buf. */
NX_API const char *nx_array_describe(const nx_array *a, char *buf, size_t cap);

/* ---- Views ------------------------------------------------------------- */

/* nx_array_move(m, a, &r) sets r to the array over a's buffer laid out by
   nx_layout_move(m, a's layout) and returns 0, or returns NX_ARRAY_NONE where
   that is None.
   Fails as nx_move_shape does. */
NX_API int nx_array_move(const nx_move *m, const nx_array *a, nx_array **r);

/* nx_array_bitcast(dt, a, &r) sets r to a's bits read as elements of dt over
   a's buffer (nx_layout_bitcast) and returns 0, or returns NX_ARRAY_NONE where
   widening's conditions fail or the result's first element is not on a
   multiple of dt's alignment.
   Fails with NX_EINVAL if a's buffer is dead, and on a narrowing of an array
   of rank NX_MAX_RANK. */
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
   Fails as nx_layout_contiguous does, if n is not the shape's element count,
   or if a value is an integer outside dt's range. */
NX_API int nx_array_of_array(nx_dtype dt, const int64_t *shape, int rank, const nx_value *xs, int64_t n,
                             nx_array **a);

/* ---- Placement --------------------------------------------------------- */

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
   Fails as those do. */
NX_API int nx_array_copy(const nx_array *a, nx_array **r);

/* nx_array_borrow(d, a, &r) sets r to a's elements on d without a copy: a's
   dtype and layout over d's borrow of a's buffer (nx_buffer_borrow), which
   shares a's memory, so writes through either show in the other; returns 0,
   or NX_ARRAY_NONE where d cannot map a's memory.
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
   written one. It allocates nothing.
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

#ifdef __cplusplus
}
#endif
#endif /* NX_ARRAY_H */
