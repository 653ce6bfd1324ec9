//! Every sentence fragment the core writes about a run: a step's outcome, a token, a Redlock
//! attempt, a storage verdict. The engine, the checker, the narration and the UI all take their
//! words from here, so one wording change is one edit, and the checker and the narration need
//! nothing but the trace and this file.

use super::scenario::InstanceEvent;
use super::trace::*;

/// The three ways a client can "have" the lock, each defined once. The verdict, the narration,
/// the lanes and the legend under the verdict all use these words in exactly these senses.
pub const HOLDS: &str = "holds";
pub const BELIEVES: &str = "believes";
pub const VALID: &str = "valid";

/// The legend shown to the reader under the verdict: each word with what it means.
pub const LEGEND: &str = "holds: the lock service says so (Redlock: keys on a majority) · \
    believes: its own clock says the lease is live · valid: inside Redlock's validity window \
    (TTL − elapsed − drift), by its own clock";

/// Why strict storage refuses an equal token, said where it bites: at the badge, in the
/// narration and in the liveness notes.
pub const ONE_WRITE_PER_GRANT: &str = "strict: one write per grant";
pub const STRICT_RULE_WHY: &str =
    "strict storage accepts one write per grant, so an equal token is stale; non_decreasing (token ≥ last) lets a holder write again";

// A token's words (`fence 34`, `revision 34`, `generation 2`, a lock value) have a file of their
// own; they are part of this one's vocabulary.
pub use super::words_token::{fence_name, fence_not_up_text, fence_text, token_text};

/// A grant in the words of the service that made it. (In the first stage's build `kind` is
/// never etcd, advisory or ZooKeeper, so their arms are left out of it.)
fn granted(trace: &Trace, fence: Option<u64>, lease_until_ms: u64) -> String {
    match trace.kind() {
        ServiceKind::Single | ServiceKind::Redlock => format!(
            "granted {}, lease until {lease_until_ms} ms",
            fence_text(fence)
        ),
        ServiceKind::Etcd => match fence {
            Some(r) => {
                format!("locked, create revision {r} (the fence), lease until {lease_until_ms} ms")
            }
            None => {
                format!("locked (revision not used as a fence), lease until {lease_until_ms} ms")
            }
        },
        ServiceKind::Advisory => super::words_advisory::granted(trace),
        ServiceKind::Zookeeper => {
            // The step is the last one written when this runs: it is the trace's newest grant.
            let (client, t) = trace
                .leases
                .last()
                .map_or((0, 0), |l| (l.holder, l.start_ms));
            super::words_zk::granted(trace, client, t, fence)
        }
        ServiceKind::Lease => super::words_lease::granted(fence, lease_until_ms, trace),
    }
}

/// A release in the words of the service that ran it.
fn released(trace: &Trace, mode: ReleaseKind, deleted: &Option<String>, own: bool) -> String {
    match trace.kind() {
        ServiceKind::Single | ServiceKind::Redlock => {
            let how = match mode {
                ReleaseKind::TokenChecked => "token-checked release",
                ReleaseKind::BareDel => "bare DEL",
            };
            match (own, deleted) {
                (true, _) => format!("{how}: released its own lease"),
                (false, Some(victim)) => format!("{how}: deleted {victim}'s lease"),
                (false, None) => format!("{how}: nothing to delete"),
            }
        }
        ServiceKind::Etcd => if own {
            "unlocked: deleted its own key"
        } else {
            "unlock: it had no key to delete"
        }
        .to_string(),
        ServiceKind::Advisory => super::words_advisory::released(trace, own),
        ServiceKind::Zookeeper => super::words_zk::released(own),
        ServiceKind::Lease => super::words_lease::released(own),
    }
}

