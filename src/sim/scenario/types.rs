//! The scenario's shape: everything a run depends on, as plain data. It is what the URL hash,
//! exported files and the JS API carry; serde writes it (field names camelCase, enumerations
//! snake_case), and `read.rs` reads it back by hand so errors can name their field.

pub use super::advisory::{Advisory, AdvisoryLevel, ServerEvent, LINUX_KEEPALIVE_MS};
pub use super::etcd::{Etcd, EtcdVersion, Member, MemberEvent};
pub use super::lease::{Lease, LeaseEvent, LeaseExpiry, LeaseGuard};
use super::limits::DEFAULT_STEP_LIMIT;
pub use super::lock::{LockService, LockSettings};
pub use super::redlock::{Instance, InstanceEvent, Redlock};
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
    /// Database leases only: where a debit checks the lease's generation besides the account
    /// row (a ledger's unique constraint, or the live lease in the write's own statement).
    #[serde(skip_serializing_if = "LeaseGuard::is_none")]
    pub lease_guard: LeaseGuard,
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
fn default_balance() -> i64 {
    100
}

impl Default for StorageSettings {
    fn default() -> Self {
        StorageSettings {
            balance: default_balance(),
            fence_rule: FenceRule::Strict,
            idempotency: true,
            create_guard: false,
            in_transaction: false,
            lease_guard: LeaseGuard::None,
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
        self.clients
            .iter()
            .flat_map(|c| c.events.iter().map(Event::end_ms))
            .chain([self.lock.service.events_end_ms()])
            .fold(self.end_ms, u64::max)
    }
}
