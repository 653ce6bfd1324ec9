//! Whole runs through the engine, as a table: each preset (and a few variants) with what the
//! trace must say. The broken variant sits next to the fixed one.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use fencing_playground::sim::presets::{preset, presets};
use fencing_playground::sim::trace::{Outcome, Trace};
use fencing_playground::sim::{run, Scenario, ViolationKind};

struct Expect<'a> {
    safe: bool,
    balance: i64,
    /// Texts that must appear among the steps, as "client: text".
    steps: &'a [&'a str],
    violations: &'a [ViolationKind],
}

fn step_lines(trace: &Trace) -> Vec<String> {
    trace
        .steps
        .iter()
        .map(|s| format!("{}@{}: {}", trace.clients[s.client], s.at_ms, s.text))
        .collect()
}

#[track_caller]
fn check(id: &str, expect: Expect) {
    let scenario = preset(id).unwrap_or_else(|| panic!("no preset {id}"));
    check_scenario(id, &scenario, expect);
}

#[track_caller]
fn check_scenario(label: &str, scenario: &Scenario, expect: Expect) {
    let trace = run(scenario);
    let lines = step_lines(&trace);
    for want in expect.steps {
        assert!(
            lines.iter().any(|l| l == want),
            "{label}: no step {want:?} in\n{}",
            lines.join("\n")
        );
    }
    assert_eq!(trace.final_balance, expect.balance, "{label}: balance");
    let kinds: Vec<ViolationKind> = trace
        .verdict
        .violations
        .iter()
        .map(|v| v.kind.clone())
        .collect();
    assert_eq!(kinds, expect.violations, "{label}: {:#?}", trace.verdict);
    assert_eq!(trace.verdict.safe, expect.safe, "{label}: verdict");
    assert!(!trace.step_limit_hit, "{label}: step limit");
}

#[test]
fn gc_pause_unfenced_is_unsafe_and_fenced_is_safe() {
    check(
        "gc-pause-unfenced",
        Expect {
            safe: false,
            balance: 80,
            steps: &[
                "A@0: granted fence 33, lease until 30 ms",
                "B@31: granted fence 34, lease until 61 ms",
                "B@32: accepted, balance 90",
                "A@45: sent debit 10 with fence 33",
                "A@45: accepted, balance 80",
            ],
            violations: &[
                ViolationKind::StaleWriteAccepted,
                ViolationKind::OverlappingWriters,
            ],
        },
    );
    check(
        "gc-pause-fenced",
        Expect {
            safe: true,
            balance: 90,
            steps: &[
                "B@32: accepted, balance 90",
                "A@45: rejected stale_fence: 33 ≤ 34",
            ],
            violations: &[],
        },
    );
}

#[test]
fn a_pause_shorter_than_the_ttl_lets_the_watchdog_keep_b_out() {
    let mut s = preset("gc-pause-fenced").unwrap();
    s.clients[0].events[1] = fencing_playground::sim::Event::Pause {
        at_ms: 1,
        duration_ms: 20,
        cause: fencing_playground::sim::PauseCause::Gc,
    };
    check_scenario(
        "short pause, watchdog",
        &s,
        Expect {
            safe: true,
            balance: 90,
            steps: &[
                "A@21: accepted, balance 90",
                "A@21: watchdog renewed until 51 ms",
                "B@31: denied lock_held by A",
                "B@32: skipped: B does not hold the lock, so it does not write",
            ],
            violations: &[],
        },
    );
    // Without renewal the lease is a lease: it ends at 30 ms however short the pause.
    let mut bare = s.clone();
    bare.lock.watchdog = false;
    check_scenario(
        "short pause, no watchdog",
        &bare,
        Expect {
            safe: true,
            balance: 80,
            steps: &[
                "A@21: accepted, balance 90",
                "B@31: granted fence 34, lease until 61 ms",
            ],
            violations: &[],
        },
    );
}

#[test]
fn the_watchdog_cannot_save_a_lease_that_ran_out_during_the_pause() {
    check(
        "gc-pause-fenced",
        Expect {
            safe: true,
            balance: 90,
            steps: &[
                "A@45: rejected stale_fence: 33 ≤ 34",
                "A@45: renew denied: B holds the lock",
            ],
            violations: &[],
        },
    );
}

#[test]
fn contract_presets() {
    check(
        "contract-1-nx",
        Expect {
            safe: true,
            balance: 100,
            steps: &[
                "A@0: granted fence 33, lease until 30 ms",
                "B@10: denied lock_held by A",
            ],
            violations: &[],
        },
    );
    check(
        "contract-2-ttl",
        Expect {
            safe: true,
            balance: 100,
            steps: &["B@31: granted fence 34, lease until 61 ms"],
            violations: &[],
        },
    );
    check(
        "contract-5-equal-is-stale",
        Expect {
            safe: true,
            balance: 95,
            steps: &["A@10: rejected stale_fence: 33 ≤ 33 (strict: one write per grant)"],
            violations: &[],
        },
    );
    check(
        "contract-6-check-then-write",
        Expect {
            safe: true,
            balance: 90,
            steps: &[
                "A@28: isHeld() returned true",
                "A@45: rejected stale_fence: 33 ≤ 34",
            ],
            violations: &[],
        },
    );
}

