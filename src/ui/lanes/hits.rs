//! Where each draggable part of a client's lane can be grabbed. Every part gets an area of its
//! own: markers share one row and split the gap with a close neighbour, pause edges and debit
//! arrivals share the row below and split theirs, and a pause's body takes what its edges leave.
//! The lane draws exactly these rectangles as its hit areas (nothing else in it takes the
//! pointer), so the rule "no two overlap" is tested here, natively, on every preset.

use super::geometry::{order_of, row_hits, Layout};
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

/// The hit areas of `part` of `event`, from a lane's list.
pub fn rects_of(hits: &[PartHit], event: usize, part: Part) -> &[Rect] {
    hits.iter()
        .find(|h| h.event == event && h.part == part)
        .map_or(&[], |h| h.rects.as_slice())
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn no_two_parts_of_any_presets_client_lane_overlap() {
        for p in presets() {
            for handles in [true, false] {
                for c in 0..p.scenario.clients.len() {
                    let hits = lane_hits(&p.scenario, c, handles);
                    let all: Vec<(&PartHit, &Rect)> = hits
                        .iter()
                        .flat_map(|h| h.rects.iter().map(move |r| (h, r)))
                        .collect();
                    for (i, (ha, a)) in all.iter().enumerate() {
                        for (hb, b) in &all[i + 1..] {
                            assert!(
                                !a.overlaps(b),
                                "{} client {c}: {:?} {:?} and {:?} {:?} overlap",
                                p.id,
                                (ha.event, ha.part),
                                a,
                                (hb.event, hb.part),
                                b
                            );
                        }
                    }
                    // Every event can be grabbed somewhere.
                    for (i, _) in p.scenario.clients[c].events.iter().enumerate() {
                        let area: i32 = hits
                            .iter()
                            .filter(|h| h.event == i)
                            .flat_map(|h| &h.rects)
                            .map(|r| r.w * r.h)
                            .sum();
                        assert!(area > 0, "{} client {c} event {i} cannot be grabbed", p.id);
                    }
                }
            }
        }
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
