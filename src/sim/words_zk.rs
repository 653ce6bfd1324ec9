//! The words of a ZooKeeper run, for the steps and the narration: sessions, lock nodes with
//! their sequence and `czxid`, and Curator's connection states. Apart from `words.rs` and
//! `narrate.rs` so that each stays short.

use super::trace::*;

fn zk(trace: &Trace) -> Option<&ZkTrace> {
    trace.zookeeper.as_ref()
}

/// Whether the client's fence is the node's sequence suffix (the pitfall) or its czxid.
pub(super) fn by_sequence(trace: &Trace) -> bool {
    zk(trace).is_some_and(|z| z.fence == "sequence")
}

/// The node the client was granted at `t` (the one granted last by then).
fn granted_node(trace: &Trace, client: usize, t: u64) -> Option<&ZkNode> {
    zk(trace)?
        .nodes
        .iter()
        .rfind(|n| n.client == client && n.granted_ms.is_some_and(|g| g <= t))
}

/// "lock-0000000002 (czxid 0x100000025)".
fn node_text(n: &ZkNode) -> String {
    format!("{} (czxid {})", n.name(), zxid_hex(n.czxid))
}

fn fence_words(trace: &Trace, fence: Option<u64>) -> String {
    let by_sequence = by_sequence(trace);
    match fence {
        None => "no fence used".to_string(),
        Some(f) if by_sequence => format!("its sequence {f} as the fence"),
        Some(f) => format!("czxid {} as the fence ({f})", zxid_hex(f)),
    }
}

pub fn granted(trace: &Trace, client: usize, t: u64, fence: Option<u64>) -> String {
    granted_as(granted_node(trace, client, t), by_sequence(trace), fence)
}

/// The grant's words for `node` (while a run is written, the engine has the node at hand),
/// short enough for the client lane: "holds lock-0000000001, fence czxid 36".
pub fn granted_as(node: Option<&ZkNode>, by_sequence: bool, fence: Option<u64>) -> String {
    let fence = match fence {
        None => "no fence".to_string(),
        Some(f) if by_sequence => format!("fence sequence {f}"),
        Some(f) => format!("fence czxid {f}"),
    };
    match node {
        Some(n) => format!("holds {}, {fence}", n.name()),
        None => format!("holds the lock, {fence}"),
    }
}

pub fn waits(node: &str, behind: &str) -> String {
    format!("created {node}; waits for the lower node ({behind}'s) to go")
}

pub fn notice(n: ZkNotice) -> String {
    match n {
        ZkNotice::Suspended => {
            "SUSPENDED: no answer from the ensemble; the lock may be gone".to_string()
        }
        ZkNotice::Reconnected => {
            "RECONNECTED: the session lived; its lock node is still there".to_string()
        }
        ZkNotice::Lost => "LOST: its session expired; its lock node is gone".to_string(),
    }
}

pub fn held_back(state: ZkState) -> String {
    format!("write held back: the client is {}", state.label())
}

pub fn released(own: bool) -> String {
    if own {
        "unlocked: deleted its own node".to_string()
    } else {
        "unlock: it had no node to delete".to_string()
    }
}

pub const CONNECTION_LOSS: &str = "no answer (connection loss): cut off from the ensemble";

/// The narration's sentence for a step of a ZooKeeper run, where it differs from the others.
pub fn narrate(trace: &Trace, step: &Step) -> Option<String> {
    let who = trace.client_name(step.client);
    let t = step.at_ms;
    let z = zk(trace)?;
    Some(match &step.outcome {
        Outcome::Granted { fence, .. } => {
            let node = granted_node(trace, step.client, t)
                .map_or("its node".to_string(), node_text);
            format!(
                "At {t} ms {who} got the lock: {node} is the lowest node under /lock. {} The lock lasts as long as its session, which the leader expires {} ms (rounded up to a {} ms tick) after it last heard from {who}.",
                match fence {
                    None => "It sends no fence with its writes.".to_string(),
                    Some(_) => format!("It sends {} with its writes.", fence_words(trace, *fence)),
                },
                z.session_timeout_ms,
                z.tick_time_ms
            )
        }
        Outcome::NodeWaits { node, behind } => format!(
            "At {t} ms {who} created {node} and waits: {behind}'s node is lower, and {who} watches it."
        ),
        Outcome::ConnectionLoss => format!(
            "At {t} ms {who}'s request got no answer: it is cut off from the ensemble (connection loss)."
        ),
        Outcome::ZkNotice { notice: ZkNotice::Suspended } => format!(
            "At {t} ms {who} had heard nothing for two thirds of its session timeout and reported SUSPENDED: it cannot tell whether its session, and its lock, still exist."
        ),
        Outcome::ZkNotice { notice: ZkNotice::Reconnected } => format!(
            "At {t} ms {who} reconnected within its session (RECONNECTED): its lock node is still there."
        ),
        Outcome::ZkNotice { notice: ZkNotice::Lost } => format!(
            "At {t} ms {who} heard from the ensemble that its session had expired (LOST): its lock node is gone, and it stops believing it holds the lock."
        ),
        Outcome::WriteHeldBack { state } => format!(
            "At {t} ms {who} did not write: it is {}, and it treats that as losing the lock.",
            state.label()
        ),
        Outcome::Released { own, .. } => format!("At {t} ms {who}: {}.", released(*own)),
        Outcome::Crashed => format!(
            "At {t} ms {who} crashed; its session lives on, unpinged, until the leader expires it."
        ),
        _ => return None,
    })
}

/// The ensemble's side of the story: sessions it expired, partitions, the lock parent.
pub fn ensemble_lines(trace: &Trace) -> Vec<(u64, String)> {
    let Some(z) = zk(trace) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for s in &z.sessions {
        let last_heard = s.pings_ms.iter().copied().fold(s.start_ms, u64::max);
        let loop_ended = last_heard.saturating_add(z.session_timeout_ms / 3) > z.pings_until_ms;
        if s.end != ZkSessionEnd::Expired || loop_ended {
            continue;
        }
        let who = trace.client_name(s.client);
        let paused = trace
            .pauses
            .iter()
            .find(|p| p.client == s.client && p.start_ms <= s.end_ms && s.end_ms < p.end_ms);
        let nodes: Vec<String> = z
            .nodes
            .iter()
            .filter(|n| n.end == ZkNodeEnd::SessionExpired && n.end_ms == s.end_ms)
            .filter(|n| n.client == s.client)
            .map(ZkNode::name)
            .collect();
        let mut line = format!(
            "At {} ms the leader expired {who}'s session {}",
            s.end_ms, s.id
        );
        if let Some(p) = paused {
            line.push_str(&format!(" while {who} was paused by {}", p.cause.label()));
        }
        if !nodes.is_empty() {
            line.push_str(&format!(" and deleted {}", nodes.join(", ")));
        }
        line.push_str(&format!("; {who} is not told."));
        out.push((s.end_ms, line));
    }
    for p in &z.partitions {
        out.push((
            p.start_ms,
            format!(
                "At {} ms {} was cut off from the ensemble until {} ms (the storage stays reachable).",
                p.start_ms,
                trace.client_name(p.client),
                p.end_ms
            ),
        ));
    }
    for m in &z.parent {
        let text = match m.what {
            ParentChange::Removed => "the empty lock parent /lock was removed; the next lock node starts the sequence again at 0000000000",
            ParentChange::Kept => "the lock parent /lock was not removed: it has children",
            ParentChange::Created => "a lock call created /lock again, with its child sequence at 0",
        };
        out.push((m.at_ms, format!("At {} ms {text}.", m.at_ms)));
    }
    out
}
