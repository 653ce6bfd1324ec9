//! Histories, not lines: what the independent clients did (each request and reply with its
//! real times, each grant and fence, each debit's verdict, the final balance and last fence)
//! against what the model's trace says happened. Before anything is compared, the order of
//! what happened must be known: two clients' requests to one server, a request and a lease
//! running out, or a client's request and a signal to its process, that come closer than the
//! timing tolerance could have happened either way, and the run is too close to call.

use crate::independent::{Happened, Signal};
use fencing_playground::sim::trace::{DebitVerdict, Outcome, Trace};
use fencing_playground::sim::{Event, FenceRule, Scenario};

/// One thing a client did that a server decided, in words both sides share.
#[derive(Clone, Debug, PartialEq)]
pub struct Fact {
    /// Simulated milliseconds (the lab's: real time over the scale).
    pub at_ms: f64,
    pub text: String,
}

/// How much later (simulated ms) than the model's instant for it a differing fact may come
/// before the difference counts as a missed schedule rather than a disagreement: the timing check's
/// tolerance (0.4 ms) and the millisecond a late wake-up may add.
const LATE_AT_A_DIFFERENCE_MS: f64 = 1.4;

/// How a run compares with the model.
#[derive(Debug, PartialEq)]
pub enum Judgement {
    Same,
    Differs(String),
    /// The order of two events cannot be told from the real times: rerun larger.
    TooClose(String),
    /// A fact came later than the tolerance allows: rerun larger.
    Late(String),
    /// Something the model does that real processes cannot (a write outliving its sender).
    Limit(String),
    /// A client broke (an error, not a verdict).
    Broken(String),
}

fn fence_text(f: Option<u64>) -> String {
    f.map_or(String::new(), |f| format!(", fence {f}"))
}

fn token_text(rule: FenceRule, token: Option<u64>) -> String {
    match (rule, token) {
        (_, None) => "no token".into(),
        (FenceRule::CasValue, Some(_)) => "its lock value".into(),
        (_, Some(t)) => format!("token {t}"),
    }
}

