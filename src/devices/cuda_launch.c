/* SPDX-License-Identifier: Apache-2.0 */
/* One CUDA device kernel over a plan (nx__dk_plan), queued on the device's
   timeline. The timeline's thread copies the plan to the device, launches
   the kernel on the device's stream and waits for the job's event; a failed
   launch or a kernel that faults (a sticky error) fails the job, which
   loses the device. */
#include "cuda.h"
#ifdef NX_TESTING
#include "../rig/rig_test.h"
#endif

#ifdef NX_HAVE_CUDA
#include "../rig/rig_internal.h"

static int run(nx_device *d, void *vc) {
  (void)d;
  nx__dk_launch *L = vc;
  nx__cu_device *s = L->s;
  const nx__cuda_api *cu = nx__cuda_api_get();
  if (nx__cuda_enter(s->c)) return NX_EIO;
  CUdeviceptr ptrs[NX__OPS];
  int32_t i32[6];
  uint64_t u64[6];
  void *params[NX__OPS + 1 + 6];
  int p = 0;
  for (int i = 0; i < L->nbuf; i++) {
    ptrs[i] = nx__cuda_ptr(L->bufs[i]);
    params[p++] = &ptrs[i];
  }
  params[p++] = &s->plan;
  for (int i = 0; i < L->nargs; i++) {
    i32[i] = L->args[i].i;
    u64[i] = L->args[i].u;
    params[p++] = L->args[i].wide ? (void *)&u64[i] : (void *)&i32[i];
  }
  int64_t need = (L->count + NX__CU_THREADS - 1) / NX__CU_THREADS;
  unsigned blocks = need < (int64_t)s->blocks ? (unsigned)need : s->blocks;
  CUresult e = cu->memcpy_htod_async(s->plan, L->plan, L->nplan * sizeof(int64_t), s->c->stream);
  if (!e) e = cu->launch_kernel(s->kernel[L->k], blocks, 1, 1, NX__CU_THREADS, 1, 1, 0, s->c->stream, params, NULL);
  int st = nx__cuda_finish(s->c, e);
  nx__cuda_leave();
  return st;
}

int nx__cu_launch(const char *fn, void *s, int k, nx_array *const *ops, int nw, int nr, const nx__dk_arg *args,
                  int nargs) {
  return nx__dk_submit(fn, s, k, ops, nw, nr, args, nargs, run);
}

#ifdef NX_TESTING
/* The fault: nx__fault storing through an address below every
   allocation, which the driver reports as a sticky error. */
static int fault(nx_device *d, void *vc) {
  (void)d;
  nx__cu_device *s = vc;
  const nx__cuda_api *cu = nx__cuda_api_get();
  if (nx__cuda_enter(s->c)) return NX_EIO;
  uint64_t address = 16;
  void *params[] = {&address};
  CUresult e = cu->launch_kernel(s->fault, 1, 1, 1, 1, 1, 1, 0, s->c->stream, params, NULL);
  int st = nx__cuda_finish(s->c, e);
  nx__cuda_leave();
  return st;
}

int nx__cuda_fault(nx_device *d, nx_buffer *written) {
  nx__cu_device *s;
  int st = nx__cu_device_of(d, "nx__cuda_fault", &s);
  if (st) return st;
  return nx__rig_submit_hook("nx__cuda_fault", d, NULL, 0, written ? &written : NULL, written ? 1 : 0, fault, NULL, s);
}
#endif

#elif defined(NX_TESTING)
int nx__cuda_fault(nx_device *d, nx_buffer *written) {
  (void)d;
  (void)written;
  return nx__fail(NX_EINVAL, "nx__cuda_fault: built without CUDA");
}
#endif
