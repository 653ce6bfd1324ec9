//! The settings: the storage's fence rule, the TTL, the first fence, the watchdog, the client
//! list (undo and redo are in the toolbar). Each change is one undoable edit. Which of them the
//! lock service takes is its own answer (`LockService::offer`), so a control it refuses or has
//! no word for is not drawn: an advisory lock has no TTL, fence or watchdog (its own settings
//! are in `advisory_options`); etcd's revision and ZooKeeper's czxid are the server's counters,
//! not a first fence, and neither has a watchdog or a lock value to compare. For ZooKeeper the
//! TTL is the session timeout the client asks for (its settings are in `zk_options`).

use crate::sim::scenario::{Control, LockService, LockSettings};
use crate::sim::FenceRule;
use crate::ui::model::state::Action;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SettingsProps {
    pub lock: Rc<LockSettings>,
    pub fence_rule: FenceRule,
    pub clients: Rc<Vec<String>>,
    /// Makes the radio group's name unique on the page.
    pub uid: AttrValue,
    pub on_change: Callback<Action>,
}

fn input_of(e: &Event) -> Option<web_sys::HtmlInputElement> {
    e.target()?.dyn_into().ok()
}

#[component]
pub fn Settings(props: &SettingsProps) -> Html {
    let lock = &props.lock;
    let on = &props.on_change;
    let rule = on.reform(|e: Event| {
        let v = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
            .map(|s| s.value())
            .unwrap_or_default();
        Action::SetFenceRule(match v.as_str() {
            "off" => FenceRule::Off,
            "non_decreasing" => FenceRule::NonDecreasing,
            "cas_value" => FenceRule::CasValue,
            _ => FenceRule::Strict,
        })
    });
    let ttl = {
        let on = on.clone();
        let current = lock.ttl_ms;
        Callback::from(move |e: Event| {
            let v = input_of(&e).and_then(|i| i.value().parse::<u64>().ok());
            on.emit(Action::SetTtl(v.unwrap_or(current)));
        })
    };
    let first = on.reform(|e: Event| {
        let v = input_of(&e).map(|i| i.value()).unwrap_or_default();
        Action::SetFirstFence(if v == "1" { 1 } else { 33 })
    });
    let watchdog =
        on.reform(|e: Event| Action::SetWatchdog(input_of(&e).is_some_and(|i| i.checked())));
    let r = props.fence_rule;
    // What the service takes is decided in one place (`LockService::offer`); only its name
    // for the TTL is its own here: ZooKeeper's is the session timeout the client asks for.
    let offers = |c: Control| lock.service.offers(c);
    let (ttl_name, ttl_title) = match &lock.service {
        LockService::Zookeeper(_) => (
            "session timeout ms",
            Some("the server clamps it to 2–20 ticks; the client pings every third of it"),
        ),
        LockService::Redis
        | LockService::Redlock(_)
        | LockService::Etcd(_)
        | LockService::Advisory(_)
        | LockService::Lease(_) => ("TTL ms", None),
    };
    html! {
        <div class="fp-group" role="group" aria-label="Settings" data-testid="settings">
            <label>
                <span class="fp-group-name">{ "Storage fencing" }</span>
                <select class="fp-rule" onchange={rule} data-testid="fence-rule">
                    <option value="off" selected={r == FenceRule::Off}>{ "off (trusts any writer)" }</option>
                    <option value="strict" selected={r == FenceRule::Strict}>{ "strict: token > last" }</option>
                    <option value="non_decreasing" selected={r == FenceRule::NonDecreasing}>{ "non-decreasing: token ≥ last" }</option>
                    if offers(Control::CasValue) {
                        <option value="cas_value" selected={r == FenceRule::CasValue}>{ "CAS on the lock value" }</option>
                    }
                </select>
            </label>
            if offers(Control::Ttl) {
                <label title={ttl_title}>
                    <span class="fp-group-name">{ ttl_name }</span>
                    <input type="number" min="1" max="60000" value={lock.ttl_ms.to_string()} onchange={ttl} data-testid="ttl" />
                </label>
            }
            if offers(Control::FirstFence) {
                <span class="fp-group" role="radiogroup" aria-label="First fence">
                    <span class="fp-group-name">{ "First fence" }</span>
                    { for [33u64, 1].iter().map(|&f| html! {
                        <label><input type="radio" name={format!("{}-first-fence", props.uid)} value={f.to_string()}
                            checked={lock.first_fence == f} onchange={first.clone()}
                            data-testid={format!("first-fence-{f}")} />{ f }</label>
                    }) }
                </span>
            }
            if offers(Control::Watchdog) {
                <label>
                    <input type="checkbox" checked={lock.watchdog} onchange={watchdog} data-testid="watchdog" />
                    { "watchdog renews every TTL/2" }
                </label>
            }
            <span class="fp-group" role="group" aria-label="Clients">
                <span class="fp-group-name">{ "Clients" }</span>
                { for props.clients.iter().enumerate().map(|(i, c)| html! {
                    <button type="button" disabled={props.clients.len() <= 1}
                        aria-label={format!("Remove client {c}")}
                        data-testid={format!("remove-client-{c}")}
                        onclick={on.reform(move |_: MouseEvent| Action::RemoveClient(i))}>
                        { format!("{c} ×") }
                    </button>
                }) }
            </span>
        </div>
    }
}
