//! Lists are refused by their count before their entries are read: a list longer than its
//! limit, and lists that together pass a total (events, clock jumps), are refused with the
//! limit's message at the list's path, even when an entry past the limit is broken. An error
//! about that entry would mean every entry before it was read. How long the refusal of a
//! million entries takes is measured by `cargo run --release --example refusal`, never here.
#![cfg(not(target_arch = "wasm32"))]

use fencing_playground::sim::Scenario;

/// A scenario of `clients` clients, each with `entry` repeated `n` times in the list that
/// `open … close` wraps, the last entry of the first client replaced by `broken`.
fn scenario(
    clients: usize,
    open: &str,
    entry: &str,
    n: usize,
    broken: &str,
    close: &str,
) -> String {
    let list = |c: usize| {
        let mut items = vec![entry; n];
        if c == 0 {
            if let Some(last) = items.last_mut() {
                *last = broken;
            }
        }
        items.join(",")
    };
    let clients: Vec<String> = (0..clients)
        .map(|c| format!(r#"{{"name":"C{c}",{open}[{}]{close}}}"#, list(c)))
        .collect();
    format!(r#"{{"version":1,"clients":[{}]}}"#, clients.join(","))
}

/// Refused as text (counted as it is parsed) and as a parsed value (what a link and the JS
/// API's objects go through: `counts::check` before the reader).
#[track_caller]
fn refused(text: &str, path: &str, message: &str) {
    let value: serde_json::Value = serde_json::from_str(text).expect("JSON");
    for got in [Scenario::from_json(text), Scenario::from_value(value)] {
        match got {
            Ok(_) => panic!("accepted; expected {path}: {message}"),
            Err(e) => assert_eq!(
                (e.path.as_str(), e.message.as_str()),
                (path, message),
                "{e}"
            ),
        }
    }
}

const JUMPS: &str = r#""clock":{"jumps":"#;
const JUMP: &str = r#"{"atMs":1,"byMs":1}"#;
const BAD_JUMP: &str = r#"{"atMs":-1,"byMs":1}"#;
const EVENTS: &str = r#""events":"#;
const EVENT: &str = r#"{"kind":"acquire","atMs":1}"#;
const BAD_EVENT: &str = r#"{"kind":"teleport","atMs":1}"#;

#[test]
fn a_million_entries_in_one_list_are_refused_by_their_count() {
    refused(
        &scenario(1, JUMPS, JUMP, 1_000_000, BAD_JUMP, "}"),
        "clients[0].clock.jumps",
        "expected at most 1000 clock jumps, got 1000000",
    );
    refused(
        &scenario(1, EVENTS, EVENT, 1_000_000, BAD_EVENT, ""),
        "clients[0].events",
        "expected at most 10000 events, got 1000000",
    );
    let instances = format!(
        r#"{{"version":1,"lock":{{"redlock":{{"instances":[{}]}}}},"clients":[{{"name":"A"}}]}}"#,
        vec![r#"{"name":"R"}"#; 1_000_000].join(",")
    );
    refused(
        &instances,
        "lock.redlock.instances",
        "expected 1 to 9 instances, got 1000000",
    );
}

#[test]
fn lists_within_their_own_limit_are_refused_by_their_total_before_any_entry_is_read() {
    // 12 × 1000 events: each list is allowed, together they pass the 10 000.
    refused(
        &scenario(12, EVENTS, EVENT, 1_000, BAD_EVENT, ""),
        "clients",
        "expected at most 10000 events in all (client events and instance events together), \
         got 12000 (12000 + 0)",
    );
    // 12 × 100 clock jumps: together past the 1000.
    refused(
        &scenario(12, JUMPS, JUMP, 100, BAD_JUMP, "}"),
        "clients",
        "expected at most 1000 clock jumps in all (every clock's jumps and every clock_jump \
         event), got 1200",
    );
    // 1001 clock_jump events, fewer than 10 000 events: the jumps' total refuses them.
    refused(
        &scenario(
            1,
            EVENTS,
            r#"{"kind":"clock_jump","atMs":1,"byMs":1}"#,
            1_001,
            r#"{"kind":"clock_jump","atMs":1,"byMs":99999999999}"#,
            "",
        ),
        "clients",
        "expected at most 1000 clock jumps in all (every clock's jumps and every clock_jump \
         event), got 1001",
    );
}

#[test]
fn lists_at_their_limits_are_read() {
    let ok = |text: &str| {
        Scenario::from_json(text)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    assert_eq!(ok(&scenario(1, JUMPS, JUMP, 1_000, JUMP, "}")), Ok(()));
    assert_eq!(ok(&scenario(10, EVENTS, EVENT, 1_000, EVENT, "")), Ok(()));
    // Within every count, the broken entry is what is refused.
    assert_eq!(
        ok(&scenario(2, EVENTS, EVENT, 10, BAD_EVENT, "")),
        Err(
            "clients[0].events[9].kind: unknown variant `teleport`, expected one of acquire, \
             debit, pause, check_then_write, renew, watchdog, release, crash, clock_jump"
                .into()
        )
    );
}
