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
    /// Schedules in the space: the whole grid up to k (exhaustive, and auto when it fits the
    /// budget) or the budget (swarm, and auto when the grid does not fit).
    pub space: u64,
    /// Every schedule of the grid up to k tried, none cut by the budget, none sampled.
    pub complete: bool,
    /// The numbers that walk the grid in order (none for a swarm).
    pub exhaustive: Option<ExhaustivePart>,
    /// The numbers that are random schedules, after the exhaustive ones (none when the whole
    /// search is exhaustive).
    pub sampled: Option<SampledPart>,
    pub grid: GridSize,
    pub shrink_runs: u64,
    pub shrink_cut_short: bool,
}

/// The first numbers of a search: the grid's schedules in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExhaustivePart {
    /// Every schedule of up to this many faults is in the part (0: not even every single fault
    /// fits the budget). An exhaustive search cut at the budget also holds the first schedules
    /// of the next size.
    pub up_to_k: u32,
    /// Numbers in the part, and how many of them were scanned.
    pub space: u64,
    pub schedules: u64,
}

/// The numbers after the exhaustive part: random schedules drawn from the seed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SampledPart {
    /// How many faults each schedule draws: from `min_faults` to `max_faults`.
    pub min_faults: u32,
    pub max_faults: u32,
    /// Numbers in the part, and how many of them were scanned.
    pub space: u64,
    pub schedules: u64,
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

/// "2 to 3 faults", "3 faults", "1 fault".
fn faults_text(p: &SampledPart) -> String {
    match (p.min_faults, p.max_faults) {
        (lo, hi) if lo < hi => format!("{lo} to {hi} faults"),
        (_, 1) => "1 fault".to_string(),
        (_, hi) => format!("{hi} faults"),
    }
}

/// "exhaustive for k ≤ 1: 7410 schedules" or "…: 37 of 7410 schedules".
fn exhaustive_text(e: &ExhaustivePart) -> String {
    if e.schedules >= e.space {
        format!("exhaustive for k ≤ {}: {} schedules", e.up_to_k, e.space)
    } else {
        format!(
            "exhaustive for k ≤ {}: {} of {} schedules",
            e.up_to_k, e.schedules, e.space
        )
    }
}

/// "287655 random schedules of 2 to 3 faults, seed 0" (with the number scanned when `count`).
fn sampled_text(spec: &SearchSpec, p: &SampledPart, count: bool) -> String {
    let n = if count {
        format!("{} ", p.schedules)
    } else {
        String::new()
    };
    format!(
        "{n}random schedules of {}, seed {}",
        faults_text(p),
        spec.seed
    )
}

/// An auto search's two parts in words; the random one is never called exhaustive.
fn parts_text(spec: &SearchSpec, e: &ExhaustivePart, p: &SampledPart, grid: &str) -> String {
    let walked = exhaustive_text(e);
    let walked = if grid.is_empty() {
        walked
    } else {
        format!("{walked}, {grid}")
    };
    if p.schedules == 0 {
        format!(
            "{walked}; the random ones of {} after it not reached",
            faults_text(p)
        )
    } else {
        format!("{walked}; then {}", sampled_text(spec, p, true))
    }
}

/// An auto search with no exhaustive part: the grid's single faults alone are over the budget.
fn only_sampled_text(stats: &Stats, p: &SampledPart, spec: &SearchSpec, count: bool) -> String {
    format!(
        "{}; the grid's {} single faults alone are more than the budget",
        sampled_text(spec, p, count),
        stats.grid.single_faults
    )
}

/// How the search went, in the parenthesis of "Found a failure after N schedules (…)".
fn how(spec: &SearchSpec, stats: &Stats) -> String {
    match (spec.strategy, &stats.exhaustive, &stats.sampled) {
        (_, _, None) => format!("exhaustive, k ≤ {}", spec.max_faults),
        (Strategy::Swarm, _, Some(_)) => {
            format!("swarm, seed {}, k ≤ {}", spec.seed, spec.max_faults)
        }
        (_, Some(e), Some(p)) => parts_text(spec, e, p, ""),
        (_, None, Some(p)) => only_sampled_text(stats, p, spec, false),
    }
}

