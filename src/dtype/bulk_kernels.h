/* SPDX-License-Identifier: Apache-2.0 */
/* The loops of nx_dtype_store_n and nx_dtype_load_n, included by bulk.c once
   per instruction set with NX__ISA (the name suffix) and NX__TARGET (the
   function attribute that selects it, or nothing). The loops call the
   header's scalar stores and loads, which have no data-dependent branches, so
   the compiler vectorizes them for the target and every element gets the
   scalar bits by construction. Elements are read and written through memcpy:
   out and in need no alignment. */
#define NX__CAT2(a, b) a##_##b
#define NX__CAT(a, b) NX__CAT2(a, b)
#define NX__FN(name) NX__CAT(name, NX__ISA)

/* Element i of the doubles, as bits. */
#define X(i) nx__f64_bits(x[i])

/* One store loop: T elements of fn(bits). */
#define STORE(T, expr)                                        \
  for (int64_t i = 0; i < n; i++) {                           \
    T v = (T)(expr);                                          \
    memcpy(o + i * (int64_t)sizeof(T), &v, sizeof(T));        \
  }

/* Two 4-bit elements a byte, element 0 low; a last odd element keeps the
   high half of its byte. */
#define STORE4(fn)                                                          \
  {                                                                         \
    int64_t h = n / 2;                                                      \
    for (int64_t j = 0; j < h; j++)                                         \
      o[j] = (uint8_t)((fn(X(2 * j)) & 15) | ((fn(X(2 * j + 1)) & 15) << 4)); \
    if (n & 1) o[h] = (uint8_t)((o[h] & 0xF0) | (fn(X(n - 1)) & 15));       \
  }

static inline uint64_t NX__FN(st_i64)(uint64_t u) { return nx__store_int(u, 64, 1); }
static inline uint64_t NX__FN(st_u64)(uint64_t u) { return nx__store_int(u, 64, 0); }
static inline uint64_t NX__FN(st_i32)(uint64_t u) { return nx__store_int(u, 32, 1); }
static inline uint64_t NX__FN(st_u32)(uint64_t u) { return nx__store_int(u, 32, 0); }
static inline uint64_t NX__FN(st_i16)(uint64_t u) { return nx__store_int(u, 16, 1); }
static inline uint64_t NX__FN(st_u16)(uint64_t u) { return nx__store_int(u, 16, 0); }
static inline uint64_t NX__FN(st_i8)(uint64_t u) { return nx__store_int(u, 8, 1); }
static inline uint64_t NX__FN(st_u8)(uint64_t u) { return nx__store_int(u, 8, 0); }
static inline uint64_t NX__FN(st_i4)(uint64_t u) { return nx__store_int(u, 4, 1); }
static inline uint64_t NX__FN(st_u4)(uint64_t u) { return nx__store_int(u, 4, 0); }

NX__TARGET static void NX__FN(store_n)(int code, const double *restrict x, void *restrict out, int64_t n) {
  uint8_t *restrict o = (uint8_t *)out;
  switch (code) {
  case NX_FLOAT64: STORE(uint64_t, nx_store_float64_f64(X(i))) break;
  case NX_FLOAT32: STORE(uint32_t, nx_store_float32_f64(X(i))) break;
  case NX_FLOAT16: STORE(uint16_t, nx_store_float16_f64(X(i))) break;
  case NX_BFLOAT16: STORE(uint16_t, nx_store_bfloat16_f64(X(i))) break;
  case NX_FLOAT8_E4M3FN: STORE(uint8_t, nx_store_float8_e4m3fn_f64(X(i))) break;
  case NX_FLOAT8_E5M2: STORE(uint8_t, nx_store_float8_e5m2_f64(X(i))) break;
  case NX_FLOAT4_E2M1FN: STORE4(nx_store_float4_e2m1fn_f64) break;
  case NX_INT64: STORE(uint64_t, NX__FN(st_i64)(X(i))) break;
  case NX_UINT64: STORE(uint64_t, NX__FN(st_u64)(X(i))) break;
  case NX_INT32: STORE(uint32_t, NX__FN(st_i32)(X(i))) break;
  case NX_UINT32: STORE(uint32_t, NX__FN(st_u32)(X(i))) break;
  case NX_INT16: STORE(uint16_t, NX__FN(st_i16)(X(i))) break;
  case NX_UINT16: STORE(uint16_t, NX__FN(st_u16)(X(i))) break;
  case NX_INT8: STORE(uint8_t, NX__FN(st_i8)(X(i))) break;
  case NX_UINT8: STORE(uint8_t, NX__FN(st_u8)(X(i))) break;
  case NX_INT4: STORE4(NX__FN(st_i4)) break;
  case NX_UINT4: STORE4(NX__FN(st_u4)) break;
  case NX_COMPLEX128: /* x + 0i */
    for (int64_t i = 0; i < n; i++) {
      uint64_t v[2] = {nx_store_float64_f64(X(i)), 0};
      memcpy(o + 16 * i, v, 16);
    }
    break;
  case NX_COMPLEX64:
    for (int64_t i = 0; i < n; i++) {
      uint32_t v[2] = {nx_store_float32_f64(X(i)), 0};
      memcpy(o + 8 * i, v, 8);
    }
    break;
  case NX_BOOL: STORE(uint8_t, nx__store_bool(X(i))) break;
  case NX_BIT: {
    int64_t full = n / 8;
    for (int64_t j = 0; j < full; j++) {
      unsigned b = 0;
      for (int k = 0; k < 8; k++) b |= (unsigned)nx__store_bool(X(8 * j + k)) << k;
      o[j] = (uint8_t)b;
    }
    for (int64_t i = 8 * full; i < n; i++) nx_subbyte_put(o, i, 1, (nx_u8)nx__store_bool(X(i)));
    break;
  }
  }
}

