//! The small patcher that puts the lane renderer's drawing (`render`) on the page: the first
//! time, or into a new element, as markup; after that only the writes `render::diff` finds
//! (attributes, texts, a keyed list's new order, and markup only for a part whose shape
//! changed). Used by the full page's lanes (`lanes_view.rs`) and by the first stage alike.
//! An element the reader is on keeps its focus: a write never replaces an element whose
//! drawing kept its shape, and an element moved within its list is focused again.

use super::render::diff::{diff, Op};
use super::render::node::{markup_of, El};
use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

/// What was drawn, and where.
#[derive(Default)]
pub struct Painter {
    drawn: Option<(Element, El)>,
}

impl Painter {
    /// Draws `next` (its children) into `root`: only what changed, if `root` holds the last
    /// drawing. Returns the number of writes made.
    pub fn paint(&mut self, root: &Element, next: El) -> usize {
        let same_root = self
            .drawn
            .as_ref()
            .is_some_and(|(el, _)| el.is_same_node(Some(root)));
        let writes = match self.drawn.take() {
            Some((_, old)) if same_root => {
                let ops = diff(&old, &next);
                let focused = focused_in(root);
                for op in &ops {
                    apply(root, op);
                }
                if let Some(f) = focused {
                    refocus(&f);
                }
                ops.len()
            }
            _ => {
                root.set_inner_html(&markup_of(next.els()));
                1
            }
        };
        self.drawn = Some((root.clone(), next));
        writes
    }

    /// `root` already holds `drawn` (written as markup with the rest of a drawing).
    pub fn adopt(&mut self, root: &Element, drawn: El) {
        self.drawn = Some((root.clone(), drawn));
    }

    /// Forgets the drawing: the next paint writes everything.
    pub fn reset(&mut self) {
        self.drawn = None;
    }
}

/// The element at `path` under `root`.
fn at(root: &Element, path: &[u16]) -> Option<Element> {
    path.iter()
        .try_fold(root.clone(), |e, &i| e.children().item(u32::from(i)))
}

fn apply(root: &Element, op: &Op) {
    match op {
        Op::Attr { path, name, value } => {
            if let Some(e) = at(root, path) {
                let _ = match value {
                    Some(v) => e.set_attribute(name, v),
                    None => e.remove_attribute(name),
                };
            }
        }
        Op::Text { path, text } => {
            if let Some(e) = at(root, path) {
                e.set_text_content(Some(text));
            }
        }
        Op::Order { path, from } => {
            if let Some(e) = at(root, path) {
                order(&e, from);
            }
        }
        Op::Children { path, markup } => {
            if let Some(e) = at(root, path) {
                e.set_inner_html(markup);
            }
        }
        Op::Replace { path, markup } => {
            if let Some(e) = at(root, path) {
                e.set_outer_html(markup);
            }
        }
    }
}

/// Puts `e`'s children in the order `from` gives, from the last one back, moving only those
/// not already before the one that must follow them.
fn order(e: &Element, from: &[u16]) {
    let kids = e.children();
    let old: Vec<Element> = (0..kids.length()).filter_map(|i| kids.item(i)).collect();
    let wanted: Vec<&Element> = from
        .iter()
        .filter_map(|&i| old.get(usize::from(i)))
        .collect();
    let mut follower: Option<&Element> = None;
    for &w in wanted.iter().rev() {
        let next = w.next_element_sibling();
        let in_place = match (follower, &next) {
            (None, None) => true,
            (Some(f), Some(n)) => f.is_same_node(Some(n)),
            _ => false,
        };
        if !in_place {
            let _ = e.insert_before(w, follower.map(|f| f as &Node));
        }
        follower = Some(w);
    }
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
