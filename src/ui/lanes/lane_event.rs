//! One event on a client's lane: its marker (a pause: a hatched bar with its two edge handles;
//! a debit in flight: its arrival handle), its label and its hit areas. The lane works out
//! where everything goes and hands each event its own plain numbers and words, so mid-drag
//! only the events whose drawing changed (the dragged one, the writes it defers) are drawn
//! again; the others compare equal and Yew skips them.

use super::describe::shape;
use super::geometry::colour_class;
use super::hits::{Rect, PAUSE_H};
use crate::sim::Event;
use yew::prelude::*;

/// Everything one event's drawing depends on, worked out by the lane.
#[derive(Properties, PartialEq)]
pub struct EventMarkProps {
    pub event: Event,
    /// The event's index in its client's list, and the client's.
    pub index: usize,
    pub client: usize,
    pub name: AttrValue,
    pub uid: AttrValue,
    pub selected: bool,
    pub readonly: bool,
    pub aria: AttrValue,
    /// The axis's last instant (a handle's `aria-valuemax`).
    pub axis_end_ms: u64,
    /// Where the event starts, and the row it sits on.
    pub x: i32,
    pub y: i32,
    /// A pause's end.
    pub x_end: i32,
    /// The label, if it fits, and where it goes (from `x`).
    pub label: Option<AttrValue>,
    pub label_dx: i32,
    /// When it ran, if it waited for its client to wake.
    pub x_ran: i32,
    /// Where a debit in flight arrives.
    pub flight: Option<i32>,
    /// The hit areas of its body, start and end.
    pub hits: [Vec<Rect>; 3],
}

/// The hit rectangles, moved by `(dx, dy)` (a marker's are drawn inside its translation).
pub(super) fn hit_rects(rects: &[Rect], (dx, dy): (i32, i32)) -> Html {
    rects
        .iter()
        .map(|r| {
            html! {
                <rect class="hit" x={(r.x - dx).to_string()} y={(r.y - dy).to_string()}
                    width={r.w.to_string()} height={r.h.to_string()} />
            }
        })
        .collect()
}

#[component]
pub fn EventMark(props: &EventMarkProps) -> Html {
    let p = props;
    let e = &p.event;
    let (i, name, x, y) = (p.index, p.name.as_str(), p.x, p.y);
    let colour = colour_class(p.client);
    let ev_attr = format!("{}-{i}", p.client);
    let selected = p.selected.then_some("selected");
    match e {
        Event::Pause { cause, .. } => {
            let x1 = p.x_end;
            let handle = |part: &'static str, hx: i32, at: u64, rects: &[Rect]| {
                html! {
                    <g class={classes!("fp-handle", colour, selected)}
                        data-ev={ev_attr.clone()} data-part={part} tabindex="0" role="slider"
                        aria-label={format!("{} of {name}'s {} pause", if part == "start" { "Start" } else { "End" }, cause.label())}
                        aria-valuemin="0" aria-valuemax={p.axis_end_ms.to_string()} aria-valuenow={at.to_string()}
                        aria-valuetext={format!("{at} ms")}
                        data-testid={format!("pause-{name}-{i}-{part}")}>
                        { hit_rects(rects, (0, 0)) }
                        <rect class="ring" x={(hx - 6).to_string()} y={(y - 5).to_string()} width="12" height={(PAUSE_H + 10).to_string()} rx="3" />
                        <rect class="grip" x={(hx - 3).to_string()} y={(y - 3).to_string()} width="6" height={(PAUSE_H + 6).to_string()} rx="2" />
                    </g>
                }
            };
            html! {
                <g>
                    <g class={classes!("fp-ev", "fp-pause", colour, selected)}
                        data-ev={ev_attr.clone()} data-part="body" tabindex="0" role="button"
                        aria-label={p.aria.clone()} data-testid={format!("pause-{name}-{i}")}>
                        { hit_rects(&p.hits[0], (0, 0)) }
                        <rect class="ring" x={(x - 3).to_string()} y={(y - 3).to_string()} width={(x1 - x + 6).to_string()}
                            height={(PAUSE_H + 6).to_string()} rx="4" />
                        <rect class="bar" x={x.to_string()} y={y.to_string()} width={(x1 - x).to_string()}
                            height={PAUSE_H.to_string()} rx="3" fill={format!("url(#{}-hatch-pause)", p.uid)} />
                        if let Some(text) = p.label.clone() {
                            <text class="small halo" x={(x + 8).to_string()} y={(y + 13).to_string()}>{ text }</text>
                        }
                    </g>
                    if !p.readonly {
                        { handle("start", x, e.at_ms(), &p.hits[1]) }
                        { handle("end", x1, e.end_ms(), &p.hits[2]) }
                    }
                </g>
            }
        }
        _ => {
            let x_ran = p.x_ran;
            html! {
                <g>
                    if x_ran > x + 8 {
                        <line class="fp-wait" x1={(x + 8).to_string()} x2={x_ran.to_string()}
                            y1={y.to_string()} y2={y.to_string()} />
                        <circle class="fp-wait" cx={x_ran.to_string()} cy={y.to_string()} r="3" fill="none" />
                    }
                    if let Some(fx) = p.flight {
                        <line class={classes!("fp-flight", colour)} x1={x.to_string()} x2={fx.to_string()}
                            y1={(y + 10).to_string()} y2={(y + 10).to_string()} />
                    }
                    <g class={classes!("fp-ev", colour, selected)}
                        data-ev={ev_attr.clone()} data-part="body" tabindex="0" role="button"
                        aria-label={p.aria.clone()} data-testid={format!("event-{name}-{i}")}
                        transform={format!("translate({x},{y})")}>
                        { hit_rects(&p.hits[0], (x, y)) }
                        <rect class="ring" x="-11" y="-11" width="22" height="22" rx="4" />
                        <path class="shape" d={shape(e)} />
                        if let Some(label) = p.label.clone() {
                            <text class="small muted" x={p.label_dx.to_string()} y="4">{ label }</text>
                        }
                    </g>
                    if let (Some(fx), false) = (p.flight, p.readonly) {
                        <g class={classes!("fp-handle", colour, selected)}
                            data-ev={ev_attr.clone()} data-part="end" tabindex="0" role="slider"
                            aria-label={format!("Arrival of {name}'s debit")} aria-valuemin="0"
                            aria-valuemax={p.axis_end_ms.to_string()} aria-valuenow={e.end_ms().to_string()}
                            aria-valuetext={format!("{} ms", e.end_ms())}
                            data-testid={format!("debit-{name}-{i}-end")}>
                            { hit_rects(&p.hits[2], (0, 0)) }
                            <rect class="ring" x={(fx - 7).to_string()} y={(y + 3).to_string()} width="14" height="14" rx="3" />
                            <circle class="grip" cx={fx.to_string()} cy={(y + 10).to_string()} r="4" />
                        </g>
                    }
                </g>
            }
        }
    }
}
