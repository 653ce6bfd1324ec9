//! "What would break this?": every entry of `sim::breaks` names a preset that is safe as
//! written, its changed scenario does not fail before the search injects anything, and its
//! search answers what the entry promises: the failure the caption warns about (shrunk to one
//! fault, replaying to that failure), or none found by an exhaustive search of the whole grid.

use fencing_playground::sim::breaks::{
    breakers, breakers_for, change, no_breaker, without_faults, Change, Expect,
};
use fencing_playground::sim::presets::presets;
use fencing_playground::sim::run;
use fencing_playground::sim::search::{search, Outcome};
use fencing_playground::sim::search::{FaultKind, SearchSpec, Strategy};

#[test]
fn every_entry_finds_what_it_promises() {
    let entries = breakers();
    assert!(entries.len() >= 6);
    for b in &entries {
        let preset = presets().into_iter().find(|p| p.id == b.preset);
        let preset = preset.unwrap_or_else(|| panic!("{}: no such preset", b.preset));
        assert!(
            run(&preset.scenario).verdict.safe,
            "{}: not safe as written",
            b.preset
        );
        let scenario = b.scenario().expect("the preset exists");
        let report = search(&scenario, &b.spec);
        assert_ne!(
            report.outcome,
            Outcome::FailsAsIs,
            "{}: {}",
            b.preset,
            report.statement
        );
        match &b.expect {
            Expect::Found(kind, faults) => {
                assert_eq!(
                    report.outcome,
                    Outcome::Found,
                    "{}: {}",
                    b.preset,
                    report.statement
                );
                let c = report.counterexample.as_ref().expect("a counterexample");
                assert_eq!(c.faults.len(), *faults, "{}: {}", b.preset, c.summary);
                let trace = run(&c.scenario);
                assert!(
                    trace.verdict.violations.iter().any(|v| v.kind == *kind),
                    "{}: the counterexample must replay to {kind:?}",
                    b.preset
                );
            }
            Expect::NoneFound => {
                assert_eq!(
                    report.outcome,
                    Outcome::NoneFound,
                    "{}: {}",
                    b.preset,
                    report.statement
                );
                assert!(report.stats.complete, "{}: {}", b.preset, report.statement);
                assert!(report.statement.contains("not a proof"));
            }
        }
    }
}

#[test]
fn every_preset_is_looked_up() {
    for p in presets() {
        for b in breakers_for(p.id) {
            assert_eq!(b.preset, p.id);
            assert!(b.question.ends_with('?'), "{}", b.question);
            assert!(
                b.searched().starts_with(&format!("Searched {} ", p.id)),
                "{}",
                b.searched()
            );
        }
    }
    // Fencing's presets and the monotonic clock each have an entry.
    for id in [
        "gc-pause-fenced",
        "delayed-packet",
        "redlock-monotonic",
        "redlock-order-fenced",
        "redlock-happy",
    ] {
        assert!(!breakers_for(id).is_empty(), "{id}");
    }
    assert_eq!(breakers_for("redlock-monotonic").len(), 2);
}

/// watchdog-saves has no entry, and says why: B never writes, so no fault of any kind the
/// search injects into A (pauses that stop its watchdog, debit delays, crashes, clock steps),
/// up to two at a time, with fencing off, breaks anything; the reason must stay true.
#[test]
fn watchdog_saves_says_why_it_has_no_entry() {
    assert!(breakers_for("watchdog-saves").is_empty());
    let why = no_breaker("watchdog-saves").expect("a reason");
    assert!(why.contains("never writes"), "{why}");
    let mut s = presets()
        .into_iter()
        .find(|p| p.id == "watchdog-saves")
        .expect("the preset")
        .scenario;
    change(&mut s, Change::FencingOff);
    let kinds = [FaultKind::Pause, FaultKind::Delay, FaultKind::ClientCrash];
    without_faults(&mut s, &kinds);
    let spec = SearchSpec {
        faults: kinds.to_vec(),
        max_faults: 2,
        strategy: Strategy::Exhaustive,
        budget: 1_000_000,
        ..SearchSpec::default()
    };
    let report = search(&s, &spec);
    assert_eq!(report.outcome, Outcome::NoneFound, "{}", report.statement);
    assert!(report.stats.complete, "{}", report.statement);
    // A preset with an entry has no reason, and the reason is only for a safe preset.
    for p in presets() {
        if no_breaker(p.id).is_some() {
            assert!(breakers_for(p.id).is_empty(), "{}", p.id);
            assert!(run(&p.scenario).verdict.safe, "{}", p.id);
        }
    }
}
