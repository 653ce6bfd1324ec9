//! What the model says a Redlock run's clients did, in the words the lab's clients print:
//! each round (acquisition or extension) with every instance's answer as the client saw it
//! (granted, refused, cut off by a partition or the instance down, or timed out: no reply in
//! by the time it looked), its verdict
//! and the validity it computed; each unlock, release and debit. Also what the lab cannot
//! reproduce at any scale: two things the model puts in the same millisecond whose order
//! decides the run, and a client event the model runs in the middle of that client's own
//! round, where a real client's lock call returns first.

use crate::independent::{schedule, Signal};
use fencing_playground::sim::commands::{Act, Command, RedisCmd, RedisReply, Who};
use fencing_playground::sim::trace::{Acquisition, DebitVerdict, Failure, Outcome, Purpose, Trace};
use fencing_playground::sim::{Event, FenceRule, Scenario};

/// One thing a client did, in words both sides share.
#[derive(Clone, Debug, PartialEq)]
pub struct Fact {
    /// Simulated ms (the lab's: real time over the scale).
    pub at_ms: f64,
    pub text: String,
    /// The validity a round computed, in simulated ms.
    pub validity: Option<f64>,
}

pub fn fact(at_ms: f64, text: String) -> Fact {
    Fact {
        at_ms,
        text,
        validity: None,
    }
}

pub fn result_word(reason: Option<Failure>) -> &'static str {
    match reason {
        None => "ok",
        Some(Failure::NoMajority) => "no-majority",
        Some(Failure::TooSlow) => "too-slow",
        Some(Failure::NoValidityLeft) => "no-validity",
    }
}

pub fn token_text(rule: FenceRule, token: Option<u64>) -> String {
    match (rule, token) {
        (_, None) => "no token".into(),
        (FenceRule::CasValue, Some(_)) => "its lock value".into(),
        (_, Some(t)) => format!("token {t}"),
    }
}

/// When the client of round `a` looked at each instance's reply: sequential, when it sent
/// the next request (or judged, after the last); all at once, when it judged.
pub fn read_times(s: &Scenario, t: &Trace, a: &Acquisition) -> Vec<(Option<u64>, u64)> {
    let n = t.instances.len();
    let label = match a.purpose {
        Purpose::Extend => "extend",
        Purpose::Acquire => "SET NX PX",
    };
    let mut sent = vec![None; n];
    for m in &t.messages {
        if m.client == a.client
            && m.generation == a.generation
            && m.label == label
            && a.start_ms <= m.sent_ms
            && m.sent_ms <= a.end_ms
        {
            if let Some(slot) = m.instance.and_then(|i| sent.get_mut(i)) {
                slot.get_or_insert(m.sent_ms);
            }
        }
    }
    let parallel = s.lock.redlock().is_some_and(|r| r.parallel);
    (0..n)
        .map(|i| {
            let read = if parallel {
                a.end_ms
            } else {
                sent.get(i + 1).copied().flatten().unwrap_or(a.end_ms)
            };
            (sent[i], read.min(a.end_ms))
        })
        .collect()
}

/// Each instance's answer to round `rec` as its client saw it, with when the reply came.
pub fn answers(s: &Scenario, t: &Trace, plan: &[Command], rec: usize) -> Vec<(String, u64)> {
    let a = &t.acquisitions[rec];
    let reads = read_times(s, t, a);
    let extend = a.purpose == Purpose::Extend;
    (0..t.instances.len())
        .map(|i| {
            let reply = plan.iter().find_map(|c| match &c.act {
                Act::Redis {
                    instance,
                    reply,
                    round: Some(r),
                    reply_at_ms,
                    ..
                } if *r == rec && *instance == i && c.who == Who::Client(a.client) => {
                    Some((reply.clone(), *reply_at_ms))
                }
                _ => None,
            });
            // Dropped on the way (a partition, the instance down) or not in by the time the
            // client looked.
            let word = match &reply {
                Some((RedisReply::Cut | RedisReply::Down, _)) => "cut",
                Some((reply, at)) if *at <= reads[i].1 => match reply {
                    RedisReply::Ok => "granted",
                    RedisReply::Int(1) => "granted",
                    RedisReply::Int(_) if !extend => "granted",
                    _ => "refused",
                },
                _ => "timeout",
            };
            let at = reply.as_ref().map_or(u64::MAX, |r| r.1);
            (word.to_string(), at)
        })
        .collect()
}

