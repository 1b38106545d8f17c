/* The nx command's subcommands: each takes its own argv (argv[0] is its
   name) and returns the process's exit status. */
#ifndef NX_TOOLS_COMMANDS_H
#define NX_TOOLS_COMMANDS_H

int nx_cmd_dtypes(int argc, char **argv);
int nx_cmd_devices(int argc, char **argv);
int nx_cmd_info(int argc, char **argv);
int nx_cmd_show(int argc, char **argv);
int nx_cmd_convert(int argc, char **argv);
int nx_cmd_diff(int argc, char **argv);

/* For a subcommand that takes no arguments: its --help (usage and `what` on
   stdout) gives 0, any other argument 2 with the usage on stderr, none -1
   (run it). */
int nx_cmd_no_arguments(int argc, char **argv, const char *name, const char *what);

#endif
