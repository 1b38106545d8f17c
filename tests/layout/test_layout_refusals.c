/* SPDX-License-Identifier: Apache-2.0 */
/* Every refusal nx_layout.h documents: each call returns NX_EINVAL, leaves
   its out-parameters as they were, and sets a message that names the
   function. Movements are refused where they are applied (nx_move_shape and
   nx_layout_move, both checked for each), their constructors only for n out
   of [0, NX_MAX_RANK] and missing pointers. Also the None answers that are
   no failure: they leave the out-parameter and the message alone. */
#include <inttypes.h>
#include <string.h>

#include "../check.h"
#include "layout_model.h"

/* Sets the message to one that names no layout function, so a check of the
   message sees the call's own. */
static void prime(void) { (void)nx_status_name(0); }

static const char *last_message(void) { return nx_error_message(); }

/* A sentinel-filled layout, and whether l still is one. */
static void fill(nx_layout *l) { memset(l, 0xA5, sizeof *l); }
static bool untouched(const nx_layout *l) {
  nx_layout s;
  fill(&s);
  return memcmp(&s, l, sizeof s) == 0;
}

/* The status of a call, checked as a refusal naming fn. */
#define REFUSED(what, fn, call)                                                                                        \
  do {                                                                                                                 \
    prime();                                                                                                           \
    int rc_ = (call);                                                                                                  \
    CHECK(rc_ == NX_EINVAL, "%s: %s returned %d, want NX_EINVAL (%d)", what, #call, rc_, NX_EINVAL);                  \
    CHECK(rc_ != NX_EINVAL || names(fn), "%s: %s: message \"%s\" does not name %s", what, #call, last_message(), fn); \
  } while (0)

static nx_layout make(int rank, const int64_t *ext, const int64_t *str, int64_t off) {
  nx_layout l;
  int st = nx_layout_make(rank, ext, str, off, &l);
  CHECK(st == 0, "nx_layout_make for a test layout: %d (%s)", st, nx_error_message());
  return l;
}

/* m applied to l is refused by nx_move_shape and by nx_layout_move, both
   leaving their out-parameters alone. */
static void refused_move(const char *what, const nx_move *m, const nx_layout *l) {
  sbuf mb = {0}, lb = {0};
  sb_move(&mb, m);
  sb_layout(&lb, l);
  int64_t out[NX_MAX_RANK];
  for (int k = 0; k < NX_MAX_RANK; k++) out[k] = -77;
  int orank = -77;
  prime();
  int st = nx_move_shape(m, l->extent, l->rank, out, &orank);
  bool same = orank == -77;
  for (int k = 0; k < NX_MAX_RANK; k++) same = same && out[k] == -77;
  CHECK(st == NX_EINVAL && same, "%s: nx_move_shape(%s) on %s: status %d, out rank %d, want NX_EINVAL and out untouched", what, mb.s, lb.s, st, orank);
  CHECK(st != NX_EINVAL || names("nx_move_shape"), "%s: nx_move_shape(%s): message \"%s\" does not name nx_move_shape", what, mb.s, nx_error_message());
  nx_layout r;
  fill(&r);
  prime();
  st = nx_layout_move(m, l, &r);
  CHECK(st == NX_EINVAL && untouched(&r), "%s: nx_layout_move(%s) on %s: status %d, want NX_EINVAL and out untouched", what, mb.s, lb.s, st);
  CHECK(st != NX_EINVAL || names("nx_layout_move"), "%s: nx_layout_move(%s): message \"%s\" does not name nx_layout_move", what, mb.s, nx_error_message());
}

/* m applied to l succeeds (a control next to the refusals). */
static void accepted_move(const char *what, const nx_move *m, const nx_layout *l) {
  nx_layout r;
  int st = nx_layout_move(m, l, &r);
  sbuf mb = {0};
  sb_move(&mb, m);
  CHECK(st == 0, "%s: nx_layout_move(%s): status %d (%s), want a layout", what, mb.s, st, nx_error_message());
}

int main(void) {
  nx_layout l;
  nx_move m;
  const int64_t big = (int64_t)1 << 32;

  /* ---- Constructors of layouts ---- */
  {
    int64_t ext[NX_MAX_RANK + 1], str[NX_MAX_RANK + 1];
    for (int k = 0; k <= NX_MAX_RANK; k++) {
      ext[k] = 1;
      str[k] = 1;
    }
    fill(&l);
    REFUSED("rank -1", "nx_layout_contiguous", nx_layout_contiguous(ext, -1, &l));
    REFUSED("rank past NX_MAX_RANK", "nx_layout_contiguous", nx_layout_contiguous(ext, NX_MAX_RANK + 1, &l));
    REFUSED("rank -1", "nx_layout_make", nx_layout_make(-1, ext, str, 0, &l));
    REFUSED("rank past NX_MAX_RANK", "nx_layout_make", nx_layout_make(NX_MAX_RANK + 1, ext, str, 0, &l));
    REFUSED("rank past NX_MAX_RANK, NULL strides", "nx_layout_make", nx_layout_make(NX_MAX_RANK + 1, ext, NULL, 0, &l));
    CHECK(untouched(&l), "a refused layout constructor wrote its out-parameter");
    CHECK(nx_layout_contiguous(ext, NX_MAX_RANK, &l) == 0 && l.rank == NX_MAX_RANK, "nx_layout_contiguous at NX_MAX_RANK: %s", nx_error_message());

    int64_t neg[3] = {2, -1, 3};
    fill(&l);
    REFUSED("negative extent", "nx_layout_contiguous", nx_layout_contiguous(neg, 3, &l));
    REFUSED("negative extent", "nx_layout_make", nx_layout_make(3, neg, str, 0, &l));
    REFUSED("negative extent, NULL strides", "nx_layout_make", nx_layout_make(3, neg, NULL, 0, &l));
    int64_t negz[2] = {0, -2};
    REFUSED("negative extent beside a zero", "nx_layout_contiguous", nx_layout_contiguous(negz, 2, &l));

    int64_t over1[2] = {big, big}, over2[2] = {INT64_MAX, 2}, over3[3] = {3, INT64_MAX / 2, 2};
    int64_t zs[3] = {0, 0, 0};
    REFUSED("count 2^64", "nx_layout_contiguous", nx_layout_contiguous(over1, 2, &l));
    REFUSED("count 2 * INT64_MAX", "nx_layout_contiguous", nx_layout_contiguous(over2, 2, &l));
    REFUSED("count 3 * (INT64_MAX / 2) * 2", "nx_layout_contiguous", nx_layout_contiguous(over3, 3, &l));
    REFUSED("count 2^64 at stride 0", "nx_layout_make", nx_layout_make(2, over1, zs, 0, &l));
    REFUSED("count 2 * INT64_MAX at stride 0", "nx_layout_make", nx_layout_make(2, over2, zs, 0, &l));
    CHECK(untouched(&l), "a refused layout constructor wrote its out-parameter");
    /* The invariant bounds the hull, [0, count - 1] for C strides, below 2^62. */
    int64_t fits[2] = {NX_LAYOUT_LIMIT, 1}, past[2] = {NX_LAYOUT_LIMIT + 1, 1}, cmax[2] = {INT64_MAX, 1};
    CHECK(nx_layout_contiguous(fits, 2, &l) == 0, "count 2^62 (positions to 2^62 - 1) is refused: %s", nx_error_message());
    REFUSED("count 2^62 + 1, position 2^62", "nx_layout_contiguous", nx_layout_contiguous(past, 2, &l));
    REFUSED("count INT64_MAX", "nx_layout_contiguous", nx_layout_contiguous(cmax, 2, &l));

    /* Positions and stride * extent past int64. */
    int64_t e2[1] = {2}, smax[1] = {INT64_MAX}, sm1[1] = {-1}, shalf[1] = {INT64_MAX / 2 + 1};
    fill(&l);
    REFUSED("position INT64_MAX + 1", "nx_layout_make", nx_layout_make(1, e2, smax, 1, &l));
    REFUSED("stride INT64_MAX times extent 2", "nx_layout_make", nx_layout_make(1, e2, smax, 0, &l));
    REFUSED("position INT64_MIN - 1", "nx_layout_make", nx_layout_make(1, e2, sm1, INT64_MIN, &l));
    REFUSED("stride (INT64_MAX/2+1) times extent 2", "nx_layout_make", nx_layout_make(1, e2, shalf, -5, &l));
    int64_t e3[2] = {2, 2}, s3[2] = {INT64_MAX / 2, INT64_MAX / 2};
    REFUSED("two strides summing past INT64_MAX", "nx_layout_make", nx_layout_make(2, e3, s3, 2, &l));
    CHECK(untouched(&l), "a refused nx_layout_make wrote its out-parameter");
    int64_t e1[1] = {1};
    /* The invariant bounds every stride, an axis of extent 1 included. */
    int64_t sfit[1] = {NX_LAYOUT_LIMIT - 1};
    REFUSED("stride INT64_MAX on an axis of extent 1", "nx_layout_make", nx_layout_make(1, e1, smax, 0, &l));
    CHECK(nx_layout_make(1, e1, sfit, 0, &l) == 0, "stride 2^62 - 1 on an axis of extent 1 is refused: %s", nx_error_message());
  }

  /* ---- Facts ---- */
  {
    int64_t ext[2] = {2, 3};
    l = make(2, ext, NULL, 0);
    int64_t p = -77;
    int64_t bad[][2] = {{-1, 0}, {2, 0}, {0, 3}, {0, -1}, {INT64_MIN, 0}, {0, INT64_MAX}};
    for (int k = 0; k < 6; k++) {
      REFUSED("index out of range", "nx_layout_position", nx_layout_position(&l, bad[k], &p));
      CHECK(p == -77, "a refused nx_layout_position wrote its out-parameter");
    }
    int64_t lo = -77, hi = -77;
    REFUSED("width 0", "nx_layout_bits", nx_layout_bits(&l, 0, &lo, &hi));
    REFUSED("width -8", "nx_layout_bits", nx_layout_bits(&l, -8, &lo, &hi));
    int64_t e1[1] = {1};
    nx_layout far = make(1, e1, NULL, INT64_MAX / 4);
    REFUSED("bits past int64", "nx_layout_bits", nx_layout_bits(&far, 64, &lo, &hi));
    nx_layout farneg = make(1, e1, NULL, INT64_MIN / 4);
    REFUSED("bits below int64", "nx_layout_bits", nx_layout_bits(&farneg, 8, &lo, &hi));
    CHECK(lo == -77 && hi == -77, "a refused nx_layout_bits wrote its out-parameters");

    /* None is no failure: message and out-parameters untouched. */
    int64_t z[2] = {3, 0};
    nx_layout empty = make(2, z, NULL, 5);
    prime();
    char before[256];
    snprintf(before, sizeof before, "%s", nx_error_message());
    CHECK(nx_layout_span(&empty, &lo, &hi) == NX_NONE && lo == -77 && hi == -77, "span of no element");
    CHECK(nx_layout_bits(&empty, 8, &lo, &hi) == NX_NONE && lo == -77 && hi == -77, "bits of no element");
    CHECK(strcmp(before, nx_error_message()) == 0, "a None answer changed the message to \"%s\"", nx_error_message());
    REFUSED("width 0 on no element", "nx_layout_bits", nx_layout_bits(&empty, 0, &lo, &hi));
  }

  /* ---- Constructors of movements ---- */
  {
    int64_t s[NX_MAX_RANK + 1] = {0};
    int o[NX_MAX_RANK + 1] = {0};
    nx_move mm;
    memset(&mm, 0xA5, sizeof mm);
    nx_move sent = mm;
    const int ns[2] = {-1, NX_MAX_RANK + 1};
    for (int k = 0; k < 2; k++) {
      int n = ns[k];
      REFUSED("n out of range", "nx_move_reshape", nx_move_reshape(&mm, s, n));
      REFUSED("n out of range", "nx_move_permute", nx_move_permute(&mm, o, n));
      REFUSED("n out of range", "nx_move_expand", nx_move_expand(&mm, s, n));
      REFUSED("n out of range", "nx_move_shrink", nx_move_shrink(&mm, s, s, n));
      REFUSED("n out of range", "nx_move_slice", nx_move_slice(&mm, s, s, s, n));
      REFUSED("n out of range", "nx_move_flip", nx_move_flip(&mm, o, n));
      REFUSED("n out of range", "nx_move_squeeze", nx_move_squeeze(&mm, o, n));
    }
    REFUSED("NULL shape", "nx_move_reshape", nx_move_reshape(&mm, NULL, 1));
    REFUSED("NULL order", "nx_move_permute", nx_move_permute(&mm, NULL, 2));
    REFUSED("NULL shape", "nx_move_expand", nx_move_expand(&mm, NULL, 1));
    REFUSED("NULL starts", "nx_move_shrink", nx_move_shrink(&mm, NULL, s, 1));
    REFUSED("NULL stops", "nx_move_shrink", nx_move_shrink(&mm, s, NULL, 1));
    REFUSED("NULL starts", "nx_move_slice", nx_move_slice(&mm, NULL, s, s, 1));
    REFUSED("NULL stops", "nx_move_slice", nx_move_slice(&mm, s, NULL, s, 1));
    REFUSED("NULL steps", "nx_move_slice", nx_move_slice(&mm, s, s, NULL, 1));
    REFUSED("NULL axes", "nx_move_flip", nx_move_flip(&mm, NULL, 1));
    REFUSED("NULL axes", "nx_move_squeeze", nx_move_squeeze(&mm, NULL, 1));
    CHECK(memcmp(&mm, &sent, sizeof mm) == 0, "a refused movement constructor wrote its out-parameter");
    /* n = 0 needs no pointer; NX_MAX_RANK is allowed. */
    CHECK(nx_move_reshape(&mm, NULL, 0) == 0 && nx_move_permute(&mm, NULL, 0) == 0 && nx_move_expand(&mm, NULL, 0) == 0 &&
              nx_move_shrink(&mm, NULL, NULL, 0) == 0 && nx_move_slice(&mm, NULL, NULL, NULL, 0) == 0 &&
              nx_move_flip(&mm, NULL, 0) == 0 && nx_move_squeeze(&mm, NULL, 0) == 0,
          "a constructor with n = 0 and NULL pointers is refused: %s", nx_error_message());
    for (int k = 0; k < NX_MAX_RANK; k++) s[k] = 1;
    CHECK(nx_move_reshape(&mm, s, NX_MAX_RANK) == 0, "reshape to NX_MAX_RANK axes refused: %s", nx_error_message());
  }

  /* ---- Movements refused where they are applied ---- */
  int64_t e23[2] = {2, 3};
  nx_layout l23 = make(2, e23, NULL, 0);
  int64_t e0[2] = {0, 3};
  nx_layout l03 = make(2, e0, NULL, 0);
  {
    int rep[2] = {0, 0}, rep2[2] = {1, -1}, miss[1] = {0}, oor[2] = {0, 2}, oorn[2] = {-3, 0}, extra[3] = {0, 1, 2};
    nx_move_permute(&m, rep, 2);
    refused_move("permute repeats an axis", &m, &l23);
    nx_move_permute(&m, rep2, 2);
    refused_move("permute repeats an axis through a negative one", &m, &l23);
    nx_move_permute(&m, miss, 1);
    refused_move("permute misses an axis", &m, &l23);
    nx_move_permute(&m, oor, 2);
    refused_move("permute axis out of range", &m, &l23);
    nx_move_permute(&m, oorn, 2);
    refused_move("permute negative axis out of range", &m, &l23);
    nx_move_permute(&m, extra, 3);
    refused_move("permute of three axes on two", &m, &l23);
    int ok[2] = {-1, 0};
    nx_move_permute(&m, ok, 2);
    accepted_move("permute [-1, 0]", &m, &l23);
  }
  {
    int64_t a[2] = {2, 4}, b[1] = {3}, c[2] = {2, -2}, d[3] = {-1, 2, 3}, e[2] = {0, 3}, f[2] = {2, 0};
    nx_move_expand(&m, a, 2);
    refused_move("expand of an axis of extent 3 to 4", &m, &l23);
    nx_move_expand(&m, f, 2);
    refused_move("expand of an axis of extent 3 to 0", &m, &l23);
    nx_move_expand(&m, e, 2);
    refused_move("expand of an axis of extent 2 to 0", &m, &l23);
    nx_move_expand(&m, b, 1);
    refused_move("expand to fewer axes", &m, &l23);
    nx_move_expand(&m, c, 2);
    refused_move("expand to a negative extent", &m, &l23);
    nx_move_expand(&m, d, 3);
    refused_move("expand with -1 on a new leading axis (no input extent to keep)", &m, &l23);
    int64_t e13[2] = {1, 3};
    nx_layout l13 = make(2, e13, NULL, 0);
    int64_t big2[3] = {big, big, 3};
    nx_move_expand(&m, big2, 3);
    refused_move("expand to a count past int64", &m, &l13);
    int64_t big3[2] = {INT64_MAX, 3};
    nx_move_expand(&m, big3, 2);
    refused_move("expand to INT64_MAX * 3 elements", &m, &l13);
    int64_t okx[3] = {5, 0, 3};
    nx_move_expand(&m, okx, 3);
    accepted_move("expand [1, 3] to [5, 0, 3]", &m, &l13);
  }
  {
    int64_t s0[2] = {0, 0}, t0[2] = {2, 3};
    int64_t sneg[2] = {-1, 0}, tbig[2] = {2, 4}, sgt[2] = {2, 0}, tlow[2] = {1, 3};
    nx_move_shrink(&m, sneg, t0, 2);
    refused_move("shrink start -1", &m, &l23);
    nx_move_shrink(&m, s0, tbig, 2);
    refused_move("shrink stop past the extent", &m, &l23);
    nx_move_shrink(&m, sgt, tlow, 2);
    refused_move("shrink start > stop", &m, &l23);
    nx_move_shrink(&m, s0, t0, 1);
    refused_move("shrink of one axis on two", &m, &l23);
    int64_t s3[3] = {0, 0, 0}, t3[3] = {1, 1, 1};
    nx_move_shrink(&m, s3, t3, 3);
    refused_move("shrink of three axes on two", &m, &l23);
    int64_t sbig[2] = {INT64_MAX, 0}, tbig2[2] = {INT64_MAX, 3};
    nx_move_shrink(&m, sbig, tbig2, 2);
    refused_move("shrink bounds INT64_MAX", &m, &l23);
    int64_t se[2] = {2, 3};
    nx_move_shrink(&m, se, se, 2);
    accepted_move("shrink to an empty range at the end", &m, &l23);
  }
  {
    int64_t st[2] = {0, 0}, sp[2] = {2, 3}, step0[2] = {1, 0}, step1[3] = {1, 1, 1};
    nx_move_slice(&m, st, sp, step0, 2);
    refused_move("slice step 0", &m, &l23);
    int64_t none[1] = {NX_SLICE_NONE}, z[1] = {0};
    nx_move_slice(&m, none, none, z, 1);
    refused_move("slice step 0, absent bounds", &m, &l03);
    int64_t st3[3] = {0, 0, 0};
    nx_move_slice(&m, st3, st3, step1, 3);
    refused_move("slice of three axes on two", &m, &l23);
  }
  {
    int64_t a[2] = {3, 3}, b[2] = {-1, -1}, c[2] = {2, -2}, d[2] = {-1, 4}, e[2] = {-1, 0}, f[1] = {7};
    nx_move_reshape(&m, a, 2);
    refused_move("reshape of 6 elements to 9", &m, &l23);
    nx_move_reshape(&m, f, 1);
    refused_move("reshape of 6 elements to 7", &m, &l23);
    nx_move_reshape(&m, b, 2);
    refused_move("reshape with two -1 extents", &m, &l23);
    nx_move_reshape(&m, c, 2);
    refused_move("reshape with extent -2", &m, &l23);
    nx_move_reshape(&m, d, 2);
    refused_move("reshape: no whole extent gives -1 (6 / 4)", &m, &l23);
    nx_move_reshape(&m, e, 2);
    refused_move("reshape: -1 beside a zero for 6 elements", &m, &l23);
    refused_move("reshape: -1 beside a zero for no element", &m, &l03);
    int64_t g[2] = {0, 5};
    nx_move_reshape(&m, g, 2);
    refused_move("reshape of 6 elements to [0, 5]", &m, &l23);
    accepted_move("reshape of 0 elements to [0, 5]", &m, &l03);
    int64_t h[2] = {-1, 5};
    nx_move_reshape(&m, h, 2);
    accepted_move("reshape of 0 elements to [-1, 5]", &m, &l03);
    int64_t i[3] = {big, big, 0};
    nx_move_reshape(&m, i, 3);
    refused_move("reshape of 6 elements to [2^32, 2^32, 0]", &m, &l23);
    int64_t j[2] = {big, big};
    nx_move_reshape(&m, j, 2);
    refused_move("reshape of 6 elements to a count past int64", &m, &l23);
  }
  {
    int a[1] = {2}, b[1] = {-3}, c[2] = {0, 0}, d[2] = {1, -1};
    nx_move_flip(&m, a, 1);
    refused_move("flip axis out of range", &m, &l23);
    nx_move_flip(&m, b, 1);
    refused_move("flip negative axis out of range", &m, &l23);
    nx_move_flip(&m, c, 2);
    refused_move("flip an axis twice", &m, &l23);
    nx_move_flip(&m, d, 2);
    refused_move("flip an axis twice through a negative one", &m, &l23);
  }
  {
    int64_t e[3] = {2, 1, 3};
    nx_layout l213 = make(3, e, NULL, 0);
    int a[1] = {0}, b[1] = {3}, c[2] = {1, 1};
    nx_move_squeeze(&m, a, 1);
    refused_move("squeeze of an axis of extent 2", &m, &l213);
    nx_move_squeeze(&m, b, 1);
    refused_move("squeeze axis out of range", &m, &l213);
    nx_move_squeeze(&m, c, 2);
    refused_move("squeeze an axis twice", &m, &l213);
    int ok[1] = {1};
    nx_move_squeeze(&m, ok, 1);
    accepted_move("squeeze axis 1", &m, &l213);
  }
  {
    nx_move_unsqueeze(&m, 3);
    refused_move("unsqueeze at rank + 1", &m, &l23);
    nx_move_unsqueeze(&m, -4);
    refused_move("unsqueeze at -(rank + 2)", &m, &l23);
    int64_t ones[NX_MAX_RANK];
    for (int k = 0; k < NX_MAX_RANK; k++) ones[k] = 1;
    nx_layout full = make(NX_MAX_RANK, ones, NULL, 0);
    for (int ax = -NX_MAX_RANK - 1; ax <= NX_MAX_RANK; ax += ax == 22 ? 10 : 11) {
      nx_move_unsqueeze(&m, ax);
      refused_move("unsqueeze past NX_MAX_RANK", &m, &full);
    }
    nx_move_unsqueeze(&m, -3);
    accepted_move("unsqueeze at -3 on rank 2", &m, &l23);
  }

  /* ---- Bitcast and copies ---- */
  {
    nx_layout r;
    const int bad[] = {0, -8, 2, 3, 12, 24, 48, 256};
    for (int k = 0; k < 8; k++) {
      fill(&r);
      REFUSED("bitcast from a bad width", "nx_layout_bitcast", nx_layout_bitcast(&l23, bad[k], 8, &r));
      REFUSED("bitcast to a bad width", "nx_layout_bitcast", nx_layout_bitcast(&l23, 8, bad[k], &r));
      CHECK(untouched(&r), "a refused nx_layout_bitcast wrote its out-parameter");
    }
    int64_t ones[NX_MAX_RANK];
    for (int k = 0; k < NX_MAX_RANK; k++) ones[k] = 1;
    nx_layout full = make(NX_MAX_RANK, ones, NULL, 0);
    fill(&r);
    REFUSED("narrowing at NX_MAX_RANK", "nx_layout_bitcast", nx_layout_bitcast(&full, 32, 8, &r));
    REFUSED("narrowing at NX_MAX_RANK, sub-byte", "nx_layout_bitcast", nx_layout_bitcast(&full, 8, 1, &r));
    CHECK(untouched(&r), "a refused nx_layout_bitcast wrote its out-parameter");
    CHECK(nx_layout_bitcast(&full, 32, 32, &r) == 0, "equal widths at NX_MAX_RANK refused: %s", nx_error_message());
    int64_t e2[1] = {2}, sh[1] = {INT64_MAX / 2};
    nx_layout wide = make(1, e2, sh, 0);
    fill(&r);
    REFUSED("narrowing whose positions pass int64", "nx_layout_bitcast", nx_layout_bitcast(&wide, 64, 8, &r));
    int64_t e1[1] = {1};
    nx_layout farpos = make(1, e1, NULL, INT64_MAX / 3);
    REFUSED("narrowing whose offset passes int64", "nx_layout_bitcast", nx_layout_bitcast(&farpos, 128, 1, &r));
    CHECK(untouched(&r), "a refused nx_layout_bitcast wrote its out-parameter");
    /* Widening's None is no failure. */
    prime();
    char before[256];
    snprintf(before, sizeof before, "%s", nx_error_message());
    CHECK(nx_layout_bitcast(&l23, 8, 16, &r) == NX_NONE && untouched(&r), "widening [2, 3] by 2: want None");
    CHECK(strcmp(before, nx_error_message()) == 0, "widening's None changed the message to \"%s\"", nx_error_message());

    fill(&r);
    REFUSED("copy width 0", "nx_layout_copy", nx_layout_copy(&l23, 0, &r));
    REFUSED("copy width -1", "nx_layout_copy", nx_layout_copy(&l23, -1, &r));
    CHECK(untouched(&r), "a refused nx_layout_copy wrote its out-parameter");
  }

  return check_done();
}
