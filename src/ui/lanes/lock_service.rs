//! The lock service's lanes the lane renderer does not draw (it draws every other one):
//! Redlock's lane per instance, when the layout made room for them.

use super::geometry::{LaneKind, Layout};
use super::lane_instance::InstanceLane;
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
    // The single Redis, etcd and collapsed Redlock lanes are drawn by the lane renderer, with
    // the client and storage lanes (`lanes_view.rs`).
    let Some(r) = &props.scenario.lock.redlock else {
        return html! {};
    };
    let own = trace.is_etcd() || trace.is_advisory() || trace.is_zookeeper();
    if own || layout.lane(LaneKind::Lock).is_some() {
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
