//! ZooKeeper's settings: the ensemble's `tickTime` (a session expires on a tick boundary, and
//! its timeout is clamped to 2–20 ticks), which number of its lock node the client sends as
//! the fence (the czxid, or the sequence suffix, the pitfall), and what the client does while
//! Curator says SUSPENDED. The session timeout itself is the TTL setting. Each change is one
//! undoable edit; a tick that is no whole number of ms is refused by name.

use crate::sim::scenario::{OnSuspended, ZkFence, Zookeeper};
use crate::ui::model::state::{Action, InstanceAction};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ZkOptionsProps {
    pub zookeeper: Rc<Zookeeper>,
    /// The session timeout the client asks for (`lock.ttlMs`), to say what the server grants.
    pub requested_ms: u64,
    pub on_change: Callback<Action>,
}

fn select_value(e: &Event) -> String {
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
        .map(|s| s.value())
        .unwrap_or_default()
}

#[component]
pub fn ZkOptions(props: &ZkOptionsProps) -> Html {
    let z = &props.zookeeper;
    let on = &props.on_change;
    let tick = on.reform(|e: Event| {
        let v = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .map(|i| i.value())
            .unwrap_or_default();
        Action::Instance(InstanceAction::SetTickTime(v))
    });
    let fence = on.reform(|e: Event| {
        Action::Instance(InstanceAction::SetZkFence(
            if select_value(&e) == "sequence" {
                ZkFence::Sequence
            } else {
                ZkFence::Czxid
            },
        ))
    });
    let policy = on.reform(|e: Event| {
        Action::Instance(InstanceAction::SetOnSuspended(
            if select_value(&e) == "stop_writing" {
                OnSuspended::StopWriting
            } else {
                OnSuspended::KeepGoing
            },
        ))
    });
    let granted = z.negotiated_timeout_ms(props.requested_ms);
    let by_sequence = z.fence == ZkFence::Sequence;
    let stops = z.on_suspended == OnSuspended::StopWriting;
    html! {
        <div class="fp-group" role="group" aria-label="ZooKeeper" data-testid="zk-options">
            <label title={format!("a session timeout is 2 to 20 ticks: this one is granted {granted} ms")}>
                <span class="fp-group-name">{ "ZooKeeper tickTime ms" }</span>
                <input type="number" min="1" value={z.tick_time_ms.to_string()} onchange={tick} data-testid="zk-tick" />
            </label>
            <label>
                <span class="fp-group-name">{ "fence" }</span>
                <select onchange={fence} data-testid="zk-fence">
                    <option value="czxid" selected={!by_sequence}>{ "the node's czxid" }</option>
                    <option value="sequence" selected={by_sequence}>{ "the sequence suffix" }</option>
                </select>
            </label>
            <label>
                <span class="fp-group-name">{ "on SUSPENDED" }</span>
                <select onchange={policy} data-testid="zk-on-suspended">
                    <option value="keep_going" selected={!stops}>{ "keep going" }</option>
                    <option value="stop_writing" selected={stops}>{ "stop writing" }</option>
                </select>
            </label>
        </div>
    }
}
