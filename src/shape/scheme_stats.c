/* SPDX-License-Identifier: Apache-2.0 */
/* The process-wide registration statistics of schemes: counts and wall
   time by kind (trace, instantiation, check, plain body run), kept in
   relaxed atomics since sessions on several threads add to them. */
#include <stdatomic.h>
#include <time.h>

#include "scheme_internal.h"

static _Atomic int64_t counts[4], constraints[2], times[4];

int64_t nx__scheme_now_ns(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void nx__scheme_count(int kind, int64_t ncons, int64_t ns) {
  atomic_fetch_add_explicit(&counts[kind], 1, memory_order_relaxed);
  if (kind < 2) atomic_fetch_add_explicit(&constraints[kind], ncons, memory_order_relaxed);
  atomic_fetch_add_explicit(&times[kind], ns, memory_order_relaxed);
}

nx_scheme_registration_counts nx_scheme_registration_counts_get(void) {
  nx_scheme_registration_counts c;
  c.traces = atomic_load_explicit(&counts[0], memory_order_relaxed);
  c.instantiations = atomic_load_explicit(&counts[1], memory_order_relaxed);
  c.checks = atomic_load_explicit(&counts[2], memory_order_relaxed);
  c.body_runs = atomic_load_explicit(&counts[3], memory_order_relaxed);
  c.traced_constraints = atomic_load_explicit(&constraints[0], memory_order_relaxed);
  c.instantiated_constraints = atomic_load_explicit(&constraints[1], memory_order_relaxed);
  return c;
}

void nx_scheme_reset_registration_counts(void) {
  for (int i = 0; i < 4; i++) atomic_store_explicit(&counts[i], 0, memory_order_relaxed);
  for (int i = 0; i < 2; i++) atomic_store_explicit(&constraints[i], 0, memory_order_relaxed);
}

nx_scheme_registration_times nx_scheme_registration_times_get(void) {
  nx_scheme_registration_times t;
  t.trace_ns = atomic_load_explicit(&times[0], memory_order_relaxed);
  t.instantiate_ns = atomic_load_explicit(&times[1], memory_order_relaxed);
  t.check_ns = atomic_load_explicit(&times[2], memory_order_relaxed);
  t.body_ns = atomic_load_explicit(&times[3], memory_order_relaxed);
  return t;
}

void nx_scheme_reset_registration_times(void) {
  for (int i = 0; i < 4; i++) atomic_store_explicit(&times[i], 0, memory_order_relaxed);
}
