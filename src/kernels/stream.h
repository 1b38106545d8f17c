/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the kernels module: from how many bytes of result a
   contiguous run's vector loop stores non-temporally (past the caches),
   one number for every loop that streams and for the engine, which keeps
   the pieces it cuts a long run into at least this long (engine.c). Below
   it the ordinary stores stay: a result of a core's L2 size or less is
   likely read again from the cache by the next operation. */
#ifndef NX_KERNELS_STREAM_H
#define NX_KERNELS_STREAM_H

#include <stdint.h>

#define NX__STREAM_BYTES ((int64_t)2 << 20)

#endif
