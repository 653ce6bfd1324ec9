//! Where each draggable part of a client's lane can be grabbed. Every part gets an area of its
//! own: markers share one row and split the gap with a close neighbour, pause edges and debit
//! arrivals share the row below and split theirs, and a pause's body takes what its edges leave.
//! A Redlock instance's lane has one row: clock jumps are markers, crashes and partitions are
//! bars with a handle at each end, and the bars take what the markers and handles leave.
//! The lanes draw exactly these rectangles as their hit areas (nothing else in them takes the
//! pointer), so the rule "no two overlap" is tested here, natively, on every preset.

use super::geometry::{order_of, row_hits, Layout};
use crate::sim::scenario::InstanceEvent;
use crate::sim::Event;
use crate::ui::model::item::Part;

/// Where the markers sit in a client lane, from its top.
pub const MARK_Y: i32 = 31;
/// Where a pause's bar sits, and how tall it is.
pub const PAUSE_Y: i32 = 45;
pub const PAUSE_H: i32 = 18;
/// The markers' row and the edges' row, from the lane's top: `[top, bottom)`.
const MARK_ROW: (i32, i32) = (20, 39);
const EDGE_ROW: (i32, i32) = (39, 70);
/// A debit's arrival handle is shorter than a pause edge.
const ARRIVAL_BOTTOM: i32 = 52;
const MARK_HALF_PX: i32 = 10;
const EDGE_HALF_PX: i32 = 8;

/// A rectangle in the SVG's coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

impl Rect {
    fn new((left, right): (i32, i32), (top, bottom): (i32, i32)) -> Rect {
        Rect {
            x: left,
            y: top,
            w: right - left,
            h: bottom - top,
        }
    }

    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }
}

/// The hit areas of one part of one event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartHit {
    pub event: usize,
    pub part: Part,
    pub rects: Vec<Rect>,
}

/// Every draggable part of the lane whose top is `top_px`. Without `handles` (a read-only view)
/// a pause has only its body and a debit no arrival handle.
pub fn client_hits(layout: &Layout, top_px: i32, events: &[Event], handles: bool) -> Vec<PartHit> {
    let x = |t: u64| layout.axis.x(t);
    let row = |(a, b): (i32, i32)| (top_px + a, top_px + b);
    let mut marks = Vec::new();
    let mut edges = Vec::new();
    let mut bars = Vec::new();
    let starts: Vec<i64> = events.iter().map(|e| e.at_ms() as i64).collect();
    let order = order_of(&starts);
    for &i in &order {
        let e = &events[i];
        match e {
            Event::Pause { .. } => {
                let (x0, x1) = (x(e.at_ms()), x(e.end_ms()).max(x(e.at_ms()) + 2));
                if handles {
                    edges.push((i, Part::Start, x0));
                    edges.push((i, Part::End, x1));
                }
                bars.push((i, (x0, x1)));
            }
            Event::Debit { delay_ms, .. } if *delay_ms > 0 && handles => {
                marks.push((i, x(e.at_ms())));
                edges.push((i, Part::End, x(e.end_ms())));
            }
            _ => marks.push((i, x(e.at_ms()))),
        }
    }
    let xs: Vec<i32> = marks.iter().map(|m| m.1).collect();
    let (mark_hits, _) = row_hits(&xs, MARK_HALF_PX, &[]);
    let xs: Vec<i32> = edges.iter().map(|e| e.2).collect();
    let spans: Vec<(i32, i32)> = bars.iter().map(|b| b.1).collect();
    let (edge_hits, bar_hits) = row_hits(&xs, EDGE_HALF_PX, &spans);

    let mut hits = Vec::with_capacity(marks.len() + edges.len() + bars.len());
    for ((event, _), h) in marks.iter().zip(mark_hits) {
        hits.push(PartHit {
            event: *event,
            part: Part::Body,
            rects: vec![Rect::new(h, row(MARK_ROW))],
        });
    }
    for ((event, part, _), h) in edges.iter().zip(edge_hits) {
        let pause = matches!(events[*event], Event::Pause { .. });
        let rows = if pause {
            EDGE_ROW
        } else {
            (EDGE_ROW.0, ARRIVAL_BOTTOM)
        };
        hits.push(PartHit {
            event: *event,
            part: *part,
            rects: vec![Rect::new(h, row(rows))],
        });
    }
    for ((event, _), pieces) in bars.iter().zip(bar_hits) {
        let rows = row((PAUSE_Y, PAUSE_Y + PAUSE_H));
        hits.push(PartHit {
            event: *event,
            part: Part::Body,
            rects: pieces.into_iter().map(|p| Rect::new(p, rows)).collect(),
        });
    }
    hits
}

