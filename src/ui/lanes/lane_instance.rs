//! One Redlock instance's lane. On top, the instance's own view of the key: who held it when,
//! by true time, with the keys a restart forgot marked. Below, the instance's events as
//! focusable, draggable shapes: clock jumps (a slew as a line), crashes as hatched stretches
//! and partitions as dashed ones, each with edge handles. In the gutter, the instance's name
//! and its clock's offset at the playhead, read from the scenario's clock settings.

use super::geometry::{colour_class, small_text_width_px, LaneKind, Layout};
use super::hits::Rect;
use super::hits::{
    instance_hits, rects_of, INSTANCE_EVENT_H as EVENT_H, INSTANCE_EVENT_Y as EVENT_Y,
};
use super::redlock_view::{clock_text, instance_event_labels};
use crate::sim::scenario::{Instance, InstanceEvent};
use crate::sim::sort::sort_by_key;
use crate::sim::trace::{LeaseSpan, SpanEnd};
use crate::sim::words::span_end_words;
use crate::ui::model::item::Part;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct InstanceLaneProps {
    pub index: usize,
    pub instance: Rc<Instance>,
    /// This instance's keys only.
    pub keys: Rc<Vec<LeaseSpan>>,
    pub clients: Rc<Vec<String>>,
    pub layout: Rc<Layout>,
    pub playhead_ms: u64,
    /// The selected event of this lane, if the selection is here.
    pub selected: Option<usize>,
    pub readonly: bool,
    pub uid: AttrValue,
}

const KEY_Y: i32 = 5;
const KEY_H: i32 = 17;

/// The longest label that fits in `room_px`, if any.
fn fitting<S: AsRef<str>>(labels: &[S], room_px: i32) -> Option<String> {
    labels
        .iter()
        .map(AsRef::as_ref)
        .find(|s| small_text_width_px(s) + 8 <= room_px)
        .map(str::to_string)
}

