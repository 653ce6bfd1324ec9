//! A database lease row with a generation column: the row is the lock and the generation the
//! fence. Every lease preset's outcome is computed here and compared with what its caption
//! tells, the broken variant beside the fixed one: the paused holder refused by its
//! generation (and accepted with no check), the unique ledger beside the idempotency key, the
//! live lease checked in the write's own statement, the waiter's fast clock, and the failover
//! that repeats a generation under `<` and `<=`. Then the format: the round trip, the defaults,
//! the refusals with their field, and the SQL the Commands view shows.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use fencing_playground::sim::commands::commands;
use fencing_playground::sim::presets::{preset, presets};
use fencing_playground::sim::scenario::{LeaseExpiry, LeaseGuard, LockService};
use fencing_playground::sim::trace::{RowChange, ServiceKind, Trace, WatchEnd};
use fencing_playground::sim::{run, DebitVerdict, FenceRule, Scenario, ViolationKind};

fn load(id: &str) -> Scenario {
    let s = preset(id).unwrap_or_else(|| panic!("no preset {id}"));
    // Every preset goes through the one door a link or a file does.
    Scenario::from_json(&s.to_json()).unwrap_or_else(|e| panic!("{id}: {e}"))
}

fn lines(trace: &Trace) -> String {
    trace
        .steps
        .iter()
        .map(|s| format!("{}@{}: {}", trace.clients[s.client], s.at_ms, s.text))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Each write as "client generation verdict", in arrival order.
fn ledger(t: &Trace) -> Vec<String> {
    let mut ws: Vec<_> = t.writes.iter().collect();
    ws.sort_by_key(|w| w.arrived_ms);
    ws.iter()
        .map(|w| {
            let verdict = match &w.verdict {
                Some(DebitVerdict::Accepted { .. }) => "accepted".to_string(),
                Some(DebitVerdict::Duplicate { .. }) => "duplicate".to_string(),
                Some(DebitVerdict::Rejected { reason, .. }) => reason.code().to_string(),
                None => "none".to_string(),
            };
            format!("{} {} {verdict}", t.clients[w.client], w.token.unwrap_or(0))
        })
        .collect()
}

fn kinds(t: &Trace) -> Vec<ViolationKind> {
    let mut k: Vec<_> = t
        .verdict
        .violations
        .iter()
        .map(|v| v.kind.clone())
        .collect();
    k.dedup();
    k
}

struct Case {
    id: &'static str,
    safe: bool,
    balance: i64,
    writes: &'static [&'static str],
    violations: &'static [ViolationKind],
}

#[track_caller]
fn check_run(s: &Scenario, c: &Case) -> Trace {
    let t = run(s);
    assert_eq!(t.service, ServiceKind::Lease, "{}", c.id);
    assert_eq!(ledger(&t), c.writes, "{}:\n{}", c.id, lines(&t));
    assert_eq!(t.final_balance, c.balance, "{}:\n{}", c.id, lines(&t));
    assert_eq!(t.verdict.safe, c.safe, "{}: {:#?}", c.id, t.verdict);
    for v in c.violations {
        assert!(
            kinds(&t).contains(v),
            "{}: {v:?} not in {:?}",
            c.id,
            kinds(&t)
        );
    }
    if c.safe {
        assert!(t.verdict.violations.is_empty(), "{}", c.id);
    }
    t
}

use ViolationKind::{OverlappingWriters, StaleWriteAccepted};

