//! The root component: owns the one `State` through `use_reducer`, derives the traces from the
//! scenario (the run and its ghost without fencing), routes keys, and keeps the focus on the
//! selected event after a key press moved it. Everything else is drawn by child components.

use super::controls::palette::Palette;
use super::controls::palette_instance::InstancePalette;
use super::controls::preset_picker::PresetPicker;
use super::controls::redlock_options::RedlockOptions;
use super::controls::settings::Settings;
use super::controls::settings_service::ServiceSettings;
use super::controls::toolbar::{import_file, Toolbar};
use super::inspect::banner::Banner;
use super::inspect::client_inspector::ClientInspector;
use super::inspect::commands::Commands;
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
use crate::sim::{self, FenceRule, Scenario, Trace};
use std::rc::Rc;
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

fn runs(s: &Scenario) -> Runs {
    let mut other = s.clone();
    let ghost_fenced = s.storage.fence_rule == FenceRule::Off;
    other.storage.fence_rule = if ghost_fenced {
        FenceRule::Strict
    } else {
        FenceRule::Off
    };
    Runs {
        trace: Rc::new(sim::run(s)),
        ghost: Rc::new(sim::run(&other)),
        ghost_fenced,
    }
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
    let runs = use_memo(state.scenario.clone(), runs);
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

    let scenario = Rc::new(state.scenario.clone());
    // The toolbar and the hint act on or describe the scenario as a whole: during a drag they
    // keep the one it began with, so Yew skips them until the drop.
    let before = state
        .drag
        .as_ref()
        .map_or_else(|| scenario.clone(), |d| d.before.clone());
    // The settled trace's own scenario, for the views that read both (the commands).
    let settled_scenario = before.clone();
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
            <Banner trace={settled.trace.clone()} ghost={settled.ghost.clone()} ghost_fenced={settled.ghost_fenced} />
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
            <Timeline scenario={scenario.clone()} trace={runs.trace.clone()} ghost={runs.ghost.clone()}
                ghost_fenced={runs.ghost_fenced} selection={state.selection} playhead_ms={state.playhead_ms}
                frozen_axis_ms={state.drag.as_ref().map(|d| d.axis_end_ms)}
                dragging={state.drag.is_some()} readonly={state.readonly} tool={state.tool} width_px={state.width_px}
                uid={uid} on_action={dispatch.clone()} instance_tool={state.instance_tool} collapsed={state.collapsed} />
            <Readout trace={settled.trace.clone()} at_ms={state.playhead_ms} on_move={on_playhead.clone()} />
            <p class="fp-keys">
                <kbd>{"Tab"}</kbd>{" moves between events · "}<kbd>{"←"}</kbd><kbd>{"→"}</kbd>
                {" move the focused event or pause edge (with "}<kbd>{"Shift"}</kbd>{": 10 ms) · "}
                <kbd>{"↑"}</kbd><kbd>{"↓"}</kbd>{" change client · "}<kbd>{"Delete"}</kbd>{" removes · "}
                <kbd>{"Ctrl+Z"}</kbd>{" / "}<kbd>{"Ctrl+Shift+Z"}</kbd>{" undo / redo · drag a palette button onto a lane, or double-click a lane, to add an event"}
            </p>
            <div class="fp-story">
                <Narration trace={settled.trace.clone()} />
                <Commands scenario={settled_scenario} trace={settled.trace.clone()}
                    playhead_ms={state.playhead_ms} on_move={on_playhead.clone()} />
            </div>
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
