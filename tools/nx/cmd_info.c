/* SPDX-License-Identifier: Apache-2.0 */
/* nx info FILE: every tensor's name, dtype, shape, bytes and offset, the
   metadata and the totals; --json for scripts. Reads only the header. */
#include <string.h>

#include "cmd_io.h"
#include "commands.h"

static const char usage[] = "nx info FILE [--json]";

static void help(void) {
  printf("usage: %s\n\n"
         "Lists the tensors of a .npy, .npz, .safetensors or GGUF file: name, dtype (as nx reads it),\n"
         "the file's own type, shape, bytes and offset; then the metadata and the totals. The file is\n"
         "mapped and only its header is read.\n\n"
         "  --json   one JSON object: file, format, bytes, tensors, metadata, totals\n"
         "  --help   this text\n\n"
         "Exit status: 0 done, 1 failed (the file cannot be read or is malformed), 2 usage.\n",
         usage);
}

static const char *dtype_text(const nx_io_tensor *t) {
  if (!t->has_dtype) return "-";
  return t->raw ? (t->dtype == NX_UINT8 ? "raw8" : "raw16") : nx_dtype_name(t->dtype);
}

static void json(nx_io_file *f) {
  printf("{\"file\": ");
  nx_tool_json_string(stdout, nx_io_file_path(f));
  printf(", \"format\": \"%s\", \"bytes\": %lld, \"tensors\": [", nx_io_format_name(nx_io_file_format(f)),
         (long long)nx_io_file_bytes(f));
  int64_t total = 0;
  for (int i = 0; i < nx_io_file_count(f); i++) {
    const nx_io_tensor *t = nx_io_file_tensor(f, i);
    char shape[1024];
    printf("%s{\"name\": ", i ? ", " : "");
    nx_tool_json_string(stdout, t->name);
    printf(", \"dtype\": ");
    if (t->has_dtype) printf("\"%s\"", dtype_text(t));
    else printf("null");
    printf(", \"type\": ");
    nx_tool_json_string(stdout, t->type);
    printf(", \"shape\": %s, \"bytes\": %lld, \"offset\": %lld}", nx_tool_shape(t->shape, t->rank, shape, sizeof shape),
           (long long)t->bytes, (long long)t->offset);
    total += t->bytes;
  }
  printf("], \"metadata\": {");
  for (int i = 0; i < nx_io_file_metadata_count(f); i++) {
    const char *k, *v;
    nx_io_file_metadata(f, i, &k, &v);
    printf("%s", i ? ", " : "");
    nx_tool_json_string(stdout, k);
    printf(": ");
    nx_tool_json_string(stdout, v);
  }
  printf("}, \"totals\": {\"tensors\": %d, \"bytes\": %lld}}\n", nx_io_file_count(f), (long long)total);
}

static void table(nx_io_file *f) {
  printf("%s: %s, %lld bytes\n", nx_io_file_path(f), nx_io_format_name(nx_io_file_format(f)),
         (long long)nx_io_file_bytes(f));
  int width = 4;
  for (int i = 0; i < nx_io_file_count(f); i++) {
    int n = (int)strlen(nx_io_file_tensor(f, i)->name);
    if (n > width) width = n < 60 ? n : 60;
  }
  printf("%-*s %-14s %-12s %-20s %14s %14s\n", width, "name", "dtype", "type", "shape", "bytes", "offset");
  int64_t total = 0;
  for (int i = 0; i < nx_io_file_count(f); i++) {
    const nx_io_tensor *t = nx_io_file_tensor(f, i);
    char shape[1024];
    printf("%-*s %-14s %-12s %-20s %14lld %14lld\n", width, t->name, dtype_text(t), t->type,
           nx_tool_shape(t->shape, t->rank, shape, sizeof shape), (long long)t->bytes, (long long)t->offset);
    total += t->bytes;
  }
  if (nx_io_file_metadata_count(f)) printf("metadata:\n");
  for (int i = 0; i < nx_io_file_metadata_count(f); i++) {
    const char *k, *v;
    nx_io_file_metadata(f, i, &k, &v);
    printf("  %s: ", k);
    /* one pair a line: a line break or tab inside a value is shown escaped */
    for (const char *c = v; *c; c++)
      if (*c == '\n' || *c == '\r' || *c == '\t') printf("\\%c", *c == '\n' ? 'n' : *c == '\r' ? 'r' : 't');
      else putchar(*c);
    putchar('\n');
  }
  printf("%d tensor%s, %lld bytes of data\n", nx_io_file_count(f), nx_io_file_count(f) == 1 ? "" : "s", (long long)total);
}

int nx_cmd_info(int argc, char **argv) {
  const char *path = NULL;
  bool as_json = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      help();
      return NX_EXIT_DONE;
    } else if (!strcmp(argv[i], "--json")) {
      as_json = true;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return nx_tool_usage("info", usage, "unknown option '%s'", argv[i]);
    } else if (path) {
      return nx_tool_usage("info", usage, "unexpected argument '%s'", argv[i]);
    } else {
      path = argv[i];
    }
  }
  if (!path) return nx_tool_usage("info", usage, "no FILE given");
  nx_io_file *f = nx_tool_open("info", path);
  if (!f) return NX_EXIT_FAILED;
  if (as_json) json(f);
  else table(f);
  nx_io_close(f);
  return NX_EXIT_DONE;
}
