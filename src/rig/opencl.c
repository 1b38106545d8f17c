/* OpenCL devices: every device of OpenCL 1.2 or later of every platform, one
   context per platform (so a platform's devices map each other's memory),
   one in-order queue per device. The timeline's thread issues each command
   and waits for its event, so a failed command (a negative event status)
   fails the job and loses the device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig_internal.h"
#include "rig_test.h"

#ifdef NX_HAVE_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

typedef struct {
  cl_context ctx;
  cl_command_queue q;
  cl_device_id id;
} ocl;

#define OCL(d) ((ocl *)(d)->impl)

static size_t size_of(const nx__memory *m) { return (size_t)(m->bytes > 0 ? m->bytes : 1); }

/* The size of memory the device makes: whole 8-byte words, so that device
   kernels update sub-byte elements by atomic operations on the 32-bit word
   that holds them without reaching past the buffer. */
static size_t alloc_size(const nx__memory *m) { return (size_of(m) + 7) / 8 * 8; }

/* The cl_mem a buffer's device reads and writes its memory through. */
static cl_mem mem_of(const nx_buffer *b) { return b->map ? (cl_mem)b->map : (cl_mem)b->mem->impl; }

static bool version_ok(cl_device_id id) {
  char v[128] = "";
  int major = 0, minor = 0;
  clGetDeviceInfo(id, CL_DEVICE_VERSION, sizeof v, v, NULL);
  return sscanf(v, "OpenCL %d.%d", &major, &minor) == 2 && (major > 1 || (major == 1 && minor >= 2));
}

void nx__opencl_discover(void) {
  cl_platform_id ps[16];
  cl_uint np = 0;
  if (clGetPlatformIDs(16, ps, &np) != CL_SUCCESS) return;
  int index = 0;
  for (cl_uint p = 0; p < np && p < 16; p++) {
    cl_device_id all[32], ids[32];
    cl_uint nd = 0, n = 0;
    if (clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, 32, all, &nd) != CL_SUCCESS) continue;
    for (cl_uint i = 0; i < nd && i < 32; i++)
      if (version_ok(all[i])) ids[n++] = all[i];
    if (n == 0) continue;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)ps[p], 0};
    cl_int err;
    cl_context ctx = clCreateContext(props, n, ids, NULL, NULL, &err);
    if (err != CL_SUCCESS) continue;
    char pname[96] = "";
    clGetPlatformInfo(ps[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    for (cl_uint i = 0; i < n; i++) {
      cl_command_queue q = clCreateCommandQueue(ctx, ids[i], 0, &err);
      ocl *o = malloc(sizeof *o);
      if (err != CL_SUCCESS || !o) { free(o); continue; }
      o->ctx = ctx;
      o->q = q;
      o->id = ids[i];
      nx_device *d = nx__device_new(NX__OPENCL, &nx__opencl_backend);
      if (!d) { clReleaseCommandQueue(q); free(o); continue; }
      d->impl = o;
      d->platform = (int)p;
      char dname[96] = "";
      clGetDeviceInfo(ids[i], CL_DEVICE_NAME, sizeof dname, dname, NULL);
      snprintf(d->name, sizeof d->name, "opencl:%d", index++);
      snprintf(d->description, sizeof d->description, "%s (%s)", dname, pname);
    }
  }
}

static int ocl_alloc(nx_device *d, nx__memory *m) {
  cl_int err = CL_SUCCESS;
  cl_mem mem = NULL;
  size_t size = alloc_size(m);
  switch (m->kind) {
  case NX_MEMORY_DEVICE:
    mem = clCreateBuffer(OCL(d)->ctx, CL_MEM_READ_WRITE, size, NULL, &err);
    break;
  case NX_MEMORY_HOST: /* host pages the device maps */
    size = (size + 4095) / 4096 * 4096;
    if (!(m->host = aligned_alloc(4096, size))) return NX_ENOMEM;
    mem = clCreateBuffer(OCL(d)->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size, m->host, &err);
    if (err != CL_SUCCESS) { free(m->host); m->host = NULL; }
    break;
  case NX_MEMORY_IO: /* the device's pages, mapped by the host for good */
    mem = clCreateBuffer(OCL(d)->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, NULL, &err);
    if (err == CL_SUCCESS)
      m->host = clEnqueueMapBuffer(OCL(d)->q, mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, size, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS && mem) { clReleaseMemObject(mem); mem = NULL; }
    break;
  }
  if (err != CL_SUCCESS || !mem) return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY ? NX_ENOMEM : NX_EIO;
  m->impl = mem;
  return 0;
}