/// Where an instance lane's events sit, from its top, and how tall they are.
pub const INSTANCE_EVENT_Y: i32 = 27;
pub const INSTANCE_EVENT_H: i32 = 15;
/// The row an instance lane's events are grabbed in, from its top: `[top, bottom)`.
const INSTANCE_ROW: (i32, i32) = (
    INSTANCE_EVENT_Y - 4,
    INSTANCE_EVENT_Y + INSTANCE_EVENT_H + 4,
);
const INSTANCE_HALF_PX: i32 = 8;

/// Every draggable part of the instance lane whose top is `top_px`: a clock jump's marker, and
/// a crash's or partition's bar with (given `handles`) its two edges. Markers and edges split
/// the gap with a close neighbour; a bar takes what they leave.
pub fn instance_hits(
    layout: &Layout,
    top_px: i32,
    events: &[InstanceEvent],
    handles: bool,
) -> Vec<PartHit> {
    let x = |t: u64| layout.axis.x(t);
    let mut points = Vec::new();
    let mut bars = Vec::new();
    let starts: Vec<i64> = events.iter().map(|e| e.at_ms() as i64).collect();
    for i in order_of(&starts) {
        let e = &events[i];
        let x0 = x(e.at_ms());
        match e {
            InstanceEvent::ClockJump { .. } => points.push((i, Part::Body, x0)),
            _ => {
                let x1 = x(e.end_ms()).max(x0 + 3);
                if handles {
                    points.push((i, Part::Start, x0));
                    points.push((i, Part::End, x1));
                }
                bars.push((i, (x0, x1)));
            }
        }
    }
    let xs: Vec<i32> = points.iter().map(|p| p.2).collect();
    let spans: Vec<(i32, i32)> = bars.iter().map(|b| b.1).collect();
    let (point_hits, bar_hits) = row_hits(&xs, INSTANCE_HALF_PX, &spans);
    let rows = (top_px + INSTANCE_ROW.0, top_px + INSTANCE_ROW.1);
    let points = points
        .iter()
        .zip(point_hits)
        .map(|(&(event, part, _), h)| PartHit {
            event,
            part,
            rects: vec![Rect::new(h, rows)],
        });
    let bars = bars
        .iter()
        .zip(bar_hits)
        .map(|(&(event, _), pieces)| PartHit {
            event,
            part: Part::Body,
            rects: pieces.into_iter().map(|p| Rect::new(p, rows)).collect(),
        });
    points.chain(bars).collect()
}

/// The hit areas of `part` of `event`, from a lane's list.
pub fn rects_of(hits: &[PartHit], event: usize, part: Part) -> &[Rect] {
    hits.iter()
        .find(|h| h.event == event && h.part == part)
        .map_or(&[], |h| h.rects.as_slice())
}

#[cfg(test)]
mod tests {
    use super::super::geometry::LockView;
    use super::*;
    use crate::sim::presets::{default_scenario, presets};

    fn lane_hits(s: &crate::sim::Scenario, c: usize, handles: bool) -> Vec<PartHit> {
        let l = Layout::new(1280, s.clients.len(), true, 110);
        client_hits(&l, 200, &s.clients[c].events, handles)
    }

    #[test]
    fn bs_acquire_and_debit_each_keep_their_own_side() {
        // The default page: B acquires at 31 ms and debits at 32 ms, about 15 px apart.
        let s = default_scenario();
        let hits = lane_hits(&s, 1, true);
        let acquire = rects_of(&hits, 0, Part::Body)[0];
        let debit = rects_of(&hits, 1, Part::Body)[0];
        let l = Layout::new(1280, 2, true, 110);
        let (xa, xd) = (l.axis.x(31), l.axis.x(32));
        assert!(acquire.x <= xa && xa < acquire.x + acquire.w);
        // The acquire's right half, up to the midpoint, is the acquire's.
        assert_eq!(acquire.x + acquire.w, xa + (xd - xa + 1) / 2);
        assert_eq!(debit.x, acquire.x + acquire.w);
        assert!(!acquire.overlaps(&debit));
    }

