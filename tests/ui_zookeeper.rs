//! The ZooKeeper lane in headless Chromium: each ZooKeeper preset's verdict and caption as the
//! screen shows them, the lane's holdings (node name and fence), what ended them, the sessions
//! with their pings and expiries, the waits, the partition with SUSPENDED and LOST, the parent's
//! marks; ZooKeeper's settings with a bad tick refused by name; and the service picker
//! switching a Redis scenario to ZooKeeper and back. Each test mounts the app into its own
//! fixture element.
#![cfg(target_arch = "wasm32")]

use fencing_playground::sim::presets::preset;
use fencing_playground::sim::run;

use crate::common::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn title_of(root: &web_sys::Element, selector: &str) -> String {
    root.query_selector(&format!("{selector} title"))
        .ok()
        .flatten()
        .and_then(|t| t.text_content())
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn every_zookeeper_preset_shows_the_verdict_the_simulation_computes() {
    for id in [
        "zk-pause-unfenced",
        "zk-pause-czxid",
        "zk-parent-sequence",
        "zk-parent-czxid",
        "zk-suspended-ignored",
        "zk-suspended-stops",
    ] {
        let s = preset(id).expect("the preset");
        let safe = run(&s).verdict.safe;
        let root = mounted_preset(id).await;
        let word = if safe { "✓ Safe" } else { "✗ Unsafe" };
        assert_eq!(text(&root, "verdict-word"), word, "{id}");
        assert_eq!(text(&root, "caption"), s.caption, "{id}");
        assert!(
            find(&root, "lane-zookeeper").is_some(),
            "{id}: no ZooKeeper lane"
        );
        assert!(find(&root, "lane-lock").is_none(), "{id}: a Redis lane");
        assert!(text(&root, "lease-0").contains("lock-0000000000"), "{id}");
        assert!(find(&root, "zk-options").is_some(), "{id}: no settings");
        assert!(
            find(&root, "watchdog").is_none(),
            "{id}: a watchdog setting"
        );
        assert_eq!(
            count(
                &root,
                "[data-testid=\"palette\"] [data-testid=\"tool-renew\"]"
            ),
            0,
            "{id}: a renew button"
        );
        root.remove();
    }
}

#[wasm_bindgen_test]
async fn the_lane_labels_each_holding_with_its_node_and_fence() {
    let root = mounted_preset("zk-pause-czxid").await;
    assert!(
        text(&root, "lease-0").contains("lock-0000000000 · czxid 0x100000022"),
        "{}",
        text(&root, "lease-0")
    );
    // B's bar is too short for its label: the title still names the node and its czxid.
    assert!(
        title_of(&root, "[data-testid=\"lease-1\"]")
            .starts_with("B holds the lock with /lock/lock-0000000001 (czxid 0x100000024"),
        "{}",
        text(&root, "lease-1")
    );
    assert!(text(&root, "lease-0").contains("session expired"));
    assert_eq!(count(&root, "[data-testid=\"zk-session\"]"), 2);
    assert!(count(&root, "[data-testid=\"zk-session\"] .ping") >= 3);
    assert!(count(&root, "[data-testid=\"zk-expired\"]") >= 1);
    assert_eq!(
        title_of(&root, "[data-testid=\"zk-wait\"]"),
        "B's lock-0000000001 waits behind a lower node from 20 to 45 ms, then its node was lowest: the lock"
    );
    root.remove();

    let root = mounted_preset("zk-parent-sequence").await;
    assert!(
        text(&root, "lease-1").contains(" · seq "),
        "{}",
        text(&root, "lease-1")
    );
    assert_eq!(count(&root, "[data-testid=\"zk-parent\"]"), 2);
    assert!(text(&root, "lane-zookeeper").contains("/lock removed"));
    root.remove();

    let root = mounted_preset("zk-suspended-ignored").await;
    assert!(
        text(&root, "lease-0").contains("no fence"),
        "{}",
        text(&root, "lease-0")
    );
    assert_eq!(count(&root, "[data-testid=\"zk-partition\"]"), 1);
    assert!(title_of(&root, "[data-testid=\"zk-partition\"]")
        .starts_with("A cut off from the ensemble from 12 to 62 ms"));
    let suspended = get(&root, "zk-suspended");
    assert!(
        suspended
            .get_attribute("aria-label")
            .unwrap_or_default()
            .starts_with("A's client says SUSPENDED"),
        "{:?}",
        suspended.get_attribute("aria-label")
    );
    assert!(find(&root, "zk-lost").is_some());
    root.remove();
}

#[wasm_bindgen_test]
async fn the_settings_edit_the_ensemble_and_a_bad_tick_is_named() {
    let root = mounted_preset("zk-suspended-ignored").await;
    assert_eq!(text(&root, "verdict-word"), "✗ Unsafe");
    change(&root, "zk-on-suspended", Some("stop_writing"), None).await;
    assert_eq!(text(&root, "verdict-word"), "✓ Safe");
    change(&root, "zk-tick", Some("0"), None).await;
    assert!(
        text(&root, "notice").contains("tickTime ms"),
        "{}",
        text(&root, "notice")
    );
    assert_eq!(text(&root, "verdict-word"), "✓ Safe");
    root.remove();

    let root = mounted_preset("zk-parent-czxid").await;
    assert_eq!(text(&root, "verdict-word"), "✓ Safe");
    change(&root, "zk-fence", Some("sequence"), None).await;
    assert_eq!(text(&root, "verdict-word"), "✗ Unsafe");
    root.remove();
}

#[wasm_bindgen_test]
async fn the_picker_switches_a_redis_scenario_to_zookeeper_and_back() {
    let root = mounted_preset("gc-pause-fenced").await;
    change(&root, "service", Some("zookeeper"), None).await;
    assert!(
        find(&root, "lane-zookeeper").is_some(),
        "no ZooKeeper lane after the switch"
    );
    assert!(find(&root, "zk-options").is_some());
    assert!(find(&root, "watchdog").is_none());
    assert!(find(&root, "ttl").is_some(), "the session timeout");
    change(&root, "service", Some("0"), None).await;
    assert!(find(&root, "lane-lock").is_some());
    assert!(find(&root, "lane-zookeeper").is_none());
    assert!(find(&root, "watchdog").is_some());
    root.remove();
}
