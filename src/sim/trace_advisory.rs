//! The PostgreSQL part of a trace: each client session (a backend with its pid) and how it
//! ended, each `pg_advisory_lock` call that waited, and the failovers. Apart from `trace.rs`
//! so that each stays short; `trace` re-exports it. An advisory lock mints no fence, so
//! nothing here carries one.

use serde::Serialize;

/// What the PostgreSQL server did during a run, for the lane, the narration and the commands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdvisoryTrace {
    pub lock_id: u64,
    /// `session` or `transaction`.
    pub level: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_session_timeout_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_in_transaction_timeout_ms: Option<u64>,
    pub keepalive_ms: u64,
    /// Whether each debit is an `UPDATE` on the lock holder's own session.
    pub in_transaction: bool,
    pub sessions: Vec<PgSession>,
    pub waits: Vec<PgWait>,
    pub failovers_ms: Vec<u64>,
}

/// One connection's backend, from the client's first statement on it to its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PgSession {
    pub client: usize,
    /// The backend's process id, as `pg_backend_pid()` would say.
    pub pid: u64,
    pub start_ms: u64,
    pub end_ms: u64,
    pub end: SessionEnd,
}

/// Why a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionEnd {
    /// Still connected when the run ended.
    Open,
    /// `idle_session_timeout`: idle outside a transaction for too long.
    IdleTimeout,
    /// `idle_in_transaction_session_timeout`: idle inside an open transaction for too long.
    IdleInTransactionTimeout,
    /// The server's TCP keepalive gave up on a partitioned client.
    Keepalive,
    /// The client's process died; its kernel closed the socket and the server saw it at once.
    ClientCrashed,
    /// The primary was lost; the promoted standby has no sessions and no advisory locks.
    Failover,
}

impl SessionEnd {
    /// Why, in the words the narration and the lane use.
    pub fn text(self) -> &'static str {
        match self {
            SessionEnd::Open => "still open",
            SessionEnd::IdleTimeout => "idle_session_timeout ended it",
            SessionEnd::IdleInTransactionTimeout => "idle_in_transaction_session_timeout ended it",
            SessionEnd::Keepalive => "the TCP keepalive gave up on the partitioned client",
            SessionEnd::ClientCrashed => "its client died and the server saw the socket close",
            SessionEnd::Failover => {
                "the failover: the promoted standby has no sessions and no advisory locks"
            }
        }
    }
}

/// A lock call that waited behind another session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PgWait {
    pub client: usize,
    pub start_ms: u64,
    pub end_ms: u64,
    pub end: PgWaitEnd,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PgWaitEnd {
    Granted,
    /// The session ended under the waiting call (a failover or a keepalive).
    Failed,
    /// The client crashed while it waited.
    Abandoned,
    /// Still waiting when the run ended.
    Open,
}
