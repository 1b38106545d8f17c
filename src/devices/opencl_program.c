/* SPDX-License-Identifier: Apache-2.0 */
/* The device kernels' program on each OpenCL device: built once per device
   and process from nx_dtype.h and kernels.cl (embedded in the library at
   build time), and kept on disk as the device's binary so that a later
   process loads it instead of compiling. The cache file's name is a hash of
   the platform, the device, its driver version, the build options and the
   source, so a new driver or a changed source never meets an old binary. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opencl.h"
#include "../base/alloc.h"

#ifdef NX_HAVE_OPENCL
#include "nx_cl_source.h" /* nx__cl_source: nx_dtype.h then kernels.cl */

static atomic_int builds, loads, attempts;

void nx__opencl_program_stats(int *built, int *loaded) {
  *built = atomic_load(&builds);
  *loaded = atomic_load(&loads);
}

int nx__opencl_build_attempts(void) { return atomic_load(&attempts); }

/* A device whose compiler refused the kernels' source: the refusal is kept
   (without the name of the function that met it) so later calls answer it
   at once instead of compiling again. A compiler's verdict on one source
   does not change within a process; a failure for want of memory is not
   kept, since it may pass later. */
typedef struct refusal {
  int status;
  char why[600];
} refusal;

static struct {
  pthread_mutex_t mu;
  int n;
  nx_device *dev[NX__CL_MAX_DEVICES];
  nx__cl_device *state[NX__CL_MAX_DEVICES]; /* NULL where refused[i] holds the device's refusal */
  refusal refused[NX__CL_MAX_DEVICES];
} table = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}, {{0, ""}}};

#ifdef NX_TESTING
/* The test variant can make the next builds fail as a broken compiler
   would: an option no OpenCL compiler takes. */
static atomic_bool broken_build;
void nx__opencl_test_break_build(bool on) { atomic_store(&broken_build, on); }
#endif

static uint64_t fnv(uint64_t h, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
  return h;
}

static uint64_t fnv_info(uint64_t h, cl_device_id id, cl_device_info what) {
  char v[512] = "";
  clGetDeviceInfo(id, what, sizeof v - 1, v, NULL);
  return fnv(h, v, strlen(v) + 1);
}

/* The cache folder: NX_CACHE_DIR, else $XDG_CACHE_HOME/nx, else
   $HOME/.cache/nx; made if missing. False where there is none. */
static bool cache_dir(char *out, size_t cap) {
  const char *e = getenv("NX_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
  if (e && *e) snprintf(out, cap, "%s", e);
  else if (x && *x) snprintf(out, cap, "%s/nx", x);
  else if (h && *h) snprintf(out, cap, "%s/.cache/nx", h);
  else return false;
  /* mkdir -p */
  for (char *p = out + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      mkdir(out, 0755);
      *p = '/';
    }
  return mkdir(out, 0755) == 0 || errno == EEXIST;
}

static unsigned char *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char *buf = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    long len = ftell(f);
    if (len > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = nx__malloc((size_t)len)) && fread(buf, 1, (size_t)len, f) != (size_t)len) {
      nx__free(buf);
      buf = NULL;
    }
    *n = len > 0 ? (size_t)len : 0;
  }
  fclose(f);
  return buf;
}

/* Writes the program's binary to path through a temporary file renamed over
   it, so that a concurrent reader sees a whole file or none. */
static void write_binary(cl_program p, const char *path) {
  size_t n = 0;
  if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL) != CL_SUCCESS || n == 0) return;
  unsigned char *bin = nx__malloc(n);
  if (!bin) return;
  char tmp[1200];
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
  FILE *f = NULL;
  if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS && (f = fopen(tmp, "wb"))) {
    bool ok = fwrite(bin, 1, n, f) == n;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) remove(tmp);
  }
  nx__free(bin);
}

/* The host's default NaN where it is not x86-64's (kernels.cl). */
#if defined(__aarch64__)
#define NX__CL_OPTIONS "-cl-std=CL1.2 -DNX__DEFAULT_NAN=0x7FF8000000000000UL"
#else
#define NX__CL_OPTIONS "-cl-std=CL1.2"
#endif
/* The build options for s: a CPU device walks each work item's elements as
   one contiguous chunk (kernels.cl, NX__EACH); a device whose float32 keeps
   subnormals computes the 16-bit floats in float32 (nx__f32_exact); one
   whose float32 sqrt can be correctly rounded takes float32 sqrt in float32
   (nx__f32_sqrt). */
static void options_of(const nx__cl_device *s, char *out, size_t cap) {
  snprintf(out, cap, "%s%s%s%s", NX__CL_OPTIONS, s->cpu ? " -DNX__CHUNKED" : "", s->f32_denorms ? " -DNX__F32_DENORMS" : "",
           s->f32_sqrt ? " -cl-fp32-correctly-rounded-divide-sqrt -DNX__F32_SQRT" : "");
}

/* Builds the program for d: from the cached binary where one loads and
   builds, else from source (and then caches it). */
