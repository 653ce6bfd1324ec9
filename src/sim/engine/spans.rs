//! What the finished lease spans imply, computed once when a run ends so that every reader
//! (checker, narration, lanes, playhead) takes it from the trace: when each client held a
//! majority of the instances, and from when each belief was stale.

use crate::sim::sort;
use crate::sim::trace::{HoldSpan, Trace};
use std::collections::HashMap;

/// A belief turns stale where fewer than a majority of instances still hold its grant.
pub fn mark_stale_beliefs(trace: &mut Trace) {
    let majority = trace.majority.max(1);
    let mut ends: HashMap<(usize, u64), Vec<u64>> = HashMap::new();
    for l in &trace.leases {
        ends.entry((l.holder, l.generation))
            .or_default()
            .push(l.end_ms);
    }
    for b in &mut trace.beliefs {
        let mut e = ends.remove(&(b.client, b.generation)).unwrap_or_default();
        sort::sort_by(&mut e, |x, y| y.cmp(x));
        let lost_at = e.get(majority - 1).copied().unwrap_or(b.start_ms);
        if b.end_ms > lost_at {
            b.stale_from_ms = Some(lost_at.max(b.start_ms));
        }
    }
}

/// Every client's majority stretches, by start. Lease spans are half-open, so a key that
/// expires at the instant another is granted does not overlap it.
pub fn majority_spans(trace: &Trace) -> Vec<HoldSpan> {
    let need = trace.majority.max(1);
    let mut out = Vec::new();
    for client in 0..trace.clients.len() {
        let mut edges: Vec<(u64, bool, usize)> = trace
            .leases
            .iter()
            .filter(|l| l.holder == client && l.end_ms > l.start_ms)
            .flat_map(|l| {
                [
                    (l.start_ms, true, l.instance),
                    (l.end_ms, false, l.instance),
                ]
            })
            .collect();
        // At one instant, ends (false) sort before starts (true).
        sort::sort(&mut edges);
        let mut held = vec![0u32; trace.instances.len().max(1)];
        let mut since = None;
        for (t, start, i) in edges {
            let Some(h) = held.get_mut(i) else { continue };
            *h = if start {
                h.saturating_add(1)
            } else {
                h.saturating_sub(1)
            };
            let count = held.iter().filter(|&&h| h > 0).count();
            match (since, count >= need) {
                (None, true) => since = Some(t),
                (Some(s), false) => {
                    since = None;
                    if t > s {
                        out.push(HoldSpan {
                            client,
                            start_ms: s,
                            end_ms: t,
                        });
                    }
                }
                _ => {}
            }
        }
    }
    sort::sort_by_key(&mut out, |h| (h.start_ms, h.client));
    out
}

#[cfg(test)]
mod tests {
    use crate::sim::presets::preset;
    use crate::sim::run;
    use crate::sim::trace::HoldSpan;

    fn spans(id: &str) -> Vec<(usize, u64, u64)> {
        let t = run(&preset(id).expect("a preset"));
        t.majorities
            .iter()
            .map(|h| (h.client, h.start_ms, h.end_ms))
            .collect()
    }

    #[test]
    fn majorities_follow_the_instance_keys() {
        // R3's jump at 15 ms expires A's third key: A's majority lasts 5–15 ms, then B holds
        // R3, R4 and R5 from 29 ms, while A still believes (in its client lane) until 58 ms.
        assert_eq!(spans("redlock-clock-jump"), [(0, 5, 15), (1, 29, 85)]);
        // Forgetting a key on restart ends A's majority at the crash.
        let a: Vec<_> = spans("redlock-restart")
            .into_iter()
            .filter(|h| h.0 == 0)
            .collect();
        assert_eq!(a, [(0, 5, 20)]);
        // The happy path: all five keys; the majority ends when the third one expires.
        let t = run(&preset("redlock-happy").expect("a preset"));
        assert_eq!(
            t.majorities,
            [HoldSpan {
                client: 0,
                start_ms: 5,
                end_ms: 65
            }]
        );
        // A single instance is its own majority.
        let t = run(&preset("gc-pause-fenced").expect("a preset"));
        assert!(t.majorities.iter().all(|h| h.end_ms > h.start_ms));
        assert_eq!(t.majorities.len(), t.leases.len());
    }
}
