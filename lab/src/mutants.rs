//! The mutation test's table: for each planted model bug (`fencing_playground::sim::planted`),
//! the seed of a random batch whose first case the bug changes, and the property of that case
//! that makes it so, read off the true model's run. `fencing-lab mutants` plants each
//! bug in turn, runs the seed's cases against the real servers until one disagrees with the
//! planted model, then runs that case with no bug planted, where the servers must agree: so
//! each judge is shown to catch a wrong model, and what it caught is the bug.
//!
//! A change to the random draws that moves a seed's first case fails the test below, with the
//! ignored `screen` test to find a seed again, rather than as a planted bug gone uncaught.

use crate::random::{self, Case};
use fencing_playground::sim::planted::Bug;
use fencing_playground::sim::scenario::ZkFence;
use fencing_playground::sim::trace::{DebitVerdict, Failure, Rejection};
use fencing_playground::sim::trace_advisory::SessionEnd;
use fencing_playground::sim::trace_lease::RowChange;
use fencing_playground::sim::{self, FenceRule};

/// Each planted bug and the seed of the batch that catches it, in the order they run.
pub const MUTANTS: [(Bug, u64); 6] = [
    // From contract-5-equal-is-stale: a debit with the fence B already used.
    (Bug::EqualFence, 84),
    // From redlock-gc-during-acquire: a round with two of the three votes it needs.
    (Bug::RedlockMajority, 22),
    // From etcd-pause-fenced.
    (Bug::EtcdRevision, 69),
    // From zk-pause-czxid.
    (Bug::ZkSequence, 5),
    // From advisory-idle-timeout.
    (Bug::AdvisoryIdle, 18),
    // From lease-paused-holder: B takes the row over, at a generation the bug does not raise.
    (Bug::LeaseGeneration, 26),
];

/// Why `bug` changes case `c`'s run, read off the true model's run, or `None` when it does not
/// (as far as this test can tell from the true run alone).
pub fn changed_by(bug: Bug, c: &Case) -> Option<String> {
    let s = &c.scenario;
    let t = sim::run(s);
    let fenced_write = || t.writes.iter().any(|w| w.token.is_some());
    match bug {
        // A strict debit refused for a token equal to the last fence: the bug accepts it.
        Bug::EqualFence => (s.storage.fence_rule == FenceRule::Strict
            && t.writes.iter().any(|w| {
                matches!(&w.verdict, Some(DebitVerdict::Rejected {
                    reason: Rejection::StaleFence, last_fence: Some(l), token: Some(k) }) if l == k)
            }))
        .then(|| "a strict debit refused for a token equal to the last fence".into()),
        // A Redlock round one vote short of its majority: the bug grants it.
        Bug::RedlockMajority => t
            .acquisitions
            .iter()
            .find(|a| a.reason == Some(Failure::NoMajority) && a.votes + 1 == a.needed)
            .map(|a| {
                format!(
                    "a round of {} with {} of the {} votes it needs",
                    t.client_name(a.client),
                    a.votes,
                    a.needed
                )
            }),
        // An etcd holder that writes with its fence: the bug fences with the revision before.
        Bug::EtcdRevision => (s.lock.etcd().is_some() && fenced_write())
            .then(|| "an etcd holder writes with its create revision as the fence".into()),
        // A ZooKeeper holder fenced by its czxid that writes with it: the bug sends the
        // node's sequence number instead.
        Bug::ZkSequence => (s
            .lock
            .zookeeper()
            .is_some_and(|z| z.fence == ZkFence::Czxid)
            && fenced_write())
        .then(|| "a ZooKeeper holder writes with its node's czxid as the fence".into()),
        // A session `idle_session_timeout` ends before its client's next step, which finds it
        // gone: the bug keeps it (a session that ends with no step after it changes nothing a
        // client sees).
        Bug::AdvisoryIdle => t.advisory.as_ref().and_then(|a| {
            a.sessions
                .iter()
                .filter(|x| x.end == SessionEnd::IdleTimeout)
                .find(|x| {
                    t.steps
                        .iter()
                        .any(|st| st.client == x.client && st.at_ms > x.end_ms)
                })
                .map(|x| {
                    format!(
                        "idle_session_timeout ends {}'s session at {} ms, before its next step",
                        t.client_name(x.client),
                        x.end_ms
                    )
                })
        }),
        // A lease row taken over: the bug mints the same generation again.
        Bug::LeaseGeneration => t.lease.as_ref().and_then(|l| {
            l.rows
                .iter()
                .find(|r| r.why == RowChange::TakenOver)
                .map(|r| format!("the lease row is taken over at {} ms", r.start_ms))
        }),
    }
}

/// The first case of `seed`'s batch, and why `bug` changes it.
pub fn first_case_changed(bug: Bug, seed: u64) -> Result<(Case, String), String> {
    let c = random::case(seed, 0).ok_or_else(|| format!("seed {seed}: no first case drawn"))?;
    match changed_by(bug, &c) {
        Some(why) => Ok((c, why)),
        None => Err(format!(
            "seed {seed}'s first case ({}, from {}) is not one the planted bug {} changes: run \
             `cargo test -p fencing-lab --lib mutants::screen -- --ignored --nocapture` for a \
             seed that is, and set it in lab/src/mutants.rs",
            c.name,
            c.base_id,
            bug.name()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_planted_bug_has_a_seed_whose_first_case_it_changes() {
        for b in Bug::ALL {
            assert_eq!(
                MUTANTS.iter().filter(|(m, _)| *m == b).count(),
                1,
                "{} is in the table once",
                b.name()
            );
        }
        for (bug, seed) in MUTANTS {
            if let Err(e) = first_case_changed(bug, seed) {
                panic!("{e}");
            }
        }
    }
}

/// Finds seeds whose first case each planted bug changes: run by hand when the draws change.
#[cfg(test)]
mod screen {
    use super::*;

    #[test]
    #[ignore = "a search for seeds, run by hand"]
    fn seeds_for_the_mutants() {
        for bug in Bug::ALL {
            let found: Vec<String> = (1..3000u64)
                .filter_map(|seed| {
                    let c = random::case(seed, 0)?;
                    changed_by(bug, &c).map(|why| format!("{seed} ({}, {why})", c.base_id))
                })
                .take(5)
                .collect();
            println!("{}: {}", bug.name(), found.join("; "));
        }
    }
}
