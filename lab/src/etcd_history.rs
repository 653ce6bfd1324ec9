//! An etcd run's history against the model's trace: per client, the same facts in the same
//! order (each lock grant with its key's create revision, each answer of a lock call whose key
//! is gone, each keepalive told "lease not found", each unlock, each debit sent with its
//! revision and its verdict), then the final balance and last fence. Revisions are compared
//! relative to the cluster's revision before the run (`etcd_run`): the lab's cluster serves
//! every preset, so its absolute numbers are its own.
//!
//! Times are checked too, with etcd's own slack: a fact may come up to the lessor's sweep
//! (and after a member crash, one more election timeout) later than the model's, never
//! earlier than the tolerance.

use crate::etcd_run::{EtcdHappened, LESSOR_SWEEP_US};
use crate::history::{frozen_write, ops, Fact, Judgement, Op};
use crate::independent::Signal;
use fencing_playground::sim::trace::{DebitVerdict, Outcome, Trace};
use fencing_playground::sim::{Event, FenceRule, Scenario};

const TOLERANCE_MS: f64 = 0.4;

/// Whether a debit names its revision: under a fence rule, or in the guarded transaction.
fn carries_revision(s: &Scenario) -> bool {
    s.storage.fence_rule != FenceRule::Off || s.storage.create_guard
}

fn sent_text(s: &Scenario, rev: Option<i64>) -> String {
    match (carries_revision(s), rev) {
        (false, _) => "debit sent".into(),
        (true, Some(r)) => format!("debit sent with revision {r}"),
        (true, None) => "debit sent with no revision".into(),
    }
}

fn granted(rev: i64) -> String {
    format!("lock: granted, revision {rev}")
}

const GONE: &str = "lock: answered, although its key is gone";
const EXPIRED: &str = "lock: session expired";
const LOST: &str = "keepalive: lease not found";
/// The same answer to the session's own keepalive thread, which runs beside the client's work:
/// its facts are compared as a sequence of their own, so that a keepalive and a debit at the
/// same instant may come in either order.
const LOOP_LOST: &str = "keepalive (the session's loop): lease not found";

