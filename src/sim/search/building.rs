//! The grid built a slice at a time, for the main thread: on a scenario near the size caps the
//! grid holds millions of faults and one call takes seconds, longer than any frame. A
//! `GridBuild` walks the same rows `grid::options` walks (by kind, target and row), a budget of
//! work per call, and collects the swarm's faults by kind as it goes, so that the plan it ends
//! with is the one `Plan::new` makes (the tests compare them).

use super::chunks::Chunks;
use super::fault::Fault;
use super::grid::{self, GridSize, Target};
use super::spec::{FaultKind, SearchSpec};
use super::swarm::{kind_of, Swarm};
use crate::sim::scenario::Scenario;

/// What one row costs beside the faults it yields (its window is found by halving).
const ROW_COST: u64 = 4;

/// The grid on its way: where the walk is, and what it has found so far.
pub struct GridBuild {
    instants: Vec<u64>,
    /// Index into the spec's kinds; the targets of that kind; the target and row reached.
    kind: usize,
    targets: Vec<Target>,
    target: usize,
    row: usize,
    options: Chunks,
    kind_start: usize,
    per_kind: Vec<(String, usize)>,
    by_kind: [Chunks; 8],
    /// One row's faults, before they go to `options` and `by_kind`.
    row_faults: Vec<Fault>,
}

impl GridBuild {
    /// Starts the walk over `instants` (from `grid::instants`).
    pub fn new(s: &Scenario, spec: &SearchSpec, instants: Vec<u64>) -> GridBuild {
        let targets = spec
            .faults
            .first()
            .map_or_else(Vec::new, |k| grid::targets(s, *k));
        GridBuild {
            instants,
            kind: 0,
            targets,
            target: 0,
            row: 0,
            options: Chunks::default(),
            kind_start: 0,
            per_kind: Vec::new(),
            by_kind: Default::default(),
            row_faults: Vec::new(),
        }
    }

    /// Walks rows until about `work` units are spent (a fault is one, a row `ROW_COST` more);
    /// true once the grid is whole. `s` and `spec` are the ones `new` was given.
    pub fn advance(&mut self, s: &Scenario, spec: &SearchSpec, work: u64) -> bool {
        let mut spent = 0u64;
        while let Some(&kind) = spec.faults.get(self.kind) {
            if spent >= work {
                return false;
            }
            let Some(&target) = self.targets.get(self.target) else {
                // This kind is done: the next one, if any.
                self.per_kind.push((
                    kind.name().to_string(),
                    self.options.len() - self.kind_start,
                ));
                self.kind += 1;
                self.kind_start = self.options.len();
                self.target = 0;
                self.row = 0;
                self.targets = spec
                    .faults
                    .get(self.kind)
                    .map_or_else(Vec::new, |k| grid::targets(s, *k));
                continue;
            };
            if self.row >= grid::rows(s, kind, target, self.instants.len()) {
                self.target += 1;
                self.row = 0;
                continue;
            }
            self.row_faults.clear();
            let (instants, row) = (&self.instants, self.row);
            grid::row(s, spec, instants, kind, target, row, &mut self.row_faults);
            let slot = FaultKind::ALL.iter().position(|k| *k == kind);
            spent += ROW_COST + self.row_faults.len() as u64;
            for f in self.row_faults.drain(..) {
                // Every fault of a row is of the row's kind, the swarm's grouping.
                debug_assert_eq!(Some(kind_of(&f)), slot.map(|i| FaultKind::ALL[i]));
                if let Some(list) = slot.and_then(|i| self.by_kind.get_mut(i)) {
                    list.push(f.clone());
                }
                self.options.push(f);
            }
            self.row += 1;
        }
        true
    }

    /// The grid's faults, its size and its swarm (whatever is left of the walk is done first).
    pub fn finish(
        mut self,
        s: &Scenario,
        spec: &SearchSpec,
        end_ms: u64,
    ) -> (Chunks, GridSize, Swarm) {
        self.advance(s, spec, u64::MAX);
        let size = GridSize {
            instants: self.instants.len(),
            single_faults: self.options.len(),
            per_kind: self.per_kind,
        };
        (self.options, size, Swarm::from_kinds(self.by_kind, end_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::engine::run;
    use crate::sim::presets::presets;

    /// In slices of any size, the walk gives what `grid::options` and `Swarm::new` give in one
    /// call, on every preset and with every fault kind.
    #[test]
    fn any_slicing_gives_the_grid_of_one_call() {
        let spec = SearchSpec {
            faults: FaultKind::ALL.to_vec(),
            ..SearchSpec::default()
        };
        for p in presets() {
            let trace = run(&p.scenario);
            let instants = grid::instants(&p.scenario, &trace);
            let (options, size) = grid::options(&p.scenario, &spec, &instants);
            let swarm = Swarm::new(&options, trace.end_ms);
            for work in [1, 7, 1000, u64::MAX] {
                let mut b = GridBuild::new(&p.scenario, &spec, instants.clone());
                let mut calls = 1;
                while !b.advance(&p.scenario, &spec, work) {
                    calls += 1;
                }
                let (o, z, w) = b.finish(&p.scenario, &spec, trace.end_ms);
                let whole: Chunks = options.iter().cloned().collect();
                assert_eq!((&o, &z), (&whole, &size), "{} in slices of {work}", p.id);
                assert_eq!(w, swarm, "{} in slices of {work}", p.id);
                // One row a call: at least one call per instant for the first client's pauses.
                if work == 1 {
                    assert!(calls > size.instants, "{}: {calls} calls", p.id);
                }
            }
        }
    }
}
