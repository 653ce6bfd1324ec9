//! Redlock: the quorum and validity arithmetic, sequential vs parallel timing, seeded retries,
//! and every Redlock preset's outcome with the assumption it depends on.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use fencing_playground::sim::commands::{commands, server_name, Act};
use fencing_playground::sim::presets::{empty_redlock, preset};
use fencing_playground::sim::scenario::{InstanceEvent, Redlock};
use fencing_playground::sim::trace::{Failure, ServiceKind, Trace};
use fencing_playground::sim::words::failure_text;
use fencing_playground::sim::{run, Event, Scenario, ViolationKind};

fn lines(trace: &Trace) -> Vec<String> {
    trace
        .steps
        .iter()
        .map(|s| format!("{}@{}: {}", trace.clients[s.client], s.at_ms, s.text))
        .collect()
}

#[track_caller]
fn expect(trace: &Trace, safe: bool, want: &[&str]) {
    let got = lines(trace);
    for w in want {
        assert!(
            got.iter().any(|l| l == w),
            "no {w:?} in\n{}",
            got.join("\n")
        );
    }
    assert_eq!(trace.verdict.safe, safe, "{:#?}", trace.verdict);
}

fn settings(s: &mut Scenario) -> &mut Redlock {
    s.lock.redlock_mut().expect("a Redlock scenario")
}

#[test]
fn majority_and_drift_margin() {
    let mut s = empty_redlock();
    let r = settings(&mut s);
    assert_eq!(r.majority(), 3);
    r.instances.truncate(3);
    assert_eq!(r.majority(), 2);
    assert_eq!(r.drift_ms(60), 2);
    assert_eq!(r.drift_ms(1_000), 12);
    r.drift_factor_ppm = 100_000;
    assert_eq!(r.drift_ms(60), 8);
}

#[test]
fn sequential_costs_the_sum_and_parallel_the_slowest() {
    let mut s = empty_redlock();
    s.clients[0].events = vec![Event::Acquire { at_ms: 0 }];
    for (i, inst) in settings(&mut s).instances.iter_mut().enumerate() {
        inst.latency_ms = i as u64 + 1; // round trips 2, 4, 6, 8, 10 ms
    }
    settings(&mut s).timeout_ms = 20;
    let seq = run(&s);
    let a = &seq.acquisitions[0];
    assert_eq!((a.elapsed_ms, a.validity_ms, a.votes), (30, 60 - 30 - 2, 5));
    settings(&mut s).parallel = true;
    let par = run(&s);
    let a = &par.acquisitions[0];
    assert_eq!((a.elapsed_ms, a.validity_ms, a.votes), (10, 60 - 10 - 2, 5));
}

#[test]
fn a_reply_with_no_network_time_counts_at_zero_ms_as_at_any_other_instant() {
    // Found by the lab's random runs: with latency 0 the reply arrives the instant the client
    // looks, and at 0 ms the look used to be queued first, so every vote was lost.
    for at_ms in [0, 10] {
        for parallel in [false, true] {
            let mut s = empty_redlock();
            s.clients[0].events = vec![Event::Acquire { at_ms }];
            let r = settings(&mut s);
            r.parallel = parallel;
            for inst in &mut r.instances {
                inst.latency_ms = 0;
            }
            let trace = run(&s);
            let a = &trace.acquisitions[0];
            assert_eq!(
                (a.ok, a.votes, a.elapsed_ms),
                (true, 5, 0),
                "acquire at {at_ms} ms, parallel {parallel}"
            );
        }
    }
}

#[test]
fn undoing_a_failed_round_leaves_the_clients_earlier_lock_in_place() {
    // Found by the lab's random runs: each round sets its own value, so the undo of A's second
    // round (refused everywhere: A's first key is there) compares unequal and deletes nothing.
    // The model used to delete A's first lock, and B then took the lock A still held.
    for parallel in [false, true] {
        let mut s = empty_redlock();
        s.clients[0].events = vec![Event::Acquire { at_ms: 0 }, Event::Acquire { at_ms: 20 }];
        s.clients[1].events = vec![Event::Acquire { at_ms: 30 }];
        let r = settings(&mut s);
        r.parallel = parallel;
        r.retries = 0;
        for inst in &mut r.instances {
            inst.latency_ms = 0;
        }
        let trace = run(&s);
        let oks: Vec<(usize, bool)> = trace
            .acquisitions
            .iter()
            .map(|a| (a.client, a.ok))
            .collect();
        assert_eq!(
            oks,
            [(0, true), (0, false), (1, false)],
            "parallel {parallel}"
        );
        let undo: Vec<String> = commands(&s, &trace)
            .iter()
            .filter(|c| c.at_ms == 20 && c.lines.iter().any(|l| l.text.contains("c89cee65")))
            .flat_map(|c| c.lines.iter().map(|l| l.reply.clone()))
            .collect();
        assert_eq!(undo, vec!["(integer) 0"; 5], "parallel {parallel}");
    }
}

