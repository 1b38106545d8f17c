/* SPDX-License-Identifier: Apache-2.0 */
/* The door: claims every operand or none, in runs of NX_MAX_OPERANDS; answers
   the seed's refusals in its precedence; waits (host kernels) and runs the
   kernel under the claims; and the messages of refusals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_internal.h"
#include "../base/alloc.h"

/* l (elements of w bits) placed delta >= 0 bytes further into a memory:
   its offset moved by whole elements, or, where delta is no whole number of
   them (an element wider than its alignment, as complex ones are), l read
   as bytes (w >= 16 then: a byte or narrower divides every delta), as a
   narrowing bitcast reads it. False where that does not fit. */
static bool shifted(nx_layout *l, int *w, int64_t delta) {
  if (delta * 8 % *w == 0) {
    l->offset += delta * 8 / *w;
    return true;
  }
  int64_t r = *w / 8;
  if (l->rank >= NX_MAX_RANK || l->offset > (INT64_MAX - delta) / r) return false;
  for (int j = 0; j < l->rank; j++) {
    if (l->stride[j] > INT64_MAX / r || l->stride[j] < -(INT64_MAX / r)) return false;
    l->stride[j] *= r;
  }
  l->offset = l->offset * r + delta;
  l->extent[l->rank] = r, l->stride[l->rank] = 1, l->rank++;
  *w = 8;
  return true;
}

bool nx__arrays_share(const nx_array *a, const nx_array *b, bool *identical) {
  *identical = false;
  if (!nx_buffer_overlaps(a->b, b->b)) return false;
  nx_layout la = a->l, lb = b->l;
  int wa = nx_dtype_bits_of(a->dt), wb = nx_dtype_bits_of(b->dt);
  /* Memories that hold the same bits: one memory (whatever the host
     addresses), or host pages that meet, where the layouts are compared
     from the lower address: the other one's positions moved by the
     distance. Where that cannot be done, they may share. */
  const char *x = nx_buffer_host_address(a->b), *y = nx_buffer_host_address(b->b);
  if (x != y) {
    if (!x || !y) return true;
    intptr_t delta = (intptr_t)(y - x);
    if (delta > INT64_MAX / 8 || delta < INT64_MIN / 8) return true;
    if (!(delta > 0 ? shifted(&lb, &wb, (int64_t)delta) : shifted(&la, &wa, -(int64_t)delta))) return true;
  }
  *identical = nx_layout_identical(&la, wa, &lb, wb);
  return nx_layout_shares_byte(&la, wa, &lb, wb);
}

/* The operands, written first, as one list over the caller's arrays. */
typedef struct {
  int n, nw;
  nx_array *const *w, *const *r;
} list;

static nx_array *op(const list *L, int i) { return i < L->nw ? L->w[i] : L->r[i - L->nw]; }

static nx_answer of_claim(nx_claim_answer c) {
  return c == NX_CLAIM_DEAD ? NX_DEAD_BUFFER : c == NX_CLAIM_HELD_EXCLUSIVE ? NX_HELD_EXCLUSIVE : NX_READ_ONLY;
}

static void release_upto(const list *L, int upto) {
  for (int i = 0; i < upto; i += NX_MAX_OPERANDS) {
    int k = upto - i < NX_MAX_OPERANDS ? upto - i : NX_MAX_OPERANDS;
    nx_buffer *bs[NX_MAX_OPERANDS];
    bool w[NX_MAX_OPERANDS];
    for (int j = 0; j < k; j++) {
      bs[j] = op(L, i + j)->b;
      w[j] = i + j < L->nw;
    }
    nx_rig_release(k, bs, w);
  }
}

/* Claims every operand or none, run by run: -1 when all are claimed, else
   the refusal by the claim precedence over every operand. */
