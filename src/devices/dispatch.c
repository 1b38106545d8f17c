/* SPDX-License-Identifier: Apache-2.0 */
/* The device dispatch: where an operation runs, by its operands' devices,
   and what the device kernels (OpenCL's and CUDA's, one source) compute.
   They compute only what they compute bit for bit as the host does: cast, fill, copy, where, comparisons, and
   the elementwise operations whose every result is one rounding of an exact
   one (+ - x /, idiv, mod, min, max, the bitwise ones; neg, abs, sign,
   sqrt, recip, trunc, ceil, floor, round). The transcendental functions,
   pow and atan2, and complex division (the host's is the C runtime's, whose
   algorithm varies between runtimes) are declined: the host computes them
   where it addresses the operands, and elsewhere they fail. */
#include <stdio.h>

#include "../kernels/api.h"
#include "../kernels/ops.h"
#include "cuda.h"
#include "dispatch.h"
#include "opencl.h"

static const char *where_of(const nx_array *a) { return nx_device_name(nx_array_device(a)); }

static bool host_addresses_all(nx_array *const *ops, int n) {
  for (int i = 0; i < n; i++) {
    nx_buffer *b = nx_array_buffer(ops[i]);
    if (!nx_device_host_addresses(nx_buffer_device(b), nx_buffer_kind(b))) return false;
  }
  return true;
}

/* The host door's kernel where some operand is off the host: the door
   answers before it would run. */
static nx_answer never_runs(void *ctx, const nx_operand *ops, int nw, int nr) {
  (void)ctx, (void)ops, (void)nw, (void)nr;
  return NX_DECLINED;
}

/* Refuses operands on several devices, naming each with its device. */
static int mixed(const char *name, nx_array *const *ops, int n) {
  char msg[1024], t[160];
  size_t len = 0;
  msg[0] = 0;
  for (int i = 0; i < n && len < sizeof msg; i++)
    len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s on %s", i ? ", " : "", nx_array_describe(ops[i], t, sizeof t),
                            where_of(ops[i]));
  return nx__fail(NX_EINVAL, "%s: the operands are on different devices (%s); nx copies nothing between devices: "
                  "place them on one with nx_array_to_device", name, msg);
}

#if defined(NX_HAVE_OPENCL) || defined(NX_HAVE_CUDA)
/* A backend's device kernels: its name in messages, whether it computes in
   float64, its state for the device, its launch, and whether a written
   sub-byte operand's storage is whole 32-bit words. */
typedef struct backend {
  const char *kind;
  bool fp64;
  void *state;
  int (*launch)(const char *fn, void *s, int k, nx_array *const *ops, int nw, int nr, const nx__dk_arg *args,
                int nargs);
  bool (*words_whole)(nx_buffer *b);
} backend;

typedef struct job {
  const nx__devop *op;
  const backend *B;
  nx_array *const *ops;
  int nw, nr;
  nx_answer answer; /* the kernel's own answer, before any write */
  int status;
} job;

static bool same_shape(nx_array *const *ops, int n) {
  const nx_layout *l = nx_array_layout(ops[0]);
  for (int k = 1; k < n; k++) {
    const nx_layout *m = nx_array_layout(ops[k]);
    if (m->rank != l->rank) return false;
    for (int j = 0; j < l->rank; j++)
      if (m->extent[j] != l->extent[j]) return false;
  }
  return true;
}

static bool is_float(nx_dtype dt) {
  int k = nx_dtype_kind_of(dt);
  return k == NX_KIND_FLOAT || k == NX_KIND_COMPLEX;
}

/* Whether the device kernel of op computes dtype dt bit for bit as the host. */
static bool computes(const nx__devop *op, bool fp64, nx_dtype dt) {
  bool fp = is_float(dt), cx = nx_dtype_kind_of(dt) == NX_KIND_COMPLEX;
  switch (op->kind) {
  case NX__DK_BINARY:
    if (op->op == NX__POW || op->op == NX__ATAN2 || (cx && op->op == NX__FDIV)) return false;
    return nx__bop_computes((nx__bop)op->op, dt) && (fp64 || !fp);
  case NX__DK_UNARY:
    if (op->op != NX__NEG && op->op != NX__ABS && op->op != NX__SIGN && op->op != NX__SQRT && op->op != NX__RECIP &&
        (op->op < NX__TRUNC || op->op > NX__ROUND))
      return false;
    if (cx && op->op != NX__NEG) return false;
    return nx__uop_computes((nx__uop)op->op, dt) && (fp64 || !fp || op->op == NX__NEG || op->op == NX__ABS);
  case NX__DK_COMPARE: return (!cx || op->op <= 1) && (fp64 || !fp);
  default: return true; /* cast, fill, copy, where: bits only */
  }
}

