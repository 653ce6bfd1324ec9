//! The root component: owns the one `State` through `use_reducer`, derives the traces from the
//! scenario (the run and the comparison `sim::compare` chooses for it), routes keys, and keeps
//! the focus on the selected event after a key press moved it. Everything else is drawn by
//! child components. A run that does not finish within half a frame goes on in slices
//! between which the browser handles input, and the page says it is computing until the
//! trace is there.

use super::controls::advisory_options::AdvisoryOptions;
use super::controls::find::FindPanel;
use super::controls::lease_options::LeaseOptions;
use super::controls::palette::Palette;
use super::controls::palette_instance::InstancePalette;
use super::controls::preset_picker::PresetPicker;
use super::controls::redlock_options::RedlockOptions;
use super::controls::settings::Settings;
use super::controls::settings_service::ServiceSettings;
use super::controls::toolbar::{import_file, Toolbar};
use super::controls::zk_options::ZkOptions;
use super::inspect::banner::Banner;
use super::inspect::client_inspector::ClientInspector;
use super::inspect::commands::Commands;
use super::inspect::hint::Hint;
use super::inspect::instance_inspector::Inspector;
use super::inspect::narration::Narration;
use super::inspect::readout::{reading, Readout};
use super::lanes::dom;
use super::lanes::timeline::Timeline;
use super::live::{Live, CAPTION_LAGS};
use super::model::apply::apply;
use super::model::heading::{heading, Heading, EDITED_CAPTION};
use super::model::keys::key_action;
use super::model::selection::{Selection, Slot};
use super::model::state::{Action, State};
use super::runs::{not_started, slice_later, start, Job, JobRef, Runs};
use super::share::sync::use_sync;
use crate::sim::Scenario;
use std::cell::Cell;
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
    /// Runs "Find a failure"; without it there is no search panel.
    pub finder: Option<super::finder::Finder>,
}

