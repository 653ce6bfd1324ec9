//! Every preset, read as the verdict banner reads it: the comparison line (`compare::summary`
//! on the counterfactual the core chose, run), the liveness notes and the violations' words,
//! each checked against the trace it claims to describe. A comparison a reader cannot act on
//! (a "fenced" run that refuses every write for want of a token), a liveness note without the
//! refused write behind it, or a "held" the lock service never granted fails here.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use fencing_playground::sim::compare::{counterfactual, summary, Contrast};
use fencing_playground::sim::presets::presets;
use fencing_playground::sim::trace::*;
use fencing_playground::sim::{run, DebitVerdict, FenceRule, Rejection, ViolationKind};

fn held_at(t: &Trace, client: usize, at_ms: u64) -> bool {
    t.majorities
        .iter()
        .any(|h| h.client == client && h.start_ms <= at_ms && at_ms < h.end_ms)
}

fn held_through(t: &Trace, client: usize, from_ms: u64, to_ms: u64) -> bool {
    t.majorities
        .iter()
        .any(|h| h.client == client && h.start_ms <= from_ms && to_ms <= h.end_ms)
}

fn rejected(w: &WriteRecord) -> bool {
    matches!(w.verdict, Some(DebitVerdict::Rejected { .. }))
}

#[test]
fn every_comparison_line_is_one_a_reader_can_act_on() {
    for p in presets() {
        let s = &p.scenario;
        let trace = run(s);
        let cf = counterfactual(s);
        match (&cf.contrast, &cf.scenario) {
            (Contrast::Nothing { reason }, None) => {
                assert!(
                    trace.writes.is_empty(),
                    "{}: nothing to compare, yet debits",
                    p.id
                );
                let line = summary(&cf.contrast, &trace);
                assert_eq!(line, format!("Nothing to compare: {reason}"), "{}", p.id);
            }
            (Contrast::With { label, .. }, Some(other)) => {
                assert_ne!(other, s, "{}: the comparison changes nothing", p.id);
                assert!(
                    !trace.writes.is_empty(),
                    "{}: a comparison without debits",
                    p.id
                );
                let ghost = run(other);
                let line = summary(&cf.contrast, &ghost);
                let word = if ghost.verdict.safe {
                    "✓ safe"
                } else {
                    "✗ unsafe"
                };
                assert!(
                    line.starts_with(&format!("{label}: balance {}, {word}", ghost.final_balance)),
                    "{}: {line}",
                    p.id
                );
                // Never a fence check against a service that mints no fence. (A service that
                // does may still leave one writer without a token, as etcd 3.4 leaves a waiter
                // told it holds an expired lock: that refusal is the lesson, not a defect.)
                let mints = ghost.writes.iter().any(|w| w.token.is_some());
                let missing = !mints
                    && ghost.writes.iter().any(|w| {
                        matches!(
                            w.verdict,
                            Some(DebitVerdict::Rejected {
                                reason: Rejection::MissingToken,
                                ..
                            })
                        )
                    });
                assert!(
                    !missing,
                    "{}: the comparison refuses for want of a token: {line}",
                    p.id
                );
                // Standard Redlock is compared with its fenced variant, and says so.
                if let Some(r) = s.lock.redlock() {
                    if !r.fence && s.storage.fence_rule == FenceRule::Off {
                        assert_eq!(
                            label, "Redlock with a fence (non-standard), strict storage",
                            "{}",
                            p.id
                        );
                        assert!(other.lock.redlock().is_some_and(|r| r.fence));
                    }
                }
                // What the ghost's storage did is what the line says about it.
                let refused_all = !ghost.writes.is_empty() && ghost.writes.iter().all(rejected);
                assert_eq!(
                    line.contains("every debit was refused"),
                    refused_all,
                    "{}: {line}",
                    p.id
                );
            }
            _ => panic!("{}: a scenario exactly when there is a comparison", p.id),
        }
    }
}

#[test]
fn every_liveness_note_is_true_of_its_trace() {
    for p in presets() {
        let t = run(&p.scenario);
        let notes = &t.verdict.liveness;
        let holder_refused: Vec<&WriteRecord> = t
            .writes
            .iter()
            .filter(|w| rejected(w) && held_at(&t, w.client, w.sent_ms))
            .collect();
        let said: Vec<&Observation> = notes
            .iter()
            .filter(|o| o.kind == LivenessKind::HolderRefused)
            .collect();
        assert_eq!(said.len(), holder_refused.len(), "{}: {notes:#?}", p.id);
        for (o, w) in said.iter().zip(&holder_refused) {
            assert_eq!(o.clients, vec![w.client], "{}", p.id);
            let who = t.client_name(w.client);
            assert!(
                o.text.starts_with(&format!("{who} held the lock")),
                "{}: {}",
                p.id,
                o.text
            );
            assert!(o.text.contains(&format!("at {} ms", w.sent_ms)), "{}", p.id);
        }
        let all = !t.writes.is_empty() && t.writes.iter().all(rejected);
        assert_eq!(
            notes
                .iter()
                .any(|o| o.kind == LivenessKind::EveryDebitRefused),
            all,
            "{}: {notes:#?}",
            p.id
        );
        // Liveness never decides safety, and never repeats a violation.
        for o in notes {
            assert!(
                !t.verdict.violations.iter().any(|v| v.text == o.text),
                "{}",
                p.id
            );
        }
    }
}

