//! A ZooKeeper run's history against the model's trace. Compared, per client and in order:
//! each lock call's answer (granted, with its node's sequence and czxid; waits behind a lower
//! node; already holds one; failed), each unlock (deleted its node, no node, its session
//! gone), each debit (sent, with its fence when the storage checks one; held back while
//! SUSPENDED; not sent, holding no lock) and its verdict; then, as a sequence of their own, the
//! connection states the client library reported (SUSPENDED, RECONNECTED, LOST) by kind and
//! order; then the final balance and last fence. Zxids are compared relative to the leader's
//! zxid before the run (`zk_run`).
//!
//! Not compared: when a state was reported (the library says SUSPENDED at 9/20 of the session
//! timeout, the model at 2/3; the library declares LOST by itself at 7/5 of it while cut off,
//! the model when the partition heals), when a waiter was granted (the leader expires a silent
//! session on a tick of its own clock, and the library pings after 3/20 of the timeout of
//! silence where the model pings every third), the pings, the session ids. Every other fact's
//! time is checked with the tolerance.

use crate::history::{frozen_write, ops, Judgement, Op};
use crate::independent::{Happened, Signal};
use crate::zk_run::ZkHappened;
use fencing_playground::sim::scenario::ZkFence;
use fencing_playground::sim::trace::{DebitVerdict, Outcome, ParentChange, Trace, ZkState};
use fencing_playground::sim::{Event, FenceRule, Scenario};
use std::collections::BTreeMap;

const TOLERANCE_MS: f64 = 0.4;
/// How much later than the model's a fact may come (a process woken by `SIGCONT`, a reply
/// through the quorum).
const LATE_MS: f64 = 1.0;

const WAITS: &str = "lock: node created, waits behind a lower node";
const ALREADY: &str = "lock: already has a node";
const LOCK_FAILED: &str = "lock: failed, its session is gone";
const RELEASED: &str = "unlock: deleted its node";
const NOTHING: &str = "unlock: no node to delete";
const UNLOCK_GONE: &str = "unlock: its session was gone (LOST)";
const NOT_SENT: &str = "debit not sent: holds no lock";
const HELD_BACK: &str = "debit held back: SUSPENDED";

/// One fact, and whether its time is compared.
#[derive(Clone, Debug, PartialEq)]
pub struct ZkFact {
    /// When it happened (a lock call's when its answer came), which orders a client's facts.
    pub at_ms: f64,
    pub text: String,
    /// Whether its time is compared, and the time compared: a lock call's when it was made
    /// (opening a session, a create under a missing parent and the parent's create take
    /// round trips through the quorum that the model's instant does not).
    pub timed: bool,
    pub check_ms: f64,
}

fn granted(sequence: i64, czxid: i64) -> String {
    format!("lock: granted, lock-{sequence:010}, czxid {czxid}")
}

fn sent_text(s: &Scenario, fence: Option<i64>) -> String {
    match (s.storage.fence_rule, fence) {
        (FenceRule::Off, _) => "debit sent".into(),
        (_, None) => "debit sent with no fence".into(),
        (_, Some(f)) => format!("debit sent with fence {f}"),
    }
}

fn verdict_text(v: &DebitVerdict) -> String {
    match v {
        DebitVerdict::Accepted { balance } => format!("debit accepted, balance {balance}"),
        DebitVerdict::Rejected { .. } => "debit rejected".into(),
        DebitVerdict::Duplicate { .. } => "debit duplicate".into(),
    }
}

fn event_of(s: &Scenario, c: usize, e: Option<usize>) -> Option<&Event> {
    s.clients.get(c)?.events.get(e?)
}

