//! The "Try it" line of each ZooKeeper preset: the edit it suggests, made, does what it says
//! (a button's preset tells the same story with the change made, and flips the verdict).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use fencing_playground::sim::presets::{hint_for, preset, HintAct};
use fencing_playground::sim::scenario::{OnSuspended, ZkFence};
use fencing_playground::sim::trace::{ServiceKind, Trace};
use fencing_playground::sim::{run, DebitVerdict, Event, Scenario};

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

fn words(id: &str) -> String {
    let h = hint_for(&load(id));
    format!("{}{}", h.act, h.watch)
}

/// The client's debits and how each ended, in the order they reached the storage.
fn verdicts(t: &Trace, client: usize) -> Vec<bool> {
    t.writes
        .iter()
        .filter(|w| w.client == client)
        .map(|w| matches!(w.verdict, Some(DebitVerdict::Accepted { .. })))
        .collect()
}

#[track_caller]
fn button_to(id: &str, label: &str, to: &'static str) {
    let h = hint_for(&load(id));
    let b = h.button.unwrap_or_else(|| panic!("{id}: no button"));
    assert_eq!((b.label, b.act), (label, HintAct::Preset(to)), "{id}");
    let (before, after) = (run(&load(id)), run(&load(to)));
    assert_eq!(
        load(id).clients,
        load(to).clients,
        "{id}: the same schedule"
    );
    assert!(
        !before.verdict.safe && after.verdict.safe,
        "{id} → {to}:\n{}\n--\n{}",
        lines(&before).join("\n"),
        lines(&after).join("\n")
    );
}

#[test]
fn each_zookeeper_hint_does_what_it_says() {
    // Unfenced, the button loads the czxid preset: A's late debit is refused.
    button_to("zk-pause-unfenced", "Turn fencing on", "zk-pause-czxid");
    let t = run(&load("zk-pause-czxid"));
    assert_eq!(verdicts(&t, 0), vec![false], "{}", lines(&t).join("\n"));

    // The czxid preset with a 100 ms session timeout: A's session outlives the pause, B waits
    // until A unlocks at 70 ms, and both debits are accepted in turn.
    assert!(words("zk-pause-czxid").contains("set the session timeout to 100 ms"));
    let mut s = load("zk-pause-czxid");
    s.lock.ttl_ms = 100;
    assert_eq!(s.validate(), Ok(()));
    let t = run(&s);
    assert_eq!(t.service, ServiceKind::Zookeeper);
    assert!(t.verdict.safe, "{}", lines(&t).join("\n"));
    assert_eq!(t.final_balance, 80, "{}", lines(&t).join("\n"));
    assert!(
        t.leases.iter().any(|l| l.holder == 1 && l.start_ms == 70),
        "{}",
        lines(&t).join("\n")
    );
    assert!(t.leases.iter().any(|l| l.holder == 0 && l.end_ms == 70));
    assert_eq!((verdicts(&t, 0), verdicts(&t, 1)), (vec![true], vec![true]));

    // The sequence as the fence: the button loads the czxid preset, which refuses A.
    button_to(
        "zk-parent-sequence",
        "Fence with the czxid",
        "zk-parent-czxid",
    );

    // The czxid preset with the sequence as the fence: A's older suffix beats B's 0.
    assert!(words("zk-parent-czxid").contains("set the fence to the sequence suffix"));
    let mut s = load("zk-parent-czxid");
    if let Some(z) = s.lock.zookeeper_mut() {
        z.fence = ZkFence::Sequence;
    }
    let t = run(&s);
    assert!(!t.verdict.safe, "{}", lines(&t).join("\n"));
    assert_eq!(t.final_balance, 80);
    let a = t.writes.iter().find(|w| w.client == 1).expect("A writes");
    let b = t.writes.iter().find(|w| w.client == 2).expect("B writes");
    assert_eq!(b.token, Some(0));
    assert!(a.token > b.token, "{:?} {:?}", a.token, b.token);
    assert!(
        a.arrived_ms > b.arrived_ms && matches!(a.verdict, Some(DebitVerdict::Accepted { .. }))
    );

    // Writing through SUSPENDED, told to stop: A's debit is held back, only B's is accepted.
    assert!(words("zk-suspended-ignored").contains("set \"on SUSPENDED\" to stop writing"));
    let mut s = load("zk-suspended-ignored");
    if let Some(z) = s.lock.zookeeper_mut() {
        z.on_suspended = OnSuspended::StopWriting;
    }
    let t = run(&s);
    assert!(t.verdict.safe, "{}", lines(&t).join("\n"));
    assert_eq!(t.final_balance, 90);
    assert!(verdicts(&t, 0).is_empty(), "{}", lines(&t).join("\n"));
    assert!(lines(&t).contains(&"A@48: write held back: the client is SUSPENDED".to_string()));

    // Stopping on SUSPENDED, with A's debit at 25 ms, before SUSPENDED at 32 ms: both accepted.
    assert!(words("zk-suspended-stops").contains("drag A's debit left of 32 ms"));
    let mut s = load("zk-suspended-stops");
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
    assert_eq!((verdicts(&t, 0), verdicts(&t, 1)), (vec![true], vec![true]));
    let suspended = t
        .zookeeper
        .iter()
        .flat_map(|z| z.states.iter())
        .find(|s| s.client == 0)
        .map(|s| s.start_ms);
    assert_eq!(suspended, Some(32));
}
