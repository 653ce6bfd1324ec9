//! What a run produced: every step with its outcome, the true lease intervals, each client's
//! belief intervals, the storage ledger and the balance over time. The UI draws only this, and
//! the checker judges only this, so the trace is the single source of every verdict on screen.

// The trace's vocabulary includes the storage's verdicts and the scenario's enumerations;
// re-exported so that readers of a trace (checker, narration, UI) need only this module.
pub use super::account::{DebitVerdict, FenceRule, Rejection};
pub use super::scenario::{PauseCause, ReleaseKind, Tier};
pub use super::trace_advisory::*;
pub use super::trace_etcd::*;
pub use super::trace_kind::ServiceKind;
pub use super::trace_lease::*;
pub use super::trace_zk::*;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    pub clients: Vec<String>,
    /// The scenario's tier, so the checker can judge the trace on its own.
    pub tier: Tier,
    /// How the storage compared tokens; `cas_value` tokens are lock values, not fences.
    pub fence_rule: FenceRule,
    /// The lock service the run used. Readers ask this, never the number of instances: Redlock
    /// may run over a single instance.
    pub service: ServiceKind,
    /// Lock instances: one (`lock`) for a single Redis, N (1 or more) for Redlock.
    pub instances: Vec<String>,
    /// Redlock's majority (1 for a single instance).
    pub majority: usize,
    /// The stretches in which a client held live keys on a majority of the instances (every
    /// lease of a single instance is one), by start.
    pub majorities: Vec<HoldSpan>,
    /// The last instant anything happened or was scheduled, at least the scenario's `endMs`.
    pub end_ms: u64,
    pub steps: Vec<Step>,
    pub leases: Vec<LeaseSpan>,
    pub beliefs: Vec<BeliefSpan>,
    pub pauses: Vec<PauseSpan>,
    pub messages: Vec<MessageSpan>,
    /// Redlock attempts (acquisitions and extensions) with their arithmetic.
    pub acquisitions: Vec<Acquisition>,
    /// Instance crashes and partitions.
    pub outages: Vec<Outage>,
    /// Instance clock jumps, for the lanes and the narration.
    pub instance_marks: Vec<InstanceMark>,
    pub writes: Vec<WriteRecord>,
    pub balance: Vec<BalancePoint>,
    pub final_balance: i64,
    pub last_fence: Option<u64>,
    /// True when the run stopped at the scenario's step limit.
    pub step_limit_hit: bool,
    pub verdict: Verdict,
    pub narration: Vec<String>,
    /// The etcd cluster's side of the run (members, leaders, sessions, waits, revisions);
    /// absent for the Redis services.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "first-stage", serde(skip))]
    pub etcd: Option<EtcdTrace>,
    /// What the PostgreSQL server did: sessions, waits, failovers. Present for an advisory
    /// lock's runs only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "first-stage", serde(skip))]
    pub advisory: Option<AdvisoryTrace>,
    /// What the ZooKeeper ensemble did: sessions, lock nodes, waits, connection states,
    /// zxids. Present for a ZooKeeper lock's runs only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "first-stage", serde(skip))]
    pub zookeeper: Option<ZkTrace>,
    /// What the lease table did (the row's versions, the watches, the failovers); leases only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "first-stage", serde(skip))]
    pub lease: Option<LeaseTrace>,
}

impl Trace {
    /// A client's name, or "?" for an index the trace does not know.
    pub fn client_name(&self, client: usize) -> &str {
        self.clients.get(client).map_or("?", String::as_str)
    }

    /// The service the run used, to `match` on (`ServiceKind::in_this_build`).
    pub fn kind(&self) -> ServiceKind {
        self.service.in_this_build()
    }

    /// Whether the run was against Redlock (over any number of instances).
    pub fn is_redlock(&self) -> bool {
        self.kind() == ServiceKind::Redlock
    }

    /// Whether the run was against an etcd cluster (never in the first stage's build).
    pub fn is_etcd(&self) -> bool {
        self.kind() == ServiceKind::Etcd
    }

    /// Whether the run was against a PostgreSQL advisory lock (never in the first stage's).
    pub fn is_advisory(&self) -> bool {
        self.kind() == ServiceKind::Advisory
    }

    /// Whether the run was against a ZooKeeper ensemble (never in the first stage's build).
    pub fn is_zookeeper(&self) -> bool {
        self.kind() == ServiceKind::Zookeeper
    }

    /// A lock instance's name, or "?" for an index the trace does not know.
    pub fn instance_name(&self, instance: usize) -> &str {
        self.instances.get(instance).map_or("?", String::as_str)
    }
}

