/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to sort: the keys of a block of float32 elements, and the
   elements of a block of keys (sort_keys.h), in the widest vectors the CPU
   has. */
#ifndef NX_INDEX_SORT_FILL_H
#define NX_INDEX_SORT_FILL_H

#include <stdbool.h>
#include <stdint.h>

/* Writes the keys of the e elements x[j * xs] (their bits) into k, dm all
   ones for descending; where counts is not NULL, adds to counts[0] the
   keys below zk and to counts[1] the zeros and NaNs. */
void nx__fkey_block(uint32_t *k, const uint32_t *x, int64_t xs, int64_t e, uint32_t dm, uint32_t zk,
                    int64_t *counts);

/* Writes to z the n elements the keys k stand for: nx__fbits32_dm(k, dm)
   where fl, else k ^ xr; z may be k. */
void nx__key_decode(uint32_t *z, const uint32_t *k, int64_t n, bool fl, uint32_t dm, uint32_t xr);

#endif
