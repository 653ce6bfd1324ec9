//! The lock service's lane: each lease as a bar labelled with its holder and fence, from the
//! grant to the instant the TTL ran out by the lock's clock (or a release or DEL ended it),
//! with a tick at every renewal.

use super::geometry::{colour_class, text_width_px, LaneKind, Layout};
use crate::sim::words::span_end_words;
use crate::sim::Trace;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct LockLaneProps {
    pub trace: Rc<Trace>,
    pub layout: Rc<Layout>,
}

impl PartialEq for LockLaneProps {
    fn eq(&self, other: &Self) -> bool {
        self.layout == other.layout
            && super::same_part(&self.trace, &other.trace, |t| (&t.leases, &t.clients))
    }
}

#[component]
pub fn LockLane(props: &LockLaneProps) -> Html {
    let l = &props.layout;
    let Some(lane) = l.lane(LaneKind::Lock) else {
        return html! {};
    };
    let t = &props.trace;
    let top = lane.top_px;
    let bar_y = top + 12;
    let bar_h = 24;
    html! {
        <g class="fp-lane fp-lock-lane" data-testid="lane-lock">
            <text class="lane-name" x="10" y={(top + 28).to_string()}>{ "lock" }</text>
            <text class="muted small" x="10" y={(top + 44).to_string()}>{ "service" }</text>
            { for t.leases.iter().enumerate().map(|(i, lease)| {
                let x0 = l.axis.x(lease.start_ms);
                let x1 = l.axis.x(lease.end_ms).max(x0 + 2);
                let who = t.client_name(lease.holder);
                let mut label = match lease.fence {
                    Some(f) => format!("{who} · fence {f}"),
                    None => format!("{who} · no fence"),
                };
                if text_width_px(&label) + 10 > x1 - x0 {
                    label = who.to_string();
                }
                let end_label = format!("{} at {} ms", span_end_words(&lease.end), lease.end_ms);
                let show_end = text_width_px(&end_label) < x1 - x0 + 20;
                html! {
                    <g class={classes!("fp-lease", colour_class(lease.holder))}
                        data-testid={format!("lease-{i}")}>
                        <rect x={x0.to_string()} y={bar_y.to_string()} width={(x1 - x0).to_string()}
                            height={bar_h.to_string()} rx="4" />
                        <text x={(x0 + 6).to_string()} y={(bar_y + 17).to_string()}>{ label }</text>
                        { for lease.renewals_ms.iter().map(|&r| {
                            let x = l.axis.x(r).to_string();
                            html! { <line class="renewal" x1={x.clone()} x2={x} y1={(bar_y - 4).to_string()}
                                y2={(bar_y + bar_h + 4).to_string()} /> }
                        }) }
                        if show_end {
                            <text class="muted small" x={x1.to_string()} y={(bar_y + bar_h + 14).to_string()}
                                text-anchor="end">{ end_label }</text>
                        }
                    </g>
                }
            }) }
        </g>
    }
}
