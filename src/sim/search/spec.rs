//! What a search may do: which faults it may inject, how large each may be, how many per
//! schedule, what counts as a failure, the seed and the budget. It is read from JSON by hand,
//! like a scenario, so a bad spec is an error naming its field (`spec.pauseMs[1]: …`) and never
//! a panic; the numbers are bounded so that every search ends.

use crate::sim::scenario::{PauseCause, ScenarioError, MAX_TIME_MS};
use crate::sim::trace::ViolationKind;
use serde::Serialize;
use serde_json::{Map, Value};

/// The most faults one schedule may hold: the exhaustive grid grows as n^k.
pub const MAX_FAULTS: u32 = 4;
/// The most schedules one search may try (about a minute in the page at the target speed).
pub const MAX_BUDGET: u64 = 10_000_000;

/// One kind of fault the search may inject.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// A client process stops for a while (with the spec's cause).
    Pause,
    /// A debit (or a check-then-write) spends longer in the network.
    Delay,
    /// A client's clock steps.
    ClientClockJump,
    /// The lock's clock steps: the single instance's, or one Redlock instance's.
    LockClockJump,
    /// A Redlock instance goes down for a while.
    InstanceCrash,
    /// A Redlock instance is cut off from one client or from all; on ZooKeeper, one client is
    /// cut off from the ensemble.
    Partition,
    /// A client dies for good.
    ClientCrash,
    /// PostgreSQL fails over to a standby: every session and advisory lock is lost.
    Failover,
}

impl FaultKind {
    pub const ALL: [FaultKind; 8] = [
        FaultKind::Pause,
        FaultKind::Delay,
        FaultKind::ClientClockJump,
        FaultKind::LockClockJump,
        FaultKind::InstanceCrash,
        FaultKind::Partition,
        FaultKind::ClientCrash,
        FaultKind::Failover,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Pause => "pause",
            FaultKind::Delay => "delay",
            FaultKind::ClientClockJump => "client_clock_jump",
            FaultKind::LockClockJump => "lock_clock_jump",
            FaultKind::InstanceCrash => "instance_crash",
            FaultKind::Partition => "partition",
            FaultKind::ClientCrash => "client_crash",
            FaultKind::Failover => "failover",
        }
    }

    /// In words, for "no failure found" and the page's checkboxes.
    pub fn label(self) -> &'static str {
        match self {
            FaultKind::Pause => "client pauses",
            FaultKind::Delay => "debit delays",
            FaultKind::ClientClockJump => "client clock jumps",
            FaultKind::LockClockJump => "lock clock jumps",
            FaultKind::InstanceCrash => "instance crashes",
            FaultKind::Partition => "partitions",
            FaultKind::ClientCrash => "client crashes",
            FaultKind::Failover => "PostgreSQL failovers",
        }
    }
}

/// Which restarts an instance crash may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Persistence {
    /// Keys kept across the restart.
    With,
    /// Keys lost.
    Without,
    Both,
}

/// How the schedules are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Every placement of up to k faults on the grid of instants that matter.
    Exhaustive,
    /// Random schedules: each draws which fault kinds are on and their number from the seed.
    Swarm,
    /// The default: `Exhaustive` while the whole grid up to k fits the budget; otherwise every
    /// schedule of up to the largest k' that fits, then random schedules of k' + 1 to k faults
    /// (drawn as `Swarm` draws them) for the rest of the budget, so the budget is never spent
    /// on a walk it cannot finish.
    Auto,
}

/// An inclusive range of milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Range {
    pub min: i64,
    pub max: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchSpec {
    pub faults: Vec<FaultKind>,
    pub pause_cause: PauseCause,
    pub pause_ms: Range,
    pub delay_ms: Range,
    /// Signed: a clock may step back.
    pub jump_ms: Range,
    pub down_ms: Range,
    pub partition_ms: Range,
    pub persistence: Persistence,
    pub max_faults: u32,
    /// `None`: any violation counts.
    pub failure: Option<ViolationKind>,
    pub seed: u64,
    pub budget: u64,
    pub strategy: Strategy,
}

impl Default for SearchSpec {
    /// Pauses, debit delays and client crashes, one fault, auto (exhaustive while the grid fits
    /// the budget), 100 000 schedules.
    fn default() -> Self {
        SearchSpec {
            faults: vec![FaultKind::Pause, FaultKind::Delay, FaultKind::ClientCrash],
            pause_cause: PauseCause::Gc,
            pause_ms: Range { min: 1, max: 100 },
            delay_ms: Range { min: 1, max: 100 },
            jump_ms: Range {
                min: -100,
                max: 100,
            },
            down_ms: Range { min: 1, max: 100 },
            partition_ms: Range { min: 1, max: 100 },
            persistence: Persistence::Both,
            max_faults: 1,
            failure: None,
            seed: 0,
            budget: 100_000,
            strategy: Strategy::Auto,
        }
    }
}

