//! The etcd part of a trace: the cluster's leaders and outages, each session's lease and
//! keepalives, each lock call that waited, and every revision. Apart from `trace.rs` so that
//! each stays short; `trace` re-exports it.

use serde::Serialize;

/// What an etcd cluster did during a run, for the lanes, the narration and the commands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EtcdTrace {
    pub members: Vec<String>,
    /// `3.4` or `3.5`.
    pub version: String,
    pub election_timeout_ms: u64,
    /// Who led when; between two spans the cluster had no leader.
    pub leaders: Vec<LeaderSpan>,
    pub outages: Vec<MemberOutage>,
    /// Each client session: a lease, its keepalives, and when it expired (or would have).
    pub sessions: Vec<SessionSpan>,
    /// Each lock call that had to wait, from its key's put to its answer.
    pub waits: Vec<WaitSpan>,
    /// Every write that raised the cluster's revision.
    pub revisions: Vec<RevisionMark>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaderSpan {
    pub member: usize,
    pub start_ms: u64,
    pub end_ms: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberOutage {
    pub member: usize,
    pub start_ms: u64,
    pub end_ms: u64,
    pub kind: MemberOutageKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemberOutageKind {
    /// The member's process is down; it comes back as a follower with its data.
    Crash,
    /// The member is cut off from the others and from every client.
    Partition,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSpan {
    pub client: usize,
    /// The lease id, as etcd writes it (hexadecimal).
    pub lease: String,
    pub start_ms: u64,
    /// When the lease expires (or expired) by the leader's lessor.
    pub end_ms: u64,
    /// When a keepalive reached the leader and pushed the expiry out.
    pub keepalives_ms: Vec<u64>,
    /// When a new leader pushed the expiry out by an election timeout.
    pub extended_ms: Vec<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitSpan {
    pub client: usize,
    pub revision: u64,
    pub start_ms: u64,
    pub end_ms: u64,
    pub answer: WaitAnswer,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitAnswer {
    Granted,
    /// 3.4: told it holds a lock whose key is gone.
    GrantedExpired,
    SessionExpired,
    /// The client crashed while it waited.
    Abandoned,
    /// Still waiting when the run ended.
    Open,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RevisionCause {
    /// A lock key was created.
    Put,
    /// A lock key was deleted by an unlock.
    Unlock,
    /// A lease was revoked on expiry, deleting its key.
    Revoke,
    /// A guarded debit's transaction committed.
    Txn,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RevisionMark {
    pub at_ms: u64,
    pub revision: u64,
    pub cause: RevisionCause,
    pub client: usize,
}
