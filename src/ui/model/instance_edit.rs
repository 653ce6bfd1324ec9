//! Edits of a Redlock lock service: the events of its instances (clock jumps, crashes,
//! partitions) and its settings (how many instances, sequential or parallel, the fenced
//! variant). Pure like `state`: `apply_instance` turns one `InstanceAction` into the next state
//! through the same validated, undoable `edit` every other change goes through, so adding,
//! dragging, nudging and deleting an instance event are tested natively.

use super::event_edit::whole;
use super::state::{edit, Action, DragTarget, Part, State, BIG_STEP_MS};
use crate::sim::presets::empty_redlock;
use crate::sim::scenario::{Instance, InstanceEvent, Redlock, MAX_TIME_MS};
use crate::sim::Scenario;

/// The id of the empty Redlock scenario among the presets.
pub const EMPTY_REDLOCK_ID: &str = "redlock-empty";
/// The service sizes the settings offer.
pub const SERVICE_SIZES: [usize; 3] = [3, 5, 7];
/// How long a new crash keeps an instance down, and a new partition lasts.
const NEW_DOWN_MS: u64 = 10;
const NEW_CUT_MS: u64 = 40;

/// A preset the picker offers: one of `presets()`, or the empty Redlock scenario.
pub fn ui_preset(id: &str) -> Option<Scenario> {
    crate::sim::presets::preset(id).or_else(|| (id == EMPTY_REDLOCK_ID).then(empty_redlock))
}

/// One event of one instance: indices into `lock.redlock.instances[instance].events[event]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InstanceRef {
    pub instance: usize,
    pub event: usize,
}

impl InstanceRef {
    /// The `data-iev` attribute value: "instance-event".
    pub fn attr(self) -> String {
        format!("{}-{}", self.instance, self.event)
    }

    pub fn from_attr(attr: &str) -> Option<InstanceRef> {
        let (i, e) = attr.split_once('-')?;
        Some(InstanceRef {
            instance: i.parse().ok()?,
            event: e.parse().ok()?,
        })
    }
}

/// What the instance palette adds, and what a double-click on an instance lane adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstanceTool {
    ClockJump,
    Crash,
    Partition,
}

impl InstanceTool {
    pub const ALL: [InstanceTool; 3] = [
        InstanceTool::ClockJump,
        InstanceTool::Crash,
        InstanceTool::Partition,
    ];

