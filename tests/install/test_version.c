/* SPDX-License-Identifier: Apache-2.0 */
/* The version: the macros agree with each other, with the version the build
   read (NX_BUILD_VERSION, from CMake's project version) and with
   nx_version() of the library linked in. */
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "nx.h"

int main(void) {
  char expect[64];
  snprintf(expect, sizeof expect, "%d.%d.%d", NX_VERSION_MAJOR, NX_VERSION_MINOR, NX_VERSION_PATCH);
  CHECK(!strcmp(NX_VERSION_STRING, expect), "NX_VERSION_STRING %s, parts say %s", NX_VERSION_STRING, expect);
  CHECK(!strcmp(NX_VERSION_STRING, NX_BUILD_VERSION), "header %s, build %s", NX_VERSION_STRING, NX_BUILD_VERSION);
  const char *v = nx_version();
  CHECK(v != NULL && !strcmp(v, NX_VERSION_STRING), "nx_version() %s, header %s", v ? v : "(null)",
        NX_VERSION_STRING);
  CHECK(nx_version_number() == NX_VERSION_NUMBER, "nx_version_number() %d, header %d", nx_version_number(),
        NX_VERSION_NUMBER);
  CHECK(NX_VERSION_NUMBER == NX_VERSION_MAJOR * 10000 + NX_VERSION_MINOR * 100 + NX_VERSION_PATCH, "number %d",
        NX_VERSION_NUMBER);
  CHECK(NX_VERSION_MINOR < 100 && NX_VERSION_PATCH < 100, "the number holds minor and patch below 100");
  return check_done();
}