/// A step's outcome in a few words, for the timeline and the console.
pub fn describe(outcome: &Outcome, trace: &Trace) -> String {
    match outcome {
        #[cfg(not(feature = "first-stage"))]
        Outcome::LockWaits { behind } if trace.kind() == ServiceKind::Lease => super::words_lease::waits(behind),
        #[cfg(not(feature = "first-stage"))]
        Outcome::LockWaits { behind } => super::words_advisory::waits(trace, behind),
        #[cfg(not(feature = "first-stage"))]
        Outcome::SessionGone { why } => super::words_advisory::gone(*why),
        #[cfg(not(feature = "first-stage"))]
        Outcome::NodeWaits { node, behind } => super::words_zk::waits(node, behind),
        #[cfg(not(feature = "first-stage"))]
        Outcome::ConnectionLoss => super::words_zk::CONNECTION_LOSS.to_string(),
        #[cfg(not(feature = "first-stage"))]
        Outcome::ZkNotice { notice } => super::words_zk::notice(*notice),
        #[cfg(not(feature = "first-stage"))]
        Outcome::WriteHeldBack { state } => super::words_zk::held_back(*state),
        Outcome::Granted {
            fence,
            lease_until_ms,
        } => granted(trace, *fence, *lease_until_ms),
        #[cfg(not(feature = "first-stage"))]
        Outcome::Queued { revision, behind } => {
            format!("key put at revision {revision}; waits for {behind}'s key to go")
        }
        #[cfg(not(feature = "first-stage"))]
        Outcome::GrantedExpired { expired_ms } => format!(
            "told it holds the lock though its lease expired at {expired_ms} ms and its key is gone: no fence (etcd 3.4)"
        ),
        #[cfg(not(feature = "first-stage"))]
        Outcome::SessionExpired { by_lock: true } => {
            "lock answered: session expired (its lease ran out while it waited)".to_string()
        }
        #[cfg(not(feature = "first-stage"))]
        Outcome::SessionExpired { by_lock: false } => {
            "keepalive answered: lease not found; the session is over".to_string()
        }
        #[cfg(not(feature = "first-stage"))]
        Outcome::NoLeader => "no leader: the request waits for an election".to_string(),
        // The first stage's build has no etcd (its `validate` refuses it).
        #[cfg(feature = "first-stage")]
        Outcome::Queued { .. }
        | Outcome::GrantedExpired { .. }
        | Outcome::SessionExpired { .. }
        | Outcome::NoLeader
        | Outcome::LockWaits { .. }
        | Outcome::SessionGone { .. }
        | Outcome::NodeWaits { .. }
        | Outcome::ConnectionLoss
        | Outcome::ZkNotice { .. }
        | Outcome::WriteHeldBack { .. } => String::new(),
        #[cfg(not(feature = "first-stage"))]
        Outcome::Denied { holder } if trace.kind() == ServiceKind::Lease => super::words_lease::denied(holder),
        Outcome::Denied { holder } => format!("denied lock_held by {holder}"),
        Outcome::Renewed {
            lease_until_ms,
            by_watchdog,
        } => format!(
            "{} until {lease_until_ms} ms",
            if *by_watchdog {
                "watchdog renewed"
            } else {
                "renewed"
            }
        ),
        Outcome::RenewDenied { holder, .. } => match holder {
            Some(h) => format!("renew denied: {h} holds the lock"),
            None => "renew denied: the lease had expired".to_string(),
        },
        Outcome::WatchdogStarted => "watchdog started".to_string(),
        Outcome::Released { mode, deleted, own } => released(trace, *mode, deleted, *own),
        Outcome::CheckPassed => "isHeld() returned true".to_string(),
        Outcome::CheckFailed => "isHeld() returned false; write skipped".to_string(),
        Outcome::DebitSent { write } => match trace.writes.get(*write) {
            Some(w) => {
                let mut text = format!(
                    "sent debit {} with {}",
                    w.amount,
                    token_text(trace, w.token)
                );
                if w.arrived_ms > w.sent_ms {
                    text.push_str(&format!(", arrives at {} ms", w.arrived_ms));
                }
                text
            }
            None => "sent a debit".to_string(),
        },
        Outcome::Stored { verdict, .. } => verdict_text(verdict),
        Outcome::Paused { cause, until_ms } => {
            format!("paused by {} until {until_ms} ms", cause.label())
        }
        Outcome::Woke => "woke up".to_string(),
        Outcome::Crashed => "crashed".to_string(),
        Outcome::ClockJumped { by_ms } => format!("clock jumped by {by_ms:+} ms"),
        Outcome::Skipped { reason } => format!("skipped: {reason}"),
        Outcome::Redlock { attempt, .. } => match trace.acquisitions.get(*attempt) {
            Some(a) => match a.timing_hazard {
                Some(TimingHazard::WallClockSteppedBack { by_ms }) => format!(
                    "{} (its wall clock stepped back {by_ms} ms)",
                    redlock_text(a, trace.instances.len())
                ),
                None => redlock_text(a, trace.instances.len()),
            },
            None => "Redlock attempt".to_string(),
        },
    }
}

