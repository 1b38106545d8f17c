/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the rig: devices, timelines, memories, jobs, and the backend
   interface each device type fills (host.c, opencl.c, cuda.c, test.c). */
#ifndef NX_RIG_INTERNAL_H
#define NX_RIG_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "nx_rig.h"
#include "../base/error.h"

#define NX__MAX_DEVICES 64
#define NX__MAX_TEST_DEVICES 16

typedef struct nx__memory nx__memory;
typedef struct nx__timeline nx__timeline;
typedef struct nx__job nx__job;

/* A point on a timeline: the work of sequence number seq. */
typedef struct nx__event {
  nx__timeline *tl;
  uint64_t seq;
} nx__event;

/* A device's timeline: a queue of jobs that its own thread runs in order.
   completed is the sequence number up to which every job has settled (done
   or failed); mu and cv guard the queue and the counters. */
struct nx__timeline {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  nx__job *head, *tail;
  uint64_t next_seq, completed;
  int index; /* in the device table: the slot of its reads in a memory */
  nx_device *dev;
};

typedef enum { NX__HOST, NX__OPENCL, NX__CUDA, NX__TEST } nx__device_type;

/* A test device's faults (nx_fault of rig_test.h has the same values). */
#define NX__FAULT_AT_SUBMIT 1
#define NX__FAULT_WHILE_RUNNING 2
#define NX__FAULT_AT_WAIT 4

/* What a device type does with memory. Each runs on the thread of the
   timeline that runs the job, returns 0 or a negative status (a failure
   loses the device), and is called only for memory it made or maps. */
typedef struct nx__backend {
  int (*alloc)(nx_device *d, nx__memory *m);
  void (*release)(nx__memory *m);
  int (*read)(nx_buffer *b, int64_t off, void *dst, int64_t n);
  int (*write)(nx_buffer *b, int64_t off, const void *src, int64_t n);
  int (*fill)(nx_buffer *b, int64_t off, int64_t n, uint8_t v);
  /* A copy between two buffers both mapped by one device, or NULL. */
  int (*copy)(nx_buffer *dst, int64_t doff, nx_buffer *src, int64_t soff, int64_t n);
  /* A mapping of host-addressed or same-platform memory m on d, or NULL. */
  void *(*map)(nx_device *d, nx__memory *m);
  void (*unmap)(nx_device *d, void *map);
  /* Whether the copy above also takes a source buffer of device b on a's
     timeline (CUDA peers), or NULL: only buffers of one device. */
  bool (*peer)(const nx_device *a, const nx_device *b);
} nx__backend;

struct nx_device {
  nx__device_type type;
  char name[32];
  char description[256];
  int platform; /* OpenCL: the platform (one context) it belongs to */
  const nx__backend *be;
  nx__timeline tl;
  atomic_bool lost;
  atomic_int faults; /* test devices: armed nx_fault bits */
  void *impl;        /* the backend's own state */
};

/* A memory's claim word: the claim count in the low bits, and flags. */
#define NX__DEAD ((uint64_t)1 << 62)
#define NX__EXCLUSIVE ((uint64_t)1 << 61)
#define NX__EXPORTED ((uint64_t)1 << 60)
#define NX__CLAIMS (((uint64_t)1 << 48) - 1)

struct nx__memory {
  nx_device *dev;
  nx_memory_kind kind;
  int64_t bytes;
  void *host;         /* the host address where the host addresses it */
  void *impl;         /* the backend's object (cl_mem, hidden storage) */
  /* Foreign storage (nx_buffer_wrap_host): its owner's, given back through
     foreign_release instead of the backend's release. */
  bool foreign;
  void (*foreign_release)(void *ctx);
  void *foreign_ctx;
  _Atomic uint64_t state;
  /* Why it is dead: set by the one thread that makes it dead, right after
     (free) or right before (consume, under its exclusive hold) NX__DEAD. */
  _Atomic(char *) reason;
  atomic_bool reason_owned;
  atomic_int handles; /* buffers over it */
  atomic_int jobs;    /* unfinished jobs that touch it */
  atomic_bool released, lost;
  /* The OpenCL buffers over a host-addressed memory's pages (opencl.c),
     each mapped for the host or not; map_mu guards them, and a job or a host
     access of the memory holds it while it uses the pages or the buffers. */
  pthread_mutex_t map_mu;
  _Atomic(void *) views;
  /* Order: the last write and, per timeline, the last read since. */
  pthread_mutex_t order_mu;
  nx__event last_write;
  uint64_t reads[NX__MAX_DEVICES];
};

struct nx_buffer {
  atomic_int refs;
  nx__memory *mem;
  nx_device *dev;
  nx_access access;
  void *map; /* the device's own view of the memory (a borrowed cl_mem) */
};

