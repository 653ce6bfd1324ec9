//! Shrinking, as proptest and Hypothesis do it: a failing schedule is made smaller one step at
//! a time, and a step is kept only when the smaller schedule still fails (every kept step is a
//! run that failed). The steps, tried in this order until none applies: drop a fault, drop one
//! of the scenario's own events, weaken a fault (shorter pause, delay, outage or partition;
//! smaller jump; keys kept; one client cut off instead of all), move a fault to a round time.
//! Each kept step makes (faults, own events, total size, roughness of times) smaller in that
//! order, so shrinking ends; it is also bounded by a number of runs.

use super::fault::{bounds_of, scenario_of, Fault, Own, Schedule};
use super::probe::fails;
use super::spec::SearchSpec;
use crate::sim::scenario::Scenario;
use serde::Serialize;

/// One kept step: what changed, and how many faults and own events remain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShrinkStep {
    pub text: String,
    pub faults: usize,
    pub own_events: usize,
}

pub struct Shrunk {
    pub schedule: Schedule,
    pub steps: Vec<ShrinkStep>,
    /// Runs spent, kept or not.
    pub runs: u64,
    /// True when the run bound stopped shrinking before no step applied.
    pub cut_short: bool,
}

/// How far a time is from round: 0 on a multiple of 10, 1 on a multiple of 5, else 2.
fn roughness(t: u64) -> u8 {
    if t % 10 == 0 {
        0
    } else if t % 5 == 0 {
        1
    } else {
        2
    }
}

fn own_events(base: &Scenario, dropped: &[Own]) -> Vec<Own> {
    let clients = base.clients.iter().enumerate().flat_map(|(c, cl)| {
        (0..cl.events.len()).map(move |e| Own::Client {
            client: c,
            event: e,
        })
    });
    let instances = base
        .lock
        .redlock
        .iter()
        .flat_map(|r| r.instances.iter().enumerate())
        .flat_map(|(i, inst)| {
            (0..inst.events.len()).map(move |e| Own::Instance {
                instance: i,
                event: e,
            })
        });
    clients
        .chain(instances)
        .filter(|o| !dropped.contains(o))
        .collect()
}

fn own_text(base: &Scenario, o: &Own) -> String {
    match *o {
        Own::Client { client, event } => {
            let c = &base.clients[client];
            let e = &c.events[event];
            format!("{}'s {} at {} ms", c.name, e.kind(), e.at_ms())
        }
        Own::Instance { instance, event } => {
            let Some(inst) = base
                .lock
                .redlock
                .as_ref()
                .and_then(|r| r.instances.get(instance))
            else {
                return "an instance event".to_string();
            };
            let at = inst.events.get(event).map_or(0, |e| e.at_ms());
            format!("{}'s event at {at} ms", inst.name)
        }
    }
}

/// Weaker versions of a fault, weakest first.
fn weaker(f: &Fault, spec: &SearchSpec, clients: usize) -> Vec<Fault> {
    let mut out = Vec::new();
    if let Some(v) = f.size() {
        let r = bounds_of(f, spec);
        let sign = v.signum();
        // The smallest size of the same sign the bounds allow.
        let lo = if sign >= 0 {
            r.min.max(1)
        } else {
            r.max.min(-1)
        };
        let mut sizes = vec![lo, v - (v - lo) / 2, v - sign];
        sizes.dedup();
        for s in sizes {
            if s.abs() < v.abs() && s.signum() == sign && (r.min..=r.max).contains(&s) {
                out.push(f.with_size(s));
            }
        }
    }
    match f {
        Fault::InstanceCrash {
            persistent: false, ..
        } => {
            let mut g = f.clone();
            if let Fault::InstanceCrash { persistent, .. } = &mut g {
                *persistent = true;
            }
            out.push(g);
        }
        Fault::Partition { client: None, .. } => {
            for c in 0..clients {
                let mut g = f.clone();
                if let Fault::Partition { client, .. } = &mut g {
                    *client = Some(c);
                }
                out.push(g);
            }
        }
        _ => {}
    }
    out
}

/// The same fault at rounder times: the nearest multiples of 10, then of 5.
fn rounder(f: &Fault) -> Vec<Fault> {
    let Some(t) = f.at_ms() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for step in [10, 5] {
        for u in [t - t % step, t - t % step + step] {
            if roughness(u) < roughness(t) && !out.contains(&f.with_at_ms(u)) {
                out.push(f.with_at_ms(u));
            }
        }
    }
    out
}

/// Every single step from `cur`, in the order they are tried, with its words.
fn candidates(base: &Scenario, spec: &SearchSpec, cur: &Schedule) -> Vec<(Schedule, String)> {
    let mut out = Vec::new();
    for (i, f) in cur.faults.iter().enumerate() {
        let mut s = cur.clone();
        s.faults.remove(i);
        out.push((s, format!("dropped a fault: {}", f.text(base))));
    }
    for o in own_events(base, &cur.dropped) {
        let mut s = cur.clone();
        s.dropped.push(o);
        s.dropped.sort();
        out.push((s, format!("left out {}", own_text(base, &o))));
    }
    for (i, f) in cur.faults.iter().enumerate() {
        for g in weaker(f, spec, base.clients.len()) {
            let mut s = cur.clone();
            let text = format!("weaker: {}", g.text(base));
            s.faults[i] = g;
            out.push((s, text));
        }
    }
    for (i, f) in cur.faults.iter().enumerate() {
        for g in rounder(f) {
            let mut s = cur.clone();
            let text = format!("rounder: {}", g.text(base));
            s.faults[i] = g;
            out.push((s, text));
        }
    }
    out
}

/// Shrinks a failing schedule; `max_runs` bounds the work.
pub fn shrink(base: &Scenario, spec: &SearchSpec, start: Schedule, max_runs: u64) -> Shrunk {
    let failure = spec.failure.as_ref();
    let mut cur = start;
    let mut steps = Vec::new();
    let mut runs = 0;
    'outer: loop {
        for (cand, text) in candidates(base, spec, &cur) {
            if runs >= max_runs {
                return Shrunk {
                    schedule: cur,
                    steps,
                    runs,
                    cut_short: true,
                };
            }
            runs += 1;
            if fails(&scenario_of(base, &cand), failure) {
                steps.push(ShrinkStep {
                    text,
                    faults: cand.faults.len(),
                    own_events: own_events(base, &cand.dropped).len(),
                });
                cur = cand;
                continue 'outer;
            }
        }
        return Shrunk {
            schedule: cur,
            steps,
            runs,
            cut_short: false,
        };
    }
}