/// The model's facts, per client, in the order it ran them.
pub fn model_facts(s: &Scenario, t: &Trace) -> Vec<Vec<Fact>> {
    let mut out = vec![Vec::new(); t.clients.len()];
    let mut crashed = vec![false; t.clients.len()];
    for step in &t.steps {
        let c = step.client;
        if crashed[c] {
            continue;
        }
        let text = match &step.outcome {
            Outcome::Granted { fence, .. } => format!("acquire: granted{}", fence_text(*fence)),
            Outcome::Denied { .. } => "acquire: denied".into(),
            Outcome::Renewed { by_watchdog, .. } => renew_text(*by_watchdog, true),
            Outcome::RenewDenied { by_watchdog, .. } => renew_text(*by_watchdog, false),
            Outcome::Released { deleted, .. } => release_text(deleted.is_some()),
            Outcome::CheckPassed => "isHeld(): true".into(),
            Outcome::CheckFailed => "isHeld(): false".into(),
            Outcome::DebitSent { write } => {
                let token = t.writes.get(*write).and_then(|w| w.token);
                format!(
                    "debit sent with {}",
                    token_text(s.storage.fence_rule, token)
                )
            }
            Outcome::Stored { verdict, .. } => match verdict {
                DebitVerdict::Accepted { balance } => format!("debit accepted, balance {balance}"),
                DebitVerdict::Rejected { .. } => "debit rejected".into(),
                DebitVerdict::Duplicate { .. } => "debit duplicate".into(),
            },
            Outcome::Skipped { .. } => "debit not sent: holds no lock".into(),
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

fn renew_text(by_watchdog: bool, ok: bool) -> String {
    format!(
        "{}: {}",
        if by_watchdog {
            "watchdog renewal"
        } else {
            "renew"
        },
        if ok { "extended" } else { "refused" }
    )
}

fn release_text(deleted: bool) -> String {
    format!(
        "release: {}",
        if deleted {
            "deleted a key"
        } else {
            "deleted nothing"
        }
    )
}

/// One operation a client printed: kind, event, real interval (µs since the start) and result.
#[derive(Clone, Debug)]
pub struct Op {
    pub client: usize,
    pub kind: String,
    /// The client's event index (`-` for a watchdog's renewal).
    pub event: String,
    pub from_us: u64,
    pub to_us: u64,
    pub result: Vec<String>,
}

/// Reads the clients' lines; an `error` line or a line that is not an operation is `Err`.
pub fn ops(h: &Happened) -> Result<Vec<Op>, String> {
    let mut out = Vec::new();
    for (client, lines) in h.lines.iter().enumerate() {
        for l in lines {
            let w: Vec<&str> = l.split(' ').collect();
            let parsed = match w.as_slice() {
                ["op", kind, event, a, b, rest @ ..] => {
                    a.parse().ok().zip(b.parse().ok()).map(|(a, b)| Op {
                        client,
                        kind: kind.to_string(),
                        event: event.to_string(),
                        from_us: a,
                        to_us: b,
                        result: rest.iter().map(|x| x.to_string()).collect(),
                    })
                }
                _ => None,
            };
            out.push(parsed.ok_or_else(|| format!("client {client}: {l}"))?);
        }
    }
    Ok(out)
}

fn lab_text(s: &Scenario, op: &Op) -> Option<String> {
    let r: Vec<&str> = op.result.iter().map(String::as_str).collect();
    Some(match (op.kind.as_str(), r.as_slice()) {
        ("acquire", ["granted", f, ..]) => {
            format!("acquire: granted{}", fence_text(f.parse().ok()))
        }
        ("acquire", ["denied"]) => "acquire: denied".into(),
        ("renew", [w]) => renew_text(false, *w == "ok"),
        ("tick", [w]) => renew_text(true, *w == "ok"),
        ("release", [w]) => release_text(*w == "deleted"),
        ("check", [w]) => format!("isHeld(): {}", *w == "held"),
        ("send", [t]) => format!(
            "debit sent with {}",
            token_text(s.storage.fence_rule, t.parse().ok())
        ),
        ("store", ["accepted", b]) => format!("debit accepted, balance {b}"),
        ("store", ["rejected"]) => "debit rejected".into(),
        ("store", ["duplicate"]) => "debit duplicate".into(),
        ("skip", _) => "debit not sent: holds no lock".into(),
        _ => return None,
    })
}

/// The lab's facts per client, in time order.
pub fn lab_facts(s: &Scenario, h: &Happened, ops: &[Op]) -> Vec<Vec<Fact>> {
    let mut out = vec![Vec::new(); h.lines.len()];
    for op in ops {
        if let Some(text) = lab_text(s, op) {
            out[op.client].push(Fact {
                at_ms: op.from_us as f64 / h.scale_us as f64,
                text,
            });
        }
    }
    for f in &mut out {
        f.sort_by(|a, b| a.at_ms.total_cmp(&b.at_ms));
    }
    out
}

/// The storage's verdict on a debit (as opposed to what the client did).
pub(crate) fn is_verdict(f: &Fact) -> bool {
    [
        "debit accepted",
        "debit rejected",
        "debit duplicate",
        "debit: nothing committed",
    ]
    .iter()
    .any(|p| f.text.starts_with(p))
}

/// Each client's facts as two streams compared on their own: what the client did (its lock
/// calls and its debits sent or held back, one after another in its own order) and the
/// storage's verdicts on its debits. A debit's transaction runs beside the client's next lock
/// call, so a verdict and a lock reply in the same millisecond come in either order; each
/// stream keeps its own order, and every fact still carries its time.
pub(crate) fn streams(facts: Vec<Vec<Fact>>) -> Vec<(usize, Vec<Fact>)> {
    let mut out = Vec::new();
    for (c, list) in facts.into_iter().enumerate() {
        let (verdicts, acts): (Vec<Fact>, Vec<Fact>) = list.into_iter().partition(is_verdict);
        out.push((c, acts));
        out.push((c, verdicts));
    }
    out
}

fn is_lock_op(op: &Op) -> bool {
    matches!(
        op.kind.as_str(),
        "acquire" | "renew" | "tick" | "release" | "check"
    )
}

/// How far apart two real intervals are (negative when they overlap).
fn gap(a: (u64, u64), b: (u64, u64)) -> i64 {
    let (first, second) = if a.0 <= b.0 { (a, b) } else { (b, a) };
    second.0 as i64 - first.1 as i64
}

/// Why the order of what happened cannot be told, if it cannot.
pub fn too_close(s: &Scenario, t: &Trace, h: &Happened, ops: &[Op]) -> Option<String> {
    let tol = (h.scale_us as f64 * 0.4) as i64;
    let ms = |us: u64| us as f64 / h.scale_us as f64;
    let name = |c: usize| t.client_name(c).to_string();
    let mut lock: Vec<&Op> = ops.iter().filter(|o| is_lock_op(o)).collect();
    lock.sort_by_key(|o| o.from_us);
    for w in lock.windows(2) {
        if w[0].client != w[1].client
            && gap((w[0].from_us, w[0].to_us), (w[1].from_us, w[1].to_us)) < tol
        {
            return Some(format!(
                "{}'s {} and {}'s {} reached the lock server {:.2} ms apart",
                name(w[0].client),
                w[0].kind,
                name(w[1].client),
                w[1].kind,
                ms(w[1].from_us) - ms(w[0].to_us)
            ));
        }
    }
    let mut stores: Vec<&Op> = ops.iter().filter(|o| o.kind == "store").collect();
    stores.sort_by_key(|o| o.from_us);
    for w in stores.windows(2) {
        if gap((w[0].from_us, w[0].to_us), (w[1].from_us, w[1].to_us)) < tol {
            return Some(format!(
                "{}'s and {}'s debits reached the storage {:.2} ms apart",
                name(w[0].client),
                name(w[1].client),
                ms(w[1].from_us) - ms(w[0].to_us)
            ));
        }
    }
    // The live lease's expiry, known to within the request that set it.
    let ttl_us = s.lock.ttl_ms * h.scale_us;
    let mut expiry: Option<(u64, u64)> = None;
    for op in &lock {
        if let Some(e) = expiry {
            if gap((op.from_us, op.to_us), e) < tol {
                return Some(format!(
                    "{}'s {} at {:.2} ms came within the tolerance of the lease running out",
                    name(op.client),
                    op.kind,
                    ms(op.from_us)
                ));
            }
        }
        let r = op.result.first().map(String::as_str);
        match (op.kind.as_str(), r) {
            ("acquire", Some("granted")) | ("renew" | "tick", Some("ok")) => {
                expiry = Some((op.from_us + ttl_us, op.to_us + ttl_us))
            }
            ("release", Some("deleted")) => expiry = None,
            _ => {}
        }
    }
    // What fell due in a pause runs when the process continues, as in the model, so only a
    // stop or a kill can land on either side of a request.
    for &(c, sig, at) in h.signals.iter().filter(|x| x.1 != Signal::Cont) {
        for op in ops.iter().filter(|o| o.client == c) {
            if gap((op.from_us, op.to_us), (at, at)) < tol {
                return Some(format!(
                    "{}'s {} at {:.2} ms came within the tolerance of its {sig:?} signal at {:.2} ms",
                    name(c), op.kind, ms(op.from_us), ms(at)
                ));
            }
        }
    }
    None
}

/// The largest distance, in real ms, between a fact of the lab and the model's same fact
/// (facts paired in order per client), for the printed "worst lateness".
pub fn worst_offset_ms(s: &Scenario, t: &Trace, h: &Happened) -> f64 {
    let Ok(ops) = ops(h) else { return 0.0 };
    let model = model_facts(s, t);
    let lab = lab_facts(s, h, &ops);
    let real_ms = h.scale_us as f64 / 1000.0;
    model
        .iter()
        .zip(&lab)
        .flat_map(|(m, l)| m.iter().zip(l))
        .map(|(a, b)| (a.at_ms - b.at_ms).abs() * real_ms)
        .fold(0.0, f64::max)
}

/// A stop that lands while a client's debit is on its way: the model's debit is one message
/// that arrives on its own, the lab's a transaction whose statements after `BEGIN` wait for
/// the stopped process.
pub(crate) fn frozen_write(t: &Trace, h: &Happened, ops: &[Op]) -> Option<String> {
    for &(c, _, at) in h.signals.iter().filter(|x| x.1 == Signal::Stop) {
        for send in ops
            .iter()
            .filter(|o| o.client == c && o.kind == "send" && o.from_us <= at)
        {
            let store = ops
                .iter()
                .find(|o| o.client == c && o.kind == "store" && o.event == send.event);
            if store.is_none_or(|st| st.to_us >= at) {
                return Some(format!(
                    "{} is paused while its debit is on its way: the model delivers the debit \
                     as one message, a real transaction's later statements wait for the \
                     stopped process",
                    t.client_name(c)
                ));
            }
        }
    }
    None
}

/// Each signal the conductor sent, beside the scenario's instant for it: what it was, in words
/// ("A's Stop signal"), the instant it was due (simulated ms) and when it was sent (µs of the
/// run). The one reading of the schedule against the signals that every judge uses.
pub(crate) fn sent_signals(s: &Scenario, h: &Happened) -> Vec<(String, u64, u64)> {
    crate::independent::schedule(s)
        .into_iter()
        .zip(&h.signals)
        .map(|((due_ms, k, sig), &(_, _, sent))| {
            let name = s.clients.get(k).map_or("?", |c| c.name.as_str());
            (format!("{name}'s {sig:?} signal"), due_ms, sent)
        })
        .collect()
}

/// A signal the conductor sent later than its instant by more than the tolerance (a
/// conductor woken late on a loaded machine): the client ran on where the scenario has it
/// stopped or dead, so nothing it did then answers the model.
pub(crate) fn late_signal(s: &Scenario, h: &Happened) -> Option<String> {
    let tol = h.scale_us * 4 / 10;
    sent_signals(s, h)
        .into_iter()
        .find(|(_, due_ms, sent)| *sent > due_ms * h.scale_us + tol)
        .map(|(what, due_ms, sent)| {
            format!(
                "{what}, due at {due_ms} ms, was sent at {:.2} ms: the run missed its schedule",
                sent as f64 / h.scale_us as f64
            )
        })
}

/// At the first difference (index `k`) of a client's facts: the fact, at the difference or
/// before it, where the run had fallen behind the model's instant by more than `slack_ms` (a
/// process or server woken late on a loaded machine). What the run did after falling behind
/// is no answer to the model, so the difference is a missed schedule, tried again at a larger
/// scale.
pub(crate) fn behind_at_difference(
    model: &[Fact],
    lab: &[Fact],
    k: usize,
    slack_ms: f64,
) -> Option<String> {
    model
        .iter()
        .zip(lab)
        .take(k + 1)
        .find(|(a, b)| b.at_ms - a.at_ms > slack_ms)
        .map(|(a, b)| {
            format!(
                "`{}` happened at {:.2} ms, where the model has `{}` at {} ms: the run missed \
                 its schedule",
                b.text, b.at_ms, a.text, a.at_ms
            )
        })
}

/// The instant of a difference between the model's fact `a` and the lab's `b` (either may be
/// missing): the earlier of the two.
pub(crate) fn instant_of(a: Option<&Fact>, b: Option<&Fact>) -> f64 {
    match (a, b) {
        (Some(a), Some(b)) => a.at_ms.min(b.at_ms),
        (Some(f), None) | (None, Some(f)) => f.at_ms,
        (None, None) => f64::MAX,
    }
}

/// Before a difference at `until_ms` (simulated ms) in one stream: a fact of any stream, the
/// same in the lab and the model and at or before that instant in the model, that the run did
/// more than `slack_ms` after the model's instant for it (another client's debit or lock reply
/// held up by a loaded machine, whose lateness the differing client then acted on). Only facts
/// before each stream's own first difference count: their pairing is certain. Measured from the
/// run's own timestamps, so a difference with every earlier fact on time stays a mismatch.
pub(crate) fn behind_before(
    model: &[(usize, Vec<Fact>)],
    lab: &[(usize, Vec<Fact>)],
    until_ms: f64,
    slack_ms: f64,
) -> Option<(usize, String)> {
    model
        .iter()
        .zip(lab)
        .flat_map(|((c, m), (_, l))| {
            m.iter()
                .zip(l)
                .take_while(|(a, b)| a.text == b.text)
                .map(move |pair| (*c, pair))
        })
        .filter(|(_, (a, b))| a.at_ms <= until_ms && b.at_ms - a.at_ms > slack_ms)
        .min_by(|x, y| x.1 .0.at_ms.total_cmp(&y.1 .0.at_ms))
        .map(|(c, (a, b))| {
            (
                c,
                format!(
                    "`{}` happened at {:.2} ms, the model's at {} ms: the run missed its \
                     schedule before the first difference",
                    b.text, b.at_ms, a.at_ms
                ),
            )
        })
}

/// Compares what happened with the model's trace.
pub fn judge(s: &Scenario, t: &Trace, h: &Happened) -> Judgement {
    let ops = match ops(h) {
        Ok(o) => o,
        Err(e) => return Judgement::Broken(e),
    };
    if let Some(why) = late_signal(s, h) {
        return Judgement::Late(why);
    }
    // A write still in flight when its sender is killed dies with the process here, while the
    // model's packet is already in the network.
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
    if let Some(why) = too_close(s, t, h, &ops) {
        return Judgement::TooClose(why);
    }
    let model = streams(model_facts(s, t));
    let lab = streams(lab_facts(s, h, &ops));
    for ((c, m), (_, l)) in model.iter().zip(&lab) {
        let name = t.client_name(*c);
        for k in 0..m.len().max(l.len()) {
            let (a, b) = (m.get(k), l.get(k));
            if a.map(|f| &f.text) != b.map(|f| &f.text) {
                // The lab had fallen well behind the model's instant at this fact or before
                // it: the run did not keep the scenario's schedule (a process woken late on a
                // loaded machine), so what it did is no answer to the model; it is tried again
                // at a larger scale.
                if let Some(why) = behind_at_difference(m, l, k, LATE_AT_A_DIFFERENCE_MS) {
                    return Judgement::Late(format!("{name}'s {why}"));
                }
                // Or another client had: what this one met was already off the schedule.
                if let Some((other, why)) =
                    behind_before(&model, &lab, instant_of(a, b), LATE_AT_A_DIFFERENCE_MS)
                {
                    return Judgement::Late(format!("{}'s {why}", t.client_name(other)));
                }
                let show = |f: Option<&Fact>| {
                    f.map_or("(nothing)".to_string(), |f| {
                        format!("{} at {:.1} ms", f.text, f.at_ms)
                    })
                };
                return Judgement::Differs(format!(
                    "{name}: the model says `{}`, the servers and clients did `{}`",
                    show(a),
                    show(b)
                ));
            }
        }
    }
    for ((c, m), (_, l)) in model.iter().zip(&lab) {
        for (a, b) in m.iter().zip(l) {
            if (a.at_ms - b.at_ms).abs() > 0.4 {
                return Judgement::Late(format!(
                    "{}'s `{}` happened at {:.2} ms, the model's at {} ms (tolerance 0.4 ms)",
                    t.client_name(*c),
                    b.text,
                    b.at_ms,
                    a.at_ms
                ));
            }
        }
    }
    final_state(s, t, h, &ops)
}

/// The final balance and last fence read back; under compare-and-set the last "fence" is a
/// holder's random value, so both sides name whose grant it was instead.
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

/// "B's grant 1": whose grant (and which of its grants, from 1) carried a value.
fn grant_name(t: &Trace, client: usize, nth: usize) -> String {
    format!("{}'s grant {nth}", t.client_name(client))
}

fn model_grant_of(t: &Trace, value: Option<u64>) -> String {
    let Some(v) = value else { return "none".into() };
    let Some(w) =
        t.writes.iter().rev().find(|w| {
            w.token == Some(v) && matches!(w.verdict, Some(DebitVerdict::Accepted { .. }))
        })
    else {
        return format!("value {v}");
    };
    let mut mine: Vec<&fencing_playground::sim::trace::LeaseSpan> =
        t.leases.iter().filter(|l| l.holder == w.client).collect();
    mine.sort_by_key(|l| l.start_ms);
    match mine.iter().position(|l| Some(l.generation) == w.generation) {
        Some(n) => grant_name(t, w.client, n + 1),
        None => format!("value {v}"),
    }
}

fn lab_grant_of(t: &Trace, ops: &[Op], value: Option<u64>) -> String {
    let Some(v) = value else { return "none".into() };
    for c in 0..t.clients.len() {
        let mut grants: Vec<&Op> = ops
            .iter()
            .filter(|o| {
                o.client == c
                    && o.kind == "acquire"
                    && o.result.first().is_some_and(|r| r == "granted")
            })
            .collect();
        grants.sort_by_key(|o| o.from_us);
        if let Some(n) = grants
            .iter()
            .position(|o| o.result.get(2).and_then(|x| x.parse().ok()) == Some(v))
        {
            return grant_name(t, c, n + 1);
        }
    }
    format!("value {v}")
}

/// Whether a model step asks the lock server something, and whether it changes the key.
fn lock_step(o: &Outcome) -> Option<bool> {
    match o {
        Outcome::Granted { .. } | Outcome::Renewed { .. } => Some(true),
        Outcome::Released { deleted, .. } => Some(deleted.is_some()),
        Outcome::Denied { .. }
        | Outcome::RenewDenied { .. }
        | Outcome::CheckPassed
        | Outcome::CheckFailed => Some(false),
        _ => None,
    }
}

/// Two events the model runs at the very same millisecond whose order decides what happens:
/// two clients' requests to the lock server (one of them changing the key), two debits reaching
/// the storage, or a client's request on the instant its own pause or crash begins. The lab
/// schedules both for the same real instant at any scale, so their order is chance.
pub fn model_tie(s: &Scenario, t: &Trace) -> Option<String> {
    use crate::independent::Signal;
    // The model defers whatever falls due on the first millisecond of a pause (and drops it
    // at a crash); here the conductor's signal and the client's request race.
    for &(at, k, sig) in &crate::independent::schedule(s) {
        if sig == Signal::Cont {
            continue;
        }
        let asks = s.clients[k].events.iter().any(|e| {
            e.at_ms() == at
                && !matches!(
                    e,
                    Event::Pause { .. } | Event::Crash { .. } | Event::ClockJump { .. }
                )
        });
        if asks {
            return Some(format!(
                "at {at} ms {}'s event falls on the instant its own {} begins",
                t.client_name(k),
                if sig == Signal::Kill {
                    "crash"
                } else {
                    "pause"
                }
            ));
        }
    }
    // A crash at the instant a pause ends: the model wakes the client and runs what the pause
    // held back before the crash, while the lab's conductor kills the stopped process without
    // continuing it. Which comes first at that instant is a choice neither side can prove.
    for &(at, k, sig) in &crate::independent::schedule(s) {
        if sig != Signal::Kill {
            continue;
        }
        let pause_ends = s.clients[k].events.iter().any(
            |e| matches!(e, Event::Pause { at_ms, duration_ms, .. } if at_ms + duration_ms == at),
        );
        let acts = t.steps.iter().any(|x| {
            x.client == k
                && x.at_ms == at
                && !matches!(
                    x.outcome,
                    Outcome::Woke | Outcome::Crashed | Outcome::Paused { .. }
                )
        });
        if pause_ends && acts {
            return Some(format!(
                "at {at} ms {}'s crash falls on the instant its pause ends, when the model runs \
                 what the pause held back",
                t.client_name(k)
            ));
        }
    }
    for (i, a) in t.steps.iter().enumerate() {
        let a_lock = lock_step(&a.outcome);
        let a_store = matches!(a.outcome, Outcome::Stored { .. });
        for b in t.steps[i + 1..].iter().take_while(|b| b.at_ms == a.at_ms) {
            // One client's requests to the lock go one after another; its debits each have
            // a session of their own, so two of them race like two clients' debits.
            let both_lock = match (a_lock, lock_step(&b.outcome)) {
                (Some(x), Some(y)) => (x || y) && b.client != a.client,
                _ => false,
            };
            let both_store = a_store && matches!(b.outcome, Outcome::Stored { .. });
            if both_lock || both_store {
                return Some(format!(
                    "at {} ms {}'s and {}'s requests reach the {} in the same millisecond",
                    a.at_ms,
                    t.client_name(a.client),
                    t.client_name(b.client),
                    if both_store { "storage" } else { "lock server" }
                ));
            }
        }
    }
    None
}

/// For the judges' tests: `j` is a missed schedule that names `who` as the client that fell
/// behind before the first difference (`behind_before`).
#[cfg(test)]
pub(crate) fn assert_late_before_difference(j: Judgement, who: &str) {
    match j {
        Judgement::Late(w) => assert!(
            w.starts_with(&format!("{who}'s")) && w.contains("before the first difference"),
            "{w}"
        ),
        other => panic!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencing_playground::sim::presets::preset;
    use fencing_playground::sim::run;

    /// contract-4-fenced as the clients would print it: A granted 33 at 0, B granted 34 at 31,
    /// B's debit accepted at 32, A's rejected at 45; `a_fence` is what A's grant got.
    fn happened(a_fence: u64, b_acquire_ms: u64) -> Happened {
        let us = |ms: u64| ms * 20_000;
        let a = vec![
            format!("op acquire 0 {} {} granted {a_fence} 1", us(0), us(0) + 300),
            format!("op send 2 {} {} {a_fence}", us(45), us(45)),
            format!("op store 2 {} {} rejected", us(45) + 400, us(45) + 900),
        ];
        let b = vec![
            format!(
                "op acquire 0 {} {} granted 34 2",
                us(b_acquire_ms),
                us(b_acquire_ms) + 300
            ),
            format!("op send 1 {} {} 34", us(32), us(32)),
            format!("op store 1 {} {} accepted 90", us(32) + 400, us(32) + 900),
        ];
        Happened {
            lines: vec![a, b],
            signals: vec![(0, Signal::Stop, us(1)), (0, Signal::Cont, us(45))],
            balance: 90,
            last_fence: 34,
            scale_us: 20_000,
        }
    }

    #[test]
    fn the_same_history_matches_and_a_different_fence_does_not() {
        let s = preset("contract-4-fenced").expect("preset");
        let t = run(&s);
        assert_eq!(judge(&s, &t, &happened(33, 31)), Judgement::Same);
        match judge(&s, &t, &happened(35, 31)) {
            Judgement::Differs(d) => {
                assert!(d.contains("fence 33") && d.contains("fence 35"), "{d}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_request_close_to_the_lease_running_out_is_too_close_and_a_late_one_is_late() {
        let s = preset("contract-4-fenced").expect("preset");
        let t = run(&s);
        // A's lease runs out at 30 ms: B asking at 30.1 ms cannot be ordered against it.
        let mut h = happened(33, 31);
        h.lines[1][0] = format!("op acquire 0 {} {} granted 34 2", 602_000, 602_300);
        assert!(matches!(judge(&s, &t, &h), Judgement::TooClose(_)));
        // B asking at 32 ms is well clear of the expiry but a millisecond off the model.
        assert!(matches!(
            judge(&s, &t, &happened(33, 32)),
            Judgement::Late(_)
        ));
    }

    #[test]
    fn a_different_verdict_well_after_its_instant_is_a_missed_schedule_on_time_a_mismatch() {
        let s = preset("contract-4-fenced").expect("preset");
        let t = run(&s);
        let us = |ms: u64| ms * 20_000;
        // A's debit accepted where the model rejects it: at the model's 45 ms, a disagreement.
        let mut h = happened(33, 31);
        h.lines[0][2] = format!("op store 2 {} {} accepted 80", us(45) + 400, us(45) + 900);
        h.balance = 80;
        assert!(matches!(judge(&s, &t, &h), Judgement::Differs(_)));
        // The same verdict three milliseconds late: the run did not keep the schedule.
        h.lines[0][1] = format!("op send 2 {} {} 33", us(48), us(48));
        h.lines[0][2] = format!("op store 2 {} {} accepted 80", us(48) + 400, us(48) + 900);
        match judge(&s, &t, &h) {
            Judgement::Late(w) => assert!(w.contains("missed its schedule"), "{w}"),
            other => panic!("{other:?}"),
        }
    }

    /// The preset delayed-packet under load (lab/open/README.md): the client whose verdict
    /// differs was on time, another client's debit before it was not. Measured lateness before
    /// the difference makes it a missed schedule; with that debit on time, the same difference
    /// is a mismatch.
    #[test]
    fn a_difference_after_another_client_fell_behind_is_late_on_time_a_mismatch() {
        let s = preset("contract-4-fenced").expect("preset");
        let t = run(&s);
        let us = |ms: u64| ms * 20_000;
        // A's debit accepted at the model's 45 ms, where the model rejects it.
        let mut h = happened(33, 31);
        h.lines[0][2] = format!("op store 2 {} {} accepted 80", us(45) + 400, us(45) + 900);
        h.balance = 80;
        assert!(matches!(judge(&s, &t, &h), Judgement::Differs(_)));
        // The same, with B's debit (the model's 32 ms) done at 40 ms: B fell behind first.
        h.lines[1][1] = format!("op send 1 {} {} 34", us(40), us(40));
        h.lines[1][2] = format!("op store 1 {} {} accepted 90", us(40) + 400, us(40) + 900);
        crate::history::assert_late_before_difference(judge(&s, &t, &h), "B");
    }

    /// The long random run's case 198 of seed 10: A's debit and its release both fall due at
    /// the end of its pause; the debit's transaction ran beside the release, and its verdict
    /// came back first. Verdicts are compared in their own order, not against lock replies.
    #[test]
    fn a_verdict_that_overtakes_the_next_lock_reply_is_the_same_history() {
        let mut s = preset("contract-4-fenced").expect("preset");
        s.clients[0].events.push(Event::Release {
            at_ms: 3,
            mode: fencing_playground::sim::ReleaseKind::TokenChecked,
        });
        let t = run(&s);
        let us = |ms: u64| ms * 20_000;
        let mut h = happened(33, 31);
        h.lines[0][2] = format!("op store 2 {} {} rejected", us(45) + 100, us(45) + 900);
        h.lines[0].push(format!(
            "op release 3 {} {} nothing",
            us(45) + 300,
            us(45) + 600
        ));
        assert_eq!(judge(&s, &t, &h), Judgement::Same);
        // A verdict that differs is still a disagreement, in whichever order it came.
        h.lines[0][2] = format!("op store 2 {} {} accepted 80", us(45) + 100, us(45) + 900);
        h.balance = 80;
        assert!(matches!(judge(&s, &t, &h), Judgement::Differs(_)));
    }

    #[test]
    fn a_pause_while_a_debit_is_on_its_way_is_a_limit_not_a_verdict() {
        let s = preset("contract-4-fenced").expect("preset");
        let t = run(&s);
        let mut h = happened(33, 31);
        h.signals.push((0, Signal::Stop, 45 * 20_000 + 200));
        assert!(matches!(judge(&s, &t, &h), Judgement::Limit(_)));
    }

    /// The long random run's case 19 of seed 13 on a loaded machine: B's stop went out long
    /// after its instant, B ran on where the model has it stopped, and the difference was
    /// called a mismatch.
    #[test]
    fn a_signal_sent_after_its_instant_is_a_missed_schedule() {
        let s = preset("contract-4-fenced").expect("preset");
        let t = run(&s);
        let mut h = happened(33, 31);
        h.signals[0].2 += 7_000;
        assert_eq!(judge(&s, &t, &h), Judgement::Same, "within the tolerance");
        h.signals[0].2 += 2_000;
        match judge(&s, &t, &h) {
            Judgement::Late(w) => assert!(w.contains("Stop signal, due at 1 ms"), "{w}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_broken_client_is_no_verdict() {
        let s = preset("contract-4-fenced").expect("preset");
        let t = run(&s);
        let mut h = happened(33, 31);
        h.lines[0].push("error redis: connection refused".into());
        assert!(matches!(judge(&s, &t, &h), Judgement::Broken(_)));
    }

    /// The long random run's case 178 of seed 10: A's pause ends at 45 ms and A crashes at
    /// 45 ms. The model ran A's held-back debit first; the lab killed A still stopped.
    #[test]
    fn a_crash_as_a_pause_ends_with_work_held_back_is_too_close() {
        let file = crate::lab_file("corpus/random-10-178.json");
        let text = std::fs::read_to_string(file).expect("the saved case");
        let s = Scenario::from_json(&text).expect("a scenario");
        let why = model_tie(&s, &run(&s)).expect("a tie");
        assert!(why.starts_with("at 45 ms A's crash falls on the instant its pause ends"));
        // A crash a millisecond later leaves the debit's order clear.
        let mut later = s.clone();
        for e in &mut later.clients[0].events {
            if let Event::Crash { at_ms } = e {
                *at_ms = 46;
            }
        }
        assert_eq!(model_tie(&later, &run(&later)), None);
    }

    #[test]
    fn same_millisecond_events_are_too_close_at_any_scale() {
        let mut s = preset("contract-1-nx").expect("preset");
        assert_eq!(model_tie(&s, &run(&s)), None);
        s.clients[1].events = vec![Event::Acquire { at_ms: 0 }];
        let why = model_tie(&s, &run(&s)).expect("a tie");
        assert!(why.contains("same millisecond"), "{why}");
    }
}
