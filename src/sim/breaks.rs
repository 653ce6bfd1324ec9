//! "What would break this?": for each preset that is safe as written, the assumption its
//! caption rests on, undone (fencing turned off, a monotonic clock turned back into a wall
//! clock) or left as is, and the faults a search may inject to test it, bounded so that they
//! undo the assumption themselves where it is about faults (a restart sooner than the TTL
//! without its keys, a clock step instead of a slew, a client clock stepping back). The page
//! offers the entry beside the preset; `tests/breaks.rs` runs every entry and checks the
//! outcome each one promises (the failure the caption warns about, or none found by an
//! exhaustive search). A safe preset with nothing a search could break says why
//! (`no_breaker`), and the tests check each reason's claim. Nothing here states an outcome to
//! the reader: the page shows what the search answers.

use crate::sim::account::FenceRule;
use crate::sim::presets::preset;
use crate::sim::scenario::{Event, InstanceEvent, Scenario};
use crate::sim::search::spec::{Persistence, Range};
use crate::sim::search::{FaultKind, SearchSpec, Strategy};
use crate::sim::trace::ViolationKind;

/// What changes before searching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing: the search tests the preset's intent as written.
    Nothing,
    /// The storage stops checking fences.
    FencingOff,
    /// Every Redlock instance measures its TTLs with its wall clock.
    WallClocks,
    /// Every Redlock instance measures its TTLs with a monotonic clock.
    MonotonicClocks,
}

/// What the entry's search is expected to answer (checked by `tests/breaks.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// This failure, shrunk to this many faults.
    Found(ViolationKind, usize),
    /// No failure in an exhaustive search of the whole grid.
    NoneFound,
}

/// One preset's "what would break this?".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breaker {
    pub preset: &'static str,
    /// The assumption the caption rests on, in words: "if fencing were off".
    pub question: &'static str,
    pub change: Change,
    pub spec: SearchSpec,
    pub expect: Expect,
}

impl Breaker {
    /// What the search runs on, in words: "gc-pause-fenced with fencing off, without its client
    /// pauses (the search injects them)".
    pub fn searched(&self) -> String {
        let change = match self.change {
            Change::Nothing => "as written",
            Change::FencingOff => "with fencing off",
            Change::WallClocks => "with wall clocks on every instance",
            Change::MonotonicClocks => "with monotonic clocks on every instance",
        };
        format!(
            "Searched {} {change}, without its {} (the search injects them).",
            self.preset,
            self.spec.kinds_text()
        )
    }

    /// The scenario to search: the preset changed, without the faults of the kinds searched
    /// (the search has to find them itself).
    pub fn scenario(&self) -> Option<Scenario> {
        let mut s = preset(self.preset)?;
        change(&mut s, self.change);
        without_faults(&mut s, &self.spec.faults);
        Some(s)
    }
}

/// Makes one change to `s`.
pub fn change(s: &mut Scenario, what: Change) {
    let clocks = |s: &mut Scenario, monotonic: bool| {
        if let Some(r) = s.lock.redlock_mut() {
            for i in &mut r.instances {
                i.clock.monotonic = monotonic;
            }
        }
    };
    match what {
        Change::Nothing => {}
        Change::FencingOff => s.storage.fence_rule = FenceRule::Off,
        Change::WallClocks => clocks(s, false),
        Change::MonotonicClocks => clocks(s, true),
    }
}