    /// No two hit areas of a lane overlap, and every event of it can be grabbed somewhere.
    fn assert_apart(hits: &[PartHit], events: usize, lane: &str) {
        let all: Vec<(&PartHit, &Rect)> = hits
            .iter()
            .flat_map(|h| h.rects.iter().map(move |r| (h, r)))
            .collect();
        for (i, (ha, a)) in all.iter().enumerate() {
            for (hb, b) in &all[i + 1..] {
                assert!(
                    !a.overlaps(b),
                    "{lane}: {:?} {a:?} and {:?} {b:?} overlap",
                    (ha.event, ha.part),
                    (hb.event, hb.part),
                );
            }
        }
        for i in 0..events {
            let area: i32 = hits
                .iter()
                .filter(|h| h.event == i)
                .flat_map(|h| &h.rects)
                .map(|r| r.w * r.h)
                .sum();
            assert!(area > 0, "{lane}: event {i} cannot be grabbed");
        }
    }

    #[test]
    fn no_two_parts_of_any_presets_client_lane_overlap() {
        for p in presets() {
            for handles in [true, false] {
                for (c, client) in p.scenario.clients.iter().enumerate() {
                    let hits = lane_hits(&p.scenario, c, handles);
                    assert_apart(&hits, client.events.len(), &format!("{} client {c}", p.id));
                }
            }
        }
    }

    fn instance_lane_hits(events: &[InstanceEvent], n: usize, handles: bool) -> Vec<PartHit> {
        let l = Layout::with_lock(1280, 2, LockView::Instances(n), true, 140);
        instance_hits(&l, 300, events, handles)
    }

    #[test]
    fn no_two_parts_of_any_presets_instance_lane_overlap() {
        let mut lanes = 0;
        for p in presets() {
            let Some(redlock) = p.scenario.lock.redlock() else {
                continue;
            };
            for handles in [true, false] {
                for (k, inst) in redlock.instances.iter().enumerate() {
                    let n = redlock.instances.len();
                    let hits = instance_lane_hits(&inst.events, n, handles);
                    assert_apart(&hits, inst.events.len(), &format!("{} {}", p.id, inst.name));
                    lanes += usize::from(k == 0);
                }
            }
        }
        assert!(lanes > 0, "some preset is Redlock");
    }

    #[test]
    fn crowded_instance_events_each_keep_their_own_area() {
        // Two clock jumps 1 ms apart, a crash starting where a partition ends, and a second
        // crash inside the first: drawn shapes overlap, grab areas do not.
        let events = [
            InstanceEvent::ClockJump {
                at_ms: 10,
                by_ms: 50,
                over_ms: 0,
            },
            InstanceEvent::ClockJump {
                at_ms: 11,
                by_ms: -5,
                over_ms: 0,
            },
            InstanceEvent::Partition {
                at_ms: 20,
                duration_ms: 10,
                client: None,
            },
            InstanceEvent::Crash {
                at_ms: 30,
                down_ms: 40,
                persistent: false,
            },
            InstanceEvent::Crash {
                at_ms: 40,
                down_ms: 5,
                persistent: true,
            },
        ];
        for handles in [true, false] {
            let hits = instance_lane_hits(&events, 5, handles);
            assert_apart(&hits, events.len(), "crowded");
        }
        // The two jumps split the gap between them at its midpoint.
        let hits = instance_lane_hits(&events, 5, true);
        let (a, b) = (
            rects_of(&hits, 0, Part::Body)[0],
            rects_of(&hits, 1, Part::Body)[0],
        );
        assert_eq!(a.x + a.w, b.x);
        // The partition's end handle and the crash's start handle share 30 ms: each gets one.
        assert_eq!(rects_of(&hits, 2, Part::End).len(), 1);
        assert_eq!(rects_of(&hits, 3, Part::Start).len(), 1);
    }

    #[test]
    fn a_pause_body_is_what_its_edges_leave() {
        let s = default_scenario();
        let hits = lane_hits(&s, 0, true);
        let body = rects_of(&hits, 1, Part::Body);
        let (start, end) = (
            rects_of(&hits, 1, Part::Start)[0],
            rects_of(&hits, 1, Part::End)[0],
        );
        assert_eq!(body.len(), 1);
        assert_eq!(body[0].x, start.x + start.w);
        assert_eq!(body[0].x + body[0].w, end.x);
        // Read-only: no edges, the whole bar is the body.
        let hits = lane_hits(&s, 0, false);
        let l = Layout::new(1280, 2, true, 110);
        assert_eq!(rects_of(&hits, 1, Part::Body)[0].x, l.axis.x(1));
        assert!(rects_of(&hits, 1, Part::End).is_empty());
    }
}
