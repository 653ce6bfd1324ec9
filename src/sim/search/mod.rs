//! "Find a failure": search the schedules of faults that could hit a scenario, shrink the first
//! one that breaks safety, and answer with an ordinary scenario a reader can load. The
//! scenario's own events are the intent; the spec says which faults may be injected (pauses,
//! delays, clock jumps, crashes, partitions), how large, how many per schedule, and what counts
//! as a failure.
//!
//! The children never import this file: `spec` (what may be searched), `fault` (a schedule and
//! the scenario it makes), `probe` (does it fail), `grid` (the instants that matter and the
//! numbered exhaustive space), `building` (the same grid in slices, kept in `chunks`), `swarm`
//! (numbered random schedules), `layout` (which numbers are the grid's and which random),
//! `shrink`, `report`. This
//! file composes them into a `Plan`, which the page's workers can scan in slices: the result
//! is the lowest failing schedule number however the numbers are split.

pub mod building;
pub mod chunks;
pub mod fault;
mod fault_words;
pub mod grid;
pub mod layout;
pub mod probe;
pub mod report;
pub mod shrink;
pub mod spec;
pub mod swarm;

pub use fault::{Fault, Injected, Own, Schedule};
pub use report::{Counterexample, ExhaustivePart, Outcome, SampledPart, SearchReport, Stats};
pub use shrink::ShrinkStep;
pub use spec::{FaultKind, SearchSpec, Strategy};

use crate::sim::engine::{run, Progress, Run};
use crate::sim::scenario::{Scenario, ScenarioError};
use crate::sim::trace::Trace;
use building::GridBuild;
use chunks::Chunks;
use grid::{Combos, GridSize};
use layout::Layout;
use swarm::Swarm;

/// How many runs the shrinker may spend.
pub const SHRINK_RUNS: u64 = 20_000;

/// A search ready to run: the grid built from one run of the scenario without faults.
pub struct Plan {
    base: Scenario,
    /// The base without its name and caption, which no run reads: cheaper to copy per schedule.
    lean: Scenario,
    spec: SearchSpec,
    options: Chunks,
    layout: Layout,
    swarm: Swarm,
    grid: GridSize,
    fails_as_is: bool,
}

impl Plan {
    pub fn new(base: &Scenario, spec: &SearchSpec) -> Plan {
        Plan::from_trace(base, spec, &run(base))
    }

    /// The plan of `base`, whose full run is `trace`.
    fn from_trace(base: &Scenario, spec: &SearchSpec, trace: &Trace) -> Plan {
        let instants = grid::instants(base, trace);
        let (options, grid) = grid::options(base, spec, &instants);
        let swarm = Swarm::new(&options, end_of(base, trace));
        Plan::from_grid(
            base,
            spec,
            trace,
            options.into_iter().collect(),
            grid,
            swarm,
        )
    }

    /// The plan of `base`, whose full run is `trace`, with its grid built.
    fn from_grid(
        base: &Scenario,
        spec: &SearchSpec,
        trace: &Trace,
        options: Chunks,
        grid: GridSize,
        swarm: Swarm,
    ) -> Plan {
        let fails_as_is = !probe::counted(trace, spec.failure.as_ref()).is_empty();
        let layout = Layout::new(spec, &grid::counts(options.len(), spec.max_faults));
        let mut lean = base.clone();
        lean.name.clear();
        lean.caption.clear();
        Plan {
            swarm,
            lean,
            base: base.clone(),
            spec: spec.clone(),
            options,
            layout,
            grid,
            fails_as_is,
        }
    }

    pub fn fails_as_is(&self) -> bool {
        self.fails_as_is
    }

    /// Schedules in the space: the grid up to k for an exhaustive search (and an auto one
    /// whose grid fits the budget), the budget for a swarm (and an auto search that samples).
    pub fn space(&self) -> u64 {
        self.layout.space
    }

    /// The schedules the search runs: the space, cut at the budget.
    pub fn total(&self) -> u64 {
        self.layout.space.min(self.spec.budget)
    }

