//! Malformed scenarios get a clear message with the field at fault, natively and in the
//! browser: wrong types, unknown event kinds, negative durations, huge values, missing fields.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use fencing_playground::sim::Scenario;

fn events(list: &str) -> String {
    format!(r#"{{"version":1,"clients":[{{"name":"A","events":[{list}]}}]}}"#)
}

#[test]
fn malformed_scenarios_name_the_field() {
    let cases: Vec<(String, &str)> = vec![
        ("{\"version\":".into(), "not valid JSON"),
        ("[1,2]".into(), "expected a JSON object"),
        ("{\"clients\":[]}".into(), "version: missing"),
        ("{\"version\":\"one\",\"clients\":[]}".into(), "version: expected a whole number"),
        (r#"{"version":1}"#.into(), "missing field `clients`"),
        (r#"{"version":1,"clients":[]}"#.into(), "clients: expected 1 to 12 clients, got 0"),
        (r#"{"version":1,"clients":[{"name":""}]}"#.into(), "clients[0].name: expected a non-empty name"),
        (r#"{"version":1,"clients":[{"name":7}]}"#.into(), "clients[0].name: expected text, got 7"),
        (events(r#"{"kind":"teleport","atMs":1}"#), "clients[0].events[0].kind: unknown variant `teleport`"),
        (events(r#"{"atMs":1}"#), "clients[0].events[0]: missing field `kind`"),
        (events(r#"{"kind":"pause","atMs":1,"durationMs":-5,"cause":"gc"}"#), "clients[0].events[0].durationMs: expected a whole number from 1 to 10000000 ms, got -5"),
        (events(r#"{"kind":"pause","atMs":1,"durationMs":0,"cause":"gc"}"#), "clients[0].events[0].durationMs: expected a whole number from 1 to 10000000 ms, got 0"),
        (events(r#"{"kind":"pause","atMs":1,"durationMs":5,"cause":"nap"}"#), "clients[0].events[0].cause: unknown variant `nap`, expected one of gc, sigstop, page_fault, network"),
        (events(r#"{"kind":"acquire","atMs":1e300}"#), "clients[0].events[0].atMs: expected a whole number ≥ 0, got 1e+300"),
        (events(r#"{"kind":"acquire","atMs":99999999999}"#), "clients[0].events[0].atMs: expected a whole number from 0 to 10000000 ms, got 99999999999"),
        (events(r#"{"kind":"debit","atMs":1,"amount":-10}"#), "clients[0].events[0].amount: expected a whole number from 0 to 1000000000, got -10"),
        (events(r#"{"kind":"debit","atMs":1}"#), "clients[0].events[0]: missing field `amount`"),
        (events(r#"{"kind":"debit","atMs":1,"amount":1.5}"#), "clients[0].events[0].amount: expected a whole number, got 1.5"),
        (events(r#"{"kind":"acquire","atMs":1,"colour":"red"}"#), "clients[0].events[0].colour: unknown field `colour`, expected one of `kind`, `atMs`"),
        (events(r#"{"kind":7,"atMs":1}"#), "clients[0].events[0].kind: expected one of acquire, debit, pause"),
        (events(r#""acquire""#), "clients[0].events[0]: expected an object with a kind, got text \"acquire\""),
        (events(r#"{"kind":"debit","atMs":1,"amount":2,"idempotencyKey":null}"#), "accepted"),
        (events(r#"{"kind":"debit","atMs":1,"amount":2,"idempotencyKey":5}"#), "clients[0].events[0].idempotencyKey: expected text, got 5"),
        (events(r#"{"kind":"release","atMs":1,"mode":"unlink"}"#), "clients[0].events[0].mode: unknown variant `unlink`, expected one of token_checked, bare_del"),
        (r#"{"version":1,"clients":{"name":"A"}}"#.into(), "clients: expected a list, got an object"),
        (r#"{"version":1,"clients":[{"name":"A","events":[]}],"lock":{"watchdog":"yes"}}"#.into(), "lock.watchdog: expected true or false, got text \"yes\""),
        (r#"{"version":1,"clients":[{"name":"A"}],"stepLimit":4294967296}"#.into(), "stepLimit: expected a whole number from 1 to 10000000, got 4294967296"),
        (r#"{"version":1,"clients":[{"name":"A"}],"colour":1}"#.into(), "colour: unknown field `colour`, expected one of `version`"),
        (r#"{"version":1,"clients":[{"name":"A","clock":{"jumps":[{"atMs":3}]}}]}"#.into(), "clients[0].clock.jumps[0]: missing field `byMs`"),
        (r#"{"version":1,"lock":{"redlock":{"instances":[{"name":"R1","events":[{"atMs":0}]}]}},"clients":[{"name":"A"}]}"#.into(), "lock.redlock.instances[0].events[0]: missing field `kind`"),
        (r#"{"version":1,"lock":{"ttlMs":0},"clients":[{"name":"A"}]}"#.into(), "lock.ttlMs: expected a whole number from 1 to 10000000 ms, got 0"),
        (r#"{"version":1,"storage":{"fenceRule":"maybe"},"clients":[{"name":"A"}]}"#.into(), "storage.fenceRule: unknown variant `maybe`"),
        (r#"{"version":1,"clients":[{"name":"A","clock":{"driftPpm":5000000}}]}"#.into(), "clients[0].clock.driftPpm: expected a whole number from -900000 to 1000000, got 5000000"),
        (r#"{"version":1,"lock":{"redlock":{"instances":[]}},"clients":[{"name":"A"}]}"#.into(), "lock.redlock.instances: expected 1 to 9 instances, got 0"),
        (r#"{"version":1,"lock":{"redlock":{"instances":[{"name":"R1","events":[{"kind":"partition","atMs":0,"durationMs":5,"client":"Z"}]}]}},"clients":[{"name":"A"}]}"#.into(), "lock.redlock.instances[0].events[0].client: no client is named \"Z\""),
        (r#"{"version":1,"lock":{"redlock":{"instances":[{"name":"R1","events":[{"kind":"crash","atMs":0,"downMs":-1}]}]}},"clients":[{"name":"A"}]}"#.into(), "lock.redlock.instances[0].events[0].downMs: expected a whole number from 0 to 10000000 ms, got -1"),
        (r#"{"version":2,"clients":[{"name":"A"}]}"#.into(), "version: this build reads versions up to 1, got 2"),
    ];
    for (json, want) in cases {
        let got = match Scenario::from_json(&json) {
            Ok(_) => "accepted".to_string(),
            Err(e) => e.to_string(),
        };
        assert!(got.starts_with(want), "{json}\n got: {got}\nwant: {want}");
    }
}

#[test]
fn a_huge_but_valid_scenario_is_bounded_by_its_step_limit() {
    let many: Vec<String> = (0..5_000)
        .map(|i| format!(r#"{{"kind":"acquire","atMs":{i}}}"#))
        .collect();
    let mut s = Scenario::from_json(&events(&many.join(","))).expect("valid");
    s.step_limit = 1_000;
    let trace = fencing_playground::sim::run(&s);
    assert!(trace.step_limit_hit);
    assert!(trace.steps.len() <= 1_000);
}

fn error_of(value: &serde_json::Value) -> String {
    match Scenario::from_json(&value.to_string()) {
        Ok(_) => "accepted".to_string(),
        Err(e) => e.to_string(),
    }
}

fn with_events(events: Vec<serde_json::Value>) -> serde_json::Value {
    json!({"version": 1, "clients": [{"name": "A", "events": events}]})
}

fn redlock(instances: usize, retries: u64, clients: Vec<serde_json::Value>) -> serde_json::Value {
    let instances: Vec<_> = (0..instances)
        .map(|i| json!({"name": format!("R{i}")}))
        .collect();
    json!({"version": 1, "lock": {"redlock": {"instances": instances, "retries": retries}},
           "clients": clients})
}

use serde_json::json;

#[test]
fn messages_state_the_documented_range() {
    let cases = [
        (
            json!({"version": 1, "clients": [{"name": "A"}], "stepLimit": 8_589_934_592u64}),
            "stepLimit: expected a whole number from 1 to 10000000, got 8589934592",
        ),
        (
            json!({"version": 1, "clients": [{"name": "A"}], "stepLimit": 0}),
            "stepLimit: expected a whole number from 1 to 10000000, got 0",
        ),
        (
            redlock(1, 8_589_934_592, vec![json!({"name": "A"})]),
            "lock.redlock.retries: expected a whole number from 0 to 20, got 8589934592",
        ),
        (
            redlock(1, 21, vec![json!({"name": "A"})]),
            "lock.redlock.retries: expected a whole number from 0 to 20, got 21",
        ),
        (
            json!({"version": 1, "clients": [{"name": "A"}], "lock": {"redlock": {"instances": [{"name": "R"}], "driftFactorPpm": -1}}}),
            "lock.redlock.driftFactorPpm: expected a whole number from 0 to 500000, got -1",
        ),
        (
            json!({"version": 1, "clients": [{"name": "A"}], "storage": {"balance": -1_000_000_000_001i64}}),
            "storage.balance: expected a whole number from -1000000000000 to 1000000000000, got -1000000000001",
        ),
        (
            json!({"version": 1, "clients": [{"name": "A", "clock": {"offsetMs": 10_000_001}}]}),
            "clients[0].clock.offsetMs: expected a whole number from -10000000 to 10000000 ms, got 10000001",
        ),
    ];
    for (scenario, want) in cases {
        assert_eq!(error_of(&scenario), want);
    }
}

#[test]
fn every_list_counts_toward_the_caps() {
    // A 10 000-event scenario is accepted; one more event anywhere is refused.
    let debits = |n: usize| -> Vec<serde_json::Value> {
        std::iter::once(json!({"kind": "acquire", "atMs": 0}))
            .chain((1..n).map(|i| json!({"kind": "debit", "atMs": i % 5_000, "amount": 1})))
            .collect()
    };
    assert_eq!(error_of(&with_events(debits(10_000))), "accepted");
    assert_eq!(
        error_of(&with_events(debits(10_001))),
        "clients[0].events: expected at most 10000 events, got 10001"
    );
    // Client events and instance events count together, across instances.
    let mut s = redlock(3, 0, vec![json!({"name": "A", "events": debits(9_000)})]);
    s["lock"]["redlock"]["instances"][2]["events"] = (0..1_001)
        .map(|i| json!({"kind": "crash", "atMs": i, "downMs": 1}))
        .collect();
    assert_eq!(
        error_of(&s),
        "clients: expected at most 10000 events in all (client events and instance events \
         together), got 10001 (9000 + 1001)"
    );
    // Clock jumps, in any clock's list or as events, have their own total.
    let jumps = |n: usize| -> Vec<serde_json::Value> {
        (0..n).map(|i| json!({"atMs": i, "byMs": 1})).collect()
    };
    let mut s = with_events(vec![json!({"kind": "clock_jump", "atMs": 1, "byMs": 1})]);
    s["lock"] = json!({"clock": {"jumps": jumps(500)}});
    s["clients"][0]["clock"] = json!({"jumps": jumps(499)});
    assert_eq!(error_of(&s), "accepted");
    s["clients"][0]["clock"] = json!({"jumps": jumps(500)});
    assert_eq!(
        error_of(&s),
        "clients: expected at most 1000 clock jumps in all (every clock's jumps and every \
         clock_jump event), got 1001"
    );
    // A long list of jumps is refused before a single one is read.
    s["clients"][0]["clock"] = json!({"jumps": jumps(20_000)});
    assert_eq!(
        error_of(&s),
        "clients[0].clock.jumps: expected at most 1000 clock jumps, got 20000"
    );
}

#[test]
fn runs_that_would_take_too_long_are_refused_with_the_limit() {
    // A watchdog renewing every millisecond for 10 000 seconds.
    let watchdog = json!({"version": 1, "endMs": 10_000_000, "lock": {"ttlMs": 2, "watchdog": true},
        "clients": [{"name": "A", "events": [{"kind": "acquire", "atMs": 0}]}]});
    let got = error_of(&watchdog);
    assert!(
        got.starts_with("a run could need 30000009 engine steps (3 for the clients' events, 30000006 for watchdog renewals, 0 for instance events); at most 100000 are allowed"),
        "{got}"
    );
    // Twelve clients retrying Redlock rounds over nine instances.
    let clients = |acquires: usize| -> Vec<serde_json::Value> {
        (0..12)
            .map(|c| {
                let events: Vec<_> = (0..acquires)
                    .map(|i| json!({"kind": "acquire", "atMs": i * 10}))
                    .collect();
                json!({"name": format!("C{c}"), "events": events})
            })
            .collect()
    };
    let got = error_of(&redlock(9, 20, clients(1_000)));
    assert_eq!(
        got,
        "clients: expected at most 10000 events in all (client events and instance events \
         together), got 12000 (12000 + 0)"
    );
    let got = error_of(&redlock(9, 20, clients(10)));
    assert!(
        got.starts_with("a run could need 141360 engine steps"),
        "{got}"
    );
    assert_eq!(error_of(&redlock(9, 20, clients(7))), "accepted");
    // A longer TTL brings the same watchdog within bounds.
    let mut slow = watchdog.clone();
    slow["lock"]["ttlMs"] = json!(1_000);
    assert_eq!(error_of(&slow), "accepted");
}

#[test]
fn every_preset_is_well_inside_the_caps() {
    for p in fencing_playground::sim::presets::presets() {
        let w = fencing_playground::sim::scenario::work(&p.scenario).total();
        assert!(
            w <= fencing_playground::sim::scenario::MAX_WORK / 10,
            "{}: {w}",
            p.id
        );
        assert_eq!(Scenario::from_json(&p.scenario.to_json()), Ok(p.scenario));
    }
}

#[test]
fn invisible_characters_in_names_are_shown_escaped() {
    let cases = [
        (
            json!({"version": 1, "clients": [{"name": "A", "events": [{"kind": "acquire", "atMs\u{200b}": 1}]}]}),
            "clients[0].events[0].atMs\\u{200b}: unknown field `atMs\\u{200b}`, expected one of `kind`, `atMs`",
        ),
        (
            json!({"version": 1, "clients": [{"name": "A"}], "lock": {"ttlMs\u{feff}": 5}}),
            "lock.ttlMs\\u{feff}: unknown field `ttlMs\\u{feff}`",
        ),
        (
            with_events(vec![json!({"kind": "acquire\u{200d}", "atMs": 1})]),
            "clients[0].events[0].kind: unknown variant `acquire\\u{200d}`",
        ),
        (
            json!({"version": 1, "clients": [{"name": "A", "tab\there": 1}]}),
            "clients[0].tab\\u{9}here: unknown field `tab\\u{9}here`",
        ),
    ];
    for (scenario, want) in cases {
        let got = error_of(&scenario);
        assert!(got.starts_with(want), "\n got: {got}\nwant: {want}");
    }
}
