//! A database lease row as a scenario describes it: the row `leases(name, holder, generation,
//! expires_at)` is the lock, its generation (raised by every takeover) is the fence, and two
//! settings decide what the lock means. `expiry` says whose clock decides that a lease has run
//! out: the database's `now()` (one clock, `lock.clock`) or the waiter's own, as Kubernetes'
//! Lease election and DynamoDB's lock client do. `storage.leaseGuard` says where the write
//! checks the generation besides the account row's `fenceRule`: a ledger with
//! `UNIQUE(account, generation)`, or the live lease inside the write's own statement. The
//! failovers are to an asynchronous standby that lost the last takeover. The reader is here too.

#[cfg(not(feature = "first-stage"))]
use super::fields::{Fields, Result};
#[cfg(not(feature = "first-stage"))]
use super::limits as lim;
use serde::Serialize;
#[cfg(not(feature = "first-stage"))]
use serde_json::Value;

/// A database table as the lock service: one row per lock name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Lease {
    pub expiry: LeaseExpiry,
    pub events: Vec<LeaseEvent>,
}

/// Whose clock decides that a lease has run out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LeaseExpiry {
    /// The acquire statement compares `expires_at` with the database's `now()`: one clock.
    #[default]
    Database,
    /// A waiter that has seen the same row (generation and expiry) for a TTL by its own clock
    /// takes the lease over with a compare-and-set on the generation, whatever the database's
    /// clock says (Kubernetes' Lease, DynamoDB's lock client).
    Waiter,
}

impl LeaseExpiry {
    pub fn label(self) -> &'static str {
        match self {
            LeaseExpiry::Database => "database",
            LeaseExpiry::Waiter => "waiter",
        }
    }
}

/// Where a debit checks the lease's generation besides the account row (`storage.fenceRule`
/// compares the account's own `generation` column, or nothing when `off`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LeaseGuard {
    /// No other check.
    #[default]
    None,
    /// Each debit inserts a ledger line under `UNIQUE(account, generation)`: a second write
    /// with the same generation fails on the constraint (an idempotency key, checked first,
    /// answers the true retry of the same intent).
    UniqueLedger,
    /// The debit's own statement requires the live lease: `EXISTS (SELECT 1 FROM leases WHERE
    /// name = $n AND holder = $me AND generation = $g AND expires_at > now() FOR SHARE)`.
    LiveLease,
}

impl LeaseGuard {
    pub fn is_none(&self) -> bool {
        *self == LeaseGuard::None
    }
}

/// What happens to the database over time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum LeaseEvent {
    /// The primary is lost and an asynchronous standby is promoted at once, which had not
    /// received the lease row's last takeover (and the renewals after it): the row is back as
    /// it was before that takeover, so the next takeover mints the same generation again.
    /// The account's rows lose nothing (they are assumed replicated in time).
    Failover { at_ms: u64 },
}

impl LeaseEvent {
    pub fn at_ms(&self) -> u64 {
        match self {
            LeaseEvent::Failover { at_ms } => *at_ms,
        }
    }
}

#[cfg(not(feature = "first-stage"))]
const EXPIRIES: &[(&str, LeaseExpiry)] = &[
    ("database", LeaseExpiry::Database),
    ("waiter", LeaseExpiry::Waiter),
];

/// The values of `storage.leaseGuard`, for the storage's reader.
#[cfg(not(feature = "first-stage"))]
pub(super) const GUARDS: &[(&str, LeaseGuard)] = &[
    ("none", LeaseGuard::None),
    ("unique_ledger", LeaseGuard::UniqueLedger),
    ("live_lease", LeaseGuard::LiveLease),
];

#[cfg(not(feature = "first-stage"))]
pub(super) fn lease(v: &Value, path: String) -> Result<Lease> {
    let f = Fields::of(v, path, "an object")?;
    f.only(&["expiry", "events"])?;
    Ok(Lease {
        expiry: f.choice_or("expiry", LeaseExpiry::Database, EXPIRIES)?,
        events: f.list_or("events", &lim::EVENTS, lease_event)?,
    })
}

#[cfg(not(feature = "first-stage"))]
fn lease_event(v: &Value, path: String) -> Result<LeaseEvent> {
    let f = Fields::of(v, path, "an object with a kind")?;
    let v = f.required("kind")?;
    f.choice("kind", v, &[("failover", ())])?;
    f.only(&["kind", "atMs"])?;
    Ok(LeaseEvent::Failover {
        at_ms: f.whole("atMs", &lim::AT_MS)?,
    })
}

/// Why `storage.leaseGuard` is refused without a database lease.
pub(super) const NEEDS_LEASE: &str =
    "needs a database lease (lock.lease): the guard checks the lease row's generation";
