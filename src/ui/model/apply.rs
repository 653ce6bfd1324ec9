//! `apply`: a plain function from a state and an action to the next state, with no Yew types,
//! so every edit a person can make (drag, nudge, add, delete, a typed field, undo) is tested
//! natively. Side effects (storage, the URL, timers) are never here; they live in effects.

use super::drag;
use super::fields::Field;
use super::heading::preset_of;
use super::history::{commit, edit, push_undo, travel};
use super::item::{LaneItem, Part};
use super::selection::{
    get, move_to_lane, push, remove, replace, set_edge, EventRef, ItemRef, Selection, Slot,
};
use super::service::apply_service;
use super::state::{Action, State, MAX_TTL_MS};
use super::tools::Tool;
use crate::sim::presets::preset;
use crate::sim::scenario::{Client, MAX_CLIENTS, MAX_TIME_MS};

/// The next state. Never panics: actions naming events or clients that do not exist change
/// nothing, and edits that would make the scenario invalid are refused with a notice.
pub fn apply(state: &State, action: Action) -> State {
    let mut next = state.clone();
    next.notice = None;
    // A read-only view can still select, scrub and resize; a drag of an event never starts.
    let looks_only = matches!(
        action,
        Action::Select(_)
            | Action::SetPlayhead(_)
            | Action::Resize(_)
            | Action::DragStart { .. }
            | Action::DragMove { .. }
            | Action::DragEnd
            | Action::DragCancel
            | Action::Problem(_)
            | Action::SetCollapsed(_)
    );
    if state.readonly && !looks_only {
        return next;
    }
    // An edit by other means (a key, the inspector, a button) ends a drag in progress as the
    // drop would, so the drag's grip never outlives the event it holds: after Delete, the
    // event at the removed one's index must not follow the pointer in its place. (Undo and
    // redo wait for the drop.)
    if !looks_only && !matches!(action, Action::Undo | Action::Redo) {
        end_drag(&mut next);
    }
    let selection = state.selection;
    match action {
        Action::LoadPreset(id) => match preset(&id) {
            Some(s) => {
                commit(&mut next, s);
                next.problem = None;
                next.playhead_ms = next.scenario.end_ms / 2;
                next.preset_id = Some(id);
                next.selection = Selection::None;
            }
            None => next.notice = Some(format!("unknown preset {id:?}")),
        },
        Action::Select(s) => next.selection = s,
        Action::DragStart {
            target,
            pointer_ms,
            axis_end_ms,
        } => drag::start(&mut next, target, pointer_ms, axis_end_ms),
        Action::DragMove {
            pointer_ms,
            client,
            instance,
        } => drag::follow(&mut next, pointer_ms, client, instance),
        Action::DragEnd => end_drag(&mut next),
        Action::DragCancel => {
            if let Some(drag) = next.drag.take() {
                if next.scenario != *drag.before {
                    next.scenario = (*drag.before).clone();
                    next.selection = Selection::None;
                }
            }
        }
        Action::Nudge {
            target,
            part,
            delta_ms,
        } => match target {
            ItemRef::Event(r) => nudge(&mut next, r, part, delta_ms),
            ItemRef::Instance(r) => nudge(&mut next, r, part, delta_ms),
        },
        Action::ShiftLane { target, by } => {
            match target {
                ItemRef::Event(r) => shift_lane(&mut next, r, by),
                ItemRef::Instance(r) => shift_lane(&mut next, r, by),
            }
            next.focus_ticket = next.focus_ticket.wrapping_add(1);
        }
        Action::Add {
            client,
            tool,
            at_ms,
        } => {
            next.tool = tool;
            let mut s = state.scenario.clone();
            let ttl_ms = s.lock.ttl_ms;
            if let Some(r) =
                push::<EventRef>(&mut s, client, tool.event(at_ms.min(MAX_TIME_MS), ttl_ms))
            {
                edit(&mut next, s, r.into());
            }
        }
        Action::Remove(target) => match target {
            ItemRef::Event(r) => remove_item(&mut next, r),
            ItemRef::Instance(r) => remove_item(&mut next, r),
        },
        Action::SetField {
            target,
            field,
            value,
        } => match target {
            ItemRef::Event(r) => set_field(&mut next, r, field, &value),
            ItemRef::Instance(r) => set_field(&mut next, r, field, &value),
        },
        Action::AddClient => {
            if state.scenario.clients.len() >= MAX_CLIENTS {
                next.notice = Some(format!("at most {MAX_CLIENTS} clients"));
            } else {
                let mut s = state.scenario.clone();
                s.clients.push(Client {
                    name: free_name(&s.clients),
                    clock: Default::default(),
                    events: Vec::new(),
                });
                edit(&mut next, s, selection);
            }
        }
        Action::RemoveClient(i) => {
            if state.scenario.clients.len() <= 1 {
                next.notice = Some("the timeline needs at least one client".to_string());
            } else if i < state.scenario.clients.len() {
                let mut s = state.scenario.clone();
                s.clients.remove(i);
                // The selected client event moves up a lane with its client, or goes with it.
                let keep = match selection {
                    Selection::Event(r) if r.client == i => Selection::None,
                    Selection::Event(r) if r.client > i => Selection::Event(EventRef {
                        client: r.client - 1,
                        event: r.event,
                    }),
                    other => other,
                };
                edit(&mut next, s, keep);
            }
        }
        Action::SetFenceRule(rule) => {
            let mut s = state.scenario.clone();
            s.storage.fence_rule = rule;
            edit(&mut next, s, selection);
        }
        Action::SetTtl(ttl_ms) => {
            let mut s = state.scenario.clone();
            s.lock.ttl_ms = ttl_ms.clamp(1, MAX_TTL_MS);
            edit(&mut next, s, selection);
        }
        Action::SetFirstFence(first) => {
            let mut s = state.scenario.clone();
            s.lock.first_fence = first;
            edit(&mut next, s, selection);
        }
        Action::SetWatchdog(on) => {
            let mut s = state.scenario.clone();
            s.lock.watchdog = on;
            edit(&mut next, s, selection);
        }
        Action::LoadScenario(s) => match s.validate() {
            Ok(()) => {
                next.preset_id = preset_of(&s).map(str::to_string);
                commit(&mut next, *s);
                next.playhead_ms = next.scenario.end_ms / 2;
                next.selection = Selection::None;
                next.problem = None;
            }
            Err(e) => next.problem = Some(format!("scenario: {e}")),
        },
        Action::LoadFound(f) => match f.scenario.validate() {
            Ok(()) => {
                commit(&mut next, f.scenario.clone());
                next.preset_id = preset_of(&next.scenario).map(str::to_string);
                next.playhead_ms = next.scenario.end_ms / 2;
                next.selection = Selection::None;
                next.problem = None;
                next.found = Some(std::rc::Rc::new(*f));
            }
            Err(e) => next.problem = Some(format!("scenario: {e}")),
        },
        Action::Problem(p) => next.problem = p,
        Action::Instance(a) => apply_service(&mut next, a),
        Action::SetCollapsed(on) => next.collapsed = on,
        Action::SetPlayhead(t) => next.playhead_ms = t.min(MAX_TIME_MS),
        Action::Resize(w) => next.width_px = w.clamp(240, 4096),
        Action::Undo | Action::Redo => {
            travel(&mut next, action == Action::Undo);
            next.preset_id = preset_of(&next.scenario).map(str::to_string);
        }
    }
    // Never a selection of an event that does not exist (one named by nonsense, or gone
    // after an undo).
    next.selection = next.selection.existing(&next.scenario);
    // Never a double-click tool whose event the lock service refuses (a renewal, a bare
    // `DEL`), whatever changed the service: a switch, a preset, a file, an undo.
    if !next.tool.offered(next.scenario.lock.service.offered()) {
        next.tool = Tool::Debit;
    }
    next
}

