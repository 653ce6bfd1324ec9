//! What a search answers, as data and in words: found (with the shrunk counterexample as an
//! ordinary scenario), fails as is, or none found, with the numbers that say how far the search
//! went. "None found" always says the budget, the grid and the fault kinds, and that it is
//! bounded, not a proof.

use super::fault::{Fault, Injected, Own};
use super::grid::GridSize;
use super::shrink::ShrinkStep;
use super::spec::{FaultKind, SearchSpec, Strategy};
use crate::sim::scenario::Scenario;
use crate::sim::trace::Violation;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// A schedule of injected faults makes the scenario fail.
    Found,
    /// The scenario fails with no fault injected; nothing was searched.
    FailsAsIs,
    /// No schedule tried failed.
    NoneFound,
}

/// The failing scenario a person reads: shrunk, replayed, with its faults marked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counterexample {
    /// An ordinary scenario: it loads on the timeline, gets a share link, exports as JSON.
    pub scenario: Scenario,
    /// The injected faults after shrinking.
    pub faults: Vec<Fault>,
    /// Where each fault landed in `scenario`, to mark it "found by search".
    pub injected: Vec<Injected>,
    /// The original scenario's own events the shrinker left out (indices in the original).
    pub left_out: Vec<Own>,
    /// "1 fault: A paused by GC for 31 ms at 4 ms".
    pub summary: String,
    /// The counted violations of the replay.
    pub violations: Vec<Violation>,
    /// The schedule as found, before shrinking, and its number.
    pub found_faults: Vec<Fault>,
    pub found_index: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub strategy: Strategy,
    pub fault_kinds: Vec<FaultKind>,
    pub max_faults: u32,
    pub seed: u64,
    pub budget: u64,
    /// Schedules run by the search (the shrinker's runs are counted apart).
    pub schedules: u64,
    /// Schedules in the space: the whole grid up to k (exhaustive) or the budget (swarm).
    pub space: u64,
    /// Exhaustive and every schedule of the grid tried.
    pub complete: bool,
    pub grid: GridSize,
    pub shrink_runs: u64,
    pub shrink_cut_short: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchReport {
    pub outcome: Outcome,
    /// The answer in one or two sentences.
    pub statement: String,
    pub counterexample: Option<Counterexample>,
    pub stats: Stats,
    pub shrink_steps: Vec<ShrinkStep>,
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// "1 fault: A paused by GC for 31 ms at 4 ms", with any own events left out after a semicolon.
pub fn summary(base: &Scenario, faults: &[Fault], left_out: usize) -> String {
    let mut text = if faults.is_empty() {
        "no fault".to_string()
    } else {
        let words: Vec<String> = faults.iter().map(|f| f.text(base)).collect();
        format!(
            "{}: {}",
            plural(faults.len(), "fault", "faults"),
            words.join("; ")
        )
    };
    if left_out > 0 {
        text.push_str(&format!(
            "; {} of the scenario's own left out",
            plural(left_out, "event", "events")
        ));
    }
    text
}

/// "grid: 57 instants; single faults: 1200 pause, 80 delay (1280)".
pub fn grid_text(g: &GridSize) -> String {
    let kinds: Vec<String> = g.per_kind.iter().map(|(k, n)| format!("{n} {k}")).collect();
    format!(
        "grid: {} instants; single faults: {} ({})",
        g.instants,
        kinds.join(", "),
        g.single_faults
    )
}

/// The answer in words.
pub fn statement(outcome: Outcome, spec: &SearchSpec, stats: &Stats, summary: &str) -> String {
    let how = match spec.strategy {
        Strategy::Exhaustive => format!("exhaustive, k ≤ {}", spec.max_faults),
        Strategy::Swarm => format!("swarm, seed {}, k ≤ {}", spec.seed, spec.max_faults),
    };
    match outcome {
        Outcome::FailsAsIs => {
            format!("Fails as is, with no fault injected (nothing searched); shrunk to {summary}.")
        }
        Outcome::Found => format!(
            "Found a failure after {} schedules ({how}); shrunk to {summary}.",
            stats.schedules
        ),
        Outcome::NoneFound => {
            let scope = match (spec.strategy, stats.complete) {
                (Strategy::Exhaustive, true) => {
                    format!(
                        "exhaustive: {} schedules, {}",
                        stats.schedules,
                        grid_text(&stats.grid)
                    )
                }
                (Strategy::Exhaustive, false) => format!(
                    "{} of {} schedules of the grid, stopped at the budget ({how}), {}",
                    stats.schedules,
                    stats.space,
                    grid_text(&stats.grid)
                ),
                (Strategy::Swarm, _) => {
                    format!("{} random schedules ({how})", stats.schedules)
                }
            };
            format!(
                "No failure found: {scope}, k ≤ {}, fault kinds: {}. Bounded by this budget and \
                 grid, not a proof.",
                spec.max_faults,
                spec.kinds_text()
            )
        }
    }
}
