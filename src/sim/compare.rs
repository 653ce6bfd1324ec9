//! The comparison the page draws under the storage lane: the same schedule with one thing
//! changed, chosen so that a reader can act on it. Flipping the storage's fence check is only
//! honest when the lock service mints fences; standard Redlock and plain Redis mint none, so
//! "with strict fencing" would refuse every write and call that safe. There the comparison
//! adds the missing fence (Redlock's non-standard counter, or a lock service that mints fences)
//! and says so in words. A scenario with no debit has nothing to compare, and says why.

use super::account::FenceRule;
use super::scenario::{Event, LeaseGuard, LockService, Scenario, ZkFence};
use super::trace::Trace;
use super::words;

/// What the comparison is, in words for the verdict banner and the ghost lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Contrast {
    With {
        /// The whole change, for the banner, e.g. "Redlock with a fence (non-standard), strict
        /// storage".
        label: String,
        /// The ghost lane's two short lines, e.g. "fenced Redlock" / "non-standard fence".
        lane_title: String,
        lane_sub: String,
    },
    /// No counterfactual exists; `reason` says why, in words.
    Nothing { reason: String },
}

/// The scenario to run beside the reader's, and what it changes. `scenario` is `Some` exactly
/// when `contrast` is `Contrast::With`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterfactual {
    pub scenario: Option<Scenario>,
    pub contrast: Contrast,
}

/// Why a scenario without debits has nothing to compare.
pub const NO_DEBITS: &str = "no client sends a debit, so fencing has nothing to decide";

/// The honest comparison for `s`.
pub fn counterfactual(s: &Scenario) -> Counterfactual {
    let writes = s.clients.iter().any(|c| {
        c.events
            .iter()
            .any(|e| matches!(e, Event::Debit { .. } | Event::CheckThenWrite { .. }))
    });
    if !writes {
        return Counterfactual {
            scenario: None,
            contrast: Contrast::Nothing {
                reason: NO_DEBITS.to_string(),
            },
        };
    }
    let mut other = s.clone();
    let redlock = s.lock.redlock().is_some();
    let fenced_name = if redlock {
        "fenced Redlock"
    } else {
        "fenced lock"
    };
    // Whether the lock service hands out a number the storage could compare.
    let mints = match s.lock.redlock() {
        Some(r) => r.fence,
        None => s.lock.fencing,
    };
    let add_fence = |o: &mut Scenario| match o.lock.redlock_mut() {
        Some(r) => r.fence = true,
        None => o.lock.fencing = true,
    };
    let source = if redlock {
        "Redlock with a fence (non-standard)"
    } else {
        "A lock service that mints fences"
    };
    let service = service_contrast(s, &mut other);
    let (label, lane_title, lane_sub) = match (service, s.storage.fence_rule) {
        (Some(contrast), _) => contrast,
        // etcd's guard is the check this storage makes: the comparison takes it away, and
        // leaves the fence rule as it is.
        (None, _) if s.storage.create_guard => {
            other.storage.create_guard = false;
            (
                "Without the CREATE == myRev guard".to_string(),
                "no guard",
                "same run, plain debits",
            )
        }
        (None, FenceRule::CasValue) => {
            other.storage.fence_rule = FenceRule::Off;
            (
                "Without compare-and-set".to_string(),
                "no check",
                "same run, no CAS",
            )
        }
        (None, FenceRule::Off) if mints => {
            other.storage.fence_rule = FenceRule::Strict;
            (
                "With strict fencing".to_string(),
                "fenced",
                "same run, strict",
            )
        }
        (None, FenceRule::Off) => {
            add_fence(&mut other);
            other.storage.fence_rule = FenceRule::Strict;
            (
                format!("{source}, strict storage"),
                fenced_name,
                if redlock {
                    "non-standard fence"
                } else {
                    "mints fences, strict"
                },
            )
        }
        (None, FenceRule::Strict | FenceRule::NonDecreasing) if mints => {
            other.storage.fence_rule = FenceRule::Off;
            (
                "Without fencing".to_string(),
                "unfenced",
                "same run, no check",
            )
        }
        (None, FenceRule::Strict | FenceRule::NonDecreasing) => {
            add_fence(&mut other);
            (
                source.to_string(),
                fenced_name,
                if redlock {
                    "non-standard fence"
                } else {
                    "same run, mints fences"
                },
            )
        }
    };
    Counterfactual {
        scenario: Some(other),
        contrast: Contrast::With {
            label,
            lane_title: lane_title.to_string(),
            lane_sub: lane_sub.to_string(),
        },
    }
}

