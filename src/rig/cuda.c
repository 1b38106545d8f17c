/* SPDX-License-Identifier: Apache-2.0 */
/* CUDA devices, through the driver API loaded at run time: where
   libcuda.so.1 is missing, cuInit fails or no GPU answers, there is no CUDA
   device and the reason is kept (nx__cuda_absent). Each device works in its
   primary context, pushed around every call so that a caller's own current
   context stays as it was, and issues everything on one non-blocking stream;
   the timeline's thread ends each job by recording an event on it and
   waiting for the event, so a failed command, a faulting kernel's sticky
   error included, fails the job and loses the device. Device memory is
   stream-ordered (cuMemAllocAsync, cuMemFreeAsync) where the device has
   memory pools; host memory is pinned (cuMemHostAlloc, portable and mapped),
   and a borrow of other host-addressed memory pins its pages
   (cuMemHostRegister); GPUs that can reach each other's memory have peer
   access enabled at discovery, and borrow each other's device memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig_internal.h"
#include "cuda_driver.h"
#include "../base/alloc.h"

#ifdef NX_HAVE_CUDA
#include <dlfcn.h>

static nx__cuda_api api;
static bool api_ok;
static char absent[160] = "no CUDA device";

const nx__cuda_api *nx__cuda_api_get(void) { return api_ok ? &api : NULL; }

#define CU(d) ((nx__cuda_device *)(d)->impl)

static const char *err_name(CUresult e) {
  const char *s = NULL;
  if (api.get_error_name && api.get_error_name(e, &s) == NX__CUDA_SUCCESS && s) return s;
  return "CUDA error";
}

/* Every entry point by its exported name (the versioned one where cuda.h
   renames it); all but the stream-ordered allocator are needed. */
static bool load(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(absent, sizeof absent, "libcuda.so.1 not found: no CUDA driver");
    return false;
  }
  struct {
    void **slot;
    const char *name;
    bool optional;
  } syms[] = {
      {(void **)&api.init, "cuInit", false},
      {(void **)&api.driver_version, "cuDriverGetVersion", false},
      {(void **)&api.get_error_name, "cuGetErrorName", false},
      {(void **)&api.device_count, "cuDeviceGetCount", false},
      {(void **)&api.device_get, "cuDeviceGet", false},
      {(void **)&api.device_name, "cuDeviceGetName", false},
      {(void **)&api.device_attribute, "cuDeviceGetAttribute", false},
      {(void **)&api.device_total_mem, "cuDeviceTotalMem_v2", false},
      {(void **)&api.can_access_peer, "cuDeviceCanAccessPeer", false},
      {(void **)&api.primary_ctx_retain, "cuDevicePrimaryCtxRetain", false},
      {(void **)&api.ctx_push, "cuCtxPushCurrent_v2", false},
      {(void **)&api.ctx_pop, "cuCtxPopCurrent_v2", false},
      {(void **)&api.ctx_enable_peer, "cuCtxEnablePeerAccess", false},
      {(void **)&api.stream_create, "cuStreamCreate", false},
      {(void **)&api.stream_synchronize, "cuStreamSynchronize", false},
      {(void **)&api.stream_destroy, "cuStreamDestroy_v2", false},
      {(void **)&api.event_create, "cuEventCreate", false},
      {(void **)&api.event_record, "cuEventRecord", false},
      {(void **)&api.event_synchronize, "cuEventSynchronize", false},
      {(void **)&api.event_elapsed, "cuEventElapsedTime", true},
      {(void **)&api.event_destroy, "cuEventDestroy_v2", false},
      {(void **)&api.mem_alloc, "cuMemAlloc_v2", false},
      {(void **)&api.mem_free, "cuMemFree_v2", false},
      {(void **)&api.mem_alloc_async, "cuMemAllocAsync", true},
      {(void **)&api.mem_free_async, "cuMemFreeAsync", true},
      {(void **)&api.mem_host_alloc, "cuMemHostAlloc", false},
      {(void **)&api.mem_free_host, "cuMemFreeHost", false},
      {(void **)&api.mem_host_device_pointer, "cuMemHostGetDevicePointer_v2", false},
      {(void **)&api.mem_host_register, "cuMemHostRegister_v2", false},
      {(void **)&api.mem_host_unregister, "cuMemHostUnregister", false},
      {(void **)&api.memcpy_htod_async, "cuMemcpyHtoDAsync_v2", false},
      {(void **)&api.memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2", false},
      {(void **)&api.memcpy_dtod_async, "cuMemcpyDtoDAsync_v2", false},
      {(void **)&api.memcpy_peer_async, "cuMemcpyPeerAsync", false},
      {(void **)&api.memset_d8_async, "cuMemsetD8Async", false},
      {(void **)&api.module_load_data, "cuModuleLoadData", false},
      {(void **)&api.module_get_function, "cuModuleGetFunction", false},
      {(void **)&api.launch_kernel, "cuLaunchKernel", false},
  };
  for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
    /* dlsym's void * to a function pointer: POSIX guarantees the cast. */
    void *p = dlsym(lib, syms[i].name);
    memcpy(syms[i].slot, &p, sizeof p);
    if (!p && !syms[i].optional) {
      snprintf(absent, sizeof absent, "libcuda.so.1 lacks %s: the driver is too old", syms[i].name);
      dlclose(lib);
      memset(&api, 0, sizeof api);
      return false;
    }
  }
  if (!api.mem_free_async) api.mem_alloc_async = NULL;
  return true; /* the library stays loaded for the process */
}

