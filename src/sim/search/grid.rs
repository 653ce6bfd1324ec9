//! The finite grid an exhaustive search walks. Faults only change an outcome when they start or
//! end near something that happens: an event, a grant, a lease's or a renewal's end, a
//! validity end, a write's arrival. So the grid's instants are those times (read from the run
//! without faults) each ± 1 ms, and a fault's length is what takes it from one instant to
//! another, plus the spec's bounds. Schedules are numbered: first every single fault, then every
//! pair, and so on up to k, each size in lexicographic order, so "the lowest failing index" is
//! one well-defined schedule however the range is split among workers.

use super::fault::Fault;
use super::spec::{FaultKind, Persistence, Range, SearchSpec};
use crate::sim::scenario::{Event, LockService, Scenario};
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

/// The instants in `t + from ..= t + to` (`instants` is sorted): a window found by halving,
/// so a row costs what it yields, not the whole list.
fn window(t: u64, instants: &[u64], from: i64, to: i64) -> &[u64] {
    if to < from || to < 1 {
        return &[];
    }
    let lo = t.saturating_add(from.max(1) as u64);
    let hi = t.saturating_add(to as u64);
    let a = instants.partition_point(|&e| e < lo);
    let b = instants.partition_point(|&e| e <= hi);
    &instants[a..b.max(a)]
}

/// Lengths from `t` to each later instant, inside `r`, plus `r`'s ends.
fn lengths(t: u64, instants: &[u64], r: Range) -> Vec<u64> {
    let mut out: BTreeSet<u64> = [r.min.max(0) as u64, r.max.max(0) as u64].into();
    for &e in window(t, instants, r.min, r.max) {
        out.insert(e - t);
    }
    out.into_iter().filter(|d| *d > 0).collect()
}

