//! The finite grid an exhaustive search walks. Faults only change an outcome when they start or
//! end near something that happens: an event, a grant, a lease's or a renewal's end, a
//! validity end, a write's arrival. So the grid's instants are those times (read from the run
//! without faults) each ± 1 ms, and a fault's length is what takes it from one instant to
//! another, plus the spec's bounds. Schedules are numbered: first every single fault, then every
//! pair, and so on up to k, each size in lexicographic order, so "the lowest failing index" is
//! one well-defined schedule however the range is split among workers.

use super::fault::Fault;
use super::spec::{FaultKind, Persistence, Range, SearchSpec};
use crate::sim::scenario::{Event, Scenario};
use crate::sim::trace::Trace;
use std::collections::BTreeSet;

/// The instants that matter in a run, each ± 1 ms, from 0 to the run's end.
pub fn instants(s: &Scenario, trace: &Trace) -> Vec<u64> {
    let mut core: BTreeSet<u64> = BTreeSet::new();
    core.insert(0);
    for c in &s.clients {
        for e in &c.events {
            core.insert(e.at_ms());
            core.insert(e.end_ms());
        }
    }
    for st in &trace.steps {
        core.insert(st.at_ms);
    }
    for l in &trace.leases {
        core.extend([l.start_ms, l.end_ms]);
        core.extend(l.renewals_ms.iter().copied());
    }
    for b in &trace.beliefs {
        core.extend([b.start_ms, b.end_ms, b.valid_until_ms]);
    }
    for w in &trace.writes {
        core.extend([w.sent_ms, w.arrived_ms]);
    }
    for a in &trace.acquisitions {
        core.extend([a.start_ms, a.end_ms]);
    }
    let end = trace.end_ms.max(s.horizon_ms());
    let mut out: BTreeSet<u64> = BTreeSet::new();
    for t in core {
        for u in [t.saturating_sub(1), t, t.saturating_add(1)] {
            if u <= end {
                out.insert(u);
            }
        }
    }
    out.into_iter().collect()
}

/// Lengths from `t` to each later instant, inside `r`, plus `r`'s ends.
fn lengths(t: u64, instants: &[u64], r: Range) -> Vec<u64> {
    let mut out: BTreeSet<u64> = [r.min.max(0) as u64, r.max.max(0) as u64].into();
    for &e in instants {
        if e > t {
            let d = (e - t) as i64;
            if (r.min..=r.max).contains(&d) {
                out.insert(d as u64);
            }
        }
    }
    out.into_iter().filter(|d| *d > 0).collect()
}

/// Signed jumps from `t`: to each later instant forward and back, inside `r`, plus its ends.
fn jumps(t: u64, instants: &[u64], r: Range) -> Vec<i64> {
    let mut out: BTreeSet<i64> = [r.min, r.max].into();
    for &e in instants {
        if e > t {
            for d in [(e - t) as i64, -((e - t) as i64)] {
                if (r.min..=r.max).contains(&d) {
                    out.insert(d);
                }
            }
        }
    }
    out.into_iter().filter(|d| *d != 0).collect()
}

/// How many values each dimension of the grid has, for "grid: …" in the report.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GridSize {
    pub instants: usize,
    /// Single faults of each kind, by kind name.
    pub per_kind: Vec<(String, usize)>,
    pub single_faults: usize,
}

/// Every single fault the grid holds, in a fixed order.
pub fn options(s: &Scenario, spec: &SearchSpec, instants: &[u64]) -> (Vec<Fault>, GridSize) {
    let mut out = Vec::new();
    let mut per_kind = Vec::new();
    let instances = s.lock.redlock.as_ref().map_or(0, |r| r.instances.len());
    for kind in &spec.faults {
        let before = out.len();
        for c in 0..s.clients.len() {
            client_faults(s, spec, instants, *kind, c, &mut out);
        }
        match kind {
            FaultKind::LockClockJump if instances == 0 => {
                for &t in instants {
                    for by_ms in jumps(t, instants, spec.jump_ms) {
                        out.push(Fault::LockClockJump {
                            instance: None,
                            at_ms: t,
                            by_ms,
                        });
                    }
                }
            }
            _ => {
                for i in 0..instances {
                    instance_faults(s, spec, instants, *kind, i, &mut out);
                }
            }
        }
        per_kind.push((kind.name().to_string(), out.len() - before));
    }
    let size = GridSize {
        instants: instants.len(),
        single_faults: out.len(),
        per_kind,
    };
    (out, size)
}

fn client_faults(
    s: &Scenario,
    spec: &SearchSpec,
    instants: &[u64],
    kind: FaultKind,
    client: usize,
    out: &mut Vec<Fault>,
) {
    match kind {
        FaultKind::Pause => {
            for &t in instants {
                for d in lengths(t, instants, spec.pause_ms) {
                    out.push(Fault::Pause {
                        client,
                        at_ms: t,
                        duration_ms: d,
                        cause: spec.pause_cause,
                    });
                }
            }
        }
        FaultKind::Delay => {
            for (event, e) in s.clients[client].events.iter().enumerate() {
                if let Event::Debit { at_ms, .. } | Event::CheckThenWrite { at_ms, .. } = e {
                    for d in lengths(*at_ms, instants, spec.delay_ms) {
                        out.push(Fault::Delay {
                            client,
                            event,
                            delay_ms: d,
                        });
                    }
                }
            }
        }
        FaultKind::ClientClockJump => {
            for &t in instants {
                for by_ms in jumps(t, instants, spec.jump_ms) {
                    out.push(Fault::ClientClockJump {
                        client,
                        at_ms: t,
                        by_ms,
                    });
                }
            }
        }
        FaultKind::ClientCrash => {
            for &t in instants {
                out.push(Fault::ClientCrash { client, at_ms: t });
            }
        }
        FaultKind::LockClockJump | FaultKind::InstanceCrash | FaultKind::Partition => {}
    }
}

