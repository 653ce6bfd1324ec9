//! A Redlock run's history against the model's: what each independent client printed (its
//! rounds with every instance's answer, verdict and validity, its unlocks and releases, its
//! debits and their verdicts) beside `redlock_model`'s facts, at real times within the
//! tolerance, then the final balance and last fence. Before anything is compared the run must
//! have kept its schedule: every packet the proxies carried reached its instance on time, and
//! no two clients' packets reached one instance closer than the tolerance (their order would
//! be chance); a run that missed it is rerun at a larger scale.

use crate::history::{Judgement, Op};
use crate::independent::{Happened, Signal};
use crate::redlock_model::{fact, model_facts, model_grant_of, round_text, token_text, Fact};
use crate::redlock_proxy::Delivery;
use crate::redlock_run::Run;
use fencing_playground::sim::commands::Command;
use fencing_playground::sim::trace::Trace;
use fencing_playground::sim::{FenceRule, Scenario};

/// How much later than the model's instant a differing fact may come before the difference
/// counts as a missed schedule (as in `history`).
const LATE_AT_A_DIFFERENCE_MS: f64 = 1.4;
const TOLERANCE_MS: f64 = 0.4;

/// The clients' operation lines (the unlock replies they print for the record aside).
pub fn ops(h: &Happened) -> Result<Vec<Op>, String> {
    let only_ops = Happened {
        lines: h
            .lines
            .iter()
            .map(|l| {
                l.iter()
                    .filter(|x| !x.starts_with("reply "))
                    .cloned()
                    .collect()
            })
            .collect(),
        signals: h.signals.clone(),
        balance: h.balance,
        last_fence: h.last_fence,
        scale_us: h.scale_us,
    };
    crate::history::ops(&only_ops)
}

