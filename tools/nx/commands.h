/* SPDX-License-Identifier: Apache-2.0 */
/* The nx command's subcommands: each takes its own argv (argv[0] is its
   name; main has answered --help already) and returns the process's exit
   status: NX_EXIT_DONE, NX_EXIT_FAILED or NX_EXIT_USAGE. */
#ifndef NX_TOOLS_COMMANDS_H
#define NX_TOOLS_COMMANDS_H

/* The exit statuses, as `nx --help` and docs/cli.md state them. */
enum { NX_EXIT_DONE = 0, NX_EXIT_FAILED = 1, NX_EXIT_USAGE = 2 };

int nx_cmd_dtypes(int argc, char **argv);
int nx_cmd_devices(int argc, char **argv);
/* The tensor-file commands answer their own --help (cmd_io.h). */
int nx_cmd_info(int argc, char **argv);
int nx_cmd_show(int argc, char **argv);
int nx_cmd_convert(int argc, char **argv);
int nx_cmd_diff(int argc, char **argv);

/* nx_cmd_no_arguments(argc, argv) is NX_EXIT_DONE for a command that takes
   none, or NX_EXIT_USAGE after naming the first unexpected argument on
   stderr. */
int nx_cmd_no_arguments(int argc, char **argv);

#endif
