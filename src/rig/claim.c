/* SPDX-License-Identifier: Apache-2.0 */
/* Claims and donation: each an atomic update of one memory's claim word, so
   no lock is shared between threads and nothing blocks. */
#include <stdlib.h>
#include <string.h>

#include "rig_internal.h"
#include "../base/alloc.h"

/* Claims one operand, or answers why not, in the seed's precedence. */
static nx_claim_answer claim_one(nx_buffer *b, bool write) {
  nx__memory *m = b->mem;
  uint64_t st = atomic_load_explicit(&m->state, memory_order_acquire);
  for (;;) {
    if (st & NX__DEAD) return NX_CLAIM_DEAD;
    if (st & NX__EXCLUSIVE) return NX_CLAIM_HELD_EXCLUSIVE;
    if (write && !(b->access & NX_ACCESS_WRITE)) return NX_CLAIM_READ_ONLY;
    if (atomic_compare_exchange_weak_explicit(&m->state, &st, st + 1, memory_order_acq_rel, memory_order_acquire))
      return NX_CLAIMED;
  }
}

nx_claim_answer nx_rig_peek(const nx_buffer *b, bool write) {
  if (!b) return nx__fail(NX_EINVAL, "nx_rig_peek: the buffer is NULL"), NX_CLAIM_DEAD;
  uint64_t st = atomic_load_explicit(&b->mem->state, memory_order_acquire);
  if (st & NX__DEAD) return NX_CLAIM_DEAD;
  if (st & NX__EXCLUSIVE) return NX_CLAIM_HELD_EXCLUSIVE;
  if (write && !(b->access & NX_ACCESS_WRITE)) return NX_CLAIM_READ_ONLY;
  return NX_CLAIMED;
}

/* Ends one claim; false, changing nothing, if the memory holds none (a
   release without its claim would wrap the count and block every wait). */
static bool release_one(nx_buffer *b) {
  nx__memory *m = b->mem;
  uint64_t st = atomic_load_explicit(&m->state, memory_order_acquire);
  do {
    if (!(st & NX__CLAIMS)) return false;
  } while (!atomic_compare_exchange_weak_explicit(&m->state, &st, st - 1, memory_order_acq_rel, memory_order_acquire));
  st -= 1;
  if ((st & NX__DEAD) && !(st & NX__CLAIMS)) nx__memory_maybe_release(m);
  return true;
}

int nx_rig_claim(int n, nx_buffer *const *buffers, const bool *write, nx_claim_answer *answers) {
  if (n < 0 || (n > 0 && (!buffers || !write || !answers)))
    return nx__fail(NX_EINVAL, "nx_rig_claim: %d operands, or an array is NULL", n);
  for (int i = 0; i < n; i++)
    if (!buffers[i]) return nx__fail(NX_EINVAL, "nx_rig_claim: operand %d is NULL", i);
  bool refused = false;
  for (int i = 0; i < n; i++) refused |= (answers[i] = claim_one(buffers[i], write[i])) != NX_CLAIMED;
  if (!refused) return 0;
  /* None or all: give back what was taken; every answer stays for the caller. */
  for (int i = 0; i < n; i++)
    if (answers[i] == NX_CLAIMED) (void)release_one(buffers[i]);
  return NX_RIG_REFUSED;
}

void nx_rig_release(int n, nx_buffer *const *buffers, const bool *write) {
  (void)write;
  if (n < 0) {
    nx__fail(NX_EINVAL, "nx_rig_release: n = %d is negative", n);
    return;
  }
  if (n > 0 && !buffers) {
    nx__fail(NX_EINVAL, "nx_rig_release: the buffers are NULL with n = %d", n);
    return;
  }
  /* a NULL among them: no claim was made with these arguments */
  for (int i = 0; i < n; i++)
    if (!buffers[i]) {
      nx__fail(NX_EINVAL, "nx_rig_release: buffer %d of %d is NULL", i, n);
      return;
    }
  for (int i = 0; i < n; i++)
    if (!(atomic_load_explicit(&buffers[i]->mem->state, memory_order_acquire) & NX__CLAIMS)) {
      nx__fail(NX_EINVAL, "nx_rig_release: buffer %d of %d holds no claim", i, n);
      return;
    }
  for (int i = 0; i < n; i++)
    if (!release_one(buffers[i])) nx__fail(NX_EINVAL, "nx_rig_release: buffer %d of %d holds no claim", i, n);
}

int nx_buffer_hold_exclusive(nx_buffer *b) {
  static const char fn[] = "nx_buffer_hold_exclusive";
  char t[160];
  if (!b) return nx__fail(NX_EINVAL, "%s: the buffer is NULL", fn);
  nx__memory *m = b->mem;
  uint64_t st = atomic_load_explicit(&m->state, memory_order_acquire);
  do {
    const char *why = st & NX__DEAD ? "is dead" : st & NX__EXCLUSIVE ? "is held exclusive already"
                    : st & NX__EXPORTED ? "is exported" : st & NX__CLAIMS ? "is claimed" : NULL;
    if (why) return nx__fail(NX_EINVAL, "%s: %s %s", fn, nx__buffer_text(b, t, sizeof t), why);
  } while (!atomic_compare_exchange_weak_explicit(&m->state, &st, st | NX__EXCLUSIVE, memory_order_acq_rel,
                                                  memory_order_acquire));
  return 0;
}

int nx_buffer_unhold(nx_buffer *b) {
  char t[160];
  if (!b || !(atomic_load(&b->mem->state) & NX__EXCLUSIVE))
    return nx__fail(NX_EINVAL, "nx_buffer_unhold: %s is not held exclusive", nx__buffer_text(b, t, sizeof t));
  atomic_fetch_and(&b->mem->state, ~NX__EXCLUSIVE);
  return 0;
}

int nx_buffer_consume(nx_buffer *b, const char *reason) {
  char t[160];
  if (!b || !(atomic_load(&b->mem->state) & NX__EXCLUSIVE))
    return nx__fail(NX_EINVAL, "nx_buffer_consume: %s is not held exclusive", nx__buffer_text(b, t, sizeof t));
  if (!reason) return nx__fail(NX_EINVAL, "nx_buffer_consume: the reason is NULL");
  size_t len = strlen(reason);
  char *r = nx__malloc(len + 1);
  if (!r) return nx__fail(NX_ENOMEM, "nx_buffer_consume: no memory for the reason");
  memcpy(r, reason, len + 1);
  nx__memory *m = b->mem;
  /* The hold keeps every other thread from making it dead: the reason goes
     in first, then the flag that publishes it. */
  atomic_store(&m->reason_owned, true);
  atomic_store_explicit(&m->reason, r, memory_order_release);
  uint64_t st = atomic_load(&m->state);
  while (!atomic_compare_exchange_weak_explicit(&m->state, &st, (st & ~NX__EXCLUSIVE) | NX__DEAD,
                                                memory_order_acq_rel, memory_order_acquire)) {
  }
  nx__memory_maybe_release(m);
  return 0;
}
