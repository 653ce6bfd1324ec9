//! Questions the command list asks of a finished trace: who held a key on an instance at an
//! instant, whether a client could reach an instance, which value a client's lock carried.
//! The engine writes these facts into the trace's spans; reading them back here keeps the
//! command list a pure function of the trace.

use super::ops::lock_value;
use crate::sim::scenario::Scenario;
use crate::sim::sort;
use crate::sim::trace::{OutageKind, Outcome, Purpose, Trace};

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

    /// The client and generation of the live key on `instance` at `at_ms`, if any.
    pub fn holder(&self, instance: usize, at_ms: u64) -> Option<(usize, u64)> {
        self.t
            .leases
            .iter()
            .filter(|l| l.instance == instance && l.start_ms <= at_ms && at_ms < l.end_ms)
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

    /// The generation of every Redlock acquisition round, by index into `acquisitions`
    /// (0 for extensions). A round that got a key takes that key's generation; the others are
    /// numbered in the order the rounds started, as the engine numbers them.
    pub fn round_generations(&self) -> Vec<u64> {
        let mut order: Vec<usize> = (0..self.t.acquisitions.len())
            .filter(|&a| self.t.acquisitions[a].purpose == Purpose::Acquire)
            .collect();
        sort::sort_by_key(&mut order, |&a| self.t.acquisitions[a].start_ms);
        // Each client's round starts, in order.
        let mut starts: std::collections::BTreeMap<usize, Vec<u64>> = Default::default();
        for &a in &order {
            let acq = &self.t.acquisitions[a];
            starts.entry(acq.client).or_default().push(acq.start_ms);
        }
        let mut out = vec![0; self.t.acquisitions.len()];
        for (n, a) in order.into_iter().enumerate() {
            let acq = &self.t.acquisitions[a];
            // A key granted while two of the client's rounds are open (a retry still waiting
            // when the next acquire starts) is the later round's: the earlier one's requests
            // had all left by then.
            let next_start = starts
                .get(&acq.client)
                .and_then(|v| v.get(v.partition_point(|&b| b <= acq.start_ms)).copied())
                .unwrap_or(u64::MAX);
            let granted = self.t.leases.iter().find(|l| {
                l.holder == acq.client
                    && acq.start_ms <= l.start_ms
                    && l.start_ms <= acq.end_ms
                    && l.start_ms < next_start
            });
            out[a] = granted.map_or(n as u64 + 1, |l| l.generation);
        }
        out
    }

    /// The step index of `client`'s release at `at_ms`, if it released then.
    pub fn release_step(&self, client: usize, at_ms: u64) -> Option<usize> {
        self.t.steps.iter().position(|s| {
            s.client == client
                && s.at_ms == at_ms
                && matches!(s.outcome, Outcome::Released { own: true, .. })
        })
    }
}