/// The model's facts and state notices per client, in its order.
pub fn model_facts(s: &Scenario, t: &Trace) -> (Vec<Vec<ZkFact>>, Vec<Vec<String>>) {
    let n = t.clients.len();
    let (mut facts, mut notices) = (vec![Vec::new(); n], vec![Vec::new(); n]);
    let mut crashed = vec![false; n];
    let mut waited = vec![false; n];
    let nodes = t
        .zookeeper
        .as_ref()
        .map(|z| z.nodes.as_slice())
        .unwrap_or(&[]);
    for step in &t.steps {
        let c = step.client;
        if crashed[c] {
            continue;
        }
        let ev = event_of(s, c, step.event);
        let (text, timed) = match &step.outcome {
            Outcome::Granted { .. } => {
                let node = nodes
                    .iter()
                    .rfind(|x| x.client == c && x.granted_ms == Some(step.at_ms));
                let text = node.map_or("lock: granted, no node".to_string(), |x| {
                    granted(x.sequence as i64, x.czxid as i64)
                });
                let timed = !std::mem::take(&mut waited[c]);
                (text, timed)
            }
            Outcome::NodeWaits { .. } => {
                waited[c] = true;
                (WAITS.to_string(), true)
            }
            Outcome::Released { own, .. } => {
                ((if *own { RELEASED } else { NOTHING }).to_string(), true)
            }
            Outcome::DebitSent { write } => {
                let token = t.writes.get(*write).and_then(|w| w.token);
                (sent_text(s, token.map(|x| x as i64)), true)
            }
            Outcome::Stored { verdict, .. } => (verdict_text(verdict), true),
            Outcome::Skipped { reason } => match ev {
                Some(Event::Acquire { .. }) => (ALREADY.to_string(), true),
                Some(Event::Debit { .. }) => (NOT_SENT.to_string(), true),
                _ => (format!("skipped: {reason}"), true),
            },
            Outcome::WriteHeldBack { state } => match state {
                ZkState::Suspended => (HELD_BACK.to_string(), true),
                ZkState::Lost => (NOT_SENT.to_string(), true),
            },
            Outcome::ConnectionLoss => ("request: connection loss".to_string(), true),
            Outcome::ZkNotice { notice } => {
                notices[c].push(notice.label().to_string());
                if matches!(ev, Some(Event::Release { .. })) {
                    (UNLOCK_GONE.to_string(), true)
                } else {
                    continue;
                }
            }
            Outcome::Crashed => {
                crashed[c] = true;
                continue;
            }
            _ => continue,
        };
        facts[c].push(ZkFact {
            at_ms: step.at_ms as f64,
            text,
            timed,
            check_ms: step.at_ms as f64,
        });
    }
    (facts, notices)
}

/// What a ZooKeeper comparison covers, counted from the model's facts.
pub fn compared(s: &Scenario, t: &Trace) -> String {
    let (facts, notices) = model_facts(s, t);
    let facts: Vec<ZkFact> = facts.into_iter().flatten().collect();
    let count = |p: &dyn Fn(&str) -> bool| facts.iter().filter(|f| p(&f.text)).count();
    let grants: Vec<String> = facts
        .iter()
        .filter_map(|f| f.text.strip_prefix("lock: granted, "))
        .map(|g| g.replace("lock-", "").replace(", czxid ", "/"))
        .collect();
    let notices: Vec<String> = notices.into_iter().flatten().collect();
    let fence = match s.lock.zookeeper() {
        _ if !s.lock.fencing => "no fence sent".to_string(),
        Some(z) => format!("the {} as the fence", z.fence.label()),
        None => String::new(),
    };
    format!(
        "lock granted {} (sequence/czxid {}), waited {}; unlocks {} (no node {}, session gone \
         {}); debits accepted {}, rejected {}, held back {}, not sent {}; states {}; balance {}, \
         last fence {} ({fence})",
        grants.len(),
        if grants.is_empty() {
            "none".to_string()
        } else {
            grants.join(", ")
        },
        count(&|x| x == WAITS),
        count(&|x| x.starts_with("unlock")),
        count(&|x| x == NOTHING),
        count(&|x| x == UNLOCK_GONE),
        count(&|x| x.starts_with("debit accepted")),
        count(&|x| x == "debit rejected"),
        count(&|x| x == HELD_BACK),
        count(&|x| x == NOT_SENT),
        if notices.is_empty() {
            "none".to_string()
        } else {
            notices.join(", ")
        },
        t.final_balance,
        t.last_fence
            .map_or_else(|| "none".to_string(), |f| f.to_string())
    )
}

/// One `zk node` line: the node a lock call created.
#[derive(Clone, Debug)]
pub struct NodeLine {
    pub client: usize,
    pub from_us: u64,
    pub to_us: u64,
    pub sequence: i64,
    pub czxid: i64,
}

/// What the clients printed, read: the operations, the nodes by (client, event), the waits,
/// the state notices (µs, word) per client.
pub struct Read {
    pub ops: Vec<Op>,
    pub nodes: BTreeMap<(usize, String), NodeLine>,
    /// Each `zk wait` line: client, event, when.
    pub waits: Vec<(usize, String, u64)>,
    pub notices: Vec<Vec<(u64, String)>>,
}

/// The clients' operations only, as the other judges read them.
fn op_lines(h: &Happened) -> Happened {
    Happened {
        lines: h
            .lines
            .iter()
            .map(|l| l.iter().filter(|x| x.starts_with("op ")).cloned().collect())
            .collect(),
        signals: h.signals.clone(),
        balance: h.balance,
        last_fence: h.last_fence,
        scale_us: h.scale_us,
    }
}

