/* SPDX-License-Identifier: Apache-2.0 */
/* nx_dtype.h as OpenCL C, run on every OpenCL device found (PoCL's CPU
   device in CI): the device stores and loads exactly the bits the host does.

   The program is built at run time from the header's text (read from
   NX_DTYPE_H_PATH, so the test sees the header as it is now) followed by the
   kernels below, with -Werror. Every comparison is bit for bit against the
   same functions of nx_dtype.h compiled for the host, and for the generic
   store and load also against libnx's nx_dtype_store_bits and
   nx_dtype_load_bits:
   (a) every code of every format of up to 16 bits (all 65536 of float16,
       bfloat16, int16 and uint16, all 256 of the 8-bit formats, all 16 of the
       4-bit ones, both of bit), exact and with garbage above the element's
       width: loaded with nx_dtype_load_f64bits, and with the float32 loads
       for the float formats narrower than float32, then stored back from the
       loaded bits with nx_dtype_store_f64bits and the direct float32 stores;
       where the device has fp64, also nx_dtype_load_double and
       nx_dtype_store_double;
   (b) 10^5 float64 bit patterns (special values and a fixed-seed random mix)
       stored into every dtype with nx_dtype_store_f64bits and, with fp64,
       nx_dtype_store_double; and 10^5 random element bit patterns of each
       format wider than 16 bits loaded. Values travel as ulong bits, never as
       doubles, so no conversion happens on the way;
   (c) 10^5 float32 bit patterns stored directly into each float format
       narrower than float32 (nx_store_*_f32);
   (d) nx_subbyte_put and nx_subbyte_get on a global buffer, 1, 2 and 4 bits:
       a serial sequence of stores, stores by byte in parallel, and every get;
   and the facts (nx_dtype_*_of) for the codes -2 .. 22.
   Each device runs it all in up to three builds: its default OpenCL C; with
   cl_khr_fp64 undefined before the header, as on a device without fp64 (no
   double functions then, the float64-bits ones still); and, on an OpenCL 3.0
   device, -cl-std=CL3.0. The output names each device and whether fp64 was
   used. With no OpenCL platform or device the test fails: CI must have one. */
#define CL_TARGET_OPENCL_VERSION 120
#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../check.h"
#include "../common.h"
#include "nx_dtype.h"

#ifndef NX_DTYPE_H_PATH
#error "NX_DTYPE_H_PATH: the path of nx_dtype.h, for the device's compiler"
#endif

/* ---- The kernels ---------------------------------------------------------- */

