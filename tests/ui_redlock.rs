//! The Redlock lanes in headless Chromium: every Redlock preset's outcome as the screen shows it
//! (verdict, a key step or attempt, an instance's clock or key), the collapsed "lock service"
//! lane, and instance events added, nudged, deleted and undone by hand. Each test mounts the
//! app into its own fixture element.
#![cfg(target_arch = "wasm32")]

use fencing_playground::sim::presets::preset;

use crate::common::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, KeyboardEvent, KeyboardEventInit, MouseEvent, MouseEventInit};

wasm_bindgen_test_configure!(run_in_browser);

fn key(target: &Element, key: &str, ctrl: bool) {
    let init = KeyboardEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_key(key);
    init.set_ctrl_key(ctrl);
    let e = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    target.dispatch_event(&e).unwrap();
}

async fn double_click(root: &Element, (x, y): (f64, f64)) {
    let init = MouseEventInit::new();
    init.set_bubbles(true);
    init.set_client_x(x.round() as i32);
    init.set_client_y(y.round() as i32);
    let e = MouseEvent::new_with_mouse_event_init_dict("dblclick", &init).unwrap();
    get(root, "timeline").dispatch_event(&e).unwrap();
    yew::scheduler::flush().await;
}

/// Preset, safe, and what must be on screen: (data-testid, text it contains).
type Case = (&'static str, bool, &'static [(&'static str, &'static str)]);

const PRESETS: &[Case] = &[
    (
        "redlock-happy",
        true,
        &[
            ("attempt-A-0", "✓ 5/5 in 10 ms · valid 48 ms"),
            (
                "step-B-0",
                "✗ not acquired: only 0 of 5 instances agreed, 3 needed",
            ),
            ("step-A-1", "✓ accepted, balance 90"),
        ],
    ),
    (
        "redlock-one-down",
        true,
        &[
            ("attempt-A-0", "✓ 4/5 in 13 ms · valid 45 ms"),
            ("clock-R3", "clock exact"),
        ],
    ),
    (
        "redlock-clock-jump",
        false,
        &[
            (
                "violations",
                "B held the lock from 30 to 58 ms while A's lock was still valid by its own clock",
            ),
            ("clock-R3", "clock +60 ms"),
            ("attempt-B-0", "✓ 3/5 in 10 ms · valid 48 ms"),
            ("stale-A-0", ""),
        ],
    ),
    (
        "redlock-monotonic",
        true,
        &[
            ("clock-R3", "monotonic"),
            ("attempt-B-0", "✗ 2/5 in 10 ms"),
            (
                "step-B-0",
                "not acquired: only 2 of 5 instances agreed, 3 needed",
            ),
        ],
    ),
    (
        "redlock-slew",
        true,
        &[
            ("clock-R3", "clock +27 ms"),
            (
                "step-B-0",
                "not acquired: only 2 of 5 instances agreed, 3 needed",
            ),
        ],
    ),
    (
        "redlock-restart",
        false,
        &[
            (
                "violations",
                "B held the lock from 40 to 58 ms while A's lock was still valid by its own clock",
            ),
            ("key-R3-0", "✗ forgotten"),
            ("attempt-B-0", "✓ 3/5 in 10 ms · valid 48 ms"),
        ],
    ),
    (
        "redlock-fence-backwards",
        true,
        &[
            ("attempt-B-0", "· fence 1"),
            ("step-B-1", "✗ rejected stale_fence: 1 ≤ 33"),
        ],
    ),
    (
        "redlock-delayed-restart",
        true,
        &[(
            "step-B-0",
            "not acquired: only 2 of 5 instances agreed, 3 needed",
        )],
    ),
    (
        "redlock-gc-during-acquire",
        true,
        &[
            (
                "attempt-A-0",
                "✗ 5/5 in 71 ms: 71 ms spent, not below the 60 ms TTL",
            ),
            ("attempt-B-0", "✓ 5/5 in 2 ms · valid 56 ms"),
        ],
    ),
    (
        "redlock-order-unfenced",
        false,
        &[
            ("step-A-2", "✓ accepted, balance 80"),
            (
                "violations",
                "after B's debit with no fence from a newer lease",
            ),
        ],
    ),
    (
        "redlock-order-fenced",
        true,
        &[
            ("step-A-2", "✗ rejected stale_fence: 33 ≤ 34"),
            ("attempt-B-0", "· fence 34"),
            ("key-R1-1", "B · fence 34"),
        ],
    ),
    (
        "redlock-cas",
        true,
        &[(
            "step-A-3",
            "✗ rejected stale_value: cdaf was replaced by 65f4",
        )],
    ),
];