const CASES: &[Case] = &[
    // The paused holder: refused by its generation, accepted with no check.
    Case {
        id: "lease-paused-holder",
        safe: true,
        balance: 90,
        writes: &["B 34 accepted", "A 33 stale_fence"],
        violations: &[],
    },
    Case {
        id: "lease-paused-unchecked",
        safe: false,
        balance: 80,
        writes: &["B 34 accepted", "A 33 accepted"],
        violations: &[StaleWriteAccepted],
    },
    // The ledger's unique constraint, the true retry answered by its key.
    Case {
        id: "lease-unique-ledger",
        safe: true,
        balance: 80,
        writes: &[
            "A 33 accepted",
            "A 33 duplicate",
            "B 34 accepted",
            "A 33 unique_violation",
        ],
        violations: &[],
    },
    // The live lease inside the write's statement, no number on the account.
    Case {
        id: "lease-live-lease",
        safe: true,
        balance: 90,
        writes: &["B 34 accepted", "A 33 lease_lost"],
        violations: &[],
    },
    // The waiter's fast clock: two believed holders.
    Case {
        id: "lease-fast-waiter-fenced",
        safe: true,
        balance: 90,
        writes: &["B 34 accepted", "A 33 stale_fence"],
        violations: &[],
    },
    Case {
        id: "lease-fast-waiter-unfenced",
        safe: false,
        balance: 80,
        writes: &["B 34 accepted", "A 33 accepted"],
        violations: &[OverlappingWriters],
    },
    // The failover that repeats a generation: `<` refuses the equal one, `<=` does not.
    Case {
        id: "lease-failover-strict",
        safe: true,
        balance: 80,
        writes: &["A 33 accepted", "C 34 accepted", "B 34 stale_fence"],
        violations: &[],
    },
    Case {
        id: "lease-failover-non-decreasing",
        safe: false,
        balance: 70,
        writes: &["A 33 accepted", "C 34 accepted", "B 34 accepted"],
        violations: &[OverlappingWriters],
    },
];

#[test]
fn every_lease_preset_does_what_its_caption_tells() {
    for c in CASES {
        check_run(&load(c.id), c);
    }
    let ids: Vec<&str> = presets()
        .into_iter()
        .filter(|p| p.scenario.lock.lease().is_some())
        .map(|p| p.id)
        .collect();
    let tested: Vec<&str> = CASES.iter().map(|c| c.id).collect();
    assert_eq!(ids, tested, "every lease preset has its case here");
}

#[test]
fn the_paused_holder_s_row_is_taken_over_at_the_next_generation() {
    let t = check_run(&load("lease-paused-holder"), &CASES[0]);
    let rows: Vec<(Option<usize>, u64, RowChange, u64)> = t
        .lease
        .iter()
        .flat_map(|l| l.rows.iter())
        .map(|r| (r.holder, r.generation, r.why, r.start_ms))
        .collect();
    assert_eq!(
        rows,
        [
            (Some(0), 33, RowChange::Inserted, 0),
            (Some(1), 34, RowChange::TakenOver, 31)
        ]
    );
    // A's lease ended by the database's clock at 30 ms; A believed until it woke at 60 ms.
    assert_eq!((t.leases[0].start_ms, t.leases[0].end_ms), (0, 30));
    let a = &t.beliefs[0];
    assert_eq!((a.end_ms, a.stale_from_ms), (60, Some(30)));
    assert_eq!(t.last_fence, Some(34));
}

#[test]
fn without_the_idempotency_key_the_true_retry_hits_the_constraint() {
    let mut s = load("lease-unique-ledger");
    s.storage.idempotency = false;
    let t = run(&s);
    assert_eq!(
        ledger(&t),
        [
            "A 33 accepted",
            "A 33 unique_violation",
            "B 34 accepted",
            "A 33 unique_violation"
        ],
        "{}",
        lines(&t)
    );
    // The constraint alone refuses only an equal generation: A's stale write of a generation
    // it never wrote under gets through it.
    let mut s = load("lease-unique-ledger");
    s.clients[0].events.retain(
        |e| !matches!(e, fencing_playground::sim::Event::Debit { at_ms, .. } if *at_ms < 20),
    );
    let t = run(&s);
    assert_eq!(
        ledger(&t),
        ["B 34 accepted", "A 33 accepted"],
        "{}",
        lines(&t)
    );
    assert!(kinds(&t).contains(&StaleWriteAccepted));
    // The account's own generation check refuses that one.
    s.storage.fence_rule = FenceRule::Strict;
    let t = run(&s);
    assert_eq!(ledger(&t), ["B 34 accepted", "A 33 stale_fence"]);
}