/* Jobs: work, a copy or a fill, with the events they wait for. */
typedef enum { NX__JOB_WORK, NX__JOB_COPY, NX__JOB_FILL, NX__JOB_HOOK } nx__job_kind;

struct nx__job {
  nx__job *next;
  uint64_t seq;
  nx__job_kind kind;
  int ndeps, nbuf, nwrites;
  nx__event deps[NX__MAX_DEVICES + 1];
  nx_buffer **bufs; /* retained; the first nwrites are written */
  int nmem;          /* the distinct memories of bufs, each counted once in its jobs */
  nx__memory *mems[2 * NX__MAX_DEVICES];
  nx_work_fn fn;
  void *ctx;
  int64_t doff, soff, bytes;
  uint8_t value;
  int (*hook)(nx_device *d, void *ctx); /* NX__JOB_HOOK: backend hooks and device kernels */
  void (*drop)(void *ctx);              /* called once the job settles, run or failed, where set */
};

/* A fallible step that the test variant can make fail (nx__inject_failures
   in rig_test.h): NX__INJECT() is true where the step must fail as if it had
   run out. Always false in the installed libraries. */
#ifdef NX_TESTING
bool nx__inject(void);
#define NX__INJECT() nx__inject()
#else
#define NX__INJECT() false
#endif

extern const nx__backend nx__host_backend, nx__test_backend, nx__opencl_backend, nx__cuda_backend;

/* Reads, writes, fills and copies of plain bytes (plain.c), for the host's
   and the test device's memory. */
int nx__plain_read(nx_buffer *b, int64_t off, void *dst, int64_t n);
int nx__plain_write(nx_buffer *b, int64_t off, const void *src, int64_t n);
int nx__plain_fill(nx_buffer *b, int64_t off, int64_t n, uint8_t v);
int nx__plain_copy(nx_buffer *dst, int64_t doff, nx_buffer *src, int64_t soff, int64_t n);

/* The host's access to memory that OpenCL buffers lie over (opencl.c):
   nx__host_begin takes m's mapping lock where OpenCL buffers lie over m
   (*held then true) and maps them for a host access of that kind, so that
   the host pages hold m's bits while the lock is held; nx__host_end lets the
   lock go, leaving them mapped (a device's command unmaps what it uses).
   nx__host_begin returns 0, or NX_EIO, holding nothing, where OpenCL fails
   to map. nx__views_to_host is the mapping, with the lock held. Without
   OpenCL buffers over m all three do nothing. */
bool nx__has_views(nx__memory *m);
int nx__host_begin(nx__memory *m, nx_access access, bool *held);
void nx__host_end(nx__memory *m, bool held);
int nx__views_to_host(nx__memory *m, nx_access access);

/* nx__rig_submit_hook(fn, d, reads, nr, writes, nw, hook, drop, ctx) is
   nx_rig_submit for work that can fail: hook(d, ctx) runs on d's timeline
   and a nonzero status from it loses d (the written memory with it), as a
   failed copy does; drop(ctx), where not NULL, runs once the job settles,
   whether hook ran or not, and also when the submission fails. Failures
   name fn. */
int nx__rig_submit_hook(const char *fn, nx_device *d, nx_buffer *const *reads, int nr, nx_buffer *const *writes,
                        int nw, int (*hook)(nx_device *d, void *ctx), void (*drop)(void *ctx), void *ctx);

/* The device table (rig.c). */
nx_device *nx__device_new(nx__device_type type, const nx__backend *be);
/* The OpenCL devices, appended with table_mu held (once, by rig.c). */
void nx__opencl_discover(void);
/* The CUDA devices, appended after OpenCL's the same way (cuda.c), and
   whether CUDA device d maps memory m (host-addressed, or a peer's). */
void nx__cuda_discover(void);
bool nx__cuda_can_map(const nx_device *d, const nx__memory *m);
/* The devices in the table now, discovering nothing: for the rig's own
   walks over the timelines a memory may have met, all of them already made. */
int nx__rig_known(nx_device **out, int cap);

/* Timelines (timeline.c). */
int nx__timeline_start(nx_device *d);
int nx__enqueue(nx_device *d, nx__job *job, const char *fn);
int nx__wait_event(nx__event e);
void nx__lose(nx_device *d);
bool nx__memory_lost(const nx__memory *m);

/* Memories (buffer.c): a new one of no storage yet, and a new handle on one. */
nx__memory *nx__memory_new(nx_device *d, nx_memory_kind kind, int64_t bytes);
void nx__memory_free(nx__memory *m); /* one of no storage, or whose storage went */
nx_buffer *nx__handle(nx__memory *m, nx_device *d, nx_access access, void *map);
void nx__memory_maybe_release(nx__memory *m);
const char *nx__memory_reason(nx__memory *m);
const char *nx__buffer_text(const nx_buffer *b, char *t, int cap);

#endif