/// One thing a client or the storage did, in the order it happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub at_ms: u64,
    pub client: usize,
    /// The scenario event behind the step (index into the client's events), if any.
    pub event: Option<usize>,
    pub outcome: Outcome,
    /// The outcome in a few words, e.g. "granted fence 34".
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum Outcome {
    Granted {
        fence: Option<u64>,
        lease_until_ms: u64,
    },
    Denied {
        holder: String,
    },
    Renewed {
        lease_until_ms: u64,
        by_watchdog: bool,
    },
    RenewDenied {
        holder: Option<String>,
        by_watchdog: bool,
    },
    WatchdogStarted,
    Released {
        mode: ReleaseKind,
        /// `own`, `nothing`, or the name of the client whose lease a bare DEL deleted.
        deleted: Option<String>,
        own: bool,
    },
    CheckPassed,
    CheckFailed,
    DebitSent {
        write: usize,
    },
    Stored {
        write: usize,
        verdict: DebitVerdict,
    },
    Paused {
        cause: PauseCause,
        until_ms: u64,
    },
    Woke,
    Crashed,
    ClockJumped {
        by_ms: i64,
    },
    Skipped {
        reason: String,
    },
    /// A Redlock attempt ended: `ok` with a majority in time, or not.
    Redlock {
        attempt: usize,
        ok: bool,
    },
    /// etcd: the client's key was put with this create revision and it waits until every key
    /// with a lower one is deleted (`behind` holds the lowest).
    Queued {
        revision: u64,
        behind: String,
    },
    /// etcd 3.4: the lock call told a waiter it holds the lock although its lease expired
    /// while it waited and its key is gone (etcd-io/etcd#11456). The answer names the key, and
    /// the key's create revision (the fence) can no longer be read: the client holds no fence.
    GrantedExpired {
        expired_ms: u64,
    },
    /// etcd: the session's lease is gone. `by_lock`: the lock call answered "session expired"
    /// (3.5, after the wait); otherwise a keepalive was answered "lease not found".
    SessionExpired {
        by_lock: bool,
    },
    /// etcd: no member is leader, so the request waits for an election.
    NoLeader,
    /// PostgreSQL: `pg_advisory_lock` blocks while `behind`'s session holds the lock.
    LockWaits {
        behind: String,
    },
    /// PostgreSQL: the client's statement found its session gone (it ended for `why`); a lock
    /// call that waited returns an error, a later statement learns the lock is lost.
    SessionGone {
        why: SessionEnd,
    },
    /// ZooKeeper: the client's node `node` was created and waits for the lower nodes to go
    /// (`behind` owns the lowest).
    NodeWaits {
        node: String,
        behind: String,
    },
    /// ZooKeeper: the request got no answer, the client being cut off from the ensemble.
    ConnectionLoss,
    /// ZooKeeper: the client library reports a change of the connection's state.
    ZkNotice {
        notice: ZkNotice,
    },
    /// ZooKeeper: the client does not write while Curator says SUSPENDED (or LOST).
    WriteHeldBack {
        state: ZkState,
    },
}

/// Why a lease or a belief ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SpanEnd {
    Expired,
    Released,
    /// Deleted by another client's bare DEL.
    Deleted,
    Crashed,
    /// Replaced by a newer grant to the same client.
    Replaced,
    /// Still open when the run ended.
    Open,
    /// The instance restarted without persistence and forgot the key.
    Forgotten,
}

/// A lease as the lock service held it, in true time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseSpan {
    /// Which lock instance held it (always 0 for a single instance).
    pub instance: usize,
    pub holder: usize,
    pub fence: Option<u64>,
    pub generation: u64,
    pub start_ms: u64,
    pub end_ms: u64,
    pub end: SpanEnd,
    pub renewals_ms: Vec<u64>,
}

/// When a client believed it held the lock. `stale_from_ms` marks where the belief outlived
/// the lease: the stretch the playground exists to show.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BeliefSpan {
    pub client: usize,
    pub fence: Option<u64>,
    pub generation: u64,
    pub start_ms: u64,
    pub end_ms: u64,
    pub end: SpanEnd,
    /// Where the client's own clock says the lock stops being valid (without the extension a
    /// pause gives: a stopped process cannot look).
    pub valid_until_ms: u64,
    pub stale_from_ms: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PauseSpan {
    pub client: usize,
    pub event: usize,
    pub cause: PauseCause,
    pub start_ms: u64,
    pub end_ms: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    Lock,
    Storage,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSpan {
    pub client: usize,
    /// The lock instance addressed, for messages to the lock service.
    pub instance: Option<usize>,
    /// Dropped by a crash or a partition.
    pub lost: bool,
    pub event: Option<usize>,
    pub target: Target,
    pub label: String,
    pub sent_ms: u64,
    pub arrived_ms: u64,
    /// For a Redlock request, the lock generation whose value it carries: the acquisition
    /// round's own, or the lock's that an extension or a release is for (an undo's: the failed
    /// round's). 0 for any other message.
    #[serde(skip)]
    pub generation: u64,
}

/// One debit from send to verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteRecord {
    pub client: usize,
    pub event: Option<usize>,
    pub sent_ms: u64,
    pub arrived_ms: u64,
    pub amount: i64,
    pub token: Option<u64>,
    pub idempotency_key: Option<String>,
    /// The lock generation the writer last held, fenced or not (`None`: never acquired).
    pub generation: Option<u64>,
    /// Whether the writer believed it held the lock when it decided to write.
    pub believed_held: bool,
    /// `None` only while in flight when the run stopped.
    pub verdict: Option<DebitVerdict>,
}

