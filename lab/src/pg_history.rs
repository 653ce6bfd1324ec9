//! A PostgreSQL advisory-lock run's history against the model's trace: per client, the same
//! facts in the same order (each lock call's answer: granted, or failed because its session
//! ended under it; each unlock or `COMMIT`: released, nothing held, or its session gone; each
//! debit sent, refused unsent, and its verdict, including "nothing committed: the session is
//! gone" for a write on the lock's own session), then the final balance and last fence. Times
//! are checked with the tolerance; a server timer (an idle timeout) may fire a little late.

use crate::history::{frozen_write, ops, Fact, Judgement, Op};
use crate::independent::{Happened, Signal};
use fencing_playground::sim::trace::{DebitVerdict, Outcome, Rejection, Trace};
use fencing_playground::sim::{Event, Scenario};

const TOLERANCE_MS: f64 = 0.4;
/// How much later than the model's a fact may come: PostgreSQL's idle timers fire on the
/// server's timer interrupt, a little after the instant the setting names.
const LATE_MS: f64 = 1.0;

const GRANTED: &str = "lock: granted";
const ALREADY: &str = "lock: already held by its session";
const LOCK_GONE: &str = "lock: failed, its session ended under the call";
const RELEASED: &str = "unlock: released";
const NOTHING: &str = "unlock: nothing held";
const UNLOCK_GONE: &str = "unlock: its session was gone";
const SENT: &str = "debit sent";
const NOT_SENT: &str = "debit not sent: holds no lock";
const STORE_GONE: &str = "debit: nothing committed, its session is gone";

fn is_event(s: &Scenario, c: usize, e: Option<usize>, p: fn(&Event) -> bool) -> bool {
    e.and_then(|e| s.clients.get(c)?.events.get(e))
        .is_some_and(p)
}

/// The model's facts per client, in its order.
pub fn model_facts(s: &Scenario, t: &Trace) -> Vec<Vec<Fact>> {
    let mut out = vec![Vec::new(); t.clients.len()];
    let mut crashed = vec![false; t.clients.len()];
    for step in &t.steps {
        let c = step.client;
        if crashed[c] {
            continue;
        }
        let acquire = is_event(s, c, step.event, |e| matches!(e, Event::Acquire { .. }));
        let text = match &step.outcome {
            Outcome::Granted { .. } => GRANTED.to_string(),
            Outcome::SessionGone { .. } if acquire => LOCK_GONE.into(),
            Outcome::SessionGone { .. } => UNLOCK_GONE.into(),
            Outcome::Released { own: true, .. } => RELEASED.into(),
            Outcome::Released { own: false, .. } => NOTHING.into(),
            Outcome::DebitSent { .. } => SENT.into(),
            Outcome::Stored { verdict, .. } => match verdict {
                DebitVerdict::Accepted { balance } => format!("debit accepted, balance {balance}"),
                DebitVerdict::Rejected {
                    reason: Rejection::SessionGone,
                    ..
                } => STORE_GONE.into(),
                DebitVerdict::Rejected { .. } => "debit rejected".into(),
                DebitVerdict::Duplicate { .. } => "debit duplicate".into(),
            },
            Outcome::Skipped { .. } if acquire => ALREADY.into(),
            Outcome::Skipped { .. } => NOT_SENT.into(),
            Outcome::Crashed => {
                crashed[c] = true;
                continue;
            }
            _ => continue,
        };
        out[c].push(Fact {
            at_ms: step.at_ms as f64,
            text,
        });
    }
    out
}

/// What an advisory comparison covers, counted from the model's facts.
pub fn compared(s: &Scenario, t: &Trace) -> String {
    let facts: Vec<Fact> = model_facts(s, t).into_iter().flatten().collect();
    let count = |p: &dyn Fn(&str) -> bool| facts.iter().filter(|f| p(&f.text)).count();
    format!(
        "lock granted {}, failed with its session {}, unlocks {} (nothing held {}, session gone \
         {}); debits accepted {}, refused with the session gone {}, not sent {}; balance {}, no \
         fence",
        count(&|x| x == GRANTED),
        count(&|x| x == LOCK_GONE),
        count(&|x| x.starts_with("unlock")),
        count(&|x| x == NOTHING),
        count(&|x| x == UNLOCK_GONE),
        count(&|x| x.starts_with("debit accepted")),
        count(&|x| x == STORE_GONE),
        count(&|x| x == NOT_SENT),
        t.final_balance
    )
}

