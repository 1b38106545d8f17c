/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the CUDA driver API, loaded at run time (dlopen of libcuda.so.1)
   so that the library links and runs where no driver is installed; the few
   types and constants nx uses, declared here with the driver's values, so
   that the C sources need no CUDA header. Only src/rig/cuda.c loads it; the
   device kernels (src/devices/cuda_*.c) call through nx__cuda_api(). */
#ifndef NX_RIG_CUDA_DRIVER_H
#define NX_RIG_CUDA_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#include "nx_rig.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;

#define NX__CUDA_SUCCESS 0
#define NX__CUDA_ERROR_OUT_OF_MEMORY 2
#define NX__CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED 704
#define NX__CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED 712
#define NX__CU_MEMHOST_PORTABLE 0x01 /* CU_MEMHOSTALLOC_ and CU_MEMHOSTREGISTER_ alike */
#define NX__CU_MEMHOST_DEVICEMAP 0x02
#define NX__CU_STREAM_NON_BLOCKING 0x1
#define NX__CU_EVENT_BLOCKING_SYNC 0x1
#define NX__CU_EVENT_DISABLE_TIMING 0x2
#define NX__CU_ATTR_MULTIPROCESSOR_COUNT 16
#define NX__CU_ATTR_CAN_MAP_HOST_MEMORY 19
#define NX__CU_ATTR_UNIFIED_ADDRESSING 41
#define NX__CU_ATTR_CC_MAJOR 75
#define NX__CU_ATTR_CC_MINOR 76
#define NX__CU_ATTR_MEMORY_POOLS_SUPPORTED 115

/* The entry points, each resolved by its exported (versioned) name. */
typedef struct nx__cuda_api {
  CUresult (*init)(unsigned flags);
  CUresult (*driver_version)(int *v);
  CUresult (*get_error_name)(CUresult e, const char **s);
  CUresult (*device_count)(int *n);
  CUresult (*device_get)(CUdevice *d, int ordinal);
  CUresult (*device_name)(char *name, int len, CUdevice d);
  CUresult (*device_attribute)(int *v, int attr, CUdevice d);
  CUresult (*device_total_mem)(size_t *bytes, CUdevice d);
  CUresult (*can_access_peer)(int *can, CUdevice d, CUdevice peer);
  CUresult (*primary_ctx_retain)(CUcontext *c, CUdevice d);
  CUresult (*ctx_push)(CUcontext c);
  CUresult (*ctx_pop)(CUcontext *c);
  CUresult (*ctx_enable_peer)(CUcontext peer, unsigned flags);
  CUresult (*stream_create)(CUstream *s, unsigned flags);
  CUresult (*stream_synchronize)(CUstream s);
  CUresult (*stream_destroy)(CUstream s);
  CUresult (*event_create)(CUevent *e, unsigned flags);
  CUresult (*event_record)(CUevent e, CUstream s);
  CUresult (*event_synchronize)(CUevent e);
  CUresult (*event_elapsed)(float *ms, CUevent start, CUevent end);
  CUresult (*event_destroy)(CUevent e);
  CUresult (*mem_alloc)(CUdeviceptr *p, size_t n);
  CUresult (*mem_free)(CUdeviceptr p);
  CUresult (*mem_alloc_async)(CUdeviceptr *p, size_t n, CUstream s); /* NULL before CUDA 11.2 */
  CUresult (*mem_free_async)(CUdeviceptr p, CUstream s);
  CUresult (*mem_host_alloc)(void **p, size_t n, unsigned flags);
  CUresult (*mem_free_host)(void *p);
  CUresult (*mem_host_device_pointer)(CUdeviceptr *d, void *p, unsigned flags);
  CUresult (*mem_host_register)(void *p, size_t n, unsigned flags);
  CUresult (*mem_host_unregister)(void *p);
  CUresult (*memcpy_htod_async)(CUdeviceptr dst, const void *src, size_t n, CUstream s);
  CUresult (*memcpy_dtoh_async)(void *dst, CUdeviceptr src, size_t n, CUstream s);
  CUresult (*memcpy_dtod_async)(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s);
  CUresult (*memcpy_peer_async)(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n, CUstream s);
  CUresult (*memset_d8_async)(CUdeviceptr p, unsigned char v, size_t n, CUstream s);
  CUresult (*module_load_data)(CUmodule *m, const void *image);
  CUresult (*module_get_function)(CUfunction *f, CUmodule m, const char *name);
  CUresult (*launch_kernel)(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                            unsigned bz, unsigned shared, CUstream s, void **params, void **extra);
} nx__cuda_api;

/* A CUDA device's own objects: its primary context, the stream its
   timeline issues everything on, and the event each job waits for. */
typedef struct nx__cuda_device {
  int ordinal;
  CUdevice dev;
  CUcontext ctx;
  CUstream stream;
  CUevent done;
  int sms, cc_major, cc_minor;
  bool pools; /* stream-ordered allocation (cuMemAllocAsync) */
} nx__cuda_device;

/* The driver's entry points, or NULL where it could not be loaded (then no
   CUDA device exists). */
const nx__cuda_api *nx__cuda_api_get(void);

/* Why there is no CUDA device ("libcuda.so.1 not found", "cuInit:
   CUDA_ERROR_NO_DEVICE", "built without CUDA"), or NULL where there is one:
   for messages and the tests' skip reasons. Discovers the devices first. */
const char *nx__cuda_absent(void);

/* d's CUDA objects, or NULL unless d is a CUDA device. */
nx__cuda_device *nx__cuda_device_of(const nx_device *d);

/* The address through which b's device reaches b's memory (its own memory,
   pinned host memory, a peer's memory or registered host pages). */
CUdeviceptr nx__cuda_ptr(const nx_buffer *b);

/* The bytes the storage under b's device address holds past b's first
   byte (whole words for nx's own memory; the foreign pages' bytes). */
int64_t nx__cuda_storage_bytes(const nx_buffer *b);

/* Makes c's context current on the calling thread (pushed; nx__cuda_leave
   pops it), so that a caller's own current context is left as it was. */
CUresult nx__cuda_enter(const nx__cuda_device *c);
void nx__cuda_leave(void);

/* Waits, on the timeline's thread, for everything issued on c's stream:
   the job's end. A nonzero status is the driver's failure (a sticky error
   after a faulting kernel), which the caller returns so that the job fails
   and the device is lost. */
int nx__cuda_finish(const nx__cuda_device *c, CUresult issued);

#endif