/// The model's facts per client, in its order.
pub fn model_facts(s: &Scenario, t: &Trace) -> Vec<Vec<Fact>> {
    let mut out = vec![Vec::new(); t.clients.len()];
    let mut crashed = vec![false; t.clients.len()];
    for step in &t.steps {
        let c = step.client;
        if crashed[c] {
            continue;
        }
        let text = match &step.outcome {
            Outcome::Granted { .. } => {
                let rev = t
                    .leases
                    .iter()
                    .rfind(|l| l.holder == c && l.start_ms <= step.at_ms)
                    .map_or(0, |l| l.generation);
                granted(rev as i64)
            }
            Outcome::GrantedExpired { .. } => GONE.into(),
            Outcome::SessionExpired { by_lock: true } => EXPIRED.into(),
            Outcome::SessionExpired { by_lock: false } if step.event.is_none() => LOOP_LOST.into(),
            Outcome::SessionExpired { by_lock: false } => LOST.into(),
            Outcome::Renewed { .. } => "renew: kept alive".into(),
            Outcome::Released { own, .. } => unlock_text(*own),
            Outcome::DebitSent { write } => {
                let w = t.writes.get(*write);
                let rev = if s.storage.create_guard {
                    w.and_then(|w| w.generation)
                } else {
                    w.and_then(|w| w.token)
                };
                sent_text(s, rev.map(|r| r as i64))
            }
            Outcome::Stored { verdict, .. } => match verdict {
                DebitVerdict::Accepted { balance } => format!("debit accepted, balance {balance}"),
                DebitVerdict::Rejected { .. } => "debit rejected".into(),
                DebitVerdict::Duplicate { .. } => "debit duplicate".into(),
            },
            Outcome::Skipped { reason } => {
                let debit = step
                    .event
                    .and_then(|e| s.clients[c].events.get(e))
                    .is_some_and(|e| matches!(e, Event::Debit { .. }));
                if debit {
                    "debit not sent: holds no lock".into()
                } else {
                    format!("skipped: {reason}")
                }
            }
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

fn unlock_text(own: bool) -> String {
    if own {
        "unlock: deleted its key".into()
    } else {
        "unlock: no key to delete".into()
    }
}

/// What an etcd comparison covers, counted from the model's facts.
pub fn compared(s: &Scenario, t: &Trace) -> String {
    let facts: Vec<Fact> = model_facts(s, t).into_iter().flatten().collect();
    let count = |p: &dyn Fn(&str) -> bool| facts.iter().filter(|f| p(&f.text)).count();
    let revisions: Vec<String> = facts
        .iter()
        .filter_map(|f| f.text.strip_prefix("lock: granted, revision "))
        .map(str::to_string)
        .collect();
    let last = if s.storage.create_guard {
        "no last fence (the account is an etcd key)".to_string()
    } else {
        format!(
            "last fence {}",
            t.last_fence
                .map_or_else(|| "none".to_string(), |f| f.to_string())
        )
    };
    format!(
        "lock granted {} (revisions {}), answered with its key gone {}, lease lost {}; debits \
         accepted {}, rejected {}, not sent {}; balance {}, {last}",
        revisions.len(),
        if revisions.is_empty() {
            "none".to_string()
        } else {
            revisions.join(", ")
        },
        count(&|x| x == GONE),
        count(&|x| x == LOST || x == LOOP_LOST),
        count(&|x| x.starts_with("debit accepted")),
        count(&|x| x == "debit rejected"),
        count(&|x| x.starts_with("debit not sent")),
        t.final_balance
    )
}

/// What one printed operation says, in the model's words; `None` for what the model does not
/// show (a lease grant, an unanswered keepalive).
fn lab_text(s: &Scenario, offset: i64, op: &Op) -> Option<String> {
    let r: Vec<&str> = op.result.iter().map(String::as_str).collect();
    let rel = |x: &str| x.parse::<i64>().ok().map(|v| v - offset);
    Some(match (op.kind.as_str(), r.as_slice()) {
        ("lock", ["granted", rev]) => granted(rel(rev)?),
        ("lock", ["gone"]) => GONE.into(),
        ("lock", ["refused", why]) if why.contains("session_expired") => EXPIRED.into(),
        ("lock", ["refused", why]) => format!("lock: refused ({})", why.replace('_', " ")),
        ("keepalive", ["lost"]) => LOOP_LOST.into(),
        ("renew", ["lost"]) => LOST.into(),
        ("renew", ["ok"]) => "renew: kept alive".into(),
        ("renew", ["none"]) => format!(
            "skipped: {} has no session to keep alive",
            s.clients.get(op.client).map_or("?", |c| c.name.as_str())
        ),
        ("unlock", [w]) => unlock_text(*w == "deleted"),
        ("send", [rev]) => sent_text(s, rel(rev)),
        ("store", ["accepted", b]) => format!("debit accepted, balance {b}"),
        ("store", ["rejected"]) => "debit rejected".into(),
        ("store", ["duplicate"]) => "debit duplicate".into(),
        ("skip", _) => "debit not sent: holds no lock".into(),
        _ => return None,
    })
}

/// When a printed operation's fact happened: a lock call's when its answer came (it may
/// have waited in the queue), every other one's when it was sent.
fn fact_us(op: &Op) -> u64 {
    if op.kind == "lock" {
        op.to_us
    } else {
        op.from_us
    }
}

/// The lab's facts per client, in time order.
pub fn lab_facts(s: &Scenario, e: &EtcdHappened, ops: &[Op]) -> Vec<Vec<Fact>> {
    let mut out = vec![Vec::new(); e.h.lines.len()];
    for op in ops {
        if let Some(text) = lab_text(s, e.offset, op) {
            out[op.client].push(Fact {
                at_ms: fact_us(op) as f64 / e.h.scale_us as f64,
                text,
            });
        }
    }
    for f in &mut out {
        f.sort_by(|a, b| a.at_ms.total_cmp(&b.at_ms));
    }
    out
}

/// Two things whose order the real times cannot tell: two clients' writes to the lock service
/// (a lock call puts a key when it is sent, an unlock deletes one), two debits reaching the
/// storage, or a client's operation and a stop or kill of its process.
pub fn too_close(t: &Trace, e: &EtcdHappened, ops: &[Op]) -> Option<String> {
    let h = &e.h;
    let tol = (h.scale_us as f64 * TOLERANCE_MS) as i64;
    let ms = |us: u64| us as f64 / h.scale_us as f64;
    let name = |c: usize| t.client_name(c).to_string();
    let mut writes: Vec<&Op> = ops
        .iter()
        .filter(|o| matches!(o.kind.as_str(), "lock" | "unlock"))
        .collect();
    writes.sort_by_key(|o| o.from_us);
    for w in writes.windows(2) {
        if w[0].client != w[1].client && (w[1].from_us as i64 - w[0].from_us as i64) < tol {
            return Some(format!(
                "{}'s {} and {}'s {} reached etcd {:.2} ms apart",
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
            if near && op.kind != "keepalive" {
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

/// How much later than the model's a fact may come, in simulated ms.
pub fn slack_ms(t: &Trace, scale_us: u64) -> f64 {
    let election = t.etcd.as_ref().map_or(0.0, |e| {
        if e.outages.is_empty() {
            0.0
        } else {
            e.election_timeout_ms as f64
        }
    });
    TOLERANCE_MS + LESSOR_SWEEP_US as f64 / scale_us as f64 + election
}

/// The largest distance between a lab fact and the model's, in real ms.
pub fn worst_offset_ms(s: &Scenario, t: &Trace, e: &EtcdHappened) -> f64 {
    let Ok(ops) = ops(&e.h) else { return 0.0 };
    let real_ms = e.h.scale_us as f64 / 1000.0;
    model_facts(s, t)
        .iter()
        .zip(&lab_facts(s, e, &ops))
        .flat_map(|(m, l)| m.iter().zip(l))
        .map(|(a, b)| (a.at_ms - b.at_ms).abs() * real_ms)
        .fold(0.0, f64::max)
}

/// Compares an etcd run with the model's trace.
/// Each client's facts as three streams compared on their own: what it did (its lock calls,
/// unlocks and debits sent, in its own order), the storage's verdicts on its debits, and what its
/// keepalive loop found. The client writes each debit on a thread of its own, beside its next
/// lock call, so a verdict and an unlock's answer at one instant come in either order (the
/// random batch's case 13 of seed 1: A, woken at 71 ms, sends the debit and the unlock both held
/// back by its pause); each stream keeps its own order, and every fact still carries its time.
pub(crate) fn streams(facts: Vec<Vec<Fact>>) -> Vec<(usize, Vec<Fact>)> {
    let mut out = Vec::new();
    for (c, list) in facts.into_iter().enumerate() {
        let (lp, rest): (Vec<Fact>, Vec<Fact>) =
            list.into_iter().partition(|x| x.text == LOOP_LOST);
        let (verdicts, acts): (Vec<Fact>, Vec<Fact>) =
            rest.into_iter().partition(crate::history::is_verdict);
        out.extend([(c, acts), (c, verdicts), (c, lp)]);
    }
    out
}

pub fn judge(s: &Scenario, t: &Trace, e: &EtcdHappened) -> Judgement {
    let h = &e.h;
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
    if let Some(why) = too_close(t, e, &ops) {
        return Judgement::TooClose(why);
    }
    let model = streams(model_facts(s, t));
    let lab = streams(lab_facts(s, e, &ops));
    let slack = slack_ms(t, h.scale_us);
    for ((c, m), (_, l)) in model.iter().zip(&lab) {
        let c = *c;
        for k in 0..m.len().max(l.len()) {
            let (a, b) = (m.get(k), l.get(k));
            if a.map(|f| &f.text) != b.map(|f| &f.text) {
                if let Some(why) = crate::history::behind_at_difference(m, l, k, slack) {
                    return Judgement::Late(format!("{}'s {why}", t.client_name(c)));
                }
                // Or another client had before it (history::behind_before).
                if let Some((other, why)) = crate::history::behind_before(
                    &model,
                    &lab,
                    crate::history::instant_of(a, b),
                    slack,
                ) {
                    return Judgement::Late(format!("{}'s {why}", t.client_name(other)));
                }
                let show = |f: Option<&Fact>| {
                    f.map_or("(nothing)".to_string(), |f| {
                        format!("{} at {:.1} ms", f.text, f.at_ms)
                    })
                };
                return Judgement::Differs(format!(
                    "{}: the model says `{}`, etcd and the clients did `{}`",
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
            if d < -TOLERANCE_MS || d > slack {
                return Judgement::Late(format!(
                    "{}'s `{}` happened at {:.2} ms, the model's at {} ms (allowed: \
                     {TOLERANCE_MS} ms early to {slack:.1} ms late)",
                    t.client_name(c),
                    b.text,
                    b.at_ms,
                    a.at_ms
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
    // The guarded debits keep the account in etcd, which records no last fence.
    if !s.storage.create_guard {
        let lab = (h.last_fence >= 0).then(|| h.last_fence - e.offset);
        let model = t.last_fence.map(|f| f as i64);
        if lab != model {
            let show = |f: Option<i64>| f.map_or("none".to_string(), |f| f.to_string());
            return Judgement::Differs(format!(
                "last fence: the model says {}, the storage holds {} (relative to the run's \
                 first revision)",
                show(model),
                show(lab)
            ));
        }
    }
    Judgement::Same
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::independent::Happened;
    use fencing_playground::sim::presets::preset;
    use fencing_playground::sim::run;

    /// etcd-pause-fenced as the clients would print it, the cluster's revisions 100 above the
    /// model's: A granted 33 at 0, stopped 21–61; B's lock call from 40 answered at 51 with 34,
    /// B's debit accepted; A's keepalive loop told at 61 that the lease is gone, and A's debit
    /// with 33 rejected at 61.
    fn happened(b_rev: i64) -> EtcdHappened {
        let us = |ms: f64| (ms * 66_666.0) as u64;
        let a = vec![
            format!("op grant 0 {} {} 7587869", us(0.0), us(0.01)),
            format!("op lock 0 {} {} granted 133", us(0.01), us(0.02)),
            format!("op keepalive - {} {} lost", us(61.0), us(61.01)),
            format!("op send 2 {} {} 133", us(61.0), us(61.0)),
            format!("op store 2 {} {} rejected", us(61.01), us(61.05)),
        ];
        let b = vec![
            format!("op grant 0 {} {} 7587870", us(40.0), us(40.01)),
            format!("op lock 0 {} {} granted {b_rev}", us(40.01), us(51.0)),
            format!("op send 1 {} {} {b_rev}", us(52.0), us(52.0)),
            format!("op store 1 {} {} accepted 90", us(52.01), us(52.05)),
        ];
        EtcdHappened {
            h: Happened {
                lines: vec![a, b],
                signals: vec![(0, Signal::Stop, us(21.0)), (0, Signal::Cont, us(61.0))],
                balance: 90,
                last_fence: b_rev,
                scale_us: 66_666,
            },
            offset: 100,
            member_kills: Vec::new(),
        }
    }

    #[test]
    fn revisions_are_compared_relative_to_the_run_and_a_wrong_one_differs() {
        let s = preset("etcd-pause-fenced").expect("preset");
        let t = run(&s);
        assert_eq!(judge(&s, &t, &happened(134)), Judgement::Same);
        match judge(&s, &t, &happened(135)) {
            Judgement::Differs(d) => assert!(d.contains("revision 35"), "{d}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_grant_later_than_the_lessor_sweep_allows_is_late() {
        let s = preset("etcd-pause-fenced").expect("preset");
        let t = run(&s);
        let mut e = happened(134);
        // B's lock answered at 59 ms, not 50 (the slack is 0.4 ms plus the lessor's 500 ms
        // sweep at this scale, 7.9 ms); B's debit follows it, as a real client's would.
        let us = |ms: f64| (ms * 66_666.0) as u64;
        e.h.lines[1][1] = format!("op lock 0 {} {} granted 134", us(40.01), us(59.0));
        e.h.lines[1][2] = format!("op send 1 {} {} 134", us(59.1), us(59.1));
        e.h.lines[1][3] = format!("op store 1 {} {} accepted 90", us(59.11), us(59.15));
        let j = judge(&s, &t, &e);
        assert!(matches!(j, Judgement::Late(_)), "{j:?}");
    }

    /// The long random run's case 55 of seed 13 on a loaded machine: B's lock answer came 22
    /// ms after the model's and said something else. A difference the run reaches after
    /// falling behind by more than the slack is a missed schedule; on time it is a mismatch.
    #[test]
    fn a_different_answer_after_falling_behind_is_late_on_time_a_mismatch() {
        let s = preset("etcd-pause-fenced").expect("preset");
        let t = run(&s);
        let us = |ms: f64| (ms * 66_666.0) as u64;
        for (answered_ms, late) in [(51.0, false), (59.0, true)] {
            let mut e = happened(134);
            let at = answered_ms;
            e.h.lines[1][1] = format!("op lock 0 {} {} granted 135", us(40.01), us(at));
            e.h.lines[1][2] = format!("op send 1 {} {} 135", us(at + 1.0), us(at + 1.0));
            e.h.lines[1][3] = format!("op store 1 {} {} accepted 90", us(at + 1.01), us(at + 1.05));
            match judge(&s, &t, &e) {
                Judgement::Late(w) if late => assert!(w.contains("missed its schedule"), "{w}"),
                Judgement::Differs(d) if !late => assert!(d.contains("revision 35"), "{d}"),
                other => panic!("answered at {answered_ms} ms: {other:?}"),
            }
        }
    }

    /// A's verdict different at the model's 61 ms: a mismatch with B on time, a missed
    /// schedule when B's debit (the model's 52 ms) was done more than the slack late before it.
    #[test]
    fn a_difference_after_another_client_fell_behind_is_late_on_time_a_mismatch() {
        let s = preset("etcd-pause-fenced").expect("preset");
        let t = run(&s);
        let us = |ms: f64| (ms * 66_666.0) as u64;
        let mut e = happened(134);
        e.h.lines[0][4] = format!("op store 2 {} {} accepted 80", us(61.01), us(61.05));
        assert!(matches!(judge(&s, &t, &e), Judgement::Differs(_)));
        e.h.lines[1][2] = format!("op send 1 {} {} 134", us(60.5), us(60.5));
        e.h.lines[1][3] = format!("op store 1 {} {} accepted 90", us(60.51), us(60.55));
        crate::history::assert_late_before_difference(judge(&s, &t, &e), "B");
    }

    /// A verdict and an unlock's answer at one instant, in either order, are the same
    /// history; a different verdict at that instant is still a difference.
    #[test]
    fn a_verdict_and_an_unlock_at_one_instant_compare_in_either_order() {
        let fact = |at_ms: f64, text: &str| Fact {
            at_ms,
            text: text.into(),
        };
        let granted = fact(0.0, "lock: granted, revision 33");
        let sent = fact(71.0, "debit sent");
        let unlock = fact(71.0, "unlock: no key to delete");
        let accepted = fact(71.0, "debit accepted, balance 80");
        let model = streams(vec![vec![
            granted.clone(),
            sent.clone(),
            unlock.clone(),
            accepted.clone(),
        ]]);
        let lab = streams(vec![vec![
            granted.clone(),
            sent.clone(),
            fact(71.1, "debit accepted, balance 80"),
            fact(71.2, "unlock: no key to delete"),
        ]]);
        let texts = |s: &[(usize, Vec<Fact>)]| -> Vec<Vec<String>> {
            s.iter()
                .map(|(_, f)| f.iter().map(|x| x.text.clone()).collect())
                .collect()
        };
        assert_eq!(texts(&model), texts(&lab));
        let rejected = streams(vec![vec![
            granted,
            sent,
            fact(71.1, "debit rejected"),
            unlock,
        ]]);
        assert_ne!(texts(&model), texts(&rejected));
    }

    #[test]
    fn an_error_line_is_a_broken_client() {
        let s = preset("etcd-pause-fenced").expect("preset");
        let t = run(&s);
        let mut e = happened(134);
        e.h.lines[0].push("error lock/lock: connection refused".into());
        assert!(matches!(judge(&s, &t, &e), Judgement::Broken(_)));
    }
}