fn instance_faults(
    s: &Scenario,
    spec: &SearchSpec,
    instants: &[u64],
    kind: FaultKind,
    instance: usize,
    out: &mut Vec<Fault>,
) {
    let persist: &[bool] = match spec.persistence {
        Persistence::With => &[true],
        Persistence::Without => &[false],
        Persistence::Both => &[false, true],
    };
    for &t in instants {
        match kind {
            FaultKind::LockClockJump => {
                for by_ms in jumps(t, instants, spec.jump_ms) {
                    out.push(Fault::LockClockJump {
                        instance: Some(instance),
                        at_ms: t,
                        by_ms,
                    });
                }
            }
            FaultKind::InstanceCrash => {
                for d in lengths(t, instants, spec.down_ms) {
                    for &persistent in persist {
                        out.push(Fault::InstanceCrash {
                            instance,
                            at_ms: t,
                            down_ms: d,
                            persistent,
                        });
                    }
                }
            }
            FaultKind::Partition => {
                for d in lengths(t, instants, spec.partition_ms) {
                    let whom = std::iter::once(None).chain((0..s.clients.len()).map(Some));
                    for client in whom {
                        out.push(Fault::Partition {
                            instance,
                            at_ms: t,
                            duration_ms: d,
                            client,
                        });
                    }
                }
            }
            _ => {}
        }
    }
}

/// n choose j, saturating.
pub fn choose(n: u64, j: u64) -> u64 {
    if j > n {
        return 0;
    }
    let mut c: u128 = 1;
    for i in 0..j {
        c = c * u128::from(n - i) / u128::from(i + 1);
        if c > u128::from(u64::MAX) {
            return u64::MAX;
        }
    }
    c as u64
}

/// Schedules of each size 1..=k over `n` single faults: how many of each.
pub fn counts(n: usize, k: u32) -> Vec<u64> {
    (1..=u64::from(k)).map(|j| choose(n as u64, j)).collect()
}

/// Walks the numbered schedules from any index: the option indices of each, in order.
pub struct Combos {
    n: usize,
    counts: Vec<u64>,
    current: Vec<usize>,
    index: u64,
}

impl Combos {
    /// Positioned at schedule `index` (which may be past the end).
    pub fn at(n: usize, counts: Vec<u64>, index: u64) -> Combos {
        let mut rest = index;
        let mut size = 0;
        for (j, c) in counts.iter().enumerate() {
            if rest < *c {
                size = j + 1;
                break;
            }
            rest -= c;
        }
        let current = if size == 0 {
            Vec::new()
        } else {
            unrank(n, size, rest)
        };
        Combos {
            n,
            counts,
            current,
            index,
        }
    }

    /// The option indices of the current schedule, or `None` past the last one.
    pub fn current(&self) -> Option<(u64, &[usize])> {
        (!self.current.is_empty()).then_some((self.index, self.current.as_slice()))
    }

    pub fn advance(&mut self) {
        self.index += 1;
        let j = self.current.len();
        if j == 0 {
            return;
        }
        // The rightmost position that can still move right, then everything after it packed.
        let mut p = j;
        while p > 0 {
            p -= 1;
            if self.current[p] < self.n - (j - p) {
                self.current[p] += 1;
                for q in p + 1..j {
                    self.current[q] = self.current[q - 1] + 1;
                }
                return;
            }
        }
        // Every schedule of this size is done: the first of the next size, if any.
        self.current = if j < self.counts.len() && self.counts[j] > 0 {
            (0..=j).collect()
        } else {
            Vec::new()
        };
    }
}

/// The `rank`-th j-subset of 0..n in lexicographic order.
fn unrank(n: usize, j: usize, mut rank: u64) -> Vec<usize> {
    let mut out = Vec::with_capacity(j);
    let mut x = 0;
    for p in 0..j {
        while x < n {
            let c = choose((n - x - 1) as u64, (j - p - 1) as u64);
            if rank < c {
                break;
            }
            rank -= c;
            x += 1;
        }
        out.push(x);
        x += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combos_number_every_subset_once_in_order_from_any_start() {
        let (n, k) = (6, 3);
        let counts = counts(n, k);
        let total: u64 = counts.iter().sum();
        assert_eq!(total, 6 + 15 + 20);
        let mut all = Vec::new();
        let mut c = Combos::at(n, counts.clone(), 0);
        while let Some((i, combo)) = c.current() {
            assert_eq!(i, all.len() as u64);
            all.push(combo.to_vec());
            c.advance();
        }
        assert_eq!(all.len() as u64, total);
        let unique: BTreeSet<Vec<usize>> = all.iter().cloned().collect();
        assert_eq!(unique.len(), all.len());
        for start in 0..total {
            let c = Combos::at(n, counts.clone(), start);
            assert_eq!(
                c.current().map(|(_, x)| x.to_vec()),
                Some(all[start as usize].clone())
            );
        }
        assert!(Combos::at(n, counts, total).current().is_none());
    }
}
