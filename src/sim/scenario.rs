//! The scenario: everything a run depends on, as versioned data. It is what the URL hash,
//! exported files and the JS API carry, so parsing (in `read.rs`) reports the field at fault in
//! words and the limits below keep every run small enough to finish at once.

use super::account::FenceRule;
use super::clock::{ClockJump, ClockSpec};
use serde::Serialize;
use std::fmt;

/// The format version this build writes; older versions are migrated on load.
pub const SCENARIO_VERSION: u32 = 1;
/// The latest instant any event may name (about 2.8 hours).
pub const MAX_TIME_MS: u64 = 10_000_000;
pub const MAX_AMOUNT: i64 = 1_000_000_000;
pub const MAX_BALANCE: i64 = 1_000_000_000_000;
pub const MAX_CLIENTS: usize = 12;
pub const MAX_INSTANCES: usize = 9;
pub const MAX_EVENTS: usize = 100_000;
pub const MAX_STEP_LIMIT: u32 = 10_000_000;
pub const DEFAULT_STEP_LIMIT: u32 = 200_000;
/// Fences stay exact as JavaScript numbers.
pub const MAX_FENCE: u64 = 1 << 52;
const MAX_NAME_CHARS: usize = 40;
const MAX_TEXT_CHARS: usize = 4_000;

/// Whether a double write costs money or only effort (the seeds' two tiers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    #[default]
    Correctness,
    Efficiency,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scenario {
    pub version: u32,
    pub name: String,
    pub caption: String,
    pub tier: Tier,
    /// Length of the timeline; the run goes on past it while events are still due.
    pub end_ms: u64,
    pub key: String,
    pub lock: LockSettings,
    pub storage: StorageSettings,
    pub clients: Vec<Client>,
    pub step_limit: u32,
    /// Seeds every random choice of a run (none yet in a single-instance run).
    pub seed: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LockSettings {
    pub ttl_ms: u64,
    pub first_fence: u64,
    /// Whether the service mints a fence with each grant; plain Redis answers only OK or nil.
    pub fencing: bool,
    /// Start a watchdog (renew every TTL/2) with every grant.
    pub watchdog: bool,
    pub clock: ClockSpec,
    /// When present, the lock service is Redlock over these independent instances and the
    /// single-instance `clock` above is unused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redlock: Option<Redlock>,
}

/// Redlock: N independent instances, a majority, validity = TTL − elapsed − drift margin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Redlock {
    pub instances: Vec<Instance>,
    /// Ask every instance at once instead of one at a time.
    pub parallel: bool,
    /// How long a client waits for one instance before moving on.
    pub timeout_ms: u64,
    /// Clock drift allowance in parts per million of the TTL; 2 ms are always added.
    pub drift_factor_ppm: u64,
    /// Further attempts after a failed one, each after a random delay drawn from the seed.
    pub retries: u32,
    pub retry_delay_ms: u64,
    /// Non-standard: each grant also returns the instance's counter and the client uses the
    /// largest one of its majority as a fence. Standard Redlock mints nothing.
    pub fence: bool,
}

/// One independent Redis instance of a Redlock service.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Instance {
    pub name: String,
    pub clock: ClockSpec,
    /// One-way network time between any client and this instance.
    pub latency_ms: u64,
    pub events: Vec<InstanceEvent>,
}

/// What happens to an instance over time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum InstanceEvent {
    /// The instance's clock steps (or slews, with `over_ms`) by `by_ms`.
    ClockJump {
        at_ms: u64,
        by_ms: i64,
        over_ms: u64,
    },
    /// Down for `down_ms`; without persistence it comes back with no keys.
    Crash {
        at_ms: u64,
        down_ms: u64,
        persistent: bool,
    },
    /// No message between this instance and `client` (every client when absent).
    Partition {
        at_ms: u64,
        duration_ms: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        client: Option<String>,
    },
}

impl InstanceEvent {
    pub fn at_ms(&self) -> u64 {
        match self {
            InstanceEvent::ClockJump { at_ms, .. }
            | InstanceEvent::Crash { at_ms, .. }
            | InstanceEvent::Partition { at_ms, .. } => *at_ms,
        }
    }

