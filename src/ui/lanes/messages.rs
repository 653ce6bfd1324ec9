//! Messages as arrows from a client to the lock service or the storage, from the instant they
//! were sent to the instant they arrived, so a delayed packet is visibly long.

use super::geometry::{colour_class, LaneKind, Layout};
use crate::sim::trace::Target;
use crate::sim::Trace;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct MessagesProps {
    pub trace: Rc<Trace>,
    pub layout: Rc<Layout>,
    pub uid: AttrValue,
}

impl PartialEq for MessagesProps {
    fn eq(&self, other: &Self) -> bool {
        self.layout == other.layout
            && self.uid == other.uid
            && super::same_part(&self.trace, &other.trace, |t| &t.messages)
    }
}

#[component]
pub fn Messages(props: &MessagesProps) -> Html {
    let l = &props.layout;
    let Some(storage) = l.lane(LaneKind::Storage) else {
        return html! {};
    };
    let lock = l.lane(LaneKind::Lock);
    let arrow = format!("url(#{}-arrow)", props.uid);
    html! {
        <g class="fp-messages" aria-hidden="true" pointer-events="none">
            { for props.trace.messages.iter().filter_map(|m| {
                let from = l.lane(LaneKind::Client(m.client))?;
                let (x1, x2) = (l.axis.x(m.sent_ms), l.axis.x(m.arrived_ms));
                let (y1, y2) = match m.target {
                    // Redlock with a lane per instance: to the addressed instance's keys.
                    Target::Lock => match m.instance.and_then(|i| l.lane(LaneKind::Instance(i))) {
                        Some(inst) => (from.top_px + 22, inst.top_px + 23),
                        None => (from.top_px + 22, lock?.top_px + 38),
                    },
                    Target::Storage => (from.top_px + 40, storage.top_px + 8),
                };
                Some(html! {
                    <line class={classes!("fp-msg", colour_class(m.client), m.lost.then_some("lost"))}
                        x1={x1.to_string()} y1={y1.to_string()} x2={x2.to_string()} y2={y2.to_string()}
                        marker-end={(!m.lost).then(|| arrow.clone())}>
                        <title>{ format!("{} at {} ms, {} {} ms", m.label, m.sent_ms,
                            if m.lost { "lost at" } else { "arrived" }, m.arrived_ms) }</title>
                    </line>
                })
            }) }
        </g>
    }
}