pub fn read(h: &Happened) -> Result<Read, String> {
    let ops = ops(&op_lines(h))?;
    let mut r = Read {
        ops,
        nodes: BTreeMap::new(),
        waits: Vec::new(),
        notices: vec![Vec::new(); h.lines.len()],
    };
    for (c, lines) in h.lines.iter().enumerate() {
        for l in lines {
            let w: Vec<&str> = l.split(' ').collect();
            let bad = || format!("client {c}: {l}");
            match w.as_slice() {
                ["op", ..] => {}
                ["zk", "session", ..] => {}
                ["zk", "node", event, a, b, _path, seq, czxid] => {
                    let n = NodeLine {
                        client: c,
                        from_us: a.parse().map_err(|_| bad())?,
                        to_us: b.parse().map_err(|_| bad())?,
                        sequence: seq.parse().map_err(|_| bad())?,
                        czxid: czxid.parse().map_err(|_| bad())?,
                    };
                    r.nodes.insert((c, event.to_string()), n);
                }
                ["zk", "wait", event, at, _path] => {
                    r.waits
                        .push((c, event.to_string(), at.parse().map_err(|_| bad())?));
                }
                ["zk", "state", at, _id, word, _curator] => {
                    let notice = match *word {
                        // The client's own close when its run ends: not a fault.
                        "closed" => continue,
                        "disconnected" => "SUSPENDED",
                        "connected" => "RECONNECTED",
                        "read_only" => "READ_ONLY",
                        _ => "LOST",
                    };
                    r.notices[c].push((at.parse().map_err(|_| bad())?, notice.to_string()));
                }
                _ => return Err(bad()),
            }
        }
    }
    Ok(r)
}

/// The number a printed fence stands for in the model's numbering.
fn fence_of(s: &Scenario, z: &ZkHappened, printed: &str) -> Option<i64> {
    let f: i64 = printed.parse().ok()?;
    match s.lock.zookeeper().map(|x| x.fence) {
        Some(ZkFence::Sequence) => Some(f),
        _ => Some(z.relative(f)),
    }
}

/// The lab's facts per client, in time order.
pub fn lab_facts(s: &Scenario, z: &ZkHappened, r: &Read) -> Vec<Vec<ZkFact>> {
    let h = &z.h;
    let mut out: Vec<Vec<(u64, String, u64)>> = vec![Vec::new(); h.lines.len()];
    for op in &r.ops {
        let res: Vec<&str> = op.result.iter().map(String::as_str).collect();
        let node = r.nodes.get(&(op.client, op.event.clone()));
        let (at, text) = match (op.kind.as_str(), res.as_slice()) {
            ("lock", ["granted", ..]) => (
                op.to_us,
                node.map_or("lock: granted, no node".to_string(), |n| {
                    granted(n.sequence, z.relative(n.czxid))
                }),
            ),
            ("lock", ["already"]) => (op.to_us, ALREADY.into()),
            ("lock", _) => (op.to_us, LOCK_FAILED.into()),
            ("unlock", ["released"]) => (op.from_us, RELEASED.into()),
            ("unlock", ["nothing"]) => (op.from_us, NOTHING.into()),
            ("unlock", _) => (op.from_us, UNLOCK_GONE.into()),
            ("send", [f]) => {
                let fence = s.lock.fencing.then(|| fence_of(s, z, f)).flatten();
                (op.from_us, sent_text(s, fence))
            }
            ("skip", ["suspended"]) => (op.from_us, HELD_BACK.into()),
            ("skip", _) => (op.from_us, NOT_SENT.into()),
            ("store", ["accepted", b]) => (op.from_us, format!("debit accepted, balance {b}")),
            ("store", ["rejected", ..]) => (op.from_us, "debit rejected".into()),
            ("store", ["duplicate", ..]) => (op.from_us, "debit duplicate".into()),
            (kind, rest) => (op.from_us, format!("{kind}: {}", rest.join(" "))),
        };
        out[op.client].push((at, text, op.from_us));
    }
    // A wait is part of its lock call: its time is the call's.
    for (c, event, at) in &r.waits {
        let call = r
            .ops
            .iter()
            .find(|o| o.client == *c && o.kind == "lock" && o.event == *event)
            .map(|o| o.from_us)
            .or_else(|| r.nodes.get(&(*c, event.clone())).map(|n| n.from_us));
        out[*c].push((*at, WAITS.into(), call.unwrap_or(*at)));
    }
    out.into_iter()
        .map(|mut v| {
            v.sort_by_key(|x| x.0);
            v.into_iter()
                .map(|(at, text, check)| ZkFact {
                    at_ms: at as f64 / h.scale_us as f64,
                    text,
                    timed: true,
                    check_ms: check as f64 / h.scale_us as f64,
                })
                .collect()
        })
        .collect()
}

/// The lock parent still had a child when the conductor removed it, where the model's parent
/// was empty by then: a node the model had gone (a session it had expired, an unlock's delete)
/// was still on the server. ZooKeeper ends a session on its leader's ticks, and a leader that
/// falls behind on a loaded machine ends it a tick or more later than any window the model's
/// timing allows; what the run did after that (a new node's sequence, whose debit is refused) is
/// no answer to the model, so the run is tried again at a larger scale. A model wrong about
/// when sessions end would miss at every scale and still fail.
fn parent_kept(t: &Trace, lab: &[(u64, bool)], scale_us: u64) -> Option<String> {
    let model = t
        .zookeeper
        .as_ref()?
        .parent
        .iter()
        .filter(|m| m.what != ParentChange::Created);
    let (m, &(at, _)) = model
        .zip(lab)
        .find(|(m, (_, removed))| m.what == ParentChange::Removed && !removed)?;
    Some(format!(
        "the lock parent still had a child when it was removed at {:.2} ms, where the model's \
         was empty at {} ms (a session or node the model had ended was still on the server): \
         the run missed its schedule",
        at as f64 / scale_us as f64,
        m.at_ms
    ))
}

