//! A database-lease run's history against the model's trace: per client, the same facts in the
//! same order, each in the words of the statement's reply as the Commands view prints it (the
//! acquire's generation or its empty answer, a waiter's read and wait, the renewal's and the
//! release's `UPDATE n`, each debit sent with its generation or held back, and PostgreSQL's
//! answer to it: the tag or the unique constraint's error), then the account's balance and
//! generation. Times are checked with the tolerance.

use crate::history::{behind_at_difference, behind_before, instant_of, ops, Fact, Judgement, Op};
use crate::independent::{Happened, Signal};
use fencing_playground::sim::commands::lease::debit_of;
use fencing_playground::sim::trace::{Outcome, Trace};
use fencing_playground::sim::{Event, Scenario};

/// Simulated ms either way within which two things' order cannot be told.
pub const TOLERANCE_MS: f64 = 0.4;
/// How much later than the model's instant a fact may come (a late wake-up).
const LATE_MS: f64 = 1.0;

const HELD: &str = "lock: (0 rows), the row is held";
const NOT_SENT: &str = "debit not sent: holds no lock";

fn granted(g: impl std::fmt::Display) -> String {
    format!("lock: generation {g}")
}

fn waits(g: impl std::fmt::Display) -> String {
    format!("lock: (0 rows), read generation {g} and waits a TTL on its own clock")
}

fn sent(token: Option<String>) -> String {
    format!(
        "debit sent with generation {}",
        token.as_deref().unwrap_or("none")
    )
}

fn is_debit(s: &Scenario, c: usize, e: Option<usize>) -> bool {
    e.and_then(|e| s.clients.get(c)?.events.get(e))
        .is_some_and(|e| matches!(e, Event::Debit { .. }))
}

