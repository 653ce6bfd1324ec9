//! The PostgreSQL lane in headless Chromium: each advisory preset's verdict and caption as the
//! screen shows them, the lane's holdings (no fence), what ended them, the sessions, waits and
//! failovers, and the service picker switching a Redis scenario to an advisory lock and back.
//! Each test mounts the app into its own fixture element.
#![cfg(target_arch = "wasm32")]

use fencing_playground::sim::presets::preset;
use fencing_playground::sim::run;

use crate::common::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn every_advisory_preset_shows_the_verdict_the_simulation_computes() {
    for id in [
        "advisory-paused-holder",
        "advisory-idle-timeout",
        "advisory-in-transaction",
        "advisory-failover",
        "advisory-killed-holder",
    ] {
        let s = preset(id).expect("the preset");
        let safe = run(&s).verdict.safe;
        let root = mounted_preset(id).await;
        let word = if safe { "✓ Safe" } else { "✗ Unsafe" };
        assert_eq!(text(&root, "verdict-word"), word, "{id}");
        assert_eq!(text(&root, "caption"), s.caption, "{id}");
        assert!(
            find(&root, "lane-advisory").is_some(),
            "{id}: no PostgreSQL lane"
        );
        assert!(find(&root, "lane-lock").is_none(), "{id}: a Redis lane");
        assert!(text(&root, "lease-0").contains("no fence"), "{id}");
        assert!(find(&root, "ttl").is_none(), "{id}: a TTL setting");
        root.remove();
    }
}

#[wasm_bindgen_test]
async fn the_lane_draws_the_failover_and_what_ended_each_holding() {
    let root = mounted_preset("advisory-failover").await;
    assert_eq!(count(&root, "[data-testid=\"pg-failover\"]"), 1);
    assert!(
        text(&root, "lease-0").contains("lost in the failover"),
        "{}",
        text(&root, "lease-0")
    );
    assert_eq!(count(&root, "[data-testid=\"pg-session\"]"), 2);
    root.remove();

    let root = mounted_preset("advisory-idle-timeout").await;
    assert!(
        text(&root, "lease-0").contains("idle_session_timeout"),
        "{}",
        text(&root, "lease-0")
    );
    root.remove();

    let root = mounted_preset("advisory-paused-holder").await;
    let wait = root
        .query_selector("[data-testid=\"pg-wait\"] title")
        .ok()
        .flatten()
        .and_then(|t| t.text_content())
        .unwrap_or_default();
    assert_eq!(
        wait,
        "B's lock call waits behind the holder from 20 to 75 ms, then got the lock"
    );
    root.remove();
}

#[wasm_bindgen_test]
async fn the_picker_switches_a_redis_scenario_to_an_advisory_lock_and_back() {
    let root = mounted_preset("gc-pause-fenced").await;
    change(&root, "service", Some("advisory"), None).await;
    assert!(
        find(&root, "lane-advisory").is_some(),
        "no PostgreSQL lane after the switch"
    );
    assert!(find(&root, "advisory-options").is_some());
    assert!(find(&root, "watchdog").is_none());
    change(&root, "service", Some("0"), None).await;
    assert!(find(&root, "lane-lock").is_some());
    assert!(find(&root, "lane-advisory").is_none());
    root.remove();
}
