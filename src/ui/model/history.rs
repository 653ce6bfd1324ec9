//! Every change to the scenario goes through here: `edit` validates it and makes it one undo
//! step (or, mid-drag, part of the drag's one step), `commit` replaces the whole scenario (a
//! preset, a link, a file), and `travel` walks undo and redo. The undo list is bounded.

use super::selection::Selection;
use super::state::{State, UNDO_LIMIT};
use crate::sim::Scenario;
use std::rc::Rc;

/// Replaces the scenario with `s` if it is valid, as one undo step (or as part of a drag), and
/// selects `selection`. An invalid `s` changes nothing and says why in the notice.
pub fn edit(next: &mut State, s: Scenario, selection: Selection) {
    if s == next.scenario {
        return;
    }
    match s.validate() {
        Ok(()) => {
            if next.drag.is_none() {
                let before = std::mem::replace(&mut next.scenario, s);
                push_undo(next, before);
            } else {
                next.scenario = s;
            }
            next.selection = selection;
        }
        Err(e) => next.notice = Some(e.to_string()),
    }
}

/// Replaces the whole scenario (a preset, a link or a file), as one undo step.
pub fn commit(next: &mut State, s: Scenario) {
    next.drag = None;
    if s != next.scenario {
        let before = std::mem::replace(&mut next.scenario, s);
        push_undo(next, before);
    }
}

pub fn push_undo(next: &mut State, before: Scenario) {
    next.undo.push(Rc::new(before));
    if next.undo.len() > UNDO_LIMIT {
        next.undo.remove(0);
    }
    next.redo.clear();
}

/// Undo (`back`) or redo one step; nothing during a drag.
pub fn travel(next: &mut State, back: bool) {
    if next.drag.is_some() {
        return;
    }
    let to = if back {
        next.undo.pop()
    } else {
        next.redo.pop()
    };
    if let Some(to) = to {
        let current = Rc::new(std::mem::replace(&mut next.scenario, (*to).clone()));
        if back {
            next.redo.push(current);
        } else {
            next.undo.push(current);
        }
        next.focus_ticket = next.focus_ticket.wrapping_add(1);
    }
}