/// Takes out of `s` the events of the fault kinds a search will inject: client pauses, debit
/// delays (set to none), client and lock clock jumps, instance crashes, partitions, client
/// crashes.
pub fn without_faults(s: &mut Scenario, kinds: &[FaultKind]) {
    let has = |k| kinds.contains(&k);
    for c in &mut s.clients {
        c.events.retain(|e| match e {
            Event::Pause { .. } => !has(FaultKind::Pause),
            Event::ClockJump { .. } => !has(FaultKind::ClientClockJump),
            Event::Crash { .. } => !has(FaultKind::ClientCrash),
            _ => true,
        });
        if has(FaultKind::Delay) {
            for e in &mut c.events {
                if let Event::Debit { delay_ms, .. } | Event::CheckThenWrite { delay_ms, .. } = e {
                    *delay_ms = 0;
                }
            }
        }
    }
    if has(FaultKind::LockClockJump) {
        s.lock.clock.jumps.clear();
    }
    if let Some(r) = s.lock.redlock_mut() {
        for i in &mut r.instances {
            i.events.retain(|e| match e {
                InstanceEvent::ClockJump { .. } => !has(FaultKind::LockClockJump),
                InstanceEvent::Crash { .. } => !has(FaultKind::InstanceCrash),
                InstanceEvent::Partition { .. } => !has(FaultKind::Partition),
            });
        }
    }
}

fn spec(faults: &[FaultKind], k: u32, failure: ViolationKind) -> SearchSpec {
    SearchSpec {
        faults: faults.to_vec(),
        max_faults: k,
        failure: Some(failure),
        budget: 1_000_000,
        strategy: Strategy::Exhaustive,
        ..SearchSpec::default()
    }
}

/// Fencing off, client pauses allowed: the paused holder's late write.
fn fencing_off(id: &'static str, kinds: &[FaultKind]) -> Breaker {
    Breaker {
        preset: id,
        question: "If the storage did not check fences, what would a client pause do?",
        change: Change::FencingOff,
        spec: spec(kinds, 1, ViolationKind::StaleWriteAccepted),
        expect: Expect::Found(ViolationKind::StaleWriteAccepted, 1),
    }
}

