/* SPDX-License-Identifier: Apache-2.0 */
/* The typed cast loops of one level (typed_defs.h), cast_<to>_<from>:
   expanded once per level by typed_cast.c, with NX__SUF and NX__TGT set. No
   include guard. Floats convert by the CPU's instructions, which round once
   to nearest (int64 into float32 included) as the store rule does, and keep
   a NaN's sign and top payload bits, quieted; integers saturate and floats
   truncate toward zero into them, NaN 0; bool is x != 0. */

#define NX__FROM_INTS(X, to, T) \
  X(to, T, i8, int8_t) X(to, T, i16, int16_t) X(to, T, i32, int32_t) X(to, T, i64, int64_t) X(to, T, u8, uint8_t)
#define NX__PLAIN(to, T, from, F) NX__UN(cast_##to##_##from, T, F, (T)v)

/* into float32 and float64 */
NX__UN(cast_f32_f32, uint32_t, uint32_t, NX__QUIET32(v))
NX__UN(cast_f32_f64, float, double, (float)v)
NX__FROM_INTS(NX__PLAIN, f32, float)
NX__UN(cast_f32_b, float, uint8_t, (float)(v != 0))
NX__UN(cast_f64_f32, double, float, (double)v)
NX__UN(cast_f64_f64, uint64_t, uint64_t, NX__QUIET64(v))
NX__FROM_INTS(NX__PLAIN, f64, double)
NX__UN(cast_f64_b, double, uint8_t, (double)(v != 0))

/* into int8 */
NX__UN(cast_i8_f32, int8_t, float, NX__F2I(int8_t, float, INT8_MIN, INT8_MAX, int32_t, v))
NX__UN(cast_i8_f64, int8_t, double, NX__F2I(int8_t, double, INT8_MIN, INT8_MAX, int32_t, v))
NX__UN(cast_i8_i8, int8_t, int8_t, v)
NX__UN(cast_i8_i16, int8_t, int16_t, NX__CLAMP(int8_t, -128, 127, v))
NX__UN(cast_i8_i32, int8_t, int32_t, NX__CLAMP(int8_t, -128, 127, v))
NX__UN(cast_i8_i64, int8_t, int64_t, NX__CLAMP(int8_t, -128, 127, v))
NX__UN(cast_i8_u8, int8_t, uint8_t, v > 127 ? (int8_t)127 : (int8_t)v)
NX__UN(cast_i8_b, int8_t, uint8_t, (int8_t)(v != 0))

/* into int16 */
NX__UN(cast_i16_f32, int16_t, float, NX__F2I(int16_t, float, INT16_MIN, INT16_MAX, int32_t, v))
NX__UN(cast_i16_f64, int16_t, double, NX__F2I(int16_t, double, INT16_MIN, INT16_MAX, int32_t, v))
NX__UN(cast_i16_i8, int16_t, int8_t, v)
NX__UN(cast_i16_i16, int16_t, int16_t, v)
NX__UN(cast_i16_i32, int16_t, int32_t, NX__CLAMP(int16_t, -32768, 32767, v))
NX__UN(cast_i16_i64, int16_t, int64_t, NX__CLAMP(int16_t, -32768, 32767, v))
NX__UN(cast_i16_u8, int16_t, uint8_t, v)
NX__UN(cast_i16_b, int16_t, uint8_t, (int16_t)(v != 0))

/* into int32 */
NX__UN(cast_i32_f32, int32_t, float, NX__F2I(int32_t, float, INT32_MIN, INT32_MAX, int32_t, v))
NX__UN(cast_i32_f64, int32_t, double, NX__F2I(int32_t, double, INT32_MIN, INT32_MAX, int32_t, v))
NX__UN(cast_i32_i8, int32_t, int8_t, v)
NX__UN(cast_i32_i16, int32_t, int16_t, v)
NX__UN(cast_i32_i32, int32_t, int32_t, v)
NX__UN(cast_i32_i64, int32_t, int64_t, NX__CLAMP(int32_t, INT32_MIN, INT32_MAX, v))
NX__UN(cast_i32_u8, int32_t, uint8_t, v)
NX__UN(cast_i32_b, int32_t, uint8_t, (int32_t)(v != 0))

/* into int64 */
NX__UN(cast_i64_f32, int64_t, float, NX__F2I(int64_t, float, INT64_MIN, INT64_MAX, int64_t, v))
NX__UN(cast_i64_f64, int64_t, double, NX__F2I(int64_t, double, INT64_MIN, INT64_MAX, int64_t, v))
NX__UN(cast_i64_i8, int64_t, int8_t, v)
NX__UN(cast_i64_i16, int64_t, int16_t, v)
NX__UN(cast_i64_i32, int64_t, int32_t, v)
NX__UN(cast_i64_i64, int64_t, int64_t, v)
NX__UN(cast_i64_u8, int64_t, uint8_t, v)
NX__UN(cast_i64_b, int64_t, uint8_t, (int64_t)(v != 0))

/* into uint8 */
NX__UN(cast_u8_f32, uint8_t, float, NX__F2U8(v))
NX__UN(cast_u8_f64, uint8_t, double, NX__F2U8(v))
NX__UN(cast_u8_i8, uint8_t, int8_t, v < 0 ? (uint8_t)0 : (uint8_t)v)
NX__UN(cast_u8_i16, uint8_t, int16_t, NX__CLAMP(uint8_t, 0, 255, v))
NX__UN(cast_u8_i32, uint8_t, int32_t, NX__CLAMP(uint8_t, 0, 255, v))
NX__UN(cast_u8_i64, uint8_t, int64_t, NX__CLAMP(uint8_t, 0, 255, v))
NX__UN(cast_u8_u8, uint8_t, uint8_t, v)
NX__UN(cast_u8_b, uint8_t, uint8_t, (uint8_t)(v != 0))

/* into bool: nonzero (NaN is, -0 is not) */
NX__UN(cast_b_f32, uint8_t, float, (uint8_t)(v != 0))
NX__UN(cast_b_f64, uint8_t, double, (uint8_t)(v != 0))
NX__UN(cast_b_i8, uint8_t, int8_t, (uint8_t)(v != 0))
NX__UN(cast_b_i16, uint8_t, int16_t, (uint8_t)(v != 0))
NX__UN(cast_b_i32, uint8_t, int32_t, (uint8_t)(v != 0))
NX__UN(cast_b_i64, uint8_t, int64_t, (uint8_t)(v != 0))
NX__UN(cast_b_u8, uint8_t, uint8_t, (uint8_t)(v != 0))
NX__UN(cast_b_b, uint8_t, uint8_t, (uint8_t)(v != 0))

/* [to][from] in the order f32 f64 i8 i16 i32 i64 u8 bool */
#define NX__CROW(to) {NX__N(cast_##to##_f32), NX__N(cast_##to##_f64), NX__N(cast_##to##_i8), NX__N(cast_##to##_i16), \
                      NX__N(cast_##to##_i32), NX__N(cast_##to##_i64), NX__N(cast_##to##_u8), NX__N(cast_##to##_b)}
static const nx__un_fn NX__N(casts)[8][8] = {NX__CROW(f32), NX__CROW(f64), NX__CROW(i8), NX__CROW(i16),
                                            NX__CROW(i32), NX__CROW(i64), NX__CROW(u8), NX__CROW(b)};
#undef NX__CROW
#undef NX__FROM_INTS
#undef NX__PLAIN
