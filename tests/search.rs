//! "Find a failure", end to end through the core: from each unsafe preset with its fault taken
//! out, the search finds a failure again and shrinks it to the preset's number of faults; strict
//! fencing survives an exhaustive search; the same seed gives the same counterexample; every
//! reported counterexample replays to a failure; the default walks the grid as far as the
//! budget covers whole sizes and samples past it (three clock jumps on Redlock's happy path),
//! saying which part was which; a count of schedules the plan does not hold is refused. Runs
//! natively and in headless Chromium.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use fencing_playground::sim::presets::preset;
use fencing_playground::sim::search::fault::{self, scenario_of};
use fencing_playground::sim::search::{
    probe, search, Fault, FaultKind, Outcome, Plan, Planning, Schedule, SearchReport, SearchSpec,
    Strategy,
};
use fencing_playground::sim::{run, Scenario, ViolationKind};

/// Where a preset's fault is: a client's event or a Redlock instance's.
enum At {
    Client(usize, usize),
    Instance(usize, usize),
}

fn without(id: &str, fault: At) -> Scenario {
    let mut s = preset(id).unwrap_or_else(|| panic!("no preset {id}"));
    match fault {
        At::Client(c, e) => {
            s.clients[c].events.remove(e);
        }
        At::Instance(i, e) => {
            s.lock.redlock_mut().expect("redlock").instances[i]
                .events
                .remove(e);
        }
    }
    assert!(run(&s).verdict.safe, "{id} without its fault must be safe");
    s
}

fn spec(faults: &[FaultKind]) -> SearchSpec {
    SearchSpec {
        faults: faults.to_vec(),
        ..SearchSpec::default()
    }
}

/// The report's counterexample replays to a failure of the searched kind.
#[track_caller]
fn replays(report: &SearchReport, spec: &SearchSpec) {
    let c = report.counterexample.as_ref().expect("a counterexample");
    let trace = run(&c.scenario);
    assert!(
        !trace.verdict.safe,
        "the counterexample must fail when replayed"
    );
    if let Some(kind) = &spec.failure {
        assert!(trace.verdict.violations.iter().any(|v| v.kind == *kind));
    }
    assert!(!c.violations.is_empty());
    // It is an ordinary scenario: its JSON reads back to the same scenario.
    assert_eq!(
        Scenario::from_json(&c.scenario.to_json()).as_ref(),
        Ok(&c.scenario)
    );
}

#[track_caller]
fn finds(id: &str, fault: At, spec: SearchSpec, want: &[&str]) -> SearchReport {
    let s = without(id, fault);
    let report = search(&s, &spec);
    assert_eq!(report.outcome, Outcome::Found, "{id}: {}", report.statement);
    replays(&report, &spec);
    let c = report.counterexample.as_ref().unwrap();
    let kinds: Vec<&str> = c.faults.iter().map(kind_name).collect();
    assert_eq!(kinds, want, "{id}: {}", c.summary);
    assert_eq!(c.injected.len(), c.faults.len());
    is_minimal(&s, &report, &spec);
    report
}

/// No single fault can go, and none can be one millisecond weaker: the shrinker stopped at a
/// local minimum.
#[track_caller]
fn is_minimal(base: &Scenario, report: &SearchReport, spec: &SearchSpec) {
    let c = report.counterexample.as_ref().unwrap();
    let fails = |faults: Vec<Fault>| {
        let s = scenario_of(
            base,
            &Schedule {
                faults,
                dropped: c.left_out.clone(),
            },
        );
        !probe::counted(&run(&s), spec.failure.as_ref()).is_empty()
    };
    assert!(fails(c.faults.clone()));
    for i in 0..c.faults.len() {
        let mut fewer = c.faults.clone();
        fewer.remove(i);
        assert!(!fails(fewer), "fault {i} of {} is not needed", c.summary);
        if let Some(v) = c.faults[i].size() {
            let weaker = v - v.signum();
            let bounds = fault::bounds_of(&c.faults[i], spec);
            if weaker != 0 && (bounds.min..=bounds.max).contains(&weaker) {
                let mut w = c.faults.clone();
                w[i] = w[i].with_size(weaker);
                assert!(!fails(w), "{} still fails one ms weaker", c.summary);
            }
        }
    }
}