static const char kernel_src[] =
    "\n#line 1 \"test_opencl_dtype.c kernels\"\n"
    "kernel void k_flags(global int *o) {\n"
    "#if defined(NX_HAS_DOUBLE)\n"
    "  o[0] = 1;\n"
    "#else\n"
    "  o[0] = 0;\n"
    "#endif\n"
    "  o[1] = NX_DTYPE_COUNT;\n"
    "}\n"
    "kernel void k_facts(global int *o, global ulong *m) {\n"
    "  int i = (int)get_global_id(0), c = i - 2;\n"
    "  o[7 * i + 0] = nx_dtype_bits_of(c);\n"
    "  o[7 * i + 1] = nx_dtype_kind_of(c);\n"
    "  o[7 * i + 2] = nx_dtype_exponent_bits_of(c);\n"
    "  o[7 * i + 3] = nx_dtype_fraction_bits_of(c);\n"
    "  o[7 * i + 4] = nx_dtype_has_infinities(c);\n"
    "  o[7 * i + 5] = nx_dtype_has_nans(c);\n"
    "  o[7 * i + 6] = nx_dtype_saturation_of(c);\n"
    "  m[i] = nx_dtype_max_finite_bits_of(c);\n"
    "}\n"
    "kernel void k_store_f64bits(int code, global const ulong *in, global ulong *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = nx_dtype_store_f64bits(code, in[i]);\n"
    "}\n"
    "kernel void k_load_f64bits(int code, global const ulong *in, global ulong *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = nx_dtype_load_f64bits(code, in[i]);\n"
    "}\n"
    "kernel void k_store_f32(int code, global const ulong *in, global ulong *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  uint u = (uint)in[i];\n"
    "  ulong r = 0;\n"
    "  switch (code) {\n"
    "  case NX_FLOAT16: r = nx_store_float16_f32(u); break;\n"
    "  case NX_BFLOAT16: r = nx_store_bfloat16_f32(u); break;\n"
    "  case NX_FLOAT8_E4M3FN: r = nx_store_float8_e4m3fn_f32(u); break;\n"
    "  case NX_FLOAT8_E5M2: r = nx_store_float8_e5m2_f32(u); break;\n"
    "  case NX_FLOAT4_E2M1FN: r = nx_store_float4_e2m1fn_f32(u); break;\n"
    "  }\n"
    "  out[i] = r;\n"
    "}\n"
    "kernel void k_load_f32(int code, global const ulong *in, global ulong *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  ulong b = in[i];\n"
    "  uint r = 0;\n"
    "  switch (code) {\n"
    "  case NX_FLOAT16: r = nx_load_float16_f32((ushort)b); break;\n"
    "  case NX_BFLOAT16: r = nx_load_bfloat16_f32((ushort)b); break;\n"
    "  case NX_FLOAT8_E4M3FN: r = nx_load_float8_e4m3fn_f32((uchar)b); break;\n"
    "  case NX_FLOAT8_E5M2: r = nx_load_float8_e5m2_f32((uchar)b); break;\n"
    "  case NX_FLOAT4_E2M1FN: r = nx_load_float4_e2m1fn_f32((uchar)b); break;\n"
    "  }\n"
    "  out[i] = r;\n"
    "}\n"
    "#if defined(NX_HAS_DOUBLE)\n"
    "kernel void k_store_double(int code, global const ulong *in, global ulong *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = nx_dtype_store_double(code, as_double(in[i]));\n"
    "}\n"
    "kernel void k_load_double(int code, global const ulong *in, global ulong *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = as_ulong(nx_dtype_load_double(code, in[i]));\n"
    "}\n"
    "#endif\n"
    /* One work-item: a sequence of stores whose bytes overlap. */
    "kernel void k_subbyte_serial(int bits, int n, global const long *pos, global const uchar *val,\n"
    "                             global uchar *buf) {\n"
    "  if (get_global_id(0) != 0) return;\n"
    "  for (int k = 0; k < n; k++) nx_subbyte_put(buf, pos[k], bits, val[k]);\n"
    "}\n"
    /* One work-item per byte: its elements in a scrambled order. */
    "kernel void k_subbyte_bytes(int bits, global const uchar *val, global uchar *buf) {\n"
    "  long byte = (long)get_global_id(0);\n"
    "  int per = 8 / bits;\n"
    "  for (int j = 0; j < per; j++) {\n"
    "    long p = byte * per + (j * 5 + 3) % per;\n"
    "    nx_subbyte_put(buf, p, bits, val[p]);\n"
    "  }\n"
    "}\n"
    "kernel void k_subbyte_get(int bits, global const uchar *buf, global uchar *out) {\n"
    "  long p = (long)get_global_id(0);\n"
    "  out[p] = nx_subbyte_get(buf, p, bits);\n"
    "}\n";

/* The host's twins of k_store_f32 and k_load_f32. */
static uint64_t host_store_f32(int code, uint32_t u) {
  switch (code) {
  case NX_FLOAT16: return nx_store_float16_f32(u);
  case NX_BFLOAT16: return nx_store_bfloat16_f32(u);
  case NX_FLOAT8_E4M3FN: return nx_store_float8_e4m3fn_f32(u);
  case NX_FLOAT8_E5M2: return nx_store_float8_e5m2_f32(u);
  case NX_FLOAT4_E2M1FN: return nx_store_float4_e2m1fn_f32(u);
  }
  return 0;
}

static uint32_t host_load_f32(int code, uint64_t b) {
  switch (code) {
  case NX_FLOAT16: return nx_load_float16_f32((nx_u16)b);
  case NX_BFLOAT16: return nx_load_bfloat16_f32((nx_u16)b);
  case NX_FLOAT8_E4M3FN: return nx_load_float8_e4m3fn_f32((nx_u8)b);
  case NX_FLOAT8_E5M2: return nx_load_float8_e5m2_f32((nx_u8)b);
  case NX_FLOAT4_E2M1FN: return nx_load_float4_e2m1fn_f32((nx_u8)b);
  }
  return 0;
}

static const int narrow_floats[] = {NX_FLOAT16, NX_BFLOAT16, NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2, NX_FLOAT4_E2M1FN};
#define N_NARROW ((int)(sizeof narrow_floats / sizeof narrow_floats[0]))