/// The contrast the service itself calls for, before any of the storage's (`None`: the
/// storage's). An advisory lock mints no fence to add: its honest contrast is where the write
/// goes, on the lock's own session or on storage apart from it. ZooKeeper always has a czxid
/// to send: the contrast sends it where the run sends the sequence suffix or nothing. A lease
/// row's guard (a unique ledger, the live lease in the write) is the check its run makes: the
/// contrast takes it away; without one, the storage's fence rule flips as for any fence.
fn service_contrast(
    s: &Scenario,
    other: &mut Scenario,
) -> Option<(String, &'static str, &'static str)> {
    match &s.lock.service {
        LockService::Redis | LockService::Redlock(_) | LockService::Etcd(_) => None,
        LockService::Advisory(_) => {
            let inside = s.storage.in_transaction;
            other.storage.in_transaction = !inside;
            Some(if inside {
                (
                    "With the write on separate storage".to_string(),
                    "separate storage",
                    "same run, write apart",
                )
            } else {
                (
                    "With the write inside the lock's session".to_string(),
                    "write in session",
                    "same run, UPDATE on the lock's session",
                )
            })
        }
        LockService::Zookeeper(z) => {
            let without_czxid = !s.lock.fencing || z.fence == ZkFence::Sequence;
            if cfg!(feature = "first-stage") || !without_czxid {
                return None;
            }
            other.lock.fencing = true;
            if let Some(z) = other.lock.zookeeper_mut() {
                z.fence = ZkFence::Czxid;
            }
            Some(if s.storage.fence_rule == FenceRule::Off {
                other.storage.fence_rule = FenceRule::Strict;
                (
                    "With the czxid as the fence, strict storage".to_string(),
                    "czxid fence",
                    "same run, czxid, strict",
                )
            } else {
                (
                    "With the czxid as the fence".to_string(),
                    "czxid fence",
                    "same run, czxid",
                )
            })
        }
        LockService::Lease(_) => {
            other.storage.lease_guard = LeaseGuard::None;
            match s.storage.lease_guard {
                LeaseGuard::None => None,
                LeaseGuard::UniqueLedger => Some((
                    "Without the ledger's UNIQUE(account, generation)".to_string(),
                    "no unique ledger",
                    "same run, plain debits",
                )),
                LeaseGuard::LiveLease => Some((
                    "Without the live-lease check in the write".to_string(),
                    "no lease check",
                    "same run, plain debits",
                )),
            }
        }
    }
}

/// The banner's comparison line, built from the contrast and the ghost run alone: e.g.
/// "Redlock with a fence (non-standard), strict storage: balance 90, ✓ safe", or "Nothing to
/// compare: no client sends a debit, …".
pub fn summary(contrast: &Contrast, ghost: &Trace) -> String {
    match contrast {
        Contrast::With { label, .. } => format!("{label}: {}", words::outcome_text(ghost)),
        Contrast::Nothing { reason } => format!("Nothing to compare: {reason}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::presets::preset;

    fn with(id: &str) -> (Scenario, String) {
        let s = preset(id).expect("a preset");
        let c = counterfactual(&s);
        match c.contrast {
            Contrast::With { label, .. } => (c.scenario.expect("a scenario to run"), label),
            Contrast::Nothing { reason } => panic!("{id}: nothing to compare: {reason}"),
        }
    }

    #[test]
    fn standard_redlock_is_compared_with_the_fenced_variant() {
        let (other, label) = with("redlock-clock-jump");
        assert_eq!(label, "Redlock with a fence (non-standard), strict storage");
        assert!(other.lock.redlock().is_some_and(|r| r.fence));
        assert_eq!(other.storage.fence_rule, FenceRule::Strict);
    }

    #[test]
    fn zookeeper_is_compared_with_the_czxid_as_the_fence() {
        let (other, label) = with("zk-parent-sequence");
        assert_eq!(label, "With the czxid as the fence");
        assert!(other
            .lock
            .zookeeper()
            .is_some_and(|z| z.fence == ZkFence::Czxid));
        let (other, label) = with("zk-suspended-ignored");
        assert_eq!(label, "With the czxid as the fence, strict storage");
        assert!(other.lock.fencing);
        let (_, label) = with("zk-pause-czxid");
        assert_eq!(label, "Without fencing");
    }

    #[test]
    fn single_redis_flips_the_check() {
        let (other, label) = with("gc-pause-fenced");
        assert_eq!(label, "Without fencing");
        assert_eq!(other.storage.fence_rule, FenceRule::Off);
        let (other, label) = with("gc-pause-unfenced");
        assert_eq!(label, "With strict fencing");
        assert_eq!(other.storage.fence_rule, FenceRule::Strict);
    }

    #[test]
    fn plain_redis_is_compared_with_a_service_that_mints_fences() {
        let (other, label) = with("plain-redis");
        assert_eq!(label, "A lock service that mints fences");
        assert!(other.lock.fencing);
        assert_eq!(other.storage.fence_rule, FenceRule::Strict);
    }

    #[test]
    fn no_debit_means_nothing_to_compare() {
        let c = counterfactual(&preset("contract-1-nx").expect("a preset"));
        assert_eq!(c.scenario, None);
        assert_eq!(
            c.contrast,
            Contrast::Nothing {
                reason: NO_DEBITS.to_string()
            }
        );
    }
}
