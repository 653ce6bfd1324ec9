//! "What would break this?": every entry of `sim::breaks` names a preset that is safe as
//! written, its changed scenario does not fail before the search injects anything, and its
//! search answers what the entry promises: the failure the caption warns about (shrunk to the
//! entry's number of faults, replaying to that failure), or none found by an exhaustive search
//! of the whole grid. Every safe preset has an entry or a reason, and each reason's claim is
//! checked by the searches it speaks of.

use fencing_playground::sim::account::FenceRule;
use fencing_playground::sim::breaks::{
    breakers, breakers_for, change, no_breaker, without_faults, Change, Expect,
};
use fencing_playground::sim::presets::{preset, presets};
use fencing_playground::sim::run;
use fencing_playground::sim::scenario::{Scenario, Tier};
use fencing_playground::sim::search::{search, Outcome};
use fencing_playground::sim::search::{FaultKind, SearchSpec, Strategy};
use fencing_playground::sim::trace::ViolationKind;

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
    // Fencing's presets, the clocks, the restarts and compare-and-set each have an entry.
    for id in [
        "contract-1-nx",
        "contract-2-ttl",
        "gc-pause-fenced",
        "delayed-packet",
        "plain-redis",
        "redlock-one-down",
        "redlock-monotonic",
        "redlock-slew",
        "redlock-delayed-restart",
        "redlock-gc-during-acquire",
        "redlock-order-fenced",
        "redlock-happy",
        "redlock-cas",
        "redlock-fence-backwards",
    ] {
        assert!(!breakers_for(id).is_empty(), "{id}");
    }
    assert_eq!(breakers_for("redlock-monotonic").len(), 2);
}

/// Every preset that is safe as written has an entry or a reason, never both; a reason is
/// only for a safe preset.
#[test]
fn every_safe_preset_has_an_entry_or_a_reason() {
    for p in presets() {
        let safe = run(&p.scenario).verdict.safe;
        let entries = breakers_for(p.id).len();
        match no_breaker(p.id) {
            Some(why) => {
                assert!(safe, "{}: a reason for an unsafe preset", p.id);
                assert_eq!(entries, 0, "{}: an entry and a reason", p.id);
                assert!(why.ends_with('.'), "{why}");
            }
            None => assert!(!safe || entries > 0, "{}: safe, no entry, no reason", p.id),
        }
    }
}

/// The scenario of preset `id` with `edit` made and the faults of `kinds` taken out, searched
/// exhaustively for any violation with up to `k` faults: the outcome must be "none found",
/// over the whole grid.
#[track_caller]
fn nothing_breaks(id: &str, edit: impl Fn(&mut Scenario), kinds: &[FaultKind], k: u32) {
    let mut s = preset(id).expect("the preset");
    edit(&mut s);
    without_faults(&mut s, kinds);
    let spec = SearchSpec {
        faults: kinds.to_vec(),
        max_faults: k,
        strategy: Strategy::Exhaustive,
        budget: 1_000_000,
        ..SearchSpec::default()
    };
    let report = search(&s, &spec);
    assert_eq!(
        report.outcome,
        Outcome::NoneFound,
        "{id}: {}",
        report.statement
    );
    assert!(report.stats.complete, "{id}: {}", report.statement);
    assert!(report.stats.schedules > 0, "{id}: {}", report.statement);
}

#[track_caller]
fn reason(id: &str, says: &str) {
    assert!(breakers_for(id).is_empty(), "{id}");
    let why = no_breaker(id).unwrap_or_else(|| panic!("{id}: no reason"));
    assert!(why.contains(says), "{id}: {why}");
}

const PAUSES_DELAYS_CRASHES: [FaultKind; 3] =
    [FaultKind::Pause, FaultKind::Delay, FaultKind::ClientCrash];
const CLOCKS: [FaultKind; 2] = [FaultKind::ClientClockJump, FaultKind::LockClockJump];

/// watchdog-saves has no entry, and says why: B never writes, so no fault of any kind the
/// search injects into A (pauses that stop its watchdog, debit delays, crashes), up to two at
/// a time, with fencing off, breaks anything; the reason must stay true.
#[test]
fn watchdog_saves_says_why_it_has_no_entry() {
    reason("watchdog-saves", "never writes");
    let off = |s: &mut Scenario| change(s, Change::FencingOff);
    nothing_breaks("watchdog-saves", off, &PAUSES_DELAYS_CRASHES, 2);
}