CUresult nx__cuda_enter(const nx__cuda_device *c) { return api.ctx_push(c->ctx); }
void nx__cuda_leave(void) {
  CUcontext c;
  api.ctx_pop(&c);
}

nx__cuda_device *nx__cuda_device_of(const nx_device *d) { return d && d->type == NX__CUDA ? CU(d) : NULL; }

int nx__cuda_finish(const nx__cuda_device *c, CUresult issued) {
  CUresult e = issued;
  if (e == NX__CUDA_SUCCESS) e = api.event_record(c->done, c->stream);
  /* A failed command may leave earlier ones running: the wait covers them. */
  CUresult w = api.event_synchronize(c->done);
  if (e == NX__CUDA_SUCCESS) e = w;
  return e == NX__CUDA_SUCCESS ? 0 : (e == NX__CUDA_ERROR_OUT_OF_MEMORY ? NX_ENOMEM : NX_EIO);
}

/* Peer access, i to j: enabled at discovery where the driver allows it. */
static bool peers[NX__MAX_DEVICES][NX__MAX_DEVICES];
static nx_device *cuda_devs[NX__MAX_DEVICES];
static int ncuda;

/* Whether a reaches b's device memory by b's addresses. */
static bool reaches(const nx_device *a, const nx_device *b) {
  return a->type == NX__CUDA && b->type == NX__CUDA && (a == b || peers[CU(a)->ordinal][CU(b)->ordinal]);
}

/* Copies between any two GPUs run as one cuMemcpyPeerAsync on the
   destination's stream: directly where peer access is enabled, staged by
   the driver where not, in both cases without nx's bounce through the host. */
static bool cuda_peer(const nx_device *a, const nx_device *b) { return a->type == NX__CUDA && b->type == NX__CUDA; }

/* The memory's storage: a device address and the bytes it holds. */
typedef struct cuda_mem {
  CUdeviceptr ptr;
  size_t size;
} cuda_mem;

/* A borrow onto a CUDA device: the address it reaches the memory by, and
   whether the borrow pinned the pages (and unpins them when it goes). */
typedef struct borrowed {
  CUdeviceptr ptr;
  void *pinned;
} borrowed;

static size_t size_of(const nx__memory *m) { return ((size_t)(m->bytes > 0 ? m->bytes : 1) + 7) / 8 * 8; }

CUdeviceptr nx__cuda_ptr(const nx_buffer *b) {
  if (b->map) return ((borrowed *)b->map)->ptr;
  return ((cuda_mem *)b->mem->impl)->ptr;
}

int64_t nx__cuda_storage_bytes(const nx_buffer *b) {
  const nx__memory *m = b->mem;
  if (m->foreign) return m->bytes;
  if (m->dev->type == NX__CUDA) return (int64_t)((cuda_mem *)m->impl)->size;
  return m->dev->type == NX__HOST ? (m->bytes + 63) / 64 * 64 : m->bytes;
}

