//! PostgreSQL advisory locks: no expiry and no fence. A paused holder keeps the lock (safe,
//! stuck), a killed one frees it at once, a partitioned one only when the TCP keepalive gives
//! up; `idle_session_timeout` turns the lock into a lease with the lease's risk, a failover
//! loses it, and the write inside the lock's own session is the safe pattern. Every advisory
//! preset's outcome is computed here and compared with what its caption tells, the broken
//! variant beside the fixed one.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use fencing_playground::sim::presets::preset;
use fencing_playground::sim::trace::{
    LivenessKind, PgWaitEnd, Rejection, ServiceKind, SessionEnd, Trace,
};
use fencing_playground::sim::{run, DebitVerdict, Event, PauseCause, Scenario, ViolationKind};

fn lines(trace: &Trace) -> Vec<String> {
    trace
        .steps
        .iter()
        .map(|s| format!("{}@{}: {}", trace.clients[s.client], s.at_ms, s.text))
        .collect()
}

fn load(id: &str) -> Scenario {
    let s = preset(id).unwrap_or_else(|| panic!("no preset {id}"));
    // Every preset goes through the one door a link or a file does.
    Scenario::from_json(&s.to_json()).unwrap_or_else(|e| panic!("{id}: {e}"))
}

#[track_caller]
fn check_run(s: &Scenario, safe: bool, balance: i64, want: &[&str]) -> Trace {
    let t = run(s);
    let got = lines(&t);
    for w in want {
        assert!(
            got.iter().any(|l| l == w),
            "{}: no {w:?} in\n{}",
            s.name,
            got.join("\n")
        );
    }
    assert_eq!(t.verdict.safe, safe, "{}: {:#?}", s.name, t.verdict);
    assert_eq!(t.final_balance, balance, "{}", s.name);
    assert_eq!(t.service, ServiceKind::Advisory);
    assert_eq!(t.last_fence, None, "an advisory lock mints no fence");
    t
}

#[track_caller]
fn check(id: &str, safe: bool, balance: i64, want: &[&str]) -> Trace {
    check_run(&load(id), safe, balance, want)
}

fn kinds(t: &Trace) -> Vec<ViolationKind> {
    t.verdict
        .violations
        .iter()
        .map(|v| v.kind.clone())
        .collect()
}

fn session_ends(t: &Trace) -> Vec<(String, u64, SessionEnd)> {
    t.advisory
        .iter()
        .flat_map(|a| a.sessions.iter())
        .map(|s| (t.clients[s.client].clone(), s.end_ms, s.end))
        .filter(|(_, _, e)| *e != SessionEnd::Open)
        .collect()
}

// A paused holder: safe but stuck.

#[test]
fn a_paused_holder_keeps_the_lock_and_the_waiter_waits() {
    let t = check(
        "advisory-paused-holder",
        true,
        80,
        &[
            "B@20: SELECT pg_advisory_lock(42) waits: A's session holds it",
            "A@75: pg_advisory_unlock: released advisory lock 42",
            "B@75: advisory lock 42 held by its session: no expiry, no fence",
        ],
    );
    assert!(
        session_ends(&t).is_empty(),
        "no session ends: {:?}",
        session_ends(&t)
    );
    let waits: Vec<_> = t.advisory.iter().flat_map(|a| a.waits.iter()).collect();
    assert_eq!(waits.len(), 1);
    assert_eq!((waits[0].start_ms, waits[0].end_ms), (20, 75));
    assert_eq!(waits[0].end, PgWaitEnd::Granted);
    let stuck: Vec<_> = t
        .verdict
        .liveness
        .iter()
        .filter(|o| o.kind == LivenessKind::WaitedBehindHolder)
        .collect();
    assert_eq!(stuck.len(), 1, "{:#?}", t.verdict.liveness);
    assert!(stuck[0]
        .text
        .contains("B waited 55 ms for advisory lock 42 behind A's session, which was paused"));
}

// idle_session_timeout: the lease's risk, beside the write in the lock's transaction.

#[test]
fn an_idle_timeout_ends_the_paused_session_and_the_late_write_lands() {
    let t = check(
        "advisory-idle-timeout",
        false,
        80,
        &[
            "B@30: advisory lock 42 held by its session: no expiry, no fence",
            "A@65: accepted, balance 80",
            "A@70: its session is gone (idle_session_timeout ended it): the lock with it",
        ],
    );
    assert!(session_ends(&t).contains(&("A".to_string(), 20, SessionEnd::IdleTimeout)));
    assert_eq!(kinds(&t), [ViolationKind::StaleWriteAccepted]);
    assert!(t.narration.iter().any(|l| l.contains(
        "the server ended A's session (pid 4242): idle_session_timeout ended it, releasing advisory lock 42; A is not told"
    )));
}

