//! The etcd lock service as a scenario describes it: a cluster of members (one of them the
//! leader), an election timeout, and the server version, whose difference is etcd-io/etcd#11456
//! (3.4 tells a waiter whose session expired while it waited that it holds the lock; 3.5 says
//! the session expired). The reader of this part is here too, beside the shape it reads.

#[cfg(not(feature = "first-stage"))]
use super::fields::{Fields, Result};
#[cfg(not(feature = "first-stage"))]
use super::limits as lim;
use serde::Serialize;
#[cfg(not(feature = "first-stage"))]
use serde_json::Value;

/// etcd: sessions are leases kept alive every TTL/3, the lock key's create revision is the
/// fence, and the leader's lessor decides when a lease expires.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Etcd {
    pub members: Vec<Member>,
    /// How long followers wait without a heartbeat before they elect another leader; a new
    /// leader also extends every lease by this much.
    pub election_timeout_ms: u64,
    pub version: EtcdVersion,
}

/// The etcd server release: it decides what a waiter whose lease ran out is told.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum EtcdVersion {
    /// A waiter whose session expired while it waited is told it holds the lock.
    #[serde(rename = "3.4")]
    V34,
    /// The waiter checks its own key after the wait and answers "session expired".
    #[default]
    #[serde(rename = "3.5")]
    V35,
}

impl EtcdVersion {
    pub fn label(self) -> &'static str {
        match self {
            EtcdVersion::V34 => "3.4",
            EtcdVersion::V35 => "3.5",
        }
    }
}

/// One etcd member. Its data is replicated by Raft, so a crash loses nothing committed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    pub name: String,
    pub events: Vec<MemberEvent>,
}

/// What happens to a member over time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum MemberEvent {
    /// The member's process is down for `down_ms`, then restarts as a follower.
    Crash { at_ms: u64, down_ms: u64 },
    /// The member is cut off from the other members and every client for `duration_ms`.
    Partition { at_ms: u64, duration_ms: u64 },
}

impl MemberEvent {
    pub fn at_ms(&self) -> u64 {
        match self {
            MemberEvent::Crash { at_ms, .. } | MemberEvent::Partition { at_ms, .. } => *at_ms,
        }
    }

    pub fn end_ms(&self) -> u64 {
        match self {
            MemberEvent::Crash { at_ms, down_ms } => at_ms.saturating_add(*down_ms),
            MemberEvent::Partition { at_ms, duration_ms } => at_ms.saturating_add(*duration_ms),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            MemberEvent::Crash { .. } => "crash",
            MemberEvent::Partition { .. } => "partition",
        }
    }
}

pub(super) fn default_election_timeout_ms() -> u64 {
    10
}

impl Etcd {
    /// A cluster of `n` members named n1, n2, … with no faults, etcd 3.5.
    pub fn cluster(n: usize) -> Etcd {
        Etcd {
            members: (1..=n)
                .map(|i| Member {
                    name: format!("n{i}"),
                    events: Vec::new(),
                })
                .collect(),
            election_timeout_ms: default_election_timeout_ms(),
            version: EtcdVersion::V35,
        }
    }

    /// How many members a leader needs: N/2 + 1.
    pub fn quorum(&self) -> usize {
        self.members.len() / 2 + 1
    }

    /// etcd's minimum lease TTL: one and a half election timeouts (a grant asks for at least
    /// this much).
    pub fn min_ttl_ms(&self) -> u64 {
        self.election_timeout_ms.saturating_mul(3).div_ceil(2)
    }
}

#[cfg(not(feature = "first-stage"))]
const VERSIONS: &[(&str, EtcdVersion)] = &[("3.4", EtcdVersion::V34), ("3.5", EtcdVersion::V35)];

#[cfg(not(feature = "first-stage"))]
pub(super) fn etcd(v: &Value, path: String) -> Result<Etcd> {
    let f = Fields::of(v, path, "an object")?;
    f.only(&["members", "electionTimeoutMs", "version"])?;
    Ok(Etcd {
        members: f.list("members", f.required("members")?, &lim::MEMBERS, member)?,
        election_timeout_ms: f.whole_or(
            "electionTimeoutMs",
            default_election_timeout_ms(),
            &lim::ELECTION_TIMEOUT_MS,
        )?,
        version: f.choice_or("version", EtcdVersion::default(), VERSIONS)?,
    })
}

#[cfg(not(feature = "first-stage"))]
fn member(v: &Value, path: String) -> Result<Member> {
    let f = Fields::of(v, path, "an object with a name")?;
    f.only(&["name", "events"])?;
    Ok(Member {
        name: f.text("name")?,
        events: f.list_or("events", &lim::EVENTS, member_event)?,
    })
}

#[cfg(not(feature = "first-stage"))]
fn member_event(v: &Value, path: String) -> Result<MemberEvent> {
    let f = Fields::of(v, path, "an object with a kind")?;
    let v = f.required("kind")?;
    Ok(
        match f.choice("kind", v, &[("crash", "crash"), ("partition", "partition")])? {
            "crash" => {
                f.only(&["kind", "atMs", "downMs"])?;
                MemberEvent::Crash {
                    at_ms: f.whole("atMs", &lim::AT_MS)?,
                    down_ms: f.whole("downMs", &lim::DOWN_MS)?,
                }
            }
            _ => {
                f.only(&["kind", "atMs", "durationMs"])?;
                MemberEvent::Partition {
                    at_ms: f.whole("atMs", &lim::AT_MS)?,
                    duration_ms: f.whole("durationMs", &lim::MEMBER_PARTITION_MS)?,
                }
            }
        },
    )
}