/// A Redlock attempt in a few words, e.g. "acquired 3/5 in 4 ms, valid 24 ms".
pub fn redlock_text(a: &Acquisition, instances: usize) -> String {
    let what = match a.purpose {
        Purpose::Acquire => "acquired",
        Purpose::Extend => "extended",
    };
    match failure_text(a, instances) {
        None => format!(
            "{what} {}/{} in {} ms, valid {} ms{}",
            a.votes,
            instances,
            a.elapsed_ms,
            a.validity_ms,
            a.fence.map_or(String::new(), |f| format!(", fence {f}"))
        ),
        Some(reason) => format!("not {what}: {reason}"),
    }
}

/// What a Redlock attempt was for, as one word: "acquire" or "extend".
pub fn purpose_word(p: Purpose) -> &'static str {
    match p {
        Purpose::Acquire => "acquire",
        Purpose::Extend => "extend",
    }
}

/// Why a Redlock attempt failed, with its numbers, e.g. "only 2 of 5 instances agreed, 3
/// needed"; `None` for an attempt that succeeded.
pub fn failure_text(a: &Acquisition, instances: usize) -> Option<String> {
    Some(match a.reason? {
        Failure::NoMajority => format!(
            "only {} of {instances} instances agreed, {} needed",
            a.votes, a.needed
        ),
        Failure::TooSlow => {
            // validity = TTL − elapsed − drift, so the TTL is their sum.
            let ttl = a.validity_ms + a.elapsed_ms + a.drift_ms as i64;
            format!("{} ms spent, not below the {ttl} ms TTL", a.elapsed_ms)
        }
        Failure::NoValidityLeft => {
            format!("no validity left ({} ms after drift margin)", a.validity_ms)
        }
    })
}

/// What was wrong with how the client timed a Redlock round, if anything: the numbers it
/// computed stand, and this says why they cannot be trusted.
pub fn timing_hazard_text(a: &Acquisition) -> Option<String> {
    match a.timing_hazard? {
        TimingHazard::WallClockSteppedBack { by_ms } => {
            let ttl = a.validity_ms + a.elapsed_ms + a.drift_ms as i64;
            let past_ttl = if a.validity_ms > ttl {
                format!(", longer than the {ttl} ms TTL itself")
            } else {
                String::new()
            };
            Some(format!(
                "the client's wall clock stepped back {by_ms} ms during the round, so it measured \
                 {} ms elapsed and counts {} ms of validity{past_ttl}; timed by a monotonic \
                 clock, the round could not gain time",
                a.elapsed_ms, a.validity_ms
            ))
        }
    }
}

/// Why a lease (or an instance's key) ended, in a few words.
pub fn span_end_words(end: &SpanEnd) -> &'static str {
    match end {
        SpanEnd::Expired => "TTL ran out",
        SpanEnd::Released => "released",
        SpanEnd::Deleted => "deleted by DEL",
        SpanEnd::Crashed => "holder crashed",
        SpanEnd::Replaced => "replaced",
        SpanEnd::Open => "still held",
        SpanEnd::Forgotten => "forgotten on restart",
    }
}