    pub fn label(self) -> &'static str {
        match self {
            InstanceTool::ClockJump => "clock jump",
            InstanceTool::Crash => "crash + restart",
            InstanceTool::Partition => "partition",
        }
    }

    /// The tool an instance palette button carries while it is dragged (its label).
    pub fn from_label(label: &str) -> Option<InstanceTool> {
        InstanceTool::ALL.into_iter().find(|t| t.label() == label)
    }

    /// The event this tool creates at `at_ms`. A new jump steps the clock by one TTL, enough
    /// to expire any key the instance holds; a new crash forgets keys (no persistence).
    pub fn event(self, at_ms: u64, ttl_ms: u64) -> InstanceEvent {
        match self {
            InstanceTool::ClockJump => InstanceEvent::ClockJump {
                at_ms,
                by_ms: ttl_ms.min(MAX_TIME_MS) as i64,
                over_ms: 0,
            },
            InstanceTool::Crash => InstanceEvent::Crash {
                at_ms,
                down_ms: NEW_DOWN_MS,
                persistent: false,
            },
            InstanceTool::Partition => InstanceEvent::Partition {
                at_ms,
                duration_ms: NEW_CUT_MS,
                client: None,
            },
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstanceAction {
    Select(Option<InstanceRef>),
    Add {
        instance: usize,
        tool: InstanceTool,
        at_ms: u64,
    },
    Remove(InstanceRef),
    /// A key press: move a part of an event by `delta_ms`.
    Nudge {
        target: InstanceRef,
        part: Part,
        delta_ms: i64,
    },
    /// A key press: move an event `by` instance lanes up (negative) or down.
    ShiftLane {
        target: InstanceRef,
        by: i64,
    },
    /// The inspector changed a field of an event.
    Replace {
        target: InstanceRef,
        event: InstanceEvent,
    },
    /// 0: a single Redis; otherwise Redlock over that many instances.
    SetService(usize),
    SetParallel(bool),
    SetFence(bool),
    /// An instance measures its TTLs with a monotonic clock, which its clock jumps do not move.
    SetMonotonic {
        instance: usize,
        on: bool,
    },
    /// An instance's one-way latency, as typed; text that is no valid latency is refused.
    SetLatency {
        instance: usize,
        value: String,
    },
}

pub fn instance_event(s: &Scenario, r: InstanceRef) -> Option<&InstanceEvent> {
    s.lock
        .redlock
        .as_ref()?
        .instances
        .get(r.instance)?
        .events
        .get(r.event)
}

fn events_mut(s: &mut Scenario, instance: usize) -> Option<&mut Vec<InstanceEvent>> {
    Some(&mut s.lock.redlock.as_mut()?.instances.get_mut(instance)?.events)
}

/// Applies one instance action to `next` (a copy of the current state). Edits that would make
/// the scenario invalid are refused with a notice, like every other edit.
pub fn apply_instance(next: &mut State, action: InstanceAction) {
    let s = &next.scenario;
    match action {
        InstanceAction::Select(r) => {
            next.selected_instance = r.filter(|r| instance_event(s, *r).is_some());
            if next.selected_instance.is_some() {
                next.selected = None;
            }
        }
        InstanceAction::Add {
            instance,
            tool,
            at_ms,
        } => {
            next.instance_tool = tool;
            let mut s = s.clone();
            let ttl_ms = s.lock.ttl_ms;
            if let Some(events) = events_mut(&mut s, instance) {
                events.push(tool.event(at_ms.min(MAX_TIME_MS), ttl_ms));
                let r = InstanceRef {
                    instance,
                    event: events.len() - 1,
                };
                change(next, s, Some(r));
            }
        }
        InstanceAction::Remove(r) => {
            if instance_event(s, r).is_some() {
                let mut s = s.clone();
                if let Some(events) = events_mut(&mut s, r.instance) {
                    events.remove(r.event);
                }
                change(next, s, None);
                next.focus_ticket = next.focus_ticket.wrapping_add(1);
            }
        }
        InstanceAction::Nudge {
            target,
            part,
            delta_ms,
        } => {
            if let Some(e) = instance_event(s, target) {
                let to = edge_ms(e, part) as i64;
                let mut s = s.clone();
                if set_edge(&mut s, target, part, to.saturating_add(delta_ms)) {
                    change(next, s, Some(target));
                }
                next.focus_ticket = next.focus_ticket.wrapping_add(1);
            }
        }
        InstanceAction::ShiftLane { target, by } => {
            let to = target.instance as i64 + by;
            if instance_event(s, target).is_some() && to >= 0 {
                let mut s = s.clone();
                if let Some(r) = move_to_instance(&mut s, target, to as usize) {
                    change(next, s, Some(r));
                }
            }
            next.focus_ticket = next.focus_ticket.wrapping_add(1);
        }
        InstanceAction::Replace { target, event } => {
            let mut s = s.clone();
            if let Some(e) =
                events_mut(&mut s, target.instance).and_then(|v| v.get_mut(target.event))
            {
                *e = event;
                change(next, s, Some(target));
            }
        }
        InstanceAction::SetService(n) => {
            let s = with_service(s, n);
            let keep = next.selected_instance;
            change(next, s, keep);
        }
        InstanceAction::SetParallel(on) => {
            let mut s = s.clone();
            if let Some(r) = s.lock.redlock.as_mut() {
                r.parallel = on;
                let keep = next.selected_instance;
                change(next, s, keep);
            }
        }
        InstanceAction::SetFence(on) => {
            let mut s = s.clone();
            if let Some(r) = s.lock.redlock.as_mut() {
                r.fence = on;
                let keep = next.selected_instance;
                change(next, s, keep);
            }
        }
        InstanceAction::SetMonotonic { instance, on } => {
            let mut s = s.clone();
            if let Some(i) = instance_mut(&mut s, instance) {
                i.clock.monotonic = on;
                let keep = next.selected_instance;
                change(next, s, keep);
            }
        }
        InstanceAction::SetLatency { instance, value } => {
            let mut s = s.clone();
            if let Some(i) = instance_mut(&mut s, instance) {
                let label = format!("{} latency ms", i.name);
                match whole(&label, &value, 0, MAX_TIME_MS as i64) {
                    Ok(ms) => {
                        i.latency_ms = ms as u64;
                        let keep = next.selected_instance;
                        change(next, s, keep);
                    }
                    Err(why) => next.notice = Some(why),
                }
            }
        }
    }
}

fn instance_mut(s: &mut Scenario, instance: usize) -> Option<&mut Instance> {
    s.lock.redlock.as_mut()?.instances.get_mut(instance)
}

/// One validated, undoable edit that leaves `selected` as the selection if it was accepted.
fn change(next: &mut State, s: Scenario, selected: Option<InstanceRef>) {
    edit(next, s, None);
    if next.notice.is_none() {
        next.selected = None;
        next.selected_instance = selected.filter(|r| instance_event(&next.scenario, *r).is_some());
    }
}

/// The scenario with its lock service switched to a single Redis (`n` = 0) or to Redlock over
/// `n` instances. Instances that remain keep their events; new ones are R1..Rn, 1 ms away.
pub fn with_service(s: &Scenario, n: usize) -> Scenario {
    let mut s = s.clone();
    if n == 0 {
        s.lock.redlock = None;
        return s;
    }
    let r = s
        .lock
        .redlock
        .get_or_insert_with(|| Redlock::standard(Vec::new()));
    r.instances.truncate(n);
    while r.instances.len() < n {
        r.instances.push(Instance {
            name: format!("R{}", r.instances.len() + 1),
            clock: Default::default(),
            latency_ms: 1,
            events: Vec::new(),
        });
    }
    s
}

/// Whether `part` can be dragged on `e`: crashes and partitions have two edges, a jump none.
pub fn part_applies(e: &InstanceEvent, part: Part) -> bool {
    part == Part::Body || !matches!(e, InstanceEvent::ClockJump { .. })
}

/// The time of the edge a part moves.
pub fn edge_ms(e: &InstanceEvent, part: Part) -> u64 {
    match part {
        Part::Body | Part::Start => e.at_ms(),
        Part::End => e.end_ms(),
    }
}

/// Pointer time minus the grabbed edge when a drag starts, or `None` if nothing can be grabbed.
pub fn grab_offset(s: &Scenario, r: InstanceRef, part: Part, pointer_ms: u64) -> Option<i64> {
    let e = instance_event(s, r).filter(|e| part_applies(e, part))?;
    Some(pointer_ms as i64 - edge_ms(e, part) as i64)
}

/// A dragged instance event: its edge follows the pointer, and its body moves to the instance
/// lane the pointer is over. The drag keeps hold of the event wherever it moved.
pub fn drag_to(next: &mut State, r: InstanceRef, part: Part, to_ms: i64, over: Option<usize>) {
    let mut s = next.scenario.clone();
    let mut r = r;
    if part == Part::Body {
        if let Some(to) = over.filter(|i| *i != r.instance) {
            match move_to_instance(&mut s, r, to) {
                Some(moved) => r = moved,
                None => return,
            }
        }
    }
    if set_edge(&mut s, r, part, to_ms) {
        change(next, s, Some(r));
        if let Some(d) = next.drag.as_mut() {
            if next.selected_instance == Some(r) {
                d.target = DragTarget::Instance(r, part);
            }
        }
    }
}

/// Moves one edge of an instance event to `to_ms` (clamped to the valid range). A crash or a
/// partition keeps at least 1 ms; moving its start keeps its end. False if nothing applies.
pub fn set_edge(s: &mut Scenario, r: InstanceRef, part: Part, to_ms: i64) -> bool {
    let Some(e) = events_mut(s, r.instance).and_then(|v| v.get_mut(r.event)) else {
        return false;
    };
    if !part_applies(e, part) {
        return false;
    }
    let to = to_ms.clamp(0, MAX_TIME_MS as i64) as u64;
    let (start, end) = (e.at_ms(), e.end_ms());
    let (at, len) = match part {
        Part::Body => {
            e.set_at_ms(to);
            return true;
        }
        Part::Start => {
            let at = to.min(end.saturating_sub(1));
            (at, end - at)
        }
        Part::End => (start, to.saturating_sub(start).max(1)),
    };
    match e {
        InstanceEvent::Crash { at_ms, down_ms, .. } => (*at_ms, *down_ms) = (at, len),
        InstanceEvent::Partition {
            at_ms, duration_ms, ..
        } => (*at_ms, *duration_ms) = (at, len),
        InstanceEvent::ClockJump { .. } => return false,
    }
    true
}

/// Moves an event to the end of another instance's list; returns where it now lives.
pub fn move_to_instance(s: &mut Scenario, r: InstanceRef, to: usize) -> Option<InstanceRef> {
    let instances = &mut s.lock.redlock.as_mut()?.instances;
    if r.instance == to || to >= instances.len() {
        return None;
    }
    let events = &mut instances.get_mut(r.instance)?.events;
    if r.event >= events.len() {
        return None;
    }
    let e = events.remove(r.event);
    let target = &mut instances[to].events;
    target.push(e);
    Some(InstanceRef {
        instance: to,
        event: target.len() - 1,
    })
}

/// The keyboard map for a focused instance event, like the one for client events: Left/Right
/// move it (Shift: 10 ms), Up/Down move it to the instance above or below, Delete removes it.
pub fn key_action(key: &str, shift: bool, focus: Option<(InstanceRef, Part)>) -> Option<Action> {
    let (target, part) = focus?;
    let step = if shift { BIG_STEP_MS } else { 1 };
    let a = match key {
        "ArrowLeft" | "ArrowRight" => InstanceAction::Nudge {
            target,
            part,
            delta_ms: if key == "ArrowLeft" { -step } else { step },
        },
        "ArrowUp" | "ArrowDown" if part == Part::Body => InstanceAction::ShiftLane {
            target,
            by: if key == "ArrowUp" { -1 } else { 1 },
        },
        "Delete" | "Backspace" => InstanceAction::Remove(target),
        _ => return None,
    };
    Some(Action::Instance(a))
}

/// A copy of `e` with one field set from the text a person typed, or `None` if it is no number.
pub fn with_field(e: &InstanceEvent, field: &str, v: &str) -> Option<InstanceEvent> {
    let mut e = e.clone();
    let num = || v.trim().parse::<u64>().ok();
    match (&mut e, field) {
        (e, "at") => e.set_at_ms(num()?),
        (InstanceEvent::ClockJump { by_ms, .. }, "by") => *by_ms = v.trim().parse().ok()?,
        (InstanceEvent::ClockJump { over_ms, .. }, "over") => *over_ms = num()?,
        (InstanceEvent::Crash { down_ms, .. }, "len") => *down_ms = num()?.max(1),
        (InstanceEvent::Crash { persistent, .. }, "keep") => *persistent = v == "true",
        (InstanceEvent::Partition { duration_ms, .. }, "len") => *duration_ms = num()?.max(1),
        (InstanceEvent::Partition { client, .. }, "who") => {
            *client = (!v.is_empty()).then(|| v.to_string())
        }
        _ => return None,
    }
    Some(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::model::state::{apply, DragTarget};

    fn empty() -> State {
        apply(
            &State::default_page(),
            Action::LoadPreset(EMPTY_REDLOCK_ID.into()),
        )
    }

    fn act(s: &State, a: InstanceAction) -> State {
        apply(s, Action::Instance(a))
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
        let e = instance_event(&s.scenario, r).expect("the event exists");
        (e.at_ms(), e.end_ms())
    }

    #[test]
    fn a_dragged_instance_palette_button_names_its_tool() {
        for tool in InstanceTool::ALL {
            assert_eq!(InstanceTool::from_label(tool.label()), Some(tool));
        }
        assert_eq!(InstanceTool::from_label("crash"), None);
    }

    #[test]
    fn the_empty_redlock_preset_loads_by_its_picker_id() {
        let s = empty();
        assert_eq!(s.preset_id.as_deref(), Some(EMPTY_REDLOCK_ID));
        let r = s.scenario.lock.redlock.as_ref().expect("redlock");
        assert_eq!(r.instances.len(), 5);
        assert!(ui_preset("nope").is_none());
    }

    #[test]
    fn adding_selects_the_new_event_and_remembers_the_tool() {
        let s = with(InstanceTool::ClockJump, 2, 70);
        assert_eq!(s.selected_instance, Some(R3));
        assert_eq!(s.selected, None);
        assert_eq!(s.instance_tool, InstanceTool::ClockJump);
        assert_eq!(
            instance_event(&s.scenario, R3),
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
                target: DragTarget::Instance(R3, Part::Body),
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
        assert_eq!(d.selected_instance, Some(r1));
        assert_eq!(instance_event(&d.scenario, r1).map(|e| e.at_ms()), Some(40));
        let lists = &d.scenario.lock.redlock.as_ref().expect("redlock").instances;
        assert!(lists[2].events.is_empty() && lists[4].events.is_empty());
        assert_eq!(d.undo.len(), s.undo.len() + 1, "one undo step");
        assert_eq!(span(&apply(&d, Action::Undo), R3), span(&s, R3));
        // Its edges never change lanes.
        let e = apply(
            &s,
            Action::DragStart {
                target: DragTarget::Instance(R3, Part::End),
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
        assert_eq!(e.selected_instance, Some(R3));
    }

    #[test]
    fn dragging_a_jump_moves_it_as_one_undo_step() {
        let s = with(InstanceTool::ClockJump, 2, 70);
        let mut d = apply(
            &s,
            Action::DragStart {
                target: DragTarget::Instance(R3, Part::Body),
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
        assert_eq!(d.selected_instance, Some(R3));
        assert_eq!(span(&apply(&d, Action::Undo), R3), (70, 70));
        // A jump has no edges to grab.
        let e = apply(
            &s,
            Action::DragStart {
                target: DragTarget::Instance(R3, Part::End),
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
            let target = s.selected_instance.expect("selected");
            let n = act(
                s,
                InstanceAction::Nudge {
                    target,
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
        let down = |r| key_action("ArrowDown", false, Some((r, Part::Body)));
        let mut s = s;
        let mut r = r;
        for _ in 0..3 {
            let a = down(r).expect("a key action");
            s = apply(&s, a);
            r = s.selected_instance.expect("still selected");
        }
        assert_eq!(r.instance, 3);
        let up = key_action("ArrowUp", false, Some((r, Part::Body))).expect("up");
        assert_eq!(apply(&s, up).selected_instance.map(|r| r.instance), Some(2));
        // Past the last instance nothing moves.
        let last = InstanceRef {
            instance: 4,
            event: 0,
        };
        let s4 = act(&s, InstanceAction::ShiftLane { target: r, by: 1 });
        assert_eq!(s4.selected_instance, Some(last));
        let same = act(
            &s4,
            InstanceAction::ShiftLane {
                target: last,
                by: 1,
            },
        );
        assert_eq!(same.scenario, s4.scenario);
        assert_eq!(key_action("ArrowUp", false, Some((last, Part::End))), None);
        let del = key_action("Delete", false, Some((last, Part::Body))).expect("delete");
        let gone = apply(&s4, del);
        assert_eq!(instance_event(&gone.scenario, last), None);
        assert_eq!(gone.selected_instance, None);
        assert_eq!(
            key_action("ArrowRight", true, Some((last, Part::Start))),
            Some(Action::Instance(InstanceAction::Nudge {
                target: last,
                part: Part::Start,
                delta_ms: 10
            }))
        );
        assert_eq!(key_action("a", false, Some((last, Part::Body))), None);
        assert_eq!(key_action("Delete", false, None), None);
    }

    #[test]
    fn the_inspector_replaces_fields_and_invalid_ones_are_refused() {
        let s = with(InstanceTool::Partition, 3, 0);
        let r = InstanceRef {
            instance: 3,
            event: 0,
        };
        let to_a = act(
            &s,
            InstanceAction::Replace {
                target: r,
                event: InstanceEvent::Partition {
                    at_ms: 0,
                    duration_ms: 140,
                    client: Some("A".into()),
                },
            },
        );
        assert!(matches!(
            instance_event(&to_a.scenario, r),
            Some(InstanceEvent::Partition { client: Some(c), duration_ms: 140, .. }) if c == "A"
        ));
        let bad = act(
            &s,
            InstanceAction::Replace {
                target: r,
                event: InstanceEvent::Partition {
                    at_ms: 0,
                    duration_ms: 5,
                    client: Some("Z".into()),
                },
            },
        );
        assert_eq!(bad.scenario, s.scenario);
        assert!(bad.notice.as_deref().is_some_and(|n| n.contains("Z")));
        // A slew faster than half a millisecond per millisecond is refused too.
        let j = with(InstanceTool::ClockJump, 2, 15);
        let fast = act(
            &j,
            InstanceAction::Replace {
                target: R3,
                event: InstanceEvent::ClockJump {
                    at_ms: 15,
                    by_ms: 60,
                    over_ms: 60,
                },
            },
        );
        assert_eq!(fast.scenario, j.scenario);
        assert!(fast.notice.is_some());
    }

    #[test]
    fn the_service_switches_between_single_and_redlock_keeping_events() {
        let s = with(InstanceTool::Crash, 1, 20);
        let three = act(&s, InstanceAction::SetService(3));
        let names: Vec<String> = three
            .scenario
            .lock
            .redlock
            .iter()
            .flat_map(|r| r.instances.iter().map(|i| i.name.clone()))
            .collect();
        assert_eq!(names, ["R1", "R2", "R3"]);
        let seven = act(&three, InstanceAction::SetService(7));
        let r = seven.scenario.lock.redlock.as_ref().expect("redlock");
        assert_eq!(r.instances.len(), 7);
        assert_eq!(r.instances[6].name, "R7");
        assert_eq!(r.instances[6].latency_ms, 1);
        assert_eq!(r.instances[1].events.len(), 1, "R2's crash is kept");
        assert_eq!(r.majority(), 4);
        let single = act(&seven, InstanceAction::SetService(0));
        assert!(single.scenario.lock.redlock.is_none());
        assert_eq!(single.selected_instance, None, "no instance, no selection");
        let back = act(&single, InstanceAction::SetService(5));
        let r = back.scenario.lock.redlock.as_ref().expect("redlock");
        assert!(!r.parallel && !r.fence && r.timeout_ms == 5);
        let p = act(&back, InstanceAction::SetParallel(true));
        let f = act(&p, InstanceAction::SetFence(true));
        let r = f.scenario.lock.redlock.as_ref().expect("redlock");
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
        let client = crate::ui::model::state::EventRef {
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
        assert!(a.selected_instance.is_some());
        let added = apply(
            &a,
            Action::Add {
                client: 0,
                tool: crate::ui::model::state::Tool::Acquire,
                at_ms: 0,
            },
        );
        assert_eq!(added.selected, Some(client));
        assert_eq!(added.selected_instance, None);
        let back = act(&added, InstanceAction::Select(Some(R3)));
        assert_eq!((back.selected, back.selected_instance), (None, Some(R3)));
        let cleared = apply(&back, Action::Select(None));
        assert_eq!(cleared.selected_instance, None);
        let ghost = act(
            &s,
            InstanceAction::Select(Some(InstanceRef {
                instance: 2,
                event: 7,
            })),
        );
        assert_eq!(ghost.selected_instance, None);
        // Undoing the add takes the selection with it.
        let undone = apply(&s, Action::Undo);
        assert_eq!(undone.selected_instance, None);
        // A read-only view selects but never edits.
        let ro = State::new(s.scenario.clone(), None, true);
        let sel = act(&ro, InstanceAction::Select(Some(R3)));
        assert_eq!(sel.selected_instance, Some(R3));
        let del = act(&sel, InstanceAction::Remove(R3));
        assert_eq!(del.scenario, ro.scenario);
        assert_eq!(InstanceRef::from_attr(&R3.attr()), Some(R3));
        assert_eq!(InstanceRef::from_attr("x-1"), None);
    }

    #[test]
    fn inspector_fields_parse_what_a_person_typed() {
        let jump = InstanceTool::ClockJump.event(15, 60);
        let cases: &[(&str, &str, Option<InstanceEvent>)] = &[
            ("at", "20", Some(InstanceTool::ClockJump.event(20, 60))),
            ("at", "-1", None),
            (
                "by",
                " -30 ",
                Some(InstanceEvent::ClockJump {
                    at_ms: 15,
                    by_ms: -30,
                    over_ms: 0,
                }),
            ),
            (
                "over",
                "120",
                Some(InstanceEvent::ClockJump {
                    at_ms: 15,
                    by_ms: 60,
                    over_ms: 120,
                }),
            ),
            ("over", "x", None),
            ("keep", "true", None),
        ];
        for (field, v, want) in cases {
            assert_eq!(&with_field(&jump, field, v), want, "{field}={v}");
        }
        let crash = InstanceTool::Crash.event(0, 60);
        assert_eq!(
            with_field(&crash, "keep", "true"),
            Some(InstanceEvent::Crash {
                at_ms: 0,
                down_ms: 10,
                persistent: true
            })
        );
        assert_eq!(
            with_field(&crash, "len", "0"),
            Some(InstanceEvent::Crash {
                at_ms: 0,
                down_ms: 1,
                persistent: false
            })
        );
        let cut = InstanceTool::Partition.event(0, 60);
        assert_eq!(
            with_field(&cut, "who", "A"),
            Some(InstanceEvent::Partition {
                at_ms: 0,
                duration_ms: 40,
                client: Some("A".into())
            })
        );
        assert_eq!(with_field(&cut, "who", ""), Some(cut.clone()));
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
        let r = mono.scenario.lock.redlock.as_ref().expect("redlock");
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
        let r = slow.scenario.lock.redlock.as_ref().expect("redlock");
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
