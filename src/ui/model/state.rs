//! The playground's one state and one message enum. `apply` is a plain function from state and
//! action to the next state, with no Yew types, so every edit a person can make (drag, nudge,
//! add, delete, undo) is tested natively. The trace is never stored here: the view derives it
//! from `scenario` with `sim::run`, so the two cannot disagree.

use super::event_edit::{with_field, Field};
use super::instance_edit::{
    apply_instance, instance_event, InstanceAction, InstanceRef, InstanceTool,
};
use crate::sim::account::FenceRule;
use crate::sim::presets::{preset, presets, DEFAULT_PRESET};
use crate::sim::scenario::{Client, MAX_CLIENTS, MAX_TIME_MS};
use crate::sim::{Event, PauseCause, ReleaseKind, Scenario};
use std::rc::Rc;

/// How many edits undo remembers.
pub const UNDO_LIMIT: usize = 100;
/// How far Shift+arrow moves an event.
pub const BIG_STEP_MS: i64 = 10;
/// The longest TTL the settings accept (a minute, far past any preset's axis).
pub const MAX_TTL_MS: u64 = 60_000;

/// One event of one client: indices into `scenario.clients[client].events[event]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EventRef {
    pub client: usize,
    pub event: usize,
}

/// Which part of an event a drag or a key press moves. `Start` and `End` exist only for events
/// with a length: a pause (its duration) and a debit (its network delay; `End` only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Body,
    Start,
    End,
}

/// What the palette adds, and what a double-click on a lane adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Acquire,
    Debit,
    DelayedDebit,
    Pause,
    CheckThenWrite,
    Renew,
    Release,
    BareDel,
    Crash,
}

impl Tool {
    pub const ALL: [Tool; 9] = [
        Tool::Acquire,
        Tool::Debit,
        Tool::DelayedDebit,
        Tool::Pause,
        Tool::CheckThenWrite,
        Tool::Renew,
        Tool::Release,
        Tool::BareDel,
        Tool::Crash,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Tool::Acquire => "acquire",
            Tool::Debit => "debit 10",
            Tool::DelayedDebit => "slow debit",
            Tool::Pause => "GC pause",
            Tool::CheckThenWrite => "isHeld() + debit",
            Tool::Renew => "renew",
            Tool::Release => "release",
            Tool::BareDel => "bare DEL",
            Tool::Crash => "crash",
        }
    }

    /// The tool a palette button carries while it is dragged onto the timeline (its label).
    pub fn from_label(label: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.label() == label)
    }

    /// The event this tool creates at `at_ms`.
    pub fn event(self, at_ms: u64) -> Event {
        match self {
            Tool::Acquire => Event::Acquire { at_ms },
            Tool::Debit => Event::Debit {
                at_ms,
                amount: 10,
                idempotency_key: None,
                delay_ms: 0,
            },
            Tool::DelayedDebit => Event::Debit {
                at_ms,
                amount: 10,
                idempotency_key: None,
                delay_ms: 20,
            },
            Tool::Pause => Event::Pause {
                at_ms,
                duration_ms: 20,
                cause: PauseCause::Gc,
            },
            Tool::CheckThenWrite => Event::CheckThenWrite {
                at_ms,
                amount: 10,
                idempotency_key: None,
                delay_ms: 0,
                gap_ms: 2,
            },
            Tool::Renew => Event::Renew { at_ms },
            Tool::Release => Event::Release {
                at_ms,
                mode: ReleaseKind::TokenChecked,
            },
            Tool::BareDel => Event::Release {
                at_ms,
                mode: ReleaseKind::BareDel,
            },
            Tool::Crash => Event::Crash { at_ms },
        }
    }
}

/// What a pointer drag is moving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DragTarget {
    Event(EventRef, Part),
    /// An event of a Redlock instance.
    Instance(InstanceRef, Part),
    Playhead,
}