#[test]
fn two_holders_say_who_held_and_who_only_believed() {
    let mut seen = 0;
    for p in presets() {
        let t = run(&p.scenario);
        for v in t
            .verdict
            .violations
            .iter()
            .filter(|v| v.kind == ViolationKind::TwoHolders)
        {
            seen += 1;
            assert!(
                !v.text.contains("held a valid lock"),
                "{}: {}",
                p.id,
                v.text
            );
            // "X held the lock from a to b ms while Y …": X held it throughout, Y did not.
            let (x, rest) = v
                .text
                .split_once(" held the lock from ")
                .expect("who held it");
            let (span, other) = rest.split_once(" ms while ").expect("and who did not");
            let (from, to) = span.split_once(" to ").expect("a span");
            let (from, to): (u64, u64) = (from.parse().unwrap(), to.parse().unwrap());
            let id = |name: &str| t.clients.iter().position(|c| c == name).unwrap();
            assert!(held_through(&t, id(x), from, to), "{}: {}", p.id, v.text);
            let y = other
                .split(['\'', ' '])
                .next()
                .expect("the other client's name");
            assert!(!held_through(&t, id(y), from, to), "{}: {}", p.id, v.text);
            let own = if t.is_redlock() {
                "'s lock was still valid by its own clock"
            } else {
                " still believed it held the lock"
            };
            assert!(
                other.starts_with(&format!("{y}{own}")),
                "{}: {}",
                p.id,
                v.text
            );
        }
    }
    assert!(
        seen >= 3,
        "bare DEL, clock jump and restart each have two holders"
    );
}

#[test]
fn every_hint_fits_the_scenario_on_screen() {
    use fencing_playground::sim::presets::{hint_for, preset, HintAct, DEFAULT_PRESET};
    for p in presets() {
        let s = &p.scenario;
        let h = hint_for(s);
        let words = format!("{}{}", h.act, h.watch);
        if s.lock.redlock().is_some() {
            assert!(
                !words.contains("lease"),
                "{}: a single-Redis hint: {words}",
                p.id
            );
        }
        if let Some(rest) = words.split_once("drag the right edge of ").map(|x| x.1) {
            let who = rest.split('\'').next().unwrap_or_default();
            let paused = s.clients.iter().any(|c| {
                c.name == who
                    && c.events
                        .iter()
                        .any(|e| matches!(e, fencing_playground::sim::Event::Pause { .. }))
            });
            assert!(
                paused,
                "{}: the hint names a pause that is not there: {words}",
                p.id
            );
        }
        // A hint that speaks of a debit, a write, the storage, or of something refused or
        // accepted (by the fence) belongs to a scenario that writes: with nothing written there
        // is nothing for the fence to refuse. (A fence the lock service mints may be named.)
        let writes = s.clients.iter().any(|c| {
            c.events.iter().any(|e| {
                matches!(
                    e,
                    fencing_playground::sim::Event::Debit { .. }
                        | fencing_playground::sim::Event::CheckThenWrite { .. }
                )
            })
        });
        if !writes {
            for word in ["debit", "write", "storage", "refuse", "accept"] {
                assert!(
                    !words.contains(word),
                    "{}: nothing is written, yet the hint speaks of {word:?}: {words}",
                    p.id
                );
            }
        }
        let blank = s.clients.iter().all(|c| c.events.is_empty())
            && s.lock
                .redlock()
                .is_none_or(|r| r.instances.iter().all(|i| i.events.is_empty()));
        if blank {
            assert_eq!(h.act, "Add the first event", "{}", p.id);
            assert!(!words.contains("drag"), "{}: {words}", p.id);
            assert!(words.contains("double-click a client's lane"), "{}", p.id);
        }
        match h.button.map(|b| b.act) {
            Some(HintAct::FenceRule(rule)) => {
                assert_ne!(
                    rule, s.storage.fence_rule,
                    "{}: a button that changes nothing",
                    p.id
                )
            }
            Some(HintAct::Preset(id)) => {
                let other = preset(id).expect("the button's preset exists");
                assert_eq!(other.clients, s.clients, "{}: the same schedule", p.id);
                let (before, after) = (run(s), run(&other));
                assert!(
                    !before.verdict.safe && after.verdict.safe,
                    "{}: turning fencing on is the big verdict change",
                    p.id
                );
            }
            None => {}
        }
    }
    // The first minute: the default page's hint is a button, and its click flips the verdict.
    let first = hint_for(&preset(DEFAULT_PRESET).expect("the default"));
    assert_eq!(
        first.button.map(|b| b.act),
        Some(HintAct::Preset("gc-pause-fenced"))
    );
}
