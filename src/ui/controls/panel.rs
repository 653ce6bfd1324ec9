//! The controls under the verdict: the button that folds them on a narrow screen, the
//! palettes, the lock and storage settings, Redlock's options and, for Redlock, the row of the
//! selected instance event's inspector. Its props compare only the parts of the scenario it
//! draws (the lock, the storage's fence rule, the clients' names), so a drag of a client's
//! event, which changes none of them, does not build or compare any of it again.

use super::palette::Palette;
use super::palette_instance::InstancePalette;
use super::redlock_options::RedlockOptions;
use super::settings::Settings;
use crate::sim::Scenario;
use crate::ui::inspect::instance_inspector::Inspector;
use crate::ui::model::selection::Selection;
use crate::ui::model::state::Action;
use crate::ui::model::tools::{InstanceTool, Tool};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct ControlsPanelProps {
    /// Compared in the parts drawn here only (see `PartialEq`).
    pub scenario: Rc<Scenario>,
    pub uid: AttrValue,
    /// Unfolded on a narrow screen (wide screens always show the controls).
    pub open: bool,
    pub on_toggle: Callback<()>,
    pub tool: Tool,
    pub instance_tool: InstanceTool,
    pub selection: Selection,
    pub playhead_ms: u64,
    pub collapsed: bool,
    /// Why the last edit was refused, shown beside the instance inspector when it shows.
    pub notice: Option<AttrValue>,
    pub on_action: Callback<Action>,
}

/// Equal when the panel would draw the same: everything it reads from the scenario is its
/// lock (with Redlock's instances and their events), the fence rule and the clients' names.
impl PartialEq for ControlsPanelProps {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (&self.scenario, &other.scenario);
        (Rc::ptr_eq(a, b)
            || (a.lock == b.lock
                && a.storage.fence_rule == b.storage.fence_rule
                && a.clients.len() == b.clients.len()
                && a.clients
                    .iter()
                    .zip(&b.clients)
                    .all(|(x, y)| x.name == y.name)))
            && self.uid == other.uid
            && self.open == other.open
            && self.on_toggle == other.on_toggle
            && self.tool == other.tool
            && self.instance_tool == other.instance_tool
            && self.selection == other.selection
            && self.playhead_ms == other.playhead_ms
            && self.collapsed == other.collapsed
            && self.notice == other.notice
            && self.on_action == other.on_action
    }
}

#[component]
pub fn ControlsPanel(props: &ControlsPanelProps) -> Html {
    let s = &props.scenario;
    let uid = &props.uid;
    let names = || Rc::new(s.clients.iter().map(|c| c.name.clone()).collect::<Vec<_>>());
    let on_action = &props.on_action;
    // The selected instance event, when there is one: its inspector takes the row.
    let inspected = props.selection.instance().and_then(|r| {
        let inst = s.lock.redlock.as_ref()?.instances.get(r.instance)?;
        Some((r, inst.name.clone(), inst.events.get(r.event)?.clone()))
    });
    html! {
        <>
            <button type="button" class="fp-controls-toggle" aria-expanded={props.open.to_string()}
                aria-controls={format!("{uid}-controls")} data-testid="controls-toggle"
                onclick={props.on_toggle.reform(|_| ())}>{ "Add events and settings" }</button>
            <div class="fp-controls" id={format!("{uid}-controls")}>
            <div class="fp-row">
                <Palette tool={props.tool} selected={props.selection.event()} clients={s.clients.len()}
                    playhead_ms={props.playhead_ms} on_add={on_action.clone()} />
            </div>
            <div class="fp-row">
                <Settings lock={Rc::new(s.lock.clone())} fence_rule={s.storage.fence_rule}
                    clients={names()} uid={uid.clone()} on_change={on_action.clone()} />
            </div>
            if let Some(r) = &s.lock.redlock {
                <div class="fp-row">
                    <InstancePalette names={Rc::new(r.instances.iter().map(|i| i.name.clone()).collect::<Vec<_>>())}
                        tool={props.instance_tool} playhead_ms={props.playhead_ms} on_add={on_action.clone()}
                        clocks={Rc::new(r.instances.iter().map(|i| (i.clock.monotonic, i.latency_ms)).collect::<Vec<_>>())} />
                    <RedlockOptions parallel={r.parallel} fence={r.fence} collapsed={props.collapsed}
                        on_change={on_action.clone()} />
                </div>
            }
            </div>
            // Always there for Redlock, so selecting or deselecting never moves the timeline.
            if s.lock.redlock.is_some() {
                <div class="fp-row fp-inspector-row">
                    if let Some((target, name, event)) = inspected {
                        <Inspector key={u8::from(props.notice.is_some())} {target} name={AttrValue::from(name)}
                            event={Rc::new(event)} clients={names()} on_change={on_action.clone()} />
                        if let Some(n) = props.notice.clone() {
                            <span class="fp-notice" role="status" data-testid="notice">{ n }</span>
                        }
                    } else {
                        <span class="fp-hint" data-testid="inspector-hint">
                            { "Select a clock jump, crash or partition to set how far, whether keys survive, or whom it cuts off. Double-click an instance lane to add one." }
                        </span>
                    }
                </div>
            }
        </>
    }
}
