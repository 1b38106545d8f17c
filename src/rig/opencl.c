/* SPDX-License-Identifier: Apache-2.0 */
/* OpenCL devices: every device of OpenCL 1.2 or later of every platform, one
   context per platform (so a platform's devices map each other's memory),
   one in-order queue per device. The timeline's thread issues each command
   and waits for its event, so a failed command (a negative event status)
   fails the job and loses the device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig_internal.h"
#ifdef NX_TESTING
#include "rig_test.h"
#endif

#ifdef NX_HAVE_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include "../base/alloc.h"

typedef struct {
  cl_context ctx;
  cl_command_queue q;
  cl_device_id id;
} ocl;

#define OCL(d) ((ocl *)(d)->impl)

static size_t size_of(const nx__memory *m) { return (size_t)(m->bytes > 0 ? m->bytes : 1); }

/* An OpenCL buffer over a memory: the memory's own (m->impl), or another
   platform's device's over its host pages (a borrow's map; a device of the
   memory's own platform borrows the memory's own buffer). Where the memory
   is host-addressed the host touches its pages only while every buffer over
   them is mapped, and a command runs on a buffer only while it is unmapped,
   or mapped for reading by a command that only reads, as OpenCL requires:
   - mapped: 0, CL_MAP_READ, or CL_MAP_READ | CL_MAP_WRITE;
   - current: its device-side bits are the memory's (true while it is
     mapped for reading only);
   - the memory's newest buffer (m_newest) is the one a command last wrote,
     whose bits the host pages lack until it is mapped again.
   All of it is guarded by the memory's map_mu. */
typedef struct view {
  struct view *next;
  cl_mem mem;
  cl_command_queue q; /* where its maps and unmaps go: its device's queue */
  nx__memory *m;
  int refs;           /* the memory's own, and its borrows' */
  cl_map_flags mapped;
  bool current, newest;
} view;

#define RW (CL_MAP_READ | CL_MAP_WRITE)

/* The buffer a buffer's device reads and writes its memory through. */
static view *view_of(const nx_buffer *b) { return b->map ? (view *)b->map : (view *)b->mem->impl; }
static cl_mem mem_of(const nx_buffer *b) { return view_of(b)->mem; }

/* Waits for a command's event: a negative status is the device's failure. */
static int done(cl_int err, cl_event ev) {
  if (err == CL_SUCCESS) err = clWaitForEvents(1, &ev);
  if (ev) clReleaseEvent(ev);
  return err == CL_SUCCESS ? 0 : NX_EIO;
}

static int unmap_view(view *v) {
  cl_event ev = NULL;
  cl_int err = clEnqueueUnmapMemObject(v->q, v->mem, v->m->host, 0, NULL, &ev);
  int s = done(err, ev);
  if (!s) {
    if (v->mapped & CL_MAP_WRITE) v->current = true; /* the unmap gave the device the host's bits */
    v->mapped = 0;
  }
  return s;
}

/* Maps v for the host: the host pages then hold its device-side bits, at
   the one address the host knows the memory by. */
static int map_view(view *v, cl_map_flags flags) {
  cl_int err;
  void *p = clEnqueueMapBuffer(v->q, v->mem, CL_TRUE, flags, 0, size_of(v->m), 0, NULL, NULL, &err);
  if (err != CL_SUCCESS) return NX_EIO;
  if (p != v->m->host) {
    /* A runtime that maps at another address each time cannot serve. */
    clEnqueueUnmapMemObject(v->q, v->mem, p, 0, NULL, NULL);
    clFinish(v->q);
    return NX_EIO;
  }
  v->mapped = flags;
  return 0;
}

static view *views(nx__memory *m) { return atomic_load(&m->views); }

int nx__views_to_host(nx__memory *m, nx_access access) {
  int s;
  view *newest = NULL;
  /* The newest buffer last, so that its bits are the ones the pages keep;
     a buffer whose device-side bits are stale is mapped for writing, so
     that its unmap gives it the pages' bits. */
  for (view *v = views(m); v; v = v->next) {
    if (v->newest) {
      newest = v;
      continue;
    }
    cl_map_flags want = (access & NX_ACCESS_WRITE) || !v->current ? RW : CL_MAP_READ;
    if (v->mapped == RW || v->mapped == want) continue;
    if ((v->mapped && (s = unmap_view(v))) || (s = map_view(v, want))) return s;
  }
  if (newest) {
    if (newest->mapped && (s = unmap_view(newest))) return s;
    if ((s = map_view(newest, (access & NX_ACCESS_WRITE) ? RW : CL_MAP_READ))) return s;
    newest->newest = false;
  }
  return 0;
}

/* Makes b's buffer fit for a command of b's device, with its memory's
   map_mu held (timeline.c): its device-side bits the memory's, and unmapped
   unless the command only reads and it is mapped for reading. */