/// The drop: a drag that changed the scenario becomes one undo step.
fn end_drag(next: &mut State) {
    if let Some(drag) = next.drag.take() {
        if *drag.before != next.scenario {
            push_undo(next, (*drag.before).clone());
        }
    }
}

/// A key press moved a part of `r` by `delta_ms`.
fn nudge<R: Slot>(next: &mut State, r: R, part: Part, delta_ms: i64) {
    let Some(e) = get(&next.scenario, r) else {
        return;
    };
    let edge = e.edge_ms(part) as i64;
    let mut s = next.scenario.clone();
    if set_edge(&mut s, r, part, edge.saturating_add(delta_ms)) {
        edit(next, s, r.into());
    }
    next.focus_ticket = next.focus_ticket.wrapping_add(1);
}

/// A key press moved `r` `by` lanes of its kind; nothing past the first or the last.
fn shift_lane<R: Slot>(next: &mut State, r: R, by: i64) {
    let to = r.lane() as i64 + by;
    if to < 0 {
        return;
    }
    let mut s = next.scenario.clone();
    if let Some(moved) = move_to_lane(&mut s, r, to as usize) {
        edit(next, s, moved.into());
    }
}

fn remove_item<R: Slot>(next: &mut State, r: R) {
    let mut s = next.scenario.clone();
    if remove(&mut s, r) {
        edit(next, s, Selection::None);
        next.focus_ticket = next.focus_ticket.wrapping_add(1);
    }
}

/// The inspector set `field` of `r` to `value`: the edited event, or a notice naming the field.
fn set_field<R: Slot>(next: &mut State, r: R, field: Field, value: &str) {
    let Some(e) = get(&next.scenario, r) else {
        return;
    };
    match e.with_field(field, value) {
        Ok(e) => {
            let mut s = next.scenario.clone();
            replace(&mut s, r, e);
            edit(next, s, r.into());
        }
        Err(why) => next.notice = Some(why),
    }
}