/// contract-5 and strict-vs-non-decreasing have one client with one grant: under either fence
/// rule, no pause, delay or client crash (up to two) and no clock step breaks anything.
#[test]
fn one_client_presets_say_why_they_have_no_entry() {
    for id in ["contract-5-equal-is-stale", "strict-vs-non-decreasing"] {
        reason(id, "A is the only client");
        assert_eq!(preset(id).map(|s| s.clients.len()), Some(1), "{id}");
        for rule in [FenceRule::Strict, FenceRule::NonDecreasing] {
            let edit = move |s: &mut Scenario| s.storage.fence_rule = rule;
            nothing_breaks(id, edit, &PAUSES_DELAYS_CRASHES, 2);
            nothing_breaks(id, edit, &CLOCKS, 1);
        }
    }
}

/// crash-ttl: A dies and never writes, so one pause, delay or clock step (client or lock),
/// with fencing off, breaks nothing.
#[test]
fn crash_ttl_says_why_it_has_no_entry() {
    reason("crash-ttl", "never writes");
    let kinds = [FaultKind::Pause, FaultKind::Delay, CLOCKS[0], CLOCKS[1]];
    let off = |s: &mut Scenario| change(s, Change::FencingOff);
    nothing_breaks("crash-ttl", off, &kinds, 1);
}

/// idempotent-retry: with keys off the strict fence refuses the second copy, with fencing off
/// the key does (no pause, delay or crash, up to two, breaks either); with both off the preset
/// fails as written.
#[test]
fn idempotent_retry_says_why_it_has_no_entry() {
    reason("idempotent-retry", "Only with both off");
    let keys_off = |s: &mut Scenario| s.storage.idempotency = false;
    let fence_off = |s: &mut Scenario| change(s, Change::FencingOff);
    nothing_breaks("idempotent-retry", keys_off, &PAUSES_DELAYS_CRASHES, 2);
    nothing_breaks("idempotent-retry", fence_off, &PAUSES_DELAYS_CRASHES, 2);
    let mut both = preset("idempotent-retry").expect("the preset");
    keys_off(&mut both);
    fence_off(&mut both);
    let verdict = run(&both).verdict;
    assert!(
        verdict
            .violations
            .iter()
            .any(|v| v.kind == ViolationKind::BalanceMismatch),
        "{verdict:?}"
    );
}

/// efficiency-tier: double work is not a violation in its tier, so no pause, delay or client
/// crash (up to two) breaks it; in the correctness tier the preset is unsafe as written.
#[test]
fn efficiency_tier_says_why_it_has_no_entry() {
    reason("efficiency-tier", "efficiency tier");
    nothing_breaks("efficiency-tier", |_| {}, &PAUSES_DELAYS_CRASHES, 2);
    let mut s = preset("efficiency-tier").expect("the preset");
    assert_eq!(s.tier, Tier::Efficiency);
    s.tier = Tier::Correctness;
    assert!(!run(&s).verdict.safe);
}

/// The blank presets schedule nothing, so no fault of any kind, up to two, breaks anything.
#[test]
fn blank_presets_say_why_they_have_no_entry() {
    for id in ["blank-single", "redlock-empty"] {
        reason(id, "Nothing is scheduled");
        let s = preset(id).expect("the preset");
        assert!(s.clients.iter().all(|c| c.events.is_empty()), "{id}");
        nothing_breaks(id, |_| {}, &FaultKind::ALL, 2);
    }
}

/// etcd-failover: A's one write comes before its crash, so a pause (fencing on or off) only
/// moves B's turn.
#[test]
fn etcd_failover_says_why_it_has_no_entry() {
    reason("etcd-failover", "B is the only later writer");
    nothing_breaks("etcd-failover", |_| {}, &[FaultKind::Pause], 1);
    let off = |s: &mut Scenario| change(s, Change::FencingOff);
    nothing_breaks("etcd-failover", off, &[FaultKind::Pause], 1);
}
