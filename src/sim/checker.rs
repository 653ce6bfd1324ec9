//! The checker: a verdict on a trace, computed from the trace alone. It reports each violation
//! in words: a stale write accepted, two clients writing while each believed it held the lock,
//! a balance that differs from a serial run of the accepted intents, a lease deleted by a
//! client that did not own it. In the efficiency tier double work is noted, not condemned.
//! Beside the verdict it lists what `liveness` observes: safe is not the same as working.

use super::liveness;
use super::trace::*;
use super::words;
use std::collections::BTreeMap;

pub fn check(trace: &Trace) -> Verdict {
    let tier = trace.tier;
    let mut found = Vec::new();
    stale_writes(trace, &mut found);
    overlapping_writers(trace, &mut found);
    balance_mismatch(trace, &mut found);
    foreign_deletes(trace, &mut found);
    two_holders(trace, &mut found);
    found.sort_by_key(|v| v.at_ms);

    let mut notes = Vec::new();
    let violations: Vec<Violation> = match tier {
        Tier::Correctness => found,
        Tier::Efficiency => found
            .into_iter()
            .filter_map(|v| match v.kind {
                ViolationKind::StaleWriteAccepted
                | ViolationKind::OverlappingWriters
                | ViolationKind::TwoHolders => {
                    notes.push(format!(
                        "Efficiency tier, so harmless double work: {}",
                        v.text
                    ));
                    None
                }
                _ => Some(v),
            })
            .collect(),
    };
    Verdict {
        safe: violations.is_empty(),
        violations,
        notes,
        liveness: liveness::observe(trace),
    }
}

fn token_text(trace: &Trace, w: &WriteRecord) -> String {
    words::token_text(trace, w.token)
}

fn accepted(trace: &Trace) -> Vec<&WriteRecord> {
    let mut ws: Vec<&WriteRecord> = trace
        .writes
        .iter()
        .filter(|w| w.verdict.as_ref().is_some_and(|v| v.is_accepted()))
        .collect();
    ws.sort_by_key(|w| w.arrived_ms);
    ws
}

/// A write accepted after a write of a newer lock generation: the storage went backwards.
fn stale_writes(trace: &Trace, out: &mut Vec<Violation>) {
    let mut newest: Option<&WriteRecord> = None;
    for w in accepted(trace) {
        match (newest, w.generation) {
            (Some(n), Some(g)) if n.generation.is_some_and(|ng| g < ng) => {
                out.push(Violation {
                    kind: ViolationKind::StaleWriteAccepted,
                    at_ms: w.arrived_ms,
                    clients: vec![w.client, n.client],
                    text: format!(
                        "{}'s debit with {} was accepted at {} ms, after {}'s debit with {} from a newer lease",
                        trace.client_name(w.client),
                        token_text(trace, w),
                        w.arrived_ms,
                        trace.client_name(n.client),
                        token_text(trace, n)
                    ),
                });
            }
            (_, None) => out.push(Violation {
                kind: ViolationKind::StaleWriteAccepted,
                at_ms: w.arrived_ms,
                clients: vec![w.client],
                text: format!(
                    "{}'s debit was accepted at {} ms although {} never held the lock",
                    trace.client_name(w.client),
                    w.arrived_ms,
                    trace.client_name(w.client)
                ),
            }),
            _ => {}
        }
        if w.generation > newest.and_then(|n| n.generation) {
            newest = Some(w);
        }
    }
}

/// Two accepted writes, each sent while its client believed it held the lock, inside the time
/// when both beliefs overlapped.
fn overlapping_writers(trace: &Trace, out: &mut Vec<Violation>) {
    let beliefs: BTreeMap<(usize, u64), &BeliefSpan> = trace
        .beliefs
        .iter()
        .map(|b| ((b.client, b.generation), b))
        .collect();
    // Each believed, accepted write with its belief span, ordered by send time, so that only
    // writes sent inside a span are compared with it.
    let mut ws: Vec<(&WriteRecord, &BeliefSpan)> = accepted(trace)
        .into_iter()
        .filter(|w| w.believed_held)
        .filter_map(|w| Some((w, *beliefs.get(&(w.client, w.generation?))?)))
        .collect();
    ws.sort_by_key(|(w, _)| w.sent_ms);
    let mut reported: Vec<(usize, usize)> = Vec::new();
    for (i, (a, ba)) in ws.iter().enumerate() {
        let first = ws.partition_point(|(w, _)| w.sent_ms < ba.start_ms);
        for (j, (b, bb)) in ws.iter().enumerate().skip(first) {
            if b.sent_ms > ba.end_ms {
                break;
            }
            let pair = (a.client.min(b.client), a.client.max(b.client));
            if j == i || a.client == b.client || reported.contains(&pair) {
                continue;
            }
            let from = ba.start_ms.max(bb.start_ms);
            let to = ba.end_ms.min(bb.end_ms);
            let inside = |w: &WriteRecord| from <= w.sent_ms && w.sent_ms <= to;
            if from < to && inside(a) && inside(b) {
                reported.push(pair);
                let (x, y) = if a.sent_ms <= b.sent_ms {
                    (a, b)
                } else {
                    (b, a)
                };
                out.push(Violation {
                    kind: ViolationKind::OverlappingWriters,
                    at_ms: a.arrived_ms.max(b.arrived_ms),
                    clients: vec![x.client, y.client],
                    text: format!(
                        "{} and {} both wrote while each believed it held the lock ({}–{} ms)",
                        trace.client_name(x.client),
                        trace.client_name(y.client),
                        from,
                        to
                    ),
                });
            }
        }
    }
}

