//! The scenario's shape: everything a run depends on, as plain data. It is what the URL hash,
//! exported files and the JS API carry; serde writes it (field names camelCase, enumerations
//! snake_case), and `read.rs` reads it back by hand so errors can name their field.

pub use super::advisory::{Advisory, AdvisoryLevel, ServerEvent, LINUX_KEEPALIVE_MS};
pub use super::etcd::{Etcd, EtcdVersion, Member, MemberEvent};
use super::limits::DEFAULT_STEP_LIMIT;
pub use super::zookeeper::{OnSuspended, ZkEvent, ZkFence, Zookeeper, DEFAULT_TICK_TIME_MS};
use crate::sim::account::FenceRule;
use crate::sim::clock::{ClockJump, ClockSpec};
use serde::Serialize;

/// Whether a double write costs money or only effort (the seeds' two tiers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    #[default]
    Correctness,
    Efficiency,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scenario {
    pub version: u32,
    pub name: String,
    pub caption: String,
    pub tier: Tier,
    /// Length of the timeline; the run goes on past it while events are still due.
    pub end_ms: u64,
    pub key: String,
    pub lock: LockSettings,
    pub storage: StorageSettings,
    pub clients: Vec<Client>,
    pub step_limit: u32,
    /// Seeds every random choice of a run (none yet in a single-instance run).
    pub seed: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LockSettings {
    pub ttl_ms: u64,
    pub first_fence: u64,
    /// Whether the service mints a fence with each grant; plain Redis answers only OK or nil.
    pub fencing: bool,
    /// Start a watchdog (renew every TTL/2) with every grant.
    pub watchdog: bool,
    pub clock: ClockSpec,
    /// When present, the lock service is Redlock over these independent instances and the
    /// single-instance `clock` above is unused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redlock: Option<Redlock>,
    /// When present, the lock service is an etcd cluster of these members (and neither
    /// `clock` nor `watchdog` applies: sessions keep themselves alive). The first stage's
    /// build, which refuses etcd, never has one to write.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "first-stage", serde(skip))]
    pub etcd: Option<Etcd>,
    /// When present, the lock service is a PostgreSQL advisory lock (no TTL, no fence, no
    /// watchdog: the lock lasts as long as the session or the transaction). The first stage's
    /// build, which refuses it, never has one to write.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "first-stage", serde(skip))]
    pub advisory: Option<Advisory>,
    /// When present, the lock service is a ZooKeeper ensemble running the lock recipe
    /// (`ttlMs` is the session timeout the client asks for; no watchdog: the client pings).
    /// The first stage's build, which refuses it, never has one to write.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "first-stage", serde(skip))]
    pub zookeeper: Option<Zookeeper>,
}

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

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageSettings {
    pub balance: i64,
    pub fence_rule: FenceRule,
    /// Whether the storage remembers idempotency keys.
    pub idempotency: bool,
    /// etcd only: the account lives in etcd and each debit is a transaction that commits only
    /// if the writer's lock key still exists with the create revision it was granted
    /// (`CREATE(key) == myRev`), the guard etcd's own lock recipe uses.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub create_guard: bool,
    /// PostgreSQL advisory locks only: the account is a table in the lock's own database and
    /// each debit is an `UPDATE` sent on the lock holder's session (inside the lock's
    /// transaction at transaction level), so it commits only while that session lives.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub in_transaction: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Client {
    pub name: String,
    pub clock: ClockSpec,
    pub events: Vec<Event>,
}

/// What stops a process: the seeds' four kinds of pause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PauseCause {
    Gc,
    Sigstop,
    PageFault,
    Network,
}

impl PauseCause {
    pub fn label(self) -> &'static str {
        match self {
            PauseCause::Gc => "GC",
            PauseCause::Sigstop => "SIGSTOP",
            PauseCause::PageFault => "page fault",
            PauseCause::Network => "network",
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReleaseKind {
    /// Compare-and-delete script: only the owner's value deletes the key.
    #[default]
    TokenChecked,
    /// A bare `DEL`: deletes the key whoever holds it.
    BareDel,
}

/// One timed action of a client. `at_ms` is true time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum Event {
    Acquire {
        at_ms: u64,
    },
    Debit {
        at_ms: u64,
        amount: i64,
        #[serde(skip_serializing_if = "Option::is_none")]
        idempotency_key: Option<String>,
        /// Time the write spends in the network before it reaches the storage.
        delay_ms: u64,
    },
    Pause {
        at_ms: u64,
        duration_ms: u64,
        cause: PauseCause,
    },
    /// `isHeld()` at `at_ms`, then the debit `gap_ms` later if the check passed.
    CheckThenWrite {
        at_ms: u64,
        amount: i64,
        #[serde(skip_serializing_if = "Option::is_none")]
        idempotency_key: Option<String>,
        delay_ms: u64,
        gap_ms: u64,
    },
    Renew {
        at_ms: u64,
    },
    Watchdog {
        at_ms: u64,
    },
    Release {
        at_ms: u64,
        mode: ReleaseKind,
    },
    Crash {
        at_ms: u64,
    },
    ClockJump {
        at_ms: u64,
        by_ms: i64,
    },
}

impl Event {
    pub fn at_ms(&self) -> u64 {
        match self {
            Event::Acquire { at_ms }
            | Event::Debit { at_ms, .. }
            | Event::Pause { at_ms, .. }
            | Event::CheckThenWrite { at_ms, .. }
            | Event::Renew { at_ms }
            | Event::Watchdog { at_ms }
            | Event::Release { at_ms, .. }
            | Event::Crash { at_ms }
            | Event::ClockJump { at_ms, .. } => *at_ms,
        }
    }