fn kind_name(f: &Fault) -> &'static str {
    match f {
        Fault::Pause { .. } => "pause",
        Fault::Delay { .. } => "delay",
        Fault::ClientClockJump { .. } => "client_clock_jump",
        Fault::LockClockJump { .. } => "lock_clock_jump",
        Fault::InstanceCrash { .. } => "instance_crash",
        Fault::Partition { .. } => "partition",
        Fault::ClientCrash { .. } => "client_crash",
        Fault::Failover { .. } => "failover",
    }
}

#[test]
fn the_gc_pause_story_shrinks_to_exactly_one_pause() {
    let all = spec(&[FaultKind::Pause, FaultKind::Delay, FaultKind::ClientCrash]);
    let two = SearchSpec {
        max_faults: 2,
        ..all.clone()
    };
    for id in ["gc-pause-unfenced", "contract-3-unfenced"] {
        for spec in [&all, &two] {
            let r = finds(id, At::Client(0, 1), spec.clone(), &["pause"]);
            let c = r.counterexample.unwrap();
            assert!(
                c.summary.starts_with("1 fault: A paused by GC for "),
                "{}",
                c.summary
            );
            assert!(
                c.left_out.is_empty(),
                "the intent is kept: {:?}",
                c.left_out
            );
        }
    }
}

#[test]
fn each_unsafe_preset_without_its_fault_is_found_again() {
    let sigstop = SearchSpec {
        pause_cause: fencing_playground::sim::PauseCause::Sigstop,
        ..spec(&[FaultKind::Pause])
    };
    finds("bare-del", At::Client(0, 1), sigstop, &["pause"]);
    finds(
        "redlock-order-unfenced",
        At::Client(0, 1),
        spec(&[FaultKind::Pause, FaultKind::ClientCrash]),
        &["pause"],
    );
    let jumps = SearchSpec {
        failure: Some(ViolationKind::TwoHolders),
        ..spec(&[FaultKind::LockClockJump])
    };
    finds(
        "redlock-clock-jump",
        At::Instance(2, 0),
        jumps,
        &["lock_clock_jump"],
    );
    let crashes = SearchSpec {
        failure: Some(ViolationKind::TwoHolders),
        ..spec(&[FaultKind::InstanceCrash])
    };
    let r = finds(
        "redlock-restart",
        At::Instance(2, 0),
        crashes,
        &["instance_crash"],
    );
    assert!(matches!(
        r.counterexample.unwrap().faults[0],
        Fault::InstanceCrash {
            persistent: false,
            ..
        }
    ));
}

/// k = 2 natively (about 200 000 schedules); k = 1 in the browser, where the test build is
/// unoptimised wasm and the pairs would take minutes.
const STRICT_K: u32 = if cfg!(target_arch = "wasm32") { 1 } else { 2 };

#[test]
fn strict_fencing_survives_an_exhaustive_search_at_k_2() {
    let s = without("gc-pause-fenced", At::Client(0, 1));
    let spec = SearchSpec {
        max_faults: STRICT_K,
        failure: Some(ViolationKind::StaleWriteAccepted),
        budget: 10_000_000,
        ..spec(&[FaultKind::Pause, FaultKind::Delay, FaultKind::ClientCrash])
    };
    let r = search(&s, &spec);
    assert_eq!(r.outcome, Outcome::NoneFound, "{}", r.statement);
    assert!(r.stats.complete);
    assert_eq!(r.stats.schedules, r.stats.space);
    assert!(
        r.statement.starts_with(&format!(
            "No failure found: exhaustive: {} schedules, grid: ",
            r.stats.schedules
        )) && r.statement.ends_with("not a proof."),
        "{}",
        r.statement
    );
    // The same schedules without fencing break at once: the grid does reach the story.
    let mut unfenced = s.clone();
    unfenced.storage.fence_rule = fencing_playground::sim::FenceRule::Off;
    assert_eq!(search(&unfenced, &spec).outcome, Outcome::Found);
}