/* Device memory of whole 8-byte words (sub-byte stores by atomic updates
   of the 32-bit words that hold them stay inside it), stream-ordered where
   the device has memory pools; host memory pinned, portable to every
   context and mapped into the device's address space. */
static int cuda_alloc(nx_device *d, nx__memory *m) {
  nx__cuda_device *c = CU(d);
  cuda_mem *cm = NX__INJECT() ? NULL : nx__calloc(1, sizeof *cm);
  if (!cm) return NX_ENOMEM;
  cm->size = size_of(m);
  CUresult e = nx__cuda_enter(c);
  if (e == NX__CUDA_SUCCESS) {
    if (m->kind == NX_MEMORY_DEVICE) {
      e = c->pools ? api.mem_alloc_async(&cm->ptr, cm->size, c->stream) : api.mem_alloc(&cm->ptr, cm->size);
    } else {
      e = api.mem_host_alloc(&m->host, cm->size, NX__CU_MEMHOST_PORTABLE | NX__CU_MEMHOST_DEVICEMAP);
      if (e == NX__CUDA_SUCCESS && (e = api.mem_host_device_pointer(&cm->ptr, m->host, 0)) != NX__CUDA_SUCCESS) {
        api.mem_free_host(m->host);
        m->host = NULL;
      }
    }
    nx__cuda_leave();
  }
  if (e != NX__CUDA_SUCCESS) {
    nx__free(cm);
    return e == NX__CUDA_ERROR_OUT_OF_MEMORY ? NX_ENOMEM : NX_EIO;
  }
  m->impl = cm;
  return 0;
}

/* After the work on it ended; a lost device's context is not called. */
static void cuda_release(nx__memory *m) {
  cuda_mem *cm = m->impl;
  nx__cuda_device *c = CU(m->dev);
  if (!atomic_load(&m->dev->lost) && nx__cuda_enter(c) == NX__CUDA_SUCCESS) {
    if (m->kind == NX_MEMORY_HOST) api.mem_free_host(m->host);
    else if (c->pools) api.mem_free_async(cm->ptr, c->stream);
    else api.mem_free(cm->ptr);
    nx__cuda_leave();
  }
  m->host = NULL;
  nx__free(cm);
}

/* Each job's commands, issued on the device's stream in its context and
   waited for by the event. */
static int issue_done(nx__cuda_device *c, CUresult e) {
  int s = nx__cuda_finish(c, e);
  nx__cuda_leave();
  return s;
}

static int cuda_read(nx_buffer *b, int64_t off, void *dst, int64_t n) {
  nx__cuda_device *c = CU(b->dev);
  CUresult e = nx__cuda_enter(c);
  if (e != NX__CUDA_SUCCESS) return NX_EIO;
  return issue_done(c, api.memcpy_dtoh_async(dst, nx__cuda_ptr(b) + (CUdeviceptr)off, (size_t)n, c->stream));
}

static int cuda_write(nx_buffer *b, int64_t off, const void *src, int64_t n) {
  nx__cuda_device *c = CU(b->dev);
  CUresult e = nx__cuda_enter(c);
  if (e != NX__CUDA_SUCCESS) return NX_EIO;
  return issue_done(c, api.memcpy_htod_async(nx__cuda_ptr(b) + (CUdeviceptr)off, src, (size_t)n, c->stream));
}

static int cuda_fill(nx_buffer *b, int64_t off, int64_t n, uint8_t v) {
  nx__cuda_device *c = CU(b->dev);
  CUresult e = nx__cuda_enter(c);
  if (e != NX__CUDA_SUCCESS) return NX_EIO;
  return issue_done(c, api.memset_d8_async(nx__cuda_ptr(b) + (CUdeviceptr)off, v, (size_t)n, c->stream));
}

/* A copy on dst's device: within it (its memory and what it borrowed), or
   from a peer's memory. */
