//! Redlock's settings: N independent Redis instances, each with its clock, latency and events
//! (clock jumps, crashes, partitions), and the client's timeout, drift allowance and retries.

use crate::sim::clock::{ClockJump, ClockSpec};
use serde::Serialize;

/// Redlock: N independent instances, a majority, validity = TTL − elapsed − drift margin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Redlock {
    pub instances: Vec<Instance>,
    /// Ask every instance at once instead of one at a time.
    pub parallel: bool,
    /// How long a client waits for one instance before moving on.
    pub timeout_ms: u64,
    /// Clock drift allowance in parts per million of the TTL; 2 ms are always added.
    pub drift_factor_ppm: u64,
    /// Further attempts after a failed one, each after a random delay drawn from the seed.
    pub retries: u32,
    pub retry_delay_ms: u64,
    /// Non-standard: each grant also returns the instance's counter and the client uses the
    /// largest one of its majority as a fence. Standard Redlock mints nothing.
    pub fence: bool,
}

/// One independent Redis instance of a Redlock service.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Instance {
    pub name: String,
    pub clock: ClockSpec,
    /// One-way network time between any client and this instance.
    pub latency_ms: u64,
    pub events: Vec<InstanceEvent>,
}

/// What happens to an instance over time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum InstanceEvent {
    /// The instance's clock steps (or slews, with `over_ms`) by `by_ms`.
    ClockJump {
        at_ms: u64,
        by_ms: i64,
        over_ms: u64,
    },
    /// Down for `down_ms`; without persistence it comes back with no keys.
    Crash {
        at_ms: u64,
        down_ms: u64,
        persistent: bool,
    },
    /// No message between this instance and `client` (every client when absent).
    Partition {
        at_ms: u64,
        duration_ms: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        client: Option<String>,
    },
}

impl InstanceEvent {
    pub fn at_ms(&self) -> u64 {
        match self {
            InstanceEvent::ClockJump { at_ms, .. }
            | InstanceEvent::Crash { at_ms, .. }
            | InstanceEvent::Partition { at_ms, .. } => *at_ms,
        }
    }

    pub fn set_at_ms(&mut self, t: u64) {
        match self {
            InstanceEvent::ClockJump { at_ms, .. }
            | InstanceEvent::Crash { at_ms, .. }
            | InstanceEvent::Partition { at_ms, .. } => *at_ms = t,
        }
    }

    pub fn end_ms(&self) -> u64 {
        match self {
            InstanceEvent::ClockJump { at_ms, over_ms, .. } => at_ms.saturating_add(*over_ms),
            InstanceEvent::Crash { at_ms, down_ms, .. } => at_ms.saturating_add(*down_ms),
            InstanceEvent::Partition {
                at_ms, duration_ms, ..
            } => at_ms.saturating_add(*duration_ms),
        }
    }
}

impl Instance {
    /// The jumps and slews the instance's `clock_jump` events add to its clock.
    pub fn clock_jumps(&self) -> impl Iterator<Item = ClockJump> + '_ {
        self.events.iter().filter_map(|e| match e {
            InstanceEvent::ClockJump {
                at_ms,
                by_ms,
                over_ms,
            } => Some(ClockJump {
                at_ms: *at_ms,
                by_ms: *by_ms,
                over_ms: *over_ms,
            }),
            _ => None,
        })
    }
}

impl Redlock {
    /// Redlock as its description runs it over these instances: one at a time, a 5 ms timeout
    /// per instance, a 1% clock-drift allowance, no retries and no fence.
    pub fn standard(instances: Vec<Instance>) -> Redlock {
        Redlock {
            instances,
            parallel: false,
            timeout_ms: default_timeout_ms(),
            drift_factor_ppm: default_drift_factor_ppm(),
            retries: 0,
            retry_delay_ms: default_retry_delay_ms(),
            fence: false,
        }
    }

    /// The number of instances a client needs: N/2 + 1.
    pub fn majority(&self) -> usize {
        self.instances.len() / 2 + 1
    }

    /// The drift margin for a TTL: TTL × factor + 2 ms.
    pub fn drift_ms(&self, ttl_ms: u64) -> u64 {
        ttl_ms
            .saturating_mul(self.drift_factor_ppm)
            .div_euclid(1_000_000)
            .saturating_add(2)
    }
}

pub(super) fn default_timeout_ms() -> u64 {
    5
}
pub(super) fn default_drift_factor_ppm() -> u64 {
    10_000
}
pub(super) fn default_retry_delay_ms() -> u64 {
    20
}
