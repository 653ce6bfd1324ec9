//! Component tests of the timeline in headless Chromium: each mounts a playground into its own
//! fixture element, dispatches pointer, mouse and key events as a person would cause them, and
//! reads back what the screen says (verdict text, step badges, SVG attributes).
#![cfg(target_arch = "wasm32")]

use fencing_playground::ui::{mount, MountOptions};

use crate::common::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{
    Element, KeyboardEvent, KeyboardEventInit, MouseEvent, MouseEventInit, PointerEvent,
};
use web_sys::{PointerEventInit, SvgElement};

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh, visible fixture of a fixed width, with a playground mounted in it.
async fn mounted(options: MountOptions) -> Element {
    fixture(options).await
}

/// The GC pause story with fenced storage: the default page after its hint's one click.
fn fenced() -> MountOptions {
    MountOptions {
        preset: Some("gc-pause-fenced".into()),
        ..Default::default()
    }
}

fn pointer(target: &Element, kind: &str, (x, y): (f64, f64)) {
    let init = PointerEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_client_x(x.round() as i32);
    init.set_client_y(y.round() as i32);
    init.set_pointer_id(7);
    init.set_is_primary(true);
    init.set_button(0);
    let e = PointerEvent::new_with_event_init_dict(kind, &init).unwrap();
    target.dispatch_event(&e).unwrap();
}

fn mouse(target: &Element, kind: &str, (x, y): (f64, f64)) {
    let init = MouseEventInit::new();
    init.set_bubbles(true);
    init.set_client_x(x.round() as i32);
    init.set_client_y(y.round() as i32);
    let e = MouseEvent::new_with_mouse_event_init_dict(kind, &init).unwrap();
    target.dispatch_event(&e).unwrap();
}

fn key(target: &Element, key: &str, shift: bool, ctrl: bool) {
    let init = KeyboardEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_key(key);
    init.set_shift_key(shift);
    init.set_ctrl_key(ctrl);
    let e = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    target.dispatch_event(&e).unwrap();
}

/// Drags `handle` to the instant `ms`, through a few moves on the way, as a mouse would.
async fn drag_to(root: &Element, handle: &str, ms: u64) {
    let svg = get(root, "timeline");
    let el = get(root, handle);
    let from = centre(&el);
    pointer(&el, "pointerdown", from);
    yew::scheduler::flush().await;
    let to_x = x_of(root, ms);
    for i in 1..=4 {
        let x = from.0 + (to_x - from.0) * f64::from(i) / 4.0;
        // The pointer leaves the handle: the moves land on the SVG, as under pointer capture.
        pointer(&svg, "pointermove", (x, from.1 + 30.0));
        yew::scheduler::flush().await;
    }
    pointer(&svg, "pointerup", (to_x, from.1));
    yew::scheduler::flush().await;
}