static int claim_all(const list *L) {
  for (int i = 0; i < L->n; i += NX_MAX_OPERANDS) {
    int k = L->n - i < NX_MAX_OPERANDS ? L->n - i : NX_MAX_OPERANDS;
    nx_buffer *bs[NX_MAX_OPERANDS];
    bool w[NX_MAX_OPERANDS];
    nx_claim_answer ans[NX_MAX_OPERANDS];
    for (int j = 0; j < k; j++) {
      bs[j] = op(L, i + j)->b;
      w[j] = i + j < L->nw;
    }
    if (nx_rig_claim(k, bs, w, ans) == 0) continue;
    release_upto(L, i);
    /* The answer: the highest kind of fault among all operands. */
    nx_claim_answer worst = NX_CLAIM_READ_ONLY;
    for (int j = 0; j < L->n; j++) {
      nx_claim_answer c = nx_rig_peek(op(L, j)->b, j < L->nw);
      if (j >= i && j < i + k) c = ans[j - i] != NX_CLAIMED ? ans[j - i] : c;
      if (c != NX_CLAIMED && c < worst) worst = c;
    }
    return of_claim(worst);
  }
  return -1;
}

/* The refusals that claims do not find: -1 when there is none. */
static int check_all(const list *L, bool host) {
  if (host)
    for (int i = 0; i < L->n; i++)
      if (!nx_buffer_host_address(op(L, i)->b) && !nx__array_empty(op(L, i))) return NX_OFF_HOST;
  for (int i = 0; i < L->nw; i++)
    if (!nx_layout_is_distinct(&op(L, i)->l)) return NX_REPEATED_ELEMENTS;
  for (int i = 0; i < L->nw; i++)
    for (int j = 0; j < L->n; j++) {
      bool identical;
      if (j == i || !nx__arrays_share(op(L, i), op(L, j), &identical)) continue;
      if (j < L->nw || !identical) return NX_OVERLAPPING;
    }
  return -1;
}

static int gather(const char *fn, list *L, nx_array *const *written, int nw, nx_array *const *read, int nr) {
  if (nw < 0 || nr < 0 || (nw && !written) || (nr && !read) || nw > INT32_MAX - nr)
    return nx__fail(NX_EINVAL, "%s: %d written and %d read operands", fn, nw, nr);
  *L = (list){nw + nr, nw, written, read};
  for (int i = 0; i < L->n; i++)
    if (!op(L, i)) return nx__fail(NX_EINVAL, "%s: operand %d is NULL", fn, i);
  return 0;
}

int nx_door_host(nx_array *const *written, int nw, nx_array *const *read, int nr, nx_kernel_fn fn, void *ctx) {
  static const char name[] = "nx_door_host";
  list L;
  int s = gather(name, &L, written, nw, read, nr);
  if (s) return s;
  if (!fn) return nx__fail(NX_EINVAL, "%s: the kernel is NULL", name);
  if ((s = claim_all(&L)) >= 0) return s;
  /* Loss before Off_host: a lost device's memory is off the host too, and
     the header and the seed answer it with NX_ELOST, as nx_door does. */
  for (int i = 0; i < L.n; i++)
    if (nx_buffer_lost(op(&L, i)->b)) {
      release_upto(&L, L.n);
      char t[128];
      return nx__fail(NX_ELOST, "%s: the memory of operand %d (%s) is lost", name, i,
                      nx_array_describe(op(&L, i), t, sizeof t));
    }
  if ((s = check_all(&L, true)) >= 0) {
    release_upto(&L, L.n);
    return s;
  }
  for (int i = 0; i < L.n; i++)
    if ((s = nx_buffer_wait(op(&L, i)->b, i < L.nw ? NX_ACCESS_READ_WRITE : NX_ACCESS_READ))) {
      release_upto(&L, L.n);
      /* Freed by another thread since its claim (a free waits for claims
         to end, but the wait refuses dead memory): the Dead refusal, as a
         claim a moment later would have answered. */
      if (nx_buffer_dead(op(&L, i)->b)) return NX_DEAD_BUFFER;
      char why[256];
      snprintf(why, sizeof why, "%s", nx_error_message());
      return nx__fail(s, "%s: waiting for operand %d's pending work: %s", name, i, why);
    }
  /* The kernel's view of the operands: on the stack for the usual few. */
  nx_operand few[2 * NX_MAX_OPERANDS], *ops = L.n <= 2 * NX_MAX_OPERANDS ? few : nx__malloc((size_t)L.n * sizeof *ops);
  if (!ops) {
    release_upto(&L, L.n);
    return nx__fail(NX_ENOMEM, "%s: no memory for %d operands", name, L.n);
  }
  for (int i = 0; i < L.n; i++) {
    ops[i].dtype = op(&L, i)->dt;
    ops[i].layout = &op(&L, i)->l;
    ops[i].base = nx_buffer_host_address(op(&L, i)->b);
  }
  nx_answer a = fn(ctx, ops, nw, nr);
  release_upto(&L, L.n);
  if (ops != few) nx__free(ops);
  return (int)a;
}