/* A written sub-byte operand is stored through the 32-bit words of its
   buffer: its storage must hold whole words. */
static bool words_whole(const backend *B, nx_array *z) {
  return nx_dtype_bits_of(nx_array_dtype(z)) >= 8 || B->words_whole(nx_array_buffer(z));
}

/* Inside the door: the kernel's checks in the host kernels' order, then the
   launch. */
static int submit(void *vc) {
  job *J = vc;
  const nx__devop *op = J->op;
  nx_array *const *o = J->ops;
  int n = J->nw + J->nr;
  nx_dtype z = nx_array_dtype(o[0]), x = n > 1 ? nx_array_dtype(o[1]) : z;
  nx__dk_arg a[3] = {{0}};
  int k = 0, na = 0;
  J->answer = NX_DONE;
  switch (op->kind) {
  case NX__DK_CAST: k = NX__K_CAST; a[0].i = z; a[1].i = x; na = 2; break;
  case NX__DK_FILL:
    k = NX__K_FILL;
    a[0].i = nx_dtype_bits_of(z);
    a[1] = (nx__dk_arg){true, 0, op->lo};
    a[2] = (nx__dk_arg){true, 0, op->hi};
    na = 3;
    break;
  case NX__DK_COPY: k = NX__K_COPY; a[0].i = nx_dtype_bits_of(z); na = 1; if (x != z) J->answer = NX_WRONG_DTYPE; break;
  case NX__DK_BINARY: case NX__DK_UNARY:
    k = op->kind == NX__DK_BINARY ? NX__K_BINARY : NX__K_UNARY;
    for (int i = 1; i < n; i++)
      if (nx_array_dtype(o[i]) != z) J->answer = NX_WRONG_DTYPE;
    a[0].i = op->op;
    a[1].i = z;
    na = 2;
    break;
  case NX__DK_COMPARE:
    k = NX__K_COMPARE;
    if ((z != NX_BOOL && z != NX_BIT) || nx_array_dtype(o[2]) != x) J->answer = NX_WRONG_DTYPE;
    a[0].i = op->op;
    a[1].i = x;
    a[2].i = z;
    na = 3;
    break;
  case NX__DK_WHERE:
    k = NX__K_WHERE;
    if ((x != NX_BOOL && x != NX_BIT) || nx_array_dtype(o[2]) != z || nx_array_dtype(o[3]) != z) J->answer = NX_WRONG_DTYPE;
    a[0].i = nx_dtype_bits_of(z);
    a[1].i = nx_dtype_bits_of(x);
    na = 2;
    break;
  }
  if (J->answer == NX_DONE && !same_shape(o, n)) J->answer = NX_SHAPE_MISMATCH;
  if (J->answer == NX_DONE && (!computes(op, J->B->fp64, op->kind == NX__DK_COMPARE ? x : z) || !words_whole(J->B, o[0])))
    J->answer = NX_DECLINED;
  if (J->answer != NX_DONE) return 0;
  return J->B->launch(op->name, J->B->state, k, o, J->nw, J->nr, a, na);
}

/* The operation on device d through the door, by backend B. */
static int on_device(const nx__devop *op, nx_device *d, const backend *B, nx_array *const *ops, int nw, int nr) {
  int n = nw + nr;
  job J = {op, B, ops, nw, nr, NX_DONE, 0};
  int a = nx_door(ops, nw, ops + nw, nr, submit, &J);
  if (a == NX_DONE) a = J.answer;
  if (a == NX_DECLINED && host_addresses_all(ops, n)) return NX_DECLINED;
  char kernel[64];
  snprintf(kernel, sizeof kernel, "the %s kernel of %s", B->kind, nx_device_name(d));
  nx_dtype dt = nx_array_dtype(ops[op->kind == NX__DK_COMPARE && n > 1 ? 1 : 0]);
  return nx__finish(op->name, kernel, a, ops + op->made, n - op->made, dt);
}
#endif