/// How far apart two real intervals are (negative when they overlap).
fn gap(a: (u64, u64), b: (u64, u64)) -> i64 {
    let (first, second) = if a.0 <= b.0 { (a, b) } else { (b, a) };
    second.0 as i64 - first.1 as i64
}

/// Two things whose order the real times cannot tell: two clients' creates (which decides
/// the sequence), two debits reaching the storage, a client's operation and a stop or kill of
/// its process, a state the library reported and the client's own operation, the lock
/// parent's removal and a create.
pub fn too_close(t: &Trace, z: &ZkHappened, r: &Read) -> Option<String> {
    let h = &z.h;
    let tol = (h.scale_us as f64 * TOLERANCE_MS) as i64;
    let ms = |us: u64| us as f64 / h.scale_us as f64;
    let name = |c: usize| t.client_name(c).to_string();
    let nodes: Vec<&NodeLine> = r.nodes.values().collect();
    for (i, a) in nodes.iter().enumerate() {
        for b in &nodes[i + 1..] {
            if a.client != b.client && gap((a.from_us, a.to_us), (b.from_us, b.to_us)) < tol {
                return Some(format!(
                    "{}'s and {}'s creates reached the ensemble {:.2} ms apart",
                    name(a.client),
                    name(b.client),
                    (ms(a.from_us) - ms(b.from_us)).abs()
                ));
            }
        }
        for &(at, _) in &z.parent {
            if gap((a.from_us, a.to_us), (at, at)) < tol {
                return Some(format!(
                    "{}'s create and the lock parent's removal came {:.2} ms apart",
                    name(a.client),
                    (ms(a.from_us) - ms(at)).abs()
                ));
            }
        }
    }
    let mut stores: Vec<&Op> = r.ops.iter().filter(|o| o.kind == "store").collect();
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
        for op in r.ops.iter().filter(|o| o.client == c) {
            if gap((op.from_us, op.to_us), (at, at)) < tol {
                return Some(format!(
                    "{}'s {} at {:.2} ms came within the tolerance of its {sig:?} signal at \
                     {:.2} ms",
                    name(c),
                    op.kind,
                    ms(op.from_us),
                    ms(at)
                ));
            }
        }
    }
    for (c, notices) in r.notices.iter().enumerate() {
        // A stopped process woken by `SIGCONT` runs the work that fell due while it was
        // stopped on what it knew when that work fell due (`zk_client`), so what its library
        // reports on waking cannot change it: no race between the two then.
        let woke = |at: u64| {
            h.signals
                .iter()
                .any(|x| x.0 == c && x.1 == Signal::Cont && x.2 <= at && at - x.2 < tol as u64)
        };
        for (at, word) in notices {
            let near = r.ops.iter().find(|o| {
                o.client == c
                    && matches!(o.kind.as_str(), "send" | "skip" | "lock" | "unlock")
                    && ((o.from_us as i64 - *at as i64).abs() < tol
                        || (o.to_us as i64 - *at as i64).abs() < tol)
                    && !(woke(o.from_us) && woke(*at))
            });
            if let Some(op) = near {
                return Some(format!(
                    "{}'s library reported {word} at {:.2} ms, within the tolerance of its {} at \
                     {:.2} ms",
                    name(c),
                    ms(*at),
                    op.kind,
                    ms(op.from_us)
                ));
            }
        }
    }
    None
}

/// The largest distance between a timed lab fact and the model's, in real ms.
pub fn worst_offset_ms(s: &Scenario, t: &Trace, z: &ZkHappened) -> f64 {
    let Ok(r) = read(&z.h) else { return 0.0 };
    let real_ms = z.h.scale_us as f64 / 1000.0;
    let split = |v: &[ZkFact], verdicts: bool| -> Vec<ZkFact> {
        v.iter()
            .filter(|f| is_verdict(&f.text) == verdicts)
            .cloned()
            .collect()
    };
    model_facts(s, t)
        .0
        .iter()
        .zip(&lab_facts(s, z, &r))
        .flat_map(|(m, l)| {
            [false, true]
                .into_iter()
                .flat_map(|v| split(m, v).into_iter().zip(split(l, v)).collect::<Vec<_>>())
        })
        .filter(|(a, _)| a.timed)
        .map(|(a, b)| (a.check_ms - b.check_ms).abs() * real_ms)
        .fold(0.0, f64::max)
}

fn is_verdict(text: &str) -> bool {
    text.starts_with("debit accepted") || text == "debit rejected" || text == "debit duplicate"
}

