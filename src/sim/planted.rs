//! The lab's planted model bugs: one per lock service, each a small, plausible mistake in the
//! model, which the lab's mutation test (`fencing-lab mutants`) must see the real servers
//! disagree with. Only a build with the feature `planted-bug` (the lab's, which turns it on for
//! the whole workspace's native builds) can plant one, and none is planted until `plant` is
//! called; in every other build (the page's wasm, the first stage's, the search workers') `is`
//! is a constant `false`, so the engine's checks of it compile to nothing.
//!
//! One bug at a time, chosen for the whole process before any run (the lab runs its mutants one
//! after the other, each in a process of its own when side by side): a process-wide setting.

/// A planted bug: where the model goes wrong, and in which service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bug {
    /// One Redis (and any fenced account): the strict rule `token > last` read as `>=`.
    EqualFence,
    /// Redlock: a round counts as a majority with one vote fewer than it needs.
    RedlockMajority,
    /// etcd: the holder fences with the revision before its key's create revision.
    EtcdRevision,
    /// ZooKeeper: the holder fences with its node's sequence number instead of its czxid.
    ZkSequence,
    /// PostgreSQL advisory locks: `idle_session_timeout` never ends a session.
    AdvisoryIdle,
    /// Database lease: a takeover keeps the row's generation (the `+ 1` forgotten).
    LeaseGeneration,
}

impl Bug {
    /// Every planted bug, in the order the mutation test runs them.
    pub const ALL: [Bug; 6] = [
        Bug::EqualFence,
        Bug::RedlockMajority,
        Bug::EtcdRevision,
        Bug::ZkSequence,
        Bug::AdvisoryIdle,
        Bug::LeaseGeneration,
    ];

    /// The bug's name on the lab's command line and in its output.
    pub fn name(self) -> &'static str {
        match self {
            Bug::EqualFence => "equal-fence",
            Bug::RedlockMajority => "redlock-majority",
            Bug::EtcdRevision => "etcd-revision",
            Bug::ZkSequence => "zk-sequence",
            Bug::AdvisoryIdle => "advisory-idle",
            Bug::LeaseGeneration => "lease-generation",
        }
    }

    /// The bug named `name`, if any.
    pub fn named(name: &str) -> Option<Bug> {
        Bug::ALL.into_iter().find(|b| b.name() == name)
    }

    #[cfg(any(feature = "planted-bug", test))]
    fn code(self) -> u8 {
        match self {
            Bug::EqualFence => 1,
            Bug::RedlockMajority => 2,
            Bug::EtcdRevision => 3,
            Bug::ZkSequence => 4,
            Bug::AdvisoryIdle => 5,
            Bug::LeaseGeneration => 6,
        }
    }
}

#[cfg(feature = "planted-bug")]
static PLANTED: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Whether `bug` is planted in this process's model.
#[cfg(feature = "planted-bug")]
pub fn is(bug: Bug) -> bool {
    PLANTED.load(std::sync::atomic::Ordering::Relaxed) == bug.code()
}

/// Whether `bug` is planted in this process's model: never, in this build.
#[cfg(not(feature = "planted-bug"))]
#[inline(always)]
pub const fn is(bug: Bug) -> bool {
    let _ = bug;
    false
}

/// Whether any bug is planted in this process's model.
#[cfg(feature = "planted-bug")]
pub fn any() -> bool {
    PLANTED.load(std::sync::atomic::Ordering::Relaxed) != 0
}

/// Whether any bug is planted in this process's model: never, in this build.
#[cfg(not(feature = "planted-bug"))]
#[inline(always)]
pub const fn any() -> bool {
    false
}

/// Plants `bug` (or none) in this process's model, for every run after it.
#[cfg(feature = "planted-bug")]
pub fn plant(bug: Option<Bug>) {
    PLANTED.store(
        bug.map_or(0, Bug::code),
        std::sync::atomic::Ordering::Relaxed,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bug_has_a_name_that_names_it_and_a_code_of_its_own() {
        for b in Bug::ALL {
            assert_eq!(Bug::named(b.name()), Some(b));
        }
        let mut codes: Vec<u8> = Bug::ALL.iter().map(|b| b.code()).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), Bug::ALL.len());
        assert!(!codes.contains(&0), "0 means no bug planted");
        assert_eq!(Bug::named("no-such-bug"), None);
    }

    /// With the feature (the workspace's native tests, beside the lab) or without it, no bug is
    /// planted until the mutation test plants one: the model the other tests check is the true
    /// one. (Nothing in the tests plants a bug: it would be the whole test process's.)
    #[test]
    fn no_bug_is_planted_until_one_is_planted() {
        assert!(!any());
        assert!(Bug::ALL.iter().all(|&b| !is(b)));
    }
}