static int is_narrow_float(int code) {
  for (int i = 0; i < N_NARROW; i++)
    if (narrow_floats[i] == code) return 1;
  return 0;
}

/* ---- Inputs ----------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t next_random(void) { /* splitmix64 */
  return splitmix64_next(&rng_state);
}

static const uint64_t f64_specials[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
    0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF0000000000001ull, 0x7FF4000000000000ull,
    0xFFF0000000000001ull, 0x7FFFFFFFFFFFFFFFull, 0x7FF0040000000000ull, 0x0000000000000001ull,
    0x800FFFFFFFFFFFFFull, 0x0010000000000000ull, 0x7FEFFFFFFFFFFFFFull, 0x3FF0000000000000ull,
    0xBFF0000000000000ull, 0x3FE0000000000000ull, 0x3FF8000000000000ull, 0x4004000000000000ull,
    0xBFE0000000000000ull, 0x40EFFC0000000000ull, 0x40EFFE0000000000ull, 0x40EFFDFFFFFFFFFFull,
    0x407C000000000000ull, 0x407D000000000000ull, 0x407E000000000000ull, 0x4018000000000000ull,
    0x401A000000000000ull, 0x401C000000000000ull, 0x43E0000000000000ull, 0xC3E0000000000000ull,
    0x43F0000000000000ull, 0x43DFFFFFFFFFFFFFull, 0x43EFFFFFFFFFFFFFull, 0xC3E0000000000001ull,
    0x41DFFFFFFFC00000ull, 0x41E0000000000000ull, 0xC1E0000000000000ull, 0x41EFFFFFFFE00000ull,
    0x3E70000000000000ull, 0x3E60000000000000ull, 0x3E60000000000001ull, 0x36A0000000000000ull,
    0x3690000000000000ull, 0x47EFFFFFE0000000ull, 0x47EFFFFFF0000000ull, 0x3810000000000000ull,
};

/* n float64 bit patterns: the specials, then a mix of any bits (NaNs, huge
   and tiny magnitudes), magnitudes from 2^-152 to 2^72, short significands
   (exact values and ties), integers to 2^66 and NaN payloads. */
static void fill_f64(uint64_t *x, size_t n) {
  size_t ns = sizeof f64_specials / sizeof f64_specials[0];
  for (size_t i = 0; i < n; i++) {
    uint64_t r = next_random(), sign = r & 0x8000000000000000ull;
    uint64_t e = 1023 - 152 + next_random() % 225, f = next_random() & 0xFFFFFFFFFFFFFull;
    int k = 1 + (int)(next_random() % 12);
    if (i < ns) x[i] = f64_specials[i];
    else if (i % 4 == 0) x[i] = r;
    else if (i % 4 == 1) x[i] = sign | (e << 52) | f;
    else if (i % 4 == 2) x[i] = sign | (e << 52) | (f >> (52 - k) << (52 - k));
    else if (r & 1) x[i] = sign | 0x7FF0000000000000ull | f | 1;
    else x[i] = sign | ((1023 + next_random() % 66) << 52) | f;
  }
}

/* n float32 bit patterns, in the low bits: the 64 patterns i << 25 | i
   (zeros, subnormals, infinities, NaNs), then any bits, magnitudes from
   2^-40 to 2^20 and short significands. */
static void fill_f32(uint64_t *x, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint32_t r = (uint32_t)next_random(), sign = r & 0x80000000u;
    uint32_t e = 127 - 40 + (uint32_t)(next_random() % 61), f = (uint32_t)next_random() & 0x7FFFFFu;
    int k = 1 + (int)(next_random() % 12);
    if (i < 64) x[i] = (uint32_t)i << 25 | (uint32_t)i;
    else if (i % 3 == 0) x[i] = r;
    else if (i % 3 == 1) x[i] = sign | e << 23 | f;
    else x[i] = sign | e << 23 | (f >> (23 - k) << (23 - k));
  }
}

static uint64_t f64_bits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static double f64_of(uint64_t u) {
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

/* ---- OpenCL plumbing -------------------------------------------------------- */

#define CL_TRY(expr)                                                                       \
  do {                                                                                     \
    cl_int err_ = (expr);                                                                  \
    if (err_ != CL_SUCCESS) {                                                              \
      fprintf(stderr, "%s:%d: %s: OpenCL error %d\n", __FILE__, __LINE__, #expr, (int)err_); \
      return -1;                                                                           \
    }                                                                                      \
  } while (0)

typedef struct dev {
  cl_device_id id;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  int fp64; /* the program has NX_HAS_DOUBLE */
} dev;

/* A buffer of `size` bytes, with `host`'s bytes if not NULL; NULL on failure. */
static cl_mem mem_new(dev *d, size_t size, const void *host) {
  cl_int err;
  cl_mem m = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), size, (void *)host, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clCreateBuffer(%zu bytes): OpenCL error %d\n", size, (int)err);
    return NULL;
  }
  return m;
}

