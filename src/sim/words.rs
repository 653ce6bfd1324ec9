//! Every sentence fragment the core writes about a run: a step's outcome, a token, a Redlock
//! attempt, a storage verdict. The engine, the checker, the narration and the UI all take their
//! words from here, so one wording change is one edit, and the checker and the narration need
//! nothing but the trace and this file.

use super::scenario::InstanceEvent;
use super::trace::*;

/// A grant's fence, or that there was none.
pub fn fence_text(fence: Option<u64>) -> String {
    match fence {
        Some(f) => format!("fence {f}"),
        None => "no fence".to_string(),
    }
}

/// How a write's token reads: a fence, or a lock value under compare-and-set.
pub fn token_text(trace: &Trace, token: Option<u64>) -> String {
    match (trace.fence_rule, token) {
        (FenceRule::CasValue, Some(v)) => format!("value {v:04x}"),
        (FenceRule::CasValue, None) => "no value".to_string(),
        _ => fence_text(token),
    }
}

/// A step's outcome in a few words, for the timeline and the console.
pub fn describe(outcome: &Outcome, trace: &Trace) -> String {
    match outcome {
        Outcome::Granted {
            fence,
            lease_until_ms,
        } => format!(
            "granted {}, lease until {lease_until_ms} ms",
            fence_text(*fence)
        ),
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
        Outcome::Released { mode, deleted, own } => {
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
    }
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
}