fn pause_end_ms(root: &Element) -> String {
    get(root, "pause-A-1-end")
        .get_attribute("aria-valuenow")
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn the_default_page_is_unsafe_and_its_hint_turns_fencing_on() {
    let root = mounted(MountOptions::default()).await;
    assert_eq!(text(&root, "title"), "GC pause, no fencing");
    assert!(text(&root, "verdict-word").contains("Unsafe"));
    assert!(text(&root, "ghost-summary").contains("With strict fencing: balance 90, ✓ safe"));
    get(&root, "hint-button")
        .dyn_into::<web_sys::HtmlElement>()
        .unwrap()
        .click();
    yew::scheduler::flush().await;
    assert_eq!(text(&root, "title"), "GC pause, fenced storage");
    assert!(text(&root, "verdict-word").contains("Safe"));
    assert_eq!(text(&root, "step-A-2"), "✗ rejected stale_fence: 33 ≤ 34");
    assert!(text(&root, "hint").contains("drag the right edge of A's GC pause"));
}

#[wasm_bindgen_test]
async fn the_fenced_page_shows_the_stale_debit_rejected() {
    let root = mounted(fenced()).await;
    assert_eq!(text(&root, "title"), "GC pause, fenced storage");
    assert!(text(&root, "verdict-word").contains("Safe"));
    assert_eq!(text(&root, "step-A-2"), "✗ rejected stale_fence: 33 ≤ 34");
    assert_eq!(
        text(&root, "step-B-0"),
        "✓ granted fence 34, lease until 61 ms"
    );
    assert!(text(&root, "write-A-2").contains("33 ≤ 34"));
    assert!(
        find(&root, "stale-A-0").is_some(),
        "A believes past its lease"
    );
    assert!(text(&root, "ghost-summary").contains("Without fencing: balance 80, ✗ unsafe"));
    assert!(text(&root, "readout").starts_with("At 40 ms: B holds the lease (fence 34)."));
    assert!(text(&root, "hint").contains("drag the right edge of A's GC pause"));
}

#[wasm_bindgen_test]
async fn dragging_the_pause_end_flips_the_debit_and_back() {
    let root = mounted(fenced()).await;
    let bar = || {
        get(&root, "pause-A-1")
            .query_selector("rect.bar")
            .unwrap()
            .unwrap()
            .get_attribute("width")
            .unwrap()
    };
    let long_bar = bar();
    drag_to(&root, "pause-A-1-end", 20).await;
    assert_eq!(pause_end_ms(&root), "20");
    assert_eq!(text(&root, "step-A-2"), "✓ accepted, balance 90");
    assert!(find(&root, "stale-A-0").is_none());
    assert_ne!(bar(), long_bar, "the bar got shorter");
    // A's watchdog renewed in time, so B was refused and never wrote.
    assert!(text(&root, "step-B-0").contains("lock_held"));
    assert!(text(&root, "verdict").contains("Balance 90"));

    drag_to(&root, "pause-A-1-end", 45).await;
    assert_eq!(pause_end_ms(&root), "45");
    assert_eq!(text(&root, "step-A-2"), "✗ rejected stale_fence: 33 ≤ 34");
    assert_eq!(bar(), long_bar);
}

/// The lanes are patched in place: a drag rewrites attributes and texts, so the elements it
/// does not restructure (the lanes, the dragged handle, another client's events) stay the very
/// same nodes, as focus, pointer capture and a screen reader need.
#[wasm_bindgen_test]
async fn a_drag_patches_the_lanes_in_place() {
    let root = mounted(fenced()).await;
    let kept = [
        "lane-A",
        "pause-A-1-end",
        "pause-A-1",
        "lane-B",
        "event-B-1",
        "lane-storage",
    ]
    .map(|id| (id, get(&root, id)));
    drag_to(&root, "pause-A-1-end", 40).await;
    assert_eq!(pause_end_ms(&root), "40");
    for (id, el) in &kept {
        assert!(get(&root, id).is_same_node(Some(el)), "{id} was drawn anew");
    }
}

#[wasm_bindgen_test]
async fn dragging_an_event_onto_another_lane_moves_it_to_that_client() {
    let root = mounted(fenced()).await;
    // A's debit dropped on B's lane at 50 ms: B now debits twice with fence 34, and strict
    // storage refuses the second (an equal token is stale).
    let debit = get(&root, "event-A-2");
    let from = centre(&debit);
    pointer(&debit, "pointerdown", from);
    yew::scheduler::flush().await;
    let lane_b = centre(&get(&root, "lane-B"));
    let svg = get(&root, "timeline");
    pointer(&svg, "pointermove", (x_of(&root, 50), lane_b.1));
    yew::scheduler::flush().await;
    pointer(&svg, "pointerup", (x_of(&root, 50), lane_b.1));
    yew::scheduler::flush().await;
    assert!(find(&root, "event-A-2").is_none());
    assert_eq!(
        text(&root, "step-B-2"),
        "✗ rejected stale_fence: 34 ≤ 34 (strict: one write per grant)"
    );
    assert!(get(&root, "event-B-2")
        .get_attribute("aria-label")
        .unwrap()
        .starts_with("B: debit 10 at "));
}

#[wasm_bindgen_test]
async fn keys_resize_the_pause_and_ctrl_z_undoes() {
    let root = mounted(fenced()).await;
    let end = get(&root, "pause-A-1-end");
    end.dyn_ref::<SvgElement>().unwrap().focus().unwrap();
    key(&end, "ArrowLeft", true, false);
    yew::scheduler::flush().await;
    key(&end, "ArrowLeft", true, false);
    yew::scheduler::flush().await;
    key(&end, "ArrowLeft", false, false);
    yew::scheduler::flush().await;
    assert_eq!(pause_end_ms(&root), "24");
    assert_eq!(text(&root, "step-A-2"), "✓ accepted, balance 90");

    key(&end, "z", false, true);
    yew::scheduler::flush().await;
    assert_eq!(pause_end_ms(&root), "25");
    key(&end, "z", true, true);
    yew::scheduler::flush().await;
    assert_eq!(pause_end_ms(&root), "24");
}

#[wasm_bindgen_test]
async fn delete_removes_the_focused_event() {
    let root = mounted(fenced()).await;
    // Without B's debit, A's late debit is the first the storage sees, and it is accepted.
    let b_debit = get(&root, "event-B-1");
    b_debit.dyn_ref::<SvgElement>().unwrap().focus().unwrap();
    yew::scheduler::flush().await;
    key(&b_debit, "Delete", false, false);
    yew::scheduler::flush().await;
    assert!(find(&root, "event-B-1").is_none());
    assert_eq!(text(&root, "step-A-2"), "✓ accepted, balance 90");
    assert!(text(&root, "verdict").contains("Balance 90, last fence 33"));
    assert!(text(&root, "narration").contains("still believing it held the lock"));
}

#[wasm_bindgen_test]
async fn settings_palette_and_double_click_edit_the_run() {
    let root = mounted(fenced()).await;
    let select: web_sys::HtmlSelectElement = get(&root, "fence-rule").dyn_into().unwrap();
    select.set_value("off");
    select
        .dispatch_event(
            &web_sys::Event::new_with_event_init_dict("change", &{
                let i = web_sys::EventInit::new();
                i.set_bubbles(true);
                i
            })
            .unwrap(),
        )
        .unwrap();
    yew::scheduler::flush().await;
    assert!(text(&root, "verdict-word").contains("Unsafe"));
    assert!(text(&root, "verdict").contains("Balance 80"));
    assert_eq!(text(&root, "step-A-2"), "✓ accepted, balance 80");
    assert!(text(&root, "ghost-summary").contains("With strict fencing: balance 90"));

    // The palette adds a crash to A (the first client) at the playhead (40 ms).
    get(&root, "tool-crash")
        .dyn_into::<web_sys::HtmlElement>()
        .unwrap()
        .click();
    yew::scheduler::flush().await;
    assert!(text(&root, "step-A-3").contains("crashed"));
    assert!(
        text(&root, "step-A-2").contains("skipped"),
        "a crashed client sends nothing"
    );

    // A double-click on B's lane adds the chosen kind (crash) there.
    let lane_b = centre(&get(&root, "lane-B"));
    mouse(
        &get(&root, "timeline"),
        "dblclick",
        (x_of(&root, 70), lane_b.1),
    );
    yew::scheduler::flush().await;
    assert!(text(&root, "step-B-2").contains("crashed"));
}

#[wasm_bindgen_test]
async fn mounts_are_independent_and_readonly_cannot_be_dragged() {
    let first = mounted(MountOptions::default()).await;
    let second = mounted(MountOptions {
        preset: Some("gc-pause-unfenced".into()),
        readonly: true,
        ..Default::default()
    })
    .await;
    assert_eq!(text(&second, "title"), "GC pause, no fencing");
    assert!(find(&second, "preset").is_none() && find(&second, "palette").is_none());
    assert!(
        find(&second, "pause-A-1-end").is_none(),
        "no handles when read-only"
    );
    let pause = get(&second, "pause-A-1");
    pointer(&pause, "pointerdown", centre(&pause));
    pointer(
        &get(&second, "timeline"),
        "pointermove",
        (x_of(&second, 10), 0.0),
    );
    pointer(
        &get(&second, "timeline"),
        "pointerup",
        (x_of(&second, 10), 0.0),
    );
    yew::scheduler::flush().await;
    assert!(text(&second, "step-A-2").contains("accepted, balance 80"));
    assert!(get(&second, "pause-A-1")
        .get_attribute("aria-label")
        .unwrap()
        .contains("at 1 ms"));

    drag_to(&first, "pause-A-1-end", 20).await;
    assert_eq!(text(&first, "step-A-2"), "✓ accepted, balance 90");
    assert!(text(&second, "verdict-word").contains("Unsafe"));
}

#[wasm_bindgen_test]
async fn the_playhead_follows_the_axis_and_reads_the_spans() {
    let root = mounted(fenced()).await;
    let axis = get(&root, "axis");
    let y = centre(&axis).1;
    pointer(&axis, "pointerdown", (x_of(&root, 10), y));
    yew::scheduler::flush().await;
    assert!(text(&root, "readout").starts_with("At 10 ms: A holds the lease (fence 33)."));
    let svg = get(&root, "timeline");
    pointer(&svg, "pointermove", (x_of(&root, 70), y));
    pointer(&svg, "pointerup", (x_of(&root, 70), y));
    yew::scheduler::flush().await;
    assert_eq!(
        text(&root, "readout"),
        "At 70 ms: B holds the lease (fence 34). B believes it holds the lock. Balance 90, last fence 34."
    );
}

#[wasm_bindgen_test]
async fn an_unknown_preset_is_refused_in_words() {
    let doc = web_sys::window().unwrap().document().unwrap();
    let el = doc.create_element("div").unwrap();
    // A detached element is refused first, in words.
    let detached = mount(el.clone(), MountOptions::default())
        .map(|_| ())
        .unwrap_err();
    assert!(detached.contains("into a document first"), "{detached}");
    doc.body().unwrap().append_child(&el).unwrap();
    let err = mount(
        el,
        MountOptions {
            preset: Some("x".into()),
            ..Default::default()
        },
    )
    .map(|_| ())
    .unwrap_err();
    assert!(
        err.starts_with("unknown preset \"x\"; known: contract-1-nx, "),
        "{err}"
    );
}