#[test]
fn failure_stories() {
    check(
        "delayed-packet",
        Expect {
            safe: true,
            balance: 90,
            steps: &["A@50: rejected stale_fence: 33 ≤ 34"],
            violations: &[],
        },
    );
    check(
        "watchdog-saves",
        Expect {
            safe: true,
            balance: 90,
            steps: &["B@31: denied lock_held by A", "A@50: accepted, balance 90"],
            violations: &[],
        },
    );
    check(
        "watchdog-stalls",
        Expect {
            safe: true,
            balance: 90,
            steps: &[
                "A@50: renew denied: B holds the lock",
                "A@50: rejected stale_fence: 33 ≤ 34",
            ],
            violations: &[],
        },
    );
    check(
        "bare-del",
        Expect {
            safe: false,
            balance: 100,
            steps: &[
                "A@40: bare DEL: deleted B's lease",
                "C@45: granted fence 35, lease until 75 ms",
            ],
            violations: &[
                ViolationKind::LeaseDeletedByNonOwner,
                ViolationKind::TwoHolders,
            ],
        },
    );
    check(
        "crash-ttl",
        Expect {
            safe: true,
            balance: 90,
            steps: &[
                "B@15: denied lock_held by A",
                "B@31: granted fence 34, lease until 61 ms",
            ],
            violations: &[],
        },
    );
    check(
        "idempotent-retry",
        Expect {
            safe: true,
            balance: 90,
            steps: &["A@25: duplicate: already applied, balance 90"],
            violations: &[],
        },
    );
    check(
        "efficiency-tier",
        Expect {
            safe: true,
            balance: 100,
            steps: &["B@31: granted no fence, lease until 61 ms"],
            violations: &[],
        },
    );
    check(
        "strict-vs-non-decreasing",
        Expect {
            safe: true,
            balance: 70,
            steps: &["A@10: accepted, balance 70"],
            violations: &[],
        },
    );
    check(
        "plain-redis",
        Expect {
            safe: true,
            balance: 100,
            steps: &["A@5: rejected missing_token: the write carried no fence"],
            violations: &[],
        },
    );
}

#[test]
fn idempotency_off_makes_the_retry_a_double_debit() {
    let mut s = preset("idempotent-retry").unwrap();
    s.storage.idempotency = false;
    s.storage.fence_rule = fencing_playground::sim::FenceRule::Off;
    check_scenario(
        "no idempotency",
        &s,
        Expect {
            safe: false,
            balance: 80,
            steps: &["A@25: accepted, balance 80"],
            violations: &[ViolationKind::BalanceMismatch],
        },
    );
}

#[test]
fn every_preset_round_trips_through_json_and_narrates() {
    for p in presets() {
        let json = p.scenario.to_json();
        assert_eq!(
            Scenario::from_json(&json).as_ref(),
            Ok(&p.scenario),
            "{}",
            p.id
        );
        let trace = run(&p.scenario);
        let has_events = p.scenario.clients.iter().any(|c| !c.events.is_empty());
        assert!(trace.narration.len() > usize::from(has_events), "{}", p.id);
        assert!(!p.scenario.caption.is_empty(), "{}", p.id);
    }
}

#[test]
fn the_gc_story_is_narrated_in_plain_words() {
    let trace = run(&preset("gc-pause-fenced").unwrap());
    let text = trace.narration.join(" ");
    for want in [
        "At 30 ms A's lease expired while A was paused by GC.",
        "At 31 ms B acquired the lock with fence 34",
        "At 45 ms A sent a debit of 10 with fence 33, still believing it held the lock.",
        "Storage rejected A's debit because 33 ≤ 34 (stale_fence).",
    ] {
        assert!(text.contains(want), "missing {want:?} in {text}");
    }
    let belief = &trace.beliefs[0];
    assert_eq!((belief.start_ms, belief.end_ms), (0, 45));
    assert_eq!(belief.stale_from_ms, Some(30));
    assert!(trace
        .steps
        .iter()
        .any(|s| matches!(s.outcome, Outcome::Woke) && s.at_ms == 45));
}

#[test]
fn the_step_limit_is_reported() {
    let mut s = preset("watchdog-saves").unwrap();
    s.end_ms = 10_000;
    s.step_limit = 50;
    let trace = run(&s);
    assert!(trace.step_limit_hit);
    assert!(trace.narration.iter().any(|l| l.contains("step limit")));
}
