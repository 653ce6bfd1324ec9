//! The small patcher that puts the lane renderer's drawing (`render`) on the page: the first
//! time, or into a new element, as markup; after that only the writes `render::diff` finds
//! (attributes, texts, a keyed list's new order, and markup only for a part whose shape
//! changed). Used by the full page's lanes (`lanes_view.rs`) and by the first stage alike.
//! A frame's writes go to the DOM in one call (`render::batch`, made by `scripts/dom-patch.js`),
//! not one call across the boundary per write.
//! An element the reader is on keeps its focus: a write never replaces an element whose
//! drawing kept its shape, and an element moved within its list is focused again.

use super::render::batch::Batch;
use super::render::diff::diff;
use super::render::node::{El, Kids};
use super::render::{drawn, keys, lane, same, LaneKey, View};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

#[wasm_bindgen]
extern "C" {
    /// Makes a batch's writes under `root` (`scripts/dom-patch.js`, which the build appends to
    /// the glue). It throws only on a code it does not know: a build whose two halves disagree.
    #[wasm_bindgen(js_name = fpPatch, catch)]
    fn fp_patch(root: &Element, ops: &[u32], text: &str) -> Result<(), JsValue>;

    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(what: &str, e: &JsValue);
}

/// Sends `batch`'s writes to the DOM under `root`, in one call, and empties it.
fn flush(root: &Element, batch: &mut Batch) {
    if !batch.is_empty() {
        if let Err(e) = fp_patch(root, &batch.ops, &batch.text) {
            console_error("fpPatch failed:", &e);
        }
    }
    batch.clear();
}

/// The lanes drawn, and where.
#[derive(Default)]
pub struct Painter {
    drawn: Option<(Element, Vec<(LaneKey, El)>)>,
    /// Kept from frame to frame, so a frame's writes reuse its room.
    batch: Batch,
}

impl Painter {
    /// Draws `v`'s lanes into `root`. If `root` holds the last drawing, only the lanes that
    /// may have changed since `prev` (every lane, without it) are drawn, and only what changed
    /// in them is written. Returns the number of writes made.
    pub fn paint(&mut self, root: &Element, v: &View, prev: Option<&View>) -> usize {
        let keys = keys(v);
        let kept = self.drawn.take().filter(|(el, old)| {
            el.is_same_node(Some(root)) && old.iter().map(|(k, _)| *k).eq(keys.iter().copied())
        });
        let Some((el, mut old)) = kept else {
            let lanes = drawn(v);
            let mut markup = String::new();
            lanes.iter().for_each(|(_, e)| e.write(&mut markup));
            root.set_inner_html(&markup);
            self.drawn = Some((root.clone(), lanes));
            return 1;
        };
        let batch = &mut self.batch;
        batch.clear();
        for (i, (key, was)) in old.iter_mut().enumerate() {
            if prev.is_some_and(|p| same(p, v, *key)) {
                continue;
            }
            let Some(now) = lane(v, *key) else {
                continue;
            };
            batch.lane(i);
            diff(was, &now).iter().for_each(|op| batch.push(op));
            *was = now;
        }
        let writes = batch.writes;
        // Only a new order moves an element; the one the reader is on keeps the focus.
        let focused = batch.reorders.then(|| focused_in(root)).flatten();
        flush(root, batch);
        if let Some(f) = focused {
            refocus(&f);
        }
        self.drawn = Some((el, old));
        writes
    }

    /// `root` already holds `lanes` (written as markup with the rest of a drawing).
    pub fn adopt(&mut self, root: &Element, lanes: Vec<(LaneKey, El)>) {
        self.drawn = Some((root.clone(), lanes));
    }

    /// Forgets the drawing: the next paint writes everything.
    pub fn reset(&mut self) {
        self.drawn = None;
    }
}

/// Draws `next` (its attributes and children) into `root`, which holds `drawn` if given: then
/// only what changed is written.
pub fn repaint(root: &Element, drawn: Option<&El>, next: &El) {
    match drawn {
        Some(old) => {
            let mut batch = Batch::default();
            diff(old, next).iter().for_each(|op| batch.push(op));
            flush(root, &mut batch);
        }
        None => {
            for (name, value) in &next.attrs {
                let _ = value.with_str(|v| root.set_attribute(name, v));
            }
            match &next.kids {
                Kids::Text(t) => root.set_text_content(Some(t)),
                _ => {
                    let mut markup = String::new();
                    next.els().iter().for_each(|e| e.write(&mut markup));
                    root.set_inner_html(&markup);
                }
            }
        }
    }
}

/// A drawing outside Yew's virtual DOM, shared by its component and the live drag path: the
/// element it is in and the drawing that element holds.
pub type Drawn = std::rc::Rc<std::cell::RefCell<Option<(Element, El)>>>;

/// Draws `next` into `root` (the whole of it, unless `drawn` holds `root`'s last drawing) and
/// keeps it as `root`'s drawing.
pub fn paint_drawn(drawn: &Drawn, root: &Element, next: El) {
    let mut d = drawn.borrow_mut();
    let old = d.as_ref().filter(|(r, _)| r.is_same_node(Some(root)));
    repaint(root, old.map(|(_, e)| e), &next);
    *d = Some((root.clone(), next));
}

/// The element of the last drawing, if it is on the page.
pub fn drawn_root(drawn: &Drawn) -> Option<Element> {
    let d = drawn.borrow();
    d.as_ref()
        .map(|(r, _)| r.clone())
        .filter(|r| r.is_connected())
}

/// The element that has the focus, if it is inside `root`.
fn focused_in(root: &Element) -> Option<Element> {
    let active = web_sys::window()?.document()?.active_element()?;
    root.contains(Some(&active)).then_some(active)
}

/// Focuses `e` again if a move took the focus away from it.
fn refocus(e: &Element) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let still = doc
        .active_element()
        .is_some_and(|a| a.is_same_node(Some(e)));
    if !still && e.is_connected() {
        if let Some(el) = e.dyn_ref::<web_sys::SvgElement>() {
            let _ = el.focus();
        }
    }
}
