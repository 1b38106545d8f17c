/* SPDX-License-Identifier: Apache-2.0 */
/* nx.h: every public header of nx. */
#ifndef NX_H
#define NX_H

#include "nx_version.h"
#include "nx_alloc.h"
#include "nx_error.h"
#include "nx_dtype.h"
#include "nx_layout.h"
#include "nx_shape.h"
#include "nx_scheme.h"
#include "nx_rig.h"
#include "nx_array.h"
#include "nx_kernels.h"
#include "nx_io.h"
#include "nx_linalg.h"
#include "nx_index.h"

#endif