fn lab_text(op: &Op) -> Option<String> {
    let r: Vec<&str> = op.result.iter().map(String::as_str).collect();
    Some(match (op.kind.as_str(), r.as_slice()) {
        ("lock", ["granted"]) => GRANTED.into(),
        ("lock", ["already"]) => ALREADY.into(),
        ("lock", ["gone"]) => LOCK_GONE.into(),
        ("unlock", ["released"]) => RELEASED.into(),
        ("unlock", ["nothing"]) => NOTHING.into(),
        ("unlock", ["gone"]) => UNLOCK_GONE.into(),
        ("send", _) => SENT.into(),
        ("skip", _) => NOT_SENT.into(),
        ("store", ["accepted", b]) => format!("debit accepted, balance {b}"),
        ("store", ["rejected"]) => "debit rejected".into(),
        ("store", ["duplicate"]) => "debit duplicate".into(),
        ("store", ["gone"]) => STORE_GONE.into(),
        _ => return None,
    })
}

/// When a printed operation's fact happened: a lock call's when its answer came (it may have
/// waited behind the holder), every other one's when it was sent.
fn fact_us(op: &Op) -> u64 {
    if op.kind == "lock" {
        op.to_us
    } else {
        op.from_us
    }
}

/// The lab's facts per client, in time order.
pub fn lab_facts(h: &Happened, ops: &[Op]) -> Vec<Vec<Fact>> {
    let mut out = vec![Vec::new(); h.lines.len()];
    for op in ops {
        if let Some(text) = lab_text(op) {
            out[op.client].push(Fact {
                at_ms: fact_us(op) as f64 / h.scale_us as f64,
                text,
            });
        }
    }
    for f in &mut out {
        f.sort_by(|a, b| a.at_ms.total_cmp(&b.at_ms));
    }
    out
}

/// Two things whose order the real times cannot tell: two clients' lock calls or unlocks
/// reaching the server, two debits reaching the storage, or a client's operation and a stop or
/// kill of its process.
pub fn too_close(t: &Trace, h: &Happened, ops: &[Op]) -> Option<String> {
    let tol = (h.scale_us as f64 * TOLERANCE_MS) as i64;
    let ms = |us: u64| us as f64 / h.scale_us as f64;
    let name = |c: usize| t.client_name(c).to_string();
    let mut calls: Vec<&Op> = ops
        .iter()
        .filter(|o| matches!(o.kind.as_str(), "lock" | "unlock"))
        .collect();
    calls.sort_by_key(|o| o.from_us);
    for w in calls.windows(2) {
        if w[0].client != w[1].client && (w[1].from_us as i64 - w[0].from_us as i64) < tol {
            return Some(format!(
                "{}'s {} and {}'s {} reached PostgreSQL {:.2} ms apart",
                name(w[0].client),
                w[0].kind,
                name(w[1].client),
                w[1].kind,
                ms(w[1].from_us) - ms(w[0].from_us)
            ));
        }
    }
    let mut stores: Vec<&Op> = ops.iter().filter(|o| o.kind == "store").collect();
    stores.sort_by_key(|o| o.from_us);
    for w in stores.windows(2) {
        if (w[1].from_us as i64 - w[0].to_us as i64) < tol {
            return Some(format!(
                "{}'s and {}'s debits reached the storage {:.2} ms apart",
                name(w[0].client),
                name(w[1].client),
                ms(w[1].from_us) - ms(w[0].to_us)
            ));
        }
    }
    for &(c, sig, at) in h.signals.iter().filter(|x| x.1 != Signal::Cont) {
        for op in ops.iter().filter(|o| o.client == c) {
            let near = (op.from_us as i64 - at as i64).abs() < tol
                || (op.to_us as i64 - at as i64).abs() < tol;
            if near {
                return Some(format!(
                    "{}'s {} at {:.2} ms came within the tolerance of its {sig:?} signal at {:.2} ms",
                    name(c),
                    op.kind,
                    ms(op.from_us),
                    ms(at)
                ));
            }
        }
    }
    None
}

