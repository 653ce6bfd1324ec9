//! The faults a search injected, marked "found by search" on the timeline: a dashed frame
//! around each one on its lane, with the words above it. Drawn last and never hit by the
//! pointer, so the events under it drag as usual.

use super::geometry::{LaneKind, Layout};
use crate::sim::Scenario;
use crate::ui::model::found::Mark;
use crate::ui::model::selection::ItemRef;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FoundMarksProps {
    pub marks: Rc<Vec<Mark>>,
    pub scenario: Rc<Scenario>,
    pub layout: Rc<Layout>,
}

/// The lane and the span in time a mark frames.
fn place(s: &Scenario, m: &Mark) -> Option<(LaneKind, u64, u64)> {
    match m {
        Mark::Item(ItemRef::Event(r)) => {
            let e = s.clients.get(r.client)?.events.get(r.event)?;
            Some((LaneKind::Client(r.client), e.at_ms(), e.end_ms()))
        }
        Mark::Item(ItemRef::Instance(r)) => {
            let e = s.lock.redlock()?.instances.get(r.instance)?;
            let e = e.events.get(r.event)?;
            Some((LaneKind::Instance(r.instance), e.at_ms(), e.end_ms()))
        }
        Mark::LockJump(j) => {
            let at = s.lock.clock.jumps.get(*j)?.at_ms;
            Some((LaneKind::Lock, at, at))
        }
    }
}

#[component]
pub fn FoundMarks(props: &FoundMarksProps) -> Html {
    let l = &props.layout;
    let marks = props.marks.iter().filter_map(|m| {
        let (kind, from, to) = place(&props.scenario, m)?;
        // Collapsed Redlock has no lane per instance: the service lane holds the mark.
        let lane = l.lane(kind).or_else(|| l.lane(LaneKind::Lock))?;
        let (x0, x1) = (l.axis.x(from) - 4, l.axis.x(to) + 4);
        let (y, h) = (lane.top_px + 2, lane.height_px - 4);
        let label_x = x0.max(l.gutter_px + 2);
        Some(html! {
            <g class="fp-found" data-testid="found-mark">
                <rect x={x0.to_string()} y={y.to_string()} width={(x1 - x0).max(8).to_string()}
                    height={h.max(8).to_string()} rx="4" class="fp-found-frame" />
                <text x={label_x.to_string()} y={(y + 11).to_string()} class="fp-found-label">
                    { "found by search" }
                </text>
            </g>
        })
    });
    html! { <g class="fp-found-marks" aria-hidden="true">{ for marks }</g> }
}
