//! PostgreSQL advisory locks as a scenario describes them: one lock id taken at session or
//! transaction level, the server settings that decide when a session ends without its client
//! saying so (`idle_session_timeout`, `idle_in_transaction_session_timeout`, the TCP keepalive
//! that notices a partitioned client), and the failovers to a standby, which has no locks.
//! An advisory lock has no expiry and mints no fence; the reader of this part is here too.

#[cfg(not(feature = "first-stage"))]
use super::fields::{Fields, Result};
#[cfg(not(feature = "first-stage"))]
use super::limits as lim;
use serde::Serialize;
#[cfg(not(feature = "first-stage"))]
use serde_json::Value;

/// PostgreSQL as the lock service: `pg_advisory_lock(lockId)` (or `pg_advisory_xact_lock`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Advisory {
    /// The advisory lock's key, the `bigint` the SQL passes.
    pub lock_id: u64,
    pub level: AdvisoryLevel,
    /// `idle_session_timeout`: the server ends a session idle outside a transaction this long.
    /// Absent (0, the server's default) means never.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_session_timeout_ms: Option<u64>,
    /// `idle_in_transaction_session_timeout`: the same for a session idle inside an open
    /// transaction (a transaction-level lock's, or a write's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_in_transaction_timeout_ms: Option<u64>,
    /// How long the server's TCP keepalive takes to give up on a client that no longer
    /// answers (a partition): Linux's defaults are 7200 s idle, then 9 probes 75 s apart.
    pub keepalive_ms: u64,
    pub events: Vec<ServerEvent>,
}

/// Where the lock lives: in the session until unlocked, or in one transaction until it ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AdvisoryLevel {
    /// `pg_advisory_lock(k)`, held until `pg_advisory_unlock(k)` or the session's end.
    #[default]
    Session,
    /// `BEGIN; SELECT pg_advisory_xact_lock(k)`, held until `COMMIT` or the session's end.
    Transaction,
}

impl AdvisoryLevel {
    pub fn label(self) -> &'static str {
        match self {
            AdvisoryLevel::Session => "session",
            AdvisoryLevel::Transaction => "transaction",
        }
    }
}

/// What happens to the PostgreSQL server over time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum ServerEvent {
    /// The primary is lost and a standby is promoted at once. Advisory locks are not
    /// replicated: every session ends and the new primary holds no lock. The account's rows
    /// are (synchronous replication: no commit is lost).
    Failover { at_ms: u64 },
}

impl ServerEvent {
    pub fn at_ms(&self) -> u64 {
        match self {
            ServerEvent::Failover { at_ms } => *at_ms,
        }
    }
}

/// Linux's TCP keepalive, the time a server takes to drop a client that stopped answering:
/// `tcp_keepalive_time` 7200 s + `tcp_keepalive_probes` 9 × `tcp_keepalive_intvl` 75 s.
pub const LINUX_KEEPALIVE_MS: u64 = (7_200 + 9 * 75) * 1_000;

impl Default for Advisory {
    /// Lock 42 at session level, PostgreSQL's defaults: no timeout, Linux's keepalive.
    fn default() -> Self {
        Advisory {
            lock_id: 42,
            level: AdvisoryLevel::Session,
            idle_session_timeout_ms: None,
            idle_in_transaction_timeout_ms: None,
            keepalive_ms: LINUX_KEEPALIVE_MS,
            events: Vec::new(),
        }
    }
}

#[cfg(not(feature = "first-stage"))]
const LEVELS: &[(&str, AdvisoryLevel)] = &[
    ("session", AdvisoryLevel::Session),
    ("transaction", AdvisoryLevel::Transaction),
];

/// A timeout field: absent or 0 (PostgreSQL's "disabled") is none.
#[cfg(not(feature = "first-stage"))]
fn timeout(f: &Fields, name: &str, limit: &lim::Limit) -> Result<Option<u64>> {
    Ok(Some(f.whole_or(name, 0, limit)?).filter(|&ms| ms > 0))
}

#[cfg(not(feature = "first-stage"))]
pub(super) fn advisory(v: &Value, path: String) -> Result<Advisory> {
    let f = Fields::of(v, path, "an object")?;
    f.only(&[
        "lockId",
        "level",
        "idleSessionTimeoutMs",
        "idleInTransactionTimeoutMs",
        "keepaliveMs",
        "events",
    ])?;
    let d = Advisory::default();
    Ok(Advisory {
        lock_id: f.whole_or("lockId", d.lock_id, &lim::LOCK_ID)?,
        level: f.choice_or("level", d.level, LEVELS)?,
        idle_session_timeout_ms: timeout(
            &f,
            "idleSessionTimeoutMs",
            &lim::IDLE_SESSION_TIMEOUT_MS,
        )?,
        idle_in_transaction_timeout_ms: timeout(
            &f,
            "idleInTransactionTimeoutMs",
            &lim::IDLE_IN_TRANSACTION_TIMEOUT_MS,
        )?,
        keepalive_ms: f.whole_or("keepaliveMs", d.keepalive_ms, &lim::KEEPALIVE_MS)?,
        events: f.list_or("events", &lim::EVENTS, server_event)?,
    })
}

#[cfg(not(feature = "first-stage"))]
fn server_event(v: &Value, path: String) -> Result<ServerEvent> {
    let f = Fields::of(v, path, "an object with a kind")?;
    let v = f.required("kind")?;
    f.choice("kind", v, &[("failover", ())])?;
    f.only(&["kind", "atMs"])?;
    Ok(ServerEvent::Failover {
        at_ms: f.whole("atMs", &lim::AT_MS)?,
    })
}
