/* SPDX-License-Identifier: Apache-2.0 */
/* Snapshots of a session's whole solver state, by an undo log: taking one
   records the session's scalars, its arenas' positions and the small pools
   held by value (pending and queued constraints, the held entries' states);
   from then on every change to older state is logged first (session.h's
   barriers). Restoring undoes the log back to the snapshot, rewinds the
   arenas and puts the scalars back, so it costs what changed since, not
   the session's size. Snapshots nest: restoring one ends those taken after
   it. Id ranges let a trace take its ids from a block reserved beforehand. */
#include <limits.h>
#include <string.h>

#include "tensor_internal.h"
#include "../base/alloc.h"

/* A held pool's per-id states and work lists, copied. */
typedef struct {
  nx__held *p;
  int *live[2], *next;
} hold_copy;

struct nx_shape_snapshot {
  nx_shape_session *s; /* NULL once ended (restored past, or its session freed) */
  struct nx_shape_session saved;
  nx__arena_mark chunks, self_chunks;
  int undo_pos;
  nx__cons *pending, *queue; /* the queue from its head */
  hold_copy holds[2];        /* marks, deferred */
};

/* ---- The log ---- */

static nx__undo *log_slot(nx_shape_session *s) {
  if (s->nundo == INT_MAX || nx__shape_grow((void **)&s->undo, &s->capundo, s->nundo + 1, sizeof *s->undo, 256)) {
    s->undo_lost = true;
    return NULL;
  }
  return &s->undo[s->nundo++];
}

void nx__shape_log_var(nx_shape_session *s, int v) {
  nx__undo *u = log_slot(s);
  if (!u) return;
  u->kind = NX__U_VAR;
  u->index = v;
  u->var = *NX__VAR_AT(s, v);
  s->vsaved[v] = s->epoch;
}

void nx__shape_log(nx_shape_session *s, int kind, int index, const void *old) {
  nx__undo *u = log_slot(s);
  if (!u) return;
  u->kind = (unsigned char)kind;
  u->index = index;
  switch (kind) {
  case NX__U_VAL:
  case NX__U_SELF: u->val = *(const nx__val *)old; break;
  case NX__U_LINK: u->link = *(const nx__link *)old; break;
  default: u->lb = *(const nx__lbound *)old;
  }
}

void nx__shape_log_bytes(nx_shape_session *s, void *at, size_t n) {
  nx__undo *u = log_slot(s);
  if (!u) return;
  u->kind = NX__U_BYTES;
  u->b.at = at;
  u->b.n = (unsigned char)n;
  memcpy(u->b.old, at, n);
}

/* Undoes the log back to pos, the latest change first. */
static void undo_to(nx_shape_session *s, int pos) {
  for (int i = s->nundo - 1; i >= pos; i--) {
    const nx__undo *u = &s->undo[i];
    switch (u->kind) {
    case NX__U_VAR: *NX__VAR_AT(s, u->index) = u->var; break;
    case NX__U_VAL: NX__VAL(s, u->index) = u->val; break;
    case NX__U_SELF: NX__SELF(s, u->index) = u->val; break;
    case NX__U_LINK: s->lk[u->index] = u->link; break;
    case NX__U_LBOUND: s->lbs[u->index] = u->lb; break;
    default: memcpy(u->b.at, u->b.old, u->b.n);
    }
  }
  s->nundo = pos;
}

/* ---- Taking ---- */

static int copy_out(void **dst, const void *src, int n, size_t elem) {
  *dst = NULL;
  if (n <= 0) return 0;
  if ((size_t)n > SIZE_MAX / elem || !(*dst = nx__malloc((size_t)n * elem))) return NX_ENOMEM;
  memcpy(*dst, src, (size_t)n * elem);
  return 0;
}

/* Frees x and the pools it copied. */
static void snap_free(nx_shape_snapshot *x) {
  nx__free(x->pending);
  nx__free(x->queue);
  for (int k = 0; k < 2; k++) {
    nx__free(x->holds[k].p);
    nx__free(x->holds[k].live[0]);
    nx__free(x->holds[k].live[1]);
    nx__free(x->holds[k].next);
  }
  nx__free(x);
}

