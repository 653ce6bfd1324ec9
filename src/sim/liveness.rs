//! Liveness: whether the work got done, apart from whether it was safe. A run in which the
//! storage refuses every write, the rightful holder's included, breaks no safety rule and does
//! nothing useful. These observations are computed from the trace alone, for any scenario, and
//! kept apart from the violations: the verdict says "safe" or "unsafe", this says what did not
//! happen.

use super::trace::*;
use super::words;
use crate::sim::sort;

/// Every liveness observation about `trace`, in time order.
pub fn observe(trace: &Trace) -> Vec<Observation> {
    let mut out = holders_refused(trace);
    out.extend(every_debit_refused(trace));
    out.extend(waited_behind_holder(trace));
    sort::sort_by_key(&mut out, |o| o.at_ms);
    out
}

/// Whether `client` held the lock at `t`: a live lease for a single Redis, live keys on a
/// majority of the instances for Redlock (the trace's majority spans say both).
fn held_at(trace: &Trace, client: usize, t: u64) -> bool {
    trace
        .majorities
        .iter()
        .any(|h| h.client == client && h.start_ms <= t && t < h.end_ms)
}

/// A debit sent while its client held the lock, which the storage refused anyway.
fn holders_refused(trace: &Trace) -> Vec<Observation> {
    trace
        .writes
        .iter()
        .filter_map(|w| match &w.verdict {
            Some(v @ DebitVerdict::Rejected { .. }) if held_at(trace, w.client, w.sent_ms) => {
                let who = trace.client_name(w.client);
                Some(Observation {
                    kind: LivenessKind::HolderRefused,
                    at_ms: w.arrived_ms,
                    clients: vec![w.client],
                    text: format!(
                        "{who} held the lock when it sent its debit of {} at {} ms, yet the storage refused it ({})",
                        w.amount,
                        w.sent_ms,
                        words::verdict_text(v)
                    ),
                })
            }
            _ => None,
        })
        .collect()
}

/// Every debit that reached the storage was refused: nothing was written at all.
fn every_debit_refused(trace: &Trace) -> Option<Observation> {
    let judged: Vec<&WriteRecord> = trace
        .writes
        .iter()
        .filter(|w| w.verdict.is_some())
        .collect();
    let refused = judged
        .iter()
        .filter(|w| matches!(w.verdict, Some(DebitVerdict::Rejected { .. })))
        .count();
    if judged.is_empty() || refused < judged.len() {
        return None;
    }
    let mut clients: Vec<usize> = judged.iter().map(|w| w.client).collect();
    sort::sort(&mut clients);
    clients.dedup();
    Some(Observation {
        kind: LivenessKind::EveryDebitRefused,
        at_ms: judged.iter().map(|w| w.arrived_ms).max().unwrap_or(0),
        clients,
        text: if refused == 1 {
            "the only debit was refused: nothing was written".to_string()
        } else {
            format!("every debit was refused ({refused} of {refused}): nothing was written")
        },
    })
}

/// A lock call that blocked behind another session (an advisory lock: it never expires), with
/// how long, and whether the holder was stopped meanwhile: safe is not the same as working.
fn waited_behind_holder(trace: &Trace) -> Vec<Observation> {
    let Some(a) = &trace.advisory else {
        return Vec::new();
    };
    a.waits
        .iter()
        .filter(|w| w.end_ms > w.start_ms)
        .filter_map(|w| {
            let who = trace.client_name(w.client);
            let holder = trace
                .leases
                .iter()
                .find(|l| l.start_ms <= w.start_ms && w.start_ms < l.end_ms)
                .map(|l| l.holder);
            let paused = holder.is_some_and(|h| {
                trace
                    .pauses
                    .iter()
                    .any(|p| p.client == h && p.start_ms < w.end_ms && w.start_ms < p.end_ms)
            });
            let by = holder.map_or("another session".to_string(), |h| {
                format!("{}'s session", trace.client_name(h))
            });
            let ended = match w.end {
                PgWaitEnd::Open => "and was still waiting when the run ended".to_string(),
                PgWaitEnd::Granted => format!("until {} ms", w.end_ms),
                PgWaitEnd::Failed | PgWaitEnd::Abandoned => {
                    format!("until its call failed at {} ms", w.end_ms)
                }
            };
            // A holder that worked and then let go (or died) is how a lock should be used.
            if !paused && w.end != PgWaitEnd::Open {
                return None;
            }
            Some(Observation {
                kind: LivenessKind::WaitedBehindHolder,
                at_ms: w.end_ms,
                clients: holder.into_iter().chain([w.client]).collect(),
                text: format!(
                    "{who} waited {} ms for advisory lock {} behind {by}{}, {ended}: an advisory lock never expires, so a stuck holder stalls every waiter",
                    w.end_ms - w.start_ms,
                    a.lock_id,
                    if paused { ", which was paused" } else { "" },
                ),
            })
        })
        .collect()
}