/// The first single letter (then "C2", "C3"…) no client is named yet.
fn free_name(clients: &[Client]) -> String {
    let taken = |n: &str| clients.iter().any(|c| c.name == n);
    ('A'..='Z')
        .map(|c| c.to_string())
        .chain((2..).map(|i| format!("C{i}")))
        .find(|n| !taken(n))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::account::FenceRule;
    use crate::sim::presets::DEFAULT_PRESET;
    use crate::sim::{Event, PauseCause, ReleaseKind};
    use crate::ui::model::state::{DragTarget, BIG_STEP_MS, UNDO_LIMIT};
    use crate::ui::model::tools::Tool;

    /// The GC pause story with fenced storage (the page a newcomer reaches with one click).
    fn fenced() -> State {
        let id = "gc-pause-fenced";
        let scenario = crate::sim::presets::preset(id).expect("the fenced preset");
        State::new(scenario, Some(id.to_string()), false)
    }

    const A_PAUSE: EventRef = EventRef {
        client: 0,
        event: 1,
    };
    const A_DEBIT: EventRef = EventRef {
        client: 0,
        event: 2,
    };

    fn pause_of(s: &State) -> (u64, u64) {
        match s.event(A_PAUSE) {
            Some(Event::Pause {
                at_ms, duration_ms, ..
            }) => (*at_ms, *duration_ms),
            other => panic!("not a pause: {other:?}"),
        }
    }

    fn drag(
        state: State,
        target: DragTarget,
        from_ms: u64,
        moves: &[(u64, Option<usize>)],
    ) -> State {
        let mut s = apply(
            &state,
            Action::DragStart {
                target,
                pointer_ms: from_ms,
                axis_end_ms: 80,
            },
        );
        for &(pointer_ms, client) in moves {
            s = apply(
                &s,
                Action::DragMove {
                    pointer_ms,
                    client,
                    instance: None,
                },
            );
        }
        apply(&s, Action::DragEnd)
    }

    #[test]
    fn the_default_page_is_the_unfenced_gc_pause_one_click_from_the_fenced_one() {
        let d = State::default_page();
        assert_eq!(d.preset_id.as_deref(), Some(DEFAULT_PRESET));
        assert_eq!(d.scenario.storage.fence_rule, FenceRule::Off);
        assert_eq!(pause_of(&d), (1, 44));
        assert_eq!(d.playhead_ms, 40);
        // Turning fencing on gives the fenced story's schedule and settings.
        let on = apply(&d, Action::SetFenceRule(FenceRule::Strict));
        let f = fenced();
        assert_eq!(on.scenario.clients, f.scenario.clients);
        assert_eq!(on.scenario.lock, f.scenario.lock);
        assert_eq!(on.scenario.storage, f.scenario.storage);
    }

    #[test]
    fn dragging_a_pause_end_keeps_the_grab_offset_and_is_one_undo_step() {
        // Grabbed 1 ms right of the end (45): the end follows the pointer minus that offset.
        let s = drag(
            fenced(),
            DragTarget::Item(A_PAUSE.into(), Part::End),
            46,
            &[(40, Some(0)), (30, Some(1)), (21, None)],
        );
        assert_eq!(pause_of(&s), (1, 19));
        assert_eq!(s.undo.len(), 1);
        assert_eq!(s.selection.event(), Some(A_PAUSE));
        let back = apply(&s, Action::Undo);
        assert_eq!(pause_of(&back), (1, 44));
        assert_eq!(pause_of(&apply(&back, Action::Redo)), (1, 19));
    }

    #[test]
    fn a_pause_never_shrinks_below_one_ms_and_its_start_keeps_the_end() {
        let s = drag(
            fenced(),
            DragTarget::Item(A_PAUSE.into(), Part::End),
            45,
            &[(0, None)],
        );
        assert_eq!(pause_of(&s), (1, 1));
        let s = drag(
            fenced(),
            DragTarget::Item(A_PAUSE.into(), Part::Start),
            1,
            &[(10, None)],
        );
        assert_eq!(pause_of(&s), (10, 35));
        let s = drag(
            fenced(),
            DragTarget::Item(A_PAUSE.into(), Part::Start),
            1,
            &[(99, None)],
        );
        assert_eq!(pause_of(&s), (44, 1));
    }

    #[test]
    fn dragging_the_body_moves_the_whole_event_and_clamps_at_zero() {
        let s = drag(
            fenced(),
            DragTarget::Item(A_PAUSE.into(), Part::Body),
            20,
            &[(5, None)],
        );
        assert_eq!(pause_of(&s), (0, 44));
        let s = drag(
            fenced(),
            DragTarget::Item(A_PAUSE.into(), Part::Body),
            20,
            &[(30, None)],
        );
        assert_eq!(pause_of(&s), (11, 44));
    }

    #[test]
    fn dragging_onto_another_lane_moves_the_event_to_that_client() {
        let s = drag(
            fenced(),
            DragTarget::Item(A_DEBIT.into(), Part::Body),
            2,
            &[(50, Some(1))],
        );
        assert_eq!(s.scenario.clients[0].events.len(), 2);
        let moved = EventRef {
            client: 1,
            event: 2,
        };
        assert_eq!(s.selection.event(), Some(moved));
        assert_eq!(s.event(moved).map(Event::at_ms), Some(50));
        // Moving back and forth within one drag keeps following the event.
        let s = drag(
            fenced(),
            DragTarget::Item(A_DEBIT.into(), Part::Body),
            2,
            &[(50, Some(1)), (52, Some(0))],
        );
        assert_eq!(s.selection.event(), Some(A_DEBIT));
        assert_eq!(s.event(A_DEBIT).map(Event::at_ms), Some(52));
        assert_eq!(s.undo.len(), 1);
    }

    #[test]
    fn a_drag_that_changes_nothing_leaves_no_undo_step_and_escape_restores() {
        let s = drag(
            fenced(),
            DragTarget::Item(A_PAUSE.into(), Part::End),
            45,
            &[(45, None)],
        );
        assert!(s.undo.is_empty());
        let mut s = apply(
            &fenced(),
            Action::DragStart {
                target: DragTarget::Item(A_PAUSE.into(), Part::End),
                pointer_ms: 45,
                axis_end_ms: 80,
            },
        );
        s = apply(
            &s,
            Action::DragMove {
                pointer_ms: 20,
                client: None,
                instance: None,
            },
        );
        assert_eq!(pause_of(&s), (1, 19));
        s = apply(&s, Action::DragCancel);
        assert_eq!(pause_of(&s), (1, 44));
        assert!(s.drag.is_none() && s.undo.is_empty());
    }

    #[test]
    fn delete_mid_drag_ends_the_drag_and_later_moves_change_nothing() {
        let mut s = apply(
            &fenced(),
            Action::DragStart {
                target: DragTarget::Item(A_PAUSE.into(), Part::End),
                pointer_ms: 45,
                axis_end_ms: 80,
            },
        );
        let mv = |s: &State, pointer_ms| {
            apply(
                s,
                Action::DragMove {
                    pointer_ms,
                    client: Some(0),
                    instance: None,
                },
            )
        };
        s = mv(&s, 30);
        assert_eq!(pause_of(&s), (1, 29));
        s = apply(&s, Action::Remove(A_PAUSE.into()));
        assert!(s.drag.is_none(), "the removal ends the drag");
        let removed = s.scenario.clone();
        assert_eq!(
            removed.clients[0].events.len(),
            fenced().scenario.clients[0].events.len() - 1
        );
        // The pointer is still down: its moves and its release change nothing (the event now
        // at the pause's index is not dragged in its place).
        for t in [20, 70, 5] {
            s = mv(&s, t);
        }
        s = apply(&s, Action::DragEnd);
        assert_eq!(s.scenario, removed);
        assert!(s.drag.is_none());
        // Two undo steps: the drag, then the removal.
        s = apply(&s, Action::Undo);
        assert_eq!(pause_of(&s), (1, 29));
        s = apply(&s, Action::Undo);
        assert_eq!(s.scenario, fenced().scenario);
    }

    #[test]
    fn keys_nudge_edges_and_lanes() {
        let cases: &[(Part, i64, (u64, u64))] = &[
            (Part::End, -1, (1, 43)),
            (Part::End, -BIG_STEP_MS, (1, 34)),
            (Part::End, -100, (1, 1)),
            (Part::Start, 1, (2, 43)),
            (Part::Body, BIG_STEP_MS, (11, 44)),
            (Part::Body, -5, (0, 44)),
        ];
        for &(part, delta_ms, want) in cases {
            let s = apply(
                &fenced(),
                Action::Nudge {
                    target: A_PAUSE.into(),
                    part,
                    delta_ms,
                },
            );
            assert_eq!(pause_of(&s), want, "{part:?} {delta_ms}");
        }
        let s = apply(
            &fenced(),
            Action::ShiftLane {
                target: A_DEBIT.into(),
                by: 1,
            },
        );
        assert_eq!(
            s.selection.event(),
            Some(EventRef {
                client: 1,
                event: 2
            })
        );
        let s = apply(
            &fenced(),
            Action::ShiftLane {
                target: A_DEBIT.into(),
                by: -1,
            },
        );
        assert_eq!(s.scenario, fenced().scenario, "no lane above A");
    }

    #[test]
    fn a_debit_end_sets_its_network_delay() {
        let s = apply(
            &fenced(),
            Action::Nudge {
                target: A_DEBIT.into(),
                part: Part::End,
                delta_ms: 15,
            },
        );
        assert!(matches!(
            s.event(A_DEBIT),
            Some(Event::Debit { delay_ms: 15, .. })
        ));
        let s = apply(
            &fenced(),
            Action::Nudge {
                target: EventRef {
                    client: 0,
                    event: 0,
                }
                .into(),
                part: Part::End,
                delta_ms: 15,
            },
        );
        assert!(s.undo.is_empty(), "an acquire has no end to move");
    }

    #[test]
    fn add_remove_and_clients() {
        let s = apply(
            &fenced(),
            Action::Add {
                client: 1,
                tool: Tool::Pause,
                at_ms: 33,
            },
        );
        let r = EventRef {
            client: 1,
            event: 2,
        };
        assert_eq!(s.selection.event(), Some(r));
        assert_eq!(s.tool, Tool::Pause);
        assert!(matches!(s.event(r), Some(Event::Pause { at_ms: 33, .. })));
        let s = apply(&s, Action::Remove(r.into()));
        assert_eq!(s.scenario, fenced().scenario);
        assert_eq!(s.undo.len(), 2);

        let s = apply(&fenced(), Action::AddClient);
        assert_eq!(s.scenario.clients[2].name, "C");
        let s = apply(&s, Action::RemoveClient(0));
        let names: Vec<&str> = s.scenario.clients.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["B", "C"]);
        let mut s = fenced();
        for _ in 0..20 {
            s = apply(&s, Action::AddClient);
        }
        assert_eq!(s.scenario.clients.len(), MAX_CLIENTS);
        assert!(s.notice.is_some());
        let one = apply(
            &apply(&fenced(), Action::RemoveClient(1)),
            Action::RemoveClient(0),
        );
        assert_eq!(one.scenario.clients.len(), 1);
        assert!(one.notice.is_some());
    }

    #[test]
    fn settings_are_undoable_edits() {
        let s = apply(&fenced(), Action::SetFenceRule(FenceRule::Off));
        let s = apply(&s, Action::SetTtl(0));
        let s = apply(&s, Action::SetFirstFence(1));
        let s = apply(&s, Action::SetWatchdog(true));
        assert_eq!(s.scenario.storage.fence_rule, FenceRule::Off);
        assert_eq!(s.scenario.lock.ttl_ms, 1);
        assert_eq!(s.scenario.lock.first_fence, 1);
        assert!(s.scenario.lock.watchdog);
        let mut back = s;
        for _ in 0..4 {
            back = apply(&back, Action::Undo);
        }
        assert_eq!(back.scenario, fenced().scenario);
    }

    #[test]
    fn nonsense_and_readonly_change_nothing() {
        let ghost = EventRef {
            client: 9,
            event: 9,
        };
        for action in [
            Action::Remove(ghost.into()),
            Action::Select(ghost.into()),
            Action::Nudge {
                target: ghost.into(),
                part: Part::Body,
                delta_ms: 5,
            },
            Action::Add {
                client: 7,
                tool: Tool::Crash,
                at_ms: 5,
            },
            Action::RemoveClient(7),
            Action::Undo,
            Action::DragEnd,
            Action::DragMove {
                pointer_ms: 3,
                client: Some(1),
                instance: None,
            },
        ] {
            let s = apply(&fenced(), action.clone());
            assert_eq!(s.scenario, fenced().scenario, "{action:?}");
            assert_eq!(s.selection.event(), None, "{action:?}");
        }
        let ro = State::new(fenced().scenario, None, true);
        let s = drag(
            ro.clone(),
            DragTarget::Item(A_PAUSE.into(), Part::End),
            45,
            &[(10, None)],
        );
        assert_eq!(s.scenario, ro.scenario);
        let s = apply(&ro, Action::SetWatchdog(true));
        assert_eq!(s.scenario, ro.scenario);
        let s = drag(ro.clone(), DragTarget::Playhead, 10, &[(12, None)]);
        assert_eq!(s.playhead_ms, 12);
    }

    #[test]
    fn presets_load_as_undoable_steps() {
        let s = apply(&fenced(), Action::LoadPreset("bare-del".into()));
        assert_eq!(s.preset_id.as_deref(), Some("bare-del"));
        assert_eq!(s.scenario.clients.len(), 3);
        let s = apply(&s, Action::Undo);
        assert_eq!(s.scenario, fenced().scenario);
        let s = apply(&fenced(), Action::LoadPreset("nope".into()));
        assert_eq!(s.scenario, fenced().scenario);
        assert!(s.notice.is_some());
    }

    #[test]
    fn undo_is_bounded() {
        let mut s = fenced();
        for i in 0..(UNDO_LIMIT as i64 + 20) {
            s = apply(
                &s,
                Action::Nudge {
                    target: A_DEBIT.into(),
                    part: Part::Body,
                    delta_ms: if i % 2 == 0 { 1 } else { -1 },
                },
            );
        }
        assert_eq!(s.undo.len(), UNDO_LIMIT);
    }

    fn set(s: &State, target: EventRef, field: Field, value: &str) -> State {
        apply(
            s,
            Action::SetField {
                target: target.into(),
                field,
                value: value.to_string(),
            },
        )
    }

    #[test]
    fn the_inspector_sets_a_field_as_one_undo_step() {
        let s = apply(&fenced(), Action::Select(A_DEBIT.into()));
        let n = set(&s, A_DEBIT, Field::Amount, "25");
        assert!(matches!(
            n.event(A_DEBIT),
            Some(Event::Debit { amount: 25, .. })
        ));
        assert_eq!(n.undo.len(), s.undo.len() + 1);
        assert_eq!(
            n.selection.event(),
            Some(A_DEBIT),
            "the edited event stays selected"
        );
        assert_eq!(n.notice, None);
        // The trace follows: A's stale debit is still rejected, the ghost takes 25.
        let trace = crate::sim::run(&n.scenario);
        assert_eq!(trace.final_balance, 90);
        let keyed = set(&n, A_DEBIT, Field::Key, "pay-1");
        assert!(matches!(
            keyed.event(A_DEBIT),
            Some(Event::Debit { idempotency_key: Some(k), .. }) if k == "pay-1"
        ));
        let back = apply(&apply(&keyed, Action::Undo), Action::Undo);
        assert_eq!(back.scenario, s.scenario);
        assert_eq!(apply(&back, Action::Redo).scenario, n.scenario);
        // The same value again is no edit at all.
        assert_eq!(
            set(&n, A_DEBIT, Field::Amount, "25").undo.len(),
            n.undo.len()
        );
    }

    #[test]
    fn refused_text_keeps_the_scenario_and_names_the_field() {
        let s = fenced();
        for (field, v, words) in [
            (
                Field::Amount,
                "-3",
                "amount: expected a whole number from 0 to",
            ),
            (Field::Amount, "2000000000", "amount:"),
            (Field::Amount, "lots", "amount:"),
            (Field::Delay, "-1", "delay ms:"),
            (Field::Gap, "3", "a debit has no gap ms"),
        ] {
            let n = set(&s, A_DEBIT, field, v);
            assert_eq!(n.scenario, s.scenario, "{field:?}={v}");
            assert_eq!(n.undo.len(), s.undo.len());
            let notice = n.notice.clone().unwrap_or_default();
            assert!(notice.contains(words), "{field:?}={v}: {notice}");
            // The next action clears the notice.
            assert_eq!(apply(&n, Action::Resize(800)).notice, None);
        }
        // A key longer than the scenario allows is refused by validation, naming the field.
        let n = set(&s, A_DEBIT, Field::Key, &"k".repeat(41));
        assert_eq!(n.scenario, s.scenario);
        assert!(n.notice.is_some_and(|m| m.contains("idempotencyKey")));
        // No such event: nothing happens.
        let ghost = EventRef {
            client: 5,
            event: 0,
        };
        assert_eq!(
            set(&s, ghost, Field::Amount, "1"),
            apply(&s, Action::Resize(s.width_px))
        );
    }

    #[test]
    fn every_kind_of_client_event_is_edited_through_the_inspector() {
        let s = fenced();
        let p = set(&s, A_PAUSE, Field::Cause, "sigstop");
        let p = set(&p, A_PAUSE, Field::Duration, "12");
        assert!(matches!(
            p.event(A_PAUSE),
            Some(Event::Pause {
                cause: PauseCause::Sigstop,
                duration_ms: 12,
                ..
            })
        ));
        let refused = set(&p, A_PAUSE, Field::Duration, "0");
        assert_eq!(refused.scenario, p.scenario);
        let mut s = s;
        for tool in [Tool::CheckThenWrite, Tool::Release] {
            s = apply(
                &s,
                Action::Add {
                    client: 1,
                    tool,
                    at_ms: 70,
                },
            );
        }
        let n = s.scenario.clients[1].events.len();
        let ctw = EventRef {
            client: 1,
            event: n - 2,
        };
        let rel = EventRef {
            client: 1,
            event: n - 1,
        };
        let c = set(&s, ctw, Field::Gap, "7");
        let c = set(&c, rel, Field::Mode, "bare_del");
        assert!(matches!(
            c.event(ctw),
            Some(Event::CheckThenWrite { gap_ms: 7, .. })
        ));
        assert_eq!(
            c.event(rel),
            Some(&Event::Release {
                at_ms: 70,
                mode: ReleaseKind::BareDel
            })
        );
        // A client's clock jump.
        let mut j = c.clone();
        j.scenario.clients[0].events.push(Event::ClockJump {
            at_ms: 3,
            by_ms: 10,
        });
        let jr = EventRef {
            client: 0,
            event: j.scenario.clients[0].events.len() - 1,
        };
        let j = set(&j, jr, Field::By, "-20");
        assert_eq!(
            j.event(jr),
            Some(&Event::ClockJump {
                at_ms: 3,
                by_ms: -20
            })
        );
    }

    #[test]
    fn a_read_only_view_never_sets_a_field() {
        let ro = State::new(fenced().scenario, None, true);
        let n = set(&ro, A_DEBIT, Field::Amount, "25");
        assert_eq!(n.scenario, ro.scenario);
        assert_eq!(n.notice, None);
    }
}

