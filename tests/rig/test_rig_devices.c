/* SPDX-License-Identifier: Apache-2.0 */
/* Devices: enumeration (the host first, then every OpenCL device, then the
   test devices made so far), names and descriptions, find and its refusal,
   the memory kinds of each device, host addressing per kind, and the rules
   of nx_device_can_map. Fails, not skips, without two OpenCL devices. */
#include "rig_common.h"

static int count_prefix(nx_device **all, int n, const char *prefix) {
  int c = 0;
  for (int i = 0; i < n; i++) c += strncmp(nx_device_name(all[i]), prefix, strlen(prefix)) == 0;
  return c;
}

static void check_enumeration(int want_tests) {
  nx_device *all[64];
  int n = nx_rig_devices(all, 64);
  CHECK(n >= 1 && n <= 64, "nx_rig_devices gave %d", n);
  if (n < 1) return;
  CHECK(all[0] == nx_rig_host(), "the first device is %s, not the host", nx_device_name(all[0]));
  CHECK(strcmp(nx_device_name(all[0]), "host") == 0, "host's name is %s", nx_device_name(all[0]));
  int nocl = count_prefix(all, n, "opencl:"), ntest = count_prefix(all, n, "test:");
  CHECK(1 + nocl + ntest == n, "%d devices: 1 host, %d OpenCL, %d test, and others", n, nocl, ntest);
  CHECK(ntest == want_tests, "%d test devices, wanted %d", ntest, want_tests);
  /* The order: host, opencl:0..k-1, test:0..t-1, each name exactly. */
  for (int i = 0; i < nocl && 1 + i < n; i++) {
    char want[32];
    snprintf(want, sizeof want, "opencl:%d", i);
    CHECK(strcmp(nx_device_name(all[1 + i]), want) == 0, "device %d is %s, wanted %s", 1 + i,
          nx_device_name(all[1 + i]), want);
  }
  for (int i = 0; i < ntest && 1 + nocl + i < n; i++) {
    char want[32];
    snprintf(want, sizeof want, "test:%d", i);
    CHECK(strcmp(nx_device_name(all[1 + nocl + i]), want) == 0, "device %d is %s, wanted %s", 1 + nocl + i,
          nx_device_name(all[1 + nocl + i]), want);
  }
  /* Every name finds its own device; devices are distinct. */
  for (int i = 0; i < n; i++) {
    nx_device *d = NULL;
    CHECK(nx_rig_find(nx_device_name(all[i]), &d) == 0 && d == all[i], "find %s", nx_device_name(all[i]));
    for (int k = 0; k < i; k++) CHECK(all[k] != all[i], "devices %d and %d are one", k, i);
    CHECK(!nx_device_lost(all[i]), "%s lost at start", nx_device_name(all[i]));
    CHECK(nx_device_description(all[i]) && nx_device_description(all[i])[0], "%s has no description",
          nx_device_name(all[i]));
  }
  /* A short array: only cap entries written, the count still returned. */
  nx_device *few[3] = {NULL, NULL, (nx_device *)&few};
  int m = nx_rig_devices(few, 2);
  CHECK(m == n, "count with cap 2: %d, wanted %d", m, n);
  CHECK(few[0] == all[0] && (n < 2 || few[1] == all[1]), "the first two entries");
  CHECK(few[2] == (nx_device *)&few, "nx_rig_devices wrote past cap");
  CHECK(nx_rig_devices(NULL, 0) == n, "count with cap 0");
}