pub fn round_text(purpose: &str, attempt: &str, answers: &str, result: &str) -> String {
    format!("{purpose} attempt {attempt}: {answers} → {result}")
}

/// The model's facts, per client, in the order it ran them.
pub fn model_facts(s: &Scenario, t: &Trace, plan: &[Command]) -> Vec<Vec<Fact>> {
    let mut out = vec![Vec::new(); t.clients.len()];
    let mut crashed = vec![false; t.clients.len()];
    for step in &t.steps {
        let c = step.client;
        if crashed[c] {
            continue;
        }
        let at = step.at_ms as f64;
        match &step.outcome {
            Outcome::Redlock { attempt, .. } => {
                let a = &t.acquisitions[*attempt];
                let words: Vec<String> = answers(s, t, plan, *attempt)
                    .into_iter()
                    .map(|x| x.0)
                    .collect();
                let purpose = match a.purpose {
                    Purpose::Acquire => "acquire",
                    Purpose::Extend => "extend",
                };
                out[c].push(Fact {
                    at_ms: at,
                    text: round_text(
                        purpose,
                        &a.attempt.to_string(),
                        &words.join(","),
                        result_word(a.reason),
                    ),
                    validity: Some(a.validity_ms as f64),
                });
                if !a.ok && a.purpose == Purpose::Acquire {
                    out[c].push(fact(at, "unlock every instance".into()));
                }
            }
            Outcome::Released { own: true, .. } => out[c].push(fact(at, "release".into())),
            Outcome::RenewDenied { .. } => {
                out[c].push(fact(at, "renew: holds no lock".into()));
            }
            Outcome::DebitSent { write } => {
                let token = t.writes.get(*write).and_then(|w| w.token);
                let text = format!(
                    "debit sent with {}",
                    token_text(s.storage.fence_rule, token)
                );
                out[c].push(fact(at, text));
            }
            Outcome::Stored { verdict, .. } => {
                let text = match verdict {
                    DebitVerdict::Accepted { balance } => {
                        format!("debit accepted, balance {balance}")
                    }
                    DebitVerdict::Rejected { .. } => "debit rejected".into(),
                    DebitVerdict::Duplicate { .. } => "debit duplicate".into(),
                };
                out[c].push(fact(at, text));
            }
            Outcome::Skipped { .. } => {
                out[c].push(fact(at, "debit not sent: holds no lock".into()));
            }
            Outcome::Crashed => crashed[c] = true,
            _ => {}
        }
    }
    out
}

/// "A's grant 2": whose successful acquisition (counted from 1) set the last value a
/// compare-and-set write brought.
pub fn model_grant_of(t: &Trace, value: Option<u64>) -> String {
    let Some(v) = value else { return "none".into() };
    let Some(w) =
        t.writes.iter().rev().find(|w| {
            w.token == Some(v) && matches!(w.verdict, Some(DebitVerdict::Accepted { .. }))
        })
    else {
        return format!("value {v}");
    };
    let mut mine: Vec<&Acquisition> = t
        .acquisitions
        .iter()
        .filter(|a| a.client == w.client && a.ok && a.purpose == Purpose::Acquire)
        .collect();
    mine.sort_by_key(|a| a.end_ms);
    match mine.iter().position(|a| Some(a.generation) == w.generation) {
        Some(n) => format!("{}'s grant {}", t.client_name(w.client), n + 1),
        None => format!("value {v}"),
    }
}