/// A drag in progress. `before` is the scenario when it started, so the whole drag is one
/// undo step and Escape can put everything back; `axis_end_ms` freezes the time axis so it
/// does not rescale under the pointer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Drag {
    pub target: DragTarget,
    /// Pointer time minus the dragged edge's time when the drag began.
    pub grab_offset_ms: i64,
    pub before: Rc<Scenario>,
    pub axis_end_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub scenario: Scenario,
    /// The preset last loaded, if any (the picker shows it).
    pub preset_id: Option<String>,
    pub selected: Option<EventRef>,
    pub tool: Tool,
    pub playhead_ms: u64,
    pub drag: Option<Drag>,
    /// Earlier scenarios, shared: a state is cloned on every pointer move.
    pub undo: Vec<Rc<Scenario>>,
    pub redo: Vec<Rc<Scenario>>,
    pub readonly: bool,
    /// Width of the timeline in CSS pixels, measured by the view.
    pub width_px: u32,
    /// Bumped when a key press changed which element should have the focus; the view moves
    /// the focus to the selected event in an effect.
    pub focus_ticket: u32,
    /// Why the last edit was refused, in words.
    pub notice: Option<String>,
    /// The selected instance event; never set together with `selected`.
    pub selected_instance: Option<InstanceRef>,
    /// What a double-click on an instance lane adds.
    pub instance_tool: InstanceTool,
    /// Redlock's instances drawn as one "lock service" lane instead of a lane each.
    pub collapsed: bool,
    /// A link, saved scenario or file that could not be loaded, in words; it stays until a
    /// scenario loads or it is dismissed.
    pub problem: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    LoadPreset(String),
    Select(Option<EventRef>),
    DragStart {
        target: DragTarget,
        pointer_ms: u64,
        axis_end_ms: u64,
    },
    /// The pointer is at `pointer_ms`, over the lane of `client` or of Redlock `instance` (if it
    /// is over either kind of lane).
    DragMove {
        pointer_ms: u64,
        client: Option<usize>,
        instance: Option<usize>,
    },
    DragEnd,
    DragCancel,
    /// A key press: move a part of an event by `delta_ms`.
    Nudge {
        target: EventRef,
        part: Part,
        delta_ms: i64,
    },
    /// A key press: move an event `by` lanes up (negative) or down.
    ShiftLane {
        target: EventRef,
        by: i64,
    },
    Add {
        client: usize,
        tool: Tool,
        at_ms: u64,
    },
    Remove(EventRef),
    /// The inspector set a field of a client event to the text a person typed or picked; text
    /// that is no valid value is refused with a notice naming the field.
    SetField {
        target: EventRef,
        field: Field,
        value: String,
    },
    AddClient,
    RemoveClient(usize),
    SetFenceRule(FenceRule),
    SetTtl(u64),
    SetFirstFence(u64),
    SetWatchdog(bool),
    SetPlayhead(u64),
    Resize(u32),
    Undo,
    Redo,
    /// Edits of a Redlock service and its instances' events (see `instance_edit`).
    Instance(InstanceAction),
    SetCollapsed(bool),
    /// A whole scenario from a link or a file, as one undo step.
    LoadScenario(Box<Scenario>),
    /// Shows (or, with `None`, dismisses) why a link, saved scenario or file was not loaded.
    Problem(Option<String>),
}

impl State {
    /// A fresh state showing `scenario`.
    pub fn new(scenario: Scenario, preset_id: Option<String>, readonly: bool) -> State {
        State {
            playhead_ms: scenario.end_ms / 2,
            scenario,
            preset_id,
            selected: None,
            tool: Tool::Debit,
            drag: None,
            undo: Vec::new(),
            redo: Vec::new(),
            readonly,
            width_px: 960,
            focus_ticket: 0,
            notice: None,
            selected_instance: None,
            instance_tool: InstanceTool::ClockJump,
            collapsed: false,
            problem: None,
        }
    }