/// A round's answers with each "none" told apart by what the proxy did with the request: the
/// network dropped it (a partition or the instance down: "cut") or no reply was in by the time
/// the client looked ("timeout"). The client itself cannot tell them apart.
fn answer_words(op: &Op, answers: &str, deliveries: &[Delivery]) -> String {
    answers
        .split(',')
        .enumerate()
        .map(|(i, w)| match w {
            "none" => {
                let cut = deliveries.iter().any(|d| {
                    d.client == op.client
                        && d.instance == i
                        && d.cut
                        && !d.reply
                        && (op.from_us..op.to_us).contains(&d.sent_us)
                });
                if cut {
                    "cut"
                } else {
                    "timeout"
                }
            }
            other => other,
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn lab_fact(s: &Scenario, op: &Op, run: &Run) -> Option<Fact> {
    let ms = |us: u64| us as f64 / run.h.scale_us as f64;
    let r: Vec<&str> = op.result.iter().map(String::as_str).collect();
    let text = match (op.kind.as_str(), r.as_slice()) {
        ("round", [what, attempt, answers, _votes, validity, result]) => {
            let answers = answer_words(op, answers, &run.deliveries);
            return Some(Fact {
                at_ms: ms(op.to_us),
                text: round_text(what, attempt, &answers, result),
                validity: validity.parse().ok(),
            });
        }
        ("unlock", _) => "unlock every instance".into(),
        ("release", _) => "release".into(),
        ("nothing-to-renew", _) => "renew: holds no lock".into(),
        ("send", [t]) => format!(
            "debit sent with {}",
            token_text(s.storage.fence_rule, t.parse().ok())
        ),
        ("store", ["accepted", b]) => format!("debit accepted, balance {b}"),
        ("store", ["rejected"]) => "debit rejected".into(),
        ("store", ["duplicate"]) => "debit duplicate".into(),
        ("skip", _) => "debit not sent: holds no lock".into(),
        _ => return None,
    };
    Some(fact(ms(op.from_us), text))
}

/// The lab's facts per client, in time order.
pub fn lab_facts(s: &Scenario, run: &Run, ops: &[Op]) -> Vec<Vec<Fact>> {
    let mut out = vec![Vec::new(); run.h.lines.len()];
    for op in ops {
        if let Some(f) = lab_fact(s, op, run) {
            out[op.client].push(f);
        }
    }
    for f in &mut out {
        f.sort_by(|a, b| a.at_ms.total_cmp(&b.at_ms));
    }
    out
}

/// Each client's facts as two streams: what it did, and the storage's verdicts on its debits
/// (a debit's transaction runs beside the client's next round).
fn streams(facts: Vec<Vec<Fact>>) -> Vec<(usize, Vec<Fact>)> {
    let verdict = |f: &Fact| {
        ["debit accepted", "debit rejected", "debit duplicate"]
            .iter()
            .any(|p| f.text.starts_with(p))
    };
    let mut out = Vec::new();
    for (c, list) in facts.into_iter().enumerate() {
        let (verdicts, acts): (Vec<Fact>, Vec<Fact>) = list.into_iter().partition(verdict);
        out.push((c, acts));
        out.push((c, verdicts));
    }
    out
}

/// Why the run's order cannot be told or its schedule was missed, if so.
fn schedule_kept(t: &Trace, run: &Run, ops: &[Op]) -> Option<Judgement> {
    let h = &run.h;
    let tol = (h.scale_us as f64 * TOLERANCE_MS) as u64;
    let ms = |us: u64| us as f64 / h.scale_us as f64;
    if let Some(w) = &run.late_restart {
        return Some(Judgement::Late(w.clone()));
    }
    for d in &run.deliveries {
        let what = if d.reply {
            format!(
                "{}'s reply to {}",
                t.instance_name(d.instance),
                t.client_name(d.client)
            )
        } else {
            format!(
                "{}'s request to {}",
                t.client_name(d.client),
                t.instance_name(d.instance)
            )
        };
        match d.at_us {
            Some(at) if at > d.due_us + tol => {
                return Some(Judgement::Late(format!(
                    "{what} got there at {:.2} ms, due at {:.2} ms",
                    ms(at),
                    ms(d.due_us)
                )))
            }
            None if !d.cut && !d.reply => {
                return Some(Judgement::Late(format!(
                    "{}'s request at {:.2} ms found {} not answering",
                    t.client_name(d.client),
                    ms(d.sent_us),
                    t.instance_name(d.instance)
                )))
            }
            _ => {}
        }
    }
    let mut got: Vec<&crate::redlock_proxy::Delivery> = run
        .deliveries
        .iter()
        .filter(|d| d.at_us.is_some() && !d.reply)
        .collect();
    got.sort_by_key(|d| d.at_us);
    for (n, a) in got.iter().enumerate() {
        let close = got[n + 1..].iter().find(|b| {
            b.instance == a.instance
                && b.client != a.client
                && b.at_us.unwrap_or(0) < a.at_us.unwrap_or(0) + tol
        });
        if let Some(b) = close {
            return Some(Judgement::TooClose(format!(
                "{}'s and {}'s requests reached {} {:.2} ms apart",
                t.client_name(a.client),
                t.client_name(b.client),
                t.instance_name(a.instance),
                ms(b.at_us.unwrap_or(0).saturating_sub(a.at_us.unwrap_or(0)))
            )));
        }
    }
    let mut stores: Vec<&Op> = ops.iter().filter(|o| o.kind == "store").collect();
    stores.sort_by_key(|o| o.from_us);
    for w in stores.windows(2) {
        if w[1].from_us < w[0].to_us + tol {
            return Some(Judgement::TooClose(format!(
                "{}'s and {}'s debits reached the storage {:.2} ms apart",
                t.client_name(w[0].client),
                t.client_name(w[1].client),
                ms(w[1].from_us) - ms(w[0].to_us)
            )));
        }
    }
    // What fell due in a pause runs when the process continues, as in the model, so only a
    // stop or a kill can land on either side of what the client does. A round is long (a
    // pause may come while it waits, as in the model): its start and its verdict count.
    let near = |a: u64, b: u64| a < b + tol && b < a + tol;
    for &(c, sig, at) in h.signals.iter().filter(|x| x.1 != Signal::Cont) {
        for op in ops.iter().filter(|o| o.client == c) {
            let hit = if op.kind == "round" {
                near(op.from_us, at) || near(op.to_us, at)
            } else {
                op.from_us < at + tol && at < op.to_us + tol
            };
            if hit {
                return Some(Judgement::TooClose(format!(
                    "{}'s {} at {:.2} ms came within the tolerance of its {sig:?} signal",
                    t.client_name(c),
                    op.kind,
                    ms(op.from_us)
                )));
            }
        }
    }
    None
}

/// A stop or a kill that lands while a client's debit transaction is still running. Where the
/// model's debit is also still on its way then (a delayed write), it is a limit of real
/// processes: the model's message arrives on its own, a transaction's later statements wait for
/// the stopped process or die with the killed one. Where the model's debit had arrived before
/// that instant, the transaction only ran slow on a busy machine: the run is late.
fn write_cut_short(t: &Trace, h: &Happened, ops: &[Op]) -> Option<Judgement> {
    let tol = h.scale_us as f64 * TOLERANCE_MS;
    for &(c, sig, at) in h.signals.iter().filter(|x| x.1 != Signal::Cont) {
        for send in ops
            .iter()
            .filter(|o| o.client == c && o.kind == "send" && o.from_us <= at)
        {
            let done = ops.iter().any(|o| {
                o.client == c && o.kind == "store" && o.event == send.event && o.to_us < at
            });
            if done {
                continue;
            }
            let arrived = t
                .writes
                .iter()
                .find(|w| {
                    w.client == c && w.event.map(|e| e.to_string()) == Some(send.event.clone())
                })
                .map(|w| w.arrived_ms as f64 * h.scale_us as f64);
            let name = t.client_name(c);
            if arrived.is_some_and(|a| a + tol < at as f64) {
                return Some(Judgement::Late(format!(
                    "{name}'s debit transaction was still running at its {sig:?} signal, where \
                     the model's debit had arrived before: the machine was slow"
                )));
            }
            return Some(Judgement::Limit(if sig == Signal::Kill {
                format!(
                    "{name} is killed while its debit is in the network: the model delivers \
                     it, a real process's connection dies with it"
                )
            } else {
                format!(
                    "{name} is paused while its debit is on its way: the model delivers the \
                     debit as one message, a real transaction's later statements wait for the \
                     stopped process"
                )
            }));
        }
    }
    None
}

/// Compares what happened with the model's trace and commands.
pub fn judge(s: &Scenario, t: &Trace, plan: &[Command], run: &Run) -> Judgement {
    let h = &run.h;
    let ops = match ops(h) {
        Ok(o) => o,
        Err(e) => return Judgement::Broken(e),
    };
    if let Some(j) = write_cut_short(t, h, &ops) {
        return j;
    }
    if let Some(j) = schedule_kept(t, run, &ops) {
        return j;
    }
    let model = streams(model_facts(s, t, plan));
    let lab = streams(lab_facts(s, run, &ops));
    let signals = signal_times(s, h);
    if let Some(j) = compare(t, &model, &lab, &signals) {
        return j;
    }
    final_state(s, t, h, &ops)
}

/// Each signal the conductor sent: (the model's instant, the real one, in simulated ms, what).
fn signal_times(s: &Scenario, h: &Happened) -> Vec<(f64, f64, String)> {
    crate::history::sent_signals(s, h)
        .into_iter()
        .map(|(what, due_ms, sent)| (due_ms as f64, sent as f64 / h.scale_us as f64, what))
        .collect()
}

/// The model's facts against the lab's, stream by stream (`streams`), then their instants and
/// validities; `None` when they agree. `signals`: what the conductor did to the processes, as
/// `signal_times` gives it.
///
/// A difference of text is a mismatch only where the run had kept its schedule up to it. A lab
/// fact well after the model's instant for it is a missed schedule; so is a difference (a fact
/// missing, one too many, another word) that comes after any fact of any client, or any signal,
/// that was already off the model's instant by more than the tolerance: what the clients did
/// from there on answers another schedule than the model's (a watchdog turn pushed past the
/// horizon, a retry drawn from a late instant, a round that met another client's late key).
/// Such a run could not have matched anyway (the instants are compared below with the same
/// tolerance); at a larger scale, where it keeps its schedule, the same difference is a
/// mismatch.
fn compare(
    t: &Trace,
    model: &[(usize, Vec<Fact>)],
    lab: &[(usize, Vec<Fact>)],
    signals: &[(f64, f64, String)],
) -> Option<Judgement> {
    let off = |a: &Fact, b: &Fact| {
        let validity_off = match (a.validity, b.validity) {
            (Some(x), Some(y)) => (x - y).abs() > TOLERANCE_MS,
            _ => false,
        };
        (a.at_ms - b.at_ms).abs() > TOLERANCE_MS || validity_off
    };
    // The first fact or signal off its instant before `until` (simulated ms), if any.
    let off_before = |until: f64| -> Option<String> {
        for ((c, m), (_, l)) in model.iter().zip(lab) {
            for (a, b) in m.iter().zip(l).take_while(|(a, b)| a.text == b.text) {
                if a.at_ms.min(b.at_ms) <= until && off(a, b) {
                    return Some(format!(
                        "{}'s `{}` at {:.2} ms (validity {:?}), the model's at {} ms (validity \
                         {:?})",
                        t.client_name(*c),
                        b.text,
                        b.at_ms,
                        b.validity,
                        a.at_ms,
                        a.validity
                    ));
                }
            }
        }
        signals
            .iter()
            .find(|(due, sent, _)| *due <= until && sent - due > TOLERANCE_MS)
            .map(|(due, sent, what)| format!("{what} at {sent:.2} ms, due at {due} ms"))
    };
    for ((c, m), (_, l)) in model.iter().zip(lab) {
        let name = t.client_name(*c);
        for k in 0..m.len().max(l.len()) {
            let (a, b) = (m.get(k), l.get(k));
            if a.map(|f| &f.text) == b.map(|f| &f.text) {
                continue;
            }
            // The model's fact is there, later in the lab's stream and past the tolerance: it
            // came so late that another fact went ahead of it (a round's answer 17 ms late on a
            // loaded machine, the debit due before it found no lock yet).
            let overtaken = a.and_then(|a| {
                l.iter()
                    .skip(k)
                    .find(|f| f.text == a.text && f.at_ms - a.at_ms > TOLERANCE_MS)
                    .map(|f| (a, f))
            });
            if let Some((a, f)) = overtaken {
                return Some(Judgement::Late(format!(
                    "{name}'s `{}` happened at {:.2} ms, the model's at {} ms, after `{}`: the \
                     run missed its schedule",
                    f.text,
                    f.at_ms,
                    a.at_ms,
                    b.map_or("(nothing)", |b| b.text.as_str())
                )));
            }
            if let (Some(a), Some(b)) = (a, b) {
                if b.at_ms - a.at_ms > LATE_AT_A_DIFFERENCE_MS {
                    return Some(Judgement::Late(format!(
                        "{name}'s `{}` happened at {:.2} ms, where the model has `{}` at {} ms: \
                         the run missed its schedule",
                        b.text, b.at_ms, a.text, a.at_ms
                    )));
                }
            }
            let show = |f: Option<&Fact>| {
                f.map_or("(nothing)".to_string(), |f| {
                    format!("{} at {:.1} ms", f.text, f.at_ms)
                })
            };
            let at = match (a, b) {
                (Some(a), Some(b)) => a.at_ms.min(b.at_ms),
                (Some(f), None) | (None, Some(f)) => f.at_ms,
                (None, None) => f64::INFINITY,
            };
            if let Some(why) = off_before(at) {
                return Some(Judgement::Late(format!(
                    "{name}: the model says `{}`, the servers and clients did `{}`, after {why} \
                     (tolerance {TOLERANCE_MS} ms): the run had missed its schedule",
                    show(a),
                    show(b)
                )));
            }
            return Some(Judgement::Differs(format!(
                "{name}: the model says `{}`, the servers and clients did `{}`",
                show(a),
                show(b)
            )));
        }
    }
    for ((c, m), (_, l)) in model.iter().zip(lab) {
        for (a, b) in m.iter().zip(l) {
            if off(a, b) {
                return Some(Judgement::Late(format!(
                    "{}'s `{}` happened at {:.2} ms (validity {:?}), the model's at {} ms \
                     (validity {:?}; tolerance {TOLERANCE_MS} ms)",
                    t.client_name(*c),
                    b.text,
                    b.at_ms,
                    b.validity,
                    a.at_ms,
                    a.validity
                )));
            }
        }
    }
    None
}

fn final_state(s: &Scenario, t: &Trace, h: &Happened, ops: &[Op]) -> Judgement {
    if h.balance != t.final_balance {
        return Judgement::Differs(format!(
            "final balance: the model says {}, the storage holds {}",
            t.final_balance, h.balance
        ));
    }
    let lab_last = u64::try_from(h.last_fence).ok();
    let (model, lab) = if s.storage.fence_rule == FenceRule::CasValue {
        (
            model_grant_of(t, t.last_fence),
            lab_grant_of(t, ops, lab_last),
        )
    } else {
        let show = |f: Option<u64>| f.map_or("none".to_string(), |f| f.to_string());
        (show(t.last_fence), show(lab_last))
    };
    if model != lab {
        return Judgement::Differs(format!(
            "last fence: the model says {model}, the storage holds {lab}"
        ));
    }
    Judgement::Same
}

/// "B's grant 1": whose acquisition (counted from 1) held the value the storage kept.
fn lab_grant_of(t: &Trace, ops: &[Op], value: Option<u64>) -> String {
    let Some(v) = value else { return "none".into() };
    for c in 0..t.clients.len() {
        let mut held: Vec<&Op> = ops
            .iter()
            .filter(|o| o.client == c && o.kind == "held")
            .collect();
        held.sort_by_key(|o| o.from_us);
        if let Some(n) = held
            .iter()
            .position(|o| o.result.get(1).and_then(|x| x.parse().ok()) == Some(v))
        {
            return format!("{}'s grant {}", t.client_name(c), n + 1);
        }
    }
    format!("value {v}")
}

/// The largest distance, in real ms, between a fact of the lab and the model's same fact.
pub fn worst_offset_ms(s: &Scenario, t: &Trace, plan: &[Command], run: &Run) -> f64 {
    let Ok(ops) = ops(&run.h) else { return 0.0 };
    let model = model_facts(s, t, plan);
    let lab = lab_facts(s, run, &ops);
    let real_ms = run.h.scale_us as f64 / 1000.0;
    model
        .iter()
        .zip(&lab)
        .flat_map(|(m, l)| m.iter().zip(l))
        .map(|(a, b)| (a.at_ms - b.at_ms).abs() * real_ms)
        .fold(0.0, f64::max)
}

/// What the comparison covers, counted from the model's facts.
pub fn compared(s: &Scenario, t: &Trace, plan: &[Command]) -> String {
    let facts = model_facts(s, t, plan);
    let all: Vec<&Fact> = facts.iter().flatten().collect();
    let count = |p: &str| all.iter().filter(|f| f.text.contains(p)).count();
    let rounds: Vec<&&Fact> = all.iter().filter(|f| f.validity.is_some()).collect();
    let answers = |w: &str| {
        rounds
            .iter()
            .map(|f| f.text.matches(w).count())
            .sum::<usize>()
    };
    let last = t
        .last_fence
        .map_or_else(|| "none".to_string(), |f| f.to_string());
    format!(
        "rounds {} ({} got the lock); answers granted {}, refused {}, cut off {}, timed out \
         {}; unlocks {}; debits accepted {}, rejected {}, duplicate {}; balance {}, last fence {last}",
        rounds.len(),
        rounds.iter().filter(|f| f.text.ends_with("→ ok")).count(),
        answers("granted"),
        answers("refused"),
        answers("cut"),
        answers("timeout"),
        count("unlock every instance") + count("release"),
        count("debit accepted"),
        count("debit rejected"),
        count("debit duplicate"),
        t.final_balance
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencing_playground::sim::presets::preset;
    use fencing_playground::sim::run;

    const A_ROUND: &str = "acquire 1: granted,granted,granted,cut,cut → ok";
    const B_ROUND: &str = "acquire 1: refused,refused,granted,granted,granted → ok";

    /// redlock-restart's two clients, as the model has them (A's round at 0, its debit sent at
    /// 40 and accepted; B's round at 30, its debit at 45) and as a lab run told them, with
    /// `lab` moving fact `(client, index in its facts)` by some ms or dropping it (`None`).
    fn facts(lab: &[((usize, usize), Option<f64>)]) -> (Vec<Vec<Fact>>, Vec<Vec<Fact>>) {
        let round = |at: f64, text: &str, validity: f64| Fact {
            at_ms: at,
            text: text.into(),
            validity: Some(validity),
        };
        let model = vec![
            vec![
                round(0.0, A_ROUND, 56.4),
                fact(40.0, "debit sent with fence 33".into()),
                fact(40.0, "debit accepted, balance 90".into()),
            ],
            vec![
                round(30.0, B_ROUND, 56.4),
                fact(45.0, "debit sent with fence 34".into()),
                fact(45.0, "debit accepted, balance 80".into()),
            ],
        ];
        let mut out = model.clone();
        for (c, list) in out.iter_mut().enumerate() {
            let mut k = 0;
            list.retain_mut(|f| {
                let edit = lab.iter().find(|e| e.0 == (c, k));
                k += 1;
                match edit {
                    Some((_, None)) => false,
                    Some((_, Some(d))) => {
                        f.at_ms += d;
                        if let Some(v) = f.validity.as_mut() {
                            *v -= d.min(0.3);
                        }
                        true
                    }
                    None => true,
                }
            });
        }
        (model, out)
    }

    fn word(j: Option<Judgement>) -> &'static str {
        match j {
            None => "same",
            Some(Judgement::Late(_)) => "late",
            Some(Judgement::Differs(_)) => "mismatch",
            Some(_) => "other",
        }
    }

    #[test]
    fn a_difference_after_the_run_left_its_schedule_is_late_and_one_on_schedule_a_mismatch() {
        let s = preset("redlock-restart").expect("preset");
        let t = run(&s);
        let on_time = vec![(0.0, 0.0, "A's Stop signal".to_string())];
        let stop_late = vec![(20.0, 20.9, "A's Stop signal".to_string())];
        let stop_after = vec![(42.0, 42.9, "A's Stop signal".to_string())];
        #[allow(clippy::type_complexity)]
        let table: Vec<(&str, Vec<((usize, usize), Option<f64>)>, &Vec<_>, &str)> = vec![
            ("on time, the same facts", vec![], &on_time, "same"),
            (
                "a fact 0.8 ms off, the same texts",
                vec![((1, 0), Some(0.8))],
                &on_time,
                "late",
            ),
            (
                "A's debit missing, all on time",
                vec![((0, 1), None)],
                &on_time,
                "mismatch",
            ),
            (
                "A's verdict missing, all on time",
                vec![((0, 2), None)],
                &on_time,
                "mismatch",
            ),
            (
                "A's debit missing, its round 0.3 ms off (within the tolerance)",
                vec![((0, 0), Some(0.3)), ((0, 1), None)],
                &on_time,
                "mismatch",
            ),
            (
                "A's debit missing after B's round 0.8 ms late",
                vec![((1, 0), Some(0.8)), ((0, 1), None)],
                &on_time,
                "late",
            ),
            (
                "A's debit missing after A's own round 0.8 ms late",
                vec![((0, 0), Some(0.8)), ((0, 1), None)],
                &on_time,
                "late",
            ),
            (
                "A's debit missing, B's debit late but after it",
                vec![((1, 1), Some(0.8)), ((0, 1), None)],
                &on_time,
                "mismatch",
            ),
            (
                "A's debit missing after a signal sent 0.9 ms late",
                vec![((0, 1), None)],
                &stop_late,
                "late",
            ),
            (
                "A's debit missing, a signal late after it",
                vec![((0, 1), None)],
                &stop_after,
                "mismatch",
            ),
            (
                "A's verdict missing after its debit 0.6 ms late",
                vec![((0, 1), Some(0.6)), ((0, 2), None)],
                &on_time,
                "late",
            ),
        ];
        for (what, edits, signals, want) in table {
            let (model, lab) = facts(&edits);
            let got = compare(&t, &streams(model), &streams(lab), signals);
            let shown = format!("{got:?}");
            assert_eq!(word(got), want, "{what}: {shown}");
        }
    }

    #[test]
    fn a_fact_overtaken_by_the_next_one_because_it_came_late_is_late() {
        let s = preset("redlock-restart").expect("preset");
        let t = run(&s);
        let on_time = vec![(0.0, 0.0, "A's Stop signal".to_string())];
        let round = |at: f64| Fact {
            at_ms: at,
            text: A_ROUND.into(),
            validity: Some(48.0),
        };
        // The model: A's round answers at 10 ms, its debit goes out at 11 ms.
        let model = vec![vec![
            round(10.0),
            fact(11.0, "debit sent with fence 33".into()),
        ]];
        // A real run: the round answers at 27 ms, so the debit due at 11 found no lock.
        let lab = |round_at: f64, debit_at: f64| {
            vec![vec![
                fact(debit_at, "debit not sent: holds no lock".into()),
                round(round_at),
            ]]
        };
        let judge = |lab: Vec<Vec<Fact>>| {
            let got = compare(&t, &streams(model.clone()), &streams(lab), &on_time);
            (format!("{got:?}"), word(got))
        };
        let (shown, got) = judge(lab(27.0, 11.0));
        assert_eq!(got, "late", "{shown}");
        // The same order with the round on time (within the tolerance) is a disagreement.
        let (shown, got) = judge(lab(10.2, 10.1));
        assert_eq!(got, "mismatch", "{shown}");
    }
}