static int mem_read(dev *d, cl_mem m, size_t size, void *host) {
  CL_TRY(clEnqueueReadBuffer(d->q, m, CL_TRUE, 0, size, host, 0, NULL, NULL));
  return 0;
}

/* Runs kernel `name` over n work-items with the arguments given as
   (size, pointer) pairs: a cl_mem's pointer is the address of the cl_mem. */
static int launch(dev *d, const char *name, size_t n, int nargs, ...) {
  cl_int err;
  cl_kernel k = clCreateKernel(d->prog, name, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clCreateKernel(%s): OpenCL error %d\n", name, (int)err);
    return -1;
  }
  va_list ap;
  va_start(ap, nargs);
  for (int i = 0; i < nargs && err == CL_SUCCESS; i++) {
    size_t size = va_arg(ap, size_t);
    const void *p = va_arg(ap, const void *);
    err = clSetKernelArg(k, (cl_uint)i, size, p);
  }
  va_end(ap);
  if (err == CL_SUCCESS) err = clEnqueueNDRangeKernel(d->q, k, 1, NULL, &n, NULL, 0, NULL, NULL);
  if (err == CL_SUCCESS) err = clFinish(d->q);
  clReleaseKernel(k);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "kernel %s over %zu items: OpenCL error %d\n", name, n, (int)err);
    return -1;
  }
  return 0;
}

#define ARG_INT(v) sizeof(cl_int), (const void *)&(v)
#define ARG_MEM(m) sizeof(cl_mem), (const void *)&(m)

/* out[i] = kernel(code, in[i]) for n ulongs, on the device. */
static int map_u64(dev *d, const char *name, int code, const uint64_t *in, uint64_t *out, size_t n) {
  int rc = -1;
  cl_int c = code;
  cl_mem mi = mem_new(d, n * 8, in), mo = mem_new(d, n * 8, NULL);
  if (mi && mo && launch(d, name, n, 3, ARG_INT(c), ARG_MEM(mi), ARG_MEM(mo)) == 0) rc = mem_read(d, mo, n * 8, out);
  if (mi) clReleaseMemObject(mi);
  if (mo) clReleaseMemObject(mo);
  return rc;
}

/* ---- The checks ---------------------------------------------------------------- */

/* Compares n results of `what` on the device with the host's: one check
   per element, and a line with the count where any differ. */
static void compare(const char *what, int code, const uint64_t *in, const uint64_t *got, const uint64_t *want,
                    size_t n) {
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    bad += got[i] != want[i];
    CHECK(got[i] == want[i], "%s, %s, input %016llx: device %016llx, host %016llx", what,
          nx_dtype_name((nx_dtype)code), (unsigned long long)in[i], (unsigned long long)got[i],
          (unsigned long long)want[i]);
  }
  if (bad) printf("  %s, %s: %zu of %zu differ\n", what, nx_dtype_name((nx_dtype)code), bad, n);
}

static int check_facts(dev *d) {
  enum { N = 25 };
  cl_int facts[7 * N];
  uint64_t maxf[N];
  cl_mem mf = mem_new(d, sizeof facts, NULL), mm = mem_new(d, sizeof maxf, NULL);
  int rc = -1;
  if (mf && mm && launch(d, "k_facts", N, 2, ARG_MEM(mf), ARG_MEM(mm)) == 0 && mem_read(d, mf, sizeof facts, facts) == 0 &&
      mem_read(d, mm, sizeof maxf, maxf) == 0)
    rc = 0;
  if (mf) clReleaseMemObject(mf);
  if (mm) clReleaseMemObject(mm);
  if (rc) return rc;
  for (int i = 0; i < N; i++) {
    int c = i - 2;
    int want[7] = {nx_dtype_bits_of(c),     nx_dtype_kind_of(c),        nx_dtype_exponent_bits_of(c),
                   nx_dtype_fraction_bits_of(c), nx_dtype_has_infinities(c), nx_dtype_has_nans(c),
                   nx_dtype_saturation_of(c)};
    for (int j = 0; j < 7; j++) CHECK(facts[7 * i + j] == want[j], "fact %d of code %d: device %d, host %d", j, c, (int)facts[7 * i + j], want[j]);
    CHECK(maxf[i] == nx_dtype_max_finite_bits_of(c), "max finite bits of code %d", c);
  }
  return 0;
}