static int copy_hold(hold_copy *c, const nx__hold *h) {
  return copy_out((void **)&c->p, h->p, h->n, sizeof *h->p) ||
         copy_out((void **)&c->live[0], h->live[0].p, h->live[0].n, sizeof(int)) ||
         copy_out((void **)&c->live[1], h->live[1].p, h->live[1].n, sizeof(int)) ||
         copy_out((void **)&c->next, h->next.p, h->next.n, sizeof(int));
}

/* The watermarks of the latest live snapshot: older state is logged. */
static void set_watermarks(nx_shape_session *s) {
  if (!s->nsnaps) {
    s->logging = s->undo_lost = false;
    s->nundo = 0;
    s->w_nvars = 0, s->w_nlk = s->w_nlbs = -1;
    return;
  }
  const struct nx_shape_session *w = &s->snaps[s->nsnaps - 1]->saved;
  s->logging = true;
  s->w_nvars = w->nvars;
  s->w_nlk = w->nlk;
  s->w_nlbs = w->nlbs;
  s->epoch++; /* every variable is logged again at its next change */
}

/* The log's table covers the variables there are (those a snapshot taken
   now would log), the new entries 0: no epoch, as the first is 1. Entries
   are made here, not with each variable, so a session without snapshots
   has no table; one made since the last take, or dropped by a restore and
   made again, keeps an older epoch than the next take's, which is all the
   barrier asks. 0 or NX_ENOMEM. */
static int vsaved_cover(nx_shape_session *s) {
  if (nx__shape_grow((void **)&s->vsaved, &s->capvsaved, s->nvars, sizeof *s->vsaved, 256)) return NX_ENOMEM;
  if (s->nvars > s->nvsaved) memset(s->vsaved + s->nvsaved, 0, (size_t)(s->nvars - s->nvsaved) * sizeof *s->vsaved);
  if (s->nvars > s->nvsaved) s->nvsaved = s->nvars;
  return 0;
}

int nx_shape_snapshot_take(nx_shape_session *s, nx_shape_snapshot **out) {
  if (!s || !out) return nx__fail(NX_EINVAL, "nx_shape_snapshot_take: %s is NULL", s ? "the result" : "the session");
  nx_shape_snapshot *x = nx__calloc(1, sizeof *x);
  int qn = s->queue.n - s->qhead;
  if (!x || nx__shape_vars_reserve(s, s->nvars) || vsaved_cover(s) ||
      nx__shape_grow((void **)&s->snaps, &s->capsnaps, s->nsnaps + 1, sizeof *s->snaps, 4) ||
      copy_out((void **)&x->pending, s->pending.p, s->pending.n, sizeof *s->pending.p) ||
      copy_out((void **)&x->queue, s->queue.p + s->qhead, qn, sizeof *s->queue.p) ||
      copy_hold(&x->holds[0], &s->marks) || copy_hold(&x->holds[1], &s->deferred)) {
    if (x) snap_free(x);
    return nx__fail(NX_ENOMEM, "nx_shape_snapshot_take: out of memory");
  }
  x->s = s;
  x->saved = *s;
  x->saved.queue.n = qn;
  x->saved.qhead = 0;
  nx__shape_arena_mark(s->chunks, &x->chunks);
  nx__shape_arena_mark(s->self_chunks, &x->self_chunks);
  x->undo_pos = s->nundo;
  s->snaps[s->nsnaps++] = x;
  set_watermarks(s);
  *out = x;
  return 0;
}

/* ---- Restoring ---- */

/* Room in the restored pools for the snapshot's contents, before anything
   changes (restoring cannot fail half-way). */
