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

static void usage(FILE *f) {
  fprintf(f, "usage: nx <command> [arguments]\n\ncommands:\n");
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
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "nx: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