static int to_device(nx_buffer *b, bool write) {
  view *v = view_of(b);
  int s;
  if (!b->mem->host) return 0;
  if (!write && v->mapped == CL_MAP_READ && v->current) return 0;
  bool other_newest = false;
  for (view *w = views(b->mem); w; w = w->next) other_newest |= w->newest && w != v;
  if ((other_newest || (!v->current && v->mapped != RW)) && (s = nx__views_to_host(b->mem, NX_ACCESS_READ_WRITE)))
    return s;
  if (v->mapped && (s = unmap_view(v))) return s;
  v->current = true;
  return 0;
}

/* After a command wrote through b's buffer: the others' bits are stale. */
static void written(nx_buffer *b) {
  view *v = view_of(b);
  if (!b->mem->host) return;
  for (view *w = views(b->mem); w; w = w->next) w->current = w->newest = false;
  v->current = v->newest = true;
}

static view *view_new(nx__memory *m, cl_mem mem, cl_command_queue q) {
  view *v = NX__INJECT() ? NULL : nx__calloc(1, sizeof *v);
  if (!v) return NULL;
  v->mem = mem;
  v->q = q;
  v->m = m;
  v->refs = 1;
  v->current = true;
  return v;
}

/* Lists v among m's buffers, mapped for the host where m is host-addressed
   (its pages the host's from the start). */
static int view_add(view *v) {
  nx__memory *m = v->m;
  int s = 0;
  pthread_mutex_lock(&m->map_mu);
  if (m->host && !v->mapped) s = map_view(v, RW);
  if (!s) {
    v->next = views(m);
    atomic_store(&m->views, v);
  }
  pthread_mutex_unlock(&m->map_mu);
  return s;
}

/* Drops a reference to v; at the last, unlists it, unmaps it where mapped
   (which gives the host pages nothing they lack: the host's bits are
   already there or no longer matter) and releases its buffer. */
static void view_drop(view *v) {
  nx__memory *m = v->m;
  pthread_mutex_lock(&m->map_mu);
  bool last = --v->refs == 0;
  if (last) {
    view *head = views(m);
    if (head == v) atomic_store(&m->views, v->next);
    else
      for (view *w = head; w; w = w->next)
        if (w->next == v) w->next = v->next;
    if (v->mapped) {
      clEnqueueUnmapMemObject(v->q, v->mem, m->host, 0, NULL, NULL);
      clFinish(v->q);
    }
  }
  pthread_mutex_unlock(&m->map_mu);
  if (!last) return;
  clReleaseMemObject(v->mem);
  nx__free(v);
}

static bool version_ok(cl_device_id id) {
  char v[128] = "";
  int major = 0, minor = 0;
  clGetDeviceInfo(id, CL_DEVICE_VERSION, sizeof v, v, NULL);
  return sscanf(v, "OpenCL %d.%d", &major, &minor) == 2 && (major > 1 || (major == 1 && minor >= 2));
}

/* One device of a platform's context: its queue, its state and its entry
   in the device table. A step that fails gives back what the steps before
   it made, and the device is left out. */
static int add_device(cl_context ctx, cl_device_id id, int platform, const char *pname, int *index) {
  cl_int err = CL_SUCCESS;
  cl_command_queue q = NX__INJECT() ? NULL : clCreateCommandQueue(ctx, id, 0, &err);
  if (!q || err != CL_SUCCESS) goto fail_queue;
  ocl *o = NX__INJECT() ? NULL : nx__malloc(sizeof *o);
  if (!o) goto fail_state;
  nx_device *d = nx__device_new(NX__OPENCL, &nx__opencl_backend);
  if (!d) goto fail_device;
  o->ctx = ctx;
  o->q = q;
  o->id = id;
  d->impl = o;
  d->platform = platform;
  char dname[96] = "";
  clGetDeviceInfo(id, CL_DEVICE_NAME, sizeof dname, dname, NULL);
  snprintf(d->name, sizeof d->name, "opencl:%d", (*index)++);
  snprintf(d->description, sizeof d->description, "%s (%s)", dname, pname);
  return 0;
fail_device:
  nx__free(o);
fail_state:
  clReleaseCommandQueue(q);
fail_queue:
  return -1;
}

/* One platform: a context over its devices of OpenCL 1.2 or later, each
   added; a context no device was added with is released. */