/// The same editing model on the events of Redlock's instances.
#[cfg(test)]
mod redlock_tests {
    use super::*;
    use crate::sim::presets::preset;
    use crate::sim::scenario::InstanceEvent;
    use crate::ui::model::keys::key_action;
    use crate::ui::model::selection::{EventRef, InstanceRef};
    use crate::ui::model::state::{DragTarget, InstanceAction, BIG_STEP_MS};
    use crate::ui::model::tools::{InstanceTool, Tool};

    /// The id of the empty Redlock scenario among the presets.
    const EMPTY_REDLOCK_ID: &str = "redlock-empty";

    /// The one key map, for a focused instance event.
    fn ikey(key: &str, shift: bool, focus: Option<(InstanceRef, Part)>) -> Option<Action> {
        key_action(key, shift, false, false, focus.map(|(r, p)| (r.into(), p)))
    }

    fn empty() -> State {
        apply(
            &State::default_page(),
            Action::LoadPreset(EMPTY_REDLOCK_ID.into()),
        )
    }

    fn act(s: &State, a: impl Into<Action>) -> State {
        apply(s, a.into())
    }

    impl From<InstanceAction> for Action {
        fn from(a: InstanceAction) -> Action {
            Action::Instance(a)
        }
    }

    const R3: InstanceRef = InstanceRef {
        instance: 2,
        event: 0,
    };

