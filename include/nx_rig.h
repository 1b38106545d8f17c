/* SPDX-License-Identifier: Apache-2.0 */
/* nx_rig.h: devices, buffers, timelines, claims, donation and loss.

   A device (nx_device) is the host, an OpenCL device or a CUDA GPU (and, in the test
   variant of the library only, a test device: see docs/rig.md). Every device has a timeline: work submitted to
   it runs in submission order on that device, asynchronously to the
   submitter.

   A buffer (nx_buffer) is a handle on a memory: bytes of a kind, on a device,
   with an access. Several buffers may share one memory (borrow), and two
   memories may hold the same bits (overlaps). Claims, donation, death and
   order belong to the memory; the handle is reference counted.

   Order. Every later access of a memory, by the host or by any device,
   follows earlier conflicting work on it: a read follows the last write, a
   write follows the last write and every read since. Submissions capture
   those dependencies when they are made; a device's timeline waits for them
   (other timelines' completion counters, OpenCL events) before the work
   runs, and the host waits for them with nx_buffer_wait. No lock is held
   across a wait or while work runs.

   Loss. A device that fails is lost, for good. Its unfinished work fails, so
   every wait on it settles with NX_ELOST, within the time the device's thread
   takes to drain its queue (it runs nothing more); memory the failed work
   would have written is lost too (its bits are unknown), and so is every
   memory of kind NX_MEMORY_DEVICE or NX_MEMORY_IO on the lost device: both
   are the device's storage (io memory is pages its runtime allocated for it,
   which the host reaches only through the runtime's mapping). Memory of
   kind NX_MEMORY_HOST is nx's own pages and stays, unless failed work would
   have written it. Other devices, and memory no failed work writes, are
   untouched.

   Claims on lost memory succeed (nx_rig_claim, hold, consume): a claim
   orders an access only against donation and freeing, which lost memory
   still admits (it is freed, donated or released like any other), and it
   touches no bit. What touches bits reports the loss: nx_buffer_wait and
   submissions that must follow the lost work answer NX_ELOST, and the door
   (nx_array.h) refuses with NX_ELOST, before it claims, an operand whose
   memory is lost (nx_buffer_lost) or whose device is lost.

   Threads. Every function is safe to call from any thread. Claims take no
   lock that threads share: each is an atomic update of its own memory's
   state, so claiming n operands costs n of them.

   Failures return a negative status and set nx_error_message() (nx_error.h)
   naming the function and the buffer (its device, kind and size). */
#ifndef NX_RIG_H
#define NX_RIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nx_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nx_device nx_device;
typedef struct nx_buffer nx_buffer;

/* The kinds of memory. */
typedef enum nx_memory_kind {
  NX_MEMORY_DEVICE, /* the device's own memory; the host addresses it only on the host */
  NX_MEMORY_HOST,   /* host pages that devices map; the host addresses them */
  NX_MEMORY_IO      /* the device's pages that the host maps, as an OpenCL buffer over host pages */
} nx_memory_kind;

/* What a buffer admits. */
typedef enum nx_access {
  NX_ACCESS_READ = 1,
  NX_ACCESS_WRITE = 2,
  NX_ACCESS_READ_WRITE = 3
} nx_access;

/* ---- Devices ----------------------------------------------------------- */

/* nx_rig_host() is the host: its memory is the process's, its timeline a
   thread of the process. It is NULL only where the process could not start
   that thread at its first use (no memory or thread left), and then nx has
   no device at all. It
   discovers no OpenCL or CUDA device: host-only work never loads a driver. */
NX_API nx_device *nx_rig_host(void);

/* nx_rig_devices(out, cap) writes up to cap devices into out, the host first,
   then every OpenCL device (OpenCL 1.2 or later) of every platform, then
   every CUDA GPU (where the CUDA driver, libcuda.so.1, is installed and nx
   was built with CUDA), then the test devices made so far, and returns how many there are (which may pass
   cap). Devices live as long as the process.
   The first call of it or of nx_rig_find (or making a test device)
   discovers the OpenCL and CUDA devices.
   Fails with NX_EINVAL if cap < 0, or out is NULL with cap > 0. */
NX_API int nx_rig_devices(nx_device **out, int cap);

