//! etcd: sessions, keepalives that stall with the process, FIFO waiters on create revision,
//! revisions raised by every write, leader failover, the 3.4 waiter bug beside 3.5, and the
//! `CREATE == myRev` guard. Every etcd preset's outcome is computed here and compared with
//! what its caption tells; broken variants sit beside the fixed ones.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use fencing_playground::sim::presets::preset;
use fencing_playground::sim::trace::{RevisionCause, ServiceKind, Trace, WaitAnswer};
use fencing_playground::sim::{run, Scenario, ViolationKind};

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
fn check(id: &str, safe: bool, balance: i64, want: &[&str]) -> Trace {
    let t = run(&load(id));
    let got = lines(&t);
    for w in want {
        assert!(
            got.iter().any(|l| l == w),
            "{id}: no {w:?} in\n{}",
            got.join("\n")
        );
    }
    assert_eq!(
        t.verdict.safe,
        safe,
        "{id}: {:#?}\n{}",
        t.verdict,
        got.join("\n")
    );
    assert_eq!(t.final_balance, balance, "{id}");
    assert_eq!(t.service, ServiceKind::Etcd);
    t
}

fn revisions(t: &Trace) -> Vec<(u64, u64, RevisionCause)> {
    t.etcd
        .iter()
        .flat_map(|e| e.revisions.iter().map(|r| (r.at_ms, r.revision, r.cause)))
        .collect()
}

fn kinds(t: &Trace) -> Vec<ViolationKind> {
    t.verdict
        .violations
        .iter()
        .map(|v| v.kind.clone())
        .collect()
}

// The paused holder: unfenced beside fenced.

#[test]
fn unfenced_paused_holder_loses_an_update() {
    let t = check(
        "etcd-pause-unfenced",
        false,
        80,
        &[
            "A@21: paused by GC until 61 ms",
            "B@40: key put at revision 34; waits for A's key to go",
            "B@50: locked, create revision 34 (the fence), lease until 70 ms",
            "A@61: sent debit 10 with revision 33",
            "A@61: accepted, balance 80",
        ],
    );
    assert!(kinds(&t).contains(&ViolationKind::StaleWriteAccepted));
}

#[test]
fn fenced_paused_holder_is_refused_by_its_revision() {
    let t = check(
        "etcd-pause-fenced",
        true,
        90,
        &[
            "B@52: accepted, balance 90",
            "A@61: rejected stale_fence: 33 ≤ 34",
            "A@61: keepalive answered: lease not found; the session is over",
        ],
    );
    // The leader revoked A's lease a TTL after its last keepalive (20 ms), and the revoke is a
    // write of its own: revision 35.
    assert_eq!(
        revisions(&t)[..3],
        [
            (0, 33, RevisionCause::Put),
            (40, 34, RevisionCause::Put),
            (50, 35, RevisionCause::Revoke)
        ]
    );
    let e = t.etcd.as_ref().expect("an etcd record");
    assert_eq!(e.sessions[0].keepalives_ms, [10, 20]);
    assert_eq!(e.waits[0].answer, WaitAnswer::Granted);
    assert_eq!((e.waits[0].start_ms, e.waits[0].end_ms), (40, 50));
}

// The waiter whose lease ran out: 3.4 beside 3.5.

#[test]
fn etcd_34_tells_an_expired_waiter_it_holds_the_lock() {
    let t = check(
        "etcd-34-expired-waiter",
        false,
        80,
        &[
            "B@52: keepalive answered: lease not found; the session is over",
            "B@70: told it holds the lock though its lease expired at 35 ms and its key is gone: no fence (etcd 3.4)",
            "C@70: locked, create revision 36 (the fence), lease until 90 ms",
            "B@70: accepted, balance 90",
            "C@71: accepted, balance 80",
        ],
    );
    assert!(kinds(&t).contains(&ViolationKind::TwoHolders));
    let answers: Vec<WaitAnswer> = t
        .etcd
        .iter()
        .flat_map(|e| e.waits.iter().map(|w| w.answer))
        .collect();
    assert_eq!(answers, [WaitAnswer::GrantedExpired, WaitAnswer::Granted]);
}

