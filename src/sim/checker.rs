//! The checker: a verdict on a trace, computed from the trace alone. It reports each violation
//! in words: a stale write accepted, two clients writing while each believed it held the lock,
//! a balance that differs from a serial run of the accepted intents, a lease deleted by a
//! client that did not own it. In the efficiency tier double work is noted, not condemned.
//! Beside the verdict it lists what `liveness` observes: safe is not the same as working.

use super::liveness;
use super::trace::*;
use super::words;
use crate::sim::sort;
use std::collections::HashMap;

pub fn check(trace: &Trace) -> Verdict {
    let tier = trace.tier;
    let mut found = Vec::new();
    stale_writes(trace, &mut found);
    overlapping_writers(trace, &mut found);
    balance_mismatch(trace, &mut found);
    foreign_deletes(trace, &mut found);
    two_holders(trace, &mut found);
    sort::sort_by_key(&mut found, |v| v.at_ms);

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
    sort::sort_by_key(&mut ws, |w| w.arrived_ms);
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
/// when both beliefs overlapped. Each pair of clients is reported once, for its first such pair
/// of writes in send order.
fn overlapping_writers(trace: &Trace, out: &mut Vec<Violation>) {
    // The belief each write was sent under (the last span of its client and generation).
    let mut beliefs: Vec<((usize, u64), usize)> = trace
        .beliefs
        .iter()
        .enumerate()
        .map(|(k, b)| ((b.client, b.generation), k))
        .collect();
    // By key, then by index: the last of equal keys is the last span.
    sort::sort(&mut beliefs);
    let belief_of = |key: (usize, u64)| {
        let k = beliefs.partition_point(|(x, _)| *x <= key);
        beliefs[..k]
            .last()
            .filter(|(x, _)| *x == key)
            .map(|(_, b)| *b)
    };
    let mut ws: Vec<(&WriteRecord, usize)> = accepted(trace)
        .into_iter()
        .filter(|w| w.believed_held)
        .filter_map(|w| Some((w, belief_of((w.client, w.generation?))?)))
        .collect();
    sort::sort_by_key(&mut ws, |(w, _)| w.sent_ms);
    // Each belief's writes as positions in `ws`, so in send order.
    let mut writes_of: Vec<Vec<usize>> = vec![Vec::new(); trace.beliefs.len()];
    for (i, (_, b)) in ws.iter().enumerate() {
        writes_of[*b].push(i);
    }
    // The first write of belief `b` sent inside `[from, to]`.
    let first_inside = |b: usize, from: u64, to: u64| {
        let list = &writes_of[b];
        let k = list.partition_point(|&i| ws[i].0.sent_ms < from);
        list.get(k).copied().filter(|&i| ws[i].0.sent_ms <= to)
    };
    // Sweep the beliefs that carry writes by start, comparing each with the ones still open:
    // a client's beliefs follow one another, so few are open at once. For each pair of
    // clients keep the first pair of writes (in send order) that overlapped.
    let mut spans: Vec<(u64, usize)> = (0..writes_of.len())
        .filter(|&b| !writes_of[b].is_empty())
        .map(|b| (trace.beliefs[b].start_ms, b))
        .collect();
    sort::sort(&mut spans);
    // Per pair of clients (the lower one first): the first pair of writes (positions in `ws`)
    // and the overlap.
    type Found = ((usize, usize), u64, u64);
    let mut first: Vec<((usize, usize), Found)> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for (_, b) in spans {
        let bb = &trace.beliefs[b];
        open.retain(|&a| trace.beliefs[a].end_ms > bb.start_ms);
        for &a in &open {
            let ba = &trace.beliefs[a];
            let from = ba.start_ms.max(bb.start_ms);
            let to = ba.end_ms.min(bb.end_ms);
            if ba.client == bb.client || from >= to {
                continue;
            }
            let (Some(ia), Some(ib)) = (first_inside(a, from, to), first_inside(b, from, to))
            else {
                continue;
            };
            let at = (ia.min(ib), ia.max(ib));
            let pair = (ba.client.min(bb.client), ba.client.max(bb.client));
            match first.iter_mut().find(|(p, _)| *p == pair) {
                Some((_, best)) if at < best.0 => *best = (at, from, to),
                Some(_) => {}
                None => first.push((pair, (at, from, to))),
            }
        }
        if bb.end_ms > bb.start_ms {
            open.push(b);
        }
    }
    let mut found: Vec<Found> = first.into_iter().map(|(_, f)| f).collect();
    // Each pair of writes belongs to one pair of clients: ordered by the writes alone.
    sort::sort(&mut found);
    for ((i, j), from, to) in found {
        let (x, y) = (ws[i].0, ws[j].0);
        out.push(Violation {
            kind: ViolationKind::OverlappingWriters,
            at_ms: x.arrived_ms.max(y.arrived_ms),
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

/// The balance a serial run of the accepted intents gives: each idempotency key counts once.
fn balance_mismatch(trace: &Trace, out: &mut Vec<Violation>) {
    let start = trace.balance.first().map_or(0, |p| p.balance);
    let mut intents: HashMap<String, (i64, usize)> = HashMap::new();
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
        // In the order of the keys, whatever order the map keeps them in.
        let mut repeated: Vec<(&String, usize)> = intents
            .iter()
            .filter(|(k, (_, n))| *n > 1 && !k.starts_with('#'))
            .map(|(k, (_, n))| (k, *n))
            .collect();
        sort::sort(&mut repeated);
        let repeated: Vec<String> = repeated
            .into_iter()
            .map(|(k, n)| format!("{k} ran {n} times"))
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
    sort::sort_by_key(&mut spans, |b| b.start_ms);
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