/// The ledger's line is the statement's `WITH` insert, which PostgreSQL runs whether or not
/// the account's own check then finds its row: a stale write refused by `generation < $g`
/// still leaves a line with its generation, and a second write with that generation meets the
/// constraint. The model had kept the lines of accepted debits only; found reading the
/// statement beside the model for the lab's lease client, and the lab's replay of this
/// scenario on PostgreSQL 15 answers as the fixed model does (stale_fence, then the
/// constraint's error).
#[test]
fn a_write_refused_by_the_account_still_leaves_its_ledger_line() {
    let mut s = load("lease-unique-ledger");
    s.clients[0].events.retain(
        |e| !matches!(e, fencing_playground::sim::Event::Debit { at_ms, .. } if *at_ms < 20),
    );
    s.storage.fence_rule = FenceRule::Strict;
    s.clients[0]
        .events
        .push(fencing_playground::sim::Event::Debit {
            at_ms: 70,
            amount: 10,
            idempotency_key: Some("pay-4".into()),
            delay_ms: 0,
        });
    let t = run(&s);
    assert_eq!(
        ledger(&t),
        ["B 34 accepted", "A 33 stale_fence", "A 33 unique_violation"],
        "{}",
        lines(&t)
    );
}

#[test]
fn without_the_live_lease_check_the_delayed_write_lands() {
    let mut s = load("lease-live-lease");
    s.storage.lease_guard = LeaseGuard::None;
    let t = run(&s);
    assert_eq!(ledger(&t), ["B 34 accepted", "A 33 accepted"]);
    assert!(kinds(&t).contains(&StaleWriteAccepted));
}

#[test]
fn the_fast_waiter_takes_the_row_over_by_its_own_clock() {
    let t = run(&load("lease-fast-waiter-fenced"));
    let l = t.lease.as_ref().expect("the lease record");
    assert_eq!(l.expiry, "waiter");
    let watches: Vec<_> = l
        .watches
        .iter()
        .map(|w| (w.client, w.generation, w.start_ms, w.end_ms, w.end))
        .collect();
    assert_eq!(watches, [(1, 33, 5, 15, WatchEnd::TookOver)]);
    // Two clients believed they held the lease from 15 ms to 30 ms.
    let a = t
        .beliefs
        .iter()
        .find(|b| b.client == 0)
        .expect("A's belief");
    let b = t
        .beliefs
        .iter()
        .find(|b| b.client == 1)
        .expect("B's belief");
    assert_eq!((a.end_ms, b.start_ms), (30, 15));
    assert_eq!(a.stale_from_ms, Some(15));
    // With the database judging expiry, the same clock step changes nothing: B is refused.
    let mut s = load("lease-fast-waiter-fenced");
    if let Some(l) = s.lock.lease_mut() {
        l.expiry = LeaseExpiry::Database;
    }
    let t = run(&s);
    assert!(
        lines(&t).contains("B@5: acquire returned no row: A holds a live lease"),
        "{}",
        lines(&t)
    );
    assert_eq!(ledger(&t), ["A 33 accepted"]);
}

#[test]
fn a_renewal_sends_the_waiter_back_to_its_clock() {
    let mut s = load("lease-fast-waiter-fenced");
    s.clients[0]
        .events
        .push(fencing_playground::sim::Event::Renew { at_ms: 12 });
    let t = run(&s);
    let l = t.lease.as_ref().expect("the lease record");
    let ends: Vec<_> = l.watches.iter().map(|w| (w.start_ms, w.end)).collect();
    // B's clock reads 35 at 15 ms: the row changed at 12 ms, so B reads it again and waits
    // another 30 ms of its clock (until 45 ms).
    assert_eq!(
        ends,
        [(5, WatchEnd::Changed), (15, WatchEnd::TookOver)],
        "{}",
        lines(&t)
    );
    assert!(l.rows.iter().any(|r| r.why == RowChange::Renewed));
    assert_eq!(l.watches[1].end_ms, 45);
}