    pub fn set_at_ms(&mut self, t: u64) {
        match self {
            InstanceEvent::ClockJump { at_ms, .. }
            | InstanceEvent::Crash { at_ms, .. }
            | InstanceEvent::Partition { at_ms, .. } => *at_ms = t,
        }
    }

    pub fn end_ms(&self) -> u64 {
        match self {
            InstanceEvent::ClockJump { at_ms, over_ms, .. } => at_ms.saturating_add(*over_ms),
            InstanceEvent::Crash { at_ms, down_ms, .. } => at_ms.saturating_add(*down_ms),
            InstanceEvent::Partition {
                at_ms, duration_ms, ..
            } => at_ms.saturating_add(*duration_ms),
        }
    }
}

impl Instance {
    /// The jumps and slews the instance's `clock_jump` events add to its clock.
    pub fn clock_jumps(&self) -> impl Iterator<Item = ClockJump> + '_ {
        self.events.iter().filter_map(|e| match e {
            InstanceEvent::ClockJump {
                at_ms,
                by_ms,
                over_ms,
            } => Some(ClockJump {
                at_ms: *at_ms,
                by_ms: *by_ms,
                over_ms: *over_ms,
            }),
            _ => None,
        })
    }
}

impl Redlock {
    /// Redlock as its description runs it over these instances: one at a time, a 5 ms timeout
    /// per instance, a 1% clock-drift allowance, no retries and no fence.
    pub fn standard(instances: Vec<Instance>) -> Redlock {
        Redlock {
            instances,
            parallel: false,
            timeout_ms: default_timeout_ms(),
            drift_factor_ppm: default_drift_factor_ppm(),
            retries: 0,
            retry_delay_ms: default_retry_delay_ms(),
            fence: false,
        }
    }

    /// The number of instances a client needs: N/2 + 1.
    pub fn majority(&self) -> usize {
        self.instances.len() / 2 + 1
    }

    /// The drift margin for a TTL: TTL × factor + 2 ms.
    pub fn drift_ms(&self, ttl_ms: u64) -> u64 {
        ttl_ms
            .saturating_mul(self.drift_factor_ppm)
            .div_euclid(1_000_000)
            .saturating_add(2)
    }
}

