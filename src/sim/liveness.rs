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