#[test]
fn the_failover_repeats_a_generation() {
    let t = run(&load("lease-failover-strict"));
    let l = t.lease.as_ref().expect("the lease record");
    assert_eq!(l.failovers_ms, [35]);
    let gens: Vec<(u64, RowChange)> = l.rows.iter().map(|r| (r.generation, r.why)).collect();
    assert_eq!(
        gens,
        [
            (33, RowChange::Inserted),
            (34, RowChange::TakenOver),
            (33, RowChange::FailedOver),
            (34, RowChange::TakenOver)
        ]
    );
    // Two grants carry generation 34.
    let fences: Vec<_> = t.leases.iter().filter_map(|s| s.fence).collect();
    assert_eq!(fences, [33, 34, 34]);
    assert!(t.narration.iter().any(|n| {
        n.contains(
        "the row is back at generation 33 held by A, so the next takeover mints generation 34 again"
    )
    }));
}

// The format: a malformed lease names its field; a link round-trips.

#[test]
fn a_malformed_lease_names_its_field() {
    let base = load("lease-paused-holder").to_json();
    let v: serde_json::Value = serde_json::from_str(&base).expect("JSON");
    let cases: &[(&str, serde_json::Value, &str)] = &[
        ("/lock/lease/expiry", "client".into(), "lock.lease.expiry"),
        ("/lock/lease/events", 3.into(), "lock.lease.events"),
        (
            "/storage/fenceRule",
            "cas_value".into(),
            "storage.fenceRule",
        ),
        (
            "/clients/0/events/0",
            serde_json::json!({ "kind": "release", "atMs": 1, "mode": "bare_del" }),
            "clients[0].events[0].mode",
        ),
    ];
    for (pointer, value, field) in cases {
        let mut bad = v.clone();
        *bad.pointer_mut(pointer)
            .unwrap_or_else(|| panic!("{pointer}")) = value.clone();
        let err = Scenario::from_json(&bad.to_string()).expect_err(pointer);
        assert_eq!(err.path, *field, "{pointer}: {err}");
    }
    let mut event = v.clone();
    event["lock"]["lease"]["events"] = serde_json::json!([{ "kind": "restart", "atMs": 3 }]);
    let err = Scenario::from_json(&event.to_string()).expect_err("unknown event");
    assert_eq!(err.path, "lock.lease.events[0].kind");
    let mut late = v.clone();
    late["lock"]["lease"]["events"] = serde_json::json!([{ "kind": "failover", "atMs": -1 }]);
    let err = Scenario::from_json(&late.to_string()).expect_err("negative time");
    assert_eq!(err.path, "lock.lease.events[0].atMs");
    let mut guard = v.clone();
    guard["storage"]["leaseGuard"] = "trigger".into();
    let err = Scenario::from_json(&guard.to_string()).expect_err("unknown guard");
    assert_eq!(err.path, "storage.leaseGuard");
    let mut both = v.clone();
    both["lock"]["advisory"] = serde_json::json!({});
    let err = Scenario::from_json(&both.to_string()).expect_err("two services");
    assert_eq!(err.path, "lock.lease");
    let mut alone = v.clone();
    alone["lock"].as_object_mut().map(|l| l.remove("lease"));
    alone["storage"]["leaseGuard"] = "live_lease".into();
    let err = Scenario::from_json(&alone.to_string()).expect_err("no lease row");
    assert_eq!(err.path, "storage.leaseGuard");
}

