//! The root component: owns the one `State` through `use_reducer`, derives the traces from the
//! scenario (the run and its ghost without fencing), routes keys, and keeps the focus on the
//! selected event after a key press moved it. Everything else is drawn by child components.
//! A run longer than a few thousand actions goes on in slices of half a frame, between which the
//! browser handles input, and the page says it is computing until the trace is there.

use super::controls::palette::Palette;
use super::controls::palette_instance::InstancePalette;
use super::controls::preset_picker::PresetPicker;
use super::controls::redlock_options::RedlockOptions;
use super::controls::settings::Settings;
use super::controls::settings_service::ServiceSettings;
use super::controls::toolbar::{import_file, Toolbar};
use super::inspect::banner::Banner;
use super::inspect::client_inspector::ClientInspector;
use super::inspect::hint::Hint;
use super::inspect::instance_inspector::Inspector;
use super::inspect::narration::Narration;
use super::inspect::readout::Readout;
use super::lanes::dom;
use super::lanes::timeline::Timeline;
use super::model::apply::apply;
use super::model::keys::key_action;
use super::model::selection::{Selection, Slot};
use super::model::state::{Action, State};
use super::share::sync::use_sync;
use crate::sim::engine::{Progress, Run};
use crate::sim::{FenceRule, Scenario, Trace};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

impl Reducible for State {
    type Action = Action;
    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new(apply(&self, action))
    }
}

#[derive(Properties, PartialEq)]
pub struct AppProps {
    pub initial: Rc<State>,
    pub compact: bool,
    /// Keep the page's URL hash in step with the scenario (see `MountOptions::share`).
    pub share: bool,
    /// Keep the scenario in localStorage (see `MountOptions::autosave`).
    pub autosave: bool,
    /// Makes the SVG ids of this mount unique on the page.
    pub uid: u32,
}

/// The run, and the same schedule with the storage's fence check flipped (off when the
/// scenario fences, strict when it does not), computed once per scenario.
#[derive(PartialEq)]
pub struct Runs {
    pub trace: Rc<Trace>,
    pub ghost: Rc<Trace>,
    /// Whether the ghost is the fenced one (the scenario itself does not fence).
    pub ghost_fenced: bool,
}

/// How long the page computes in one slice before the browser gets the main thread back to
/// handle input: half a frame.
const SLICE_MS: f64 = 8.0;
/// Actions a run may take inside the render that asks for it: a few milliseconds of work, and
/// every preset and hand-made scenario fits, so they are computed at once (and a drag stays one
/// simulation per frame). Counted in actions, not milliseconds, so which runs go to slices
/// does not depend on the machine.
const SYNC_STEPS: u32 = 2_000;
/// Actions taken between two looks at the clock, at most: a chunk doubles while it takes under
/// a millisecond and halves when it takes more, since one action may cost a microsecond or
/// (a reading of a clock under thousands of slews) a millisecond.
const MAX_CHUNK: u32 = 4_096;

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// One of the two runs of a scenario, on its way to a trace.
struct Stage {
    run: Option<Run>,
    trace: Option<Rc<Trace>>,
    chunk: u32,
}

impl Stage {
    fn new(s: &Scenario) -> Stage {
        Stage {
            run: Some(Run::new(s)),
            trace: None,
            chunk: 16,
        }
    }

    /// Takes at most `steps` actions and finishes the run if that was all; true if it was.
    fn at_once(&mut self, steps: u32) -> bool {
        if let Some(run) = self.run.as_mut() {
            if run.advance(steps) == Progress::Done {
                self.trace = self.run.take().map(|r| Rc::new(r.finish()));
            }
        }
        self.trace.is_some()
    }

    /// Works until `deadline` (a `performance.now()` reading); true once the trace is there.
    fn work(&mut self, deadline: f64) -> bool {
        let mut now = now_ms();
        while let Some(run) = self.run.as_mut() {
            if now >= deadline {
                return false;
            }
            if run.advance(self.chunk) == Progress::Done {
                self.trace = self.run.take().map(|r| Rc::new(r.finish()));
            }
            let then = now;
            now = now_ms();
            self.chunk = match now - then {
                d if d < 1.0 => (self.chunk * 2).min(MAX_CHUNK),
                d if d > 2.0 => (self.chunk / 2).max(1),
                _ => self.chunk,
            };
        }
        self.trace.is_some()
    }
}

