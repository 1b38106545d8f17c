/* SPDX-License-Identifier: Apache-2.0 */
/* A model of the rig's claim protocol (src/rig/claim.c, src/rig/buffer.c,
   src/rig/timeline.c; docs/rig.md), checked exhaustively by Spin
   (tests/spin/check.sh). Two memories; each process stands for the
   functions named beside it, one atomic step for each atomic operation on a
   memory's claim word (a compare-and-swap that fails only retries, so a
   successful one is one step with the load it compared against).

   Properties (assertions, and Spin's invalid end states for deadlock):
   - every claim or none: nx_rig_claim returns holding both claims or none;
   - no claim on held or dead memory, and none while held exclusive;
   - no use after donation or free: no claimed access and no job touches
     storage once it has gone back, and it goes back exactly once, with no
     claim on it;
   - a lost device answers: every wait on its work settles (no process is
     left blocked: no invalid end state).

   Deliberately broken variants, which Spin must reject:
   - BROKEN_ORDER: a submission looks for death before it counts its job on
     the memory (timeline.c counts first), so a free in between gives the
     storage back under the job;
   - BROKEN_LOSS: a lost device's thread stops instead of failing the jobs
     left in its queue, so a wait on them never settles;
   - BROKEN_CLAIM: a refused nx_rig_claim keeps the claims it took, so a
     claim is left behind and a freed memory's storage never goes back.
   And once every process has ended: no claim is left, and every dead
   memory's storage went back. */

#define NM 2
#define CLAIMED 0
#define DEAD 1
#define HELD 2
#define READ_ONLY 3

typedef memory {
  byte claims;     /* the claim count of the claim word */
  bool dead, excl, exported;
  bool writable;   /* the access of its buffers */
  byte jobs;       /* unfinished jobs that touch it */
  bool released;   /* nx__memory_maybe_release's flag */
  bool gone        /* the storage went back */
};
memory m[NM];

bool lost;                 /* the device of the jobs */
byte completed, submitted; /* its timeline's counters */
chan queue = [2] of { byte, byte }; /* a job: its memory and sequence number */

/* nx__memory_maybe_release: storage goes back once the memory is dead and
   no claim or job uses it, exactly once. */
inline maybe_release(i) {
  if
  :: atomic { m[i].dead && m[i].claims == 0 } ->
     if
     :: atomic { m[i].jobs == 0 } ->
        atomic {
          if
          :: !m[i].released ->
             m[i].released = true;
             assert(m[i].claims == 0 && !m[i].gone);
             m[i].gone = true
          :: else -> skip
          fi
        }
     :: else -> skip
     fi
  :: else -> skip
  fi
}

/* claim_one (claim.c): the seed's precedence, then one more claim. */
inline claim_one(i, wr, ans) {
  atomic {
    if
    :: m[i].dead -> ans = DEAD
    :: !m[i].dead && m[i].excl -> ans = HELD
    :: !m[i].dead && !m[i].excl && wr && !m[i].writable -> ans = READ_ONLY
    :: else ->
       assert(!m[i].dead && !m[i].excl);
       m[i].claims++;
       ans = CLAIMED
    fi
  }
}

/* release_one (claim.c): the last claim of a dead memory releases it. */
inline release_one(i) {
  atomic { m[i].claims--; last = m[i].dead && m[i].claims == 0 }
  if
  :: last -> maybe_release(i)
  :: else -> skip
  fi
}

/* nx_rig_claim over both memories, the first for writing if w0, the
   second if w1; then a claimed access (the door's kernel) and
   nx_rig_release; or, refused, the claims taken given back. */
proctype Claimer(bool w0; bool w1) {
  byte a0, a1;
  bool last;
  claim_one(0, w0, a0);
  claim_one(1, w1, a1);
  if
  :: a0 == CLAIMED && a1 == CLAIMED ->
     assert(!m[0].gone && !m[1].gone); /* the access */
     release_one(0);
     release_one(1)
  :: else ->
#ifndef BROKEN_CLAIM
     if :: a0 == CLAIMED -> release_one(0) :: else -> skip fi;
     if :: a1 == CLAIMED -> release_one(1) :: else -> skip fi
#else
     skip
#endif
  fi
}

