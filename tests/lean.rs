//! The lean run (the search's: no step texts, message labels or narration) is the same engine
//! with the same verdicts: over thousands of random scenarios, its trace equals the full run's
//! with the words taken out. The scenarios are every preset with random fault schedules drawn
//! by the search's own swarm (pauses, delays, clock jumps on clients, the lock and instances,
//! instance crashes with and without persistence, partitions, client crashes). Native only.
#![cfg(not(target_arch = "wasm32"))]

use fencing_playground::sim::engine::{run, run_lean};
use fencing_playground::sim::presets::presets;
use fencing_playground::sim::search::fault::{scenario_of, Schedule};
use fencing_playground::sim::search::{FaultKind, Plan, SearchSpec, Strategy};
use fencing_playground::sim::Trace;

/// A trace with every word a lean run may leave out removed.
fn without_words(mut t: Trace) -> Trace {
    for s in &mut t.steps {
        s.text.clear();
    }
    for m in &mut t.messages {
        m.label.clear();
    }
    t.narration.clear();
    t
}

#[test]
fn the_lean_run_agrees_with_the_full_run_on_thousands_of_scenarios() {
    let spec = SearchSpec {
        faults: FaultKind::ALL.to_vec(),
        strategy: Strategy::Swarm,
        max_faults: 4,
        jump_ms: fencing_playground::sim::search::spec::Range { min: -80, max: 80 },
        ..SearchSpec::default()
    };
    let mut scenarios = 0;
    let mut unsafe_runs = 0;
    for p in presets() {
        let plan = Plan::new(&p.scenario, &spec);
        for i in 0..150 {
            let schedule = Schedule {
                faults: plan.faults_of(i),
                dropped: Vec::new(),
            };
            let s = scenario_of(&p.scenario, &schedule);
            let full = run(&s);
            let lean = run_lean(&s);
            assert_eq!(lean.verdict, full.verdict, "{} schedule {i}", p.id);
            assert_eq!(
                without_words(lean.clone()),
                without_words(full),
                "{} schedule {i}",
                p.id
            );
            unsafe_runs += usize::from(!lean.verdict.safe);
            scenarios += 1;
        }
    }
    assert!(scenarios >= 4_000, "{scenarios}");
    // Both verdicts occur often, so the agreement is not about one kind of run.
    assert!(
        unsafe_runs > scenarios / 10 && unsafe_runs < scenarios * 9 / 10,
        "{unsafe_runs}"
    );
}

/// The page's runs: the one it draws keeps its step texts and leaves the narration to
/// `narrate::narrate` (told on the drop of a drag); the comparison it draws without words is
/// the lean run. Told afterwards, the first is the full run; the second has its verdict.
#[test]
fn a_run_without_narration_told_afterwards_is_the_full_run() {
    use fencing_playground::sim::engine::{Run, Words};
    use fencing_playground::sim::narrate::narrate;
    let spec = SearchSpec {
        faults: FaultKind::ALL.to_vec(),
        strategy: Strategy::Swarm,
        max_faults: 3,
        ..SearchSpec::default()
    };
    for p in presets() {
        let plan = Plan::new(&p.scenario, &spec);
        for i in 0..40 {
            let schedule = Schedule {
                faults: plan.faults_of(i),
                dropped: Vec::new(),
            };
            let s = scenario_of(&p.scenario, &schedule);
            let full = run(&s);
            let mut steps = Run::with_words(&s, Words::Steps).finish();
            assert!(steps.narration.is_empty(), "{} schedule {i}", p.id);
            steps.narration = narrate(&steps);
            assert_eq!(steps, full, "{} schedule {i}", p.id);
            let lean = Run::with_words(&s, Words::None).finish();
            assert_eq!(lean, run_lean(&s), "{} schedule {i}", p.id);
        }
    }
}