/// The run and its ghost (the same schedule with the storage's fence check flipped: off when
/// the scenario fences, strict when it does not), on their way.
struct Slices {
    trace: Stage,
    ghost: Stage,
    ghost_fenced: bool,
}

impl Slices {
    fn work(&mut self, deadline: f64) -> bool {
        self.trace.work(deadline) && self.ghost.work(deadline)
    }

    fn runs(&self) -> Option<Rc<Runs>> {
        Some(Rc::new(Runs {
            trace: self.trace.trace.clone()?,
            ghost: self.ghost.trace.clone()?,
            ghost_fenced: self.ghost_fenced,
        }))
    }
}

/// The runs of one scenario: done within the render that asked (up to `SYNC_STEPS` actions
/// each), or continued in slices of at most `SLICE_MS` with the browser handling input in
/// between.
enum Job {
    Ready(Rc<Runs>),
    Pending(Rc<RefCell<Slices>>),
}

fn start(s: &Scenario) -> Job {
    let mut other = s.clone();
    let ghost_fenced = s.storage.fence_rule == FenceRule::Off;
    other.storage.fence_rule = if ghost_fenced {
        FenceRule::Strict
    } else {
        FenceRule::Off
    };
    let mut slices = Slices {
        trace: Stage::new(s),
        ghost: Stage::new(&other),
        ghost_fenced,
    };
    let done = slices.trace.at_once(SYNC_STEPS) && slices.ghost.at_once(SYNC_STEPS);
    match done.then(|| slices.runs()).flatten() {
        Some(runs) => Job::Ready(runs),
        None => Job::Pending(Rc::new(RefCell::new(slices))),
    }
}

/// A job compared by identity, for the effect that slices it.
#[derive(Clone)]
struct JobRef(Rc<Job>);

impl PartialEq for JobRef {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// Schedules the next slice of a pending job after the browser's queued input, unless the
/// job was dropped (its scenario changed) in the meantime.
fn slice_later(slices: Rc<RefCell<Slices>>, dropped: Rc<Cell<bool>>, done: Callback<Rc<Runs>>) {
    let tick = move || {
        if dropped.get() {
            return;
        }
        let finished = slices.borrow_mut().work(now_ms() + SLICE_MS);
        let runs = finished.then(|| slices.borrow().runs()).flatten();
        match runs {
            Some(runs) => done.emit(runs),
            None => slice_later(slices, dropped, done),
        }
    };
    let callback = Closure::once_into_js(tick);
    if let Some(w) = web_sys::window() {
        let _ =
            w.set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), 0);
    }
}

/// The runs of a scenario before anything ran, drawn while its first run is computed.
fn not_started(s: &Scenario) -> Rc<Runs> {
    let trace = Rc::new(Run::not_started(s));
    Rc::new(Runs {
        ghost: trace.clone(),
        trace,
        ghost_fenced: false,
    })
}