static int cuda_copy(nx_buffer *dst, int64_t doff, nx_buffer *src, int64_t soff, int64_t n) {
  nx__cuda_device *c = CU(dst->dev), *sc = CU(src->dev);
  CUresult e = nx__cuda_enter(c);
  if (e != NX__CUDA_SUCCESS) return NX_EIO;
  CUdeviceptr dp = nx__cuda_ptr(dst) + (CUdeviceptr)doff, sp = nx__cuda_ptr(src) + (CUdeviceptr)soff;
  if (sc == c) e = api.memcpy_dtod_async(dp, sp, (size_t)n, c->stream);
  else e = api.memcpy_peer_async(dp, c->ctx, sp, sc->ctx, (size_t)n, c->stream);
  return issue_done(c, e);
}

/* A borrow onto d: a peer's device memory by its own address (peer access
   is enabled), pinned host memory by its address in d's context, and any
   other host-addressed memory by pinning its pages. */
static void *cuda_map(nx_device *d, nx__memory *m) {
  nx__cuda_device *c = CU(d);
  borrowed *map = NX__INJECT() ? NULL : nx__calloc(1, sizeof *map);
  if (!map) return NULL;
  if (!m->host) {
    if (!reaches(d, m->dev)) goto fail;
    map->ptr = ((cuda_mem *)m->impl)->ptr;
    return map;
  }
  if (nx__cuda_enter(c) != NX__CUDA_SUCCESS) goto fail;
  CUresult e = NX__CUDA_SUCCESS;
  if (m->dev->type != NX__CUDA) {
    e = api.mem_host_register(m->host, (size_t)(m->bytes > 0 ? m->bytes : 1),
                              NX__CU_MEMHOST_PORTABLE | NX__CU_MEMHOST_DEVICEMAP);
    if (e == NX__CUDA_SUCCESS) map->pinned = m->host;
    else if (e == NX__CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED) e = NX__CUDA_SUCCESS; /* another borrow's */
  }
  if (e == NX__CUDA_SUCCESS) e = api.mem_host_device_pointer(&map->ptr, m->host, 0);
  if (e != NX__CUDA_SUCCESS && map->pinned) api.mem_host_unregister(map->pinned);
  nx__cuda_leave();
  if (e != NX__CUDA_SUCCESS) goto fail;
  return map;
fail:
  nx__free(map);
  return NULL;
}

static void cuda_unmap(nx_device *d, void *p) {
  borrowed *map = p;
  if (map->pinned && nx__cuda_enter(CU(d)) == NX__CUDA_SUCCESS) {
    api.mem_host_unregister(map->pinned);
    nx__cuda_leave();
  }
  nx__free(map);
}

const nx__backend nx__cuda_backend = {cuda_alloc, cuda_release, cuda_read, cuda_write, cuda_fill,
                                      cuda_copy,  cuda_map,     cuda_unmap, cuda_peer};

bool nx__cuda_can_map(const nx_device *d, const nx__memory *m) { return m->host != NULL || reaches(d, m->dev); }

/* One GPU: its context, stream, event and entry in the device table; a
   step that fails leaves it out. */