static int room(nx_shape_session *s, const nx_shape_snapshot *x) {
  const struct nx_shape_session *w = &x->saved;
  nx__hold *h[2] = {&s->marks, &s->deferred};
  const nx__hold *wh[2] = {&w->marks, &w->deferred};
  if (nx__shape_grow((void **)&s->pending.p, &s->pending.cap, w->pending.n, sizeof *s->pending.p, 64) ||
      nx__shape_grow((void **)&s->queue.p, &s->queue.cap, w->queue.n, sizeof *s->queue.p, 64))
    return NX_ENOMEM;
  for (int k = 0; k < 2; k++)
    if (nx__shape_grow((void **)&h[k]->p, &h[k]->cap, wh[k]->n, sizeof *h[k]->p, 256) ||
        nx__shape_grow((void **)&h[k]->live[0].p, &h[k]->live[0].cap, wh[k]->live[0].n, sizeof(int), 8) ||
        nx__shape_grow((void **)&h[k]->live[1].p, &h[k]->live[1].cap, wh[k]->live[1].n, sizeof(int), 8) ||
        nx__shape_grow((void **)&h[k]->next.p, &h[k]->next.cap, wh[k]->next.n, sizeof(int), 8))
      return NX_ENOMEM;
  return 0;
}

/* A held pool back to its saved scalars and contents; its allocations stay. */
static void restore_hold(nx__hold *h, const nx__hold *w, const hold_copy *c) {
  nx__hold cur = *h;
  *h = *w;
  h->p = cur.p, h->cap = cur.cap;
  h->cs = cur.cs, h->capcs = cur.capcs; /* append-only: ncs is the watermark */
  for (int g = 0; g < 2; g++) h->live[g].p = cur.live[g].p, h->live[g].cap = cur.live[g].cap;
  h->next.p = cur.next.p, h->next.cap = cur.next.cap;
  h->heap = cur.heap, h->seq = cur.seq; /* scratch of a round */
  h->heap.n = h->seq.n = 0;
  if (w->n) memcpy(h->p, c->p, (size_t)w->n * sizeof *h->p);
  for (int g = 0; g < 2; g++)
    if (w->live[g].n) memcpy(h->live[g].p, c->live[g], (size_t)w->live[g].n * sizeof(int));
  if (w->next.n) memcpy(h->next.p, c->next, (size_t)w->next.n * sizeof(int));
}

int nx_shape_snapshot_restore(nx_shape_session *s, const nx_shape_snapshot *snap) {
  if (!s || !snap) return nx__fail(NX_EINVAL, "nx_shape_snapshot_restore: %s is NULL", s ? "the snapshot" : "the session");
  int at = -1;
  for (int i = 0; i < s->nsnaps; i++)
    if (s->snaps[i] == snap) at = i;
  if (at < 0 || snap->s != s)
    return nx__fail(NX_EINVAL, "nx_shape_snapshot_restore: the snapshot is not live in this session (another "
                               "session's, or ended by restoring an earlier one)");
  if (s->undo_lost)
    return nx__fail(NX_ENOMEM, "nx_shape_snapshot_restore: out of memory: a change since the snapshot could not be "
                               "recorded");
  if (room(s, snap)) return nx__fail(NX_ENOMEM, "nx_shape_snapshot_restore: out of memory");
  undo_to(s, snap->undo_pos);
  nx__shape_arena_rewind(&s->chunks, &snap->chunks);
  nx__shape_arena_rewind(&s->self_chunks, &snap->self_chunks);
  for (int i = at + 1; i < s->nsnaps; i++) s->snaps[i]->s = NULL; /* taken after it: ended */
  struct nx_shape_session cur = *s;
  *s = snap->saved;
  /* the allocations of now, with the saved counts */
  s->chunks = cur.chunks, s->self_chunks = cur.self_chunks;
  s->vpages = cur.vpages, s->nvpages = cur.nvpages, s->capvpages = cur.capvpages;
  s->capvars = cur.capvars;
  s->vsaved = cur.vsaved, s->nvsaved = cur.nvsaved, s->capvsaved = cur.capvsaved;
  s->opnd_bits = cur.opnd_bits, s->nopnd_words = cur.nopnd_words; /* a superset stays one */
  s->pending.p = cur.pending.p, s->pending.cap = cur.pending.cap;
  s->queue.p = cur.queue.p, s->queue.cap = cur.queue.cap;
  s->marks = cur.marks, s->deferred = cur.deferred;
  /* settings and flags, not solver state: a restore keeps them */
  s->op_mode = cur.op_mode, s->forced_proj = cur.forced_proj, s->forced_dims = cur.forced_dims;
  s->shape_errors = cur.shape_errors, s->set_outside_ref = cur.set_outside_ref;
  restore_hold(&s->marks, &snap->saved.marks, &snap->holds[0]);
  restore_hold(&s->deferred, &snap->saved.deferred, &snap->holds[1]);
  s->tensors.p = cur.tensors.p, s->tensors.cap = cur.tensors.cap;
  s->wk = cur.wk, s->capwk = cur.capwk;
  s->lk = cur.lk, s->caplk = cur.caplk;
  s->lbs = cur.lbs, s->caplbs = cur.caplbs;
  s->snaps = cur.snaps, s->capsnaps = cur.capsnaps, s->nsnaps = at + 1;
  s->undo = cur.undo, s->nundo = cur.nundo, s->capundo = cur.capundo;
  s->undo_lost = false, s->epoch = cur.epoch;
  s->serial = cur.serial;
  s->nrestores = cur.nrestores, s->nrmarks = cur.nrmarks;
  memcpy(s->rmarks, cur.rmarks, sizeof s->rmarks);
  nx__shape_mark_restore(s);
  if (s->pending.n) memcpy(s->pending.p, snap->pending, (size_t)s->pending.n * sizeof *s->pending.p);
  if (s->queue.n) memcpy(s->queue.p, snap->queue, (size_t)s->queue.n * sizeof *s->queue.p);
  set_watermarks(s);
  return 0;
}