/// The storage's verdict in words, e.g. "rejected stale_fence: 33 ≤ 34".
pub fn verdict_text(verdict: &DebitVerdict) -> String {
    match verdict {
        DebitVerdict::Accepted { balance } => format!("accepted, balance {balance}"),
        DebitVerdict::Duplicate { balance } => {
            format!("duplicate: already applied, balance {balance}")
        }
        DebitVerdict::Rejected {
            reason: Rejection::StaleFence,
            last_fence,
            token,
        } => match (token, last_fence) {
            (Some(t), Some(l)) if t == l => {
                format!("rejected stale_fence: {t} ≤ {l} ({ONE_WRITE_PER_GRANT})")
            }
            (Some(t), Some(l)) => format!("rejected stale_fence: {t} ≤ {l}"),
            _ => "rejected stale_fence".to_string(),
        },
        DebitVerdict::Rejected {
            reason: Rejection::MissingToken,
            ..
        } => "rejected missing_token: the write carried no fence".to_string(),
        DebitVerdict::Rejected {
            reason: Rejection::StaleValue,
            last_fence,
            token,
        } => format!(
            "rejected stale_value: {:04x} was replaced by {:04x}",
            token.unwrap_or(0),
            last_fence.unwrap_or(0)
        ),
        DebitVerdict::Rejected {
            reason: Rejection::CompareFailed,
            token,
            ..
        } => match token {
            Some(r) => format!("txn compare failed: no lock key with create revision {r}"),
            None => "txn compare failed: the writer has no lock key".to_string(),
        },
        DebitVerdict::Rejected {
            reason: Rejection::SessionGone,
            ..
        } => super::words_advisory::rejected_text(),
        DebitVerdict::Rejected {
            reason: Rejection::UniqueViolation | Rejection::LeaseLost,
            ..
        } => super::words_lease::rejected_text(verdict),
    }
}

/// Two clients that each had the lock at once, from `from_ms` to `to_ms`, in the legend's words:
/// who *held* it (the service's majority spans say so throughout) and who only *believed* it
/// (single Redis) or had a *valid* lock by its own clock (Redlock), with when that one lost it.
pub fn two_holders_text(
    trace: &Trace,
    a: &BeliefSpan,
    b: &BeliefSpan,
    from_ms: u64,
    to_ms: u64,
) -> String {
    let redlock = trace.is_redlock();
    let held = |c: usize| {
        trace
            .majorities
            .iter()
            .any(|h| h.client == c && h.start_ms <= from_ms && to_ms <= h.end_ms)
    };
    let name = |s: &BeliefSpan| trace.client_name(s.client).to_string();
    // How the one that did not hold it still had it, and when the service stopped saying so.
    let only_own = |s: &BeliefSpan| {
        let who = name(s);
        let lost = trace
            .majorities
            .iter()
            .filter(|h| h.client == s.client && h.start_ms < to_ms)
            .map(|h| h.end_ms)
            .max();
        if redlock {
            let why = match lost {
                Some(t) => format!("though its majority was gone at {t} ms"),
                None => "though it never held a majority".to_string(),
            };
            format!("{who}'s lock was still valid by its own clock, {why}")
        } else {
            let end = trace
                .leases
                .iter()
                .filter(|l| l.holder == s.client && l.generation == s.generation)
                .max_by_key(|l| l.end_ms);
            let why = match end {
                Some(l) => format!(
                    "its lease ended at {} ms ({})",
                    l.end_ms,
                    span_end_words(&l.end)
                ),
                None => "it never held the lease".to_string(),
            };
            format!("{who} still believed it held the lock: {why}")
        }
    };
    let span = format!("from {from_ms} to {to_ms} ms");
    match (held(a.client), held(b.client)) {
        (true, true) => format!("{} and {} both held the lock {span}", name(a), name(b)),
        (true, false) => format!("{} held the lock {span} while {}", name(a), only_own(b)),
        (false, true) => format!("{} held the lock {span} while {}", name(b), only_own(a)),
        (false, false) if redlock => format!(
            "{} and {} both had a valid lock by their own clocks {span}, though neither held a majority throughout",
            name(a),
            name(b)
        ),
        (false, false) => format!(
            "{} and {} both believed they held the lock {span}, though neither held it throughout",
            name(a),
            name(b)
        ),
    }
}

/// A kind of violation in two or three words, for a summary line.
pub fn violation_words(kind: &ViolationKind) -> &'static str {
    match kind {
        ViolationKind::StaleWriteAccepted => "stale write accepted",
        ViolationKind::OverlappingWriters => "overlapping writers",
        ViolationKind::BalanceMismatch => "double debit",
        ViolationKind::LeaseDeletedByNonOwner => "lease deleted by another client",
        ViolationKind::TwoHolders => "two holders at once",
    }
}