#[test]
fn etcd_35_tells_the_expired_waiter_its_session_expired() {
    check(
        "etcd-35-expired-waiter",
        true,
        90,
        &[
            "B@70: lock answered: session expired (its lease ran out while it waited)",
            "B@70: skipped: B does not hold the lock, so it does not write",
            "C@71: accepted, balance 90",
        ],
    );
}

#[test]
fn a_revision_fence_refuses_the_34_waiter_whichever_writes_last() {
    // The lock call answers with the key's name; the waiter reads its key's create revision to
    // fence with and finds the key gone, so its debit carries no fence and fenced storage
    // refuses it, before or after C's.
    for (delay_ms, at) in [(0, 70), (5, 75)] {
        let mut s = load("etcd-34-expired-waiter");
        s.storage.fence_rule = fencing_playground::sim::FenceRule::Strict;
        if let fencing_playground::sim::Event::Debit { delay_ms: d, .. } =
            &mut s.clients[1].events[2]
        {
            *d = delay_ms;
        }
        let t = run(&s);
        let got = lines(&t);
        let want = format!("B@{at}: rejected missing_token: the write carried no fence");
        assert!(got.contains(&want), "{want}\n{}", got.join("\n"));
        assert_eq!(t.final_balance, 90, "{}", got.join("\n"));
    }
}

#[test]
fn the_34_waiter_told_it_holds_an_expired_lock_has_no_revision_to_send() {
    // lab/corpus/random-13-55, as real etcd 3.4 and the lab's client did it: A holds the lock until its lease ends
    // after the timeline, B waits from 5 ms and is paused past its own lease, then is told it
    // holds the lock. Its debit goes out with no revision and non-decreasing storage refuses it.
    let s = Scenario::from_json(include_str!("../lab/corpus/random-13-55.json"))
        .unwrap_or_else(|e| panic!("random-13-55: {e}"));
    let t = run(&s);
    let got = lines(&t);
    for want in [
        "B@130: told it holds the lock though its lease expired at 35 ms and its key is gone: no fence (etcd 3.4)",
        "B@130: rejected missing_token: the write carried no fence",
    ] {
        assert!(got.iter().any(|l| l == want), "{want}\n{}", got.join("\n"));
    }
    assert_eq!(t.final_balance, 100);
}

// The leader.

#[test]
fn a_failover_restarts_the_lease_past_its_ttl() {
    let t = check(
        "etcd-failover",
        true,
        80,
        &[
            "A@12: crashed",
            "B@50: key put at revision 34; waits for A's key to go",
            "B@85: locked, create revision 34 (the fence), lease until 110 ms",
        ],
    );
    let e = t.etcd.as_ref().expect("an etcd record");
    let leaders: Vec<(usize, u64, u64)> = e
        .leaders
        .iter()
        .map(|l| (l.member, l.start_ms, l.end_ms))
        .collect();
    assert_eq!(leaders[..1], [(0, 0, 35)]);
    assert_eq!((leaders[1].0, leaders[1].1), (1, 45));
    // Without the crash the lease ends a TTL after the last keepalive (10 ms).
    assert_eq!(e.sessions[0].end_ms, 85);
    assert_eq!(e.sessions[0].extended_ms, [45]);
    let mut calm = load("etcd-failover");
    if let Some(x) = calm.lock.etcd_mut() {
        x.members[0].events.clear();
    }
    let t = run(&calm);
    assert!(
        lines(&t)
            .iter()
            .any(|l| l == "B@50: locked, create revision 35 (the fence), lease until 80 ms"),
        "{}",
        lines(&t).join("\n")
    );
}

#[test]
fn a_follower_crash_changes_nothing() {
    let mut s = load("etcd-failover");
    if let Some(x) = s.lock.etcd_mut() {
        let crash = x.members[0].events.remove(0);
        x.members[2].events.push(crash);
    }
    let t = run(&s);
    assert_eq!(t.etcd.as_ref().map(|e| e.leaders.len()), Some(1));
    assert_eq!(t.etcd.as_ref().map(|e| e.sessions[0].end_ms), Some(40));
}

