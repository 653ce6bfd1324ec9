//! Questions the command list asks of a finished trace: who held a key on an instance at an
//! instant, whether a client could reach an instance, which value a client's lock carried.
//! The engine writes these facts into the trace's spans; reading them back here keeps the
//! command list a pure function of the trace.

use super::ops::lock_value;
use crate::sim::scenario::Scenario;
use crate::sim::trace::{OutageKind, Outcome, Trace};

/// The trace and its scenario, with the lookups the command list needs.
pub struct Run<'a> {
    pub s: &'a Scenario,
    pub t: &'a Trace,
}

impl Run<'_> {
    pub fn name(&self, client: usize) -> &str {
        self.t.client_name(client)
    }

    /// The value `client` writes for lock generation `generation`.
    pub fn value(&self, client: usize, generation: u64) -> String {
        lock_value(self.name(client), self.s.seed, generation)
    }

    /// The client and generation of the live key on `instance` at `at_ms`, if any, as the run's
    /// step `step` (at `at_ms`) finds it: a single Redis grants a lease in a step
    /// of its own, and one granted at the same instant by a later step is not there yet (the
    /// steps of one instant run in the trace's order, as the engine ran them).
    pub fn holder_seen_by(&self, instance: usize, at_ms: u64, step: usize) -> Option<(usize, u64)> {
        let granted_later = |l: &crate::sim::trace::LeaseSpan| {
            l.start_ms == at_ms
                && self.t.steps.iter().skip(step + 1).any(|s| {
                    s.client == l.holder
                        && s.at_ms == at_ms
                        && matches!(s.outcome, Outcome::Granted { .. })
                })
        };
        self.t
            .leases
            .iter()
            .filter(|l| l.instance == instance && l.start_ms <= at_ms && at_ms < l.end_ms)
            .filter(|l| !granted_later(l))
            .max_by_key(|l| l.start_ms)
            .map(|l| (l.holder, l.generation))
    }

    /// Whether `instance` is down (crashed) at `at_ms`.
    pub fn down(&self, instance: usize, at_ms: u64) -> bool {
        self.t.outages.iter().any(|o| {
            o.instance == instance
                && o.kind == OutageKind::Crash
                && o.start_ms <= at_ms
                && at_ms < o.end_ms
        })
    }

    /// Whether a partition cuts `client` off from `instance` at `at_ms`.
    pub fn cut(&self, instance: usize, client: usize, at_ms: u64) -> bool {
        self.t.outages.iter().any(|o| {
            o.instance == instance
                && o.kind == OutageKind::Partition
                && o.client.is_none_or(|c| c == client)
                && o.start_ms <= at_ms
                && at_ms < o.end_ms
        })
    }

    pub fn reachable(&self, instance: usize, client: usize, at_ms: u64) -> bool {
        !self.down(instance, at_ms) && !self.cut(instance, client, at_ms)
    }
}