    pub fn set_at_ms(&mut self, t: u64) {
        match self {
            Event::Acquire { at_ms }
            | Event::Debit { at_ms, .. }
            | Event::Pause { at_ms, .. }
            | Event::CheckThenWrite { at_ms, .. }
            | Event::Renew { at_ms }
            | Event::Watchdog { at_ms }
            | Event::Release { at_ms, .. }
            | Event::Crash { at_ms }
            | Event::ClockJump { at_ms, .. } => *at_ms = t,
        }
    }

    /// The instant the event stops occupying its lane (pauses and delayed writes are long).
    pub fn end_ms(&self) -> u64 {
        match self {
            Event::Pause {
                at_ms, duration_ms, ..
            } => at_ms.saturating_add(*duration_ms),
            Event::Debit {
                at_ms, delay_ms, ..
            } => at_ms.saturating_add(*delay_ms),
            Event::CheckThenWrite {
                at_ms,
                delay_ms,
                gap_ms,
                ..
            } => at_ms.saturating_add(*gap_ms).saturating_add(*delay_ms),
            other => other.at_ms(),
        }
    }

    /// The name used in the JSON `kind` field.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Acquire { .. } => "acquire",
            Event::Debit { .. } => "debit",
            Event::Pause { .. } => "pause",
            Event::CheckThenWrite { .. } => "check_then_write",
            Event::Renew { .. } => "renew",
            Event::Watchdog { .. } => "watchdog",
            Event::Release { .. } => "release",
            Event::Crash { .. } => "crash",
            Event::ClockJump { .. } => "clock_jump",
        }
    }
}

pub(super) fn default_end_ms() -> u64 {
    100
}
pub(super) fn default_key() -> String {
    "acct:1".to_string()
}
pub(super) fn default_step_limit() -> u32 {
    DEFAULT_STEP_LIMIT
}
fn default_ttl_ms() -> u64 {
    30
}
fn default_first_fence() -> u64 {
    33
}
fn default_balance() -> i64 {
    100
}

impl Default for LockSettings {
    fn default() -> Self {
        LockSettings {
            ttl_ms: default_ttl_ms(),
            first_fence: default_first_fence(),
            fencing: true,
            watchdog: false,
            clock: ClockSpec::default(),
            redlock: None,
            etcd: None,
            advisory: None,
            zookeeper: None,
        }
    }
}

impl Default for StorageSettings {
    fn default() -> Self {
        StorageSettings {
            balance: default_balance(),
            fence_rule: FenceRule::Strict,
            idempotency: true,
            create_guard: false,
            in_transaction: false,
        }
    }
}

impl Scenario {
    /// Extra clock jumps a client's `clock_jump` events add to its clock.
    pub fn client_jumps(client: &Client) -> Vec<ClockJump> {
        client
            .events
            .iter()
            .filter_map(|e| match e {
                Event::ClockJump { at_ms, by_ms } => Some(ClockJump {
                    at_ms: *at_ms,
                    by_ms: *by_ms,
                    over_ms: 0,
                }),
                _ => None,
            })
            .collect()
    }

    /// The last instant any event occupies, at least `end_ms`.
    pub fn horizon_ms(&self) -> u64 {
        let instances = self
            .lock
            .redlock
            .iter()
            .flat_map(|r| r.instances.iter())
            .flat_map(|i| i.events.iter().map(InstanceEvent::end_ms));
        let members = self
            .lock
            .etcd
            .iter()
            .flat_map(|e| e.members.iter())
            .flat_map(|m| m.events.iter().map(MemberEvent::end_ms));
        let server = self
            .lock
            .advisory
            .iter()
            .flat_map(|a| a.events.iter().map(ServerEvent::at_ms));
        let ensemble = self
            .lock
            .zookeeper
            .iter()
            .flat_map(|z| z.events.iter().map(ZkEvent::end_ms));
        self.clients
            .iter()
            .flat_map(|c| c.events.iter().map(Event::end_ms))
            .chain(instances)
            .chain(members)
            .chain(server)
            .chain(ensemble)
            .fold(self.end_ms, u64::max)
    }
}