void nx_shape_snapshot_free(nx_shape_snapshot *snap) {
  if (!snap) return;
  nx_shape_session *s = snap->s;
  if (s) {
    int k = 0;
    for (int i = 0; i < s->nsnaps; i++)
      if (s->snaps[i] != snap) s->snaps[k++] = s->snaps[i];
    s->nsnaps = k;
    set_watermarks(s);
  }
  snap_free(snap);
}

/* Called by nx_shape_session_free: its live snapshots end. */
void nx__shape_snapshots_end(nx_shape_session *s) {
  for (int i = 0; i < s->nsnaps; i++) s->snaps[i]->s = NULL;
  nx__free(s->snaps);
  nx__free(s->undo);
  nx__free(s->vsaved);
}

/* ---- Id ranges ---- */

int nx_shape_ids_next(const nx_shape_session *s, nx_shape_ids *next) {
  if (!s || !next) return nx__fail(NX_EINVAL, "nx_shape_ids_next: %s is NULL", s ? "the result" : "the session");
  const nx__id_cursor *c = &s->ids;
  next->var = c->on && c->var_next < c->var_end ? c->var_next : s->nvars;
  next->tensor = c->on && c->tensor_next < c->tensor_end ? c->tensor_next : s->next_tensor_id + 1;
  return 0;
}