#[test]
fn defaults_fill_in_and_a_link_round_trips() {
    let text = r#"{"version":1,"lock":{"lease":{}},
        "clients":[{"name":"A","events":[{"kind":"acquire","atMs":0}]}]}"#;
    let s = Scenario::from_json(text).expect("a minimal lease scenario");
    let l = s.lock.lease().cloned().expect("a lease");
    assert_eq!(l.expiry, LeaseExpiry::Database);
    assert!(l.events.is_empty());
    assert_eq!(s.storage.lease_guard, LeaseGuard::None);
    assert!(matches!(s.lock.service, LockService::Lease(_)));
    assert_eq!(Scenario::from_json(&s.to_json()).as_ref(), Ok(&s));
    for c in CASES {
        let s = load(c.id);
        assert_eq!(
            Scenario::from_json(&s.to_json()).as_ref(),
            Ok(&s),
            "{}",
            c.id
        );
    }
}

#[test]
fn the_format_document_s_lease_example_does_what_it_says() {
    let text = r#"{
      "version": 1,
      "name": "A database lease: a repeated generation meets the unique ledger",
      "lock": {
        "ttlMs": 30,
        "firstFence": 33,
        "lease": { "expiry": "database", "events": [{ "kind": "failover", "atMs": 35 }] }
      },
      "storage": { "fenceRule": "off", "leaseGuard": "unique_ledger" },
      "clients": [
        { "name": "A", "events": [{ "kind": "acquire", "atMs": 0 }, { "kind": "debit", "atMs": 5, "amount": 10 }] },
        { "name": "B", "events": [{ "kind": "acquire", "atMs": 31 }, { "kind": "debit", "atMs": 45, "amount": 10 }] },
        { "name": "C", "events": [{ "kind": "acquire", "atMs": 40 }, { "kind": "debit", "atMs": 42, "amount": 10 }] }
      ]
    }"#;
    let s = Scenario::from_json(text).expect("the document's example");
    let t = run(&s);
    assert_eq!(
        ledger(&t),
        ["A 33 accepted", "C 34 accepted", "B 34 unique_violation"]
    );
    assert_eq!(t.final_balance, 80);
    assert!(t.verdict.safe, "{:#?}", t.verdict);
}

// The Commands view: SQL a reader can paste into psql.

