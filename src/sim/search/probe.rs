//! One probe of the search: run a scenario and ask whether it fails the way the spec means
//! (any violation, or one kind). The search, the shrinker and the final replay all ask through
//! here, so they cannot disagree about what a failure is.

use crate::sim::engine::run_lean;
use crate::sim::scenario::Scenario;
use crate::sim::trace::{Trace, Violation, ViolationKind};

/// The violations of a trace that count as the failure searched for.
pub fn counted(trace: &Trace, failure: Option<&ViolationKind>) -> Vec<Violation> {
    trace
        .verdict
        .violations
        .iter()
        .filter(|v| failure.is_none_or(|k| v.kind == *k))
        .cloned()
        .collect()
}

/// Whether `s` fails: at least one counted violation. The run is lean (no words), which
/// computes the same verdict; the counterexample a person sees is replayed in full.
pub fn fails(s: &Scenario, failure: Option<&ViolationKind>) -> bool {
    let trace = run_lean(s);
    trace
        .verdict
        .violations
        .iter()
        .any(|v| failure.is_none_or(|k| v.kind == *k))
}
