//! The limits serde cannot express, checked on a whole scenario: every time, amount, name and
//! count within `limits.rs`, names unique, slews slow enough. A valid scenario's run is bounded.

use super::error::ScenarioError;
use super::limits::*;
use super::types::{Client, Event, InstanceEvent, Redlock, Scenario};
use crate::sim::clock::{ClockJump, ClockSpec};

impl Scenario {
    /// Checks the limits serde cannot express. Every run of a valid scenario is bounded.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.version != SCENARIO_VERSION {
            return Err(ScenarioError::new(
                "version",
                format!("expected {SCENARIO_VERSION}, got {}", self.version),
            ));
        }
        text_limit("name", &self.name, MAX_TEXT_CHARS)?;
        text_limit("caption", &self.caption, MAX_TEXT_CHARS)?;
        text_limit("key", &self.key, MAX_NAME_CHARS)?;
        time_limit("endMs", self.end_ms)?;
        if self.step_limit == 0 || self.step_limit > MAX_STEP_LIMIT {
            return Err(ScenarioError::new(
                "stepLimit",
                format!("expected 1 to {MAX_STEP_LIMIT}, got {}", self.step_limit),
            ));
        }
        if self.lock.ttl_ms == 0 || self.lock.ttl_ms > MAX_TIME_MS {
            return Err(ScenarioError::new(
                "lock.ttlMs",
                format!("expected 1 to {MAX_TIME_MS} ms, got {}", self.lock.ttl_ms),
            ));
        }
        if self.lock.first_fence > MAX_FENCE {
            return Err(ScenarioError::new(
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
            return Err(ScenarioError::new(
                "storage.balance",
                format!("expected between -{MAX_BALANCE} and {MAX_BALANCE}"),
            ));
        }
        if self.clients.is_empty() || self.clients.len() > MAX_CLIENTS {
            return Err(ScenarioError::new(
                "clients",
                format!(
                    "expected 1 to {MAX_CLIENTS} clients, got {}",
                    self.clients.len()
                ),
            ));
        }
        let total: usize = self.clients.iter().map(|c| c.events.len()).sum();
        if total > MAX_EVENTS {
            return Err(ScenarioError::new(
                "clients",
                format!("expected at most {MAX_EVENTS} events in all, got {total}"),
            ));
        }
        for (i, c) in self.clients.iter().enumerate() {
            let at = format!("clients[{i}]");
            if c.name.trim().is_empty() {
                return Err(ScenarioError::new(
                    format!("{at}.name"),
                    "expected a non-empty name",
                ));
            }
            text_limit(&format!("{at}.name"), &c.name, MAX_NAME_CHARS)?;
            if self.clients[..i].iter().any(|o| o.name == c.name) {
                return Err(ScenarioError::new(
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
}

fn text_limit(path: &str, text: &str, max: usize) -> Result<(), ScenarioError> {
    let n = text.chars().count();
    if n > max {
        return Err(ScenarioError::new(
            path,
            format!("expected at most {max} characters, got {n}"),
        ));
    }
    Ok(())
}

fn time_limit(path: &str, t: u64) -> Result<(), ScenarioError> {
    if t > MAX_TIME_MS {
        return Err(ScenarioError::new(
            path,
            format!("expected at most {MAX_TIME_MS} ms, got {t}"),
        ));
    }
    Ok(())
}

fn signed_time_limit(path: &str, t: i64) -> Result<(), ScenarioError> {
    if t.unsigned_abs() > MAX_TIME_MS {
        return Err(ScenarioError::new(
            path,
            format!("expected between -{MAX_TIME_MS} and {MAX_TIME_MS} ms, got {t}"),
        ));
    }
    Ok(())
}

fn validate_clock(path: &str, c: &ClockSpec) -> Result<(), ScenarioError> {
    signed_time_limit(&format!("{path}.offsetMs"), c.offset_ms)?;
    if !(-900_000..=1_000_000).contains(&c.drift_ppm) {
        return Err(ScenarioError::new(
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
        return Err(ScenarioError::new(
            "lock.redlock.instances",
            format!("expected 1 to {MAX_INSTANCES} instances, got {n}"),
        ));
    }
    time_limit("lock.redlock.timeoutMs", r.timeout_ms)?;
    time_limit("lock.redlock.retryDelayMs", r.retry_delay_ms)?;
    if r.timeout_ms == 0 {
        return Err(ScenarioError::new(
            "lock.redlock.timeoutMs",
            "expected at least 1 ms",
        ));
    }
    if r.drift_factor_ppm > 500_000 {
        return Err(ScenarioError::new(
            "lock.redlock.driftFactorPpm",
            format!("expected at most 500000, got {}", r.drift_factor_ppm),
        ));
    }
    if r.retries > 20 {
        return Err(ScenarioError::new(
            "lock.redlock.retries",
            format!("expected at most 20, got {}", r.retries),
        ));
    }
    for (i, inst) in r.instances.iter().enumerate() {
        let at = format!("lock.redlock.instances[{i}]");
        if inst.name.trim().is_empty() {
            return Err(ScenarioError::new(
                format!("{at}.name"),
                "expected a non-empty name",
            ));
        }
        text_limit(&format!("{at}.name"), &inst.name, MAX_NAME_CHARS)?;
        validate_clock(&format!("{at}.clock"), &inst.clock)?;
        time_limit(&format!("{at}.latencyMs"), inst.latency_ms)?;
        if inst.events.len() > MAX_EVENTS {
            return Err(ScenarioError::new(
                format!("{at}.events"),
                "too many events",
            ));
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
                            return Err(ScenarioError::new(
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
        return Err(ScenarioError::new(
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
        return Err(ScenarioError::new(
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
                return Err(ScenarioError::new(
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
