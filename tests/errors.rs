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
        (events(r#"{"kind":"pause","atMs":1,"durationMs":-5,"cause":"gc"}"#), "clients[0].events[0].durationMs: expected a whole number ≥ 0, got -5"),
        (events(r#"{"kind":"pause","atMs":1,"durationMs":0,"cause":"gc"}"#), "clients[0].events[0].durationMs: expected a pause of at least 1 ms"),
        (events(r#"{"kind":"pause","atMs":1,"durationMs":5,"cause":"nap"}"#), "clients[0].events[0].cause: unknown variant `nap`, expected one of gc, sigstop, page_fault, network"),
        (events(r#"{"kind":"acquire","atMs":1e300}"#), "clients[0].events[0].atMs: expected a whole number ≥ 0, got 1e+300"),
        (events(r#"{"kind":"acquire","atMs":99999999999}"#), "clients[0].events[0].atMs: expected at most 10000000 ms, got 99999999999"),
        (events(r#"{"kind":"debit","atMs":1,"amount":-10}"#), "clients[0].events[0].amount: expected 0 to 1000000000, got -10"),
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
        (r#"{"version":1,"clients":[{"name":"A"}],"stepLimit":4294967296}"#.into(), "stepLimit: expected a whole number from 0 to 4294967295, got 4294967296"),
        (r#"{"version":1,"clients":[{"name":"A"}],"colour":1}"#.into(), "colour: unknown field `colour`, expected one of `version`"),
        (r#"{"version":1,"clients":[{"name":"A","clock":{"jumps":[{"atMs":3}]}}]}"#.into(), "clients[0].clock.jumps[0]: missing field `byMs`"),
        (r#"{"version":1,"lock":{"redlock":{"instances":[{"name":"R1","events":[{"atMs":0}]}]}},"clients":[{"name":"A"}]}"#.into(), "lock.redlock.instances[0].events[0]: missing field `kind`"),
        (r#"{"version":1,"lock":{"ttlMs":0},"clients":[{"name":"A"}]}"#.into(), "lock.ttlMs: expected 1 to 10000000 ms, got 0"),
        (r#"{"version":1,"storage":{"fenceRule":"maybe"},"clients":[{"name":"A"}]}"#.into(), "storage.fenceRule: unknown variant `maybe`"),
        (r#"{"version":1,"clients":[{"name":"A","clock":{"driftPpm":5000000}}]}"#.into(), "clients[0].clock.driftPpm: expected -900000 to 1000000"),
        (r#"{"version":1,"lock":{"redlock":{"instances":[]}},"clients":[{"name":"A"}]}"#.into(), "lock.redlock.instances: expected 1 to 9 instances, got 0"),
        (r#"{"version":1,"lock":{"redlock":{"instances":[{"name":"R1","events":[{"kind":"partition","atMs":0,"durationMs":5,"client":"Z"}]}]}},"clients":[{"name":"A"}]}"#.into(), "lock.redlock.instances[0].events[0].client: no client is named \"Z\""),
        (r#"{"version":1,"lock":{"redlock":{"instances":[{"name":"R1","events":[{"kind":"crash","atMs":0,"downMs":-1}]}]}},"clients":[{"name":"A"}]}"#.into(), "lock.redlock.instances[0].events[0].downMs: expected a whole number ≥ 0, got -1"),
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
