/* SPDX-License-Identifier: Apache-2.0 */
/* nx__shortest out of line, for the formats print.c does not specialize. */
#include "dtype_internal.h"
#include "shortest.h"

nx__decimal nx__shortest(uint64_t c, int q, bool bottom) { return shortest(c, q, bottom); }
