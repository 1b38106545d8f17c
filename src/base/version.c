/* SPDX-License-Identifier: Apache-2.0 */
/* The library's own version, compiled in, for programs that load it at run
   time. */
#include "nx_version.h"

const char *nx_version(void) { return NX_VERSION_STRING; }

int nx_version_number(void) { return NX_VERSION_NUMBER; }