/// One Redlock attempt: when it started and ended, how many instances agreed, and the validity
/// left after the time spent (TTL − elapsed − drift margin).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Acquisition {
    pub client: usize,
    pub event: Option<usize>,
    pub purpose: Purpose,
    /// 1 for the first try, 2 for the first retry, …
    pub attempt: u32,
    /// The lock generation of the round: an acquisition round's own (each sets a value of its
    /// own), an extension's that of the lock it extends. What the commands send as the value.
    #[serde(skip)]
    pub generation: u64,
    pub start_ms: u64,
    pub end_ms: u64,
    pub votes: usize,
    pub needed: usize,
    pub elapsed_ms: i64,
    pub drift_ms: u64,
    pub validity_ms: i64,
    pub ok: bool,
    pub fence: Option<u64>,
    /// Why it failed (`None` exactly when `ok`); `words::failure_text` says it in words.
    pub reason: Option<Failure>,
    /// What made the client's own timing of the round wrong, if anything did;
    /// `words::timing_hazard_text` says it in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing_hazard: Option<TimingHazard>,
}

/// A flaw in how a client timed a Redlock round. Redlock measures the elapsed time with the
/// client's clock; if that is a wall clock, a step back while the round runs shortens what it
/// measures, and the validity it computes (TTL − elapsed − drift margin) grows by as much, past
/// the TTL itself when the elapsed time comes out negative. The engine keeps those numbers as
/// the client computed them, and flags them here. A monotonic clock never steps back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum TimingHazard {
    /// The client's wall clock stepped back by `by_ms` (net) between the start and the end of
    /// the round.
    WallClockSteppedBack { by_ms: u64 },
}

/// What a Redlock attempt tried to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Purpose {
    Acquire,
    Extend,
}

/// Why a Redlock attempt failed, checked in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// Fewer than `needed` instances granted in time.
    NoMajority,
    /// The round took the whole TTL or longer.
    TooSlow,
    /// TTL − elapsed − drift margin left nothing.
    NoValidityLeft,
}

/// A stretch of true time in which `client` held unexpired keys on a majority of instances.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HoldSpan {
    pub client: usize,
    pub start_ms: u64,
    pub end_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outage {
    pub instance: usize,
    pub start_ms: u64,
    pub end_ms: u64,
    pub kind: OutageKind,
    pub persistent: bool,
    pub client: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutageKind {
    /// Down; keys kept only if the outage is `persistent`.
    Crash,
    /// Cut off from the outage's `client`, or from everyone.
    Partition,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstanceMark {
    pub instance: usize,
    pub at_ms: u64,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BalancePoint {
    pub at_ms: u64,
    pub balance: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ViolationKind {
    StaleWriteAccepted,
    OverlappingWriters,
    BalanceMismatch,
    LeaseDeletedByNonOwner,
    /// Two clients each held a valid lock (by their own clocks) at the same true time.
    TwoHolders,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Violation {
    pub kind: ViolationKind,
    pub at_ms: u64,
    pub clients: Vec<usize>,
    pub text: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    pub safe: bool,
    pub violations: Vec<Violation>,
    /// Observations that are not violations, e.g. double work in the efficiency tier.
    pub notes: Vec<String>,
    /// Whether the work got done, apart from whether it was safe: a holder's write refused,
    /// every write refused. Never a violation: a safe run can still fail to do its work.
    pub liveness: Vec<Observation>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LivenessKind {
    /// A client that held the lock when it sent a debit saw the storage refuse it.
    HolderRefused,
    /// Every debit that reached the storage was refused.
    EveryDebitRefused,
    /// A lock call blocked behind a holder that did no work (an advisory lock has no expiry:
    /// safe, but the waiter is stuck as long as the holder).
    WaitedBehindHolder,
}

/// One liveness observation, in words, with the clients it concerns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Observation {
    pub kind: LivenessKind,
    pub at_ms: u64,
    pub clients: Vec<usize>,
    pub text: String,
}