/* The formats of up to 16 bits. */
static const int small_codes[] = {NX_FLOAT16, NX_BFLOAT16, NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2, NX_FLOAT4_E2M1FN,
                                  NX_INT16,   NX_UINT16,   NX_INT8,          NX_UINT8,       NX_INT4,
                                  NX_UINT4,   NX_BOOL,     NX_BIT};

/* (a): every code of format `code`, then every code again with random bits
   above the element's width; loaded, then the loaded bits stored back. */
static int check_all_codes(dev *d, int code) {
  int bits = nx_dtype_bits_of(code), rc = -1;
  size_t nc = (size_t)1 << bits, n = 2 * nc;
  uint64_t *in = malloc(n * 8), *got = malloc(n * 8), *load = malloc(n * 8), *want = malloc(n * 8);
  if (!in || !got || !load || !want) goto done;
  for (size_t i = 0; i < n; i++) in[i] = i < nc ? i : (i - nc) | (next_random() << bits);

  if (map_u64(d, "k_load_f64bits", code, in, load, n)) goto done;
  for (size_t i = 0; i < n; i++) want[i] = nx_dtype_load_f64bits(code, in[i]);
  compare("nx_dtype_load_f64bits", code, in, load, want, n);
  for (size_t i = 0; i < n; i++) want[i] = f64_bits(nx_dtype_load_bits(code, in[i]));
  compare("nx_dtype_load_f64bits against libnx nx_dtype_load_bits", code, in, load, want, n);
  if (map_u64(d, "k_store_f64bits", code, load, got, n)) goto done;
  for (size_t i = 0; i < n; i++) want[i] = nx_dtype_store_f64bits(code, load[i]);
  compare("nx_dtype_store_f64bits of the load", code, load, got, want, n);

  if (is_narrow_float(code)) {
    if (map_u64(d, "k_load_f32", code, in, load, n)) goto done;
    for (size_t i = 0; i < n; i++) want[i] = host_load_f32(code, in[i]);
    compare("float32 load", code, in, load, want, n);
    if (map_u64(d, "k_store_f32", code, load, got, n)) goto done;
    for (size_t i = 0; i < n; i++) want[i] = host_store_f32(code, (uint32_t)load[i]);
    compare("float32 store of the float32 load", code, load, got, want, n);
  }
  if (d->fp64) {
    if (map_u64(d, "k_load_double", code, in, load, n)) goto done;
    for (size_t i = 0; i < n; i++) want[i] = f64_bits(nx_dtype_load_double(code, in[i]));
    compare("nx_dtype_load_double", code, in, load, want, n);
    if (map_u64(d, "k_store_double", code, load, got, n)) goto done;
    for (size_t i = 0; i < n; i++) want[i] = nx_dtype_store_double(code, f64_of(load[i]));
    compare("nx_dtype_store_double of the load", code, load, got, want, n);
  }
  rc = 0;
done:
  if (rc) fprintf(stderr, "all codes of %s: not run\n", nx_dtype_name((nx_dtype)code));
  free(in);
  free(got);
  free(load);
  free(want);
  return rc;
}

enum { N_RANDOM = 100000 };

