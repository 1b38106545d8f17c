/* SPDX-License-Identifier: Apache-2.0 */
/* Threefry-2x32 with 20 rounds (the construction's rotation constants and
   key schedule: a key injection after every fourth round, the third key
   word the parity constant 0x1BD11BDA xor the two key words), over the word
   pairs along the last axis, the low word first. */
#include "../index/walk.h"
#include "nx_index.h"

static const int rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};

static inline uint32_t rotl(uint32_t x, int r) { return x << r | x >> (32 - r); }

static void threefry2x32(const uint32_t key[2], const uint32_t ctr[2], uint32_t out[2]) {
  uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  uint32_t x0 = ctr[0] + ks[0], x1 = ctr[1] + ks[1];
  for (int r = 0; r < 20; r++) {
    x0 += x1;
    x1 = rotl(x1, rot[r % 8]);
    x1 ^= x0;
    if (r % 4 == 3) {
      uint32_t s = (uint32_t)(r + 1) / 4;
      x0 += ks[s % 3];
      x1 += ks[(s + 1) % 3] + s;
    }
  }
  out[0] = x0, out[1] = x1;
}

static bool word_dtype(nx_dtype d) { return d == NX_INT32 || d == NX_UINT32; }

/* ops: z, key, ctr */
static nx_answer kernel(void *vc, const nx_operand *ops, int nw, int nr) {
  (void)vc, (void)nw, (void)nr;
  for (int k = 0; k < 3; k++)
    if (!word_dtype(ops[k].dtype)) return NX_WRONG_DTYPE;
  if (!nx__same_shape(ops, 3)) return NX_SHAPE_MISMATCH;
  const nx_layout *l = ops[0].layout;
  int r = l->rank;
  if (r == 0 || l->extent[r - 1] != 2) return NX_SHAPE_MISMATCH;
  int64_t pairs = 1;
  for (int j = 0; j < r - 1; j++) pairs *= l->extent[j];
  if (pairs == 0) return NX_DONE;
  const int64_t *str[3] = {ops[0].layout->stride, ops[1].layout->stride, ops[2].layout->stride};
  int64_t p0[3] = {ops[0].layout->offset, ops[1].layout->offset, ops[2].layout->offset};
  bool skip[NX_MAX_RANK] = {false};
  skip[r - 1] = true;
  nx__walker w;
  nx__walk_init(&w, r, l->extent, 3, p0, str, skip);
  uint32_t *zb = ops[0].base;
  const uint32_t *kb = ops[1].base, *cb = ops[2].base;
  int64_t zs = str[0][r - 1], ks = str[1][r - 1], cs = str[2][r - 1];
  do {
    uint32_t key[2] = {kb[w.pos[1]], kb[w.pos[1] + ks]}, ctr[2] = {cb[w.pos[2]], cb[w.pos[2] + cs]}, out[2];
    threefry2x32(key, ctr, out);
    /* read before written: z may be key or counter */
    zb[w.pos[0]] = out[0];
    zb[w.pos[0] + zs] = out[1];
  } while (nx__walk_next(&w));
  return NX_DONE;
}

/* nx_threefry under the name of the function called, so that a failure of
   nx_threefry_new names it. */
static int threefry(const char *name, nx_array *z, nx_array *key, nx_array *ctr, bool made) {
  nx_array *ops[3] = {z, key, ctr};
  int s = nx__need(name, ops, 3);
  if (s) return s;
  int ans = nx_door_host(ops, 1, ops + 1, 2, kernel, NULL);
  return nx__finish(name, "the host kernel", ans, ops + made, 3 - made, nx_array_dtype(ctr)); /* made: z not named */
}

int nx_threefry(nx_array *z, nx_array *key, nx_array *ctr) { return threefry("nx_threefry", z, key, ctr, false); }

int nx_threefry_new(nx_array **z, nx_array *key, nx_array *ctr) {
  if (!z || !key || !ctr)
    return nx__fail(NX_EINVAL, "nx_threefry_new: %s is NULL", !z ? "the result pointer" : !key ? "operand 0" : "operand 1");
  nx_array *out;
  int s = nx__make_like("nx_threefry_new", ctr, nx_array_dtype(ctr), &out);
  if (s) return s;
  if ((s = threefry("nx_threefry_new", out, key, ctr, true))) {
    nx_array_free(out);
    return s;
  }
  *z = out;
  return 0;
}