/// Every preset's entry, in the presets' order; a preset without one is unsafe as written, or
/// says in `no_breaker` why nothing a search injects could break it.
pub fn breakers() -> Vec<Breaker> {
    use FaultKind::*;
    use ViolationKind::{StaleWriteAccepted, TwoHolders};
    // Steps of 60 ms forward, the correction the Redlock captions speak of, at every instant
    // of the grid: small enough a grid to search exhaustively at k ≤ 2.
    let jumps = |k| SearchSpec {
        jump_ms: Range { min: 60, max: 60 },
        ..spec(&[LockClockJump], k, TwoHolders)
    };
    let swarm_jumps = |k| SearchSpec {
        strategy: Strategy::Swarm,
        budget: 20_000,
        ..jumps(k)
    };
    // Clock steps one way only, so the question's "forward" or "back" is what the search tries.
    let steps = |kind, min, max| SearchSpec {
        jump_ms: Range { min, max },
        ..spec(&[kind], 1, TwoHolders)
    };
    let found = |kind, faults| Expect::Found(kind, faults);
    vec![
        Breaker {
            preset: "contract-1-nx",
            question: "If the lock server's clock stepped forward, could B get the lock while A still believes it holds it?",
            change: Change::Nothing,
            spec: steps(LockClockJump, 1, 100),
            expect: found(TwoHolders, 1),
        },
        // The TTL frees the lock by the server's clock; A counts it down by its own.
        Breaker {
            preset: "contract-2-ttl",
            question: "If A's clock stepped back, would A still believe it held the lock once the TTL had freed it for B?",
            change: Change::Nothing,
            spec: steps(ClientClockJump, -100, -1),
            expect: found(TwoHolders, 1),
        },
        fencing_off("contract-4-fenced", &[Pause]),
        fencing_off("contract-6-check-then-write", &[Pause]),
        fencing_off("gc-pause-fenced", &[Pause]),
        fencing_off("delayed-packet", &[Delay]),
        fencing_off("watchdog-stalls", &[Pause]),
        // Plain Redis mints no fence, so strict storage refuses every debit: "storage that
        // does not insist is back to the unfenced story".
        Breaker {
            question: "If the storage did not insist on a fence (plain Redis mints none), what would a client pause do?",
            ..fencing_off("plain-redis", &[Pause])
        },
        // The caption's "while clocks run at about the same rate": A holds all five, so B
        // needs three instances to let A's key go early: three clock steps. Random schedules
        // (from the seed) find them in about 1 500 runs, where the exhaustive order takes
        // 60 000.
        Breaker {
            preset: "redlock-happy",
            question: "If the instances' clocks could step 60 ms forward (up to three of them), could two clients hold the lock?",
            change: Change::Nothing,
            spec: swarm_jumps(3),
            expect: found(TwoHolders, 3),
        },
        // R3 down leaves A four keys, three of which B needs: random schedules find three
        // steps in under 1 000 runs, where the exhaustive order takes 50 000.
        Breaker {
            preset: "redlock-one-down",
            question: "With R3 down, could 60 ms clock steps on three of the other instances give two clients the lock?",
            change: Change::Nothing,
            spec: swarm_jumps(3),
            expect: found(TwoHolders, 3),
        },
        Breaker {
            preset: "redlock-monotonic",
            question: "If the instances measured TTLs by their wall clocks, what would a 60 ms clock step do?",
            change: Change::WallClocks,
            spec: jumps(1),
            expect: found(TwoHolders, 1),
        },
        Breaker {
            preset: "redlock-monotonic",
            question: "With monotonic clocks on every instance, can one or two 60 ms clock steps give two holders?",
            change: Change::MonotonicClocks,
            spec: jumps(2),
            expect: Expect::NoneFound,
        },
        // The slew is taken out with the other clock jumps; the search steps instead.
        Breaker {
            preset: "redlock-slew",
            question: "If an instance's clock stepped the 60 ms at once instead of slewing, could two clients hold the lock?",
            change: Change::Nothing,
            spec: jumps(1),
            expect: found(TwoHolders, 1),
        },
        // R3's 70 ms crash is taken out; the search restarts an instance sooner than the TTL.
        Breaker {
            preset: "redlock-delayed-restart",
            question: "If an instance came back without its keys before the 60 ms TTL had passed, could two clients hold the lock?",
            change: Change::Nothing,
            spec: SearchSpec {
                down_ms: Range { min: 1, max: 59 },
                persistence: Persistence::Without,
                ..spec(&[InstanceCrash], 1, TwoHolders)
            },
            expect: found(TwoHolders, 1),
        },
        // "It assumes the client's clock measures the pause."
        Breaker {
            preset: "redlock-gc-during-acquire",
            question: "If A's clock stepped back, so that A measured less time than had passed, could two clients hold the lock?",
            change: Change::Nothing,
            spec: steps(ClientClockJump, -100, -1),
            expect: found(TwoHolders, 1),
        },
        fencing_off("redlock-order-fenced", &[Pause]),
        // etcd: the revision is the fence. Off, a pause gives the lost update; on, no pause
        // gets a stale write through (two pauses: `tests/etcd.rs`, natively, where the
        // exhaustive search of every pair takes seconds rather than minutes).
        fencing_off("etcd-pause-fenced", &[Pause]),
        Breaker {
            preset: "etcd-pause-fenced",
            question: "With the revision checked by the storage, can a GC pause get a stale write through?",
            change: Change::Nothing,
            spec: spec(&[Pause], 1, StaleWriteAccepted),
            expect: Expect::NoneFound,
        },
        Breaker {
            preset: "etcd-create-guard",
            question: "With every debit guarded by CREATE(key) == myRev, can a GC pause get a stale write through?",
            change: Change::Nothing,
            spec: spec(&[Pause], 1, StaleWriteAccepted),
            expect: Expect::NoneFound,
        },
        // "Only because A's write came after its keepalive."
        Breaker {
            preset: "etcd-stalled-keepalives",
            question: "If the pause caught A with its write already due, would its first step on waking be the write or the keepalive?",
            change: Change::Nothing,
            spec: spec(&[Pause], 1, StaleWriteAccepted),
            expect: found(StaleWriteAccepted, 1),
        },
        // "As long as no holder is paused past its lease."
        Breaker {
            preset: "etcd-35-expired-waiter",
            question: "With no fence, what would one GC pause of a holder past its lease do?",
            change: Change::Nothing,
            spec: spec(&[Pause], 1, StaleWriteAccepted),
            expect: found(StaleWriteAccepted, 1),
        },
        // PostgreSQL advisory locks: with no timeout nothing ends a paused holder's session;
        // with the write on the lock's session a dead session cannot commit. (The search does
        // not inject failovers or idle timeouts: `advisory-failover` and
        // `advisory-idle-timeout` show them as written.)
        Breaker {
            preset: "advisory-paused-holder",
            question: "With no idle timeout and no failover, can a GC pause of a holder get a stale write through?",
            change: Change::Nothing,
            spec: spec(&[Pause], 1, StaleWriteAccepted),
            expect: Expect::NoneFound,
        },
        Breaker {
            preset: "advisory-in-transaction",
            question: "With every write on the lock's own session, can a GC pause get a stale write through?",
            change: Change::Nothing,
            spec: spec(&[Pause], 1, StaleWriteAccepted),
            expect: Expect::NoneFound,
        },
        Breaker {
            preset: "advisory-killed-holder",
            question: "With the holder killed, not partitioned, can a GC pause get a stale write through?",
            change: Change::Nothing,
            spec: spec(&[Pause], 1, StaleWriteAccepted),
            expect: Expect::NoneFound,
        },
        // ZooKeeper: the czxid is the fence. Off, a pause gives the lost update; on, no pause
        // gets a stale write through, with the parent recreated or not. SUSPENDED saves only a
        // client that is running to hear it: a pause instead of the partition breaks it.
        fencing_off("zk-pause-czxid", &[Pause]),
        Breaker {
            preset: "zk-pause-czxid",
            question: "With the czxid checked by the storage, can a GC pause get a stale write through?",
            change: Change::Nothing,
            spec: spec(&[Pause], 1, StaleWriteAccepted),
            expect: Expect::NoneFound,
        },
        Breaker {
            preset: "zk-parent-czxid",
            question: "With the czxid as the fence and the lock parent recreated, can a GC pause get a stale write through?",
            change: Change::Nothing,
            spec: spec(&[Pause], 1, StaleWriteAccepted),
            expect: Expect::NoneFound,
        },
        Breaker {
            preset: "zk-suspended-stops",
            question: "If A were stopped by a GC pause instead of cut off, would stopping on SUSPENDED still keep its write out?",
            change: Change::Nothing,
            spec: spec(&[Pause], 1, StaleWriteAccepted),
            expect: found(StaleWriteAccepted, 1),
        },
        Breaker {
            preset: "zk-suspended-stops",
            question: "With A running and stopping on SUSPENDED, can a partition of a client from the ensemble get a stale write through?",
            change: Change::Nothing,
            spec: spec(&[Partition], 1, StaleWriteAccepted),
            expect: Expect::NoneFound,
        },
        // "A claim that lands before the holder's lease can run out": a pause holds A back.
        Breaker {
            preset: "redlock-cas",
            question: "If a GC pause held A back until after B's claim, could A's late write still be accepted?",
            change: Change::Nothing,
            spec: spec(&[Pause], 1, StaleWriteAccepted),
            expect: found(StaleWriteAccepted, 1),
        },
        // A database lease row: the generation is the fence. Off, a pause gives the lost
        // update; on, no pause does. The unique ledger refuses only an equal generation: a
        // pause before A's first write brings A's 33 in after B's 34, unrefused. The live lease
        // in the write's statement, and strict checks of a repeated or a fast waiter's
        // generation, hold against what the search injects.
        fencing_off("lease-paused-holder", &[Pause]),
        Breaker {
            preset: "lease-paused-holder",
            question: "With the account checking generation < $g, can a GC pause get a stale write through?",
            change: Change::Nothing,
            spec: spec(&[Pause], 1, StaleWriteAccepted),
            expect: Expect::NoneFound,
        },
        Breaker {
            preset: "lease-unique-ledger",
            question: "If A were paused before it had written under generation 33, would the unique constraint still refuse its late write?",
            change: Change::Nothing,
            spec: spec(&[Pause], 1, StaleWriteAccepted),
            expect: found(StaleWriteAccepted, 1),
        },
        Breaker {
            preset: "lease-live-lease",
            question: "With the live lease checked in the write's own statement, can a pause or a slow packet get a stale write through?",
            change: Change::Nothing,
            spec: spec(&[Pause, Delay], 1, StaleWriteAccepted),
            expect: Expect::NoneFound,
        },
        Breaker {
            preset: "lease-fast-waiter-fenced",
            question: "With the generation checked, can another client's clock step get a stale write through?",
            change: Change::Nothing,
            spec: spec(&[ClientClockJump], 1, StaleWriteAccepted),
            expect: Expect::NoneFound,
        },
        Breaker {
            preset: "lease-failover-strict",
            question: "With the account checking generation < $g, can one more failover get a stale write through?",
            change: Change::Nothing,
            spec: spec(&[Failover], 1, StaleWriteAccepted),
            expect: Expect::NoneFound,
        },
        // The fence that went back lets a stale holder look newer: A paused before its write
        // reaches the storage after B's 1 with its 33.
        Breaker {
            preset: "redlock-fence-backwards",
            question: "If a GC pause held A's write back until after B's, would B's fence 1 let A's stale 33 through?",
            change: Change::Nothing,
            spec: spec(&[Pause], 1, StaleWriteAccepted),
            expect: found(StaleWriteAccepted, 1),
        },
    ]
}