/// The model's facts per client, in its order.
pub fn model_facts(s: &Scenario, t: &Trace) -> Vec<Vec<Fact>> {
    let mut out = vec![Vec::new(); t.clients.len()];
    let mut crashed = vec![false; t.clients.len()];
    let watches = t.lease.as_ref().map_or(&[][..], |l| &l.watches[..]);
    for step in &t.steps {
        let c = step.client;
        if crashed[c] {
            continue;
        }
        let text = match &step.outcome {
            Outcome::Granted { fence, .. } => granted(fence.unwrap_or(0)),
            Outcome::Denied { .. } => HELD.into(),
            Outcome::LockWaits { .. } => {
                let seen = watches
                    .iter()
                    .find(|w| w.client == c && w.start_ms == step.at_ms)
                    .map_or(0, |w| w.generation);
                waits(seen)
            }
            Outcome::Renewed { .. } => "renew: UPDATE 1".into(),
            Outcome::RenewDenied { .. } => "renew: UPDATE 0".into(),
            Outcome::Released { own, .. } => format!("release: UPDATE {}", u8::from(*own)),
            Outcome::DebitSent { write } => sent(
                t.writes
                    .get(*write)
                    .and_then(|w| w.token)
                    .map(|g| g.to_string()),
            ),
            Outcome::Stored { write, verdict } => match t.writes.get(*write) {
                Some(w) => format!("debit: {}", debit_of(s, t, w).reply(verdict)),
                None => continue,
            },
            Outcome::Skipped { .. } if is_debit(s, c, step.event) => NOT_SENT.into(),
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

/// What a lease comparison covers, counted from the model's facts.
pub fn compared(s: &Scenario, t: &Trace) -> String {
    let facts: Vec<Fact> = model_facts(s, t).into_iter().flatten().collect();
    let count = |p: &dyn Fn(&str) -> bool| facts.iter().filter(|f| p(&f.text)).count();
    format!(
        "acquires granted {}, held {}, waits {}; renewals {}, releases {}; debits sent {}, \
         answered UPDATE/INSERT 1 {}, 0 {}, unique violation {}, not sent {}; balance {}, \
         generation {}",
        count(&|x| x.starts_with("lock: generation")),
        count(&|x| x == HELD),
        count(&|x| x.contains("waits a TTL")),
        count(&|x| x.starts_with("renew")),
        count(&|x| x.starts_with("release")),
        count(&|x| x.starts_with("debit sent")),
        count(&|x| x.starts_with("debit: ") && x.ends_with(" 1")),
        count(&|x| x.starts_with("debit: ") && x.ends_with(" 0")),
        count(&|x| x.starts_with("debit: ERROR")),
        count(&|x| x == NOT_SENT),
        t.final_balance,
        t.last_fence.unwrap_or(0)
    )
}

fn lab_text(op: &Op) -> Option<String> {
    let r: Vec<&str> = op.result.iter().map(String::as_str).collect();
    Some(match (op.kind.as_str(), r.as_slice()) {
        ("lock", ["granted", g]) => granted(g),
        ("lock", ["held"]) => HELD.into(),
        ("wait", [g]) => waits(g),
        ("renew" | "release", words) => format!("{}: {}", op.kind, words.join(" ")),
        ("send", [g]) => sent((*g != "none").then(|| g.to_string())),
        ("skip", _) => NOT_SENT.into(),
        ("store", words) => format!("debit: {}", words.join(" ")),
        _ => return None,
    })
}

/// When a printed operation's fact happened: a debit's answer when it came back (it may have
/// waited in the network), every other one's when its statement was sent.
fn fact_us(op: &Op) -> u64 {
    if op.kind == "store" {
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

/// A client's facts as two streams: what it did (its lease statements and its debits sent or
/// held back) and PostgreSQL's answers to its debits, which run on connections of their own
/// beside its next statement, so an answer and a statement at one instant come in either order.
fn streams(facts: Vec<Vec<Fact>>) -> Vec<(usize, Vec<Fact>)> {
    let mut out = Vec::new();
    for (c, list) in facts.into_iter().enumerate() {
        let (answers, acts): (Vec<Fact>, Vec<Fact>) = list
            .into_iter()
            .partition(|f| f.text.starts_with("debit: "));
        out.push((c, acts));
        out.push((c, answers));
    }
    out
}

fn is_lease_op(op: &Op) -> bool {
    matches!(op.kind.as_str(), "lock" | "wait" | "renew" | "release")
}

/// Two things whose order the real times cannot tell: two clients' lease statements, two
/// clients' debits answered, a debit answered and another client's lease statement when the
/// debit's own statement reads the live lease, or a client's operation and a stop or kill of
/// its process.
pub fn too_close(t: &Trace, h: &Happened, ops: &[Op]) -> Option<String> {
    let tol = (h.scale_us as f64 * TOLERANCE_MS) as i64;
    let ms = |us: u64| us as f64 / h.scale_us as f64;
    let name = |c: usize| t.client_name(c).to_string();
    let mut timed: Vec<(u64, &Op)> = ops
        .iter()
        .filter(|o| is_lease_op(o) || o.kind == "store")
        .map(|o| (fact_us(o), o))
        .collect();
    timed.sort_by_key(|x| x.0);
    // A debit's statement reads the lease row only when it checks the live lease.
    let live = t.lease.as_ref().is_some_and(|l| l.guard == "live_lease");
    let ordered = |a: &Op, b: &Op| (a.kind == "store") == (b.kind == "store") || live;
    for (i, (at, a)) in timed.iter().enumerate() {
        for (bt, b) in timed[i + 1..]
            .iter()
            .take_while(|x| (x.0 - at) < tol as u64)
        {
            if a.client != b.client && ordered(a, b) {
                return Some(format!(
                    "{}'s {} and {}'s {} reached PostgreSQL {:.2} ms apart",
                    name(a.client),
                    a.kind,
                    name(b.client),
                    b.kind,
                    ms(*bt) - ms(*at)
                ));
            }
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

/// Whether a debit's answer came back while its client's process was stopped: the client read
/// it only on waking, so the time printed for it is not when PostgreSQL answered.
fn answered_while_stopped(h: &Happened, ops: &[Op], c: usize, at_ms: f64) -> bool {
    let at = (at_ms * h.scale_us as f64) as u64;
    let stops = h.signals.iter().filter(|x| x.0 == c && x.1 == Signal::Stop);
    stops.into_iter().any(|&(_, _, stop)| {
        ops.iter()
            .any(|o| o.client == c && o.kind == "store" && o.from_us <= stop && o.to_us == at)
    })
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

/// Compares a lease run with the model's trace.
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
            .filter(|o| o.client == c && o.kind == "store" && o.to_us <= at)
            .count();
        if sig == Signal::Kill && sent > stored {
            return Judgement::Limit(format!(
                "{} is killed while its debit is in the network: the model delivers it, a real \
                 process's connection dies with it",
                t.client_name(c)
            ));
        }
    }
    if let Some(why) = too_close(t, h, &ops) {
        return Judgement::TooClose(why);
    }
    let model = streams(model_facts(s, t));
    let lab = streams(lab_facts(h, &ops));
    let slack = TOLERANCE_MS + LATE_MS;
    for ((c, m), (_, l)) in model.iter().zip(&lab) {
        let c = *c;
        for k in 0..m.len().max(l.len()) {
            let (a, b) = (m.get(k), l.get(k));
            if a.map(|f| &f.text) == b.map(|f| &f.text) {
                continue;
            }
            if let Some(why) = behind_at_difference(m, l, k, slack) {
                return Judgement::Late(format!("{}'s {why}", t.client_name(c)));
            }
            if let Some((other, why)) = behind_before(&model, &lab, instant_of(a, b), slack) {
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
    for ((c, m), (_, l)) in model.iter().zip(&lab) {
        for (a, b) in m.iter().zip(l) {
            let d = b.at_ms - a.at_ms;
            if (-TOLERANCE_MS..=slack).contains(&d) || answered_while_stopped(h, &ops, *c, b.at_ms)
            {
                continue;
            }
            return Judgement::Late(format!(
                "{}'s `{}` happened at {:.2} ms, the model's at {} ms (allowed: {TOLERANCE_MS} \
                 ms early to {slack:.1} ms late)",
                t.client_name(*c),
                b.text,
                b.at_ms,
                a.at_ms,
            ));
        }
    }
    if h.balance != t.final_balance {
        return Judgement::Differs(format!(
            "final balance: the model says {}, the account holds {}",
            t.final_balance, h.balance
        ));
    }
    let generation = t.last_fence.map_or(0, |f| f as i64);
    if h.last_fence != generation {
        return Judgement::Differs(format!(
            "the account's generation: the model says {generation}, the account holds {}",
            h.last_fence
        ));
    }
    Judgement::Same
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencing_playground::sim::presets::preset;
    use fencing_playground::sim::run;

    const SCALE: u64 = 20_000;

    fn us(ms: f64) -> u64 {
        (ms * SCALE as f64) as u64
    }

    /// lease-paused-holder as the clients would print it: A granted 33 at 0, stopped 10–60,
    /// its debit sent at 60 with 33 and refused; B granted 34 at 31, its debit at 32.
    fn happened(a_answer: &str) -> Happened {
        let a = vec![
            format!("op lock 0 {} {} granted 33", us(0.0), us(0.05)),
            format!("op send 2 {} {} 33", us(60.0), us(60.0)),
            format!("op store 2 {} {} {a_answer}", us(60.0), us(60.05)),
        ];
        let b = vec![
            format!("op lock 0 {} {} granted 34", us(31.0), us(31.05)),
            format!("op send 1 {} {} 34", us(32.0), us(32.0)),
            format!("op store 1 {} {} UPDATE 1", us(32.0), us(32.05)),
        ];
        Happened {
            lines: vec![a, b],
            signals: vec![(0, Signal::Stop, us(10.0)), (0, Signal::Cont, us(60.0))],
            balance: 90,
            last_fence: 34,
            scale_us: SCALE,
        }
    }

    #[test]
    fn the_paused_holder_refused_matches_and_accepted_differs() {
        let s = preset("lease-paused-holder").expect("preset");
        let t = run(&s);
        assert_eq!(judge(&s, &t, &happened("UPDATE 0")), Judgement::Same);
        match judge(&s, &t, &happened("UPDATE 1")) {
            Judgement::Differs(d) => assert!(d.contains("debit: UPDATE 0"), "{d}"),
            other => panic!("{other:?}"),
        }
    }

    /// Two clients' statements closer than the tolerance are too close to call; the same
    /// difference with the two apart is a mismatch. A debit's answer beside another client's
    /// lease statement is ordered only when the debit reads the live lease.
    #[test]
    fn statements_too_close_to_order_are_too_close_on_time_a_mismatch() {
        let s = preset("lease-paused-holder").expect("preset");
        let t = run(&s);
        let mut h = happened("UPDATE 1");
        h.lines[1][0] = format!("op lock 0 {} {} granted 34", us(0.1), us(0.15));
        assert!(matches!(judge(&s, &t, &h), Judgement::TooClose(_)));
        let h = happened("UPDATE 1");
        assert!(matches!(judge(&s, &t, &h), Judgement::Differs(_)));
        // B's grant at 31 beside A's debit answered at 31.1: no order to tell without the
        // live lease, so the difference stays a mismatch.
        let mut h = happened("UPDATE 1");
        h.lines[0][2] = format!("op store 2 {} {} UPDATE 1", us(30.9), us(31.1));
        assert!(too_close(&t, &h, &ops(&h).expect("ops")).is_none());
    }

    /// A difference after another client's fact came late is a missed schedule; with that
    /// fact on time, the same difference is a mismatch.
    #[test]
    fn a_difference_after_another_client_fell_behind_is_late_on_time_a_mismatch() {
        let s = preset("lease-paused-holder").expect("preset");
        let t = run(&s);
        let mut h = happened("UPDATE 1");
        assert!(matches!(judge(&s, &t, &h), Judgement::Differs(_)));
        // B's debit (the model's 32 ms) answered at 45 ms, before A's wrong answer at 60.
        h.lines[1][1] = format!("op send 1 {} {} 34", us(45.0), us(45.0));
        h.lines[1][2] = format!("op store 1 {} {} UPDATE 1", us(45.0), us(45.05));
        crate::history::assert_late_before_difference(judge(&s, &t, &h), "B");
    }

    /// A debit answered while its process was stopped has no time of its own to check; the
    /// same late answer with the process running is late.
    #[test]
    fn an_answer_read_after_a_stop_is_not_timed_and_otherwise_late() {
        let s = preset("lease-paused-holder").expect("preset");
        let t = run(&s);
        let mut h = happened("UPDATE 0");
        h.lines[1][2] = format!("op store 1 {} {} UPDATE 1", us(32.0), us(34.0));
        assert!(matches!(judge(&s, &t, &h), Judgement::Late(_)));
        h.signals.push((1, Signal::Stop, us(32.5)));
        h.signals.push((1, Signal::Cont, us(33.9)));
        assert!(answered_while_stopped(&h, &ops(&h).expect("ops"), 1, 34.0));
        assert_eq!(judge(&s, &t, &h), Judgement::Same);
    }

    #[test]
    fn the_account_s_generation_is_compared() {
        let s = preset("lease-paused-holder").expect("preset");
        let t = run(&s);
        let mut h = happened("UPDATE 0");
        h.last_fence = 33;
        assert!(matches!(judge(&s, &t, &h), Judgement::Differs(_)));
    }
}