static void ocl_release(nx__memory *m) {
  cl_mem mem = m->impl;
  if (m->kind == NX_MEMORY_IO) {
    clEnqueueUnmapMemObject(OCL(m->dev)->q, mem, m->host, 0, NULL, NULL);
    clFinish(OCL(m->dev)->q);
  }
  clReleaseMemObject(mem);
  if (m->kind == NX_MEMORY_HOST) free(m->host);
}

/* Waits for a command's event: a negative status is the device's failure. */
static int done(cl_int err, cl_event ev) {
  if (err == CL_SUCCESS) err = clWaitForEvents(1, &ev);
  if (ev) clReleaseEvent(ev);
  return err == CL_SUCCESS ? 0 : NX_EIO;
}

static int ocl_read(nx_buffer *b, int64_t off, void *dst, int64_t n) {
  cl_event ev = NULL;
  cl_int err = clEnqueueReadBuffer(OCL(b->dev)->q, mem_of(b), CL_FALSE, (size_t)off, (size_t)n, dst, 0, NULL, &ev);
  return done(err, ev);
}

static int ocl_write(nx_buffer *b, int64_t off, const void *src, int64_t n) {
  cl_event ev = NULL;
  cl_int err = clEnqueueWriteBuffer(OCL(b->dev)->q, mem_of(b), CL_FALSE, (size_t)off, (size_t)n, src, 0, NULL, &ev);
  return done(err, ev);
}

static int ocl_fill(nx_buffer *b, int64_t off, int64_t n, uint8_t v) {
  cl_event ev = NULL;
  cl_int err = clEnqueueFillBuffer(OCL(b->dev)->q, mem_of(b), &v, 1, (size_t)off, (size_t)n, 0, NULL, &ev);
  return done(err, ev);
}

static int ocl_copy(nx_buffer *dst, int64_t doff, nx_buffer *src, int64_t soff, int64_t n) {
  cl_event ev = NULL;
  cl_int err = clEnqueueCopyBuffer(OCL(dst->dev)->q, mem_of(src), mem_of(dst), (size_t)soff, (size_t)doff, (size_t)n,
                                   0, NULL, &ev);
  return done(err, ev);
}

static void *ocl_map(nx_device *d, nx__memory *m) {
  cl_int err;
  if (m->dev->type == NX__OPENCL && m->dev->platform == d->platform) {
    clRetainMemObject((cl_mem)m->impl); /* one context: the same object serves */
    return m->impl;
  }
  if (!m->host) return NULL;
  cl_mem mem = clCreateBuffer(OCL(d)->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size_of(m), m->host, &err);
  return err == CL_SUCCESS ? mem : NULL;
}

static void ocl_unmap(nx_device *d, void *map) {
  (void)d;
  clReleaseMemObject((cl_mem)map);
}

bool nx__opencl_objects(const nx_device *d, cl_context *ctx, cl_command_queue *q, cl_device_id *id) {
  if (!d || d->type != NX__OPENCL) return false;
  *ctx = OCL(d)->ctx;
  *q = OCL(d)->q;
  *id = OCL(d)->id;
  return true;
}

cl_mem nx__opencl_mem(const nx_buffer *b) { return mem_of(b); }

const nx__backend nx__opencl_backend = {ocl_alloc, ocl_release, ocl_read, ocl_write, ocl_fill, ocl_copy, ocl_map, ocl_unmap};

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
  nx__job *j = calloc(1, sizeof *j);
  if (!j || !(j->bufs = calloc(1, sizeof *j->bufs))) { free(j); return NX_ENOMEM; }
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
    free(j->bufs);
    free(j);
  }
  return s;
}

#else /* no OpenCL: no devices, and a backend nothing calls */

void nx__opencl_discover(void) {}
const nx__backend nx__opencl_backend = {0};
int nx__opencl_fail_by_user_event(nx_device *d, nx_buffer *written) {
  (void)d;
  (void)written;
  return nx__fail(NX_EINVAL, "nx__opencl_fail_by_user_event: built without OpenCL");
}

#endif
