//! One client's lane. On top, when the client believes it holds the lock, with the stretch
//! where it believes so after its lease ended drawn hatched in red and labelled: that gap is
//! the whole lesson. Below: each event as a focusable marker (pauses as hatched bars with
//! edge handles), and under them a badge per event with the step text the core wrote for it.

use super::describe::{aria_label, badge_step, event_label, mark, next_point_x};
use super::geometry::{
    colour_class, order_of, place_labels, small_text_width_px, LaneKind, Layout,
};
use super::hits::{client_hits, rects_of, MARK_Y, PAUSE_Y};
use super::lane_event::EventMark;
use crate::sim::trace::{BeliefSpan, Step};
use crate::sim::{Event, Scenario, Trace};
use crate::ui::model::item::Part;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct ClientLaneProps {
    pub client: usize,
    pub scenario: Rc<Scenario>,
    pub trace: Rc<Trace>,
    pub layout: Rc<Layout>,
    pub readonly: bool,
    pub uid: AttrValue,
    /// The selected event of this lane, if the selection is here.
    pub selected: Option<usize>,
}

/// Equal when this lane would draw the same: its client and its part of the run, compared in
/// place, so a lane whose part did not change is not drawn again and nothing is copied out.
impl PartialEq for ClientLaneProps {
    fn eq(&self, other: &Self) -> bool {
        let c = self.client;
        let (a, b) = (&self.trace, &other.trace);
        let mine = |s: &&Step| s.client == c;
        let held = |s: &&BeliefSpan| s.client == c;
        c == other.client
            && self.layout == other.layout
            && self.readonly == other.readonly
            && self.uid == other.uid
            && self.selected == other.selected
            && self.scenario.clients.get(c) == other.scenario.clients.get(c)
            && (Rc::ptr_eq(a, b)
                || (a.steps.iter().filter(mine).eq(b.steps.iter().filter(mine))
                    && a.beliefs
                        .iter()
                        .filter(held)
                        .eq(b.beliefs.iter().filter(held))))
    }
}

const BELIEF_Y: i32 = 4;
const BELIEF_H: i32 = 14;
const BADGE_Y: [i32; 2] = [80, 95];

/// When the event actually ran: a step due during a pause runs when the client wakes.
fn ran_at(steps: &[Step], client: usize, event: usize, at_ms: u64) -> u64 {
    steps
        .iter()
        .find(|s| {
            s.client == client
                && s.event == Some(event)
                && !matches!(s.outcome, crate::sim::trace::Outcome::Woke)
        })
        .map_or(at_ms, |s| s.at_ms)
}

