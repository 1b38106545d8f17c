/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the array module. */
#ifndef NX_ARRAY_INTERNAL_H
#define NX_ARRAY_INTERNAL_H

#include "nx_array.h"
#include "../base/error.h"

struct nx_array {
  nx_dtype dt;
  nx_layout l;
  nx_buffer *b;
};

/* Whether the layout has no element. */
bool nx__array_empty(const nx_array *a);

/* nx__array_relay(fn, a, s) is the failure s that a function fn called just
   set, its reason (the message past the callee's "name: ") under fn, the
   function the user called, and the operand a where not NULL. */
int nx__array_relay(const char *fn, const nx_array *a, int s);
/* nx__array_relay2(fn, src, dst, s): the same for a copy from src into dst,
   naming both. */
int nx__array_relay2(const char *fn, const nx_array *a, const nx_array *b, int s);

/* Claims a's memory for one access and waits for the work it must follow:
   0, or a refusal naming fn and a. nx__array_leave ends the claim. */
int nx__array_enter(const char *fn, const nx_array *a, bool write, bool need_host);
void nx__array_leave(const nx_array *a, bool write);

/* An element's bits at position p of host memory base, and their store
   (sub-byte stores are atomic on their byte, keeping the neighbours). */
void nx__bits_get(nx_dtype dt, const uint8_t *base, int64_t p, uint8_t *out);
void nx__bits_put(nx_dtype dt, uint8_t *base, int64_t p, const uint8_t *in);

/* Value and bits: the element's bytes (16 at most) from a value, and back. */
void nx__value_bits(nx_dtype dt, nx_value v, uint8_t *out);
nx_value nx__bits_value(nx_dtype dt, const uint8_t *in);

/* Steps an index through a's shape in C order: false after the last. */
bool nx__next_index(const nx_layout *l, int64_t *index, int64_t *pos);

/* Whether a and b, over memories that may hold the same bits, share a byte;
   *identical tells whether they are identical in the seed's sense. */
bool nx__arrays_share(const nx_array *a, const nx_array *b, bool *identical);

#endif
