//! The lab against real servers, as a table: presets that must match, a crash that keeps its
//! keys on disk (which no preset exercises mid-run), and a model that disagrees with the
//! servers, which must come out as a mismatch naming both replies. Needs `redis-server` and
//! PostgreSQL 15 (`scripts/setup.sh` installs them).

use fencing_lab::check::{self, first_difference, Outcome};
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

/// redlock-restart, but R3 keeps its keys on disk: B then reaches only R3's old key and fails.
fn persistent_restart() -> Scenario {
    let mut s = preset("redlock-restart").expect("preset");
    if let Some(r) = s.lock.redlock.as_mut() {
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
    check(&pg, "contract-4-fenced", &p("contract-4-fenced"), "match");
    check(&pg, "idempotent-retry", &p("idempotent-retry"), "match");
    check(&pg, "redlock-restart", &p("redlock-restart"), "match");
    let kept = persistent_restart();
    let t = run(&kept);
    assert!(t.acquisitions.iter().any(|a| a.client == 1 && !a.ok));
    check(&pg, "restart with persistence", &kept, "match");
    // R3's wall clock jumps under the lab's clock shim; a monotonic R3 has no real server.
    check(&pg, "redlock-clock-jump", &p("redlock-clock-jump"), "match");
    check(
        &pg,
        "redlock-monotonic",
        &p("redlock-monotonic"),
        "not reproducible",
    );

    // A model that expects fence 35 where Redis mints 34 is a mismatch naming both.
    let s = p("contract-4-fenced");
    let t = run(&s);
    let mut plan = commands::commands(&s, &t);
    for c in &mut plan {
        if let Act::Redis { reply, .. } = &mut c.act {
            if *reply == RedisReply::Int(34) {
                *reply = RedisReply::Int(35);
                c.lines[0].reply = reply.text();
            }
        }
    }
    let replay = check::replay_once(&s, &t, &plan, &pg, SCALE).expect("a replay");
    let diff = first_difference(&t, &plan, &replay).expect("a difference");
    assert!(
        diff.contains("(integer) 35") && diff.contains("(integer) 34"),
        "{diff}"
    );

    // The same with independent clients: real processes' history against a trace whose B was
    // granted fence 35 is a difference naming both fences.
    let mut t = run(&s);
    for step in &mut t.steps {
        if let Step::Granted { fence, .. } = &mut step.outcome {
            if *fence == Some(34) {
                *fence = Some(35);
            }
        }
    }
    let happened = fencing_lab::independent::replay(&s, &pg, SCALE).expect("a run");
    match fencing_lab::history::judge(&s, &t, &happened) {
        Judgement::Differs(d) => assert!(d.contains("fence 35") && d.contains("fence 34"), "{d}"),
        other => panic!("expected a difference, got {other:?}"),
    }
}