static void add_platform(cl_platform_id p, int pi, int *index) {
  cl_device_id all[32], ids[32];
  cl_uint nd = 0, n = 0;
  if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 32, all, &nd) != CL_SUCCESS) return;
  for (cl_uint i = 0; i < nd && i < 32; i++)
    if (version_ok(all[i])) ids[n++] = all[i];
  if (n == 0) return;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
  cl_int err = CL_SUCCESS;
  cl_context ctx = NX__INJECT() ? NULL : clCreateContext(props, n, ids, NULL, NULL, &err);
  if (!ctx || err != CL_SUCCESS) goto fail_context;
  char pname[96] = "";
  clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
  int added = 0;
  for (cl_uint i = 0; i < n; i++) added += add_device(ctx, ids[i], pi, pname, index) == 0;
  if (added == 0) goto fail_devices;
  return;
fail_devices:
  clReleaseContext(ctx);
fail_context:
  return;
}

void nx__opencl_discover(void) {
  cl_platform_id ps[16];
  cl_uint np = 0;
  if (clGetPlatformIDs(16, ps, &np) != CL_SUCCESS) return;
  int index = 0;
  for (cl_uint p = 0; p < np && p < 16; p++) add_platform(ps[p], (int)p, &index);
}

/* Device memory is the device's alone; host memory is nx's pages that the
   device's buffer uses (CL_MEM_USE_HOST_PTR); io memory is pages the
   runtime allocates for the device and the host maps
   (CL_MEM_ALLOC_HOST_PTR), addressed where its first mapping puts them. */
static int ocl_alloc(nx_device *d, nx__memory *m) {
  cl_int err = CL_SUCCESS;
  cl_mem mem = NULL;
  /* Whole 8-byte words, so that device kernels update sub-byte elements by
     atomic operations on the 32-bit word that holds them without reaching
     past the buffer. */
  size_t size = (size_of(m) + 7) / 8 * 8;
  view *v;
  int s = NX_EIO;
  switch (m->kind) {
  case NX_MEMORY_DEVICE: mem = clCreateBuffer(OCL(d)->ctx, CL_MEM_READ_WRITE, size, NULL, &err); break;
  case NX_MEMORY_HOST:
    size = (size + 4095) / 4096 * 4096;
    if (!(m->host = nx__aligned_alloc(4096, size))) return NX_ENOMEM;
    mem = clCreateBuffer(OCL(d)->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size, m->host, &err);
    break;
  case NX_MEMORY_IO: mem = clCreateBuffer(OCL(d)->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, NULL, &err); break;
  }
  if (!mem || err != CL_SUCCESS) {
    s = err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY ? NX_ENOMEM : NX_EIO;
    goto fail_buffer;
  }
  if (!(v = view_new(m, mem, OCL(d)->q))) {
    s = NX_ENOMEM;
    goto fail_view;
  }
  if (m->kind == NX_MEMORY_IO) {
    /* Where the runtime maps the pages first is where the host knows them. */
    m->host = clEnqueueMapBuffer(OCL(d)->q, mem, CL_TRUE, RW, 0, size, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) goto fail_map;
    v->mapped = RW;
  }
  m->impl = v;
  if (view_add(v)) goto fail_add;
  return 0;
fail_add:
  m->impl = NULL;
  if (v->mapped) {
    clEnqueueUnmapMemObject(OCL(d)->q, mem, m->host, 0, NULL, NULL);
    clFinish(OCL(d)->q);
  }
fail_map:
  nx__free(v);
fail_view:
  clReleaseMemObject(mem);
fail_buffer:
  if (m->kind == NX_MEMORY_HOST) nx__free(m->host);
  m->host = NULL;
  return s;
}

static void ocl_release(nx__memory *m) {
  view_drop(m->impl);
  if (m->kind == NX_MEMORY_HOST) nx__free(m->host);
}

static int ocl_read(nx_buffer *b, int64_t off, void *dst, int64_t n) {
  cl_event ev = NULL;
  int s = to_device(b, false);
  if (s) return s;
  cl_int err = clEnqueueReadBuffer(OCL(b->dev)->q, mem_of(b), CL_FALSE, (size_t)off, (size_t)n, dst, 0, NULL, &ev);
  return done(err, ev);
}

static int ocl_write(nx_buffer *b, int64_t off, const void *src, int64_t n) {
  cl_event ev = NULL;
  int s = to_device(b, true);
  if (s) return s;
  cl_int err = clEnqueueWriteBuffer(OCL(b->dev)->q, mem_of(b), CL_FALSE, (size_t)off, (size_t)n, src, 0, NULL, &ev);
  if (!(s = done(err, ev))) written(b);
  return s;
}

static int ocl_fill(nx_buffer *b, int64_t off, int64_t n, uint8_t v) {
  cl_event ev = NULL;
  int s = to_device(b, true);
  if (s) return s;
  cl_int err = clEnqueueFillBuffer(OCL(b->dev)->q, mem_of(b), &v, 1, (size_t)off, (size_t)n, 0, NULL, &ev);
  if (!(s = done(err, ev))) written(b);
  return s;
}

