//! Helpers the browser component tests share: a fixture element with the app mounted in it,
//! lookups by `data-testid`, screen positions of instants, and a person's change to an input.
//! Each test crate uses only some of them.
#![cfg(target_arch = "wasm32")]
#![allow(dead_code)]

use fencing_playground::ui::{mount, MountOptions};
use wasm_bindgen::JsCast;
use web_sys::Element;

/// Defines `fpPatch`, the DOM patcher the build appends to the page's glue
/// (`scripts/dom-patch.js`), for this test page, whose glue wasm-bindgen writes without it.
pub fn install_patcher() {
    let src = include_str!("../../scripts/dom-patch.js");
    js_sys::eval(&format!("{src}\nglobalThis.fpPatch = fpPatch;")).expect("dom-patch.js runs");
}

/// A fresh, visible fixture 1200 px wide with the app mounted in it.
pub async fn fixture(options: MountOptions) -> Element {
    install_patcher();
    let doc = web_sys::window().unwrap().document().unwrap();
    let fixture = doc.create_element("div").unwrap();
    fixture.set_attribute("style", "width: 1200px").unwrap();
    doc.body().unwrap().append_child(&fixture).unwrap();
    mount(fixture.clone(), options).expect("mount");
    yew::scheduler::flush().await;
    fixture
}

/// The preset `id` mounted in a fresh fixture.
pub async fn mounted_preset(id: &str) -> Element {
    fixture(MountOptions {
        preset: Some(id.to_string()),
        ..Default::default()
    })
    .await
}

/// How many elements under `root` match `selector`.
pub fn count(root: &Element, selector: &str) -> u32 {
    root.query_selector_all(selector)
        .expect("a valid selector")
        .length()
}

pub fn find(root: &Element, testid: &str) -> Option<Element> {
    root.query_selector(&format!("[data-testid=\"{testid}\"]"))
        .unwrap()
}

#[track_caller]
pub fn get(root: &Element, testid: &str) -> Element {
    find(root, testid).unwrap_or_else(|| panic!("no element with data-testid={testid}"))
}

pub fn text(root: &Element, testid: &str) -> String {
    get(root, testid).text_content().unwrap_or_default()
}

/// The centre of what a person grabs: the element's first hit area if it has one (a marker's
/// label may lie far from the marker, after the line of a wait), else the element.
pub fn centre(el: &Element) -> (f64, f64) {
    let hit = el.query_selector(":scope > .hit").ok().flatten();
    let r = hit.as_ref().unwrap_or(el).get_bounding_client_rect();
    (r.left() + r.width() / 2.0, r.top() + r.height() / 2.0)
}

/// The client x of an instant, read off the axis grid lines.
pub fn x_of(root: &Element, ms: u64) -> f64 {
    let lines = root.query_selector_all("[data-testid^=\"grid-\"]").unwrap();
    let at = |i: u32| {
        let el: Element = lines.item(i).unwrap().dyn_into().unwrap();
        let t: f64 = el.get_attribute("data-testid").unwrap()[5..]
            .parse()
            .unwrap();
        (t, el.get_bounding_client_rect().left())
    };
    let (t0, x0) = at(0);
    let (t1, x1) = at(lines.length() - 1);
    x0 + (x1 - x0) * (ms as f64 - t0) / (t1 - t0)
}

/// Sets a select or an input and tells the app, as a person's change would.
pub async fn change(root: &Element, testid: &str, value: Option<&str>, checked: Option<bool>) {
    let el = get(root, testid);
    if let Some(v) = value {
        match el.dyn_ref::<web_sys::HtmlSelectElement>() {
            Some(s) => s.set_value(v),
            None => el
                .dyn_ref::<web_sys::HtmlInputElement>()
                .unwrap()
                .set_value(v),
        }
    }
    if let Some(c) = checked {
        el.dyn_ref::<web_sys::HtmlInputElement>()
            .unwrap()
            .set_checked(c);
    }
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    el.dispatch_event(&web_sys::Event::new_with_event_init_dict("change", &init).unwrap())
        .unwrap();
    yew::scheduler::flush().await;
}