/* (b) and (c). */
static int check_random(dev *d) {
  int rc = -1;
  size_t n = N_RANDOM;
  uint64_t *in = malloc(n * 8), *got = malloc(n * 8), *want = malloc(n * 8);
  if (!in || !got || !want) goto done;
  fill_f64(in, n);
  for (int code = 0; code < NX_DTYPE_COUNT; code++) {
    if (map_u64(d, "k_store_f64bits", code, in, got, n)) goto done;
    for (size_t i = 0; i < n; i++) want[i] = nx_dtype_store_f64bits(code, in[i]);
    compare("nx_dtype_store_f64bits", code, in, got, want, n);
    for (size_t i = 0; i < n; i++) want[i] = nx_dtype_store_bits(code, f64_of(in[i]));
    compare("nx_dtype_store_f64bits against libnx nx_dtype_store_bits", code, in, got, want, n);
    if (d->fp64) {
      if (map_u64(d, "k_store_double", code, in, got, n)) goto done;
      for (size_t i = 0; i < n; i++) want[i] = nx_dtype_store_double(code, f64_of(in[i]));
      compare("nx_dtype_store_double", code, in, got, want, n);
    }
  }
  /* Loads of random element bits for the formats wider than 16 bits: half
     any bits, half the bits of a stored value. */
  for (int code = 0; code < NX_DTYPE_COUNT; code++) {
    int bits = nx_dtype_bits_of(code);
    if (bits <= 16) continue;
    uint64_t mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
    fill_f64(in, n);
    for (size_t i = 0; i < n; i++) in[i] = i % 2 ? next_random() : nx_dtype_store_f64bits(code, in[i]) & mask;
    if (map_u64(d, "k_load_f64bits", code, in, got, n)) goto done;
    for (size_t i = 0; i < n; i++) want[i] = nx_dtype_load_f64bits(code, in[i]);
    compare("nx_dtype_load_f64bits", code, in, got, want, n);
    for (size_t i = 0; i < n; i++) want[i] = f64_bits(nx_dtype_load_bits(code, in[i]));
    compare("nx_dtype_load_f64bits against libnx nx_dtype_load_bits", code, in, got, want, n);
    if (d->fp64) {
      if (map_u64(d, "k_load_double", code, in, got, n)) goto done;
      for (size_t i = 0; i < n; i++) want[i] = f64_bits(nx_dtype_load_double(code, in[i]));
      compare("nx_dtype_load_double", code, in, got, want, n);
    }
  }
  /* (c) */
  fill_f32(in, n);
  for (int j = 0; j < N_NARROW; j++) {
    int code = narrow_floats[j];
    if (map_u64(d, "k_store_f32", code, in, got, n)) goto done;
    for (size_t i = 0; i < n; i++) want[i] = host_store_f32(code, (uint32_t)in[i]);
    compare("float32 store", code, in, got, want, n);
  }
  rc = 0;
done:
  free(in);
  free(got);
  free(want);
  return rc;
}

/* (d) */
static int check_subbyte(dev *d) {
  enum { NB = 4096, NPUT = 20000 };
  int rc = -1;
  nx_u8 *init = malloc(NB), *ref = malloc(NB), *buf = malloc(NB), *val = malloc(NB * 8), *gets = malloc(NB * 8);
  cl_long *pos = malloc(NPUT * sizeof(cl_long));
  cl_mem mb = NULL, mp = NULL, mv = NULL, mg = NULL;
  if (!init || !ref || !buf || !val || !gets || !pos) goto done;
  for (int bits = 1; bits <= 4; bits *= 2) {
    cl_int cb = bits, cn = NPUT;
    size_t ne = (size_t)NB * 8 / (size_t)bits;
    for (size_t i = 0; i < NB; i++) init[i] = ref[i] = (nx_u8)next_random();
    for (size_t i = 0; i < NB * 8; i++) val[i] = (nx_u8)next_random(); /* high bits to be ignored */
    for (size_t k = 0; k < NPUT; k++) pos[k] = (cl_long)(next_random() % ne);

    /* Serial stores, then every get. */
    if (!(mb = mem_new(d, NB, init)) || !(mp = mem_new(d, NPUT * sizeof(cl_long), pos)) ||
        !(mv = mem_new(d, NB * 8, val)) || !(mg = mem_new(d, ne, NULL)))
      goto done;
    if (launch(d, "k_subbyte_serial", 1, 5, ARG_INT(cb), ARG_INT(cn), ARG_MEM(mp), ARG_MEM(mv), ARG_MEM(mb)) ||
        launch(d, "k_subbyte_get", ne, 3, ARG_INT(cb), ARG_MEM(mb), ARG_MEM(mg)) || mem_read(d, mb, NB, buf) ||
        mem_read(d, mg, ne, gets))
      goto done;
    for (size_t k = 0; k < NPUT; k++) nx_subbyte_put(ref, pos[k], bits, val[k]);
    CHECK(memcmp(buf, ref, NB) == 0, "nx_subbyte_put, %d bits, serial stores: the bytes differ", bits);
    for (size_t p = 0; p < ne; p++)
      CHECK(gets[p] == nx_subbyte_get(ref, (nx_i64)p, bits), "nx_subbyte_get(%zu), %d bits: device %u, host %u", p,
            bits, gets[p], nx_subbyte_get(ref, (nx_i64)p, bits));
    clReleaseMemObject(mb);
    mb = NULL;

    /* Every element stored, one work-item per byte, over the bytes above. */
    if (!(mb = mem_new(d, NB, ref)) || launch(d, "k_subbyte_bytes", NB, 3, ARG_INT(cb), ARG_MEM(mv), ARG_MEM(mb)) ||
        mem_read(d, mb, NB, buf))
      goto done;
    for (size_t p = 0; p < ne; p++) nx_subbyte_put(ref, (nx_i64)p, bits, val[p]);
    CHECK(memcmp(buf, ref, NB) == 0, "nx_subbyte_put, %d bits, by byte: the bytes differ", bits);
    clReleaseMemObject(mb);
    clReleaseMemObject(mp);
    clReleaseMemObject(mv);
    clReleaseMemObject(mg);
    mb = mp = mv = mg = NULL;
  }
  rc = 0;
done:
  if (mb) clReleaseMemObject(mb);
  if (mp) clReleaseMemObject(mp);
  if (mv) clReleaseMemObject(mv);
  if (mg) clReleaseMemObject(mg);
  free(init);
  free(ref);
  free(buf);
  free(val);
  free(gets);
  free(pos);
  return rc;
}