/// Why a preset that is safe as written has no "what would break this?" entry, where the page
/// would otherwise show nothing; `tests/breaks.rs` checks what each reason claims.
pub fn no_breaker(preset_id: &str) -> Option<&'static str> {
    Some(match preset_id {
        "contract-5-equal-is-stale" | "strict-vs-non-decreasing" => {
            "Nothing a search could inject breaks safety here: A is the only client and holds \
             one grant, so no fault brings in a second holder whose writes the fence must keep \
             apart, under the strict rule or the non-decreasing one. What differs is whether \
             A's second write under the same fence is accepted, which the timeline shows as \
             written."
        }
        "crash-ttl" => {
            "Nothing a search could inject breaks safety here: A dies at 10 ms and never \
             writes, so B is the only writer, and one pause, delay or clock step (even with \
             fencing off) only changes when B gets the lock or writes. Give A a debit before \
             its crash and search again."
        }
        "idempotent-retry" => {
            "Nothing a search could inject breaks safety here: A is the only client and holds \
             one grant, so whichever copy of pay-7 arrives second is refused, as a duplicate by \
             its key or, with keys off, as stale by the strict fence (33 is not above 33); \
             with fencing off the key alone refuses it. Only with both off does the payment run \
             twice, and then it fails as written, with no fault to find."
        }
        "efficiency-tier" => {
            "Nothing a search could inject breaks safety here: the caption accepts doing the \
             work twice, so in the efficiency tier a stale write or two holders is noted as \
             harmless double work, and the writes are of 0, so the balance cannot go wrong. \
             In the correctness tier the same schedule is unsafe as written."
        }
        "watchdog-saves" => {
            "Nothing a search could inject breaks safety here: B only asks for the lock and \
             never writes, so a pause that stops A and its watchdog together (the \
             watchdog-stalls preset) leaves A's write the only one, even with fencing off. \
             Give B a debit and search again."
        }
        "etcd-failover" => {
            "Nothing a search could inject breaks safety here: A writes once at 2 ms and \
             crashes at 12 ms (a crash runs even in a pause), so B is the only later writer, \
             and one pause only changes when B gets the lock or writes; the failover itself \
             only lengthens A's lease. Give A a write after the failover and search again."
        }
        "blank-single" | "redlock-empty" => {
            "Nothing is scheduled: the clients never ask for the lock or write, so there is \
             nothing for a fault to break. Add an acquire and a debit to each client and \
             search again."
        }
        _ => return None,
    })
}

/// The entries for a preset (none, one or two).
pub fn breakers_for(preset_id: &str) -> Vec<Breaker> {
    breakers()
        .into_iter()
        .filter(|b| b.preset == preset_id)
        .collect()
}