static int add_device(int ordinal) {
  nx__cuda_device *c = NX__INJECT() ? NULL : nx__calloc(1, sizeof *c);
  if (!c) return -1;
  c->ordinal = ordinal;
  int map = 0, uva = 0;
  if (api.device_get(&c->dev, ordinal) || api.primary_ctx_retain(&c->ctx, c->dev)) goto fail_ctx;
  api.device_attribute(&c->sms, NX__CU_ATTR_MULTIPROCESSOR_COUNT, c->dev);
  api.device_attribute(&c->cc_major, NX__CU_ATTR_CC_MAJOR, c->dev);
  api.device_attribute(&c->cc_minor, NX__CU_ATTR_CC_MINOR, c->dev);
  api.device_attribute(&map, NX__CU_ATTR_CAN_MAP_HOST_MEMORY, c->dev);
  api.device_attribute(&uva, NX__CU_ATTR_UNIFIED_ADDRESSING, c->dev);
  int pools = 0;
  if (api.mem_alloc_async) api.device_attribute(&pools, NX__CU_ATTR_MEMORY_POOLS_SUPPORTED, c->dev);
  c->pools = pools != 0;
  /* nx addresses host memory from kernels and copies by unified addresses. */
  if (!map || !uva) goto fail_ctx;
  if (nx__cuda_enter(c)) goto fail_ctx;
  CUresult e = api.stream_create(&c->stream, NX__CU_STREAM_NON_BLOCKING);
  nx__cuda_leave();
  if (e != NX__CUDA_SUCCESS) goto fail_ctx;
  if (nx__cuda_enter(c)) goto fail_event;
  e = api.event_create(&c->done, NX__CU_EVENT_BLOCKING_SYNC | NX__CU_EVENT_DISABLE_TIMING);
  nx__cuda_leave();
  if (e != NX__CUDA_SUCCESS) goto fail_event;
  nx_device *d = nx__device_new(NX__CUDA, &nx__cuda_backend);
  if (!d) goto fail_device;
  d->impl = c;
  char name[200] = "";
  size_t mem = 0;
  api.device_name(name, (int)sizeof name - 1, c->dev);
  api.device_total_mem(&mem, c->dev);
  snprintf(d->name, sizeof d->name, "cuda:%d", ncuda);
  snprintf(d->description, sizeof d->description, "%s (CUDA, sm_%d%d, %d SMs, %.0f GiB)", name, c->cc_major,
           c->cc_minor, c->sms, (double)mem / (1 << 30));
  cuda_devs[ncuda++] = d;
  return 0;
fail_device:
  if (!nx__cuda_enter(c)) {
    api.event_destroy(c->done);
    nx__cuda_leave();
  }
fail_event:
  if (!nx__cuda_enter(c)) {
    api.stream_destroy(c->stream);
    nx__cuda_leave();
  }
fail_ctx:
  /* The primary context stays retained: releasing it could reset a
     context the process's own CUDA code shares. */
  nx__free(c);
  return -1;
}

/* With the device table's lock held (rig.c), after OpenCL's devices. */
void nx__cuda_discover(void) {
  int n = 0, version = 0;
  if (!load()) return;
  CUresult e = api.init(0);
  if (e != NX__CUDA_SUCCESS) {
    snprintf(absent, sizeof absent, "cuInit: %s (%d)", err_name(e), e);
    return;
  }
  api.driver_version(&version);
  if ((e = api.device_count(&n)) != NX__CUDA_SUCCESS || n == 0) {
    snprintf(absent, sizeof absent, "the CUDA driver %d.%d finds no GPU", version / 1000, version % 1000 / 10);
    return;
  }
  api_ok = true;
  for (int i = 0; i < n && i < NX__MAX_DEVICES; i++) add_device(i);
  if (ncuda == 0) {
    snprintf(absent, sizeof absent, "no GPU of the %d the driver finds could be set up (unified addressing)", n);
    return;
  }
  for (int i = 0; i < ncuda; i++)
    for (int j = 0; j < ncuda; j++) {
      nx__cuda_device *a = CU(cuda_devs[i]), *b = CU(cuda_devs[j]);
      int can = 0;
      if (i == j || api.can_access_peer(&can, a->dev, b->dev) || !can || nx__cuda_enter(a)) continue;
      e = api.ctx_enable_peer(b->ctx, 0);
      nx__cuda_leave();
      peers[a->ordinal][b->ordinal] = e == NX__CUDA_SUCCESS || e == NX__CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
    }
}

const char *nx__cuda_absent(void) {
  nx_device *all[1];
  nx_rig_devices(all, 1); /* discovers */
  return ncuda ? NULL : absent;
}

#else /* built without CUDA: no devices, and a backend nothing calls */

void nx__cuda_discover(void) {}
const nx__backend nx__cuda_backend = {0};
const nx__cuda_api *nx__cuda_api_get(void) { return NULL; }
const char *nx__cuda_absent(void) { return "nx was built without CUDA (NX_CUDA off, or no toolkit)"; }
nx__cuda_device *nx__cuda_device_of(const nx_device *d) {
  (void)d;
  return NULL;
}
bool nx__cuda_can_map(const nx_device *d, const nx__memory *m) {
  (void)d;
  (void)m;
  return false;
}

#endif
