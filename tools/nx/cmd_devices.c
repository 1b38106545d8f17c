/* nx devices: every device nx finds, what memory it has and what it maps. */
#include <stdio.h>

#include "commands.h"
#include "nx_rig.h"

int nx_cmd_devices(int argc, char **argv) {
  int early = nx_cmd_no_arguments(argc, argv, "devices",
                                  "Prints every device nx finds (the host, OpenCL devices): its name, the kinds of\nmemory it has (* where the host addresses them) and its description.");
  if (early >= 0) return early;
  static const char *const kinds[] = {"device", "host", "io"};
  nx_device *all[64];
  int n = nx_rig_devices(all, 64);
  printf("%-10s %-22s %s\n", "name", "memory (*: host sees)", "description");
  for (int i = 0; i < n && i < 64; i++) {
    char mem[64];
    int len = 0;
    mem[0] = 0;
    for (int k = NX_MEMORY_DEVICE; k <= NX_MEMORY_IO; k++)
      if (nx_device_has_memory(all[i], (nx_memory_kind)k))
        len += snprintf(mem + len, sizeof mem - (size_t)len, "%s%s%s", len ? " " : "", kinds[k],
                        nx_device_host_addresses(all[i], (nx_memory_kind)k) ? "*" : "");
    printf("%-10s %-22s %s\n", nx_device_name(all[i]), mem, nx_device_description(all[i]));
  }
  return 0;
}
