//! How much a run of a scenario can cost, counted before it runs. The engine pops one action
//! at a time from its queue; this file bounds how many it can pop, from the scenario alone, so
//! that `validate` can refuse a scenario whose run would be too long (a watchdog renewing every
//! millisecond for hours, a dozen clients retrying Redlock rounds over nine instances) with a
//! message that names the limit, instead of freezing the page that opened its link.
//!
//! The count is an upper bound by construction: each client action may be popped twice (once
//! when due, once more when a pause defers it to the wake instant); a Redlock round sends a
//! request to each instance, reads each reply and may schedule an expiry on each; a failed
//! acquisition releases everywhere and retries; a watchdog renews every TTL/2 until the
//! timeline ends. The property tests check that a run never needs more steps than this.

use super::types::{Etcd, Event, Lease, LockService, Redlock, Scenario, Zookeeper};

/// What one scenario may cost, split as the message explains it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Steps of the clients' own events (Redlock rounds, retries and writes included).
    pub events: u64,
    /// Steps of the watchdogs' renewals.
    pub watchdog: u64,
    /// Steps of the instances' crashes, partitions and clock jumps.
    pub instances: u64,
}

impl Work {
    pub fn total(&self) -> u64 {
        self.events
            .saturating_add(self.watchdog)
            .saturating_add(self.instances)
    }
}

/// A client action is popped when due and once more if a pause defers it.
const POPS: u64 = 2;

/// The most steps a run of `s` can take.
pub fn work(s: &Scenario) -> Work {
    match &s.lock.service {
        LockService::Redis => redis_work(s, None),
        // An advisory lock's calls are counted as a single Redis's are.
        LockService::Advisory(_) => redis_work(s, None),
        LockService::Redlock(r) => redis_work(s, Some(r)),
        LockService::Etcd(e) => etcd_work(s, e),
        LockService::Zookeeper(z) => zookeeper_work(s, z),
        LockService::Lease(l) => lease_work(s, l),
    }
}

#[cfg(not(feature = "first-stage"))]
/// The most steps a run against a lease row can take: a single Redis's, and, when a waiter
/// judges expiry, one look at the row per change of it for each acquire (each renewal,
/// watchdog turn, release, grant and failover may send every waiter back to its clock), with
/// one more pop for each step a wait held back. A failover is one step.
fn lease_work(s: &Scenario, l: &Lease) -> Work {
    let mut w = redis_work(s, None);
    let events: u64 = s.clients.iter().map(|c| c.events.len() as u64).sum();
    let acquires = s
        .clients
        .iter()
        .flat_map(|c| c.events.iter())
        .filter(|e| matches!(e, Event::Acquire { .. }))
        .count() as u64;
    let failovers = l.events.len() as u64;
    let changes = w
        .events
        .saturating_add(w.watchdog)
        .saturating_add(failovers);
    let looks = acquires.saturating_mul(changes.saturating_add(POPS + 1));
    w.events = w.events.saturating_add(looks).saturating_add(events);
    w.instances = failovers;
    w
}

/// The first stage's build refuses a lease before it counts, and has no lease to count.
#[cfg(feature = "first-stage")]
fn lease_work(_: &Scenario, _: &Lease) -> Work {
    Work::default()
}

