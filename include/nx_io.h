/* SPDX-License-Identifier: Apache-2.0 */
/* nx_io.h: tensor files. Reading .npy, .npz, .safetensors and GGUF files,
   and writing .npy, .npz and .safetensors ones.

   Reading. nx_io_open maps a file read-only into memory and parses its
   header; the tensors' bytes stay in the mapping, which is host-addressed
   read-only memory of the rig (a buffer over the mapping, nx_rig.h), so
   opening a file of any size costs only its header. nx_io_load gives an
   array over a tensor: a view of the mapping where the bytes are the
   tensor's elements as nx lays them out (little-endian, on their dtype's
   alignment), and otherwise a fresh host array holding them converted
   (big-endian .npy, a misaligned safetensors buffer, any .npz entry, which
   is read through the zip library).

   Every header is validated before anything is believed: sizes against the
   file, shapes against int64 overflow, offsets against each other. A
   malformed file is refused by nx_io_open with NX_EINVAL and a message
   naming the function, the file and what is wrong ("nx_io_open:
   model.safetensors: invalid offset for tensor `w` (InvalidOffset): ...").

   Writing. A writer collects named arrays and metadata and writes them at
   nx_io_writer_commit into a temporary file in the output's folder, which
   is flushed to disk (fsync) and renamed over the output only once complete:
   a failure at any point leaves no output file, and an existing file of
   that name as it was. A tensor may also be added as a function of another
   array (nx_io_writer_add_transform), computed run by run on the thread
   pool while the file is written, so that a conversion of a large file
   never holds its result in memory.

   Failures return a negative status (NX_EINVAL for bad arguments and
   malformed files, NX_EIO for the system's refusals, NX_ENOMEM) and set
   nx_error_message() naming the function and the file; an option's None is
   NX_NONE with the out-parameter unset. */
#ifndef NX_IO_H
#define NX_IO_H

#include <stdbool.h>
#include <stdint.h>

#include "nx_array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The file formats. */
typedef enum nx_io_format {
  NX_IO_NPY,         /* numpy's .npy, versions 1, 2 and 3 */
  NX_IO_NPZ,         /* numpy's .npz: a zip of .npy entries */
  NX_IO_SAFETENSORS, /* .safetensors */
  NX_IO_GGUF         /* llama.cpp's GGUF, version 2 or 3: read only */
} nx_io_format;

/* nx_io_format_name(fmt) is "npy", "npz", "safetensors" or "gguf", or NULL
   for another value (the message then names the function and the value). */
NX_API const char *nx_io_format_name(nx_io_format fmt);

/* nx_io_format_of_path(path, &fmt) sets fmt to the format that path's
   extension names (.npy, .npz, .safetensors, .gguf, in any case) and returns
   0, or returns NX_NONE, fmt unset, for another extension.
   Fails with NX_EINVAL if path or fmt is NULL. */
NX_API int nx_io_format_of_path(const char *path, nx_io_format *fmt);

/* ---- Reading ----------------------------------------------------------- */

typedef struct nx_io_file nx_io_file;

/* What a file says of one tensor. Strings live as long as the file. */
typedef struct nx_io_tensor {
  const char *name;   /* the tensor's name; "arr" for a .npy file's one array;
                         a .npz entry's name without ".npy" */
  const char *type;   /* the file's own name for its type: "<f4", "BF16", "Q4_0" */
  bool has_dtype;     /* whether nx reads the tensor, as dtype */
  nx_dtype dtype;     /* the dtype nx reads it as, where has_dtype */
  bool raw;           /* dtype holds raw bytes the file gives no type for
                         (a .npy void descr "|V1" or "<V2", as numpy writes
                         bfloat16 and float8 arrays of ml_dtypes): uint8 or
                         uint16, for the caller to reinterpret
                         (nx_array_bitcast) */
  bool fortran;       /* .npy: the bytes are in Fortran order */
  bool big_endian;    /* .npy: the bytes are big-endian (nx_io_load converts) */
  int rank;
  int64_t shape[NX_MAX_RANK]; /* C order: GGUF's dimensions reversed */
  int64_t offset;     /* the first data byte's offset in the file; for a .npz
                         entry its offset inside the entry's .npy bytes */
  int64_t bytes;      /* the data's size in bytes */
} nx_io_tensor;