#[component]
pub fn ClientLane(props: &ClientLaneProps) -> Html {
    let l = &props.layout;
    let c = props.client;
    let Some(lane) = l.lane(LaneKind::Client(c)) else {
        return html! {};
    };
    let top = lane.top_px;
    let Some(client) = props.scenario.clients.get(c) else {
        return html! {};
    };
    let name = client.name.as_str();
    // The whole run's steps: every lookup below picks this client's own.
    let t = props.trace.steps.as_slice();
    let colour = colour_class(c);
    let events = &client.events;
    let starts: Vec<i64> = events.iter().map(|e| e.at_ms() as i64).collect();
    let order = order_of(&starts);

    // Where each point marker sits, to know how much room its label has.
    let points: Vec<(usize, i32)> = order
        .iter()
        .filter(|&&i| !matches!(events[i], Event::Pause { .. }))
        .map(|&i| (i, l.axis.x(events[i].at_ms())))
        .collect();

    // Where each part is grabbed: the only elements of the lane that take the pointer.
    let hits = client_hits(l, top, events, !props.readonly);
    let beliefs = props.trace.beliefs.iter().filter(|b| b.client == c).enumerate().map(|(i, b)| {
        let x0 = l.axis.x(b.start_ms);
        let x_end = l.axis.x(b.end_ms).max(x0 + 2);
        let x_stale = b.stale_from_ms.map(|s| l.axis.x(s).clamp(x0, x_end));
        let held_end = x_stale.unwrap_or(x_end);
        let y = top + BELIEF_Y;
        let held_label = match b.fence {
            Some(f) => format!("believes it holds fence {f}"),
            None => "believes it holds the lock".to_string(),
        };
        let held_label = (small_text_width_px(&held_label) + 8 < held_end - x0).then_some(held_label);
        html! {
            <g class={classes!("fp-belief", colour)} data-testid={format!("belief-{name}-{i}")}>
                <rect class="held" x={x0.to_string()} y={y.to_string()} width={(held_end - x0).max(0).to_string()}
                    height={BELIEF_H.to_string()} rx="3" />
                if let Some(text) = held_label {
                    <text class="small" x={(x0 + 5).to_string()} y={(y + 11).to_string()}>{ text }</text>
                }
                if let Some(xs) = x_stale {
                    <rect class="stale" x={xs.to_string()} y={y.to_string()} width={(x_end - xs).max(1).to_string()}
                        height={BELIEF_H.to_string()} fill={format!("url(#{}-hatch-stale)", props.uid)}
                        data-testid={format!("stale-{name}-{i}")}>
                        <title>{ format!("{name} still believes it holds the lock, but its lease ended at {} ms", b.stale_from_ms.unwrap_or(0)) }</title>
                    </rect>
                    { stale_label(xs, x_end, y) }
                }
            </g>
        }
    });

    let axis_end_ms = l.axis.end_ms;
    let name_attr = AttrValue::from(name.to_string());
    let items = order.iter().map(|&i| {
        let e = &events[i];
        let step = badge_step(t, c, i);
        let aria = aria_label(name, e, step.map(|s| s.text.as_str()));
        let x = l.axis.x(e.at_ms());
        let hits = [Part::Body, Part::Start, Part::End].map(|part| rects_of(&hits, i, part).to_vec());
        let (y, x_end, label, label_dx, x_ran, flight) = match e {
            Event::Pause { cause, .. } => {
                let x1 = l.axis.x(e.end_ms()).max(x + 2);
                let full = event_label(e);
                let label = [full.as_str(), cause.label()]
                    .into_iter()
                    .find(|s| small_text_width_px(s) + 12 < x1 - x)
                    .map(|s| AttrValue::from(s.to_string()));
                (top + PAUSE_Y, x1, label, 0, x, None)
            }
            _ => {
                let next_x = next_point_x(&points, i, l.axis.right_px);
                let label = event_label(e);
                let x_ran = l.axis.x(ran_at(t, c, i, e.at_ms()));
                // An event that waited (its client was paused) has a dotted line to when it
                // ran; its label goes after that line, not over it.
                let label_dx = if x_ran > x + 8 { x_ran - x + 6 } else { 11 };
                let show = small_text_width_px(&label) + label_dx + 3 < next_x - x;
                let flight = match e {
                    Event::Debit { delay_ms, .. } if *delay_ms > 0 => Some(l.axis.x(e.end_ms())),
                    _ => None,
                };
                (top + MARK_Y, x, show.then(|| AttrValue::from(label)), label_dx, x_ran, flight)
            }
        };
        html! {
            <EventMark key={i} event={e.clone()} index={i} client={c} name={name_attr.clone()} uid={props.uid.clone()}
                selected={props.selected == Some(i)} readonly={props.readonly} aria={AttrValue::from(aria)}
                {axis_end_ms} {x} {y} {x_end} {label} {label_dx} {x_ran} {flight} {hits} />
        }
    });

    // Badges: the step text for every event but pauses, in two rows that avoid each other.
    let badges: Vec<(i32, usize, String, &'static str)> = order
        .iter()
        .filter(|&&i| !matches!(events[i], Event::Pause { .. }))
        .filter_map(|&i| {
            let s = badge_step(t, c, i)?;
            let m = mark(&s.outcome);
            let x = l.axis.x(ran_at(t, c, i, events[i].at_ms()));
            Some((x - 6, i, format!("{} {}", m.glyph(), s.text), m.class()))
        })
        .collect();
    let labels: Vec<(i32, &str)> = badges.iter().map(|b| (b.0, b.2.as_str())).collect();
    let placed = place_labels(&labels, l.gutter_px + 4, l.axis.right_px + 8, BADGE_Y.len());

    html! {
        <g class="fp-lane fp-client-lane" data-testid={format!("lane-{name}")} data-lane={c.to_string()}>
            <g class={colour}>
                <circle class="fp-swatch" cx="16" cy={(top + 24).to_string()} r="6" />
            </g>
            <text class="lane-name" x="28" y={(top + 29).to_string()}>{ name.to_string() }</text>
            <text class="muted small" x="10" y={(top + 46).to_string()}>{ "client" }</text>
            { for beliefs }
            { for items }
            { for placed.into_iter().map(|(k, x, row)| {
                let (_, i, text, class) = &badges[k];
                html! {
                    <g class={classes!("fp-badge", *class)} data-testid={format!("step-{name}-{i}")}>
                        <text x={x.to_string()} y={(top + BADGE_Y[row]).to_string()}>{ text.clone() }</text>
                    </g>
                }
            }) }
        </g>
    }
}

/// The label on the stale stretch, as long as fits.
fn stale_label(x0: i32, x1: i32, y: i32) -> Html {
    let room = x1 - x0 - 8;
    let text = [
        "✗ still believes it holds the lock",
        "✗ believes it holds the lock",
        "✗ stale belief",
        "✗",
    ]
    .into_iter()
    .find(|s| small_text_width_px(s) <= room);
    match text {
        Some(text) => html! {
            <text class="small stale halo" x={(x0 + 4).to_string()} y={(y + 11).to_string()}>{ text }</text>
        },
        None => html! {},
    }
}