int main(void) {
  rig_devices r = {nx_rig_host(), NULL, NULL};
  /* Without OpenCL the cases of OpenCL devices skip (their devices stay
     NULL below) and the rest run. */
  int have = NX_TEST_OPENCL_BUILT && rig_need_devices(&r) == 0;
  if (!NX_TEST_OPENCL_BUILT) printf("skipped: the cases of OpenCL devices: %s\n", NX_TEST_NO_OPENCL_REASON);

  /* Two OpenCL devices with POCL_DEVICES="pthread pthread"; at least one in
     any case: CI fails, not skips, without OpenCL. */
  nx_device *all[64];
  int n = nx_rig_devices(all, 64);
  int nocl = count_prefix(all, n, "opencl:");
  const char *pd = getenv("POCL_DEVICES");
  if (!NX_TEST_OPENCL_BUILT) {
    CHECK(nocl == 0, "%d OpenCL devices in a build without OpenCL", nocl);
    CHECK(nx_rig_find("opencl:0", &r.ocl0) == NX_EINVAL && strstr(nx_error_message(), "without OpenCL"),
          "without OpenCL, opencl:0 is refused saying why: %s", nx_error_message());
    r.ocl0 = NULL;
  } else {
    CHECK(nocl >= 1, "no OpenCL device found: install PoCL (pocl-opencl-icd) and set POCL_DEVICES");
  }
  if (NX_TEST_OPENCL_BUILT && pd && strcmp(pd, "pthread pthread") == 0)
    CHECK(nocl == 2, "POCL_DEVICES=\"pthread pthread\" gave %d OpenCL devices, wanted 2", nocl);
  printf("devices:");
  for (int i = 0; i < n; i++) printf(" %s [%s]", nx_device_name(all[i]), nx_device_description(all[i]));
  printf("\n");
  check_enumeration(0);

  /* Names and descriptions. */
  CHECK(strcmp(nx_device_description(r.host), "host") == 0, "host description %s", nx_device_description(r.host));
  nx_device *d = (nx_device *)&d;
  CHECK(nx_rig_find("nope", &d) == NX_EINVAL, "find of an unknown name");
  CHECK(d == (nx_device *)&d, "find's refusal set its result");
  CHECK(strstr(nx_error_message(), "nx_rig_find") != NULL && strstr(nx_error_message(), "nope") != NULL,
        "message: %s", nx_error_message());
  CHECK(nx_rig_find(NULL, &d) == NX_EINVAL, "find of NULL");
  CHECK(nx_rig_find("test:0", &d) == NX_EINVAL, "find of a test device not made yet");
  CHECK(nx_rig_find("opencl:2", &d) == NX_EINVAL, "find of a third OpenCL device");
  CHECK(nx_rig_find("Host", &d) == NX_EINVAL && nx_rig_find("host ", &d) == NX_EINVAL &&
            nx_rig_find("", &d) == NX_EINVAL,
        "find is exact");
  CHECK(strcmp(nx_device_name(NULL), "NULL") == 0, "name of NULL");
  CHECK(!nx_device_lost(NULL), "NULL lost");

  /* Test devices: appended after the OpenCL ones, named in order. */
  nx_device *t0 = NULL, *t1 = NULL;
  CHECK(nx_rig_test_device(&t0) == 0 && t0, "first test device");
  CHECK(nx_rig_test_device(&t1) == 0 && t1 && t1 != t0, "second test device");
  if (!t0 || !t1) return check_done();
  CHECK(strcmp(nx_device_name(t0), "test:0") == 0 && strcmp(nx_device_name(t1), "test:1") == 0, "names %s %s",
        nx_device_name(t0), nx_device_name(t1));
  CHECK(strcmp(nx_device_description(t0), "test device") == 0, "test description %s", nx_device_description(t0));
  CHECK(nx_rig_find("test:1", &d) == 0 && d == t1, "find test:1");
  check_enumeration(2);
  CHECK(nx_test_device_fail(r.host, NX_FAULT_AT_SUBMIT) == NX_EINVAL, "fail on the host");
  CHECK(nx_test_device_fail(NULL, NX_FAULT_AT_SUBMIT) == NX_EINVAL, "fail on NULL");
  if (have) CHECK(nx_test_device_fail(r.ocl0, NX_FAULT_AT_SUBMIT) == NX_EINVAL, "fail on opencl:0");
  CHECK(nx_test_device_fail(t1, NX_FAULT_NONE) == 0, "arming nothing");
  CHECK(!nx_device_lost(r.host) && !nx_device_lost(t1), "nothing lost");

  /* Memory kinds and host addressing. */
  nx_memory_kind kinds[3] = {NX_MEMORY_DEVICE, NX_MEMORY_HOST, NX_MEMORY_IO};
  struct { nx_device *d; bool has[3], addr[3]; } want[] = {
      {r.host, {true, true, false}, {true, true, false}},
      {r.ocl0, {true, true, true}, {false, true, true}},
      {r.ocl1, {true, true, true}, {false, true, true}},
      {t0, {true, false, false}, {false, false, false}},
  };
  for (int i = 0; i < 4; i++) {
    if (!want[i].d) continue;
    for (int k = 0; k < 3; k++) {
      CHECK(nx_device_has_memory(want[i].d, kinds[k]) == want[i].has[k], "%s has %s memory: %d",
            nx_device_name(want[i].d), kind_name(kinds[k]), nx_device_has_memory(want[i].d, kinds[k]));
      CHECK(nx_device_host_addresses(want[i].d, kinds[k]) == want[i].addr[k], "host addresses %s's %s memory: %d",
            nx_device_name(want[i].d), kind_name(kinds[k]), nx_device_host_addresses(want[i].d, kinds[k]));
    }
    CHECK(!nx_device_has_memory(want[i].d, (nx_memory_kind)7), "%s has memory of kind 7", nx_device_name(want[i].d));
  }
  CHECK(!nx_device_has_memory(NULL, NX_MEMORY_DEVICE) && !nx_device_host_addresses(NULL, NX_MEMORY_HOST), "NULL");

  /* can_map: a buffer of every kind on every device against every device.
     Its own device always; the host, host-addressed memory; an OpenCL
     device, the host's memory, host-addressed memory, and its platform's
     (one here); a test device, only its own. */
  nx_device *devs[5] = {r.host, r.ocl0, r.ocl1, t0, t1};
  for (int i = 0; i < 5; i++) {
    if (!devs[i]) continue;
    for (int k = 0; k < 3; k++) {
      if (!nx_device_has_memory(devs[i], kinds[k])) continue;
      nx_buffer *b = NULL;
      int s = nx_buffer_create(devs[i], kinds[k], NX_ACCESS_READ_WRITE, 64, &b);
      CHECK(s == 0, "create %s on %s: %s", kind_name(kinds[k]), nx_device_name(devs[i]), nx_error_message());
      if (s) continue;
      bool addressed = nx_device_host_addresses(devs[i], kinds[k]);
      CHECK((nx_buffer_host_address(b) != NULL) == addressed, "host address of %s memory on %s",
            kind_name(kinds[k]), nx_device_name(devs[i]));
      for (int j = 0; j < 5; j++) {
        if (!devs[j]) continue;
        bool expect;
        bool is_ocl_j = j == 1 || j == 2, is_ocl_i = i == 1 || i == 2;
        if (i == j) expect = true;
        else if (j == 0) expect = addressed;
        else if (is_ocl_j) expect = i == 0 || addressed || is_ocl_i;
        else expect = false;
        /* The host's DEVICE memory is host-addressed: an OpenCL device maps it. */
        CHECK(nx_device_can_map(devs[j], b) == expect, "%s can map %s memory of %s: %d, wanted %d",
              nx_device_name(devs[j]), kind_name(kinds[k]), nx_device_name(devs[i]), nx_device_can_map(devs[j], b),
              expect);
      }
      CHECK(!nx_device_can_map(NULL, b) && !nx_device_can_map(r.host, NULL), "can_map of NULL");
      nx_buffer_release(b);
    }
  }

  /* At most 16 test devices: 14 more, then a refusal. */
  int made = 2;
  for (; made < 16; made++) {
    nx_device *t = NULL;
    if (nx_rig_test_device(&t) != 0) break;
  }
  CHECK(made == 16, "made %d test devices, wanted 16", made);
  nx_device *extra = (nx_device *)&extra;
  CHECK(nx_rig_test_device(&extra) == NX_EINVAL, "a 17th test device");
  CHECK(extra == (nx_device *)&extra, "the refusal set its result");
  CHECK(strstr(nx_error_message(), "nx_rig_test_device") != NULL, "message: %s", nx_error_message());
  check_enumeration(16);
  CHECK(nx_rig_find("test:15", &d) == 0 && nx_rig_find("test:16", &d) == NX_EINVAL, "find test:15, test:16");
  return check_done();
}