    /// The default page: the preset a newcomer sees first.
    pub fn default_page() -> State {
        let scenario = preset(DEFAULT_PRESET).unwrap_or_else(|| {
            presets()
                .into_iter()
                .next()
                .map(|p| p.scenario)
                .unwrap_or_else(empty_scenario)
        });
        State::new(scenario, Some(DEFAULT_PRESET.to_string()), false)
    }

    pub fn event(&self, r: EventRef) -> Option<&Event> {
        self.scenario.clients.get(r.client)?.events.get(r.event)
    }
}

/// A scenario with two idle clients: the fallback if the preset list were ever empty.
fn empty_scenario() -> Scenario {
    let json = r#"{"version":1,"clients":[{"name":"A"},{"name":"B"}]}"#;
    // The literal above is valid; `from_json` cannot fail on it, but never panic on a hunch.
    Scenario::from_json(json).unwrap_or_else(|_| Scenario {
        version: crate::sim::scenario::SCENARIO_VERSION,
        name: String::new(),
        caption: String::new(),
        tier: Default::default(),
        end_ms: 100,
        key: "acct:1".to_string(),
        lock: Default::default(),
        storage: Default::default(),
        clients: vec![Client {
            name: "A".to_string(),
            clock: Default::default(),
            events: Vec::new(),
        }],
        step_limit: crate::sim::scenario::DEFAULT_STEP_LIMIT,
        seed: 0,
    })
}

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
            | Action::Instance(InstanceAction::Select(_))
    );
    if state.readonly && !looks_only {
        return next;
    }
    match action {
        Action::LoadPreset(id) => match super::instance_edit::ui_preset(&id) {
            Some(s) => {
                commit(&mut next, s);
                next.problem = None;
                next.playhead_ms = next.scenario.end_ms / 2;
                next.preset_id = Some(id);
                next.selected = None;
                next.selected_instance = None;
            }
            None => next.notice = Some(format!("unknown preset {id:?}")),
        },
        Action::Select(r) => {
            next.selected = r.filter(|r| state.event(*r).is_some());
            next.selected_instance = None;
        }
        Action::DragStart {
            target,
            pointer_ms,
            axis_end_ms,
        } => drag_start(&mut next, target, pointer_ms, axis_end_ms),
        Action::DragMove {
            pointer_ms,
            client,
            instance,
        } => drag_move(&mut next, pointer_ms, client, instance),
        Action::DragEnd => {
            if let Some(drag) = next.drag.take() {
                if *drag.before != next.scenario {
                    push_undo(&mut next, (*drag.before).clone());
                }
            }
        }
        Action::DragCancel => {
            if let Some(drag) = next.drag.take() {
                if next.scenario != *drag.before {
                    next.scenario = (*drag.before).clone();
                    next.selected = None;
                }
            }
        }
        Action::Nudge {
            target,
            part,
            delta_ms,
        } => {
            if let Some(e) = state.event(target) {
                let edge = edge_ms(e, part) as i64;
                let mut s = state.scenario.clone();
                if set_edge(&mut s, target, part, edge.saturating_add(delta_ms)) {
                    edit(&mut next, s, Some(target));
                }
                next.focus_ticket = next.focus_ticket.wrapping_add(1);
            }
        }
        Action::ShiftLane { target, by } => {
            let to = target.client as i64 + by;
            if state.event(target).is_some()
                && to >= 0
                && (to as usize) < state.scenario.clients.len()
            {
                let mut s = state.scenario.clone();
                if let Some(r) = move_to_client(&mut s, target, to as usize) {
                    edit(&mut next, s, Some(r));
                }
            }
            next.focus_ticket = next.focus_ticket.wrapping_add(1);
        }
        Action::Add {
            client,
            tool,
            at_ms,
        } => {
            next.tool = tool;
            if client < state.scenario.clients.len() {
                let mut s = state.scenario.clone();
                let events = &mut s.clients[client].events;
                events.push(tool.event(at_ms.min(MAX_TIME_MS)));
                let r = EventRef {
                    client,
                    event: events.len() - 1,
                };
                edit(&mut next, s, Some(r));
            }
        }
        Action::Remove(r) => {
            if state.event(r).is_some() {
                let mut s = state.scenario.clone();
                s.clients[r.client].events.remove(r.event);
                edit(&mut next, s, None);
                next.focus_ticket = next.focus_ticket.wrapping_add(1);
            }
        }
        Action::SetField {
            target,
            field,
            value,
        } => {
            if let Some(e) = state.event(target) {
                match with_field(e, field, &value) {
                    Ok(e) => {
                        let mut s = state.scenario.clone();
                        s.clients[target.client].events[target.event] = e;
                        edit(&mut next, s, Some(target));
                    }
                    Err(why) => next.notice = Some(why),
                }
            }
        }
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
                edit(&mut next, s, state.selected);
            }
        }
        Action::RemoveClient(i) => {
            if state.scenario.clients.len() <= 1 {
                next.notice = Some("the timeline needs at least one client".to_string());
            } else if i < state.scenario.clients.len() {
                let mut s = state.scenario.clone();
                s.clients.remove(i);
                let keep = state.selected.and_then(|r| match r.client {
                    c if c < i => Some(r),
                    c if c > i => Some(EventRef {
                        client: c - 1,
                        event: r.event,
                    }),
                    _ => None,
                });
                edit(&mut next, s, keep);
            }
        }
        Action::SetFenceRule(rule) => {
            let mut s = state.scenario.clone();
            s.storage.fence_rule = rule;
            edit(&mut next, s, state.selected);
        }
        Action::SetTtl(ttl_ms) => {
            let mut s = state.scenario.clone();
            s.lock.ttl_ms = ttl_ms.clamp(1, MAX_TTL_MS);
            edit(&mut next, s, state.selected);
        }
        Action::SetFirstFence(first) => {
            let mut s = state.scenario.clone();
            s.lock.first_fence = first;
            edit(&mut next, s, state.selected);
        }
        Action::SetWatchdog(on) => {
            let mut s = state.scenario.clone();
            s.lock.watchdog = on;
            edit(&mut next, s, state.selected);
        }
        Action::LoadScenario(s) => match s.validate() {
            Ok(()) => {
                next.preset_id = super::persist::matching_preset(&s);
                commit(&mut next, *s);
                next.playhead_ms = next.scenario.end_ms / 2;
                next.selected = None;
                next.problem = None;
            }
            Err(e) => next.problem = Some(format!("scenario: {e}")),
        },
        Action::Problem(p) => next.problem = p,
        Action::Instance(a) => apply_instance(&mut next, a),
        Action::SetCollapsed(on) => next.collapsed = on,
        Action::SetPlayhead(t) => next.playhead_ms = t.min(MAX_TIME_MS),
        Action::Resize(w) => next.width_px = w.clamp(240, 4096),
        Action::Undo => {
            if next.drag.is_none() {
                if let Some(prev) = next.undo.pop() {
                    let current = std::mem::replace(&mut next.scenario, (*prev).clone());
                    next.redo.push(Rc::new(current));
                    next.selected = state.selected.filter(|r| next.event(*r).is_some());
                    next.focus_ticket = next.focus_ticket.wrapping_add(1);
                }
            }
        }
        Action::Redo => {
            if next.drag.is_none() {
                if let Some(again) = next.redo.pop() {
                    let current = std::mem::replace(&mut next.scenario, (*again).clone());
                    next.undo.push(Rc::new(current));
                    next.selected = state.selected.filter(|r| next.event(*r).is_some());
                    next.focus_ticket = next.focus_ticket.wrapping_add(1);
                }
            }
        }
    }
    // One selection at a time, and never one of an event that no longer exists (after an undo).
    if next.selected.is_some() {
        next.selected_instance = None;
    }
    next.selected_instance = next
        .selected_instance
        .filter(|r| instance_event(&next.scenario, *r).is_some());
    next
}

