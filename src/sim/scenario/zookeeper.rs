//! ZooKeeper as a scenario describes it: the ensemble's tick (which rounds every session's
//! expiry up to a tick boundary), the number the lock recipe hands the storage as its fence
//! (the lock node's `czxid`, or, the pitfall, its sequence suffix), what the client does when
//! Curator reports SUSPENDED, and what happens to the ensemble over time (a client cut off from
//! it, the empty lock parent removed). The requested session timeout is `lock.ttlMs`; the
//! server clamps it to 2–20 ticks. The reader of this part is here too.

#[cfg(not(feature = "first-stage"))]
use super::fields::{Fields, Result};
#[cfg(not(feature = "first-stage"))]
use super::limits as lim;
use serde::Serialize;
#[cfg(not(feature = "first-stage"))]
use serde_json::Value;

/// ZooKeeper as the lock service: the lock recipe's ephemeral sequential nodes under `/lock`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Zookeeper {
    /// The ensemble's `tickTime`: sessions expire on tick boundaries, and a session timeout is
    /// between 2 and 20 ticks.
    pub tick_time_ms: u64,
    /// Which number of its lock node the client sends with a write.
    pub fence: ZkFence,
    /// What the client does while Curator says SUSPENDED (it lost its connection and cannot
    /// tell whether its session, and its lock, still exist).
    pub on_suspended: OnSuspended,
    pub events: Vec<ZkEvent>,
}

/// The number a lock holder passes to the storage as its token.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZkFence {
    /// The lock node's creation zxid: every write to the ensemble raises it, so a later grant
    /// always has a larger one.
    #[default]
    Czxid,
    /// The node's sequence suffix, the count of creates under the parent before it: it
    /// restarts at 0 when the parent is removed and created again.
    Sequence,
}

impl ZkFence {
    pub fn label(self) -> &'static str {
        match self {
            ZkFence::Czxid => "czxid",
            ZkFence::Sequence => "sequence",
        }
    }
}

/// The client's policy for Curator's SUSPENDED state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnSuspended {
    /// It carries on as if it still held the lock until it hears LOST.
    #[default]
    KeepGoing,
    /// It writes nothing while SUSPENDED or LOST (Curator's advice: you may no longer hold
    /// the lock), and carries on after RECONNECTED.
    StopWriting,
}

impl OnSuspended {
    pub fn label(self) -> &'static str {
        match self {
            OnSuspended::KeepGoing => "keep_going",
            OnSuspended::StopWriting => "stop_writing",
        }
    }
}

/// What happens to the ensemble over time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum ZkEvent {
    /// No packet between `client` and any server for `duration_ms`; the client keeps running
    /// and the storage stays reachable.
    Partition {
        at_ms: u64,
        duration_ms: u64,
        client: String,
    },
    /// The lock's parent node `/lock` is deleted if it has no children (Curator creates it as
    /// a container node, which the server reaps once empty); the next lock call creates it
    /// again, and its child sequence starts again at 0.
    ParentRemoved { at_ms: u64 },
}

impl ZkEvent {
    pub fn at_ms(&self) -> u64 {
        match self {
            ZkEvent::Partition { at_ms, .. } | ZkEvent::ParentRemoved { at_ms } => *at_ms,
        }
    }

    pub fn set_at_ms(&mut self, t: u64) {
        match self {
            ZkEvent::Partition { at_ms, .. } | ZkEvent::ParentRemoved { at_ms } => *at_ms = t,
        }
    }

    pub fn end_ms(&self) -> u64 {
        match self {
            ZkEvent::Partition {
                at_ms, duration_ms, ..
            } => at_ms.saturating_add(*duration_ms),
            ZkEvent::ParentRemoved { at_ms } => *at_ms,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            ZkEvent::Partition { .. } => "partition",
            ZkEvent::ParentRemoved { .. } => "parent_removed",
        }
    }
}

/// The tick the presets use: a 30 ms session timeout is six ticks.
pub const DEFAULT_TICK_TIME_MS: u64 = 5;

impl Default for Zookeeper {
    /// A 5 ms tick, the `czxid` as the fence, a client that keeps going while SUSPENDED.
    fn default() -> Self {
        Zookeeper {
            tick_time_ms: DEFAULT_TICK_TIME_MS,
            fence: ZkFence::Czxid,
            on_suspended: OnSuspended::KeepGoing,
            events: Vec::new(),
        }
    }
}

impl Zookeeper {
    /// The session timeout the server grants for a requested one: clamped to 2–20 ticks.
    pub fn negotiated_timeout_ms(&self, requested_ms: u64) -> u64 {
        let tick = self.tick_time_ms.max(1);
        requested_ms.clamp(tick.saturating_mul(2), tick.saturating_mul(20))
    }
}

#[cfg(not(feature = "first-stage"))]
const FENCES: &[(&str, ZkFence)] = &[("czxid", ZkFence::Czxid), ("sequence", ZkFence::Sequence)];

#[cfg(not(feature = "first-stage"))]
const POLICIES: &[(&str, OnSuspended)] = &[
    ("keep_going", OnSuspended::KeepGoing),
    ("stop_writing", OnSuspended::StopWriting),
];

#[cfg(not(feature = "first-stage"))]
pub(super) fn zookeeper(v: &Value, path: String) -> Result<Zookeeper> {
    let f = Fields::of(v, path, "an object")?;
    f.only(&["tickTimeMs", "fence", "onSuspended", "events"])?;
    let d = Zookeeper::default();
    Ok(Zookeeper {
        tick_time_ms: f.whole_or("tickTimeMs", d.tick_time_ms, &lim::TICK_TIME_MS)?,
        fence: f.choice_or("fence", d.fence, FENCES)?,
        on_suspended: f.choice_or("onSuspended", d.on_suspended, POLICIES)?,
        events: f.list_or("events", &lim::EVENTS, zk_event)?,
    })
}

#[cfg(not(feature = "first-stage"))]
fn zk_event(v: &Value, path: String) -> Result<ZkEvent> {
    let f = Fields::of(v, path, "an object with a kind")?;
    let v = f.required("kind")?;
    let kinds = [("partition", true), ("parent_removed", false)];
    Ok(if f.choice("kind", v, &kinds)? {
        f.only(&["kind", "atMs", "durationMs", "client"])?;
        ZkEvent::Partition {
            at_ms: f.whole("atMs", &lim::AT_MS)?,
            duration_ms: f.whole("durationMs", &lim::ZK_PARTITION_MS)?,
            client: f.text("client")?,
        }
    } else {
        f.only(&["kind", "atMs"])?;
        ZkEvent::ParentRemoved {
            at_ms: f.whole("atMs", &lim::AT_MS)?,
        }
    })
}