/// When a difference between the model's fact and the lab's showed: the earlier of the two.
fn when(a: &Option<ZkFact>, b: &Option<ZkFact>) -> f64 {
    [a, b]
        .into_iter()
        .flatten()
        .map(|f| f.at_ms)
        .fold(f64::INFINITY, f64::min)
}

/// The earliest difference (client `c`: the model's fact and the run's, either missing): late
/// when the run had fallen behind before it or the run's fact came well after the model's
/// instant, a mismatch otherwise.
fn at_first_difference(
    t: &Trace,
    c: usize,
    (a, b): (Option<ZkFact>, Option<ZkFact>),
    (model, lab): (&[Vec<ZkFact>], &[Vec<ZkFact>]),
    split: &dyn Fn(&[ZkFact], bool) -> Vec<ZkFact>,
) -> Judgement {
    // Another client (or this one) fell behind before the difference: a fact the run and
    // the model agree on, done later than the model's instant for it, which the differing
    // client may then have acted on (the single-Redis judge's `history::behind_before`).
    if let Some((other, why)) = behind_before(model, lab, when(&a, &b), split) {
        return Judgement::Late(format!("{}'s {why}", t.client_name(other)));
    }
    // The lab's fact came well after the instant the model gives it: the run did not keep
    // the scenario's schedule (a process woken late on a loaded machine), so what it did is
    // no answer to the model; it is tried again at a larger scale.
    if let (Some(a), Some(b)) = (&a, &b) {
        let d = b.check_ms - a.check_ms;
        if a.timed && d > TOLERANCE_MS + LATE_MS {
            return Judgement::Late(format!(
                "{}'s `{}` happened at {:.2} ms, where the model has `{}` at {} ms: \
                 the run missed its schedule",
                t.client_name(c),
                b.text,
                b.check_ms,
                a.text,
                a.check_ms
            ));
        }
    }
    Judgement::Differs(format!(
        "{}: the model says `{}`, ZooKeeper and the clients did `{}`",
        t.client_name(c),
        show(a.as_ref()),
        show(b.as_ref())
    ))
}

/// Before a difference at `until_ms`: a timed fact of any client, in either of its sequences
/// (the verdicts and the rest, as `split` divides them), the same in the run and the model and
/// before that sequence's own first difference (so its pairing is certain), at or before
/// `until_ms` in the model, that the run did more than the allowed lateness after the model's
/// instant. Measured from the run's own timestamps: with every earlier fact on time, the
/// difference stays a mismatch.
fn behind_before(
    model: &[Vec<ZkFact>],
    lab: &[Vec<ZkFact>],
    until_ms: f64,
    split: &dyn Fn(&[ZkFact], bool) -> Vec<ZkFact>,
) -> Option<(usize, String)> {
    let mut worst: Option<(usize, ZkFact, ZkFact)> = None;
    for (c, (m, l)) in model.iter().zip(lab).enumerate() {
        for verdicts in [false, true] {
            let (m, l) = (split(m, verdicts), split(l, verdicts));
            let agreed = m.into_iter().zip(l).take_while(|(a, b)| a.text == b.text);
            for (a, b) in agreed {
                let behind = b.check_ms - a.check_ms > TOLERANCE_MS + LATE_MS;
                if a.timed
                    && behind
                    && a.check_ms <= until_ms
                    && worst.as_ref().is_none_or(|w| a.check_ms < w.1.check_ms)
                {
                    worst = Some((c, a, b));
                }
            }
        }
    }
    worst.map(|(c, a, b)| {
        (
            c,
            format!(
                "`{}` happened at {:.2} ms, the model's at {} ms: the run missed its schedule \
                 before the first difference",
                b.text, b.check_ms, a.check_ms
            ),
        )
    })
}

fn show(f: Option<&ZkFact>) -> String {
    f.map_or("(nothing)".to_string(), |f| {
        format!("{} at {:.1} ms", f.text, f.at_ms)
    })
}

/// Compares a ZooKeeper run with the model's trace.
/// A disconnection the client library reported and recovered from (SUSPENDED, then
/// RECONNECTED) where the model's client has none, and no wake of the client's process explains
/// it: its pings went unanswered for 9/20 of the session timeout while it ran, which on this
/// machine means a busy one (a stalled server or client thread), not a disagreement. Such a run
/// did not keep its schedule: it is rerun at a larger scale, where the session timeout is longer
/// (a lone SUSPENDED, or one after a wake, is judged as before).
fn recovered_disconnection(
    t: &Trace,
    h: &Happened,
    model: &[Vec<String>],
    lab: &[Vec<(u64, String)>],
) -> Option<String> {
    for (c, (m, l)) in model.iter().zip(lab).enumerate() {
        let words: Vec<&str> = l.iter().map(|x| x.1.as_str()).collect();
        if m.iter().map(String::as_str).eq(words.iter().copied()) {
            continue;
        }
        let mut kept: Vec<&str> = Vec::new();
        let mut extra_at = None;
        let mut k = 0;
        while k < l.len() {
            let pair = l[k].1 == "SUSPENDED" && l.get(k + 1).is_some_and(|x| x.1 == "RECONNECTED");
            // Only a pair the model does not have at this point counts as extra.
            if pair && m.get(kept.len()).map(String::as_str) != Some("SUSPENDED") {
                extra_at.get_or_insert(l[k].0);
                k += 2;
            } else {
                kept.push(l[k].1.as_str());
                k += 1;
            }
        }
        let Some(at) = extra_at else { continue };
        let after_wake = h
            .signals
            .iter()
            .any(|x| x.0 == c && x.1 == Signal::Cont && at >= x.2 && at - x.2 < 5 * h.scale_us);
        if !after_wake && m.iter().map(String::as_str).eq(kept.iter().copied()) {
            return Some(format!(
                "{}'s client library reported SUSPENDED then RECONNECTED at {:.1} ms while its \
                 process ran (pings unanswered on a busy machine), which the model's client \
                 does not: the run missed its schedule",
                t.client_name(c),
                at as f64 / h.scale_us as f64
            ));
        }
    }
    None
}