/* nx_io_open(path, &f) maps the file at path, recognises its format from its
   first bytes (the .npy magic, a zip's, "GGUF", else safetensors), parses
   and validates its header, and sets f to the open file; returns 0.
   - .npy: the magic, a version 1.0, 2.0 or 3.0, a header that fits in the file
     (at most 1 MiB), a Python-literal dict of exactly 'descr',
     'fortran_order' and 'shape' in any order, a numeric descr in either byte
     order ('|b1', '<i1'..'<i8', '<u1'..'<u8', '<f2', '<f4', '<f8', '<c8',
     '<c16' and '>' forms; '<f1' as float8_e5m2, as ml_dtypes writes it; void
     '|V1'/'<V2' as raw bytes), a shape of at most NX_MAX_RANK non-negative
     extents whose element count and byte size fit in an int64, and at least
     that many data bytes. Object, structured, string and date descrs are
     refused.
   - .npz: a zip archive, read by the zip library, of .npy entries (stored or
     deflated, ZIP64 included); each entry's header as above and its declared
     size equal to the header's plus the data's (so a lying or inflating
     entry is refused before anything is decompressed past it); names
     unique.
   - safetensors: as the reference implementation validates: a file of at
     least 8 bytes (HeaderTooSmall), a header length N <= 100000000
     (HeaderTooLarge) within the file (InvalidHeaderLength), UTF-8 JSON
     (InvalidHeader, InvalidHeaderDeserialization) that is an object of
     tensor entries {"dtype", "shape", "data_offsets"} and an optional
     "__metadata__" object of strings (or null: none), without duplicate
     keys or a \u0000 in a string (nx's names are C strings); entries sorted
     by offset cover the data with no hole or overlap (InvalidOffset), each
     of prod(shape) * bits / 8 bytes computed without overflow
     (ValidationOverflow), a whole number of bytes (MisalignedSlice) and
     equal to end - begin (TensorInvalidInfo); the last end is the data's
     size (MetadataIncompleteBuffer). Every safetensors dtype string is
     accepted; those no nx dtype holds (F6_E2M3, F6_E3M2, F8_E8M0,
     F8_E4M3FNUZ, F8_E5M2FNUZ) are listed with has_dtype false.
   - GGUF: version 2 or 3, counts the file can hold, key/value pairs of the
     13 types (unique UTF-8 keys without NUL bytes), tensor infos (unique
     UTF-8 names without NUL bytes, at most
     NX_MAX_RANK dimensions, a known ggml type, a first dimension that is a
     multiple of its block, an offset on general.alignment, default 32)
     whose data lies inside the data section without overlaps; every read
     bounded by the file. Quantized block types (Q4_0, Q8_0,
     the K-quants, ...) are listed by name with has_dtype false.
   Fails with NX_EINVAL naming nx_io_open and the file for a NULL argument or
   a malformed file, NX_EIO where the file cannot be opened or mapped or is
   not a regular file (a folder, a FIFO: refused without waiting on it),
   NX_ENOMEM. */
NX_API int nx_io_open(const char *path, nx_io_file **f);

/* nx_io_close(f) closes f; arrays nx_io_load made stay valid (the mapping
   lasts as long as a buffer over it). NULL is ignored. */
NX_API void nx_io_close(nx_io_file *f);

/* The facts of an open file: its format, its path (as given), its size in
   bytes, and its number of tensors. For a NULL f each sets a message and
   gives NX_IO_NPY, NULL or 0. */
NX_API nx_io_format nx_io_file_format(const nx_io_file *f);
NX_API const char *nx_io_file_path(const nx_io_file *f);
NX_API int64_t nx_io_file_bytes(const nx_io_file *f);
NX_API int nx_io_file_count(const nx_io_file *f);

/* nx_io_file_tensor(f, i) is what f says of its i-th tensor, in the file's
   order (safetensors: by offset; .npz: the archive's), or NULL, with a
   message, if f is NULL or i is outside [0, nx_io_file_count(f)). */
NX_API const nx_io_tensor *nx_io_file_tensor(const nx_io_file *f, int i);

/* nx_io_file_find(f, name, &i) sets i to the index of the tensor named name
   and returns 0, or returns NX_NONE, i unset, if none has that name.
   Fails with NX_EINVAL if an argument is NULL. */
NX_API int nx_io_file_find(const nx_io_file *f, const char *name, int *i);

/* The file's metadata as pairs of strings: safetensors' "__metadata__",
   GGUF's key/value pairs (numbers and booleans in decimal, strings as they
   are up to their first 256 bytes, cut between characters; arrays as "[v, v, ...]" of at most 16 values then "...", with the
   count); .npy and .npz files have none. nx_io_file_metadata_count(f) is
   their number; nx_io_file_metadata(f, i, &key, &value) sets key and value
   (living as long as f) and returns 0.
   Fails with NX_EINVAL if an argument is NULL or i is out of range. */
NX_API int nx_io_file_metadata_count(const nx_io_file *f);
NX_API int nx_io_file_metadata(const nx_io_file *f, int i, const char **key, const char **value);

/* nx_io_load(f, i, &a) sets a to an array of f's i-th tensor, its dtype and
   shape as nx_io_file_tensor says, and returns 0: a read-only view of the
   mapping, or a fresh host array holding the elements converted (see the
   top of this header). The array outlives f.
   Fails with NX_EINVAL naming nx_io_load, the file and the tensor if an
   argument is NULL, i is out of range, or the tensor has no nx dtype (a
   quantized GGUF block type, an F8_E8M0 safetensors tensor); with NX_EIO
   where the zip library cannot read a .npz entry or its bytes do not match
   its checksum; NX_ENOMEM. */
