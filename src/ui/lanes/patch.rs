//! The small patcher that puts the lane renderer's drawing (`render`) on the page: the first
//! time, or into a new element, as markup; after that only the writes `render::diff` finds
//! (attributes, texts, a keyed list's new order, and markup only for a part whose shape
//! changed). Used by the full page's lanes (`lanes_view.rs`) and by the first stage alike.
//! An element the reader is on keeps its focus: a write never replaces an element whose
//! drawing kept its shape, and an element moved within its list is focused again.

use super::render::diff::{diff, Op};
use super::render::node::{El, Kids};
use super::render::{drawn, keys, lane, same, LaneKey, View};
use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

/// The lanes drawn, and where.
#[derive(Default)]
pub struct Painter {
    drawn: Option<(Element, Vec<(LaneKey, El)>)>,
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
        let mut writes = 0;
        // Only a new order moves an element; the one the reader is on keeps the focus.
        let mut focused = None;
        for (i, (key, was)) in old.iter_mut().enumerate() {
            if prev.is_some_and(|p| same(p, v, *key)) {
                continue;
            }
            let (Some(now), Some(at)) = (lane(v, *key), root.children().item(i as u32)) else {
                continue;
            };
            let mut cursor = Cursor::new(&at);
            let ops = diff(was, &now);
            if focused.is_none() && ops.iter().any(|o| matches!(o, Op::Order { .. })) {
                focused = focused_in(root);
            }
            for op in ops {
                apply(&mut cursor, &op);
                writes += 1;
            }
            *was = now;
        }
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
            let mut cursor = Cursor::new(root);
            for op in diff(old, next) {
                apply(&mut cursor, &op);
            }
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

/// Finds the elements the writes address, walking down from the lane's element and keeping
/// the way down: the writes come in document order, so most are a step or two from the last.
struct Cursor {
    path: Vec<u16>,
    /// The element at each prefix of `path`; `els[0]` is the root.
    els: Vec<Element>,
}

impl Cursor {
    fn new(root: &Element) -> Cursor {
        Cursor {
            path: Vec::new(),
            els: vec![root.clone()],
        }
    }

    fn at(&mut self, path: &[u16]) -> Option<Element> {
        let common = self
            .path
            .iter()
            .zip(path)
            .take_while(|(a, b)| a == b)
            .count();
        self.path.truncate(common);
        self.els.truncate(common + 1);
        for &i in &path[common..] {
            let next = self.els.last()?.children().item(u32::from(i))?;
            self.path.push(i);
            self.els.push(next);
        }
        self.els.last().cloned()
    }

    /// The element at `path` was written again: what was found below it is gone.
    fn forget(&mut self, path: &[u16]) {
        let keep = path.len().min(self.path.len());
        self.path.truncate(keep.saturating_sub(1));
        self.els.truncate(self.path.len() + 1);
    }
}

fn apply(cursor: &mut Cursor, op: &Op) {
    match op {
        Op::Attr { path, name, value } => {
            if let Some(e) = cursor.at(path) {
                let _ = match value {
                    Some(v) => v.with_str(|v| e.set_attribute(name, v)),
                    None => e.remove_attribute(name),
                };
            }
        }
        Op::Text { path, text } => {
            if let Some(e) = cursor.at(path) {
                e.set_text_content(Some(text));
            }
        }
        Op::Order { path, from } => {
            if let Some(e) = cursor.at(path) {
                order(&e, from);
            }
            cursor.forget(path);
        }
        Op::Children { path, markup } => {
            if let Some(e) = cursor.at(path) {
                e.set_inner_html(markup);
            }
            cursor.forget(path);
        }
        Op::Splice {
            path,
            at,
            remove,
            markup,
        } => {
            if let Some(e) = cursor.at(path) {
                let kids = e.children();
                for _ in 0..*remove {
                    if let Some(k) = kids.item(u32::from(*at)) {
                        k.remove();
                    }
                }
                if !markup.is_empty() {
                    let _ = match kids.item(u32::from(*at)) {
                        Some(next) => next.insert_adjacent_html("beforebegin", markup),
                        None => e.insert_adjacent_html("beforeend", markup),
                    };
                }
            }
            cursor.forget(path);
        }
        Op::Replace { path, markup } => {
            if let Some(e) = cursor.at(path) {
                e.set_outer_html(markup);
            }
            cursor.forget(path);
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