int nx_shape_ids_reserve(nx_shape_session *s, int nvars, int ntensors, nx_shape_id_range *r) {
  if (!s || !r || nvars < 0 || ntensors < 0)
    return nx__fail(NX_EINVAL, "nx_shape_ids_reserve: %d variables, %d tensors: a NULL argument or a negative count",
                    nvars, ntensors);
  if (nvars > INT_MAX - s->nvars || ntensors > INT_MAX - 1 - s->next_tensor_id)
    return nx__fail(NX_EINVAL, "nx_shape_ids_reserve: %d variables, %d tensors: past the id space", nvars, ntensors);
  /* each variable is a record made now: a block past 2^24 of them (gigabytes,
     minutes) is refused at once rather than by running out of memory */
  if (nvars > 1 << 24)
    return nx__fail(NX_EINVAL, "nx_shape_ids_reserve: %d variables: more than 16777216 in one block", nvars);
  if (nx__shape_vars_reserve(s, s->nvars + nvars)) return nx__fail(NX_ENOMEM, "nx_shape_ids_reserve: out of memory");
  /* the slots are variables no constraint mentions until a trace takes them */
  for (int i = 0; i < nvars; i++) {
    int id = s->nvars;
    nx__var *v = NX__VAR(s, id);
    memset(v, 0, sizeof *v);
    v->up = id;
    nx__shape_set_val(s, id, (nx__val){.d = NULL});
    nx__shape_set_self(s, id, (nx__val){.d = NULL});
    s->nvars++;
  }
  *r = (nx_shape_id_range){.var_lo = s->nvars - nvars, .var_hi = s->nvars, .tensor_lo = s->next_tensor_id + 1,
                           .tensor_hi = s->next_tensor_id + 1 + ntensors};
  s->next_tensor_id += ntensors;
  return 0;
}

int nx_shape_ids_enter(nx_shape_session *s, const nx_shape_id_range *r) {
  if (!s || !r) return nx__fail(NX_EINVAL, "nx_shape_ids_enter: %s is NULL", s ? "the range" : "the session");
  if (s->ids.on) return nx__fail(NX_EINVAL, "nx_shape_ids_enter: a range is entered already");
  if (r->var_lo < 1 || r->var_lo > r->var_hi || r->var_hi > s->nvars || r->tensor_lo < 1 ||
      r->tensor_lo > r->tensor_hi || r->tensor_hi > s->next_tensor_id + 1)
    return nx__fail(NX_EINVAL, "nx_shape_ids_enter: variables %d..%d, tensors %d..%d: not a range this session "
                               "reserved", r->var_lo, r->var_hi, r->tensor_lo, r->tensor_hi);
  s->ids = (nx__id_cursor){true, r->var_lo, r->var_hi, r->tensor_lo, r->tensor_hi};
  return 0;
}

int nx_shape_ids_leave(nx_shape_session *s, nx_shape_id_range *rest) {
  if (!s) return nx__fail(NX_EINVAL, "nx_shape_ids_leave: the session is NULL");
  if (!s->ids.on) return nx__fail(NX_EINVAL, "nx_shape_ids_leave: no range is entered");
  if (rest)
    *rest = (nx_shape_id_range){s->ids.var_next, s->ids.var_end, s->ids.tensor_next, s->ids.tensor_end};
  s->ids.on = false;
  return 0;
}

void nx__shape_mark_restore(nx_shape_session *s) {
  struct nx__rmark m = {++s->nrestores, s->nvars, (int)s->tensors.n};
  /* an older mark no lower than this one in both counts says nothing a
     query from before it would not get from this one */
  while (s->nrmarks > 0 && s->rmarks[s->nrmarks - 1].nvars >= m.nvars &&
         s->rmarks[s->nrmarks - 1].ntensors >= m.ntensors)
    s->nrmarks--;
  if (s->nrmarks == (int)(sizeof s->rmarks / sizeof s->rmarks[0])) {
    /* full: the two oldest as one, at the later number with the lesser
       counts (a query may find a restore lower than it was: never one
       higher) */
    struct nx__rmark *a = &s->rmarks[0], *b = &s->rmarks[1];
    b->nvars = a->nvars < b->nvars ? a->nvars : b->nvars;
    b->ntensors = a->ntensors < b->ntensors ? a->ntensors : b->ntensors;
    memmove(s->rmarks, s->rmarks + 1, (size_t)(s->nrmarks - 1) * sizeof *s->rmarks);
    s->nrmarks--;
  }
  s->rmarks[s->nrmarks++] = m;
}

bool nx__shape_rewound_below(const nx_shape_session *s, int64_t since, int nvars, int ntensors) {
  for (int i = 0; i < s->nrmarks; i++)
    if (s->rmarks[i].serial > since && (s->rmarks[i].nvars < nvars || s->rmarks[i].ntensors < ntensors)) return true;
  return false;
}