pub(crate) fn default_timeout_ms() -> u64 {
    5
}
pub(crate) fn default_drift_factor_ppm() -> u64 {
    10_000
}
pub(crate) fn default_retry_delay_ms() -> u64 {
    20
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageSettings {
    pub balance: i64,
    pub fence_rule: FenceRule,
    /// Whether the storage remembers idempotency keys.
    pub idempotency: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Client {
    pub name: String,
    pub clock: ClockSpec,
    pub events: Vec<Event>,
}

/// What stops a process: the seeds' four kinds of pause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PauseCause {
    Gc,
    Sigstop,
    PageFault,
    Network,
}

impl PauseCause {
    pub fn label(self) -> &'static str {
        match self {
            PauseCause::Gc => "GC",
            PauseCause::Sigstop => "SIGSTOP",
            PauseCause::PageFault => "page fault",
            PauseCause::Network => "network",
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReleaseKind {
    /// Compare-and-delete script: only the owner's value deletes the key.
    #[default]
    TokenChecked,
    /// A bare `DEL`: deletes the key whoever holds it.
    BareDel,
}

/// One timed action of a client. `at_ms` is true time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum Event {
    Acquire {
        at_ms: u64,
    },
    Debit {
        at_ms: u64,
        amount: i64,
        #[serde(skip_serializing_if = "Option::is_none")]
        idempotency_key: Option<String>,
        /// Time the write spends in the network before it reaches the storage.
        delay_ms: u64,
    },
    Pause {
        at_ms: u64,
        duration_ms: u64,
        cause: PauseCause,
    },
    /// `isHeld()` at `at_ms`, then the debit `gap_ms` later if the check passed.
    CheckThenWrite {
        at_ms: u64,
        amount: i64,
        #[serde(skip_serializing_if = "Option::is_none")]
        idempotency_key: Option<String>,
        delay_ms: u64,
        gap_ms: u64,
    },
    Renew {
        at_ms: u64,
    },
    Watchdog {
        at_ms: u64,
    },
    Release {
        at_ms: u64,
        mode: ReleaseKind,
    },
    Crash {
        at_ms: u64,
    },
    ClockJump {
        at_ms: u64,
        by_ms: i64,
    },
}

impl Event {
    pub fn at_ms(&self) -> u64 {
        match self {
            Event::Acquire { at_ms }
            | Event::Debit { at_ms, .. }
            | Event::Pause { at_ms, .. }
            | Event::CheckThenWrite { at_ms, .. }
            | Event::Renew { at_ms }
            | Event::Watchdog { at_ms }
            | Event::Release { at_ms, .. }
            | Event::Crash { at_ms }
            | Event::ClockJump { at_ms, .. } => *at_ms,
        }
    }

    pub fn set_at_ms(&mut self, t: u64) {
        match self {
            Event::Acquire { at_ms }
            | Event::Debit { at_ms, .. }
            | Event::Pause { at_ms, .. }
            | Event::CheckThenWrite { at_ms, .. }
            | Event::Renew { at_ms }
            | Event::Watchdog { at_ms }
            | Event::Release { at_ms, .. }
            | Event::Crash { at_ms }
            | Event::ClockJump { at_ms, .. } => *at_ms = t,
        }
    }

    /// The instant the event stops occupying its lane (pauses and delayed writes are long).
    pub fn end_ms(&self) -> u64 {
        match self {
            Event::Pause {
                at_ms, duration_ms, ..
            } => at_ms.saturating_add(*duration_ms),
            Event::Debit {
                at_ms, delay_ms, ..
            } => at_ms.saturating_add(*delay_ms),
            Event::CheckThenWrite {
                at_ms,
                delay_ms,
                gap_ms,
                ..
            } => at_ms.saturating_add(*gap_ms).saturating_add(*delay_ms),
            other => other.at_ms(),
        }
    }

    /// The name used in the JSON `kind` field.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Acquire { .. } => "acquire",
            Event::Debit { .. } => "debit",
            Event::Pause { .. } => "pause",
            Event::CheckThenWrite { .. } => "check_then_write",
            Event::Renew { .. } => "renew",
            Event::Watchdog { .. } => "watchdog",
            Event::Release { .. } => "release",
            Event::Crash { .. } => "crash",
            Event::ClockJump { .. } => "clock_jump",
        }
    }
}

pub(crate) fn default_end_ms() -> u64 {
    100
}
pub(crate) fn default_key() -> String {
    "acct:1".to_string()
}
pub(crate) fn default_step_limit() -> u32 {
    DEFAULT_STEP_LIMIT
}
fn default_ttl_ms() -> u64 {
    30
}
fn default_first_fence() -> u64 {
    33
}
fn default_balance() -> i64 {
    100
}

impl Default for LockSettings {
    fn default() -> Self {
        LockSettings {
            ttl_ms: default_ttl_ms(),
            first_fence: default_first_fence(),
            fencing: true,
            watchdog: false,
            clock: ClockSpec::default(),
            redlock: None,
        }
    }
}

impl Default for StorageSettings {
    fn default() -> Self {
        StorageSettings {
            balance: default_balance(),
            fence_rule: FenceRule::Strict,
            idempotency: true,
        }
    }
}

/// Input that cannot be understood: the field at fault and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// A path like `clients[0].events[2].durationMs`; empty for the whole document.
    pub path: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

fn err(path: impl Into<String>, message: impl Into<String>) -> ScenarioError {
    ScenarioError {
        path: path.into(),
        message: message.into(),
    }
}