#[component]
pub fn App(props: &AppProps) -> Html {
    let state = use_reducer_eq({
        let initial = props.initial.clone();
        move || (*initial).clone()
    });
    // Mid-drag the moves go to the live path (`live.rs`), not to Yew: every action Yew gets is
    // preceded by the moves it has not seen, in order.
    let live = (*use_memo((), |_| Live::default())).clone();
    let root = use_node_ref();
    live.sync(state.drag.is_some().then(|| (*state).clone()), &root);
    let dispatch = {
        let (d, live) = (state.dispatcher(), live.clone());
        use_callback((), move |a: Action, _| {
            live.flush(&d);
            d.dispatch(a)
        })
    };
    // Made once, so the components they go to compare equal from one render to the next.
    let on_pick = {
        let dispatch = dispatch.clone();
        use_callback((), move |id: String, _| {
            dispatch.emit(Action::LoadPreset(id))
        })
    };
    let on_playhead = {
        let dispatch = dispatch.clone();
        use_callback((), move |t: u64, _| dispatch.emit(Action::SetPlayhead(t)))
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
    // The story under the timeline (narration and commands) catches up on the drop: mid-drag
    // it keeps the run the drag began with and says it lags (dragging the playhead, the run
    // does not change and the commands follow the playhead live).
    let settled = use_mut_ref(|| None::<(Rc<Scenario>, Rc<Runs>)>);
    if state.drag.is_none() || settled.borrow().is_none() {
        *settled.borrow_mut() = Some((shown.clone(), runs.clone()));
    }
    let (story_scenario, story_runs) = settled
        .borrow()
        .clone()
        .unwrap_or_else(|| (shown.clone(), runs.clone()));
    let story_stale = !Rc::ptr_eq(&story_runs.trace, &runs.trace);
    // The verdict, the playhead's reading and the narration follow the run live, mid-drag too.
    // So that a verdict that grows or shrinks cannot move the lanes under the pointer, the
    // verdict's slot keeps its height for the length of a drag (a longer verdict floats over
    // the controls below it), and the playground keeps at least its height.
    // A press or a drop that changes the height of what is above the lanes scrolls the page by
    // as much, so the lanes stay under the pointer (`dom::Anchor`).
    let verdict_slot = use_node_ref();
    {
        let (slot, root, live) = (verdict_slot.clone(), root.clone(), live.clone());
        use_effect_with(state.drag.is_some(), move |&dragging| {
            dom::hold_height(&slot, "height", dragging);
            dom::hold_height(&root, "min-height", dragging);
            let svg = root.cast::<web_sys::Element>().and_then(|r| {
                r.query_selector("[data-testid=\"timeline\"]")
                    .ok()
                    .flatten()
            });
            live.anchor().keep(svg, dragging);
        });
    }

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
    // On a narrow screen the controls fold away under one button so the timeline comes first
    // (style.rs lays that out; wide screens ignore `fp-folded`). View state, never an edit.
    let controls_open = use_state(|| false);
    let class = classes!(
        "fp-root",
        props.compact.then_some("fp-compact"),
        state.readonly.then_some("fp-readonly"),
        (!*controls_open && !state.readonly && !props.compact).then_some("fp-folded")
    );
    let uid: AttrValue = format!("fp{}", props.uid).into();
    // Like the hint, the heading above the timeline changes on the drop, not under the pointer.
    let heading = use_memo(before.clone(), |s| heading(s));
    // The selected instance event, when its inspector shows: a refusal then shows beside it.
    let inspected = state
        .selection
        .instance()
        .filter(|_| !state.readonly && !props.compact)
        .and_then(|r| {
            let inst = scenario.lock.redlock()?.instances.get(r.instance)?;
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
                <h2 data-testid="title">{ heading.title() }</h2>
                // A compact embed leaves out the editing tools: the timeline and the verdict stay.
                if !state.readonly && !props.compact {
                    <Toolbar scenario={before.clone()} share={props.share} root={root.clone()} on_action={dispatch.clone()}
                        history={(!state.undo.is_empty(), !state.redo.is_empty())} />
                    <span class="fp-group">
                        <PresetPicker current={state.preset_id.clone().map(AttrValue::from)}
                            {on_pick} />
                        <ServiceSettings instances={scenario.lock.redlock().map_or(0, |r| r.instances.len())}
                            etcd={scenario.lock.etcd().map(|e| e.version)}
                            advisory={scenario.lock.advisory().is_some()} zookeeper={scenario.lock.zookeeper().is_some()}
                            lease={scenario.lock.lease().is_some()}
                            on_change={dispatch.clone()} />
                    </span>
                }
            </div>
            { caption(&heading, state.drag.as_ref().is_some_and(|d| *d.before != state.scenario)) }
            if let Some(p) = state.problem.clone() {
                <p class="fp-problem" role="alert"><span data-testid="problem">{ p }</span>
                    <button type="button" aria-label="Dismiss" data-testid="dismiss-problem"
                        onclick={dispatch.reform(|_| Action::Problem(None))}>{ "×" }</button>
                </p>
            }
            <div class="fp-verdict-slot" ref={verdict_slot}>
                if computing {
                    <div class="fp-verdict" role="status" aria-live="polite" data-testid="computing">
                        { if first_run { "Computing the run…" } else { "Computing the run… the timeline still shows the previous one." } }
                    </div>
                } else {
                    <Banner trace={runs.trace.clone()} ghost={runs.ghost.clone()} contrast={runs.contrast.clone()}
                        drawn={live.banner()} epoch={live.epoch()} />
                }
            </div>
            // The selected client event's inspector takes the hint's line, one line high, so
            // selecting an event does not move the timeline; a refusal shows beside it (beside
            // the instance inspector, for an instance event).
            if let Some((target, name, event)) = state.selection.event().filter(|_| !state.readonly && !props.compact).and_then(|r| {
                let c = scenario.clients.get(r.client)?;
                Some((r, c.name.clone(), c.events.get(r.event)?.clone()))
            }) {
                // Mid-drag on the live path its fields keep the drag's first values: dimmed, saying so.
                <div class="fp-edit-line" data-lags="inspector">
                    <ClientInspector key={u8::from(state.notice.is_some())} {target} name={AttrValue::from(name)}
                        event={Rc::new(event)} offers={scenario.lock.service.offered()} on_change={dispatch.clone()} />
                    if let Some(n) = state.notice.clone() {
                        <span class="fp-notice" role="status" data-testid="notice">{ n }</span>
                    }
                    <span class="fp-lag-note" data-lag-note="" data-testid="inspector-lags"></span>
                </div>
            } else {
                <Hint scenario={before.clone()} quiet={state.readonly || props.compact} notice={hint_notice} on_action={dispatch.clone()} />
            }
            if !state.readonly && !props.compact {
                <button type="button" class="fp-controls-toggle" aria-expanded={controls_open.to_string()}
                    aria-controls={format!("{uid}-controls")} data-testid="controls-toggle"
                    onclick={let open = controls_open.clone(); move |_| open.set(!*open)}>{ "Add events and settings" }</button>
                <div class="fp-controls" id={format!("{uid}-controls")}>
                <div class="fp-row">
                    <Palette tool={state.tool} selected={state.selection.event()} clients={scenario.clients.len()}
                        playhead_ms={state.playhead_ms} on_add={dispatch.clone()}
                        offers={scenario.lock.service.offered()} />
                </div>
                <div class="fp-row">
                    <Settings lock={Rc::new(scenario.lock.clone())} fence_rule={scenario.storage.fence_rule}
                        clients={Rc::new(scenario.clients.iter().map(|c| c.name.clone()).collect::<Vec<_>>())}
                        uid={uid.clone()} on_change={dispatch.clone()} />
                </div>
                if let Some(a) = scenario.lock.advisory() {
                    <div class="fp-row">
                        <AdvisoryOptions advisory={Rc::new(a.clone())} in_transaction={scenario.storage.in_transaction}
                            on_change={dispatch.clone()} />
                    </div>
                }
                if let Some(l) = scenario.lock.lease() {
                    <div class="fp-row">
                        <LeaseOptions expiry={l.expiry} guard={scenario.storage.lease_guard}
                            on_change={dispatch.clone()} />
                    </div>
                }
                if let Some(z) = scenario.lock.zookeeper() {
                    <div class="fp-row">
                        // Keyed by the notice, so a refused tick shows the kept one again.
                        <ZkOptions key={u8::from(state.notice.is_some())} zookeeper={Rc::new(z.clone())} requested_ms={scenario.lock.ttl_ms}
                            on_change={dispatch.clone()} />
                    </div>
                }
                if let Some(r) = scenario.lock.redlock() {
                    <div class="fp-row">
                        <InstancePalette names={Rc::new(r.instances.iter().map(|i| i.name.clone()).collect::<Vec<_>>())}
                            tool={state.instance_tool} playhead_ms={state.playhead_ms} on_add={dispatch.clone()}
                            clocks={Rc::new(r.instances.iter().map(|i| (i.clock.monotonic, i.latency_ms)).collect::<Vec<_>>())} />
                        <RedlockOptions parallel={r.parallel} fence={r.fence} collapsed={state.collapsed}
                            on_change={dispatch.clone()} />
                    </div>
                }
                </div>
                // Always there for Redlock, so selecting or deselecting never moves the timeline.
                if scenario.lock.redlock().is_some() {
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
            <Timeline scenario={shown.clone()} trace={runs.trace.clone()} ghost={runs.ghost.clone()}
                contrast={runs.contrast.clone()} selection={state.selection} playhead_ms={state.playhead_ms}
                frozen_axis_ms={state.drag.as_ref().map(|d| d.axis_end_ms)}
                dragging={state.drag.is_some()} readonly={state.readonly} tool={state.tool} width_px={state.width_px}
                uid={uid} on_action={dispatch.clone()} live={live.clone()} epoch={live.epoch()} instance_tool={state.instance_tool} collapsed={state.collapsed}
                found={state.found_here().filter(|_| Rc::ptr_eq(&shown, &scenario)).map(|f| Rc::new(f.marks.clone()))} />
            if !first_run {
                <Readout text={reading(&runs.trace, state.playhead_ms)} end_ms={runs.trace.end_ms}
                    at_ms={state.playhead_ms} on_move={on_playhead.clone()} drawn={live.readout()} epoch={live.epoch()} />
            }
            // Under the timeline, so the story still fits the first screen; what it finds
            // opens on the timeline above.
            if let Some(finder) = props.finder.clone().filter(|_| !state.readonly && !props.compact) {
                <FindPanel {finder} scenario={before.clone()} on_action={dispatch.clone()}
                    preset_id={state.preset_id.clone().map(AttrValue::from)}
                    found_summary={state.found_here().map(|f| AttrValue::from(f.summary.clone()))} />
            }
            <p class="fp-keys">
                <kbd>{"Tab"}</kbd>{" moves between events · "}<kbd>{"←"}</kbd><kbd>{"→"}</kbd>
                {" move the focused event or pause edge (with "}<kbd>{"Shift"}</kbd>{": 10 ms) · "}
                <kbd>{"↑"}</kbd><kbd>{"↓"}</kbd>{" change client · "}<kbd>{"Delete"}</kbd>{" removes · "}
                <kbd>{"Ctrl+Z"}</kbd>{" / "}<kbd>{"Ctrl+Shift+Z"}</kbd>{" undo / redo · drag a palette button onto a lane, or double-click a lane, to add an event"}
            </p>
            if !first_run {
                <div class="fp-story">
                    <Narration trace={story_runs.trace.clone()} stale={story_stale} />
                    <Commands scenario={story_scenario} trace={story_runs.trace.clone()} stale={story_stale}
                        playhead_ms={state.playhead_ms} on_move={on_playhead.clone()} />
                </div>
            }
        </div>
    }
}

/// The preset's caption, or, once the scenario is edited, a line that says so, with the
/// preset's own words one click away. A drag's edit shows on the drop (the heading keeps the
/// scenario the drag began with), so until then a preset's caption, which states its outcome,
/// is covered by a note saying so: by this render on Yew's path (`lagging`), by `live.rs` on
/// the live path (`data-lags`).
fn caption(h: &Heading, lagging: bool) -> Html {
    match h {
        Heading::AsWritten { caption, .. } => html! {
            <p class="fp-caption" data-testid="caption" data-lags="caption" data-stale={lagging.then_some("")}>
                { caption.clone() }
                // Yew's note, and the live path's, which Yew keeps empty.
                if lagging { <span class="fp-lag-note" data-testid="caption-lags">{ CAPTION_LAGS }</span> }
                <span class="fp-lag-note" data-lag-note="" data-testid="caption-lags-live"></span>
            </p>
        },
        Heading::Edited { original, .. } => html! {
            <div class="fp-caption fp-edited" data-testid="caption">
                <p data-testid="edited">{ EDITED_CAPTION }</p>
                <details>
                    <summary>{ "The preset's description" }</summary>
                    <p data-testid="original-caption">{ original.clone() }</p>
                </details>
            </div>
        },
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
