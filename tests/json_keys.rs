//! One spelling across the JSON the core hands to JavaScript: every object key of every
//! preset's trace (and of the presets list the API returns, scenarios included) is camelCase,
//! at every depth, including inside a debit verdict. Native only: it walks serde's output.
#![cfg(not(target_arch = "wasm32"))]

use fencing_playground::sim::presets::presets;
use fencing_playground::sim::{run, Account, FenceRule};
use serde_json::Value;

fn camel(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase()) && chars.all(|c| c.is_ascii_alphanumeric())
}

/// Every key that is not camelCase, with the path that leads to it.
fn bad_keys(v: &Value, path: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                let at = format!("{path}.{k}");
                if !camel(k) {
                    out.push(at.clone());
                }
                bad_keys(x, &at, out);
            }
        }
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                bad_keys(x, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

#[track_caller]
fn check(what: &str, v: &Value) {
    let mut bad = Vec::new();
    bad_keys(v, what, &mut bad);
    assert!(bad.is_empty(), "keys that are not camelCase: {bad:?}");
}

#[test]
fn the_walker_finds_a_snake_case_key_at_any_depth() {
    let v = serde_json::json!({ "writes": [{ "verdict": { "last_fence": 3 } }], "okKey": 1 });
    let mut bad = Vec::new();
    bad_keys(&v, "t", &mut bad);
    assert_eq!(bad, ["t.writes[0].verdict.last_fence"]);
    assert!(camel("lastFence") && camel("ok") && !camel("LastFence") && !camel(""));
}

#[test]
fn every_preset_trace_is_camel_case() {
    let mut rejected = 0;
    for p in presets() {
        let trace = run(&p.scenario);
        rejected += trace
            .writes
            .iter()
            .filter(|w| w.verdict.as_ref().is_some_and(|v| !v.is_accepted()))
            .count();
        let v = serde_json::to_value(&trace).expect("a trace serializes");
        check(p.id, &v);
    }
    // The presets do reach the rejected verdicts whose keys once were snake_case.
    assert!(rejected > 0);
}

#[test]
fn the_presets_list_and_a_ledger_are_camel_case() {
    check(
        "presets",
        &serde_json::to_value(presets()).expect("serializes"),
    );
    let mut account = Account::new(100, FenceRule::Strict, true);
    account.debit(10, Some(34), Some("k"));
    account.debit(10, Some(33), None);
    account.debit(10, None, None);
    account.debit(10, Some(35), Some("k"));
    check(
        "ledger",
        &serde_json::to_value(account.ledger()).expect("serializes"),
    );
}