int nx_door(nx_array *const *written, int nw, nx_array *const *read, int nr, nx_submit_fn fn, void *ctx) {
  static const char name[] = "nx_door";
  list L;
  int s = gather(name, &L, written, nw, read, nr);
  if (s) return s;
  if (!fn) return nx__fail(NX_EINVAL, "%s: the kernel is NULL", name);
  char t[128];
  for (int i = 0; i < L.n; i++) {
    if (nx_device_lost(nx_array_device(op(&L, i))))
      return nx__fail(NX_ELOST, "%s: operand %d (%s) is on lost device %s", name, i,
                      nx_array_describe(op(&L, i), t, sizeof t), nx_device_name(nx_array_device(op(&L, i))));
    /* Memory a lost device held, or that failed work would have written,
       whichever device's handle the operand has (a borrow). */
    if (nx_buffer_lost(nx_array_buffer(op(&L, i))))
      return nx__fail(NX_ELOST, "%s: the memory of operand %d (%s) is lost", name, i,
                      nx_array_describe(op(&L, i), t, sizeof t));
  }
  if ((s = claim_all(&L)) >= 0) return s;
  if ((s = check_all(&L, false)) >= 0) {
    release_upto(&L, L.n);
    return s;
  }
  s = fn(ctx);
  release_upto(&L, L.n);
  return s < 0 ? s : NX_DONE;
}

static const char *reason_of(nx_answer a) {
  switch (a) {
  case NX_WRONG_DTYPE: return "an operand's dtype is not the one the kernel loads";
  case NX_DEAD_BUFFER: return "an operand's buffer is dead";
  case NX_OFF_HOST: return "the host does not address an operand's memory";
  case NX_HELD_EXCLUSIVE: return "an operand's memory is held exclusive";
  case NX_READ_ONLY: return "a written operand's memory is read-only";
  case NX_REPEATED_ELEMENTS: return "a written operand reaches an element twice";
  case NX_OVERLAPPING: return "a written operand shares a byte with another operand it is not identical to";
  case NX_SHAPE_MISMATCH: return "the operands do not fit the operation";
  default: return "";
  }
}

int nx_array_refused(const char *name, nx_answer answer, nx_array *const *operands, int n) {
  char msg[1024], t[160];
  size_t len = 0;
  if (!name) name = "nx_array_refused";
  if (answer == NX_DONE || answer == NX_DECLINED)
    return nx__fail(NX_EINVAL, "%s: nx_array_refused: %s refuses nothing", name, answer == NX_DONE ? "Done" : "Declined");
  if ((unsigned)answer > NX_SHAPE_MISMATCH) return nx__fail(NX_EINVAL, "%s: %d is not an answer", name, (int)answer);
  msg[0] = 0;
  /* Dead operands, named with their consumers' reasons, for a dead buffer and
     for memory that was held exclusive and since consumed. */
  if (answer == NX_DEAD_BUFFER || answer == NX_HELD_EXCLUSIVE)
    for (int i = 0; i < n && operands; i++) {
      const char *why = operands[i] ? nx_buffer_dead(operands[i]->b) : NULL;
      if (why && len < sizeof msg)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s was %s", len ? ", " : "",
                                nx_array_describe(operands[i], t, sizeof t), why);
    }
  if (len == 0) len = (size_t)snprintf(msg, sizeof msg, "%s", reason_of(answer));
  if (len < sizeof msg) len += (size_t)snprintf(msg + len, sizeof msg - len, " (");
  for (int i = 0; i < n && operands && len < sizeof msg; i++)
    len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s", i ? ", " : "", nx_array_describe(operands[i], t, sizeof t));
  if (len < sizeof msg) snprintf(msg + len, sizeof msg - len, ")");
  return nx__fail(NX_EINVAL, "%s: %s", name, msg);
}