/* nx_rig_find(name, &d) sets d to the device named name ("host", "opencl:0", "cuda:0",
   "test:1") and returns 0.
   Fails with NX_EINVAL if name or d is NULL or no device has that name. */
NX_API int nx_rig_find(const char *name, nx_device **d);

/* nx_device_name(d) is d's name: "host", "opencl:<n>", "cuda:<n>" or "test:<n>";
   "NULL" for a NULL d (as is nx_device_description's), for messages that
   name operands. */
NX_API const char *nx_device_name(const nx_device *d);

/* nx_device_description(d) is what d says of itself: the OpenCL device's
   name and platform, the GPU's name and compute capability, "host" or
   "test device". */
NX_API const char *nx_device_description(const nx_device *d);

/* nx_device_has_memory(d, kind) is true iff d makes memory of that kind. The
   host makes NX_MEMORY_DEVICE and NX_MEMORY_HOST; an OpenCL device all three;
   a CUDA device NX_MEMORY_DEVICE and NX_MEMORY_HOST (pinned pages);
   a test device NX_MEMORY_DEVICE. */
NX_API bool nx_device_has_memory(const nx_device *d, nx_memory_kind kind);

/* nx_device_host_addresses(d, kind) is true iff the host addresses d's memory
   of that kind: all the host's, and NX_MEMORY_HOST and NX_MEMORY_IO memory. */
NX_API bool nx_device_host_addresses(const nx_device *d, nx_memory_kind kind);

/* nx_device_can_map(d, b) is true iff d can map b's memory without a copy
   (nx_buffer_borrow): its own, host-addressed memory for an OpenCL device of
   the same platform as b's or for the host, and the host's memory for an
   OpenCL device; for a CUDA device, any host-addressed memory (a borrow
   pins the pages) and the device memory of a GPU it has peer access to. A
   test device maps only its own. */
NX_API bool nx_device_can_map(const nx_device *d, const nx_buffer *b);

/* nx_device_lost(d) is true iff d is lost. Each of these four is false, with
   a message naming it, for a NULL device or buffer. */
NX_API bool nx_device_lost(const nx_device *d);

/* ---- Buffers ----------------------------------------------------------- */

/* nx_buffer_create(d, kind, access, bytes, &b) sets b to a new buffer of
   `bytes` bytes (0 allowed) of memory of that kind on d, with one reference,
   and returns 0. Its bytes are unspecified.
   Fails with NX_EINVAL if d lacks that kind of memory or bytes < 0, NX_ENOMEM
   if no memory is left, NX_ELOST if d is lost. */
NX_API int nx_buffer_create(nx_device *d, nx_memory_kind kind, nx_access access, int64_t bytes, nx_buffer **b);

/* nx_buffer_retain(b) adds a reference to b. nx_buffer_release(b) drops one:
   at the last, the handle goes; its memory goes once no handle, claim or
   unfinished work uses it. NULL is ignored by both. */
NX_API void nx_buffer_retain(nx_buffer *b);
NX_API void nx_buffer_release(nx_buffer *b);

/* nx_buffer_refcount(b) is b's number of references, for tests and leaks;
   0, with a message, for a NULL b. */
NX_API int nx_buffer_refcount(const nx_buffer *b);

/* nx_buffer_free(b) makes b's memory dead at once for new claims, with the
   reason "freed"; the memory goes back once the claims and the device work
   that use it have ended. The handle stays valid until released.
   Fails with NX_EINVAL if the memory is dead already or held exclusive. */
NX_API int nx_buffer_free(nx_buffer *b);

/* The facts of a buffer. A NULL b sets a message naming the function and
   gives NULL, device memory, read access or 0 bytes. */
NX_API nx_device *nx_buffer_device(const nx_buffer *b);
NX_API nx_memory_kind nx_buffer_kind(const nx_buffer *b);
NX_API nx_access nx_buffer_access(const nx_buffer *b);
NX_API int64_t nx_buffer_bytes(const nx_buffer *b);

/* nx_buffer_lost(b) is true iff b's memory is lost, as nx_buffer_wait
   would answer NX_ELOST: work that would have written it failed, or it is
   device or io memory of a lost device. */
NX_API bool nx_buffer_lost(const nx_buffer *b);

