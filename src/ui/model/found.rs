//! What a search answered, as the page keeps it. The workers send the core's report as JSON
//! text (`sim::search::SearchReport`); `read_report` turns it into an `Answer`. A counterexample
//! becomes a `Found`: an ordinary scenario to load as one undo step, where each injected fault
//! landed (marked "found by search" on the timeline while that scenario is on screen), and
//! the words the core wrote for it. Nothing here writes an outcome of its own: every text is
//! the report's.

use super::selection::{EventRef, InstanceRef, ItemRef};
use crate::sim::Scenario;
use serde_json::Value;

/// Where one injected fault is in the found scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// A client's or an instance's event.
    Item(ItemRef),
    /// A jump of the single lock's clock: `lock.clock.jumps[i]`.
    LockJump(usize),
}

/// A counterexample ready to load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub scenario: Scenario,
    pub marks: Vec<Mark>,
    /// "1 fault: A paused by GC for 31 ms at 4 ms".
    pub summary: String,
    /// The report's answer in words: "Found a failure after 32 schedules …".
    pub statement: String,
}

/// A search's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Found(Box<Found>),
    /// The scenario fails with no fault injected: nothing is loaded.
    FailsAsIs {
        statement: String,
    },
    NoneFound {
        statement: String,
    },
}

impl Answer {
    pub fn statement(&self) -> &str {
        match self {
            Answer::Found(f) => &f.statement,
            Answer::FailsAsIs { statement } | Answer::NoneFound { statement } => statement,
        }
    }
}

fn text(v: &Value, field: &str) -> Result<String, String> {
    v.get(field)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("the search's report has no {field}"))
}

fn index(v: &Value, field: &str) -> Option<usize> {
    v.get(field)?.as_u64().and_then(|n| usize::try_from(n).ok())
}

/// Where an `injected` entry of the report landed.
fn mark(v: &Value) -> Option<Mark> {
    match v.get("at") {
        Some(Value::Object(_)) => {
            let at = &v["at"];
            let event = index(at, "event")?;
            match at.get("lane")?.as_str()? {
                "client" => Some(Mark::Item(ItemRef::Event(EventRef {
                    client: index(at, "client")?,
                    event,
                }))),
                "instance" => Some(Mark::Item(ItemRef::Instance(InstanceRef {
                    instance: index(at, "instance")?,
                    event,
                }))),
                _ => None,
            }
        }
        _ => index(v, "jump").map(Mark::LockJump),
    }
}

/// Reads a report the search workers sent. A report that cannot be read (it never should)
/// is an error in words, never a panic.
pub fn read_report(json: &str) -> Result<Answer, String> {
    let v: Value =
        serde_json::from_str(json).map_err(|e| format!("the search's report is not JSON: {e}"))?;
    let statement = text(&v, "statement")?;
    match text(&v, "outcome")?.as_str() {
        "none_found" => Ok(Answer::NoneFound { statement }),
        "fails_as_is" => Ok(Answer::FailsAsIs { statement }),
        "found" => {
            let c = v
                .get("counterexample")
                .filter(|c| c.is_object())
                .ok_or("the search's report has no counterexample")?;
            let scenario = Scenario::from_value(c["scenario"].clone())
                .map_err(|e| format!("the counterexample does not load: {e}"))?;
            let marks = c
                .get("injected")
                .and_then(Value::as_array)
                .map_or_else(Vec::new, |l| l.iter().filter_map(mark).collect());
            Ok(Answer::Found(Box::new(Found {
                scenario,
                marks,
                summary: text(c, "summary")?,
                statement,
            })))
        }
        other => Err(format!(
            "the search's report has an unknown outcome {other:?}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::presets::preset;
    use crate::sim::search::{search, FaultKind, SearchSpec};

    fn report_of(s: &Scenario, faults: &[FaultKind]) -> String {
        let spec = SearchSpec {
            faults: faults.to_vec(),
            ..SearchSpec::default()
        };
        serde_json::to_string(&search(s, &spec)).unwrap()
    }

    #[test]
    fn a_found_report_loads_with_its_marks() {
        let mut s = preset("gc-pause-unfenced").unwrap();
        s.clients[0].events.remove(1);
        let Answer::Found(f) = read_report(&report_of(&s, &[FaultKind::Pause])).unwrap() else {
            panic!("expected a counterexample");
        };
        assert!(
            f.summary.starts_with("1 fault: A paused by GC for "),
            "{}",
            f.summary
        );
        assert!(f.statement.starts_with("Found a failure after "));
        let last = f.scenario.clients[0].events.len() - 1;
        assert_eq!(
            f.marks,
            vec![Mark::Item(ItemRef::Event(EventRef {
                client: 0,
                event: last
            }))]
        );
        assert!(!crate::sim::run(&f.scenario).verdict.safe);
    }

    #[test]
    fn fails_as_is_and_none_found_load_nothing() {
        let s = preset("gc-pause-unfenced").unwrap();
        let a = read_report(&report_of(&s, &[FaultKind::Pause])).unwrap();
        assert!(matches!(a, Answer::FailsAsIs { .. }), "{a:?}");
        assert!(a.statement().starts_with("Fails as is"));
        let mut s = preset("gc-pause-fenced").unwrap();
        s.clients[0].events.remove(1);
        let a = read_report(&report_of(&s, &[FaultKind::ClientCrash])).unwrap();
        assert!(matches!(a, Answer::NoneFound { .. }), "{a:?}");
        assert!(a.statement().ends_with("not a proof."));
    }

    #[test]
    fn a_bad_report_is_an_error_not_a_panic() {
        for bad in [
            "",
            "[]",
            "{}",
            r#"{"statement":"x","outcome":"found"}"#,
            r#"{"statement":"x","outcome":"found","counterexample":{"scenario":{}}}"#,
            r#"{"statement":"x","outcome":"maybe"}"#,
        ] {
            assert!(read_report(bad).is_err(), "{bad}");
        }
    }
}