#[component]
pub fn InstanceLane(props: &InstanceLaneProps) -> Html {
    let l = &props.layout;
    let i = props.index;
    let Some(lane) = l.lane(LaneKind::Instance(i)) else {
        return html! {};
    };
    let inst = &props.instance;
    let name = inst.name.as_str();
    let top = lane.top_px;
    let who = |c: usize| props.clients.get(c).map_or("?", String::as_str);

    let keys = props.keys.iter().enumerate().map(|(k, key)| {
        let x0 = l.axis.x(key.start_ms);
        let x1 = l.axis.x(key.end_ms).max(x0 + 2);
        let holder = who(key.holder);
        let fenced = key.fence.map(|f| format!("{holder} · fence {f}"));
        let label = fitting(&[fenced.as_deref().unwrap_or(holder), holder], x1 - x0);
        let forgotten = key.end == SpanEnd::Forgotten;
        let next_x = props
            .keys
            .get(k + 1)
            .map_or(l.axis.right_px + 20, |n| l.axis.x(n.start_ms));
        let mark = forgotten.then(|| fitting(&["✗ forgotten", "✗"], next_x - x1)).flatten();
        let y = top + KEY_Y;
        html! {
            <g class={classes!("fp-key", colour_class(key.holder), forgotten.then_some("forgotten"))}
                data-testid={format!("key-{name}-{k}")}>
                <title>{ format!("{name}: {holder}'s key from {} to {} ms, {}", key.start_ms, key.end_ms, span_end_words(&key.end)) }</title>
                <rect x={x0.to_string()} y={y.to_string()} width={(x1 - x0).to_string()} height={KEY_H.to_string()} rx="3" />
                if let Some(text) = label {
                    <text class="small" x={(x0 + 4).to_string()} y={(y + 12).to_string()}>{ text }</text>
                }
                if let Some(text) = mark {
                    <text class="small bad" x={(x1 + 3).to_string()} y={(y + 12).to_string()}>{ text }</text>
                }
            </g>
        }
    });

    // Where each part is grabbed: the only elements of the lane that take the pointer.
    let hits = instance_hits(l, top, &inst.events, !props.readonly);
    let hits_of = |e: usize, part: Part, offset: (i32, i32)| -> Html {
        hit_rects(rects_of(&hits, e, part), offset)
    };

    let mut order: Vec<usize> = (0..inst.events.len()).collect();
    // Stable: events at the same instant keep their order.
    sort_by_key(&mut order, |&e| inst.events[e].at_ms());
    let events = order.iter().enumerate().map(|(pos, &e)| {
        let ev = &inst.events[e];
        let selected = props.selected == Some(e);
        let iev = format!("{i}-{e}");
        let x = l.axis.x(ev.at_ms());
        let x1 = l.axis.x(ev.end_ms()).max(x + 3);
        let next_x = order
            .get(pos + 1)
            .map_or(l.axis.right_px + 20, |&n| l.axis.x(inst.events[n].at_ms()));
        let labels = instance_event_labels(ev, inst.clock.monotonic);
        let y = top + EVENT_Y;
        let aria = format!(
            "{name}: {} at {} ms. Arrow keys move it (Shift: 10 ms), Up/Down change instance, Delete removes.",
            labels[0],
            ev.at_ms()
        );
        let class = classes!(
            "fp-iev",
            match ev {
                InstanceEvent::ClockJump { .. } => "fp-jump",
                InstanceEvent::Crash { .. } => "fp-crash",
                InstanceEvent::Partition { .. } => "fp-cut",
            },
            selected.then_some("selected")
        );
        let handle = |part: &'static str, hx: i32, at: u64| html! {
            <g class={classes!("fp-handle", selected.then_some("selected"))} data-iev={iev.clone()} data-part={part}
                tabindex="0" role="slider"
                aria-label={format!("{} of {name}'s {}", if part == "start" { "Start" } else { "End" }, labels[0])}
                aria-valuemin="0" aria-valuemax={l.axis.end_ms.to_string()} aria-valuenow={at.to_string()}
                aria-valuetext={format!("{at} ms")} data-testid={format!("iev-{name}-{e}-{part}")}>
                { hits_of(e, if part == "start" { Part::Start } else { Part::End }, (0, 0)) }
                <rect class="ring" x={(hx - 5).to_string()} y={(y - 3).to_string()} width="10" height={(EVENT_H + 6).to_string()} rx="3" />
                <rect class="grip" x={(hx - 2).to_string()} y={(y - 1).to_string()} width="4" height={(EVENT_H + 2).to_string()} rx="1" />
            </g>
        };
        match ev {
            InstanceEvent::ClockJump { over_ms, .. } => {
                let slew_x = (*over_ms > 0).then(|| l.axis.x(ev.end_ms()));
                let room = slew_x.unwrap_or(x).max(x + 9).max(next_x) - x - 10;
                let label = fitting(&labels, room);
                html! {
                    <g key={format!("j{e}")}>
                        if let Some(sx) = slew_x {
                            <line class="fp-slew" x1={x.to_string()} x2={sx.to_string()}
                                y1={(y + EVENT_H / 2).to_string()} y2={(y + EVENT_H / 2).to_string()} />
                        }
                        <g {class} data-iev={iev.clone()} data-part="body" tabindex="0" role="button"
                            aria-label={aria} data-testid={format!("iev-{name}-{e}")}
                            data-at-ms={ev.at_ms().to_string()}
                            transform={format!("translate({x},{})", y + EVENT_H / 2)}>
                            { hits_of(e, Part::Body, (x, y + EVENT_H / 2)) }
                            <rect class="ring" x="-10" y="-10" width="20" height="20" rx="4" />
                            <path class="shape" d="M-6,-7 H6 L-6,7 H6" />
                            if let Some(text) = label {
                                <text class="small halo" x="10" y="4">{ text }</text>
                            }
                        </g>
                    </g>
                }
            }
            _ => {
                // Inside the bar if it fits, else after it, up to the next event.
                let (label, label_x) = match fitting(&labels, x1 - x) {
                    Some(text) => (Some(text), x + 6),
                    None => (fitting(&labels, next_x - x1 - 6), x1 + 8),
                };
                let fill = match ev {
                    InstanceEvent::Crash { .. } => format!("url(#{}-hatch-pause)", props.uid),
                    _ => "none".to_string(),
                };
                html! {
                    <g key={format!("b{e}")}>
                        <g {class} data-iev={iev.clone()} data-part="body" tabindex="0" role="button"
                            aria-label={aria} data-testid={format!("iev-{name}-{e}")}
                            data-at-ms={ev.at_ms().to_string()}>
                            { hits_of(e, Part::Body, (0, 0)) }
                            <rect class="ring" x={(x - 3).to_string()} y={(y - 3).to_string()} width={(x1 - x + 6).to_string()}
                                height={(EVENT_H + 6).to_string()} rx="4" />
                            <rect class="bar" x={x.to_string()} y={y.to_string()} width={(x1 - x).to_string()}
                                height={EVENT_H.to_string()} rx="3" {fill} />
                            if let Some(text) = label {
                                <text class="small halo" x={label_x.to_string()} y={(y + 11).to_string()}>{ text }</text>
                            }
                        </g>
                        if !props.readonly {
                            { handle("start", x, ev.at_ms()) }
                            { handle("end", x1, ev.end_ms()) }
                        }
                    </g>
                }
            }
        }
    });

    html! {
        <g class="fp-lane fp-instance-lane" data-testid={format!("instance-{name}")} data-instance={i.to_string()}>
            <text class="lane-name" x="10" y={(top + 19).to_string()}>{ name.to_string() }</text>
            <text class="muted small" x="10" y={(top + 36).to_string()} data-testid={format!("clock-{name}")}>
                { clock_text(inst, props.playhead_ms) }
            </text>
            { for keys }
            { for events }
        </g>
    }
}

/// The hit rectangles, moved by `(dx, dy)` (a marker's are drawn inside its translation).
fn hit_rects(rects: &[Rect], (dx, dy): (i32, i32)) -> Html {
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
