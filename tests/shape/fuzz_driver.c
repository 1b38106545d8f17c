/* SPDX-License-Identifier: Apache-2.0 */
/* Runs the spec fuzz target without a fuzzer: a built-in corpus, then 10^5
   random and mutated strings from a fixed seed. Every program must keep the
   properties fuzz_spec.c checks after each call (a status of 0 or a shape
   error with its message, the session tainted exactly after a shape error);
   a crash, a leak (under ASan) or a hang (ctest's timeout) fails it too. The
   count of programs that met an error and of those that closed is checked
   so that neither kind of program goes missing from the run. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "fuzz_spec.h"

static const char *corpus[] = {
    "ab|cd->ef => cf|ae->db", "a|i->h; b|h->o => ab|i->o", "...|...->... => 0", "i; j => i->j",
    "i->...o => ...io", "ab;bc=>ac", "a..r..;..r..b=>ab", "ij;jk=>im", "a,b,..r.. => ..r..,b,a",
    "2*o+1, k => o", "a^b => ab", "a,b^c,d => d,a", "..x..|..y..->..z.. => ..z..", "_ => _",
    "=>", "", "a", "a=>", "=>a", "a;b;c;d=>a", "......=>", "..r", "...r..=>", "a|b|c=>", "a->b->c=>",
    "1*a+99999999999999999999=>a", "a,,b=>a", "a, => a", ",=>,", "|->=>|->", "9;9;9=>9",
    "o=+k; k => o", "2*o<+3*k; k => o", "s*o<+d*k; k => o", "o+k => o", "2*o=+1+k, c; k, c => o",
    "o<+2*k; k => o", "i^j => i", "ii; jj; kk; ll => ii^jj^kk^ll", "o= => o", "o<+ => o",
};

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static long nviolations, ends[4];

static void one(const char *data, size_t n) {
  char why[512];
  int end;
  int bad = nx_test_shape_fuzz_program((const uint8_t *)data, n, why, sizeof why, &end);
  ends[end]++;
  if (bad) {
    nviolations++;
    CHECK(0, "program \"%.*s\": %s", (int)n, data, why);
  }
}

int main(void) {
  const char alphabet[] = "abcijkor.,;|-<>=>^*+_0123 456789xyz";
  int ncorpus = (int)(sizeof corpus / sizeof *corpus);
  for (int i = 0; i < ncorpus; i++) one(corpus[i], strlen(corpus[i]));
  char buf[64];
  for (long it = 0; it < 100000; it++) {
    size_t n;
    if (it % 2) { /* mutate a corpus entry */
      const char *c = corpus[next() % (uint64_t)ncorpus];
      n = strlen(c);
      memcpy(buf, c, n);
      int edits = 1 + (int)(next() % 4);
      for (int e = 0; e < edits; e++) {
        uint64_t k = next();
        if (n < sizeof buf - 1 && (k & 1)) { /* insert */
          size_t at = n ? (size_t)(k >> 8) % (n + 1) : 0;
          memmove(buf + at + 1, buf + at, n - at);
          buf[at] = alphabet[(k >> 40) % (sizeof alphabet - 1)];
          n++;
        } else if (n) { /* replace or delete */
          size_t at = (size_t)(k >> 8) % n;
          if (k & 2) buf[at] = (char)(k >> 48);
          else memmove(buf + at, buf + at + 1, --n - at);
        }
      }
    } else {
      n = next() % 40;
      for (size_t i = 0; i < n; i++) buf[i] = alphabet[next() % (sizeof alphabet - 1)];
    }
    one(buf, n);
  }
  CHECK(nviolations == 0, "%ld of 100000 programs broke a property", nviolations);
  CHECK(ends[FUZZ_CLOSED] >= 20 && ends[FUZZ_SHAPE_ERROR] > 100 && ends[FUZZ_SPEC_REFUSED] > 100,
        "programs closed %ld, met a shape error %ld, refused %ld", ends[FUZZ_CLOSED], ends[FUZZ_SHAPE_ERROR],
        ends[FUZZ_SPEC_REFUSED]);
  printf("programs: %ld closed, %ld met a shape error, %ld refused\n", ends[FUZZ_CLOSED], ends[FUZZ_SHAPE_ERROR],
         ends[FUZZ_SPEC_REFUSED]);
  return check_done();
}
