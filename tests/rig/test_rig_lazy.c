/* SPDX-License-Identifier: Apache-2.0 */
/* OpenCL is discovered lazily: host work (the host device, a buffer of its
   memory, work on its timeline, a wait) loads no OpenCL driver, and the
   first nx_rig_find of an OpenCL device loads one and finds the devices, in
   their place after the host. A driver's load shows as new shared objects in
   the process's mappings (the ICD loader dlopens the platform's library at
   discovery). Fails, not skips, without two OpenCL devices. */
#include "rig_common.h"

/* The number of distinct shared objects mapped now, and whether one of them
   is PoCL's. */
static int mapped_objects(bool *pocl) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[4096], seen[256][256];
  int n = 0;
  *pocl = false;
  if (!f) return -1;
  while (fgets(line, sizeof line, f)) {
    char *path = strchr(line, '/');
    if (!path || !strstr(path, ".so")) continue;
    path[strcspn(path, "\n")] = 0;
    if (strstr(path, "pocl")) *pocl = true;
    bool known = false;
    for (int i = 0; i < n && !known; i++) known = strncmp(seen[i], path, sizeof seen[i] - 1) == 0;
    if (!known && n < 256) snprintf(seen[n++], sizeof seen[0], "%s", path);
  }
  fclose(f);
  return n;
}

static void fill_7(void *ctx) { memset(ctx, 7, 64); }

int main(void) {
  bool pocl;
  int before = mapped_objects(&pocl);
  CHECK(before > 0 && !pocl, "at the start: %d shared objects, PoCL's %s", before, pocl ? "among them" : "not");

  nx_device *h = nx_rig_host();
  nx_buffer *b = NULL;
  CHECK(h && strcmp(nx_device_name(h), "host") == 0, "the host is %s", nx_device_name(h));
  CHECK(nx_buffer_create(h, NX_MEMORY_DEVICE, NX_ACCESS_READ_WRITE, 64, &b) == 0, "a host buffer");
  if (b) {
    CHECK(nx_rig_submit(h, NULL, 0, &b, 1, fill_7, nx_buffer_host_address(b)) == 0, "work on the host");
    CHECK(nx_buffer_wait(b, NX_ACCESS_READ) == 0, "its wait");
    CHECK(((unsigned char *)nx_buffer_host_address(b))[63] == 7, "the work ran");
    nx_buffer_release(b);
  }
  int host_only = mapped_objects(&pocl);
  CHECK(host_only == before && !pocl, "after host work: %d shared objects (%d before), PoCL's %s", host_only,
        before, pocl ? "loaded" : "not");

  nx_device *o = NULL;
  if (!NX_TEST_OPENCL_BUILT) {
    /* Host work above ran without OpenCL; the rest is OpenCL's discovery. */
    CHECK(nx_rig_find("opencl:0", &o) == NX_EINVAL && strstr(nx_error_message(), "without OpenCL"),
          "without OpenCL, opencl:0 is refused saying why: %s", nx_error_message());
    printf("skipped: OpenCL's lazy discovery: %s\n", NX_TEST_NO_OPENCL_REASON);
    return check_done();
  }
  CHECK(nx_rig_find("opencl:0", &o) == 0 && o, "nx_rig_find(\"opencl:0\") discovers OpenCL");
  int after = mapped_objects(&pocl);
  CHECK(after > host_only, "after discovery: %d shared objects (%d before)", after, host_only);

  nx_device *all[64];
  int n = nx_rig_devices(all, 64);
  CHECK(n >= 3, "%d devices: the host and two OpenCL devices are needed", n);
  if (n >= 3) {
    CHECK(all[0] == h, "the first device is %s", nx_device_name(all[0]));
    CHECK(all[1] == o, "opencl:0 is second, not %s", nx_device_name(all[1]));
    CHECK(strcmp(nx_device_name(all[2]), "opencl:1") == 0, "the third is %s", nx_device_name(all[2]));
  }
  return check_done();
}