static int build(nx__cl_device *s, const char *fn, bool *refused) {
  char dir[1024], path[1100], options[256];
  options_of(s, options, sizeof options);
  const char *opts = options;
#ifdef NX_TESTING
  if (atomic_load(&broken_build)) opts = "-cl-std=CL1.2 -cl-nx-no-such-option";
#endif
  uint64_t h = 0xcbf29ce484222325ull;
  h = fnv_info(h, s->id, CL_DEVICE_NAME);
  h = fnv_info(h, s->id, CL_DEVICE_VENDOR);
  h = fnv_info(h, s->id, CL_DEVICE_VERSION);
  h = fnv_info(h, s->id, CL_DRIVER_VERSION);
  h = fnv(h, opts, strlen(opts) + 1);
  h = fnv(h, nx__cl_source, sizeof nx__cl_source);
  bool cached = cache_dir(dir, sizeof dir);
  if (cached) snprintf(path, sizeof path, "%s/opencl-%016llx.bin", dir, (unsigned long long)h);
  cl_int err = CL_SUCCESS;
  if (cached) {
    size_t n = 0;
    unsigned char *bin = read_file(path, &n);
    if (bin) {
      const unsigned char *b = bin;
      cl_int st;
      cl_program p = clCreateProgramWithBinary(s->ctx, 1, &s->id, &n, &b, &st, &err);
      nx__free(bin);
      if (p && err == CL_SUCCESS && st == CL_SUCCESS && clBuildProgram(p, 1, &s->id, opts, NULL, NULL) == CL_SUCCESS) {
        s->prog = p;
        atomic_fetch_add(&loads, 1);
        return 0;
      }
      if (p) clReleaseProgram(p); /* a stale or foreign file: build from source */
    }
  }
  const char *src = nx__cl_source;
  size_t len = sizeof nx__cl_source - 1;
  cl_program p = clCreateProgramWithSource(s->ctx, 1, &src, &len, &err);
  if (!p || err != CL_SUCCESS) return nx__fail(NX_EIO, "%s: %s could not take the device kernels' source (%d)", fn, s->name, (int)err);
  atomic_fetch_add(&attempts, 1);
  err = clBuildProgram(p, 1, &s->id, opts, NULL, NULL);
  if (err != CL_SUCCESS) {
    *refused = true;
    char log[512] = "";
    clGetProgramBuildInfo(p, s->id, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    clReleaseProgram(p);
    return nx__fail(NX_EIO, "%s: %s could not build the device kernels (%d): %s", fn, s->name, (int)err, log);
  }
  atomic_fetch_add(&builds, 1);
  s->prog = p;
  if (cached) write_binary(p, path);
  return 0;
}

static int setup(nx_device *d, nx__cl_device *s, const char *fn, bool *refused) {
  cl_command_queue q;
  if (!nx__opencl_objects(d, &s->ctx, &q, &s->id)) return nx__fail(NX_EINVAL, "%s: %s is not an OpenCL device", fn, nx_device_name(d));
  snprintf(s->name, sizeof s->name, "%s", nx_device_name(d));
  s->queue = q;
  cl_device_fp_config fp64 = 0, fp32 = 0;
  clGetDeviceInfo(s->id, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp32, &fp32, NULL);
  cl_bool little = CL_FALSE;
  clGetDeviceInfo(s->id, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
  clGetDeviceInfo(s->id, CL_DEVICE_ENDIAN_LITTLE, sizeof little, &little, NULL);
  cl_device_type type = 0;
  clGetDeviceInfo(s->id, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  s->fp64 = fp64 != 0;
  s->f32_denorms = (fp32 & CL_FP_DENORM) != 0;
  s->f32_sqrt = (fp32 & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  s->little = little == CL_TRUE;
  s->cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
  int st = build(s, fn, refused);
  if (st) return st;
  for (int k = 0; k < NX__K_KERNELS; k++) {
    cl_int err;
    s->kernel[k] = clCreateKernel(s->prog, nx__kernel_names[k], &err);
    if (err != CL_SUCCESS) return nx__fail(NX_EIO, "%s: %s has no kernel %s (%d)", fn, s->name, nx__kernel_names[k], (int)err);
  }
  return 0;
}

int nx__cl_device_of(nx_device *d, const char *fn, nx__cl_device **out) {
  pthread_mutex_lock(&table.mu);
  for (int i = 0; i < table.n; i++)
    if (table.dev[i] == d) {
      nx__cl_device *s = table.state[i];
      int st = s ? 0 : nx__fail(table.refused[i].status, "%s: %s", fn, table.refused[i].why);
      pthread_mutex_unlock(&table.mu);
      if (s) *out = s;
      return st;
    }
  int st = table.n < NX__CL_MAX_DEVICES ? 0 : nx__fail(NX_ENOMEM, "%s: too many OpenCL devices", fn);
  nx__cl_device *s = st ? NULL : nx__calloc(1, sizeof *s);
  if (!st && !s) st = nx__fail(NX_ENOMEM, "%s: no memory for the device kernels", fn);
  /* Built under the table's lock: once per device, whichever thread comes first. */
  bool refused = false;
  if (!st && (st = setup(d, s, fn, &refused)) != 0) {
    for (int k = 0; k < NX__K_KERNELS; k++)
      if (s->kernel[k]) clReleaseKernel(s->kernel[k]);
    if (s->prog) clReleaseProgram(s->prog);
    nx__free(s);
    if (refused) { /* kept: the message without "fn: " */
      const char *m = nx_error_message();
      size_t skip = strlen(fn) + 2;
      refusal *r = &table.refused[table.n];
      r->status = st;
      snprintf(r->why, sizeof r->why, "%s", strlen(m) >= skip ? m + skip : m);
      table.dev[table.n] = d;
      table.state[table.n++] = NULL;
    }
  }
  if (!st) {
    table.dev[table.n] = d;
    table.state[table.n++] = s;
    *out = s;
  }
  pthread_mutex_unlock(&table.mu);
  return st;
}

#else

void nx__opencl_program_stats(int *built, int *loaded) {
  *built = 0;
  *loaded = 0;
}

int nx__opencl_build_attempts(void) { return 0; }

#ifdef NX_TESTING
void nx__opencl_test_break_build(bool on) { (void)on; }
#endif

#endif