    fn with(tool: InstanceTool, instance: usize, at_ms: u64) -> State {
        act(
            &empty(),
            InstanceAction::Add {
                instance,
                tool,
                at_ms,
            },
        )
    }

    fn span(s: &State, r: InstanceRef) -> (u64, u64) {
        let e = s.instance_event(r).expect("the event exists");
        (e.at_ms(), e.end_ms())
    }

    #[test]
    fn the_empty_redlock_preset_loads_by_its_picker_id() {
        let s = empty();
        assert_eq!(s.preset_id.as_deref(), Some(EMPTY_REDLOCK_ID));
        let r = s.scenario.lock.redlock().expect("redlock");
        assert_eq!(r.instances.len(), 5);
        assert!(preset("nope").is_none());
    }

    #[test]
    fn adding_selects_the_new_event_and_remembers_the_tool() {
        let s = with(InstanceTool::ClockJump, 2, 70);
        assert_eq!(s.selection.instance(), Some(R3));
        assert_eq!(s.selection.event(), None);
        assert_eq!(s.instance_tool, InstanceTool::ClockJump);
        assert_eq!(
            s.instance_event(R3),
            Some(&InstanceEvent::ClockJump {
                at_ms: 70,
                by_ms: 60,
                over_ms: 0
            })
        );
        assert_eq!(s.undo.len(), 2, "the preset, then the jump");
        // No such instance: nothing changes.
        let none = act(
            &empty(),
            InstanceAction::Add {
                instance: 9,
                tool: InstanceTool::Crash,
                at_ms: 1,
            },
        );
        assert_eq!(none.scenario, empty().scenario);
        // A single Redis has no instances to add to.
        let single = act(
            &State::default_page(),
            InstanceAction::Add {
                instance: 0,
                tool: InstanceTool::Crash,
                at_ms: 1,
            },
        );
        assert_eq!(single.scenario, State::default_page().scenario);
    }

