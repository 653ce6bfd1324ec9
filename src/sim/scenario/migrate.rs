//! Old scenarios keep loading: each format version that the project has published gets a step
//! here that rewrites a JSON value into the next version, and `to_current` runs the steps in
//! order. Version 1 is the first published format, so today the chain only checks the number.
//!
//! A step sees lists no longer than their limits (`parse.rs` cuts them, and `from_json`
//! refuses a cut one as soon as `version` has said the version is readable) and runs before
//! `counts.rs` checks the totals: it may rewrite every entry, but must not do more per entry.

use super::error::ScenarioError;
use super::limits::SCENARIO_VERSION;
use serde_json::Value;

/// One rewrite from version `from` to `from + 1`.
type Step = fn(Value) -> Result<Value, ScenarioError>;

/// Migrations indexed by the version they start from (index 0 would migrate version 0).
const STEPS: &[(u32, Step)] = &[];

pub(super) fn to_current(mut value: Value) -> Result<Value, ScenarioError> {
    let mut at = version(&value)?;
    while at < SCENARIO_VERSION {
        let step = STEPS
            .iter()
            .find(|(from, _)| *from == at)
            .map(|(_, step)| *step)
            .ok_or_else(|| {
                ScenarioError::new("version", format!("no migration from version {at}"))
            })?;
        value = step(value)?;
        at += 1;
    }
    Ok(value)
}

/// The value's version, when this build reads it.
pub(super) fn version(value: &Value) -> Result<u32, ScenarioError> {
    let Some(obj) = value.as_object() else {
        return Err(ScenarioError::new(
            "",
            "expected a JSON object with a version and clients",
        ));
    };
    let version = match obj.get("version") {
        None => {
            return Err(ScenarioError::new(
                "version",
                format!("missing; this build writes version {SCENARIO_VERSION}"),
            ))
        }
        Some(v) => v.as_u64().ok_or_else(|| {
            ScenarioError::new("version", format!("expected a whole number, got {v}"))
        })?,
    };
    if version > u64::from(SCENARIO_VERSION) || version == 0 {
        return Err(ScenarioError::new(
            "version",
            format!("this build reads versions up to {SCENARIO_VERSION}, got {version}"),
        ));
    }
    Ok(version as u32)
}