#[test]
fn without_a_quorum_requests_wait_for_the_next_leader() {
    let mut s = load("etcd-failover");
    if let Some(x) = s.lock.etcd_mut() {
        x.members[1]
            .events
            .push(fencing_playground::sim::scenario::MemberEvent::Partition {
                at_ms: 35,
                duration_ms: 30,
            });
    }
    let t = run(&s);
    let got = lines(&t);
    // n1 down and n2 cut off from 35 ms: one member of three, no quorum until 65 ms.
    assert!(
        got.iter()
            .any(|l| l == "B@50: no leader: the request waits for an election"),
        "{}",
        got.join("\n")
    );
    assert!(
        got.iter()
            .any(|l| l == "B@65: key put at revision 34; waits for A's key to go"),
        "{}",
        got.join("\n")
    );
}

// Keepalives and the guard.

#[test]
fn stalled_keepalives_tell_the_holder_only_when_it_wakes() {
    check(
        "etcd-stalled-keepalives",
        true,
        90,
        &[
            "B@50: locked, create revision 34 (the fence), lease until 70 ms",
            "A@70: keepalive answered: lease not found; the session is over",
            "A@72: skipped: A does not hold the lock, so it does not write",
        ],
    );
    // The same write due while A was paused goes out before the keepalive that would stop it.
    let mut s = load("etcd-stalled-keepalives");
    s.clients[0].events[2].set_at_ms(30);
    let t = run(&s);
    assert!(!t.verdict.safe);
    assert_eq!(t.final_balance, 80);
}

#[test]
fn the_create_guard_refuses_a_write_whose_key_is_gone() {
    let t = check(
        "etcd-create-guard",
        true,
        90,
        &["A@61: txn compare failed: no lock key with create revision 33"],
    );
    // B's guarded debit is a write to etcd: it raises the revision.
    assert!(revisions(&t).contains(&(52, 36, RevisionCause::Txn)));
}

#[test]
fn every_etcd_preset_is_judged_by_the_simulation() {
    // The captions' outcomes, one line each: whether safe, and the final balance.
    for (id, safe, balance) in [
        ("etcd-pause-unfenced", false, 80),
        ("etcd-pause-fenced", true, 90),
        ("etcd-34-expired-waiter", false, 80),
        ("etcd-35-expired-waiter", true, 90),
        ("etcd-failover", true, 80),
        ("etcd-stalled-keepalives", true, 90),
        ("etcd-create-guard", true, 90),
    ] {
        let t = check(id, safe, balance, &[]);
        // What the caption claims is what the run computed.
        let caption = load(id).caption;
        let claims_safe = caption.contains("Safe");
        assert_eq!(
            claims_safe, t.verdict.safe,
            "{id}: the caption's word on safety"
        );
        let told: Vec<i64> = caption
            .match_indices("balance ")
            .filter_map(|(i, w)| {
                let rest = &caption[i + w.len()..];
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                digits.parse().ok()
            })
            .collect();
        assert_eq!(
            told.last(),
            Some(&t.final_balance),
            "{id}: the caption's balance"
        );
    }
}

// The format.