/* nx_buffer_dead(b) is the reason b's memory is dead ("freed", "donated to
   nx_mul", ...), or NULL while it lives. The string lives as long as b. */
NX_API const char *nx_buffer_dead(const nx_buffer *b);

/* nx_buffer_host_address(b) is the host address of b's first byte where the
   host addresses b's memory, else NULL. A buffer of 0 bytes may give any
   non-NULL address. */
NX_API void *nx_buffer_host_address(const nx_buffer *b);

/* nx_buffer_overlaps(a, b) is true iff a's and b's memories hold the same
   bits: one memory, or host addresses whose byte ranges meet. */
NX_API bool nx_buffer_overlaps(const nx_buffer *a, const nx_buffer *b);

/* nx_buffer_borrow(d, b, &out) sets out to a new buffer, d's mapping of b's
   memory with b's access, and returns 0; for d b's own device it is b with a
   reference added. Returns NX_NONE, out unset, where d cannot map b's
   memory (nx_device_can_map).
   Fails with NX_EINVAL if b's memory is dead, NX_ELOST if d or b's device is
   lost, NX_ENOMEM. */
NX_API int nx_buffer_borrow(nx_device *d, nx_buffer *b, nx_buffer **out);

/* The status of an option's None. */

/* ---- Timelines --------------------------------------------------------- */

/* Work that a timeline runs: fn(ctx) on the device's thread, once the work
   it must follow is done. */
typedef void (*nx_work_fn)(void *ctx);

/* nx_rig_submit(d, reads, nr, writes, nw, fn, ctx) queues fn(ctx) on d's
   timeline, to run after the work that reading `reads` and writing `writes`
   must follow, and before any later conflicting access of them. A buffer in
   both lists counts as written. fn touches only those buffers' memory and
   must not block on other work. If the work fails (the device is lost, or
   memory it reads or writes is lost when it would run), fn does not run and
   the memory it writes is lost.
   Fails, queuing nothing, with NX_EINVAL if a buffer is dead, has an access
   that the list lacks (a written buffer that admits no write), or lives on a
   device d cannot reach (d reaches its own memory, the host's, memory it has
   borrowed, and the host any memory it addresses); NX_ELOST if d is lost. */
NX_API int nx_rig_submit(nx_device *d, nx_buffer *const *reads, int nr, nx_buffer *const *writes, int nw,
                         nx_work_fn fn, void *ctx);

/* nx_rig_submit_copy(dst, dst_off, src, src_off, bytes) queues a copy of
   `bytes` bytes from src at src_off to dst at dst_off, ordered as nx_rig_submit
   orders a read of src and a write of dst, between any two devices. It runs
   on the timeline of dst's device unless that is the host, then on src's.
   Fails as nx_rig_submit does, and with NX_EINVAL if a range passes its
   buffer, or the buffers overlap (nx_buffer_overlaps) and the ranges meet. */
NX_API int nx_rig_submit_copy(nx_buffer *dst, int64_t dst_off, nx_buffer *src, int64_t src_off, int64_t bytes);

/* nx_rig_submit_fill(b, off, bytes, value) queues a store of the byte value
   into `bytes` bytes of b from off, on b's device's timeline, ordered as a
   write of b.
   Fails as nx_rig_submit does, and with NX_EINVAL if the range passes b. */
NX_API int nx_rig_submit_fill(nx_buffer *b, int64_t off, int64_t bytes, uint8_t value);

/* nx_buffer_wait(b, access) blocks the calling thread until the work that a
   host access of b's memory of that access must follow is done, and returns
   0: a read waits for the last write, a write for the last write and every
   read since. It holds no lock while it waits.
   Fails with NX_ELOST if b's memory is lost (work that would have written it
   failed, or it is device or io memory of a lost device; work that only
   read it leaves it as it was), with NX_EINVAL if b is NULL, b's memory is
   dead or access is no nx_access, and with NX_EIO where OpenCL fails to map the memory's buffers for the host
   (docs/rig.md). */
NX_API int nx_buffer_wait(nx_buffer *b, nx_access access);

/* nx_device_sync(d) blocks until all the work submitted to d so far is done.
   Fails with NX_ELOST if d is lost. */