impl Scenario {
    /// Parses and validates a scenario from JSON text, migrating older versions.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| err("", format!("not valid JSON ({e})")))?;
        Scenario::from_value(value)
    }

    /// Validates an already-parsed JSON value (what the JS API receives).
    pub fn from_value(value: serde_json::Value) -> Result<Scenario, ScenarioError> {
        let value = super::migrate::to_current(value)?;
        let scenario = super::read::scenario(&value)?;
        scenario.validate()?;
        Ok(scenario)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Checks the limits serde cannot express. Every run of a valid scenario is bounded.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.version != SCENARIO_VERSION {
            return Err(err(
                "version",
                format!("expected {SCENARIO_VERSION}, got {}", self.version),
            ));
        }
        text_limit("name", &self.name, MAX_TEXT_CHARS)?;
        text_limit("caption", &self.caption, MAX_TEXT_CHARS)?;
        text_limit("key", &self.key, MAX_NAME_CHARS)?;
        time_limit("endMs", self.end_ms)?;
        if self.step_limit == 0 || self.step_limit > MAX_STEP_LIMIT {
            return Err(err(
                "stepLimit",
                format!("expected 1 to {MAX_STEP_LIMIT}, got {}", self.step_limit),
            ));
        }
        if self.lock.ttl_ms == 0 || self.lock.ttl_ms > MAX_TIME_MS {
            return Err(err(
                "lock.ttlMs",
                format!("expected 1 to {MAX_TIME_MS} ms, got {}", self.lock.ttl_ms),
            ));
        }
        if self.lock.first_fence > MAX_FENCE {
            return Err(err(
                "lock.firstFence",
                format!(
                    "expected at most {MAX_FENCE}, got {}",
                    self.lock.first_fence
                ),
            ));
        }
        validate_clock("lock.clock", &self.lock.clock)?;
        if let Some(r) = &self.lock.redlock {
            validate_redlock(r, &self.clients)?;
        }
        if self.storage.balance.abs() > MAX_BALANCE {
            return Err(err(
                "storage.balance",
                format!("expected between -{MAX_BALANCE} and {MAX_BALANCE}"),
            ));
        }
        if self.clients.is_empty() || self.clients.len() > MAX_CLIENTS {
            return Err(err(
                "clients",
                format!(
                    "expected 1 to {MAX_CLIENTS} clients, got {}",
                    self.clients.len()
                ),
            ));
        }
        let total: usize = self.clients.iter().map(|c| c.events.len()).sum();
        if total > MAX_EVENTS {
            return Err(err(
                "clients",
                format!("expected at most {MAX_EVENTS} events in all, got {total}"),
            ));
        }
        for (i, c) in self.clients.iter().enumerate() {
            let at = format!("clients[{i}]");
            if c.name.trim().is_empty() {
                return Err(err(format!("{at}.name"), "expected a non-empty name"));
            }
            text_limit(&format!("{at}.name"), &c.name, MAX_NAME_CHARS)?;
            if self.clients[..i].iter().any(|o| o.name == c.name) {
                return Err(err(
                    format!("{at}.name"),
                    format!("another client is already named {:?}", c.name),
                ));
            }
            validate_clock(&format!("{at}.clock"), &c.clock)?;
            for (j, e) in c.events.iter().enumerate() {
                validate_event(&format!("{at}.events[{j}]"), e)?;
            }
        }
        Ok(())
    }

    /// Extra clock jumps a client's `clock_jump` events add to its clock.
    pub fn client_jumps(client: &Client) -> Vec<ClockJump> {
        client
            .events
            .iter()
            .filter_map(|e| match e {
                Event::ClockJump { at_ms, by_ms } => Some(ClockJump {
                    at_ms: *at_ms,
                    by_ms: *by_ms,
                    over_ms: 0,
                }),
                _ => None,
            })
            .collect()
    }

    /// The last instant any event occupies, at least `end_ms`.
    pub fn horizon_ms(&self) -> u64 {
        let instances = self
            .lock
            .redlock
            .iter()
            .flat_map(|r| r.instances.iter())
            .flat_map(|i| i.events.iter().map(InstanceEvent::end_ms));
        self.clients
            .iter()
            .flat_map(|c| c.events.iter().map(Event::end_ms))
            .chain(instances)
            .fold(self.end_ms, u64::max)
    }
}

fn text_limit(path: &str, text: &str, max: usize) -> Result<(), ScenarioError> {
    let n = text.chars().count();
    if n > max {
        return Err(err(
            path,
            format!("expected at most {max} characters, got {n}"),
        ));
    }
    Ok(())
}

fn time_limit(path: &str, t: u64) -> Result<(), ScenarioError> {
    if t > MAX_TIME_MS {
        return Err(err(
            path,
            format!("expected at most {MAX_TIME_MS} ms, got {t}"),
        ));
    }
    Ok(())
}

fn signed_time_limit(path: &str, t: i64) -> Result<(), ScenarioError> {
    if t.unsigned_abs() > MAX_TIME_MS {
        return Err(err(
            path,
            format!("expected between -{MAX_TIME_MS} and {MAX_TIME_MS} ms, got {t}"),
        ));
    }
    Ok(())
}