#[test]
fn etcd_settings_are_read_with_their_defaults_and_errors_name_the_field() {
    let ok =
        r#"{"version":1,"lock":{"etcd":{"members":[{"name":"n1"}]}},"clients":[{"name":"A"}]}"#;
    let s = Scenario::from_json(ok).expect("a minimal etcd scenario");
    let e = s.lock.etcd().expect("etcd");
    assert_eq!((e.election_timeout_ms, e.version.label()), (10, "3.5"));
    for (json, want) in [
        (
            r#"{"version":1,"lock":{"etcd":{"members":[]}},"clients":[{"name":"A"}]}"#,
            "lock.etcd.members: expected 1 to 7 members, got 0",
        ),
        (
            r#"{"version":1,"lock":{"etcd":{"members":[{"name":"n1"}],"version":"3.3"}},"clients":[{"name":"A"}]}"#,
            "lock.etcd.version:",
        ),
        (
            r#"{"version":1,"lock":{"etcd":{"members":[{"name":"n1","events":[{"kind":"crash","atMs":1}]}]}},"clients":[{"name":"A"}]}"#,
            "lock.etcd.members[0].events[0]: missing field `downMs`",
        ),
        (
            r#"{"version":1,"lock":{"ttlMs":10,"etcd":{"members":[{"name":"n1"}]}},"clients":[{"name":"A"}]}"#,
            "lock.ttlMs: etcd grants no lease shorter than 1.5 election timeouts: at least 15 ms",
        ),
        (
            r#"{"version":1,"lock":{"etcd":{"members":[{"name":"n1"},{"name":"n1"}]}},"clients":[{"name":"A"}]}"#,
            "lock.etcd.members[1].name: another member is already named",
        ),
        (
            r#"{"version":1,"lock":{"etcd":{"members":[{"name":"n1"}]},"redlock":{"instances":[{"name":"R1"}]}},"clients":[{"name":"A"}]}"#,
            "lock.etcd: a lock service is Redlock or etcd, not both",
        ),
        (
            r#"{"version":1,"storage":{"createGuard":true},"clients":[{"name":"A"}]}"#,
            "storage.createGuard: needs the etcd lock service",
        ),
        (
            r#"{"version":1,"lock":{"etcd":{"members":[{"name":"n1"}]}},"clients":[{"name":"A","events":[{"kind":"watchdog","atMs":1}]}]}"#,
            "clients[0].events[0].kind: etcd has no watchdog",
        ),
        (
            r#"{"version":1,"lock":{"etcd":{"members":[{"name":"n1"}]}},"clients":[{"name":"A","events":[{"kind":"release","atMs":1,"mode":"bare_del"}]}]}"#,
            "clients[0].events[0].mode: etcd's unlock deletes the caller's own key",
        ),
        (
            r#"{"version":1,"lock":{"etcd":{"members":[{"name":"n1"}],"electionTimeoutMs":0}},"clients":[{"name":"A"}]}"#,
            "lock.etcd.electionTimeoutMs: expected a whole number from 1 to 10000000 ms, got 0",
        ),
    ] {
        let got = Scenario::from_json(json)
            .map(|_| ())
            .map_err(|e| e.to_string());
        assert!(
            got.as_ref().is_err_and(|e| e.starts_with(want)),
            "{json}\nwant {want:?}\ngot {got:?}"
        );
    }
}

#[test]
fn an_etcd_scenario_round_trips_and_a_redis_one_is_written_as_before() {
    for id in [
        "etcd-34-expired-waiter",
        "etcd-create-guard",
        "etcd-failover",
    ] {
        let s = load(id);
        assert_eq!(Scenario::from_json(&s.to_json()).as_ref(), Ok(&s), "{id}");
    }
    // A scenario without etcd carries none of its fields, so old links and files read the same.
    let redis = preset("gc-pause-fenced").expect("the preset").to_json();
    assert!(
        !redis.contains("etcd") && !redis.contains("createGuard"),
        "{redis}"
    );
}

// The Commands view speaks etcd's gateway.