NX_API int nx_device_sync(nx_device *d);

/* ---- Claims and donation ----------------------------------------------- */

/* What a claim answers for one operand, in the seed's precedence: a dead
   memory first, then one held exclusive, then a write of memory that admits
   none. */
typedef enum nx_claim_answer {
  NX_CLAIMED = 0,
  NX_CLAIM_DEAD,
  NX_CLAIM_HELD_EXCLUSIVE,
  NX_CLAIM_READ_ONLY
} nx_claim_answer;

/* nx_rig_claim(n, buffers, write, answers) claims the memory of each of the
   n buffers, for writing where write[i] is true and for reading otherwise:
   every claim or none, without blocking. Returns 0 when all are claimed, or
   NX_RIG_REFUSED with answers[i] (room for n) set for every operand, none
   claimed. A buffer may appear more than once. Claims of one memory, for
   reading or writing, from any threads, coexist: a claim excludes only
   donation and freeing.
   Fails with NX_EINVAL if n < 0 or an array is NULL where n > 0. */
NX_API int nx_rig_claim(int n, nx_buffer *const *buffers, const bool *write, nx_claim_answer *answers);

/* The status of a refused claim. */
#define NX_RIG_REFUSED 2

/* nx_rig_peek(b, write) is what claiming b now would answer, without
   claiming it: for the door's precedence over operands it did not try.
   NX_CLAIM_DEAD, with a message, for a NULL b. */
NX_API nx_claim_answer nx_rig_peek(const nx_buffer *b, bool write);

/* nx_rig_release(n, buffers, write) ends claims that nx_rig_claim made with
   the same arguments. write is not read and may be NULL; a negative n, NULL
   buffers with n > 0, a NULL among them, or a buffer whose memory holds no
   claim (released more often than claimed) set a message naming
   nx_rig_release and release nothing. */
NX_API void nx_rig_release(int n, nx_buffer *const *buffers, const bool *write);

/* nx_buffer_hold_exclusive(b) holds b's memory exclusive for a donation and
   returns 0: claims then answer NX_CLAIM_HELD_EXCLUSIVE.
   Fails with NX_EINVAL, holding nothing, while the memory is claimed, held
   exclusive, exported or dead. */
NX_API int nx_buffer_hold_exclusive(nx_buffer *b);

/* nx_buffer_unhold(b) ends an exclusive hold without consuming the memory.
   Fails with NX_EINVAL unless b's memory is held exclusive. */
NX_API int nx_buffer_unhold(nx_buffer *b);

/* nx_buffer_consume(b, reason) makes b's memory, held exclusive, dead with
   `reason` (copied, as "donated to nx_mul"), which nx_buffer_dead and
   refusals then give.
   Fails with NX_EINVAL unless b's memory is held exclusive, or reason is
   NULL. */
NX_API int nx_buffer_consume(nx_buffer *b, const char *reason);

/* nx_buffer_export(b) waits once for all the work on b's memory, then marks
   it exported: it is never held exclusive again. Returns 0.
   Fails as nx_buffer_wait does for a write. */
NX_API int nx_buffer_export(nx_buffer *b);

/* nx_buffer_wrap_host(data, bytes, access, release, ctx, &b) sets b to a new
   buffer, with one reference, over `bytes` bytes of host memory at data that
   nx did not make (a DLPack producer's), as memory of kind NX_MEMORY_HOST on
   the host with that access, and returns 0. nx never frees data: once the
   memory goes (no handle, claim or unfinished work uses it, or it is dead
   and none does) it calls release(ctx) instead, exactly once, on whichever
   thread lets the memory go; release may be NULL. A NULL data is allowed for
   0 bytes (the buffer then gives a non-NULL address of no byte). The memory
   is outside the claims: nx cannot stop its owner from touching it.
   Fails with NX_EINVAL, calling nothing, if bytes < 0, data is NULL for
   bytes > 0, or access is not one of nx_access; NX_ENOMEM. */
NX_API int nx_buffer_wrap_host(void *data, int64_t bytes, nx_access access, void (*release)(void *ctx), void *ctx,
                               nx_buffer **b);

#ifdef __cplusplus
}
#endif
#endif /* NX_RIG_H */
