/* SPDX-License-Identifier: Apache-2.0 */
/* Injected failures of the rig's fallible steps, for the test variant of
   the library only (NX_TESTING): a countdown over every step, so that a test
   can make each step of a set-up fail in turn and check that what the
   earlier steps acquired is given back. */
#include "rig_internal.h"

#ifdef NX_TESTING
#include "rig_test.h"

static atomic_long countdown, injected;

void nx__inject_failures(long k) {
  atomic_store(&injected, 0);
  atomic_store(&countdown, k > 0 ? k : 0);
}

long nx__injected(void) { return atomic_load(&injected); }

bool nx__inject(void) {
  long c = atomic_load(&countdown);
  while (c > 0 && !atomic_compare_exchange_weak(&countdown, &c, c - 1)) {
  }
  if (c != 1) return false;
  atomic_fetch_add(&injected, 1);
  return true;
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int nx__no_testing;
#endif
