//! One drag for every event on a lane and for the playhead. A drag remembers where the
//! pointer grabbed the edge (so the edge does not jump to the pointer) and the scenario it
//! began with (one undo step, and Escape puts it back). A body follows the pointer onto
//! another lane of its kind; an edge stays on its lane.

use super::history::edit;
use super::item::{LaneItem, Part};
use super::selection::{get, move_to_lane, set_edge, ItemRef, Slot};
use super::state::{Drag, DragTarget, State};
use crate::sim::scenario::MAX_TIME_MS;
use std::rc::Rc;

/// Starts dragging `target`, grabbed at `pointer_ms`. A read-only view only moves the playhead.
pub fn start(next: &mut State, target: DragTarget, pointer_ms: u64, axis_end_ms: u64) {
    let grab_offset_ms = match target {
        DragTarget::Playhead => 0,
        DragTarget::Item(r, part) => {
            let edge = match r {
                ItemRef::Event(r) => edge(next, r, part),
                ItemRef::Instance(r) => edge(next, r, part),
            };
            match edge {
                Some(edge) if !next.readonly => {
                    next.selection = r.into();
                    pointer_ms as i64 - edge as i64
                }
                _ => return,
            }
        }
    };
    next.drag = Some(Drag {
        target,
        grab_offset_ms,
        before: Rc::new(next.scenario.clone()),
        axis_end_ms,
    });
    if target == DragTarget::Playhead {
        next.playhead_ms = pointer_ms.min(MAX_TIME_MS);
    }
}

/// The time of the edge `part` of `r`, if the event exists and has that part.
fn edge<R: Slot>(next: &State, r: R, part: Part) -> Option<u64> {
    get(&next.scenario, r)
        .filter(|e| e.has_part(part))
        .map(|e| e.edge_ms(part))
}

/// The pointer moved to `pointer_ms`, over the lane of `client` or of `instance`, if any.
pub fn follow(next: &mut State, pointer_ms: u64, client: Option<usize>, instance: Option<usize>) {
    let Some(drag) = next.drag.clone() else {
        return;
    };
    let to_ms = pointer_ms as i64 - drag.grab_offset_ms;
    match drag.target {
        DragTarget::Playhead => next.playhead_ms = pointer_ms.min(MAX_TIME_MS),
        DragTarget::Item(ItemRef::Event(r), part) => move_item(next, r, part, to_ms, client),
        DragTarget::Item(ItemRef::Instance(r), part) => move_item(next, r, part, to_ms, instance),
    }
}

/// A dragged event: its edge goes to `to_ms`, and its body to the lane `over`. The drag
/// keeps hold of the event wherever it moved.
fn move_item<R: Slot>(next: &mut State, r: R, part: Part, to_ms: i64, over: Option<usize>) {
    let mut s = next.scenario.clone();
    let mut r = r;
    if part == Part::Body {
        if let Some(to) = over.filter(|l| *l != r.lane()) {
            match move_to_lane(&mut s, r, to) {
                Some(moved) => r = moved,
                None => return,
            }
        }
    }
    if set_edge(&mut s, r, part, to_ms) {
        edit(next, s, r.into());
        if next.selection == r.into() {
            if let Some(d) = next.drag.as_mut() {
                d.target = DragTarget::Item(r.into(), part);
            }
        }
    }
}