/// The most steps a run against one Redis or Redlock (`redlock`) can take.
fn redis_work(s: &Scenario, redlock: Option<&Redlock>) -> Work {
    let n = redlock.map_or(1, |r| r.instances.len() as u64);
    let attempts = redlock.map_or(1, |r| u64::from(r.retries).saturating_add(1));
    // Requests, replies, expiries and the release after a failure: one each per instance; the
    // client's look at its replies, once per instance when sequential, may be deferred.
    let acquire_round = match redlock {
        None => 1,
        Some(_) => n.saturating_mul(4 + POPS).saturating_add(POPS),
    };
    let extend_round = match redlock {
        None => 1,
        Some(_) => n.saturating_mul(3 + POPS),
    };
    let release_round = if redlock.is_some() { n } else { 0 };
    let horizon = s.horizon_ms();
    let period = (s.lock.ttl_ms / 2).max(1);

    let mut w = Work::default();
    for c in &s.clients {
        let mut starts = 0u64;
        for e in &c.events {
            let own = match e {
                Event::Acquire { .. } => {
                    if s.lock.watchdog {
                        starts = starts.saturating_add(attempts);
                    }
                    attempts.saturating_mul(acquire_round)
                }
                Event::Debit { .. } => 1,
                Event::CheckThenWrite { .. } => POPS + 1,
                Event::Pause { .. } => 1,
                Event::Renew { .. } => extend_round,
                Event::Release { .. } => release_round,
                Event::Watchdog { .. } => {
                    starts = starts.saturating_add(1);
                    0
                }
                Event::Crash { .. } | Event::ClockJump { .. } => 0,
            };
            w.events = w.events.saturating_add(POPS.saturating_add(own));
        }
        if starts > 0 {
            // Chains of renewals follow one another: together they span the timeline once,
            // plus the first turn of each and the stale turn a replaced chain leaves behind.
            let turns = (horizon / period).saturating_add(starts.saturating_mul(2));
            let turn = POPS.saturating_add(extend_round);
            w.watchdog = w.watchdog.saturating_add(turns.saturating_mul(turn));
        }
    }
    if let Some(r) = redlock {
        w.instances = r.instances.iter().map(|i| i.events.len() as u64).sum();
    }
    w
}

#[cfg(not(feature = "first-stage"))]
/// The most steps a run against etcd can take. A client event may be popped a third time when
/// a lock call it waited behind returns; an acquire also grants a lease, puts its key and ends
/// a wait; a release deletes a key. Each session sends a keepalive every TTL/3 until the
/// timeline ends, and each keepalive may schedule the lease's expiry. A member's crash or
/// partition loses the leader and elects another, which reschedules every session's expiry.
fn etcd_work(s: &Scenario, e: &Etcd) -> Work {
    let member_events: u64 = e.members.iter().map(|m| m.events.len() as u64).sum();
    session_work(s, (s.lock.ttl_ms / 3).max(1), member_events)
}

#[cfg(not(feature = "first-stage"))]
/// The most steps a run against ZooKeeper can take: as etcd's, with a ping every third of the
/// negotiated session timeout, and each ensemble event (a partition's start, its detection and
/// its end, each of which may be put back to a pause's end; a parent's removal) counted as a
/// member event is.
fn zookeeper_work(s: &Scenario, z: &Zookeeper) -> Work {
    let period = (z.negotiated_timeout_ms(s.lock.ttl_ms) / 3).max(1);
    session_work(s, period, (z.events.len() as u64).saturating_mul(3))
}

/// The first stage's build refuses etcd before it counts, and has no etcd to count.
#[cfg(feature = "first-stage")]
fn etcd_work(_: &Scenario, _: &Etcd) -> Work {
    Work::default()
}

/// The first stage's build refuses ZooKeeper before it counts, and has no ZooKeeper to count.
#[cfg(feature = "first-stage")]
fn zookeeper_work(_: &Scenario, _: &Zookeeper) -> Work {
    Work::default()
}

#[cfg(not(feature = "first-stage"))]
/// A session service's work: each client's events, a keepalive or ping every `period` until
/// the timeline ends, and `server_events` that may each touch every session.
fn session_work(s: &Scenario, period: u64, server_events: u64) -> Work {
    let horizon = s.horizon_ms();
    let clients = s.clients.len() as u64;
    let mut w = Work::default();
    for c in &s.clients {
        let mut acquires = 0u64;
        for ev in &c.events {
            let own = match ev {
                Event::Acquire { .. } => {
                    acquires = acquires.saturating_add(1);
                    4
                }
                Event::CheckThenWrite { .. } => POPS + 1,
                Event::Release { .. } | Event::Renew { .. } => 2,
                _ => 1,
            };
            w.events = w.events.saturating_add((POPS + 1).saturating_add(own));
        }
        if acquires > 0 {
            let turns = (horizon / period).saturating_add(acquires.saturating_mul(2));
            w.watchdog = w.watchdog.saturating_add(turns.saturating_mul(POPS + 2));
        }
    }
    w.instances = server_events.saturating_mul(clients.saturating_add(3));
    w
}
