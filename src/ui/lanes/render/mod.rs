//! The one lane renderer: a pure function from a run and its comparison to the drawing of the
//! timeline's lanes (the single lock service's lane, one lane per client, the storage and the
//! comparison), as a tree of elements (`node`). The first stage writes it as markup; the full
//! page mounts it in one `<g>` (`lanes_view.rs`) and, frame after frame, applies only what
//! `diff` finds changed (`patch.rs`): no virtual DOM per lane or event mid-drag. Plain Rust,
//! tested natively: what a lane shows is asserted on the tree.
//!
//! Redlock's instances, etcd, the advisory lock and ZooKeeper keep their own lock lanes as Yew
//! components (`lock_service.rs`); their client and storage lanes are drawn here like any other.

pub mod diff;
pub mod node;

mod client;
mod lock;
mod storage;

use super::geometry::Layout;
use crate::sim::compare::Contrast;
use crate::sim::{Scenario, Trace};
use crate::ui::model::selection::EventRef;
use node::El;

/// Everything the lanes are drawn from.
pub struct View<'a> {
    pub scenario: &'a Scenario,
    pub trace: &'a Trace,
    /// The comparison's run, and what it changes, in words.
    pub ghost: &'a Trace,
    pub contrast: &'a Contrast,
    pub layout: &'a Layout,
    /// The prefix of the SVG's pattern ids.
    pub uid: &'a str,
    /// The selected client event, if any.
    pub selected: Option<EventRef>,
    /// Whether the pause edges and debit arrivals get handles (not in a read-only view).
    pub handles: bool,
    /// Whether the events take the keyboard (focusable, with roles, names and values for a
    /// screen reader); the first stage takes the pointer only.
    pub keyboard: bool,
    /// Whether the lock service's lane is drawn here: a single Redis; any other service draws
    /// its own.
    pub lock_lane: bool,
}

/// The lanes, in drawing order, as the children of one `<g class="fp-lanes">`.
pub fn lanes(v: &View) -> El {
    let mut root = El::g().a("class", "fp-lanes");
    if v.lock_lane {
        if let Some(l) = lock::lock_lane(v.layout, v.trace) {
            root.push(l);
        }
    }
    for c in 0..v.scenario.clients.len() {
        if let Some(l) = client::client_lane(v, c) {
            root.push(l);
        }
    }
    for ghost in [false, true] {
        if let Some(l) = storage::storage_lane(v, ghost) {
            root.push(l);
        }
    }
    root
}

/// The hit rectangles, moved by `(dx, dy)` (a marker's are drawn inside its translation).
fn hit_rects(g: &mut El, rects: &[super::hits::Rect], (dx, dy): (i32, i32)) {
    for r in rects {
        g.push(
            El::new("rect")
                .a("class", "hit")
                .a("x", r.x - dx)
                .a("y", r.y - dy)
                .a("width", r.w)
                .a("height", r.h),
        );
    }
}

/// A `<text>` with its class and place.
fn text(class: &str, x: i32, y: i32, words: impl Into<String>) -> El {
    El::new("text")
        .a("class", class)
        .a("x", x)
        .a("y", y)
        .text(words)
}

#[cfg(test)]
mod tests;