/// The balance a serial run of the accepted intents gives: each idempotency key counts once.
fn balance_mismatch(trace: &Trace, out: &mut Vec<Violation>) {
    let start = trace.balance.first().map_or(0, |p| p.balance);
    let mut intents: BTreeMap<String, (i64, usize)> = BTreeMap::new();
    let mut serial = start;
    for (i, w) in accepted(trace).into_iter().enumerate() {
        match &w.idempotency_key {
            Some(k) => {
                let entry = intents.entry(k.clone()).or_insert((w.amount, 0));
                if entry.1 == 0 {
                    serial = serial.saturating_sub(w.amount);
                }
                entry.1 += 1;
            }
            None => {
                serial = serial.saturating_sub(w.amount);
                intents.insert(format!("#{i}"), (w.amount, 1));
            }
        }
    }
    if serial != trace.final_balance {
        let repeated: Vec<String> = intents
            .iter()
            .filter(|(k, (_, n))| *n > 1 && !k.starts_with('#'))
            .map(|(k, (_, n))| format!("{k} ran {n} times"))
            .collect();
        out.push(Violation {
            kind: ViolationKind::BalanceMismatch,
            at_ms: trace.balance.last().map_or(0, |p| p.at_ms),
            clients: Vec::new(),
            text: format!(
                "double debit: balance {} but a serial run of the accepted intents gives {} ({})",
                trace.final_balance,
                serial,
                repeated.join(", ")
            ),
        });
    }
}

/// A bare DEL that deleted someone else's live lease.
fn foreign_deletes(trace: &Trace, out: &mut Vec<Violation>) {
    for s in &trace.steps {
        if let Outcome::Released {
            own: false,
            deleted: Some(victim),
            ..
        } = &s.outcome
        {
            let victim_id = trace.clients.iter().position(|c| c == victim);
            out.push(Violation {
                kind: ViolationKind::LeaseDeletedByNonOwner,
                at_ms: s.at_ms,
                clients: std::iter::once(s.client).chain(victim_id).collect(),
                text: format!(
                    "{}'s bare DEL at {} ms deleted {}'s live lease",
                    trace.client_name(s.client),
                    s.at_ms,
                    victim
                ),
            });
        }
    }
}

/// Two clients whose locks were valid by their own clocks at the same true time. A lock
/// service exists to make this impossible; clock jumps and forgetful restarts break it.
fn two_holders(trace: &Trace, out: &mut Vec<Violation>) {
    let mut spans: Vec<&BeliefSpan> = trace
        .beliefs
        .iter()
        .filter(|b| b.valid_until_ms > b.start_ms)
        .collect();
    spans.sort_by_key(|b| b.start_ms);
    let mut reported: Vec<(usize, usize)> = Vec::new();
    for (i, a) in spans.iter().enumerate() {
        // Sorted by start: later spans that start after `a` ends cannot overlap it.
        for b in spans[i + 1..]
            .iter()
            .take_while(|b| b.start_ms < a.valid_until_ms)
        {
            let pair = (a.client.min(b.client), a.client.max(b.client));
            if a.client == b.client || reported.contains(&pair) {
                continue;
            }
            let from = a.start_ms.max(b.start_ms);
            let to = a.valid_until_ms.min(b.valid_until_ms);
            if from < to {
                reported.push(pair);
                out.push(Violation {
                    kind: ViolationKind::TwoHolders,
                    at_ms: from,
                    clients: vec![a.client, b.client],
                    text: words::two_holders_text(trace, a, b, from, to),
                });
            }
        }
    }
}