#[wasm_bindgen_test]
async fn every_redlock_preset_shows_its_outcome_and_caption() {
    for &(id, safe, want) in PRESETS {
        let root = mounted_preset(id).await;
        let word = if safe { "✓ Safe" } else { "✗ Unsafe" };
        assert_eq!(text(&root, "verdict-word"), word, "{id}");
        let caption = preset(id).unwrap().caption;
        assert!(!caption.is_empty());
        assert_eq!(text(&root, "caption"), caption, "{id}");
        assert_eq!(count(&root, "[data-testid^=\"instance-R\"]"), 5, "{id}");
        for (testid, part) in want {
            let got = text(&root, testid);
            assert!(
                got.contains(part),
                "{id}: {testid} reads {got:?}, wanted {part:?}"
            );
        }
        root.remove();
    }
}

#[wasm_bindgen_test]
async fn a_single_redis_keeps_its_one_lock_lane() {
    let root = mounted_preset("gc-pause-fenced").await;
    assert!(find(&root, "lane-lock").is_some());
    assert_eq!(count(&root, "[data-testid^=\"instance-R\"]"), 0);
    assert_eq!(count(&root, "[data-testid^=\"attempt-\"]"), 0);
    assert_eq!(count(&root, "[data-testid=\"instance-palette\"]"), 0);
    assert_eq!(
        get(&root, "service")
            .dyn_into::<web_sys::HtmlSelectElement>()
            .unwrap()
            .value(),
        "0"
    );
    // Switching to Redlock over 3 instances gives three lanes; back to one lock lane.
    change(&root, "service", Some("3"), None).await;
    assert_eq!(count(&root, "[data-testid^=\"instance-R\"]"), 3);
    assert!(find(&root, "lane-lock").is_none());
    assert!(find(&root, "instance-palette").is_some());
    change(&root, "service", Some("0"), None).await;
    assert!(find(&root, "lane-lock").is_some());
    assert_eq!(count(&root, "[data-testid^=\"instance-R\"]"), 0);
}

#[wasm_bindgen_test]
async fn the_instances_collapse_into_one_lock_service_lane() {
    let root = mounted_preset("redlock-clock-jump").await;
    change(&root, "collapse", None, Some(true)).await;
    assert_eq!(count(&root, "[data-testid^=\"instance-R\"]"), 0);
    let a = get(&root, "majority-0").text_content().unwrap_or_default();
    assert!(
        a.contains("A held keys on 3 or more of 5 instances from 5 to 15 ms"),
        "{a}"
    );
    let b = get(&root, "majority-1").text_content().unwrap_or_default();
    assert!(b.contains("B holds a majority"), "{b}");
    // The verdict is the run's, whichever way the lanes are drawn.
    assert_eq!(text(&root, "verdict-word"), "✗ Unsafe");
    change(&root, "collapse", None, Some(false)).await;
    assert_eq!(count(&root, "[data-testid^=\"instance-R\"]"), 5);
}