/// Signed jumps from `t`: to each later instant forward and back, inside `r`, plus its ends.
fn jumps(t: u64, instants: &[u64], r: Range) -> Vec<i64> {
    let mut out: BTreeSet<i64> = [r.min, r.max].into();
    let reach = r.max.max(r.min.saturating_neg());
    for &e in window(t, instants, 1, reach) {
        for d in [(e - t) as i64, -((e - t) as i64)] {
            if (r.min..=r.max).contains(&d) {
                out.insert(d);
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

/// Where a row of the grid's faults comes from: a client, the single lock, or one instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Client(usize),
    Lock,
    Instance(usize),
}

/// Which of the service's own faults a scenario's lock service takes (beside the clients'
/// faults, which every service takes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServiceFaults {
    /// Redlock's instances crash and are cut off.
    pub instances: bool,
    /// The lock's clock (or each instance's) jumps.
    pub lock_clock: bool,
    /// The PostgreSQL server fails over.
    pub failover: bool,
    /// A client is cut off from the ZooKeeper ensemble.
    pub ensemble_partition: bool,
}

/// The faults the service of `s` takes. An advisory lock keeps no time: a jump of its clock
/// would change nothing; nor would one of a ZooKeeper server's, which counts its ticks on a
/// monotonic clock.
pub fn service_faults(s: &Scenario) -> ServiceFaults {
    let none = ServiceFaults {
        instances: false,
        lock_clock: false,
        failover: false,
        ensemble_partition: false,
    };
    match &s.lock.service {
        LockService::Redis | LockService::Etcd(_) => ServiceFaults {
            lock_clock: true,
            ..none
        },
        LockService::Redlock(_) => ServiceFaults {
            instances: true,
            lock_clock: true,
            ..none
        },
        LockService::Advisory(_) => ServiceFaults {
            failover: true,
            ..none
        },
        LockService::Zookeeper(_) => ServiceFaults {
            ensemble_partition: true,
            ..none
        },
        // The database's clock judges expiry (`lock.clock`) unless the waiter's does, and a
        // failover loses the row's last takeover.
        LockService::Lease(_) => ServiceFaults {
            lock_clock: true,
            failover: true,
            ..none
        },
    }
}

/// The targets of `kind`, in the grid's order: every client, then the single lock (its clock
/// jumps) or every instance.
pub fn targets(s: &Scenario, kind: FaultKind) -> Vec<Target> {
    let instances = s.lock.redlock().map_or(0, |r| r.instances.len());
    let mut out: Vec<Target> = (0..s.clients.len()).map(Target::Client).collect();
    let takes = service_faults(s);
    match kind {
        FaultKind::LockClockJump if instances == 0 => {
            if takes.lock_clock {
                out.push(Target::Lock)
            }
        }
        FaultKind::Failover if takes.failover => out.push(Target::Lock),
        FaultKind::Failover => {}
        _ => out.extend((0..instances).map(Target::Instance)),
    }
    out
}

/// How many rows `target` has for `kind`: one per instant, one per event for a debit delay,
/// none when the kind does not apply to it.
pub fn rows(s: &Scenario, kind: FaultKind, target: Target, instants: usize) -> usize {
    use FaultKind::*;
    match (target, kind) {
        (Target::Client(c), Delay) => s.clients.get(c).map_or(0, |c| c.events.len()),
        // ZooKeeper's partitions cut one client off from the ensemble.
        (Target::Client(_), Partition) if s.lock.zookeeper().is_some() => instants,
        (Target::Client(_), Pause | ClientClockJump | ClientCrash)
        | (Target::Lock, LockClockJump | Failover)
        | (Target::Instance(_), LockClockJump | InstanceCrash | Partition) => instants,
        _ => 0,
    }
}

/// Every single fault the grid holds, in a fixed order: by kind (the spec's order), target
/// and row. `building::GridBuild` makes the same list a slice of rows at a time.
pub fn options(s: &Scenario, spec: &SearchSpec, instants: &[u64]) -> (Vec<Fault>, GridSize) {
    let mut out = Vec::new();
    let mut per_kind = Vec::new();
    for kind in &spec.faults {
        let before = out.len();
        for target in targets(s, *kind) {
            for p in 0..rows(s, *kind, target, instants.len()) {
                row(s, spec, instants, *kind, target, p, &mut out);
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

/// The faults of row `p` of `target` for `kind` (an instant's index, or a delay's event),
/// appended to `out`.
pub fn row(
    s: &Scenario,
    spec: &SearchSpec,
    instants: &[u64],
    kind: FaultKind,
    target: Target,
    p: usize,
    out: &mut Vec<Fault>,
) {
    let t = instants.get(p).copied().unwrap_or(0);
    match (target, kind) {
        (Target::Client(client), FaultKind::Delay) => {
            let event = s.clients.get(client).and_then(|c| c.events.get(p));
            if let Some(Event::Debit { at_ms, .. } | Event::CheckThenWrite { at_ms, .. }) = event {
                for d in lengths(*at_ms, instants, spec.delay_ms) {
                    out.push(Fault::Delay {
                        client,
                        event: p,
                        delay_ms: d,
                    });
                }
            }
        }
        (Target::Client(client), FaultKind::Pause) => {
            for d in lengths(t, instants, spec.pause_ms) {
                out.push(Fault::Pause {
                    client,
                    at_ms: t,
                    duration_ms: d,
                    cause: spec.pause_cause,
                });
            }
        }
        (Target::Client(client), FaultKind::ClientClockJump) => {
            for by_ms in jumps(t, instants, spec.jump_ms) {
                out.push(Fault::ClientClockJump {
                    client,
                    at_ms: t,
                    by_ms,
                });
            }
        }
        (Target::Client(client), FaultKind::ClientCrash) => {
            out.push(Fault::ClientCrash { client, at_ms: t });
        }
        (Target::Client(client), FaultKind::Partition) if s.lock.zookeeper().is_some() => {
            for d in lengths(t, instants, spec.partition_ms) {
                out.push(Fault::Partition {
                    instance: 0,
                    at_ms: t,
                    duration_ms: d,
                    client: Some(client),
                });
            }
        }
        (Target::Lock, FaultKind::Failover) => out.push(Fault::Failover { at_ms: t }),
        (Target::Lock, FaultKind::LockClockJump) => {
            for by_ms in jumps(t, instants, spec.jump_ms) {
                out.push(Fault::LockClockJump {
                    instance: None,
                    at_ms: t,
                    by_ms,
                });
            }
        }
        (Target::Instance(i), kind) => instance_faults(s, spec, instants, kind, i, t, out),
        _ => {}
    }
}

fn instance_faults(
    s: &Scenario,
    spec: &SearchSpec,
    instants: &[u64],
    kind: FaultKind,
    instance: usize,
    t: u64,
    out: &mut Vec<Fault>,
) {
    let persist: &[bool] = match spec.persistence {
        Persistence::With => &[true],
        Persistence::Without => &[false],
        Persistence::Both => &[false, true],
    };
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

    /// The windowed lengths and jumps are the ones a scan of every later instant gives.
    #[test]
    fn windows_give_what_a_scan_of_every_instant_gives() {
        let scan_lengths = |t: u64, instants: &[u64], r: Range| -> Vec<u64> {
            let mut out: BTreeSet<u64> = [r.min.max(0) as u64, r.max.max(0) as u64].into();
            for &e in instants.iter().filter(|e| **e > t) {
                let d = (e - t) as i64;
                if (r.min..=r.max).contains(&d) {
                    out.insert(d as u64);
                }
            }
            out.into_iter().filter(|d| *d > 0).collect()
        };
        let scan_jumps = |t: u64, instants: &[u64], r: Range| -> Vec<i64> {
            let mut out: BTreeSet<i64> = [r.min, r.max].into();
            for &e in instants.iter().filter(|e| **e > t) {
                for d in [(e - t) as i64, -((e - t) as i64)] {
                    if (r.min..=r.max).contains(&d) {
                        out.insert(d);
                    }
                }
            }
            out.into_iter().filter(|d| *d != 0).collect()
        };
        let instants = [0, 1, 2, 9, 10, 11, 29, 30, 31, 44, 45, 46, 79, 80];
        let ranges = [
            (1, 100),
            (0, 0),
            (5, 5),
            (-100, 100),
            (-100, -1),
            (60, 60),
            (-30, 10),
        ];
        for (min, max) in ranges {
            let r = Range { min, max };
            for t in [0, 1, 10, 30, 45, 79, 80, 200] {
                assert_eq!(
                    lengths(t, &instants, r),
                    scan_lengths(t, &instants, r),
                    "{t} {r:?}"
                );
                assert_eq!(
                    jumps(t, &instants, r),
                    scan_jumps(t, &instants, r),
                    "{t} {r:?}"
                );
            }
        }
    }

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
