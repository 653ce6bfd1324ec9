//! The JavaScript surface. Plain objects cross the boundary as JSON text, which keeps the wasm
//! small and lets the core name the exact field at fault. Every argument a caller controls is
//! checked here and reported as a JS `Error`; nothing on this side may panic.

// The search workers' build (feature search-worker) leaves out mount(), the one user of some.
#[cfg_attr(feature = "search-worker", allow(dead_code))]
mod args;
// The search workers' wasm (feature `search-worker`) has no front end and no classes.
#[cfg(not(feature = "search-worker"))]
mod classes;
#[cfg(not(feature = "search-worker"))]
mod mount;
#[cfg(feature = "search-api")]
mod search;

use crate::sim;
use args::*;
use js_sys::Object;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** A scenario in the documented JSON format (see docs/scenario-format.md). */
export interface Scenario { version: number; clients: { name: string; events?: ScenarioEvent[] }[]; [field: string]: unknown }
/** One of a client's events (docs/scenario-format.md lists the kinds and their fields). */
export interface ScenarioEvent { kind: string; atMs: number; [field: string]: unknown }
/** The trace of a run: steps, lease and belief spans, ledger, balance, verdict, narration. */
export interface Trace { clients: string[]; service: "single" | "redlock" | "etcd" | "advisory" | "zookeeper" | "lease"; instances: string[]; majority: number; endMs: number; steps: object[]; writes: WriteRecord[]; acquisitions: Acquisition[]; majorities: HoldSpan[]; verdict: Verdict; narration: string[]; finalBalance: number; lastFence: number | null; [field: string]: unknown }
/** The storage's verdict on one debit. Every key in a trace is camelCase. */
export type DebitVerdict = { status: "accepted" | "duplicate"; balance: number } | { status: "rejected"; reason: "stale_fence" | "missing_token" | "stale_value" | "compare_failed" | "session_gone" | "unique_violation" | "lease_lost"; lastFence: number | null; token: number | null };
export interface WriteRecord { client: number; event: number | null; sentMs: number; arrivedMs: number; amount: number; token: number | null; idempotencyKey: string | null; generation: number | null; believedHeld: boolean; verdict: DebitVerdict | null }
/** One Redlock attempt; `reason` is set exactly when `ok` is false. */
export interface Acquisition { client: number; event: number | null; purpose: "acquire" | "extend"; attempt: number; startMs: number; endMs: number; votes: number; needed: number; elapsedMs: number; driftMs: number; validityMs: number; ok: boolean; fence: number | null; reason: "no_majority" | "too_slow" | "no_validity_left" | null; timingHazard?: TimingHazard }
/** Present on an attempt whose client timed the round with a wall clock that stepped back: its `elapsedMs` can be negative and its `validityMs` longer than the TTL. */
export type TimingHazard = { kind: "wall_clock_stepped_back"; byMs: number };
/** A stretch in which `client` held live keys on a majority of the instances. */
export interface HoldSpan { client: number; startMs: number; endMs: number }
/** `safe` and `violations` say whether the run was safe; `liveness` says whether its work got done (never a violation). */
export interface Verdict { safe: boolean; violations: { kind: "stale_write_accepted" | "overlapping_writers" | "balance_mismatch" | "lease_deleted_by_non_owner" | "two_holders"; atMs: number; clients: number[]; text: string }[]; notes: string[]; liveness: { kind: "holder_refused" | "every_debit_refused" | "waited_behind_holder"; atMs: number; clients: number[]; text: string }[] }
export type AcquireResult = { ok: true; fence: number | null } | { ok: false; error: "lock_held"; holder: string };
export type DebitResult = { ok: true; balance: number; duplicate?: true } | { ok: false; error: "stale_fence" | "missing_token"; lastFence: number; token: number | null };
export interface MountOptions { preset?: string; scenario?: Scenario | string; readonly?: boolean; compact?: boolean; share?: boolean; autosave?: boolean; theme?: "light" | "dark" | "auto"; finder?: Finder }
/** What runs "Find a failure" (www/finder.js); without one the page shows no search panel. */
export interface Finder { prepare(): void; search(scenario: string, spec: string, onEvent: (event: FinderEvent) => void): { cancel(): void } }
/** What a search sends its listener (src/ui/finder.rs reads it): progress, then the report, or cancelled, or an error. */
export type FinderEvent = FinderProgress | (Omit<FinderProgress, "type"> & { type: "done"; report: string; firstMs: number | null }) | { type: "cancelled" } | { type: "error"; message: string };
/** Schedules `done` of `total`; `best` is the lowest failing schedule number so far; `slowestMs` the longest block or step; on the main thread, `slowestTaskMs` the longest task, `fallback` why no worker runs it, `tasks` how many of its tasks ran search work and `maxUnits` the most plan steps, schedules and shrink runs one was given (0 in workers). */
export interface FinderProgress { type: "progress"; done: number; total: number; elapsedMs: number; best: number | null; mode: "workers" | "main thread"; workers: number; slowestMs: number; slowestTaskMs: number | null; fallback: string | null; tasks: number; maxUnits: { planSteps: number; scanSchedules: number; shrinkRuns: number } }
"#;