#[test]
fn a_scenario_that_fails_already_is_reported_as_such() {
    let s = preset("gc-pause-unfenced").unwrap();
    let spec = SearchSpec::default();
    let r = search(&s, &spec);
    assert_eq!(r.outcome, Outcome::FailsAsIs);
    assert_eq!(r.stats.schedules, 0);
    assert!(r.statement.starts_with("Fails as is"), "{}", r.statement);
    let c = r.counterexample.as_ref().unwrap();
    assert!(c.faults.is_empty() && c.found_faults.is_empty());
    replays(&r, &spec);
}

#[test]
fn the_lowest_failing_schedule_wins_however_the_range_is_split() {
    let s = without("gc-pause-unfenced", At::Client(0, 1));
    // Auto with a budget the pairs do not fit: every single fault, then random pairs.
    for (strategy, budget) in [
        (Strategy::Exhaustive, 100_000),
        (Strategy::Swarm, 100_000),
        (Strategy::Auto, 3_000),
    ] {
        let spec = SearchSpec {
            strategy,
            budget,
            max_faults: 2,
            seed: 7,
            ..spec(&[FaultKind::Pause, FaultKind::Delay, FaultKind::ClientCrash])
        };
        let plan = Plan::new(&s, &spec);
        let whole = plan.scan(0, plan.total()).expect("a failure");
        if strategy == Strategy::Auto {
            let stats = plan.finish(None, 0).expect("no count").stats;
            assert!(stats.exhaustive.is_some() && stats.sampled.is_some());
        }
        // Slices of any size, scanned by any number of workers: the smallest failure wins.
        for slice in [1, 7, 64, 1000, plan.total() / 2 + 1] {
            let found = lowest_in_blocks(&plan, slice);
            assert_eq!(found, Some(whole), "{strategy:?}, slices of {slice}");
        }
    }
}

#[test]
fn same_seed_same_counterexample() {
    let s = without("gc-pause-unfenced", At::Client(0, 1));
    let swarm = |seed| SearchSpec {
        strategy: Strategy::Swarm,
        max_faults: 3,
        seed,
        ..spec(&[FaultKind::Pause, FaultKind::Delay, FaultKind::ClientCrash])
    };
    let a = search(&s, &swarm(1));
    assert_eq!(a, search(&s, &swarm(1)));
    replays(&a, &swarm(1));
    let found: Vec<_> = (2..6)
        .map(|seed| {
            let r = search(&s, &swarm(seed));
            replays(&r, &swarm(seed));
            r.counterexample.unwrap().found_faults
        })
        .collect();
    let first = a.counterexample.unwrap().found_faults;
    assert!(
        found.iter().any(|f| *f != first),
        "other seeds draw other schedules"
    );
}

/// The report taken in slices (`finishing`, `advance`, `report`: the main thread's way) is the
/// report of one `finish` call, for a failure found, one that fails as is, and none found.
#[test]
fn the_report_in_slices_is_the_report_in_one_call() {
    let found = without("gc-pause-unfenced", At::Client(0, 1));
    let cases = [
        (found.clone(), spec(&[FaultKind::Pause, FaultKind::Delay])),
        (
            preset("gc-pause-unfenced").expect("preset"),
            spec(&[FaultKind::Pause]),
        ),
        (
            preset("gc-pause-fenced").expect("preset"),
            spec(&[FaultKind::Delay]),
        ),
        // Found among the random schedules, after every single jump.
        three_jumps(20_000),
    ];
    for (scenario, spec) in cases {
        let plan = Plan::new(&scenario, &spec);
        let total = plan.total();
        let hit = if plan.fails_as_is() {
            None
        } else {
            plan.scan(0, total)
        };
        let schedules = hit.map_or(total, |i| i + 1);
        let whole = plan.finish(hit, schedules).expect("counts of the plan");
        let mut f = plan.finishing(hit, schedules).expect("counts of the plan");
        let mut slices = 0;
        while !f.advance(&plan, 1) {
            slices += 1;
        }
        assert_eq!(f.shrink_runs(), whole.stats.shrink_runs);
        if whole.counterexample.is_some() {
            assert!(
                slices > 1,
                "{}: shrinking took {slices} slices",
                whole.statement
            );
        }
        assert_eq!(plan.report(f), whole);
    }
}