#[test]
fn the_write_inside_the_lock_transaction_cannot_commit_on_a_dead_session() {
    let t = check(
        "advisory-in-transaction",
        true,
        90,
        &[
            "A@0: advisory lock 42 held by its session: no expiry, no fence",
            "A@65: rejected session_gone: the writer's session had ended, nothing committed",
        ],
    );
    assert!(session_ends(&t).contains(&(
        "A".to_string(),
        20,
        SessionEnd::IdleInTransactionTimeout
    )));
    let a_write = t.writes.iter().find(|w| t.clients[w.client] == "A");
    assert!(matches!(
        a_write.and_then(|w| w.verdict.clone()),
        Some(DebitVerdict::Rejected {
            reason: Rejection::SessionGone,
            ..
        })
    ));
    // The same run with the write on separate storage: A's late debit lands.
    let mut apart = load("advisory-in-transaction");
    apart.storage.in_transaction = false;
    let t = check_run(&apart, false, 80, &["A@65: accepted, balance 80"]);
    assert!(kinds(&t).contains(&ViolationKind::StaleWriteAccepted));
}

#[test]
fn a_client_whose_session_timed_out_unseen_does_not_ask_again() {
    // The long random run's case (seed 10, case 84, shrunk): A takes the lock at 0 and its
    // idle session is ended at 20 ms; at 23 ms A acquires again. A has not been told, so it
    // still believes it holds the lock and sends nothing, as the lab's real client does; the
    // model once asked again on a fresh session and was granted.
    let mut s = load("advisory-idle-timeout");
    s.clients[0].events = vec![Event::Acquire { at_ms: 0 }, Event::Acquire { at_ms: 23 }];
    s.clients[1].events.clear();
    let t = run(&s);
    let got = lines(&t);
    assert_eq!(
        session_ends(&t),
        vec![("A".to_string(), 20, SessionEnd::IdleTimeout)],
        "{}",
        got.join("\n")
    );
    let second: Vec<&String> = got.iter().filter(|l| l.starts_with("A@23")).collect();
    assert!(
        second.len() == 1 && second[0].contains("still believes it holds advisory lock 42"),
        "{}",
        got.join("\n")
    );
    assert!(!got
        .iter()
        .any(|l| l.starts_with("A@23") && l.contains("pg_advisory_lock")));
}

#[test]
fn idle_session_timeout_does_not_apply_inside_an_open_transaction() {
    let mut s = load("advisory-in-transaction");
    if let Some(a) = s.lock.advisory_mut() {
        a.idle_session_timeout_ms = a.idle_in_transaction_timeout_ms.take();
    }
    // A's transaction stays open through the pause, so B waits, and A's write commits; only
    // afterwards, idle outside a transaction, does A's session time out (holding nothing).
    let t = check_run(
        &s,
        true,
        80,
        &["B@30: BEGIN; SELECT pg_advisory_xact_lock(42) waits: A's session holds it"],
    );
    let early = |(c, at, _): &(String, u64, SessionEnd)| c == "A" && *at < 65;
    assert!(
        !session_ends(&t).iter().any(early),
        "{:?}",
        session_ends(&t)
    );
}

// A failover beside a killed holder.

#[test]
fn a_failover_loses_the_lock_and_two_clients_write() {
    let t = check(
        "advisory-failover",
        false,
        80,
        &[
            "B@40: advisory lock 42 held by its session: no expiry, no fence",
            "A@50: accepted, balance 80",
        ],
    );
    assert!(
        kinds(&t).contains(&ViolationKind::OverlappingWriters),
        "{:?}",
        kinds(&t)
    );
    assert!(session_ends(&t).contains(&("A".to_string(), 30, SessionEnd::Failover)));
    // With the write on A's own session, the failover takes the write down with the lock.
    let mut inside = load("advisory-failover");
    inside.storage.in_transaction = true;
    check_run(
        &inside,
        true,
        90,
        &["A@50: rejected session_gone: the writer's session had ended, nothing committed"],
    );
}

#[test]
fn a_killed_holder_frees_the_lock_at_once() {
    let t = check(
        "advisory-killed-holder",
        true,
        80,
        &["B@20: advisory lock 42 held by its session: no expiry, no fence"],
    );
    assert!(session_ends(&t).contains(&("A".to_string(), 20, SessionEnd::ClientCrashed)));
}