fn command_text(id: &str) -> String {
    let s = load(id);
    let t = run(&s);
    fencing_playground::sim::commands::commands(&s, &t)
        .iter()
        .flat_map(|c| c.lines.iter().map(|l| format!("{} => {}", l.text, l.reply)))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_commands_are_gateway_calls_with_their_etcdctl_lines() {
    let text = command_text("etcd-34-expired-waiter");
    for want in [
        "POST /v3/lease/grant {\"TTL\":30}",
        "POST /v3/lock/lock {\"name\":\"YWNjdDox\",\"lease\":\"",
        "-- etcdctl lock --ttl=30 acct:1",
        "POST /v3/lock/unlock {\"key\":\"",
        "(3.4: although the key is gone)",
        "\"TTL\":\"0\"}}  (lease not found)",
        "-- the leader revokes lease",
    ] {
        assert!(text.contains(want), "no {want:?} in\n{text}");
    }
    let guard = command_text("etcd-create-guard");
    assert!(
        guard.contains("POST /v3/kv/txn {\"compare\":[{\"target\":\"CREATE\""),
        "{guard}"
    );
    assert!(
        guard.contains("{\"succeeded\":false}  (txn compare failed"),
        "{guard}"
    );
    assert!(command_text("etcd-35-expired-waiter").contains("{\"error\":\"session expired\"}"));
}

#[test]
fn every_step_of_every_etcd_preset_has_its_entry_in_time_order() {
    for p in fencing_playground::sim::presets::presets() {
        if p.scenario.lock.etcd().is_none() {
            continue;
        }
        let t = run(&p.scenario);
        let list = fencing_playground::sim::commands::commands(&p.scenario, &t);
        assert!(
            list.windows(2).all(|w| w[0].at_ms <= w[1].at_ms),
            "{}: out of order",
            p.id
        );
        for i in 0..t.steps.len() {
            assert!(
                list.iter()
                    .any(|c| c.step == Some(i) && !c.lines.is_empty()),
                "{}: step {i} ({}) has no entry",
                p.id,
                t.steps[i].text
            );
        }
    }
}

#[test]
fn the_guard_is_compared_with_the_same_run_without_it() {
    use fencing_playground::sim::compare::{counterfactual, Contrast};
    let c = counterfactual(&load("etcd-create-guard"));
    let other = c.scenario.expect("a comparison");
    assert!(!other.storage.create_guard);
    assert!(matches!(c.contrast, Contrast::With { ref label, .. } if label.contains("guard")));
    // Without the guard (and no fence rule) A's late debit lands.
    assert_eq!(run(&other).final_balance, 80);
}

/// The issue's promise: search finds the paused holder's stale write on etcd without fencing,
/// and none with the revision checked, exhaustively over every pair of GC pauses. Native only:
/// the exhaustive search of every pair takes a debug browser build minutes.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn search_finds_the_stale_write_unfenced_and_none_in_two_pauses_fenced() {
    use fencing_playground::sim::breaks::without_faults;
    use fencing_playground::sim::search::{search, FaultKind, Outcome, SearchSpec, Strategy};
    let mut s = load("etcd-pause-fenced");
    without_faults(&mut s, &[FaultKind::Pause]);
    let spec = |k| SearchSpec {
        faults: vec![FaultKind::Pause],
        max_faults: k,
        failure: Some(ViolationKind::StaleWriteAccepted),
        strategy: Strategy::Exhaustive,
        budget: 1_000_000,
        ..SearchSpec::default()
    };
    let fenced = search(&s, &spec(2));
    assert_eq!(fenced.outcome, Outcome::NoneFound, "{}", fenced.statement);
    s.storage.fence_rule = fencing_playground::sim::FenceRule::Off;
    let unfenced = search(&s, &spec(2));
    assert_eq!(unfenced.outcome, Outcome::Found, "{}", unfenced.statement);
    let c = unfenced.counterexample.expect("a counterexample");
    assert_eq!(c.faults.len(), 1, "{}", c.summary);
}

/// A lock call from a client that holds the lock: etcd's lock service finds the session's own
/// key and answers at once with it (the long random run's seed 10 case 190 showed the server
/// do so). No key is put, no revision raised, no second lease drawn, and the narration says so.
#[test]
fn a_second_lock_call_while_holding_is_answered_with_the_same_key() {
    let mut s = load("etcd-stalled-keepalives");
    s.clients[0].events = vec![
        fencing_playground::sim::Event::Acquire { at_ms: 0 },
        fencing_playground::sim::Event::Acquire { at_ms: 12 },
    ];
    s.clients.truncate(1);
    let t = run(&s);
    let got = lines(&t);
    let granted: Vec<&String> = got.iter().filter(|l| l.contains("locked")).collect();
    assert_eq!(granted.len(), 2, "{}", got.join("\n"));
    assert!(
        granted[1].starts_with("A@12: locked, create revision 33"),
        "{}",
        got.join("\n")
    );
    let puts: Vec<_> = revisions(&t)
        .into_iter()
        .filter(|r| r.2 == RevisionCause::Put)
        .collect();
    assert_eq!(puts, vec![(0, 33, RevisionCause::Put)]);
    assert_eq!(t.leases.len(), 1);
    let story = fencing_playground::sim::narrate::narrate(&t).join("\n");
    assert!(
        story.contains("At 12 ms A called lock again while holding it"),
        "{story}"
    );
}
