//! ZooKeeper's lock recipe: a session is a lease the leader expires on a tick boundary when it
//! stops hearing pings, the lock node's czxid is a fence that only goes up, its sequence suffix
//! is not (it starts again under a recreated parent), and Curator's SUSPENDED is a warning a
//! running client can act on but a paused one cannot. Every ZooKeeper preset's outcome is
//! computed here and compared with what its caption tells, the broken beside the fixed.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use fencing_playground::sim::presets::preset;
use fencing_playground::sim::trace::{
    ParentChange, ServiceKind, Trace, ZkNodeEnd, ZkSessionEnd, ZkState, ZkStateEnd, ZkWaitEnd,
};
use fencing_playground::sim::{run, Event, PauseCause, Scenario, ViolationKind, ZkEvent};

fn lines(trace: &Trace) -> Vec<String> {
    trace
        .steps
        .iter()
        .map(|s| format!("{}@{}: {}", trace.clients[s.client], s.at_ms, s.text))
        .collect()
}

fn load(id: &str) -> Scenario {
    let s = preset(id).unwrap_or_else(|| panic!("no preset {id}"));
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
    assert_eq!(t.service, ServiceKind::Zookeeper);
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

/// (client, session end, how) of every session that ended inside the timeline.
fn expiries(t: &Trace) -> Vec<(String, u64)> {
    let z = t.zookeeper.as_ref().expect("the ensemble's record");
    z.sessions
        .iter()
        .filter(|s| s.end == ZkSessionEnd::Expired && s.end_ms <= 100)
        .map(|s| (t.clients[s.client].clone(), s.end_ms))
        .collect()
}

// The paused holder: the session expires on the tick past the timeout, the czxid fences it.

#[test]
fn the_czxid_fences_a_paused_holder_whose_session_expired() {
    let t = check(
        "zk-pause-czxid",
        true,
        90,
        &[
            "A@0: holds lock-0000000000, fence czxid 34",
            "B@20: created lock-0000000001; waits for the lower node (A's) to go",
            "B@45: holds lock-0000000001, fence czxid 36",
            "A@62: sent debit 10 with czxid 34",
            "A@62: LOST: its session expired; its lock node is gone",
            "A@62: rejected stale_fence: 34 ≤ 36",
        ],
    );
    // Last heard at its 10 ms ping: 10 + 30 = 40, and the expiry queue rounds up to the next
    // 5 ms tick past it.
    assert_eq!(expiries(&t), [("A".to_string(), 45)]);
    let z = t.zookeeper.as_ref().expect("record");
    assert_eq!(z.sessions[0].pings_ms, [10]);
    assert_eq!(z.nodes[0].end, ZkNodeEnd::SessionExpired);
    assert_eq!(z.waits[0].end, ZkWaitEnd::Granted);
    // The debit that was due during the pause goes out before the client library hears of
    // the expiry: the fence, not the session, refuses it.
    let debit = lines(&t)
        .iter()
        .position(|l| l == "A@62: sent debit 10 with czxid 34");
    let lost = lines(&t).iter().position(|l| l.starts_with("A@62: LOST"));
    assert!(debit < lost);
}

#[test]
fn without_a_fence_check_the_paused_holder_overwrites() {
    let t = check(
        "zk-pause-unfenced",
        false,
        80,
        &[
            "A@62: sent debit 10 with czxid 34",
            "A@62: accepted, balance 80",
        ],
    );
    assert_eq!(kinds(&t), [ViolationKind::StaleWriteAccepted]);
}

#[test]
fn a_pause_shorter_than_the_timeout_keeps_the_session() {
    let mut s = load("zk-pause-czxid");
    s.clients[0].events[1] = Event::Pause {
        at_ms: 12,
        duration_ms: 20,
        cause: PauseCause::Gc,
    };
    // Woken at 32 with the last ping at 10: the session would expire at 45, and the pings
    // due during the pause go out at 32.
    let t = check_run(&s, true, 80, &["A@32: sent debit 10 with czxid 34"]);
    assert!(expiries(&t).is_empty(), "{:?}", expiries(&t));
}

#[test]
fn a_crashed_holder_frees_the_lock_when_its_session_expires() {
    let mut s = load("zk-pause-czxid");
    s.clients[0].events = vec![Event::Acquire { at_ms: 0 }, Event::Crash { at_ms: 12 }];
    let t = check_run(
        &s,
        true,
        90,
        &["B@45: holds lock-0000000001, fence czxid 36"],
    );
    assert_eq!(expiries(&t), [("A".to_string(), 45)]);
}

#[test]
fn the_server_clamps_the_session_timeout_to_two_to_twenty_ticks() {
    let mut s = load("zk-pause-czxid");
    for (asked, granted) in [(3, 10), (30, 30), (500, 100)] {
        s.lock.ttl_ms = asked;
        let t = run(&s);
        let z = t.zookeeper.as_ref().expect("record");
        assert_eq!(
            (z.requested_timeout_ms, z.session_timeout_ms),
            (asked, granted)
        );
    }
}

// The recreated parent: the sequence starts again at 0; the czxid does not.

#[test]
fn a_sequence_suffix_restarts_under_a_recreated_parent() {
    let t = check(
        "zk-parent-sequence",
        false,
        80,
        &[
            "A@12: holds lock-0000000001, fence sequence 1",
            "B@55: holds lock-0000000000, fence sequence 0",
            "B@57: accepted, balance 90",
            "A@74: sent debit 10 with sequence 1",
            "A@74: accepted, balance 80",
        ],
    );
    assert_eq!(kinds(&t), [ViolationKind::StaleWriteAccepted]);
    let z = t.zookeeper.as_ref().expect("record");
    let parent: Vec<(u64, ParentChange)> = z.parent.iter().map(|m| (m.at_ms, m.what)).collect();
    assert_eq!(
        parent,
        [(50, ParentChange::Removed), (55, ParentChange::Created)]
    );
}

#[test]
fn the_czxid_keeps_rising_under_a_recreated_parent() {
    let t = check(
        "zk-parent-czxid",
        true,
        90,
        &[
            "A@12: holds lock-0000000001, fence czxid 37",
            "B@55: holds lock-0000000000, fence czxid 43",
            "A@74: rejected stale_fence: 37 ≤ 43",
        ],
    );
    let z = t.zookeeper.as_ref().expect("record");
    let czxids: Vec<u64> = z.nodes.iter().map(|n| n.czxid).collect();
    // B's create under the missing parent failed and took 41, the parent 42.
    assert_eq!(czxids, [34, 37, 43]);
}

#[test]
fn a_parent_with_children_is_not_removed() {
    let mut s = load("zk-parent-sequence");
    if let Some(z) = s.lock.zookeeper_mut() {
        z.events = vec![ZkEvent::ParentRemoved { at_ms: 30 }];
    }
    // At 30 ms A's node still exists: the parent stays, B's node follows in sequence, and
    // this once the suffix orders A's late debit below B's.
    let t = check_run(
        &s,
        true,
        90,
        &["B@55: holds lock-0000000002, fence sequence 2"],
    );
    let z = t.zookeeper.as_ref().expect("record");
    assert_eq!(z.parent[0].what, ParentChange::Kept);
}

// SUSPENDED: a running client can stop; it learns LOST only when it reconnects.

#[test]
fn writing_through_suspended_is_the_lost_update() {
    let t = check(
        "zk-suspended-ignored",
        false,
        80,
        &[
            "A@32: SUSPENDED: no answer from the ensemble; the lock may be gone",
            "B@45: holds lock-0000000001, no fence",
            "A@48: accepted, balance 90",
            "A@62: LOST: its session expired; its lock node is gone",
        ],
    );
    assert_eq!(expiries(&t), [("A".to_string(), 45)]);
    let z = t.zookeeper.as_ref().expect("record");
    let states: Vec<(u64, u64, ZkState, ZkStateEnd)> = z
        .states
        .iter()
        .map(|s| (s.start_ms, s.end_ms, s.state, s.end))
        .take(1)
        .collect();
    assert_eq!(states, [(32, 62, ZkState::Suspended, ZkStateEnd::Lost)]);
}

#[test]
fn stopping_on_suspended_is_safe_for_a_running_client() {
    check(
        "zk-suspended-stops",
        true,
        90,
        &["A@48: write held back: the client is SUSPENDED"],
    );
}

#[test]
fn a_short_partition_ends_reconnected_and_the_holder_writes_again() {
    let mut s = load("zk-suspended-stops");
    if let Some(z) = s.lock.zookeeper_mut() {
        z.events = vec![ZkEvent::Partition {
            at_ms: 12,
            duration_ms: 25,
            client: "A".to_string(),
        }];
    }
    let t = check_run(
        &s,
        true,
        80,
        &[
            "A@32: SUSPENDED: no answer from the ensemble; the lock may be gone",
            "A@37: RECONNECTED: the session lived; its lock node is still there",
            "A@48: accepted, balance 90",
        ],
    );
    assert!(expiries(&t).is_empty());
}

#[test]
fn stopping_on_suspended_does_not_save_a_paused_client() {
    // The paused-holder run with the stop-writing policy: a stopped process notices nothing,
    // so its late debit still goes out, and only the fence check would refuse it.
    let mut s = load("zk-pause-unfenced");
    if let Some(z) = s.lock.zookeeper_mut() {
        z.on_suspended = fencing_playground::sim::OnSuspended::StopWriting;
    }
    check_run(&s, false, 80, &["A@62: sent debit 10 with czxid 34"]);
}

#[test]
fn a_request_while_cut_off_gets_no_answer() {
    let mut s = load("zk-suspended-ignored");
    s.clients[0].events.push(Event::CheckThenWrite {
        at_ms: 40,
        amount: 5,
        idempotency_key: None,
        delay_ms: 0,
        gap_ms: 1,
    });
    let t = run(&s);
    let got = lines(&t);
    assert!(
        got.iter()
            .any(|l| l == "A@40: isHeld() returned false; write skipped"),
        "{}",
        got.join("\n")
    );
}

// The format: a malformed ensemble names its field; a minimal one fills in its defaults.

#[test]
fn a_malformed_zookeeper_lock_names_its_field() {
    let base = load("zk-suspended-ignored").to_json();
    let v: serde_json::Value = serde_json::from_str(&base).expect("JSON");
    let cases: &[(&str, serde_json::Value, &str)] = &[
        (
            "/lock/zookeeper/tickTimeMs",
            0.into(),
            "lock.zookeeper.tickTimeMs",
        ),
        (
            "/lock/zookeeper/fence",
            "version".into(),
            "lock.zookeeper.fence",
        ),
        (
            "/lock/zookeeper/onSuspended",
            "panic".into(),
            "lock.zookeeper.onSuspended",
        ),
        (
            "/lock/zookeeper/events/0/client",
            "Z".into(),
            "lock.zookeeper.events[0].client",
        ),
        (
            "/lock/zookeeper/events/0/durationMs",
            (-4).into(),
            "lock.zookeeper.events[0].durationMs",
        ),
        ("/lock/watchdog", true.into(), "lock.watchdog"),
        (
            "/storage/fenceRule",
            "cas_value".into(),
            "storage.fenceRule",
        ),
    ];
    for (pointer, value, field) in cases {
        let mut bad = v.clone();
        *bad.pointer_mut(pointer)
            .unwrap_or_else(|| panic!("{pointer}")) = value.clone();
        let err = Scenario::from_json(&bad.to_string()).expect_err(pointer);
        assert_eq!(err.path, *field, "{pointer}: {err}");
    }
    let mut renew = v.clone();
    renew["clients"][0]["events"][1] = serde_json::json!({ "kind": "renew", "atMs": 5 });
    let err = Scenario::from_json(&renew.to_string()).expect_err("renew");
    assert_eq!(err.path, "clients[0].events[1].kind");
    let mut both = v.clone();
    both["lock"]["etcd"] = serde_json::json!({ "members": [{ "name": "n1" }] });
    let err = Scenario::from_json(&both.to_string()).expect_err("two services");
    assert!(err.path.starts_with("lock."), "{err}");
    let mut unknown = v.clone();
    unknown["lock"]["zookeeper"]["events"] = serde_json::json!([{ "kind": "election", "atMs": 3 }]);
    let err = Scenario::from_json(&unknown.to_string()).expect_err("unknown event");
    assert_eq!(err.path, "lock.zookeeper.events[0].kind");
}

#[test]
fn defaults_fill_in_and_a_link_round_trips() {
    let text = r#"{"version":1,"lock":{"zookeeper":{}},
        "clients":[{"name":"A","events":[{"kind":"acquire","atMs":0}]}]}"#;
    let s = Scenario::from_json(text).expect("a minimal ZooKeeper scenario");
    let z = s.lock.zookeeper().cloned().expect("zookeeper");
    assert_eq!(z.tick_time_ms, 5);
    assert_eq!(z.fence, fencing_playground::sim::ZkFence::Czxid);
    assert_eq!(Scenario::from_json(&s.to_json()).as_ref(), Ok(&s));
    for p in fencing_playground::sim::presets::presets() {
        if p.scenario.lock.zookeeper().is_some() {
            assert_eq!(
                Scenario::from_json(&p.scenario.to_json()).as_ref(),
                Ok(&p.scenario)
            );
        }
    }
}