/// The largest distance between a lab fact and the model's, in real ms.
pub fn worst_offset_ms(s: &Scenario, t: &Trace, h: &Happened) -> f64 {
    let Ok(ops) = ops(h) else { return 0.0 };
    let real_ms = h.scale_us as f64 / 1000.0;
    model_facts(s, t)
        .iter()
        .zip(&lab_facts(h, &ops))
        .flat_map(|(m, l)| m.iter().zip(l))
        .map(|(a, b)| (a.at_ms - b.at_ms).abs() * real_ms)
        .fold(0.0, f64::max)
}

/// Compares an advisory-lock run with the model's trace.
pub fn judge(s: &Scenario, t: &Trace, h: &Happened) -> Judgement {
    let ops = match ops(h) {
        Ok(o) => o,
        Err(err) => return Judgement::Broken(err),
    };
    if let Some(why) = crate::history::late_signal(s, h) {
        return Judgement::Late(why);
    }
    for &(c, sig, at) in &h.signals {
        let sent = ops
            .iter()
            .filter(|o| o.client == c && o.kind == "send" && o.from_us <= at)
            .count();
        let stored = ops
            .iter()
            .filter(|o| o.client == c && o.kind == "store")
            .count();
        if sig == Signal::Kill && sent > stored {
            return Judgement::Limit(format!(
                "{} is killed while its debit is in the network: the model delivers it, a real \
                 process's connection dies with it",
                t.client_name(c)
            ));
        }
    }
    if let Some(why) = frozen_write(t, h, &ops) {
        return Judgement::Limit(why);
    }
    if let Some(why) = too_close(t, h, &ops) {
        return Judgement::TooClose(why);
    }
    // The verdicts in their own order (as for a single lock): a debit and the unlock after
    // it that fall on one instant come in the model's queue order, on a connection in the
    // order the client sent them; what each was told is compared either way.
    let model = crate::history::streams(model_facts(s, t));
    let lab = crate::history::streams(lab_facts(h, &ops));
    for ((c, m), (_, l)) in model.iter().zip(&lab) {
        let c = *c;
        for k in 0..m.len().max(l.len()) {
            let (a, b) = (m.get(k), l.get(k));
            if a.map(|f| &f.text) != b.map(|f| &f.text) {
                if let Some(why) =
                    crate::history::behind_at_difference(m, l, k, TOLERANCE_MS + LATE_MS)
                {
                    return Judgement::Late(format!("{}'s {why}", t.client_name(c)));
                }
                // Or another client had before it (history::behind_before).
                if let Some((other, why)) = crate::history::behind_before(
                    &model,
                    &lab,
                    crate::history::instant_of(a, b),
                    TOLERANCE_MS + LATE_MS,
                ) {
                    return Judgement::Late(format!("{}'s {why}", t.client_name(other)));
                }
                let show = |f: Option<&Fact>| {
                    f.map_or("(nothing)".to_string(), |f| {
                        format!("{} at {:.1} ms", f.text, f.at_ms)
                    })
                };
                return Judgement::Differs(format!(
                    "{}: the model says `{}`, PostgreSQL and the clients did `{}`",
                    t.client_name(c),
                    show(a),
                    show(b)
                ));
            }
        }
    }
    for ((c, m), (_, l)) in model.iter().zip(&lab) {
        let c = *c;
        for (a, b) in m.iter().zip(l) {
            let d = b.at_ms - a.at_ms;
            if !(-TOLERANCE_MS..=TOLERANCE_MS + LATE_MS).contains(&d) {
                return Judgement::Late(format!(
                    "{}'s `{}` happened at {:.2} ms, the model's at {} ms (allowed: \
                     {TOLERANCE_MS} ms early to {:.1} ms late)",
                    t.client_name(c),
                    b.text,
                    b.at_ms,
                    a.at_ms,
                    TOLERANCE_MS + LATE_MS
                ));
            }
        }
    }
    if h.balance != t.final_balance {
        return Judgement::Differs(format!(
            "final balance: the model says {}, the storage holds {}",
            t.final_balance, h.balance
        ));
    }
    let lab_fence = (h.last_fence >= 0).then_some(h.last_fence);
    if lab_fence != t.last_fence.map(|f| f as i64) {
        return Judgement::Differs(format!(
            "last fence: the model says {:?}, the storage holds {:?}",
            t.last_fence, lab_fence
        ));
    }
    Judgement::Same
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencing_playground::sim::presets::preset;
    use fencing_playground::sim::run;

    /// advisory-paused-holder as the clients would print it: A granted at 0, stopped 10–70,
    /// its debit accepted at 72 and its unlock at 75; B's lock call from 20 answered at 75.
    fn happened(b_granted_ms: f64) -> Happened {
        let us = |ms: f64| (ms * 20_000.0) as u64;
        let a = vec![
            format!("op lock 0 {} {} granted", us(0.0), us(0.02)),
            format!("op send 2 {} {} -", us(72.0), us(72.0)),
            format!("op store 2 {} {} accepted 90", us(72.01), us(72.05)),
            format!("op unlock 3 {} {} released", us(75.0), us(75.01)),
        ];
        let b = vec![
            format!("op lock 0 {} {} granted", us(20.0), us(b_granted_ms)),
            format!("op send 1 {} {} -", us(80.0), us(80.0)),
            format!("op store 1 {} {} accepted 80", us(80.01), us(80.05)),
            format!("op unlock 2 {} {} released", us(85.0), us(85.01)),
        ];
        Happened {
            lines: vec![a, b],
            signals: vec![(0, Signal::Stop, us(10.0)), (0, Signal::Cont, us(70.0))],
            balance: 80,
            last_fence: -1,
            scale_us: 20_000,
        }
    }

    #[test]
    fn the_waiter_granted_at_the_unlock_matches_and_a_late_grant_does_not() {
        let s = preset("advisory-paused-holder").expect("preset");
        let t = run(&s);
        assert_eq!(judge(&s, &t, &happened(75.01)), Judgement::Same);
        assert!(matches!(judge(&s, &t, &happened(78.0)), Judgement::Late(_)));
    }

    /// advisory-failover under stress-ng (2026-12-07): A's debit landed before B's, which the
    /// run did late, and A was told another balance. A difference after another client fell
    /// behind is a missed schedule; with that client on time, the same difference is a mismatch.
    #[test]
    fn a_difference_after_another_client_fell_behind_is_late_on_time_a_mismatch() {
        let s = preset("advisory-paused-holder").expect("preset");
        let t = run(&s);
        let us = |ms: f64| (ms * 20_000.0) as u64;
        // B told another balance at the model's 80 ms, A's debit on time: a mismatch.
        let mut h = happened(75.01);
        h.lines[1][2] = format!("op store 1 {} {} accepted 70", us(80.01), us(80.05));
        assert!(matches!(judge(&s, &t, &h), Judgement::Differs(_)));
        // The same with A's debit (the model's 72 ms) done at 76.5 ms and its unlock after it:
        // A fell behind first.
        h.lines[0][1] = format!("op send 2 {} {} -", us(76.5), us(76.5));
        h.lines[0][2] = format!("op store 2 {} {} accepted 90", us(76.51), us(76.55));
        h.lines[0][3] = format!("op unlock 3 {} {} released", us(76.8), us(76.81));
        crate::history::assert_late_before_difference(judge(&s, &t, &h), "A");
    }

    #[test]
    fn a_debit_refused_on_a_dead_session_differs_from_an_accepted_one() {
        let s = preset("advisory-paused-holder").expect("preset");
        let t = run(&s);
        let mut h = happened(75.01);
        let us = |ms: f64| (ms * 20_000.0) as u64;
        h.lines[0][2] = format!("op store 2 {} {} gone", us(72.01), us(72.05));
        match judge(&s, &t, &h) {
            Judgement::Differs(d) => assert!(d.contains("nothing committed"), "{d}"),
            other => panic!("{other:?}"),
        }
    }
}