/* ---- Per device ------------------------------------------------------------------ */

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *s = NULL;
  long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (s = malloc((size_t)n + 1))) {
    if (fread(s, 1, (size_t)n, f) != (size_t)n) {
      free(s);
      s = NULL;
    } else s[n] = '\0';
  }
  fclose(f);
  return s;
}

static int has_extension(const char *exts, const char *name) {
  size_t len = strlen(name);
  for (const char *p = exts; (p = strstr(p, name)); p += len)
    if ((p == exts || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')) return 1;
  return 0;
}

/* Builds the program from `prefix`, the header's text and the kernels with
   `options`; on failure prints the build log. */
static int build(dev *d, const char *prefix, const char *header, const char *options) {
  cl_int err;
  const char *parts[3] = {prefix, header, kernel_src};
  d->prog = clCreateProgramWithSource(d->ctx, 3, parts, NULL, &err);
  CL_TRY(err);
  err = clBuildProgram(d->prog, 1, &d->id, options, NULL, NULL);
  size_t len = 0;
  clGetProgramBuildInfo(d->prog, d->id, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
  char *log = malloc(len + 1);
  if (log && clGetProgramBuildInfo(d->prog, d->id, CL_PROGRAM_BUILD_LOG, len, log, NULL) == CL_SUCCESS) {
    log[len] = '\0';
    if (err != CL_SUCCESS || strspn(log, " \t\r\n") != strlen(log))
      fprintf(err != CL_SUCCESS ? stderr : stdout, "build log (%s):\n%s\n", options, log);
  }
  free(log);
  CL_TRY(err);
  return 0;
}

static double seconds(void) {
  struct timespec t;
  timespec_get(&t, TIME_UTC);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Every check on one device, the program built with `options`; with
   hide_fp64, as on a device without fp64: the source starts with
   #undef cl_khr_fp64, so the header leaves out its double functions. */
static int run_device(cl_device_id id, const char *header, const char *options, int hide_fp64) {
  dev d = {.id = id};
  char name[256] = "", version[256] = "", *exts = NULL;
  size_t len = 0;
  int rc = -1;
  long failures_before = check_failures;
  double t0 = seconds();
  cl_int err;
  clGetDeviceInfo(id, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
  clGetDeviceInfo(id, CL_DEVICE_VERSION, sizeof version - 1, version, NULL);
  if (clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, 0, NULL, &len) == CL_SUCCESS && (exts = malloc(len + 1)) &&
      clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, len, exts, NULL) == CL_SUCCESS)
    exts[len] = '\0';
  int dev_fp64 = exts && has_extension(exts, "cl_khr_fp64") && !hide_fp64;
  free(exts);
  printf("%s (%s), options \"%s\"%s\n", name, version, options, hide_fp64 ? ", cl_khr_fp64 undefined" : "");
  fflush(stdout);

  d.ctx = clCreateContext(NULL, 1, &id, NULL, NULL, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clCreateContext: OpenCL error %d\n", (int)err);
    goto done;
  }
  d.q = clCreateCommandQueue(d.ctx, id, 0, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clCreateCommandQueue: OpenCL error %d\n", (int)err);
    goto done;
  }
  if (build(&d, hide_fp64 ? "#undef cl_khr_fp64\n" : "", header, options)) goto done;
  double t_build = seconds() - t0;

  cl_int flags[2] = {-1, -1};
  cl_mem mf = mem_new(&d, sizeof flags, NULL);
  int ok = mf && launch(&d, "k_flags", 1, 1, ARG_MEM(mf)) == 0 && mem_read(&d, mf, sizeof flags, flags) == 0;
  if (mf) clReleaseMemObject(mf);
  if (!ok) goto done;
  d.fp64 = flags[0] == 1;
  CHECK(flags[1] == NX_DTYPE_COUNT, "NX_DTYPE_COUNT on the device: %d", (int)flags[1]);
  CHECK(d.fp64 == dev_fp64, "NX_HAS_DOUBLE on the device (%d) against cl_khr_fp64 in its extensions (%d)", d.fp64,
        dev_fp64);
  printf("  fp64: %s\n", d.fp64 ? "yes: nx_dtype_store_double and nx_dtype_load_double checked too"
                                 : "no: the float64-bits functions only");
  fflush(stdout);

  rng_state = 0x6E785F6F70656E63ull; /* fixed seed: the same inputs every run and on every device */
  if (check_facts(&d)) goto done;
  for (size_t i = 0; i < sizeof small_codes / sizeof small_codes[0]; i++)
    if (check_all_codes(&d, small_codes[i])) goto done;
  if (check_random(&d) || check_subbyte(&d)) goto done;
  rc = 0;
  printf("  %s: build %.2f s, checks %.2f s\n", check_failures == failures_before ? "ok" : "FAILED", t_build,
         seconds() - t0 - t_build);
done:
  if (d.prog) clReleaseProgram(d.prog);
  if (d.q) clReleaseCommandQueue(d.q);
  if (d.ctx) clReleaseContext(d.ctx);
  if (rc) printf("  not completed: an OpenCL call failed\n");
  return rc;
}

int main(void) {
  char *header = read_file(NX_DTYPE_H_PATH);
  if (!header) {
    fprintf(stderr, "cannot read %s\n", NX_DTYPE_H_PATH);
    return 1;
  }
  cl_uint np = 0;
  cl_int err = clGetPlatformIDs(0, NULL, &np);
  if (err != CL_SUCCESS || np == 0) {
    /* -1001, CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found no platform. */
    printf("FAIL: no OpenCL platform (clGetPlatformIDs: %d); CI needs one, as PoCL's CPU device\n", (int)err);
    free(header);
    return 1;
  }
  cl_platform_id *platforms = malloc(np * sizeof *platforms);
  int devices = 0, errors = 0;
  if (!platforms || clGetPlatformIDs(np, platforms, NULL) != CL_SUCCESS) np = 0;
  for (cl_uint p = 0; p < np; p++) {
    char pname[256] = "";
    cl_uint nd = 0;
    clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || nd == 0) {
      printf("platform %s: no device\n", pname);
      continue;
    }
    cl_device_id *ids = malloc(nd * sizeof *ids);
    if (!ids || clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, nd, ids, NULL) != CL_SUCCESS) nd = 0;
    for (cl_uint i = 0; i < nd; i++) {
      char version[256] = "";
      devices++;
      /* The device's default OpenCL C; the same as if it had no fp64; and on
         an OpenCL 3.0 device OpenCL C 3.0, whose fp64 is an optional feature. */
      printf("platform %s, device %u of %u: ", pname, i + 1, nd);
      errors += run_device(ids[i], header, "-Werror", 0) != 0;
      printf("platform %s, device %u of %u: ", pname, i + 1, nd);
      errors += run_device(ids[i], header, "-Werror", 1) != 0;
      clGetDeviceInfo(ids[i], CL_DEVICE_VERSION, sizeof version - 1, version, NULL);
      if (strncmp(version, "OpenCL 3.", 9) == 0) {
        printf("platform %s, device %u of %u: ", pname, i + 1, nd);
        errors += run_device(ids[i], header, "-Werror -cl-std=CL3.0", 0) != 0;
      }
    }
    free(ids);
  }
  free(platforms);
  free(header);
  if (devices == 0) {
    printf("FAIL: no OpenCL device; CI needs one, as PoCL's CPU device\n");
    return 1;
  }
  if (errors) printf("%d device runs did not complete\n", errors);
  int rc = check_done();
  return errors ? 1 : rc;
}