#[test]
fn every_round_sets_a_value_of_its_own_even_when_two_rounds_of_a_client_overlap() {
    // Found by the lab's random runs. random-1-10: B's retry is still waiting at 62 ms when B's
    // next acquire starts; the retry's undo must carry the retry's value, not the new round's.
    // random-7-186 and -106: a key of the earlier round is granted at the very millisecond the
    // next round starts (its request was on its way); the next round's undo must carry its own
    // value, or it deletes the earlier round's keys, which the model keeps. random-7-53 and
    // -109: sequential rounds of one client that overlap; each request carries the value of
    // the round that sent it (the engine records it), not of the round its time falls in.
    let cases = [
        (
            "random-1-10",
            include_str!("../lab/corpus/random-1-10.json"),
        ),
        (
            "random-7-186",
            include_str!("../lab/corpus/random-7-186.json"),
        ),
        (
            "random-7-106",
            include_str!("../lab/corpus/random-7-106.json"),
        ),
        (
            "random-7-53",
            include_str!("../lab/corpus/random-7-53.json"),
        ),
        (
            "random-7-109",
            include_str!("../lab/corpus/random-7-109.json"),
        ),
    ];
    for (name, json) in cases {
        let s = fencing_playground::sim::Scenario::from_json(json).expect("the saved case reads");
        let trace = run(&s);
        let mut values: std::collections::BTreeMap<usize, std::collections::BTreeSet<String>> =
            Default::default();
        for c in commands(&s, &trace) {
            use fencing_playground::sim::commands::RedisCmd;
            if let Act::Redis {
                cmd: RedisCmd::AcquireFenced { value, .. } | RedisCmd::SetNx { value, .. },
                round: Some(r),
                ..
            } = &c.act
            {
                values.entry(*r).or_default().insert(value.clone());
            }
        }
        assert!(values.len() >= 4, "{name}: {values:?}");
        let all: std::collections::BTreeSet<&String> = values.values().flatten().collect();
        assert!(values.values().all(|v| v.len() == 1), "{name}: {values:?}");
        assert_eq!(
            all.len(),
            values.len(),
            "{name}: two rounds share a value: {values:?}"
        );
    }
}

#[test]
fn a_slow_instance_past_the_timeout_does_not_vote() {
    let mut s = empty_redlock();
    s.clients[0].events = vec![Event::Acquire { at_ms: 0 }];
    let r = settings(&mut s);
    r.timeout_ms = 5;
    r.instances[0].latency_ms = 3; // 6 ms round trip: too late
    r.instances[1].latency_ms = 3;
    r.instances[2].latency_ms = 3;
    let trace = run(&s);
    let a = &trace.acquisitions[0];
    assert_eq!(a.votes, 2);
    assert!(!a.ok);
    assert_eq!(a.reason, Some(Failure::NoMajority));
    assert_eq!(
        failure_text(a, trace.instances.len()).as_deref(),
        Some("only 2 of 5 instances agreed, 3 needed")
    );
    // The instances did grant the slow requests; the failed client releases them.
    assert_eq!(trace.leases.len(), 5);
    assert!(trace.leases.iter().all(|l| l.end_ms < 60));
}

#[test]
fn retries_follow_the_seed() {
    let mut s = preset("redlock-happy").unwrap();
    s.clients[1].events = vec![Event::Acquire { at_ms: 20 }];
    settings(&mut s).retries = 3;
    s.lock.ttl_ms = 400; // A holds throughout, so every try of B fails
    s.seed = 42;
    let a = run(&s);
    let b = run(&s);
    assert_eq!(a, b);
    let tries: Vec<u32> = a
        .acquisitions
        .iter()
        .filter(|x| a.clients[x.client] == "B")
        .map(|x| x.attempt)
        .collect();
    assert_eq!(tries, vec![1, 2, 3, 4]);
    s.seed = 7;
    let c = run(&s);
    let starts = |t: &Trace| -> Vec<u64> {
        t.acquisitions
            .iter()
            .filter(|x| t.clients[x.client] == "B")
            .map(|x| x.start_ms)
            .collect()
    };
    assert_ne!(
        starts(&a),
        starts(&c),
        "a different seed draws different delays"
    );
}

