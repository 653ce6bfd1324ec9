//! The lab against real servers, as a table: presets that must match, a crash that keeps its
//! keys on disk (which no preset exercises mid-run), and a model that disagrees with the
//! servers, which must come out as a mismatch naming both answers. Needs `redis-server` and
//! PostgreSQL 15 (`scripts/setup.sh` installs them).

use fencing_lab::check::{self, Outcome};
use fencing_lab::history::Judgement;
use fencing_lab::servers::{Postgres, TempDir};
use fencing_playground::sim::commands::{self, Act, RedisReply};
use fencing_playground::sim::presets::preset;
use fencing_playground::sim::scenario::InstanceEvent;
use fencing_playground::sim::trace::Outcome as Step;
use fencing_playground::sim::{run, Scenario};
use std::time::{Duration, Instant};

const SCALE: u64 = 20;

#[track_caller]
fn check(pg: &Postgres, name: &str, s: &Scenario, expected: &str) {
    // Four tries: the last at 8× the scale, so a busy machine gets room before a run counts
    // as late (a late run is never a match, and never a mismatch either).
    let deadline = Instant::now() + Duration::from_secs(90);
    let etcd = fencing_lab::etcd_run::Slot::default();
    let zk = fencing_lab::zk_run::Slot::default();
    let r = check::check(name, s, pg, &etcd, &zk, SCALE, 4, deadline);
    let outcome = match &r.outcome {
        Outcome::Late(w) => panic!("{name}: every try was late ({w}); the machine is too busy"),
        o => o,
    };
    assert_eq!(outcome.word(), expected, "{name}: {outcome:?}");
}

/// A run judged directly, rerun at a larger scale while it missed its schedule (or two events
/// came too close to order), as `check` does: at 20 real ms per simulated ms a busy machine
/// misses it, and what such a run did is no answer either way.
#[track_caller]
fn on_schedule(what: &str, mut judged_at: impl FnMut(u64) -> Judgement) -> Judgement {
    let mut last = None;
    for scale in [SCALE, SCALE * 2, SCALE * 4, SCALE * 8] {
        match judged_at(scale) {
            j @ (Judgement::Late(_) | Judgement::TooClose(_)) => last = Some(j),
            j => return j,
        }
    }
    panic!("{what}: every try missed its schedule ({last:?}); the machine is too busy")
}

/// redlock-restart, but R3 keeps its keys on disk: B then reaches only R3's old key and fails.
fn persistent_restart() -> Scenario {
    let mut s = preset("redlock-restart").expect("preset");
    if let Some(r) = s.lock.redlock_mut() {
        for e in &mut r.instances[2].events {
            if let InstanceEvent::Crash { persistent, .. } = e {
                *persistent = true;
            }
        }
    }
    s
}

#[test]
fn the_lab_agrees_with_the_model_and_says_where_it_does_not() {
    // Single-lock runs start client processes of the lab's own binary.
    std::env::set_var("FENCING_LAB_CLIENT", env!("CARGO_BIN_EXE_fencing-lab"));
    let dir = TempDir::new().expect("a temporary directory");
    let pg = Postgres::start(&dir.0.join("pg")).expect("PostgreSQL starts");
    let p = |id: &str| preset(id).expect("preset");
    // The presets themselves (contract-4-fenced, idempotent-retry, redlock-restart,
    // redlock-clock-jump under the clock shim, redlock-monotonic not reproducible) are judged
    // on every run of the lab's presets step against the committed table; here, what no
    // preset is: variants of them, and models changed on purpose.
    let kept = persistent_restart();
    let t = run(&kept);
    assert!(t.acquisitions.iter().any(|a| a.client == 1 && !a.ok));
    check(&pg, "restart with persistence", &kept, "match");
    // A debit due while A's own round waits for its replies: the model skips it (A holds no
    // lock yet), and so does the lab's client, which sends its work at its time.
    let mut early = p("redlock-happy");
    early.clients[0]
        .events
        .push(fencing_playground::sim::Event::Debit {
            at_ms: 5,
            amount: 5,
            idempotency_key: None,
            delay_ms: 0,
        });
    check(&pg, "a debit inside a round", &early, "match");

    // A Redlock model that has B granted where the instances refuse it is a mismatch naming
    // both answers.
    let s = p("redlock-happy");
    let t = run(&s);
    let mut plan = commands::commands(&s, &t);
    for c in &mut plan {
        if let (Act::Redis { reply, .. }, commands::Who::Client(1)) = (&mut c.act, c.who) {
            if *reply == RedisReply::Nil {
                *reply = RedisReply::Ok;
            }
        }
    }
    let judged = on_schedule("a Redlock model that grants B", |scale| {
        let happened = fencing_lab::redlock_run::replay(&s, &pg, scale).expect("a run");
        fencing_lab::redlock_history::judge(&s, &t, &plan, &happened)
    });
    match judged {
        Judgement::Differs(d) => assert!(
            d.contains("granted,granted,granted,granted,granted")
                && d.contains("refused,refused,refused,refused,refused"),
            "{d}"
        ),
        other => panic!("expected a difference, got {other:?}"),
    }

    // A single lock's real processes' history against a trace whose B was granted fence 35 is
    // a difference naming both fences.
    let s = p("contract-4-fenced");
    let mut t = run(&s);
    for step in &mut t.steps {
        if let Step::Granted { fence, .. } = &mut step.outcome {
            if *fence == Some(34) {
                *fence = Some(35);
            }
        }
    }
    let judged = on_schedule("a single lock's trace with fence 35", |scale| {
        let happened = fencing_lab::independent::replay(&s, &pg, scale).expect("a run");
        fencing_lab::history::judge(&s, &t, &happened)
    });
    match judged {
        Judgement::Differs(d) => assert!(d.contains("fence 35") && d.contains("fence 34"), "{d}"),
        other => panic!("expected a difference, got {other:?}"),
    }
}