/* One load loop: T elements into doubles by fn. */
#define LOAD(T, fn)                                      \
  for (int64_t i = 0; i < n; i++) {                      \
    T b;                                                 \
    memcpy(&b, p + i * (int64_t)sizeof(T), sizeof(T));   \
    x[i] = nx__f64_of_bits(fn);                          \
  }
/* Integers of at most 32 bits: their doubles are exact, so the conversion
   gives the scalar load's bits under any rounding mode. */
#define LOADI(T) LOAD(T, nx__f64_bits((double)b))
#define LOAD4(fn)                                                             \
  {                                                                           \
    int64_t h = n / 2;                                                        \
    for (int64_t j = 0; j < h; j++) {                                         \
      x[2 * j] = nx__f64_of_bits(fn((nx_u8)(p[j] & 15)));                     \
      x[2 * j + 1] = nx__f64_of_bits(fn((nx_u8)(p[j] >> 4)));                 \
    }                                                                         \
    if (n & 1) x[n - 1] = nx__f64_of_bits(fn((nx_u8)(p[h] & 15)));            \
  }

static inline uint64_t NX__FN(ld_i4)(nx_u8 b) { return nx__f64_bits((double)((int)b - ((b & 8) << 1))); }
static inline uint64_t NX__FN(ld_u4)(nx_u8 b) { return nx__f64_bits((double)b); }

NX__TARGET static void NX__FN(load_n)(int code, const void *restrict in, double *restrict x, int64_t n) {
  const uint8_t *restrict p = (const uint8_t *)in;
  switch (code) {
  case NX_FLOAT64: LOAD(uint64_t, b) break;
  case NX_FLOAT32: LOAD(uint32_t, nx_load_float32_f64(b)) break;
  case NX_FLOAT16: LOAD(uint16_t, nx_load_float16_f64(b)) break;
  case NX_BFLOAT16: LOAD(uint16_t, nx_load_bfloat16_f64(b)) break;
  case NX_FLOAT8_E4M3FN: LOAD(uint8_t, nx_load_float8_e4m3fn_f64(b)) break;
  case NX_FLOAT8_E5M2: LOAD(uint8_t, nx_load_float8_e5m2_f64(b)) break;
  case NX_FLOAT4_E2M1FN: LOAD4(nx_load_float4_e2m1fn_f64) break;
  case NX_INT64: case NX_UINT64: LOAD(uint64_t, nx_dtype_load_f64bits(code, b)) break;
  case NX_INT32: LOADI(int32_t) break;
  case NX_UINT32: LOADI(uint32_t) break;
  case NX_INT16: LOADI(int16_t) break;
  case NX_UINT16: LOADI(uint16_t) break;
  case NX_INT8: LOADI(int8_t) break;
  case NX_UINT8: LOADI(uint8_t) break;
  case NX_INT4: LOAD4(NX__FN(ld_i4)) break;
  case NX_UINT4: LOAD4(NX__FN(ld_u4)) break;
  case NX_COMPLEX128: /* the real part */
    for (int64_t i = 0; i < n; i++) memcpy(&x[i], p + 16 * i, 8);
    break;
  case NX_COMPLEX64:
    for (int64_t i = 0; i < n; i++) {
      uint32_t b;
      memcpy(&b, p + 8 * i, 4);
      x[i] = nx__f64_of_bits(nx_load_float32_f64(b));
    }
    break;
  case NX_BOOL: LOAD(uint8_t, b ? 0x3FF0000000000000ull : 0) break;
  case NX_BIT:
    for (int64_t i = 0; i < n; i++) x[i] = nx__f64_of_bits((p[i >> 3] >> (i & 7)) & 1 ? 0x3FF0000000000000ull : 0);
    break;
  }
}

#undef X
#undef STORE
#undef STORE4
#undef LOAD
#undef LOADI
#undef LOAD4
#undef NX__FN
#undef NX__CAT
#undef NX__CAT2