/// The answer in words.
pub fn statement(outcome: Outcome, spec: &SearchSpec, stats: &Stats, summary: &str) -> String {
    let how = how(spec, stats);
    match outcome {
        Outcome::FailsAsIs => {
            format!("Fails as is, with no fault injected (nothing searched); shrunk to {summary}.")
        }
        Outcome::Found => format!(
            "Found a failure after {} schedules ({how}); shrunk to {summary}.",
            stats.schedules
        ),
        Outcome::NoneFound => {
            let grid = grid_text(&stats.grid);
            let scope = match (spec.strategy, &stats.exhaustive, &stats.sampled) {
                (_, _, None) if stats.complete => {
                    format!("exhaustive: {} schedules, {grid}", stats.schedules)
                }
                (_, _, None) => {
                    let cut = if stats.schedules >= stats.budget && stats.space > stats.budget {
                        "stopped at the budget"
                    } else {
                        "stopped before the end"
                    };
                    format!(
                        "{} of {} schedules of the grid, {cut} ({how}), {grid}",
                        stats.schedules, stats.space
                    )
                }
                (Strategy::Swarm, _, Some(_)) => {
                    format!("{} random schedules ({how})", stats.schedules)
                }
                (_, Some(e), Some(p)) => parts_text(spec, e, p, &grid),
                (_, None, Some(p)) => only_sampled_text(stats, p, spec, true),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Stats of a search of `strategy` at k ≤ 3 over a grid of 7410 single faults, with its
    /// parts as (up to k, space, scanned) and (fewest faults, space, scanned).
    fn stats(
        strategy: Strategy,
        exhaustive: Option<(u32, u64, u64)>,
        sampled: Option<(u32, u64, u64)>,
        complete: bool,
    ) -> Stats {
        let exhaustive = exhaustive.map(|(up_to_k, space, schedules)| ExhaustivePart {
            up_to_k,
            space,
            schedules,
        });
        let sampled = sampled.map(|(min_faults, space, schedules)| SampledPart {
            min_faults,
            max_faults: 3,
            space,
            schedules,
        });
        let scanned = |e: &Option<ExhaustivePart>, p: &Option<SampledPart>| {
            e.as_ref().map_or(0, |e| e.schedules) + p.as_ref().map_or(0, |p| p.schedules)
        };
        Stats {
            strategy,
            fault_kinds: vec![FaultKind::LockClockJump],
            max_faults: 3,
            seed: 0,
            budget: 300_000,
            schedules: scanned(&exhaustive, &sampled),
            space: 300_000,
            complete,
            exhaustive,
            sampled,
            grid: GridSize {
                instants: 38,
                per_kind: vec![("lock_clock_jump".to_string(), 7410)],
                single_faults: 7410,
            },
            shrink_runs: 0,
            shrink_cut_short: false,
        }
    }

    /// Each shape of search in words: the sampled part is never called exhaustive, and only a
    /// complete one is "exhaustive: N schedules".
    #[test]
    fn the_words_tell_the_exhaustive_part_from_the_sampled_one() {
        use Strategy::*;
        let tail = ", k ≤ 3, fault kinds: lock clock jumps. Bounded by this budget and grid, \
                    not a proof.";
        let grid = "grid: 38 instants; single faults: 7410 lock_clock_jump (7410)";
        let cases = [
            (
                stats(Auto, Some((1, 7410, 7410)), Some((2, 292_590, 983)), false),
                Outcome::Found,
                "Found a failure after 8393 schedules (exhaustive for k ≤ 1: 7410 schedules; \
                 then 983 random schedules of 2 to 3 faults, seed 0); shrunk to S."
                    .to_string(),
            ),
            (
                stats(Auto, Some((1, 7410, 37)), Some((2, 292_590, 0)), false),
                Outcome::Found,
                "Found a failure after 37 schedules (exhaustive for k ≤ 1: 37 of 7410 \
                 schedules; the random ones of 2 to 3 faults after it not reached); shrunk to S."
                    .to_string(),
            ),
            (
                stats(
                    Auto,
                    Some((1, 7410, 7410)),
                    Some((2, 292_590, 292_590)),
                    false,
                ),
                Outcome::NoneFound,
                format!(
                    "No failure found: exhaustive for k ≤ 1: 7410 schedules, {grid}; then 292590 \
                     random schedules of 2 to 3 faults, seed 0{tail}"
                ),
            ),
            (
                stats(Auto, None, Some((1, 300_000, 300_000)), false),
                Outcome::NoneFound,
                format!(
                    "No failure found: 300000 random schedules of 1 to 3 faults, seed 0; the \
                     grid's 7410 single faults alone are more than the budget{tail}"
                ),
            ),
            (
                stats(Auto, Some((3, 300_000, 300_000)), None, true),
                Outcome::NoneFound,
                format!("No failure found: exhaustive: 300000 schedules, {grid}{tail}"),
            ),
            (
                Stats {
                    space: 67_811_509_675,
                    ..stats(Exhaustive, Some((1, 300_000, 300_000)), None, false)
                },
                Outcome::NoneFound,
                format!(
                    "No failure found: 300000 of 67811509675 schedules of the grid, stopped at \
                     the budget (exhaustive, k ≤ 3), {grid}{tail}"
                ),
            ),
            // A caller that scanned fewer than the plan holds: not the budget's doing.
            (
                stats(Exhaustive, Some((3, 300_000, 1_000)), None, false),
                Outcome::NoneFound,
                format!(
                    "No failure found: 1000 of 300000 schedules of the grid, stopped before the \
                     end (exhaustive, k ≤ 3), {grid}{tail}"
                ),
            ),
            (
                stats(Exhaustive, Some((1, 300_000, 12)), None, false),
                Outcome::Found,
                "Found a failure after 12 schedules (exhaustive, k ≤ 3); shrunk to S.".to_string(),
            ),
            (
                stats(Swarm, None, Some((1, 300_000, 587)), false),
                Outcome::Found,
                "Found a failure after 587 schedules (swarm, seed 0, k ≤ 3); shrunk to S."
                    .to_string(),
            ),
        ];
        for (stats, outcome, want) in cases {
            let spec = SearchSpec {
                strategy: stats.strategy,
                max_faults: 3,
                faults: stats.fault_kinds.clone(),
                budget: stats.budget,
                ..SearchSpec::default()
            };
            assert_eq!(statement(outcome, &spec, &stats, "S"), want);
        }
    }
}
