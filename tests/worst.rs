//! The worst cases (`tests/worst/cases.rs`) at the largest size the caps allow: each is a scenario the
//! parser accepts, whose run finishes without hitting the step limit, keeps every invariant of
//! `sim::invariants`, and writes a trace of at most 10 MB. How long they take is measured by
//! the benchmark (`scripts/bench.sh`), never here. Beside them: the caps accept every preset
//! and a 10 000-event scenario. Native only (it reads the shared generator file).
#![cfg(not(target_arch = "wasm32"))]

#[path = "worst/cases.rs"]
mod cases;

use fencing_playground::sim::{invariants, presets, run, Scenario};

const MAX_TRACE_BYTES: usize = 10_000_000;

#[test]
fn every_worst_case_is_accepted_and_runs_to_a_sound_trace_of_at_most_10_mb() {
    for case in cases::cases() {
        let (size, scenario) = cases::at_caps(case.build);
        assert!(size >= 100, "{}: the caps accept only size {size}", case.id);
        let parsed = Scenario::from_json(&scenario.to_json())
            .unwrap_or_else(|e| panic!("{}: refused at size {size}: {e}", case.id));
        let trace = run(&parsed);
        assert!(
            !trace.step_limit_hit,
            "{} ({}): hit the step limit",
            case.id, case.what
        );
        assert_eq!(
            invariants::check(&parsed, &trace),
            Vec::<String>::new(),
            "{}",
            case.id
        );
        let bytes = serde_json::to_string(&trace).map_or(0, |t| t.len());
        assert!(
            bytes <= MAX_TRACE_BYTES,
            "{}: a trace of {bytes} bytes",
            case.id
        );
    }
}

#[test]
fn the_caps_accept_every_preset_and_a_10_000_event_scenario() {
    for p in presets::presets() {
        assert_eq!(
            Scenario::from_json(&p.scenario.to_json()),
            Ok(p.scenario),
            "{}",
            p.id
        );
    }
    for s in [
        cases::debits_in_one_lease(10_000),
        cases::many_short_leases(10_000),
    ] {
        let events: usize = s.clients.iter().map(|c| c.events.len()).sum();
        assert!(events >= 9_999, "{events} events");
        assert_eq!(Scenario::from_json(&s.to_json()), Ok(s));
    }
}
