/* SPDX-License-Identifier: Apache-2.0 */
/* The elementwise typed loops of one level (typed_defs.h): expanded once per
   level by typed_elem.c, with NX__SUF and NX__TGT set. No include guard. */

NX__FLOAT_UN(f32, float, uint32_t, 0x80000000u, f)
NX__FLOAT_UN(f64, double, uint64_t, 0x8000000000000000ull, )
NX__SINT_UN(i8, int8_t, uint8_t)
NX__SINT_UN(i16, int16_t, uint16_t)
NX__SINT_UN(i32, int32_t, uint32_t)
NX__SINT_UN(i64, int64_t, uint64_t)
NX__UINT_UN(u8, uint8_t)
NX__UINT_UN(u16, uint16_t)
NX__UINT_UN(u32, uint32_t)
NX__UINT_UN(u64, uint64_t)

NX__FLOAT_BIN(f32, float, uint32_t)
NX__FLOAT_BIN(f64, double, uint64_t)
NX__INT_BIN(i8, int8_t, uint32_t)
NX__INT_BIN(u8, uint8_t, uint32_t)
NX__INT_BIN(i16, int16_t, uint32_t)
NX__INT_BIN(u16, uint16_t, uint32_t)
NX__INT_BIN(i32, int32_t, uint32_t)
NX__INT_BIN(u32, uint32_t, uint32_t)
NX__INT_BIN(i64, int64_t, uint64_t)
NX__INT_BIN(u64, uint64_t, uint64_t)

NX__CMPS(f32, float)
NX__CMPS(f64, double)
NX__CMPS(i8, int8_t)
NX__CMPS(u8, uint8_t)
NX__CMPS(i16, int16_t)
NX__CMPS(u16, uint16_t)
NX__CMPS(i32, int32_t)
NX__CMPS(u32, uint32_t)
NX__CMPS(i64, int64_t)
NX__CMPS(u64, uint64_t)
/* bool: any nonzero byte is true */
NX__BIN(eq_b, uint8_t, uint8_t, (v != 0) == (w != 0))
NX__BIN(ne_b, uint8_t, uint8_t, (v != 0) != (w != 0))
NX__BIN(lt_b, uint8_t, uint8_t, (v != 0) < (w != 0))
NX__BIN(le_b, uint8_t, uint8_t, (v != 0) <= (w != 0))
NX__BIN(and_b, uint8_t, uint8_t, (v != 0) & (w != 0))
NX__BIN(or_b, uint8_t, uint8_t, (v != 0) | (w != 0))
NX__BIN(xor_b, uint8_t, uint8_t, (v != 0) ^ (w != 0))

NX__WH(where_1, uint8_t)
NX__WH(where_2, uint16_t)
NX__WH(where_4, uint32_t)
NX__WH(where_8, uint64_t)

/* Rows as typed_elem.c indexes them: the unary operations neg, recip, abs,
   sqrt, sign, trunc, ceil, floor, round; the dtypes f32 f64 i8 u8 i16 u16
   i32 u32 i64 u64 (bool last for the comparisons). Integer trunc, ceil,
   floor, round and unsigned abs are copies, done there. */
#define NX__FROW(s) {NX__N(neg_##s), NX__N(recip_##s), NX__N(abs_##s), NX__N(sqrt_##s), NX__N(sign_##s), \
                     NX__N(trunc_##s), NX__N(ceil_##s), NX__N(floor_##s), NX__N(round_##s)}
#define NX__SROW(s) {NX__N(neg_##s), 0, NX__N(abs_##s), 0, NX__N(sign_##s), 0, 0, 0, 0}
#define NX__UROW(s) {NX__N(neg_##s), 0, 0, 0, NX__N(sign_##s), 0, 0, 0, 0}
#define NX__CROW(op) {NX__N(op##_f32), NX__N(op##_f64), NX__N(op##_i8), NX__N(op##_u8), NX__N(op##_i16),   \
                      NX__N(op##_u16), NX__N(op##_i32), NX__N(op##_u32), NX__N(op##_i64), NX__N(op##_u64), \
                      NX__N(op##_b)}
/* [dtype][nx__bop] */
#define NX__BFROW(s) {NX__N(add_##s), NX__N(sub_##s), NX__N(mul_##s), NX__N(fdiv_##s), 0, 0, 0, 0, \
                      NX__N(min_##s), NX__N(max_##s), 0, 0, 0}
#define NX__BIROW(s) {NX__N(add_##s), NX__N(sub_##s), NX__N(mul_##s), 0, 0, 0, 0, 0, NX__N(min_##s), \
                      NX__N(max_##s), NX__N(and_##s), NX__N(or_##s), NX__N(xor_##s)}
static const nx__typed_elem NX__N(elem) = {
    .bin = {NX__BFROW(f32), NX__BFROW(f64), NX__BIROW(i8), NX__BIROW(u8), NX__BIROW(i16), NX__BIROW(u16),
            NX__BIROW(i32), NX__BIROW(u32), NX__BIROW(i64), NX__BIROW(u64)},
    .un = {NX__FROW(f32), NX__FROW(f64), NX__SROW(i8), NX__UROW(u8), NX__SROW(i16), NX__UROW(u16),
           NX__SROW(i32), NX__UROW(u32), NX__SROW(i64), NX__UROW(u64)},
    .cmp = {NX__CROW(eq), NX__CROW(ne), NX__CROW(lt), NX__CROW(le)},
    .boolop = {NX__N(and_b), NX__N(or_b), NX__N(xor_b)},
    .wh = {NX__N(where_1), NX__N(where_2), NX__N(where_4), NX__N(where_8)},
};
#undef NX__FROW
#undef NX__BFROW
#undef NX__BIROW
#undef NX__SROW
#undef NX__UROW
#undef NX__CROW
