//! The lock service's lanes the lane renderer does not draw (it draws the single Redis, etcd,
//! advisory-lock and collapsed Redlock ones): Redlock's lane per instance, when the layout made
//! room for them, or the ZooKeeper lane.

use super::geometry::{LaneKind, Layout};
use super::lane_instance::InstanceLane;
use super::lane_zk::ZkLane;
use crate::sim::{Scenario, Trace};
use crate::ui::model::selection::InstanceRef;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LockServiceProps {
    pub scenario: Rc<Scenario>,
    pub trace: Rc<Trace>,
    pub layout: Rc<Layout>,
    pub playhead_ms: u64,
    pub selected: Option<InstanceRef>,
    pub readonly: bool,
    pub uid: AttrValue,
}

#[component]
pub fn LockService(props: &LockServiceProps) -> Html {
    let (trace, layout) = (props.trace.clone(), props.layout.clone());
    if trace.is_zookeeper() {
        return html! { <ZkLane {trace} {layout} /> };
    }
    // The single Redis, etcd and collapsed Redlock lanes are drawn by the lane renderer, with
    // the client and storage lanes (`lanes_view.rs`).
    let Some(r) = &props.scenario.lock.redlock else {
        return html! {};
    };
    if trace.is_etcd() || trace.is_advisory() || layout.lane(LaneKind::Lock).is_some() {
        return html! {};
    }
    let clients = Rc::new(props.trace.clients.clone());
    html! {
        { for r.instances.iter().enumerate().map(|(i, inst)| html! {
            <InstanceLane key={i} index={i} instance={Rc::new(inst.clone())}
                keys={Rc::new(trace.leases.iter().filter(|k| k.instance == i).cloned().collect::<Vec<_>>())}
                clients={clients.clone()} layout={layout.clone()} playhead_ms={props.playhead_ms}
                selected={props.selected.filter(|s| s.instance == i).map(|s| s.event)}
                readonly={props.readonly} uid={props.uid.clone()} />
        }) }
    }
}
