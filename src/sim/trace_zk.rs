//! The ZooKeeper part of a trace: each client session (its id, its pings, when and why it
//! ended), each lock node (path, sequence, `czxid`, how it went), each lock call that waited,
//! the client-side connection states Curator reports, the partitions, what became of the lock
//! parent, and every transaction's zxid. Apart from `trace.rs` so that each stays short;
//! `trace` re-exports it.

use serde::Serialize;

/// What the ensemble did during a run, for the lane, the narration and the commands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ZkTrace {
    pub tick_time_ms: u64,
    /// The session timeout the client asked for (`lock.ttlMs`).
    pub requested_timeout_ms: u64,
    /// What the server granted: the request clamped to 2–20 ticks.
    pub session_timeout_ms: u64,
    /// `czxid` or `sequence`: the number the client sends as its fence.
    pub fence: String,
    /// `keep_going` or `stop_writing`: the client's policy while SUSPENDED.
    pub on_suspended: String,
    /// The last instant a scenario event occupies: the clients' ping loops stop there, so a
    /// session still alive then expires a timeout later, which is the run's end, not a fault.
    pub pings_until_ms: u64,
    pub sessions: Vec<ZkSession>,
    pub nodes: Vec<ZkNode>,
    pub waits: Vec<ZkWait>,
    /// The client's own view of its connection, as Curator names it.
    pub states: Vec<ZkStateSpan>,
    pub partitions: Vec<ZkPartition>,
    /// Each removal of the lock parent that was asked for, and each time it was created again.
    pub parent: Vec<ParentMark>,
    /// Every transaction, with the zxid it took (shown as `0x1` followed by eight hex digits:
    /// the ensemble's first epoch).
    pub zxids: Vec<ZxidMark>,
}

/// One client session, from its `createSession` to its end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ZkSession {
    pub client: usize,
    /// The session id in ZooKeeper's hexadecimal.
    pub id: String,
    pub start_ms: u64,
    pub end_ms: u64,
    pub end: ZkSessionEnd,
    /// Each ping the server heard (a request heard counts too, but is not listed here).
    pub pings_ms: Vec<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZkSessionEnd {
    /// Still alive when the run ended.
    Open,
    /// The leader heard nothing for the session timeout (rounded up to the next tick) and
    /// closed it, deleting its ephemeral nodes.
    Expired,
}

/// One lock node `/lock/lock-NNNNNNNNNN`, ephemeral to its session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ZkNode {
    pub client: usize,
    pub session: usize,
    pub sequence: u64,
    pub czxid: u64,
    pub created_ms: u64,
    /// When it became the lowest node (the lock granted), if it did.
    pub granted_ms: Option<u64>,
    pub end_ms: u64,
    pub end: ZkNodeEnd,
}

impl ZkNode {
    /// The node's name under the lock parent, as ZooKeeper writes it.
    pub fn name(&self) -> String {
        format!("lock-{:010}", self.sequence)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZkNodeEnd {
    Open,
    /// Its client deleted it (the unlock).
    Deleted,
    /// Its session expired and the server deleted it.
    SessionExpired,
}

/// A lock call that waited behind a lower node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ZkWait {
    pub client: usize,
    /// Index into `nodes`: the waiter's own node.
    pub node: usize,
    pub start_ms: u64,
    pub end_ms: u64,
    pub end: ZkWaitEnd,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZkWaitEnd {
    Granted,
    /// The waiter's session expired while it waited (its node is gone).
    Expired,
    /// The client crashed while it waited.
    Abandoned,
    Open,
}

/// A stretch in which the client's connection state was not CONNECTED.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ZkStateSpan {
    pub client: usize,
    pub start_ms: u64,
    pub end_ms: u64,
    /// What the client knew during the span: SUSPENDED (no answer, fate unknown) or LOST
    /// (its session expired).
    pub state: ZkState,
    /// How it ended: RECONNECTED, LOST (after SUSPENDED), or still open.
    pub end: ZkStateEnd,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZkState {
    Suspended,
    Lost,
}

impl ZkState {
    pub fn label(self) -> &'static str {
        match self {
            ZkState::Suspended => "SUSPENDED",
            ZkState::Lost => "LOST",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZkStateEnd {
    Reconnected,
    Lost,
    /// A new session's connection (after LOST) or the run's end.
    Open,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ZkPartition {
    pub client: usize,
    pub start_ms: u64,
    pub end_ms: u64,
}

/// The lock parent `/lock`: removed (it was empty), kept (it had children), or created again
/// by a lock call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParentMark {
    pub at_ms: u64,
    pub what: ParentChange,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParentChange {
    Removed,
    /// Not empty: a node with children cannot be deleted.
    Kept,
    Created,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ZxidMark {
    pub at_ms: u64,
    pub zxid: u64,
    pub cause: ZxidCause,
    /// The client whose request it was (for a session's expiry, the session's client).
    pub client: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZxidCause {
    CreateSession,
    CreateNode,
    DeleteNode,
    /// The leader closed an expired session (its ephemeral nodes go in the same transaction).
    CloseSession,
    /// A create under a parent that is gone: it fails (NoNode), and takes a zxid all the same.
    FailedCreate,
    CreateParent,
    DeleteParent,
}

/// A zxid as ZooKeeper prints it: epoch 1 in the high 32 bits, the counter below.
pub fn zxid_hex(counter: u64) -> String {
    format!("0x1{:08x}", counter & 0xffff_ffff)
}

/// What the client library tells the client about its connection, in Curator's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZkNotice {
    /// No answer for two thirds of the session timeout: the session may or may not live.
    Suspended,
    /// Connected again within the session: the lock node is still there.
    Reconnected,
    /// The session expired: its lock node is gone.
    Lost,
}

impl ZkNotice {
    pub fn label(self) -> &'static str {
        match self {
            ZkNotice::Suspended => "SUSPENDED",
            ZkNotice::Reconnected => "RECONNECTED",
            ZkNotice::Lost => "LOST",
        }
    }
}