#ifdef NX_HAVE_OPENCL
static bool cl_words_whole(nx_buffer *b) {
  size_t size = 0;
  clGetMemObjectInfo(nx__opencl_mem(b), CL_MEM_SIZE, sizeof size, &size, NULL);
  return size % 4 == 0;
}

static bool is_opencl(nx_device *d) {
  cl_context c;
  cl_command_queue q;
  cl_device_id id;
  return nx__opencl_objects(d, &c, &q, &id);
}

static int on_opencl(const nx__devop *op, nx_device *d, nx_array *const *ops, int nw, int nr) {
  nx__cl_device *s;
  int st = nx__cl_device_of(d, op->name, &s);
  if (st) return st;
  if (!s->little) {
    if (host_addresses_all(ops, nw + nr)) return NX_DECLINED;
    return nx__fail(NX_EINVAL, "%s: the device kernels of %s need a little-endian device", op->name, nx_device_name(d));
  }
  backend B = {"OpenCL", s->fp64, s, nx__cl_launch, cl_words_whole};
  return on_device(op, d, &B, ops, nw, nr);
}
#else
static bool is_opencl(nx_device *d) {
  (void)d;
  return false;
}
#endif

#ifdef NX_HAVE_CUDA
/* The 32-bit words the atomic stores update lie inside the storage where
   it starts on a word and holds whole words. */
static bool cu_words_whole(nx_buffer *b) {
  return nx__cuda_ptr(b) % 4 == 0 && nx__cuda_storage_bytes(b) % 4 == 0;
}

static int on_cuda(const nx__devop *op, nx_device *d, nx_array *const *ops, int nw, int nr) {
  nx__cu_device *s = NULL;
  /* A lost device's context loads nothing: the door answers NX_ELOST. */
  int st = nx_device_lost(d) ? 0 : nx__cu_device_of(d, op->name, &s);
  if (st) return st;
  backend B = {"CUDA", true, s, nx__cu_launch, cu_words_whole};
  return on_device(op, d, &B, ops, nw, nr);
}
#endif

int nx__device_dispatch(const nx__devop *op, nx_array *const *ops, int nw, int nr) {
  int n = nw + nr;
  for (int i = 0; i < n; i++)
    if (!ops[i]) return NX_DECLINED; /* the host path names it */
  nx_device *d = nx_array_device(ops[0]);
  bool one = true;
  for (int i = 1; i < n; i++) one &= nx_array_device(ops[i]) == d;
  if (!one) {
    /* The host door answers mixes without a device that has kernels
       (Off_host in its precedence) and computes on memory it addresses. */
    bool kernels = false;
    for (int i = 0; i < n; i++) {
      nx_device *e = nx_array_device(ops[i]);
      kernels |= is_opencl(e) || nx__cuda_device_of(e) != NULL;
    }
    if (host_addresses_all(ops, n) || !kernels) return NX_DECLINED;
    /* What claiming answers (a dead operand, one held exclusive, a written
       one that is Read) comes first, as the door ranks it; the host door
       claims them and answers Off_host otherwise, before any kernel runs. */
    int a = nx_door_host(ops, nw, ops + nw, nr, never_runs, NULL);
    if (a == NX_DEAD_BUFFER || a == NX_HELD_EXCLUSIVE || a == NX_READ_ONLY)
      return nx_array_refused(op->name, a, ops + op->made, n - op->made);
    if (a < 0) return nx__fail_as(op->name, a);
    return mixed(op->name, ops + op->made, n - op->made);
  }
#ifdef NX_HAVE_OPENCL
  if (is_opencl(d)) return on_opencl(op, d, ops, nw, nr);
#endif
#ifdef NX_HAVE_CUDA
  if (nx__cuda_device_of(d)) return on_cuda(op, d, ops, nw, nr);
#endif
  return NX_DECLINED; /* the host, test devices */
}