    #[test]
    fn dragging_a_crash_over_another_instance_lane_moves_it_there() {
        let s = with(InstanceTool::Crash, 2, 70);
        let mut d = apply(
            &s,
            Action::DragStart {
                target: DragTarget::Item(R3.into(), Part::Body),
                pointer_ms: 70,
                axis_end_ms: 140,
            },
        );
        // Over R5, then back over R1, and to 40 ms; a move off the instance lanes stays put.
        for (pointer_ms, instance) in [(60, Some(4)), (50, Some(0)), (40, None)] {
            d = apply(
                &d,
                Action::DragMove {
                    pointer_ms,
                    client: None,
                    instance,
                },
            );
        }
        let d = apply(&d, Action::DragEnd);
        let r1 = InstanceRef {
            instance: 0,
            event: 0,
        };
        assert_eq!(d.selection.instance(), Some(r1));
        assert_eq!(d.instance_event(r1).map(|e| e.at_ms()), Some(40));
        let lists = &d.scenario.lock.redlock().expect("redlock").instances;
        assert!(lists[2].events.is_empty() && lists[4].events.is_empty());
        assert_eq!(d.undo.len(), s.undo.len() + 1, "one undo step");
        assert_eq!(span(&apply(&d, Action::Undo), R3), span(&s, R3));
        // Its edges never change lanes.
        let e = apply(
            &s,
            Action::DragStart {
                target: DragTarget::Item(R3.into(), Part::End),
                pointer_ms: 80,
                axis_end_ms: 140,
            },
        );
        let e = apply(
            &e,
            Action::DragMove {
                pointer_ms: 90,
                client: None,
                instance: Some(0),
            },
        );
        assert_eq!(e.selection.instance(), Some(R3));
    }

    #[test]
    fn dragging_a_jump_moves_it_as_one_undo_step() {
        let s = with(InstanceTool::ClockJump, 2, 70);
        let mut d = apply(
            &s,
            Action::DragStart {
                target: DragTarget::Item(R3.into(), Part::Body),
                pointer_ms: 72,
                axis_end_ms: 140,
            },
        );
        for pointer_ms in [50, 30, 17] {
            d = apply(
                &d,
                Action::DragMove {
                    pointer_ms,
                    client: Some(0),
                    instance: None,
                },
            );
        }
        let d = apply(&d, Action::DragEnd);
        assert_eq!(span(&d, R3), (15, 15), "the grab offset of 2 ms is kept");
        assert_eq!(d.undo.len(), s.undo.len() + 1);
        assert_eq!(d.selection.instance(), Some(R3));
        assert_eq!(span(&apply(&d, Action::Undo), R3), (70, 70));
        // A jump has no edges to grab.
        let e = apply(
            &s,
            Action::DragStart {
                target: DragTarget::Item(R3.into(), Part::End),
                pointer_ms: 70,
                axis_end_ms: 140,
            },
        );
        assert!(e.drag.is_none());
    }