    /// The faults of schedule number `index`: a combination of the grid in the exhaustive
    /// part, a random draw after it.
    pub fn faults_of(&self, index: u64) -> Vec<Fault> {
        let l = &self.layout;
        match l.sampled {
            Some((lo, hi)) if index >= l.exhaustive => {
                self.swarm
                    .schedule_of(&self.spec, index - l.exhaustive, lo, hi)
            }
            _ if index >= l.exhaustive => Vec::new(),
            _ => Combos::at(self.options.len(), l.walked.clone(), index)
                .current()
                .map(|(_, c)| c.iter().map(|i| self.options[*i].clone()).collect())
                .unwrap_or_default(),
        }
    }

    /// Whether the schedule of these faults fails; `work` is the lean base, and is again after.
    fn schedule_fails(&self, work: &mut Scenario, faults: &[Fault]) -> bool {
        fault::with_faults(work, &self.lean, faults, |s| {
            probe::fails(s, self.spec.failure.as_ref())
        })
    }

    /// The first failing schedule number in `from..to` (cut at `total()`), if any: the
    /// exhaustive part's numbers walked in order, then the random ones'.
    pub fn scan(&self, from: u64, to: u64) -> Option<u64> {
        let to = to.min(self.total());
        let l = &self.layout;
        let mut work = self.lean.clone();
        let mut faults = Vec::with_capacity(self.spec.max_faults as usize);
        let walked_to = to.min(l.exhaustive);
        if from < walked_to {
            let mut combos = Combos::at(self.options.len(), l.walked.clone(), from);
            while let Some((i, c)) = combos.current() {
                if i >= walked_to {
                    break;
                }
                faults.clear();
                faults.extend(c.iter().map(|j| self.options[*j].clone()));
                if self.schedule_fails(&mut work, &faults) {
                    return Some(i);
                }
                combos.advance();
            }
        }
        let (lo, hi) = l.sampled?;
        (from.max(l.exhaustive)..to).find(|i| {
            let faults = self.swarm.schedule_of(&self.spec, i - l.exhaustive, lo, hi);
            self.schedule_fails(&mut work, &faults)
        })
    }

    /// The report once scanning is over: `found` is the lowest failing number, if any, and
    /// `schedules` how many numbers were scanned. A failure is shrunk and replayed first. The
    /// counts are checked as `finishing` checks them.
    pub fn finish(
        &self,
        found: Option<u64>,
        schedules: u64,
    ) -> Result<SearchReport, ScenarioError> {
        let mut f = self.finishing(found, schedules)?;
        f.advance(self, u64::MAX);
        Ok(self.report(f))
    }

    /// The report taken a slice at a time: this starts it (one run, to check `found`), then
    /// `Finishing::advance` shrinks in slices of runs, and `report` replays and writes the
    /// answer (three runs). What `finish` does in one call, in steps the main thread can take
    /// between frames.
    ///
    /// The caller's counts are checked against the plan, never clamped: `schedules` above
    /// `total()` (numbers this plan does not have), or below `found + 1` (a failure at a number
    /// not scanned), is an error naming `schedules`. A count that is refused cannot be turned
    /// into a claim the search did not earn: clamping 10^20 to `total()` would still report a
    /// complete search nobody ran. Within the plan the core cannot see which workers scanned
    /// what, so the count is the caller's word; it only ever names numbers this plan holds.
    pub fn finishing(
        &self,
        found: Option<u64>,
        schedules: u64,
    ) -> Result<Finishing, ScenarioError> {
        let total = self.total();
        if schedules > total {
            return Err(ScenarioError::new(
                "schedules",
                format!("{schedules} is more than the {total} schedules of this search"),
            ));
        }
        if let Some(i) = found.filter(|i| *i >= schedules) {
            return Err(ScenarioError::new(
                "schedules",
                format!("{schedules} scanned cannot include the failure found at number {i}"),
            ));
        }
        Ok(self.start(found, schedules))
    }