/// Why the lab cannot reproduce this Redlock run at any scale, if it cannot.
pub fn tie(s: &Scenario, t: &Trace, plan: &[Command]) -> Option<String> {
    let r = s.lock.redlock()?;
    if let Some(w) = crate::history::model_tie(s, t) {
        return Some(format!("too close to call at any scale: {w}"));
    }
    // Two clients' requests reaching one instance in the same millisecond, one of which
    // changes the key there (their order then decides what the other is answered).
    let arrivals: Vec<(usize, u64, usize, bool)> = plan
        .iter()
        .filter_map(|c| match (&c.act, c.who) {
            (
                Act::Redis {
                    instance,
                    cmd,
                    reply,
                    ..
                },
                Who::Client(k),
            ) if !matches!(reply, RedisReply::Cut | RedisReply::Down) => {
                let changes = matches!(
                    (cmd, reply),
                    (RedisCmd::SetNx { .. }, RedisReply::Ok)
                        | (RedisCmd::AcquireFenced { .. }, RedisReply::Int(_))
                        | (
                            RedisCmd::Extend { .. }
                                | RedisCmd::ReleaseChecked { .. }
                                | RedisCmd::Del { .. },
                            RedisReply::Int(1)
                        )
                );
                Some((*instance, c.at_ms, k, changes))
            }
            _ => None,
        })
        .collect();
    for (n, a) in arrivals.iter().enumerate() {
        if let Some(b) = arrivals[n + 1..]
            .iter()
            .find(|b| b.0 == a.0 && b.1 == a.1 && b.2 != a.2 && (a.3 || b.3))
        {
            return Some(format!(
                "too close to call at any scale: at {} ms {}'s and {}'s requests reach {} in the \
                 same millisecond",
                a.1,
                t.client_name(a.2),
                t.client_name(b.2),
                t.instance_name(a.0)
            ));
        }
    }
    let plan_signals = schedule(s);
    for (rec, a) in t.acquisitions.iter().enumerate() {
        let name = t.client_name(a.client);
        let wakes = |at: u64| {
            plan_signals
                .iter()
                .any(|&(when, k, sig)| k == a.client && when == at && sig == Signal::Cont)
        };
        // A reply that reaches the client at the very instant it looks, when what makes it
        // look is not that reply (its timeout, its waking): either order is chance.
        let reads = read_times(s, t, a);
        for (i, (word_at, (sent, read))) in answers(s, t, plan, rec).iter().zip(&reads).enumerate()
        {
            let timed_out = sent.is_some_and(|x| read.saturating_sub(x) >= r.timeout_ms)
                || (r.parallel && a.end_ms - a.start_ms >= r.timeout_ms);
            if matches!(word_at.0.as_str(), "granted" | "refused")
                && word_at.1 == *read
                && (timed_out || wakes(*read))
            {
                return Some(format!(
                    "too close to call at any scale: {name}'s reply from {} reaches it at {read} \
                     ms, the instant it stops waiting for it",
                    t.instance_name(i)
                ));
            }
        }
        // The boundaries of the verdict: the client's own measurement decides them.
        if a.elapsed_ms == s.lock.ttl_ms as i64 || a.validity_ms == 0 {
            return Some(format!(
                "too close to call at any scale: {name}'s round ending at {} ms took {} ms, on \
                 the boundary of its verdict (TTL {} ms, validity {} ms)",
                a.end_ms, a.elapsed_ms, s.lock.ttl_ms, a.validity_ms
            ));
        }
        // A stop or kill at an instant the client sends or judges.
        let instants: Vec<u64> = reads.iter().filter_map(|x| x.0).chain([a.end_ms]).collect();
        if let Some(&(at, _, sig)) = plan_signals.iter().find(|&&(when, k, sig)| {
            k == a.client && sig != Signal::Cont && instants.contains(&when)
        }) {
            return Some(format!(
                "too close to call at any scale: {name}'s {sig:?} signal at {at} ms falls on an \
                 instant its round sends or judges"
            ));
        }
        if let Some(why) = inside_round(s, t, a) {
            return Some(why);
        }
    }
    None
}

/// A client event the model runs while that client's own round is under way. The lab's client
/// sends a debit at its time while a round waits, as a client whose work runs beside its lock
/// calls; a lock call of its own it makes when the round is over, so the lab cannot reproduce
/// one the model starts meanwhile. A debit due at the instant the round judges races the
/// verdict. A debit held back by a pause runs in the model in the order of when it and the
/// client's look at its replies fell due; the lab's client looks first: kept only where every
/// reply of an all-at-once round was due before the debit (the model then judges first too).
fn inside_round(s: &Scenario, t: &Trace, a: &Acquisition) -> Option<String> {
    let r = s.lock.redlock()?;
    let events = &s.clients.get(a.client)?.events;
    for (i, e) in events.iter().enumerate() {
        if matches!(
            e,
            Event::Pause { .. } | Event::Crash { .. } | Event::ClockJump { .. }
        ) || a.event == Some(i)
        {
            continue;
        }
        let due = e.at_ms();
        if due < a.start_ms || due > a.end_ms {
            continue;
        }
        let looked = a.start_ms + parallel_wait(s, r, a.client, a.start_ms);
        let paused = events.iter().any(|p| match p {
            Event::Pause {
                at_ms, duration_ms, ..
            } => *at_ms <= due && at_ms + duration_ms >= a.end_ms,
            _ => false,
        });
        // Held back by a pause that ends before the round does: sent on waking, before the
        // verdict, on both sides.
        let wakes_in_time = events.iter().all(|p| match p {
            Event::Pause {
                at_ms, duration_ms, ..
            } => !(*at_ms <= due && due < at_ms + duration_ms) || at_ms + duration_ms < a.end_ms,
            _ => true,
        });
        let debit = matches!(e, Event::Debit { .. });
        if (debit && wakes_in_time && due < a.end_ms) || (r.parallel && paused && looked < due) {
            continue;
        }
        let name = t.client_name(a.client);
        let (start, end) = (a.start_ms, a.end_ms);
        return Some(if !debit {
            format!(
                "{name}'s {} at {due} ms falls inside its own Redlock round from {start} to {end} \
                 ms: the model's client starts it while the round is under way, a real client's \
                 lock call returns first",
                e.kind()
            )
        } else if due == end {
            format!(
                "too close to call at any scale: {name}'s debit at {due} ms falls on the instant \
                 its round from {start} ms judges"
            )
        } else {
            format!(
                "{name}'s debit at {due} ms is held back by a pause to the end of its round \
                 ({start} to {end} ms): the model runs it in the order it fell due, before the \
                 client's look at replies due later, a real client on waking reads the replies \
                 first"
            )
        });
    }
    None
}