/// A plan made in slices of a few actions (the main thread's way) is the plan made at once:
/// the same space, the same verdict before faults, the same report.
#[test]
fn a_plan_made_in_slices_is_the_plan_made_at_once() {
    let cases = [
        (
            without("gc-pause-unfenced", At::Client(0, 1)),
            spec(&[FaultKind::Pause]),
        ),
        (
            preset("gc-pause-unfenced").expect("preset"),
            spec(&[FaultKind::Pause]),
        ),
        (
            preset("redlock-monotonic").expect("preset"),
            spec(&[FaultKind::LockClockJump]),
        ),
        // The default samples past single jumps here, and finds three.
        three_jumps(20_000),
    ];
    for (scenario, spec) in cases {
        let whole = Plan::new(&scenario, &spec);
        let mut p = Planning::new(&scenario, &spec);
        let mut slices = 0;
        while !p.advance(2) {
            slices += 1;
        }
        assert!(slices > 2, "{}: planned in {slices} slices", scenario.name);
        let sliced = p.plan();
        assert_eq!(sliced.total(), whole.total());
        assert_eq!(sliced.fails_as_is(), whole.fails_as_is());
        let total = whole.total();
        assert_eq!(sliced.scan(0, total), whole.scan(0, total));
        let hit = if whole.fails_as_is() {
            None
        } else {
            whole.scan(0, total)
        };
        let n = hit.map_or(total, |i| i + 1);
        let report = whole.finish(hit, n);
        assert!(report.is_ok(), "{report:?}");
        assert_eq!(sliced.finish(hit, n), report);
    }
}

/// A count the plan does not hold is refused, naming `schedules`, and never turns into a
/// complete search: only the numbers of the plan, all of them, make "exhaustive".
#[test]
fn a_count_beyond_the_plan_is_refused_not_reported_complete() {
    let s = preset("gc-pause-fenced").expect("preset");
    let spec = SearchSpec {
        failure: Some(ViolationKind::StaleWriteAccepted),
        ..spec(&[FaultKind::Pause])
    };
    let plan = Plan::new(&s, &spec);
    let total = plan.total();
    assert_eq!(total, plan.space(), "the budget does not cut this grid");
    let refused = |found: Option<u64>, schedules: u64| match plan.finish(found, schedules) {
        Ok(r) => panic!("{found:?}, {schedules}: accepted: {}", r.statement),
        Err(e) => e.to_string(),
    };
    let above = refused(None, u64::MAX);
    assert_eq!(
        above,
        format!(
            "schedules: {} is more than the {total} schedules of this search",
            u64::MAX
        )
    );
    assert!(refused(None, total + 1).starts_with("schedules: "));
    assert_eq!(
        refused(Some(5), 5),
        "schedules: 5 scanned cannot include the failure found at number 5"
    );
    // Every number scanned: complete. One short of it: not.
    let all = plan.finish(None, total).expect("the plan's own count");
    assert!(all.stats.complete, "{}", all.statement);
    assert!(all.statement.starts_with("No failure found: exhaustive: "));
    let short = plan
        .finish(None, total - 1)
        .expect("a count below the total");
    assert!(!short.stats.complete, "{}", short.statement);
    assert!(
        !short.statement.contains("exhaustive: "),
        "{}",
        short.statement
    );
}

/// When the budget cuts the grid, even every number of the plan scanned is not complete.
#[test]
fn a_search_cut_at_the_budget_is_never_complete() {
    let s = preset("gc-pause-fenced").expect("preset");
    let spec = SearchSpec {
        failure: Some(ViolationKind::StaleWriteAccepted),
        budget: 10,
        strategy: Strategy::Exhaustive,
        ..spec(&[FaultKind::Pause])
    };
    let plan = Plan::new(&s, &spec);
    assert_eq!(plan.total(), 10);
    assert!(plan.space() > 10);
    assert!(
        plan.finish(None, plan.space()).is_err(),
        "the whole grid's count, past the budget"
    );
    let r = plan.finish(None, 10).expect("the plan's own count");
    assert!(!r.stats.complete, "{}", r.statement);
    assert!(
        r.statement.contains("stopped at the budget"),
        "{}",
        r.statement
    );
}

/// The spec a new user's JSON asks for, read as the API reads it.
fn spec_json(json: &str) -> SearchSpec {
    let v: serde_json::Value = serde_json::from_str(json).expect("JSON");
    SearchSpec::from_value(&v).expect("a spec")
}