    /// `finishing` once its counts are known to fit the plan.
    fn start(&self, found: Option<u64>, schedules: u64) -> Finishing {
        let stats = Stats {
            strategy: self.spec.strategy,
            fault_kinds: self.spec.faults.clone(),
            max_faults: self.spec.max_faults,
            seed: self.spec.seed,
            budget: self.spec.budget,
            schedules,
            space: self.space(),
            // Every schedule of the grid up to k: none cut by the budget, every one scanned.
            complete: self.layout.sampled.is_none()
                && found.is_none()
                && self.total() == self.space()
                && schedules == self.space(),
            exhaustive: self.layout.exhaustive_part(schedules),
            sampled: self.layout.sampled_part(schedules),
            grid: self.grid.clone(),
            shrink_runs: 0,
            shrink_cut_short: false,
        };
        // A number that does not fail (a caller's mistake) is not a failure found.
        let found = found.filter(|i| {
            let faults = self.faults_of(*i);
            !faults.is_empty() && self.schedule_fails(&mut self.lean.clone(), &faults)
        });
        let outcome = match (self.fails_as_is, found) {
            (true, _) => Outcome::FailsAsIs,
            (false, Some(_)) => Outcome::Found,
            (false, None) => Outcome::NoneFound,
        };
        let start = match outcome {
            Outcome::FailsAsIs => Some(Vec::new()),
            Outcome::Found => found.map(|i| self.faults_of(i)),
            Outcome::NoneFound => None,
        };
        let shrinker = start.map(|faults| {
            let first = Schedule {
                faults,
                dropped: Vec::new(),
            };
            let s = shrink::Shrinker::new(&self.base, &self.spec, first.clone(), SHRINK_RUNS);
            (first, s)
        });
        Finishing {
            stats,
            outcome,
            found,
            shrinker,
        }
    }

    /// The answer once `f` has finished shrinking (or at once, shrinking what is left).
    pub fn report(&self, mut f: Finishing) -> SearchReport {
        f.advance(self, u64::MAX);
        let Finishing {
            mut stats,
            outcome,
            found,
            shrinker,
        } = f;
        let Some((first, shrinker)) = shrinker else {
            let statement = report::statement(outcome, &self.spec, &stats, "");
            return SearchReport {
                outcome,
                statement,
                counterexample: None,
                stats,
                shrink_steps: Vec::new(),
            };
        };
        let shrunk = shrinker.finish();
        stats.shrink_runs = shrunk.runs;
        stats.shrink_cut_short = shrunk.cut_short;
        let found_faults = first.faults.clone();
        // Every reported counterexample is replayed; should the shrunk one not fail (it must),
        // the schedule as found is reported instead.
        let (schedule, steps) = match self.replay(&shrunk.schedule) {
            Some(_) => (shrunk.schedule, shrunk.steps),
            None => (first, Vec::new()),
        };
        let (scenario, injected) = fault::materialize(&self.base, &schedule);
        let violations = probe::counted(&run(&scenario), self.spec.failure.as_ref());
        let summary = report::summary(&self.base, &schedule.faults, schedule.dropped.len());
        let statement = report::statement(outcome, &self.spec, &stats, &summary);
        SearchReport {
            outcome,
            statement,
            counterexample: Some(Counterexample {
                scenario,
                faults: schedule.faults,
                injected,
                left_out: schedule.dropped,
                summary,
                violations,
                found_faults,
                found_index: found,
            }),
            stats,
            shrink_steps: steps,
        }
    }

    /// The violations of a schedule's replay, or `None` when it does not fail.
    fn replay(&self, schedule: &Schedule) -> Option<()> {
        let s = fault::scenario_of(&self.base, schedule);
        probe::fails(&s, self.spec.failure.as_ref()).then_some(())
    }
}

/// A plan made a slice at a time, for the main thread: `advance(steps)` runs the scenario at
/// most that many actions further (then, in a call of its own, judges the run, then finds the
/// grid's instants), then builds the grid about `steps × GRID_WORK_PER_STEP` faults at a time
/// (`building::GridBuild`), and `plan` puts the plan together. The first search of a page also
/// compiles the wasm functions it calls (Chromium compiles each on its first call): in slices,
/// that cost is spread too. The plan is the one `Plan::new` makes.
pub struct Planning {
    base: Scenario,
    spec: SearchSpec,
    run: Option<(Run, bool)>,
    trace: Option<Trace>,
    grid: Option<GridBuild>,
}