    #[test]
    fn crash_and_partition_edges_resize_and_keep_a_millisecond() {
        let crash = with(InstanceTool::Crash, 2, 20);
        let cut = with(InstanceTool::Partition, 3, 20);
        let cases: &[(&State, Part, i64, (u64, u64))] = &[
            (&crash, Part::End, 5, (20, 35)),
            (&crash, Part::End, -50, (20, 21)),
            (&crash, Part::Start, -20, (0, 30)),
            (&crash, Part::Start, 40, (29, 30)),
            (&crash, Part::Body, BIG_STEP_MS, (30, 40)),
            (&cut, Part::End, 80, (20, 140)),
            (&cut, Part::Start, -25, (0, 60)),
        ];
        for &(s, part, delta_ms, want) in cases {
            let target = s.selection.instance().expect("selected");
            let n = act(
                s,
                Action::Nudge {
                    target: target.into(),
                    part,
                    delta_ms,
                },
            );
            assert_eq!(span(&n, target), want, "{part:?} {delta_ms}");
        }
    }

    #[test]
    fn keys_move_between_instances_and_delete() {
        let s = with(InstanceTool::Partition, 0, 70);
        let r = InstanceRef {
            instance: 0,
            event: 0,
        };
        let down = |r| ikey("ArrowDown", false, Some((r, Part::Body)));
        let mut s = s;
        let mut r = r;
        for _ in 0..3 {
            let a = down(r).expect("a key action");
            s = apply(&s, a);
            r = s.selection.instance().expect("still selected");
        }
        assert_eq!(r.instance, 3);
        let up = ikey("ArrowUp", false, Some((r, Part::Body))).expect("up");
        assert_eq!(
            apply(&s, up).selection.instance().map(|r| r.instance),
            Some(2)
        );
        // Past the last instance nothing moves.
        let last = InstanceRef {
            instance: 4,
            event: 0,
        };
        let s4 = act(
            &s,
            Action::ShiftLane {
                target: r.into(),
                by: 1,
            },
        );
        assert_eq!(s4.selection.instance(), Some(last));
        let same = act(
            &s4,
            Action::ShiftLane {
                target: last.into(),
                by: 1,
            },
        );
        assert_eq!(same.scenario, s4.scenario);
        assert_eq!(ikey("ArrowUp", false, Some((last, Part::End))), None);
        let del = ikey("Delete", false, Some((last, Part::Body))).expect("delete");
        let gone = apply(&s4, del);
        assert_eq!(gone.instance_event(last), None);
        assert_eq!(gone.selection.instance(), None);
        assert_eq!(
            ikey("ArrowRight", true, Some((last, Part::Start))),
            Some(Action::Nudge {
                target: last.into(),
                part: Part::Start,
                delta_ms: 10
            })
        );
        assert_eq!(ikey("a", false, Some((last, Part::Body))), None);
        assert_eq!(ikey("Delete", false, None), None);
    }

    /// The inspector's text for field `f` of `r`.
    fn set(s: &State, r: InstanceRef, f: Field, v: &str) -> State {
        apply(
            s,
            Action::SetField {
                target: r.into(),
                field: f,
                value: v.into(),
            },
        )
    }

    #[test]
    fn the_inspector_sets_fields_and_invalid_ones_are_refused() {
        let s = with(InstanceTool::Partition, 3, 0);
        let r = InstanceRef {
            instance: 3,
            event: 0,
        };
        let to_a = set(&set(&s, r, Field::Duration, "140"), r, Field::Who, "A");
        assert!(matches!(
            to_a.instance_event(r),
            Some(InstanceEvent::Partition { client: Some(c), duration_ms: 140, .. }) if c == "A"
        ));
        assert_eq!(to_a.undo.len(), s.undo.len() + 2);
        assert_eq!(
            to_a.selection.instance(),
            Some(r),
            "the edited event stays selected"
        );
        let bad = set(&s, r, Field::Who, "Z");
        assert_eq!(bad.scenario, s.scenario);
        assert!(bad.notice.as_deref().is_some_and(|n| n.contains("Z")));
        // A slew faster than half a millisecond per millisecond is refused too.
        let j = with(InstanceTool::ClockJump, 2, 15);
        let fast = set(&j, R3, Field::Over, "60");
        assert_eq!(fast.scenario, j.scenario);
        assert!(fast.notice.is_some());
        // Text that is no number is refused naming the field, like a client event's.
        let typo = set(&j, R3, Field::By, "lots");
        assert_eq!(typo.scenario, j.scenario);
        assert_eq!(
            typo.notice.as_deref(),
            Some("by ms: expected a whole number, got \"lots\"")
        );
        assert_eq!(apply(&typo, Action::Resize(800)).notice, None);
        // A number past the scenario's limits is refused by validation, naming the JSON field.
        let crash = with(InstanceTool::Crash, 0, 20);
        let r1 = InstanceRef {
            instance: 0,
            event: 0,
        };
        let long = set(&crash, r1, Field::Duration, "20000000");
        assert_eq!(long.scenario, crash.scenario);
        assert!(long.notice.is_some_and(|n| n.contains("downMs")));
        // A read-only view never sets a field.
        let ro = State::new(j.scenario.clone(), None, true);
        let n = set(&ro, R3, Field::By, "5");
        assert_eq!((n.scenario, n.notice), (ro.scenario, None));
    }

