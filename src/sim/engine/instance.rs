//! One lock instance as the engine runs it: its key table, its own clock, its latency, and
//! when it cannot be reached (crashed, or cut off from a client). A single Redis is one
//! instance that is always reachable; Redlock builds one per configured instance.

use super::intervals::Intervals;
use crate::sim::clock::Clock;
use crate::sim::lease::{LeaseTable, ReleaseMode};
use crate::sim::scenario::{Instance, InstanceEvent, Redlock, ReleaseKind, Scenario};

pub struct Inst {
    pub table: LeaseTable,
    pub clock: Clock,
    pub latency_ms: u64,
    /// While crashed.
    down: Intervals,
    /// While cut off from everyone.
    cut_all: Intervals,
    /// Per client: while cut off from it (alone or with everyone).
    cut_from: Vec<Intervals>,
}

impl Inst {
    /// The single Redis of a non-Redlock scenario: no latency, never down.
    pub fn single(s: &Scenario) -> Inst {
        Inst {
            table: LeaseTable::new(s.lock.ttl_ms, s.lock.first_fence, s.lock.fencing),
            clock: Clock::new(&s.lock.clock, []),
            latency_ms: 0,
            down: Intervals::default(),
            cut_all: Intervals::default(),
            cut_from: Vec::new(),
        }
    }

    /// One Redlock instance from its settings: its clock (with its jump events), its outages.
    pub fn redlock(s: &Scenario, r: &Redlock, i: &Instance) -> Inst {
        let mut down = Vec::new();
        let mut cuts = Vec::new();
        for e in &i.events {
            match e {
                InstanceEvent::Crash { at_ms, down_ms, .. } => {
                    down.push((*at_ms, at_ms.saturating_add(*down_ms)))
                }
                InstanceEvent::Partition {
                    at_ms,
                    duration_ms,
                    client,
                } => cuts.push((
                    *at_ms,
                    at_ms.saturating_add(*duration_ms),
                    client
                        .as_ref()
                        .and_then(|c| s.clients.iter().position(|k| &k.name == c)),
                )),
                InstanceEvent::ClockJump { .. } => {}
            }
        }
        Inst {
            // Every instance counts its grants; the counter is a fence only in the variant
            // that asks for one (`redlock.fence`).
            table: LeaseTable::new(s.lock.ttl_ms, s.lock.first_fence, r.fence),
            clock: Clock::new(&i.clock, i.clock_jumps()),
            latency_ms: i.latency_ms,
            down: Intervals::merged(down),
            cut_all: Intervals::merged(cuts.iter().filter(|c| c.2.is_none()).map(|c| (c.0, c.1))),
            cut_from: (0..s.clients.len())
                .map(|k| {
                    Intervals::merged(
                        cuts.iter()
                            .filter(|c| c.2.is_none_or(|c| c == k))
                            .map(|c| (c.0, c.1)),
                    )
                })
                .collect(),
        }
    }

    pub fn reachable(&self, client: usize, t: u64) -> bool {
        let cut = self.cut_from.get(client).unwrap_or(&self.cut_all);
        !self.down.contains(t) && !cut.contains(t)
    }

    /// Whether `owner` holds a live key here at true time `t`, as `isHeld()` would see it.
    pub fn holds(&self, key: &str, owner: &str, client: usize, t: u64) -> bool {
        self.reachable(client, t) && self.table.is_held(key, owner, self.clock.local(t))
    }

    /// The TTL ran out on this instance's clock: drop the key if it is still that grant.
    pub fn expire(&mut self, key: &str, t: u64, generation: u64, expires_at: i64) {
        let now = self.clock.local(t);
        if now >= expires_at {
            self.table.purge_expired(key, generation, now);
        }
    }
}

/// The table's release for a scenario's release kind.
pub fn release_mode(kind: ReleaseKind) -> ReleaseMode {
    match kind {
        ReleaseKind::TokenChecked => ReleaseMode::TokenChecked,
        ReleaseKind::BareDel => ReleaseMode::BareDel,
    }
}