#[test]
fn a_partitioned_holder_keeps_the_lock_until_the_keepalive_gives_up() {
    let mut s = load("advisory-killed-holder");
    let a = &mut s.clients[0];
    a.events[2] = Event::Pause {
        at_ms: 20,
        duration_ms: 200,
        cause: PauseCause::Network,
    };
    // Linux's default keepalive (about 2 h 11 min): B is still waiting when the run ends.
    let t = check_run(&s, true, 90, &[]);
    assert_eq!(
        t.advisory.as_ref().map(|a| a.keepalive_ms),
        Some(7_875_000),
        "7200 s + 9 × 75 s"
    );
    let waits: Vec<_> = t.advisory.iter().flat_map(|a| a.waits.iter()).collect();
    assert_eq!(waits[0].end, PgWaitEnd::Open);
    // A 50 ms keepalive: the server drops A's session at 70 ms and B gets the lock.
    if let Some(a) = s.lock.advisory_mut() {
        a.keepalive_ms = 50;
    }
    let t = check_run(
        &s,
        true,
        80,
        &["B@70: advisory lock 42 held by its session: no expiry, no fence"],
    );
    assert!(session_ends(&t).contains(&("A".to_string(), 70, SessionEnd::Keepalive)));
    // A GC pause of the same length is answered by A's kernel: nothing ends.
    s.clients[0].events[2] = Event::Pause {
        at_ms: 20,
        duration_ms: 200,
        cause: PauseCause::Gc,
    };
    let t = check_run(&s, true, 90, &[]);
    assert!(session_ends(&t).is_empty());
}

// The format: a malformed advisory lock names its field; old scenarios still load.

#[test]
fn a_malformed_advisory_lock_names_its_field() {
    let base = load("advisory-paused-holder").to_json();
    let v: serde_json::Value = serde_json::from_str(&base).expect("JSON");
    let cases: &[(&str, serde_json::Value, &str)] = &[
        ("/lock/advisory/level", "row".into(), "lock.advisory.level"),
        ("/lock/advisory/lockId", (-1).into(), "lock.advisory.lockId"),
        (
            "/lock/advisory/keepaliveMs",
            0.into(),
            "lock.advisory.keepaliveMs",
        ),
        ("/lock/fencing", true.into(), "lock.fencing"),
        ("/lock/watchdog", true.into(), "lock.watchdog"),
    ];
    for (pointer, value, field) in cases {
        let mut bad = v.clone();
        *bad.pointer_mut(pointer)
            .unwrap_or_else(|| panic!("{pointer}")) = value.clone();
        let err = Scenario::from_json(&bad.to_string()).expect_err(pointer);
        assert_eq!(err.path, *field, "{pointer}: {err}");
    }
    let mut failover = v.clone();
    failover["lock"]["advisory"]["events"] = serde_json::json!([{ "kind": "restart", "atMs": 3 }]);
    let err = Scenario::from_json(&failover.to_string()).expect_err("unknown event");
    assert_eq!(err.path, "lock.advisory.events[0].kind");
    let mut both = v.clone();
    both["lock"]["etcd"] = serde_json::json!({ "members": [{ "name": "n1" }] });
    let err = Scenario::from_json(&both.to_string()).expect_err("two services");
    assert_eq!(err.path, "lock.advisory");
    let mut inside = v.clone();
    inside["lock"].as_object_mut().map(|l| l.remove("advisory"));
    inside["lock"]["fencing"] = true.into();
    inside["storage"]["inTransaction"] = true.into();
    let err = Scenario::from_json(&inside.to_string()).expect_err("no advisory lock");
    assert_eq!(err.path, "storage.inTransaction");
}

#[test]
fn defaults_fill_in_and_a_link_round_trips() {
    let text = r#"{"version":1,"lock":{"fencing":false,"advisory":{}},"storage":{"fenceRule":"off"},
        "clients":[{"name":"A","events":[{"kind":"acquire","atMs":0}]}]}"#;
    let s = Scenario::from_json(text).expect("a minimal advisory scenario");
    let a = s.lock.advisory().cloned().expect("advisory");
    assert_eq!((a.lock_id, a.keepalive_ms), (42, 7_875_000));
    assert_eq!(a.idle_session_timeout_ms, None);
    assert_eq!(Scenario::from_json(&s.to_json()).as_ref(), Ok(&s));
}

// The "Try it" line of each advisory preset: the edit it suggests, made, does what it says.