#[test]
fn redlock_presets() {
    expect(
        &run(&preset("redlock-happy").unwrap()),
        true,
        &[
            "A@10: acquired 5/5 in 10 ms, valid 48 ms",
            "B@30: not acquired: only 0 of 5 instances agreed, 3 needed",
            "A@40: accepted, balance 90",
        ],
    );
    expect(
        &run(&preset("redlock-one-down").unwrap()),
        true,
        &["A@13: acquired 4/5 in 13 ms, valid 45 ms"],
    );
    let jump = run(&preset("redlock-clock-jump").unwrap());
    expect(
        &jump,
        false,
        &[
            "A@16: acquired 3/5 in 16 ms, valid 42 ms",
            "B@30: acquired 3/5 in 10 ms, valid 48 ms",
            "A@40: accepted, balance 80",
        ],
    );
    assert_eq!(jump.verdict.violations[0].kind, ViolationKind::TwoHolders);
    expect(
        &run(&preset("redlock-monotonic").unwrap()),
        true,
        &["B@30: not acquired: only 2 of 5 instances agreed, 3 needed"],
    );
    expect(
        &run(&preset("redlock-slew").unwrap()),
        true,
        &["B@30: not acquired: only 2 of 5 instances agreed, 3 needed"],
    );
    let restart = run(&preset("redlock-restart").unwrap());
    expect(
        &restart,
        false,
        &["B@40: acquired 3/5 in 10 ms, valid 48 ms"],
    );
    assert!(restart
        .verdict
        .violations
        .iter()
        .any(|v| v.kind == ViolationKind::TwoHolders));
    expect(
        &run(&preset("redlock-delayed-restart").unwrap()),
        true,
        &["B@43: not acquired: only 2 of 5 instances agreed, 3 needed"],
    );
    expect(
        &run(&preset("redlock-gc-during-acquire").unwrap()),
        true,
        &[
            "A@71: not acquired: 71 ms spent, not below the 60 ms TTL",
            "B@67: acquired 5/5 in 2 ms, valid 56 ms",
        ],
    );
    expect(
        &run(&preset("redlock-order-unfenced").unwrap()),
        false,
        &["B@75: accepted, balance 90", "A@80: accepted, balance 80"],
    );
    expect(
        &run(&preset("redlock-order-fenced").unwrap()),
        true,
        &["A@80: rejected stale_fence: 33 ≤ 34"],
    );
    let backwards = run(&preset("redlock-fence-backwards").unwrap());
    expect(
        &backwards,
        true,
        &[
            "A@10: acquired 5/5 in 10 ms, valid 48 ms, fence 33",
            "B@96: acquired 3/5 in 16 ms, valid 42 ms, fence 1",
            "B@110: rejected stale_fence: 1 ≤ 33",
        ],
    );
    assert!(
        !backwards.verdict.liveness.is_empty(),
        "B's write is refused"
    );
    let cas = run(&preset("redlock-cas").unwrap());
    expect(&cas, true, &["B@75: accepted, balance 90"]);
    assert!(lines(&cas)
        .iter()
        .any(|l| l.starts_with("A@80: rejected stale_value")));
}

#[test]
fn the_clock_jump_preset_rebuilt_by_hand_from_an_empty_scenario() {
    let mut s = empty_redlock();
    s.clients[0].events = vec![
        Event::Acquire { at_ms: 0 },
        Event::Debit {
            at_ms: 40,
            amount: 10,
            idempotency_key: None,
            delay_ms: 0,
        },
    ];
    s.clients[1].events = vec![
        Event::Acquire { at_ms: 20 },
        Event::Debit {
            at_ms: 35,
            amount: 10,
            idempotency_key: None,
            delay_ms: 0,
        },
    ];
    let safe = run(&s);
    assert!(safe.verdict.safe, "{:#?}", safe.verdict);
    let r = settings(&mut s);
    for i in [3, 4] {
        r.instances[i].events.push(InstanceEvent::Partition {
            at_ms: 0,
            duration_ms: 140,
            client: Some("A".into()),
        });
    }
    r.instances[2].events.push(InstanceEvent::ClockJump {
        at_ms: 15,
        by_ms: 60,
        over_ms: 0,
    });
    let unsafe_run = run(&s);
    assert!(!unsafe_run.verdict.safe);
    assert_eq!(
        unsafe_run.verdict.violations[0].text,
        "B held the lock from 30 to 58 ms while A's lock was still valid by its own clock, \
         though its majority was gone at 15 ms"
    );
}