pub fn judge(s: &Scenario, t: &Trace, z: &ZkHappened) -> Judgement {
    let h = &z.h;
    if let Some(e) = h.lines.iter().flatten().find(|l| l.starts_with("error ")) {
        return Judgement::Broken(e.clone());
    }
    let r = match read(h) {
        Ok(r) => r,
        Err(e) => return Judgement::Broken(e),
    };
    if let Some(why) = crate::history::late_signal(s, h) {
        return Judgement::Late(why);
    }
    for &(c, sig, at) in &h.signals {
        let mine = |kind: &str| {
            r.ops
                .iter()
                .filter(|o| o.client == c && o.kind == kind && o.from_us <= at)
                .count()
        };
        if sig == Signal::Kill && mine("send") > mine("store") {
            return Judgement::Limit(format!(
                "{} is killed while its debit is in the network: the model delivers it, a real \
                 process's connection dies with it",
                t.client_name(c)
            ));
        }
    }
    if let Some(why) = frozen_write(t, &op_lines(h), &r.ops) {
        return Judgement::Limit(why);
    }
    if let Some(why) = too_close(t, z, &r) {
        return Judgement::TooClose(why);
    }
    if let Some(why) = parent_kept(t, &z.parent, h.scale_us) {
        return Judgement::Late(why);
    }
    let (model, model_notices) = model_facts(s, t);
    if let Some(why) = recovered_disconnection(t, h, &model_notices, &r.notices) {
        return Judgement::Late(why);
    }
    let lab = lab_facts(s, z, &r);
    // A debit's verdict comes back on a thread of its own while the client goes on with its
    // agenda: the verdicts are compared as a sequence of their own, every other fact in order.
    let split = |v: &[ZkFact], verdicts: bool| -> Vec<ZkFact> {
        v.iter()
            .filter(|f| is_verdict(&f.text) == verdicts)
            .cloned()
            .collect()
    };
    // Each client's first difference in either sequence; the earliest of them all is judged,
    // whichever client it is: a later one, in any client, may be its consequence (a verdict
    // that came back late changes what the other client finds), and no answer to the model.
    let mut first: Option<(usize, Option<ZkFact>, Option<ZkFact>)> = None;
    for (c, (m, l)) in model.iter().zip(&lab).enumerate() {
        for verdicts in [false, true] {
            let (m, l) = (split(m, verdicts), split(l, verdicts));
            let differs = (0..m.len().max(l.len()))
                .find(|&k| m.get(k).map(|f| &f.text) != l.get(k).map(|f| &f.text));
            if let Some(k) = differs {
                let (a, b) = (m.get(k).cloned(), l.get(k).cloned());
                if first
                    .as_ref()
                    .is_none_or(|f| when(&a, &b) < when(&f.1, &f.2))
                {
                    first = Some((c, a, b));
                }
            }
        }
    }
    if let Some((c, a, b)) = first {
        return at_first_difference(t, c, (a, b), (&model, &lab), &split);
    }
    for (c, (m, l)) in model_notices.iter().zip(&r.notices).enumerate() {
        let lab_words: Vec<&str> = l.iter().map(|x| x.1.as_str()).collect();
        if m.iter().map(String::as_str).ne(lab_words.iter().copied()) {
            // A process stopped for longer than the library's connection timeout finds, on
            // waking, no answer for that long: the library reports a disconnection and
            // reconnects, which the model's client (Curator's) does not.
            let woke = h
                .signals
                .iter()
                .filter(|x| x.0 == c && x.1 == Signal::Cont)
                .any(|x| {
                    l.iter()
                        .any(|(at, w)| w == "SUSPENDED" && *at >= x.2 && *at - x.2 < 5 * h.scale_us)
                });
            let why = format!(
                "{}'s connection states: the model says [{}], the client library reported [{}]",
                t.client_name(c),
                m.join(", "),
                lab_words.join(", ")
            );
            if woke {
                return Judgement::Limit(format!(
                    "{why}: the library reports SUSPENDED when a stopped process wakes after \
                     more than 9/20 of the session timeout without an answer, the model's client \
                     does not"
                ));
            }
            return Judgement::Differs(why);
        }
    }
    for (c, (m, l)) in model.iter().zip(&lab).enumerate() {
        let pairs =
            [false, true].map(|v| split(m, v).into_iter().zip(split(l, v)).collect::<Vec<_>>());
        for (a, b) in pairs.iter().flatten().filter(|(a, _)| a.timed) {
            let d = b.check_ms - a.check_ms;
            if !(-TOLERANCE_MS..=TOLERANCE_MS + LATE_MS).contains(&d) {
                return Judgement::Late(format!(
                    "{}'s `{}` happened at {:.2} ms, the model's at {} ms (allowed: \
                     {TOLERANCE_MS} ms early to {:.1} ms late)",
                    t.client_name(c),
                    b.text,
                    b.check_ms,
                    a.check_ms,
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
    let by_sequence = s
        .lock
        .zookeeper()
        .is_some_and(|x| x.fence == ZkFence::Sequence);
    let lab_fence = (h.last_fence >= 0).then(|| {
        if by_sequence {
            h.last_fence
        } else {
            z.relative(h.last_fence)
        }
    });
    if lab_fence != t.last_fence.map(|f| f as i64) {
        return Judgement::Differs(format!(
            "last fence: the model says {:?}, the storage holds {:?} (relative to the run's \
             first zxid)",
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

    /// zk-pause-czxid as the clients would print it at scale 20 000, the run's zxids starting
    /// at 0x100000000 + 100 (the model's 33 is 0x100000000 + 101).
    fn happened(b_debit_ms: f64) -> ZkHappened {
        let us = |ms: f64| (ms * 20_000.0) as u64;
        let z = |rel: i64| rel + 0x1_0000_0000 + 68;
        let a = vec![
            format!("zk session {} {} 0x1 600", us(0.0), us(0.05)),
            format!(
                "zk node 0 {} {} /l/lock-0000000000 0 {}",
                us(0.05),
                us(0.1),
                z(34)
            ),
            format!("op lock 0 {} {} granted {}", us(0.0), us(0.12), z(34)),
            format!("op send 2 {} {} {}", us(62.02), us(62.02), z(34)),
            format!("zk state {} 0x1 expired LOST", us(62.1)),
            format!("op store 2 {} {} rejected", us(62.03), us(62.2)),
            format!("op unlock 3 {} {} nothing", us(70.0), us(70.0)),
            format!("zk state {} 0x1 closed LOST", us(102.0)),
        ];
        let b = vec![
            format!("zk session {} {} 0x2 600", us(20.0), us(20.05)),
            format!(
                "zk node 0 {} {} /l/lock-0000000001 1 {}",
                us(20.05),
                us(20.1),
                z(36)
            ),
            format!("zk wait 0 {} /l/lock-0000000000", us(20.12)),
            format!("op lock 0 {} {} granted {}", us(20.0), us(41.3), z(36)),
            format!("op send 1 {} {} {}", us(b_debit_ms), us(b_debit_ms), z(36)),
            format!(
                "op store 1 {} {} accepted 90",
                us(b_debit_ms + 0.01),
                us(b_debit_ms + 0.1)
            ),
            format!("op unlock 2 {} {} released", us(60.0), us(60.05)),
        ];
        ZkHappened {
            h: Happened {
                lines: vec![a, b],
                signals: vec![(0, Signal::Stop, us(12.0)), (0, Signal::Cont, us(62.0))],
                balance: 90,
                last_fence: z(36),
                scale_us: 20_000,
            },
            offset: 0x1_0000_0000 + 68,
            parent: Vec::new(),
        }
    }

    #[test]
    fn the_paused_holder_matches_with_relative_zxids_and_a_late_debit_does_not() {
        let s = preset("zk-pause-czxid").expect("preset");
        let t = run(&s);
        assert_eq!(judge(&s, &t, &happened(50.02)), Judgement::Same);
        assert!(matches!(judge(&s, &t, &happened(53.0)), Judgement::Late(_)));
    }

    #[test]
    fn a_different_verdict_well_after_its_instant_is_a_missed_schedule() {
        let s = preset("zk-pause-czxid").expect("preset");
        let t = run(&s);
        // B's debit refused where the model accepts it: on time, a disagreement; 5 ms late, a
        // run that did not keep its schedule.
        let us = |ms: f64| (ms * 20_000.0) as u64;
        for (at, late) in [(50.02, false), (55.0, true)] {
            let mut z = happened(at);
            z.h.lines[1][5] = format!("op store 1 {} {} rejected", us(at + 0.01), us(at + 0.1));
            match judge(&s, &t, &z) {
                Judgement::Late(w) if late => assert!(w.contains("missed its schedule"), "{w}"),
                Judgement::Differs(_) if !late => {}
                other => panic!("{at}: {other:?}"),
            }
        }
    }

    #[test]
    fn the_earliest_difference_is_judged_whichever_client_it_is() {
        let s = preset("zk-pause-czxid").expect("preset");
        let t = run(&s);
        let us = |ms: f64| (ms * 20_000.0) as u64;
        // B's debit refused 5 ms late (a missed schedule), and after it, at 70 ms, A's unlock
        // deleting a node where the model has none left: A is listed first, but B's difference
        // came first, and what followed it is no answer to the model.
        let mut z = happened(55.0);
        z.h.lines[1][5] = format!("op store 1 {} {} rejected", us(55.01), us(55.1));
        z.h.lines[0][6] = format!("op unlock 3 {} {} released", us(70.0), us(70.0));
        match judge(&s, &t, &z) {
            Judgement::Late(w) => assert!(w.starts_with("B's"), "{w}"),
            other => panic!("{other:?}"),
        }
        // A's difference with B's debit, which both sides agree on, done 5 ms late before it:
        // the run fell behind before the first difference, which may be its consequence.
        let mut z = happened(55.0);
        z.h.lines[0][6] = format!("op unlock 3 {} {} released", us(70.0), us(70.0));
        match judge(&s, &t, &z) {
            Judgement::Late(w) => assert!(
                w.starts_with("B's") && w.contains("before the first difference"),
                "{w}"
            ),
            other => panic!("{other:?}"),
        }
        // A's difference alone, on time, is still a disagreement.
        let mut z = happened(50.02);
        z.h.lines[0][6] = format!("op unlock 3 {} {} released", us(70.0), us(70.0));
        match judge(&s, &t, &z) {
            Judgement::Differs(d) => assert!(d.starts_with("A:"), "{d}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_czxid_off_by_one_differs() {
        let s = preset("zk-pause-czxid").expect("preset");
        let t = run(&s);
        let mut z = happened(50.02);
        z.offset -= 1;
        match judge(&s, &t, &z) {
            Judgement::Differs(d) => assert!(d.contains("czxid 35"), "{d}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_disconnection_recovered_from_while_running_is_a_missed_schedule() {
        let s = preset("zk-pause-czxid").expect("preset");
        let t = run(&s);
        let us = |ms: f64| (ms * 20_000.0) as u64;
        let mut z = happened(50.02);
        z.h.lines[1].push(format!("zk state {} 0x2 disconnected SUSPENDED", us(30.0)));
        z.h.lines[1].push(format!("zk state {} 0x2 connected RECONNECTED", us(30.5)));
        match judge(&s, &t, &z) {
            Judgement::Late(w) => assert!(w.contains("missed its schedule"), "{w}"),
            other => panic!("{other:?}"),
        }
        // The same pair just after A's own wake is not explained by the load.
        let mut z = happened(50.02);
        z.h.lines[0].push(format!("zk state {} 0x1 disconnected SUSPENDED", us(62.01)));
        z.h.lines[0].push(format!("zk state {} 0x1 connected RECONNECTED", us(62.05)));
        assert!(!matches!(judge(&s, &t, &z), Judgement::Late(_)));
    }

    #[test]
    fn a_state_the_model_does_not_report_differs() {
        let s = preset("zk-pause-czxid").expect("preset");
        let t = run(&s);
        let mut z = happened(50.02);
        let at = (40.0 * 20_000.0) as u64;
        z.h.lines[1].push(format!("zk state {at} 0x2 disconnected SUSPENDED"));
        match judge(&s, &t, &z) {
            Judgement::Differs(d) => assert!(d.contains("SUSPENDED"), "{d}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_parent_still_holding_a_node_the_model_had_ended_is_a_missed_schedule() {
        let s = preset("zk-parent-sequence").expect("preset");
        let t = run(&s);
        let marks = &t.zookeeper.as_ref().expect("a ZooKeeper run").parent;
        assert!(marks
            .iter()
            .any(|m| m.at_ms == 50 && m.what == ParentChange::Removed));
        let at = 50 * 40_000;
        match parent_kept(&t, &[(at, false)], 40_000) {
            Some(w) => assert!(
                w.contains("missed its schedule") && w.contains("50.00"),
                "{w}"
            ),
            None => panic!("a parent kept where the model removed it"),
        }
        // Removed as the model has it: nothing to say here.
        assert_eq!(parent_kept(&t, &[(at, true)], 40_000), None);
        // Where the model keeps the parent (a lock still held under it), the lab removing it is
        // no lateness of this kind: the facts that follow are compared as usual.
        let mut kept = t.clone();
        for m in kept.zookeeper.iter_mut().flat_map(|z| z.parent.iter_mut()) {
            if m.what == ParentChange::Removed {
                m.what = ParentChange::Kept;
            }
        }
        assert_eq!(parent_kept(&kept, &[(at, true)], 40_000), None);
        assert_eq!(parent_kept(&kept, &[(at, false)], 40_000), None);
    }
}