#[test]
fn each_advisory_hint_does_what_it_says() {
    use fencing_playground::sim::presets::hint_for;
    let hint = |id: &str| {
        let h = hint_for(&load(id));
        format!("{}{}", h.act, h.watch)
    };

    // The paused holder with idle_session_timeout = 20 ms: A's session and lock end at 20 ms.
    assert!(hint("advisory-paused-holder").contains("set idle_session_timeout to 20 ms"));
    let mut s = load("advisory-paused-holder");
    if let Some(a) = s.lock.advisory_mut() {
        a.idle_session_timeout_ms = Some(20);
    }
    let t = run(&s);
    assert!(
        session_ends(&t).contains(&("A".into(), 20, SessionEnd::IdleTimeout)),
        "{:?}",
        session_ends(&t)
    );
    assert!(t.leases.iter().any(|l| l.holder == 0 && l.end_ms == 20));
    assert!(t
        .pauses
        .iter()
        .any(|p| p.client == 0 && p.start_ms < 20 && p.end_ms > 20));

    // The idle timeout with the debit on the lock's session: A's late debit finds it gone.
    assert!(hint("advisory-idle-timeout").contains("debit on the lock's own session"));
    let mut s = load("advisory-idle-timeout");
    s.storage.in_transaction = true;
    let t = run(&s);
    assert!(t.verdict.safe, "{:#?}\n{}", t.verdict, lines(&t).join("\n"));
    assert_eq!(t.final_balance, 90, "{}", lines(&t).join("\n"));
    assert!(
        t.writes.iter().any(|w| w.client == 0
            && matches!(
                w.verdict,
                Some(DebitVerdict::Rejected {
                    reason: Rejection::SessionGone,
                    ..
                })
            )),
        "{}",
        lines(&t).join("\n")
    );

    // In the transaction, untick the write in the session: A's debit is accepted after B's.
    assert!(hint("advisory-in-transaction").contains("untick"));
    let mut s = load("advisory-in-transaction");
    s.storage.in_transaction = false;
    assert_eq!(s.validate(), Ok(()));
    let t = run(&s);
    assert!(!t.verdict.safe, "{}", lines(&t).join("\n"));
    assert_eq!(t.final_balance, 80);
    let a = t.writes.iter().find(|w| w.client == 0).expect("A writes");
    let b = t.writes.iter().find(|w| w.client == 1).expect("B writes");
    assert!(
        a.arrived_ms > b.arrived_ms && matches!(a.verdict, Some(DebitVerdict::Accepted { .. }))
    );

    // The failover with A's debit at 25 ms: A writes while its session holds the lock.
    assert!(hint("advisory-failover").contains("drag A's debit left of 30 ms"));
    let mut s = load("advisory-failover");
    if let Some(Event::Debit { at_ms, .. }) = s.clients[0]
        .events
        .iter_mut()
        .find(|e| matches!(e, Event::Debit { .. }))
    {
        *at_ms = 25;
    }
    let t = run(&s);
    assert!(t.verdict.safe, "{}", lines(&t).join("\n"));
    assert_eq!(t.final_balance, 80);

    // The killed holder killed later: B's wait ends at the kill.
    assert!(hint("advisory-killed-holder").contains("drag A's crash to the right"));
    let mut s = load("advisory-killed-holder");
    if let Some(Event::Crash { at_ms }) = s.clients[0]
        .events
        .iter_mut()
        .find(|e| matches!(e, Event::Crash { .. }))
    {
        *at_ms = 24;
    }
    let t = run(&s);
    let waits: Vec<_> = t.advisory.iter().flat_map(|a| a.waits.iter()).collect();
    assert!(
        waits
            .iter()
            .any(|w| w.client == 1 && w.end_ms == 24 && w.end == PgWaitEnd::Granted),
        "{waits:?}"
    );
}

#[test]
fn a_debit_in_the_lock_transaction_commits_before_the_unlock_held_back_with_it() {
    // The long random run's case (seed 10, case 451, shrunk): B's lock call, its debit in the
    // lock's transaction and its unlock all fall due inside a pause and run at 31 ms. On the
    // connection the debit's `UPDATE; COMMIT` comes first and frees the lock; the unlock after
    // it finds nothing held, as the lab's real client saw. The model once ran the unlock
    // before the debit reached the server.
    let mut s = load("advisory-killed-holder");
    if let Some(a) = s.lock.advisory_mut() {
        a.level = fencing_playground::sim::scenario::AdvisoryLevel::Transaction;
    }
    s.storage.in_transaction = true;
    s.clients[0].events.clear();
    s.clients[1].events = vec![
        Event::Acquire { at_ms: 10 },
        Event::Debit {
            at_ms: 25,
            amount: 10,
            delay_ms: 0,
            idempotency_key: None,
        },
        Event::Release {
            at_ms: 30,
            mode: fencing_playground::sim::ReleaseKind::TokenChecked,
        },
        Event::Pause {
            at_ms: 5,
            duration_ms: 26,
            cause: PauseCause::Gc,
        },
    ];
    let t = run(&s);
    let got = lines(&t);
    let at = |line: &str| {
        got.iter()
            .position(|l| l == line)
            .unwrap_or_else(|| panic!("no {line:?} in\n{}", got.join("\n")))
    };
    let committed = at("B@31: accepted, balance 90");
    let unlock = at("B@31: COMMIT: no transaction in progress (it already ended)");
    assert!(committed < unlock, "{}", got.join("\n"));
    assert_eq!(t.final_balance, 90);
}