#[test]
fn every_redlock_caption_names_its_assumption() {
    for id in [
        "redlock-happy",
        "redlock-one-down",
        "redlock-clock-jump",
        "redlock-monotonic",
        "redlock-slew",
        "redlock-restart",
        "redlock-delayed-restart",
        "redlock-gc-during-acquire",
        "redlock-order-unfenced",
        "redlock-order-fenced",
        "redlock-cas",
        "redlock-fence-backwards",
    ] {
        let s = preset(id).unwrap();
        let c = s.caption.to_lowercase();
        assert!(
            [
                "holds",
                "assum",
                "relies",
                "needs",
                "depends",
                "as long as",
                "keep"
            ]
            .iter()
            .any(|w| c.contains(w)),
            "{id}: caption states no condition: {c}"
        );
    }
}

/// The clock-jump preset over R3 alone: Redlock with one instance, whose majority is one.
fn one_instance_redlock() -> Scenario {
    let mut s = preset("redlock-clock-jump").unwrap();
    let r = settings(&mut s);
    r.instances = vec![r.instances[2].clone()];
    s
}

/// Where the run's first Redis command goes, as the Commands view names it.
fn redis_server(s: &Scenario, t: &Trace) -> String {
    let all = commands(s, t);
    let c = all.iter().find(|c| matches!(c.act, Act::Redis { .. }));
    server_name(t, c.expect("a Redis command"))
}

#[test]
fn redlock_over_one_instance_is_told_as_redlock() {
    let s = one_instance_redlock();
    let t = run(&s);
    assert_eq!(t.service, ServiceKind::Redlock);
    let told = t.narration.join("\n");
    assert!(
        told.contains("R3 expired A's key") && told.contains("before A's lock stops being valid"),
        "{told}"
    );
    assert_eq!(
        t.verdict.violations.first().map(|v| v.text.as_str()),
        Some(
            "B held the lock from 22 to 58 ms while A's lock was still valid by its own clock, \
             though its majority was gone at 15 ms"
        ),
        "{:#?}",
        t.verdict
    );
    assert_eq!(redis_server(&s, &t), "R3");
    // A single lock stays a single lock.
    let s = preset("gc-pause-unfenced").unwrap();
    let t = run(&s);
    assert_eq!(t.service, ServiceKind::Single);
    assert_eq!(redis_server(&s, &t), "redis");
    assert!(t.narration.iter().all(|l| !l.contains("majority")));
}

/// `redlock-restart` with the non-standard fence, and B asking again at 110 ms, once every
/// lease has run out: R3 comes back without its keys, the fence counter among them, as real
/// Redis does (`INCR` on a missing key answers 1). With persistence (AOF) the counter survives.
fn fenced_restart(persistent: bool) -> Trace {
    let mut s = preset("redlock-restart").expect("the preset");
    s.clients[1].events.push(Event::Acquire { at_ms: 110 });
    let r = settings(&mut s);
    r.fence = true;
    for e in &mut r.instances[2].events {
        if let InstanceEvent::Crash { persistent: p, .. } = e {
            *p = persistent;
        }
    }
    run(&s)
}

fn grants_on(t: &Trace, instance: usize) -> Vec<(String, Option<u64>)> {
    t.leases
        .iter()
        .filter(|l| l.instance == instance)
        .map(|l| (t.clients[l.holder].clone(), l.fence))
        .collect()
}

#[test]
fn a_restart_without_persistence_starts_the_fence_counter_again_from_one() {
    let t = fenced_restart(false);
    assert_eq!(
        grants_on(&t, 2)[..2],
        [("A".to_string(), Some(33)), ("B".to_string(), Some(1))]
    );
    // B's fence is the largest of R3 (1), R4 and R5 (33 each): A's own fence again.
    let fences: Vec<Option<u64>> = t
        .acquisitions
        .iter()
        .filter(|a| a.ok)
        .map(|a| a.fence)
        .collect();
    assert_eq!(fences[..2], [Some(33), Some(33)]);
    assert!(
        t.narration
            .iter()
            .any(|l| l.contains("fence 33, the same as an earlier grant got: the fence repeated")),
        "{:#?}",
        t.narration
    );
    assert_eq!(
        grants_on(&t, 2)[2..],
        [("B".to_string(), Some(2))],
        "the counter goes on from where the restart left it"
    );
    let kept = fenced_restart(true);
    assert_eq!(
        grants_on(&kept, 2),
        [("A".to_string(), Some(33)), ("B".to_string(), Some(34))],
        "with its keys R3 refuses B at 30 ms and keeps its counter"
    );
}