impl SearchSpec {
    pub fn allows(&self, kind: FaultKind) -> bool {
        self.faults.contains(&kind)
    }

    /// Reads a spec from JSON; absent fields keep their defaults. Errors name the field under
    /// `spec`.
    pub fn from_value(v: &Value) -> Result<SearchSpec, ScenarioError> {
        let map = match v {
            Value::Object(m) => m,
            Value::Null => return Ok(SearchSpec::default()),
            other => {
                return fail(
                    "spec",
                    format!("expected an object, got {}", kind_of(other)),
                )
            }
        };
        const KNOWN: [&str; 13] = [
            "faults",
            "pauseCause",
            "pauseMs",
            "delayMs",
            "jumpMs",
            "downMs",
            "partitionMs",
            "persistence",
            "maxFaults",
            "failure",
            "seed",
            "budget",
            "strategy",
        ];
        if let Some(k) = map.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            return fail(
                &format!("spec.{k}"),
                format!("unknown field, expected one of {}", KNOWN.join(", ")),
            );
        }
        let d = SearchSpec::default();
        let spec = SearchSpec {
            faults: faults(map)?.unwrap_or(d.faults),
            pause_cause: choice(map, "pauseCause", &CAUSES)?.unwrap_or(d.pause_cause),
            pause_ms: range(map, "pauseMs", false)?.unwrap_or(d.pause_ms),
            delay_ms: range(map, "delayMs", false)?.unwrap_or(d.delay_ms),
            jump_ms: range(map, "jumpMs", true)?.unwrap_or(d.jump_ms),
            down_ms: range(map, "downMs", false)?.unwrap_or(d.down_ms),
            partition_ms: range(map, "partitionMs", false)?.unwrap_or(d.partition_ms),
            persistence: choice(map, "persistence", &PERSISTENCE)?.unwrap_or(d.persistence),
            max_faults: whole(map, "maxFaults", 1, u64::from(MAX_FAULTS))?
                .map_or(d.max_faults, |n| n as u32),
            failure: choice(map, "failure", &FAILURES)?.unwrap_or(d.failure),
            seed: whole(map, "seed", 0, (1 << 53) - 1)?.unwrap_or(d.seed),
            budget: whole(map, "budget", 1, MAX_BUDGET)?.unwrap_or(d.budget),
            strategy: choice(map, "strategy", &STRATEGIES)?.unwrap_or(d.strategy),
        };
        Ok(spec)
    }

    /// The spec as JSON text that `from_value` reads back (what the page posts to its search
    /// workers). Written by hand: building a `serde_json::Value` would cost the page's wasm
    /// kilobytes.
    pub fn to_json(&self) -> String {
        let pair = |r: Range| format!("[{},{}]", r.min, r.max);
        let faults: Vec<String> = self
            .faults
            .iter()
            .map(|k| format!("\"{}\"", k.name()))
            .collect();
        format!(
            "{{\"faults\":[{}],\"pauseCause\":\"{}\",\"pauseMs\":{},\"delayMs\":{},\"jumpMs\":{},\
             \"downMs\":{},\"partitionMs\":{},\"persistence\":\"{}\",\"maxFaults\":{},\"failure\":\"{}\",\
             \"seed\":{},\"budget\":{},\"strategy\":\"{}\"}}",
            faults.join(","),
            name(&CAUSES, self.pause_cause),
            pair(self.pause_ms),
            pair(self.delay_ms),
            pair(self.jump_ms),
            pair(self.down_ms),
            pair(self.partition_ms),
            name(&PERSISTENCE, self.persistence),
            self.max_faults,
            name(&FAILURES, self.failure.clone()),
            self.seed,
            self.budget,
            name(&STRATEGIES, self.strategy),
        )
    }

    /// The fault kinds in words: "client pauses, debit delays".
    pub fn kinds_text(&self) -> String {
        let words: Vec<&str> = self.faults.iter().map(|k| k.label()).collect();
        if words.is_empty() {
            "no faults".to_string()
        } else {
            words.join(", ")
        }
    }
}