fn validate_clock(path: &str, c: &ClockSpec) -> Result<(), ScenarioError> {
    signed_time_limit(&format!("{path}.offsetMs"), c.offset_ms)?;
    if !(-900_000..=1_000_000).contains(&c.drift_ppm) {
        return Err(err(
            format!("{path}.driftPpm"),
            format!(
                "expected -900000 to 1000000 parts per million, got {}",
                c.drift_ppm
            ),
        ));
    }
    for (k, j) in c.jumps.iter().enumerate() {
        validate_jump(&format!("{path}.jumps[{k}]"), j)?;
    }
    Ok(())
}

fn validate_redlock(r: &Redlock, clients: &[Client]) -> Result<(), ScenarioError> {
    let n = r.instances.len();
    if !(1..=MAX_INSTANCES).contains(&n) {
        return Err(err(
            "lock.redlock.instances",
            format!("expected 1 to {MAX_INSTANCES} instances, got {n}"),
        ));
    }
    time_limit("lock.redlock.timeoutMs", r.timeout_ms)?;
    time_limit("lock.redlock.retryDelayMs", r.retry_delay_ms)?;
    if r.timeout_ms == 0 {
        return Err(err("lock.redlock.timeoutMs", "expected at least 1 ms"));
    }
    if r.drift_factor_ppm > 500_000 {
        return Err(err(
            "lock.redlock.driftFactorPpm",
            format!("expected at most 500000, got {}", r.drift_factor_ppm),
        ));
    }
    if r.retries > 20 {
        return Err(err(
            "lock.redlock.retries",
            format!("expected at most 20, got {}", r.retries),
        ));
    }
    for (i, inst) in r.instances.iter().enumerate() {
        let at = format!("lock.redlock.instances[{i}]");
        if inst.name.trim().is_empty() {
            return Err(err(format!("{at}.name"), "expected a non-empty name"));
        }
        text_limit(&format!("{at}.name"), &inst.name, MAX_NAME_CHARS)?;
        validate_clock(&format!("{at}.clock"), &inst.clock)?;
        time_limit(&format!("{at}.latencyMs"), inst.latency_ms)?;
        if inst.events.len() > MAX_EVENTS {
            return Err(err(format!("{at}.events"), "too many events"));
        }
        for (j, e) in inst.events.iter().enumerate() {
            let path = format!("{at}.events[{j}]");
            time_limit(&format!("{path}.atMs"), e.at_ms())?;
            match e {
                InstanceEvent::ClockJump {
                    at_ms,
                    by_ms,
                    over_ms,
                } => validate_jump(
                    &path,
                    &ClockJump {
                        at_ms: *at_ms,
                        by_ms: *by_ms,
                        over_ms: *over_ms,
                    },
                )?,
                InstanceEvent::Crash { down_ms, .. } => {
                    time_limit(&format!("{path}.downMs"), *down_ms)?
                }
                InstanceEvent::Partition {
                    duration_ms,
                    client,
                    ..
                } => {
                    time_limit(&format!("{path}.durationMs"), *duration_ms)?;
                    if let Some(c) = client {
                        if !clients.iter().any(|k| &k.name == c) {
                            return Err(err(
                                format!("{path}.client"),
                                format!("no client is named {c:?}"),
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

fn validate_jump(path: &str, j: &ClockJump) -> Result<(), ScenarioError> {
    time_limit(&format!("{path}.atMs"), j.at_ms)?;
    signed_time_limit(&format!("{path}.byMs"), j.by_ms)?;
    time_limit(&format!("{path}.overMs"), j.over_ms)?;
    if j.over_ms > 0 && j.by_ms.unsigned_abs().saturating_mul(2) > j.over_ms {
        return Err(err(
            format!("{path}.overMs"),
            format!(
                "a slew of {} ms needs at least {} ms (half a millisecond per millisecond)",
                j.by_ms,
                j.by_ms.unsigned_abs().saturating_mul(2)
            ),
        ));
    }
    Ok(())
}

fn validate_amount(path: &str, amount: i64) -> Result<(), ScenarioError> {
    if !(0..=MAX_AMOUNT).contains(&amount) {
        return Err(err(
            format!("{path}.amount"),
            format!("expected 0 to {MAX_AMOUNT}, got {amount}"),
        ));
    }
    Ok(())
}

fn validate_key(path: &str, key: &Option<String>) -> Result<(), ScenarioError> {
    match key {
        Some(k) => text_limit(&format!("{path}.idempotencyKey"), k, MAX_NAME_CHARS),
        None => Ok(()),
    }
}

fn validate_event(path: &str, e: &Event) -> Result<(), ScenarioError> {
    time_limit(&format!("{path}.atMs"), e.at_ms())?;
    match e {
        Event::Debit {
            amount,
            idempotency_key,
            delay_ms,
            ..
        } => {
            validate_amount(path, *amount)?;
            validate_key(path, idempotency_key)?;
            time_limit(&format!("{path}.delayMs"), *delay_ms)
        }
        Event::CheckThenWrite {
            amount,
            idempotency_key,
            delay_ms,
            gap_ms,
            ..
        } => {
            validate_amount(path, *amount)?;
            validate_key(path, idempotency_key)?;
            time_limit(&format!("{path}.delayMs"), *delay_ms)?;
            time_limit(&format!("{path}.gapMs"), *gap_ms)
        }
        Event::Pause { duration_ms, .. } => {
            if *duration_ms == 0 {
                return Err(err(
                    format!("{path}.durationMs"),
                    "expected a pause of at least 1 ms",
                ));
            }
            time_limit(&format!("{path}.durationMs"), *duration_ms)
        }
        Event::ClockJump { by_ms, .. } => signed_time_limit(&format!("{path}.byMs"), *by_ms),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(json: &str) -> String {
        match Scenario::from_json(json) {
            Ok(_) => "ok".to_string(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn minimal_scenario_gets_the_defaults() {
        let s = Scenario::from_json(r#"{"version":1,"clients":[{"name":"A"}]}"#).unwrap();
        assert_eq!(s.lock.ttl_ms, 30);
        assert_eq!(s.lock.first_fence, 33);
        assert_eq!(s.storage.balance, 100);
        assert_eq!(s.storage.fence_rule, FenceRule::Strict);
        assert_eq!(Scenario::from_json(&s.to_json()), Ok(s));
    }

    #[test]
    fn malformed_input_names_the_field() {
        let base = |events: &str| {
            format!(r#"{{"version":1,"clients":[{{"name":"A","events":[{events}]}}]}}"#)
        };
        let cases = [
            ("{\"version\":", "not valid JSON"),
            ("[]", "expected a JSON object"),
            ("{\"version\":1}", "missing field `clients`"),
            (
                &base(r#"{"kind":"teleport","atMs":1}"#),
                "clients[0].events[0].kind: unknown variant `teleport`",
            ),
            (
                &base(r#"{"kind":"pause","atMs":1,"durationMs":-5,"cause":"gc"}"#),
                "clients[0].events[0].durationMs: expected a whole number ≥ 0, got -5",
            ),
            (
                &base(r#"{"kind":"acquire","atMs":"soon"}"#),
                "clients[0].events[0].atMs: expected a whole number ≥ 0, got text \"soon\"",
            ),
            (
                &base(r#"{"kind":"acquire","atMs":99999999999}"#),
                "clients[0].events[0].atMs: expected at most 10000000 ms",
            ),
            (
                &base(r#"{"kind":"debit","atMs":1}"#),
                "clients[0].events[0]: missing field `amount`",
            ),
            (
                &base(r#"{"kind":"acquire","atMs":1,"color":"red"}"#),
                "clients[0].events[0].color: unknown field `color`",
            ),
            (
                r#"{"version":1,"lock":{"ttlMs":0},"clients":[{"name":"A"}]}"#,
                "lock.ttlMs: expected 1 to",
            ),
            (
                r#"{"version":1,"clients":[{"name":"A"},{"name":"A"}]}"#,
                "clients[1].name: another client is already named",
            ),
            (
                r#"{"version":9,"clients":[]}"#,
                "version: this build reads versions up to 1, got 9",
            ),
        ];
        for (json, want) in cases {
            let got = error_of(json);
            assert!(got.starts_with(want), "{json}\n got: {got}\nwant: {want}");
        }
    }
}