/// Runs a scenario and returns its trace (verdict and narration included).
#[wasm_bindgen(unchecked_return_type = "Trace")]
pub fn simulate(
    #[wasm_bindgen(unchecked_param_type = "Scenario | string")] scenario: JsValue,
) -> Result<JsValue, JsError> {
    to_js(&sim::run(&scenario_arg(&scenario)?))
}

/// Every preset: `{ id, scenario }`, the default first.
#[wasm_bindgen(unchecked_return_type = "{ id: string; scenario: Scenario }[]")]
pub fn presets() -> Result<JsValue, JsError> {
    let mut list = sim::presets::presets();
    if let Some(i) = list
        .iter()
        .position(|p| p.id == sim::presets::DEFAULT_PRESET)
    {
        let default = list.remove(i);
        list.insert(0, default);
    }
    to_js(&list)
}

/// `{ ok: true }` or `{ ok: false, path, message, error }` without throwing.
#[wasm_bindgen(
    unchecked_return_type = "{ ok: true } | { ok: false; path: string; message: string; error: string }"
)]
pub fn validate(scenario: JsValue) -> JsValue {
    let result = counts_of(&scenario).and_then(|()| {
        json_text(&scenario, "scenario")
            .map_err(|_| sim::ScenarioError::new("", "expected a scenario object or JSON text"))
            .and_then(|text| read_scenario(&scenario, &text))
    });
    let out = Object::new();
    match result {
        Ok(_) => set(&out, "ok", true.into()),
        Err(e) => {
            set(&out, "ok", false.into());
            set(&out, "path", e.path.as_str().into());
            set(&out, "message", e.message.as_str().into());
            set(&out, "error", e.to_string().into());
        }
    }
    out.into()
}

/// The URL hash (without `#`) that restores `scenario` exactly: `s=1.<base64url JSON>`.
#[wasm_bindgen(js_name = encodeLink)]
pub fn encode_link(
    #[wasm_bindgen(unchecked_param_type = "Scenario | string")] scenario: JsValue,
) -> Result<String, JsError> {
    Ok(crate::link::encode(&scenario_arg(&scenario)?))
}

/// The scenario inside a share link's hash; an Error names what is wrong with a bad link.
#[wasm_bindgen(js_name = decodeLink, unchecked_return_type = "Scenario")]
pub fn decode_link(hash: JsValue) -> Result<JsValue, JsError> {
    let hash = text_arg(&hash, "decodeLink: hash")?;
    let scenario = crate::link::decode(&hash).map_err(error)?;
    to_js(&scenario)
}
