//! The etcd lane in headless Chromium: each etcd preset's verdict and caption as the screen
//! shows them, the lane's leaders, waits and revisions, and the service picker switching a
//! Redis scenario to etcd and back. Each test mounts the app into its own fixture element.
#![cfg(target_arch = "wasm32")]

use fencing_playground::sim::presets::preset;
use fencing_playground::sim::run;

use crate::common::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn every_etcd_preset_shows_the_verdict_the_simulation_computes() {
    for id in [
        "etcd-pause-unfenced",
        "etcd-pause-fenced",
        "etcd-34-expired-waiter",
        "etcd-35-expired-waiter",
        "etcd-failover",
        "etcd-stalled-keepalives",
        "etcd-create-guard",
    ] {
        let s = preset(id).expect("the preset");
        let safe = run(&s).verdict.safe;
        let root = mounted_preset(id).await;
        let word = if safe { "✓ Safe" } else { "✗ Unsafe" };
        assert_eq!(text(&root, "verdict-word"), word, "{id}");
        assert_eq!(text(&root, "caption"), s.caption, "{id}");
        assert!(find(&root, "lane-etcd").is_some(), "{id}: no etcd lane");
        assert!(find(&root, "lane-lock").is_none(), "{id}: a Redis lane");
        root.remove();
    }
}

#[wasm_bindgen_test]
async fn the_lane_draws_the_failover_the_waits_and_the_revisions() {
    let root = mounted_preset("etcd-failover").await;
    let lane = get(&root, "lane-etcd");
    assert!(lane.text_content().unwrap_or_default().contains("etcd 3.5"));
    assert_eq!(count(&root, "[data-testid=\"etcd-leader\"]"), 2);
    assert!(count(&root, "[data-testid=\"etcd-no-leader\"]") >= 1);
    assert_eq!(count(&root, "[data-testid=\"etcd-wait\"]"), 1);
    let wait = root
        .query_selector("[data-testid=\"etcd-wait\"] title")
        .ok()
        .flatten()
        .and_then(|t| t.text_content())
        .unwrap_or_default();
    assert_eq!(
        wait,
        "B waits with revision 34 from 50 to 85 ms, then locked"
    );
    assert!(
        text(&root, "lease-1").contains("B · rev 34"),
        "{}",
        text(&root, "lease-1")
    );
    assert!(count(&root, "[data-testid=\"etcd-revision\"]") >= 3);
    root.remove();
}

#[wasm_bindgen_test]
async fn the_picker_switches_a_redis_scenario_to_etcd_and_back() {
    let root = mounted_preset("gc-pause-fenced").await;
    assert!(find(&root, "lane-lock").is_some());
    change(&root, "service", Some("etcd-3.4"), None).await;
    assert!(
        find(&root, "lane-etcd").is_some(),
        "no etcd lane after the switch"
    );
    assert!(text(&root, "lane-etcd").contains("etcd 3.4"));
    change(&root, "service", Some("0"), None).await;
    assert!(find(&root, "lane-lock").is_some());
    assert!(find(&root, "lane-etcd").is_none());
    root.remove();
}
