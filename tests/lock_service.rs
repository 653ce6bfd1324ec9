//! The lock service is one value (`LockService`): a scenario with two services cannot be held,
//! so the reader refuses a `lock` that names two, at the later one's key with the words the
//! checks have always used; and the JSON format is the one every link and saved case has:
//! each preset's service under its own key, every saved lab case written back byte for byte.
//! What each service says of the page's controls (`LockService::offer`) agrees with the reader.
//! Native only: it reads `lab/corpus/`.
#![cfg(not(target_arch = "wasm32"))]

use fencing_playground::sim::presets::presets;
use fencing_playground::sim::scenario::{Control, LockService, Offer};
use fencing_playground::sim::Scenario;
use serde_json::{json, Value};
use std::path::PathBuf;

const SERVICES: [&str; 5] = ["redlock", "etcd", "advisory", "zookeeper", "lease"];

/// Each service's smallest settings, as a link would carry them.
fn settings(key: &str) -> Value {
    match key {
        "redlock" => json!({ "instances": [{ "name": "R1" }] }),
        "etcd" => json!({ "members": [{ "name": "n1" }] }),
        _ => json!({}),
    }
}

/// A scenario whose `lock` names these services, in this order of the text.
fn with_services(keys: &[&str]) -> String {
    let mut lock = serde_json::Map::new();
    lock.insert("fencing".into(), false.into());
    for k in keys {
        lock.insert((*k).into(), settings(k));
    }
    json!({ "version": 1, "lock": lock, "clients": [{ "name": "A" }] }).to_string()
}

#[test]
fn a_scenario_with_two_services_is_unrepresentable_after_reading() {
    let etcd = "a lock service is Redlock or etcd, not both: remove lock.redlock or lock.etcd";
    let advisory = "a lock service is one of Redlock, etcd or a PostgreSQL advisory lock: \
                    remove lock.redlock or lock.etcd";
    let zookeeper = "a lock service is one of Redlock, etcd, a PostgreSQL advisory lock or \
                     ZooKeeper: remove lock.redlock, lock.etcd or lock.advisory";
    let lease = "a lock service is one of Redlock, etcd, a PostgreSQL advisory lock, ZooKeeper \
                 or a database lease: remove lock.redlock, lock.etcd, lock.advisory or \
                 lock.zookeeper";
    // The refusal names the second service in the format's order, wherever the text puts it.
    let cases: &[(&[&str], &str, &str)] = &[
        (&["redlock", "etcd"], "lock.etcd", etcd),
        (&["etcd", "redlock"], "lock.etcd", etcd),
        (&["redlock", "advisory"], "lock.advisory", advisory),
        (&["etcd", "advisory"], "lock.advisory", advisory),
        (&["redlock", "zookeeper"], "lock.zookeeper", zookeeper),
        (&["zookeeper", "etcd"], "lock.zookeeper", zookeeper),
        (&["advisory", "zookeeper"], "lock.zookeeper", zookeeper),
        (
            &["zookeeper", "advisory", "etcd"],
            "lock.advisory",
            advisory,
        ),
        (&["lease", "redlock"], "lock.lease", lease),
        (&["zookeeper", "lease"], "lock.lease", lease),
        (&SERVICES, "lock.etcd", etcd),
    ];
    for (keys, field, message) in cases {
        let text = with_services(keys);
        let err = Scenario::from_json(&text).expect_err("two services");
        assert_eq!(
            (err.path.as_str(), err.message.as_str()),
            (*field, *message),
            "{keys:?}"
        );
    }
    // Each one alone reads, as that service and no other.
    for key in SERVICES {
        let s = Scenario::from_json(&with_services(&[key])).expect("one service");
        assert_eq!(s.lock.service.key(), Some(key));
    }
    let redis = Scenario::from_json(&with_services(&[])).expect("no service");
    assert_eq!(redis.lock.service, LockService::Redis);
    // A `null` service key is no service, as before.
    let null = r#"{"version":1,"lock":{"redlock":null,"etcd":{"members":[{"name":"n1"}]}},"clients":[{"name":"A"}]}"#;
    let s = Scenario::from_json(null).expect("null is absent");
    assert_eq!(s.lock.service.key(), Some("etcd"));
}

/// Through the JSON door too: for every service and every control the page may offer, a link
/// whose scenario uses the control reads exactly when the service does not refuse it.
#[test]
fn a_link_uses_a_control_exactly_when_its_service_does_not_refuse_it() {
    for keys in [
        &[][..],
        &["redlock"],
        &["etcd"],
        &["advisory"],
        &["zookeeper"],
    ] {
        let plain = Scenario::from_json(&with_services(keys)).expect("one service");
        let base: Value = serde_json::from_str(&with_services(keys)).expect("JSON");
        let with = |change: &dyn Fn(&mut Value)| {
            let mut v = base.clone();
            v["clients"][0]["events"] = json!([{ "kind": "acquire", "atMs": 0 }]);
            change(&mut v);
            v
        };
        let event = |e: Value| {
            with(&|v| {
                if let Some(list) = v["clients"][0]["events"].as_array_mut() {
                    list.push(e.clone());
                }
            })
        };
        for c in Control::ALL {
            let uses = match c {
                Control::Ttl => vec![with(&|v| v["lock"]["ttlMs"] = 45.into())],
                Control::FirstFence => vec![with(&|v| v["lock"]["firstFence"] = 1.into())],
                Control::Watchdog => vec![
                    with(&|v| v["lock"]["watchdog"] = true.into()),
                    event(json!({ "kind": "watchdog", "atMs": 1 })),
                ],
                Control::Renew => vec![event(json!({ "kind": "renew", "atMs": 5 }))],
                Control::BareDel => vec![event(
                    json!({ "kind": "release", "atMs": 5, "mode": "bare_del" }),
                )],
                Control::CasValue => {
                    vec![with(&|v| {
                        v["storage"] = json!({ "fenceRule": "cas_value" })
                    })]
                }
            };
            for v in uses {
                let read = Scenario::from_json(&v.to_string());
                assert_eq!(
                    read.is_ok(),
                    plain.lock.service.offer(c) != Offer::Refused,
                    "{keys:?} {c:?}: {read:?}"
                );
            }
        }
    }
}

#[test]
fn every_preset_writes_its_service_under_its_own_key_and_reads_back() {
    for p in presets() {
        let text = p.scenario.to_json();
        let v: Value = serde_json::from_str(&text).expect("JSON");
        let named: Vec<&str> = SERVICES
            .into_iter()
            .filter(|k| v["lock"].get(*k).is_some())
            .collect();
        assert_eq!(
            named,
            p.scenario
                .lock
                .service
                .key()
                .into_iter()
                .collect::<Vec<_>>(),
            "{}",
            p.id
        );
        let back = Scenario::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        assert_eq!(back, p.scenario, "{}", p.id);
        assert_eq!(back.to_json(), text, "{}", p.id);
    }
}

#[test]
fn every_saved_lab_case_reads_and_writes_back_byte_for_byte() {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo test"))
        .join("lab/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("lab/corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() > 10, "only {} saved cases", files.len());
    for f in files {
        let text = std::fs::read_to_string(&f).expect("a saved case");
        let s = Scenario::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(s.to_json(), text.trim_end(), "{}", f.display());
    }
}