/// Redlock's happy path (five instances, A holds, B asks at 20 ms), lock clock jumps only,
/// k = 3: three of the five instances must step for B to get a majority.
fn three_jumps(budget: u64) -> (Scenario, SearchSpec) {
    let s = preset("redlock-happy").expect("preset");
    assert_eq!(s.lock.redlock().map(|r| r.instances.len()), Some(5));
    let json = format!(r#"{{"faults":["lock_clock_jump"],"maxFaults":3,"budget":{budget}}}"#);
    (s, spec_json(&json))
}

/// No strategy named, 300 000 schedules, where the grid of up to three jumps holds tens of
/// billions: the default walks every single jump, then samples two and three, and finds the
/// failure within the budget, saying which part was which. The exhaustive order (the old
/// default) spends all 300 000 numbers on singles and pairs and reports none found.
#[test]
fn the_default_finds_three_clock_jumps_on_redlock_within_the_budget() {
    let (s, spec) = three_jumps(300_000);
    assert_eq!(spec.strategy, Strategy::Auto);
    let r = search(&s, &spec);
    assert_eq!(r.outcome, Outcome::Found, "{}", r.statement);
    replays(&r, &spec);
    assert_eq!(r.counterexample.as_ref().map(|c| c.faults.len()), Some(3));
    let (e, p) = (r.stats.exhaustive.clone(), r.stats.sampled.clone());
    let (e, p) = (e.expect("an exhaustive part"), p.expect("a sampled part"));
    assert_eq!((e.up_to_k, e.schedules), (1, e.space), "every single jump");
    assert_eq!((p.min_faults, p.max_faults), (2, 3));
    assert_eq!(e.space + p.space, 300_000);
    assert!(p.schedules >= 1 && e.schedules + p.schedules == r.stats.schedules);
    assert!(!r.stats.complete);
    let want = format!(
        "Found a failure after {} schedules (exhaustive for k ≤ 1: {} schedules; then {} random \
         schedules of 2 to 3 faults, seed 0); shrunk to 3 faults: ",
        r.stats.schedules, e.space, p.schedules
    );
    assert!(r.statement.starts_with(&want), "{}", r.statement);
    // The exhaustive order over the same budget never gets past pairs.
    let old = Plan::new(
        &s,
        &SearchSpec {
            strategy: Strategy::Exhaustive,
            ..spec.clone()
        },
    );
    assert!(old.space() > 1_000 * old.total(), "{}", old.space());
    assert_eq!(old.faults_of(old.total() - 1).len(), 2);
}

/// However the numbers are cut into blocks, across the exhaustive part's end and into the
/// random part, the lowest failing number is the one a single scan finds.
#[test]
fn blocks_of_any_size_find_the_lowest_failing_number_across_both_parts() {
    let (s, spec) = three_jumps(20_000);
    let plan = Plan::new(&s, &spec);
    let whole = plan.scan(0, plan.total()).expect("a failure");
    let walked = plan.finish(None, 0).expect("no count").stats.exhaustive;
    assert!(
        walked.is_some_and(|e| whole >= e.space),
        "found in the random part"
    );
    for block in [1, 7, 1000] {
        assert_eq!(
            lowest_in_blocks(&plan, block),
            Some(whole),
            "blocks of {block}"
        );
    }
}

/// The lowest failing number when `plan`'s numbers are scanned in blocks of `block`, skipping
/// the blocks above a failure already found, as the workers do.
fn lowest_in_blocks(plan: &Plan, block: u64) -> Option<u64> {
    let mut found = None;
    let mut from = 0;
    while from < plan.total() && found.is_none_or(|f| from < f) {
        let hit = plan.scan(from, from + block);
        found = found.min(hit).or(found).or(hit);
        from += block;
    }
    found
}

/// Where the whole grid fits the budget, the default is the exhaustive search, word for word:
/// the same schedules, the same report, complete when nothing is found.
#[test]
fn a_small_space_is_searched_exhaustively_by_default_and_reported_complete() {
    let cases = [
        (
            without("gc-pause-unfenced", At::Client(0, 1)),
            spec(&[FaultKind::Pause, FaultKind::Delay, FaultKind::ClientCrash]),
        ),
        (
            without("gc-pause-fenced", At::Client(0, 1)),
            SearchSpec {
                failure: Some(ViolationKind::StaleWriteAccepted),
                ..spec(&[FaultKind::Pause, FaultKind::Delay, FaultKind::ClientCrash])
            },
        ),
    ];
    for (s, auto) in cases {
        assert_eq!(auto.strategy, Strategy::Auto);
        let exhaustive = SearchSpec {
            strategy: Strategy::Exhaustive,
            ..auto.clone()
        };
        let (a, e) = (search(&s, &auto), search(&s, &exhaustive));
        assert_eq!(a.statement, e.statement);
        assert_eq!(
            (a.stats.strategy, e.stats.strategy),
            (auto.strategy, exhaustive.strategy)
        );
        // The strategy asked for is all that differs.
        let mut same = a.clone();
        same.stats.strategy = Strategy::Exhaustive;
        assert_eq!(same, e);
        assert_eq!(a.stats.sampled, None);
        let part = a.stats.exhaustive.clone().expect("an exhaustive part");
        assert_eq!((part.up_to_k, part.space), (1, a.stats.space));
        match a.outcome {
            Outcome::Found => assert!(
                a.statement.starts_with("Found a failure after ")
                    && a.statement
                        .contains(" schedules (exhaustive, k ≤ 1); shrunk to 1 fault: "),
                "{}",
                a.statement
            ),
            _ => {
                assert!(a.stats.complete, "{}", a.statement);
                assert!(
                    a.statement.starts_with("No failure found: exhaustive: "),
                    "{}",
                    a.statement
                );
            }
        }
    }
}

/// When the auto search samples and finds nothing, it says which part was exhaustive and which
/// random, that it is bounded, and never that it was complete.
#[test]
fn none_found_tells_the_exhaustive_part_from_the_random_one() {
    let s = without("gc-pause-fenced", At::Client(0, 1));
    let spec = SearchSpec {
        failure: Some(ViolationKind::StaleWriteAccepted),
        max_faults: 2,
        budget: 2_000,
        ..spec(&[FaultKind::Pause, FaultKind::Delay])
    };
    let r = search(&s, &spec);
    assert_eq!(r.outcome, Outcome::NoneFound, "{}", r.statement);
    assert!(!r.stats.complete);
    let e = r.stats.exhaustive.clone().expect("an exhaustive part");
    let p = r.stats.sampled.clone().expect("a sampled part");
    assert_eq!((e.up_to_k, p.min_faults, p.max_faults), (1, 2, 2));
    assert_eq!((e.schedules, p.schedules), (e.space, 2_000 - e.space));
    let want = format!(
        "No failure found: exhaustive for k ≤ 1: {} schedules, grid: ",
        e.space
    );
    assert!(r.statement.starts_with(&want), "{}", r.statement);
    let tail = format!(
        "; then {} random schedules of 2 faults, seed 0, k ≤ 2, fault kinds: client pauses, \
         debit delays. Bounded by this budget and grid, not a proof.",
        p.schedules
    );
    assert!(r.statement.ends_with(&tail), "{}", r.statement);
    // Its stats read as camelCase JSON with both parts.
    let json = serde_json::to_value(&r.stats).expect("JSON");
    assert_eq!(json["strategy"], "auto");
    assert_eq!(json["exhaustive"]["upToK"], 1);
    assert_eq!(json["sampled"]["minFaults"], 2);
    assert_eq!(json["sampled"]["schedules"], p.schedules);
}

/// PostgreSQL advisory locks under "Find a failure": with idle_session_timeout the lock is a
/// lease and one pause breaks it again; with no timeout, pauses and crashes cannot (the lock
/// never expires); with the write inside the lock's transaction, pauses and delays cannot.
#[test]
fn advisory_locks_break_by_a_pause_only_when_a_timeout_makes_them_a_lease() {
    let lease = without("advisory-idle-timeout", At::Client(0, 1));
    let found = search(&lease, &spec(&[FaultKind::Pause]));
    assert_eq!(found.outcome, Outcome::Found, "{}", found.statement);
    replays(&found, &spec(&[FaultKind::Pause]));
    let c = found.counterexample.as_ref().expect("a counterexample");
    assert_eq!(c.faults.len(), 1, "{:?}", c.faults);

    for (id, kinds) in [
        (
            "advisory-paused-holder",
            &[FaultKind::Pause, FaultKind::ClientCrash][..],
        ),
        (
            "advisory-in-transaction",
            &[FaultKind::Pause, FaultKind::Delay][..],
        ),
    ] {
        let s = without(id, At::Client(0, 1));
        let spec = SearchSpec {
            max_faults: 2,
            budget: 10_000_000,
            ..spec(kinds)
        };
        let r = search(&s, &spec);
        assert_eq!(r.outcome, Outcome::NoneFound, "{id}: {}", r.statement);
        assert!(r.stats.complete, "{id}: {}", r.statement);
    }

    // The failover preset without its failover is safe; one injected failover breaks it again,
    // and the counterexample names it. A Redis lock is offered no failover to inject.
    let mut s = preset("advisory-failover").expect("preset");
    if let Some(a) = s.lock.advisory_mut() {
        a.events.clear();
    }
    assert!(run(&s).verdict.safe);
    let failover = spec(&[FaultKind::Failover]);
    let r = search(&s, &failover);
    assert_eq!(r.outcome, Outcome::Found, "{}", r.statement);
    replays(&r, &failover);
    let c = r.counterexample.as_ref().expect("a counterexample");
    assert!(
        matches!(c.faults.as_slice(), [Fault::Failover { .. }]),
        "{:?}",
        c.faults
    );
    assert!(
        c.summary.contains("PostgreSQL failed over"),
        "{}",
        c.summary
    );
    let redis = without("gc-pause-unfenced", At::Client(0, 1));
    assert!(Plan::new(&redis, &failover).space() <= 1);
}

/// ZooKeeper under "Find a failure": the SUSPENDED preset without its partition is safe, and
/// one injected partition of a client from the ensemble breaks it again (the policy of
/// keeping going); a ZooKeeper lock is offered no lock clock jump, which it cannot feel.
#[test]
fn zookeeper_breaks_by_a_partition_of_a_client_from_the_ensemble() {
    let mut s = preset("zk-suspended-ignored").expect("preset");
    if let Some(z) = s.lock.zookeeper_mut() {
        z.events.clear();
    }
    assert!(run(&s).verdict.safe);
    let cut = spec(&[FaultKind::Partition]);
    let r = search(&s, &cut);
    assert_eq!(r.outcome, Outcome::Found, "{}", r.statement);
    replays(&r, &cut);
    let c = r.counterexample.as_ref().expect("a counterexample");
    assert!(
        matches!(
            c.faults.as_slice(),
            [Fault::Partition {
                client: Some(0),
                ..
            }]
        ),
        "{:?}",
        c.faults
    );
    assert!(
        c.summary.contains("A cut off from the ZooKeeper ensemble"),
        "{}",
        c.summary
    );
    assert!(Plan::new(&s, &spec(&[FaultKind::LockClockJump])).space() <= 1);
}

#[test]
fn a_database_lease_breaks_by_a_failover_that_repeats_a_generation() {
    // The `<=` account without its failover: safe, one holder after another. A failover
    // that loses B's takeover hands C the same generation, and the account lets both through.
    let mut s = preset("lease-failover-non-decreasing").expect("preset");
    if let Some(l) = s.lock.lease_mut() {
        l.events.clear();
    }
    assert!(run(&s).verdict.safe);
    let lose = spec(&[FaultKind::Failover]);
    let r = search(&s, &lose);
    assert_eq!(r.outcome, Outcome::Found, "{}", r.statement);
    replays(&r, &lose);
    let c = r.counterexample.as_ref().expect("a counterexample");
    assert!(
        matches!(c.faults.as_slice(), [Fault::Failover { .. }]),
        "{:?}",
        c.faults
    );
    // The strict account refuses the equal generation, whatever failover the search tries.
    s.storage.fence_rule = fencing_playground::sim::FenceRule::Strict;
    let r = search(&s, &lose);
    assert_eq!(r.outcome, Outcome::NoneFound, "{}", r.statement);
    // The database's clock judges expiry: a step of it is a fault the lease takes.
    assert!(Plan::new(&s, &spec(&[FaultKind::LockClockJump])).space() > 1);
}
