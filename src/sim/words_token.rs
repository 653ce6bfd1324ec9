//! A write's token in words: the service's own name for it (fence, revision, czxid, sequence,
//! generation), a grant's fence or its absence, a fence that went backwards. Re-exported by
//! `words`, whose vocabulary they are.

use super::account::FenceRule;
use super::trace::Trace;
use super::trace_kind::ServiceKind;

/// A grant's fence, or that there was none.
pub fn fence_text(fence: Option<u64>) -> String {
    match fence {
        Some(f) => format!("fence {f}"),
        None => "no fence".to_string(),
    }
}

/// A Redlock grant's fence that is not above one an earlier grant got, e.g. "fence 1, lower
/// than the 33 an earlier grant got: the fence went backwards".
pub fn fence_not_up_text(fence: u64, earlier: u64) -> String {
    if fence < earlier {
        format!("fence {fence}, lower than the {earlier} an earlier grant got: the fence went backwards")
    } else {
        format!("fence {fence}, the same as an earlier grant got: the fence repeated")
    }
}

/// What the service that ran calls the token a write carries: Redis's and Redlock's fence,
/// etcd's revision (the lock key's create revision), ZooKeeper's czxid (or the node's sequence,
/// when the client sends that), a lease row's generation. An advisory lock mints none; a write under it carries none.
pub fn fence_name(trace: &Trace) -> &'static str {
    match trace.kind() {
        ServiceKind::Single | ServiceKind::Redlock | ServiceKind::Advisory => "fence",
        ServiceKind::Etcd => "revision",
        ServiceKind::Zookeeper if super::words_zk::by_sequence(trace) => "sequence",
        ServiceKind::Zookeeper => "czxid",
        ServiceKind::Lease => "generation",
    }
}

/// How a write's token reads: the service's fence by its name ("fence 34", "revision 34",
/// "czxid 36"), or a lock value under compare-and-set.
pub fn token_text(trace: &Trace, token: Option<u64>) -> String {
    match (trace.fence_rule, token) {
        (FenceRule::CasValue, Some(v)) => format!("value {v:04x}"),
        (FenceRule::CasValue, None) => "no value".to_string(),
        (_, Some(f)) => format!("{} {f}", fence_name(trace)),
        (_, None) => fence_text(None),
    }
}
