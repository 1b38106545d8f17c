/* nx: inspect, print and convert tensors. Subcommands live in cmd_*.c. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *help;
} commands[] = {
    {"dtypes", nx_cmd_dtypes, "the table of every dtype and its facts"},
    {"devices", nx_cmd_devices, "every device, its memory kinds and what it is"},
    {"info", nx_cmd_info, "a tensor file's tensors, metadata and totals"},
    {"show", nx_cmd_show, "a tensor's elements, numpy-style, through a slice"},
    {"convert", nx_cmd_convert, "convert tensor files between formats and dtypes"},
    {"diff", nx_cmd_diff, "per tensor, what differs between two tensor files"},
};

int nx_cmd_no_arguments(int argc, char **argv, const char *name, const char *what) {
  if (argc == 1) return -1;
  if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    printf("usage: nx %s\n\n%s\n\nExit status: 0 done, 2 usage.\n", name, what);
    return 0;
  }
  fprintf(stderr, "nx %s: unexpected argument '%s'\nusage: nx %s\n", name, argv[1], name);
  return 2;
}

static void usage(FILE *f) {
  fprintf(f, "usage: nx <command> [arguments] | nx --version\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("nx %s\n", NX_VERSION);
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "nx: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
