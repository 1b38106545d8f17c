/* nx_index.h: gathering, scattering, sorting, sliding windows and random
   bits on the host, in the style of nx_kernels.h. */
#ifndef NX_INDEX_H
#define NX_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "nx_array.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif /* NX_INDEX_H */
