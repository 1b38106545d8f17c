/* SPDX-License-Identifier: Apache-2.0 */
/* nx: inspect nx's dtypes and devices. Subcommands live in cmd_*.c; this
   file reads the options every command shares: --help and --version. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "nx_version.h"

static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
  const char *help;
} commands[] = {
    {"dtypes", nx_cmd_dtypes, "the table of every dtype and its facts",
     "usage: nx dtypes\n\n"
     "Prints one line per dtype, in code order: its code, name, width in bits and\n"
     "kind; for a float format its exponent and fraction widths, whether it has\n"
     "infinities and NaNs, its epsilon, least normal and greatest finite value;\n"
     "and the least and greatest value of every non-complex dtype. Every value is\n"
     "printed in its dtype's format: the shortest text that reads back to it.\n"
     "\"-\" marks a fact the dtype does not have.\n\n"
     "  --help   this text\n\n"
     "Exit status: 0 done, 1 failed (the output could not be written), 2 usage.\n"},
    {"devices", nx_cmd_devices, "every device, its memory kinds and what it is",
     "usage: nx devices\n\n"
     "Prints one line per device nx finds (the host first, then every OpenCL\n"
     "device): its name, the kinds of memory it has (device, host, io; a * marks\n"
     "memory the host addresses) and its description.\n\n"
     "  --help   this text\n\n"
     "Exit status: 0 done, 1 failed (the output could not be written), 2 usage.\n"},
    /* These print their own help (help NULL): they take options. */
    {"info", nx_cmd_info, "a tensor file's tensors, metadata and totals", NULL},
    {"show", nx_cmd_show, "a tensor's elements, numpy-style, through a slice", NULL},
    {"convert", nx_cmd_convert, "convert tensor files between formats and dtypes", NULL},
    {"diff", nx_cmd_diff, "per tensor, what differs between two tensor files", NULL},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f) {
  fprintf(f,
          "usage: nx <command> [--help]\n"
          "       nx --help | --version\n\ncommands:\n");
  for (size_t i = 0; i < NCOMMANDS; i++) fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(f,
          "\n`nx <command> --help` describes a command.\n"
          "\nexit status: 0 done, 1 failed (the reason on stderr), 2 usage error\n");
}

/* Text written to stdout that could not all be written (a full disk, a
   closed pipe) fails the command, help and version included. */
static int flushed(const char *what, int status) {
  if (fflush(stdout) != 0 && status == NX_EXIT_DONE) {
    fprintf(stderr, "nx %s: could not write the output\n", what);
    return NX_EXIT_FAILED;
  }
  return status;
}

static int is_help(const char *a) { return !strcmp(a, "-h") || !strcmp(a, "--help"); }

int nx_cmd_no_arguments(int argc, char **argv) {
  if (argc <= 1) return NX_EXIT_DONE;
  fprintf(stderr, "nx %s: unexpected argument '%s'\nusage: nx %s\n", argv[0], argv[1], argv[0]);
  return NX_EXIT_USAGE;
}

/* Frees what spelled made: every string and the array. */
static void unspell(char **out, int n) {
  for (int k = 0; k < n; k++) free(out[k]);
  free(out);
}

/* A fresh string of prefix and then the n bytes of a; NULL: out of memory. */
static char *joined(const char *prefix, const char *a, size_t n) {
  size_t p = strlen(prefix);
  char *r = malloc(p + n + 1);
  if (r) {
    memcpy(r, prefix, p);
    memcpy(r + p, a, n);
    r[p + n] = 0;
  }
  return r;
}

/* The arguments in the one spelling the commands read: `--opt=value` is
   `--opt value`, and after `--` an argument that starts with '-' is a file
   name, given as `./name` (the same file) so that no command takes it for
   an option. Every string is a fresh copy; NULL: out of memory. unspell
   frees them. */
static char **spelled(int *argc, char **argv) {
  char **out = malloc(sizeof *out * (2 * (size_t)*argc + 1));
  int n = 0;
  bool names = false, ok = out != NULL;
  for (int k = 0; ok && k < *argc; k++) {
    const char *a = argv[k], *eq = strchr(a, '=');
    if (k >= 2 && !names && !strcmp(a, "--")) {
      names = true;
    } else if (k >= 2 && !names && a[0] == '-' && a[1] == '-' && eq && eq > a + 2) {
      ok = (out[n++] = joined("", a, (size_t)(eq - a))) && (out[n++] = joined("", eq + 1, strlen(eq + 1)));
    } else if (names && a[0] == '-') {
      ok = (out[n++] = joined("./", a, strlen(a))) != NULL;
    } else {
      ok = (out[n++] = joined("", a, strlen(a))) != NULL;
    }
  }
  if (!ok) {
    if (out) unspell(out, n); /* the entry that failed is NULL */
    return NULL;
  }
  out[n] = NULL;
  *argc = n;
  return out;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return NX_EXIT_USAGE;
  }
  if (is_help(argv[1]) || !strcmp(argv[1], "help")) {
    if (argc == 2) {
      usage(stdout);
      return flushed(argv[1], NX_EXIT_DONE);
    }
    if (argc > 3) {
      fprintf(stderr, "nx %s: unexpected argument '%s'\n", argv[1], argv[3]);
      return NX_EXIT_USAGE;
    }
    /* nx help <command> */
    for (size_t i = 0; i < NCOMMANDS; i++)
      if (!strcmp(argv[2], commands[i].name)) {
        if (!commands[i].help) {
          char *args[] = {argv[2], "--help", NULL};
          return flushed(argv[2], commands[i].run(2, args));
        }
        fputs(commands[i].help, stdout);
        return flushed(argv[2], NX_EXIT_DONE);
      }
    fprintf(stderr, "nx help: unknown command '%s'\n", argv[2]);
    return NX_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
    if (argc > 2) {
      fprintf(stderr, "nx --version: unexpected argument '%s'\n", argv[2]);
      return NX_EXIT_USAGE;
    }
    /* The library linked in, and the headers the command was built with. */
    printf("nx %s\n", nx_version());
    return flushed(argv[1], NX_EXIT_DONE);
  }
  for (size_t i = 0; i < NCOMMANDS; i++) {
    if (strcmp(argv[1], commands[i].name)) continue;
    if (!(argv = spelled(&argc, argv))) {
      fprintf(stderr, "nx %s: out of memory\n", commands[i].name);
      return NX_EXIT_FAILED;
    }
    for (int k = 2; k < argc && commands[i].help; k++)
      if (is_help(argv[k])) {
        fputs(commands[i].help, stdout);
        unspell(argv, argc);
        return flushed(commands[i].name, NX_EXIT_DONE);
      }
    int status = flushed(commands[i].name, commands[i].run(argc - 1, argv + 1));
    unspell(argv, argc);
    return status;
  }
  fprintf(stderr, "nx: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return NX_EXIT_USAGE;
}