const CAUSES: [(&str, PauseCause); 4] = [
    ("gc", PauseCause::Gc),
    ("sigstop", PauseCause::Sigstop),
    ("page_fault", PauseCause::PageFault),
    ("network", PauseCause::Network),
];
const PERSISTENCE: [(&str, Persistence); 3] = [
    ("with", Persistence::With),
    ("without", Persistence::Without),
    ("both", Persistence::Both),
];
const FAILURES: [(&str, Option<ViolationKind>); 6] = [
    ("any", None),
    (
        "stale_write_accepted",
        Some(ViolationKind::StaleWriteAccepted),
    ),
    ("two_holders", Some(ViolationKind::TwoHolders)),
    (
        "lease_deleted_by_non_owner",
        Some(ViolationKind::LeaseDeletedByNonOwner),
    ),
    ("balance_mismatch", Some(ViolationKind::BalanceMismatch)),
    (
        "overlapping_writers",
        Some(ViolationKind::OverlappingWriters),
    ),
];
const STRATEGIES: [(&str, Strategy); 3] = [
    ("auto", Strategy::Auto),
    ("exhaustive", Strategy::Exhaustive),
    ("swarm", Strategy::Swarm),
];

/// The name `options` gives `v` (every value has one).
fn name<T: PartialEq>(options: &[(&'static str, T)], v: T) -> &'static str {
    options
        .iter()
        .find(|(_, t)| *t == v)
        .map_or("", |(n, _)| *n)
}

fn fail<T>(path: &str, message: String) -> Result<T, ScenarioError> {
    Err(ScenarioError::new(path, message))
}

fn kind_of(v: &Value) -> String {
    match v {
        Value::String(s) => format!("text {s:?}"),
        Value::Array(_) => "a list".to_string(),
        Value::Object(_) => "an object".to_string(),
        other => other.to_string(),
    }
}

fn quoted<T>(options: &[(&str, T)]) -> String {
    options
        .iter()
        .map(|(n, _)| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

fn choice_of<T: Clone>(path: &str, v: &Value, options: &[(&str, T)]) -> Result<T, ScenarioError> {
    match v
        .as_str()
        .and_then(|s| options.iter().find(|(n, _)| *n == s))
    {
        Some((_, t)) => Ok(t.clone()),
        None => fail(
            path,
            format!("expected one of {}, got {}", quoted(options), kind_of(v)),
        ),
    }
}

fn choice<T: Clone>(
    map: &Map<String, Value>,
    name: &str,
    options: &[(&str, T)],
) -> Result<Option<T>, ScenarioError> {
    map.get(name)
        .map(|v| choice_of(&format!("spec.{name}"), v, options))
        .transpose()
}

fn whole(
    map: &Map<String, Value>,
    name: &str,
    min: u64,
    max: u64,
) -> Result<Option<u64>, ScenarioError> {
    let Some(v) = map.get(name) else {
        return Ok(None);
    };
    match v.as_u64() {
        Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
        _ => fail(
            &format!("spec.{name}"),
            format!(
                "expected a whole number from {min} to {max}, got {}",
                kind_of(v)
            ),
        ),
    }
}

fn faults(map: &Map<String, Value>) -> Result<Option<Vec<FaultKind>>, ScenarioError> {
    let Some(v) = map.get("faults") else {
        return Ok(None);
    };
    let Value::Array(items) = v else {
        return fail(
            "spec.faults",
            format!("expected a list of fault kinds, got {}", kind_of(v)),
        );
    };
    let options: Vec<(&str, FaultKind)> = FaultKind::ALL.iter().map(|k| (k.name(), *k)).collect();
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let kind = choice_of(&format!("spec.faults[{i}]"), item, &options)?;
        if !out.contains(&kind) {
            out.push(kind);
        }
    }
    out.sort();
    Ok(Some(out))
}

/// `[min, max]` in milliseconds; a jump may be negative, the rest may not be below 1.
fn range(
    map: &Map<String, Value>,
    name: &str,
    signed: bool,
) -> Result<Option<Range>, ScenarioError> {
    let Some(v) = map.get(name) else {
        return Ok(None);
    };
    let path = format!("spec.{name}");
    let pair = match v {
        Value::Array(items) if items.len() == 2 => items,
        other => {
            return fail(
                &path,
                format!("expected [min, max] in ms, got {}", kind_of(other)),
            )
        }
    };
    let limit = MAX_TIME_MS as i64;
    let lowest = if signed { -limit } else { 1 };
    let mut ends = [0i64; 2];
    for (i, item) in pair.iter().enumerate() {
        ends[i] = match item.as_i64() {
            Some(n) if (lowest..=limit).contains(&n) => n,
            _ => {
                return fail(
                    &format!("{path}[{i}]"),
                    format!(
                        "expected a whole number from {lowest} to {limit}, got {}",
                        kind_of(item)
                    ),
                )
            }
        };
    }
    if ends[0] > ends[1] {
        return fail(&path, format!("min {} is above max {}", ends[0], ends[1]));
    }
    Ok(Some(Range {
        min: ends[0],
        max: ends[1],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(json: &str) -> String {
        let v: Value = serde_json::from_str(json).unwrap();
        match SearchSpec::from_value(&v) {
            Ok(_) => "ok".to_string(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_bad_spec_names_its_field() {
        let cases = [
            (r#"{}"#, "ok"),
            (r#"[]"#, "spec: expected an object, got a list"),
            (r#"{"colour":1}"#, "spec.colour: unknown field"),
            (r#"{"faults":"pause"}"#, "spec.faults: expected a list"),
            (
                r#"{"faults":["pause","teleport"]}"#,
                "spec.faults[1]: expected one of",
            ),
            (r#"{"pauseMs":[5]}"#, "spec.pauseMs: expected [min, max]"),
            (
                r#"{"pauseMs":[0,5]}"#,
                "spec.pauseMs[0]: expected a whole number from 1",
            ),
            (r#"{"pauseMs":[9,5]}"#, "spec.pauseMs: min 9 is above max 5"),
            (r#"{"jumpMs":[-50,50]}"#, "ok"),
            (
                r#"{"maxFaults":0}"#,
                "spec.maxFaults: expected a whole number from 1 to 4",
            ),
            (
                r#"{"budget":-1}"#,
                "spec.budget: expected a whole number from 1",
            ),
            (
                r#"{"failure":"fire"}"#,
                "spec.failure: expected one of \"any\"",
            ),
            (
                r#"{"strategy":"guess"}"#,
                "spec.strategy: expected one of \"auto\", \"exhaustive\", \"swarm\", got text \"guess\"",
            ),
            (r#"{"strategy":"auto"}"#, "ok"),
            (r#"{"strategy":"exhaustive"}"#, "ok"),
            (r#"{"strategy":"swarm"}"#, "ok"),
        ];
        for (json, want) in cases {
            let got = error_of(json);
            assert!(got.starts_with(want), "{json}\n got: {got}\nwant: {want}");
        }
    }

    #[test]
    fn a_spec_reads_back_what_it_writes() {
        let mut s = SearchSpec {
            faults: vec![FaultKind::Pause, FaultKind::LockClockJump],
            failure: Some(ViolationKind::TwoHolders),
            strategy: Strategy::Swarm,
            persistence: Persistence::Without,
            pause_cause: PauseCause::Sigstop,
            jump_ms: Range { min: -5, max: 60 },
            seed: 7,
            ..SearchSpec::default()
        };
        let back = |s: &SearchSpec| {
            SearchSpec::from_value(&serde_json::from_str(&s.to_json()).unwrap()).unwrap()
        };
        assert_eq!(back(&s), s);
        s = SearchSpec::default();
        assert_eq!(back(&s), s);
    }

    #[test]
    fn absent_fields_keep_the_defaults() {
        let v: Value = serde_json::from_str(r#"{"maxFaults":2,"failure":"two_holders"}"#).unwrap();
        let s = SearchSpec::from_value(&v).unwrap();
        assert_eq!(s.max_faults, 2);
        assert_eq!(s.failure, Some(ViolationKind::TwoHolders));
        assert_eq!(s.faults, SearchSpec::default().faults);
        assert_eq!(s.strategy, Strategy::Auto, "no strategy named: auto");
    }

    /// The names links and API calls already use keep their meaning.
    #[test]
    fn every_strategy_reads_back_by_its_name() {
        for (json, want) in [
            (r#"{"strategy":"exhaustive"}"#, Strategy::Exhaustive),
            (r#"{"strategy":"swarm"}"#, Strategy::Swarm),
            (r#"{"strategy":"auto"}"#, Strategy::Auto),
            (r#"{}"#, Strategy::Auto),
        ] {
            let v: Value = serde_json::from_str(json).unwrap();
            let s = SearchSpec::from_value(&v).unwrap();
            assert_eq!(s.strategy, want, "{json}");
            let again: Value = serde_json::from_str(&s.to_json()).unwrap();
            assert_eq!(SearchSpec::from_value(&again).unwrap(), s, "{json}");
        }
    }
}
