/* SPDX-License-Identifier: Apache-2.0 */
/* The device table: the host, the OpenCL devices, the CUDA devices, and the
   test devices made since. Devices are never freed. The host is made at the first use of the
   rig; OpenCL and CUDA are discovered only when a caller asks for the device list or a
   device by name (or makes a test device, so that those devices keep their
   place after the host): discovery loads the platforms' drivers, which costs
   tens of milliseconds and tens of megabytes, and host-only work (reading a
   file into host memory) needs none of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig_internal.h"
#include "../base/alloc.h"
#ifdef NX_TESTING
#include "rig_test.h"
#endif

static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;
static nx_device *table[NX__MAX_DEVICES];
/* Devices are appended under table_mu and never removed: a reader that loads
   count (acquire) sees every slot below it filled, without the lock. */
static atomic_int count;
#ifdef NX_TESTING
static int tests; /* test devices made */
#endif
static pthread_once_t host_once = PTHREAD_ONCE_INIT, opencl_once = PTHREAD_ONCE_INIT;

/* Called with table_mu held, or from host_once's routine. */
nx_device *nx__device_new(nx__device_type type, const nx__backend *be) {
  int n = atomic_load_explicit(&count, memory_order_relaxed);
  if (n == NX__MAX_DEVICES) return NULL;
  nx_device *d = NX__INJECT() ? NULL : nx__calloc(1, sizeof *d);
  if (!d) return NULL;
  d->type = type;
  d->be = be;
  d->tl.index = n;
  d->tl.dev = d;
  atomic_init(&d->lost, false);
  atomic_init(&d->faults, 0);
  if (nx__timeline_start(d)) {
    nx__free(d);
    return NULL;
  }
  table[n] = d;
  atomic_store_explicit(&count, n + 1, memory_order_release);
  return d;
}

/* Without the host's device (its timeline could not start) there is no
   device at all: the host is always table[0] where there is one. */
static void host_init(void) {
  nx_device *h = nx__device_new(NX__HOST, &nx__host_backend);
  if (!h) return;
  snprintf(h->name, sizeof h->name, "host");
  snprintf(h->description, sizeof h->description, "host");
}

static void opencl_init(void) {
  pthread_once(&host_once, host_init);
  /* Without the host there is no device at all, OpenCL's included. */
  if (!atomic_load_explicit(&count, memory_order_acquire)) return;
  pthread_mutex_lock(&table_mu);
  nx__opencl_discover();
  nx__cuda_discover();
  pthread_mutex_unlock(&table_mu);
}

/* Every device: the host first, then OpenCL's, CUDA's, the test devices. */
static void init(void) {
  pthread_once(&host_once, host_init);
  pthread_once(&opencl_once, opencl_init);
}

nx_device *nx_rig_host(void) {
  pthread_once(&host_once, host_init);
  return atomic_load_explicit(&count, memory_order_acquire) ? table[0] : NULL;
}

/* The devices made so far, discovering nothing: the rig's own walks. */
int nx__rig_known(nx_device **out, int cap) {
  int n = atomic_load_explicit(&count, memory_order_acquire);
  for (int i = 0; i < n && i < cap; i++) out[i] = table[i];
  return n;
}

int nx_rig_devices(nx_device **out, int cap) {
  if (cap < 0 || (cap > 0 && !out))
    return nx__fail(NX_EINVAL, "nx_rig_devices: %s", cap < 0 ? "cap is negative" : "out is NULL with cap > 0");
  init();
  return nx__rig_known(out, cap);
}

int nx_rig_find(const char *name, nx_device **d) {
  init();
  if (name == NULL || d == NULL) return nx__fail(NX_EINVAL, "nx_rig_find: %s is NULL", name ? "the result d" : "the name");
  pthread_mutex_lock(&table_mu);
  nx_device *found = NULL;
  for (int i = 0; i < atomic_load(&count) && !found; i++)
    if (strcmp(table[i]->name, name) == 0) found = table[i];
  pthread_mutex_unlock(&table_mu);
#ifndef NX_HAVE_OPENCL
  if (!found && strncmp(name, "opencl:", 7) == 0)
    return nx__fail(NX_EINVAL, "nx_rig_find: no device is named \"%.64s\": this nx was built without OpenCL", name);
#endif
  if (!found) return nx__fail(NX_EINVAL, "nx_rig_find: no device is named \"%.64s\"", name);
  *d = found;
  return 0;
}

#ifdef NX_TESTING
int nx_rig_test_device(nx_device **d) {
  if (!d) return nx__fail(NX_EINVAL, "nx_rig_test_device: the result is NULL");
  init();
  pthread_mutex_lock(&table_mu);
  bool room = tests < NX__MAX_TEST_DEVICES;
  nx_device *t = room ? nx__device_new(NX__TEST, &nx__test_backend) : NULL;
  if (t) {
    snprintf(t->name, sizeof t->name, "test:%d", tests++);
    snprintf(t->description, sizeof t->description, "test device");
  }
  pthread_mutex_unlock(&table_mu);
  if (!room) return nx__fail(NX_EINVAL, "nx_rig_test_device: no more test devices (at most %d)", NX__MAX_TEST_DEVICES);
  if (!t) return nx__fail(NX_ENOMEM, "nx_rig_test_device: the device's timeline could not start");
  *d = t;
  return 0;
}

int nx_test_device_fail(nx_device *d, int faults) {
  if (d == NULL || d->type != NX__TEST)
    return nx__fail(NX_EINVAL, "nx_test_device_fail: %s is not a test device", d ? d->name : "NULL");
  atomic_fetch_or(&d->faults, faults);
  return 0;
}
#endif

const char *nx_device_name(const nx_device *d) { return d ? d->name : "NULL"; }
const char *nx_device_description(const nx_device *d) { return d ? d->description : "NULL"; }
bool nx_device_lost(const nx_device *d) {
  return d ? atomic_load(&d->lost) : (nx__fail(NX_EINVAL, "nx_device_lost: the device is NULL"), false);
}

bool nx_device_has_memory(const nx_device *d, nx_memory_kind kind) {
  if (!d) return nx__fail(NX_EINVAL, "nx_device_has_memory: the device is NULL"), false;
  switch (d->type) {
  case NX__HOST: return kind == NX_MEMORY_DEVICE || kind == NX_MEMORY_HOST;
  case NX__OPENCL: return kind == NX_MEMORY_DEVICE || kind == NX_MEMORY_HOST || kind == NX_MEMORY_IO;
  case NX__CUDA: return kind == NX_MEMORY_DEVICE || kind == NX_MEMORY_HOST;
  case NX__TEST: return kind == NX_MEMORY_DEVICE;
  }
  return false;
}

bool nx_device_host_addresses(const nx_device *d, nx_memory_kind kind) {
  if (!d) return nx__fail(NX_EINVAL, "nx_device_host_addresses: the device is NULL"), false;
  if (!nx_device_has_memory(d, kind)) return false;
  return d->type == NX__HOST || kind != NX_MEMORY_DEVICE;
}

bool nx_device_can_map(const nx_device *d, const nx_buffer *b) {
  if (!d || !b) return nx__fail(NX_EINVAL, "nx_device_can_map: %s is NULL", d ? "the buffer" : "the device"), false;
  const nx__memory *m = b->mem;
  if (m->dev == d) return true;
  switch (d->type) {
  case NX__HOST: return m->host != NULL;
  case NX__OPENCL: return m->host != NULL || (m->dev->type == NX__OPENCL && m->dev->platform == d->platform);
  case NX__CUDA: return nx__cuda_can_map(d, m);
  case NX__TEST: return false;
  }
  return false;
}