#[wasm_bindgen_test]
async fn instance_events_are_added_edited_nudged_deleted_and_undone_by_hand() {
    let root = mounted_preset("redlock-happy").await;
    // The empty Redlock scenario is offered by the picker.
    change(&root, "preset", Some("redlock-empty"), None).await;
    assert_eq!(text(&root, "title"), "Blank: Redlock");
    assert_eq!(text(&root, "verdict-word"), "✓ Safe");
    // A double-click on R3's lane adds the default instance event there: a clock jump.
    let r3 = centre(&get(&root, "instance-R3"));
    double_click(&root, (x_of(&root, 15), r3.1)).await;
    let jump = get(&root, "iev-R3-0");
    assert_eq!(jump.get_attribute("data-at-ms").as_deref(), Some("15"));
    assert!(text(&root, "instance-R3").contains("clock jumps +60 ms"));
    assert!(text(&root, "inspector").contains("R3: clock jump"));
    // Keys move it like any other event.
    jump.dyn_ref::<web_sys::SvgElement>()
        .unwrap()
        .focus()
        .unwrap();
    key(&jump, "ArrowRight", false);
    yew::scheduler::flush().await;
    assert_eq!(
        get(&root, "iev-R3-0")
            .get_attribute("data-at-ms")
            .as_deref(),
        Some("16")
    );
    key(&get(&root, "iev-R3-0"), "ArrowDown", false);
    yew::scheduler::flush().await;
    assert!(find(&root, "iev-R3-0").is_none());
    assert!(find(&root, "iev-R4-0").is_some());
    key(&get(&root, "iev-R4-0"), "Delete", false);
    yew::scheduler::flush().await;
    assert_eq!(count(&root, "[data-iev]"), 0);
    key(&get(&root, "timeline"), "z", true);
    yew::scheduler::flush().await;
    assert!(find(&root, "iev-R4-0").is_some(), "undo brings it back");

    // The palette adds a partition to the chosen instance at the playhead (70 ms); the
    // inspector cuts it off from A only and the lane says so.
    change(&root, "instance-target", Some("4"), None).await;
    get(&root, "itool-partition")
        .dyn_into::<web_sys::HtmlElement>()
        .unwrap()
        .click();
    yew::scheduler::flush().await;
    let cut = get(&root, "iev-R5-0");
    assert_eq!(cut.get_attribute("data-at-ms").as_deref(), Some("70"));
    assert!(
        get(&root, "iev-R5-0-end")
            .get_attribute("aria-valuenow")
            .as_deref()
            == Some("110")
    );
    change(&root, "inspect-who", Some("A"), None).await;
    assert!(text(&root, "instance-R5").contains("cut off from A"));
    // A crash that keeps its keys, set in the inspector.
    change(&root, "instance-target", Some("0"), None).await;
    get(&root, "itool-crash")
        .dyn_into::<web_sys::HtmlElement>()
        .unwrap()
        .click();
    yew::scheduler::flush().await;
    assert!(text(&root, "instance-R1").contains("forgets keys"));
    change(&root, "inspect-keep", None, Some(true)).await;
    assert!(get(&root, "iev-R1-0")
        .get_attribute("aria-label")
        .unwrap_or_default()
        .contains("down 10 ms · keeps keys"));
    // A value the scenario refuses is refused in words and changes nothing.
    change(&root, "inspect-len", Some("20000000"), None).await;
    assert!(text(&root, "notice").contains("downMs"));
}

#[wasm_bindgen_test]
async fn an_instance_field_that_is_no_number_is_refused_beside_its_inspector() {
    let root = mounted_preset("redlock-empty").await;
    change(&root, "instance-target", Some("2"), None).await;
    get(&root, "itool-partition")
        .dyn_into::<web_sys::HtmlElement>()
        .unwrap()
        .click();
    yew::scheduler::flush().await;
    assert!(text(&root, "inspector").contains("R3: partition"));
    change(&root, "inspect-len", Some("-5"), None).await;
    // The refusal names the field and sits in the inspector's row, not on the hint's line.
    let notice = get(&root, "notice");
    assert!(
        notice
            .text_content()
            .unwrap_or_default()
            .starts_with("duration ms: expected a whole number from 0"),
        "{:?}",
        notice.text_content()
    );
    assert!(notice
        .parent_element()
        .is_some_and(|p| p.class_name().contains("fp-inspector-row")));
    assert_eq!(count(&root, "[data-testid=\"notice\"]"), 1);
    // The input shows the kept length again, and the lane is unchanged.
    assert_eq!(
        get(&root, "inspect-len")
            .dyn_into::<web_sys::HtmlInputElement>()
            .unwrap()
            .value(),
        "40"
    );
    assert_eq!(
        get(&root, "iev-R3-0-end")
            .get_attribute("aria-valuenow")
            .as_deref(),
        Some("110")
    );
}