/// Replaces the scenario with `s` if it is valid, as one undo step (or as part of a drag).
pub(super) fn edit(next: &mut State, s: Scenario, selected: Option<EventRef>) {
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
            next.selected = selected;
        }
        Err(e) => next.notice = Some(e.to_string()),
    }
}

/// Replaces the whole scenario (a preset), as one undo step.
fn commit(next: &mut State, s: Scenario) {
    next.drag = None;
    if s != next.scenario {
        let before = std::mem::replace(&mut next.scenario, s);
        push_undo(next, before);
    }
}

fn push_undo(next: &mut State, before: Scenario) {
    next.undo.push(Rc::new(before));
    if next.undo.len() > UNDO_LIMIT {
        next.undo.remove(0);
    }
    next.redo.clear();
}

fn drag_start(next: &mut State, target: DragTarget, pointer_ms: u64, axis_end_ms: u64) {
    let grab_offset_ms = match target {
        DragTarget::Playhead => 0,
        DragTarget::Instance(r, part) => {
            match super::instance_edit::grab_offset(&next.scenario, r, part, pointer_ms) {
                Some(offset) if !next.readonly => {
                    apply_instance(next, InstanceAction::Select(Some(r)));
                    offset
                }
                _ => return,
            }
        }
        DragTarget::Event(r, part) => {
            if next.readonly {
                return;
            }
            match next.event(r) {
                Some(e) if part_applies(e, part) => pointer_ms as i64 - edge_ms(e, part) as i64,
                _ => return,
            }
        }
    };
    if let DragTarget::Event(r, _) = target {
        next.selected = Some(r);
    }
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

fn drag_move(next: &mut State, pointer_ms: u64, client: Option<usize>, instance: Option<usize>) {
    let Some(drag) = next.drag.clone() else {
        return;
    };
    match drag.target {
        DragTarget::Playhead => next.playhead_ms = pointer_ms.min(MAX_TIME_MS),
        DragTarget::Instance(r, part) => {
            let to_ms = pointer_ms as i64 - drag.grab_offset_ms;
            super::instance_edit::drag_to(next, r, part, to_ms, instance);
        }
        DragTarget::Event(r, part) => {
            let mut s = next.scenario.clone();
            let edge = pointer_ms as i64 - drag.grab_offset_ms;
            let mut r = r;
            if part == Part::Body {
                if let Some(to) = client.filter(|c| *c != r.client) {
                    match move_to_client(&mut s, r, to) {
                        Some(moved) => r = moved,
                        None => return,
                    }
                }
            }
            set_edge(&mut s, r, part, edge);
            edit(next, s, Some(r));
            if let Some(d) = next.drag.as_mut() {
                if next.selected == Some(r) {
                    d.target = DragTarget::Event(r, part);
                }
            }
        }
    }
}

/// Whether `part` can be dragged on `e`.
pub fn part_applies(e: &Event, part: Part) -> bool {
    match part {
        Part::Body => true,
        Part::Start => matches!(e, Event::Pause { .. }),
        Part::End => matches!(e, Event::Pause { .. } | Event::Debit { .. }),
    }
}

/// The time of the edge a part moves.
pub fn edge_ms(e: &Event, part: Part) -> u64 {
    match part {
        Part::Body | Part::Start => e.at_ms(),
        Part::End => e.end_ms(),
    }
}

/// Moves one edge of an event to `to_ms` (clamped to the valid range). A pause keeps at least
/// 1 ms; moving its start keeps its end where it was. Returns false if nothing applies.
pub fn set_edge(s: &mut Scenario, r: EventRef, part: Part, to_ms: i64) -> bool {
    let Some(e) = s
        .clients
        .get_mut(r.client)
        .and_then(|c| c.events.get_mut(r.event))
    else {
        return false;
    };
    let to = to_ms.clamp(0, MAX_TIME_MS as i64) as u64;
    match (part, e) {
        (Part::Body, e) => e.set_at_ms(to),
        (
            Part::Start,
            Event::Pause {
                at_ms, duration_ms, ..
            },
        ) => {
            let end = at_ms.saturating_add(*duration_ms);
            let start = to.min(end.saturating_sub(1));
            *at_ms = start;
            *duration_ms = end - start;
        }
        (
            Part::End,
            Event::Pause {
                at_ms, duration_ms, ..
            },
        ) => *duration_ms = to.saturating_sub(*at_ms).max(1),
        (
            Part::End,
            Event::Debit {
                at_ms, delay_ms, ..
            },
        ) => {
            *delay_ms = to.saturating_sub(*at_ms);
        }
        _ => return false,
    }
    true
}

/// Moves an event to the end of another client's list; returns where it now lives.
pub fn move_to_client(s: &mut Scenario, r: EventRef, to: usize) -> Option<EventRef> {
    if r.client == to || to >= s.clients.len() {
        return None;
    }
    let events = &mut s.clients.get_mut(r.client)?.events;
    if r.event >= events.len() {
        return None;
    }
    let e = events.remove(r.event);
    let target = &mut s.clients[to].events;
    target.push(e);
    Some(EventRef {
        client: to,
        event: target.len() - 1,
    })
}

impl Part {
    /// The `data-part` attribute value of the element that stands for this part.
    pub fn attr(self) -> &'static str {
        match self {
            Part::Body => "body",
            Part::Start => "start",
            Part::End => "end",
        }
    }

    pub fn from_attr(attr: &str) -> Option<Part> {
        match attr {
            "body" => Some(Part::Body),
            "start" => Some(Part::Start),
            "end" => Some(Part::End),
            _ => None,
        }
    }
}