#[test]
fn the_commands_are_the_sql_of_the_run() {
    let text = |id: &str| {
        let s = load(id);
        let t = run(&s);
        commands(&s, &t)
            .iter()
            .flat_map(|c| c.lines.iter())
            .map(|l| format!("{} -> {}", l.text, l.reply))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let paused = text("lease-paused-holder");
    for want in [
        "CREATE TABLE leases (name text PRIMARY KEY, holder text, generation bigint NOT NULL, expires_at timestamptz NOT NULL) -> CREATE TABLE",
        "INSERT INTO leases AS l (name, holder, generation, expires_at) VALUES ('acct:1', 'B', 33, now() + interval '30 milliseconds') ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, generation = l.generation + 1, expires_at = EXCLUDED.expires_at WHERE l.expires_at <= now() RETURNING generation -> 34",
        "UPDATE accounts SET balance = balance - 10, generation = 33 WHERE id = 'acct:1' AND generation < 33 -> UPDATE 0  (rejected stale_fence: 33 ≤ 34)",
    ] {
        assert!(paused.contains(want), "no {want:?} in\n{paused}");
    }
    let ledger = text("lease-unique-ledger");
    assert!(
        ledger.contains("ERROR:  duplicate key value violates unique constraint \"ledger_account_generation_key\""),
        "{ledger}"
    );
    let live = text("lease-live-lease");
    assert!(
        live.contains("AND EXISTS (SELECT 1 FROM leases WHERE name = 'acct:1' AND holder = 'A' AND generation = 33 AND expires_at > now() FOR SHARE) -> UPDATE 0"),
        "{live}"
    );
    let waiter = text("lease-fast-waiter-fenced");
    assert!(waiter.contains("\\gset"), "{waiter}");
    assert!(waiter.contains("generation = :seen_generation"), "{waiter}");
}

// The "Try it" line of each lease preset: the edit it suggests, made, does what it says.

#[test]
fn each_lease_hint_does_what_it_says() {
    use fencing_playground::sim::presets::hint_for;
    use fencing_playground::sim::Event;
    let hint = |id: &str| {
        let h = hint_for(&load(id));
        format!("{}{}", h.act, h.watch)
    };
    let debit_at = |s: &mut Scenario, client: usize, n: usize, t: u64| {
        let mut debits = s.clients[client]
            .events
            .iter_mut()
            .filter(|e| matches!(e, Event::Debit { .. }));
        if let Some(Event::Debit { at_ms, .. }) = debits.nth(n) {
            *at_ms = t;
        }
    };

    // The paused holder's pause ending before 15 ms: both debits count, 33 then 34.
    assert!(hint("lease-paused-holder").contains("GC pause left of 15 ms"));
    let mut s = load("lease-paused-holder");
    if let Some(Event::Pause { duration_ms, .. }) = s.clients[0].events.get_mut(1) {
        *duration_ms = 4;
    }
    let t = run(&s);
    assert_eq!(ledger(&t), ["A 33 accepted", "B 34 accepted"]);
    assert!(t.verdict.safe);

    // The unique ledger with pay-1's first copy later: still answered as already applied.
    assert!(hint("lease-unique-ledger").contains("right of 10 ms"));
    let mut s = load("lease-unique-ledger");
    debit_at(&mut s, 0, 0, 15);
    let t = run(&s);
    assert_eq!(
        ledger(&t),
        [
            "A 33 accepted",
            "A 33 duplicate",
            "B 34 accepted",
            "A 33 unique_violation"
        ]
    );

    // The live lease with A's statement sent at 9 ms: it arrives at 29 ms and commits.
    assert!(hint("lease-live-lease").contains("left of 10 ms"));
    let mut s = load("lease-live-lease");
    debit_at(&mut s, 0, 0, 9);
    let t = run(&s);
    assert_eq!(ledger(&t), ["A 33 accepted", "B 34 accepted"]);
    assert!(t.verdict.safe);

    // The fast waiter asking after 25 ms: A's debit lands under 33 first.
    assert!(hint("lease-fast-waiter-fenced").contains("right of 25 ms"));
    let mut s = load("lease-fast-waiter-fenced");
    s.clients[1].events[0] = Event::Acquire { at_ms: 26 };
    let t = run(&s);
    assert_eq!(ledger(&t)[0], "A 33 accepted", "{}", lines(&t));
    assert!(t.verdict.safe);

    // The strict failover with the account's check made `<=`: B's equal generation lands.
    assert!(hint("lease-failover-strict").contains("non-decreasing"));
    let mut s = load("lease-failover-strict");
    s.storage.fence_rule = FenceRule::NonDecreasing;
    let t = run(&s);
    assert_eq!(ledger(&t).last().map(String::as_str), Some("B 34 accepted"));
}

#[test]
fn a_lease_run_stays_within_the_work_counted_before_it() {
    use fencing_playground::sim::engine::{Progress, Run};
    use fencing_playground::sim::scenario::work;
    use fencing_playground::sim::search::fault::{scenario_of, Schedule};
    use fencing_playground::sim::search::{FaultKind, Plan, SearchSpec, Strategy};
    let spec = SearchSpec {
        faults: FaultKind::ALL.to_vec(),
        strategy: Strategy::Swarm,
        max_faults: 4,
        ..SearchSpec::default()
    };
    for c in CASES {
        let base = load(c.id);
        let plan = Plan::new(&base, &spec);
        for i in 0..100 {
            let schedule = Schedule {
                faults: plan.faults_of(i),
                dropped: Vec::new(),
            };
            let s = scenario_of(&base, &schedule);
            let mut r = Run::new(&s);
            let mut steps = 0u64;
            while r.advance(1) != Progress::Done {
                steps += 1;
            }
            let bound = work(&s).total();
            assert!(steps <= bound, "{} schedule {i}: {steps} > {bound}", c.id);
        }
    }
}