NX_API int nx_io_load(nx_io_file *f, int i, nx_array **a);

/* ---- Writing ----------------------------------------------------------- */

typedef struct nx_io_writer nx_io_writer;

/* nx_io_writer_open(path, fmt, &w) sets w to a writer of a file of format
   fmt at path and returns 0; nothing is written until nx_io_writer_commit.
   Fails with NX_EINVAL naming nx_io_writer_open and path if an argument is
   NULL or fmt is NX_IO_GGUF or no format; NX_ENOMEM. */
NX_API int nx_io_writer_open(const char *path, nx_io_format fmt, nx_io_writer **w);

/* nx_io_writer_metadata(w, key, value) adds a metadata pair (safetensors'
   "__metadata__"; copied) and returns 0.
   Fails with NX_EINVAL if an argument is NULL, key is "" or already added,
   key or value is not UTF-8 (which JSON requires), or the format has no
   metadata (.npy, .npz); NX_ENOMEM. */
NX_API int nx_io_writer_metadata(nx_io_writer *w, const char *key, const char *value);

/* nx_io_writer_add(w, name, a) adds the array a under name (copied) and
   returns 0; w keeps a view of a's elements, whose values at commit are
   written. The formats' limits:
   - .npy: one array, of any dtype: bfloat16 as "<V2", float8 formats as
     "|V1", float4_e2m1fn, int4 and uint4 unpacked to one byte per element
     as "|V1" (ml_dtypes's forms, which numpy loads as raw bytes), bit as
     "|b1";
   - .npz: arrays as for .npy, each an entry "<name>.npy", stored;
   - safetensors: every dtype safetensors has a string for (all but int4,
     uint4, bit and complex128); sub-byte tensors of a whole number of bytes.
   Fails with NX_EINVAL naming nx_io_writer_add, the file, the name and a's
   dtype and shape, if an argument is NULL, name is "" or "__metadata__" or
   already added or, for .npz and safetensors, not UTF-8, a second array goes
   into a .npy, the format cannot hold a's dtype, or a's buffer is dead;
   NX_ENOMEM. A writer
   with nothing added writes an empty file of its format (an .npz of no
   entry, a safetensors file of an empty header). */
NX_API int nx_io_writer_add(nx_io_writer *w, const char *name, const nx_array *a);

/* A function computing n elements of a tensor from n elements of another:
   `in` holds the source's elements in C order and `out` has room for n
   elements of the tensor's dtype, both packed as nx packs them (sub-byte
   elements two or eight to a byte, element 0 in the low bits) and starting
   on a byte. It returns 0, or a status of its own, which fails the commit
   (with that status where it is negative, NX_EINVAL otherwise). */
typedef int (*nx_io_transform_fn)(void *ctx, const void *in, void *out, int64_t n);

/* nx_io_writer_add_transform(w, name, a, dt, f, ctx) adds under name
   (copied) a tensor of dtype dt and a's shape whose elements f computes from
   a's at commit, and returns 0: no array of the result is ever made for a
   .safetensors file. At commit the writer cuts a's elements into runs of
   2^20 (the last one shorter) and calls f(ctx, in, out, n) on each run,
   concurrently on the kernels' thread pool (nx_num_threads()), each run's
   result written to its place in the file as soon as it is made; f must be
   safe to call so (no state shared between calls but what it only reads)
   and must not keep in or out. a's elements are read as nx_io_writer_add's
   are (a copy first where a is off the host or not contiguous). A .npy or
   .npz output is made in memory first, by the same calls. The formats'
   limits are nx_io_writer_add's, for dt and a's shape.
   Fails as nx_io_writer_add does (naming nx_io_writer_add_transform, with
   dt and a's shape), and with NX_EINVAL if f is NULL or dt is no dtype.
   ctx may be NULL. */
NX_API int nx_io_writer_add_transform(nx_io_writer *w, const char *name, const nx_array *a, nx_dtype dt,
                                      nx_io_transform_fn f, void *ctx);

/* nx_io_writer_commit(w) writes everything added into a temporary file in
   the output's folder, flushes it to disk, renames it to the path, and frees
   w; returns 0. Reading an array's elements claims its memory for reading
   and waits for its device work; arrays off the host are copied to it first.
   Fails, freeing w, removing the temporary file and leaving the path as it
   was, with NX_EINVAL for a NULL w or an array nx cannot read (dead buffer,
   held exclusive), NX_EIO naming the file where the system refuses a step
   (no space, no folder, permissions), a transform's status where its
   function fails (naming the tensor), NX_ELOST, NX_ENOMEM. */
NX_API int nx_io_writer_commit(nx_io_writer *w);

/* nx_io_writer_abort(w) frees w writing nothing. NULL is ignored. */
NX_API void nx_io_writer_abort(nx_io_writer *w);

#ifdef __cplusplus
}
#endif
#endif /* NX_IO_H */
