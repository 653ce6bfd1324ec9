//! The inspectors in headless Chromium: a client event's fields edited, refused and undone,
//! and a Redlock instance switched to a monotonic clock. Each test mounts the app into its own
//! fixture element and reads back what the screen says.
#![cfg(target_arch = "wasm32")]

use fencing_playground::ui::MountOptions;

use crate::common::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, KeyboardEvent, KeyboardEventInit, PointerEvent, PointerEventInit};

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh, visible fixture of a fixed width, with a playground mounted in it.
async fn mounted(preset: Option<&str>) -> Element {
    mounted_with(preset, false).await
}

async fn mounted_with(preset: Option<&str>, readonly: bool) -> Element {
    fixture(MountOptions {
        preset: preset.map(str::to_string),
        readonly,
        ..Default::default()
    })
    .await
}

fn input_value(root: &Element, testid: &str) -> String {
    get(root, testid)
        .dyn_into::<web_sys::HtmlInputElement>()
        .unwrap()
        .value()
}

/// A press and release on an element without moving: selects it, as a click would.
async fn click_event(root: &Element, testid: &str) {
    let el = get(root, testid);
    let r = el.get_bounding_client_rect();
    for kind in ["pointerdown", "pointerup"] {
        let init = PointerEventInit::new();
        init.set_bubbles(true);
        init.set_cancelable(true);
        init.set_client_x((r.left() + r.width() / 2.0).round() as i32);
        init.set_client_y((r.top() + r.height() / 2.0).round() as i32);
        init.set_pointer_id(7);
        init.set_is_primary(true);
        init.set_button(0);
        let e = PointerEvent::new_with_event_init_dict(kind, &init).unwrap();
        el.dispatch_event(&e).unwrap();
        yew::scheduler::flush().await;
    }
}

fn ctrl_z(root: &Element) {
    let init = KeyboardEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_key("z");
    init.set_ctrl_key(true);
    let e = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    get(root, "timeline").dispatch_event(&e).unwrap();
}

#[wasm_bindgen_test]
async fn a_debit_amount_is_edited_refused_in_words_and_undone() {
    let root = mounted(Some("gc-pause-fenced")).await;
    assert!(
        find(&root, "client-inspector").is_none(),
        "nothing selected"
    );
    assert!(text(&root, "ghost-summary").contains("Without fencing: balance 80"));
    click_event(&root, "event-A-2").await;
    assert!(text(&root, "client-inspector").contains("A: debit at 2 ms"));
    assert_eq!(input_value(&root, "edit-amount"), "10");
    assert_eq!(input_value(&root, "edit-key"), "");
    assert_eq!(input_value(&root, "edit-delay"), "0");

    // 25 instead of 10: still stale, still rejected, but without fencing it would take 25.
    change(&root, "edit-amount", Some("25"), None).await;
    assert_eq!(input_value(&root, "edit-amount"), "25");
    assert_eq!(text(&root, "step-A-2"), "✗ rejected stale_fence: 33 ≤ 34");
    let ghost = text(&root, "ghost-summary");
    assert!(ghost.contains("Without fencing: balance 65"), "{ghost}");
    let write = text(&root, "ghost-write-A-2");
    assert!(write.contains("balance 65"), "{write}");
    assert!(find(&root, "notice").is_none());

    // A negative amount is refused in words naming the field, and the scenario keeps 25.
    change(&root, "edit-amount", Some("-3"), None).await;
    let notice = text(&root, "notice");
    assert!(
        notice.contains("amount: expected a whole number from 0 to 1000000000, got \"-3\""),
        "{notice}"
    );
    assert!(text(&root, "ghost-summary").contains("balance 65"));
    assert_eq!(
        input_value(&root, "edit-amount"),
        "25",
        "the input shows the kept value"
    );

    // Undo takes back the accepted edit; the event stays selected.
    ctrl_z(&root);
    yew::scheduler::flush().await;
    assert!(text(&root, "ghost-summary").contains("Without fencing: balance 80"));
    assert_eq!(input_value(&root, "edit-amount"), "10");
    assert!(find(&root, "notice").is_none());
}

#[wasm_bindgen_test]
async fn a_monotonic_clock_on_r3_makes_the_clock_jump_harmless() {
    let root = mounted(Some("redlock-clock-jump")).await;
    assert_eq!(text(&root, "verdict-word"), "✗ Unsafe");
    change(&root, "instance-target", Some("2"), None).await;
    assert!(!get(&root, "instance-monotonic")
        .dyn_into::<web_sys::HtmlInputElement>()
        .unwrap()
        .checked());
    change(&root, "instance-monotonic", None, Some(true)).await;
    assert_eq!(text(&root, "verdict-word"), "✓ Safe");
    assert!(text(&root, "clock-R3").contains("monotonic"));
    // A latency that is no number is refused, naming the instance and the field.
    change(&root, "instance-latency", Some("-2"), None).await;
    assert!(text(&root, "notice").contains("R3 latency ms: expected a whole number"));
    assert_eq!(text(&root, "verdict-word"), "✓ Safe");
    ctrl_z(&root);
    yew::scheduler::flush().await;
    assert_eq!(text(&root, "verdict-word"), "✗ Unsafe");
}

#[wasm_bindgen_test]
async fn a_read_only_view_has_no_inspector() {
    let root = mounted_with(None, true).await;
    click_event(&root, "event-A-2").await;
    assert!(find(&root, "client-inspector").is_none());
    assert!(find(&root, "edit-amount").is_none());
}