/* nx_buffer_hold_exclusive on memory i, then nx_buffer_consume (donation)
   or nx_buffer_unhold. */
proctype Donor(byte i) {
  bool held, last;
  atomic {
    if
    :: !m[i].dead && !m[i].excl && !m[i].exported && m[i].claims == 0 -> m[i].excl = true; held = true
    :: else -> held = false
    fi
  }
  if
  :: held ->
     assert(m[i].claims == 0 && !m[i].gone); /* the holder's access */
     if
     :: atomic { m[i].excl = false; m[i].dead = true }; /* consume: dead with its reason */
        maybe_release(i)
     :: m[i].excl = false /* unhold */
     fi
  :: else -> skip
  fi
}

/* nx_buffer_free on memory i: dead at once, storage deferred. */
proctype Freer(byte i) {
  bool ok;
  atomic {
    if
    :: !m[i].dead && !m[i].excl -> m[i].dead = true; ok = true
    :: else -> ok = false
    fi
  }
  if :: ok -> maybe_release(i) :: else -> skip fi
}

/* nx_buffer_export on memory i: refuses dead or held memory, and after its
   wait, refuses memory that became so. */
proctype Exporter(byte i) {
  bool ok;
  atomic { ok = !m[i].dead && !m[i].excl }
  if
  :: ok -> atomic { if :: !m[i].dead && !m[i].excl -> m[i].exported = true :: else -> skip fi }
  :: else -> skip
  fi
}

/* nx_rig_submit of a job on memory i (timeline.c's submit), then
   nx_buffer_wait for it. */
proctype Submitter(byte i) {
  byte seq;
#ifdef BROKEN_ORDER
  if
  :: m[i].dead -> goto refused
  :: else -> m[i].jobs++
  fi;
#else
  m[i].jobs++;
  if
  :: m[i].dead -> m[i].jobs--; maybe_release(i); goto refused
  :: else -> skip
  fi;
#endif
  atomic { submitted++; seq = submitted; queue ! i, seq };
  (completed >= seq); /* nx_buffer_wait: settles done or lost */
refused:
  skip
}

/* The device's thread (timeline.c): runs each job, or once the device is
   lost fails it without touching its memory; finishing counts it done. */
proctype Device() {
  byte i, seq;
  do
  :: queue ? i, seq ->
     if
     :: !lost -> assert(!m[i].gone) /* the job's access */
     :: lost ->
#ifdef BROKEN_LOSS
        goto stopped
#else
        skip
#endif
     fi;
     atomic { m[i].jobs--; };
     maybe_release(i);
     completed = seq;
  :: timeout -> break /* nothing left to run: a refused submission sends none */
  od;
stopped:
  skip
}

/* A fault that loses the device, at any point. */
proctype Fault() {
  lost = true
}

/* Two scenes, each checked on its own (the product of both is too large
   to explore exhaustively): CLAIMS, claims racing donation, free and export
   over both memories; JOBS, submissions and their waits racing a free, a
   claim and the device's loss. */
init {
  atomic {
    m[0].writable = true;
    if :: m[1].writable = true :: m[1].writable = false fi;
#ifdef JOBS
    run Device();
    run Fault();
    run Claimer(true, false);
    run Freer(0);
    run Submitter(0);
    run Submitter(1)
#else
    run Claimer(true, false);
    run Claimer(false, true);
    run Donor(0);
    run Freer(1);
    run Exporter(1);
    run Donor(1)
#endif
  };
  /* When every process has ended: no claim is left behind, and the storage
     of every dead memory went back. */
  (_nr_pr == 1);
  assert(m[0].claims == 0 && m[1].claims == 0);
  assert((!m[0].dead || m[0].gone) && (!m[1].dead || m[1].gone))
}
