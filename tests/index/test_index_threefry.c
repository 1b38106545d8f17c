/* SPDX-License-Identifier: Apache-2.0 */
/* nx_threefry against Random123's known answers for threefry2x32_20 (the
   words JAX's threefry_2x32 gives too), on pairs laid out along a last axis
   of stride 1 and, transposed, of another stride; z identical to ctr;
   refusals. */
#include "../check.h"
#include "nx.h"

/* counter, key, the hash: Random123's kat_vectors for threefry2x32 with 20 rounds */
static const uint32_t kat[3][3][2] = {
    {{0x00000000, 0x00000000}, {0x00000000, 0x00000000}, {0x6b200159, 0x99ba4efe}},
    {{0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}, {0x1cb996fc, 0xbb002be7}},
    {{0x243f6a88, 0x85a308d3}, {0x13198a2e, 0x03707344}, {0xc4923a9c, 0x483df7a0}},
};

static nx_array *words(nx_dtype dt, int which, bool transposed) {
  /* [3, 2] in C order, or [2, 3] transposed to [3, 2] */
  int64_t s[2] = {transposed ? 2 : 3, transposed ? 3 : 2};
  nx_array *a = NULL;
  nx_array_host(dt, s, 2, &a);
  uint32_t *p = nx_buffer_host_address(nx_array_buffer(a));
  for (int i = 0; i < 3; i++)
    for (int w = 0; w < 2; w++) p[transposed ? w * 3 + i : i * 2 + w] = kat[i][which][w];
  if (!transposed) return a;
  nx_move m;
  int order[2] = {1, 0};
  nx_move_permute(&m, order, 2);
  nx_array *t = NULL;
  nx_array_move(&m, a, &t);
  nx_array_free(a);
  return t;
}

static void known(nx_dtype dt, bool transposed, bool in_place) {
  nx_array *ctr = words(dt, 0, transposed), *key = words(dt, 1, transposed), *z = NULL;
  int s = in_place ? nx_threefry(ctr, key, ctr) : nx_threefry_new(&z, key, ctr);
  CHECK(s == 0, "threefry %s: %s", nx_dtype_name(dt), nx_error_message());
  if (s) return;
  nx_array *out = in_place ? ctr : z;
  nx_value v[6];
  nx_array_to_array(out, v, 6);
  for (int i = 0; i < 3; i++)
    for (int w = 0; w < 2; w++) {
      uint32_t got = dt == NX_INT32 ? (uint32_t)v[i * 2 + w].i : (uint32_t)v[i * 2 + w].u;
      CHECK(got == kat[i][2][w], "threefry %s transposed %d vector %d word %d: %08x, want %08x", nx_dtype_name(dt),
            transposed, i, w, got, kat[i][2][w]);
    }
  nx_array_free(ctr), nx_array_free(key), nx_array_free(z);
}

static void refusals(void) {
  int64_t s2[2] = {3, 2}, s3[2] = {2, 3};
  nx_array *a, *b, *c, *f, *z = NULL;
  nx_array_host(NX_INT32, s2, 2, &a);
  nx_array_host(NX_INT32, s3, 2, &b);
  nx_array_host(NX_INT32, s3, 2, &c);
  nx_array_host(NX_FLOAT32, s2, 2, &f);
  CHECK(nx_threefry(b, c, b) == NX_EINVAL && strstr(nx_error_message(), "nx_threefry"), "last axis 3: %s",
        nx_error_message());
  CHECK(nx_threefry(a, b, a) == NX_EINVAL, "shapes differ");
  CHECK(nx_threefry(a, f, a) == NX_EINVAL && strstr(nx_error_message(), "float32"), "float32 key: %s",
        nx_error_message());
  CHECK(nx_threefry(NULL, a, a) == NX_EINVAL, "NULL z");
  CHECK(nx_threefry_new(&z, a, NULL) == NX_EINVAL && !z, "NULL ctr");
  nx_array_free(a), nx_array_free(b), nx_array_free(c), nx_array_free(f);
}

int main(void) {
  for (int t = 0; t < 2; t++) {
    known(NX_UINT32, t, false);
    known(NX_INT32, t, t);
  }
  refusals();
  return check_done();
}