#[component]
pub fn App(props: &AppProps) -> Html {
    let state = use_reducer_eq({
        let initial = props.initial.clone();
        move || (*initial).clone()
    });
    let dispatch = {
        let d = state.dispatcher();
        use_callback((), move |a: Action, _| d.dispatch(a))
    };
    // Made once, so the components they go to compare equal from one render to the next.
    let on_pick = {
        let d = state.dispatcher();
        use_callback((), move |id: String, _| d.dispatch(Action::LoadPreset(id)))
    };
    let on_playhead = {
        let d = state.dispatcher();
        use_callback((), move |t: u64, _| d.dispatch(Action::SetPlayhead(t)))
    };
    let scenario = Rc::new(state.scenario.clone());
    // The runs of this scenario, or, while a large one is computed in slices, the last pair of
    // scenario and runs that finished (the page keeps it on screen and says it is computing).
    let job = use_memo(state.scenario.clone(), |s| JobRef(Rc::new(start(s))));
    let finished = use_state(|| None::<(JobRef, Rc<Runs>)>);
    {
        let finished = finished.clone();
        use_effect_with((*job).clone(), move |job| {
            let dropped = Rc::new(Cell::new(false));
            if let Job::Pending(slices) = &*job.0 {
                let job = job.clone();
                let done = Callback::from(move |runs| finished.set(Some((job.clone(), runs))));
                slice_later(slices.clone(), dropped.clone(), done);
            }
            move || dropped.set(true)
        });
    }
    let ready = match &*job.0 {
        Job::Ready(runs) => Some(runs.clone()),
        Job::Pending(_) => finished
            .as_ref()
            .filter(|(j, _)| *j == *job)
            .map(|(_, runs)| runs.clone()),
    };
    let computing = ready.is_none();
    let last = use_mut_ref(|| None::<(Rc<Scenario>, Rc<Runs>)>);
    let (shown, runs) = match ready {
        Some(runs) => {
            *last.borrow_mut() = Some((scenario.clone(), runs.clone()));
            (scenario.clone(), runs)
        }
        None => last
            .borrow()
            .clone()
            .unwrap_or_else(|| (scenario.clone(), not_started(&scenario))),
    };
    // Nothing finished yet: no verdict, reading or narration to show, only that it computes.
    let first_run = computing && last.borrow().is_none();
    // What a person reads beside the timeline (the verdict banner, the narration, the playhead's
    // reading) follows the run as it stood before a drag and catches up on the drop: mid-drag it
    // would change on every frame and cost a re-render each time, and the banner, above the
    // timeline, would move the lanes under the pointer as its list of violations grew or shrank.
    // The timeline's own verdicts stay live.
    let settled = use_mut_ref(|| runs.clone());
    if state.drag.is_none() {
        *settled.borrow_mut() = runs.clone();
    }
    let settled = settled.borrow().clone();
    let root = use_node_ref();

    // Keys move the selected event; when that re-created its element, put the focus back.
    {
        let root = root.clone();
        let selection = state.selection;
        use_effect_with(state.focus_ticket, move |ticket| {
            if *ticket > 0 {
                refocus(&root, selection);
            }
        });
    }

    let onkeydown = {
        let dispatch = dispatch.clone();
        let dragging = state.drag.is_some();
        Callback::from(move |e: KeyboardEvent| {
            let target = dom::target_element(&e);
            if let Some(t) = &target {
                if matches!(t.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA") {
                    return;
                }
            }
            let focus = target.as_ref().and_then(dom::item_part);
            let ctrl = e.ctrl_key() || e.meta_key();
            if let Some(action) = key_action(&e.key(), e.shift_key(), ctrl, dragging, focus) {
                e.prevent_default();
                dispatch.emit(action);
            }
        })
    };

    // A scenario file dropped anywhere on the playground is imported, as "Import JSON…" would.
    let ondragover = {
        let readonly = state.readonly;
        Callback::from(move |e: DragEvent| {
            let files = e
                .data_transfer()
                .is_some_and(|d| d.types().includes(&"Files".into(), 0));
            if files && !readonly {
                e.prevent_default();
                if let Some(d) = e.data_transfer() {
                    d.set_drop_effect("copy");
                }
            }
        })
    };
    let ondrop = {
        let (dispatch, readonly) = (dispatch.clone(), state.readonly);
        Callback::from(move |e: DragEvent| {
            let file = e
                .data_transfer()
                .and_then(|d| d.files())
                .and_then(|f| f.get(0));
            if let Some(file) = file {
                e.prevent_default();
                if !readonly {
                    import_file(file, &dispatch);
                }
            }
        })
    };

    // The toolbar and the hint act on or describe the scenario as a whole: during a drag they
    // keep the one it began with, so Yew skips them until the drop.
    let before = state
        .drag
        .as_ref()
        .map_or_else(|| scenario.clone(), |d| d.before.clone());
    use_sync(
        scenario.clone(),
        state.drag.is_some(),
        props.share,
        props.autosave,
        dispatch.clone(),
    );
    let class = classes!(
        "fp-root",
        props.compact.then_some("fp-compact"),
        state.readonly.then_some("fp-readonly")
    );
    let uid: AttrValue = format!("fp{}", props.uid).into();
    // The selected instance event, when its inspector shows: a refusal then shows beside it.
    let inspected = state
        .selection
        .instance()
        .filter(|_| !state.readonly && !props.compact)
        .and_then(|r| {
            let inst = scenario.lock.redlock.as_ref()?.instances.get(r.instance)?;
            Some((r, inst.name.clone(), inst.events.get(r.event)?.clone()))
        });
    let hint_notice = state
        .notice
        .clone()
        .filter(|_| inspected.is_none())
        .map(AttrValue::from);
    html! {
        <div {class} ref={root.clone()} {onkeydown} {ondragover} {ondrop} data-testid="playground">
            <div class="fp-head">
                <h2 data-testid="title">{ state.scenario.name.clone() }</h2>
                if !state.readonly {
                    <Toolbar scenario={before.clone()} share={props.share} root={root.clone()} on_action={dispatch.clone()} />
                    <span class="fp-group">
                        <PresetPicker current={state.preset_id.clone().map(AttrValue::from)}
                            {on_pick} />
                        <ServiceSettings instances={scenario.lock.redlock.as_ref().map_or(0, |r| r.instances.len())}
                            on_change={dispatch.clone()} />
                    </span>
                }
            </div>
            <p class="fp-caption" data-testid="caption">{ state.scenario.caption.clone() }</p>
            if let Some(p) = state.problem.clone() {
                <p class="fp-problem" role="alert"><span data-testid="problem">{ p }</span>
                    <button type="button" aria-label="Dismiss" data-testid="dismiss-problem"
                        onclick={dispatch.reform(|_| Action::Problem(None))}>{ "×" }</button>
                </p>
            }
            if computing {
                <div class="fp-verdict" role="status" aria-live="polite" data-testid="computing">
                    { if first_run { "Computing the run…" } else { "Computing the run… the timeline still shows the previous one." } }
                </div>
            } else {
                <Banner trace={settled.trace.clone()} ghost={settled.ghost.clone()} ghost_fenced={settled.ghost_fenced} />
            }
            // The selected client event's inspector takes the hint's line, one line high, so
            // selecting an event does not move the timeline; a refusal shows beside it (beside
            // the instance inspector, for an instance event).
            if let Some((target, name, event)) = state.selection.event().filter(|_| !state.readonly && !props.compact).and_then(|r| {
                let c = scenario.clients.get(r.client)?;
                Some((r, c.name.clone(), c.events.get(r.event)?.clone()))
            }) {
                <div class="fp-edit-line">
                    <ClientInspector key={u8::from(state.notice.is_some())} {target} name={AttrValue::from(name)}
                        event={Rc::new(event)} on_change={dispatch.clone()} />
                    if let Some(n) = state.notice.clone() {
                        <span class="fp-notice" role="status" data-testid="notice">{ n }</span>
                    }
                </div>
            } else {
                <Hint scenario={before} readonly={state.readonly} notice={hint_notice} />
            }
            if !state.readonly && !props.compact {
                <div class="fp-row">
                    <Palette tool={state.tool} selected={state.selection.event()} clients={scenario.clients.len()}
                        playhead_ms={state.playhead_ms} on_add={dispatch.clone()} />
                </div>
                <div class="fp-row">
                    <Settings lock={Rc::new(scenario.lock.clone())} fence_rule={scenario.storage.fence_rule}
                        clients={Rc::new(scenario.clients.iter().map(|c| c.name.clone()).collect::<Vec<_>>())}
                        uid={uid.clone()} can_undo={!state.undo.is_empty()}
                        can_redo={!state.redo.is_empty()} on_change={dispatch.clone()} />
                </div>
                if let Some(r) = &scenario.lock.redlock {
                    <div class="fp-row">
                        <InstancePalette names={Rc::new(r.instances.iter().map(|i| i.name.clone()).collect::<Vec<_>>())}
                            tool={state.instance_tool} playhead_ms={state.playhead_ms} on_add={dispatch.clone()}
                            clocks={Rc::new(r.instances.iter().map(|i| (i.clock.monotonic, i.latency_ms)).collect::<Vec<_>>())} />
                        <RedlockOptions parallel={r.parallel} fence={r.fence} collapsed={state.collapsed}
                            on_change={dispatch.clone()} />
                    </div>
                }
                // Always there for Redlock, so selecting or deselecting never moves the timeline.
                if scenario.lock.redlock.is_some() {
                    <div class="fp-row fp-inspector-row">
                        if let Some((target, name, event)) = inspected {
                            <Inspector key={u8::from(state.notice.is_some())} {target} name={AttrValue::from(name)}
                                event={Rc::new(event)}
                                clients={Rc::new(scenario.clients.iter().map(|c| c.name.clone()).collect::<Vec<_>>())}
                                on_change={dispatch.clone()} />
                            if let Some(n) = state.notice.clone() {
                                <span class="fp-notice" role="status" data-testid="notice">{ n }</span>
                            }
                        } else {
                            <span class="fp-hint" data-testid="inspector-hint">
                                { "Select a clock jump, crash or partition to set how far, whether keys survive, or whom it cuts off. Double-click an instance lane to add one." }
                            </span>
                        }
                    </div>
                }
            }
            <Timeline scenario={shown} trace={runs.trace.clone()} ghost={runs.ghost.clone()}
                ghost_fenced={runs.ghost_fenced} selection={state.selection} playhead_ms={state.playhead_ms}
                frozen_axis_ms={state.drag.as_ref().map(|d| d.axis_end_ms)}
                dragging={state.drag.is_some()} readonly={state.readonly} tool={state.tool} width_px={state.width_px}
                uid={uid} on_action={dispatch.clone()} instance_tool={state.instance_tool} collapsed={state.collapsed} />
            if !first_run {
                <Readout trace={settled.trace.clone()} at_ms={state.playhead_ms} on_move={on_playhead} />
            }
            <p class="fp-keys">
                <kbd>{"Tab"}</kbd>{" moves between events · "}<kbd>{"←"}</kbd><kbd>{"→"}</kbd>
                {" move the focused event or pause edge (with "}<kbd>{"Shift"}</kbd>{": 10 ms) · "}
                <kbd>{"↑"}</kbd><kbd>{"↓"}</kbd>{" change client · "}<kbd>{"Delete"}</kbd>{" removes · "}
                <kbd>{"Ctrl+Z"}</kbd>{" / "}<kbd>{"Ctrl+Shift+Z"}</kbd>{" undo / redo · drag a palette button onto a lane, or double-click a lane, to add an event"}
            </p>
            if !first_run {
                <Narration trace={settled.trace.clone()} />
            }
        </div>
    }
}

fn refocus(root: &NodeRef, selection: Selection) {
    let Some(root) = root.cast::<web_sys::Element>() else {
        return;
    };
    // Inside a shadow root, document.activeElement is the host: ask the root the app lives in.
    let active = js_sys::Reflect::get(&root.get_root_node(), &"activeElement".into())
        .ok()
        .and_then(|a| a.dyn_into::<web_sys::Element>().ok());
    let lost = match &active {
        None => true,
        Some(a) => !root.contains(Some(a)) || a.tag_name() == "BODY",
    };
    if !lost {
        return;
    }
    let selector = match selection {
        Selection::Event(r) => format!("[data-ev=\"{}\"][data-part=\"body\"]", r.attr()),
        Selection::Instance(r) => format!("[data-iev=\"{}\"][data-part=\"body\"]", r.attr()),
        Selection::None => "[data-testid=\"timeline\"]".to_string(),
    };
    if let Ok(Some(el)) = root.query_selector(&selector) {
        if let Ok(el) = el.dyn_into::<web_sys::SvgElement>() {
            let _ = el.focus();
        }
    }
}
