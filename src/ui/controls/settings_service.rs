//! The lock service: a single Redis, Redlock over 3, 5 or 7 instances, an etcd cluster (3.5,
//! or 3.4 with its expired-waiter bug), a PostgreSQL advisory lock, ZooKeeper or a database
//! lease row. Switching is
//! one undoable edit; instances that remain keep their events.

use crate::sim::scenario::EtcdVersion;
use crate::ui::model::service::SERVICE_SIZES;
use crate::ui::model::state::{Action, InstanceAction};
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ServiceSettingsProps {
    /// 0 for a single Redis (or etcd).
    pub instances: usize,
    /// The etcd server version, when the service is etcd.
    pub etcd: Option<EtcdVersion>,
    /// Whether the service is a PostgreSQL advisory lock.
    pub advisory: bool,
    /// Whether the service is a ZooKeeper ensemble.
    #[prop_or_default]
    pub zookeeper: bool,
    /// Whether the service is a database lease row.
    #[prop_or_default]
    pub lease: bool,
    pub on_change: Callback<Action>,
}

#[component]
pub fn ServiceSettings(props: &ServiceSettingsProps) -> Html {
    let n = props.instances;
    let etcd = props.etcd;
    let advisory = props.advisory;
    let zookeeper = props.zookeeper;
    let lease = props.lease;
    let onchange = props.on_change.reform(|e: Event| {
        let value = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
            .map(|s| s.value())
            .unwrap_or_default();
        match value.as_str() {
            "etcd-3.5" => Action::Instance(InstanceAction::SetEtcd(EtcdVersion::V35)),
            "etcd-3.4" => Action::Instance(InstanceAction::SetEtcd(EtcdVersion::V34)),
            "advisory" => Action::Instance(InstanceAction::SetAdvisory),
            "zookeeper" => Action::Instance(InstanceAction::SetZookeeper),
            "lease" => Action::Instance(InstanceAction::SetLease),
            other => Action::Instance(InstanceAction::SetService(other.parse().unwrap_or(0))),
        }
    });
    html! {
        <label class="fp-preset">
            <span class="fp-group-name">{ "Lock service" }</span>
            <select {onchange} data-testid="service">
                <option value="0" selected={n == 0 && etcd.is_none() && !advisory && !zookeeper && !lease}>{ "single Redis" }</option>
                { for SERVICE_SIZES.iter().map(|&k| html! {
                    <option value={k.to_string()} selected={n == k}>{ format!("Redlock, {k} instances") }</option>
                }) }
                if n > 0 && !SERVICE_SIZES.contains(&n) {
                    <option value={n.to_string()} selected=true>{ format!("Redlock, {n} instances") }</option>
                }
                <option value="etcd-3.5" selected={etcd == Some(EtcdVersion::V35)}>{ "etcd 3.5 (revision fences)" }</option>
                <option value="etcd-3.4" selected={etcd == Some(EtcdVersion::V34)}>{ "etcd 3.4 (expired-waiter bug)" }</option>
                <option value="advisory" selected={advisory}>{ "PostgreSQL advisory lock (no fence)" }</option>
                <option value="zookeeper" selected={zookeeper}>{ "ZooKeeper (czxid fence)" }</option>
                <option value="lease" selected={lease}>{ "database lease row (generation fence)" }</option>
            </select>
        </label>
    }
}