/// Grid work (a fault found, a row walked) per step the caller asks for. A unit of grid work
/// (tens of nanoseconds) is cheaper than an action of the run, so the first grid slice is no
/// longer than the last slice of the run, and the finder, which fits its step counts to the
/// time each slice took, grows them from there.
pub const GRID_WORK_PER_STEP: u64 = 1;

/// The run's end for the swarm: the trace's or the scenario's horizon, whichever is later.
fn end_of(base: &Scenario, trace: &Trace) -> u64 {
    trace.end_ms.max(base.horizon_ms())
}

impl Planning {
    pub fn new(base: &Scenario, spec: &SearchSpec) -> Planning {
        Planning {
            base: base.clone(),
            spec: spec.clone(),
            run: Some((Run::new(base), false)),
            trace: None,
            grid: None,
        }
    }

    /// Takes one slice: at most `steps` actions of the run, or judges it once they are all
    /// taken, or finds the grid's instants, or builds a slice of the grid; true once only
    /// `plan` is left.
    pub fn advance(&mut self, steps: u32) -> bool {
        match (self.run.take(), &self.trace, &mut self.grid) {
            (Some((run, true)), _, _) => self.trace = Some(run.finish()),
            (Some((mut run, false)), _, _) => {
                let ended = run.advance(steps) == Progress::Done;
                self.run = Some((run, ended));
            }
            (None, Some(trace), None) => {
                let instants = grid::instants(&self.base, trace);
                self.grid = Some(GridBuild::new(&self.base, &self.spec, instants));
            }
            (None, _, Some(g)) => {
                let work = u64::from(steps.max(1)).saturating_mul(GRID_WORK_PER_STEP);
                return g.advance(&self.base, &self.spec, work);
            }
            (None, None, None) => return true,
        }
        false
    }

    /// The plan (whatever is left of the run and the grid is done first).
    pub fn plan(self) -> Plan {
        let trace = match (self.trace, self.run) {
            (Some(t), _) => t,
            (None, Some((run, _))) => run.finish(),
            (None, None) => run(&self.base),
        };
        let build = self.grid.unwrap_or_else(|| {
            GridBuild::new(&self.base, &self.spec, grid::instants(&self.base, &trace))
        });
        let (options, size, swarm) =
            build.finish(&self.base, &self.spec, end_of(&self.base, &trace));
        Plan::from_grid(&self.base, &self.spec, &trace, options, size, swarm)
    }
}

/// A report on its way (`Plan::finishing`): the numbers so far and, when there is a failure to
/// show, the schedule as found and its shrinker.
pub struct Finishing {
    stats: Stats,
    outcome: Outcome,
    found: Option<u64>,
    shrinker: Option<(Schedule, shrink::Shrinker)>,
}

impl Finishing {
    /// Shrinks for at most `runs` runs; true once nothing is left but `Plan::report`. `plan` is
    /// the one that made this.
    pub fn advance(&mut self, plan: &Plan, runs: u64) -> bool {
        match &mut self.shrinker {
            Some((_, s)) => s.advance(&plan.base, &plan.spec, runs),
            None => true,
        }
    }

    /// The shrinker's runs so far.
    pub fn shrink_runs(&self) -> u64 {
        self.shrinker.as_ref().map_or(0, |(_, s)| s.runs())
    }
}

/// Searches the whole budget on one thread: what the JS API and the tests call.
pub fn search(scenario: &Scenario, spec: &SearchSpec) -> SearchReport {
    let plan = Plan::new(scenario, spec);
    // The counts are the ones scanned here: they fit the plan, so `start` needs no check.
    let finishing = if plan.fails_as_is() {
        plan.start(None, 0)
    } else {
        let total = plan.total();
        let found = plan.scan(0, total);
        plan.start(found, found.map_or(total, |i| i + 1))
    };
    plan.report(finishing)
}