static int ocl_copy(nx_buffer *dst, int64_t doff, nx_buffer *src, int64_t soff, int64_t n) {
  cl_event ev = NULL;
  int s;
  if ((s = to_device(src, false)) || (s = to_device(dst, true))) return s;
  cl_int err = clEnqueueCopyBuffer(OCL(dst->dev)->q, mem_of(src), mem_of(dst), (size_t)soff, (size_t)doff, (size_t)n,
                                   0, NULL, &ev);
  if (!(s = done(err, ev))) written(dst);
  return s;
}

/* A borrow: the memory's own buffer for a device of its platform (one
   context), else a buffer of d's context over its host pages. */
static void *ocl_map(nx_device *d, nx__memory *m) {
  cl_int err;
  if (m->dev->type == NX__OPENCL && m->dev->platform == d->platform) {
    view *own = m->impl;
    pthread_mutex_lock(&m->map_mu);
    own->refs++;
    pthread_mutex_unlock(&m->map_mu);
    return own;
  }
  if (!m->host) return NULL;
  cl_mem mem = clCreateBuffer(OCL(d)->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size_of(m), m->host, &err);
  if (err != CL_SUCCESS) return NULL;
  view *v = view_new(m, mem, OCL(d)->q);
  if (!v) {
    clReleaseMemObject(mem);
    return NULL;
  }
  if (view_add(v)) {
    clReleaseMemObject(mem);
    nx__free(v);
    return NULL;
  }
  return v;
}

static void ocl_unmap(nx_device *d, void *map) {
  (void)d;
  view_drop(map);
}

bool nx__opencl_objects(const nx_device *d, cl_context *ctx, cl_command_queue *q, cl_device_id *id) {
  if (!d || d->type != NX__OPENCL) return false;
  *ctx = OCL(d)->ctx;
  *q = OCL(d)->q;
  *id = OCL(d)->id;
  return true;
}

cl_mem nx__opencl_mem(const nx_buffer *b) { return mem_of(b); }

const nx__backend nx__opencl_backend = {ocl_alloc, ocl_release, ocl_read,  ocl_write, ocl_fill,
                                        ocl_copy,  ocl_map,     ocl_unmap, NULL};

#ifdef NX_TESTING
int nx__opencl_mapped(const nx_buffer *b) {
  nx__memory *m = b->mem;
  int n = 0, mapped = 0;
  pthread_mutex_lock(&m->map_mu);
  for (view *v = views(m); v; v = v->next) n++, mapped += v->mapped != 0;
  pthread_mutex_unlock(&m->map_mu);
  return n == 0 ? 2 : mapped == n ? 1 : mapped == 0 ? 0 : -1;
}

/* The test hook: a marker that waits on a user event set to a failing
   status, so the device itself reports the failure. */
static int fail_by_user_event(nx_device *d, void *ctx) {
  (void)ctx;
  cl_int err;
  cl_event user = clCreateUserEvent(OCL(d)->ctx, &err), marker = NULL;
  if (err != CL_SUCCESS) return NX_EIO;
  err = clEnqueueMarkerWithWaitList(OCL(d)->q, 1, &user, &marker);
  clSetUserEventStatus(user, -1);
  int s = done(err, marker);
  clReleaseEvent(user);
  return s;
}

int nx__opencl_fail_by_user_event(nx_device *d, nx_buffer *written) {
  if (!d || d->type != NX__OPENCL) return nx__fail(NX_EINVAL, "nx__opencl_fail_by_user_event: not an OpenCL device");
  nx__job *j = nx__calloc(1, sizeof *j);
  if (!j || !(j->bufs = nx__calloc(1, sizeof *j->bufs))) { nx__free(j); return NX_ENOMEM; }
  j->kind = NX__JOB_HOOK;
  j->hook = fail_by_user_event;
  if (written) {
    nx_buffer_retain(written);
    j->bufs[0] = written;
    j->nbuf = j->nwrites = 1;
  }
  int s = nx__enqueue(d, j, "nx__opencl_fail_by_user_event");
  if (s) {
    nx_buffer_release(written);
    nx__free(j->bufs);
    nx__free(j);
  }
  return s;
}
#endif

#else /* no OpenCL: no devices, and a backend nothing calls */

void nx__opencl_discover(void) {}
const nx__backend nx__opencl_backend = {0};
int nx__views_to_host(nx__memory *m, nx_access access) {
  (void)m;
  (void)access;
  return 0;
}
#ifdef NX_TESTING
int nx__opencl_mapped(const nx_buffer *b) {
  (void)b;
  return 2;
}
int nx__opencl_fail_by_user_event(nx_device *d, nx_buffer *written) {
  (void)d;
  (void)written;
  return nx__fail(NX_EINVAL, "nx__opencl_fail_by_user_event: built without OpenCL");
}
#endif

#endif
