//! The few places the view touches the DOM directly: a per-mount id for SVG `<defs>`, the
//! pointer's position in SVG coordinates, which event part a focused element stands for, and
//! the heights held for the length of a drag.

use super::geometry::{svg_x, svg_y, Layout};
use crate::ui::model::item::Part;
use crate::ui::model::selection::{EventRef, InstanceRef, ItemRef, Slot};
use crate::ui::model::state::DragTarget;
use std::cell::Cell;
use wasm_bindgen::JsCast;
use web_sys::Element;
use yew::NodeRef;

thread_local! {
    static NEXT_UID: Cell<u32> = const { Cell::new(1) };
}

/// A number no other mount on this page has, for ids inside the SVG.
pub fn next_uid() -> u32 {
    NEXT_UID.with(|n| {
        let id = n.get();
        n.set(id.wrapping_add(1));
        id
    })
}

/// The SVG's box in the viewport (left, top, width, height), kept for the length of a drag:
/// reading it asks the browser for layout, a cost on every frame of a drag on a slow phone.
/// Whoever keeps one empties it when the drag ends and when anything scrolls or resizes.
pub type BoxCache = std::cell::RefCell<Option<[f64; 4]>>;

/// The pointer at `(client_x, client_y)` as an instant on the axis and a y in the SVG; the
/// SVG's box from `cache` when it holds one (and put there when it is empty).
pub fn pointer(
    svg: &NodeRef,
    layout: &Layout,
    cache: Option<&BoxCache>,
    client_x: i32,
    client_y: i32,
) -> Option<(u64, i32)> {
    let kept = cache.and_then(|c| *c.borrow());
    let [left, top, width, height] = match kept {
        Some(b) => b,
        None => {
            let r = svg.cast::<Element>()?.get_bounding_client_rect();
            let b = [r.left(), r.top(), r.width(), r.height()];
            if let Some(c) = cache {
                *c.borrow_mut() = Some(b);
            }
            b
        }
    };
    let x = svg_x(f64::from(client_x), left, width, layout.width_px);
    let y = svg_y(f64::from(client_y), top, height, layout.height_px);
    Some((layout.axis.time_at(x), y))
}

/// Keeps the lanes where they were under the pointer when a press or a drop changes the height
/// of what is above them: a press selects an event, whose inspector takes the hint's place (on
/// a narrow screen it is rows taller), and a drop brings the verdict and the caption up to date.
/// The page is scrolled by the shift, as the browser's own scroll anchoring does when the page
/// is not at its top (then there is nothing left to do here). What scrolling cannot take back
/// (at the top of the page) is kept as the drag's `shift`, and so is the whole shift inside a
/// frame (the iframe form), which is as tall as its content: scrolling it would only last until
/// its parent follows the new height. So the pointer keeps to the lanes as they lay under it at
/// the press: a drag across the axis never changes the event's lane because the page moved
/// under the finger.
#[derive(Default)]
pub struct Anchor {
    /// The SVG's top in the viewport just before a press or a drop, until the page is drawn
    /// after it.
    before: Cell<Option<f64>>,
    /// How far down the lanes moved at the press and stayed moved, in CSS pixels.
    shift: Cell<f64>,
}

impl Anchor {
    /// Notes where the SVG is, before a press or a drop is handed on.
    pub fn note(&self, svg: &NodeRef) {
        if let Some(el) = svg.cast::<Element>() {
            self.before.set(Some(el.get_bounding_client_rect().top()));
        }
    }

    /// How far the lanes moved at this drag's press and stayed moved (0 outside a drag).
    pub fn shift(&self) -> f64 {
        self.shift.get()
    }

    /// Once the page is drawn after a press (`pressed`) or a drop: scrolls the page by how far
    /// the SVG moved since the note, and keeps for the drag what is left of it.
    pub fn keep(&self, svg: Option<Element>, pressed: bool) {
        self.shift.set(0.0);
        let (Some(before), Some(svg)) = (self.before.take(), svg) else {
            return;
        };
        let moved = svg.get_bounding_client_rect().top() - before;
        if moved.abs() < 0.5 {
            return;
        }
        if let Some(w) = web_sys::window() {
            let framed = w.parent().ok().flatten().is_some_and(|p| p != w);
            if !framed {
                w.scroll_by_with_x_and_y(0.0, moved);
            }
        }
        if pressed {
            self.shift
                .set(svg.get_bounding_client_rect().top() - before);
        }
    }
}

/// The event part an element stands for: a client event's from its `data-ev` and `data-part`
/// attributes, an instance event's from `data-iev` and `data-part`.
pub fn item_part(el: &Element) -> Option<(ItemRef, Part)> {
    let part = Part::from_attr(&el.get_attribute("data-part")?)?;
    let r = match el.get_attribute("data-ev") {
        Some(a) => EventRef::from_attr(&a)?.into(),
        None => InstanceRef::from_attr(&el.get_attribute("data-iev")?)?.into(),
    };
    Some((r, part))
}

/// The element an event's target is, if it is one.
pub fn target_element(e: &web_sys::Event) -> Option<Element> {
    e.target()?.dyn_into::<Element>().ok()
}

/// What a pointer on the event's target grabs: a client event's part or an instance event's.
pub fn grab(e: &web_sys::Event) -> Option<(Element, DragTarget)> {
    let el = target_element(e)?.closest("[data-ev], [data-iev]").ok()??;
    let (r, part) = item_part(&el)?;
    Some((el, DragTarget::Item(r, part)))
}

/// While `on`, keeps the element's `property` (`height`, `min-height`) at the height it has
/// now and marks it `data-held` for the style sheet; otherwise lets it size itself again. Set
/// through the CSS object model, which a CSP without `'unsafe-inline'` styles allows.
pub fn hold_height(node: &NodeRef, property: &str, on: bool) {
    let Some(el) = node.cast::<web_sys::HtmlElement>() else {
        return;
    };
    let style = el.style();
    if on {
        // The exact height (layout works in 64ths of a pixel, which six decimals write out
        // exactly): a rounded one moved the lanes by part of a pixel. Written with integers,
        // which keeps float formatting out of the wasm.
        let micro = (el.get_bounding_client_rect().height() * 1e6)
            .round()
            .max(0.0) as u64;
        let height = format!("{}.{:06}px", micro / 1_000_000, micro % 1_000_000);
        let _ = style.set_property(property, &height);
        let _ = el.set_attribute("data-held", "");
    } else {
        let _ = style.remove_property(property);
        let _ = el.remove_attribute("data-held");
    }
}
