//! The scenario: everything a run depends on, as versioned data, and the one door it comes in
//! through. `Scenario::from_json` migrates an older version, reads the value field by field
//! and validates the limits, so input is either a scenario every run of which is bounded, or an
//! error that names the field at fault.

mod advisory;
#[cfg(not(feature = "first-stage"))]
mod advisory_check;
mod controls;
pub mod counts;
mod error;
mod etcd;
mod fields;
mod lease;
#[cfg(not(feature = "first-stage"))]
mod lease_check;
pub mod limits;
mod lock;
mod migrate;
mod parse;
mod read;
mod redlock;
mod types;
mod validate;
mod work;
mod zookeeper;
#[cfg(not(feature = "first-stage"))]
mod zookeeper_check;

pub use controls::{Control, Offer, Offers};
pub use error::ScenarioError;
pub use limits::*;
pub use types::*;
pub use work::{work, Work};

impl Scenario {
    /// Parses and validates a scenario from JSON text, migrating older versions. A list past
    /// its limit is counted, not built, and refused once the version is known to be readable.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let (value, refusal) = parse::value(text)
            .map_err(|e| ScenarioError::new("", format!("not valid JSON ({e})")))?;
        if let Some(e) = refusal {
            migrate::version(&value)?;
            return Err(e);
        }
        Scenario::from_value(value)
    }

    /// Validates an already-parsed JSON value (a link's, a search report's): every list's
    /// count is checked before any entry is read.
    pub fn from_value(value: serde_json::Value) -> Result<Scenario, ScenarioError> {
        let value = migrate::to_current(value)?;
        counts::check(&&value)?;
        let scenario = read::scenario(&value)?;
        scenario.validate()?;
        Ok(scenario)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::account::FenceRule;

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
                "clients[0].events[0].durationMs: expected a whole number from 1 to 10000000 ms, got -5",
            ),
            (
                &base(r#"{"kind":"acquire","atMs":"soon"}"#),
                "clients[0].events[0].atMs: expected a whole number ≥ 0, got text \"soon\"",
            ),
            (
                &base(r#"{"kind":"acquire","atMs":99999999999}"#),
                "clients[0].events[0].atMs: expected a whole number from 0 to 10000000 ms",
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
                "lock.ttlMs: expected a whole number from 1 to",
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