    #[test]
    fn the_service_switches_between_single_and_redlock_keeping_events() {
        let s = with(InstanceTool::Crash, 1, 20);
        let three = act(&s, InstanceAction::SetService(3));
        let names: Vec<String> = three
            .scenario
            .lock
            .redlock()
            .into_iter()
            .flat_map(|r| r.instances.iter().map(|i| i.name.clone()))
            .collect();
        assert_eq!(names, ["R1", "R2", "R3"]);
        let seven = act(&three, InstanceAction::SetService(7));
        let r = seven.scenario.lock.redlock().expect("redlock");
        assert_eq!(r.instances.len(), 7);
        assert_eq!(r.instances[6].name, "R7");
        assert_eq!(r.instances[6].latency_ms, 1);
        assert_eq!(r.instances[1].events.len(), 1, "R2's crash is kept");
        assert_eq!(r.majority(), 4);
        let single = act(&seven, InstanceAction::SetService(0));
        assert!(single.scenario.lock.redlock().is_none());
        assert_eq!(
            single.selection.instance(),
            None,
            "no instance, no selection"
        );
        let back = act(&single, InstanceAction::SetService(5));
        let r = back.scenario.lock.redlock().expect("redlock");
        assert!(!r.parallel && !r.fence && r.timeout_ms == 5);
        let p = act(&back, InstanceAction::SetParallel(true));
        let f = act(&p, InstanceAction::SetFence(true));
        let r = f.scenario.lock.redlock().expect("redlock");
        assert!(r.parallel && r.fence);
        let undone = apply(&apply(&f, Action::Undo), Action::Undo);
        assert_eq!(undone.scenario, back.scenario);
        // On a single Redis the Redlock switches change nothing.
        let d = State::default_page();
        assert_eq!(act(&d, InstanceAction::SetFence(true)).scenario, d.scenario);
    }

    #[test]
    fn one_selection_at_a_time_and_none_that_does_not_exist() {
        let s = with(InstanceTool::Crash, 2, 20);
        let client = EventRef {
            client: 0,
            event: 0,
        };
        let a = apply(
            &s,
            Action::Instance(InstanceAction::Add {
                instance: 0,
                tool: InstanceTool::Crash,
                at_ms: 1,
            }),
        );
        assert!(a.selection.instance().is_some());
        let added = apply(
            &a,
            Action::Add {
                client: 0,
                tool: Tool::Acquire,
                at_ms: 0,
            },
        );
        assert_eq!(added.selection.event(), Some(client));
        assert_eq!(added.selection.instance(), None);
        let back = act(&added, Action::Select(R3.into()));
        assert_eq!(
            (back.selection.event(), back.selection.instance()),
            (None, Some(R3))
        );
        let cleared = apply(&back, Action::Select(Selection::None));
        assert_eq!(cleared.selection.instance(), None);
        let ghost = act(
            &s,
            Action::Select(Selection::Instance(InstanceRef {
                instance: 2,
                event: 7,
            })),
        );
        assert_eq!(ghost.selection.instance(), None);
        // Undoing the add takes the selection with it.
        let undone = apply(&s, Action::Undo);
        assert_eq!(undone.selection.instance(), None);
        // A read-only view selects but never edits.
        let ro = State::new(s.scenario.clone(), None, true);
        let sel = act(&ro, Action::Select(R3.into()));
        assert_eq!(sel.selection.instance(), Some(R3));
        let del = act(&sel, Action::Remove(R3.into()));
        assert_eq!(del.scenario, ro.scenario);
        assert_eq!(InstanceRef::from_attr(&R3.attr()), Some(R3));
        assert_eq!(InstanceRef::from_attr("x-1"), None);
    }

    #[test]
    fn an_instance_clock_turns_monotonic_and_its_latency_is_set_by_hand() {
        let jump = apply(
            &State::default_page(),
            Action::LoadPreset("redlock-clock-jump".into()),
        );
        assert!(!crate::sim::run(&jump.scenario).verdict.safe);
        let mono = act(
            &jump,
            InstanceAction::SetMonotonic {
                instance: 2,
                on: true,
            },
        );
        let r = mono.scenario.lock.redlock().expect("redlock");
        assert!(r.instances[2].clock.monotonic);
        assert!(crate::sim::run(&mono.scenario).verdict.safe);
        // The hand-made scenario is the monotonic preset, and undo puts the jump back.
        let preset = crate::sim::presets::preset("redlock-monotonic").expect("preset");
        assert_eq!(mono.scenario.lock, preset.lock);
        assert_eq!(apply(&mono, Action::Undo).scenario, jump.scenario);

        let slow = act(
            &mono,
            InstanceAction::SetLatency {
                instance: 4,
                value: " 7 ".into(),
            },
        );
        let r = slow.scenario.lock.redlock().expect("redlock");
        assert_eq!(r.instances[4].latency_ms, 7);
        assert_eq!(slow.undo.len(), mono.undo.len() + 1);
        for bad in ["-1", "fast", "", "10000001"] {
            let n = act(
                &slow,
                InstanceAction::SetLatency {
                    instance: 4,
                    value: bad.into(),
                },
            );
            assert_eq!(n.scenario, slow.scenario, "{bad:?}");
            let notice = n.notice.unwrap_or_default();
            assert!(notice.starts_with("R5 latency ms: expected"), "{notice}");
        }
        // No such instance, a single Redis, or a read-only view: nothing changes.
        let none = act(
            &slow,
            InstanceAction::SetMonotonic {
                instance: 9,
                on: true,
            },
        );
        assert_eq!(none.scenario, slow.scenario);
        let d = State::default_page();
        let single = act(
            &d,
            InstanceAction::SetLatency {
                instance: 0,
                value: "3".into(),
            },
        );
        assert_eq!(single.scenario, d.scenario);
        let ro = State::new(jump.scenario.clone(), None, true);
        let n = act(
            &ro,
            InstanceAction::SetMonotonic {
                instance: 2,
                on: true,
            },
        );
        assert_eq!(n.scenario, ro.scenario);
    }
}