/// How long an all-at-once round started at `t` waits: every reply, or the timeout when an
/// instance cannot answer or answers later than that.
fn parallel_wait(
    s: &Scenario,
    r: &fencing_playground::sim::scenario::Redlock,
    k: usize,
    t: u64,
) -> u64 {
    (0..r.instances.len())
        .map(|i| {
            let lat = r.instances[i].latency_ms;
            let cut = crate::redlock_run::cut_windows(s, r, k, i)
                .iter()
                .any(|&(a, b)| (a <= t && t < b) || (a <= t + lat && t + lat < b));
            if !cut && 2 * lat <= r.timeout_ms {
                2 * lat
            } else {
                r.timeout_ms
            }
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencing_playground::sim::commands::commands;
    use fencing_playground::sim::presets::presets;
    use fencing_playground::sim::run;

    /// The answers read from the trace count as many grants as the model's tally did, in every
    /// preset and in the first Redlock cases of two random seeds.
    #[test]
    fn the_answers_the_client_saw_are_the_votes_it_counted() {
        let mut scenarios: Vec<Scenario> = presets().into_iter().map(|p| p.scenario).collect();
        for seed in [1, 10] {
            for n in 0..60 {
                if let Some(c) = crate::random::case(seed, n) {
                    scenarios.push(c.scenario);
                }
            }
        }
        let mut rounds = 0;
        for s in scenarios.iter().filter(|s| s.lock.redlock().is_some()) {
            let t = run(s);
            let plan = commands(s, &t);
            for (rec, a) in t.acquisitions.iter().enumerate() {
                let granted = answers(s, &t, &plan, rec)
                    .iter()
                    .filter(|x| x.0 == "granted")
                    .count();
                assert_eq!(granted, a.votes, "{}: round {rec}", s.name);
                rounds += 1;
            }
        }
        assert!(rounds > 40, "{rounds} rounds");
    }

    /// Two clients asking at once: the instance's first answer decides the second's.
    #[test]
    fn two_requests_at_one_instance_in_one_millisecond_are_a_tie_when_one_changes_the_key() {
        let mut s = fencing_playground::sim::presets::preset("redlock-happy").expect("preset");
        s.clients[1].events = vec![Event::Acquire { at_ms: 0 }];
        let t = run(&s);
        let why = tie(&s, &t, &commands(&s, &t)).unwrap_or_default();
        assert!(why.contains("reach R1 in the same millisecond"), "{why}");
    }

    #[test]
    fn the_happy_path_reads_five_grants_for_a_and_five_refusals_for_b() {
        let s = fencing_playground::sim::presets::preset("redlock-happy").expect("preset");
        let t = run(&s);
        let plan = commands(&s, &t);
        let facts = model_facts(&s, &t, &plan);
        assert_eq!(
            facts[0][0].text,
            "acquire attempt 1: granted,granted,granted,granted,granted → ok"
        );
        assert_eq!(facts[0][0].validity, Some(48.0));
        assert_eq!(
            facts[1][0].text,
            "acquire attempt 1: refused,refused,refused,refused,refused → no-majority"
        );
        assert_eq!(facts[1][1].text, "unlock every instance");
        assert_eq!(tie(&s, &t, &plan), None);
    }
}