/// A run's outcome in one short phrase: "balance 90, ✓ safe", or "balance 90, ✗ unsafe (two
/// holders at once)", with "; every debit was refused" when nothing was written.
pub fn outcome_text(trace: &Trace) -> String {
    let v = &trace.verdict;
    let mut s = format!("balance {}, ", trace.final_balance);
    if v.safe {
        s.push_str("✓ safe");
    } else {
        let mut kinds: Vec<&str> = Vec::new();
        for k in v.violations.iter().map(|x| violation_words(&x.kind)) {
            if !kinds.contains(&k) {
                kinds.push(k);
            }
        }
        s.push_str(&format!("✗ unsafe ({})", kinds.join(", ")));
    }
    if v.liveness
        .iter()
        .any(|o| o.kind == LivenessKind::EveryDebitRefused)
    {
        s.push_str("; every debit was refused");
    }
    s
}

/// Why a crashed client's event did nothing.
pub fn crashed_reason(name: &str) -> String {
    format!("{name} had crashed")
}

/// Why a debit was not sent: client code writes only inside its critical section.
pub fn not_holding_reason(name: &str) -> String {
    format!("{name} does not hold the lock, so it does not write")
}

/// A Redlock instance's event as the trace marks it, e.g. "R3's clock jumps +60 ms".
pub fn instance_event_text(name: &str, e: &InstanceEvent) -> String {
    match e {
        InstanceEvent::ClockJump { by_ms, over_ms, .. } => {
            if *over_ms > 0 {
                format!("{name}'s clock slews {by_ms:+} ms over {over_ms} ms")
            } else {
                format!("{name}'s clock jumps {by_ms:+} ms")
            }
        }
        InstanceEvent::Crash {
            down_ms,
            persistent,
            ..
        } => format!(
            "{name} crashes for {down_ms} ms{}",
            if *persistent {
                " and keeps its keys (persistence)"
            } else {
                " and comes back with no keys"
            }
        ),
        InstanceEvent::Partition {
            duration_ms,
            client,
            ..
        } => format!(
            "{name} is cut off from {} for {duration_ms} ms",
            client.as_deref().unwrap_or("every client")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(reason: Option<Failure>, elapsed_ms: i64, validity_ms: i64) -> Acquisition {
        Acquisition {
            client: 0,
            event: Some(0),
            purpose: Purpose::Acquire,
            attempt: 1,
            generation: 1,
            start_ms: 0,
            end_ms: 10,
            votes: 2,
            needed: 3,
            elapsed_ms,
            drift_ms: 2,
            validity_ms,
            ok: reason.is_none(),
            fence: None,
            reason,
            timing_hazard: None,
        }
    }

    #[test]
    fn failures_are_told_with_their_numbers() {
        let a = attempt(Some(Failure::NoMajority), 10, 18);
        assert_eq!(
            failure_text(&a, 5).as_deref(),
            Some("only 2 of 5 instances agreed, 3 needed")
        );
        assert_eq!(
            redlock_text(&a, 5),
            "not acquired: only 2 of 5 instances agreed, 3 needed"
        );
        // TTL 30: elapsed 31 + drift 2 + validity −3.
        let slow = attempt(Some(Failure::TooSlow), 31, -3);
        assert_eq!(
            failure_text(&slow, 5).as_deref(),
            Some("31 ms spent, not below the 30 ms TTL")
        );
        let none = attempt(Some(Failure::NoValidityLeft), 28, 0);
        assert_eq!(
            failure_text(&none, 5).as_deref(),
            Some("no validity left (0 ms after drift margin)")
        );
        let ok = Acquisition {
            votes: 3,
            purpose: Purpose::Extend,
            ..attempt(None, 4, 24)
        };
        assert_eq!(failure_text(&ok, 5), None);
        assert_eq!(redlock_text(&ok, 5), "extended 3/5 in 4 ms, valid 24 ms");
        assert_eq!(purpose_word(ok.purpose), "extend");
    }

    #[test]
    fn every_span_end_has_its_own_words() {
        assert_eq!(span_end_words(&SpanEnd::Forgotten), "forgotten on restart");
        assert_eq!(span_end_words(&SpanEnd::Expired), "TTL ran out");
        assert_eq!(span_end_words(&SpanEnd::Open), "still held");
    }

    #[test]
    fn a_fence_that_does_not_go_up_is_told_as_such() {
        assert_eq!(
            fence_not_up_text(1, 33),
            "fence 1, lower than the 33 an earlier grant got: the fence went backwards"
        );
        assert_eq!(
            fence_not_up_text(33, 33),
            "fence 33, the same as an earlier grant got: the fence repeated"
        );
    }
}
