//! "Find a failure" for JavaScript: `search(scenario, spec)` runs a whole search at once (for
//! Node and tests), and `SearchPlan` lets a caller scan the numbered schedules in slices, in a
//! Web Worker or between frames, and ask for the report when done. A bad spec is an `Error`
//! naming the field (`spec.maxFaults: …`); nothing a caller passes can panic.

use super::args::{self, error, json_text, scenario_arg, to_js, MAX_SAFE};
use crate::sim::search::{self, Finishing, Plan, Planning, SearchSpec};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_SEARCH: &'static str = r#"
export type FaultKind = "pause" | "delay" | "client_clock_jump" | "lock_clock_jump" | "instance_crash" | "partition" | "client_crash" | "failover";
export type ViolationKindName = "stale_write_accepted" | "two_holders" | "lease_deleted_by_non_owner" | "balance_mismatch" | "overlapping_writers";
/** "auto" (the default): every schedule of the grid while the whole grid up to k fits the budget; otherwise every schedule of up to the largest k that fits, then random ones of more faults. "exhaustive": the grid in order, cut at the budget. "swarm": random schedules only. */
export type SearchStrategy = "auto" | "exhaustive" | "swarm";
/** What a search may inject and what counts as a failure; every field is optional. */
export interface SearchSpec { faults?: FaultKind[]; pauseCause?: "gc" | "sigstop" | "page_fault" | "network"; pauseMs?: [number, number]; delayMs?: [number, number]; jumpMs?: [number, number]; downMs?: [number, number]; partitionMs?: [number, number]; persistence?: "with" | "without" | "both"; maxFaults?: number; failure?: "any" | ViolationKindName; seed?: number; budget?: number; strategy?: SearchStrategy }
/** One injected fault; clients and instances are indices, a delay names its debit by index. */
export type Fault = { kind: FaultKind; atMs?: number; client?: number; instance?: number; event?: number; durationMs?: number; delayMs?: number; byMs?: number; downMs?: number; persistent?: boolean; cause?: string };
export type OwnEvent = { lane: "client"; client: number; event: number } | { lane: "instance"; instance: number; event: number };
export interface Counterexample { scenario: Scenario; faults: Fault[]; injected: { fault: number; at: OwnEvent | null; jump: number | null; text: string }[]; leftOut: OwnEvent[]; summary: string; violations: Verdict["violations"]; foundFaults: Fault[]; foundIndex: number | null }
/** The numbers that walk the grid in order: every schedule of up to `upToK` faults (and, cut at the budget, the first of the next size); `schedules` of `space` scanned. */
export interface SearchExhaustivePart { upToK: number; space: number; schedules: number }
/** The numbers after the exhaustive ones: random schedules of `minFaults` to `maxFaults` faults, drawn from the seed; `schedules` of `space` scanned. Never exhaustive. */
export interface SearchSampledPart { minFaults: number; maxFaults: number; space: number; schedules: number }
export interface SearchStats { strategy: SearchStrategy; faultKinds: FaultKind[]; maxFaults: number; seed: number; budget: number; schedules: number; space: number; complete: boolean; exhaustive: SearchExhaustivePart | null; sampled: SearchSampledPart | null; grid: { instants: number; perKind: [FaultKind, number][]; singleFaults: number }; shrinkRuns: number; shrinkCutShort: boolean }
export interface SearchReport { outcome: "found" | "fails_as_is" | "none_found"; statement: string; counterexample: Counterexample | null; stats: SearchStats; shrinkSteps: { text: string; faults: number; ownEvents: number }[] }
"#;

fn spec_arg(spec: &JsValue) -> Result<SearchSpec, JsError> {
    if spec.is_undefined() || spec.is_null() {
        return Ok(SearchSpec::default());
    }
    let text = json_text(spec, "spec")?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|_| error("spec: expected an object"))?;
    SearchSpec::from_value(&value).map_err(error)
}

/// Searches the schedules of faults for a failure and shrinks the first one found.
#[wasm_bindgen(unchecked_return_type = "SearchReport")]
pub fn search(
    #[wasm_bindgen(unchecked_param_type = "Scenario | string")] scenario: JsValue,
    #[wasm_bindgen(unchecked_param_type = "SearchSpec | undefined")] spec: JsValue,
) -> Result<JsValue, JsError> {
    let scenario = scenario_arg(&scenario)?;
    let spec = spec_arg(&spec)?;
    to_js(&search::search(&scenario, &spec))
}

/// A search to run in slices: `total()` schedules, `scan(from, to)` returns the first failing
/// number in the slice (or undefined), and `finish(found, schedules)` shrinks and reports
/// (`schedules` is checked against `total()`: a count the plan does not hold is an `Error`). The
/// main thread, which must not run long, says `startFinish(found, schedules)`, then
/// `shrink(runs)` until it returns true, then `report()`: the same report in short steps.
#[wasm_bindgen]
pub struct SearchPlan {
    plan: Plan,
    finishing: Option<Finishing>,
}

