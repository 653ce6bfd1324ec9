//! Files out of the page: the scenario as JSON, the timeline as a standalone SVG, downloads by
//! Blob URL, and promise plumbing for the clipboard and file reads. The timeline's look lives in
//! the constructed style sheet, so an exported SVG carries its computed styles as presentation
//! attributes (which no CSP blocks and every viewer reads), in the light palette.

use js_sys::{Array, Function, Promise, Reflect};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, BlobPropertyBag, CssStyleDeclaration, Element};

const SVG_NS: &str = "http://www.w3.org/2000/svg";

/// The properties that decide how the timeline looks; the inherited ones are written only where
/// they differ from the parent's, which keeps the file small.
const PROPS: [(&str, bool); 14] = [
    ("fill", true),
    ("fill-opacity", true),
    ("stroke", true),
    ("stroke-width", true),
    ("stroke-dasharray", true),
    ("stroke-opacity", true),
    // A label's halo is a stroke painted under its fill.
    ("paint-order", true),
    ("stroke-linejoin", true),
    ("font-family", true),
    ("font-size", true),
    ("font-weight", true),
    ("text-anchor", true),
    ("visibility", true),
    ("opacity", false),
];

thread_local! {
    /// The last download's URL, revoked when the next one is made (revoking at once can cancel
    /// a download the browser has not started reading yet).
    static LAST_URL: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Calls `ok` or `err` when `promise` settles.
pub fn settle(
    promise: &Promise,
    ok: impl FnOnce(JsValue) + 'static,
    err: impl FnOnce(JsValue) + 'static,
) {
    let ok = Closure::once_into_js(ok);
    let err = Closure::once_into_js(err);
    if let Ok(then) = Reflect::get(promise, &"then".into()).and_then(|f| f.dyn_into::<Function>()) {
        let _ = then.call2(promise, &ok, &err);
    }
}

/// A Blob of `text` with the given MIME type.
pub fn text_blob(text: &str, mime: &str) -> Option<Blob> {
    let bag = BlobPropertyBag::new();
    bag.set_type(mime);
    let parts = Array::of1(&JsValue::from_str(text));
    Blob::new_with_str_sequence_and_options(&parts, &bag).ok()
}

/// Saves `blob` as `name` through a Blob URL and a clicked `<a download>`.
pub fn download(blob: &Blob, name: &str) -> Result<(), String> {
    let fail = || format!("could not save {name}");
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(fail)?;
    let url = web_sys::Url::create_object_url_with_blob(blob).map_err(|_| fail())?;
    let a: web_sys::HtmlAnchorElement = doc
        .create_element("a")
        .ok()
        .and_then(|a| a.dyn_into().ok())
        .ok_or_else(fail)?;
    a.set_href(&url);
    a.set_download(name);
    a.click();
    if let Some(old) = LAST_URL.with(|l| l.replace(Some(url))) {
        let _ = web_sys::Url::revoke_object_url(&old);
    }
    Ok(())
}

/// The playground's timeline `<svg>` and the element the app is mounted in (whose `data-theme`
/// the style sheet reads).
pub fn timeline(root: &Element) -> Option<(Element, Element)> {
    let svg = root.query_selector("svg[data-testid=timeline]").ok()??;
    Some((svg, root.parent_element()?))
}

/// Runs `f` with the light palette applied, then puts the page's theme back. Nothing is painted
/// in between: styles are recomputed synchronously when `f` reads them.
pub fn in_light<T>(mount: &Element, f: impl FnOnce() -> T) -> T {
    let before = mount.get_attribute("data-theme");
    let _ = mount.set_attribute("data-theme", "light");
    let out = f();
    let _ = match before {
        Some(v) => mount.set_attribute("data-theme", &v),
        None => mount.remove_attribute("data-theme"),
    };
    out
}

pub fn computed(el: &Element) -> Option<CssStyleDeclaration> {
    web_sys::window()?.get_computed_style(el).ok()?
}

/// The timeline as a standalone SVG document, styled as on screen in the light palette.
pub fn svg_text(root: &Element) -> Option<String> {
    let (svg, mount) = timeline(root)?;
    in_light(&mount, || {
        let copy: Element = svg.clone_node_with_deep(true).ok()?.dyn_into().ok()?;
        inline_styles(&svg, &copy, &[]);
        let bg = computed(root)?
            .get_property_value("background-color")
            .ok()?;
        let doc = svg.owner_document()?;
        let rect = doc.create_element_ns(Some(SVG_NS), "rect").ok()?;
        for (k, v) in [("width", "100%"), ("height", "100%"), ("fill", bg.as_str())] {
            rect.set_attribute(k, v).ok()?;
        }
        copy.prepend_with_node_1(&rect).ok()?;
        let text = web_sys::XmlSerializer::new()
            .ok()?
            .serialize_to_string(&copy)
            .ok()?;
        Some(format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{text}\n"
        ))
    })
}

/// Copies `from`'s computed look onto `to` (its clone), and so on down the tree.
fn inline_styles(from: &Element, to: &Element, parent: &[String]) {
    let Some(style) = computed(from) else {
        return;
    };
    let values: Vec<String> = PROPS
        .iter()
        .map(|(p, _)| style.get_property_value(p).unwrap_or_default())
        .collect();
    for (i, (prop, inherited)) in PROPS.iter().enumerate() {
        let v = &values[i];
        let same = if *inherited {
            parent.get(i) == Some(v)
        } else {
            v == "1"
        };
        let _ = if same || v.is_empty() {
            to.remove_attribute(prop)
        } else {
            to.set_attribute(prop, v)
        };
    }
    let (a, b) = (from.children(), to.children());
    for i in 0..a.length().min(b.length()) {
        if let (Some(x), Some(y)) = (a.item(i), b.item(i)) {
            inline_styles(&x, &y, &values);
        }
    }
}
