/* SPDX-License-Identifier: Apache-2.0 */
/* nx_version.h: the version of nx this program was compiled against, and
   nx_version() for the one it runs with.

   The version is MAJOR.MINOR.PATCH. An incompatible change to the ABI (a
   public struct's size or fields, an enum's values, a function's signature or
   meaning) increases MAJOR, and the shared library's soname is libnx.so.MAJOR,
   so a program never loads a library it cannot use; docs/abi.md says what is
   fixed. The build reads the version from this header. */
#ifndef NX_VERSION_H
#define NX_VERSION_H

#include "nx_error.h"

#define NX_VERSION_MAJOR 0
#define NX_VERSION_MINOR 1
#define NX_VERSION_PATCH 0

#define NX__VERSION_TEXT(x) #x
#define NX__VERSION_JOIN(a, b, c) NX__VERSION_TEXT(a) "." NX__VERSION_TEXT(b) "." NX__VERSION_TEXT(c)
/* "MAJOR.MINOR.PATCH" */
#define NX_VERSION_STRING NX__VERSION_JOIN(NX_VERSION_MAJOR, NX_VERSION_MINOR, NX_VERSION_PATCH)
/* One number that orders versions: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define NX_VERSION_NUMBER (NX_VERSION_MAJOR * 10000 + NX_VERSION_MINOR * 100 + NX_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* nx_version() is the version of the library the program runs with, as
   NX_VERSION_STRING writes it: a static string. It never fails. Compare it
   with NX_VERSION_STRING to see whether the library loaded at run time is the
   one the program was compiled against. */
NX_API const char *nx_version(void);

/* nx_version_number() is the run-time library's NX_VERSION_NUMBER. It never
   fails. */
NX_API int nx_version_number(void);

#ifdef __cplusplus
}
#endif
#endif /* NX_VERSION_H */