impl EventRef {
    /// The `data-ev` attribute value: "client-event".
    pub fn attr(self) -> String {
        format!("{}-{}", self.client, self.event)
    }

    pub fn from_attr(attr: &str) -> Option<EventRef> {
        let (c, e) = attr.split_once('-')?;
        Some(EventRef {
            client: c.parse().ok()?,
            event: e.parse().ok()?,
        })
    }
}

/// The keyboard map. `focus` is the event part whose element has the focus, if any.
/// Left/Right move it by 1 ms (Shift: 10 ms); on a pause's edge they resize the pause;
/// Up/Down move an event to the client lane above or below; Delete or Backspace removes it;
/// Escape cancels a drag or clears the selection; Ctrl+Z undoes, Ctrl+Shift+Z or Ctrl+Y redoes.
pub fn key_action(
    key: &str,
    shift: bool,
    ctrl: bool,
    dragging: bool,
    focus: Option<(EventRef, Part)>,
) -> Option<Action> {
    if ctrl {
        return match key {
            "z" | "Z" if shift => Some(Action::Redo),
            "z" | "Z" => Some(Action::Undo),
            "y" | "Y" => Some(Action::Redo),
            _ => None,
        };
    }
    if key == "Escape" {
        return Some(if dragging {
            Action::DragCancel
        } else {
            Action::Select(None)
        });
    }
    let (target, part) = focus?;
    let step = if shift { BIG_STEP_MS } else { 1 };
    match key {
        "ArrowLeft" => Some(Action::Nudge {
            target,
            part,
            delta_ms: -step,
        }),
        "ArrowRight" => Some(Action::Nudge {
            target,
            part,
            delta_ms: step,
        }),
        "ArrowUp" if part == Part::Body => Some(Action::ShiftLane { target, by: -1 }),
        "ArrowDown" if part == Part::Body => Some(Action::ShiftLane { target, by: 1 }),
        "Delete" | "Backspace" => Some(Action::Remove(target)),
        _ => None,
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

    fn fenced() -> State {
        State::default_page()
    }

    #[test]
    fn a_dragged_palette_button_names_its_tool() {
        for tool in Tool::ALL {
            assert_eq!(Tool::from_label(tool.label()), Some(tool));
        }
        assert_eq!(Tool::from_label(""), None);
        assert_eq!(Tool::from_label("GC"), None);
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
    fn the_default_page_is_the_fenced_gc_pause() {
        let s = fenced();
        assert_eq!(s.preset_id.as_deref(), Some(DEFAULT_PRESET));
        assert_eq!(pause_of(&s), (1, 44));
        assert_eq!(s.playhead_ms, 40);
    }

    #[test]
    fn dragging_a_pause_end_keeps_the_grab_offset_and_is_one_undo_step() {
        // Grabbed 1 ms right of the end (45): the end follows the pointer minus that offset.
        let s = drag(
            fenced(),
            DragTarget::Event(A_PAUSE, Part::End),
            46,
            &[(40, Some(0)), (30, Some(1)), (21, None)],
        );
        assert_eq!(pause_of(&s), (1, 19));
        assert_eq!(s.undo.len(), 1);
        assert_eq!(s.selected, Some(A_PAUSE));
        let back = apply(&s, Action::Undo);
        assert_eq!(pause_of(&back), (1, 44));
        assert_eq!(pause_of(&apply(&back, Action::Redo)), (1, 19));
    }

    #[test]
    fn a_pause_never_shrinks_below_one_ms_and_its_start_keeps_the_end() {
        let s = drag(
            fenced(),
            DragTarget::Event(A_PAUSE, Part::End),
            45,
            &[(0, None)],
        );
        assert_eq!(pause_of(&s), (1, 1));
        let s = drag(
            fenced(),
            DragTarget::Event(A_PAUSE, Part::Start),
            1,
            &[(10, None)],
        );
        assert_eq!(pause_of(&s), (10, 35));
        let s = drag(
            fenced(),
            DragTarget::Event(A_PAUSE, Part::Start),
            1,
            &[(99, None)],
        );
        assert_eq!(pause_of(&s), (44, 1));
    }

    #[test]
    fn dragging_the_body_moves_the_whole_event_and_clamps_at_zero() {
        let s = drag(
            fenced(),
            DragTarget::Event(A_PAUSE, Part::Body),
            20,
            &[(5, None)],
        );
        assert_eq!(pause_of(&s), (0, 44));
        let s = drag(
            fenced(),
            DragTarget::Event(A_PAUSE, Part::Body),
            20,
            &[(30, None)],
        );
        assert_eq!(pause_of(&s), (11, 44));
    }

    #[test]
    fn dragging_onto_another_lane_moves_the_event_to_that_client() {
        let s = drag(
            fenced(),
            DragTarget::Event(A_DEBIT, Part::Body),
            2,
            &[(50, Some(1))],
        );
        assert_eq!(s.scenario.clients[0].events.len(), 2);
        let moved = EventRef {
            client: 1,
            event: 2,
        };
        assert_eq!(s.selected, Some(moved));
        assert_eq!(s.event(moved).map(Event::at_ms), Some(50));
        // Moving back and forth within one drag keeps following the event.
        let s = drag(
            fenced(),
            DragTarget::Event(A_DEBIT, Part::Body),
            2,
            &[(50, Some(1)), (52, Some(0))],
        );
        assert_eq!(s.selected, Some(A_DEBIT));
        assert_eq!(s.event(A_DEBIT).map(Event::at_ms), Some(52));
        assert_eq!(s.undo.len(), 1);
    }

    #[test]
    fn a_drag_that_changes_nothing_leaves_no_undo_step_and_escape_restores() {
        let s = drag(
            fenced(),
            DragTarget::Event(A_PAUSE, Part::End),
            45,
            &[(45, None)],
        );
        assert!(s.undo.is_empty());
        let mut s = apply(
            &fenced(),
            Action::DragStart {
                target: DragTarget::Event(A_PAUSE, Part::End),
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
                    target: A_PAUSE,
                    part,
                    delta_ms,
                },
            );
            assert_eq!(pause_of(&s), want, "{part:?} {delta_ms}");
        }
        let s = apply(
            &fenced(),
            Action::ShiftLane {
                target: A_DEBIT,
                by: 1,
            },
        );
        assert_eq!(
            s.selected,
            Some(EventRef {
                client: 1,
                event: 2
            })
        );
        let s = apply(
            &fenced(),
            Action::ShiftLane {
                target: A_DEBIT,
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
                target: A_DEBIT,
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
                },
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
        assert_eq!(s.selected, Some(r));
        assert_eq!(s.tool, Tool::Pause);
        assert!(matches!(s.event(r), Some(Event::Pause { at_ms: 33, .. })));
        let s = apply(&s, Action::Remove(r));
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
            Action::Remove(ghost),
            Action::Select(Some(ghost)),
            Action::Nudge {
                target: ghost,
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
            assert_eq!(s.selected, None, "{action:?}");
        }
        let ro = State::new(fenced().scenario, None, true);
        let s = drag(
            ro.clone(),
            DragTarget::Event(A_PAUSE, Part::End),
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
                    target: A_DEBIT,
                    part: Part::Body,
                    delta_ms: if i % 2 == 0 { 1 } else { -1 },
                },
            );
        }
        assert_eq!(s.undo.len(), UNDO_LIMIT);
    }

    /// Key, Shift, Ctrl, focused part, expected action.
    type KeyCase = (
        &'static str,
        bool,
        bool,
        Option<(EventRef, Part)>,
        Option<Action>,
    );

    #[test]
    fn the_keyboard_map() {
        let end = Some((A_PAUSE, Part::End));
        let cases: &[KeyCase] = &[
            (
                "ArrowLeft",
                false,
                false,
                end,
                Some(Action::Nudge {
                    target: A_PAUSE,
                    part: Part::End,
                    delta_ms: -1,
                }),
            ),
            (
                "ArrowRight",
                true,
                false,
                end,
                Some(Action::Nudge {
                    target: A_PAUSE,
                    part: Part::End,
                    delta_ms: 10,
                }),
            ),
            ("ArrowUp", false, false, end, None),
            (
                "ArrowDown",
                false,
                false,
                Some((A_DEBIT, Part::Body)),
                Some(Action::ShiftLane {
                    target: A_DEBIT,
                    by: 1,
                }),
            ),
            ("Delete", false, false, end, Some(Action::Remove(A_PAUSE))),
            ("ArrowLeft", false, false, None, None),
            ("z", false, true, None, Some(Action::Undo)),
            ("Z", true, true, end, Some(Action::Redo)),
            ("y", false, true, None, Some(Action::Redo)),
            ("Escape", false, false, None, Some(Action::Select(None))),
            ("a", false, false, end, None),
        ];
        for (key, shift, ctrl, focus, want) in cases {
            assert_eq!(
                &key_action(key, *shift, *ctrl, false, *focus),
                want,
                "{key}"
            );
        }
        assert_eq!(
            key_action("Escape", false, false, true, None),
            Some(Action::DragCancel)
        );
        assert_eq!(EventRef::from_attr(&A_DEBIT.attr()), Some(A_DEBIT));
        assert_eq!(EventRef::from_attr("1-x"), None);
        assert_eq!(Part::from_attr(Part::End.attr()), Some(Part::End));
    }

    fn set(s: &State, target: EventRef, field: Field, value: &str) -> State {
        apply(
            s,
            Action::SetField {
                target,
                field,
                value: value.to_string(),
            },
        )
    }

    #[test]
    fn the_inspector_sets_a_field_as_one_undo_step() {
        let s = apply(&fenced(), Action::Select(Some(A_DEBIT)));
        let n = set(&s, A_DEBIT, Field::Amount, "25");
        assert!(matches!(
            n.event(A_DEBIT),
            Some(Event::Debit { amount: 25, .. })
        ));
        assert_eq!(n.undo.len(), s.undo.len() + 1);
        assert_eq!(n.selected, Some(A_DEBIT), "the edited event stays selected");
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
