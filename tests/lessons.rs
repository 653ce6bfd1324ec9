//! The lessons (`sim::lessons`): every question is answered by the run, not by hand (change the
//! scenario and the answer changes), and every challenge is out of reach as the lesson opens,
//! reached by a solution, and refused when the edit touches what the challenge keeps.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use fencing_playground::sim::lessons::{self, Keep, Question, Status, LESSONS};
use fencing_playground::sim::scenario::{Event, PauseCause};
use fencing_playground::sim::{run, FenceRule, Scenario};

fn answer_of(id: &str, s: &Scenario) -> String {
    let l = lessons::lesson(id).unwrap_or_else(|| panic!("no lesson {id}"));
    let q = l.question.unwrap_or_else(|| panic!("{id} asks nothing"));
    let p = lessons::predict(&q, s, &run(s)).unwrap_or_else(|e| panic!("{id}: {e}"));
    p.choices[p.answer].clone()
}

fn opened(id: &str) -> Scenario {
    let l = lessons::lesson(id).unwrap_or_else(|| panic!("no lesson {id}"));
    lessons::scenario(l).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_lesson_opens_and_asks_a_question_its_run_answers() {
    let mut ids: Vec<&str> = LESSONS.iter().map(|l| l.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), LESSONS.len(), "two lessons share an id");
    assert!(LESSONS.len() >= 12, "about a dozen lessons");
    for l in LESSONS {
        let s = lessons::scenario(l).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            !l.covers.is_empty(),
            "{}: covers nothing of the argument",
            l.id
        );
        let Some(q) = l.question else {
            assert_eq!(l.id, "say-it-out-loud", "only the last card asks nothing");
            continue;
        };
        let p = lessons::predict(&q, &s, &run(&s)).unwrap_or_else(|e| panic!("{}: {e}", l.id));
        assert!(p.choices.len() >= 2, "{}: one choice is no question", l.id);
        let mut c = p.choices.clone();
        c.sort();
        c.dedup();
        assert_eq!(c.len(), p.choices.len(), "{}: a choice twice", l.id);
        assert!(p.answer < p.choices.len(), "{}", l.id);
        assert!(!p.reason.is_empty() && !p.prompt.is_empty(), "{}", l.id);
    }
}

/// The answers as the presets' captions tell them.
#[test]
fn each_answer_is_what_the_lessons_preset_shows() {
    for (id, want) in [
        ("lease-not-mutex", "B"),
        ("pause-loses-update", "80"),
        ("the-fence", "refused by the storage"),
        ("equal-is-stale", "refused by the storage"),
        ("idempotency-key", "90"),
        ("isheld-is-theater", "refused by the storage"),
        ("heartbeats", "safe"),
        ("bare-del", "C"),
        ("redlock", "unsafe"),
        ("uuid-is-not-a-fence", "refused by the storage"),
        ("tiers", "safe"),
        ("real-fences", "refused by the storage"),
    ] {
        assert_eq!(answer_of(id, &opened(id)), want, "{id}");
    }
}

/// The same question on a changed scenario: the answer follows the run.
#[test]
fn a_changed_scenario_changes_the_answer() {
    let mut s = opened("the-fence");
    s.storage.fence_rule = FenceRule::Off;
    assert_eq!(answer_of("the-fence", &s), "accepted");

    let mut s = opened("pause-loses-update");
    s.storage.fence_rule = FenceRule::Strict;
    assert_ne!(answer_of("pause-loses-update", &s), "80");

    let mut s = opened("lease-not-mutex");
    s.lock.ttl_ms = 50;
    assert_eq!(answer_of("lease-not-mutex", &s), "A");

    let mut s = opened("equal-is-stale");
    s.storage.fence_rule = FenceRule::NonDecreasing;
    assert_eq!(answer_of("equal-is-stale", &s), "accepted");
}

#[test]
fn a_question_about_a_debit_that_does_not_exist_is_an_error_not_a_panic() {
    let s = opened("the-fence");
    let t = run(&s);
    let missing = Question::Debit {
        client: "A",
        nth: 7,
    };
    assert!(lessons::predict(&missing, &s, &t).is_err());
    let nobody = Question::Debit {
        client: "Z",
        nth: 0,
    };
    assert!(lessons::predict(&nobody, &s, &t).is_err());
}

fn status(id: &str, edited: &Scenario) -> Status {
    let l = lessons::lesson(id).unwrap_or_else(|| panic!("no lesson {id}"));
    let c = l
        .challenge
        .unwrap_or_else(|| panic!("{id} has no challenge"));
    lessons::challenge_status(&c, &opened(id), edited, &run(edited))
}

/// Every challenge: not met as the lesson opens, met by the solution below (each a change a
/// reader can make with the page's controls), and refused when it changes what it keeps.
#[test]
fn every_challenge_is_open_at_first_and_has_a_solution() {
    let with_rule = |id: &str, rule: FenceRule| {
        let mut s = opened(id);
        s.storage.fence_rule = rule;
        s
    };
    let solutions: Vec<(&str, Scenario)> = vec![
        (
            "pause-loses-update",
            with_rule("pause-loses-update", FenceRule::Strict),
        ),
        ("the-fence", with_rule("the-fence", FenceRule::Off)),
        (
            "isheld-is-theater",
            with_rule("isheld-is-theater", FenceRule::Off),
        ),
        ("heartbeats", {
            // A pause that stops A's watchdog past the TTL, and a debit for B once it holds.
            let mut s = with_rule("heartbeats", FenceRule::Off);
            s.clients[0].events.push(Event::Pause {
                at_ms: 10,
                duration_ms: 40,
                cause: PauseCause::Gc,
            });
            s.clients[1].events.push(Event::Debit {
                at_ms: 32,
                amount: 10,
                idempotency_key: None,
                delay_ms: 0,
            });
            s
        }),
    ];
    let with_challenge: Vec<&str> = LESSONS
        .iter()
        .filter(|l| l.challenge.is_some())
        .map(|l| l.id)
        .collect();
    let solved: Vec<&str> = solutions.iter().map(|(id, _)| *id).collect();
    assert_eq!(
        with_challenge, solved,
        "a challenge without a solution here"
    );
    for (id, solution) in &solutions {
        assert_eq!(
            status(id, &opened(id)),
            Status::NotYet,
            "{id} is met as it opens"
        );
        assert_eq!(
            status(id, solution),
            Status::Met,
            "{id}: the solution does not meet it"
        );
        let l = lessons::lesson(id).unwrap_or_else(|| panic!("no lesson {id}"));
        if let Some(c) = l.challenge {
            if c.keep == Keep::Lock {
                let mut off = solution.clone();
                off.lock.ttl_ms += 100;
                assert!(
                    matches!(status(id, &off), Status::OffLimits(_)),
                    "{id}: a change to the lock is allowed"
                );
            }
        }
    }
}