/// A count from JavaScript: whole and non-negative, anything else 0.
fn whole(x: f64) -> u64 {
    if x.is_finite() && x > 0.0 {
        x as u64
    } else {
        0
    }
}

#[wasm_bindgen]
impl SearchPlan {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "Scenario | string")] scenario: JsValue,
        #[wasm_bindgen(unchecked_param_type = "SearchSpec | undefined")] spec: JsValue,
    ) -> Result<SearchPlan, JsError> {
        let scenario = scenario_arg(&scenario)?;
        let spec = spec_arg(&spec)?;
        Ok(SearchPlan {
            plan: Plan::new(&scenario, &spec),
            finishing: None,
        })
    }

    /// True when the scenario fails with no fault: there is nothing to scan.
    #[wasm_bindgen(js_name = failsAsIs)]
    pub fn fails_as_is(&self) -> bool {
        self.plan.fails_as_is()
    }

    /// How many schedules the search runs (the space, cut at the budget).
    pub fn total(&self) -> f64 {
        self.plan.total() as f64
    }

    /// The first failing schedule number in `from..to`, if any.
    pub fn scan(&self, from: f64, to: f64) -> Option<f64> {
        self.plan.scan(whole(from), whole(to)).map(|i| i as f64)
    }

    /// The report: `found` is the lowest failing number (or undefined), `schedules` how many
    /// were scanned. A count that is not a whole number, is above `total()`, or does not reach
    /// past `found` is an `Error` naming it, never clamped: the report says "complete" only
    /// when the count covers the whole space.
    #[wasm_bindgen(unchecked_return_type = "SearchReport")]
    pub fn finish(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number | null | undefined")] found: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] schedules: JsValue,
    ) -> Result<JsValue, JsError> {
        let f = self.counted("finish", &found, &schedules)?;
        to_js(&self.plan.report(f))
    }

    /// Starts the report in steps (one run): `found` and `schedules` as for `finish`, and
    /// checked as `finish` checks them.
    #[wasm_bindgen(js_name = startFinish)]
    pub fn start_finish(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number | null | undefined")] found: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] schedules: JsValue,
    ) -> Result<(), JsError> {
        self.finishing = Some(self.counted("startFinish", &found, &schedules)?);
        Ok(())
    }

    /// Shrinks for at most `runs` runs; true when only `report()` is left. False before
    /// `startFinish`.
    pub fn shrink(&mut self, runs: f64) -> bool {
        match &mut self.finishing {
            Some(f) => f.advance(&self.plan, whole(runs)),
            None => false,
        }
    }

    /// The report started by `startFinish` (whatever shrinking is left is done first).
    #[wasm_bindgen(unchecked_return_type = "SearchReport")]
    pub fn report(&mut self) -> Result<JsValue, JsError> {
        match self.finishing.take() {
            Some(f) => to_js(&self.plan.report(f)),
            None => Err(error("report: call startFinish first")),
        }
    }
}

impl SearchPlan {
    /// The report started from the caller's counts, read and checked against the plan; errors
    /// name `method: found` or `method: schedules`.
    fn counted(
        &self,
        method: &str,
        found: &JsValue,
        schedules: &JsValue,
    ) -> Result<Finishing, JsError> {
        let total = self.plan.total();
        let found = if found.is_undefined() || found.is_null() {
            None
        } else {
            Some(args::whole(found, &format!("{method}: found"), MAX_SAFE)?)
        };
        let limit = (total as f64).min(MAX_SAFE);
        let schedules = args::whole(schedules, &format!("{method}: schedules"), limit)?;
        self.plan
            .finishing(found, schedules)
            .map_err(|e| error(format!("{method}: {e}")))
    }
}

/// A `SearchPlan` made in slices, for the main thread: `advance(steps)` until it returns true,
/// then `plan()`. The plan is the one `new SearchPlan(scenario, spec)` makes.
#[wasm_bindgen]
pub struct SearchPlanning {
    planning: Planning,
}

#[wasm_bindgen]
impl SearchPlanning {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "Scenario | string")] scenario: JsValue,
        #[wasm_bindgen(unchecked_param_type = "SearchSpec | undefined")] spec: JsValue,
    ) -> Result<SearchPlanning, JsError> {
        let scenario = scenario_arg(&scenario)?;
        let spec = spec_arg(&spec)?;
        Ok(SearchPlanning {
            planning: Planning::new(&scenario, &spec),
        })
    }

    /// Runs the scenario at most `steps` actions further (or judges the run, or finds the
    /// grid's instants, or builds about `steps` faults of the grid); true once only `plan()`
    /// is left.
    pub fn advance(&mut self, steps: f64) -> bool {
        self.planning
            .advance(whole(steps).min(u64::from(u32::MAX)) as u32)
    }

    /// The plan; this object is used up.
    pub fn plan(self) -> SearchPlan {
        SearchPlan {
            plan: self.planning.plan(),
            finishing: None,
        }
    }
}
