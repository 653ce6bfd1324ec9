//! Redlock collapsed into one "lock service" lane: for each client, the stretches in which it
//! held unexpired keys on a majority of instances, and below them the instances' clock jumps,
//! crashes and partitions as marks with the trace's words. Majorities never overlap (any two
//! share an instance), so a second holder shows up in the client lanes, as a belief.

use super::geometry::{colour_class, small_text_width_px, LaneKind, Layout};
use crate::sim::Trace;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ServiceLaneProps {
    pub trace: Rc<Trace>,
    pub layout: Rc<Layout>,
}

#[component]
pub fn ServiceLane(props: &ServiceLaneProps) -> Html {
    let l = &props.layout;
    let Some(lane) = l.lane(LaneKind::Lock) else {
        return html! {};
    };
    let t = &props.trace;
    let top = lane.top_px;
    let (bar_y, bar_h) = (top + 8, 22);
    let n = t.instances.len();
    let spans = t.majorities.iter().enumerate().map(|(k, h)| {
        let x0 = l.axis.x(h.start_ms);
        let x1 = l.axis.x(h.end_ms).max(x0 + 2);
        let who = t.client_name(h.client);
        let label = [format!("{who} holds a majority"), who.to_string()]
            .into_iter()
            .find(|s| small_text_width_px(s) + 10 <= x1 - x0);
        html! {
            <g class={classes!("fp-lease", colour_class(h.client))} data-testid={format!("majority-{k}")}>
                <title>{ format!("{who} held keys on {} or more of {n} instances from {} to {} ms", t.majority, h.start_ms, h.end_ms) }</title>
                <rect x={x0.to_string()} y={bar_y.to_string()} width={(x1 - x0).to_string()} height={bar_h.to_string()} rx="4" />
                if let Some(text) = label {
                    <text x={(x0 + 6).to_string()} y={(bar_y + 16).to_string()}>{ text }</text>
                }
            </g>
        }
    });
    let marks = &t.instance_marks;
    let mark_y = top + 46;
    html! {
        <g class="fp-lane fp-lock-lane" data-testid="lane-lock">
            <text class="lane-name" x="10" y={(top + 24).to_string()}>{ "lock" }</text>
            <text class="muted small" x="10" y={(top + 40).to_string()}>{ format!("{n} instances,") }</text>
            <text class="muted small" x="10" y={(top + 54).to_string()}>{ format!("{} needed", t.majority) }</text>
            { for spans }
            { for marks.iter().enumerate().map(|(k, m)| {
                let x = l.axis.x(m.at_ms);
                let next_x = marks.get(k + 1).map_or(l.axis.right_px + 20, |n| l.axis.x(n.at_ms));
                let show = small_text_width_px(&m.text) + 12 <= next_x - x;
                html! {
                    <g class="fp-imark" data-testid={format!("imark-{k}")}>
                        <title>{ format!("{} ms: {}", m.at_ms, m.text) }</title>
                        <path d={format!("M{x},{} l-4,7 h8 z", mark_y)} />
                        if show {
                            <text class="small muted" x={(x + 6).to_string()} y={(mark_y + 8).to_string()}>{ m.text.clone() }</text>
                        }
                    </g>
                }
            }) }
        </g>
    }
}
